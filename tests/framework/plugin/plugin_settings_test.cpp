// The host's check of a plugin's declared settings (plugin/plugin_settings.h, dede/settings.h):
// exact messages for each kind of bad input, every problem at once, defaults filled where and
// only where they belong, and the hand-over to Configure.
#include "plugin/plugin_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dede::internal {
namespace {

using ::testing::ElementsAre;

const SettingsTable& Table() {
  static const SettingsTable table = {
      Setting::String("topology", "topology file").Required(),
      Setting::Int("num_paths", "paths per pair").Default(4).Range(1, 64),
      Setting::Double("scale", "factor").Default(1.0).Above(0).Finite(),
      Setting::Choice("objective", {"max_flow", "min_util"}, "objective").Default("max_flow"),
      Setting::Bool("record", "record paths").DefaultNote("automatic"),
      Setting::Section("traffic",
                       "generator",
                       {Setting::Int("rounds", "rounds").Default(10).AtLeast(1),
                        Setting::Double("decay", "decay").Default(0.9).Range(1e-9, 1.0)}),
      Setting::List("events",
                    "link events",
                    {Setting::Int("round", "round").Required().AtLeast(0),
                     Setting::Choice("action", {"fail", "recover"}, "what").Default("fail")}),
      Setting::StringOrList("matrices", "files"),
      Setting::Map("overheads", "free-form"),
  };
  return table;
}

ConfigNode Value(const std::string& key, const std::string& value, int line) {
  return ConfigNode::Scalar(value, "d.yaml", line, 5, "plugin.settings." + key);
}

// A section with the required key and `entries` (key, value) on lines 4, 5, ...
ConfigNode Section(const std::vector<std::pair<std::string, std::string>>& entries) {
  ConfigNode node = ConfigNode::Map("d.yaml", 2, 3, "plugin.settings");
  node.Insert("topology", Value("topology", "b4.json", 3));
  int line = 4;
  for (const auto& [key, value] : entries) node.Insert(key, Value(key, value, line++));
  return node;
}

std::string Problems(const ConfigNode& section) {
  Result<ConfigNode> checked = CheckSettings(Table(), section, nullptr);
  EXPECT_FALSE(checked.ok());
  return checked.ok() ? std::string() : checked.status().message();
}

TEST(PluginSettings, AnUnknownKeyIsNamedWithTheAllowedOnes) {
  EXPECT_EQ(Problems(Section({{"num_path", "4"}})),
            "d.yaml:4:5: unknown key 'num_path' in plugin.settings; allowed: topology, "
            "num_paths, scale, objective, record, traffic, events, matrices, overheads");
}

TEST(PluginSettings, AWrongTypeNamesTheKeyAndTheValue) {
  EXPECT_EQ(Problems(Section({{"num_paths", "many"}})),
            "d.yaml:4:5: plugin.settings.num_paths = 'many': expected an integer");
  EXPECT_EQ(Problems(Section({{"record", "perhaps"}})),
            "d.yaml:4:5: plugin.settings.record = 'perhaps': expected a boolean (true or false)");
  ConfigNode section = Section({});
  section.Insert("traffic", Value("traffic", "yes", 9));
  EXPECT_EQ(Problems(section), "d.yaml:9:5: plugin.settings.traffic = 'yes': expected a map");
}

TEST(PluginSettings, AValueOutOfBoundsNamesTheViolatedBound) {
  EXPECT_EQ(Problems(Section({{"num_paths", "0"}})),
            "d.yaml:4:5: plugin.settings.num_paths = 0. Violated constraint: "
            "plugin.settings.num_paths >= 1");
  EXPECT_EQ(Problems(Section({{"num_paths", "65"}})),
            "d.yaml:4:5: plugin.settings.num_paths = 65. Violated constraint: "
            "plugin.settings.num_paths <= 64");
  EXPECT_EQ(
      Problems(Section({{"scale", "0"}})),
      "d.yaml:4:5: plugin.settings.scale = 0. Violated constraint: plugin.settings.scale > 0");
  EXPECT_EQ(Problems(Section({{"scale", ".inf"}})),
            "d.yaml:4:5: plugin.settings.scale = .inf. Violated constraint: "
            "plugin.settings.scale < inf");
  EXPECT_EQ(Problems(Section({{"scale", ".nan"}})),
            "d.yaml:4:5: plugin.settings.scale = .nan. Violated constraint: "
            "plugin.settings.scale is a number (not NaN)");
}

TEST(PluginSettings, AValueThatIsNoChoiceListsTheChoices) {
  EXPECT_EQ(Problems(Section({{"objective", "max"}})),
            "d.yaml:4:5: plugin.settings.objective = 'max': expected one of: max_flow, min_util");
}

TEST(PluginSettings, AMissingRequiredKeyIsNamedInItsSection) {
  ConfigNode section = ConfigNode::Map("d.yaml", 2, 3, "plugin.settings");
  EXPECT_EQ(Problems(section), "d.yaml:2:3: missing required key 'topology' in plugin.settings");
  // Inside each item of a list of maps too.
  section = Section({});
  ConfigNode events = ConfigNode::List("d.yaml", 6, 3, "plugin.settings.events");
  ConfigNode item = ConfigNode::Map("d.yaml", 7, 5, "plugin.settings.events[0]");
  item.Insert("action", Value("events[0].action", "recover", 7));
  events.Append(item);
  section.Insert("events", events);
  EXPECT_EQ(Problems(section),
            "d.yaml:7:5: missing required key 'round' in plugin.settings.events[0]");
}

TEST(PluginSettings, EveryProblemIsReportedOnePerLineInFileOrder) {
  ConfigNode section = Section({{"num_paths", "0"}, {"colour", "red"}, {"objective", "max"}});
  EXPECT_EQ(Problems(section),
            "d.yaml:4:5: plugin.settings.num_paths = 0. Violated constraint: "
            "plugin.settings.num_paths >= 1\n"
            "d.yaml:5:5: unknown key 'colour' in plugin.settings; allowed: topology, num_paths, "
            "scale, objective, record, traffic, events, matrices, overheads\n"
            "d.yaml:6:5: plugin.settings.objective = 'max': expected one of: max_flow, min_util");
}

TEST(PluginSettings, DefaultsAreFilledAndReported) {
  std::vector<DefaultedSetting> defaulted;
  Result<ConfigNode> checked = CheckSettings(Table(), Section({{"num_paths", "8"}}), &defaulted);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  int paths = 0;
  double scale = 0;
  std::string objective;
  ASSERT_TRUE(checked->Read("num_paths", &paths).ok());
  ASSERT_TRUE(checked->Read("scale", &scale).ok());
  ASSERT_TRUE(checked->Read("objective", &objective).ok());
  EXPECT_EQ(paths, 8);  // given: kept
  EXPECT_EQ(scale, 1.0);
  EXPECT_EQ(objective, "max_flow");
  // Keys without a default stay absent; so does an absent section.
  EXPECT_FALSE(checked->Has("record"));
  EXPECT_FALSE(checked->Has("traffic"));
  EXPECT_FALSE(checked->Has("matrices"));
  // A filled key is located at its section and named by its own path.
  EXPECT_EQ(checked->Find("scale")->path(), "plugin.settings.scale");
  EXPECT_EQ(checked->Find("scale")->Where(), "d.yaml:2:3");
  ASSERT_EQ(defaulted.size(), 2u);
  EXPECT_EQ(defaulted[0].key, "plugin.settings.scale");
  EXPECT_EQ(defaulted[0].value, "1");
  EXPECT_EQ(defaulted[1].key, "plugin.settings.objective");
  EXPECT_EQ(DescribeDefaulted(defaulted), "scale: 1, objective: max_flow");
}

TEST(PluginSettings, APresentSectionAndEachListItemGetTheirDefaults) {
  ConfigNode section = Section({});
  ConfigNode traffic = ConfigNode::Map("d.yaml", 8, 3, "plugin.settings.traffic");
  traffic.Insert("rounds", Value("traffic.rounds", "3", 9));
  section.Insert("traffic", traffic);
  ConfigNode events = ConfigNode::List("d.yaml", 10, 3, "plugin.settings.events");
  ConfigNode item = ConfigNode::Map("d.yaml", 11, 5, "plugin.settings.events[0]");
  item.Insert("round", Value("events[0].round", "2", 11));
  events.Append(item);
  section.Insert("events", events);
  std::vector<DefaultedSetting> defaulted;
  Result<ConfigNode> checked = CheckSettings(Table(), section, &defaulted);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  double decay = 0;
  ASSERT_TRUE(checked->Find("traffic")->Read("decay", &decay).ok());
  EXPECT_EQ(decay, 0.9);
  std::string action;
  ASSERT_TRUE(checked->Find("events")->items()[0].Read("action", &action).ok());
  EXPECT_EQ(action, "fail");
  std::vector<std::string> keys;
  for (const DefaultedSetting& d : defaulted) keys.push_back(d.key);
  EXPECT_THAT(keys,
              ElementsAre("plugin.settings.traffic.decay",
                          "plugin.settings.events[0].action",
                          "plugin.settings.num_paths",
                          "plugin.settings.scale",
                          "plugin.settings.objective"));
}

TEST(PluginSettings, MapsAndListsOfValuesAreLeftToThePlugin) {
  ConfigNode section = Section({});
  ConfigNode overheads = ConfigNode::Map("d.yaml", 5, 3, "plugin.settings.overheads");
  overheads.Insert("VGG", Value("overheads.VGG", "anything", 5));
  section.Insert("overheads", overheads);
  ConfigNode matrices = ConfigNode::List("d.yaml", 6, 3, "plugin.settings.matrices");
  matrices.Append(Value("matrices", "a.csv", 6));
  section.Insert("matrices", matrices);
  EXPECT_TRUE(CheckSettings(Table(), section, nullptr).ok());
  section.Set("matrices", ConfigNode::Map("d.yaml", 6, 3, "plugin.settings.matrices"));
  EXPECT_EQ(Problems(section),
            "d.yaml:6:3: plugin.settings.matrices: expected a string or a list of strings, got a "
            "map");
}

TEST(PluginSettings, BoundsAndTypesAreWrittenForTheReference) {
  EXPECT_EQ(SettingBoundsText(Table()[1]), "[1, 64]");
  EXPECT_EQ(SettingBoundsText(Table()[2]), "> 0, finite");
  EXPECT_EQ(SettingBoundsText(Table()[3]), "max_flow|min_util");
  EXPECT_EQ(SettingBoundsText(Table()[0]), "");
  EXPECT_STREQ(SettingTypeName(Table()[7].type), "string or list");
  EXPECT_EQ(Setting::Double("x", "").Default(0.1).default_value, "0.1");
  EXPECT_EQ(Setting::Bool("x", "").Default(false).default_value, "false");
}

// Records what Configure saw.
class RecordingPlugin : public DomainPlugin {
 public:
  explicit RecordingPlugin(const SettingsTable* table) : table_(table) {}
  const SettingsTable* Settings() const override { return table_; }
  Status Configure(const ConfigNode& settings, const PluginContext&) override {
    seen = settings;
    return Status::Ok();
  }
  Status Describe(Problem*) override { return Status::Ok(); }
  Status Refresh(int, Problem*, bool*) override { return Status::Ok(); }
  Status Report(int, const Problem&, const Allocation&, RoundReport*) override {
    return Status::Ok();
  }
  ConfigNode seen;

 private:
  const SettingsTable* table_;
};

TEST(PluginSettings, ConfigureGetsTheCompletedSectionOrNothingOnAProblem) {
  RecordingPlugin declared(&Table());
  std::vector<DefaultedSetting> defaulted;
  ASSERT_TRUE(ConfigureWithSettings(&declared, Section({}), PluginContext{}, &defaulted).ok());
  EXPECT_TRUE(declared.seen.Has("num_paths"));
  EXPECT_EQ(defaulted.size(), 3u);
  RecordingPlugin refused(&Table());
  const Status status =
      ConfigureWithSettings(&refused, Section({{"num_paths", "0"}}), PluginContext{}, &defaulted);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(refused.seen.IsNull());  // Configure was not called
  // A plugin without a table (before ABI 11) gets the section as it is.
  RecordingPlugin undeclared(nullptr);
  ASSERT_TRUE(
      ConfigureWithSettings(&undeclared, Section({{"anything", "1"}}), PluginContext{}, &defaulted)
          .ok());
  EXPECT_TRUE(undeclared.seen.Has("anything"));
  EXPECT_FALSE(undeclared.seen.Has("num_paths"));
  EXPECT_TRUE(defaulted.empty());
}

}  // namespace
}  // namespace dede::internal
