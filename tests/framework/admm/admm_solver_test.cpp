#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <stop_token>
#include <thread>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "framework/spare_capacity.h"
#include "test_problems.h"

namespace dede {
namespace {

constexpr double kObjectiveTolerance = 1e-4;
constexpr double kFeasibilityTolerance = 1e-6;

TEST(AdmmOptions, DefaultsAreValid) {
  std::string error;
  EXPECT_TRUE(AdmmOptions().IsValid(&error)) << error;
}

TEST(AdmmOptions, InvalidRelaxationNamesFieldAndBound) {
  AdmmOptions options;
  options.relaxation = 2.5;
  std::string error;
  ASSERT_FALSE(options.IsValid(&error));
  EXPECT_EQ(error, "AdmmOptions::relaxation = 2.5. Violated constraint: 0 < relaxation < 2");
}

TEST(AdmmSolver, InvalidOptionsEndInFailureWithoutThrowing) {
  Problem problem(1, 1);
  const int m = problem.AddAllocation("x", Domain::NonNegative());
  problem.AddEntry(m, 0, 0);
  AdmmOptions options;
  options.rho = -1;
  AdmmSolver solver(problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kFailure);
  EXPECT_NE(summary.message.find("AdmmOptions::rho = -1"), std::string::npos) << summary.message;
  EXPECT_TRUE(allocation.values.empty());
}

using testing::MaxMinProblem;

TEST(AdmmSolver, MaxMinFairnessSplitsCapacityEvenly) {
  const Problem problem = MaxMinProblem();
  AdmmSolver solver(problem, AdmmOptions());
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
  EXPECT_NEAR(summary.objective, 2.0 / 3.0, kObjectiveTolerance) << summary.FullReport();
  EXPECT_LE(summary.max_violation, kFeasibilityTolerance);
}

// An initial rho above rho_max widens the range residual balancing may use instead of being
// pulled into it: the bound alone must not cut rho at the first update (max-flow traffic
// engineering starts at 1e7 with the default rho_max 1e6, and lost 10x there). The solve with
// rho_max below rho follows the same rho path as the one with rho_max = rho.
TEST(AdmmSolver, InitialRhoAboveRhoMaxIsNotPulledDownByTheBound) {
  const Problem problem = MaxMinProblem();
  AdmmOptions options;
  options.rho = 50;
  options.max_iterations = 60;
  options.check_termination_every = 10;
  options.rho_update_every = 10;
  options.eps_abs = options.eps_rel = 1e-12;  // run the whole budget
  std::vector<double> path[2];
  for (int k = 0; k < 2; ++k) {
    options.rho_max = k == 0 ? 1.0 : 50.0;
    AdmmSolver solver(problem, options);
    Allocation allocation;
    SolveSummary summary;
    solver.Solve(&allocation, &summary);
    EXPECT_TRUE(summary.feasible) << summary.FullReport();
    for (const IterationSummary& it : summary.trace) path[k].push_back(it.rho);
  }
  ASSERT_FALSE(path[0].empty());
  EXPECT_EQ(path[0], path[1]);
  EXPECT_GT(path[0].front(), 1.0);
}

// Demand 3 over two links of capacity 1 and 2: the utilization is balanced at 1 with flows 1, 2.
TEST(AdmmSolver, MinMaxUtilizationBalancesLinks) {
  Problem p(2, 1);
  const int m = p.AddAllocation("f", Domain::NonNegative());
  const VarId f0 = p.AddEntry(m, 0, 0);
  const VarId f1 = p.AddEntry(m, 1, 0);
  p.AddDemandConstraint(0, LinearExpr().Add(f0, 1).Add(f1, 1), Sense::kEqual, 3.0);
  p.SetObjectiveSense(ObjectiveSense::kMinimize);
  p.SetGlobalTerm(GlobalKind::kMinMax,
                  Side::kResource,
                  {0, 1},
                  {LinearExpr().Add(f0, 1.0), LinearExpr().Add(f1, 0.5)});
  AdmmSolver solver(p, AdmmOptions());
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
  EXPECT_NEAR(summary.objective, 1.0, kObjectiveTolerance);
  EXPECT_NEAR(allocation[f0], 1.0, 1e-3);
  EXPECT_NEAR(allocation[f1], 2.0, 1e-3);
}

// min sum x, rows >= p_i, cols >= 1 on 4x4: optimum max(sum p, 4).
struct ParamProblem {
  Problem problem{4, 4};
  std::vector<ConstraintId> rows;
  ParamProblem() {
    const int m = problem.AddAllocation("x", Domain::NonNegative());
    problem.AddDenseEntries(m);
    const double p[4] = {1, 3, 5, 7};
    for (int i = 0; i < 4; ++i) {
      LinearExpr row;
      for (int j = 0; j < 4; ++j) row.Add(problem.Entry(m, i, j), 1.0);
      rows.push_back(problem.AddResourceConstraint(i, row, Sense::kGreaterEqual, p[i]));
      LinearExpr col;
      for (int k = 0; k < 4; ++k) col.Add(problem.Entry(m, k, i), 1.0);
      problem.AddDemandConstraint(i, col, Sense::kGreaterEqual, 1.0);
    }
    for (VarId v = 0; v < problem.num_variables(); ++v) problem.AddLinearCost(v, 1.0);
  }
};

TEST(AdmmSolver, ReSolveAfterParameterChangeUsesNewParameters) {
  ParamProblem warm;
  AdmmSolver solver(warm.problem, AdmmOptions());
  Allocation allocation;
  SolveSummary first;
  solver.Solve(&allocation, &first);
  ASSERT_TRUE(first.IsSolutionUsable()) << first.FullReport();
  EXPECT_NEAR(first.objective, 16.0, 16.0 * kObjectiveTolerance);
  for (int i = 0; i < 4; ++i)
    warm.problem.SetRhs(warm.rows[i], warm.problem.constraint(warm.rows[i]).rhs + 0.1);
  SolveSummary second;
  solver.Solve(&allocation, &second);
  ASSERT_TRUE(second.IsSolutionUsable()) << second.FullReport();
  EXPECT_NEAR(second.objective, 16.4, 16.4 * kObjectiveTolerance);
  EXPECT_LE(second.max_violation, kFeasibilityTolerance);
}

// After a parameter-only change the engine refreshes only the blocks it touched; a structural
// touch makes it refresh every block. Both must give the same iterates, bit for bit.
TEST(AdmmSolver, RefreshOfChangedBlocksMatchesAFullRefresh) {
  ParamProblem a, b;
  AdmmOptions options;
  options.max_iterations = 40;
  AdmmSolver sa(a.problem, options), sb(b.problem, options);
  Allocation xa, xb;
  SolveSummary first_a, first_b;
  sa.Solve(&xa, &first_a);
  sb.Solve(&xb, &first_b);
  for (ParamProblem* q : {&a, &b}) {
    q->problem.SetRhs(q->rows[1], q->problem.constraint(q->rows[1]).rhs + 0.7);
    q->problem.SetBounds(0, 0.0, 0.25);
    q->problem.SetLinearCost(3, q->problem.variable(3).linear_cost * 1.5);
  }
  b.problem.SetObjectiveSense(b.problem.objective_sense());  // unknown changes: full refresh
  Problem::Changes changes;
  ASSERT_TRUE(a.problem.ChangesSince(a.problem.revision() - 3, &changes));
  ASSERT_FALSE(b.problem.ChangesSince(b.problem.revision() - 4, &changes));
  SolveSummary second_a, second_b;
  sa.Solve(&xa, &second_a);
  sb.Solve(&xb, &second_b);
  ASSERT_TRUE(second_a.IsSolutionUsable()) << second_a.FullReport();
  EXPECT_EQ(xa.values, xb.values);
  EXPECT_EQ(second_a.iterations, second_b.iterations);
  EXPECT_LE(xa.values[0], 0.25 + kFeasibilityTolerance);
  EXPECT_LE(second_a.max_violation, kFeasibilityTolerance);
}

// A congested transport LP: maximize sum w x, row sums <= cap, column sums <= volume.
struct TransportProblem {
  Problem problem{20, 60};
  std::vector<ConstraintId> demand_rows;
  TransportProblem() {
    std::uint64_t state = 12345;
    auto uniform = [&state]() {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    const int m = problem.AddAllocation("x", Domain::NonNegative());
    problem.AddDenseEntries(m);
    problem.SetObjectiveSense(ObjectiveSense::kMaximize);
    for (VarId v = 0; v < problem.num_variables(); ++v) problem.AddLinearCost(v, 0.5 + uniform());
    for (int r = 0; r < 20; ++r) {
      LinearExpr row;
      for (int d = 0; d < 60; ++d) row.Add(problem.Entry(m, r, d), 1.0);
      problem.AddResourceConstraint(r, row, Sense::kLessEqual, 5.0 + 5.0 * uniform());
    }
    for (int d = 0; d < 60; ++d) {
      LinearExpr col;
      for (int r = 0; r < 20; ++r) col.Add(problem.Entry(m, r, d), 1.0);
      demand_rows.push_back(
          problem.AddDemandConstraint(d, col, Sense::kLessEqual, 1.0 + 2.0 * uniform()));
    }
  }
  void Perturb() {
    for (std::size_t d = 0; d < demand_rows.size(); ++d)
      problem.SetRhs(demand_rows[d],
                     problem.constraint(demand_rows[d]).rhs * (d % 2 ? 1.02 : 0.98));
  }
};

TEST(AdmmSolver, WarmStartAfterSmallParameterChangeNeedsFewerIterations) {
  TransportProblem warm;
  AdmmSolver solver(warm.problem, AdmmOptions());
  Allocation allocation;
  SolveSummary first;
  solver.Solve(&allocation, &first);
  ASSERT_TRUE(first.IsSolutionUsable()) << first.FullReport();
  warm.Perturb();
  SolveSummary second;
  solver.Solve(&allocation, &second);
  ASSERT_TRUE(second.IsSolutionUsable()) << second.FullReport();

  TransportProblem cold;
  cold.Perturb();
  AdmmSolver cold_solver(cold.problem, AdmmOptions());
  SolveSummary cold_summary;
  solver.Reset();
  cold_solver.Solve(&allocation, &cold_summary);
  ASSERT_TRUE(cold_summary.IsSolutionUsable());
  EXPECT_NEAR(second.objective, cold_summary.objective, 1e-3 * std::abs(cold_summary.objective));
  std::printf("warm %d iterations, cold %d\n", second.iterations, cold_summary.iterations);
  EXPECT_LT(2 * second.iterations, cold_summary.iterations)
      << "warm " << second.BriefReport() << "\ncold " << cold_summary.BriefReport();
}

// The engine keeps each side's per-slot costs in one array (PlaceLinearCosts): a block whose
// costs turn uniform leaves it, one whose costs turn per-slot joins it, and the array is laid
// out anew. Each warm solve after such a change reaches the monolithic optimum of the data it
// was given (and under the sanitizers, no block reads an array that has gone).
TEST(AdmmSolver, CostsThatChangeShapeBetweenSolvesReachTheExactOptimum) {
  TransportProblem transport;
  Problem& p = transport.problem;
  AdmmOptions options;
  options.num_threads = 2;
  options.eps_abs = 1e-7;
  options.eps_rel = 1e-7;
  AdmmSolver solver(p, options);
  const auto solve_and_compare = [&](const char* what) {
    Allocation allocation, exact_allocation;
    SolveSummary summary, exact;
    solver.Solve(&allocation, &summary);
    SolveExact(p, ExactOptions(), &exact_allocation, &exact);
    ASSERT_EQ(summary.termination, Termination::kConverged) << what << summary.BriefReport();
    ASSERT_EQ(exact.termination, Termination::kConverged) << what;
    EXPECT_NEAR(summary.objective, exact.objective, 1e-4 * std::abs(exact.objective)) << what;
  };
  solve_and_compare("per-slot costs: ");
  // Demand 0's entries and resource 3's: one cost each (their blocks' costs turn uniform).
  for (int r = 0; r < 20; ++r) p.SetLinearCost(p.Entry(0, r, 0), 1.25);
  for (int d = 0; d < 60; ++d) p.SetLinearCost(p.Entry(0, 3, d), 0.75);
  solve_and_compare("two uniform blocks: ");
  // Back to costs that differ, and every block of one side uniform for a while.
  for (int r = 0; r < 20; ++r) p.SetLinearCost(p.Entry(0, r, 0), 0.5 + 0.05 * r);
  solve_and_compare("per-slot again: ");
  for (VarId v = 0; v < p.num_variables(); ++v) p.SetLinearCost(v, 1.0);
  solve_and_compare("one cost for all: ");
  for (VarId v = 0; v < p.num_variables(); ++v) p.SetLinearCost(v, 0.5 + 0.001 * v);
  solve_and_compare("per-slot from uniform: ");
}

// With the allocation taken from the demand side (the default) the demand half step writes
// the resource side's targets over x, which only the next resource half step reads; with the
// resource side's values as the allocation the targets keep an array of their own. The
// iterates are the same either way, bit for bit: every check's residuals, objective and
// penalty, through the penalty updates (which rewrite every target), checks between plain
// iterations, and a second solve after a parameter change.
TEST(AdmmSolver, TargetsOverXLeaveEveryIterateAsItWas) {
  std::vector<IterationSummary> traces[2][2];
  int iterations[2][2] = {};
  for (int mode = 0; mode < 2; ++mode) {
    TransportProblem transport;
    AdmmOptions options;
    options.num_threads = 2;
    options.check_termination_every = 3;
    options.max_iterations = 150;
    // (The repair projects each side's values with the blocks' own solvers, whose next
    // searches start from its multipliers: the sides' values differ, so would the next solve.)
    options.repair = false;
    options.final_iterate = mode == 0 ? FinalIterate::kDemandSide : FinalIterate::kResourceSide;
    AdmmSolver solver(transport.problem, options);
    for (int round = 0; round < 2; ++round) {
      Allocation allocation;
      SolveSummary summary;
      solver.Solve(&allocation, &summary);
      ASSERT_FALSE(summary.trace.empty()) << summary.message;
      traces[mode][round] = summary.trace;
      iterations[mode][round] = summary.iterations;
      transport.Perturb();
    }
  }
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(iterations[0][round], iterations[1][round]) << "round " << round;
    ASSERT_EQ(traces[0][round].size(), traces[1][round].size()) << "round " << round;
    EXPECT_GT(traces[0][round].size(), 3u);
    for (std::size_t k = 0; k < traces[0][round].size(); ++k) {
      const IterationSummary& a = traces[0][round][k];
      const IterationSummary& b = traces[1][round][k];
      EXPECT_EQ(a.iteration, b.iteration);
      EXPECT_EQ(a.primal_residual, b.primal_residual) << "round " << round << ", " << a.iteration;
      EXPECT_EQ(a.dual_residual, b.dual_residual) << "round " << round << ", " << a.iteration;
      EXPECT_EQ(a.objective, b.objective) << "round " << round << ", " << a.iteration;
      EXPECT_EQ(a.rho, b.rho) << "round " << round << ", " << a.iteration;
    }
  }
}

TEST(AdmmSolver, ResultIsIdenticalForOneAndTwoThreads) {
  std::vector<double> results[2];
  for (int t = 1; t <= 2; ++t) {
    const Problem problem = MaxMinProblem();
    AdmmOptions options;
    options.num_threads = t;
    AdmmSolver solver(problem, options);
    Allocation allocation;
    SolveSummary summary;
    solver.Solve(&allocation, &summary);
    results[t - 1] = allocation.values;
  }
  ASSERT_FALSE(results[0].empty());
  EXPECT_EQ(results[0], results[1]);
}

TEST(AdmmSolver, StopRequestCancels) {
  const Problem problem = MaxMinProblem();
  AdmmSolver solver(problem, AdmmOptions());
  std::stop_source source;
  source.request_stop();
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(source.get_token(), &allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kCancelled);
}

TEST(AdmmSolver, InfeasibleBlockIsReportedWithItsName) {
  Problem p(1, 1);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId x = p.AddEntry(m, 0, 0);
  p.AddDemandConstraint(0, LinearExpr().Add(x, 1.0), Sense::kLessEqual, -1.0);
  AdmmSolver solver(p, AdmmOptions());
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kInfeasible) << summary.message;
  EXPECT_NE(summary.message.find("Demand block 0"), std::string::npos) << summary.message;
}

// Two resources of capacity 1.5 serve three unit demands; resource 0 is free, resource 1
// costs 1 per unit. Early iterates disagree: the demand side routes everything to resource 0.
Problem TwoSidedProblem() {
  Problem p(2, 3);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  p.AddDenseEntries(m);
  for (int r = 0; r < 2; ++r) {
    LinearExpr row;
    for (int d = 0; d < 3; ++d) row.Add(p.Entry(m, r, d), 1.0);
    p.AddResourceConstraint(r, row, Sense::kLessEqual, 1.5);
  }
  for (int d = 0; d < 3; ++d) {
    LinearExpr col;
    for (int r = 0; r < 2; ++r) col.Add(p.Entry(m, r, d), 1.0);
    p.AddDemandConstraint(d, col, Sense::kEqual, 1.0);
    p.AddLinearCost(p.Entry(m, 1, d), 1.0);
  }
  return p;
}

double RowSum(const Problem& p, const Allocation& a, int r) {
  double sum = 0.0;
  for (int d = 0; d < 3; ++d) sum += a[p.Entry(0, r, d)];
  return sum;
}

double ColumnSum(const Problem& p, const Allocation& a, int d) {
  double sum = 0.0;
  for (int r = 0; r < 2; ++r) sum += a[p.Entry(0, r, d)];
  return sum;
}

TEST(AdmmSolver, FinalIterateSelectsWhichSidesConstraintsHoldBeforeRepair) {
  const Problem problem = TwoSidedProblem();
  AdmmOptions options;
  options.max_iterations = 2;
  options.check_termination_every = 1;
  options.repair = false;
  Allocation demand_side, resource_side;
  SolveSummary summary;
  {
    AdmmSolver solver(problem, options);
    solver.Solve(&demand_side, &summary);
    ASSERT_EQ(summary.iterations, 2) << summary.FullReport();
  }
  options.final_iterate = FinalIterate::kResourceSide;
  {
    AdmmSolver solver(problem, options);
    solver.Solve(&resource_side, &summary);
    ASSERT_EQ(summary.iterations, 2) << summary.FullReport();
  }
  // The copies have not met yet: the demand side overloads resource 0 ...
  EXPECT_GT(RowSum(problem, demand_side, 0), 1.5 + 1e-3);
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(ColumnSum(problem, demand_side, d), 1.0, 1e-9);
  // ... and the resource side fits both capacities but does not serve every demand in full.
  double worst_column = 0.0;
  for (int r = 0; r < 2; ++r) EXPECT_LE(RowSum(problem, resource_side, r), 1.5 + 1e-9);
  for (int d = 0; d < 3; ++d) {
    worst_column = std::max(worst_column, std::abs(ColumnSum(problem, resource_side, d) - 1.0));
  }
  EXPECT_GT(worst_column, 1e-3);
  for (const double v : resource_side.values) EXPECT_GE(v, -1e-12);
}

TEST(AdmmSolver, IterationBudgetReturnsRepairedAllocation) {
  ParamProblem pp;
  AdmmOptions options;
  options.max_iterations = 5;
  options.check_termination_every = 5;
  AdmmSolver solver(pp.problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  EXPECT_EQ(summary.iterations, 5);
  EXPECT_TRUE(summary.termination == Termination::kMaxIterations ||
              summary.termination == Termination::kConvergedInaccurate);
  EXPECT_TRUE(summary.feasible) << summary.FullReport();
  EXPECT_EQ(static_cast<int>(allocation.values.size()), pp.problem.num_variables());
}

}  // namespace
}  // namespace dede

namespace dede {
namespace {

TEST(AdmmSolver, WarmStartFromStoredAllocationConvergesQuickly) {
  TransportProblem first;
  AdmmSolver solver(first.problem, AdmmOptions());
  Allocation allocation;
  SolveSummary cold;
  solver.Solve(&allocation, &cold);
  ASSERT_TRUE(cold.IsSolutionUsable());
  // A new process: a fresh solver on an identical problem, started from the stored values.
  TransportProblem second;
  AdmmSolver restarted(second.problem, AdmmOptions());
  restarted.WarmStart(allocation.values);
  Allocation again;
  SolveSummary warm;
  restarted.Solve(&again, &warm);
  ASSERT_TRUE(warm.IsSolutionUsable()) << warm.FullReport();
  EXPECT_NEAR(warm.objective, cold.objective, 1e-3 * std::abs(cold.objective));
  EXPECT_LT(warm.iterations, cold.iterations) << warm.BriefReport() << "\n" << cold.BriefReport();
}

}  // namespace
}  // namespace dede

namespace dede {
namespace {

// Generalized assignment: 8 machines x 400 jobs, binary x, each job on exactly one machine,
// knapsack capacity per machine. Each machine block is a 150-binary knapsack, whose branch and
// bound alone can take far longer than the budget (without the deadline inside branch and
// bound this solve ran past 120 s); the time limit must still hold.
std::unique_ptr<Problem> GeneralizedAssignment(int machines, int jobs, unsigned seed) {
  auto problem = std::make_unique<Problem>(machines, jobs);
  const int x = problem->AddAllocation("x", Domain::Binary());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> cost(1.0, 10.0), size(1.0, 5.0);
  std::vector<LinearExpr> rows(machines);
  double total = 0;
  for (int j = 0; j < jobs; ++j) {
    LinearExpr column;
    const double s = size(rng);
    total += s;
    for (int m = 0; m < machines; ++m) {
      const VarId v = problem->AddEntry(x, m, j);
      problem->AddLinearCost(v, cost(rng));
      column.Add(v, 1.0);
      rows[m].Add(v, s * (0.8 + 0.4 * (m % 3)));
    }
    problem->AddDemandConstraint(j, column, Sense::kEqual, 1.0);
  }
  for (int m = 0; m < machines; ++m) {
    problem->AddResourceConstraint(m, rows[m], Sense::kLessEqual, 1.02 * total / machines);
  }
  return problem;
}

TEST(AdmmSolver, TimeLimitHoldsThroughIntegerBranchAndBound) {
  const auto problem = GeneralizedAssignment(8, 400, 5);
  AdmmOptions options;
  options.num_threads = 1;
  options.time_limit_seconds = 0.5;
  options.integer_iterations = 1000;
  AdmmSolver solver(*problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  std::printf("termination %s after %.3f s (solve %.3f, repair %.3f), %d iterations\n",
              TerminationName(summary.termination),
              summary.total_seconds,
              summary.solve_seconds,
              summary.repair_seconds,
              summary.iterations);
  EXPECT_LT(summary.solve_seconds, 0.5 + 1.5);
}

// In the integer phase rho grows by integer_rho_growth at every check, up to rho_max (or up to
// the initial rho when that is larger), and never past it.
TEST(AdmmSolver, IntegerPhaseRhoGrowsUpToTheCeiling) {
  const auto problem = GeneralizedAssignment(4, 40, 3);
  for (const double initial : {0.1, 4.0}) {
    AdmmOptions options;
    options.num_threads = 1;
    options.rho = initial;
    options.rho_max = 1.0;
    options.rho_update = RhoUpdate::kFixed;
    options.max_iterations = 2;  // the integer phase starts at iteration 3
    options.integer_iterations = 40;
    options.integer_rho_growth = 2.0;
    options.check_termination_every = 1;
    AdmmSolver solver(*problem, options);
    Allocation allocation;
    SolveSummary summary;
    solver.Solve(&allocation, &summary);
    ASSERT_GE(summary.trace.size(), 8u) << summary.FullReport();
    const double ceiling = std::max(1.0, initial);
    double highest = 0;
    for (const IterationSummary& it : summary.trace) {
      EXPECT_LE(it.rho, ceiling * (1 + 1e-12)) << "iteration " << it.iteration;
      highest = std::max(highest, it.rho);
    }
    // 0.1 doubles to 0.8 (1.6 would pass rho_max); 4 is above rho_max already and stays.
    EXPECT_DOUBLE_EQ(highest, initial < 1.0 ? 0.8 : 4.0) << "initial rho " << initial;
  }
}

// Many small demand blocks with three rows each: every block is a QP for Clp, so one half step
// takes a long time compared with the budget below.
std::unique_ptr<Problem> ThreeRowDemandBlocks(int resources, int demands) {
  auto problem = std::make_unique<Problem>(resources, demands);
  const int x = problem->AddAllocation("x", Domain::NonNegative());
  std::vector<LinearExpr> rows(resources);
  for (int d = 0; d < demands; ++d) {
    LinearExpr total, mix;
    for (int r = 0; r < resources; ++r) {
      const VarId v = problem->AddEntry(x, r, d);
      problem->AddLinearCost(v, -1.0 - 0.1 * ((r + d) % 5));
      total.Add(v, 1.0);
      mix.Add(v, r % 2 == 0 ? 1.0 : -0.5);
      rows[r].Add(v, 1.0);
    }
    problem->AddDemandConstraint(d, total, Sense::kLessEqual, 1.0);
    problem->AddDemandConstraint(d, mix, Sense::kGreaterEqual, 0.1);
    LinearExpr pair;
    pair.Add(problem->Entry(x, 0, d), 1.0);
    pair.Add(problem->Entry(x, 1, d), 1.0);
    problem->AddDemandConstraint(d, pair, Sense::kLessEqual, 0.8);
  }
  for (int r = 0; r < resources; ++r) {
    problem->AddResourceConstraint(r, rows[r], Sense::kLessEqual, 0.3 * demands);
  }
  problem->SetObjectiveSense(ObjectiveSense::kMinimize);
  return problem;
}

// Enough demand blocks that one half step takes a long time compared with a twentieth of it
// (a sanitizer build's Clp calls are as fast as Release's and the rest is slower: fewer).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kHalfStepDemands = 2500;
#else
constexpr int kHalfStepDemands = 12000;
#endif

TEST(AdmmSolver, TimeLimitHoldsInsideAHalfStep) {
  const auto problem = ThreeRowDemandBlocks(6, kHalfStepDemands);
  AdmmOptions options;
  options.num_threads = 1;
  options.max_iterations = 1;
  options.repair = false;
  Allocation allocation;
  SolveSummary one;
  {
    AdmmSolver solver(*problem, options);
    solver.Solve(&allocation, &one);
  }
  ASSERT_EQ(one.iterations, 1) << one.message;
  const double iteration = one.resource_seconds + one.demand_seconds;

  options.max_iterations = 1000;
  options.time_limit_seconds = iteration / 20;
  AdmmSolver solver(*problem, options);
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  std::printf("one iteration %.3f s; with a %.4f s budget: %s after %.4f s, %d iterations: %s\n",
              iteration,
              options.time_limit_seconds,
              TerminationName(summary.termination),
              summary.solve_seconds,
              summary.iterations,
              summary.message.c_str());
  EXPECT_EQ(summary.termination, Termination::kTimeLimit);
  EXPECT_LE(summary.iterations, 1);  // a partial iteration counts
  // Less than one whole iteration: the stop ended the first half steps (a loaded machine can
  // delay the stopper's wake-up, so the bound is the iteration, not a fraction of it).
  EXPECT_LT(summary.solve_seconds, iteration);
  EXPECT_EQ(allocation.values.size(), static_cast<std::size_t>(problem->num_variables()));
}

TEST(AdmmSolver, StopRequestedInsideAHalfStepEndsTheSolve) {
  const auto problem = ThreeRowDemandBlocks(6, kHalfStepDemands);
  AdmmOptions options;
  options.num_threads = 1;
  options.repair = false;
  options.max_iterations = 1;
  Allocation allocation;
  SolveSummary one;
  {
    AdmmSolver solver(*problem, options);
    solver.Solve(&allocation, &one);
  }
  const double iteration = one.resource_seconds + one.demand_seconds;
  options.max_iterations = 1000;
  AdmmSolver solver(*problem, options);
  std::stop_source source;
  SolveSummary summary;
  std::jthread stopper([&source, iteration] {
    std::this_thread::sleep_for(std::chrono::duration<double>(iteration / 20));
    source.request_stop();
  });
  solver.Solve(source.get_token(), &allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kCancelled) << summary.message;
  EXPECT_LE(summary.iterations, 1);  // a partial iteration counts
  // Less than one whole iteration: the stop ended the first half steps (a loaded machine can
  // delay the stopper's wake-up, so the bound is the iteration, not a fraction of it).
  EXPECT_LT(summary.solve_seconds, iteration);
}

TEST(AdmmSolver, SetupTimeIsChargedToTheFirstSolveOnly) {
  const auto problem = ThreeRowDemandBlocks(3, 200);
  AdmmOptions options;
  options.num_threads = 1;
  options.max_iterations = 5;
  AdmmSolver solver(*problem, options);
  Allocation allocation;
  SolveSummary first, second;
  solver.Solve(&allocation, &first);
  solver.Solve(&allocation, &second);
  EXPECT_GT(first.setup_seconds, 0.0);
  EXPECT_NEAR(first.total_seconds,
              first.setup_seconds + first.solve_seconds + std::max(first.repair_seconds, 0.0),
              1e-3);
  EXPECT_EQ(second.setup_seconds, 0.0);
  EXPECT_LT(second.total_seconds,
            second.solve_seconds + std::max(second.repair_seconds, 0.0) + 1e-3);
}

// Anderson acceleration: the same optimum as the plain iteration and the exact LP, in fewer
// iterations, identical for any thread count, with every step counted.
TEST(AdmmSolver, AndersonAccelerationConvergesToTheSameOptimumInFewerIterations) {
  TransportProblem plain_problem, fast_problem;
  AdmmOptions options;
  options.eps_abs = 1e-7;
  options.eps_rel = 1e-6;
  options.num_threads = 1;
  Allocation plain_allocation, fast_allocation, exact_allocation;
  SolveSummary plain, fast, exact;
  AdmmSolver plain_solver(plain_problem.problem, options);
  plain_solver.Solve(&plain_allocation, &plain);
  options.anderson_memory = 5;
  AdmmSolver fast_solver(fast_problem.problem, options);
  fast_solver.Solve(&fast_allocation, &fast);
  SolveExact(plain_problem.problem, ExactOptions(), &exact_allocation, &exact);
  ASSERT_EQ(plain.termination, Termination::kConverged) << plain.BriefReport();
  ASSERT_EQ(fast.termination, Termination::kConverged) << fast.BriefReport();
  ASSERT_EQ(exact.termination, Termination::kConverged);
  EXPECT_NEAR(fast.objective, exact.objective, 1e-5 * std::abs(exact.objective));
  EXPECT_NEAR(plain.objective, exact.objective, 1e-5 * std::abs(exact.objective));
  EXPECT_EQ(plain.anderson_steps, -1);
  EXPECT_GT(fast.anderson_steps, 0);
  EXPECT_GE(fast.anderson_rejections, 0);
  std::printf("plain %d iterations, Anderson %d (%d steps, %d rejected)\n",
              plain.iterations,
              fast.iterations,
              fast.anderson_steps,
              fast.anderson_rejections);
  EXPECT_LT(fast.iterations, plain.iterations) << plain.BriefReport() << "\n" << fast.BriefReport();
}

TEST(AdmmSolver, AndersonResultIsIdenticalForOneAndTwoThreads) {
  std::vector<double> results[2];
  for (int t = 1; t <= 2; ++t) {
    TransportProblem transport;
    AdmmOptions options;
    options.num_threads = t;
    options.anderson_memory = 4;
    options.anderson_interval = 3;
    AdmmSolver solver(transport.problem, options);
    Allocation allocation;
    SolveSummary summary;
    solver.Solve(&allocation, &summary);
    results[t - 1] = allocation.values;
  }
  ASSERT_FALSE(results[0].empty());
  EXPECT_EQ(results[0], results[1]);
}

TEST(AdmmSolver, AndersonOnTheMaxMinTermKeepsTheOptimum) {
  const Problem problem = MaxMinProblem();
  AdmmOptions options;
  options.anderson_memory = 5;
  options.anderson_interval = 5;
  AdmmSolver solver(problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
  EXPECT_NEAR(summary.objective, 2.0 / 3.0, kObjectiveTolerance);
}

TEST(AdmmSolver, ObserverSeesEveryCheckAndCanStopTheSolve) {
  TransportProblem transport;
  AdmmOptions options;
  options.check_termination_every = 5;
  AdmmSolver solver(transport.problem, options);
  std::vector<int> seen;
  solver.SetObserver([&](const IterationSummary& it) {
    seen.push_back(it.iteration);
    EXPECT_GT(it.primal_scale, 0.0);
    return it.iteration < 20;
  });
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kCancelled) << summary.message;
  EXPECT_EQ(seen, (std::vector<int>{5, 10, 15, 20}));
  EXPECT_EQ(summary.iterations, 20);
  EXPECT_EQ(allocation.values.size(), static_cast<std::size_t>(transport.problem.num_variables()));
}

// Min max utilisation with flows in the hundreds over capacities in the thousands: the
// utilisation copies t_b live on a scale (about 1) far from the entries', and their duals share
// the objective weight among a few bottleneck links. With their own penalty factor, balanced on
// their own residuals, the engine gets within 1e-4 of the exact optimum in fewer iterations.
Problem ScaledMinMaxUtilization() {
  const int links = 30, demands = 60;
  Problem p(links, demands);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> capacity(1000, 5000), volume(100, 1000);
  std::uniform_int_distribution<int> link(0, links - 1);
  const int m = p.AddAllocation("f", Domain::NonNegative());
  std::vector<LinearExpr> load(links);
  std::vector<double> cap(links);
  for (double& c : cap) c = capacity(rng);
  for (int d = 0; d < demands; ++d) {
    LinearExpr col;
    std::vector<int> used;
    while (used.size() < 3) {
      const int l = link(rng);
      if (std::find(used.begin(), used.end(), l) == used.end()) used.push_back(l);
    }
    for (int l : used) {
      const VarId f = p.AddEntry(m, l, d);
      col.Add(f, 1.0);
      load[l].Add(f, 1.0 / cap[l]);
    }
    p.AddDemandConstraint(d, col, Sense::kEqual, volume(rng));
  }
  p.SetObjectiveSense(ObjectiveSense::kMinimize);
  std::vector<int> blocks(links);
  std::iota(blocks.begin(), blocks.end(), 0);
  p.SetGlobalTerm(GlobalKind::kMinMax, Side::kResource, blocks, load);
  return p;
}

// Iterations until the demand-side iterate of `options` is within 1e-4 of `optimum` and the
// copies agree to 1e-4 (relative), as dede_bench convergence measures it; -1 if never.
int IterationsTo1e4(const Problem& problem,
                    AdmmOptions options,
                    double optimum,
                    SolveSummary* summary = nullptr) {
  options.eps_abs = 0;
  options.eps_rel = 1e-15;
  options.max_iterations = 30000;
  options.check_termination_every = 5;
  AdmmSolver solver(problem, options);
  int reached = -1;
  solver.SetObserver([&](const IterationSummary& it) {
    const bool close = std::abs(it.objective - optimum) <= 1e-4 * std::abs(optimum) &&
                       it.primal_residual <= 1e-4 * it.primal_scale;
    if (close) reached = it.iteration;
    return !close;
  });
  Allocation allocation;
  SolveSummary local;
  solver.Solve(&allocation, summary != nullptr ? summary : &local);
  return reached;
}

// The exact optimum of `problem` (Clp), asserting it converged.
double ExactObjective(const Problem& problem) {
  Allocation allocation;
  SolveSummary exact;
  SolveExact(problem, ExactOptions(), &allocation, &exact);
  EXPECT_EQ(exact.termination, Termination::kConverged) << exact.message;
  return exact.objective;
}

TEST(AdmmSolver, GlobalTermPenaltyBalancingReachesTheOptimumInFewerIterations) {
  const Problem problem = ScaledMinMaxUtilization();
  const double optimum = ExactObjective(problem);
  int reached[2] = {-1, -1};
  for (int balanced = 0; balanced < 2; ++balanced) {
    AdmmOptions options;
    options.global_rho_balancing = balanced == 1;
    reached[balanced] = IterationsTo1e4(problem, options, optimum);
  }
  std::printf(
      "min max utilisation %.6f: 1e-4 after %d iterations with the global penalty "
      "balanced, %d without\n",
      optimum,
      reached[1],
      reached[0]);
  ASSERT_GT(reached[1], 0) << "the balanced run did not reach 1e-4";
  EXPECT_TRUE(reached[0] < 0 || reached[1] < reached[0]);
}

// Per-copy factors: of the 30 link copies only the bottlenecks carry the objective's dual; the
// others, at a factor of 1, hold alpha back. With factors from each copy's dual share the
// optimum is reached in fewer iterations, and the summary reports the factors' range.
TEST(AdmmSolver, GlobalCopyFactorsReachTheOptimumInFewerIterations) {
  const Problem problem = ScaledMinMaxUtilization();
  const double optimum = ExactObjective(problem);
  AdmmOptions options;
  options.global_copy_balancing = false;
  SolveSummary plain_summary, copies_summary;
  const int plain = IterationsTo1e4(problem, options, optimum, &plain_summary);
  options.global_copy_balancing = true;
  const int copies = IterationsTo1e4(problem, options, optimum, &copies_summary);
  std::printf(
      "min max utilisation: 1e-4 after %d iterations with per-copy factors, %d "
      "without\n",
      copies,
      plain);
  ASSERT_GT(copies, 0) << copies_summary.FullReport();
  EXPECT_TRUE(plain < 0 || copies < plain);
  EXPECT_EQ(plain_summary.copy_factor_min, 1.0);
  EXPECT_EQ(plain_summary.copy_factor_max, 1.0);
  EXPECT_LT(copies_summary.copy_factor_min, 1.0) << copies_summary.FullReport();
  EXPECT_GT(copies_summary.copy_factor_max, 1.0);
  EXPECT_NE(copies_summary.FullReport().find("global term's copies x"), std::string::npos);
}

// Per-block factors on the links: the optimum is still the exact LP's, the summary reports the
// entries' factors, and a cold start forgets them (two cold solves are bitwise identical).
TEST(AdmmSolver, BlockFactorsKeepTheOptimumAndResetOnAColdStart) {
  const Problem problem = ScaledMinMaxUtilization();
  AdmmOptions options;
  options.block_rho_balancing = BlockBalancing::kResource;
  SolveSummary summary;
  ASSERT_GT(IterationsTo1e4(problem, options, ExactObjective(problem), &summary), 0)
      << summary.FullReport();
  EXPECT_LT(summary.entry_weight_min, summary.entry_weight_max) << summary.FullReport();

  options.max_iterations = 400;
  options.eps_abs = options.eps_rel = 0;
  AdmmSolver solver(problem, options);
  Allocation first, second;
  SolveSummary s1, s2;
  solver.Solve(&first, &s1);
  solver.Reset();
  solver.Solve(&second, &s2);
  EXPECT_EQ(first.values, second.values);
  EXPECT_EQ(s1.entry_weight_min, s2.entry_weight_min);
  EXPECT_EQ(s1.entry_weight_max, s2.entry_weight_max);
  EXPECT_EQ(s1.rho, s2.rho);
}

// The second stage on test_fixtures::SpareCapacity: job 0 gets all of resource 0 (value 1) and job
// 1 keeps the minimum 0.5.
TEST(AdmmSolver, FillAfterMaxMinUsesCapacityTheMinimumDoesNotNeed) {
  const test_fixtures::SpareCapacity instance;
  const Problem& p = instance.problem;
  const VarId x00 = instance.x00, x10 = instance.x10, x11 = instance.x11;
  AdmmOptions options;
  options.fill_after_max_min = true;
  options.eps_abs = 1e-7;
  options.eps_rel = 1e-6;
  AdmmSolver solver(p, options);
  Allocation a;
  SolveSummary summary;
  solver.Solve(&a, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
  EXPECT_NEAR(summary.objective, 0.5, 1e-3) << summary.message;
  EXPECT_GT(summary.fill_iterations, 0);
  EXPECT_NE(summary.message.find("maximising the total"), std::string::npos) << summary.message;
  EXPECT_NEAR(a[x00] + a[x10], 1.0, 1e-3) << summary.message;
  EXPECT_NEAR(a[x11], 0.5, 1e-3);
  // The blocks are restored: the next solve (without the option) is a plain max-min again.
  options.fill_after_max_min = false;
  ASSERT_TRUE(solver.SetOptions(options).ok());
  SolveSummary again;
  solver.Solve(&a, &again);
  ASSERT_TRUE(again.IsSolutionUsable()) << again.FullReport();
  EXPECT_NEAR(again.objective, 0.5, 1e-3);
  EXPECT_EQ(again.fill_iterations, -1);
}

// Equilibration scales each entry's penalty by its largest constraint coefficient squared
// (over their geometric mean): jobs of 1 and 4 GPUs get factors 1/4 and 4 here. The optimum
// is the exact LP's either way, and the summary reports the factors.
TEST(AdmmSolver, EquilibrationReportsItsScalingAndKeepsTheOptimum) {
  Problem p(2, 4);
  const int m = p.AddAllocation("x", Domain::Box(0.0, 1.0));
  p.AddDenseEntries(m);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  const double gpus[4] = {1, 4, 1, 4};
  const double speed[2] = {1.0, 2.5};
  for (int r = 0; r < 2; ++r) {
    LinearExpr row;
    for (int d = 0; d < 4; ++d) row.Add(p.Entry(m, r, d), gpus[d]);
    p.AddResourceConstraint(r, row, Sense::kLessEqual, 4.0);
  }
  for (int d = 0; d < 4; ++d) {
    LinearExpr col;
    for (int r = 0; r < 2; ++r) {
      col.Add(p.Entry(m, r, d), 1.0);
      p.AddLinearCost(p.Entry(m, r, d), speed[r] * gpus[d] * (1.0 + 0.1 * d));
    }
    p.AddDemandConstraint(d, col, Sense::kLessEqual, 1.0);
  }
  Allocation exact_allocation;
  SolveSummary exact;
  SolveExact(p, ExactOptions(), &exact_allocation, &exact);
  ASSERT_EQ(exact.termination, Termination::kConverged);
  for (bool equilibrate : {false, true}) {
    AdmmOptions options;
    options.equilibrate = equilibrate;
    options.eps_abs = 1e-7;
    options.eps_rel = 1e-6;
    AdmmSolver solver(p, options);
    Allocation a;
    SolveSummary summary;
    solver.Solve(&a, &summary);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
    EXPECT_NEAR(summary.objective, exact.objective, 1e-4 * std::abs(exact.objective));
    EXPECT_NEAR(summary.entry_weight_min, equilibrate ? 0.25 : 1.0, 1e-12);
    EXPECT_NEAR(summary.entry_weight_max, equilibrate ? 4.0 : 1.0, 1e-12);
    EXPECT_EQ(summary.global_weight, -1);
    EXPECT_NE(summary.FullReport().find("penalty scaling: entries x"), std::string::npos);
  }
}

}  // namespace
}  // namespace dede

namespace dede {
namespace {

// A dense transport problem whose supplies exactly meet its demands: alternating projections
// from a poor start need many rounds.
Problem TightTransport(int resources, int demands, unsigned seed) {
  Problem p(resources, demands);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.5, 1.5);
  std::vector<double> demand(demands);
  double total = 0;
  for (double& d : demand) total += d = unit(rng);
  std::vector<LinearExpr> rows(resources), cols(demands);
  for (int r = 0; r < resources; ++r) {
    for (int d = 0; d < demands; ++d) {
      const VarId v = p.AddEntry(m, r, d);
      p.SetLinearCost(v, unit(rng));
      rows[r].Add(v, 1.0);
      cols[d].Add(v, 1.0);
    }
  }
  // Unequal capacities that add up to the total demand: an equal split violates some.
  std::vector<double> share(resources);
  double shares = 0;
  for (double& w : share) shares += w = unit(rng) * unit(rng);
  for (int r = 0; r < resources; ++r)
    p.AddResourceConstraint(r, rows[r], Sense::kLessEqual, total * share[r] / shares);
  for (int d = 0; d < demands; ++d) p.AddDemandConstraint(d, cols[d], Sense::kEqual, demand[d]);
  return p;
}

TEST(AdmmSolver, RepairStopsAtTheSolvesTimeLimit) {
  const Problem problem = TightTransport(6, 40, 7);
  AdmmOptions options;
  options.max_iterations = 1;
  options.feasibility_tolerance = 1e-9;
  Allocation unlimited_allocation;
  SolveSummary unlimited;
  AdmmSolver(problem, options).Solve(&unlimited_allocation, &unlimited);
  ASSERT_GT(unlimited.repair_rounds, 1) << unlimited.message;  // else this test proves nothing
  // A budget that is over before the first iteration: the repair stops after its first round.
  options.time_limit_seconds = 1e-9;
  options.max_iterations = 1;
  Allocation limited_allocation;
  SolveSummary limited;
  AdmmSolver(problem, options).Solve(&limited_allocation, &limited);
  EXPECT_EQ(limited.repair_rounds, 1) << limited.message;
  EXPECT_NE(limited.message.find("repair: stopped at the time limit"), std::string::npos)
      << limited.message;
  EXPECT_EQ(limited_allocation.values.size(), static_cast<std::size_t>(problem.num_variables()));
}

}  // namespace
// SetOptions takes the per-solve options and refuses, changing nothing, one that the solver's
// build reads (docs/configuration.md: lifetime set-up) or an invalid one.
TEST(AdmmSolver, SetOptionsRefusesSetUpOptions) {
  Problem problem(1, 1);
  const int m = problem.AddAllocation("x", Domain::NonNegative());
  const VarId x = problem.AddEntry(m, 0, 0);
  problem.AddResourceConstraint(0, LinearExpr().Add(x, 1.0), Sense::kLessEqual, 4.0);
  problem.AddDemandConstraint(0, LinearExpr().Add(x, 1.0), Sense::kLessEqual, 6.0);
  problem.SetObjectiveSense(ObjectiveSense::kMaximize);
  problem.AddLinearCost(x, 1.0);
  AdmmOptions options;
  options.num_threads = 1;
  AdmmSolver solver(problem, options);

  AdmmOptions changed = options;
  changed.equilibrate = !options.equilibrate;
  Status refused = solver.SetOptions(changed);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("AdmmOptions::equilibrate changed"), std::string::npos)
      << refused.message();
  changed = options;
  changed.block_rho_balancing = BlockBalancing::kDemand;
  EXPECT_FALSE(solver.SetOptions(changed).ok());
  changed = options;
  changed.entry_cost_side = EntryCostSide::kSplit;
  EXPECT_FALSE(solver.SetOptions(changed).ok());
  changed = options;
  changed.block_node_limit = options.block_node_limit + 1;
  EXPECT_FALSE(solver.SetOptions(changed).ok());
  changed = options;
  changed.relaxation = 2.5;
  Status invalid = solver.SetOptions(changed);
  EXPECT_EQ(invalid.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(invalid.message().find("relaxation"), std::string::npos) << invalid.message();
  EXPECT_EQ(solver.options().relaxation, options.relaxation) << "a refused change is not kept";

  // Per-solve options are taken and used by the next solve.
  changed = options;
  changed.max_iterations = 3;
  changed.eps_abs = 0;
  changed.eps_rel = 1e-12;
  ASSERT_TRUE(solver.SetOptions(changed).ok());
  EXPECT_EQ(solver.options().max_iterations, 3);
  Allocation a;
  SolveSummary summary;
  solver.Solve(&a, &summary);
  EXPECT_LE(summary.iterations, 3) << summary.FullReport();
}

}  // namespace dede
