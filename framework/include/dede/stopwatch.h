// Wall-clock durations for the host and for plugins: seconds on std::chrono::steady_clock (a
// clock that never jumps with the time of day), so every timing in the project reads the same.
#pragma once

#include <chrono>

namespace dede {

using SteadyClock = std::chrono::steady_clock;

// Seconds from `start` to `end` (now by default).
inline double SecondsSince(SteadyClock::time_point start,
                           SteadyClock::time_point end = SteadyClock::now()) {
  return std::chrono::duration<double>(end - start).count();
}

// Seconds since construction or the last Restart().
class Stopwatch {
 public:
  Stopwatch() : start_(SteadyClock::now()) {}
  double Seconds() const { return SecondsSince(start_); }
  void Restart() { start_ = SteadyClock::now(); }
  SteadyClock::time_point start() const { return start_; }

 private:
  SteadyClock::time_point start_;
};

}  // namespace dede
