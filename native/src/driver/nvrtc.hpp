// The process-wide NVRTC table: libnvrtc opened at first use from CUDA_PATH, /usr/local/cuda or
// the loader path. Compiling needs it; nothing else in rxcuda does.
#pragma once
#include <cstddef>
#include <string>

namespace rxcuda::nvrtc {

using Result = int;
using Program = struct ProgramSt*;

#define RXCUDA_NVRTC_ENTRY_POINTS(X)                                                            \
  X(nvrtcVersion, (int* major, int* minor))                                                     \
  X(nvrtcCreateProgram, (Program * prog, const char* src, const char* name, int numHeaders,     \
                         const char* const* headers, const char* const* includeNames))          \
  X(nvrtcDestroyProgram, (Program * prog))                                                      \
  X(nvrtcCompileProgram, (Program prog, int numOptions, const char* const* options))            \
  X(nvrtcGetProgramLogSize, (Program prog, size_t* size))                                       \
  X(nvrtcGetProgramLog, (Program prog, char* log))                                              \
  X(nvrtcGetPTXSize, (Program prog, size_t* size))                                              \
  X(nvrtcGetPTX, (Program prog, char* ptx))                                                     \
  X(nvrtcGetCUBINSize, (Program prog, size_t* size))                                            \
  X(nvrtcGetCUBIN, (Program prog, char* cubin))                                                 \
  X(nvrtcAddNameExpression, (Program prog, const char* name))                                   \
  X(nvrtcGetLoweredName, (Program prog, const char* name, const char** lowered))

struct Nvrtc {
#define RXCUDA_NVRTC_DECLARE(name, params) Result(*name) params = nullptr;
  RXCUDA_NVRTC_ENTRY_POINTS(RXCUDA_NVRTC_DECLARE)
#undef RXCUDA_NVRTC_DECLARE
  const char* (*nvrtcGetErrorString)(Result result) = nullptr;
  int major = 0, minor = 0;
  std::string path;     // the library that was loaded
  std::string problem;  // why NVRTC cannot be used; empty when it can
};

const Nvrtc& nvrtc();

}  // namespace rxcuda::nvrtc
