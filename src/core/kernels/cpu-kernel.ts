// Kernels on the host device: a JavaScript implementation run in stream order, as a host step,
// with pointer arguments turned into TypedArrays over the memory they point to.
import type { KernelAttributes, KernelLauncher, NativeKernel } from '../native/types.js';
import { DTYPES, bfloat16Bits, bfloat16Value, halfBits, halfValue, type DType, type TypedArrayOf } from '../base/dtype.js';
import { isHostMemory, isMemory, memoryClasses } from '../memory/memory-view.js';
import type { DeviceAllocation } from '../memory/allocation.js';
import type { LaunchConfig } from './launch-config.js';
import type { Signature } from './kernel-types.js';
import type { TypedPointer } from './kernel-types.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { hostStep } from '../queue/host-steps.js';
import { withLaunch } from './current-launch.js';
import { CudaError, received, typeError } from '../base/errors.js';
import { HEADER_BYTES, type CompiledParam } from './packer.js';
import { isThenable } from '../base/thenable.js';
import type { ConditionValue } from '../device/condition.js';

/**
 * What a CPU implementation receives for each parameter type: memory as a TypedArray, of the
 * declared element type for `'ptr<D>'` (a `Float32Array` for `'ptr<f32>'`); for a plain `'ptr'`,
 * a TypedArray of the memory's own type, or the address as it was given; for a struct, a copy of
 * the bytes it held at launch, of the kind given (an ArrayBuffer, or a view of its builtin type);
 * for a `'condition'`, the condition's value in the launch, to `set`.
 */
export type CpuArgOf<P> = P extends 'i64' | 'u64'
  ? number | bigint
  : P extends DType
    ? number
    : P extends TypedPointer<infer D>
      ? TypedArrayOf[D]
      : P extends 'ptr'
        ? TypedArrayOf[DType] | bigint
        : P extends 'condition'
          ? ConditionValue
          : ArrayBuffer | ArrayBufferView;

/** The arguments of a CPU implementation of a kernel with signature S. */
export type CpuArgs<S extends Signature> = { readonly [K in keyof S]: CpuArgOf<S[K]> };

/**
 * A kernel's CPU implementation, for the host device: called once per launch, in stream order,
 * with the launch configuration and the arguments (memory as TypedArrays over it). It may be
 * async; later work on the stream waits for it. One that throws a sticky `CudaError` (code 700,
 * `CUDA_ERROR_ILLEGAL_ADDRESS`, say) breaks its device as that fault would break a GPU's context
 * ({@link Device.poisoned}): a way to see what a pipeline does when a device breaks.
 */
export type CpuKernel<S extends Signature = Signature> = (config: LaunchConfig, args: CpuArgs<S>) => unknown;


/**
 * A scalar argument as a GPU kernel receives it: an f32 rounded to single precision, an f16 to
 * half precision (1e6 becomes Infinity), so that the CPU implementation computes what the GPU
 * would. Other arguments are given as they are.
 */
function asReceived(type: Signature[number] | undefined, value: unknown): unknown {
  if (type === 'f32' && typeof value === 'number') return Math.fround(value);
  if (type === 'f16' && typeof value === 'number') return halfValue(halfBits(value));
  if (type === 'bf16' && typeof value === 'number') return bfloat16Value(bfloat16Bits(value));
  return value;
}

function view(value: unknown): unknown {
  if (isHostMemory(value)) return memoryClasses.elements(value); // closed since the launch, its memory waits for this kernel
  if (!isMemory(value)) return value;
  // Over the allocation's one buffer, which its free detaches (a kept view then empties).
  const allocation = value.allocation as DeviceAllocation;
  const Array = DTYPES[value.dtype as DType].Array;
  return new Array(allocation.hostBuffer(), Number(value.ptr - allocation.ptr), value.length);
}

const NO_ATTRIBUTES: KernelAttributes = Object.freeze({
  maxThreadsPerBlock: 1024, sharedSizeBytes: 0, constSizeBytes: 0, localSizeBytes: 0,
  numRegs: 0, ptxVersion: 0, binaryVersion: 0, maxDynamicSharedSizeBytes: 0,
});

/** Dynamic shared memory a launch may ask for without opting in, and the most with it (the host device's limits). */
const SHARED_DEFAULT = 49152;
const SHARED_OPTIN = 232448;
const MAX_DYNAMIC_SHARED = 8; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

/** The driver's CUDA_ERROR_INVALID_VALUE from `call`, as a GPU gives it for the same request. */
function invalidValue(call: string, why: string): CudaError {
  return new CudaError(1, 'CUDA_ERROR_INVALID_VALUE', call, `${call} failed: CUDA_ERROR_INVALID_VALUE (${why})`);
}

/**
 * A struct argument as the launch packed it (a GPU kernel receives those bytes, whatever the array
 * holds when it runs): a copy of the block's `size` bytes at `at`, of the kind the caller gave.
 */
function structAsPacked(block: ArrayBuffer, at: number, size: number, given: unknown): ArrayBuffer | ArrayBufferView {
  const bytes = block.slice(at, at + size);
  if (!ArrayBuffer.isView(given)) return bytes;
  if (Buffer.isBuffer(given)) return Buffer.from(bytes);
  // The builtin kind, never a constructor the array names itself.
  for (const Kind of VIEW_KINDS) if (given instanceof Kind) return new Kind(bytes);
  return new Uint8Array(bytes);
}

const VIEW_KINDS: readonly (new (buffer: ArrayBuffer) => ArrayBufferView)[] = [
  DataView, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array,
];

/** The host device's stand-in for a native kernel: it launches `cpu` as a host step. */
export class CpuLauncher implements NativeKernel {
  readonly #cpu: CpuKernel;
  readonly #name: string;
  readonly #signature: Signature;
  readonly #compiled: readonly CompiledParam[] | null;
  /** Dynamic shared memory launches may ask for: the default until setMaxDynamicSharedMemory. */
  #maxDynamicShared = 0;

  /**
   * @param name the kernel's name, which its failures are reported by.
   * @param signature its parameters, by which scalars are given as the GPU would receive them.
   * @param compiled the parameters of the kernel in the compiled source, where the host device
   * checked it: its signature is held against them as a GPU's is against the driver's.
   */
  constructor(cpu: CpuKernel, name: string, signature: Signature, compiled?: readonly CompiledParam[]) {
    this.#cpu = cpu;
    this.#name = name;
    this.#signature = signature;
    this.#compiled = compiled ?? null;
  }

  handle(): bigint {
    return 0n;
  }

  paramInfo(): readonly CompiledParam[] | null {
    return this.#compiled;
  }

  attributes(): KernelAttributes {
    return this.#maxDynamicShared === 0 ? NO_ATTRIBUTES : Object.freeze({ ...NO_ATTRIBUTES, maxDynamicSharedSizeBytes: this.#maxDynamicShared });
  }

  /** Only the dynamic shared memory limit means something here, checked as a GPU checks it. */
  setAttribute(attribute: number, value: number): void {
    if (attribute !== MAX_DYNAMIC_SHARED) return;
    if (value > SHARED_OPTIN) throw invalidValue('cuFuncSetAttribute', `more than the ${SHARED_OPTIN} bytes of shared memory a block may have`);
    this.#maxDynamicShared = value;
  }

  occupancy(): number {
    return 1;
  }

  suggestBlockSize(_sharedMem: number, blockLimit: number): { minGridSize: number; blockSize: number } {
    return { minGridSize: 1, blockSize: blockLimit > 0 ? Math.min(256, blockLimit) : 256 };
  }

  /**
   * The launch is the command of a host step, and returns its pause (see scheduler.ts); the CPU
   * implementation runs with the launch's context current (currentLaunch()), across its awaits.
   * The arguments are read again here, after the packer checked them: memory among them must be
   * what the packer wrote into the block (an argument array whose getters answer differently on a
   * second read would otherwise hand the kernel memory that was never checked, freed memory
   * included).
   */
  bind(block: ArrayBuffer, offsets: Uint32Array): KernelLauncher {
    const cpu = this.#cpu;
    const signature = this.#signature;
    const step = { kind: 'launch', name: this.#name } as const;
    const words = new BigUint64Array(block);
    return (stream, config, args, context) => {
      const { sharedMem } = config as LaunchConfig;
      if (sharedMem > Math.max(SHARED_DEFAULT, this.#maxDynamicShared))
        throw invalidValue('cuLaunchKernelEx', `${sharedMem} bytes of dynamic shared memory, more than the kernel allows: raise it with setMaxDynamicSharedMemory`);
      const given = [...args];
      given.forEach((value, i) => {
        const param = signature[i];
        if (param === 'condition') return; // the replay gave the condition's value in this launch
        if (param !== undefined && typeof param !== 'string') return void (given[i] = structAsPacked(block, HEADER_BYTES + offsets[i]!, param.struct, value));
        if (!isMemory(value)) return;
        const at = HEADER_BYTES + offsets[i]!;
        if (at % 8 !== 0 || words[at / 8] !== value.ptr)
          typeError(`args[${i}]`, 'the value it was when checked (read once)', received('another value on a second read'));
      });
      // A sticky CudaError breaks the device, as a GPU kernel's illegal address does its context.
      const lane = stream as StreamEngine;
      const broke = (error: unknown): never => lane.faults.fail(error);
      const run = () => {
        // A device broken meanwhile (by a kernel on another of its streams) runs no more kernels.
        if (lane.faults.poisoned) return broke(lane.faults.poisoned);
        try {
          const out = cpu(config as LaunchConfig, given.map((value, i) => asReceived(signature[i], view(value))) as never);
          return isThenable(out) ? out.then(undefined, broke) : out;
        } catch (error) {
          return broke(error);
        }
      };
      return hostStep(lane, () => (context ? withLaunch(context, run, true) : run()), step, undefined, cpu)();
    };
  }
}
