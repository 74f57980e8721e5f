// Traffic generators, robustness perturbations, link failures and their settings.
#include "te_traffic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "plugin/plugin_settings.h"
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

Topology B4() {
  Result<Topology> t = LoadTopology(kDataDir + "/B4.json");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.value();
}

double Sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// Share of the volume carried by the largest `fraction` of the positive values.
double TopShare(std::vector<double> v, double fraction) {
  std::sort(v.begin(), v.end(), std::greater<>());
  while (!v.empty() && v.back() <= 0) v.pop_back();
  const std::size_t top = static_cast<std::size_t>(std::llround(fraction * v.size()));
  return std::accumulate(v.begin(), v.begin() + top, 0.0) / Sum(v);
}

TEST(TrafficHelpers, QuantileInterpolatesLinearlyLikeNumpy) {
  EXPECT_DOUBLE_EQ(Quantile({4, 1, 3, 2}, 0.9), 3.7);  // position 2.7 between 3 and 4
  EXPECT_DOUBLE_EQ(Quantile({5}, 0.9), 5.0);
  EXPECT_DOUBLE_EQ(Quantile({1, 2}, 0.0), 1.0);
}

TEST(TrafficHelpers, RedistributeTopGivesTheTopTenPercentTheShareAndKeepsTheTotal) {
  std::vector<double> d(20, 1.0);
  d[3] = 2.0;
  d[7] = 0.0;  // zeros stay zero and do not count
  const double total = Sum(d);
  RedistributeTop(0.1, 0.8, &d);
  EXPECT_NEAR(Sum(d), total, 1e-12);
  EXPECT_EQ(d[7], 0.0);
  // 19 positive values: the top round(1.9) = 2 hold 80% (d[3] and the first 1.0, d[0]).
  EXPECT_NEAR(d[3] + d[0], 0.8 * total, 1e-12);
  EXPECT_NEAR(d[3] / d[0], 2.0, 1e-12);  // proportions inside the top kept
}

TEST(TrafficHelpers, ChangeSigmaIsTheSpreadOfConsecutiveChanges) {
  // Changes 1 and 2: mean 1.5, variance 0.25.
  const std::vector<double> sigma = ChangeSigma({{0.0, 5.0}, {1.0, 5.0}, {3.0, 5.0}});
  ASSERT_EQ(sigma.size(), 2u);
  EXPECT_NEAR(sigma[0], 0.5, 1e-12);
  EXPECT_NEAR(sigma[1], 0.0, 1e-12);
}

TEST(TrafficHelpers, FluctuateIsSeededClipsAtZeroAndScalesWithC) {
  std::vector<double> a(1000, 10.0), b(1000, 10.0), c(1000, 10.0);
  const std::vector<double> sigma(1000, 4.0);
  Fluctuate(5, sigma, 7, 3, &a);
  Fluctuate(5, sigma, 7, 3, &b);
  Fluctuate(5, sigma, 7, 4, &c);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum_sq = 0;
  for (double v : a) {
    EXPECT_GE(v, 0.0);
    sum_sq += (v - 10.0) * (v - 10.0);
  }
  // Standard deviation sqrt(5) * 4 = 8.9 (a little less: clipping at 0).
  EXPECT_NEAR(std::sqrt(sum_sq / 1000), 8.9, 1.2);
}

TrafficSpec Spec(TrafficModel model, std::uint64_t seed = 3) {
  TrafficSpec spec;
  spec.enabled = true;
  spec.model = model;
  spec.seed = seed;
  spec.total_demand = 1000;
  return spec;
}

TEST(TrafficGenerators, AreSeededPerRoundAndHitTheExpectedTotal) {
  const Topology t = B4();
  for (TrafficModel model : {TrafficModel::kGravity,
                             TrafficModel::kUniform,
                             TrafficModel::kBimodal,
                             TrafficModel::kPoisson}) {
    const TrafficSpec spec = Spec(model);
    const auto pairs = GeneratedPairs(t, spec);
    ASSERT_EQ(pairs.size(), 132u);
    const std::vector<double> a = GenerateTraffic(t, spec, pairs, 0);
    EXPECT_EQ(a, GenerateTraffic(t, spec, pairs, 0));
    EXPECT_NE(a, GenerateTraffic(t, spec, pairs, 1));
    EXPECT_NE(a, GenerateTraffic(t, Spec(model, 4), pairs, 0));
    // The expected total is 1000; over 132 pairs the spread is well within 25%.
    double mean_total = 0;
    for (int r = 0; r < 10; ++r) mean_total += Sum(GenerateTraffic(t, spec, pairs, r)) / 10;
    EXPECT_NEAR(mean_total, 1000, 100) << static_cast<int>(model);
    for (double d : a) EXPECT_GE(d, 0.0);
  }
}

TEST(TrafficGenerators, UniformStaysBelowTwiceTheMeanAndBimodalHasTwoModes) {
  const Topology t = B4();
  const auto pairs = GeneratedPairs(t, Spec(TrafficModel::kUniform));
  const double mean = 1000.0 / 132;
  for (double d : GenerateTraffic(t, Spec(TrafficModel::kUniform), pairs, 0)) {
    EXPECT_LE(d, 2 * mean);
  }
  int high = 0;
  for (double d : GenerateTraffic(t, Spec(TrafficModel::kBimodal), pairs, 0)) {
    EXPECT_TRUE(d <= mean || (d >= 2 * mean && d <= 4 * mean)) << d;
    high += d >= 2 * mean;
  }
  EXPECT_GT(high, 10);  // 20% of 132 expected
  EXPECT_LT(high, 45);
}

TEST(TrafficGenerators, PoissonDemandsDecayWithHopDistance) {
  const Topology t = B4();
  TrafficSpec spec = Spec(TrafficModel::kPoisson);
  spec.decay = 0.3;
  const auto pairs = GeneratedPairs(t, spec);
  const std::vector<double> d = GenerateTraffic(t, spec, pairs, 0);
  double adjacent = 0, other = 0;
  int n_adjacent = 0, n_other = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (t.LinkIndex(pairs[k].first, pairs[k].second) >= 0) {
      adjacent += d[k];
      ++n_adjacent;
    } else {
      other += d[k];
      ++n_other;
    }
  }
  EXPECT_GT(adjacent / n_adjacent, 2.5 * other / n_other);
}

TEST(TrafficGenerators, HeavyTailPutsTheShareOnTheTopTenPercent) {
  const Topology t = B4();
  TrafficSpec spec = Spec(TrafficModel::kGravity);
  spec.heavy_tail = 0.884;
  const auto pairs = GeneratedPairs(t, spec);
  const std::vector<double> d = GenerateTraffic(t, spec, pairs, 0);
  EXPECT_NEAR(TopShare(d, 0.1), 0.884, 1e-9);
  spec.pair_fraction = 0.5;
  const auto half = GeneratedPairs(t, spec);
  EXPECT_GT(half.size(), 40u);
  EXPECT_LT(half.size(), 92u);
}

// ---- plugin settings ---------------------------------------------------------------------

ConfigNode GeneratedB4(const std::string& objective,
                       const std::vector<std::pair<std::string, std::string>>& traffic) {
  ConfigNode node =
      Map("plugin.settings",
          {{"topology", "B4.json"}, {"paths", "B4-paths.csv"}, {"objective", objective}});
  node.Insert("traffic", Map("plugin.settings.traffic", traffic));
  return node;
}

ConfigNode LinkEvents(const std::vector<std::vector<std::string>>& events) {
  ConfigNode list = ConfigNode::List("te_test.yaml", 9, 3, "plugin.settings.link_events");
  for (const auto& e : events) {
    list.Append(
        Map("plugin.settings.link_events", {{"round", e[0]}, {"link", e[1]}, {"action", e[2]}}));
  }
  return list;
}

TEST(TrafficSettings, ErrorsNameFileKeyAndValue) {
  struct Case {
    ConfigNode settings;
    std::vector<std::string> expected;
  };
  std::vector<Case> cases;
  cases.push_back({GeneratedB4("max_total_flow", {{"model", "lognormal"}}),
                   {"te_test.yaml", "traffic.model", "lognormal"}});
  cases.push_back({GeneratedB4("max_total_flow", {{"rounds", "-2"}}),
                   {"te_test.yaml", "traffic.rounds", "-2"}});
  cases.push_back({GeneratedB4("max_total_flow", {{"heavy_tail", "0.05"}}),
                   {"te_test.yaml", "traffic.heavy_tail", "0.05"}});
  cases.push_back({GeneratedB4("max_total_flow", {{"modle", "gravity"}}), {"modle"}});
  {
    ConfigNode both = GeneratedB4("max_total_flow", {});
    both.Insert("traffic_matrices", List("plugin.settings.traffic_matrices", {"x.csv"}));
    cases.push_back({both, {"te_test.yaml", "exactly one of 'traffic_matrices'"}});
  }
  {
    ConfigNode bad = GeneratedB4("max_total_flow", {});
    bad.Insert("link_events", LinkEvents({{"1", "0->1", "explode"}}));
    cases.push_back({bad, {"te_test.yaml", "action", "explode"}});
  }
  {
    ConfigNode bad = GeneratedB4("max_total_flow", {});
    bad.Insert("robustness",
               Map("plugin.settings.robustness", {{"spatial_redistribution", "1.5"}}));
    cases.push_back({bad, {"te_test.yaml", "robustness.spatial_redistribution", "1.5"}});
  }
  for (const Case& c : cases) {
    TrafficEngineeringPlugin plugin;
    const Status status =
        ::dede::internal::ConfigureWithSettings(&plugin, c.settings, ContextIn(kDataDir));
    ASSERT_FALSE(status.ok());
    for (const std::string& e : c.expected) {
      EXPECT_NE(status.message().find(e), std::string::npos) << status.message() << " / " << e;
    }
  }
  // An unknown link is found in Describe (it needs the topology): file, key, value, topology.
  ConfigNode node = GeneratedB4("max_total_flow", {});
  node.Insert("link_events", LinkEvents({{"1", "3->99", "fail"}}));
  TrafficEngineeringPlugin plugin;
  ASSERT_TRUE(::dede::internal::ConfigureWithSettings(&plugin, node, ContextIn(kDataDir)).ok());
  Problem problem(0, 0);
  const Status status = plugin.Describe(&problem);
  ASSERT_FALSE(status.ok());
  for (const std::string e : {"te_test.yaml", "link_events[0].link = '3->99'", "B4.json"}) {
    EXPECT_NE(status.message().find(e), std::string::npos) << status.message();
  }
}

TEST(TrafficSettings, GeneratedTrafficRunsForItsRoundsWithScaleAndRobustness) {
  ConfigNode node =
      GeneratedB4("max_total_flow", {{"model", "bimodal"}, {"rounds", "4"}, {"seed", "5"}});
  node.Insert("scale", Scalar("plugin.settings.scale", "2"));
  node.Insert("robustness",
              Map("plugin.settings.robustness",
                  {{"temporal_fluctuation", "5"}, {"spatial_redistribution", "0.6"}}));
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(node, ContextIn(kDataDir), &plugin, &problem, 2);
  EXPECT_EQ(plugin.num_rounds(), 4);
  EXPECT_EQ(plugin.num_pairs(), 132);
  std::vector<double> d;
  for (const DemandEntry& e : plugin.Demands()) d.push_back(e.demand);
  EXPECT_NEAR(TopShare(d, 0.1), 0.6, 1e-9);
  EXPECT_GT(plugin.TotalDemand(), 0.0);
  bool finished = false;
  ASSERT_TRUE(plugin.Refresh(3, &problem, &finished).ok());
  EXPECT_FALSE(finished);
  ASSERT_TRUE(plugin.Refresh(4, &problem, &finished).ok());
  EXPECT_TRUE(finished);
}

// B4 link 0 (nodes 0 -> 1) fails in round 1 and recovers in round 2: no flow on it in round 1
// (exact and ADMM, after repair), capacities everywhere within 1e-6, flows back in round 2.
void CheckFailure(const std::string& objective) {
  ConfigNode node = Map("plugin.settings",
                        {{"topology", "B4.json"},
                         {"paths", "B4-paths.csv"},
                         {"objective", objective},
                         {"scale", "2"}});
  node.Insert("traffic_matrices",
              List("plugin.settings.traffic_matrices",
                   {"matrices/B4_real_0_1.0.csv",
                    "matrices/B4_real_1_1.0.csv",
                    "matrices/B4_real_2_1.0.csv"}));
  node.Insert("link_events", LinkEvents({{"1", "0->1", "fail"}, {"2", "0", "recover"}}));
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(node, ContextIn(kDataDir), &plugin, &problem, 0);
  ASSERT_EQ(plugin.topology().links[0].src, 0);
  ASSERT_EQ(plugin.topology().links[0].dst, 1);
  AdmmSolver solver(problem, AdmmOptions{});
  for (int round = 0; round < 3; ++round) {
    bool finished = true;
    ASSERT_TRUE(plugin.Refresh(round, &problem, &finished).ok());
    EXPECT_EQ(plugin.capacity()[0], round == 1 ? 0.0 : 5000.0);
    Allocation exact, admm;
    SolveSummary exact_summary, summary;
    SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
    ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.message;
    solver.Solve(&admm, &summary);
    ASSERT_TRUE(plugin.Repair(problem, &admm).ok());
    for (const Allocation* a : {&exact, &admm}) {
      const std::vector<double> load = plugin.LinkLoads(*a);
      if (round == 1) {
        EXPECT_LE(load[0], 1e-9) << objective;
      } else {
        EXPECT_GT(load[0], 0.01) << objective << " round " << round;
      }
      EXPECT_LE(problem.MeasureViolation(a->values).Max(), 1e-6) << objective << " " << round;
    }
    const double e =
        objective == "max_total_flow" ? plugin.TotalFlow(exact) : plugin.MaxLinkUtilization(exact);
    const double d =
        objective == "max_total_flow" ? plugin.TotalFlow(admm) : plugin.MaxLinkUtilization(admm);
    if (objective == "max_total_flow") {
      EXPECT_GE(d, 0.995 * e) << round;
    } else {
      EXPECT_LE(d, 1.01 * e) << round;
    }
  }
}

TEST(TrafficLinkEvents, FailedLinkCarriesNoFlowAndRecoversForMaxTotalFlow) {
  CheckFailure("max_total_flow");
}

TEST(TrafficLinkEvents, FailedLinkCarriesNoFlowAndRecoversForMinMaxUtilization) {
  CheckFailure("min_max_utilization");
}

// The path cache: the first Describe computes B4's paths and writes them under the topology's
// hash; a second one (a restart) reads all 132 pairs back, and they are the shipped path file's.
TEST(TrafficEngineeringPathCache, ARestartReadsThePathsBackAndTheyMatchTheShippedFile) {
  testing::ScratchDir dir("path_cache");
  auto settings = [&] {
    ConfigNode node =
        Map("plugin.settings",
            {{"topology", kDataDir + "/B4.json"}, {"path_cache", dir.path() + "/cache"}});
    node.Insert(
        "traffic_matrices",
        List("plugin.settings.traffic_matrices", {kDataDir + "/matrices/B4_real_0_1.0.csv"}));
    return node;
  };
  Problem first_problem(0, 0), second_problem(0, 0);
  TrafficEngineeringPlugin first, second;
  Build(settings(), ContextIn(dir.path()), &first, &first_problem);
  EXPECT_EQ(first.paths_computed(), 132);
  EXPECT_EQ(first.paths_from_cache(), 0);
  ASSERT_FALSE(first.path_cache_file().empty());
  EXPECT_NE(first.path_cache_file().find("-k4-min-hop.csv"), std::string::npos);
  Build(settings(), ContextIn(dir.path()), &second, &second_problem);
  EXPECT_EQ(second.paths_computed(), 0);
  EXPECT_EQ(second.paths_from_cache(), 132);
  EXPECT_EQ(second.path_cache_file(), first.path_cache_file());
  EXPECT_EQ(second_problem.num_variables(), first_problem.num_variables());

  const Topology t = B4();
  Result<std::vector<PairPaths>> cached = LoadPaths(first.path_cache_file(), t);
  Result<std::vector<PairPaths>> shipped = LoadPaths(kDataDir + "/B4-paths.csv", t);
  ASSERT_TRUE(cached.ok()) << cached.status().message();
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  ASSERT_EQ(cached.value().size(), shipped.value().size());
  for (std::size_t i = 0; i < cached.value().size(); ++i) {
    const PairPaths& a = cached.value()[i];
    const PairPaths& b = shipped.value()[i];
    ASSERT_EQ(a.paths.size(), b.paths.size());
    for (std::size_t j = 0; j < a.paths.size(); ++j) {
      EXPECT_EQ(a.paths[j].links, b.paths[j].links);
    }
  }
  // Another topology hashes differently.
  Topology other = t;
  std::swap(other.links[0], other.links[1]);
  EXPECT_NE(TopologyHash(other), TopologyHash(t));
}

// Round 0 reports the path set once (kind "path"), every round the link states and path flows.
TEST(TrafficEngineeringRecords, RoundZeroListsThePathsAndEveryRoundTheLinks) {
  ConfigNode node = Map("plugin.settings", {{"topology", "B4.json"}, {"paths", "B4-paths.csv"}});
  node.Insert("traffic_matrices",
              List("plugin.settings.traffic_matrices",
                   {"matrices/B4_real_0_1.0.csv", "matrices/B4_real_1_1.0.csv"}));
  TrafficEngineeringPlugin plugin;
  Problem problem(0, 0);
  Build(node, ContextIn(kDataDir), &plugin, &problem);
  for (int round = 0; round < 2; ++round) {
    bool finished = true;
    ASSERT_TRUE(plugin.Refresh(round, &problem, &finished).ok());
    Allocation a;
    a.values.assign(problem.num_variables(), 0.0);
    RoundReport report;
    ASSERT_TRUE(plugin.Report(round, problem, a, &report).ok());
    std::map<std::string, int> kinds;
    for (const DomainRecord& r : report.records) ++kinds[r.kind];
    EXPECT_EQ(kinds["link"], 38);
    EXPECT_EQ(kinds["path_flow"], 310);
    EXPECT_EQ(kinds["path"], round == 0 ? 310 : 0);
  }
}

}  // namespace
}  // namespace dede::te
