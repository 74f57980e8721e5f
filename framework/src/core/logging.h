// Logging inside the framework (the engine, the exact solver, the MPI layer, the plugin loader):
// the process log of dede/log.h with fmt formatting, which builds nothing when the level is off.
//
//   #include "core/logging.h"
//   LogWarn("process {}: {}", rank, error);
//   LogDebug("admm cold start {:.3f} s", seconds);
//
// Levels: a problem that does not end the run is a warning, one that ends it an error;
// diagnostics (what an option `verbose` printed once) are debug lines, shown with
// `--log-level debug`.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "dede/log.h"

namespace dede::internal {

template <typename... Args>
void LogAt(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  LogWriter& log = ProcessLog();
  if (log.Enabled(level)) log.Write(level, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogTrace(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kTrace, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogDebug(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kDebug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kInfo, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogWarn(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kWarn, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kError, format, std::forward<Args>(args)...);
}

// "trace", "debug", "info ", "warn ", "error": the level as `--log-level` spells it, padded to
// one width so that the messages line up ("" for kOff).
std::string_view PaddedLevelName(LogLevel level);
// One line of the log, with its newline: "2026-11-26T19:40:01.123Z info  message\n" (UTC).
std::string FormatLogLine(LogLevel level,
                          std::chrono::system_clock::time_point time,
                          std::string_view line);

// The host: makes *writer the process log (null: the built-in writer again) and returns the
// writer it replaces. *writer must outlive its use: the runtime installs one that lives as long
// as the process.
LogWriter* SetProcessLogWriter(LogWriter* writer);
// Makes *writer the process log if none is installed (true), else leaves it (false).
bool SetProcessLogWriterIfNone(LogWriter* writer);
// Sets the built-in writer's threshold (info until then).
void SetBuiltInLogLevel(LogLevel level);

// Makes *writer the process log for the scope's life (tests, tools that keep a solve's lines).
class ScopedLogWriter {
 public:
  explicit ScopedLogWriter(LogWriter* writer) : previous_(SetProcessLogWriter(writer)) {}
  ~ScopedLogWriter() { SetProcessLogWriter(previous_); }
  ScopedLogWriter(const ScopedLogWriter&) = delete;
  ScopedLogWriter& operator=(const ScopedLogWriter&) = delete;

 private:
  LogWriter* previous_;
};

}  // namespace dede::internal
