// The one binary loader: finds the compiled addon and initialises it with rxcuda's error classes
// and the completion drain.
import { loadAddon } from './binding.js';
import { CudaError, NvrtcError } from '../base/errors.js';
import { completionMailbox, drainCompletions } from './completions.js';
import { checkAgainstAddon, checkLaunchBlockLayout } from './launch-block.js';
import { NOTIFY_FLAGS, type Addon, type Backend, type DriverInfo } from './types.js';

function load(): Addon {
  return loadAddon<Addon & { init(options: object): void }>((addon) => {
    checkLaunchBlockLayout(addon.launchBlockLayout);
    checkAgainstAddon('notify() flag table', 'notifyFlags', addon.notifyFlags, NOTIFY_FLAGS);
    addon.init({
      CudaError,
      NvrtcError,
      onCompletions: drainCompletions,
      completionIds: completionMailbox.ids,
      completionStatuses: completionMailbox.statuses,
    });
  });
}

/** The addon of this environment (main thread or worker), loaded once. */
export const addon: Addon = load();

/** The CUDA backend's native classes. */
export const cudaBackend: Backend = {
  kind: 'cuda', Device: addon.Device, Stream: addon.Stream, Event: addon.Event, allocHost: addon.allocHost,
  freeHost: addon.freeHost, registerHost: addon.registerHost, unregisterHost: addon.unregisterHost, viewHost: addon.hostView,
};

/** The reason no CUDA device can be used, as a CudaError (for `Device.get` and friends). */
export function driverUnavailable(info: DriverInfo): CudaError {
  if (info.code === 0) return new CudaError(100, 'CUDA_ERROR_NO_DEVICE', 'cuDeviceGetCount', 'the NVIDIA driver sees no CUDA device');
  return new CudaError(info.code, info.codeName, 'cuInit', info.problem);
}
