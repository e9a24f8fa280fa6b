// Host-to-host copies off the main thread: a pageable array into pinned staging before an upload,
// pinned results into arrays of the user's after a download. Each copy is cut into chunks that a
// small pool of native threads (one pool per environment) copies in parallel; the last chunk sends
// the copy's completion through the completion queue. Plain C++ over plain structs: no Node-API
// and no CUDA off the main thread.
#pragma once
#include <napi.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "completion.hpp"

namespace rxcuda {

class CopyPool {
 public:
  // threads: 0 for the default (RXCUDA_COPY_THREADS, else half the cores, 2 to 8).
  explicit CopyPool(unsigned threads = 0);
  // Finishes the chunks already queued (the memory they copy is still there during environment
  // cleanup), then joins the threads.
  ~CopyPool();

  // Copies bytes from src to dst in parallel chunks; `done` is pushed through the completion queue
  // once every chunk has been copied. The caller keeps both ranges alive until then.
  void copy(void* dst, const void* src, size_t bytes, Completion::Record* done);

  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

 private:
  struct Job;  // one copy: its chunks left, and the record to push after the last
  struct Chunk {
    std::shared_ptr<Job> job;
    unsigned char* dst;
    const unsigned char* src;
    size_t bytes;
  };
  void work();
  void stop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Chunk> chunks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// copyHost(id, dst, src, bytes): dst and src are addresses (bigint) or TypedArrays; id comes back
// through the completion queue when the bytes are copied.
// hostAddress(view): the address of a TypedArray's first byte, as a bigint.
// copyThreads(): the pool's thread count (starts the pool).
void defineHostCopy(Napi::Env env, Napi::Object exports);

}  // namespace rxcuda
