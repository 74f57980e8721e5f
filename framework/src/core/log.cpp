// The process log's switch and its built-in writer (dede/log.h, core/logging.h). The host's
// logger (runtime/log.cpp, spdlog) writes the same line format; this one serves programs that
// install none, and every line written before the host installs its own.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "core/logging.h"

namespace dede {
namespace internal {
namespace {

// Info and below to standard output, warnings and errors to standard error, each line flushed.
class BuiltInWriter final : public LogWriter {
 public:
  bool Enabled(LogLevel level) const override {
    return level != LogLevel::kOff && level >= threshold_.load(std::memory_order_relaxed);
  }
  void Write(LogLevel level, std::string_view message) override {
    if (!Enabled(level)) return;
    const auto now = std::chrono::system_clock::now();
    std::FILE* out = level >= LogLevel::kWarn ? stderr : stdout;
    const std::lock_guard<std::mutex> lock(mutex_);
    while (!message.empty()) {
      const std::size_t end = message.find('\n');
      const std::string_view line = message.substr(0, end);
      if (!line.empty()) {
        const std::string text = FormatLogLine(level, now, line);
        std::fwrite(text.data(), 1, text.size(), out);
      }
      if (end == std::string_view::npos) break;
      message.remove_prefix(end + 1);
    }
    std::fflush(out);
  }
  void SetThreshold(LogLevel level) { threshold_.store(level, std::memory_order_relaxed); }

 private:
  std::atomic<LogLevel> threshold_{LogLevel::kInfo};
  std::mutex mutex_;  // the lines of one message stay together
};

// Never destroyed: a line written while the process exits (a static's destructor) finds it.
BuiltInWriter& BuiltIn() {
  static BuiltInWriter* const writer = new BuiltInWriter();
  return *writer;
}

std::atomic<LogWriter*> g_installed{nullptr};

}  // namespace

std::string_view PaddedLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info ";
    case LogLevel::kWarn:
      return "warn ";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      break;
  }
  return "";
}

std::string FormatLogLine(LogLevel level,
                          std::chrono::system_clock::time_point time,
                          std::string_view line) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  const auto since_epoch =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch());
  const long long millis = ((since_epoch.count() % 1000) + 1000) % 1000;
  return fmt::format(
      "{:%Y-%m-%dT%H:%M:%S}.{:03d}Z {} {}\n", utc, millis, PaddedLevelName(level), line);
}

LogWriter* SetProcessLogWriter(LogWriter* writer) {
  return g_installed.exchange(writer, std::memory_order_acq_rel);
}

bool SetProcessLogWriterIfNone(LogWriter* writer) {
  LogWriter* expected = nullptr;
  return g_installed.compare_exchange_strong(expected, writer, std::memory_order_acq_rel);
}

void SetBuiltInLogLevel(LogLevel level) { BuiltIn().SetThreshold(level); }

}  // namespace internal

LogWriter& ProcessLog() {
  LogWriter* installed = internal::g_installed.load(std::memory_order_acquire);
  return installed != nullptr ? *installed : internal::BuiltIn();
}

}  // namespace dede
