// The loader's lines in the process log (dede/log.h): a plugin's `destroy` that fails is a
// warning of the log, with its level, and the host goes on.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/logging.h"
#include "plugin/plugin_loader.h"

namespace dede::internal {
namespace {

class RecordingWriter final : public LogWriter {
 public:
  bool Enabled(LogLevel level) const override { return level != LogLevel::kOff; }
  void Write(LogLevel level, std::string_view message) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    lines_.emplace_back(level, std::string(message));
  }
  std::vector<std::pair<LogLevel, std::string>> Lines() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

TEST(PluginLog, AFailingDestroyIsAWarningOfTheLogAndTheHostGoesOn) {
  RecordingWriter writer;
  const ScopedLogWriter scope(&writer);
  PluginRegistry registry;
  const Status added = registry.AddFile(DEDE_FIXTURE_THROWING_DESTROY);
  ASSERT_TRUE(added.ok()) << added.ToString();
  {
    Result<PluginInstance> created = registry.Create("bad_fields");
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_TRUE(writer.Lines().empty());
  }  // destroyed here: the fixture's destroy deletes the object, then throws
  const std::vector<std::pair<LogLevel, std::string>> lines = writer.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].first, LogLevel::kWarn);
  EXPECT_NE(lines[0].second.find("destroy"), std::string::npos) << lines[0].second;
  EXPECT_NE(lines[0].second.find("destroy exploded"), std::string::npos) << lines[0].second;
  // The registry still creates and destroys instances.
  Result<PluginInstance> again = registry.Create("bad_fields");
  EXPECT_TRUE(again.ok()) << again.status().ToString();
}

}  // namespace
}  // namespace dede::internal
