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

// The names of the codes a driver that cannot be asked (missing, or failing at load) stands for.
std::string fallbackName(Result r) {
  switch (r) {
    case kErrorInvalidValue: return "CUDA_ERROR_INVALID_VALUE";
    case kErrorOutOfMemory: return "CUDA_ERROR_OUT_OF_MEMORY";
    case kErrorNotInitialized: return "CUDA_ERROR_NOT_INITIALIZED";
    case kErrorNoDevice: return "CUDA_ERROR_NO_DEVICE";
    case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
    case kErrorNotFound: return "CUDA_ERROR_NOT_FOUND";
    case kErrorNotReady: return "CUDA_ERROR_NOT_READY";
    case kErrorNotSupported: return "CUDA_ERROR_NOT_SUPPORTED";
    case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return "CUDA_ERROR_" + std::to_string(r);
  }
}

// errorName and errorString against a given table: load() must use the table it is filling, as
// driver() would wait for the std::call_once that load() runs inside of (a deadlock).
std::string nameIn(const Driver& d, Result r) {
  const char* s = nullptr;
  if (call(d.cuGetErrorName, r, &s) == kSuccess && s) return s;
  return fallbackName(r);
}

std::string stringIn(const Driver& d, Result r) {
  const char* s = nullptr;
  if (call(d.cuGetErrorString, r, &s) == kSuccess && s) return s;
  return "unknown CUDA error " + std::to_string(r);
}

// Entry points without which no device can even be opened: a driver that resolves any of them
// to null is reported as unusable up front, rather than failing at some later call.
std::string missingEssentials(const Driver& d) {
  std::string missing;
  auto need = [&](const void* fn, const char* name) {
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(reinterpret_cast<const void*>(d.cuInit), "cuInit");
  need(reinterpret_cast<const void*>(d.cuDeviceGetCount), "cuDeviceGetCount");
  need(reinterpret_cast<const void*>(d.cuDeviceGet), "cuDeviceGet");
  need(reinterpret_cast<const void*>(d.cuDevicePrimaryCtxRetain), "cuDevicePrimaryCtxRetain");
  need(reinterpret_cast<const void*>(d.cuCtxSetCurrent), "cuCtxSetCurrent");
  need(reinterpret_cast<const void*>(d.cuStreamCreateWithPriority), "cuStreamCreateWithPriority");
  return missing;
}

// cuGetProcAddress, once load() found it.
GetProcAddressFn getProcAddress = nullptr;

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
  if (d.version >= kMinDriverVersion) getProcAddress = getProc;
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
  // cuInit's own failure says most (a driver/library mismatch, no device access), so it goes first.
  d.unavailable = d.cuInit ? d.cuInit(0u) : kErrorNotFound;
  if (d.unavailable == kErrorNoDevice) {
    d.problem = "the NVIDIA driver (CUDA " + describeVersion(d.version) + ") sees no CUDA device";
  } else if (!d.cuInit || d.unavailable == kSuccess) {
    if (std::string missing = missingEssentials(d); !missing.empty()) {
      d.unavailable = kErrorNotFound;
      d.problem = "the NVIDIA driver (CUDA " + describeVersion(d.version) +
                  ") gives no entry point for " + missing + " through cuGetProcAddress";
    }
  } else {
    d.problem = "cuInit failed: " + nameIn(d, d.unavailable) + " (" + stringIn(d, d.unavailable) +
                ")";
  }
}

}  // namespace

const Driver& driver() {
  static Driver table;
  static std::once_flag once;
  std::call_once(once, [] { load(table); });
  return table;
}

void* resolveEntryPoint(const char* name, int version) {
  driver();  // loads the library first
  void* fn = nullptr;
  ProcAddressQueryResult status = kProcSymbolNotFound;
  if (!getProcAddress || getProcAddress(name, &fn, version, 0, &status) != kSuccess || status != kProcFound) return nullptr;
  return fn;
}

std::string errorName(Result r) { return nameIn(driver(), r); }

std::string errorString(Result r) { return stringIn(driver(), r); }

}  // namespace rxcuda::cu
