// The host device's page-locking: nothing is locked, but what was registered is kept, so that a
// range registered twice is refused as cuMemHostRegister refuses it, and code tried on the host
// device fails there as it would on a GPU.
import { CudaError } from './errors.js';

const NAME = 'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED';

/** Registered ranges (start address → bytes), by native host device. */
const registered = new WeakMap<object, Map<bigint, number>>();

/**
 * Records `bytes` at `ptr` as registered with `device`.
 * @throws CudaError 712 (`CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`) when they overlap a range
 * registered already.
 */
export function registerHostRange(device: object, ptr: bigint, bytes: number): void {
  let ranges = registered.get(device);
  if (!ranges) registered.set(device, (ranges = new Map()));
  const end = ptr + BigInt(bytes);
  for (const [start, length] of ranges)
    if (ptr < start + BigInt(length) && start < end)
      throw new CudaError(712, NAME, 'cuMemHostRegister', `cuMemHostRegister failed: ${NAME} (part or all of the requested memory range is already mapped)`);
  ranges.set(ptr, bytes);
}

/** Forgets the range registered at `ptr`. */
export function unregisterHostRange(device: object, ptr: bigint): void {
  registered.get(device)?.delete(ptr);
}
