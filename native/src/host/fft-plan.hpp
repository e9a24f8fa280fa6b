// The host device's FFT: the reference for cuFFT's, with its contract (row-major sizes, batches
// packed one after another, complex data interleaved, transforms unnormalized, c2r reading the
// n/2 + 1 non-redundant outputs of the last dimension) for any size: mixed radix for sizes whose
// prime factors are small, Bluestein's algorithm (through a power of two) for the others, and
// long sizes split in two factors (a four-step transform) where they have any. Sums
// are formed in f64 whatever the data's precision, so its results are at least as accurate as
// the GPU's.
#pragma once
#include <complex>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace rxcuda::host {

using Complex = std::complex<double>;

// A transform of one length, forward (e^-2πi jk/n); inverse through conjugation.
class Fft1d {
 public:
  explicit Fft1d(size_t n);
  // out[k] = Σ in[j·stride] e^∓2πi jk/n; out is contiguous and apart from in.
  void run(const Complex* in, size_t stride, Complex* out, bool inverse) const;
  size_t size() const { return n_; }

 private:
  void forward(const Complex* in, size_t stride, Complex* out) const;
  void split(const Complex* in, size_t stride, Complex* out, bool inverse) const;
  void work(Complex* out, const Complex* in, size_t fstride, size_t stride, const size_t* factors) const;

  size_t n_;
  std::vector<size_t> factors_;  // radix, then the remaining length, per stage
  std::vector<Complex> twiddles_;  // W_n^j for j < n; for a split, j < n1 only
  // A split: the transforms of the columns (n1) and of the rows (n2), and W_n^(n1·j) for j < n2.
  std::unique_ptr<Fft1d> cols_, rows_;
  std::vector<Complex> coarse_;
  // Bluestein: the chirp, the transformed kernel and the power-of-two transform they go through.
  std::vector<Complex> chirp_, kernel_;
  std::unique_ptr<Fft1d> inner_;
};

// A plan as cuFFT's: kind (blocks::Kind), double or single precision, up to 3 sizes, a batch.
// Its one-dimensional transforms are made by the first execution (off the main thread).
class HostPlan {
 public:
  HostPlan(int kind, bool f64, std::vector<int64_t> sizes, int64_t batch);
  // Runs the transform from in to out (they may be the same memory for c2c).
  void execute(const void* in, void* out, bool inverse);

 private:
  void prepare();

  int kind_;
  bool f64_;
  std::vector<int64_t> sizes_;
  int64_t batch_;
  std::once_flag prepared_;
  std::vector<std::unique_ptr<Fft1d>> axes_;  // one per dimension
};

}  // namespace rxcuda::host
