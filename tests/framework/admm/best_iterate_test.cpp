// The best repaired iterate (AdmmEngine::TrackBest / ReturnBest): a continuous problem with a
// global term returns the best of its checks' repaired iterates when its last one is worse, so
// a solve stopped by its budget never returns less than one it passed.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"

namespace dede {
namespace {

// A contended max-min share, cluster-like: `types` resources with a few units each, `jobs`
// demands that may each use one unit of time in all, job j's rate on type r in [0.2, 1];
// maximise the smallest rate. Capacity is a third of what the jobs could use.
Problem ContendedMaxMin(int types, int jobs, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> rate(0.2, 1.0);
  Problem p(types, jobs);
  const int m = p.AddAllocation("x", Domain::Box(0.0, 1.0));
  p.AddDenseEntries(m);
  for (int r = 0; r < types; ++r) {
    LinearExpr row;
    for (int j = 0; j < jobs; ++j) row.Add(p.Entry(m, r, j), 1.0);
    p.AddResourceConstraint(r, row, Sense::kLessEqual, jobs / (3.0 * types));
  }
  std::vector<int> blocks;
  std::vector<LinearExpr> exprs;
  for (int j = 0; j < jobs; ++j) {
    LinearExpr col, value;
    for (int r = 0; r < types; ++r) {
      col.Add(p.Entry(m, r, j), 1.0);
      value.Add(p.Entry(m, r, j), rate(rng));
    }
    p.AddDemandConstraint(j, col, Sense::kLessEqual, 1.0);
    blocks.push_back(j);
    exprs.push_back(value);
  }
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, blocks, exprs);
  return p;
}

struct StoppedSolve {
  double objective = 0;
  bool returned_best = false;
};

StoppedSolve SolveFor(const Problem& problem, int iterations) {
  AdmmOptions options;
  options.rho = 0.1;
  options.num_threads = 1;
  options.max_iterations = iterations;
  options.eps_abs = options.eps_rel = 1e-12;  // stopped by the iteration cap
  AdmmSolver solver(problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  EXPECT_TRUE(summary.feasible) << summary.FullReport();
  return {summary.objective,
          summary.message.find("Returned the repaired iterate") != std::string::npos};
}

// The trials run at the checks (every 10 iterations) 10, 20, 30, 40, 50, 70, 90, 120, 150 (each
// the first check a quarter of the iterations so far after the last): stopped at any of them
// (where its last iterate is that trial), a solve returns at least what
// it returned stopped at an earlier one (the same iterates up to there), while the last iterate
// alone is not monotone on this problem (so some solve must have returned an earlier one).
TEST(BestIterate, MaxMinNeverReturnsLessThanAnEarlierStop) {
  const Problem problem = ContendedMaxMin(6, 60, 3);
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_EQ(exact_summary.termination, Termination::kConverged) << exact_summary.message;
  double previous = -1;
  int returned_best = 0;
  for (int k : {10, 20, 30, 40, 50, 70, 90, 120, 150}) {
    const StoppedSolve run = SolveFor(problem, k);
    EXPECT_GE(run.objective, previous * (1 - 1e-12)) << "stopped at " << k;
    EXPECT_LE(run.objective, exact_summary.objective * (1 + 1e-9)) << "stopped at " << k;
    previous = std::max(previous, run.objective);
    returned_best += run.returned_best ? 1 : 0;
  }
  EXPECT_GT(returned_best, 0) << "no solve returned an earlier iterate: the test measures nothing";
}

// A converged solve keeps its own allocation (a trial within rounding of it is not "better").
TEST(BestIterate, ConvergedSolveReturnsItsOwnAllocation) {
  const Problem problem = ContendedMaxMin(4, 20, 5);
  AdmmOptions options;
  options.rho = 0.1;
  options.num_threads = 1;
  options.eps_abs = 1e-8;
  options.eps_rel = 1e-7;
  AdmmSolver solver(problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.FullReport();
  EXPECT_EQ(summary.message.find("Returned the repaired iterate"), std::string::npos)
      << summary.message;
  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  EXPECT_NEAR(summary.objective, exact_summary.objective, 1e-4 * exact_summary.objective);
}

}  // namespace
}  // namespace dede
