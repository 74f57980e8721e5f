// The traffic_engineering baselines (POP-k, demand pinning) as plugin methods: feasibility and
// quality against the exact LP on B4, POP-1 = exact, and hand-computed tiny instances.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "runtime/solver_services.h"
#include "te_plugin.h"
#include "te_test_util.h"

namespace dede::te {
namespace {

using testing::Build;
using testing::ContextIn;
using testing::kDataDir;
using testing::List;
using testing::Map;
using testing::Scalar;
using testing::ScratchDir;

constexpr double kFeasibilityTolerance = 1e-6;
constexpr double kObjectiveTolerance = 1e-6;

SolverServices Services() {
  AdmmOptions admm;
  admm.num_threads = 2;
  return internal::MakeSolverServices(admm, ExactOptions{});
}

ConfigNode B4Settings(const std::string& objective, const std::string& scale) {
  ConfigNode node = Map("plugin.settings",
                        {{"topology", "B4.json"},
                         {"paths", "B4-paths.csv"},
                         {"objective", objective},
                         {"scale", scale}});
  node.Insert("traffic_matrices",
              List("plugin.settings.traffic_matrices", {"matrices/B4_real_0_1.0.csv"}));
  return node;
}

struct Outcome {
  double value = 0.0;  // total flow (data units) or max link utilisation
  double violation = 0.0;
  SolveSummary summary;
  Allocation allocation;
};

Outcome RunMethod(TrafficEngineeringPlugin* plugin,
                  const Problem& problem,
                  const std::string& method) {
  Outcome out;
  Allocation allocation;
  const Status status =
      plugin->SolveWith(method, 0, problem, Services(), &allocation, &out.summary);
  EXPECT_TRUE(status.ok()) << method << ": " << status.message();
  if (!status.ok()) return out;
  EXPECT_EQ(static_cast<int>(allocation.values.size()), problem.num_variables());
  out.violation = problem.MeasureViolation(allocation.values).Max();
  out.value = plugin->objective() == Objective::kMaxTotalFlow
                  ? plugin->TotalFlow(allocation)
                  : plugin->MaxLinkUtilization(allocation);
  out.allocation = std::move(allocation);
  return out;
}

double Exact(TrafficEngineeringPlugin* plugin, const Problem& problem) {
  Allocation allocation;
  SolveSummary summary;
  SolveExact(problem, ExactOptions{}, &allocation, &summary);
  EXPECT_TRUE(summary.IsSolutionUsable()) << summary.message;
  return plugin->objective() == Objective::kMaxTotalFlow ? plugin->TotalFlow(allocation)
                                                         : plugin->MaxLinkUtilization(allocation);
}

TEST(TrafficEngineeringBaselines, ListsPopAndDemandPinningAndRejectsUnknownMethods) {
  TrafficEngineeringPlugin plugin;
  std::vector<std::string> names;
  for (const MethodInfo& m : plugin.Methods()) names.push_back(m.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "exact", "pop-4", "pop-16", "pop-64", "demand_pinning", "flow_deviation"}));
  Problem problem(0, 0);
  Build(B4Settings("max_total_flow", "1"), ContextIn(kDataDir), &plugin, &problem);
  for (const std::string bad : {"pop-0", "pop-", "pop-x", "greedy"}) {
    Allocation allocation;
    SolveSummary summary;
    const Status status = plugin.SolveWith(bad, 0, problem, Services(), &allocation, &summary);
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.message().find("'" + bad + "'"), std::string::npos) << status.message();
  }
}

// B4 matrix 0 at scale 4 (congested): every baseline is feasible within 1e-6 and no better than
// the exact optimum; POP-1 is the exact LP.
void CheckB4(const std::string& objective) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(B4Settings(objective, "4"), ContextIn(kDataDir), &plugin, &problem);
  const double exact = Exact(&plugin, problem);
  const bool maximize = objective == "max_total_flow";
  std::vector<std::string> methods = {"pop-1", "pop-4", "pop-16", "pop-64", "demand_pinning"};
  if (!maximize) methods.push_back("flow_deviation");
  for (const std::string& method : methods) {
    const Outcome out = RunMethod(&plugin, problem, method);
    std::printf("B4 x4 %s %-15s value %.6f exact %.6f quality %.4f (%.3f s) %s\n",
                objective.c_str(),
                method.c_str(),
                out.value,
                exact,
                maximize ? out.value / exact : exact / out.value,
                out.summary.total_seconds,
                out.summary.message.c_str());
    EXPECT_LE(out.violation, kFeasibilityTolerance) << method;
    EXPECT_TRUE(out.summary.feasible) << method;
    EXPECT_EQ(out.summary.termination, Termination::kConverged) << method;
    EXPECT_EQ(out.summary.method, method);
    if (maximize) {
      EXPECT_LE(out.value, exact * (1 + kObjectiveTolerance)) << method;
      EXPECT_LE(out.value, plugin.TotalDemand() * (1 + kObjectiveTolerance)) << method;
      EXPECT_NEAR(out.summary.objective, out.value, 1e-6 * exact) << method;
    } else {
      EXPECT_GE(out.value, exact * (1 - kObjectiveTolerance)) << method;
      EXPECT_NEAR(out.summary.objective, out.value, 1e-6) << method;
    }
    if (method == "pop-1") {
      EXPECT_NEAR(out.value, exact, kObjectiveTolerance * exact);
    }
    if (method == "flow_deviation") {
      // The flow-deviation polish from shortest paths: within 1% of the LP optimum on B4.
      EXPECT_LE(out.value, exact * 1.01);
      EXPECT_NEAR(
          plugin.TotalFlow(out.allocation), plugin.TotalDemand(), 1e-9 * plugin.TotalDemand());
    }
  }
}

TEST(TrafficEngineeringBaselines, FlowDeviationNeedsMinMaxUtilization) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(B4Settings("max_total_flow", "1"), ContextIn(kDataDir), &plugin, &problem);
  Allocation allocation;
  SolveSummary summary;
  const Status status =
      plugin.SolveWith("flow_deviation", 0, problem, Services(), &allocation, &summary);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("min_max_utilization"), std::string::npos) << status.message();
}

TEST(TrafficEngineeringBaselines, AreFeasibleAndNoBetterThanExactOnCongestedB4MaxTotalFlow) {
  CheckB4("max_total_flow");
}

TEST(TrafficEngineeringBaselines, AreFeasibleAndNoBetterThanExactOnB4MinMaxUtilization) {
  CheckB4("min_max_utilization");
}

// demand_blocks: pair gives one demand block per pair (132 on B4) and the same optimum; ADMM on
// it is within 0.5% of exact after repair.
TEST(TrafficEngineeringDemandBlocks, PerPairBlocksGiveTheSameOptimumAndAdmmWithinHalfAPercent) {
  for (const std::string objective : {"max_total_flow", "min_max_utilization"}) {
    ConfigNode node = B4Settings(objective, "4");
    node.Insert("demand_blocks", Scalar("plugin.settings.demand_blocks", "pair"));
    ConfigNode source_node = B4Settings(objective, "4");
    source_node.Insert("demand_blocks", Scalar("plugin.settings.demand_blocks", "source"));
    TrafficEngineeringPlugin source_plugin, pair_plugin, default_plugin;
    Problem source_problem(0, 0), pair_problem(0, 0), default_problem(0, 0);
    Build(source_node, ContextIn(kDataDir), &source_plugin, &source_problem);
    // The default is per pair: no set-up of per-source block QPs on large networks.
    Build(B4Settings(objective, "4"), ContextIn(kDataDir), &default_plugin, &default_problem);
    EXPECT_EQ(default_problem.num_demands(), 132);
    Build(node, ContextIn(kDataDir), &pair_plugin, &pair_problem);
    EXPECT_EQ(source_problem.num_demands(), 12);
    EXPECT_EQ(pair_problem.num_demands(), 132);
    const double exact = Exact(&pair_plugin, pair_problem);
    EXPECT_NEAR(exact, Exact(&source_plugin, source_problem), 1e-6 * exact);
    AdmmSolver solver(pair_problem, AdmmOptions{});
    Allocation admm;
    SolveSummary summary;
    solver.Solve(&admm, &summary);
    ASSERT_TRUE(pair_plugin.Repair(pair_problem, &admm).ok());
    EXPECT_LE(pair_problem.MeasureViolation(admm.values).Max(), kFeasibilityTolerance);
    if (objective == "max_total_flow") {
      EXPECT_GE(pair_plugin.TotalFlow(admm), 0.995 * exact) << summary.BriefReport();
    } else {
      EXPECT_LE(pair_plugin.MaxLinkUtilization(admm), 1.005 * exact) << summary.BriefReport();
    }
    // The baselines work on either model.
    const Outcome pop = RunMethod(&pair_plugin, pair_problem, "pop-4");
    EXPECT_LE(pop.violation, kFeasibilityTolerance);
    std::printf("per-pair %s: exact %.6f, admm %s\n",
                objective.c_str(),
                exact,
                summary.BriefReport().c_str());
  }
}

TEST(TrafficEngineeringBaselines, PopIsDeterministicForAGivenSeedAndRound) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(B4Settings("max_total_flow", "4"), ContextIn(kDataDir), &plugin, &problem);
  const Outcome a = RunMethod(&plugin, problem, "pop-16");
  const Outcome b = RunMethod(&plugin, problem, "pop-16");
  EXPECT_EQ(a.value, b.value);
}

// solver.exact.time_limit_seconds bounds a baseline's whole round: POP's groups share it (a
// group that starts with nothing left routes nothing), and a point Clp leaves at the limit is
// kept only if feasible. With a microsecond, every method ends on the time limit with a feasible
// allocation, under either LP method (the primal simplex's iterates are feasible, barrier's are
// not).
TEST(TrafficEngineeringBaselines, ShareTheTimeLimitOverTheRoundAndKeepOnlyFeasiblePoints) {
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(B4Settings("max_total_flow", "4"), ContextIn(kDataDir), &plugin, &problem);
  for (const LpMethod lp : {LpMethod::kPrimal, LpMethod::kBarrier}) {
    ExactOptions exact;
    exact.lp_method = lp;
    exact.time_limit_seconds = 1e-6;
    AdmmOptions admm;
    admm.num_threads = 2;
    const SolverServices services = internal::MakeSolverServices(admm, exact);
    for (const std::string method : {"pop-16", "demand_pinning", "exact"}) {
      SCOPED_TRACE(method + " " + LpMethodName(lp));
      Allocation allocation;
      SolveSummary summary;
      const auto start = std::chrono::steady_clock::now();
      ASSERT_TRUE(plugin.SolveWith(method, 0, problem, services, &allocation, &summary).ok());
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      EXPECT_EQ(summary.termination, Termination::kTimeLimit) << summary.message;
      EXPECT_LE(problem.MeasureViolation(allocation.values).Max(), kFeasibilityTolerance)
          << summary.message;
      EXPECT_TRUE(summary.feasible) << summary.message;
      EXPECT_LT(seconds, 2.0);
      if (method == "pop-16") {
        EXPECT_NE(summary.message.find("of 16 groups stopped at their share of the 1e-06 s"),
                  std::string::npos)
            << summary.message;
      }
    }
  }
}

// Four nodes: A = 0 -> 2 (demand 20) on paths [0 2] and [0 1 2]; B = 1 -> 2 (demand 5) on
// [1 2] and [1 3 2]; every capacity 10.
const char* kDiamond = R"({"nodes": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}],
  "links": [{"source": 0, "target": 2, "capacity": 10},
            {"source": 0, "target": 1, "capacity": 10},
            {"source": 1, "target": 2, "capacity": 10},
            {"source": 1, "target": 3, "capacity": 10},
            {"source": 3, "target": 2, "capacity": 10}]})";
const char* kDiamondPaths =
    "src,dst,path_idx,hops,nodes,edge_ids\n"
    "0,2,0,1,0 2,0\n"
    "0,2,1,2,0 1 2,1 2\n"
    "1,2,0,1,1 2,2\n"
    "1,2,1,2,1 3 2,3 4\n";

void BuildDiamond(const ScratchDir& dir,
                  const std::string& objective,
                  TrafficEngineeringPlugin* plugin,
                  Problem* problem) {
  dir.Write("diamond.json", kDiamond);
  dir.Write("diamond-paths.csv", kDiamondPaths);
  dir.Write("tm.csv", "src,dst,demand\n0,2,20\n1,2,5\n");
  ConfigNode node =
      Map("plugin.settings",
          {{"topology", "diamond.json"}, {"paths", "diamond-paths.csv"}, {"objective", objective}});
  node.Insert("traffic_matrices", List("plugin.settings.traffic_matrices", {"tm.csv"}));
  Build(node, ContextIn(dir.path()), plugin, problem);
}

// Pinning: the LP gives A both its paths (20), which fills 1 -> 2; B is pinned on [1 2] with no
// capacity left: total 20. Exact: B on [1 3 2], total 25.
TEST(TrafficEngineeringBaselines, DemandPinningLosesTheSmallDemandOnAHandMadeDiamond) {
  ScratchDir dir("pinning_flow");
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  BuildDiamond(dir, "max_total_flow", &plugin, &problem);
  EXPECT_NEAR(Exact(&plugin, problem), 25.0, 1e-6);
  const Outcome out = RunMethod(&plugin, problem, "demand_pinning");
  EXPECT_NEAR(out.value, 20.0, 1e-6);
  EXPECT_LE(out.violation, kFeasibilityTolerance);
}

// Min max utilisation: A alone splits 10/10 (utilisation 1); B pinned in full on [1 2] makes
// 1 -> 2 carry 15: 1.5. Exact: B on [1 3 2], 1.0.
TEST(TrafficEngineeringBaselines, DemandPinningOverloadsTheSharedLinkOnAHandMadeDiamond) {
  ScratchDir dir("pinning_mlu");
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  BuildDiamond(dir, "min_max_utilization", &plugin, &problem);
  EXPECT_NEAR(Exact(&plugin, problem), 1.0, 1e-6);
  const Outcome out = RunMethod(&plugin, problem, "demand_pinning");
  EXPECT_NEAR(out.value, 1.5, 1e-6);
  EXPECT_LE(out.violation, kFeasibilityTolerance);
}

// One link 0 -> 1 of capacity 10 and a demand of 8. POP-2 puts the whole demand in one group
// with capacity 5: 5 routed. With client splitting (fraction 1) the two halves of 4 go to
// different groups: all 8 routed.
TEST(TrafficEngineeringBaselines, PopTwoRoutesHalfTheLinkWithoutAndAllWithClientSplitting) {
  for (const std::string fraction : {"0", "1"}) {
    ScratchDir dir("pop_split_" + fraction);
    dir.Write("link.json", R"({"nodes": [{"id": 0}, {"id": 1}],
        "links": [{"source": 0, "target": 1, "capacity": 10}]})");
    dir.Write("tm.csv", "src,dst,demand\n0,1,8\n");
    ConfigNode node =
        Map("plugin.settings", {{"topology", "link.json"}, {"pop_split_fraction", fraction}});
    node.Insert("traffic_matrices", List("plugin.settings.traffic_matrices", {"tm.csv"}));
    TrafficEngineeringPlugin plugin;
    Problem problem(0, 0);
    Build(node, ContextIn(dir.path()), &plugin, &problem);
    const Outcome out = RunMethod(&plugin, problem, "pop-2");
    EXPECT_NEAR(out.value, fraction == "0" ? 5.0 : 8.0, 1e-6) << "split fraction " << fraction;
    EXPECT_LE(out.violation, kFeasibilityTolerance);
  }
}

// The "exact" method (the compact path LP: path flows only) reaches the optimum of the framework's
// exact solve of the entry model (x[e, b] coupled to the path flows) on B4, for both objectives,
// per-source and per-pair blocks, congested (scale 4) and not (scale 1), with and without a
// failed link; its allocation is feasible for the entry model.
TEST(TrafficEngineeringExact, CompactPathLpMatchesTheEntryModelOptimumOnB4) {
  for (const std::string objective : {"max_total_flow", "min_max_utilization"}) {
    for (const std::string blocks : {"source", "pair"}) {
      for (const std::string scale : {"1", "4"}) {
        for (const bool failure : {false, true}) {
          ConfigNode node = B4Settings(objective, scale);
          node.Insert("demand_blocks", Scalar("plugin.settings.demand_blocks", blocks));
          if (failure) {
            ConfigNode events =
                ConfigNode::List("te_test.yaml", 2, 3, "plugin.settings.link_events");
            events.Append(Map("plugin.settings.link_events[0]",
                              {{"round", "0"}, {"link", "0"}, {"action", "fail"}}));
            node.Insert("link_events", events);
          }
          TrafficEngineeringPlugin plugin;
          Problem problem(0, 0);
          Build(node, ContextIn(kDataDir), &plugin, &problem);
          const std::string what = objective + " blocks " + blocks + " scale " + scale +
                                   (failure ? " link 0 failed" : "");
          const double entry = Exact(&plugin, problem);
          const Outcome compact = RunMethod(&plugin, problem, "exact");
          std::printf("%s: entry model %.6f, compact %.6f (%s)\n",
                      what.c_str(),
                      entry,
                      compact.value,
                      compact.summary.message.c_str());
          EXPECT_EQ(compact.summary.method, "exact") << what;
          EXPECT_EQ(compact.summary.termination, Termination::kConverged) << what;
          EXPECT_TRUE(compact.summary.feasible) << what;
          EXPECT_LE(compact.violation, kFeasibilityTolerance) << what;
          EXPECT_NEAR(compact.value, entry, 1e-6 * entry) << what;
          EXPECT_NEAR(compact.summary.objective, compact.value, 1e-6 * entry) << what;
          if (failure) {
            // Nothing crosses the failed link.
            Allocation allocation;
            SolveSummary summary;
            ASSERT_TRUE(
                plugin.SolveWith("exact", 0, problem, Services(), &allocation, &summary).ok());
            EXPECT_EQ(plugin.LinkLoads(allocation)[0], 0.0) << what;
          }
        }
      }
    }
  }
}

// The compact model of two pairs on the diamond: 4 path flows (+ U), 2 demand rows and one row
// per used link (5); the framework's validator accepts it; exact optima by hand (25 and 1.0).
TEST(TrafficEngineeringExact, CompactModelOfTheDiamondHasPathColumnsOnlyAndHandOptima) {
  ScratchDir dir("compact_diamond");
  for (const std::string objective : {"max_total_flow", "min_max_utilization"}) {
    TrafficEngineeringPlugin plugin;
    Problem problem(0, 0);
    BuildDiamond(dir, objective, &plugin, &problem);
    const bool max_flow = objective == "max_total_flow";
    std::vector<Commodity> commodities;
    const std::vector<DemandEntry> demands = plugin.Demands();
    ASSERT_EQ(demands.size(), 2u);
    // Node and link indices as in kDiamond (ids = indices).
    std::vector<std::vector<Path>> paths = {{Path{0, 2, {0}}, Path{0, 2, {1, 2}}},
                                            {Path{1, 2, {2}}, Path{1, 2, {3, 4}}}};
    commodities.push_back({0, 2, &paths[0], 20.0});
    commodities.push_back({1, 2, &paths[1], 5.0});
    CompactModel model;
    ASSERT_TRUE(BuildCompactModel(plugin.topology(),
                                  std::vector<double>(5, 10.0),
                                  {},
                                  commodities,
                                  plugin.objective(),
                                  1.0,
                                  "diamond.json",
                                  &model)
                    .ok());
    std::string error;
    EXPECT_TRUE(model.problem.Validate(&error)) << error;
    EXPECT_EQ(model.problem.num_variables(), max_flow ? 4 : 5);
    EXPECT_EQ(model.problem.num_constraints(), 2 + 5);
    Allocation allocation;
    SolveSummary summary;
    SolveExact(model.problem, ExactOptions{}, &allocation, &summary);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
    EXPECT_NEAR(summary.objective, max_flow ? 25.0 : 1.0, 1e-9);
    const Outcome out = RunMethod(&plugin, problem, "exact");
    EXPECT_NEAR(out.value, max_flow ? 25.0 : 1.0, 1e-6);
    EXPECT_LE(out.violation, kFeasibilityTolerance);
  }
}

}  // namespace
}  // namespace dede::te
