#include <gtest/gtest.h>

#include <cstring>
#include <map>
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
using testing::PathBlock;
using testing::RandomBlock;
using testing::RandomSpec;

std::string Chosen(const BlockProblem& p, bool force_clp = false) {
  BlockSolverOptions options;
  options.force_clp = force_clp;
  std::string error;
  std::unique_ptr<BlockSolver> solver = CreateBlockSolver(p, options, &error);
  return solver == nullptr ? "error: " + error : solver->name();
}

// Three prox variables; `row_on` adds one row over all of them.
BlockProblem ProxBlock(bool row_on) {
  BlockProblem p = EmptyBlock(3);
  p.prox_weight = {1.0, 1.0, 1.0};
  if (row_on) p.rows.push_back({{0, 1, 2}, {1.0, 1.0, 1.0}, Sense::kLessEqual, 1.0});
  return p;
}

TEST(CreateBlockSolver, SelectsTheFastestExactSolverByStructure) {
  EXPECT_EQ(Chosen(ProxBlock(false)), "clip");
  EXPECT_EQ(Chosen(ProxBlock(true)), "one_row");

  BlockProblem local = ProxBlock(true);  // a zero-curvature variable in the row
  local.prox_weight[2] = 0.0;
  EXPECT_EQ(Chosen(local), "clp+qp");
  local.prox_weight = {0.0, 0.0, 0.0};
  EXPECT_EQ(Chosen(local), "clp");

  BlockProblem two_rows = ProxBlock(true);
  two_rows.rows.push_back({{0, 1}, {1.0, -1.0}, Sense::kEqual, 0.0});
  EXPECT_EQ(Chosen(two_rows), "two_row");
  two_rows.rows.push_back({{1, 2}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  EXPECT_EQ(Chosen(two_rows), "clp+qp");

  BlockProblem quad_only = ProxBlock(true);  // q alone also makes a variable strictly convex
  quad_only.prox_weight = {0.0, 0.0, 0.0};
  quad_only.quadratic = {1.0, 1.0, 1.0};
  EXPECT_EQ(Chosen(quad_only), "one_row");

  BlockProblem one_var_log = ProxBlock(true);  // the log makes variable 2 strictly convex
  one_var_log.prox_weight[2] = 0.0;
  one_var_log.logs.push_back({{2}, {1.0}, 0.0, 1.0});
  EXPECT_EQ(Chosen(one_var_log), "one_row");

  BlockProblem no_row_logs = ProxBlock(false);
  no_row_logs.prox_weight[0] = 0.0;
  no_row_logs.logs.push_back({{0}, {2.0}, 1.0, 1.0});
  EXPECT_EQ(Chosen(no_row_logs), "clip");

  BlockProblem multi_log = ProxBlock(false);
  multi_log.logs.push_back({{0, 1, 2}, {1.0, 2.0, 3.0}, 0.0, 1.0});
  EXPECT_EQ(Chosen(multi_log), "log");
  multi_log.rows = ProxBlock(true).rows;
  EXPECT_EQ(Chosen(multi_log), "log");

  BlockProblem integral = ProxBlock(true);
  integral.integral = {1, 0, 0};
  EXPECT_EQ(Chosen(integral), "bnb(one_row)");
  EXPECT_EQ(Chosen(integral, /*force_clp=*/true), "bnb(clp+qp)");
  EXPECT_EQ(Chosen(ProxBlock(false), /*force_clp=*/true), "clp+qp");
}

TEST(CreateBlockSolver, OneRowWithLogsAcceptsZeroCurvatureRowVariables) {
  // Clp cannot take the log term, the multiplier search can (the zero-curvature variable is
  // a step in the multiplier).
  BlockProblem p = ProxBlock(true);
  p.prox_weight[0] = 0.0;
  p.upper[0] = 1.0;
  p.logs.push_back({{1}, {1.0}, 0.0, 1.0});
  EXPECT_EQ(Chosen(p), "one_row");
}

TEST(CreateBlockSolver, NamesUnsupportedStructures) {
  BlockProblem two_logs = ProxBlock(true);
  two_logs.logs.push_back({{0, 1}, {1.0, 1.0}, 0.0, 1.0});
  two_logs.logs.push_back({{1, 2}, {1.0, 1.0}, 0.0, 1.0});
  two_logs.rows.push_back({{0, 2}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  std::string chosen = Chosen(two_logs);
  EXPECT_NE(chosen.find("block has 2 log terms (2 over several variables) and 2 rows"),
            std::string::npos)
      << chosen;
  EXPECT_NE(chosen.find("supported:"), std::string::npos) << chosen;

  BlockProblem log_and_rows = ProxBlock(true);
  log_and_rows.logs.push_back({{0}, {1.0}, 0.0, 1.0});
  log_and_rows.rows.push_back({{0, 2}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  EXPECT_EQ(Chosen(log_and_rows), "two_row");  // every row variable strictly convex
  log_and_rows.rows.push_back({{1, 2}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  EXPECT_NE(Chosen(log_and_rows).find("1 log terms (0 over several variables) and 3 rows"),
            std::string::npos)
      << Chosen(log_and_rows);

  BlockProblem flat_log = ProxBlock(true);  // a log variable without curvature
  flat_log.prox_weight[1] = 0.0;
  flat_log.logs.push_back({{0, 1}, {1.0, 1.0}, 0.0, 1.0});
  EXPECT_NE(Chosen(flat_log).find("not strictly convex"), std::string::npos) << Chosen(flat_log);

  BlockProblem forced = ProxBlock(false);
  forced.logs.push_back({{0, 1}, {1.0, 1.0}, 0.0, 1.0});
  EXPECT_NE(Chosen(forced, true).find("Clp supports linear and quadratic objectives only"),
            std::string::npos);
}

TEST(CreateBlockSolver, RejectsMalformedBlocks) {
  BlockProblem p = ProxBlock(true);
  p.linear.pop_back();
  EXPECT_NE(Chosen(p).find("BlockProblem::linear has 2 entries; expected 3"), std::string::npos)
      << Chosen(p);

  p = ProxBlock(true);
  p.rows[0].index[2] = 7;
  EXPECT_NE(Chosen(p).find("row 0 references variable 7 of a block with 3 variables"),
            std::string::npos);

  p = ProxBlock(true);
  p.rows[0].index[2] = 0;
  EXPECT_NE(Chosen(p).find("references variable 0 twice"), std::string::npos);

  p = ProxBlock(false);
  p.logs.push_back({{0, 1}, {1.0}, 0.0, 1.0});
  EXPECT_NE(Chosen(p).find("log term 0 has 2 indices but 1 coefficients"), std::string::npos);

  p = ProxBlock(false);
  p.logs.push_back({{0, 1}, {1.0, 1.0}, 0.0, -1.0});
  EXPECT_NE(Chosen(p).find("weight"), std::string::npos);

  p = ProxBlock(false);
  p.quadratic[1] = -1.0;
  EXPECT_NE(Chosen(p).find("convexity"), std::string::npos);

  // A null error pointer is allowed.
  EXPECT_EQ(CreateBlockSolver(p, {}, nullptr), nullptr);
}

TEST(CreateBlockSolver, SolversRefuseAChangedStructure) {
  BlockProblem p = ProxBlock(true);
  auto solver = CreateBlockSolver(p, {}, nullptr);
  ASSERT_NE(solver, nullptr);
  BlockProblem other = ProxBlock(false);
  std::vector<double> v(3, 0.0);
  EXPECT_EQ(solver->Solve(other, &v), BlockStatus::kError);
  EXPECT_NE(solver->last_error().find("structure changed"), std::string::npos);
}

// The engine's resource half step may hand a solver one array as both its targets and its
// solution (AdmmEngine::Targets: the targets written over x): a solver that solves in place
// reads every target before it writes a value. Random blocks of each in-place shape (one row
// and row-free: the separable solver; path blocks with declared images: image_row; with
// scaled maps as rows: the aggregate's reduction), solved with the targets apart and in the
// solution's array, give the same bits.
TEST(CreateBlockSolver, InPlaceSolversTakeTheirTargetsInTheSolutionsArray) {
  std::mt19937 rng(20261128);
  std::map<std::string, int> compared;
  for (int trial = 0; trial < 600; ++trial) {
    BlockProblem p;
    switch (trial % 4) {
      case 0: {
        RandomSpec spec;
        spec.num_rows = trial % 8 == 0 ? 0 : 1;
        spec.min_vars = 1;
        spec.max_vars = 40;
        p = RandomBlock(rng, spec);
        break;
      }
      case 1:
        PathBlock(rng, 1 + trial % 5, Sense::kLessEqual, trial % 8 == 1, &p);
        break;
      default:
        p = PathBlock(rng, 1 + trial % 5, trial % 3 == 0 ? Sense::kEqual : Sense::kLessEqual, true);
        break;
    }
    // Two solvers, each solving once (a solver's next search starts from its last
    // multiplier).
    std::string error;
    std::unique_ptr<BlockSolver> solver = CreateBlockSolver(p, {}, &error);
    ASSERT_NE(solver, nullptr) << "trial " << trial << ": " << error;
    if (!solver->solves_in_place()) continue;
    std::unique_ptr<BlockSolver> twin = CreateBlockSolver(p, {}, &error);
    const std::vector<double> t = p.prox_target;
    BlockProblem released = p;
    released.prox_target.clear();  // as the engine leaves it for an in-place solver
    std::vector<double> apart(t.size(), -7.0);
    const BlockStatus status = solver->SolveInPlace(released, t.data(), apart.data());
    std::vector<double> shared = t;
    ASSERT_EQ(twin->SolveInPlace(released, shared.data(), shared.data()), status)
        << "trial " << trial << " (" << solver->name() << ")";
    if (status != BlockStatus::kOptimal) continue;
    EXPECT_EQ(shared, apart) << "trial " << trial << " (" << solver->name() << ")";
    ++compared[solver->name()];
  }
  for (const char* name : {"one_row", "clip", "image_row", "aggregate(one_row)"})
    EXPECT_GE(compared[name], 10) << name;
}

// The engine's demand half step forms a separable solver's linear term g = c - p t itself
// (BlockSolver::takes_linear) instead of handing it the targets t. Random one-row and row-free
// blocks and transport-like blocks (one uniform row over variables with one curvature and
// one pair of bounds: the compact core, which uses the caller's g where it lies), each solved
// three times in a row (a search starts from the last multiplier) by one solver from g and by
// a twin from t, give the same status and the same bits.
TEST(CreateBlockSolver, SolvingFromTheLinearTermIsSolvingFromTheTargets) {
  std::mt19937 rng(20261129);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::map<std::string, int> compared;
  int compact = 0;
  for (int trial = 0; trial < 300; ++trial) {
    BlockProblem p;
    if (trial % 3 == 2) {
      // Transport's demand block: sum_k v_k <= rhs, v >= 0, a penalty and a cost per slot.
      const int n = 1 + trial % 40;
      p = EmptyBlock(n);
      std::vector<double> cost(n);
      for (double& c : cost) c = unit(rng) - 0.5;
      p.linear = cost;
      p.prox_weight = std::vector<double>(n, 0.5 + trial % 4);
      p.upper = std::vector<double>(n, kInf);
      BlockRow row{{}, std::vector<double>(n, 1.0), Sense::kLessEqual, 0.3 * n * unit(rng)};
      for (int k = 0; k < n; ++k) row.index.push_back(k);
      p.rows.push_back(row);
      ++compact;
    } else {
      RandomSpec spec;
      spec.num_rows = trial % 6 == 0 ? 0 : 1;
      spec.min_vars = 1;
      spec.max_vars = 40;
      p = RandomBlock(rng, spec);
    }
    std::string error;
    std::unique_ptr<BlockSolver> solver = CreateBlockSolver(p, {}, &error);
    ASSERT_NE(solver, nullptr) << "trial " << trial << ": " << error;
    if (!solver->takes_linear()) continue;
    ASSERT_TRUE(solver->solves_in_place()) << solver->name();
    std::unique_ptr<BlockSolver> twin = CreateBlockSolver(p, {}, &error);
    BlockProblem released = p;
    released.prox_target.clear();
    const std::size_t n = static_cast<std::size_t>(p.num_vars());
    for (int solve = 0; solve < 3; ++solve) {
      std::vector<double> t(n), g(n);
      for (std::size_t k = 0; k < n; ++k) {
        t[k] = 4.0 * unit(rng) - 1.0;
        g[k] = p.linear[k] - p.prox_weight[k] * t[k];
      }
      std::vector<double> from_g(n, -7.0), from_t(n, -9.0);
      const BlockStatus status = solver->SolveFromLinear(released, g.data(), from_g.data());
      ASSERT_EQ(twin->SolveInPlace(released, t.data(), from_t.data()), status)
          << "trial " << trial << " solve " << solve << " (" << solver->name() << ")";
      if (status != BlockStatus::kOptimal) break;
      EXPECT_EQ(std::memcmp(from_g.data(), from_t.data(), n * sizeof(double)), 0)
          << "trial " << trial << " solve " << solve << " (" << solver->name() << ")";
      ++compared[solver->name()];
    }
  }
  EXPECT_EQ(compact, 100);
  for (const char* name : {"one_row", "clip"}) EXPECT_GE(compared[name], 30) << name;
}

TEST(BlockStatusName, NamesEveryStatus) {
  EXPECT_STREQ(BlockStatusName(BlockStatus::kOptimal), "optimal");
  EXPECT_STREQ(BlockStatusName(BlockStatus::kInfeasible), "infeasible");
  EXPECT_STREQ(BlockStatusName(BlockStatus::kUnbounded), "unbounded");
  EXPECT_STREQ(BlockStatusName(BlockStatus::kNodeLimit), "node_limit");
  EXPECT_STREQ(BlockStatusName(BlockStatus::kError), "error");
}

}  // namespace
}  // namespace dede::internal
