// The certified bound and gap of a solve (bound.cpp) on hand-computed problems and against the
// exact solver, and the stop rule AdmmOptions::gap_tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "test_problems.h"

namespace dede {
namespace {

using testing::MaxMinProblem;

// A random transport LP: supplies (rows) with capacities, demands (columns) with sizes, a
// value per unit on every edge, maximised; contended (total demand twice the supply).
Problem TransportProblem(int resources, int demands, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(1.0, 10.0), size(0.5, 2.0);
  Problem p(resources, demands);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  p.AddDenseEntries(m);
  double total = 0;
  std::vector<double> demand(static_cast<std::size_t>(demands));
  for (double& d : demand) total += d = size(rng);
  for (int r = 0; r < resources; ++r) {
    LinearExpr row;
    for (int d = 0; d < demands; ++d) row.Add(p.Entry(m, r, d), 1.0);
    p.AddResourceConstraint(r, row, Sense::kLessEqual, 0.5 * total / resources);
  }
  for (int d = 0; d < demands; ++d) {
    LinearExpr col;
    for (int r = 0; r < resources; ++r) col.Add(p.Entry(m, r, d), 1.0);
    p.AddDemandConstraint(d, col, Sense::kLessEqual, demand[static_cast<std::size_t>(d)]);
  }
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v = 0; v < p.num_variables(); ++v) p.AddLinearCost(v, value(rng));
  return p;
}

double Optimum(const Problem& problem) {
  Allocation exact;
  SolveSummary summary;
  SolveExact(problem, ExactOptions{}, &exact, &summary);
  EXPECT_EQ(summary.termination, Termination::kConverged) << summary.message;
  return summary.objective;
}

TEST(CertifiedGap, MaxMinBoundHoldsAtEveryCheckAndMeetsTheOptimum) {
  const Problem problem = MaxMinProblem();
  AdmmSolver solver(problem, AdmmOptions());
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
  int checks = 0;
  for (const IterationSummary& it : summary.trace) {
    if (std::isnan(it.bound)) continue;
    ++checks;
    EXPECT_GE(it.bound, 2.0 / 3.0 - 1e-12) << "check " << it.iteration;
  }
  EXPECT_GT(checks, 0);
  EXPECT_GE(summary.bound, 2.0 / 3.0 - 1e-12);
  EXPECT_LE(summary.bound, 2.0 / 3.0 + 1e-3);
  EXPECT_LE(summary.gap, 1e-3) << summary.FullReport();
  EXPECT_NE(summary.BriefReport().find("certified gap"), std::string::npos);
}

TEST(CertifiedGap, ExactSolverReportsItsOwnGap) {
  const Problem problem = TransportProblem(6, 10, 3);
  Allocation exact;
  SolveSummary summary;
  SolveExact(problem, ExactOptions{}, &exact, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  EXPECT_LE(summary.gap, 1e-9);
  EXPECT_NEAR(summary.bound, summary.objective, 1e-6 * std::abs(summary.objective));
}

TEST(CertifiedGap, GapToleranceStopsBeforeTheResidualsWithTheGapWithinIt) {
  const Problem problem = TransportProblem(20, 30, 7);
  const double optimum = Optimum(problem);
  AdmmOptions tight;
  tight.eps_abs = 1e-7;
  tight.eps_rel = 1e-6;
  AdmmSolver full(problem, tight);
  Allocation a;
  SolveSummary converged;
  full.Solve(&a, &converged);
  ASSERT_EQ(converged.termination, Termination::kConverged) << converged.message;

  AdmmOptions options = tight;
  options.gap_tolerance = 0.01;
  AdmmSolver solver(problem, options);
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  EXPECT_NE(summary.message.find("Certified gap"), std::string::npos) << summary.message;
  EXPECT_TRUE(summary.feasible);
  EXPECT_LE(summary.gap, 0.01);
  EXPECT_LT(summary.iterations, converged.iterations);
  // The certificate holds against the true optimum.
  EXPECT_GE(summary.bound, optimum - 1e-9 * std::abs(optimum));
  const double true_gap = (optimum - summary.objective) / optimum;
  EXPECT_LE(true_gap, summary.gap + 1e-12);
}

TEST(CertifiedGap, InvalidToleranceNamesTheField) {
  AdmmOptions options;
  options.gap_tolerance = 1.5;
  std::string error;
  ASSERT_FALSE(options.IsValid(&error));
  EXPECT_EQ(error, "AdmmOptions::gap_tolerance = 1.5. Violated constraint: 0 <= gap_tolerance < 1");
}

}  // namespace
}  // namespace dede
