// cluster_scheduling: loaders (good data and error messages), the generator, and the model
// solved with ADMM against the exact LP on small instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cluster_data.h"
#include "cluster_model.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"

namespace dede::cluster {
namespace {

const std::string kData = std::string(DEDE_TEST_DATA_DIR) + "/cluster";

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() /
             ("cs_test_" + std::to_string(counter_++) + "_" +
              std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".csv"))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

void ExpectError(const Status& status, const std::vector<std::string>& parts) {
  ASSERT_FALSE(status.ok());
  for (const std::string& p : parts)
    EXPECT_NE(status.message().find(p), std::string::npos) << status.message() << " lacks " << p;
}

TEST(ClusterData, LoadsShippedFiles) {
  auto types = LoadClusterSpec(kData + "/cluster_spec.csv");
  ASSERT_TRUE(types.ok()) << types.status().message();
  ASSERT_EQ(types->size(), 10u);
  int total = 0;
  for (const WorkerType& t : types.value()) total += t.count;
  EXPECT_EQ(total, 352);
  EXPECT_EQ(types.value()[4].name, "worker_4");
  auto table = LoadThroughputs(kData + "/throughputs_subset.csv");
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->num_worker_types, 10);
  auto jobs = LoadJobTrace(kData + "/job_trace_seed0.csv");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 233u);
  EXPECT_TRUE(jobs.value()[0].steady_state);
  EXPECT_EQ(jobs.value()[0].job_type, 231);
  EXPECT_EQ(jobs.value()[0].scale_factor, 2);
  EXPECT_FALSE(jobs.value()[232].steady_state);
  auto instance = MakeInstance(types.value(), table.value(), jobs.value(), "trace");
  ASSERT_TRUE(instance.ok()) << instance.status().message();
  for (const auto& allowed : instance->throughput) {
    EXPECT_FALSE(allowed.empty());
    for (const auto& [r, t] : allowed) EXPECT_GT(t, 0.0);
  }
}

// Spreadsheet exports: a byte-order mark, CRLF line ends, quoted fields, blank lines.
TEST(ClusterData, ReadsSpreadsheetExports) {
  TempFile f(
      "\xEF\xBB\xBFworker_type_index,worker_type,num_gpus\r\n0,\"v100, 32 GB\",8\r\n\r\n"
      "1,k80,+4\r\n");
  auto types = LoadClusterSpec(f.path());
  ASSERT_TRUE(types.ok()) << types.status().message();
  ASSERT_EQ(types->size(), 2u);
  EXPECT_EQ(types.value()[0].name, "v100, 32 GB");
  EXPECT_EQ(types.value()[1].count, 4);
}

TEST(ClusterData, ErrorsNameFileLineAndField) {
  ExpectError(LoadThroughputs("/nonexistent/t.csv").status(),
              {"/nonexistent/t.csv", "cannot open"});
  {
    TempFile f("worker,job_type,scale_factor,throughput\n");
    ExpectError(LoadThroughputs(f.path()).status(), {f.path() + ":1", "header"});
  }
  {
    TempFile f("worker_type,job_type,scale_factor,throughput\n0,1,2,3.5\n0,1,3,1.0\n");
    ExpectError(LoadThroughputs(f.path()).status(),
                {f.path() + ":3", "scale_factor", "'3'", "power of two"});
  }
  {
    TempFile f("worker_type,job_type,scale_factor,throughput\n0,1,2,abc\n");
    ExpectError(LoadThroughputs(f.path()).status(), {f.path() + ":2", "throughput", "abc"});
  }
  {
    TempFile f("worker_type,job_type,scale_factor,throughput\n0,1,2,-1\n");
    ExpectError(LoadThroughputs(f.path()).status(), {f.path() + ":2", "throughput", ">= 0"});
  }
  {
    // Ids far apart ask for a dense table of 10^14 cells: an error naming the row, not a
    // std::bad_alloc.
    TempFile f("worker_type,job_type,scale_factor,throughput\n0,0,1,1.0\n1000000,16000000,1,2.0\n");
    ExpectError(LoadThroughputs(f.path()).status(),
                {f.path() + ":3", "worker_type", "'1000000'", "indices 0..n-1"});
  }
  {
    // Within the cap but almost all empty (found by fuzz_cluster_data: 32 M cells for 4 rows,
    // 256 MB filled): ids, not indices.
    TempFile f(
        "worker_type,job_type,scale_factor,throughput\n0,6,1,0.29\n1,313,4,0.0\n"
        "5,443,2,0.1\n60,87487,16,8.8\n");
    ExpectError(LoadThroughputs(f.path()).status(),
                {f.path(), "4 rows", "job types up to 87487", "indices 0..n-1, not ids"});
  }
  {
    TempFile f("worker_type,job_type,scale_factor,throughput\n0,1,2,3.5\n1,1,2,1.0\n0,1,2,4.0\n");
    ExpectError(LoadThroughputs(f.path()).status(),
                {f.path() + ":4",
                 "a second throughput",
                 "worker type 0, job type 1, scale factor 2",
                 "line 2"});
  }
  {
    TempFile f("worker_type,job_type,scale_factor,throughput\n0,1,2\n");
    ExpectError(LoadThroughputs(f.path()).status(), {f.path() + ":2: 3 fields, expected 4"});
  }
  {
    TempFile f("worker_type_index,worker_type,num_gpus\n0,a,8\n2,b,8\n");
    ExpectError(LoadClusterSpec(f.path()).status(), {f.path() + ":3", "worker_type_index", "'2'"});
  }
  {
    TempFile f("worker_type_index,worker_type,num_gpus\n0,a,0\n");
    ExpectError(LoadClusterSpec(f.path()).status(), {f.path() + ":2", "num_gpus", "'0'"});
  }
  const std::string header =
      "job_id,kind,arrival_time_s,job_type,scale_factor,duration_s,total_steps,priority_weight\n";
  {
    TempFile f(header + "0,steady_state,0,1,2,10,100,1\n1,departure,5,1,2,10,100,1\n");
    ExpectError(LoadJobTrace(f.path()).status(), {f.path() + ":3", "kind", "departure"});
  }
  {
    TempFile f(header + "0,arrival,10,1,2,10,100,1\n1,arrival,5,1,2,10,100,1\n");
    ExpectError(LoadJobTrace(f.path()).status(),
                {f.path() + ":3", "arrival_time_s", "non-decreasing"});
  }
  {
    TempFile f(header + "0,arrival,0,1,2,10,100,0\n");
    ExpectError(LoadJobTrace(f.path()).status(), {f.path() + ":2", "priority_weight", "> 0"});
  }
  {
    TempFile f(header + "0,arrival,0,1,2,10,1e999,1\n");
    ExpectError(LoadJobTrace(f.path()).status(), {f.path() + ":2", "total_steps", "finite"});
  }
  // A job whose type is missing from the table, and one allowed nowhere.
  auto types = LoadClusterSpec(kData + "/cluster_spec.csv");
  ASSERT_TRUE(types.ok());
  ThroughputTable table;
  table.num_worker_types = 10;
  table.num_job_types = 2;
  table.values.assign(10 * 2 * kNumScaleFactors, 0.0);
  Job job;
  job.job_type = 5;
  ExpectError(MakeInstance(types.value(), table, {job}, "t.csv").status(), {"t.csv", "job_type 5"});
  job.job_type = 1;
  ExpectError(MakeInstance(types.value(), table, {job}, "t.csv").status(),
              {"t.csv", "no worker type"});
}

TEST(ClusterData, GeneratorIsSeededAndHasThePaperShape) {
  GeneratorOptions options;
  options.num_types = 456;
  options.num_jobs = 2000;
  options.seed = 7;
  const Instance a = GenerateInstance(options);
  const Instance b = GenerateInstance(options);
  ASSERT_EQ(a.types.size(), 456u);
  ASSERT_EQ(a.jobs.size(), 2000u);
  int instances = 0;
  for (const WorkerType& t : a.types) {
    EXPECT_EQ(t.count % 8, 0);
    EXPECT_GE(t.count, 8);
    instances += t.count;
  }
  EXPECT_GT(instances, 14000);
  EXPECT_LT(instances, 19000);
  int restricted = 0;
  for (std::size_t j = 0; j < a.jobs.size(); ++j) {
    restricted += a.throughput[j].size() < a.types.size();
    EXPECT_EQ(a.jobs[j].total_steps, b.jobs[j].total_steps);
    EXPECT_GE(a.jobs[j].weight, 1.0);
    EXPECT_LE(a.jobs[j].weight, 10.0);
  }
  EXPECT_NEAR(restricted / 2000.0, 1.0 / 3.0, 0.05);
  options.seed = 8;
  EXPECT_NE(GenerateInstance(options).jobs[0].total_steps, a.jobs[0].total_steps);
}

Instance TraceInstance() {
  auto types = LoadClusterSpec(kData + "/cluster_spec.csv");
  auto table = LoadThroughputs(kData + "/throughputs_subset.csv");
  auto jobs = LoadJobTrace(kData + "/job_trace_seed0.csv");
  EXPECT_TRUE(types.ok() && table.ok() && jobs.ok());
  auto instance = MakeInstance(types.value(), table.value(), jobs.value(), "trace");
  EXPECT_TRUE(instance.ok());
  return instance.value();
}

// The trace's first round: 34 active jobs (33 steady state + the arrival at t = 0) among 233
// slots.
std::vector<char> FirstRound(const Instance& instance) {
  std::vector<char> active(instance.jobs.size(), 0);
  for (std::size_t j = 0; j < instance.jobs.size(); ++j)
    active[j] = instance.jobs[j].arrival_s <= 0;
  return active;
}

struct Comparison {
  double admm = 0, exact = 0, admm_seconds = 0, exact_seconds = 0, violation = 1;
  bool usable = false;
};

Comparison Compare(const Instance& instance,
                   Fairness fairness,
                   const std::vector<char>& active,
                   double rho) {
  Problem problem(0, 0);
  ClusterModel model;
  model.Describe(instance, fairness, &problem);
  model.SetActive(active, &problem);
  std::string error;
  EXPECT_TRUE(problem.Validate(&error)) << error;
  Comparison c;
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  EXPECT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.BriefReport();
  c.exact = model.Value(exact, active);
  c.exact_seconds = exact_summary.total_seconds;
  AdmmOptions options;
  options.rho = rho;
  options.eps_abs = 1e-6;
  options.eps_rel = 1e-5;
  options.max_iterations = 20000;
  AdmmSolver solver(problem, options);
  Allocation admm;
  SolveSummary summary;
  solver.Solve(&admm, &summary);
  c.usable = summary.IsSolutionUsable();
  EXPECT_TRUE(c.usable) << summary.BriefReport() << ": " << summary.message;
  if (admm.values.size() != static_cast<std::size_t>(problem.num_variables())) {
    ADD_FAILURE() << "no allocation";
    return c;
  }
  c.admm = model.Value(admm, active);
  c.admm_seconds = summary.total_seconds;
  c.violation = problem.MeasureViolation(admm.values).Max();
  // Restrictions are structural: entries exist only where the throughput is positive.
  for (VarId v = 0; v < problem.num_variables(); ++v) {
    const Variable& var = problem.variable(v);
    if (var.IsEntry() && !active[var.demand]) {
      EXPECT_LE(std::abs(admm[v]), 1e-6);
    }
  }
  std::printf("%s: admm %.6f (%.3f s, %d it) exact %.6f (%.3f s) violation %.2e\n",
              fairness == Fairness::kMaxMin ? "max-min" : "proportional",
              c.admm,
              c.admm_seconds,
              summary.iterations,
              c.exact,
              c.exact_seconds,
              c.violation);
  return c;
}

TEST(ClusterModel, MaxMinAdmmWithinOnePercentOfExactOnTheTrace) {
  const Instance instance = TraceInstance();
  const Comparison c = Compare(instance, Fairness::kMaxMin, FirstRound(instance), 1.0);
  EXPECT_GT(c.exact, 0.0);
  EXPECT_GE(c.admm, 0.99 * c.exact);
  EXPECT_LE(c.admm, c.exact * (1 + 1e-6) + 1e-9);
  EXPECT_LE(c.violation, 1e-6);
}

TEST(ClusterModel, MaxMinAdmmWithinOnePercentOfExactOnAGeneratedInstance) {
  GeneratorOptions options;
  options.num_types = 24;
  options.num_jobs = 120;
  options.seed = 3;
  const Instance instance = GenerateInstance(options);
  std::vector<char> active(instance.jobs.size(), 1);
  for (std::size_t j = 0; j < active.size(); j += 7) active[j] = 0;  // some slots inactive
  const Comparison c = Compare(instance, Fairness::kMaxMin, active, 1.0);
  EXPECT_GT(c.exact, 0.0);
  EXPECT_GE(c.admm, 0.99 * c.exact);
  EXPECT_LE(c.violation, 1e-6);
}

// On the trace (and the paper-scale generator) the max-min optimum is one job's ceiling (its
// whole round on its best type): values are scaled by s_j / w_j, so big jobs are cheap to
// satisfy and one small, high-priority job decides. Here all weights are 1 and there are more
// jobs than instances (4 types, ~150 instances, 300 jobs), so the optimum lies below every
// ceiling and is decided by how the types are shared: ADMM must still be within 1% of exact.
TEST(ClusterModel, MaxMinAdmmWithinOnePercentOfExactWhenSharingDecides) {
  GeneratorOptions options;
  options.num_types = 4;
  options.num_jobs = 300;
  options.max_weight = 1.0;
  options.seed = 4;
  const Instance instance = GenerateInstance(options);
  const std::vector<char> active(instance.jobs.size(), 1);
  Problem problem(0, 0);
  ClusterModel model;
  model.Describe(instance, Fairness::kMaxMin, &problem);
  double ceiling = kInfinity;
  for (int j = 0; j < model.num_jobs(); ++j) {
    double best = 0.0;
    for (const auto& e : model.entries(j)) best = std::max(best, e.coef);
    ceiling = std::min(ceiling, best);
  }
  const Comparison c = Compare(instance, Fairness::kMaxMin, active, 1.0);
  EXPECT_LT(c.exact, 0.9 * ceiling) << "the optimum should not be a job's ceiling";
  EXPECT_GE(c.admm, 0.99 * c.exact);
  EXPECT_LE(c.admm, c.exact * (1 + 1e-6) + 1e-9);
  EXPECT_LE(c.violation, 1e-6);
}

TEST(ClusterModel, ProportionalFairnessAdmmWithinOnePercentOfExact) {
  const Instance instance = TraceInstance();
  const Comparison c = Compare(instance, Fairness::kProportional, FirstRound(instance), 1.0);
  // Sum of weighted logs can be of either sign: compare the gap to the magnitude.
  EXPECT_LE(std::abs(c.admm - c.exact), 0.01 * std::abs(c.exact) + 1e-6);
  EXPECT_LE(c.violation, 1e-6);
}

// Regression: at rho 0.1 (the published DeDe setting for proportional fairness) the log
// solver's price search stalls at |G| ~ 3e-10 on tiny arguments (T / T_equal); it used to
// report an error instead of accepting a point that is exact far beyond ADMM's tolerances.
TEST(ClusterModel, ProportionalFairnessAtSmallRhoSolves) {
  const Instance instance = TraceInstance();
  const Comparison c = Compare(instance, Fairness::kProportional, FirstRound(instance), 0.1);
  EXPECT_TRUE(c.usable);
  EXPECT_LE(std::abs(c.admm - c.exact), 0.01 * std::abs(c.exact) + 1e-6);
  EXPECT_LE(c.violation, 1e-6);
}

// max_types_per_job: a sparse problem whose entries are a subset of the full one's (the fastest
// types first), normalized exactly like the full problem, so its allocations are full-problem
// allocations. On an instance where sharing decides (equal weights, more jobs than instances),
// its exact optimum stays close to the full one and ADMM on it within 1% of that.
TEST(ClusterModel, SparseModelKeepsTheFastestTypesAndStaysNearTheFullOptimum) {
  GeneratorOptions options;
  options.num_types = 12;
  options.num_jobs = 250;
  options.max_weight = 1.0;
  options.seed = 5;
  const Instance instance = GenerateInstance(options);
  const std::vector<char> active(instance.jobs.size(), 1);
  constexpr int kTypes = 4;
  Problem full_problem(0, 0), sparse_problem(0, 0);
  ClusterModel full, sparse;
  full.Describe(instance, Fairness::kMaxMin, &full_problem);
  full.SetActive(active, &full_problem);
  sparse.set_max_types_per_job(kTypes);
  sparse.Describe(instance, Fairness::kMaxMin, &sparse_problem);
  sparse.SetActive(active, &sparse_problem);
  int restricted = 0;
  for (int j = 0; j < full.num_jobs(); ++j) {
    const auto& all = instance.throughput[j];
    const auto& kept = sparse.entries(j);
    ASSERT_EQ(kept.size(), std::min<std::size_t>(kTypes, all.size())) << "job " << j;
    restricted += all.size() <= static_cast<std::size_t>(kTypes);
    EXPECT_DOUBLE_EQ(sparse.t_equal(j), full.t_equal(j));
    double fastest = 0.0, kept_fastest = 0.0;
    for (const auto& [r, t] : all) fastest = std::max(fastest, t);
    for (std::size_t e = 0; e < kept.size(); ++e) {
      kept_fastest = std::max(kept_fastest, kept[e].throughput);
      if (e > 0) {
        EXPECT_LT(kept[e - 1].type, kept[e].type) << "job " << j << ": instance order";
      }
    }
    EXPECT_EQ(kept_fastest, fastest) << "job " << j;
  }
  EXPECT_GT(restricted, 0);
  EXPECT_LT(restricted, full.num_jobs());

  ExactOptions exact_options;
  Allocation full_exact, sparse_exact;
  SolveSummary s;
  SolveExact(full_problem, exact_options, &full_exact, &s);
  ASSERT_TRUE(s.IsSolutionUsable()) << s.BriefReport();
  SolveExact(sparse_problem, exact_options, &sparse_exact, &s);
  ASSERT_TRUE(s.IsSolutionUsable()) << s.BriefReport();
  const double full_value = full.Value(full_exact, active);
  const double sparse_value = sparse.Value(sparse_exact, active);
  double ceiling = kInfinity;
  for (int j = 0; j < full.num_jobs(); ++j) {
    double best = 0.0;
    for (const auto& e : full.entries(j)) best = std::max(best, e.coef);
    ceiling = std::min(ceiling, best);
  }
  EXPECT_LT(full_value, 0.9 * ceiling) << "the optimum should not be a job's ceiling";
  EXPECT_LE(sparse_value, full_value * (1 + 1e-9));
  EXPECT_GE(sparse_value, 0.97 * full_value);

  AdmmOptions admm;
  admm.eps_abs = 1e-7;
  admm.eps_rel = 1e-6;
  admm.max_iterations = 40000;
  AdmmSolver solver(sparse_problem, admm);
  Allocation a;
  solver.Solve(&a, &s);
  ASSERT_TRUE(s.IsSolutionUsable()) << s.BriefReport() << ": " << s.message;
  // The same allocation as a point of the full problem: same value, feasible there.
  Allocation as_full;
  as_full.values.assign(full_problem.num_variables(), 0.0);
  for (int j = 0; j < full.num_jobs(); ++j) {
    for (const auto& e : sparse.entries(j)) {
      for (const auto& f : full.entries(j))
        if (f.type == e.type) as_full.values[f.var] = a[e.var];
    }
  }
  EXPECT_LE(full_problem.MeasureViolation(as_full.values).Max(), 1e-6);
  const double admm_value = full.Value(as_full, active);
  EXPECT_NEAR(admm_value, sparse.Value(a, active), 1e-12);
  EXPECT_GE(admm_value, 0.99 * sparse_value);
  std::printf(
      "sparse (%d types per job): exact %.6f of full %.6f (%.4f), ADMM %.6f (%.4f of full) "
      "in %d iterations (%s)\n",
      kTypes,
      sparse_value,
      full_value,
      sparse_value / full_value,
      admm_value,
      admm_value / full_value,
      s.iterations,
      s.BriefReport().c_str());
}

// Max-min: inactive slots carry the active jobs' smallest ceiling (computed here by hand), an
// upper bound of the optimum, so they never lower the minimum.
TEST(ClusterModel, InactiveConstantIsTheSmallestActiveCeiling) {
  const Instance instance = TraceInstance();
  const std::vector<char> active = FirstRound(instance);
  Problem problem(0, 0);
  ClusterModel model;
  model.Describe(instance, Fairness::kMaxMin, &problem);
  model.SetActive(active, &problem);
  double ceiling = kInfinity;
  for (std::size_t j = 0; j < instance.jobs.size(); ++j) {
    if (!active[j]) continue;
    double best = 0.0;
    for (const auto& [r, t] : instance.throughput[j]) {
      best = std::max(best,
                      t * instance.jobs[j].scale_factor /
                          (instance.jobs[j].weight * model.t_equal(static_cast<int>(j))));
    }
    ceiling = std::min(ceiling, best);
  }
  EXPECT_NEAR(model.inactive_constant(), ceiling, 1e-12 * ceiling);
  for (int j = 0; j < model.num_jobs(); ++j) {
    const double constant = problem.global_term().exprs[j].constant;
    EXPECT_EQ(constant, active[j] ? 0.0 : model.inactive_constant()) << "job " << j;
  }
}

TEST(ClusterModel, InactiveSlotsDoNotChangeTheOptimum) {
  // The same active jobs with and without extra inactive slots give the same exact optimum.
  const Instance full = TraceInstance();
  const std::vector<char> active = FirstRound(full);
  Instance only;
  only.types = full.types;
  for (std::size_t j = 0; j < full.jobs.size(); ++j) {
    if (!active[j]) continue;
    only.jobs.push_back(full.jobs[j]);
    only.throughput.push_back(full.throughput[j]);
  }
  for (Fairness fairness : {Fairness::kMaxMin, Fairness::kProportional}) {
    double values[2];
    for (int k = 0; k < 2; ++k) {
      const Instance& inst = k == 0 ? full : only;
      Problem problem(0, 0);
      ClusterModel model;
      model.Describe(inst, fairness, &problem);
      const std::vector<char> act = k == 0 ? active : std::vector<char>(only.jobs.size(), 1);
      model.SetActive(act, &problem);
      Allocation a;
      SolveSummary s;
      SolveExact(problem, ExactOptions{}, &a, &s);
      ASSERT_TRUE(s.IsSolutionUsable()) << s.BriefReport();
      values[k] = model.Value(a, act);
    }
    EXPECT_NEAR(values[0], values[1], 1e-6 * (1 + std::abs(values[1])));
  }
}

}  // namespace
}  // namespace dede::cluster

namespace dede::cluster {
namespace {

// The paper's scale (456 types, ~16,500 instances, 2,000 jobs, a third restricted): max-min with
// ADMM (10 s budget, rho 0.1 / 1 / 10) against the exact LP. About a minute: run it by hand with
//   cluster_scheduling_test --gtest_also_run_disabled_tests --gtest_filter=*PaperScale*
// Measured 2026-11-22 on the shared 2-core machine (seed 1: 16,248 instances, 629,142 entries):
// exact 0.313899 in 8.1 s; ADMM rho 1 0.313687 (0.9993) in 10.6 s, 183 iterations, violation
// 2e-16; rho 0.1 0.9695, rho 10 0.050 in the same budget. Converged to 1e-6/1e-5 tolerances
// ADMM needs ~10,300 iterations (640 s) and matches the optimum to 6 digits.
TEST(ClusterModel, DISABLED_PaperScaleMaxMin) {
  GeneratorOptions options;
  options.seed = 1;
  options.scale_factors = "philly";  // the instance of the figures above (before the uniform mix)
  const Instance instance = GenerateInstance(options);
  std::size_t entries = 0;
  int instances = 0;
  for (const auto& allowed : instance.throughput) entries += allowed.size();
  for (const WorkerType& t : instance.types) instances += t.count;
  std::printf("paper scale: %zu types, %d instances, %zu jobs, %zu entries\n",
              instance.types.size(),
              instances,
              instance.jobs.size(),
              entries);
  std::fflush(stdout);
  Problem problem(0, 0);
  ClusterModel model;
  model.Describe(instance, Fairness::kMaxMin, &problem);
  const std::vector<char> active(instance.jobs.size(), 1);
  model.SetActive(active, &problem);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.BriefReport();
  const double optimum = model.Value(exact, active);
  std::printf("exact (Clp): %.6f in %.2f s\n", optimum, exact_summary.total_seconds);
  std::fflush(stdout);
  // A per-round budget of 10 s: the allocation returned at the time limit (after repair).
  for (double rho : {0.1, 1.0, 10.0}) {
    AdmmOptions options;
    options.rho = rho;
    options.time_limit_seconds = 10.0;
    AdmmSolver solver(problem, options);
    Allocation admm;
    SolveSummary summary;
    solver.Solve(&admm, &summary);
    if (admm.values.size() != static_cast<std::size_t>(problem.num_variables())) {
      ADD_FAILURE() << summary.BriefReport() << ": " << summary.message;
      continue;
    }
    std::printf("admm rho %g: %.6f = %.4f of exact, %s, %d it, %.2f s, violation %.2e\n",
                rho,
                model.Value(admm, active),
                model.Value(admm, active) / optimum,
                TerminationName(summary.termination),
                summary.iterations,
                summary.total_seconds,
                problem.MeasureViolation(admm.values).Max());
    std::fflush(stdout);
    if (rho == 1.0) {  // the setting of configs/cluster_small.yaml (and the reference's README)
      EXPECT_GE(model.Value(admm, active), 0.99 * optimum);
      EXPECT_LE(problem.MeasureViolation(admm.values).Max(), 1e-6);
    }
  }
}

}  // namespace
}  // namespace dede::cluster

namespace dede::cluster {
namespace {

// Proportional fairness at the paper's scale: exact (Clp with tangent cuts) vs ADMM with a 10 s
// and a 30 s budget. Run by hand like the test above (about 3 minutes). Measured 2026-11-22:
// exact 25416.6635 in 124 s; ADMM 10 s: 0.46 % below; converged in 20.1 s: 0.029 % below.
TEST(ClusterModel, DISABLED_PaperScaleProportional) {
  GeneratorOptions options;
  options.seed = 1;
  options.scale_factors = "philly";  // the instance of the figures above (before the uniform mix)
  const Instance instance = GenerateInstance(options);
  Problem problem(0, 0);
  ClusterModel model;
  model.Describe(instance, Fairness::kProportional, &problem);
  const std::vector<char> active(instance.jobs.size(), 1);
  model.SetActive(active, &problem);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  const double optimum = model.Value(exact, active);
  std::printf("exact PF: %.6f in %.2f s (%s, bound %.6f)\n",
              optimum,
              exact_summary.total_seconds,
              TerminationName(exact_summary.termination),
              exact_summary.bound);
  std::fflush(stdout);
  for (double budget : {10.0, 30.0}) {
    AdmmOptions admm_options;
    admm_options.rho = 1.0;
    admm_options.time_limit_seconds = budget;
    AdmmSolver solver(problem, admm_options);
    Allocation admm;
    SolveSummary summary;
    solver.Solve(&admm, &summary);
    ASSERT_EQ(admm.values.size(), static_cast<std::size_t>(problem.num_variables()))
        << summary.message;
    const double value = model.Value(admm, active);
    std::printf(
        "admm PF budget %g s: %.6f (gap %.3e relative), %s, %d it, %.2f s, violation %.2e\n",
        budget,
        value,
        (optimum - value) / std::abs(optimum),
        TerminationName(summary.termination),
        summary.iterations,
        summary.total_seconds,
        problem.MeasureViolation(admm.values).Max());
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace dede::cluster

namespace dede::cluster {
namespace {

// Proportional fairness at the paper's scale as a deployment sees it: the current generator
// (uniform scale factors), 2,000 jobs + 200 arrivals (seed 1), the round-0 active set; exact
// (Clp, tangent cuts), then DeDe cold (60 s) and warm re-solves of 8.5 s on 2 threads. About
// 10 minutes. Measured 2026-11-22 (load 7-9): exact 20245.190 in 415 s; DeDe cold 3.1% below,
// warm 1: 1.40%, warm 2: 0.82%, warm 4: 0.28%, warm 7: 0.048% (each ~8.7 s).
TEST(ClusterModel, DISABLED_PaperScaleProportionalWarmRounds) {
  GeneratorOptions options;
  options.num_arrivals = 200;
  options.seed = 1;
  const Instance instance = GenerateInstance(options);
  Problem problem(0, 0);
  ClusterModel model;
  model.Describe(instance, Fairness::kProportional, &problem);
  std::vector<char> active(instance.jobs.size(), 0);
  for (std::size_t j = 0; j < active.size(); ++j) active[j] = instance.jobs[j].arrival_s <= 0;
  model.SetActive(active, &problem);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_TRUE(exact_summary.IsSolutionUsable()) << exact_summary.BriefReport();
  const double optimum = model.Value(exact, active);
  std::printf("exact PF %.3f (bound %.3f) in %.1f s\n",
              optimum,
              exact_summary.bound,
              exact_summary.total_seconds);
  AdmmOptions admm;
  admm.rho = 1.0;
  admm.num_threads = 2;
  AdmmSolver solver(problem, admm);
  double gap = 1.0;
  for (int k = 0; k <= 8; ++k) {
    admm.time_limit_seconds = k == 0 ? 60.0 : 8.5;
    ASSERT_TRUE(solver.SetOptions(admm).ok());
    Allocation a;
    SolveSummary s;
    solver.Solve(&a, &s);
    ASSERT_EQ(a.values.size(), static_cast<std::size_t>(problem.num_variables())) << s.message;
    gap = (optimum - model.Value(a, active)) / std::abs(optimum);
    std::printf("solve %d: gap %.4f%% in %.2f s (%s, %d it)\n",
                k,
                100 * gap,
                s.total_seconds,
                TerminationName(s.termination),
                s.iterations);
    std::fflush(stdout);
    EXPECT_LE(problem.MeasureViolation(a.values).Max(), 1e-6);
  }
  EXPECT_LE(gap, 0.01);
}

}  // namespace
}  // namespace dede::cluster
