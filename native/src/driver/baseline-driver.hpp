// The driver entry points that only the native baselines (bench/native) and the test helpers
// (test/native) call, in a table of their own beside the addon's: the addon never waits on the
// device, so it has no use for them. Header-only: only those two include it.
#pragma once
#include "driver.hpp"

namespace rxcuda::cu {

#define RXCUDA_BASELINE_ENTRY_POINTS(X)                                                             \
  X(cuCtxSynchronize, 2000, ())                                                                      \
  X(cuStreamSynchronize, 2000, (Stream stream))                                                      \
  X(cuStreamWaitValue32, 11070, (Stream stream, DevicePtr addr, uint32_t value, unsigned flags))     \
  X(cuEventSynchronize, 2000, (Event event))

// The addon's table with the baselines' entry points added.
struct BaselineDriver : Driver {
#define RXCUDA_DECLARE_ENTRY(name, version, params) Result(*name) params = nullptr;
  RXCUDA_BASELINE_ENTRY_POINTS(RXCUDA_DECLARE_ENTRY)
#undef RXCUDA_DECLARE_ENTRY
};

// Made once per binary that includes it, after the addon's table.
inline const BaselineDriver& baselineDriver() {
  static const BaselineDriver table = [] {
    BaselineDriver t;
    static_cast<Driver&>(t) = driver();
#define RXCUDA_RESOLVE_ENTRY(name, version, params) \
  t.name = reinterpret_cast<decltype(t.name)>(resolveEntryPoint(#name, version));
    RXCUDA_BASELINE_ENTRY_POINTS(RXCUDA_RESOLVE_ENTRY)
#undef RXCUDA_RESOLVE_ENTRY
    return t;
  }();
  return table;
}

}  // namespace rxcuda::cu
