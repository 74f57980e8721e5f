// The runtime's clocks: steady time for durations, Unix time for what is recorded.
#pragma once

#include <chrono>

namespace dede::internal {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

inline double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace dede::internal
