// base/: what every folder uses, importing nothing of rxcuda: the error classes and the argument
// checks that word their messages, element types and half precision, scalars as a kernel takes
// them, and the one thenable test.
export { RxcudaError, CudaError, NvrtcError, HostStepTimeoutError, GraphError, ArgumentTypeError, ArgumentRangeError, isRxcudaError, type GraphErrorReason, type ArgumentTypeErrorCode } from './errors.js';
export { LoopLimitError } from './loop-limit-error.js';
export { DTYPES, isDType, toHalfBits, fromHalfBits, toBFloat16Bits, fromBFloat16Bits, type DType, type TypedArrayOf, type DTypeOfArray } from './dtype.js';
