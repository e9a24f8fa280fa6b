#include "driver.hpp"

#include <dlfcn.h>

#include <mutex>

namespace rxcuda::cu {
namespace {

using GetProcAddressFn = Result (*)(const char* symbol, void** fn, int version, uint64_t flags,
                                    ProcAddressQueryResult* status);
using DriverGetVersionFn = Result (*)(int* version);

std::string describeVersion(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

void load(Driver& d) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    d.unavailable = kErrorNoDevice;
    d.problem = std::string("no NVIDIA driver: libcuda.so.1 was not found on the loader path (") +
                (why ? why : "dlopen failed") + ")";
    return;
  }
  // These two are the only symbols taken by name: their ABI has never changed.
  auto getVersion = reinterpret_cast<DriverGetVersionFn>(dlsym(lib, "cuDriverGetVersion"));
  auto getProc = reinterpret_cast<GetProcAddressFn>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!getVersion || getVersion(&d.version) != kSuccess) {
    d.unavailable = kErrorNotInitialized;
    d.problem = "libcuda.so.1 was found but does not answer cuDriverGetVersion";
    return;
  }
  if (d.version < kMinDriverVersion || !getProc) {
    d.unavailable = kErrorNotSupported;
    d.problem = "the NVIDIA driver supports CUDA " + describeVersion(d.version) +
                "; rxcuda needs a driver for CUDA " + describeVersion(kMinDriverVersion) +
                " or newer";
    return;
  }
#define RXCUDA_RESOLVE_ENTRY(name, version, params)                                      \
  {                                                                                      \
    void* fn = nullptr;                                                                  \
    ProcAddressQueryResult status = kProcSymbolNotFound;                                 \
    if (getProc(#name, &fn, version, 0, &status) == kSuccess && status == kProcFound) {  \
      d.name = reinterpret_cast<decltype(d.name)>(fn);                                   \
    }                                                                                    \
  }
  RXCUDA_DRIVER_ENTRY_POINTS(RXCUDA_RESOLVE_ENTRY)
#undef RXCUDA_RESOLVE_ENTRY
  d.unavailable = call(d.cuInit, 0u);
  if (d.unavailable == kErrorNoDevice) {
    d.problem = "the NVIDIA driver (CUDA " + describeVersion(d.version) + ") sees no CUDA device";
  } else if (d.unavailable != kSuccess) {
    d.problem = "cuInit failed: " + errorName(d.unavailable) + " (" + errorString(d.unavailable) + ")";
  }
}

}  // namespace

const Driver& driver() {
  static Driver table;
  static std::once_flag once;
  std::call_once(once, [] { load(table); });
  return table;
}

std::string errorName(Result r) {
  const char* s = nullptr;
  if (call(driver().cuGetErrorName, r, &s) == kSuccess && s) return s;
  // Without a driver to ask, name the codes rxcuda itself reports.
  switch (r) {
    case kErrorNotInitialized: return "CUDA_ERROR_NOT_INITIALIZED";
    case kErrorNotSupported: return "CUDA_ERROR_NOT_SUPPORTED";
    case kErrorNoDevice: return "CUDA_ERROR_NO_DEVICE";
    case kErrorNotFound: return "CUDA_ERROR_NOT_FOUND";
    case kErrorNotReady: return "CUDA_ERROR_NOT_READY";
    default: return "CUDA_ERROR_" + std::to_string(r);
  }
}

std::string errorString(Result r) {
  const char* s = nullptr;
  if (call(driver().cuGetErrorString, r, &s) == kSuccess && s) return s;
  return "unknown CUDA error " + std::to_string(r);
}

}  // namespace rxcuda::cu
