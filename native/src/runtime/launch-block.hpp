// A kernel's launch block, the one declaration of its binary layout: TypeScript writes it
// (src/core/kernels/launch-block.ts), cuda/kernel.cpp and the device threads read it. The addon
// hands this layout to TypeScript as `launchBlockLayout`, which checks its own constants against
// it at load (src/core/native/launch-block.ts).
#pragma once
#include <cstdint>

namespace rxcuda {

// The block starts with the launch configuration, in 32-bit words (each shape's x, y, z in turn).
enum LaunchHeader : unsigned {
  kGridX, kGridY, kGridZ, kBlockX, kBlockY, kBlockZ, kSharedMem, kFlags,
  kClusterX, kClusterY, kClusterZ, kLaunchHeaderWords,
};
// The bits of the kFlags word.
constexpr unsigned kFlagCooperative = 1, kFlagCluster = 2;
// The stream's handle: a 64-bit word at this byte offset, after the configuration.
constexpr unsigned kStreamOffset = 48;
// The packed arguments start here: the header's size in bytes.
constexpr unsigned kArgsOffset = 64;

static_assert(kLaunchHeaderWords * sizeof(uint32_t) <= kStreamOffset, "the stream handle follows the configuration");
static_assert(kStreamOffset % 8 == 0 && kStreamOffset + 8 <= kArgsOffset, "the handle is an aligned word of the header");
static_assert(kArgsOffset % 16 == 0, "the arguments start 16-byte aligned");

}  // namespace rxcuda
