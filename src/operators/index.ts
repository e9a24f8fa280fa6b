// The reactive layer: RxJS operators over rxcuda streams.
export { onStreams, lanesFrom, framesFrom, type FramesOptions, type LaneTarget } from './on-streams.js';
export { upload, type UploadSource, type DTypeOfSource } from './upload.js';
export { launch, type LaunchOperatorOptions } from './launch.js';
export { gemm, type GemmCall } from './gemm.js';
export { fft, type FftCall } from './fft.js';
export { host, type HostOptions } from './host.js';
export { download, type DownloadOptions, type LendOptions } from './download.js';
export { completed } from './completed.js';
export { fanOut, type FanOutOptions } from './fan-out.js';
export { MAX_BRANCHES } from './pipeline/side-streams.js';
export { TEARDOWN_FAILED_WARNING } from './pipeline/teardown.js';
export { enqueue } from './enqueue.js';
export { replay, REPLAY_EAGER_WARNING } from './replay.js';
export { loopOnDevice, branchOnDevice, DEVICE_CONTROL_EAGER_WARNING, type DeviceBody, type LoopOnDeviceOptions, type BranchOnDeviceOptions } from './device-control.js';
export { LanePool, Lane, MAX_LANES, MAX_IN_FLIGHT, DEFAULT_POOL_SPIN, type LanePoolOptions, type LanePoolStats, type DeviceFaultPolicy } from './pipeline/lane-pool.js';
export { Work, PipelineError } from './pipeline/work.js';
export type { NamedArray, NamedIn, With, HostData, DTypeOfData } from './pipeline/slots.js';
export * from './timeline/index.js';
