// The two_row solver against Clp's QP on the same block (independent: an active-set / simplex
// method sharing no code with the multiplier search).
#include "subproblem/two_row_solver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "framework/subproblem/block_test_util.h"
#include "subproblem/block_problem.h"

namespace dede::internal {
namespace {

using testing::EmptyBlock;
using testing::kInf;
using testing::RandomBlock;
using testing::RandomSpec;
using testing::SolveOnce;
using testing::Uniform;

TEST(TwoRowSolver, RandomBlocksMatchClp) {
  std::mt19937 rng(424242);
  RandomSpec spec;
  spec.num_rows = 2;
  spec.max_vars = 14;
  int optimal = 0, infeasible = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const BlockProblem b = RandomBlock(rng, spec);
    const testing::Solution fast = SolveOnce(b, false);
    const testing::Solution clp = SolveOnce(b, true);
    ASSERT_EQ(fast.solver, "two_row") << "trial " << trial << ": " << fast.error;
    ASSERT_EQ(fast.status == BlockStatus::kOptimal, clp.status == BlockStatus::kOptimal)
        << "trial " << trial << ": two_row " << BlockStatusName(fast.status) << " (" << fast.error
        << "), clp " << BlockStatusName(clp.status) << " (" << clp.error << ")";
    if (fast.status != BlockStatus::kOptimal) {
      EXPECT_EQ(fast.status, BlockStatus::kInfeasible) << "trial " << trial << ": " << fast.error;
      ++infeasible;
      continue;
    }
    ++optimal;
    EXPECT_LE(ScaledBlockViolation(b, fast.v), 1e-8) << "trial " << trial;
    EXPECT_NEAR(fast.objective, clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "trial " << trial;
  }
  std::printf("[stats] %d optimal, %d infeasible\n", optimal, infeasible);
  EXPECT_GE(optimal, 1000);
  EXPECT_GE(infeasible, 20);
}

// Penalties spread over many orders of magnitude inside one block (the engine's per-copy and
// per-block factors give a max-min copy t_b 1e-2 of an entry's penalty, times rho): s(mu)
// then steps between adjacent doubles and the search must still return the optimum.
TEST(TwoRowSolver, PenaltiesSpreadOverManyOrdersOfMagnitudeMatchClp) {
  std::mt19937 rng(777);
  RandomSpec spec;
  spec.num_rows = 2;
  spec.max_vars = 14;
  spec.infeasible_probability = 0;
  int optimal = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    BlockProblem b = RandomBlock(rng, spec);
    for (std::size_t k = 0; k < b.prox_weight.size(); ++k) {
      if (b.prox_weight[k] > 0) b.prox_weight[k] *= std::pow(10.0, Uniform(rng, -9, 3));
    }
    const testing::Solution fast = SolveOnce(b, false);
    const testing::Solution clp = SolveOnce(b, true);
    if (clp.status != BlockStatus::kOptimal) continue;
    ASSERT_EQ(fast.status, BlockStatus::kOptimal) << "trial " << trial << ": " << fast.error;
    ++optimal;
    EXPECT_LE(ScaledBlockViolation(b, fast.v), 1e-7) << "trial " << trial;
    EXPECT_NEAR(fast.objective, clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "trial " << trial;
  }
  std::printf("[stats] %d optimal\n", optimal);
  EXPECT_GE(optimal, 1000);
}

TEST(TwoRowSolver, HandComputedProjection) {
  // Project (1, 1, 1) onto {v0 + v1 + v2 <= 1, v0 - v1 >= 0.5}: both rows active,
  // v = t - lambda (1,1,1) - mu (1,-1,0). KKT: 3 - 3 lambda = 1 -> lambda = 2/3;
  // v0 - v1 = -2 mu = 0.5 -> mu = -1/4 (a >= row: mu <= 0).
  BlockProblem b = EmptyBlock(3);
  b.lower.assign(3, -kInf);
  b.prox_weight = {1.0, 1.0, 1.0};
  b.prox_target = {1.0, 1.0, 1.0};
  b.rows.push_back({{0, 1, 2}, {1.0, 1.0, 1.0}, Sense::kLessEqual, 1.0});
  b.rows.push_back({{0, 1}, {1.0, -1.0}, Sense::kGreaterEqual, 0.5});
  std::string error;
  auto solver = TwoRowSolver::Create(b, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  std::vector<double> v(3, 0.0);
  ASSERT_EQ(solver->Solve(b, &v), BlockStatus::kOptimal) << solver->last_error();
  EXPECT_NEAR(v[0], 1.0 / 3 + 0.25, 1e-10);
  EXPECT_NEAR(v[1], 1.0 / 3 - 0.25, 1e-10);
  EXPECT_NEAR(v[2], 1.0 / 3, 1e-10);
  EXPECT_NEAR(solver->multiplier(), -0.25, 1e-10);
  // A slack second row: mu = 0 and the one-row projection.
  b.rows[1].rhs = -5.0;
  ++b.revision;
  ASSERT_EQ(solver->Solve(b, &v), BlockStatus::kOptimal) << solver->last_error();
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(v[i], 1.0 / 3, 1e-10);
  EXPECT_EQ(solver->multiplier(), 0.0);
  // Out of reach: v0 - v1 >= 0.5 with 0 <= v <= 0.2.
  b.lower.assign(3, 0.0);
  b.upper.assign(3, 0.2);
  b.rows[1].rhs = 0.5;
  ++b.revision;
  EXPECT_EQ(solver->Solve(b, &v), BlockStatus::kInfeasible);
  EXPECT_NE(solver->last_error().find("reaches"), std::string::npos) << solver->last_error();
}

// A max-min demand block: x_r in [0, 1] with proximal terms, sum_r x_r <= 1, and the block's
// row of the global term sum_r w_r x_r - t >= 0 with t's own proximal term.
BlockProblem MaxMinBlock(std::mt19937& rng, int n) {
  BlockProblem b = EmptyBlock(n + 1);
  BlockRow share, global;
  for (int r = 0; r < n; ++r) {
    b.upper[r] = 1.0;
    b.prox_weight[r] = 1.0;
    b.prox_target[r] = Uniform(rng, -0.01, 0.02);
    share.index.push_back(r);
    share.coef.push_back(1.0);
    if (r % 3 != 0) {
      global.index.push_back(r);
      global.coef.push_back(Uniform(rng, 0.1, 1500.0));
    }
  }
  b.lower[n] = -kInf;
  b.prox_weight[n] = 1.0;
  b.prox_target[n] = Uniform(rng, 0.5, 2.0);
  global.index.push_back(n);
  global.coef.push_back(-1.0);
  global.sense = Sense::kGreaterEqual;
  share.rhs = 1.0;
  b.rows = {share, global};
  return b;
}

TEST(TwoRowSolver, MaxMinBlocksFollowChangingTargetsAndAreFasterThanClp) {
  std::mt19937 rng(11);
  BlockProblem b = MaxMinBlock(rng, 456);
  std::string error;
  auto solver = CreateBlockSolver(b, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  EXPECT_EQ(solver->name(), "two_row");
  std::vector<double> v(b.num_vars(), 0.0);
  double fast_seconds = 0.0, clp_seconds = 0.0;
  for (int step = 0; step < 20; ++step) {
    for (int i = 0; i < b.num_vars(); ++i) b.prox_target[i] += Uniform(rng, -0.01, 0.01);
    if (step % 7 == 6) {
      for (int i = 0; i < b.num_vars(); ++i) b.prox_weight[i] *= 2.0;
      ++b.revision;
    }
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(solver->Solve(b, &v), BlockStatus::kOptimal) << solver->last_error();
    const auto t1 = std::chrono::steady_clock::now();
    const testing::Solution clp = SolveOnce(b, true);
    const auto t2 = std::chrono::steady_clock::now();
    fast_seconds += std::chrono::duration<double>(t1 - t0).count();
    clp_seconds += std::chrono::duration<double>(t2 - t1).count();
    ASSERT_EQ(clp.status, BlockStatus::kOptimal) << clp.error;
    EXPECT_NEAR(
        EvaluateBlockObjective(b, v), clp.objective, 1e-6 * std::max(1.0, std::fabs(clp.objective)))
        << "step " << step;
    EXPECT_LE(ScaledBlockViolation(b, v), 1e-8);
  }
  std::printf(
      "[timing] max-min block, 456 variables, 20 solves: two_row %.4f s, Clp (cold) %.4f s\n",
      fast_seconds,
      clp_seconds);
}

}  // namespace
}  // namespace dede::internal
