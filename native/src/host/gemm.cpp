#include "gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "../driver/library-blocks.hpp"

namespace rxcuda::host {
namespace {

namespace b = blocks;

float fromHalf(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        e++;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Round to nearest, ties to even, as the GPU converts an f32 result.
uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx > 0x7f800000) return static_cast<uint16_t>(sign | 0x7e00);  // NaN
  if (absx >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to infinity
  if (absx < 0x38800000) {  // below the smallest normal half: a subnormal (or zero)
    float scaled = std::fabs(f) * 16777216.0f;  // units of 2^-24, exact
    auto units = static_cast<uint32_t>(std::nearbyint(scaled));  // the default mode is to even
    return static_cast<uint16_t>(sign | units);
  }
  uint32_t exp = (absx >> 23) - 127 + 15, mant = absx & 0x7fffff;
  uint32_t half = exp << 10 | mant >> 13;
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++;
  return static_cast<uint16_t>(sign | half);
}

float fromBfloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t toBfloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

template <typename T>
T load(const void* base, int type, int64_t i) {
  switch (type) {
    case b::kF16: return static_cast<T>(fromHalf(static_cast<const uint16_t*>(base)[i]));
    case b::kBF16: return static_cast<T>(fromBfloat(static_cast<const uint16_t*>(base)[i]));
    case b::kF64: return static_cast<T>(static_cast<const double*>(base)[i]);
    default: return static_cast<T>(static_cast<const float*>(base)[i]);
  }
}

template <typename T>
void store(void* base, int type, int64_t i, T value) {
  switch (type) {
    case b::kF16: static_cast<uint16_t*>(base)[i] = toHalf(static_cast<float>(value)); break;
    case b::kBF16: static_cast<uint16_t*>(base)[i] = toBfloat(static_cast<float>(value)); break;
    case b::kF64: static_cast<double*>(base)[i] = static_cast<double>(value); break;
    default: static_cast<float*>(base)[i] = static_cast<float>(value);
  }
}

int64_t elementBytes(int type) { return type == b::kF64 ? 8 : type == b::kF32 ? 4 : 2; }

const void* offset(const void* base, int type, int64_t elements) {
  return static_cast<const char*>(base) + elements * elementBytes(type);
}

// Blocks of op(A) rows and of the summed dimension that stay in the cache while C's columns pass.
constexpr int64_t kRowBlock = 128;
constexpr int64_t kSumBlock = 256;

// One matrix of the batch, accumulating in T (float, or double for f64).
template <typename T>
void gemmOne(const GemmParams& p, const void* a, const void* bm, void* c) {
  const int64_t m = p.m, n = p.n, k = p.k;
  // op(A) packed column-major (m × k) and op(B) column-major (k × n), both in T: the inner loop
  // then runs down contiguous columns, which the compiler vectorizes.
  thread_local std::vector<T> ap, bp, acc;
  ap.resize(static_cast<size_t>(m * k));
  bp.resize(static_cast<size_t>(k * n));
  acc.assign(static_cast<size_t>(m * n), T(0));
  for (int64_t l = 0; l < k; l++)
    for (int64_t i = 0; i < m; i++) ap[i + l * m] = load<T>(a, p.abType, p.transA ? l + i * p.lda : i + l * p.lda);
  for (int64_t j = 0; j < n; j++)
    for (int64_t l = 0; l < k; l++) bp[l + j * k] = load<T>(bm, p.abType, p.transB ? j + l * p.ldb : l + j * p.ldb);
  for (int64_t i0 = 0; i0 < m; i0 += kRowBlock) {
    const int64_t rows = std::min(kRowBlock, m - i0);
    for (int64_t l0 = 0; l0 < k; l0 += kSumBlock) {
      const int64_t sums = std::min(kSumBlock, k - l0);
      for (int64_t j = 0; j < n; j++) {
        T* out = acc.data() + i0 + j * m;
        for (int64_t l = l0; l < l0 + sums; l++) {
          const T factor = bp[l + j * k];
          const T* column = ap.data() + i0 + l * m;
          for (int64_t i = 0; i < rows; i++) out[i] += column[i] * factor;
        }
      }
    }
  }
  const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      T value = alpha * acc[i + j * m];
      if (p.beta != 0) value += beta * load<T>(c, p.cType, i + j * p.ldc);
      store<T>(c, p.cType, i + j * p.ldc, value);
    }
}

}  // namespace

GemmParams gemmParams(const double* block) {
  GemmParams p;
  p.transA = block[b::kTransA] != 0;
  p.transB = block[b::kTransB] != 0;
  p.m = static_cast<int64_t>(block[b::kM]);
  p.n = static_cast<int64_t>(block[b::kN]);
  p.k = static_cast<int64_t>(block[b::kK]);
  p.alpha = block[b::kAlpha];
  p.beta = block[b::kBeta];
  p.a = reinterpret_cast<const void*>(static_cast<uintptr_t>(b::address(block, b::kALo)));
  p.lda = static_cast<int64_t>(block[b::kLda]);
  p.strideA = static_cast<int64_t>(block[b::kStrideA]);
  p.b = reinterpret_cast<const void*>(static_cast<uintptr_t>(b::address(block, b::kBLo)));
  p.ldb = static_cast<int64_t>(block[b::kLdb]);
  p.strideB = static_cast<int64_t>(block[b::kStrideB]);
  p.c = reinterpret_cast<void*>(static_cast<uintptr_t>(b::address(block, b::kCLo)));
  p.ldc = static_cast<int64_t>(block[b::kLdc]);
  p.strideC = static_cast<int64_t>(block[b::kStrideC]);
  p.batch = static_cast<int64_t>(block[b::kBatch]);
  p.abType = static_cast<int>(block[b::kABType]);
  p.cType = static_cast<int>(block[b::kCType]);
  return p;
}

void gemm(const GemmParams& p) {
  for (int64_t i = 0; i < p.batch; i++) {
    const void* a = offset(p.a, p.abType, i * p.strideA);
    const void* bm = offset(p.b, p.abType, i * p.strideB);
    void* c = const_cast<void*>(offset(p.c, p.cType, i * p.strideC));
    if (p.abType == b::kF64) gemmOne<double>(p, a, bm, c);
    else gemmOne<float>(p, a, bm, c);
  }
}

}  // namespace rxcuda::host
