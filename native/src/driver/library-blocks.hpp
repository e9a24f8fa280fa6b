// The parameter blocks of library calls: one double per field, addresses as their two 32-bit
// halves. TypeScript writes them (src/core/libraries/blocks.ts owns the layout and checks these
// indices at load, through libraryBlocks()); the CUDA and the host backends read them.
#pragma once
#include <cstdint>

namespace rxcuda::blocks {

// A GEMM as cuBLAS takes it: column-major, C = alpha·op(A)·op(B) + beta·C, batched with strides.
enum Gemm : int {
  kStreamLo, kStreamHi, kTransA, kTransB, kM, kN, kK, kAlpha, kBeta,
  kALo, kAHi, kLda, kStrideA,
  kBLo, kBHi, kLdb, kStrideB,
  kCLo, kCHi, kLdc, kStrideC,
  kBatch, kABType, kCType,
  kWorkLo, kWorkHi, kWorkBytes,
  kGemmSlots,
};

// Element types of a GEMM's operands.
enum Element : int { kF32 = 0, kF16 = 1, kBF16 = 2, kF64 = 3 };

// An FFT's execution with a plan made from a plan block.
enum Fft : int {
  kFftStreamLo, kFftStreamHi, kPlan, kDirection, kInLo, kInHi, kOutLo, kOutHi,
  kFftWorkLo, kFftWorkHi, kFftWorkBytes,
  kFftSlots,
};

// A plan: the transform's kind and precision, its rank and sizes (slowest first), and the batch.
enum Plan : int { kKind, kPrecision, kRank, kN0, kN1, kN2, kPlanBatch, kPlanSlots };
enum Kind : int { kC2C = 0, kR2C = 1, kC2R = 2 };
enum Precision : int { kSingle = 0, kDouble = 1 };

inline uint64_t address(const double* block, int lo) {
  return (static_cast<uint64_t>(block[lo + 1]) << 32) | static_cast<uint64_t>(block[lo]);
}

}  // namespace rxcuda::blocks
