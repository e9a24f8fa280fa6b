// The built-in kernels of conditional graphs on CUDA, compiled once per device: the setter of a
// condition from a value in memory, and the two that bound a while loop (a counter reset before the
// loop, a guard at the top of each iteration). They call cudaGraphSetConditional, so the module is
// linked with the device runtime. The host device runs the same logic in TypeScript
// (conditional-host.ts) and needs none of them.
import type { Device } from '../device/device.js';
import type { Kernel } from '../kernels/kernel.js';
import { compileModule } from '../kernels/device-members.js';
import type { Module } from '../kernels/module.js';

/** Loops whose counters the module holds at once, per device. */
export const LOOP_SLOTS = 65536;

const SOURCE = String.raw`
// cudaGraphSetConditional and cudaGraphConditionalHandle: declared by NVRTC and nvcc themselves.
typedef unsigned long long u64;
__device__ unsigned rxcuda_loop_counters[${LOOP_SLOTS}];

// The element at p, of type code t (as CONDITION_DTYPES orders them), as a double; op 0 gives the
// value as an unsigned condition (0xffffffff for one that is negative, fractional or too large),
// 1-6 a comparison with k (==, !=, <, <=, >, >=).
extern "C" __global__ void rxcuda_set_condition(cudaGraphConditionalHandle h, const void* p, unsigned t, unsigned op, double k) {
  double v;
  switch (t) {
    case 0: v = *(const signed char*)p; break;
    case 1: v = *(const unsigned char*)p; break;
    case 2: v = *(const short*)p; break;
    case 3: v = *(const unsigned short*)p; break;
    case 4: v = *(const int*)p; break;
    case 5: v = *(const unsigned*)p; break;
    case 6: v = (double)*(const long long*)p; break;
    case 7: v = (double)*(const u64*)p; break;
    case 8: v = *(const float*)p; break;
    default: v = *(const double*)p; break;
  }
  unsigned c;
  switch (op) {
    case 0: c = v == 0 ? 0u : (v >= 0 && v < 4294967296.0 && v == (double)(unsigned)v) ? (unsigned)v : 0xffffffffu; break;
    case 1: c = v == k; break;
    case 2: c = v != k; break;
    case 3: c = v < k; break;
    case 4: c = v <= k; break;
    case 5: c = v > k; break;
    default: c = v >= k; break;
  }
  cudaGraphSetConditional(h, c);
}

extern "C" __global__ void rxcuda_loop_reset(unsigned slot) { rxcuda_loop_counters[slot] = 0; }

// At the top of each iteration of a bounded while loop: the body runs (its IF condition set) while
// the iterations stay within max; the one after them stops the loop and reports the overrun.
extern "C" __global__ void rxcuda_loop_guard(cudaGraphConditionalHandle loop, cudaGraphConditionalHandle body, unsigned slot, unsigned max, unsigned* report) {
  unsigned n = ++rxcuda_loop_counters[slot];
  if (n <= max) { cudaGraphSetConditional(body, 1); return; }
  cudaGraphSetConditional(body, 0);
  cudaGraphSetConditional(loop, 0);
  *(volatile unsigned*)report += 1;
}
`;

/** The kernels, loaded on one device. */
export interface ConditionKernels {
  readonly setCondition: Kernel<readonly ['condition', 'ptr', 'u32', 'u32', 'f64']>;
  readonly loopReset: Kernel<readonly ['u32']>;
  readonly loopGuard: Kernel<readonly ['condition', 'condition', 'u32', 'u32', 'ptr']>;
  /** Loop counter slots free for executables' bounded loops. */
  readonly slots: LoopSlots;
}

/** A device's loop counter slots: each bounded loop of an open executable holds one. */
export class LoopSlots {
  readonly #free: number[] = [];
  #next = 0;

  /** @throws RangeError when every slot is held. */
  take(): number {
    const slot = this.#free.pop() ?? (this.#next < LOOP_SLOTS ? this.#next++ : -1);
    if (slot < 0) throw new RangeError(`Expected at most ${LOOP_SLOTS} bounded while loops in open executables on one device, got more: close executables`);
    return slot;
  }

  give(slot: number): void {
    this.#free.push(slot);
  }
}

const loading = new Map<Device, Promise<ConditionKernels>>();
const loaded = new Map<Device, ConditionKernels>();

/** Whether the device's kernels are loaded (always, on the host device, which needs none). */
export function conditionKernelsReady(device: Device): boolean {
  return device.kind === 'host' || loaded.has(device);
}

/** The device's kernels, once loaded (see {@link loadConditionKernels}). */
export function conditionKernelsOf(device: Device): ConditionKernels | undefined {
  return loaded.get(device);
}

/** Compiles and loads the device's kernels, once; on the host device resolves at once. */
export function loadConditionKernels(device: Device): Promise<unknown> {
  if (device.kind === 'host') return Promise.resolve();
  let promise = loading.get(device);
  if (promise === undefined) {
    promise = compileModule(device, SOURCE, { name: 'rxcuda-conditions.cu' }).then((module: Module) => {
      const kernels: ConditionKernels = {
        setCondition: module.kernel('rxcuda_set_condition', ['condition', 'ptr', 'u32', 'u32', 'f64'] as const),
        loopReset: module.kernel('rxcuda_loop_reset', ['u32'] as const),
        loopGuard: module.kernel('rxcuda_loop_guard', ['condition', 'condition', 'u32', 'u32', 'ptr'] as const),
        slots: new LoopSlots(),
      };
      loaded.set(device, kernels);
      return kernels;
    });
    promise.catch(() => loading.delete(device)); // a failed compile is tried again by the next graph
    loading.set(device, promise);
  }
  return promise;
}
