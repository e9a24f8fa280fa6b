// Kernels that set graph conditions from device code (cudaGraphSetConditional), with CPU
// implementations that set the host device's ConditionValue the same way, compiled once per device.
import type { Device } from '../../src/index.js';

export const CONDITION_SOURCE = String.raw`
// One Jacobi sweep of u[0..n) (ends fixed) in one block of a power-of-two size >= n, at most 256
// threads: each thread relaxes one point from a shared copy; returns (to thread 0) the largest change.
__device__ float sweep(float* u, unsigned n) {
  __shared__ float s[256];
  __shared__ float d[256];
  unsigned i = threadIdx.x;
  float old = i < n ? u[i] : 0.0f;
  s[i] = old;
  __syncthreads();
  float next = old;
  if (i > 0 && i + 1 < n) next = 0.5f * (s[i - 1] + s[i + 1]);
  if (i < n) u[i] = next;
  d[i] = fabsf(next - old);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (i < stride) d[i] = fmaxf(d[i], d[i + stride]);
    __syncthreads();
  }
  return d[0];
}

// A sweep that counts itself and asks for another while the largest change is above tol.
extern "C" __global__ void relax(float* u, unsigned n, float tol, unsigned* sweeps, cudaGraphConditionalHandle more) {
  float change = sweep(u, n);
  if (threadIdx.x == 0) {
    sweeps[0] += 1;
    cudaGraphSetConditional(more, change > tol ? 1u : 0u);
  }
}

// Its twin for a loop driven from the host: the flag goes to memory.
extern "C" __global__ void relax_flag(float* u, unsigned n, float tol, unsigned* sweeps, unsigned* more) {
  float change = sweep(u, n);
  if (threadIdx.x == 0) {
    sweeps[0] += 1;
    more[0] = change > tol ? 1u : 0u;
  }
}

// k += 1; another iteration unless k is a multiple of period.
extern "C" __global__ void tick(unsigned* k, unsigned period, cudaGraphConditionalHandle more) {
  unsigned v = ++k[0];
  cudaGraphSetConditional(more, v % period != 0 ? 1u : 0u);
}

// k += 1; another iteration while k < limit; odd set to k's parity.
extern "C" __global__ void tick_odd(unsigned* k, unsigned limit, cudaGraphConditionalHandle more, cudaGraphConditionalHandle odd) {
  unsigned v = ++k[0];
  cudaGraphSetConditional(more, v < limit ? 1u : 0u);
  cudaGraphSetConditional(odd, v & 1u);
}

// k += 1, and always another iteration: a loop only its bound stops.
extern "C" __global__ void forever(unsigned* k, cudaGraphConditionalHandle more) {
  k[0] += 1;
  cudaGraphSetConditional(more, 1u);
}

// log[k] = 10 k + 1.
extern "C" __global__ void mark(unsigned* log, const unsigned* k) { log[k[0]] = k[0] * 10u + 1u; }

// x[0] += v (one thread).
extern "C" __global__ void add_one(unsigned* x, unsigned v) { x[0] += v; }

// Sets c to v.
extern "C" __global__ void set_to(unsigned v, cudaGraphConditionalHandle c) { cudaGraphSetConditional(c, v); }
`;

/** The sweep of `relax` on the CPU, in f32 as a GPU computes it: the largest change. */
function sweep(u: Float32Array, n: number): number {
  const s = u.slice(0, n);
  let change = 0;
  for (let i = 1; i + 1 < n; i++) {
    const next = Math.fround(0.5 * Math.fround(s[i - 1]! + s[i + 1]!));
    u[i] = next;
    change = Math.max(change, Math.fround(Math.abs(next - s[i]!)));
  }
  return change;
}

/** The kernels of {@link CONDITION_SOURCE} on `device`, with their CPU implementations. */
export async function conditionKernels(device: Device) {
  const module = await device.compile(CONDITION_SOURCE, { name: 'condition-kernels.cu' });
  return {
    module,
    relax: module.kernel('relax', ['ptr<f32>', 'u32', 'f32', 'ptr<u32>', 'condition'], {
      cpu: (_, [u, n, tol, sweeps, more]) => {
        const change = sweep(u, n);
        sweeps[0] = (sweeps[0]! + 1) >>> 0;
        more.set(change > Math.fround(tol));
      },
    }),
    relaxFlag: module.kernel('relax_flag', ['ptr<f32>', 'u32', 'f32', 'ptr<u32>', 'ptr<u32>'], {
      cpu: (_, [u, n, tol, sweeps, more]) => {
        const change = sweep(u, n);
        sweeps[0] = (sweeps[0]! + 1) >>> 0;
        more[0] = change > Math.fround(tol) ? 1 : 0;
      },
    }),
    tick: module.kernel('tick', ['ptr<u32>', 'u32', 'condition'], {
      cpu: (_, [k, period, more]) => {
        const v = (k[0] = (k[0]! + 1) >>> 0);
        more.set(v % period !== 0);
      },
    }),
    tickOdd: module.kernel('tick_odd', ['ptr<u32>', 'u32', 'condition', 'condition'], {
      cpu: (_, [k, limit, more, odd]) => {
        const v = (k[0] = (k[0]! + 1) >>> 0);
        more.set(v < limit);
        odd.set(v & 1);
      },
    }),
    forever: module.kernel('forever', ['ptr<u32>', 'condition'], {
      cpu: (_, [k, more]) => {
        k[0] = (k[0]! + 1) >>> 0;
        more.set(1);
      },
    }),
    mark: module.kernel('mark', ['ptr<u32>', 'ptr<u32>'], {
      cpu: (_, [log, k]) => void (log[k[0]!] = (k[0]! * 10 + 1) >>> 0),
    }),
    addOne: module.kernel('add_one', ['ptr<u32>', 'u32'], {
      cpu: (_, [x, v]) => void (x[0] = (x[0]! + v) >>> 0),
    }),
    setTo: module.kernel('set_to', ['u32', 'condition'], {
      cpu: (_, [v, c]) => c.set(v),
    }),
  };
}

export type ConditionKernels = Awaited<ReturnType<typeof conditionKernels>>;
