#include "cublas.hpp"

#include <mutex>

namespace rxcuda::cublas {
namespace {

void load(Cublas& c) {
  c.found = lib::open("cuBLAS", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, "libcublasLt");
  if (!c.found.handle) {
    c.problem = c.found.problem;
    return;
  }
  std::string missing;
#define RXCUDA_CUBLAS_RESOLVE(name, params) \
  c.name = reinterpret_cast<decltype(c.name)>(lib::resolve(c.found, #name, missing));
  RXCUDA_CUBLAS_ENTRY_POINTS(RXCUDA_CUBLAS_RESOLVE)
#undef RXCUDA_CUBLAS_RESOLVE
  if (!missing.empty()) {
    c.problem = c.found.path + " was found but lacks " + missing + ", which rxcuda needs (cuBLAS 12 or newer)";
    return;
  }
  // libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2.
  c.cublasGetProperty(0, &c.major);
  c.cublasGetProperty(1, &c.minor);
  c.cublasGetProperty(2, &c.patch);
}

}  // namespace

const Cublas& cublas() {
  static Cublas table;
  static std::once_flag once;
  std::call_once(once, [] { load(table); });
  return table;
}

std::string statusName(Status status) {
  switch (status) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_" + std::to_string(status);
  }
}

}  // namespace rxcuda::cublas
