// load_balancing: loader errors, and a small instance solved with ADMM and with Cbc.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dede/solver.h"
#include "lb_model.h"

namespace dede::lb {
namespace {

const std::string kData = std::string(DEDE_TEST_DATA_DIR) + "/lb";

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / ("lb_test_" + name + ".csv")).string();
  std::ofstream(path) << text;
  return path;
}

void ExpectError(const std::string& name, const std::string& text, const std::vector<std::string>& parts) {
  const std::string path = WriteTemp(name, text);
  std::vector<std::vector<double>> loads;
  const Status status = LoadShardLoads(path, &loads);
  std::filesystem::remove(path);
  ASSERT_FALSE(status.ok()) << name;
  for (const std::string& part : parts) EXPECT_NE(status.message().find(part), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
}

TEST(LoadBalancingLoader, ReadsExampleData) {
  std::vector<std::vector<double>> loads;
  ASSERT_TRUE(LoadShardLoads(kData + "/shard_loads_256.csv", &loads).ok());
  ASSERT_EQ(loads.size(), 100u);
  ASSERT_EQ(loads[0].size(), 256u);
  EXPECT_DOUBLE_EQ(loads[0][0], 100.0);
  EXPECT_DOUBLE_EQ(loads[0][1], 37.2379);
}

TEST(LoadBalancingLoader, ErrorsNameFileLineAndField) {
  ExpectError("header", "round,shard,weight\n0,0,1\n", {":1:", "header"});
  ExpectError("fields", "round,shard,load\n0,0,1\n0,1\n", {":3:", "3 fields"});
  ExpectError("round", "round,shard,load\nx,0,1\n", {":2:", "'round'", "'x'"});
  ExpectError("shard", "round,shard,load\n0,-1,1\n", {":2:", "'shard'"});
  ExpectError("load", "round,shard,load\n0,0,abc\n", {":2:", "'load'", "not a number"});
  ExpectError("negative", "round,shard,load\n0,0,-2\n", {":2:", "'load'", ">= 0"});
  ExpectError("dup", "round,shard,load\n0,0,1\n0,0,2\n", {":3:", "duplicate"});
  ExpectError("dense", "round,shard,load\n0,0,1\n0,1,2\n1,0,1\n", {"missing row for round 1, shard 1"});
  std::vector<std::vector<double>> loads;
  EXPECT_FALSE(LoadShardLoads("/nonexistent/lb.csv", &loads).ok());
}

TEST(LoadBalancingModel, SmallInstanceAdmmVersusExact) {
  std::vector<std::vector<double>> loads;
  ASSERT_TRUE(LoadShardLoads(kData + "/shard_loads_256.csv", &loads).ok());
  loads.resize(3);
  LbOptions options;
  options.servers = 8;
  options.shards = 32;
  options.memory_limit = 8;
  options.candidates = 3;
  Problem problem(1, 1);
  LbModel model;
  ASSERT_TRUE(model.Build(options, loads, &problem).ok());
  std::string error;
  ASSERT_TRUE(problem.Validate(&error)) << error;
  ASSERT_TRUE(model.SetRound(1, &problem).ok());

  AdmmOptions admm;
  admm.num_threads = 2;
  admm.time_limit_seconds = 5;
  admm.integer_iterations = 100;
  admm.max_iterations = 2000;
  AdmmSolver solver(problem, admm);
  ASSERT_TRUE(solver.setup_error().empty()) << solver.setup_error();
  Allocation allocation;
  SolveSummary summary;
  const auto t0 = std::chrono::steady_clock::now();
  solver.Solve(&allocation, &summary);
  const double admm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(allocation.values.size(), static_cast<std::size_t>(problem.num_variables()));
  const LbModel::RoundMetrics raw = model.Evaluate(problem, allocation);
  const bool repaired = model.Repair(problem, &allocation);
  const LbModel::RoundMetrics m = model.Evaluate(problem, allocation);
  EXPECT_TRUE(repaired);
  EXPECT_TRUE(m.feasible) << "max " << m.max_load << " min " << m.min_load << " band [" << m.low
                          << ", " << m.high << "]";
  EXPECT_LE(problem.MeasureViolation(allocation.values).integrality, 1e-9);

  ExactOptions exact_options;
  exact_options.time_limit_seconds = 10;
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, exact_options, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.feasible) << exact_summary.message;
  const LbModel::RoundMetrics e = model.Evaluate(problem, exact);
  EXPECT_TRUE(e.feasible);
  std::printf("8x32 round 1: ADMM %s; raw feasible %d movements %.0f; after repair movements %.0f "
              "(%.2f s) | exact %s movements %.0f (%.2f s)\n",
              summary.BriefReport().c_str(), raw.feasible ? 1 : 0, raw.movements, m.movements,
              admm_s, exact_summary.method.c_str(), e.movements, exact_summary.total_seconds);
  EXPECT_GE(m.movements, e.movements - 1e-6);
}

}  // namespace
}  // namespace dede::lb
