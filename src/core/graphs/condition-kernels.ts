// The built-in kernels of conditional graphs on CUDA, compiled once per device: the setter of a
// condition from a value in memory, and those that bound a while loop (a counter reset before the
// loop, a guard at the top of each iteration, and a count of the executable's launches at its
// start, by which a stopped loop is reported for the launch that ran it). They call
// cudaGraphSetConditional, so the module is linked with the device runtime. The host device runs
// the same logic in TypeScript (conditional-host.ts) and needs none of them.
import type { DeviceEngine } from '../device/device-engine.js';
import type { CompileOptions } from '../compiler/program.js';
import type { Signature } from '../kernels/kernel-types.js';
import type { NodeKernel } from './node-work.js';

/** Loops whose counters the module holds at once, per device. */
export const LOOP_SLOTS = 65536;

const SOURCE = String.raw`
// cudaGraphSetConditional and cudaGraphConditionalHandle: declared by NVRTC and nvcc themselves.
typedef unsigned long long u64;
__device__ unsigned rxcuda_loop_counters[${LOOP_SLOTS}];
// Per executable (a slot each): its launches so far, and which executable holds the slot now.
__device__ unsigned rxcuda_launch_count[${LOOP_SLOTS}];
__device__ unsigned rxcuda_launch_owner[${LOOP_SLOTS}];

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

// At the start of each launch of an executable with bounded loops: counts the launch (from 1, for
// each executable that takes the slot: owner is its own number).
extern "C" __global__ void rxcuda_launch_begin(unsigned exec, unsigned owner) {
  if (rxcuda_launch_owner[exec] != owner) { rxcuda_launch_owner[exec] = owner; rxcuda_launch_count[exec] = 0; }
  rxcuda_launch_count[exec] += 1;
}

// At the top of each iteration of a bounded while loop: the body runs (its IF condition set) while
// the iterations stay within max; the one after them stops the loop, and notes the loop (numbered
// from 1) in the launch's entry of the executable's ring of reports, unless one was noted already.
extern "C" __global__ void rxcuda_loop_guard(cudaGraphConditionalHandle loop, cudaGraphConditionalHandle body, unsigned slot, unsigned max,
                                             unsigned* ring, unsigned ring_size, unsigned exec, unsigned loop_number) {
  unsigned n = ++rxcuda_loop_counters[slot];
  if (n <= max) { cudaGraphSetConditional(body, 1); return; }
  cudaGraphSetConditional(body, 0);
  cudaGraphSetConditional(loop, 0);
  volatile unsigned* at = ring + rxcuda_launch_count[exec] % ring_size;
  if (*at == 0) *at = loop_number;
}
`;

/** Loaded code, as the condition kernels take it from a module (a public Module is one). */
export interface KernelSource {
  kernel<S extends Signature>(name: string, signature: S): NodeKernel<S>;
}

/**
 * Compiles CUDA C++ for one device and loads it there: what {@link Device.compile} does
 * (`compileModule` in api/module.ts), handed down by the public classes.
 */
export type KernelCompiler = (source: string, options: CompileOptions) => Promise<KernelSource>;

/** The kernels, loaded on one device. */
export interface ConditionKernels {
  readonly setCondition: NodeKernel<readonly ['condition', 'ptr', 'u32', 'u32', 'f64']>;
  readonly loopReset: NodeKernel<readonly ['u32']>;
  readonly loopGuard: NodeKernel<readonly ['condition', 'condition', 'u32', 'u32', 'ptr', 'u32', 'u32', 'u32']>;
  readonly launchBegin: NodeKernel<readonly ['u32', 'u32']>;
  /** Counter slots free for executables' bounded loops, and for the executables' launch counts. */
  readonly slots: LoopSlots;
}

/** A device's loop counter slots: each bounded loop of an open executable holds one. */
export class LoopSlots {
  readonly #free: number[] = [];
  #next = 0;
  #owners = 0;

  /** A number for an executable that takes a launch-count slot, never given before (from 1). */
  owner(): number {
    return (this.#owners = (this.#owners % 0xffffffff) + 1);
  }

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

const loading = new Map<DeviceEngine, Promise<ConditionKernels>>();
const loaded = new Map<DeviceEngine, ConditionKernels>();
/** Host devices whose kernels were asked for: they need none, but are ready as a GPU is, once asked. */
const readyHosts = new WeakSet<DeviceEngine>();

/**
 * Whether the device's kernels are loaded. The host device needs none, but answers as a GPU does
 * (ready once {@link loadConditionKernels} has resolved), so that code that forgets to wait fails
 * on it as it would on a GPU.
 */
export function conditionKernelsReady(device: DeviceEngine): boolean {
  return device.kind === 'host' ? readyHosts.has(device) : loaded.has(device);
}

/** The device's kernels, once loaded (see {@link loadConditionKernels}). */
export function conditionKernelsOf(device: DeviceEngine): ConditionKernels | undefined {
  return loaded.get(device);
}

/**
 * Compiles the device's kernels with `compile` and loads them, once per device: a later call
 * while they load or once they have loaded is given the same Promise, and its `compile` is not
 * called (a failed compile is tried again, with the next call's). On the host device resolves at
 * once.
 */
export function loadConditionKernels(device: DeviceEngine, compile: KernelCompiler): Promise<unknown> {
  if (device.kind === 'host') return Promise.resolve().then(() => void readyHosts.add(device));
  let promise = loading.get(device);
  if (promise === undefined) {
    promise = compile(SOURCE, { name: 'rxcuda-conditions.cu' }).then((module) => {
      const kernels: ConditionKernels = {
        setCondition: module.kernel('rxcuda_set_condition', ['condition', 'ptr', 'u32', 'u32', 'f64'] as const),
        loopReset: module.kernel('rxcuda_loop_reset', ['u32'] as const),
        loopGuard: module.kernel('rxcuda_loop_guard', ['condition', 'condition', 'u32', 'u32', 'ptr', 'u32', 'u32', 'u32'] as const),
        launchBegin: module.kernel('rxcuda_launch_begin', ['u32', 'u32'] as const),
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
