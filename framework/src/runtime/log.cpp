#include "runtime/log.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <ctime>
#include <utility>

#include "core/logging.h"

namespace dede::internal {
namespace {

spdlog::level::level_enum ToSpdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      break;
  }
  return spdlog::level::off;
}

// The level as --log-level spells it, padded to one width so the messages line up, as the
// built-in writer of dede/log.h spells it (PaddedLevelName; spdlog's own names are "warning"
// and "critical", and compiled into libspdlog).
class LevelFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg,
              const std::tm&,
              spdlog::memory_buf_t& dest) override {
    LogLevel level = LogLevel::kError;
    switch (msg.level) {
      case spdlog::level::trace:
        level = LogLevel::kTrace;
        break;
      case spdlog::level::debug:
        level = LogLevel::kDebug;
        break;
      case spdlog::level::info:
        level = LogLevel::kInfo;
        break;
      case spdlog::level::warn:
        level = LogLevel::kWarn;
        break;
      default:
        break;
    }
    const std::string_view name = PaddedLevelName(level);
    dest.append(name.data(), name.data() + name.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelFlag>();
  }
};

// 2026-11-26T19:40:01.123Z info  message
std::unique_ptr<spdlog::formatter> MakeFormatter() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<LevelFlag>('*').set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %* %v");
  return formatter;
}

// Info and below to standard output, warnings and errors to standard error. (A sink has a
// lowest level but no highest, so one sink chooses the stream.)
class StdStreamsSink final : public spdlog::sinks::sink {
 public:
  void log(const spdlog::details::log_msg& msg) override {
    if (msg.level >= spdlog::level::warn) {
      err_.log(msg);
    } else {
      out_.log(msg);
    }
  }
  void flush() override {
    out_.flush();
    err_.flush();
  }
  void set_pattern(const std::string& pattern) override {
    out_.set_pattern(pattern);
    err_.set_pattern(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    err_.set_formatter(formatter->clone());
    out_.set_formatter(std::move(formatter));
  }

 private:
  // Each flushes every line (stdout_sinks-inl.h); they share spdlog's console mutex.
  spdlog::sinks::stdout_sink_mt out_;
  spdlog::sinks::stderr_sink_mt err_;
};

std::shared_ptr<spdlog::logger> MakeLogger(std::shared_ptr<spdlog::sinks::sink> sink,
                                           LogLevel level) {
  sink->set_formatter(MakeFormatter());
  auto logger = std::make_shared<spdlog::logger>("dede", std::move(sink));
  logger->set_level(ToSpdlog(level));
  logger->flush_on(spdlog::level::trace);
  return logger;
}

// Not in spdlog's registry: a plugin that uses spdlog itself keeps its own loggers apart.
spdlog::logger& ProcessLogger() {
  static const std::shared_ptr<spdlog::logger> logger =
      MakeLogger(std::make_shared<StdStreamsSink>(), LogLevel::kInfo);
  return *logger;
}

// The process logger as a LogWriter. Never destroyed (nor the logger it holds): the process log
// must outlive every static that writes to it as the process exits.
LogWriter* ProcessWriter() {
  static LogWriter* const writer = [] {
    ProcessLogger();
    return new Logger();
  }();
  return writer;
}

// Makes the process logger dede::ProcessLog() at its first use, unless a writer is installed
// already (a test's ScopedLogWriter keeps its lines).
void InstallAsProcessLog() {
  static const bool installed = SetProcessLogWriterIfNone(ProcessWriter());
  (void)installed;
}

}  // namespace

const std::vector<std::string>& LogLevelNames() {
  static const std::vector<std::string> names = {"trace", "debug", "info", "warn", "error", "off"};
  return names;
}

bool ParseLogLevel(std::string_view text, LogLevel* level) {
  const std::vector<std::string>& names = LogLevelNames();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (text == names[i]) {
      *level = static_cast<LogLevel>(i);
      return true;
    }
  }
  return false;
}

Logger Logger::ToStream(std::ostream* out, LogLevel level) {
  Logger logger;
  logger.logger_ = MakeLogger(
      std::make_shared<spdlog::sinks::ostream_sink_mt>(*out, /*force_flush=*/true), level);
  return logger;
}

spdlog::logger& Logger::Get() const {
  if (logger_) return *logger_;
  InstallAsProcessLog();
  return ProcessLogger();
}

bool Logger::Enabled(LogLevel level) const {
  return level != LogLevel::kOff && Get().should_log(ToSpdlog(level));
}

void Logger::Log(LogLevel level, std::string_view message) const {
  if (!Enabled(level)) return;
  spdlog::logger& logger = Get();
  while (!message.empty()) {
    const std::size_t end = message.find('\n');
    const std::string_view line = message.substr(0, end);
    if (!line.empty()) logger.log(ToSpdlog(level), spdlog::string_view_t(line.data(), line.size()));
    if (end == std::string_view::npos) break;
    message.remove_prefix(end + 1);
  }
}

void SetUpProcessLog(LogLevel level) {
  SetProcessLogWriter(ProcessWriter());
  ProcessLogger().set_level(ToSpdlog(level));
  SetBuiltInLogLevel(level);
}

}  // namespace dede::internal
