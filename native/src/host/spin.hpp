// Waiting without a system call, for the host backend's threads (host/pool.hpp, host/queue.hpp):
// the main thread and the pool threads hand each other commands a few microseconds apart, and a
// lock taken by blocking at once would cost both sides a futex call (the waiter's, then the wake
// its holder must give on unlock) for a section that ends within nanoseconds.
#pragma once
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#endif

namespace rxcuda::host {

// One step of a busy wait: lets the core's other hyperthread (or the CPU's power) have it.
inline void relax() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#else
  std::this_thread::yield();
#endif
}

// Takes `mutex`, trying a while before blocking; for sections of a few instructions.
inline void lockSpinning(std::mutex& mutex) {
  for (int n = 0; n < 64; n++) {
    if (mutex.try_lock()) return;
    relax();
  }
  mutex.lock();
}

}  // namespace rxcuda::host
