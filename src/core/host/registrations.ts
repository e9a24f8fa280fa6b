// The host device's page-locking: nothing is locked, but what was registered is kept, so that a
// range registered twice is refused as cuMemHostRegister refuses it, and code tried on the host
// device fails there as it would on a GPU. Registrations are portable (every device of the process
// sees them, as with CU_MEMHOSTREGISTER_PORTABLE), so the ranges are kept for all devices at once.
import { CudaError } from '../base/errors.js';

const NAME = 'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED';

/** Registered ranges: start address → bytes. */
const registered = new Map<bigint, number>();

/**
 * Records `bytes` at `ptr` as registered (with any host device: the range is the process's).
 * @throws CudaError 712 (`CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`) when they overlap a range
 * registered already.
 */
export function registerHostRange(_device: object, ptr: bigint, bytes: number): void {
  const end = ptr + BigInt(bytes);
  for (const [start, length] of registered)
    if (ptr < start + BigInt(length) && start < end)
      throw new CudaError(712, NAME, 'cuMemHostRegister', `cuMemHostRegister failed: ${NAME} (part or all of the requested memory range is already mapped)`);
  registered.set(ptr, bytes);
}

/** Forgets the range registered at `ptr`. */
export function unregisterHostRange(_device: object, ptr: bigint): void {
  registered.delete(ptr);
}
