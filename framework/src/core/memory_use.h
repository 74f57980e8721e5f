// What this process holds: the heap malloc has handed out and the peak resident set. Figures
// for reports and benchmarks (glibc's allocator; the sanitizers' allocators are not seen).
#pragma once

#include <malloc.h>
#include <sys/resource.h>

namespace dede::internal {

// Bytes of heap in use: malloc's arenas (every thread's) and its mmapped chunks.
inline double HeapInUseBytes() {
#if defined(__GLIBC__)
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
#else
  return 0;
#endif
}

// The process's peak resident set so far, in bytes.
inline double PeakRssBytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;
}

}  // namespace dede::internal
