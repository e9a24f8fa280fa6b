// The process-wide cuBLAS table: libcublas opened at the first call that needs it (never at
// import, never linked), from CUDA_PATH, /usr/local/cuda or the loader path (library.hpp). The
// declarations are rxcuda's own, so that the addon builds without the toolkit; library-check.cpp
// compares them with cublas_v2.h where that header is present.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "library.hpp"
#include "types.hpp"

namespace rxcuda::cublas {

using Status = int;
using Handle = struct ContextSt*;

constexpr Status kSuccess = 0;
constexpr Status kNotInitialized = 1;
constexpr Status kInvalidValue = 7;
constexpr Status kNotSupported = 15;

enum Operation : int { kOpN = 0, kOpT = 1 };
// cudaDataType_t values of library_types.h.
enum DataType : int { kR32F = 0, kR64F = 1, kR16F = 2, kR16BF = 14 };
enum ComputeType : int { kCompute32F = 68, kCompute64F = 70 };
constexpr int kGemmDefault = -1;  // CUBLAS_GEMM_DEFAULT: cuBLAS picks the algorithm

// X(name, parameter list); every entry point is required.
#define RXCUDA_CUBLAS_ENTRY_POINTS(X)                                                              \
  X(cublasCreate_v2, (Handle * handle))                                                            \
  X(cublasDestroy_v2, (Handle handle))                                                             \
  X(cublasGetProperty, (int type, int* value))                                                     \
  X(cublasSetStream_v2, (Handle handle, cu::Stream stream))                                        \
  X(cublasSetWorkspace_v2, (Handle handle, void* workspace, size_t bytes))                         \
  X(cublasGemmEx, (Handle handle, int transa, int transb, int m, int n, int k, const void* alpha,  \
                   const void* A, int Atype, int lda, const void* B, int Btype, int ldb,           \
                   const void* beta, void* C, int Ctype, int ldc, int computeType, int algo))      \
  X(cublasGemmStridedBatchedEx,                                                                    \
    (Handle handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* A, \
     int Atype, int lda, long long strideA, const void* B, int Btype, int ldb, long long strideB,  \
     const void* beta, void* C, int Ctype, int ldc, long long strideC, int batchCount,             \
     int computeType, int algo))

struct Cublas {
#define RXCUDA_CUBLAS_DECLARE(name, params) Status(*name) params = nullptr;
  RXCUDA_CUBLAS_ENTRY_POINTS(RXCUDA_CUBLAS_DECLARE)
#undef RXCUDA_CUBLAS_DECLARE
  lib::Found found;
  int major = 0, minor = 0, patch = 0;
  // Why cuBLAS cannot be used (not found, or lacking entry points); empty when it can.
  std::string problem;
};

const Cublas& cublas();

// "CUBLAS_STATUS_…" for a status, or the number where it is not one rxcuda knows.
std::string statusName(Status status);

}  // namespace rxcuda::cublas
