// native/: the one loader of the addon (binding.ts, addon.ts), the binding's types (types.ts), and
// the JavaScript end of the completion queue (completions.ts). Imports base/ only.
export type { DeviceProperties, DriverInfo, KernelAttributes } from './facts.js';
