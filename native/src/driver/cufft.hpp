// The process-wide cuFFT table: libcufft opened at the first call that needs it (never at import,
// never linked), from CUDA_PATH, /usr/local/cuda or the loader path (library.hpp). The
// declarations are rxcuda's own; library-check.cpp compares them with cufft.h where it is present.
#pragma once
#include <cstddef>
#include <string>

#include "library.hpp"
#include "types.hpp"

namespace rxcuda::cufft {

using Result = int;
using Plan = int;  // cufftHandle

constexpr Result kSuccess = 0;
constexpr Result kInvalidValue = 4;

// cufftType values.
enum Type : int { kR2C = 0x2a, kC2R = 0x2c, kC2C = 0x29, kD2Z = 0x6a, kZ2D = 0x6c, kZ2Z = 0x69 };
constexpr int kForward = -1;
constexpr int kInverse = 1;

// X(name, parameter list); every entry point is required. Data pointers are untyped here: they
// are device addresses rxcuda passes through.
#define RXCUDA_CUFFT_ENTRY_POINTS(X)                                                               \
  X(cufftCreate, (Plan * plan))                                                                    \
  X(cufftDestroy, (Plan plan))                                                                     \
  X(cufftGetVersion, (int* version))                                                               \
  X(cufftSetAutoAllocation, (Plan plan, int autoAllocate))                                         \
  X(cufftMakePlanMany64,                                                                           \
    (Plan plan, int rank, long long* n, long long* inembed, long long istride, long long idist,    \
     long long* onembed, long long ostride, long long odist, int type, long long batch,            \
     size_t* workSize))                                                                            \
  X(cufftSetStream, (Plan plan, cu::Stream stream))                                                \
  X(cufftSetWorkArea, (Plan plan, void* workArea))                                                 \
  X(cufftExecC2C, (Plan plan, void* idata, void* odata, int direction))                            \
  X(cufftExecR2C, (Plan plan, void* idata, void* odata))                                           \
  X(cufftExecC2R, (Plan plan, void* idata, void* odata))                                           \
  X(cufftExecZ2Z, (Plan plan, void* idata, void* odata, int direction))                            \
  X(cufftExecD2Z, (Plan plan, void* idata, void* odata))                                           \
  X(cufftExecZ2D, (Plan plan, void* idata, void* odata))

struct Cufft {
#define RXCUDA_CUFFT_DECLARE(name, params) Result(*name) params = nullptr;
  RXCUDA_CUFFT_ENTRY_POINTS(RXCUDA_CUFFT_DECLARE)
#undef RXCUDA_CUFFT_DECLARE
  lib::Found found;
  int version = 0;  // cufftGetVersion: major * 1000 + minor * 100 + patch
  // Why cuFFT cannot be used (not found, or lacking entry points); empty when it can.
  std::string problem;
};

const Cufft& cufft();

// "CUFFT_…" for a result, or the number where it is not one rxcuda knows.
std::string resultName(Result result);

}  // namespace rxcuda::cufft
