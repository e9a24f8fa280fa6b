#include "fft-plan.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "../driver/library-blocks.hpp"

namespace rxcuda::host {
namespace {

// Prime factors above this go through Bluestein's algorithm: a generic butterfly costs the
// radix per output. Radix 4 is the one composite radix, below it.
constexpr size_t kLargestRadix = 61;

// Lengths above this are split in two (n = n1·n2, a four-step transform) where they can be: the
// transforms of a length that fits the caches run several times as fast per point as one whose
// every stage reads memory anew.
constexpr size_t kSplitAbove = 1 << 14;

// Lines of the four-step transform gathered and scattered at once: whole cache lines of data.
constexpr size_t kBlock = 8;

// Bytes of scratch a thread keeps between transforms (see Scratch).
constexpr size_t kKeptBytes = size_t{64} << 20;

// The radices of n, each followed by the length that remains after it, when every prime factor
// of n is at most kLargestRadix; else empty (n goes through Bluestein's algorithm).
std::vector<size_t> factorize(size_t n) {
  std::vector<size_t> factors;
  size_t rest = n;
  auto take = [&](size_t p) {
    while (rest % p == 0) {
      rest /= p;
      factors.push_back(p);
      factors.push_back(rest);
    }
  };
  take(4);
  take(2);
  for (size_t p = 3; p <= kLargestRadix && p * p <= rest; p += 2) take(p);
  // What remains is 1, a prime, or a product of primes above kLargestRadix (p² = 4489 for 67).
  if (rest > kLargestRadix) return {};
  if (rest > 1) {
    factors.push_back(rest);
    factors.push_back(1);
  }
  return factors;
}

// The divisor of n nearest its square root from below; 1 for a prime.
size_t splitOf(size_t n) {
  size_t d = static_cast<size_t>(std::sqrt(double(n)));
  while (d * d > n) d--;
  while (d > 1 && n % d != 0) d--;
  return d;
}

// A product without std::complex's care for infinities (a call to __muldc3 each): the data is
// finite, or its transform is NaN either way.
inline Complex mul(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// e^-2πi t/n.
Complex root(size_t t, size_t n) { return std::polar(1.0, -2 * std::numbers::pi * double(t) / double(n)); }

// n complex values borrowed from the thread's spare buffers, given back when it goes: a
// transform repeated on a stream touches no fresh memory (where the first touch of a page costs
// more than the arithmetic done on it). A thread keeps at most kKeptBytes of them.
class Scratch {
 public:
  explicit Scratch(size_t n) {
    auto& spare = spares();
    auto best = spare.end();
    for (auto it = spare.begin(); it != spare.end(); ++it)
      if (it->size() >= n && (best == spare.end() || it->size() < best->size())) best = it;
    if (best != spare.end()) {
      buffer_ = std::move(*best);
      spare.erase(best);
    } else {
      buffer_.resize(n);
    }
  }
  ~Scratch() {
    auto& spare = spares();
    size_t kept = buffer_.size() * sizeof(Complex);
    for (const auto& b : spare) kept += b.size() * sizeof(Complex);
    if (kept <= kKeptBytes) spare.push_back(std::move(buffer_));
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  Complex* data() { return buffer_.data(); }
  Complex& operator[](size_t i) { return buffer_[i]; }

 private:
  static std::vector<std::vector<Complex>>& spares() {
    thread_local std::vector<std::vector<Complex>> spare;
    return spare;
  }
  std::vector<Complex> buffer_;
};

}  // namespace

Fft1d::Fft1d(size_t n) : n_(n) {
  const size_t n1 = n > kSplitAbove ? splitOf(n) : 1;
  if (n1 > 1) {
    // Four steps: n1-point transforms of the columns, twiddles W_n^(j2·k1), n2-point transforms
    // of the rows. The twiddles are W_n^(t mod n1) · W_n^(n1·(t div n1)): two short tables.
    cols_ = std::make_unique<Fft1d>(n1);
    rows_ = std::make_unique<Fft1d>(n / n1);
    twiddles_.resize(n1);
    for (size_t j = 0; j < n1; j++) twiddles_[j] = root(j, n);
    coarse_.resize(n / n1);
    for (size_t j = 0; j < n / n1; j++) coarse_[j] = root(j * n1, n);
    return;
  }
  factors_ = n <= 1 ? std::vector<size_t>{1, 1} : factorize(n);
  if (!factors_.empty()) {
    twiddles_.resize(n);
    for (size_t j = 0; j < n; j++) twiddles_[j] = root(j, n);
    return;
  }
  // Bluestein: X[k] = w[k] Σ (x[j] w[j]) conj(w[k - j]), with w[k] = e^-πi k²/n: a convolution,
  // done through a power-of-two transform of at least 2n - 1 points. k² is taken mod 2n exactly.
  size_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  inner_ = std::make_unique<Fft1d>(m);
  chirp_.resize(n);
  for (size_t k = 0; k < n; k++) {
    auto k2 = static_cast<unsigned __int128>(k) * k % (2 * n);
    chirp_[k] = std::polar(1.0, -std::numbers::pi * double(k2) / double(n));
  }
  std::vector<Complex> b(m);
  b[0] = std::conj(chirp_[0]);
  for (size_t k = 1; k < n; k++) b[k] = b[m - k] = std::conj(chirp_[k]);
  kernel_.resize(m);
  inner_->run(b.data(), 1, kernel_.data(), false);
}

void Fft1d::run(const Complex* in, size_t stride, Complex* out, bool inverse) const {
  if (cols_) return split(in, stride, out, inverse);
  if (!inverse) return forward(in, stride, out);
  // The inverse is the conjugate of the forward transform of the conjugate.
  Scratch conj(n_);
  for (size_t j = 0; j < n_; j++) conj[j] = std::conj(in[j * stride]);
  forward(conj.data(), 1, out);
  for (size_t k = 0; k < n_; k++) out[k] = std::conj(out[k]);
}

void Fft1d::forward(const Complex* in, size_t stride, Complex* out) const {
  if (!inner_) return work(out, in, 1, stride, factors_.data());
  const size_t m = inner_->size();
  Scratch a(m), spectrum(m);
  for (size_t j = 0; j < n_; j++) a[j] = mul(in[j * stride], chirp_[j]);
  for (size_t j = n_; j < m; j++) a[j] = 0;
  inner_->run(a.data(), 1, spectrum.data(), false);
  for (size_t k = 0; k < m; k++) spectrum[k] = std::conj(mul(spectrum[k], kernel_[k]));
  inner_->run(spectrum.data(), 1, a.data(), false);  // conj, forward, conj: the inverse
  const double scale = 1.0 / double(m);
  for (size_t k = 0; k < n_; k++) out[k] = mul(std::conj(a[k]) * scale, chirp_[k]);
}

// n = n1·n2, j = j1·n2 + j2, k = k1 + n1·k2:
// X[k1 + n1·k2] = Σ_j2 W_n2^(j2·k2) · W_n^(j2·k1) · Σ_j1 x[j1·n2 + j2] · W_n1^(j1·k1).
// Lines are gathered and scattered kBlock at a time, so that each cache line is read once.
void Fft1d::split(const Complex* in, size_t stride, Complex* out, bool inverse) const {
  const size_t n1 = cols_->size(), n2 = rows_->size();
  Scratch middle(n_);  // middle[k1·n2 + j2]: the twiddled column transforms, as rows
  Scratch block(2 * kBlock * std::max(n1, n2));
  Complex* lines = block.data();
  Complex* spectra = lines + kBlock * std::max(n1, n2);
  for (size_t j2 = 0; j2 < n2; j2 += kBlock) {
    const size_t count = std::min(kBlock, n2 - j2);
    for (size_t j1 = 0; j1 < n1; j1++)
      for (size_t c = 0; c < count; c++) lines[c * n1 + j1] = in[(j1 * n2 + j2 + c) * stride];
    for (size_t c = 0; c < count; c++) cols_->run(lines + c * n1, 1, spectra + c * n1, inverse);
    for (size_t k1 = 0; k1 < n1; k1++)
      for (size_t c = 0; c < count; c++) {
        const size_t t = (j2 + c) * k1;  // below n2·n1 = n
        Complex w = mul(twiddles_[t % n1], coarse_[t / n1]);
        if (inverse) w = std::conj(w);
        middle[k1 * n2 + j2 + c] = mul(spectra[c * n1 + k1], w);
      }
  }
  for (size_t k1 = 0; k1 < n1; k1 += kBlock) {
    const size_t count = std::min(kBlock, n1 - k1);
    for (size_t c = 0; c < count; c++) rows_->run(middle.data() + (k1 + c) * n2, 1, spectra + c * n2, inverse);
    for (size_t k2 = 0; k2 < n2; k2++)
      for (size_t c = 0; c < count; c++) out[k1 + c + n1 * k2] = spectra[c * n2 + k2];
  }
}

// Decimation in time: the p sub-transforms of every p-th element, then butterflies of radix p
// that combine them, with twiddles W_n^(fstride·k·q) of the top-level length n.
void Fft1d::work(Complex* out, const Complex* in, size_t fstride, size_t stride, const size_t* factors) const {
  const size_t p = factors[0], m = factors[1];
  if (m == 1) {
    for (size_t q = 0; q < p; q++) out[q] = in[q * fstride * stride];
  } else {
    for (size_t q = 0; q < p; q++) work(out + q * m, in + q * fstride * stride, fstride * p, stride, factors + 2);
  }
  const Complex* w = twiddles_.data();
  if (p == 2) {
    for (size_t u = 0; u < m; u++) {
      Complex t = mul(out[u + m], w[u * fstride]);
      out[u + m] = out[u] - t;
      out[u] += t;
    }
    return;
  }
  if (p == 4) {
    // u·3·fstride < 4·m·fstride = n: the twiddles need no reduction.
    for (size_t u = 0; u < m; u++) {
      Complex a1 = mul(out[u + m], w[u * fstride]), a2 = mul(out[u + 2 * m], w[2 * u * fstride]);
      Complex a3 = mul(out[u + 3 * m], w[3 * u * fstride]);
      Complex even = out[u] + a2, odd = out[u] - a2, sum = a1 + a3, diff = a1 - a3;
      Complex turned{diff.imag(), -diff.real()};  // −i·diff: W_4 of the forward transform
      out[u] = even + sum;
      out[u + m] = odd + turned;
      out[u + 2 * m] = even - sum;
      out[u + 3 * m] = odd - turned;
    }
    return;
  }
  // factorize() gives no radix above kLargestRadix; a plan that had one would write past the scratch.
  std::array<Complex, kLargestRadix> scratch;
  if (p > scratch.size()) throw std::logic_error("rxcuda: an FFT radix above the butterfly's scratch");
  for (size_t u = 0; u < m; u++) {
    for (size_t q = 0; q < p; q++) scratch[q] = out[u + q * m];
    for (size_t q1 = 0; q1 < p; q1++) {
      const size_t k = u + q1 * m;
      const size_t step = fstride * k;  // below fstride·p·m = n
      Complex sum = scratch[0];
      size_t index = 0;
      for (size_t q = 1; q < p; q++) {
        index += step;
        if (index >= n_) index -= n_;
        sum += mul(scratch[q], w[index]);
      }
      out[k] = sum;
    }
  }
}

HostPlan::HostPlan(int kind, bool f64, std::vector<int64_t> sizes, int64_t batch)
    : kind_(kind), f64_(f64), sizes_(std::move(sizes)), batch_(batch) {}

void HostPlan::prepare() {
  for (int64_t n : sizes_) axes_.push_back(std::make_unique<Fft1d>(static_cast<size_t>(n)));
}

namespace {

// Element `i` of real or interleaved complex data in the plan's precision.
double real(const void* data, bool f64, int64_t i) {
  return f64 ? static_cast<const double*>(data)[i] : static_cast<const float*>(data)[i];
}
Complex complexAt(const void* data, bool f64, int64_t i) { return {real(data, f64, 2 * i), real(data, f64, 2 * i + 1)}; }
void setReal(void* data, bool f64, int64_t i, double v) {
  if (f64) static_cast<double*>(data)[i] = v;
  else static_cast<float*>(data)[i] = static_cast<float>(v);
}
void setComplex(void* data, bool f64, int64_t i, Complex v) {
  setReal(data, f64, 2 * i, v.real());
  setReal(data, f64, 2 * i + 1, v.imag());
}

// Transforms `data` (complex, row-major `shape`) in place along axis `axis`.
void alongAxis(Complex* data, const std::vector<int64_t>& shape, size_t axis, const Fft1d& fft, bool inverse) {
  int64_t inner = 1, outer = 1;
  for (size_t a = axis + 1; a < shape.size(); a++) inner *= shape[a];
  for (size_t a = 0; a < axis; a++) outer *= shape[a];
  const int64_t n = shape[axis];
  Scratch line(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      Complex* start = data + o * n * inner + i;
      fft.run(start, static_cast<size_t>(inner), line.data(), inverse);
      for (int64_t k = 0; k < n; k++) start[k * inner] = line[k];
    }
}

}  // namespace

void HostPlan::execute(const void* in, void* out, bool inverse) {
  std::call_once(prepared_, [this] { prepare(); });
  const size_t rank = sizes_.size();
  const int64_t last = sizes_.back();
  const int64_t half = last / 2 + 1;
  int64_t realCount = 1;
  for (int64_t n : sizes_) realCount *= n;
  const int64_t halfCount = realCount / last * half;
  // The complex side's shape: the last dimension halved for r2c and c2r.
  std::vector<int64_t> shape = sizes_;
  if (kind_ != blocks::kC2C) shape.back() = half;
  const int64_t complexCount = kind_ == blocks::kC2C ? realCount : halfCount;
  Scratch data(static_cast<size_t>(complexCount));
  const size_t lines = kind_ == blocks::kC2C ? 0 : static_cast<size_t>(last);  // the real transforms' last dimension
  Scratch line(lines), spectrum(lines);
  for (int64_t batch = 0; batch < batch_; batch++) {
    if (kind_ == blocks::kC2C) {
      for (int64_t i = 0; i < complexCount; i++) data[i] = complexAt(in, f64_, batch * complexCount + i);
      for (size_t axis = 0; axis < rank; axis++) alongAxis(data.data(), shape, axis, *axes_[axis], inverse);
      for (int64_t i = 0; i < complexCount; i++) setComplex(out, f64_, batch * complexCount + i, data[i]);
    } else if (kind_ == blocks::kR2C) {
      // The last dimension real to half complex, line by line, then the others complex.
      for (int64_t row = 0; row < realCount / last; row++) {
        for (int64_t j = 0; j < last; j++) line[j] = real(in, f64_, batch * realCount + row * last + j);
        axes_.back()->run(line.data(), 1, spectrum.data(), false);
        for (int64_t k = 0; k < half; k++) data[row * half + k] = spectrum[k];
      }
      for (size_t axis = 0; axis + 1 < rank; axis++) alongAxis(data.data(), shape, axis, *axes_[axis], false);
      for (int64_t i = 0; i < complexCount; i++) setComplex(out, f64_, batch * complexCount + i, data[i]);
    } else {
      // The other dimensions complex, then the last half complex to real through its Hermitian
      // extension: X[k] = conj(X[n - k]) above n/2.
      for (int64_t i = 0; i < complexCount; i++) data[i] = complexAt(in, f64_, batch * complexCount + i);
      for (size_t axis = 0; axis + 1 < rank; axis++) alongAxis(data.data(), shape, axis, *axes_[axis], true);
      for (int64_t row = 0; row < realCount / last; row++) {
        for (int64_t k = 0; k < half; k++) spectrum[k] = data[row * half + k];
        for (int64_t k = half; k < last; k++) spectrum[k] = std::conj(spectrum[last - k]);
        axes_.back()->run(spectrum.data(), 1, line.data(), true);
        for (int64_t j = 0; j < last; j++) setReal(out, f64_, batch * realCount + row * last + j, line[j].real());
      }
    }
  }
}

}  // namespace rxcuda::host
