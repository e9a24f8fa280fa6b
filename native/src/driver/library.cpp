#include "library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

namespace rxcuda::lib {
namespace {

// The folders a CUDA library is looked for in; "" stands for the loader path (LD_LIBRARY_PATH,
// the ld.so cache), which dlopen searches for a bare name.
std::vector<std::string> folders() {
  std::vector<std::string> out;
  if (const char* cudaPath = std::getenv("CUDA_PATH"); cudaPath && *cudaPath) {
    out.push_back(std::string(cudaPath) + "/lib64/");
    out.push_back(std::string(cudaPath) + "/targets/x86_64-linux/lib/");
  }
  out.push_back("/usr/local/cuda/lib64/");
  out.push_back("/usr/local/cuda/targets/x86_64-linux/lib/");
  out.push_back("");
  return out;
}

// The companion's name that goes with `name`: the same version suffix ("libcublasLt" with
// "libcublas.so.13" gives "libcublasLt.so.13").
std::string companionOf(const std::string& name, const char* companion) {
  auto dot = name.find(".so");
  return std::string(companion) + (dot == std::string::npos ? ".so" : name.substr(dot));
}

}  // namespace

Found open(const char* what, const std::vector<std::string>& names, const char* companion) {
  Found found;
  std::string lastError;
  for (const std::string& folder : folders()) {
    for (const std::string& name : names) {
      std::string path = folder + name;
      found.searched.push_back(folder.empty() ? name + " (on the loader path)" : path);
      // The companion first: once it is loaded, the dynamic linker finds it by its soname.
      if (companion) dlopen((folder + companionOf(name, companion)).c_str(), RTLD_NOW | RTLD_LOCAL);
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        if (const char* why = dlerror(); why && folder.empty()) lastError = why;
        continue;
      }
      found.handle = handle;
      found.path = path;
      // A bare name was found somewhere on the loader path: say where.
      link_map* map = nullptr;
      if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        found.path = map->l_name;
      return found;
    }
  }
  std::string list;
  for (const std::string& tried : found.searched) list += (list.empty() ? "" : ", ") + tried;
  found.problem = std::string(what) + " was not found: rxcuda looked for " + list +
                  "; install the CUDA toolkit's " + what + " or set CUDA_PATH to a toolkit that has it";
  if (!lastError.empty()) found.problem += " (the loader said: " + lastError + ")";
  return found;
}

void* resolve(const Found& found, const char* symbol, std::string& missing) {
  void* fn = found.handle ? dlsym(found.handle, symbol) : nullptr;
  if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  return fn;
}

}  // namespace rxcuda::lib
