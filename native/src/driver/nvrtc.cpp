#include "nvrtc.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace rxcuda::nvrtc {
namespace {

std::vector<std::string> candidates() {
  static const char* const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
  std::vector<std::string> dirs;
  if (const char* cudaPath = std::getenv("CUDA_PATH")) {
    dirs.push_back(std::string(cudaPath) + "/lib64/");
    dirs.push_back(std::string(cudaPath) + "/targets/x86_64-linux/lib/");
  }
  dirs.push_back("/usr/local/cuda/lib64/");
  dirs.push_back("/usr/local/cuda/targets/x86_64-linux/lib/");
  dirs.push_back("");  // the loader path
  std::vector<std::string> out;
  for (const auto& dir : dirs)
    for (const char* name : names) out.push_back(dir + name);
  return out;
}

void load(Nvrtc& n) {
  void* lib = nullptr;
  std::string tried;
  for (const auto& path : candidates()) {
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      n.path = path;
      break;
    }
    tried += (tried.empty() ? "" : ", ") + path;
  }
  if (!lib) {
    n.problem = "NVRTC was not found (tried " + tried +
                "); install the CUDA toolkit's NVRTC or set CUDA_PATH";
    return;
  }
  Dl_info info;
  if (auto version = dlsym(lib, "nvrtcVersion"); version && dladdr(version, &info) && info.dli_fname)
    n.path = info.dli_fname;
#define RXCUDA_NVRTC_RESOLVE(name, params) \
  n.name = reinterpret_cast<decltype(n.name)>(dlsym(lib, #name));
  RXCUDA_NVRTC_ENTRY_POINTS(RXCUDA_NVRTC_RESOLVE)
#undef RXCUDA_NVRTC_RESOLVE
  n.nvrtcGetErrorString = reinterpret_cast<decltype(n.nvrtcGetErrorString)>(
      dlsym(lib, "nvrtcGetErrorString"));
#define RXCUDA_NVRTC_CHECK(name, params) \
  if (!n.name) n.problem = n.path + " lacks " #name;
  RXCUDA_NVRTC_ENTRY_POINTS(RXCUDA_NVRTC_CHECK)
#undef RXCUDA_NVRTC_CHECK
  if (n.problem.empty()) n.nvrtcVersion(&n.major, &n.minor);
}

}  // namespace

const Nvrtc& nvrtc() {
  static Nvrtc table;
  static std::once_flag once;
  std::call_once(once, [] { load(table); });
  return table;
}

}  // namespace rxcuda::nvrtc
