/// \file
/// The process's log, as the framework's components (the ADMM engine, the exact solver, the
/// plugin loader, the MPI layer) and plugins write to it. Each line is
///
///     2026-11-26T19:40:01.123Z warn  message
///
/// an ISO-8601 UTC timestamp with milliseconds, the level (trace, debug, info, warn, error) and
/// the message: the host's logger (the runtime's, with `--log-level`) once the host installed
/// it; before that, and in programs that install none (tests, benchmarks), a built-in writer in
/// the same format, at level info. Trace, debug and info lines go to standard output, warnings
/// and errors to standard error.
///
///     if (dede::LogEnabled(dede::LogLevel::kDebug)) dede::WriteLog(dede::LogLevel::kDebug, text);
///     dede::WriteLog(dede::LogLevel::kWarn, "link 3->7 has no capacity left; dropped");
///
/// A plugin writes no line to std::cerr or stderr itself (tools/ci/check_logging.sh).
#pragma once

#include <cstdint>
#include <string_view>

namespace dede {

/// In order of severity; kOff, as a threshold, writes nothing.
enum class LogLevel : std::uint8_t { kTrace, kDebug, kInfo, kWarn, kError, kOff };

/// Where log lines go. Implementations are thread-safe: the engine's threads and a plugin's may
/// write at once.
class LogWriter {
 public:
  virtual ~LogWriter() = default;
  /// Whether a line at `level` would be written (callers skip building it otherwise).
  virtual bool Enabled(LogLevel level) const = 0;
  /// A message of several lines becomes several log lines; empty lines are dropped. Does
  /// nothing below the writer's threshold.
  virtual void Write(LogLevel level, std::string_view message) = 0;
};

/// The process's log (see above). Never null; safe to call from any thread.
LogWriter& ProcessLog();

/// Whether the process log writes lines at `level`.
inline bool LogEnabled(LogLevel level) { return ProcessLog().Enabled(level); }
/// Writes `message` to the process log at `level` (nothing below its threshold).
inline void WriteLog(LogLevel level, std::string_view message) {
  LogWriter& log = ProcessLog();
  if (log.Enabled(level)) log.Write(level, message);
}

}  // namespace dede
