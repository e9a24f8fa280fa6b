// The host backend's native classes: the addon's CPU reference device, streams and events, with
// page-locking kept in TypeScript (registrations.ts), since nothing is locked there.
import { addon } from '../native/addon.js';
import type { Backend } from '../native/types.js';
import { registerHostRange, unregisterHostRange } from './registrations.js';

/** The host backend's native classes, under the CUDA backend's contract. */
export const hostBackend: Backend = {
  kind: 'host', Device: addon.HostDevice, Stream: addon.HostStream, Event: addon.HostEvent, allocHost: addon.hostAllocHost,
  freeHost: addon.hostFreeHost, registerHost: registerHostRange, unregisterHost: unregisterHostRange, viewHost: addon.hostView,
};
