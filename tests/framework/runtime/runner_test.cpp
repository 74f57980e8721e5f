// Runner with an in-process plugin (no shared object): solver.kind plugin, SolverServices,
// domain records as JSON rows, and SaveState / RestoreState across a restart.
#include "runtime/runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/solver_services.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Two suppliers (capacity 3 and 2), two consumers (volume 2 and 4), x[r, d] >= 0, maximize
// 2 x00 + x01 + x10 + 3 x11. Optimum by hand: x11 = 2 (consumer 1 takes supplier 1 whole),
// x00 = 2, x01 = 1 -> 4 + 1 + 6 = 11.
class CounterPlugin : public DomainPlugin {
 public:
  Status Configure(const ConfigNode&, const PluginContext&) override { return Status::Ok(); }
  Status Describe(Problem* problem) override {
    *problem = Problem(2, 2);
    const int x = problem->AddAllocation("x", Domain::NonNegative());
    const double weight[2][2] = {{2, 1}, {1, 3}};
    LinearExpr rows[2], columns[2];
    for (int r = 0; r < 2; ++r) {
      for (int d = 0; d < 2; ++d) {
        const VarId v = problem->AddEntry(x, r, d);
        problem->AddLinearCost(v, weight[r][d]);
        rows[r].Add(v, 1.0);
        columns[d].Add(v, 1.0);
      }
    }
    problem->SetObjectiveSense(ObjectiveSense::kMaximize);
    problem->AddResourceConstraint(0, rows[0], Sense::kLessEqual, 3);
    problem->AddResourceConstraint(1, rows[1], Sense::kLessEqual, 2);
    problem->AddDemandConstraint(0, columns[0], Sense::kLessEqual, 2);
    problem->AddDemandConstraint(1, columns[1], Sense::kLessEqual, 4);
    return Status::Ok();
  }
  Status Refresh(int round, Problem*, bool* finished) override {
    *finished = round >= 5;
    ++refreshes;
    return Status::Ok();
  }
  Status Report(int round,
                const Problem&,
                const Allocation& allocation,
                RoundReport* report) override {
    report->metrics.push_back({"counter", static_cast<double>(counter)});
    DomainRecord job;
    job.kind = "job";
    job.key = "j\"1";  // quoted in JSON
    job.values = {{"round", round}, {"x00", allocation[0]}, {"nan", std::nan("")}};
    job.labels = {{"state", "running\n"}};
    report->records.push_back(job);
    return Status::Ok();
  }
  std::vector<MethodInfo> Methods() const override {
    return {{"exact-twice", "the exact solve through the lent services"},
            {"zeros", "all zero"},
            {"short", "a wrong allocation size"}};
  }
  Status SolveWith(const std::string& method,
                   int round,
                   const Problem& problem,
                   const SolverServices& services,
                   Allocation* allocation,
                   SolveSummary* summary) override {
    last_method_round = round;
    ++counter;
    if (method == "zeros") {
      allocation->values.assign(problem.num_variables(), 0.0);
      summary->termination = Termination::kConverged;
      return Status::Ok();
    }
    if (method == "short") {
      allocation->values.assign(1, 0.0);
      summary->termination = Termination::kConverged;
      return Status::Ok();
    }
    // Both lent solvers on the same problem: they must agree.
    Allocation a;
    SolveSummary sa;
    AdmmOptions options = services.admm_options;
    options.max_iterations = 20000;
    Status status = services.admm(problem, options, &a, &sa);
    if (!status.ok()) return status;
    admm_objective = sa.objective;
    return services.exact(problem, services.exact_options, allocation, summary);
  }
  Status SaveState(int round, std::string* state) override {
    std::ostringstream out;
    out << round << " " << counter;
    *state = out.str();
    return Status::Ok();
  }
  Status RestoreState(int last_round, const std::string& state) override {
    std::istringstream in(state);
    int round = -1;
    in >> round >> counter;
    restored_round = last_round;
    if (round != last_round) return InvalidArgument("state of round " + std::to_string(round));
    return Status::Ok();
  }

  int counter = 0;
  int refreshes = 0;
  int restored_round = -1;
  int last_method_round = -1;
  double admm_objective = 0;
};

DeploymentConfig Config(const std::string& method) {
  DeploymentConfig config;
  config.file = "runner_test.yaml";
  config.name = "runner-test";
  config.plugin = "counter";
  config.solver = SolverKind::kPlugin;
  config.method = method;
  config.simulated_time = true;
  return config;
}

std::string DbPath(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "dede_runner_test";
  fs::create_directories(dir);
  const fs::path path = dir / (name + ".db");
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
  return path.string();
}

std::string Cell(Store& store, const std::string& sql) {
  Result<QueryResult> result = store.Query(sql);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok() || result->rows.empty() || !result->rows[0][0]) return "<none>";
  return *result->rows[0][0];
}

TEST(RunnerPluginMethod, SolvesWithLentSolversAndStoresRecordsAndState) {
  const std::string db = DbPath("method");
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const DeploymentConfig config = Config("exact-twice");
  CounterPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  for (int i = 0; i < 2; ++i) {
    RoundOutcome outcome;
    const Status status = runner.RunRound({}, &outcome);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_NEAR(outcome.summary.objective, 11.0, 1e-9);
    EXPECT_TRUE(outcome.summary.feasible);
  }
  EXPECT_EQ(plugin.last_method_round, 1);
  EXPECT_NEAR(plugin.admm_objective, 11.0, 1e-3);
  Store& s = *store.value();
  EXPECT_EQ(Cell(s, "SELECT solver || '/' || method FROM rounds WHERE round = 1"), "plugin/clp");
  EXPECT_EQ(Cell(s, "SELECT count(*) FROM domain_records"), "2");
  EXPECT_EQ(Cell(s, "SELECT key FROM domain_records WHERE round = 1"), "j\"1");
  EXPECT_EQ(Cell(s, "SELECT json_extract(data, '$.x00') FROM domain_records WHERE round = 1"), "2");
  EXPECT_EQ(Cell(s, "SELECT json_type(data, '$.nan') FROM domain_records WHERE round = 1"), "null");
  EXPECT_EQ(Cell(s, "SELECT json_extract(data, '$.state') FROM domain_records WHERE round = 0"),
            "running\n");
  EXPECT_EQ(Cell(s, "SELECT CAST(state AS TEXT) FROM plugin_states WHERE round = 1"), "1 2");
}

// CounterPlugin whose repair of an all-zero allocation is the hand optimum (x00 = 2, x01 = 1,
// x11 = 2); counts repairs and the all-zero ones.
class SeedingPlugin : public CounterPlugin {
 public:
  Status Repair(const Problem&, Allocation* allocation) override {
    ++repairs;
    if (std::all_of(allocation->values.begin(), allocation->values.end(), [](double v) {
          return v == 0.0;
        })) {
      ++zero_repairs;
      allocation->values = {2.0, 1.0, 0.0, 2.0};
    }
    return Status::Ok();
  }
  int repairs = 0, zero_repairs = 0;
};

TEST(RunnerColdStart, RepairSeedsOnlyTheFirstAdmmSolve) {
  for (const ColdStart cold_start : {ColdStart::kZero, ColdStart::kRepair}) {
    DeploymentConfig config = Config("none");
    config.solver = SolverKind::kAdmm;
    config.cold_start = cold_start;
    config.admm.num_threads = 1;
    SeedingPlugin plugin;
    std::ostringstream log;
    Runner runner(config, &plugin, "1.0", nullptr, RunnerOptions{.persist = false, .log = &log});
    ASSERT_TRUE(runner.Setup().ok());
    for (int round = 0; round < 3; ++round) {
      RoundOutcome outcome;
      const Status status = runner.RunRound({}, &outcome);
      ASSERT_TRUE(status.ok()) << status.ToString();
      EXPECT_NEAR(outcome.summary.objective, 11.0, 1e-4) << round;
      EXPECT_TRUE(outcome.summary.feasible);
    }
    // One repair per round after the solve, the seed of round 0 (a candidate for the returned
    // allocation either way, the start only with kRepair) and the previous round's allocation
    // in rounds 1 and 2.
    EXPECT_EQ(plugin.repairs, 3 + 1 + 2);
    EXPECT_EQ(plugin.zero_repairs, 1);
  }
}

// Never worse than the seed: one ADMM iteration from zero is far from the optimum; the plugin's
// repair of nothing is the optimum itself, and the round returns it, saying so. The next round
// (one iteration, warm) is at least as good as the previous round's allocation.
TEST(RoundPipeline, ReturnsTheSeedWhenTheSolverFallsShort) {
  DeploymentConfig config = Config("none");
  config.solver = SolverKind::kAdmm;
  config.cold_start = ColdStart::kZero;
  config.admm.num_threads = 1;
  config.admm.max_iterations = 1;
  SeedingPlugin plugin;
  std::ostringstream log;
  config.max_rounds = 2;
  Runner runner(config, &plugin, "1.0", nullptr, RunnerOptions{.persist = false, .log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  RoundOutcome first, second;
  ASSERT_TRUE(runner.RunRound({}, &first).ok());
  EXPECT_EQ(first.summary.returned, "seed") << first.summary.message;
  EXPECT_NEAR(first.summary.objective, 11.0, 1e-12);
  EXPECT_NEAR(first.summary.seed_objective, 11.0, 1e-12);
  EXPECT_TRUE(first.summary.feasible);
  EXPECT_EQ(first.allocation.values, (std::vector<double>{2.0, 1.0, 0.0, 2.0}));
  EXPECT_THAT(first.summary.message, HasSubstr("Returned the plugin's seed allocation"));
  ASSERT_TRUE(runner.RunRound({}, &second).ok());
  EXPECT_GE(second.summary.objective, 11.0 - 1e-12);
  EXPECT_TRUE(second.summary.returned == "previous" || second.summary.returned == "solver");
}

TEST(RunnerPluginMethod, ResumeHandsTheLastStateBack) {
  const std::string db = DbPath("resume");
  const DeploymentConfig config = Config("zeros");
  {
    auto store = Store::Open(db);
    ASSERT_TRUE(store.ok());
    CounterPlugin plugin;
    std::ostringstream log;
    Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
    ASSERT_TRUE(runner.Setup().ok());
    for (int i = 0; i < 3; ++i) {
      RoundOutcome outcome;
      ASSERT_TRUE(runner.RunRound({}, &outcome).ok());
    }
    EXPECT_EQ(plugin.counter, 3);
  }
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  CounterPlugin fresh;
  std::ostringstream log;
  Runner runner(config, &fresh, "1.0", store->get(), RunnerOptions{.log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  EXPECT_EQ(fresh.restored_round, 2);
  EXPECT_EQ(fresh.counter, 3);
  EXPECT_EQ(runner.next_round(), 3);
  Result<RunSummary> run = runner.Run();
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->last_round, 4);  // Refresh finishes at round 5
  EXPECT_EQ(fresh.counter, 5);
  EXPECT_EQ(Cell(*store.value(), "SELECT CAST(state AS TEXT) FROM plugin_states WHERE round = 4"),
            "4 5");
}

// stop.max_rounds (the deployment's total) and --rounds (this run's count) both hold: the
// first one reached stops the run, and the reason names it.
TEST(RunnerLimits, DeploymentAndRunLimitsBothApply) {
  const std::string db = DbPath("limits");
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  DeploymentConfig config = Config("exact-twice");
  config.max_rounds = 3;
  {
    CounterPlugin plugin;
    std::ostringstream log;
    Runner runner(
        config, &plugin, "1.0", store->get(), RunnerOptions{.max_rounds = 10, .log = &log});
    ASSERT_TRUE(runner.Setup().ok());
    Result<RunSummary> run = runner.Run();
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    EXPECT_EQ(run->rounds_run, 3);
    EXPECT_EQ(run->stop_reason, "stop.max_rounds = 3 reached");
  }
  config.max_rounds = 0;
  CounterPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.max_rounds = 1, .log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  Result<RunSummary> run = runner.Run();
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->rounds_run, 1);
  EXPECT_EQ(run->last_round, 3);
  EXPECT_EQ(run->stop_reason, "--rounds 1 reached");
}

TEST(RunnerPluginMethod, UnknownMethodIsRejectedAtSetupNamingTheMethods) {
  auto store = Store::Open(":memory:");
  ASSERT_TRUE(store.ok());
  const DeploymentConfig config = Config("pop-5");
  CounterPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
  const Status status = runner.Setup();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("runner_test.yaml: solver.method = 'pop-5': plugin 'counter' has no "
                        "such method (its methods: exact-twice, zeros, short)"));
}

TEST(RunnerPluginMethod, WrongAllocationSizeFailsTheRoundAndWritesNothing) {
  auto store = Store::Open(":memory:");
  ASSERT_TRUE(store.ok());
  const DeploymentConfig config = Config("short");
  CounterPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  RoundOutcome outcome;
  const Status status = runner.RunRound({}, &outcome);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("returned 1 values for a problem with 4 variables"));
  EXPECT_EQ(Cell(*store.value(), "SELECT count(*) FROM rounds"), "0");
}

// A record the store cannot take (a field given twice) fails the round as a whole.
class DuplicateFieldPlugin : public CounterPlugin {
 public:
  Status Report(int round,
                const Problem& problem,
                const Allocation& allocation,
                RoundReport* report) override {
    Status status = CounterPlugin::Report(round, problem, allocation, report);
    report->records.back().labels.push_back({"x00", "again"});
    return status;
  }
};

TEST(RunnerPluginMethod, BadRecordRollsTheRoundBack) {
  auto store = Store::Open(":memory:");
  ASSERT_TRUE(store.ok());
  const DeploymentConfig config = Config("zeros");
  DuplicateFieldPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  RoundOutcome outcome;
  const Status status = runner.RunRound({}, &outcome);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("job 'j\"1': field 'x00' is given twice"));
  EXPECT_EQ(Cell(*store.value(), "SELECT count(*) FROM rounds"), "0");
  EXPECT_EQ(Cell(*store.value(), "SELECT count(*) FROM plugin_states"), "0");
}

TEST(SolverServices, ReportInvalidOptionsAndProblemsAsStatus) {
  const SolverServices services = MakeSolverServices(AdmmOptions{}, ExactOptions{});
  Problem problem(1, 1);
  AdmmOptions bad;
  bad.relaxation = 2.5;
  Allocation allocation;
  SolveSummary summary;
  const Status status = services.admm(problem, bad, &allocation, &summary);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("relaxation"));
}

// SolverServices::admm starts warm from a full assignment passed in: with a large penalty, one
// iteration from the costly vertex (x01 = x10 = 1) stays near it, where one cold iteration
// (from zero) ends near an even split.
TEST(SolverServices, AdmmStartsWarmFromAFullAssignment) {
  Problem problem(2, 2);
  const int m = problem.AddAllocation("x", Domain::NonNegative());
  problem.AddDenseEntries(m);
  const double cost[2][2] = {{1, 3}, {2, 1}};
  for (int r = 0; r < 2; ++r) {
    LinearExpr row;
    for (int d = 0; d < 2; ++d) {
      row.Add(problem.Entry(m, r, d), 1.0);
      problem.AddLinearCost(problem.Entry(m, r, d), cost[r][d]);
    }
    problem.AddResourceConstraint(r, row, Sense::kLessEqual, 1.0);
  }
  for (int d = 0; d < 2; ++d) {
    LinearExpr col;
    for (int r = 0; r < 2; ++r) col.Add(problem.Entry(m, r, d), 1.0);
    problem.AddDemandConstraint(d, col, Sense::kEqual, 1.0);
  }
  problem.SetObjectiveSense(ObjectiveSense::kMinimize);
  const SolverServices services = MakeSolverServices(AdmmOptions{}, ExactOptions{});
  AdmmOptions options;
  options.max_iterations = 1;
  options.repair = false;
  options.rho = 100;  // a step moves an entry by about cost / rho
  options.rho_update = RhoUpdate::kFixed;
  const VarId x01 = problem.Entry(m, 0, 1);
  Allocation warm;
  warm.values.assign(problem.num_variables(), 0.0);
  warm.values[x01] = warm.values[problem.Entry(m, 1, 0)] = 1.0;
  SolveSummary warm_summary;
  ASSERT_TRUE(services.admm(problem, options, &warm, &warm_summary).ok());
  Allocation cold;
  SolveSummary cold_summary;
  ASSERT_TRUE(services.admm(problem, options, &cold, &cold_summary).ok());
  EXPECT_GT(warm.values[x01], 0.9) << warm_summary.FullReport();
  EXPECT_LT(cold.values[x01], 0.6) << cold_summary.FullReport();
}

// The round pipeline's CSV sink: a header with the solve's figures and the first round's
// metrics, one line per committed round, and a metric first reported in a later round kept in
// other_metrics (not dropped).
class GrowingMetricsPlugin : public CounterPlugin {
 public:
  Status Report(int round, const Problem& p, const Allocation& a, RoundReport* report) override {
    Status status = CounterPlugin::Report(round, p, a, report);
    if (round >= 1) report->metrics.push_back({"late", 0.5 + round});
    return status;
  }
};

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(RoundPipeline, CsvSinkWritesOneLinePerRoundAndKeepsLateMetrics) {
  const std::string db = DbPath("csv_sink");
  const std::string csv = db + ".csv";
  Result<std::unique_ptr<Store>> store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  DeploymentConfig config = Config("zeros");
  config.database = db;
  config.max_rounds = 3;
  GrowingMetricsPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", store->get(), RunnerOptions{.csv_path = csv, .log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  Result<RunSummary> run = runner.Run();
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const std::vector<std::string> lines = Lines(csv);
  ASSERT_EQ(lines.size(), 4u) << log.str();
  EXPECT_EQ(
      lines[0],
      "round,solver,method,termination,iterations,setup_seconds,solve_seconds,"
      "repair_seconds,round_seconds,objective,max_violation,feasible,seed_seconds,fill_seconds,"
      "returned,bound,gap,counter,other_metrics");
  EXPECT_THAT(lines[1], ::testing::StartsWith("0,plugin,zeros,converged,"));
  // objective, violation, feasible, no seed time, fill time, candidates, bound or gap, counter,
  // no other metric
  EXPECT_THAT(lines[1], ::testing::EndsWith(",0,0,1,,,,,,1,"));
  EXPECT_THAT(lines[2], ::testing::EndsWith(",2,late=1.5"));
  EXPECT_THAT(lines[3], ::testing::EndsWith(",3,late=2.5"));
  // The same rounds went to the database sink.
  EXPECT_EQ(Cell(*store.value(), "SELECT COUNT(*) FROM rounds"), "3");
}

// Measure once: the recorded objective and violation are those of the allocation after the
// plugin's repair, whichever solver produced it.
class ShiftingRepairPlugin : public CounterPlugin {
 public:
  Status Repair(const Problem&, Allocation* allocation) override {
    allocation->values.assign(allocation->values.size(), 0.0);
    allocation->values[0] = 5.0;  // x00 = 5 breaks supplier 0's capacity 3 and demand 0's 2
    return Status::Ok();
  }
};

TEST(RoundPipeline, MeasuresTheRepairedAllocation) {
  for (const SolverKind kind : {SolverKind::kAdmm, SolverKind::kExact}) {
    DeploymentConfig config = Config("zeros");
    config.solver = kind;
    ShiftingRepairPlugin plugin;
    std::ostringstream log;
    Runner runner(config, &plugin, "1.0", nullptr, RunnerOptions{.persist = false, .log = &log});
    ASSERT_TRUE(runner.Setup().ok());
    RoundOutcome outcome;
    ASSERT_TRUE(runner.RunRound({}, &outcome).ok());
    EXPECT_DOUBLE_EQ(outcome.summary.objective, 10.0) << static_cast<int>(kind);
    // Problem's own one-pass measure (rows relative to their right-hand side: 5 against the
    // demand's 2 misses by 1.5).
    EXPECT_DOUBLE_EQ(outcome.summary.max_violation,
                     runner.problem().MeasureViolation(outcome.allocation.values).Max());
    EXPECT_DOUBLE_EQ(outcome.summary.max_violation, 1.5) << static_cast<int>(kind);
    EXPECT_FALSE(outcome.summary.feasible);
  }
}

// `dede run`'s log: each round is an info line with a timestamp, and a round whose solution is
// not usable is also a warning with the reason (what `--quiet` still shows).
TEST(RunnerLog, RoundLineCarriesTimeAndLevelAndAnUnusableRoundWarns) {
  DeploymentConfig config = Config("zeros");
  config.max_rounds = 2;
  ShiftingRepairPlugin plugin;  // its repair leaves every round infeasible
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", nullptr, RunnerOptions{.persist = false, .log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  Result<RunSummary> run = runner.Run();
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->rounds_run, 2);
  const std::string stamp = R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )";
  const std::string text = log.str();
  EXPECT_TRUE(std::regex_search(text, std::regex(stamp + "info  round 1  converged  iterations ")))
      << text;
  EXPECT_TRUE(std::regex_search(
      text, std::regex(stamp + R"(warn  round 1: no usable solution \(converged, infeasible\))")))
      << text;
}

// The ADMM budget is the whole round's: from the second round on, the solve leaves the plugin's
// repair and report the time they took in the round before.
class SlowRepairPlugin : public CounterPlugin {
 public:
  Status Repair(const Problem&, Allocation*) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return Status::Ok();
  }
};

TEST(RoundPipeline, AdmmBudgetLeavesTimeForThePluginsRepair) {
  DeploymentConfig config = Config("zeros");
  config.solver = SolverKind::kAdmm;
  config.admm.time_limit_seconds = 1.0;
  config.admm.max_iterations = 1000000000;  // runs to the time limit: no check converges
  config.admm.check_termination_every = 100000000;
  config.admm.rho_update = RhoUpdate::kFixed;
  config.admm.repair = false;
  SlowRepairPlugin plugin;
  std::ostringstream log;
  Runner runner(config, &plugin, "1.0", nullptr, RunnerOptions{.persist = false, .log = &log});
  ASSERT_TRUE(runner.Setup().ok());
  RoundOutcome first, second;
  ASSERT_TRUE(runner.RunRound({}, &first).ok());
  ASSERT_TRUE(runner.RunRound({}, &second).ok());
  EXPECT_EQ(second.summary.termination, Termination::kTimeLimit) << second.summary.message;
  // Without the reservation the round took the whole budget plus the 0.4 s repair.
  EXPECT_LT(second.seconds, 1.2) << "round 0 " << first.seconds << " s";
  EXPECT_GT(second.seconds, 0.8);
}

}  // namespace
}  // namespace dede::internal
