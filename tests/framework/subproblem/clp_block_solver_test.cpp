#include "subproblem/clp_block_solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "framework/subproblem/block_test_util.h"

namespace dede::internal {
namespace {

using testing::Chance;
using testing::EmptyBlock;
using testing::kInf;
using testing::KktResidual;
using testing::MaxAbsDiff;
using testing::RandomBlock;
using testing::RandomSpec;
using testing::RelDiff;
using testing::SolveOnce;
using testing::Uniform;

constexpr double kFeasibilityTolerance = 1e-9;
constexpr double kKktTolerance = 1e-8;  // L1 stationarity residual, relative to the gradients
constexpr double kSolutionTolerance = 1e-7;

double GradientScale(const BlockProblem& p, const std::vector<double>& x) {
  double scale = 1.0;
  for (int i = 0; i < p.num_vars(); ++i) {
    scale += std::fabs(2.0 * p.quadratic[i] * x[i] + p.linear[i] +
                       p.prox_weight[i] * (x[i] - p.prox_target[i]));
  }
  return scale;
}

// Random multi-row blocks: QPs with zero-curvature variables inside the rows, LPs, equality
// rows, infinite bounds.
BlockProblem RandomGeneralBlock(std::mt19937& rng, bool lp) {
  RandomSpec spec;
  spec.min_vars = 2;
  spec.max_vars = 12;
  spec.num_rows = std::uniform_int_distribution<int>(1, 4)(rng);
  spec.row_vars_strict = false;
  spec.zero_curvature_probability = lp ? 1.0 : 0.3;
  spec.infeasible_probability = 0.03;
  BlockProblem p = RandomBlock(rng, spec);
  for (int i = 0; i < p.num_vars(); ++i) {
    if (lp) {
      p.quadratic[i] = p.prox_weight[i] = 0.0;
    }
    // Zero-curvature variables get finite bounds so most blocks are bounded; a few are not.
    if (p.quadratic[i] + p.prox_weight[i] == 0.0 && !Chance(rng, 0.02)) {
      if (!std::isfinite(p.lower[i])) p.lower[i] = Uniform(rng, -4.0, -1.0);
      if (!std::isfinite(p.upper[i])) p.upper[i] = Uniform(rng, 1.0, 4.0);
    }
  }
  // Re-draw the rhs inside the new reachable ranges (the bounds changed above).
  for (BlockRow& row : p.rows) {
    double lo, hi;
    testing::RowRange(p, row, &lo, &hi);
    if (std::isfinite(lo) && std::isfinite(hi) && !Chance(rng, 0.05)) {
      row.rhs = Uniform(rng, lo, hi);
    }
  }
  return p;
}

void ExpectCertifiedOptimal(const BlockProblem& p, const std::vector<double>& v, int instance) {
  EXPECT_LE(MaxBlockViolation(p, v), kFeasibilityTolerance) << "instance " << instance;
  EXPECT_LE(KktResidual(p, v), kKktTolerance * GradientScale(p, v)) << "instance " << instance;
}

TEST(ClpBlockSolver, MultiRowQpSolutionsCarryKktCertificates) {
  std::mt19937 rng(31);
  int optimal = 0, infeasible = 0, unbounded = 0;
  for (int instance = 0; instance < 400; ++instance) {
    const BlockProblem p = RandomGeneralBlock(rng, /*lp=*/false);
    const testing::Solution s = SolveOnce(p, /*force_clp=*/true);
    ASSERT_TRUE(s.solver == "clp+qp" || s.solver == "clp") << s.solver << " " << s.error;
    if (s.status == BlockStatus::kOptimal) {
      ExpectCertifiedOptimal(p, s.v, instance);
      ++optimal;
    } else if (s.status == BlockStatus::kInfeasible) {
      ++infeasible;
    } else {
      ASSERT_EQ(s.status, BlockStatus::kUnbounded) << "instance " << instance << ": " << s.error;
      ++unbounded;
    }
  }
  EXPECT_GT(optimal, 300);
  EXPECT_GT(infeasible, 0);
  std::printf("[stats] %d optimal, %d infeasible, %d unbounded\n", optimal, infeasible, unbounded);
}

TEST(ClpBlockSolver, LpSolutionsCarryKktCertificates) {
  std::mt19937 rng(32);
  int optimal = 0;
  for (int instance = 0; instance < 300; ++instance) {
    const BlockProblem p = RandomGeneralBlock(rng, /*lp=*/true);
    const testing::Solution s = SolveOnce(p, /*force_clp=*/true);
    ASSERT_EQ(s.solver, "clp");
    if (s.status != BlockStatus::kOptimal) continue;
    ExpectCertifiedOptimal(p, s.v, instance);
    ++optimal;
  }
  EXPECT_GT(optimal, 200);
}

TEST(ClpBlockSolver, AgreesWithFastPathsOnLargeBlocks) {
  // 500 variables, one row: the exact one-row solver is the reference.
  std::mt19937 rng(33);
  RandomSpec spec;
  spec.min_vars = spec.max_vars = 500;
  spec.infeasible_probability = 0.0;
  for (int instance = 0; instance < 5; ++instance) {
    const BlockProblem p = RandomBlock(rng, spec);
    const testing::Solution fast = SolveOnce(p, false);
    const testing::Solution clp = SolveOnce(p, true);
    ASSERT_EQ(fast.status, clp.status) << clp.error;
    if (fast.status != BlockStatus::kOptimal) continue;
    EXPECT_LE(MaxAbsDiff(fast.v, clp.v), kSolutionTolerance);
    EXPECT_LE(RelDiff(clp.objective, fast.objective), 1e-9);
  }
}

TEST(ClpBlockSolver, WarmResolvesMatchColdSolves) {
  // Linear terms change every call; rhs, bounds and (once) the curvature change with a
  // revision bump. Each warm answer must equal a cold solve of the same data.
  std::mt19937 rng(34);
  for (int block = 0; block < 30; ++block) {
    BlockProblem p = RandomGeneralBlock(rng, /*lp=*/block % 3 == 0);
    const testing::Solution first = SolveOnce(p, true);
    if (first.status != BlockStatus::kOptimal) continue;
    std::string error;
    BlockSolverOptions options;
    options.force_clp = true;
    auto solver = CreateBlockSolver(p, options, &error);
    ASSERT_NE(solver, nullptr) << error;
    std::vector<double> v(p.num_vars(), 0.0);
    for (int call = 0; call < 20; ++call) {
      for (int i = 0; i < p.num_vars(); ++i) {
        p.linear[i] += Uniform(rng, -0.2, 0.2);
        p.prox_target[i] += Uniform(rng, -0.2, 0.2);
      }
      if (call % 4 == 3) {
        const int r =
            std::uniform_int_distribution<int>(0, static_cast<int>(p.rows.size()) - 1)(rng);
        p.rows[r].rhs += Uniform(rng, -0.2, 0.2);
        const int i = std::uniform_int_distribution<int>(0, p.num_vars() - 1)(rng);
        if (std::isfinite(p.upper[i])) p.upper[i] = std::max<double>(p.lower[i], p.upper[i] - 0.1);
        ++p.revision;
      }
      if (call == 10 && block % 3 != 0) {
        p.prox_weight[0] = 0.5 + p.prox_weight[0];
        ++p.revision;
      }
      const BlockStatus status = solver->Solve(p, &v);
      const testing::Solution cold = SolveOnce(p, true);
      ASSERT_EQ(BlockStatusName(status), std::string(BlockStatusName(cold.status)))
          << "block " << block << " call " << call << ": " << solver->last_error() << " / "
          << cold.error;
      if (status != BlockStatus::kOptimal) continue;
      EXPECT_LE(RelDiff(EvaluateBlockObjective(p, v), cold.objective), 1e-9)
          << "block " << block << " call " << call;
      ExpectCertifiedOptimal(p, v, call);
    }
  }
}

TEST(ClpBlockSolver, ReportsInfeasibleAndUnboundedBlocks) {
  BlockProblem infeasible = EmptyBlock(2);
  infeasible.prox_weight = {1.0, 1.0};
  infeasible.upper = {1.0, 1.0};
  infeasible.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kGreaterEqual, 1.5});
  infeasible.rows.push_back({{0, 1}, {1.0, -1.0}, Sense::kGreaterEqual, 0.9});
  const testing::Solution a = SolveOnce(infeasible, false);
  EXPECT_EQ(a.status, BlockStatus::kInfeasible) << a.error;
  EXPECT_FALSE(a.error.empty());

  // min -x0 - 3 y with x0 - y <= 1 and x0 >= -5, no curvature: x0 = y + 1 gives -4 y - 1.
  BlockProblem unbounded = EmptyBlock(2);
  unbounded.linear = {-1.0, -3.0};
  unbounded.lower = {-kInf, -kInf};
  unbounded.upper = {kInf, kInf};
  unbounded.rows.push_back({{0, 1}, {1.0, -1.0}, Sense::kLessEqual, 1.0});
  unbounded.rows.push_back({{0}, {1.0}, Sense::kGreaterEqual, -5.0});
  const testing::Solution b = SolveOnce(unbounded, false);
  EXPECT_EQ(b.status, BlockStatus::kUnbounded) << b.error;
  unbounded.prox_weight[1] = 1.0;  // with curvature on y it is bounded
  const testing::Solution c = SolveOnce(unbounded, false);
  ASSERT_EQ(c.status, BlockStatus::kOptimal) << c.error;
  ExpectCertifiedOptimal(unbounded, c.v, 0);
}

TEST(ClpBlockSolver, RejectsLogTermsWithAClearMessage) {
  BlockProblem p = EmptyBlock(3);
  p.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kLessEqual, 1.0});
  p.logs.push_back({{0, 1, 2}, {1.0, 1.0, 1.0}, 0.0, 1.0});
  std::string error;
  EXPECT_EQ(ClpBlockSolver::Create(p, {}, &error), nullptr);
  EXPECT_NE(error.find("1 log terms and 1 rows"), std::string::npos) << error;
}

TEST(ClpBlockSolver, LpWarmStartsAfterCostAndBoundChanges) {
  // A transportation-like LP: 3 supplies x 2 sinks, supply <= cap, demand = d.
  BlockProblem p = EmptyBlock(6);
  for (int i = 0; i < 6; ++i) p.linear[i] = 1.0 + i;
  for (int s = 0; s < 3; ++s)
    p.rows.push_back({{2 * s, 2 * s + 1}, {1.0, 1.0}, Sense::kLessEqual, 2.0});
  p.rows.push_back({{0, 2, 4}, {1.0, 1.0, 1.0}, Sense::kEqual, 3.0});
  p.rows.push_back({{1, 3, 5}, {1.0, 1.0, 1.0}, Sense::kEqual, 2.5});
  std::string error;
  auto solver = CreateBlockSolver(p, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  EXPECT_EQ(solver->name(), "clp");
  std::vector<double> v(6, 0.0);
  std::mt19937 rng(35);
  for (int call = 0; call < 40; ++call) {
    for (std::size_t k = 0; k < p.linear.size(); ++k) p.linear[k] = Uniform(rng, 0.5, 5.0);
    if (call % 5 == 0) {
      p.rows[3].rhs = Uniform(rng, 1.0, 3.0);
      p.upper[call % 6] = Uniform(rng, 0.5, 2.0);
      ++p.revision;
    }
    const BlockStatus status = solver->Solve(p, &v);
    const testing::Solution cold = SolveOnce(p, false);
    ASSERT_EQ(status, cold.status) << solver->last_error();
    if (status != BlockStatus::kOptimal) continue;
    EXPECT_LE(RelDiff(EvaluateBlockObjective(p, v), cold.objective), 1e-9);
    ExpectCertifiedOptimal(p, v, call);
  }
}

}  // namespace
}  // namespace dede::internal
