// Does the driver take small frames faster from several threads? A plain C++ program, apart from
// the addon: `streams` streams, each frame an upload, `kernels` small kernels and a download (eager)
// or one graph launch of the same (graph), two frames in flight per stream, and the streams split
// over 1, 2, 4 … threads, each thread owning its streams and waiting for a slot's last frame before
// it reuses the slot. Prints one JSON line per (mode, threads) with frames per second.
//
// Build (where cuda.h is), with the kernel's PTX: bash bench/study/submit-threads.sh build
// Run: bash bench/study/submit-threads.sh run, or build/submit-threads build/submit-threads.ptx [streams=16] [frames=40000] [kernels=20] [floats=256] [rounds=3]
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemHostAlloc)(void**, size_t, unsigned);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuStreamBeginCapture)(CUstream, CUstreamCaptureMode);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph*);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
};

Driver d{};

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  std::fprintf(stderr, "%s failed: %d\n", what, static_cast<int>(r));
  std::exit(1);
}

// Every entry point through cuGetProcAddress at CUDA 12.0's ABI, as the addon resolves its own.
void load() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    std::fprintf(stderr, "libcuda.so.1: %s\n", dlerror());
    std::exit(1);
  }
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get) {
    std::fprintf(stderr, "cuGetProcAddress_v2 is missing: a CUDA 12 driver or later is needed\n");
    std::exit(1);
  }
  auto bind = [&](auto& slot, const char* name) {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status{};
    check(get(name, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status), name);
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(fn);
  };
  bind(d.cuInit, "cuInit");
  bind(d.cuDeviceGet, "cuDeviceGet");
  bind(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(d.cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(d.cuModuleLoadData, "cuModuleLoadData");
  bind(d.cuModuleGetFunction, "cuModuleGetFunction");
  bind(d.cuStreamCreate, "cuStreamCreate");
  bind(d.cuStreamSynchronize, "cuStreamSynchronize");
  bind(d.cuMemAlloc, "cuMemAlloc");
  bind(d.cuMemHostAlloc, "cuMemHostAlloc");
  bind(d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync");
  bind(d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync");
  bind(d.cuLaunchKernel, "cuLaunchKernel");
  bind(d.cuEventCreate, "cuEventCreate");
  bind(d.cuEventRecord, "cuEventRecord");
  bind(d.cuEventSynchronize, "cuEventSynchronize");
  bind(d.cuStreamBeginCapture, "cuStreamBeginCapture");
  bind(d.cuStreamEndCapture, "cuStreamEndCapture");
  bind(d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  bind(d.cuGraphLaunch, "cuGraphLaunch");
}

struct Shape {
  unsigned kernels;
  unsigned floats;
};

// One frame in flight on one stream.
struct Slot {
  CUstream stream = nullptr;
  float* in = nullptr;
  float* out = nullptr;
  CUdeviceptr buffer = 0;
  CUevent done = nullptr;
  CUgraphExec exec = nullptr;
  bool busy = false;
};

void enqueueFrame(CUfunction fn, Slot& slot, const Shape& shape) {
  size_t bytes = size_t{shape.floats} * sizeof(float);
  check(d.cuMemcpyHtoDAsync(slot.buffer, slot.in, bytes, slot.stream), "cuMemcpyHtoDAsync");
  for (unsigned k = 0; k < shape.kernels; k++) {
    unsigned n = shape.floats;
    float a = static_cast<float>(k);
    void* params[] = {&n, &a, &slot.buffer};
    check(d.cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, slot.stream, params, nullptr), "cuLaunchKernel");
  }
  check(d.cuMemcpyDtoHAsync(slot.out, slot.buffer, bytes, slot.stream), "cuMemcpyDtoHAsync");
}

CUgraphExec captureFrame(CUfunction fn, Slot& slot, const Shape& shape) {
  check(d.cuStreamBeginCapture(slot.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  enqueueFrame(fn, slot, shape);
  CUgraph graph = nullptr;
  check(d.cuStreamEndCapture(slot.stream, &graph), "cuStreamEndCapture");
  CUgraphExec exec = nullptr;
  check(d.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
  return exec;
}

// One thread's share: its slots, round robin, `frames` frames. Returns the last frame's first result.
float submit(CUcontext ctx, CUfunction fn, std::vector<Slot*> slots, unsigned frames, const Shape& shape, bool graph,
             const std::vector<float>& source) {
  check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  size_t bytes = size_t{shape.floats} * sizeof(float);
  std::vector<float> result(shape.floats);
  auto finish = [&](Slot& slot) {
    check(d.cuEventSynchronize(slot.done), "cuEventSynchronize");
    std::memcpy(result.data(), slot.out, bytes);
    slot.busy = false;
  };
  for (unsigned f = 0; f < frames; f++) {
    Slot& slot = *slots[f % slots.size()];
    if (slot.busy) finish(slot);
    std::memcpy(slot.in, source.data(), bytes);
    if (graph)
      check(d.cuGraphLaunch(slot.exec, slot.stream), "cuGraphLaunch");
    else
      enqueueFrame(fn, slot, shape);
    check(d.cuEventRecord(slot.done, slot.stream), "cuEventRecord");
    slot.busy = true;
  }
  for (Slot* slot : slots)
    if (slot->busy) finish(*slot);
  return result[0];
}

unsigned argOr(int argc, char** argv, int i, unsigned fallback) {
  return argc > i ? static_cast<unsigned>(std::strtoul(argv[i], nullptr, 10)) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: submit-threads KERNEL.ptx [streams] [frames] [kernels] [floats] [rounds]\n");
    return 2;
  }
  unsigned streams = argOr(argc, argv, 2, 16), frames = argOr(argc, argv, 3, 40000);
  Shape shape{argOr(argc, argv, 4, 20), argOr(argc, argv, 5, 256)};
  unsigned rounds = argOr(argc, argv, 6, 3);
  std::ifstream file(argv[1]);
  std::stringstream ptx;
  ptx << file.rdbuf();
  load();
  check(d.cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(d.cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(d.cuModuleLoadData(&module, ptx.str().c_str()), "cuModuleLoadData");
  CUfunction fn = nullptr;
  check(d.cuModuleGetFunction(&fn, module, "add"), "cuModuleGetFunction");

  size_t bytes = size_t{shape.floats} * sizeof(float);
  std::vector<CUstream> lanes(streams);
  for (auto& stream : lanes) check(d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  std::vector<Slot> slots(2 * size_t{streams});
  for (size_t i = 0; i < slots.size(); i++) {
    Slot& slot = slots[i];
    slot.stream = lanes[i % streams];
    check(d.cuMemHostAlloc(reinterpret_cast<void**>(&slot.in), bytes, 0), "cuMemHostAlloc");
    check(d.cuMemHostAlloc(reinterpret_cast<void**>(&slot.out), bytes, 0), "cuMemHostAlloc");
    check(d.cuMemAlloc(&slot.buffer, bytes), "cuMemAlloc");
    check(d.cuEventCreate(&slot.done, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    slot.exec = captureFrame(fn, slot, shape);
  }
  for (auto& stream : lanes) check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<float> source(shape.floats, 1.0f);
  // The expected first result: 1 + 0 + 1 + … + (kernels - 1).
  float expected = 1.0f + static_cast<float>(shape.kernels) * static_cast<float>(shape.kernels - 1) / 2.0f;

  for (unsigned round = 0; round < rounds; round++) {
    for (int graph = 0; graph < 2; graph++) {
      for (unsigned threads = 1; threads <= std::min(streams, 8u); threads *= 2) {
        // Thread t owns streams t, t + threads, …, and both slots of each.
        std::vector<std::vector<Slot*>> owned(threads);
        for (size_t i = 0; i < slots.size(); i++) owned[(i % streams) % threads].push_back(&slots[i]);
        std::vector<float> last(threads);
        auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> workers;
        for (unsigned t = 0; t < threads; t++)
          workers.emplace_back([&, t] { last[t] = submit(ctx, fn, owned[t], frames / threads, shape, graph, source); });
        for (auto& worker : workers) worker.join();
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        bool exact = std::all_of(last.begin(), last.end(), [&](float v) { return v == expected; });
        std::printf("{\"round\":%u,\"mode\":\"%s\",\"streams\":%u,\"threads\":%u,\"frames\":%u,\"framesPerSecond\":%.0f,\"exact\":%s}\n",
                    round, graph ? "graph" : "eager", streams, threads, frames / threads * threads,
                    (frames / threads * threads) / seconds, exact ? "true" : "false");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
