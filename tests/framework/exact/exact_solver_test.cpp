// SolveExact on small problems whose optima are computed by hand or by brute force here (never
// by another call into the solver), plus the two 10x10 reference problems.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/problem.h"
#include "dede/solver.h"
#include "framework/spare_capacity.h"

namespace dede {
namespace {

constexpr double kObjectiveTolerance = 1e-6;  // relative, LP / QP / MILP
constexpr double kValueTolerance = 1e-6;

double RelativeError(double value, double expected) {
  return std::abs(value - expected) / std::max(1.0, std::abs(expected));
}

// Deterministic pseudo-random integers so brute-force instances are reproducible.
class Lcg {
 public:
  explicit Lcg(std::uint64_t seed) : state_(seed) {}
  int Next(int lo, int hi) {  // uniform in [lo, hi]
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<int>((state_ >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
  }

 private:
  std::uint64_t state_;
};

struct Result {
  Allocation allocation;
  SolveSummary summary;
};

Result Solve(const Problem& problem, ExactOptions options = {}) {
  Result r;
  SolveExact(problem, options, &r.allocation, &r.summary);
  return r;
}

// ---- LP ----------------------------------------------------------------------------------

TEST(SolveExact, TinyLpMatchesHandComputedOptimum) {
  // max 3 x00 + 2 x01 + x10 + 4 x11; resource capacities 4, 6; demand limits 5, 3.
  // Primal x00 = 4, x11 = 3, x10 = 1 gives 25; duals (a, b, c, d) = (2, 0, 1, 4) give 25 too.
  Problem p(2, 2);
  const int x = p.AddAllocation("x", Domain::NonNegative());
  const std::vector<VarId> v = p.AddDenseEntries(x);
  const double value[2][2] = {{3, 2}, {1, 4}};
  for (int r = 0; r < 2; ++r)
    for (int d = 0; d < 2; ++d) p.AddLinearCost(v[r * 2 + d], value[r][d]);
  p.AddResourceConstraint(0, LinearExpr().Add(v[0], 1).Add(v[1], 1), Sense::kLessEqual, 4);
  p.AddResourceConstraint(1, LinearExpr().Add(v[2], 1).Add(v[3], 1), Sense::kLessEqual, 6);
  p.AddDemandConstraint(0, LinearExpr().Add(v[0], 1).Add(v[2], 1), Sense::kLessEqual, 5);
  p.AddDemandConstraint(1, LinearExpr().Add(v[1], 1).Add(v[3], 1), Sense::kLessEqual, 3);
  p.AddConstant(1.5);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);

  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp");
  EXPECT_NEAR(r.summary.objective, 26.5, kObjectiveTolerance);
  EXPECT_NEAR(r.summary.bound, 26.5, kObjectiveTolerance);
  EXPECT_TRUE(r.summary.feasible);
  EXPECT_LE(r.summary.max_violation, 1e-9);
  ASSERT_EQ(r.allocation.values.size(), 4u);
  EXPECT_NEAR(r.allocation[v[0]], 4, kValueTolerance);
  EXPECT_NEAR(r.allocation[v[1]], 0, kValueTolerance);
  EXPECT_NEAR(r.allocation[v[2]], 1, kValueTolerance);
  EXPECT_NEAR(r.allocation[v[3]], 3, kValueTolerance);
  EXPECT_GE(r.summary.iterations, 0);
  EXPECT_GE(r.summary.total_seconds, r.summary.solve_seconds);
  EXPECT_GE(r.summary.setup_seconds, 0);
}

TEST(SolveExact, LocalVariablesAndEqualitiesAreModelled) {
  // One resource with a local overflow variable that costs 10 per unit: demand 7 on a capacity
  // of 5 forces 2 units of overflow; minimise 1 * x + 10 * overflow = 7 + 20 = 27.
  Problem p(1, 1);
  const int x = p.AddAllocation("x", Domain::NonNegative());
  const VarId e = p.AddEntry(x, 0, 0);
  const VarId overflow = p.AddLocal(BlockId::Resource(0), Domain::Box(0, 100), "overflow");
  p.AddResourceConstraint(0, LinearExpr().Add(e, 1).Add(overflow, -1), Sense::kLessEqual, 5);
  p.AddDemandConstraint(0, LinearExpr().Add(e, 1), Sense::kEqual, 7);
  p.AddLinearCost(e, 1);
  p.AddLinearCost(overflow, 10);
  ExactOptions options;
  options.time_limit_seconds = kInfinity;  // no limit at all is valid too
  const Result r = Solve(p, options);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_NEAR(r.summary.objective, 27, kObjectiveTolerance);
  EXPECT_NEAR(r.allocation[overflow], 2, kValueTolerance);
}

TEST(SolveExact, ProblemWithoutVariablesReturnsItsConstant) {
  Problem p(1, 1);
  p.AddConstant(3.25);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.objective, 3.25);
  EXPECT_TRUE(r.allocation.values.empty());
}

TEST(SolveExact, InfeasibleLpReportsInfeasible) {
  Problem p(1, 1);
  const int x = p.AddAllocation("x", Domain::NonNegative());
  const VarId e = p.AddEntry(x, 0, 0);
  p.AddResourceConstraint(0, LinearExpr().Add(e, 1), Sense::kLessEqual, 1);
  p.AddDemandConstraint(0, LinearExpr().Add(e, 1), Sense::kGreaterEqual, 2);
  p.AddLinearCost(e, 1);
  Allocation allocation;
  allocation.values = {42.0};
  SolveSummary summary;
  SolveExact(p, ExactOptions{}, &allocation, &summary);
  EXPECT_EQ(summary.termination, Termination::kInfeasible) << summary.message;
  EXPECT_NE(summary.message.find("infeasible"), std::string::npos) << summary.message;
  EXPECT_EQ(allocation.values, std::vector<double>{42.0});  // no stale or partial result
}

TEST(SolveExact, UnboundedLpIsAFailureThatSaysUnbounded) {
  Problem p(1, 1);
  const int x = p.AddAllocation("x", Domain::NonNegative());
  const VarId e = p.AddEntry(x, 0, 0);
  p.AddResourceConstraint(0, LinearExpr().Add(e, 1), Sense::kGreaterEqual, 1);
  p.AddLinearCost(e, 1);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  const Result r = Solve(p);
  EXPECT_EQ(r.summary.termination, Termination::kFailure);
  EXPECT_NE(r.summary.message.find("unbounded"), std::string::npos) << r.summary.message;
}

TEST(SolveExact, InvalidProblemFailsWithTheValidationMessage) {
  // A log utility in a minimisation is not convex; Validate names the log term.
  Problem p(1, 1);
  const int x = p.AddAllocation("x", Domain::NonNegative());
  const VarId e = p.AddEntry(x, 0, 0);
  p.AddLogTerm(BlockId::Resource(0), LinearExpr().Add(e, 1), 1.0);
  std::string expected;
  ASSERT_FALSE(p.Validate(&expected));
  const Result r = Solve(p);
  EXPECT_EQ(r.summary.termination, Termination::kFailure);
  EXPECT_NE(r.summary.message.find(expected), std::string::npos) << r.summary.message;
  EXPECT_TRUE(r.allocation.values.empty());
}

TEST(SolveExact, InvalidOptionsFailNamingTheField) {
  Problem p(1, 1);
  ExactOptions options;
  options.max_cut_rounds = 0;
  const Result r = Solve(p, options);
  EXPECT_EQ(r.summary.termination, Termination::kFailure);
  EXPECT_NE(r.summary.message.find("max_cut_rounds"), std::string::npos) << r.summary.message;
}

// ---- QP ----------------------------------------------------------------------------------
// The default handles squares by outer approximation: the objective is exact to the cut
// tolerance, the point to about its square root. The tests that pin points to 1e-5 use Clp's
// QP primal (ExactOptions::use_clp_qp), which is exact where it works.

ExactOptions ClpQp() {
  ExactOptions options;
  options.use_clp_qp = true;
  return options;
}

TEST(SolveExact, DefaultQpUsesOuterApproximationWithExactObjective) {
  // min (x - 1)^2 + (y - 2)^2 s.t. x + y <= 2: the projection of (1, 2) is (0.5, 1.5), value 0.5.
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId x = p.AddEntry(m, 0, 0);
  const VarId y = p.AddEntry(m, 0, 1);
  p.AddQuadraticCost(x, 1);
  p.AddLinearCost(x, -2);
  p.AddQuadraticCost(y, 1);
  p.AddLinearCost(y, -4);
  p.AddConstant(5);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, 1), Sense::kLessEqual, 2);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp-oa");
  EXPECT_NEAR(r.summary.objective, 0.5, 1e-6);
  EXPECT_NEAR(r.allocation[x], 0.5, 1e-3);
  EXPECT_NEAR(r.allocation[y], 1.5, 1e-3);
  EXPECT_LE(r.summary.max_violation, 1e-9);
}

TEST(SolveExact, QpProjectsOntoTheSimplex) {
  // min (x - 1)^2 + (y - 2)^2 s.t. x + y <= 2: the projection of (1, 2) is (0.5, 1.5), value 0.5.
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId x = p.AddEntry(m, 0, 0);
  const VarId y = p.AddEntry(m, 0, 1);
  p.AddQuadraticCost(x, 1);
  p.AddLinearCost(x, -2);
  p.AddQuadraticCost(y, 1);
  p.AddLinearCost(y, -4);
  p.AddConstant(5);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, 1), Sense::kLessEqual, 2);
  const Result r = Solve(p, ClpQp());
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp-qp");
  EXPECT_NEAR(r.summary.objective, 0.5, kObjectiveTolerance);
  EXPECT_NEAR(r.allocation[x], 0.5, 1e-5);
  EXPECT_NEAR(r.allocation[y], 1.5, 1e-5);
}

TEST(SolveExact, ConcaveQpIsMaximised) {
  // max -x^2 + 4x - 0.5 y^2 + y, x <= 1: x = 1 (bound), y = 1; 3 + 0.5 = 3.5.
  Problem p(1, 1);
  const VarId x = p.AddLocal(BlockId::Resource(0), Domain::Box(-10, 1), "x");
  const VarId y = p.AddLocal(BlockId::Demand(0), Domain::Free(), "y");
  p.AddQuadraticCost(x, -1);
  p.AddLinearCost(x, 4);
  p.AddQuadraticCost(y, -0.5);
  p.AddLinearCost(y, 1);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  const Result r = Solve(p, ClpQp());
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp-qp");
  EXPECT_NEAR(r.summary.objective, 3.5, kObjectiveTolerance);
  EXPECT_NEAR(r.allocation[x], 1.0, 1e-5);
  EXPECT_NEAR(r.allocation[y], 1.0, 1e-5);
}

TEST(SolveExact, InfeasibleQpReportsInfeasible) {
  Problem p(1, 1);
  const VarId x = p.AddLocal(BlockId::Resource(0), Domain::Free(), "x");
  p.AddQuadraticCost(x, 1);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1), Sense::kGreaterEqual, 2);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1), Sense::kLessEqual, 1);
  const Result r = Solve(p, ClpQp());
  EXPECT_EQ(r.summary.termination, Termination::kInfeasible) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp-qp");
}

TEST(SolveExact, UnboundedQpIsAFailureThatSaysUnbounded) {
  // min x^2 - y with y unbounded above: the quadratic does not bound the linear direction.
  Problem p(1, 1);
  const VarId x = p.AddLocal(BlockId::Resource(0), Domain::Free(), "x");
  const VarId y = p.AddLocal(BlockId::Resource(0), Domain::NonNegative(), "y");
  p.AddQuadraticCost(x, 1);
  p.AddLinearCost(y, -1);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, -1), Sense::kLessEqual, 3);
  const Result r = Solve(p);
  EXPECT_EQ(r.summary.termination, Termination::kFailure);
  EXPECT_NE(r.summary.message.find("unbounded"), std::string::npos) << r.summary.message;
}

TEST(SolveExact, QpWithEqualitiesAndFreeVariablesMatchesKkt) {
  // min sum_i (i + 1) x_i^2 s.t. sum_i x_i = 6, x free: x_i = lambda / (2 (i + 1)) with
  // lambda = 12 / H where H = sum 1 / (i + 1); optimum 36 / H for i = 0..3.
  Problem p(1, 4);
  const int m = p.AddAllocation("x", Domain::Free());
  const std::vector<VarId> v = p.AddDenseEntries(m);
  LinearExpr sum;
  double h = 0;
  for (int i = 0; i < 4; ++i) {
    p.AddQuadraticCost(v[i], i + 1.0);
    sum.Add(v[i], 1);
    h += 1.0 / (i + 1);
  }
  p.AddResourceConstraint(0, sum, Sense::kEqual, 6);
  const Result r = Solve(p, ClpQp());
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_LE(RelativeError(r.summary.objective, 36 / h), 1e-9);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.allocation[v[i]], 6 / h / (i + 1), 1e-6);
}

// ---- global terms --------------------------------------------------------------------------

TEST(SolveExact, MaxMinEqualisesWeightedShares) {
  // max min(x0, 2 x1, 4 x2) s.t. x0 + x1 + x2 <= 10: x0 = t, x1 = t/2, x2 = t/4, t = 40/7.
  Problem p(1, 3);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const std::vector<VarId> v = p.AddDenseEntries(m);
  p.AddResourceConstraint(
      0, LinearExpr().Add(v[0], 1).Add(v[1], 1).Add(v[2], 1), Sense::kLessEqual, 10);
  std::vector<LinearExpr> exprs(3);
  const double w[3] = {1, 2, 4};
  for (int d = 0; d < 3; ++d) exprs[d].Add(v[d], w[d]);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, {0, 1, 2}, exprs, 2.0);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp");
  EXPECT_NEAR(r.summary.objective, 2.0 * 40.0 / 7.0, kObjectiveTolerance);
  EXPECT_NEAR(r.allocation[v[0]], 40.0 / 7.0, kValueTolerance);
  EXPECT_NEAR(r.allocation[v[1]], 20.0 / 7.0, kValueTolerance);
  EXPECT_NEAR(r.allocation[v[2]], 10.0 / 7.0, kValueTolerance);
}

TEST(SolveExact, MinMaxBalancesLoadOverCapacities) {
  // Demands of size 3, 4, 5 split over two resources of capacity 1 and 2; minimise the largest
  // load / capacity: loads L and 2L with 3L = 12, so L = 4.
  Problem p(2, 3);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const std::vector<VarId> v = p.AddDenseEntries(m);
  const double size[3] = {3, 4, 5};
  const double capacity[2] = {1, 2};
  for (int d = 0; d < 3; ++d)
    p.AddDemandConstraint(d, LinearExpr().Add(v[d], 1).Add(v[3 + d], 1), Sense::kEqual, size[d]);
  std::vector<LinearExpr> exprs(2);
  for (int r = 0; r < 2; ++r)
    for (int d = 0; d < 3; ++d) exprs[r].Add(v[r * 3 + d], 1.0 / capacity[r]);
  p.SetGlobalTerm(GlobalKind::kMinMax, Side::kResource, {0, 1}, exprs);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_NEAR(r.summary.objective, 4.0, kObjectiveTolerance);
  double load0 = 0, load1 = 0;
  for (int d = 0; d < 3; ++d) {
    load0 += r.allocation[v[d]];
    load1 += r.allocation[v[3 + d]];
  }
  EXPECT_NEAR(load0, 4.0, kValueTolerance);
  EXPECT_NEAR(load1, 8.0, kValueTolerance);
}

// ---- log utilities -------------------------------------------------------------------------

TEST(SolveExact, LogUtilityIsMaximisedAtTheSymmetricPoint) {
  // max log x + log y s.t. x + y <= 2: x = y = 1, value 0.
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId x = p.AddEntry(m, 0, 0);
  const VarId y = p.AddEntry(m, 0, 1);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, 1), Sense::kLessEqual, 2);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLogTerm(BlockId::Demand(0), LinearExpr().Add(x, 1), 1.0);
  p.AddLogTerm(BlockId::Demand(1), LinearExpr().Add(y, 1), 1.0);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp-oa");
  EXPECT_NEAR(r.summary.objective, 0.0, kObjectiveTolerance);
  EXPECT_NEAR(r.allocation[x], 1.0, 1e-3);
  EXPECT_NEAR(r.allocation[y], 1.0, 1e-3);
  // The outer approximation over-estimates, so its bound is at or above the objective.
  EXPECT_GE(r.summary.bound, r.summary.objective - 1e-12);
  EXPECT_NEAR(r.summary.bound, 0.0, 1e-6);
  EXPECT_GT(r.summary.iterations, 0);  // cut rounds
}

TEST(SolveExact, WeightedLogUtilitySplitsByWeight) {
  // max log(x) + 3 log(y + 1) s.t. x + y <= 4: x = (4 + 1) / 4 = 1.25, y + 1 = 3.75;
  // value log 1.25 + 3 log 3.75.
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId x = p.AddEntry(m, 0, 0);
  const VarId y = p.AddEntry(m, 0, 1);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, 1), Sense::kLessEqual, 4);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLogTerm(BlockId::Demand(0), LinearExpr().Add(x, 1), 1.0);
  LinearExpr shifted;
  shifted.Add(y, 1).constant = 1.0;
  p.AddLogTerm(BlockId::Demand(1), shifted, 3.0);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  const double expected = std::log(1.25) + 3 * std::log(3.75);
  EXPECT_LE(RelativeError(r.summary.objective, expected), kObjectiveTolerance);
  EXPECT_NEAR(r.allocation[x], 1.25, 2e-3);
  EXPECT_NEAR(r.allocation[y], 2.75, 2e-3);
}

TEST(SolveExact, LogUtilityWithLinearCostStaysBounded) {
  // max log(x) - 0.01 x, x >= 0 unbounded above: x = 100, value log(100) - 1. Every tangent
  // below x = 100 has slope > 0.01, so the first relaxations are unbounded until the cuts reach
  // far enough out.
  Problem p(1, 1);
  const VarId x = p.AddLocal(BlockId::Resource(0), Domain::NonNegative(), "x");
  p.AddLinearCost(x, -0.01);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLogTerm(BlockId::Resource(0), LinearExpr().Add(x, 1), 1.0);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_LE(RelativeError(r.summary.objective, std::log(100.0) - 1), kObjectiveTolerance);
}

TEST(SolveExact, UnboundedLogUtilityIsReportedUnbounded) {
  Problem p(1, 1);
  const VarId x = p.AddLocal(BlockId::Resource(0), Domain::NonNegative(), "x");
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLogTerm(BlockId::Resource(0), LinearExpr().Add(x, 1), 1.0);
  const Result r = Solve(p);
  EXPECT_EQ(r.summary.termination, Termination::kFailure);
  EXPECT_NE(r.summary.message.find("unbounded"), std::string::npos) << r.summary.message;
}

TEST(SolveExact, CutRoundBudgetEndsWithMaxIterations) {
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId x = p.AddEntry(m, 0, 0);
  const VarId y = p.AddEntry(m, 0, 1);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, 2), Sense::kLessEqual, 3.3);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLogTerm(BlockId::Demand(0), LinearExpr().Add(x, 1), 1.0);
  p.AddLogTerm(BlockId::Demand(1), LinearExpr().Add(y, 1), 2.0);
  ExactOptions options;
  options.max_cut_rounds = 1;
  const Result r = Solve(p, options);
  EXPECT_EQ(r.summary.termination, Termination::kMaxIterations) << r.summary.message;
  EXPECT_EQ(r.summary.iterations, 1);
  EXPECT_TRUE(r.summary.feasible);
  EXPECT_GE(r.summary.bound, r.summary.objective);
}

// ---- integer problems ----------------------------------------------------------------------

TEST(SolveExact, BinaryKnapsackMatchesBruteForce) {
  constexpr int kItems = 16;
  Lcg rng(7);
  std::vector<int> weight(kItems), value(kItems);
  int total_weight = 0;
  for (int i = 0; i < kItems; ++i) {
    weight[i] = rng.Next(5, 40);
    value[i] = rng.Next(1, 60);
    total_weight += weight[i];
  }
  const int capacity = total_weight / 3;
  int best = 0;
  for (int mask = 0; mask < (1 << kItems); ++mask) {
    int w = 0, v = 0;
    for (int i = 0; i < kItems; ++i)
      if (mask >> i & 1) {
        w += weight[i];
        v += value[i];
      }
    if (w <= capacity) best = std::max(best, v);
  }

  Problem p(1, kItems);
  const int m = p.AddAllocation("take", Domain::Binary());
  const std::vector<VarId> v = p.AddDenseEntries(m);
  LinearExpr load;
  for (int i = 0; i < kItems; ++i) {
    load.Add(v[i], weight[i]);
    p.AddLinearCost(v[i], value[i]);
  }
  p.AddResourceConstraint(0, load, Sense::kLessEqual, capacity);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "cbc");
  EXPECT_NEAR(r.summary.objective, best, 1e-6);
  EXPECT_NEAR(r.summary.bound, best, 1e-4);
  EXPECT_TRUE(r.summary.feasible);
  for (int i = 0; i < kItems; ++i) EXPECT_EQ(r.allocation[v[i]], std::round(r.allocation[v[i]]));
}

TEST(SolveExact, IntegerInfeasibleWhenOnlyTheRelaxationIsFeasible) {
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::Binary());
  const std::vector<VarId> v = p.AddDenseEntries(m);
  p.AddResourceConstraint(0, LinearExpr().Add(v[0], 2).Add(v[1], 2), Sense::kEqual, 3);
  p.AddLinearCost(v[0], 1);
  const Result r = Solve(p);
  EXPECT_EQ(r.summary.termination, Termination::kInfeasible) << r.summary.message;
}

TEST(SolveExact, IntegerQpMatchesBruteForce) {
  // min sum q_i x_i^2 + c_i x_i s.t. sum a_i x_i >= b, x_i integer in [-5, 5].
  constexpr int kVars = 4;
  const double q[kVars] = {1.0, 2.0, 0.5, 3.0};
  const double c[kVars] = {-3.0, 1.0, -4.5, 2.0};
  const double a[kVars] = {1.0, 2.0, -1.0, 3.0};
  const double b = 7.0;
  double best = std::numeric_limits<double>::infinity();
  for (int x0 = -5; x0 <= 5; ++x0)
    for (int x1 = -5; x1 <= 5; ++x1)
      for (int x2 = -5; x2 <= 5; ++x2)
        for (int x3 = -5; x3 <= 5; ++x3) {
          const int x[kVars] = {x0, x1, x2, x3};
          double lhs = 0, f = 0;
          for (int i = 0; i < kVars; ++i) {
            lhs += a[i] * x[i];
            f += q[i] * x[i] * x[i] + c[i] * x[i];
          }
          if (lhs >= b) best = std::min(best, f);
        }

  Problem p(1, kVars);
  const int m = p.AddAllocation("x", Domain::Integer(-5, 5));
  const std::vector<VarId> v = p.AddDenseEntries(m);
  LinearExpr row;
  for (int i = 0; i < kVars; ++i) {
    p.AddQuadraticCost(v[i], q[i]);
    p.AddLinearCost(v[i], c[i]);
    row.Add(v[i], a[i]);
  }
  p.AddResourceConstraint(0, row, Sense::kGreaterEqual, b);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "cbc-oa");
  EXPECT_NEAR(r.summary.objective, best, 1e-6);
  EXPECT_NEAR(r.summary.bound, best, 1e-5);
}

TEST(SolveExact, UnboundedIntegerQuadraticUsesFarTangents) {
  // min x^2 - 7x over all integers: x = 3 or 4, value -12.
  Problem p(1, 1);
  const VarId x = p.AddLocal(BlockId::Resource(0), Domain::Integer(), "x");
  p.AddQuadraticCost(x, 1);
  p.AddLinearCost(x, -7);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "cbc-oa");
  EXPECT_NEAR(r.summary.objective, -12, 1e-9);
}

TEST(SolveExact, IntegerLogUtilityMatchesBruteForce) {
  // max log(x) + 2 log(y) s.t. x + y <= 7, integers: best (2, 5), value log 2 + 2 log 5.
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::Integer(0, 10));
  const VarId x = p.AddEntry(m, 0, 0);
  const VarId y = p.AddEntry(m, 0, 1);
  p.AddResourceConstraint(0, LinearExpr().Add(x, 1).Add(y, 1), Sense::kLessEqual, 7);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLogTerm(BlockId::Demand(0), LinearExpr().Add(x, 1), 1.0);
  p.AddLogTerm(BlockId::Demand(1), LinearExpr().Add(y, 1), 2.0);
  double best = -std::numeric_limits<double>::infinity();
  for (int i = 1; i <= 6; ++i) best = std::max(best, std::log(i) + 2 * std::log(7 - i));
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "cbc-oa");
  EXPECT_NEAR(r.summary.objective, best, 1e-7);
  EXPECT_NEAR(r.allocation[x], 2, 1e-9);
  EXPECT_NEAR(r.allocation[y], 5, 1e-9);
}

TEST(SolveExact, TimeLimitIsHonoured) {
  // A market-split instance (Cornuejols and Dawande): 4 equality rows over 36 binaries with
  // random coefficients, relaxed with penalised slacks so it is always feasible. Branch and
  // bound needs far longer than the 1 s budget to close the gap.
  constexpr int kRows = 4, kCols = 36;
  Lcg rng(2025);
  Problem p(1, 1);
  std::vector<VarId> x(kCols);
  for (int j = 0; j < kCols; ++j) x[j] = p.AddLocal(BlockId::Resource(0), Domain::Binary());
  for (int i = 0; i < kRows; ++i) {
    LinearExpr row;
    int sum = 0;
    for (int j = 0; j < kCols; ++j) {
      const int a = rng.Next(0, 99);
      row.Add(x[j], a);
      sum += a;
    }
    const VarId over = p.AddLocal(BlockId::Resource(0), Domain::NonNegative());
    const VarId under = p.AddLocal(BlockId::Resource(0), Domain::NonNegative());
    row.Add(over, -1).Add(under, 1);
    p.AddLinearCost(over, 1);
    p.AddLinearCost(under, 1);
    p.AddResourceConstraint(0, row, Sense::kEqual, sum / 2);
  }
  ExactOptions options;
  options.time_limit_seconds = 1.0;
  const Result r = Solve(p, options);
  EXPECT_LE(r.summary.total_seconds, 3.0);
  ASSERT_EQ(r.summary.termination, Termination::kTimeLimit) << r.summary.message;
  EXPECT_NE(r.summary.message.find("time limit"), std::string::npos) << r.summary.message;
  // The slacks make any 0/1 vector feasible, so a heuristic solution comes back.
  ASSERT_EQ(static_cast<int>(r.allocation.values.size()), p.num_variables());
  EXPECT_TRUE(r.summary.feasible) << r.summary.message;
  EXPECT_LE(r.summary.bound, r.summary.objective + 1e-9);
}

TEST(SolveExact, ATimeLimitBeforeAnyIncumbentIsNotAProofOfInfeasibility) {
  // The load-balancing MILP's shape (plugins/load_balancing: 256 shards of Zipf-like loads on
  // 32 servers; x the load served, y binary placement, x <= load y, a band of +-10% of the
  // average per server, at most 16 placements per server, placements cost 1): feasible, and
  // its root LP takes longer than the budget. Cbc 2.10 then ends with status 0 and no incumbent,
  // which its isProvenInfeasible() reads as a proof; the solve must say time limit.
  constexpr int kServers = 32, kShards = 256;
  Problem p(kServers, kShards);
  const int xm = p.AddAllocation("x", Domain::NonNegative());
  const int ym = p.AddAllocation("y", Domain::Binary());
  const std::vector<VarId> x = p.AddDenseEntries(xm), y = p.AddDenseEntries(ym);
  std::vector<double> load(kShards);
  double total = 0;
  for (int k = 0; k < kShards; ++k) total += load[k] = 100.0 / std::pow(k * 4.0 + 1, 0.5);
  for (int s = 0; s < kServers; ++s) {
    LinearExpr served, placed;
    for (int k = 0; k < kShards; ++k) {
      const std::size_t e = static_cast<std::size_t>(s) * kShards + k;
      served.Add(x[e], 1);
      placed.Add(y[e], 1);
      p.AddLinearCost(y[e], k % kServers == s ? 0 : 1);
      LinearExpr link;
      link.Add(x[e], 1).Add(y[e], -load[k]);
      p.AddResourceConstraint(s, link, Sense::kLessEqual, 0);
    }
    p.AddResourceConstraint(s, served, Sense::kGreaterEqual, 0.9 * total / kServers);
    p.AddResourceConstraint(s, served, Sense::kLessEqual, 1.1 * total / kServers);
    p.AddResourceConstraint(s, placed, Sense::kLessEqual, 16);
  }
  for (int k = 0; k < kShards; ++k) {
    LinearExpr all;
    for (int s = 0; s < kServers; ++s) all.Add(x[static_cast<std::size_t>(s) * kShards + k], 1);
    p.AddDemandConstraint(k, all, Sense::kEqual, load[k]);
  }
  ExactOptions options;
  options.time_limit_seconds = 0.3;
  const Result r = Solve(p, options);
  EXPECT_EQ(r.summary.termination, Termination::kTimeLimit) << r.summary.message;
  EXPECT_LE(r.summary.total_seconds, 2.0);
}

TEST(SolveExact, TimeLimitStopsTheCutRounds) {
  // 40x40 log utilities take many cut rounds of a few thousand simplex iterations each.
  constexpr int kN = 40;
  Problem p(kN, kN);
  const int m = p.AddAllocation("x", Domain::Box(1, kInfinity));
  const std::vector<VarId> v = p.AddDenseEntries(m);
  for (int i = 0; i < kN; ++i) {
    LinearExpr row, col;
    for (int j = 0; j < kN; ++j) {
      row.Add(v[i * kN + j], 1);
      col.Add(v[j * kN + i], 1);
      p.AddLogTerm(BlockId::Resource(i), LinearExpr().Add(v[i * kN + j], 1), 1.0 + (i + j) % 3);
    }
    p.AddResourceConstraint(i, row, Sense::kLessEqual, kN * (i + 1.0));
    p.AddDemandConstraint(i, col, Sense::kLessEqual, kN * (i + 1.0));
  }
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  ExactOptions options;
  options.time_limit_seconds = 0.2;
  const Result r = Solve(p, options);
  EXPECT_EQ(r.summary.termination, Termination::kTimeLimit) << r.summary.message;
  EXPECT_LE(r.summary.total_seconds, 1.5);
  EXPECT_EQ(r.summary.method, "clp-oa");
}

TEST(SolveExact, TimeLimitHoldsInTheRootLpOfAMip) {
  // A dense covering MIP, 400 rows x 4,000 integer columns with random coefficients: its root
  // LP takes about a second here, 20x the budget. The limit must reach Clp under Cbc, which
  // stops the root LP (without it Cbc only checked its clock after the root and reported a
  // tree-search time limit). Clp's scaling and crash before the first iteration are not
  // interruptible, hence the loose bound on the total time.
  constexpr int kRows = 400, kCols = 4000;
  Problem p(1, 1);
  std::vector<VarId> x(kCols);
  Lcg rng(7);
  for (int j = 0; j < kCols; ++j) {
    x[j] = p.AddLocal(BlockId::Resource(0), Domain::Integer(0, 10));
    p.AddLinearCost(x[j], rng.Next(1, 1000));
  }
  for (int i = 0; i < kRows; ++i) {
    LinearExpr row;
    for (int j = 0; j < kCols; ++j) row.Add(x[j], rng.Next(1, 100));
    p.AddResourceConstraint(0, row, Sense::kGreaterEqual, 5000 + rng.Next(0, 5000));
  }
  ExactOptions options;
  options.time_limit_seconds = 0.05;
  const Result r = Solve(p, options);
  std::printf("root LP under a %.2f s limit: %s after %.3f s (setup %.3f s): %s\n",
              options.time_limit_seconds,
              TerminationName(r.summary.termination),
              r.summary.total_seconds,
              r.summary.setup_seconds,
              r.summary.message.c_str());
  EXPECT_EQ(r.summary.termination, Termination::kTimeLimit) << r.summary.message;
  EXPECT_NE(r.summary.message.find("root LP stopped on the time limit"), std::string::npos)
      << r.summary.message;
  // A loose bound (the message above is what shows the limit reached Clp): the whole solve
  // took 2.8 s in a Release run of CI and 5.9 s in its sanitizer run, with other tests
  // running beside it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  EXPECT_LE(r.summary.total_seconds, 20.0);
#else
  EXPECT_LE(r.summary.total_seconds, 5.0);
#endif
}

// ---- the two 10x10 reference problems --------------------------------------------------------

TEST(SolveExact, TenByTenLpMatchesReference) {
  // x 10x10 >= 0, row i sum >= i, column j sum <= j, max sum i j / (i + j + 1) x_ij.
  constexpr int kN = 10;
  Problem p(kN, kN);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const std::vector<VarId> v = p.AddDenseEntries(m);
  for (int i = 0; i < kN; ++i) {
    LinearExpr row, col;
    for (int j = 0; j < kN; ++j) {
      row.Add(v[i * kN + j], 1);
      col.Add(v[j * kN + i], 1);
      p.AddLinearCost(v[i * kN + j], static_cast<double>(i * j) / (i + j + 1));
    }
    p.AddResourceConstraint(i, row, Sense::kGreaterEqual, i);
    p.AddDemandConstraint(i, col, Sense::kLessEqual, i);
  }
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_LE(RelativeError(r.summary.objective, 132.233343), 1e-6) << r.summary.objective;
}

TEST(SolveExact, TenByTenLogUtilityMatchesReference) {
  // x 10x10 >= 1, row sums <= 10 (i + 1), column sums <= 10 (j + 1), max sum log x_ij.
  constexpr int kN = 10;
  Problem p(kN, kN);
  const int m = p.AddAllocation("x", Domain::Box(1, kInfinity));
  const std::vector<VarId> v = p.AddDenseEntries(m);
  for (int i = 0; i < kN; ++i) {
    LinearExpr row, col;
    for (int j = 0; j < kN; ++j) {
      row.Add(v[i * kN + j], 1);
      col.Add(v[j * kN + i], 1);
      p.AddLogTerm(BlockId::Resource(i), LinearExpr().Add(v[i * kN + j], 1), 1.0);
    }
    p.AddResourceConstraint(i, row, Sense::kLessEqual, 10.0 * (i + 1));
    p.AddDemandConstraint(i, col, Sense::kLessEqual, 10.0 * (i + 1));
  }
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  const Result r = Solve(p);
  ASSERT_EQ(r.summary.termination, Termination::kConverged) << r.summary.message;
  EXPECT_EQ(r.summary.method, "clp-oa");
  EXPECT_TRUE(r.summary.feasible);
  EXPECT_LE(RelativeError(r.summary.objective, 134.318354), 1e-4) << r.summary.objective;
  EXPECT_GE(r.summary.bound, r.summary.objective - 1e-9);
}

// The second stage on test_fixtures::SpareCapacity: job 0 gets all of resource 0 (value 1) and job
// 1 keeps the minimum 0.5.
TEST(SolveExact, FillAfterMaxMinUsesCapacityTheMinimumDoesNotNeed) {
  const test_fixtures::SpareCapacity instance;
  const Problem& p = instance.problem;
  const VarId x00 = instance.x00, x10 = instance.x10, x11 = instance.x11;
  ExactOptions options;
  options.fill_after_max_min = true;
  options.fill_slack = 0.0;
  Allocation a;
  SolveSummary summary;
  SolveExact(p, options, &a, &summary);
  ASSERT_EQ(summary.termination, Termination::kConverged) << summary.message;
  EXPECT_NEAR(summary.objective, 0.5, 1e-9);
  EXPECT_NEAR(a[x00] + a[x10], 1.0, 1e-9) << summary.message;
  EXPECT_NEAR(a[x11], 0.5, 1e-9);
  EXPECT_NE(summary.message.find("total of the max-min expressions maximised"), std::string::npos)
      << summary.message;
  EXPECT_LE(summary.max_violation, 1e-9);
}

}  // namespace
}  // namespace dede
