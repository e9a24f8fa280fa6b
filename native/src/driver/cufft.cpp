#include "cufft.hpp"

#include <mutex>

namespace rxcuda::cufft {
namespace {

void load(Cufft& c) {
  c.found = lib::open("cuFFT", {"libcufft.so.12", "libcufft.so.11", "libcufft.so"});
  if (!c.found.handle) {
    c.problem = c.found.problem;
    return;
  }
  std::string missing;
#define RXCUDA_CUFFT_RESOLVE(name, params) \
  c.name = reinterpret_cast<decltype(c.name)>(lib::resolve(c.found, #name, missing));
  RXCUDA_CUFFT_ENTRY_POINTS(RXCUDA_CUFFT_RESOLVE)
#undef RXCUDA_CUFFT_RESOLVE
  if (!missing.empty()) {
    c.problem = c.found.path + " was found but lacks " + missing + ", which rxcuda needs (cuFFT 11 or newer)";
    return;
  }
  c.cufftGetVersion(&c.version);
}

}  // namespace

const Cufft& cufft() {
  static Cufft table;
  static std::once_flag once;
  std::call_once(once, [] { load(table); });
  return table;
}

std::string resultName(Result result) {
  static const char* const names[] = {
      "CUFFT_SUCCESS",         "CUFFT_INVALID_PLAN",     "CUFFT_ALLOC_FAILED",
      "CUFFT_INVALID_TYPE",    "CUFFT_INVALID_VALUE",    "CUFFT_INTERNAL_ERROR",
      "CUFFT_EXEC_FAILED",     "CUFFT_SETUP_FAILED",     "CUFFT_INVALID_SIZE",
      "CUFFT_UNALIGNED_DATA",  "CUFFT_INCOMPLETE_PARAMETER_LIST", "CUFFT_INVALID_DEVICE",
      "CUFFT_PARSE_ERROR",     "CUFFT_NO_WORKSPACE",     "CUFFT_NOT_IMPLEMENTED",
      "CUFFT_LICENSE_ERROR",   "CUFFT_NOT_SUPPORTED",
  };
  if (result >= 0 && result < static_cast<int>(sizeof names / sizeof names[0])) return names[result];
  return "CUFFT_RESULT_" + std::to_string(result);
}

}  // namespace rxcuda::cufft
