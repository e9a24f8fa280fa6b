// The C++ twin of bench/small-frames.mjs: small frames through the driver API, eager and with one
// graph launch per frame, on rxcuda's device, in the same process.
#pragma once
#include <napi.h>

namespace bench {

// smallFrames (see small-frames.cpp).
void defineSmallFrameBaselines(Napi::Env env, Napi::Object exports);

}  // namespace bench
