// dede_eval's traffic-engineering part (tools/eval/eval_traffic_engineering.cpp) at size
// "small": every method, round and objective gives a row, feasible, no better than exact.
// The DISABLED_ test is the measurement tool for the larger sizes (see te_benchmarks notes):
//   TE_EVAL_SIZE=medium DEDE_SHARED_DATA=<shared/data> te_eval_test
//     --gtest_also_run_disabled_tests --gtest_filter=*Measure*
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "eval.h"

namespace dede::eval {
namespace {

TEST(TrafficEngineeringEval, SmallGivesAFeasibleRowPerMethodRoundAndObjective) {
  EvalOptions options;
  options.size = "small";
  options.threads = {1, 2};
  options.repo_dir = DEDE_SOURCE_DIR;
  std::vector<EvalRow> rows;
  const Status status =
      RunTrafficEngineering(options, [&](const EvalRow& r) { rows.push_back(r); });
  ASSERT_TRUE(status.ok()) << status.message();
  // 2 objectives x 3 rounds x (exact + dede x 2 thread counts + 3 POP + pinning), and
  // flow deviation for min max utilisation.
  ASSERT_EQ(rows.size(), 2u * 3u * 7u + 3u);
  std::map<std::string, int> per_method;
  for (const EvalRow& r : rows) {
    std::printf("%-8s %-15s %-14s r%d t%d value %-12.6g quality %-8.5f %.3f s %s\n",
                r.objective.c_str(),
                r.method.c_str(),
                r.instance.c_str(),
                r.round,
                r.threads,
                r.value,
                r.quality,
                r.seconds,
                r.note.c_str());
    ++per_method[r.method];
    EXPECT_EQ(r.domain, "traffic_engineering");
    EXPECT_TRUE(r.feasible) << r.method << " " << r.instance;
    EXPECT_EQ(r.reference, "exact");
    EXPECT_LE(r.quality, 1 + 1e-6) << r.method << " " << r.instance;
    EXPECT_GT(r.quality, 0.0) << r.method << " " << r.instance;
    EXPECT_GE(r.seconds, 0.0);
    if (r.method == "exact") {
      EXPECT_NEAR(r.quality, 1.0, 1e-9);
    }
    if (r.method == "dede") {
      EXPECT_GE(r.quality, r.objective == "max_flow" ? 0.995 : 0.99) << r.instance;
    }
  }
  EXPECT_EQ(per_method["dede"], 12);
  EXPECT_EQ(per_method["pop-64"], 6);
  EXPECT_EQ(per_method["demand_pinning"], 6);
  EXPECT_EQ(per_method["flow_deviation"], 3);
}

TEST(TrafficEngineeringEval, NamesTheMissingTopologyForTheLargerSizes) {
  EvalOptions options;
  options.size = "medium";
  options.shared_dir = "/nonexistent";
  const Status status = RunTrafficEngineering(options, [](const EvalRow&) {});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(
      status.message().find("/nonexistent/dede-examples/traffic_engineering/topologies/Kdl.json"),
      std::string::npos)
      << status.message();
}

// Measurement tool, not a test: prints CSV rows for TE_EVAL_SIZE (medium, paper).
TEST(TrafficEngineeringEval, DISABLED_Measure) {
  EvalOptions options;
  options.size = std::getenv("TE_EVAL_SIZE") ? std::getenv("TE_EVAL_SIZE") : "medium";
  options.repo_dir = DEDE_SOURCE_DIR;
  options.shared_dir = std::getenv("DEDE_SHARED_DATA")
                           ? std::getenv("DEDE_SHARED_DATA")
                           : std::string(DEDE_SOURCE_DIR) + "/../shared/data";
  if (const char* t = std::getenv("TE_EVAL_EXACT_SECONDS")) options.exact_time_limit = std::atof(t);
  if (const char* t = std::getenv("TE_EVAL_THREADS")) options.threads = {std::atoi(t)};
  if (const char* m = std::getenv("TE_EVAL_METHODS")) {
    std::string s = m;
    for (std::size_t start = 0; start <= s.size();) {
      const std::size_t comma = s.find(',', start);
      const std::string item = s.substr(start, comma == std::string::npos ? s.npos : comma - start);
      if (!item.empty()) options.methods.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  std::printf(
      "objective,method,instance,round,threads,value,quality,reference,seconds,feasible,note\n");
  const Status status = RunTrafficEngineering(options, [](const EvalRow& r) {
    std::printf("%s,%s,%s,%d,%d,%.8g,%.6f,%s,%.3f,%d,\"%s\"\n",
                r.objective.c_str(),
                r.method.c_str(),
                r.instance.c_str(),
                r.round,
                r.threads,
                r.value,
                r.quality,
                r.reference.c_str(),
                r.seconds,
                r.feasible ? 1 : 0,
                r.note.c_str());
    std::fflush(stdout);
  });
  EXPECT_TRUE(status.ok()) << status.message();
}

}  // namespace
}  // namespace dede::eval
