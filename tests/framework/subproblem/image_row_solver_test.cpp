// The image_row solver against Clp on the same block written with rows (entry - scale * flow =
// offset as an equality row: an independent model), on random path-formulation blocks and
// hand-computed cases.
#include "subproblem/image_row_solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "framework/subproblem/block_test_util.h"
#include "subproblem/block_problem.h"
#include "subproblem/separable_solver.h"

namespace dede::internal {
namespace {

using testing::Chance;
using testing::EmptyBlock;
using testing::kInf;
using testing::PathBlock;
using testing::SolveOnce;
using testing::Uniform;

TEST(ImageRowSolver, PairBlocksMatchClpOnTheRowForm) {
  std::mt19937 rng(20261126);
  int compared = 0, infeasible = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Sense sense = trial % 3 == 0   ? Sense::kEqual
                        : trial % 3 == 1 ? Sense::kLessEqual
                                         : Sense::kGreaterEqual;
    BlockProblem images;
    const BlockProblem rows = PathBlock(rng, 1 + trial % 5, sense, trial % 2 == 1, &images);
    const testing::Solution fast = SolveOnce(images, false);
    const testing::Solution clp = SolveOnce(rows, true);
    ASSERT_EQ(fast.solver, "image_row") << "trial " << trial << ": " << fast.error;
    ASSERT_EQ(fast.status == BlockStatus::kOptimal, clp.status == BlockStatus::kOptimal)
        << "trial " << trial << ": " << fast.error << " / " << clp.error;
    if (fast.status != BlockStatus::kOptimal) {
      EXPECT_EQ(fast.status, BlockStatus::kInfeasible) << fast.error;
      ++infeasible;
      continue;
    }
    ++compared;
    // Feasible in the row form (every image holds) and as good as Clp's optimum.
    EXPECT_LE(MaxBlockViolation(rows, fast.v), 1e-8) << "trial " << trial;
    EXPECT_LE(MaxBlockViolation(images, fast.v), 1e-8) << "trial " << trial;
    EXPECT_NEAR(fast.objective, clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "trial " << trial;
    // The aggregate over Clp (the fallback for other shapes) agrees.
    const testing::Solution aggregate = SolveOnce(images, true);
    ASSERT_EQ(aggregate.solver.rfind("aggregate(clp", 0), 0u) << aggregate.solver;
    EXPECT_NEAR(
        fast.objective, aggregate.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)));
  }
  EXPECT_GE(compared, 400);
  EXPECT_GE(infeasible, 1);
}

TEST(ImageRowSolver, HandComputedTwoPathBlock) {
  // f0, f1 <= 1 in total; f0 defines x2, f1 defines x3 and x4 (a two-link path), every entry
  // with proximal weight 1 and target 1; flows earn 1 each (linear cost -1):
  //   min -f0 - f1 + (f0 - 1)^2 / 2 + 2 (f1 - 1)^2 / 2  s.t. f0 + f1 <= 1.
  // KKT: f0 - 2 + lambda = 0, 2 f1 - 3 + lambda = 0, f0 + f1 = 1 -> f1 = 2/3, f0 = 1/3.
  BlockProblem b = EmptyBlock(5);
  b.linear = {-1.0, -1.0, 0.0, 0.0, 0.0};
  b.prox_weight = {0.0, 0.0, 1.0, 1.0, 1.0};
  b.prox_target = {0.0, 0.0, 1.0, 1.0, 1.0};
  b.images.push_back(2, 0, 0.0, 1.0);
  b.images.push_back(3, 1, 0.0, 1.0);
  b.images.push_back(4, 1, 0.0, 1.0);
  b.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  const testing::Solution s = SolveOnce(b, false);
  ASSERT_EQ(s.status, BlockStatus::kOptimal) << s.error;
  EXPECT_EQ(s.solver, "image_row");
  const std::vector<double> expected = {1.0 / 3, 2.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(s.v[i], expected[i], 1e-12) << "variable " << i;
  // A slack row leaves each flow at its own minimiser: f0 = 2, f1 = 1.5.
  b.rows[0].rhs = 10.0;
  const testing::Solution slack = SolveOnce(b, false);
  ASSERT_EQ(slack.status, BlockStatus::kOptimal);
  EXPECT_NEAR(slack.v[0], 2.0, 1e-12);
  EXPECT_NEAR(slack.v[1], 1.5, 1e-12);
}

TEST(ImageRowSolver, EntryBoundsBecomeFlowBoundsAndCanMakeTheBlockInfeasible) {
  // x2 = f0 with x2 <= 0.25 caps f0; x3 = 2 f1 + 0.5 with x3 <= 1.5 caps f1 at 0.5.
  BlockProblem b = EmptyBlock(4);
  b.linear = {-5.0, -1.0, 0.0, 0.0};
  b.prox_weight = {0.0, 0.0, 1.0, 1.0};
  b.upper = {kInf, kInf, 0.25, 1.5};
  b.images.push_back(2, 0, 0.0, 1.0);
  b.images.push_back(3, 1, 0.5, 2.0);
  b.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  testing::Solution s = SolveOnce(b, false);
  ASSERT_EQ(s.status, BlockStatus::kOptimal) << s.error;
  EXPECT_NEAR(s.v[0], 0.25, 1e-12);
  EXPECT_NEAR(s.v[2], 0.25, 1e-12);
  EXPECT_LE(s.v[3], 1.5);
  EXPECT_NEAR(s.v[3], 0.5 + 2.0 * s.v[1], 1e-12);
  b.rows.back().sense = Sense::kEqual;  // f0 + f1 = 1 needs f0 + f1 <= 0.75: infeasible
  s = SolveOnce(b, false);
  EXPECT_EQ(s.status, BlockStatus::kInfeasible);
  EXPECT_NE(s.error.find("cannot reach its right-hand side 1"), std::string::npos) << s.error;
  b.upper = {kInf, kInf, -1.0, 1.5};  // x2 = f0 <= -1 with f0 >= 0: no value at all
  s = SolveOnce(b, false);
  EXPECT_EQ(s.status, BlockStatus::kInfeasible);
  EXPECT_NE(s.error.find("leave no value"), std::string::npos) << s.error;
}

TEST(ImageRowSolver, SolvesInPlaceFromTheCallersTargets) {
  std::mt19937 rng(3);
  BlockProblem images;
  PathBlock(rng, 4, Sense::kLessEqual, true, &images);
  std::string error;
  std::unique_ptr<BlockSolver> solver = CreateBlockSolver(images, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  ASSERT_TRUE(solver->solves_in_place());
  for (int step = 0; step < 20; ++step) {
    for (std::size_t i = 0; i < images.prox_target.size(); ++i)
      images.prox_target[i] = Uniform(rng, -1.0, 3.0);
    std::vector<double> expected(images.num_vars(), 0.0);
    ASSERT_EQ(solver->Solve(images, &expected), BlockStatus::kOptimal) << solver->last_error();
    const std::vector<double> t = images.prox_target;
    BlockProblem released = images;
    released.prox_target.clear();  // the engine releases it for an in-place solver
    std::vector<double> v(images.num_vars(), -7.0);
    ASSERT_EQ(solver->SolveInPlace(released, t.data(), v.data()), BlockStatus::kOptimal);
    EXPECT_EQ(v, expected) << "step " << step;
  }
}

TEST(ImageRowSolver, OtherShapesAreLeftToTheAggregate) {
  // A base without curvature of its own and no image with one (penalty 0): not strictly
  // convex, so image_row declines.
  BlockProblem b = EmptyBlock(3);
  b.linear = {-1.0, -1.0, 0.0};
  b.prox_weight = {0.0, 0.0, 0.0};
  b.upper = {1.0, 1.0, kInf};
  b.images.push_back(2, 0, 0.0, 1.0);
  b.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.5});
  EXPECT_EQ(ImageRowSolver::TryCreate(b), nullptr);
  const testing::Solution s = SolveOnce(b, false);
  ASSERT_EQ(s.status, BlockStatus::kOptimal) << s.error;
  EXPECT_EQ(s.solver.rfind("aggregate(", 0), 0u) << s.solver;
  EXPECT_NEAR(s.v[0] + s.v[1], 1.5, 1e-9);
  EXPECT_EQ(s.v[2], s.v[0]);
}

}  // namespace
}  // namespace dede::internal
