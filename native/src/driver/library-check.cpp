// Where the toolkit's headers are present at build time, prove that cublas.hpp, cufft.hpp and the
// data types of the library blocks declare what cuBLAS and cuFFT define. Without them this file
// compiles to nothing.
#include "cublas.hpp"
#include "cufft.hpp"

#if __has_include(<library_types.h>)
#include <library_types.h>

namespace b = rxcuda::cublas;
static_assert(b::kR32F == CUDA_R_32F && b::kR64F == CUDA_R_64F);
static_assert(b::kR16F == CUDA_R_16F && b::kR16BF == CUDA_R_16BF);
#endif

#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>

static_assert(sizeof(rxcuda::cublas::Handle) == sizeof(cublasHandle_t));
static_assert(rxcuda::cublas::kOpN == CUBLAS_OP_N && rxcuda::cublas::kOpT == CUBLAS_OP_T);
static_assert(rxcuda::cublas::kCompute32F == CUBLAS_COMPUTE_32F);
static_assert(rxcuda::cublas::kCompute64F == CUBLAS_COMPUTE_64F);
static_assert(rxcuda::cublas::kGemmDefault == CUBLAS_GEMM_DEFAULT);
static_assert(rxcuda::cublas::kSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(rxcuda::cublas::kNotInitialized == CUBLAS_STATUS_NOT_INITIALIZED);
static_assert(rxcuda::cublas::kInvalidValue == CUBLAS_STATUS_INVALID_VALUE);
static_assert(rxcuda::cublas::kNotSupported == CUBLAS_STATUS_NOT_SUPPORTED);
#endif

#if __has_include(<cufft.h>)
#include <cufft.h>

static_assert(sizeof(rxcuda::cufft::Plan) == sizeof(cufftHandle));
static_assert(rxcuda::cufft::kC2C == CUFFT_C2C && rxcuda::cufft::kR2C == CUFFT_R2C);
static_assert(rxcuda::cufft::kC2R == CUFFT_C2R && rxcuda::cufft::kZ2Z == CUFFT_Z2Z);
static_assert(rxcuda::cufft::kD2Z == CUFFT_D2Z && rxcuda::cufft::kZ2D == CUFFT_Z2D);
static_assert(rxcuda::cufft::kForward == CUFFT_FORWARD && rxcuda::cufft::kInverse == CUFFT_INVERSE);
static_assert(rxcuda::cufft::kInvalidValue == CUFFT_INVALID_VALUE);
#endif
