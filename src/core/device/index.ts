// device/: the object model's public faces, Device, Stream and Event, with each of Stream's
// concerns in a file of its own, completion points behind several lanes, and spinning waits.
// Imports base/, native/, host/, memory/ and queue/.
export { Device } from './device.js';
export { Stream } from './stream.js';
export type { StreamOptions, StreamEvents } from './stream-options.js';
export { Event, type EventOptions } from './event.js';
export { GraphCondition, ConditionValue } from './condition.js';
export { MAX_SPIN_US } from './spin-wait.js';
