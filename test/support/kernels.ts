// CUDA C++ used by the GPU tests, compiled once per test file.
import { Device, type Kernel, type Module } from '../../src/index.js';

export const SOURCE = String.raw`
#include <cuda_fp16.h>

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void saxpy(unsigned n, float a, const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Stores each argument widened, so the host sees how the kernel read its sign and width.
extern "C" __global__ void scalars(signed char i8, unsigned char u8, short i16, unsigned short u16,
                                   int i32, unsigned u32, long long i64, unsigned long long u64,
                                   __half f16, float f32, double f64, unsigned char* out) {
  *(int*)(out + 0) = i8;
  *(unsigned*)(out + 4) = u8;
  *(int*)(out + 8) = i16;
  *(unsigned*)(out + 12) = u16;
  *(int*)(out + 16) = i32;
  *(unsigned*)(out + 20) = u32;
  *(long long*)(out + 24) = i64;
  *(unsigned long long*)(out + 32) = u64;
  *(float*)(out + 40) = __half2float(f16);
  *(float*)(out + 44) = f32;
  *(double*)(out + 48) = f64;
}

struct Params { int a; float b; double c; short d; };

extern "C" __global__ void by_value(Params p, unsigned char* out) {
  *(int*)(out + 0) = p.a;
  *(float*)(out + 4) = p.b;
  *(double*)(out + 8) = p.c;
  *(int*)(out + 16) = p.d;
}

// Holds its stream until the host writes a non-zero flag (or the timeout passes), then stores value.
extern "C" __global__ void latch(volatile unsigned* flag, unsigned* out, unsigned value, unsigned long long timeout) {
  unsigned long long start = now();
  while (*flag == 0) {
    if (now() - start > timeout) { *out = 0xdead; return; }
  }
  *out = value;
}

extern "C" __global__ void store(unsigned* p, unsigned value) { *p = value; }

extern "C" __global__ void copy_u32(const unsigned* src, unsigned* dst) { *dst = *src; }

extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long start = now();
  while (now() - start < ns) {}
}

extern "C" __global__ void count(unsigned* counter) { atomicAdd(counter, 1u); }

extern "C" __global__ void invert(unsigned* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = ~x[i];
}

extern "C" __global__ void add_u32(unsigned* x, unsigned value, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += value;
}

extern "C" __global__ void shared_sum(unsigned* out) {
  extern __shared__ unsigned scratch[];
  scratch[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (unsigned i = 0; i < blockDim.x; i++) s += scratch[i];
    *out = s;
  }
}

template <typename T>
__global__ void scale(T* x, T a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
`;

const compiled = new Map<Device, Promise<Module>>();

/** The test kernels on `device` (compiled without FMA contraction, for exact results). */
export function testModule(device: Device = Device.default()): Promise<Module> {
  let module = compiled.get(device);
  if (!module) {
    module = device.compile(SOURCE, { name: 'test-kernels.cu', options: ['--fmad=false'], expressions: ['scale<float>', 'scale<double>'] });
    compiled.set(device, module);
  }
  return module;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const u32 = (a: unknown) => a as Uint32Array;

/**
 * The kernels the behavioural tests launch, with CPU implementations so that they run on the
 * host device too (CUDA devices ignore those). A latch or spin on the host is an async step:
 * the stream waits, the main thread does not.
 */
export async function testKernels(device: Device) {
  const module = await testModule(device);
  return {
    module,
    store: module.kernel('store', ['ptr', 'u32'], { cpu: (_, [p, v]) => void (u32(p)[0] = v) }),
    copy: module.kernel('copy_u32', ['ptr', 'ptr'], { cpu: (_, [src, dst]) => void (u32(dst)[0] = u32(src)[0]!) }),
    count: module.kernel('count', ['ptr'], {
      cpu: (config, [counter]) => void (u32(counter)[0]! += config.threadsPerBlock * config.grid.reduce((a, b) => a * b)),
    }),
    spin: module.kernel('spin', ['u64'], { cpu: (_, [ns]) => sleep(Number(ns) / 1e6) }),
    latch: module.kernel('latch', ['ptr', 'ptr', 'u32', 'u64'], {
      cpu: async (_, [flag, out, value, timeout]) => {
        const deadline = performance.now() + Number(timeout) / 1e6;
        while (u32(flag)[0] === 0) {
          if (performance.now() > deadline) return void (u32(out)[0] = 0xdead);
          await sleep(1);
        }
        u32(out)[0] = value as number;
      },
    }),
    // Typed pointers: on the GPU the driver sees plain 8-byte pointers; the CPU implementations
    // get Uint32Arrays and Float32Arrays without casts.
    invert: module.kernel('invert', ['ptr<u32>', 'u32'], {
      cpu: (_, [x, n]) => {
        for (let i = 0; i < n; i++) x[i] = ~x[i]! >>> 0;
      },
    }),
    addU32: module.kernel('add_u32', ['ptr<u32>', 'u32', 'u32'], {
      cpu: (_, [x, value, n]) => {
        for (let i = 0; i < n; i++) x[i] = (x[i]! + value) >>> 0;
      },
    }),
    saxpy: module.kernel('saxpy', ['u32', 'f32', 'ptr<f32>', 'ptr<f32>'], {
      cpu: (_, [n, a, x, y]) => {
        for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(a * x[i]!) + y[i]!);
      },
    }),
  };
}

/**
 * A kernel `fails(x, v)` that stores v in x[0], whose CPU implementation throws Error('unlucky')
 * for v = 13 (the host device's way to fail one launch; a GPU stores 13).
 */
export async function unluckyKernel(device: Device): Promise<Kernel<readonly ['ptr<u32>', 'u32']>> {
  const module = await device.compile('extern "C" __global__ void fails(unsigned* x, unsigned v) { x[0] = v; }');
  return module.kernel('fails', ['ptr<u32>', 'u32'], {
    cpu: (_, [x, v]) => {
      if (v === 13) throw new Error('unlucky');
      x[0] = v;
    },
  });
}
