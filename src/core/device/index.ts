// device/: the engines below Device, Stream and Event (core/api/): a device's engine and its
// completion points, each of a stream's concerns in a file of its own (commands, host steps,
// waits, value watches, spinning waits), events' engines, and graph conditions, which kernels take
// as arguments. Imports base/, native/, memory/ and queue/.
export type { StreamOptions, StreamEvents } from './stream-options.js';
export { GraphCondition, ConditionValue } from './condition.js';
export { MAX_SPIN_US } from './spin-wait.js';
