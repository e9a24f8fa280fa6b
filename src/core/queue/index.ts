// queue/: a stream's work as a stream engine (stream-engine.ts) with the scheduler's queue in front of the driver
// (scheduler.ts), host steps and completion callbacks (host-steps.ts), where failures go
// (failure-route.ts), and a device's sticky error, which breaks every lane of the device
// (faults.ts, open-lanes.ts). Imports base/, native/, memory/.
export { STEP_FAILED_WARNING, type HostStepContext } from './failure-route.js';
export type { HostLaunchOptions, UserData } from './user-data.js';
export { DeadlockError } from './self-wait.js';
