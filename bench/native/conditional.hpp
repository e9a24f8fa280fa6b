// The C++ twin of bench/conditional.mjs: graphs with conditional nodes (a WHILE around one small
// kernel, plain and with rxcuda's bound; a SWITCH over 8 cases) and the same loop driven from the
// host, through the driver API, with kernels compiled and linked by rxcuda, in the same process.
#pragma once
#include <napi.h>

namespace bench {

// whileBursts, switchBursts, hostLoop (see conditional.cpp).
void defineConditionalBaselines(Napi::Env env, Napi::Object exports);

}  // namespace bench
