// The C++ twin of bench/conditional.mjs: what a plain C++ program against the driver API pays for
// a loop on the device (a WHILE node around one small kernel), for a SWITCH over 8 cases, and for
// the same loop driven from the host (a launch, a wait, a flag read from pinned memory, again).
// The kernels are rxcuda's, compiled and linked with the device runtime by it, handed over as
// CUfunction handles; the bounded loop uses rxcuda's own built-in guard and reset kernels, in the
// structure rxcuda builds (conditional-native.ts): a reset kernel, then WHILE { guard; IF { body } }.
#include "conditional.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "../../native/src/driver/baseline-driver.hpp"

namespace bench {
namespace {

namespace cu = rxcuda::cu;
using Clock = std::chrono::steady_clock;

uint64_t bigintArg(const Napi::Value& v) {
  bool lossless = false;
  return v.As<Napi::BigInt>().Uint64Value(&lossless);
}

cu::Function functionArg(const Napi::Value& v) { return reinterpret_cast<cu::Function>(bigintArg(v)); }

void check(Napi::Env env, cu::Result r, const char* what) {
  if (r != cu::kSuccess) throw Napi::Error::New(env, std::string(what) + " failed: " + cu::errorName(r));
}

uint32_t option(const Napi::Object& options, const char* name) {
  return options.Get(name).As<Napi::Number>().Uint32Value();
}

double nanos(Clock::duration d) { return std::chrono::duration<double, std::nano>(d).count(); }

// What one measurement holds: device words, a pinned word, a graph and its executable; released in
// order whether the measurement returns or throws.
struct Held {
  const cu::BaselineDriver& d;
  cu::Stream stream;
  cu::DevicePtr words = 0;
  uint32_t* pinned = nullptr;
  cu::Graph graph = nullptr;
  cu::GraphExec exec = nullptr;
  ~Held() {
    cu::call(d.cuStreamSynchronize, stream);
    if (exec) cu::call(d.cuGraphExecDestroy, exec);
    if (graph) cu::call(d.cuGraphDestroy, graph);
    if (words) cu::call(d.cuMemFreeAsync, words, stream);
    cu::call(d.cuStreamSynchronize, stream);
    if (pinned) cu::call(d.cuMemFreeHost, static_cast<void*>(pinned));
  }
};

// The stream's context made current; `words` device words zeroed and `pinned` pinned words.
cu::Context prepare(Napi::Env env, Held& held, size_t words, size_t pinned) {
  const auto& d = held.d;
  cu::Context ctx = nullptr;
  check(env, cu::call(d.cuStreamGetCtx, held.stream, &ctx), "cuStreamGetCtx");
  check(env, cu::call(d.cuCtxSetCurrent, ctx), "cuCtxSetCurrent");
  if (words > 0) {
    check(env, cu::call(d.cuMemAllocAsync, &held.words, words * sizeof(uint32_t), held.stream), "cuMemAllocAsync");
    check(env, cu::call(d.cuMemsetD32Async, held.words, 0u, words, held.stream), "cuMemsetD32Async");
  }
  if (pinned > 0) {
    check(env, cu::call(d.cuMemHostAlloc, reinterpret_cast<void**>(&held.pinned), pinned * sizeof(uint32_t), 0u), "cuMemHostAlloc");
    for (size_t i = 0; i < pinned; i++) held.pinned[i] = 0;
  }
  check(env, cu::call(d.cuStreamSynchronize, held.stream), "cuStreamSynchronize");
  return ctx;
}

// One thread's kernel node in `graph` after `after` (none: a root), with these parameters.
cu::GraphNode addKernel(Napi::Env env, const cu::BaselineDriver& d, cu::Graph graph, cu::GraphNode after, cu::Function fn,
                        std::vector<void*> params) {
  cu::KernelNodeParams p{fn, 1, 1, 1, 1, 1, 1, 0, params.data(), nullptr, nullptr, nullptr};
  cu::GraphNode node = nullptr;
  check(env, cu::call(d.cuGraphAddKernelNode, &node, graph, after ? &after : nullptr, after ? size_t{1} : size_t{0}, &p),
        "cuGraphAddKernelNode");
  return node;
}

// A handle of `graph` that takes `initial` at the start of each launch, as rxcuda's do.
cu::GraphConditionalHandle condition(Napi::Env env, const cu::BaselineDriver& d, cu::Graph graph, cu::Context ctx, unsigned initial) {
  cu::GraphConditionalHandle handle = 0;
  check(env, cu::call(d.cuGraphConditionalHandleCreate, &handle, graph, ctx, initial, cu::kGraphCondAssignDefault),
        "cuGraphConditionalHandleCreate");
  return handle;
}

// A conditional node of `type` with `size` bodies after `after`; the driver's body graphs in `bodies`.
cu::GraphNode addConditional(Napi::Env env, const cu::BaselineDriver& d, cu::Graph graph, cu::Context ctx, cu::GraphNode after,
                             cu::GraphConditionalHandle handle, cu::GraphConditionalNodeType type, unsigned size,
                             std::vector<cu::Graph>& bodies) {
  cu::GraphNodeParams p{};  // every byte past the conditional's parameters zero
  p.type = cu::kGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = type;
  p.conditional.size = size;
  p.conditional.ctx = ctx;
  cu::GraphNode node = nullptr;
  check(env, cu::call(d.cuGraphAddNode, &node, graph, after ? &after : nullptr, after ? size_t{1} : size_t{0}, &p), "cuGraphAddNode");
  bodies.assign(p.conditional.phGraph_out, p.conditional.phGraph_out + size);
  return node;
}

// Launches `exec` in `bursts` bursts of `burstSize`: nanoseconds per launch of the launch calls
// alone (`host`) and up to the end of the burst's work (`wall`, cuStreamSynchronize included).
Napi::Object bursts(Napi::Env env, const cu::BaselineDriver& d, cu::GraphExec exec, cu::Stream stream, uint32_t bursts,
                    uint32_t burstSize) {
  check(env, cu::call(d.cuGraphLaunch, exec, stream), "cuGraphLaunch");  // the first launch uploads the executable
  check(env, cu::call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
  auto host = Napi::Float64Array::New(env, bursts);
  auto wall = Napi::Float64Array::New(env, bursts);
  for (uint32_t b = 0; b < bursts; b++) {
    auto start = Clock::now();
    for (uint32_t i = 0; i < burstSize; i++) check(env, d.cuGraphLaunch(exec, stream), "cuGraphLaunch");
    auto launched = Clock::now();
    check(env, cu::call(d.cuStreamSynchronize, stream), "cuStreamSynchronize");
    auto end = Clock::now();
    host[b] = nanos(launched - start) / burstSize;
    wall[b] = nanos(end - start) / burstSize;
  }
  auto out = Napi::Object::New(env);
  out["host"] = host;
  out["wall"] = wall;
  return out;
}

// Copies `count` device words at `from` into the pinned words and returns the first.
uint32_t readBack(Napi::Env env, const Held& held, cu::DevicePtr from, size_t count) {
  const auto& d = held.d;
  check(env, cu::call(d.cuMemcpyAsync, reinterpret_cast<uintptr_t>(held.pinned), from, count * sizeof(uint32_t), held.stream),
        "cuMemcpyAsync");
  check(env, cu::call(d.cuStreamSynchronize, held.stream), "cuStreamSynchronize");
  return held.pinned[0];
}

// whileBursts(start: bigint, body: bigint, stream: bigint, { iterations, bursts, burstSize,
//   guard?: bigint, reset?: bigint, slot?, maxIterations? }) -> { host, wall: Float64Array, counter,
//   overruns }: each launch runs start(counter, iterations), then WHILE (initially 1) around
// body(counter, loop), which decrements the counter and sets the loop's condition to whether it is
// not zero. With `guard` and `reset` (rxcuda's rxcuda_loop_guard and rxcuda_loop_reset, and a
// counter slot of their module that no executable of rxcuda's holds), the loop is bounded as
// rxcuda bounds it: reset(slot) before the WHILE, whose body is guard(loop, inner, slot,
// maxIterations, report, 1, slot + 1, 1) (a ring of one report word, and another slot for the
// launch count, which this graph does not raise: rxcuda's executables add one kernel per launch
// for it) and IF (inner) { body }. `counter` is the counter after the last launch (0), `overruns`
// the guard's report (0: the bound was never reached).
Napi::Value whileBursts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto start = functionArg(info[0]);
  auto bodyFn = functionArg(info[1]);
  auto options = info[3].As<Napi::Object>();
  uint32_t iterations = option(options, "iterations");
  bool bounded = options.Has("guard") && !options.Get("guard").IsUndefined();
  const auto& d = cu::baselineDriver();
  Held held{d, reinterpret_cast<cu::Stream>(bigintArg(info[2]))};
  cu::Context ctx = prepare(env, held, 1, 1);
  cu::DevicePtr counter = held.words;
  uint32_t* report = held.pinned;

  check(env, cu::call(d.cuGraphCreate, &held.graph, 0u), "cuGraphCreate");
  cu::GraphNode last = addKernel(env, d, held.graph, nullptr, start, {&counter, &iterations});
  cu::GraphConditionalHandle loop = condition(env, d, held.graph, ctx, 1);
  uint32_t slot = 0, maxIterations = 0, ringSize = 1, exec = 0, loopNumber = 1;
  cu::DevicePtr reportPtr = reinterpret_cast<uintptr_t>(report);
  std::vector<cu::Graph> bodies;
  if (bounded) {
    slot = option(options, "slot");
    exec = slot + 1;
    maxIterations = option(options, "maxIterations");
    last = addKernel(env, d, held.graph, last, functionArg(options.Get("reset")), {&slot});
  }
  addConditional(env, d, held.graph, ctx, last, loop, cu::kGraphCondTypeWhile, 1, bodies);
  cu::Graph body = bodies.at(0);
  if (bounded) {
    cu::GraphConditionalHandle inner = condition(env, d, body, ctx, 0);
    cu::GraphNode guard =
        addKernel(env, d, body, nullptr, functionArg(options.Get("guard")),
                  {&loop, &inner, &slot, &maxIterations, &reportPtr, &ringSize, &exec, &loopNumber});
    addConditional(env, d, body, ctx, guard, inner, cu::kGraphCondTypeIf, 1, bodies);
    body = bodies.at(0);
  }
  addKernel(env, d, body, nullptr, bodyFn, {&counter, &loop});
  check(env, cu::call(d.cuGraphInstantiateWithFlags, &held.exec, held.graph, 0ull), "cuGraphInstantiateWithFlags");

  auto out = bursts(env, d, held.exec, held.stream, option(options, "bursts"), option(options, "burstSize"));
  out["overruns"] = report[0];
  out["counter"] = readBack(env, held, counter, 1);
  return out;
}

// switchBursts(choose: bigint, hit: bigint, stream: bigint, { bursts, burstSize, cases = 8 }) ->
//   { host, wall: Float64Array, hits: Uint32Array }: each launch runs choose(which, state), which
// sets the condition to the launch's number modulo `cases` (state[cases], counted on the device),
// then a SWITCH over `cases` bodies, case k being hit(hits, k) (hits[k] += 1). `hits` counts every
// launch's case, the first (uploading) launch's included.
Napi::Value switchBursts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto choose = functionArg(info[0]);
  auto hit = functionArg(info[1]);
  auto options = info[3].As<Napi::Object>();
  uint32_t cases = options.Has("cases") ? option(options, "cases") : 8u;
  const auto& d = cu::baselineDriver();
  Held held{d, reinterpret_cast<cu::Stream>(bigintArg(info[2]))};
  cu::Context ctx = prepare(env, held, size_t{cases} + 1, size_t{cases});
  cu::DevicePtr hits = held.words;

  check(env, cu::call(d.cuGraphCreate, &held.graph, 0u), "cuGraphCreate");
  cu::GraphConditionalHandle which = condition(env, d, held.graph, ctx, 0);
  cu::GraphNode chosen = addKernel(env, d, held.graph, nullptr, choose, {&which, &hits});
  std::vector<cu::Graph> bodies;
  addConditional(env, d, held.graph, ctx, chosen, which, cu::kGraphCondTypeSwitch, cases, bodies);
  for (uint32_t k = 0; k < cases; k++) addKernel(env, d, bodies.at(k), nullptr, hit, {&hits, &k});
  check(env, cu::call(d.cuGraphInstantiateWithFlags, &held.exec, held.graph, 0ull), "cuGraphInstantiateWithFlags");

  auto out = bursts(env, d, held.exec, held.stream, option(options, "bursts"), option(options, "burstSize"));
  readBack(env, held, hits, cases);
  auto counts = Napi::Uint32Array::New(env, cases);
  for (uint32_t k = 0; k < cases; k++) counts[k] = held.pinned[k];
  out["hits"] = counts;
  return out;
}

// hostLoop(start: bigint, step: bigint, stream: bigint, { iterations, rounds, wait }) ->
//   { perIteration: Float64Array, iterations: Uint32Array }: the loop of whileBursts driven from
// the host, `rounds` times: start(counter, iterations) (untimed), then step(counter, flag), which
// decrements the counter and writes whether it is not zero to a pinned word, is launched, waited
// for (wait 0: cuStreamSynchronize; 1: cuStreamQuery back to back) and the word read, until it
// reads 0. Nanoseconds per iteration in each round, and the iterations each round took.
Napi::Value hostLoop(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto start = functionArg(info[0]);
  auto step = functionArg(info[1]);
  auto options = info[3].As<Napi::Object>();
  uint32_t iterations = option(options, "iterations");
  uint32_t rounds = option(options, "rounds");
  uint32_t wait = option(options, "wait");
  if (wait > 1) throw Napi::RangeError::New(env, "Expected `wait` to be 0 (cuStreamSynchronize) or 1 (cuStreamQuery)");
  const auto& d = cu::baselineDriver();
  Held held{d, reinterpret_cast<cu::Stream>(bigintArg(info[2]))};
  prepare(env, held, 1, 1);
  cu::DevicePtr counter = held.words;
  volatile uint32_t* flag = held.pinned;
  cu::DevicePtr flagPtr = reinterpret_cast<uintptr_t>(held.pinned);
  cu::LaunchConfig config{1, 1, 1, 1, 1, 1, 0, held.stream, nullptr, 0};
  void* startParams[] = {&counter, &iterations};
  void* stepParams[] = {&counter, &flagPtr};

  auto perIteration = Napi::Float64Array::New(env, rounds);
  auto counts = Napi::Uint32Array::New(env, rounds);
  for (uint32_t r = 0; r < rounds; r++) {
    check(env, d.cuLaunchKernelEx(&config, start, startParams, nullptr), "cuLaunchKernelEx");
    check(env, cu::call(d.cuStreamSynchronize, held.stream), "cuStreamSynchronize");
    uint32_t n = 0;
    auto begin = Clock::now();
    do {
      check(env, d.cuLaunchKernelEx(&config, step, stepParams, nullptr), "cuLaunchKernelEx");
      if (wait == 0) {
        check(env, cu::call(d.cuStreamSynchronize, held.stream), "cuStreamSynchronize");
      } else {
        cu::Result q;
        while ((q = cu::call(d.cuStreamQuery, held.stream)) == cu::kErrorNotReady) {
        }
        check(env, q, "cuStreamQuery");
      }
      n++;
    } while (*flag != 0 && n < iterations + 1);  // one more than asked: a wrong kernel stops, and shows
    perIteration[r] = nanos(Clock::now() - begin) / n;
    counts[r] = n;
  }
  auto out = Napi::Object::New(env);
  out["perIteration"] = perIteration;
  out["iterations"] = counts;
  return out;
}

}  // namespace

void defineConditionalBaselines(Napi::Env env, Napi::Object exports) {
  exports["whileBursts"] = Napi::Function::New(env, whileBursts, "whileBursts");
  exports["switchBursts"] = Napi::Function::New(env, switchBursts, "switchBursts");
  exports["hostLoop"] = Napi::Function::New(env, hostLoop, "hostLoop");
}

}  // namespace bench
