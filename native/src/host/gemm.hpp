// The host device's GEMM: the reference for cuBLAS's, with its contract (column-major,
// C = alpha·op(A)·op(B) + beta·C, strided batches, C not read when beta is 0) and its arithmetic
// (products summed in f32 for f16, bf16 and f32 operands, in f64 for f64; f16 and bf16 results
// rounded to nearest even), so that its results agree with the GPU's within rounding. Blocked, so
// that the tests' sizes take milliseconds.
#pragma once
#include <cstdint>

namespace rxcuda::host {

struct GemmParams {
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  const void* a = nullptr;
  int64_t lda = 0, strideA = 0;
  const void* b = nullptr;
  int64_t ldb = 0, strideB = 0;
  void* c = nullptr;
  int64_t ldc = 0, strideC = 0;
  int64_t batch = 1;
  int abType = 0, cType = 0;  // blocks::Element
};

// Reads a GEMM block (driver/library-blocks.hpp).
GemmParams gemmParams(const double* block);

void gemm(const GemmParams& p);

}  // namespace rxcuda::host
