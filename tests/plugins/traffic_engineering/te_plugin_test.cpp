// The traffic_engineering domain on B4: structure, ADMM against the exact LP, repair.
#include "te_plugin.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "config/json_node.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "plugin/plugin_settings.h"

namespace dede::te {
namespace {

const std::string kDataDir = std::string(DEDE_TEST_DATA_DIR) + "/te";
constexpr double kMaxFlowRelativeGap = 0.005;  // issue 4: within 0.5% of exact
constexpr double kMinMaxRelativeGap = 0.01;    // within 1% of exact
constexpr double kFeasibilityTolerance = 1e-6;

ConfigNode Scalar(const std::string& key, const std::string& value) {
  return ConfigNode::Scalar(value, "te_test.yaml", 1, 1, "plugin.settings." + key);
}

struct Settings {
  std::string objective = "max_total_flow";
  std::string paths = "B4-paths.csv";  // empty: computed
  std::vector<std::string> matrices = {"matrices/B4_real_0_1.0.csv"};
  std::string matrix_dir;  // instead of the list
  std::string extra_key;
  std::string scale;           // empty: default 1
  std::string repair_fill;     // empty: default (on)
  std::string polish_sweeps;   // empty: default
  std::string polish_seconds;  // empty: default (no time bound)
  // The paper's per-source grouping, which these tests were written for; empty: the plugin's
  // default (per pair).
  std::string demand_blocks = "source";
};

ConfigNode MakeSettings(const Settings& s) {
  ConfigNode node = ConfigNode::Map("te_test.yaml", 1, 1, "plugin.settings");
  node.Insert("topology", Scalar("topology", "B4.json"));
  if (!s.paths.empty()) node.Insert("paths", Scalar("paths", s.paths));
  node.Insert("objective", Scalar("objective", s.objective));
  if (!s.matrix_dir.empty()) {
    node.Insert("traffic_matrices", Scalar("traffic_matrices", s.matrix_dir));
  } else {
    ConfigNode list = ConfigNode::List("te_test.yaml", 1, 1, "plugin.settings.traffic_matrices");
    for (const std::string& m : s.matrices) list.Append(Scalar("traffic_matrices", m));
    node.Insert("traffic_matrices", list);
  }
  if (!s.scale.empty()) node.Insert("scale", Scalar("scale", s.scale));
  if (!s.repair_fill.empty()) node.Insert("repair_fill", Scalar("repair_fill", s.repair_fill));
  if (!s.polish_sweeps.empty())
    node.Insert("polish_sweeps", Scalar("polish_sweeps", s.polish_sweeps));
  if (!s.polish_seconds.empty())
    node.Insert("polish_seconds", Scalar("polish_seconds", s.polish_seconds));
  if (!s.demand_blocks.empty())
    node.Insert("demand_blocks", Scalar("demand_blocks", s.demand_blocks));
  if (!s.extra_key.empty()) node.Insert(s.extra_key, Scalar(s.extra_key, "1"));
  return node;
}

PluginContext Context() {
  PluginContext context;
  context.config_file = kDataDir + "/te_test.yaml";
  context.config_dir = kDataDir;
  return context;
}

// Configure + Describe + Refresh(0); asserts success.
void Build(const Settings& settings, TrafficEngineeringPlugin* plugin, Problem* problem) {
  Status status =
      ::dede::internal::ConfigureWithSettings(plugin, MakeSettings(settings), Context());
  ASSERT_TRUE(status.ok()) << status.message();
  status = plugin->Describe(problem);
  ASSERT_TRUE(status.ok()) << status.message();
  bool finished = true;
  status = plugin->Refresh(0, problem, &finished);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_FALSE(finished);
  std::string error;
  ASSERT_TRUE(problem->Validate(&error)) << error;
}

TEST(TrafficEngineeringPlugin, DescribesLinksTimesSourcesWithOneFlowPerPath) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(Settings{}, &plugin, &problem);
  EXPECT_EQ(problem.num_resources(), 38);
  EXPECT_EQ(problem.num_demands(), 12);
  EXPECT_EQ(plugin.num_paths_total(), 310);
  EXPECT_EQ(problem.objective_sense(), ObjectiveSense::kMaximize);
  EXPECT_NEAR(plugin.TotalDemand(), 26682.5959, 1e-3);  // matrix 0 (dede-examples README)
}

TEST(TrafficEngineeringPlugin, ReadsADirectoryOfMatricesInNumericOrderAndFinishesAfterTheLast) {
  TrafficEngineeringPlugin plugin;
  Settings settings;
  settings.matrix_dir = "matrices";
  Status status =
      ::dede::internal::ConfigureWithSettings(&plugin, MakeSettings(settings), Context());
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(plugin.matrix_files().size(), 36u);
  EXPECT_NE(plugin.matrix_files()[2].find("B4_real_2_1.0.csv"), std::string::npos);
  EXPECT_NE(plugin.matrix_files()[35].find("B4_real_35_1.0.csv"), std::string::npos);
  Problem problem(0, 0);
  ASSERT_TRUE(plugin.Describe(&problem).ok());
  bool finished = false;
  ASSERT_TRUE(plugin.Refresh(35, &problem, &finished).ok());
  EXPECT_FALSE(finished);
  ASSERT_TRUE(plugin.Refresh(36, &problem, &finished).ok());
  EXPECT_TRUE(finished);
}

TEST(TrafficEngineeringPlugin, RejectsUnknownKeysAndBadObjectives) {
  TrafficEngineeringPlugin plugin;
  Settings settings;
  settings.extra_key = "num_pathz";
  Status status =
      ::dede::internal::ConfigureWithSettings(&plugin, MakeSettings(settings), Context());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("num_pathz"), std::string::npos) << status.message();
  settings = Settings{};
  settings.objective = "max_fairness";
  status = ::dede::internal::ConfigureWithSettings(&plugin, MakeSettings(settings), Context());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("max_fairness"), std::string::npos) << status.message();
}

TEST(TrafficEngineeringPlugin, ComputedPathsGiveTheSameExactOptimumAsThePathFile) {
  double optimum[2];
  for (int computed = 0; computed < 2; ++computed) {
    TrafficEngineeringPlugin plugin;
    Problem problem(0, 0);
    Settings settings;
    if (computed) settings.paths.clear();
    Build(settings, &plugin, &problem);
    EXPECT_EQ(plugin.num_paths_total(), 310);
    Allocation exact;
    SolveSummary summary;
    SolveExact(problem, ExactOptions{}, &exact, &summary);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
    optimum[computed] = summary.objective;
  }
  EXPECT_NEAR(optimum[1], optimum[0], 1e-6 * optimum[0]);
}

TEST(TrafficEngineeringPlugin, NamesADisconnectedPairWithADemand) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("te_plugin_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "two.json") << R"({"nodes": [{"id": 0}, {"id": 1}, {"id": 2}],
      "links": [{"source": 0, "target": 1, "capacity": 10},
                {"source": 1, "target": 0, "capacity": 10}]})";
  std::ofstream(dir / "tm.csv") << "src,dst,demand\n0,1,3\n0,2,4\n";
  ConfigNode node = ConfigNode::Map("te_test.yaml", 1, 1, "plugin.settings");
  node.Insert("topology", Scalar("topology", "two.json"));
  ConfigNode list = ConfigNode::List("te_test.yaml", 1, 1, "plugin.settings.traffic_matrices");
  list.Append(Scalar("traffic_matrices", "tm.csv"));
  node.Insert("traffic_matrices", list);
  PluginContext context;
  context.config_dir = dir.string();
  TrafficEngineeringPlugin plugin;
  ASSERT_TRUE(::dede::internal::ConfigureWithSettings(&plugin, node, context).ok());
  Problem problem(0, 0);
  const Status status = plugin.Describe(&problem);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("two.json: no path from node 0 to node 2"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("disconnected pair"), std::string::npos) << status.message();
}

// Checks capacities, demand volumes and coupling rows of a repaired allocation.
void ExpectFeasible(const Problem& problem, const Allocation& allocation) {
  const Problem::Violation violation = problem.MeasureViolation(allocation.values);
  EXPECT_LE(violation.Max(), kFeasibilityTolerance)
      << "worst constraint " << violation.worst_constraint;
}

// ADMM on B4 matrix 0 against Clp on the same Problem; `scale` 4 congests the links (at scale 1
// matrix 0 fits entirely, so the optimum is the total demand).
void CheckMaxTotalFlow(const std::string& scale) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Settings settings;
  settings.scale = scale;
  Build(settings, &plugin, &problem);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;

  AdmmSolver solver(problem, AdmmOptions{});
  Allocation admm;
  SolveSummary summary;
  solver.Solve(&admm, &summary);
  std::printf("B4 matrix 0 x %s, max total flow: exact %.4f (%.3f s), %s\n",
              scale.c_str(),
              exact_summary.objective,
              exact_summary.total_seconds,
              summary.BriefReport().c_str());
  ASSERT_TRUE(plugin.Repair(problem, &admm).ok());
  const double flow = plugin.TotalFlow(admm);
  std::printf(
      "  after repair: total flow %.4f, ratio %.6f\n", flow, flow / exact_summary.objective);
  EXPECT_NEAR(plugin.TotalFlow(exact), exact_summary.objective, 1e-6 * exact_summary.objective);
  EXPECT_GE(flow, (1 - kMaxFlowRelativeGap) * exact_summary.objective);
  EXPECT_LE(flow, exact_summary.objective * (1 + 1e-6));
  ExpectFeasible(problem, admm);
  EXPECT_LE(plugin.MaxLinkUtilization(admm), 1 + kFeasibilityTolerance);
  RoundReport report;
  ASSERT_TRUE(plugin.Report(0, problem, admm, &report).ok());
  ASSERT_EQ(report.metrics.size(), 6u);  // ..., flow_unit, failed_links
  EXPECT_EQ(report.metrics[0].name, "total_flow");
  EXPECT_EQ(report.metrics[2].name, "satisfied_demand");
  EXPECT_NEAR(report.metrics[2].value, flow / plugin.TotalDemand(), 1e-12);
  EXPECT_EQ(report.entities.size(), 38u + 12u);
}

TEST(TrafficEngineeringPlugin, AdmmMaxTotalFlowOnB4IsWithinHalfAPercentOfExactAfterRepair) {
  CheckMaxTotalFlow("1");
}

TEST(TrafficEngineeringPlugin, AdmmMaxTotalFlowOnCongestedB4IsWithinHalfAPercentOfExact) {
  CheckMaxTotalFlow("4");
}

// `flow` on every path of every pair (allocation units), as SetPathFlows takes them.
std::vector<std::vector<double>> UniformPathFlows(const TrafficEngineeringPlugin& plugin,
                                                  double flow) {
  std::vector<std::vector<double>> flows(plugin.num_pairs());
  for (int k = 0; k < plugin.num_pairs(); ++k) flows[k].assign(plugin.num_paths(k), flow);
  return flows;
}

TEST(TrafficEngineeringPlugin, RepairMakesAnOverloadedAllocationFeasible) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(Settings{}, &plugin, &problem);
  // Every path carries 3000 (entries: their loads): demands and links are both overloaded.
  Allocation a;
  plugin.SetPathFlows(UniformPathFlows(plugin, 3000.0), &a);
  ASSERT_TRUE(plugin.Repair(problem, &a).ok());
  ExpectFeasible(problem, a);
  EXPECT_GT(plugin.TotalFlow(a), 0.0);
}

// Repairs `values` with the fill on and off (congested B4, scale 4); returns the total flows.
std::pair<double, double> RepairBothWays(const std::vector<double>& values) {
  double flow[2] = {0, 0};
  for (int fill = 0; fill < 2; ++fill) {
    TrafficEngineeringPlugin plugin;
    Problem problem(0, 0);
    Settings settings;
    settings.scale = "4";
    settings.repair_fill = fill ? "true" : "false";
    Build(settings, &plugin, &problem);
    Allocation a;
    a.values = values.empty() ? std::vector<double>(problem.num_variables(), 0.0) : values;
    EXPECT_TRUE(plugin.Repair(problem, &a).ok());
    ExpectFeasible(problem, a);
    EXPECT_LE(plugin.MaxLinkUtilization(a), 1 + 1e-9);
    EXPECT_LE(plugin.TotalFlow(a), plugin.TotalDemand() * (1 + 1e-12));
    flow[fill] = plugin.TotalFlow(a);
  }
  return {flow[0], flow[1]};
}

TEST(TrafficEngineeringPlugin, RepairFillRoutesUnmetDemandOnResidualCapacity) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Settings settings;
  settings.scale = "4";
  Build(settings, &plugin, &problem);
  // From nothing: without the fill nothing is routed; with it, the greedy finds a large share
  // of the optimum (every demand has a path, the links are congested).
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;
  const auto [none_off, none_on] = RepairBothWays({});
  EXPECT_EQ(none_off, 0.0);
  EXPECT_GT(none_on, 0.5 * exact_summary.objective);
  EXPECT_LE(none_on, exact_summary.objective * (1 + 1e-9));
  // Every path overloaded at 3x its pair's share: the scaling leaves slack the fill uses.
  Allocation overloaded;
  plugin.SetPathFlows(UniformPathFlows(plugin, 3000.0), &overloaded);
  const auto [over_off, over_on] = RepairBothWays(overloaded.values);
  EXPECT_GT(over_on, over_off * (1 + 1e-3));
  // The optimum has no unmet demand on a path with slack: the fill leaves it optimal.
  const auto [exact_off, exact_on] = RepairBothWays(exact.values);
  EXPECT_NEAR(exact_off, exact_summary.objective, 1e-6 * exact_summary.objective);
  EXPECT_NEAR(exact_on, exact_summary.objective, 1e-6 * exact_summary.objective);
}

TEST(TrafficEngineeringPlugin, RepairTrimsPathFlowsToTheirEntries) {
  // The optimum's entries (link grants) with every path flow doubled: the path flows overload
  // the links, but with one block per pair and edge-disjoint paths each entry carries one
  // path, so trimming to the entries (as for a resource-side ADMM iterate) recovers the
  // optimum; scaling alone cannot: the same flows with their own loads as entries repair to
  // less.
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Settings settings;
  settings.scale = "4";
  settings.repair_fill = "false";
  settings.paths = "";  // computed: edge-disjoint
  settings.demand_blocks = "pair";
  Build(settings, &plugin, &problem);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;
  Allocation granted = exact;
  for (VarId v = 0; v < problem.num_variables(); ++v) {
    if (!problem.variable(v).IsEntry()) granted.values[v] *= 2.0;
  }
  Allocation consistent = granted;
  std::vector<std::vector<double>> flows(plugin.num_pairs());
  {
    // The doubled flows with their own loads as entries.
    int k = 0, i = 0;
    for (VarId v = 0; v < problem.num_variables(); ++v) {
      if (problem.variable(v).IsEntry()) continue;
      while (static_cast<int>(flows[k].size()) == plugin.num_paths(k)) ++k;
      flows[k].push_back(granted.values[v]);
      ++i;
    }
    ASSERT_EQ(i, plugin.num_paths_total());
  }
  plugin.SetPathFlows(flows, &consistent);
  ASSERT_TRUE(plugin.Repair(problem, &granted).ok());
  ASSERT_TRUE(plugin.Repair(problem, &consistent).ok());
  ExpectFeasible(problem, granted);
  ExpectFeasible(problem, consistent);
  EXPECT_NEAR(plugin.TotalFlow(granted), exact_summary.objective, 1e-6 * exact_summary.objective);
  EXPECT_LT(plugin.TotalFlow(consistent), (1 - 1e-3) * exact_summary.objective);
}

TEST(TrafficEngineeringPlugin, PolishLowersMaxUtilizationFromShortestPathRouting) {
  // Everything on each pair's first path, repaired without and with the polish: the polish
  // must lower the max utilisation towards the LP optimum, never below it, and keep every
  // demand routed in full.
  double utilization[2] = {0, 0};
  double optimum = 0;
  for (int polish = 0; polish < 2; ++polish) {
    TrafficEngineeringPlugin plugin;
    Problem problem(0, 0);
    Settings settings;
    settings.objective = "min_max_utilization";
    settings.polish_sweeps = polish ? "200" : "0";
    Build(settings, &plugin, &problem);
    Allocation exact;
    SolveSummary exact_summary;
    SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
    ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;
    optimum = exact_summary.objective;
    Allocation a;
    a.values.assign(problem.num_variables(), 0.0);  // the repair puts each demand on path 0
    ASSERT_TRUE(plugin.Repair(problem, &a).ok());
    ExpectFeasible(problem, a);
    EXPECT_NEAR(plugin.TotalFlow(a), plugin.TotalDemand(), 1e-9 * plugin.TotalDemand());
    utilization[polish] = plugin.MaxLinkUtilization(a);
    EXPECT_GE(utilization[polish], optimum * (1 - 1e-9));
  }
  std::printf("B4 min max utilisation: optimum %.6f, shortest paths %.6f, polished %.6f\n",
              optimum,
              utilization[0],
              utilization[1]);
  EXPECT_LT(utilization[1], utilization[0] * 0.9);
  EXPECT_LE(utilization[1], optimum * 1.01);
}

TEST(TrafficEngineeringPlugin, PolishSecondsStopsThePolishAfterItsFirstSweepWhenTimeIsUp) {
  // A bound far below one sweep's time lets exactly the first sweep run: the same routing as
  // polish_sweeps 1, and at least as good as none. Without the bound the 200 sweeps go further.
  const auto polished = [](const std::string& sweeps, const std::string& seconds) {
    TrafficEngineeringPlugin plugin;
    Problem problem(0, 0);
    Settings settings;
    settings.objective = "min_max_utilization";
    settings.polish_sweeps = sweeps;
    settings.polish_seconds = seconds;
    Build(settings, &plugin, &problem);
    Allocation a;
    a.values.assign(problem.num_variables(), 0.0);  // every demand on its first path
    EXPECT_TRUE(plugin.Repair(problem, &a).ok());
    return a.values;
  };
  const std::vector<double> bounded = polished("200", "1e-9");
  EXPECT_EQ(bounded, polished("1", ""));
  EXPECT_NE(bounded, polished("200", ""));
  EXPECT_NE(bounded, polished("0", ""));
}

TEST(TrafficEngineeringPlugin, AdmmMinMaxUtilizationOnB4IsWithinOnePercentOfExact) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Settings settings;
  settings.objective = "min_max_utilization";
  Build(settings, &plugin, &problem);
  EXPECT_EQ(problem.objective_sense(), ObjectiveSense::kMinimize);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;

  AdmmSolver solver(problem, AdmmOptions{});
  Allocation admm;
  SolveSummary summary;
  solver.Solve(&admm, &summary);
  std::printf("B4 matrix 0, min max utilization: exact %.6f (%.3f s), admm %s\n",
              exact_summary.objective,
              exact_summary.total_seconds,
              summary.BriefReport().c_str());
  ASSERT_TRUE(plugin.Repair(problem, &admm).ok());
  const double utilization = plugin.MaxLinkUtilization(admm);
  std::printf("  after repair: max utilization %.6f, ratio %.6f\n",
              utilization,
              utilization / exact_summary.objective);
  EXPECT_NEAR(plugin.MaxLinkUtilization(exact), exact_summary.objective, 1e-6);
  EXPECT_LE(utilization, (1 + kMinMaxRelativeGap) * exact_summary.objective);
  EXPECT_GE(utilization, exact_summary.objective * (1 - 1e-6));
  EXPECT_NEAR(plugin.TotalFlow(admm), plugin.TotalDemand(), 1e-6 * plugin.TotalDemand());
  ExpectFeasible(problem, admm);
}

// Issue 4 acceptance on B4: the 36 real matrices in sequence, each solve warm-started from the
// previous one, every round within 0.5% of Clp's optimum after repair (per-round ratios are
// printed). At scale 1 only matrices 27, 28 and 34 saturate links (optimum 98.8-99.4% of the
// demand); `scale` 4 congests every round. A sanitizer build (about 40 x slower here) checks
// the last 12 matrices, which hold those three: the Release suite runs all 36.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kFirstB4Round = 24;
#else
constexpr int kFirstB4Round = 0;
#endif
void CheckAll36MatricesWarmStarted(const std::string& scale) {
  TrafficEngineeringPlugin plugin;
  Settings settings;
  settings.matrix_dir = "matrices";
  settings.scale = scale;
  ASSERT_TRUE(
      ::dede::internal::ConfigureWithSettings(&plugin, MakeSettings(settings), Context()).ok());
  Problem problem(0, 0);
  ASSERT_TRUE(plugin.Describe(&problem).ok());
  AdmmSolver solver(problem, AdmmOptions{});
  double worst = 1.0, admm_seconds = 0.0, exact_seconds = 0.0;
  for (int round = kFirstB4Round; round < 36; ++round) {
    bool finished = true;
    ASSERT_TRUE(plugin.Refresh(round, &problem, &finished).ok());
    ASSERT_FALSE(finished);
    Allocation exact, admm;
    SolveSummary exact_summary, summary;
    SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
    ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;
    solver.Solve(&admm, &summary);
    ASSERT_TRUE(plugin.Repair(problem, &admm).ok());
    ExpectFeasible(problem, admm);
    const double ratio = plugin.TotalFlow(admm) / exact_summary.objective;
    std::printf("scale %s round %2d: exact %.4f admm %.4f ratio %.6f iterations %d (%.3f s)\n",
                scale.c_str(),
                round,
                exact_summary.objective,
                plugin.TotalFlow(admm),
                ratio,
                summary.iterations,
                summary.total_seconds);
    EXPECT_GE(ratio, 1 - kMaxFlowRelativeGap) << "round " << round;
    worst = std::min(worst, ratio);
    admm_seconds += summary.total_seconds;
    exact_seconds += exact_summary.total_seconds;
  }
  std::printf("scale %s: worst ratio %.6f, ADMM %.3f s, Clp %.3f s in total\n",
              scale.c_str(),
              worst,
              admm_seconds,
              exact_seconds);
}

TEST(TrafficEngineeringPlugin, WarmStartedAdmmIsWithinHalfAPercentOfExactOnAll36B4Matrices) {
  CheckAll36MatricesWarmStarted("1");
}

TEST(TrafficEngineeringPlugin,
     WarmStartedAdmmIsWithinHalfAPercentOfExactOnAll36CongestedB4Matrices) {
  CheckAll36MatricesWarmStarted("4");
}

}  // namespace
}  // namespace dede::te

namespace dede::te {
namespace {

// Solves round 0 exactly with `topology` and one matrix; returns the optimum (total flow).
double ExactMaxFlow(const std::string& topology,
                    const std::string& matrix,
                    RoundReport* report = nullptr) {
  ConfigNode node = ConfigNode::Map("te_test.yaml", 1, 1, "plugin.settings");
  node.Insert("topology", Scalar("topology", topology));
  ConfigNode list = ConfigNode::List("te_test.yaml", 1, 1, "plugin.settings.traffic_matrices");
  list.Append(Scalar("traffic_matrices", matrix));
  node.Insert("traffic_matrices", list);
  TrafficEngineeringPlugin plugin;
  Status status = ::dede::internal::ConfigureWithSettings(&plugin, node, Context());
  EXPECT_TRUE(status.ok()) << status.message();
  Problem problem(0, 0);
  status = plugin.Describe(&problem);
  EXPECT_TRUE(status.ok()) << status.message();
  bool finished = true;
  EXPECT_TRUE(plugin.Refresh(0, &problem, &finished).ok());
  Allocation exact;
  SolveSummary summary;
  SolveExact(problem, ExactOptions{}, &exact, &summary);
  EXPECT_EQ(summary.termination, Termination::kConverged) << summary.message;
  if (report != nullptr) {
    EXPECT_TRUE(plugin.Report(0, problem, exact, report).ok());
  }
  return plugin.TotalFlow(exact);
}

TEST(TrafficEngineeringPlugin, SndlibTopologyWithNamedNodesEqualsItsExplicitTwoWayVersion) {
  // SNDlib abilene (node names, undirected links) with a matrix naming its nodes (written with
  // a UTF-8 byte-order mark, as spreadsheets do), against the same network as integer-id JSON
  // listing both directions explicitly in the reader's order (each link, then its reverse):
  // the same optimum. ATLAM5 has one link (9,920 to ATLAng): its 30,000 cannot all leave.
  const std::string dir = std::filesystem::temp_directory_path().string() + "/te_plugin_test_" +
                          std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  Result<Topology> named = LoadTopology(kDataDir + "/abilene-sndlib.txt");
  ASSERT_TRUE(named.ok()) << named.status().message();
  std::ofstream json(dir + "/abilene.json");
  json << R"({"directed": true, "nodes": [)";
  for (int v = 0; v < named->num_nodes(); ++v) json << (v ? "," : "") << R"({"id": )" << v << "}";
  json << R"(], "links": [)";
  for (std::size_t e = 0; e < named->links.size(); ++e) {
    const Link& l = named->links[e];
    json << (e ? "," : "") << R"({"source": )" << l.src << R"(, "target": )" << l.dst
         << R"(, "capacity": )" << l.capacity << "}";
  }
  json << "]}";
  json.close();
  const auto id = [&](const char* name) { return std::to_string(named->NodeIndexByName(name)); };
  std::ofstream(dir + "/names.csv", std::ios::binary)
      << "\xEF\xBB\xBFsrc,dst,demand\nATLAM5,STTLng,30000\nNYCMng,LOSAng,8000\n"
         "SNVAng,WASHng,5000\n";
  std::ofstream(dir + "/ids.csv") << "src,dst,demand\n"
                                  << id("ATLAM5") << "," << id("STTLng") << ",30000\n"
                                  << id("NYCMng") << "," << id("LOSAng") << ",8000\n"
                                  << id("SNVAng") << "," << id("WASHng") << ",5000\n";
  RoundReport report;
  const double from_names =
      ExactMaxFlow(kDataDir + "/abilene-sndlib.txt", dir + "/names.csv", &report);
  const double from_ids = ExactMaxFlow(dir + "/abilene.json", dir + "/ids.csv");
  EXPECT_NEAR(from_names, from_ids, 1e-9 * from_ids);
  EXPECT_LE(from_names, 9920 + 8000 + 5000 + 1e-6);
  EXPECT_GE(from_names, 8000 + 5000);
  bool reported = false;
  for (const auto& metric : report.metrics) {
    if (metric.name == "topology_reverse_links_added") {
      EXPECT_EQ(metric.value, 15);
      reported = true;
    }
  }
  EXPECT_TRUE(reported);
  bool named_link = false;
  for (const auto& entity : report.entities) named_link |= entity.name == "ATLAng->ATLAM5";
  EXPECT_TRUE(named_link);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dede::te

namespace dede::te {
namespace {

// Configure + Describe with `topology` and the given traffic keys; returns the plugin's status.
Status ConfigureWith(TrafficEngineeringPlugin* plugin,
                     Problem* problem,
                     const std::string& topology,
                     const std::vector<std::pair<std::string, std::string>>& keys) {
  ConfigNode node = ConfigNode::Map("te_test.yaml", 1, 1, "plugin.settings");
  node.Insert("topology", Scalar("topology", topology));
  for (const auto& [key, value] : keys) {
    if (key == "traffic_matrices[]") {
      ConfigNode list = ConfigNode::List("te_test.yaml", 1, 1, "plugin.settings.traffic_matrices");
      list.Append(Scalar("traffic_matrices", value));
      node.Insert("traffic_matrices", list);
    } else {
      node.Insert(key, Scalar(key, value));
    }
  }
  Status status = ::dede::internal::ConfigureWithSettings(plugin, node, Context());
  if (!status.ok()) return status;
  return plugin->Describe(problem);
}

TEST(TrafficEngineeringPlugin, ReplaysAMeasuredSeriesOneRowPerRound) {
  // The first three 5-minute Abilene matrices of the SNDlib series (wide CSV, SRC>DST columns;
  // row totals 2,541.7201, 2,501.2398 and 2,620.6876 Mbit/s, summed independently).
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Status status = ConfigureWith(
      &plugin,
      &problem,
      "abilene-sndlib.txt",
      {{"traffic_series", "abilene-tm-3rows.csv"}, {"traffic_series_first_row", "1"}});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(plugin.num_rounds(), 2);
  bool finished = true;
  ASSERT_TRUE(plugin.Refresh(0, &problem, &finished).ok());
  EXPECT_FALSE(finished);
  EXPECT_NEAR(plugin.TotalDemand(), 2501.2398, 1e-3);
  ASSERT_TRUE(plugin.Refresh(1, &problem, &finished).ok());
  EXPECT_NEAR(plugin.TotalDemand(), 2620.6876, 1e-3);
  ASSERT_TRUE(plugin.Refresh(2, &problem, &finished).ok());
  EXPECT_TRUE(finished);
  // More rows than the file has, and a column naming a node the topology lacks.
  TrafficEngineeringPlugin again;
  Problem other(0, 0);
  status =
      ConfigureWith(&again,
                    &other,
                    "abilene-sndlib.txt",
                    {{"traffic_series", "abilene-tm-3rows.csv"}, {"traffic_series_rows", "5"}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("5 rows asked from row 0, the file has 3"), std::string::npos)
      << status.message();
  TrafficEngineeringPlugin b4;
  status = ConfigureWith(&b4, &other, "B4.json", {{"traffic_series", "abilene-tm-3rows.csv"}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("abilene-tm-3rows.csv:1: column 2 'ATLAM5>ATLAng': source "
                                  "'ATLAM5' is not a node id"),
            std::string::npos)
      << status.message();
}

TEST(TrafficEngineeringPlugin, ReadsSndlibDemandsAsAMatrix) {
  // abilene's static matrix: 132 demands totalling 3,000,002 Mbit/s (SNDlib's META says 3 Tbps).
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Status status = ConfigureWith(
      &plugin, &problem, "abilene-sndlib.txt", {{"traffic_matrices[]", "abilene-sndlib.txt"}});
  ASSERT_TRUE(status.ok()) << status.message();
  bool finished = true;
  ASSERT_TRUE(plugin.Refresh(0, &problem, &finished).ok());
  EXPECT_NEAR(plugin.TotalDemand(), 3000002, 1e-6);
  EXPECT_EQ(plugin.Demands().size(), 132u);
}

TEST(TrafficEngineeringPlugin, MatrixDirectoryIsFilteredByAPattern) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Status status = ConfigureWith(&plugin,
                                &problem,
                                "B4.json",
                                {{"traffic_matrices", "matrices"},
                                 {"traffic_matrix_pattern", "B4_real_1*_1.0.csv"},
                                 {"paths", "B4-paths.csv"}});
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(plugin.matrix_files().size(), 11u);  // 1, 10 .. 19
  EXPECT_NE(plugin.matrix_files()[1].find("B4_real_10_1.0.csv"), std::string::npos);
  TrafficEngineeringPlugin none;
  status = ConfigureWith(&none,
                         &problem,
                         "B4.json",
                         {{"traffic_matrices", "matrices"}, {"traffic_matrix_pattern", "*.txt"}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no traffic-matrix files matching '*.txt'"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace dede::te

namespace dede::te {
namespace {

Event MakeEvent(std::int64_t id,
                const std::string& kind,
                const std::string& target,
                const std::string& payload_json) {
  Event event;
  event.id = id;
  event.kind = kind;
  event.target = target;
  Result<ConfigNode> payload =
      internal::JsonToConfigNode(payload_json, "event " + std::to_string(id), "payload");
  EXPECT_TRUE(payload.ok()) << payload.status().message();
  event.payload = payload.value();
  return event;
}

TEST(TrafficEngineeringPlugin, InboxEventsSetCapacitiesAndWholeMatricesFromTheirRound) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Settings settings;
  settings.matrices = {"matrices/B4_real_0_1.0.csv", "matrices/B4_real_1_1.0.csv"};
  Build(settings, &plugin, &problem);
  std::string rejection;
  // A whole matrix: two pairs, every other demand 0; a capacity; then bad ones.
  ASSERT_TRUE(
      plugin
          .ApplyEvent(
              1,
              MakeEvent(1, "traffic_matrix", "", R"({"demands": [[0, 1, 100], ["0", "2", 50.5]]})"),
              &rejection)
          .ok());
  EXPECT_EQ(rejection, "");
  ASSERT_TRUE(
      plugin.ApplyEvent(1, MakeEvent(2, "link_capacity", "0->1", R"({"capacity": 7})"), &rejection)
          .ok());
  EXPECT_EQ(rejection, "");
  ASSERT_TRUE(
      plugin.ApplyEvent(1, MakeEvent(3, "demand", "0->0", R"({"demand": 1})"), &rejection).ok());
  EXPECT_NE(rejection.find("event 3 (demand): target '0->0' is not a pair with paths"),
            std::string::npos)
      << rejection;
  ASSERT_TRUE(
      plugin
          .ApplyEvent(1,
                      MakeEvent(4, "traffic_matrix", "", R"({"demands": [[0, 1, 1], [0, 1, 2]]})"),
                      &rejection)
          .ok());
  EXPECT_NE(rejection.find("payload.demands[1]: the pair is listed twice"), std::string::npos)
      << rejection;
  ASSERT_TRUE(plugin.ApplyEvent(1, MakeEvent(5, "link_capacity", "99", R"({})"), &rejection).ok());
  EXPECT_NE(rejection.find("target '99' is not a link"), std::string::npos) << rejection;
  // Round 0 keeps the matrix file's data; from round 1 the events hold.
  bool finished = true;
  ASSERT_TRUE(plugin.Refresh(0, &problem, &finished).ok());
  EXPECT_NEAR(plugin.TotalDemand(), 26682.5959, 1e-3);
  ASSERT_TRUE(plugin.Refresh(1, &problem, &finished).ok());
  ASSERT_FALSE(finished);
  EXPECT_NEAR(plugin.TotalDemand(), 150.5, 1e-9);
  Allocation exact;
  SolveSummary summary;
  SolveExact(problem, ExactOptions{}, &exact, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged);
  RoundReport report;
  ASSERT_TRUE(plugin.Report(1, problem, exact, &report).ok());
  ASSERT_FALSE(report.entities.empty());
  EXPECT_EQ(report.entities[0].name, "0->1");
  EXPECT_NEAR(report.entities[0].parameters[0].second * 5000, 7, 1e-9);  // flow_unit 5000
}

}  // namespace
}  // namespace dede::te

namespace dede::te {
namespace {

TEST(TrafficEngineeringPlugin, InboxAndConfiguredLinkEventsApplyInRoundOrder) {
  // Configured: link 0->1 recovers at round 3. Inbox: it fails from round 1, and link 0->2
  // fails from round 4 while the configuration fails it at round 4 too.
  ConfigNode node = MakeSettings([] {
    Settings s;
    s.matrices = {"matrices/B4_real_0_1.0.csv",
                  "matrices/B4_real_1_1.0.csv",
                  "matrices/B4_real_2_1.0.csv",
                  "matrices/B4_real_3_1.0.csv",
                  "matrices/B4_real_4_1.0.csv"};
    return s;
  }());
  ConfigNode events = ConfigNode::List("te_test.yaml", 1, 1, "plugin.settings.link_events");
  for (const auto& [round, link, action] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"3", "0->1", "recover"},
                                                                      {"4", "0->2", "fail"}}) {
    ConfigNode e = ConfigNode::Map("te_test.yaml", 1, 1, "plugin.settings.link_events[]");
    e.Insert("round", Scalar("round", round));
    e.Insert("link", Scalar("link", link));
    e.Insert("action", Scalar("action", action));
    events.Append(e);
  }
  node.Insert("link_events", events);
  TrafficEngineeringPlugin plugin;
  ASSERT_TRUE(::dede::internal::ConfigureWithSettings(&plugin, node, Context()).ok());
  Problem problem(0, 0);
  ASSERT_TRUE(plugin.Describe(&problem).ok());
  std::string rejection;
  ASSERT_TRUE(plugin.ApplyEvent(1, MakeEvent(1, "link_fail", "0->1", "{}"), &rejection).ok());
  ASSERT_TRUE(plugin.ApplyEvent(4, MakeEvent(2, "link_recover", "0->2", "{}"), &rejection).ok());
  ASSERT_EQ(rejection, "");
  const auto failed_after = [&](int round) {
    bool finished = true;
    EXPECT_TRUE(plugin.Refresh(round, &problem, &finished).ok());
    Allocation zero;
    zero.values.assign(problem.num_variables(), 0.0);
    RoundReport report;
    EXPECT_TRUE(plugin.Report(round, problem, zero, &report).ok());
    for (const auto& m : report.metrics) {
      if (m.name == "failed_links") return static_cast<int>(m.value);
    }
    return -1;
  };
  EXPECT_EQ(failed_after(0), 0);
  EXPECT_EQ(failed_after(1), 1);  // inbox failure of 0->1
  EXPECT_EQ(failed_after(2), 1);
  EXPECT_EQ(failed_after(3), 0);  // the configured recovery comes later
  EXPECT_EQ(failed_after(4), 0);  // configured failure of 0->2, then the inbox's recovery
}

}  // namespace
}  // namespace dede::te
