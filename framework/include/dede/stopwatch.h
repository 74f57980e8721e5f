/// \file
/// Wall-clock durations for the host and for plugins: seconds on std::chrono::steady_clock (a
/// clock that never jumps with the time of day), so every timing in the project reads the same.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

namespace dede {

using SteadyClock = std::chrono::steady_clock;

/// Seconds from `start` to `end` (now by default).
inline double SecondsSince(SteadyClock::time_point start,
                           SteadyClock::time_point end = SteadyClock::now()) {
  return std::chrono::duration<double>(end - start).count();
}

/// Seconds since construction or the last Restart().
class Stopwatch {
 public:
  Stopwatch() : start_(SteadyClock::now()) {}
  double Seconds() const { return SecondsSince(start_); }
  void Restart() { start_ = SteadyClock::now(); }
  SteadyClock::time_point start() const { return start_; }

 private:
  SteadyClock::time_point start_;
};

/// A time limit for a whole round of `parts` solves run `at_once` at a time (POP's groups): each
/// solve starting takes what is left of it over the waves of solves still to run, so one that
/// ends early leaves its time to the later ones. Thread-safe; an infinite limit stays infinite,
/// and a share of 0 or less means no time is left.
class SharedTimeLimit {
 public:
  SharedTimeLimit(double seconds,
                  int parts,
                  int at_once,
                  SteadyClock::time_point start = SteadyClock::now())
      : seconds_(seconds), parts_(parts), at_once_(std::max(1, at_once)), start_(start) {}
  /// The share of the solve starting now (call once per solve).
  double NextShare() {
    const int waves_left = std::max(1, (parts_ - started_.fetch_add(1) + at_once_ - 1) / at_once_);
    if (!std::isfinite(seconds_)) return seconds_;
    return (seconds_ - SecondsSince(start_)) / waves_left;
  }

 private:
  const double seconds_;
  const int parts_, at_once_;
  const SteadyClock::time_point start_;
  std::atomic<int> started_{0};
};

}  // namespace dede
