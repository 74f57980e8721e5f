// The runtime's log: the line format (ISO-8601 UTC time with milliseconds, the level, the
// message), the level threshold, and the option values of --log-level.
#include "runtime/log.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace dede::internal {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Logger, LineCarriesAUtcTimestampWithMillisecondsAndTheLevel) {
  std::ostringstream out;
  const Logger log = Logger::ToStream(&out);
  log.Info("round 3  converged");
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 1u) << out.str();
  const std::regex format(
      R"(^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d{3}Z info  round 3  converged$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[0], m, format)) << lines[0];
  // UTC: the stamp read as UTC is now (not the local time of a machine east or west of it).
  std::tm tm = {};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = std::stoi(m[4]);
  tm.tm_min = std::stoi(m[5]);
  tm.tm_sec = std::stoi(m[6]);
  const std::time_t stamped = timegm(&tm);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  EXPECT_LE(std::abs(static_cast<long long>(now - stamped)), 60) << lines[0];
}

TEST(Logger, EachLevelIsNamedAsTheOptionSpellsItAndTheMessagesLineUp) {
  std::ostringstream out;
  const Logger log = Logger::ToStream(&out, LogLevel::kTrace);
  log.Trace("a");
  log.Debug("b");
  log.Info("c");
  log.Warn("d");
  log.Error("e");
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 5u) << out.str();
  const std::vector<std::string> expected = {"trace a", "debug b", "info  c", "warn  d", "error e"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ASSERT_GT(lines[i].size(), 25u) << lines[i];
    EXPECT_EQ(lines[i].substr(25), expected[i]) << lines[i];  // after "YYYY-MM-DDTHH:MM:SS.mmmZ "
  }
}

TEST(Logger, LinesBelowTheLevelAreDropped) {
  std::ostringstream out;
  const Logger log = Logger::ToStream(&out, LogLevel::kWarn);
  EXPECT_FALSE(log.Enabled(LogLevel::kInfo));
  EXPECT_TRUE(log.Enabled(LogLevel::kWarn));
  log.Info("round 1  converged");
  log.Warn("round 1: solution not usable");
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 1u) << out.str();
  EXPECT_NE(lines[0].find("warn  round 1: solution not usable"), std::string::npos) << lines[0];
}

TEST(Logger, OffLogsNothing) {
  std::ostringstream out;
  const Logger log = Logger::ToStream(&out, LogLevel::kOff);
  EXPECT_FALSE(log.Enabled(LogLevel::kError));
  log.Error("lost");
  log.Log(LogLevel::kOff, "never a line");
  EXPECT_EQ(out.str(), "");
}

TEST(Logger, AMessageOfSeveralLinesIsOneLogLineEach) {
  std::ostringstream out;
  const Logger log = Logger::ToStream(&out);
  log.Info("iter  primal\n  25  1e-3\n\n  50  1e-4\n");
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 3u) << out.str();
  EXPECT_EQ(lines[1].substr(25), "info    25  1e-3");
  EXPECT_EQ(lines[2].substr(25), "info    50  1e-4");
}

TEST(LogLevel, ParsesEveryOptionValueAndNothingElse) {
  const std::vector<LogLevel> levels = {LogLevel::kTrace,
                                        LogLevel::kDebug,
                                        LogLevel::kInfo,
                                        LogLevel::kWarn,
                                        LogLevel::kError,
                                        LogLevel::kOff};
  ASSERT_EQ(LogLevelNames().size(), levels.size());
  for (std::size_t i = 0; i < levels.size(); ++i) {
    LogLevel level = LogLevel::kInfo;
    EXPECT_TRUE(ParseLogLevel(LogLevelNames()[i], &level)) << LogLevelNames()[i];
    EXPECT_EQ(level, levels[i]) << LogLevelNames()[i];
  }
  for (const char* bad : {"", "INFO", "warning", "verbose", "info "}) {
    LogLevel level = LogLevel::kError;
    EXPECT_FALSE(ParseLogLevel(bad, &level)) << bad;
    EXPECT_EQ(level, LogLevel::kError) << bad;
  }
}

}  // namespace
}  // namespace dede::internal
