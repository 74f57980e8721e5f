// The aggregate solver against Clp on the unreduced block (independent: Clp sees every variable
// and every equality row), on random path-formulation blocks and hand-computed cases.
#include "subproblem/aggregate_solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "framework/subproblem/block_test_util.h"
#include "subproblem/block_problem.h"

namespace dede::internal {
namespace {

using testing::Chance;
using testing::EmptyBlock;
using testing::kInf;
using testing::PathBlock;
using testing::SolveOnce;
using testing::Uniform;

TEST(AggregateSolver, PathBlocksMatchClpOnTheUnreducedBlock) {
  std::mt19937 rng(20261122);
  int compared = 0, infeasible = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Sense sense = trial % 3 == 0 ? Sense::kEqual : Sense::kLessEqual;
    const bool general = trial % 2 == 1;
    const BlockProblem b = PathBlock(rng, 1 + trial % 5, sense, general);
    const testing::Solution fast = SolveOnce(b, false);
    const testing::Solution clp = SolveOnce(b, true);
    ASSERT_EQ(fast.solver, "aggregate(one_row)") << "trial " << trial << ": " << fast.error;
    ASSERT_EQ(fast.status == BlockStatus::kOptimal, clp.status == BlockStatus::kOptimal)
        << "trial " << trial << ": " << fast.error << " / " << clp.error;
    if (fast.status != BlockStatus::kOptimal) {
      ++infeasible;
      continue;
    }
    ++compared;
    EXPECT_LE(MaxBlockViolation(b, fast.v), 1e-8) << "trial " << trial;
    EXPECT_NEAR(fast.objective, clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "trial " << trial;
  }
  EXPECT_GE(compared, 300);
  (void)infeasible;
}

TEST(AggregateSolver, HandComputedTwoPathBlock) {
  // f0, f1 <= 1 in total; f0 defines x2, f1 defines x3 and x4 (a two-link path), every entry
  // with proximal weight 1 and target 1; flows earn 1 each (linear cost -1):
  //   min -f0 - f1 + (f0 - 1)^2 / 2 + 2 (f1 - 1)^2 / 2  s.t. f0 + f1 <= 1.
  // KKT: f0 - 2 + lambda = 0, 2 f1 - 3 + lambda = 0, f0 + f1 = 1 -> f1 = 2/3, f0 = 1/3.
  BlockProblem b = EmptyBlock(5);
  b.linear = {-1.0, -1.0, 0.0, 0.0, 0.0};
  b.prox_weight = {0.0, 0.0, 1.0, 1.0, 1.0};
  b.prox_target = {0.0, 0.0, 1.0, 1.0, 1.0};
  b.rows.push_back({{2, 0}, {1.0, -1.0}, Sense::kEqual, 0.0});
  b.rows.push_back({{3, 1}, {1.0, -1.0}, Sense::kEqual, 0.0});
  b.rows.push_back({{1, 4}, {-1.0, 1.0}, Sense::kEqual, 0.0});  // base first in the row
  b.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  const testing::Solution s = SolveOnce(b, false);
  ASSERT_EQ(s.status, BlockStatus::kOptimal) << s.error;
  EXPECT_EQ(s.solver, "aggregate(one_row)");
  const std::vector<double> expected = {1.0 / 3, 2.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(s.v[i], expected[i], 1e-9) << "variable " << i;
}

TEST(AggregateSolver, EntryBoundsBecomeFlowBoundsAndCanMakeTheBlockInfeasible) {
  // x2 = f0 with x2 <= 0.25 caps f0; the demand row forces f0 + f1 = 1 with f1 <= 0.5 (via x3).
  BlockProblem b = EmptyBlock(4);
  b.linear = {-5.0, -1.0, 0.0, 0.0};
  b.prox_weight = {0.0, 0.0, 1.0, 1.0};
  b.upper = {kInf, kInf, 0.25, 0.5};
  b.rows.push_back({{2, 0}, {1.0, -1.0}, Sense::kEqual, 0.0});
  b.rows.push_back({{3, 1}, {1.0, -1.0}, Sense::kEqual, 0.0});
  b.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  testing::Solution s = SolveOnce(b, false);
  ASSERT_EQ(s.status, BlockStatus::kOptimal) << s.error;
  EXPECT_NEAR(s.v[0], 0.25, 1e-9);
  EXPECT_NEAR(s.v[2], 0.25, 1e-9);
  b.rows.back().sense = Sense::kEqual;  // f0 + f1 = 1 needs f0 + f1 <= 0.75: infeasible
  s = SolveOnce(b, false);
  EXPECT_EQ(s.status, BlockStatus::kInfeasible);
  EXPECT_EQ(SolveOnce(b, true).status, BlockStatus::kInfeasible);
}

TEST(AggregateSolver, FollowsParameterChangesAndWarmStarts) {
  std::mt19937 rng(7);
  BlockProblem b = PathBlock(rng, 4, Sense::kLessEqual, true);
  std::string error;
  std::unique_ptr<BlockSolver> solver = CreateBlockSolver(b, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  std::vector<double> v(b.num_vars(), 0.0);
  for (int step = 0; step < 30; ++step) {
    // Targets and costs change every solve (an ADMM iteration); bounds, rhs and coefficients
    // with a revision bump every fifth.
    for (int i = 0; i < b.num_vars(); ++i) {
      if (b.prox_weight[i] > 0) b.prox_target[i] = Uniform(rng, -1.0, 3.0);
    }
    if (step % 5 == 4) {
      b.rows.back().rhs = Uniform(rng, 0.5, 4.0);
      b.rows.front().coef[0] = Uniform(rng, 0.5, 2.0);
      for (int i = 0; i < b.num_vars(); ++i) {
        if (b.prox_weight[i] > 0) b.prox_weight[i] = Uniform(rng, 0.1, 4.0);
      }
      ++b.revision;
    }
    const BlockStatus status = solver->Solve(b, &v);
    const testing::Solution clp = SolveOnce(b, true);
    ASSERT_EQ(status == BlockStatus::kOptimal, clp.status == BlockStatus::kOptimal)
        << "step " << step;
    if (status != BlockStatus::kOptimal) continue;
    EXPECT_NEAR(
        EvaluateBlockObjective(b, v), clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "step " << step;
  }
}

// Unit maps (x = f) take a compact path; a coefficient change that breaks them, and one that
// restores them, must switch paths with the revision.
TEST(AggregateSolver, UnitMapsSwitchPathsWhenACoefficientChanges) {
  std::mt19937 rng(11);
  BlockProblem b = PathBlock(rng, 3, Sense::kLessEqual, false);
  b.linear[0] = -10.0;  // the first path carries flow, so x = f and x = f / 2 differ
  std::string error;
  std::unique_ptr<BlockSolver> solver = CreateBlockSolver(b, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  std::vector<double> v(b.num_vars(), 0.0);
  for (int step = 0; step < 6; ++step) {
    // Row 0 is x - f = 0 for the first path's first link; 2x - f = 0 makes x = f / 2.
    b.rows.front().coef[0] = step % 2 == 1 ? 2.0 : 1.0;
    ++b.revision;
    for (int i = 0; i < b.num_vars(); ++i) {
      if (b.prox_weight[i] > 0) b.prox_target[i] = Uniform(rng, -1.0, 3.0);
    }
    ASSERT_EQ(solver->Solve(b, &v), BlockStatus::kOptimal) << "step " << step;
    const testing::Solution clp = SolveOnce(b, true);
    ASSERT_EQ(clp.status, BlockStatus::kOptimal) << "step " << step;
    EXPECT_LE(MaxBlockViolation(b, v), 1e-8) << "step " << step;
    EXPECT_NEAR(
        EvaluateBlockObjective(b, v), clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "step " << step;
  }
}

TEST(AggregateSolver, LeavesCoupledAndIntegralBlocksToOtherSolvers) {
  // x2 = f0 + f1 (two paths share the link): not a one-variable image; stays with Clp.
  BlockProblem shared = EmptyBlock(3);
  shared.prox_weight = {0.0, 0.0, 1.0};
  shared.rows.push_back({{2, 0, 1}, {1.0, -1.0, -1.0}, Sense::kEqual, 0.0});
  shared.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  EXPECT_EQ(SolveOnce(shared, false).solver, "clp+qp");

  // Integral flows: branch and bound over the reduced one-row solver, same optimum as over Clp.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    BlockProblem b = PathBlock(rng, 3, Sense::kLessEqual, false);
    b.rows.back().rhs = 3.0 + trial % 3;
    for (int p = 0; p < 3; ++p) b.integral[p] = 1;
    const testing::Solution fast = SolveOnce(b, false);
    const testing::Solution clp = SolveOnce(b, true);
    ASSERT_EQ(fast.solver, "bnb(aggregate(one_row))");
    ASSERT_EQ(fast.status, clp.status) << "trial " << trial;
    if (fast.status != BlockStatus::kOptimal) continue;
    EXPECT_NEAR(fast.objective, clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "trial " << trial;
  }
}

}  // namespace
}  // namespace dede::internal
