// The kernel of bench/study/submit-threads.cpp, the same as bench/small-frames.mjs's.
extern "C" __global__ void add(unsigned n, float a, float* x) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += a;
}
