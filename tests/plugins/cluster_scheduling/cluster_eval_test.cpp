// dede_eval's cluster scheduling part (tools/eval/eval_cluster_scheduling.cpp) on the shipped
// trace: every method and objective gives a row per round, exact is the reference, baselines
// are feasible and never above it, DeDe's max-min is within 1% of it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "eval.h"

namespace dede::eval {
namespace {

TEST(ClusterEval, SmallRunsEveryMethodOnTheSameRounds) {
  EvalOptions options;
  options.size = "small";
  options.rounds = 2;
  options.threads = {1};
  options.repo_dir = DEDE_SOURCE_DIR;
  std::vector<EvalRow> rows;
  const Status status = RunClusterScheduling(options, [&](const EvalRow& r) { rows.push_back(r); });
  ASSERT_TRUE(status.ok()) << status.message();
  // 2 objectives x 2 rounds x (dede, exact, pop-4, pop-16, pop-64, gandiva).
  ASSERT_EQ(rows.size(), 24u);
  std::map<std::string, int> per_method;
  for (const EvalRow& r : rows) {
    ++per_method[r.method];
    EXPECT_EQ(r.domain, "cluster_scheduling");
    EXPECT_EQ(r.instance, "trace/seed0");
    EXPECT_TRUE(r.feasible) << r.method << " " << r.objective << " round " << r.round << ": "
                            << r.note;
    EXPECT_EQ(r.reference, "exact");
    EXPECT_GE(r.seconds, 0.0);
    ASSERT_FALSE(std::isnan(r.quality)) << r.method << " " << r.note;
    if (r.method == "exact") {
      EXPECT_NEAR(r.quality, 1.0, 1e-12);
    }
    if (r.method != "dede") {
      EXPECT_LE(r.quality, 1.0 + 1e-6) << r.method << " " << r.objective;
    }
    if (r.method == "dede") {
      EXPECT_GE(r.quality, 0.99) << r.objective << " round " << r.round << ": " << r.note;
      EXPECT_LE(r.quality, 1.0 + 1e-4);
    }
  }
  for (const char* m : {"dede", "exact", "pop-4", "pop-16", "pop-64", "gandiva"})
    EXPECT_EQ(per_method[m], 4) << m;
}

// DeDe on the sparse problem (4 of the trace's 10 types per job): its allocation is mapped onto
// the full problem, where it must be feasible and cannot beat the full exact optimum.
TEST(ClusterEval, SparseDedeRowsAreFullProblemAllocations) {
  EvalOptions options;
  options.size = "small";
  options.rounds = 1;
  options.threads = {1};
  options.methods = {"dede", "exact"};
  options.repo_dir = DEDE_SOURCE_DIR;
  ::setenv("DEDE_EVAL_CLUSTER_MAX_TYPES", "4", 1);
  std::vector<EvalRow> rows;
  const Status status = RunClusterScheduling(options, [&](const EvalRow& r) { rows.push_back(r); });
  ::unsetenv("DEDE_EVAL_CLUSTER_MAX_TYPES");
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(rows.size(), 4u);  // 2 objectives x (dede, exact)
  for (const EvalRow& r : rows) {
    EXPECT_TRUE(r.feasible) << r.method << " " << r.objective << ": " << r.note;
    if (r.method != "dede") continue;
    EXPECT_NE(r.note.find("sparse problem: 4 types per job"), std::string::npos) << r.note;
    ASSERT_FALSE(std::isnan(r.quality)) << r.note;
    EXPECT_LE(r.quality, 1.0 + 1e-4) << r.objective << ": " << r.note;
    EXPECT_GE(r.quality, 0.5) << r.objective << ": " << r.note;
    std::printf(
        "%s sparse dede quality %.6f (%s)\n", r.objective.c_str(), r.quality, r.note.c_str());
  }
}

TEST(ClusterEval, UnknownSizeOrMethodIsAnError) {
  EvalOptions options;
  options.repo_dir = DEDE_SOURCE_DIR;
  options.size = "huge";
  EXPECT_FALSE(RunClusterScheduling(options, [](const EvalRow&) {}).ok());
  options.size = "small";
  options.methods = {"pop-5"};
  const Status status = RunClusterScheduling(options, [](const EvalRow&) {});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("pop-5"), std::string::npos);
}

}  // namespace
}  // namespace dede::eval

namespace dede::eval {
namespace {

// Manual runs until the dede_eval driver lands: prints the rows as CSV.
//   DEDE_EVAL_SIZE=paper DEDE_EVAL_ROUNDS=2 DEDE_EVAL_THREADS=1,2 DEDE_EVAL_METHODS=dede,exact
//     cluster_eval_test --gtest_also_run_disabled_tests --gtest_filter=*PrintRows
TEST(ClusterEval, DISABLED_PrintRows) {
  EvalOptions options;
  options.repo_dir = DEDE_SOURCE_DIR;
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v == nullptr ? "" : v;
  };
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::string item;
    for (char c : s + ",") {
      if (c == ',') {
        if (!item.empty()) out.push_back(item);
        item.clear();
      } else {
        item += c;
      }
    }
    return out;
  };
  if (!env("DEDE_EVAL_SIZE").empty()) options.size = env("DEDE_EVAL_SIZE");
  if (!env("DEDE_EVAL_ROUNDS").empty()) options.rounds = std::stoi(env("DEDE_EVAL_ROUNDS"));
  if (!env("DEDE_EVAL_THREADS").empty()) {
    options.threads.clear();
    for (const std::string& t : split(env("DEDE_EVAL_THREADS")))
      options.threads.push_back(std::stoi(t));
  }
  options.methods = split(env("DEDE_EVAL_METHODS"));
  std::printf(
      "objective,method,instance,round,threads,value,quality,reference,seconds,feasible,note\n");
  const Status status = RunClusterScheduling(options, [](const EvalRow& r) {
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
