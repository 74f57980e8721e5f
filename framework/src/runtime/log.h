// The runtime's log: one spdlog logger for the process, set up by the CLI. Each line is
//
//   2026-11-26T19:40:01.123Z info  round 3  converged  iterations 250  objective ...
//
// an ISO-8601 UTC timestamp with milliseconds, the level (trace, debug, info, warn, error) and
// the message. Trace, debug and info lines go to standard output, warnings and errors to
// standard error, each flushed as it is written: `dede run > run.log` keeps the rounds, and
// problems stand apart on a terminal or in a journal. What a command prints as its result
// (`dede solve`'s summary, `dede query`'s rows, `dede plugins`' list) is no log line and
// carries no prefix.
//
// spdlog stays in log.cpp: the runtime and the tools see only this header. The process logger is
// also the process log of the SDK (dede/log.h): the engine, the exact solver, the MPI layer, the
// plugin loader and plugins write their lines through it, in the same format and streams, at the
// same `--log-level`.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dede/log.h"

namespace spdlog {
class logger;
}

namespace dede::internal {

using LogLevel = ::dede::LogLevel;

// "trace", "debug", "info", "warn", "error", "off": the values of `--log-level`, in order.
const std::vector<std::string>& LogLevelNames();
// False, with *level unchanged, for any other text.
bool ParseLogLevel(std::string_view text, LogLevel* level);

// Where a component's lines go: the process log, or a stream of the caller's.
class Logger final : public LogWriter {
 public:
  // The process log (SetUpProcessLog; info until then).
  Logger() = default;
  Logger(const Logger&) = default;
  Logger& operator=(const Logger&) = default;
  // Lines in the same format to *out, which must outlive the logger and its copies: tests, and
  // tools that keep a run's log to themselves.
  static Logger ToStream(std::ostream* out, LogLevel level = LogLevel::kInfo);

  bool Enabled(LogLevel level) const override;
  // A message of several lines becomes several log lines, each with the prefix.
  void Log(LogLevel level, std::string_view message) const;
  void Write(LogLevel level, std::string_view message) override { Log(level, message); }
  void Trace(std::string_view message) const { Log(LogLevel::kTrace, message); }
  void Debug(std::string_view message) const { Log(LogLevel::kDebug, message); }
  void Info(std::string_view message) const { Log(LogLevel::kInfo, message); }
  void Warn(std::string_view message) const { Log(LogLevel::kWarn, message); }
  void Error(std::string_view message) const { Log(LogLevel::kError, message); }

 private:
  spdlog::logger& Get() const;
  std::shared_ptr<spdlog::logger> logger_;  // null: the process log
};

// Sets the process log's level: `dede run --log-level`, `--quiet` (warn). The logger itself
// exists from its first use, so code run without the CLI (tests, tools) logs at info; it is
// then also dede::ProcessLog(), and SetUpProcessLog makes it so in any case.
void SetUpProcessLog(LogLevel level);

}  // namespace dede::internal
