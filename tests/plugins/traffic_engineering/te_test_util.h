// Shared helpers of the traffic_engineering tests: settings maps as the YAML loader builds them,
// a scratch directory for hand-made instances, and the plugin built up to round 0.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "dede/config_node.h"
#include "dede/plugin.h"
#include "plugin/plugin_settings.h"
#include "te_plugin.h"

namespace dede::te::testing {

inline const std::string kDataDir = std::string(DEDE_TEST_DATA_DIR) + "/te";

inline ConfigNode Scalar(const std::string& path, const std::string& value) {
  return ConfigNode::Scalar(value, "te_test.yaml", 3, 5, path);
}

// A map node from (key, scalar) pairs under `path`.
inline ConfigNode Map(const std::string& path,
                      const std::vector<std::pair<std::string, std::string>>& entries) {
  ConfigNode node = ConfigNode::Map("te_test.yaml", 2, 3, path);
  for (const auto& [k, v] : entries) node.Insert(k, Scalar(path + "." + k, v));
  return node;
}

inline ConfigNode List(const std::string& path, const std::vector<std::string>& items) {
  ConfigNode node = ConfigNode::List("te_test.yaml", 2, 3, path);
  for (const std::string& item : items) node.Append(Scalar(path, item));
  return node;
}

// A directory under /tmp, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("te_test_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name) << content;
    return (path_ / name).string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline PluginContext ContextIn(const std::string& dir, std::uint64_t seed = 1) {
  PluginContext context;
  context.config_file = dir + "/te_test.yaml";
  context.config_dir = dir;
  context.seed = seed;
  return context;
}

// Configure + Describe + Refresh(round); asserts success.
inline void Build(const ConfigNode& settings,
                  const PluginContext& context,
                  TrafficEngineeringPlugin* plugin,
                  Problem* problem,
                  int round = 0) {
  Status status = ::dede::internal::ConfigureWithSettings(plugin, settings, context);
  ASSERT_TRUE(status.ok()) << status.message();
  status = plugin->Describe(problem);
  ASSERT_TRUE(status.ok()) << status.message();
  bool finished = true;
  status = plugin->Refresh(round, problem, &finished);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_FALSE(finished);
  std::string error;
  ASSERT_TRUE(problem->Validate(&error)) << error;
}

// A file in the temporary directory, named after the process and `name`, removed on exit.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content) {
    path_ = (std::filesystem::temp_directory_path() /
             ("te_test_" + std::to_string(::getpid()) + "_" + name))
                .string();
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace dede::te::testing
