#include "plugin/plugin_loader.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "plugin/plugin_settings.h"

namespace dede::internal {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kTolerance = 1e-12;

// ---- helpers ------------------------------------------------------------------------------

ConfigNode Scalar(const std::string& value, const std::string& path) {
  return ConfigNode::Scalar(value, "test.yaml", 1, 1, path);
}
ConfigNode List(const std::vector<std::string>& values, const std::string& path) {
  ConfigNode list = ConfigNode::List("test.yaml", 1, 1, path);
  for (std::size_t i = 0; i < values.size(); ++i) {
    list.Append(Scalar(values[i], path + "[" + std::to_string(i) + "]"));
  }
  return list;
}
ConfigNode Settings(std::initializer_list<std::pair<std::string, ConfigNode>> entries = {}) {
  ConfigNode map = ConfigNode::Map("test.yaml", 1, 1, "plugin.settings");
  for (const auto& [key, value] : entries) map.Insert(key, value);
  return map;
}

// The message every load error starts with.
std::string FilePrefix(const std::string& path) { return "plugin file '" + path + "': "; }

Status LoadStatus(const std::string& path) { return LoadPlugin(path).status(); }

// True while the dynamic loader has `path` open (RTLD_NOLOAD never loads it).
bool IsLoaded(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  ::dlclose(handle);  // RTLD_NOLOAD still takes a reference
  return true;
}

PluginInstance CreateOrDie(const PluginRegistry& registry, const std::string& name) {
  Result<PluginInstance> created = registry.Create(name);
  if (!created.ok()) throw std::runtime_error(created.status().ToString());
  return std::move(created.value());
}

// ---- rejections: one per check, each naming the file and both values ---------------------------

TEST(PluginLoader, RejectsMissingFile) {
  const std::string path = std::string(DEDE_FIXTURE_DIR) + "/no_such_plugin.so";
  Status status = LoadStatus(path);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), FilePrefix(path) + "does not exist");
}

TEST(PluginLoader, RejectsDirectory) {
  Status status = LoadStatus(DEDE_FIXTURE_DIR);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), FilePrefix(DEDE_FIXTURE_DIR) + "not a regular file (a directory)");
}

TEST(PluginLoader, RejectsTextFileNamedLikeALibrary) {
  const std::string path = std::string(DEDE_FIXTURE_DIR) + "/not_a_plugin.so";
  Status status = LoadStatus(path);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  // "this" in hex.
  EXPECT_EQ(status.message(),
            FilePrefix(path) +
                "not a shared object: expected the ELF magic 7f 45 4c 46, "
                "found 74 68 69 73");
}

TEST(PluginLoader, RejectsEmptyFile) {
  const std::string path = std::string(DEDE_FIXTURE_DIR) + "/empty_file.so";
  Status status = LoadStatus(path);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(StartsWith(FilePrefix(path)),
                    HasSubstr("expected the ELF magic 7f 45 4c 46, found an "
                              "empty file")));
}

// Truncated copies of a real plugin: dlopen maps them and the first read past the end kills
// the process with SIGBUS, so the loader checks the ELF header and segment table against the
// file size first.
TEST(PluginLoader, RejectsTruncatedCopiesOfAPluginBeforeMappingThem) {
  namespace fs = std::filesystem;
  const std::uintmax_t full = fs::file_size(DEDE_FIXTURE_GOOD_PLUGIN);
  std::ifstream in(DEDE_FIXTURE_GOOD_PLUGIN, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), full);
  const fs::path dir = fs::path(testing::TempDir()) / "dede_truncated_plugins";
  fs::create_directories(dir);
  for (const std::size_t keep :
       {std::size_t{32}, std::size_t{4096}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string path = (dir / ("cut_" + std::to_string(keep) + ".so")).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(keep));
    const Status status = LoadStatus(path);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << keep << ": " << status.ToString();
    EXPECT_THAT(status.message(), AllOf(StartsWith(FilePrefix(path)), HasSubstr("truncated")))
        << keep;
  }
}

TEST(PluginLoader, ReportsUnresolvedSymbolsAtLoadTimeInsteadOfAtTheFirstCall) {
  Status status = LoadStatus(DEDE_FIXTURE_UNRESOLVED_SYMBOL);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              AllOf(StartsWith(FilePrefix(DEDE_FIXTURE_UNRESOLVED_SYMBOL) + "cannot be loaded: "),
                    HasSubstr("undefined symbol: dede_fixture_function_that_does_not_exist")));
}

TEST(PluginLoader, RejectsLibraryWithoutEntryPoint) {
  Status status = LoadStatus(DEDE_FIXTURE_MISSING_SYMBOL);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(status.message(),
              AllOf(StartsWith(FilePrefix(DEDE_FIXTURE_MISSING_SYMBOL)),
                    HasSubstr("symbol 'dede_plugin_descriptor_v1' not found"),
                    HasSubstr("DEDE_DECLARE_PLUGIN")));
}

TEST(PluginLoader, RejectsAnEntryPointThatIsNotAFunction) {
  Status status = LoadStatus(DEDE_FIXTURE_DATA_ENTRY_POINT);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(StartsWith(FilePrefix(DEDE_FIXTURE_DATA_ENTRY_POINT)),
                    HasSubstr("symbol 'dede_plugin_descriptor_v1' is not a function")));
}

TEST(PluginLoader, RejectsNewerAbiVersion) {
  Status status = LoadStatus(DEDE_FIXTURE_BAD_ABI_VERSION);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              StartsWith(FilePrefix(DEDE_FIXTURE_BAD_ABI_VERSION) + "plugin ABI version " +
                         std::to_string(kPluginAbiVersion + 1) + ", host expects " +
                         std::to_string(kPluginAbiVersion) + "."));
}

TEST(PluginLoader, RejectsDescriptorSizeMismatch) {
  Status status = LoadStatus(DEDE_FIXTURE_BAD_DESCRIPTOR_SIZE);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  const std::size_t plugin_size = sizeof(PluginDescriptor) + sizeof(const char*);
  EXPECT_THAT(status.message(),
              StartsWith(FilePrefix(DEDE_FIXTURE_BAD_DESCRIPTOR_SIZE) + "plugin descriptor size " +
                         std::to_string(plugin_size) + " bytes, host expects " +
                         std::to_string(sizeof(PluginDescriptor)) + "."));
}

TEST(PluginLoader, RejectsDescriptorAlignmentMismatch) {
  Status status = LoadStatus(DEDE_FIXTURE_BAD_DESCRIPTOR_ALIGN);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      status.message(),
      StartsWith(FilePrefix(DEDE_FIXTURE_BAD_DESCRIPTOR_ALIGN) + "plugin descriptor alignment " +
                 std::to_string(2 * alignof(PluginDescriptor)) + ", host expects " +
                 std::to_string(alignof(PluginDescriptor)) + "."));
}

TEST(PluginLoader, RejectsToolchainMismatch) {
  Status status = LoadStatus(DEDE_FIXTURE_BAD_TOOLCHAIN);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              StartsWith(FilePrefix(DEDE_FIXTURE_BAD_TOOLCHAIN) +
                         "plugin toolchain 'clang-99/libc++', host toolchain '" +
                         std::string(HostToolchain()) + "'."));
}

TEST(PluginLoader, HostToolchainIsTheMacroTheSdkStampsIntoPlugins) {
  EXPECT_STREQ(HostToolchain(), DEDE_PLUGIN_TOOLCHAIN);
}

struct BadField {
  const char* path;
  StatusCode code;
  const char* message;  // after the file prefix
};

TEST(PluginLoader, RejectsNullOrEmptyDescriptorFields) {
  const std::string host = HostToolchain();
  const std::vector<BadField> cases = {
      {DEDE_FIXTURE_NULL_NAME,
       StatusCode::kInvalidArgument,
       "plugin name is null, expected a non-empty string"},
      {DEDE_FIXTURE_EMPTY_NAME,
       StatusCode::kInvalidArgument,
       "plugin name is empty, expected a non-empty string"},
      {DEDE_FIXTURE_BLANK_NAME,
       StatusCode::kInvalidArgument,
       "plugin name 'bad fields' contains blanks or control characters"},
      {DEDE_FIXTURE_NULL_CREATE,
       StatusCode::kInvalidArgument,
       "plugin 'bad_fields': create is null, expected a factory function"},
      {DEDE_FIXTURE_NULL_DESTROY,
       StatusCode::kInvalidArgument,
       "plugin 'bad_fields': destroy is null, expected a deleter function"},
      {DEDE_FIXTURE_NULL_VERSION,
       StatusCode::kInvalidArgument,
       "plugin 'bad_fields': plugin_version is null, expected a version string"},
      {DEDE_FIXTURE_NULL_DESCRIPTOR,
       StatusCode::kInvalidArgument,
       "dede_plugin_descriptor_v1() returned null, expected a descriptor"},
  };
  for (const BadField& c : cases) {
    SCOPED_TRACE(c.path);
    Status status = LoadStatus(c.path);
    EXPECT_EQ(status.code(), c.code);
    EXPECT_EQ(status.message(), FilePrefix(c.path) + c.message);
  }
  Status toolchain = LoadStatus(DEDE_FIXTURE_NULL_TOOLCHAIN);
  EXPECT_EQ(toolchain.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(toolchain.message(),
            FilePrefix(DEDE_FIXTURE_NULL_TOOLCHAIN) + "plugin toolchain is null, host expects '" +
                host + "'");
}

TEST(PluginLoader, EntryPointThatThrowsGivesAStatus) {
  Status status = LoadStatus(DEDE_FIXTURE_THROWING_ENTRY_POINT);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr(std::string("(") + DEDE_FIXTURE_THROWING_ENTRY_POINT + ")"),
                    HasSubstr("threw in dede_plugin_descriptor_v1: entry point exploded")));
}

// ---- the good plugin -----------------------------------------------------------------------

TEST(PluginLoader, LoadsGoodPluginAndCopiesItsDescriptor) {
  Result<std::shared_ptr<PluginHandle>> loaded = LoadPlugin(DEDE_FIXTURE_GOOD_PLUGIN);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const PluginInfo& info = loaded.value()->info();
  EXPECT_EQ(info.name, "good_transport");
  EXPECT_EQ(info.version, "1.2.3");
  EXPECT_EQ(info.path, DEDE_FIXTURE_GOOD_PLUGIN);
  EXPECT_EQ(info.toolchain, HostToolchain());
  EXPECT_EQ(info.abi_version, kPluginAbiVersion);
  EXPECT_STREQ(loaded.value()->descriptor().name, "good_transport");
}

TEST(GoodPlugin, ConfiguresDescribesRefreshesAndReportsATransportLp) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_GOOD_PLUGIN).ok());
  PluginInstance plugin = CreateOrDie(registry, "good_transport");

  const ConfigNode settings =
      Settings({{"capacities", List({"10", "12"}, "plugin.settings.capacities")},
                {"volumes", List({"6", "8"}, "plugin.settings.volumes")},
                {"volume_growth", Scalar("0.5", "plugin.settings.volume_growth")},
                {"rounds", Scalar("2", "plugin.settings.rounds")}});
  ASSERT_TRUE(CallPlugin("Configure", plugin, [&] {
                return plugin->Configure(settings, PluginContext{});
              }).ok());

  Problem problem(0, 0);
  Status described = CallPlugin("Describe", plugin, [&] { return plugin->Describe(&problem); });
  ASSERT_TRUE(described.ok()) << described.ToString();
  EXPECT_EQ(problem.num_resources(), 2);
  EXPECT_EQ(problem.num_demands(), 2);
  EXPECT_EQ(problem.num_variables(), 4);
  EXPECT_EQ(problem.num_constraints(), 4);
  std::string error;
  EXPECT_TRUE(problem.Validate(&error)) << error;

  bool finished = true;
  ASSERT_TRUE(plugin->Refresh(1, &problem, &finished).ok());
  EXPECT_FALSE(finished);
  // Round 1: volumes grow by 50%: 9 and 12; capacities 10 and 12.
  const int x00 = problem.Entry(0, 0, 0), x01 = problem.Entry(0, 0, 1);
  const int x10 = problem.Entry(0, 1, 0), x11 = problem.Entry(0, 1, 1);
  ASSERT_GE(std::min({x00, x01, x10, x11}), 0);
  // Hand-computed optimum: each market from its cheap plant (costs 1), market 0 is short by
  // nothing (9 <= 10), market 1 gets 12 from plant 1 (capacity 12). Cost 9 + 12 = 21.
  std::vector<double> values(4, 0.0);
  values[x00] = 9.0;
  values[x11] = 12.0;
  EXPECT_NEAR(problem.EvaluateObjective(values), 21.0, kTolerance);
  EXPECT_NEAR(problem.MeasureViolation(values).Max(), 0.0, kTolerance);
  // Shipping less than the grown volume violates the demand constraint by the shortfall.
  values[x00] = 6.0;
  EXPECT_NEAR(problem.MeasureViolation(values).constraint, 3.0 / 9.0, kTolerance);

  values[x00] = 9.0;
  RoundReport report;
  Allocation allocation{values};
  ASSERT_TRUE(plugin->Report(1, problem, allocation, &report).ok());
  ASSERT_EQ(report.metrics.size(), 2u);
  EXPECT_EQ(report.metrics[0].name, "cost");
  EXPECT_NEAR(report.metrics[0].value, 21.0, kTolerance);
  EXPECT_NEAR(report.metrics[1].value, 21.0, kTolerance);  // shipped
  ASSERT_EQ(report.entities.size(), 4u);
  EXPECT_EQ(report.entities[3].name, "market1");
  EXPECT_NEAR(report.entities[3].parameters[0].second, 12.0, kTolerance);

  ASSERT_TRUE(plugin->Refresh(2, &problem, &finished).ok());
  EXPECT_TRUE(finished);
}

TEST(GoodPlugin, RejectsUnknownSettingNamingTheKey) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_GOOD_PLUGIN).ok());
  PluginInstance plugin = CreateOrDie(registry, "good_transport");
  const ConfigNode settings = Settings({{"capacity", Scalar("3", "plugin.settings.capacity")}});
  Status status =
      CallPlugin("Configure", plugin, [&] { return plugin->Configure(settings, PluginContext{}); });
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("capacity"));
}

TEST(GoodPlugin, RejectsNegativeCapacity) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_GOOD_PLUGIN).ok());
  PluginInstance plugin = CreateOrDie(registry, "good_transport");
  const ConfigNode settings =
      Settings({{"capacities", List({"4", "-1"}, "plugin.settings.capacities")}});
  Status status = plugin->Configure(settings, PluginContext{});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("plugin.settings.capacities[1] = -1. Violated constraint"));
}

// ---- lifetime ------------------------------------------------------------------------------

TEST(PluginLifetime, InstancesOutliveTheRegistryAndAreDestroyedBeforeTheLibraryIsUnloaded) {
  const std::string path = DEDE_FIXTURE_GOOD_PLUGIN;
  std::weak_ptr<const PluginHandle> handle;
  PluginInstance plugin;
  {
    PluginRegistry registry;
    ASSERT_TRUE(registry.AddFile(path).ok());
    handle = registry.Find("good_transport");
    plugin = CreateOrDie(registry, "good_transport");
  }
  // The registry is gone; the instance keeps the library loaded and usable.
  EXPECT_FALSE(handle.expired());
  EXPECT_TRUE(IsLoaded(path));
  Problem problem(0, 0);
  ASSERT_TRUE(plugin->Describe(&problem).ok());
  EXPECT_EQ(problem.num_variables(), 4);

  // Destroying the instance runs the plugin's destroy, then releases the last reference.
  plugin.reset();
  EXPECT_TRUE(handle.expired());
  EXPECT_FALSE(IsLoaded(path));
}

TEST(PluginLifetime, EachInstanceHoldsTheLibraryUntilTheLastOneIsDestroyed) {
  const std::string path = DEDE_FIXTURE_GOOD_PLUGIN;
  auto registry = std::make_unique<PluginRegistry>();
  ASSERT_TRUE(registry->AddFile(path).ok());
  PluginInstance first = CreateOrDie(*registry, "good_transport");
  PluginInstance second = CreateOrDie(*registry, "good_transport");
  EXPECT_EQ(&InfoOf(first), &InfoOf(second));
  registry.reset();
  first.reset();
  EXPECT_TRUE(IsLoaded(path));
  second.reset();
  EXPECT_FALSE(IsLoaded(path));
}

// ---- plugins that throw ----------------------------------------------------------------------

TEST(CallPlugin, TurnsAStdExceptionFromConfigureIntoAStatus) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_THROWING_PLUGIN).ok());
  PluginInstance plugin = CreateOrDie(registry, "throwing");
  const ConfigNode settings = Settings();
  Status status =
      CallPlugin("Configure", plugin, [&] { return plugin->Configure(settings, PluginContext{}); });
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "plugin 'throwing' (" + std::string(DEDE_FIXTURE_THROWING_PLUGIN) +
                ") threw in Configure: configure exploded");
}

TEST(CallPlugin, TurnsANonStdExceptionFromDescribeIntoAStatus) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_THROWING_PLUGIN).ok());
  PluginInstance plugin = CreateOrDie(registry, "throwing");
  Problem problem(0, 0);
  Status status = CallPlugin("Describe", plugin, [&] { return plugin->Describe(&problem); });
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "plugin 'throwing' (" + std::string(DEDE_FIXTURE_THROWING_PLUGIN) +
                ") threw in Describe: an exception not derived from "
                "std::exception");
  // The process survived and the instance is still usable.
  bool finished = false;
  EXPECT_TRUE(
      CallPlugin("Refresh", plugin, [&] { return plugin->Refresh(0, &problem, &finished); }).ok());
  EXPECT_TRUE(finished);
}

TEST(CallPlugin, PassesAReturnedStatusThroughAndAcceptsVoidCallables) {
  Status passed = CallPlugin("Refresh", "p", "p.so", [] { return NotFound("no data"); });
  EXPECT_EQ(passed.code(), StatusCode::kNotFound);
  EXPECT_EQ(passed.message(), "no data");
  int calls = 0;
  EXPECT_TRUE(CallPlugin("Report", "p", "p.so", [&] { ++calls; }).ok());
  EXPECT_EQ(calls, 1);
}

TEST(PluginRegistry, ConstructorThatThrowsGivesAStatusFromCreate) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_THROWING_CONSTRUCTOR).ok());
  Result<PluginInstance> created = registry.Create("throwing_constructor");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kInternal);
  EXPECT_EQ(created.status().message(),
            "plugin 'throwing_constructor' (" + std::string(DEDE_FIXTURE_THROWING_CONSTRUCTOR) +
                ") threw in create: constructor exploded");
}

// ---- the registry --------------------------------------------------------------------------

TEST(PluginRegistry, RejectsDuplicateNameNamingBothFilesAndVersions) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_DUPLICATE_A).ok());
  Status status = registry.AddFile(DEDE_FIXTURE_DUPLICATE_B);
  EXPECT_EQ(status.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(status.message(),
            "duplicate plugin name 'duplicate': provided by '" +
                std::string(DEDE_FIXTURE_DUPLICATE_A) + "' (version 1.0.0) and by '" +
                std::string(DEDE_FIXTURE_DUPLICATE_B) + "' (version 2.0.0). Remove one of them.");
  ASSERT_EQ(registry.rejected().size(), 1u);
  EXPECT_EQ(registry.rejected()[0].path, DEDE_FIXTURE_DUPLICATE_B);

  // The name is ambiguous: no instance of either.
  Result<PluginInstance> created = registry.Create("duplicate");
  EXPECT_EQ(created.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(created.status().message(),
              AllOf(HasSubstr("plugin name 'duplicate' is ambiguous"),
                    HasSubstr(DEDE_FIXTURE_DUPLICATE_A),
                    HasSubstr(DEDE_FIXTURE_DUPLICATE_B)));
  // The duplicate was unloaded again; the first file stays registered.
  EXPECT_FALSE(IsLoaded(DEDE_FIXTURE_DUPLICATE_B));
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(registry.plugins()[0].version, "1.0.0");
}

TEST(PluginRegistry, SameFileThroughAnotherPathIsNotADuplicate) {
  const std::string path = DEDE_FIXTURE_GOOD_PLUGIN;
  const std::string dir = path.substr(0, path.rfind('/'));
  const std::string other = dir + "/./" + path.substr(path.rfind('/') + 1);
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(path).ok());
  EXPECT_TRUE(registry.AddFile(other).ok());
  EXPECT_EQ(registry.plugins().size(), 1u);
  EXPECT_TRUE(registry.rejected().empty());
}

TEST(PluginRegistry, UnknownNameListsRegisteredPluginsAndRejectedFiles) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.AddFile(DEDE_FIXTURE_GOOD_PLUGIN).ok());
  EXPECT_FALSE(registry.AddFile(DEDE_FIXTURE_BAD_ABI_VERSION).ok());
  Result<PluginInstance> created = registry.Create("traffic_engineering");
  EXPECT_EQ(created.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(created.status().message(),
            "no plugin named 'traffic_engineering'; registered: good_transport; rejected files: '" +
                std::string(DEDE_FIXTURE_BAD_ABI_VERSION) + "'");
}

TEST(PluginRegistry, ListingShowsVersionsAndRejections) {
  PluginRegistry registry;
  EXPECT_TRUE(registry.Listing().empty());
  const std::vector<std::string> paths = {
      DEDE_FIXTURE_GOOD_PLUGIN, DEDE_FIXTURE_THROWING_PLUGIN, DEDE_FIXTURE_BAD_ABI_VERSION};
  Status status = registry.Add(paths);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  const std::string host = HostToolchain();
  const std::string abi = std::to_string(kPluginAbiVersion);
  EXPECT_EQ(registry.Listing(),
            "good_transport  1.2.3  abi " + abi + "  " + host + "  " + DEDE_FIXTURE_GOOD_PLUGIN +
                "\n" + "throwing        0.0.1  abi " + abi + "  " + host + "  " +
                DEDE_FIXTURE_THROWING_PLUGIN + "\n" +
                "rejected: FAILED_PRECONDITION: plugin file '" + DEDE_FIXTURE_BAD_ABI_VERSION +
                "': plugin ABI version " + std::to_string(kPluginAbiVersion + 1) +
                ", host expects " + abi + ". " + "Rebuild the plugin against this dede SDK.\n");
}

TEST(PluginRegistry, MissingDirectoryIsNotFound) {
  PluginRegistry registry;
  const std::string dir = std::string(DEDE_FIXTURE_DIR) + "/no_such_dir";
  Status status = registry.AddDirectory(dir);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "plugin directory '" + dir + "' does not exist");
  EXPECT_EQ(registry.Add(dir).code(), StatusCode::kNotFound);  // Add: neither a dir nor a file
}

TEST(PluginRegistry, ScanningADirectoryLoadsGoodPluginsAndRecordsEveryRejection) {
  PluginRegistry registry;
  Status status = registry.Add(DEDE_FIXTURE_DIR);
  EXPECT_FALSE(status.ok());  // the first failure, in file name order

  std::vector<std::string> names;
  for (const PluginInfo& info : registry.plugins()) names.push_back(info.name);
  EXPECT_THAT(names,
              ::testing::ElementsAre(
                  "bad_fields", "duplicate", "good_transport", "throwing", "throwing_constructor"));

  std::vector<std::pair<std::string, StatusCode>> rejected;
  for (const auto& r : registry.rejected()) {
    EXPECT_THAT(r.status.message(), HasSubstr(r.path));
    rejected.emplace_back(r.path.substr(r.path.rfind('/') + 1), r.status.code());
  }
  using P = std::pair<std::string, StatusCode>;
  EXPECT_THAT(rejected,
              ::testing::UnorderedElementsAre(
                  P{"empty_file.so", StatusCode::kInvalidArgument},
                  P{"fixture_bad_abi_version.so", StatusCode::kFailedPrecondition},
                  P{"fixture_bad_descriptor_align.so", StatusCode::kFailedPrecondition},
                  P{"fixture_bad_descriptor_size.so", StatusCode::kFailedPrecondition},
                  P{"fixture_bad_toolchain.so", StatusCode::kFailedPrecondition},
                  P{"fixture_blank_name.so", StatusCode::kInvalidArgument},
                  P{"fixture_data_entry_point.so", StatusCode::kInvalidArgument},
                  P{"fixture_duplicate_b.so", StatusCode::kAlreadyExists},
                  P{"fixture_empty_name.so", StatusCode::kInvalidArgument},
                  P{"fixture_missing_symbol.so", StatusCode::kNotFound},
                  P{"fixture_null_create.so", StatusCode::kInvalidArgument},
                  P{"fixture_null_descriptor.so", StatusCode::kInvalidArgument},
                  P{"fixture_null_destroy.so", StatusCode::kInvalidArgument},
                  P{"fixture_null_name.so", StatusCode::kInvalidArgument},
                  P{"fixture_null_toolchain.so", StatusCode::kInvalidArgument},
                  P{"fixture_null_version.so", StatusCode::kInvalidArgument},
                  P{"fixture_throwing_entry_point.so", StatusCode::kInternal},
                  P{"fixture_unresolved_symbol.so", StatusCode::kFailedPrecondition},
                  P{"not_a_plugin.so", StatusCode::kInvalidArgument}));
  // The good plugin is usable although its directory holds broken files.
  Result<PluginInstance> created = registry.Create("good_transport");
  EXPECT_TRUE(created.ok()) << created.status().ToString();
}

// ---- an external plugin (tools/ci/out_of_tree_plugin.sh) -------------------------------------

// Set DEDE_EXTERNAL_PLUGIN to a plugin built out of tree against the installed SDK; optionally
// DEDE_EXTERNAL_PLUGIN_NAME to the name it must declare. Skipped otherwise.
TEST(ExternalPlugin, LoadsCreatesConfiguresDescribesAndRefreshes) {
  const char* path = std::getenv("DEDE_EXTERNAL_PLUGIN");
  if (path == nullptr || *path == '\0') GTEST_SKIP() << "DEDE_EXTERNAL_PLUGIN is not set";
  PluginRegistry registry;
  Status added = registry.AddFile(path);
  ASSERT_TRUE(added.ok()) << added.ToString();
  const std::vector<PluginInfo> plugins = registry.plugins();
  ASSERT_EQ(plugins.size(), 1u);
  const PluginInfo& info = plugins[0];
  if (const char* name = std::getenv("DEDE_EXTERNAL_PLUGIN_NAME"); name != nullptr) {
    EXPECT_EQ(info.name, name);
  }
  std::printf("external plugin: %s %s (%s, ABI %u) from %s\n",
              info.name.c_str(),
              info.version.c_str(),
              info.toolchain.c_str(),
              info.abi_version,
              info.path.c_str());

  Result<PluginInstance> created = registry.Create(info.name);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  PluginInstance plugin = std::move(created.value());
  const ConfigNode settings = Settings();
  // As the host configures it: its declared settings (if any) checked and completed first.
  std::vector<DefaultedSetting> defaulted;
  Status status = CallPlugin("Configure", plugin, [&] {
    return ConfigureWithSettings(plugin.get(), settings, PluginContext{}, &defaulted);
  });
  ASSERT_TRUE(status.ok()) << status.ToString();
  if (plugin->Settings() != nullptr) {
    std::printf("external plugin: settings defaulted: %s\n", DescribeDefaulted(defaulted).c_str());
  }
  Problem problem(0, 0);
  status = CallPlugin("Describe", plugin, [&] { return plugin->Describe(&problem); });
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::string error;
  EXPECT_TRUE(problem.Validate(&error)) << error;
  EXPECT_GT(problem.num_variables(), 0);
  bool finished = true;
  status = CallPlugin("Refresh", plugin, [&] { return plugin->Refresh(0, &problem, &finished); });
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_FALSE(finished);
  RoundReport report;
  Allocation allocation{std::vector<double>(problem.num_variables(), 0.0)};
  status =
      CallPlugin("Report", plugin, [&] { return plugin->Report(0, problem, allocation, &report); });
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace dede::internal
