#include "subproblem/branch_and_bound.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <random>

#include "framework/subproblem/block_test_util.h"

namespace dede::internal {
namespace {

using testing::Chance;
using testing::EmptyBlock;
using testing::kInf;
using testing::RelDiff;
using testing::SolveOnce;
using testing::Uniform;

constexpr double kObjectiveTolerance = 1e-7;
constexpr double kFeasibilityTolerance = 1e-9;

// Tiny mixed-integer blocks: 1-4 integral variables in small boxes, 0-2 continuous ones,
// 0-2 rows.
BlockProblem RandomIntegerBlock(std::mt19937& rng) {
  const int ni = std::uniform_int_distribution<int>(1, 4)(rng);
  const int nc = std::uniform_int_distribution<int>(0, 2)(rng);
  const int n = ni + nc;
  BlockProblem p = EmptyBlock(n);
  const bool strict = Chance(rng, 0.6);
  for (int i = 0; i < n; ++i) {
    if (strict || Chance(rng, 0.5)) p.prox_weight[i] = Uniform(rng, 0.2, 2.0);
    if (Chance(rng, 0.3)) p.quadratic[i] = Uniform(rng, 0.0, 1.0);
    p.prox_target[i] = Uniform(rng, -2.0, 3.0);
    p.linear[i] = Uniform(rng, -2.0, 2.0);
    if (i < ni) {
      p.integral[i] = 1;
      if (Chance(rng, 0.3)) {
        p.lower[i] = 0.0;
        p.upper[i] = 1.0;
      } else {
        p.lower[i] = std::floor(Uniform(rng, -2.0, 1.0)) + (Chance(rng, 0.2) ? 0.5 : 0.0);
        p.upper[i] = p.lower[i] + std::uniform_int_distribution<int>(1, 4)(rng);
      }
    } else {
      p.lower[i] = Uniform(rng, -3.0, 0.0);
      p.upper[i] = Uniform(rng, 0.5, 3.0);
    }
  }
  const int rows = std::uniform_int_distribution<int>(0, 2)(rng);
  for (int r = 0; r < rows; ++r) {
    BlockRow row;
    for (int i = 0; i < n; ++i) {
      if (Chance(rng, 0.7) || row.index.empty()) {
        row.index.push_back(i);
        row.coef.push_back(Chance(rng, 0.5) ? 1.0 : Uniform(rng, -2.0, 2.0));
      }
    }
    const int s = std::uniform_int_distribution<int>(0, 2)(rng);
    row.sense = s == 0 ? Sense::kLessEqual : (s == 1 ? Sense::kEqual : Sense::kGreaterEqual);
    double lo, hi;
    testing::RowRange(p, row, &lo, &hi);
    row.rhs = Uniform(rng, lo, hi);
    if (row.sense == Sense::kEqual && Chance(rng, 0.5)) row.rhs = std::round(row.rhs);
    p.rows.push_back(row);
  }
  return p;
}

// Brute force: every integer assignment of the integral variables, the continuous rest by
// the general (Clp-backed) path. +inf if none is feasible.
double EnumerationReference(const BlockProblem& p, std::vector<double>* best_v) {
  std::vector<int> ints;
  for (int i = 0; i < p.num_vars(); ++i) {
    if (p.integral[i]) ints.push_back(i);
  }
  BlockProblem fixed = p;
  std::fill(fixed.integral.begin(), fixed.integral.end(), 0);
  std::vector<double> value(ints.size());
  for (size_t k = 0; k < ints.size(); ++k) value[k] = std::ceil(p.lower[ints[k]] - 1e-9);
  double best = kInf;
  while (true) {
    for (size_t k = 0; k < ints.size(); ++k) fixed.lower[ints[k]] = fixed.upper[ints[k]] = value[k];
    const testing::Solution s = SolveOnce(fixed, true);
    if (s.status == BlockStatus::kOptimal && s.objective < best) {
      best = s.objective;
      *best_v = s.v;
    }
    size_t k = 0;
    for (; k < ints.size(); ++k) {
      if (value[k] + 1 <= std::floor(p.upper[ints[k]] + 1e-9)) {
        value[k] += 1;
        break;
      }
      value[k] = std::ceil(p.lower[ints[k]] - 1e-9);
    }
    if (k == ints.size()) break;
  }
  return best;
}

void ExpectIntegralFeasible(const BlockProblem& p, const std::vector<double>& v, int instance) {
  EXPECT_LE(MaxBlockViolation(p, v), kFeasibilityTolerance) << "instance " << instance;
  for (int i = 0; i < p.num_vars(); ++i) {
    if (p.integral[i]) {
      EXPECT_EQ(v[i], std::round(v[i])) << "instance " << instance;
    }
  }
}

TEST(BranchAndBound, MatchesEnumerationOnTinyIntegerBoxes) {
  std::mt19937 rng(51);
  int optimal = 0, infeasible = 0;
  for (int instance = 0; instance < 250; ++instance) {
    const BlockProblem p = RandomIntegerBlock(rng);
    std::vector<double> ref_v;
    const double ref = EnumerationReference(p, &ref_v);
    for (bool force_clp : {false, true}) {
      const testing::Solution s = SolveOnce(p, force_clp);
      ASSERT_EQ(s.solver.rfind("bnb(", 0), 0u) << s.solver;
      if (!std::isfinite(ref)) {
        EXPECT_EQ(s.status, BlockStatus::kInfeasible)
            << "instance " << instance << " " << s.solver << ": " << s.error;
        continue;
      }
      ASSERT_EQ(s.status, BlockStatus::kOptimal)
          << "instance " << instance << " " << s.solver << ": " << s.error;
      EXPECT_LE(RelDiff(s.objective, ref), kObjectiveTolerance)
          << "instance " << instance << " " << s.solver << " " << s.objective << " vs " << ref;
      ExpectIntegralFeasible(p, s.v, instance);
    }
    (std::isfinite(ref) ? optimal : infeasible) += 1;
  }
  EXPECT_GT(optimal, 150);
  EXPECT_GT(infeasible, 5);
}

TEST(BranchAndBound, ReportsObjectiveOfTheReturnedPoint) {
  std::mt19937 rng(52);
  for (int instance = 0; instance < 50; ++instance) {
    const BlockProblem p = RandomIntegerBlock(rng);
    std::string error;
    auto made = CreateBlockSolver(p, {}, &error);
    ASSERT_NE(made, nullptr) << error;
    auto* bnb = dynamic_cast<BranchAndBoundSolver*>(made.get());
    ASSERT_NE(bnb, nullptr);
    std::vector<double> v(p.num_vars(), 0.0);
    if (bnb->Solve(p, &v) != BlockStatus::kOptimal) continue;
    EXPECT_EQ(bnb->objective(), EvaluateBlockObjective(p, v));
    EXPECT_GT(bnb->nodes(), 0);
  }
}

// 10 binaries with a knapsack equality that rounding cannot satisfy easily.
BlockProblem Knapsack() {
  const int n = 10;
  BlockProblem p = EmptyBlock(n);
  BlockRow row{{}, {}, Sense::kEqual, 0.0};
  for (int i = 0; i < n; ++i) {
    p.integral[i] = 1;
    p.upper[i] = 1.0;
    p.prox_weight[i] = 1.0;
    p.prox_target[i] = 0.5 + 0.01 * i;
    row.index.push_back(i);
    row.coef.push_back(3.0 + 2.0 * i);
  }
  row.rhs = 3.0 + 9.0 + 13.0 + 17.0;  // items 0, 3, 5, 7
  p.rows.push_back(row);
  return p;
}

TEST(BranchAndBound, NodeLimitReturnsTheIncumbent) {
  BlockProblem p = Knapsack();
  BlockSolverOptions options;
  options.node_limit = 3;
  std::string error;
  auto solver = CreateBlockSolver(p, options, &error);
  ASSERT_NE(solver, nullptr) << error;
  // A feasible warm start becomes the first incumbent, so the limit yields kNodeLimit.
  std::vector<double> v(p.num_vars(), 0.0);
  for (int i : {0, 3, 5, 7}) v[i] = 1.0;
  ASSERT_EQ(solver->Solve(p, &v), BlockStatus::kNodeLimit) << solver->last_error();
  ExpectIntegralFeasible(p, v, 0);
  EXPECT_NE(solver->last_error().find("node limit 3"), std::string::npos);
  // Without an incumbent the limit is an error, and v is left alone.
  std::vector<double> cold(p.num_vars(), 0.5);
  ASSERT_EQ(solver->Solve(p, &cold), BlockStatus::kError);
  EXPECT_EQ(cold, std::vector<double>(p.num_vars(), 0.5));
  // With the default limit the search completes.
  const testing::Solution full = SolveOnce(p, false);
  ASSERT_EQ(full.status, BlockStatus::kOptimal) << full.error;
  std::vector<double> ref_v;
  EXPECT_LE(RelDiff(full.objective, EnumerationReference(p, &ref_v)), kObjectiveTolerance);
}

TEST(BranchAndBound, DeadlineStopsTheSearchWithoutFailing) {
  BlockProblem p = Knapsack();
  std::atomic<std::int64_t> deadline{0};
  BlockSolverOptions options;
  options.deadline_ns = &deadline;
  std::string error;
  auto solver = CreateBlockSolver(p, options, &error);
  ASSERT_NE(solver, nullptr) << error;
  // No deadline (0): the search completes.
  std::vector<double> v(p.num_vars(), 0.0);
  ASSERT_EQ(solver->Solve(p, &v), BlockStatus::kOptimal) << solver->last_error();
  // A deadline in the past: no node is explored; the caller's point comes back untouched and
  // the status is kNodeLimit (the caller reports its own time limit), not an error.
  deadline.store(1);
  std::vector<double> cold(p.num_vars(), 0.5);
  ASSERT_EQ(solver->Solve(p, &cold), BlockStatus::kNodeLimit);
  EXPECT_EQ(cold, std::vector<double>(p.num_vars(), 0.5));
  EXPECT_NE(solver->last_error().find("deadline reached after 0 nodes"), std::string::npos)
      << solver->last_error();
  // Moved back to "none", the same solver completes again.
  deadline.store(0);
  std::vector<double> again(p.num_vars(), 0.0);
  EXPECT_EQ(solver->Solve(p, &again), BlockStatus::kOptimal);
  EXPECT_EQ(again, v);
}

// Larger trees: 8 integer variables in [0, 3] with prox terms, two knapsack-like rows.
BlockProblem ModerateIntegerBlock(std::mt19937& rng) {
  const int n = 8;
  BlockProblem p = EmptyBlock(n);
  for (int i = 0; i < n; ++i) {
    p.integral[i] = 1;
    p.upper[i] = 3.0;
    p.prox_weight[i] = Uniform(rng, 0.5, 2.0);
    p.prox_target[i] = Uniform(rng, 0.0, 3.0);
  }
  for (int r = 0; r < 2; ++r) {
    BlockRow row{{}, {}, Sense::kLessEqual, 0.0};
    for (int i = 0; i < n; ++i) {
      row.index.push_back(i);
      row.coef.push_back(Uniform(rng, 0.5, 3.0));
    }
    row.rhs = Uniform(rng, 4.0, 8.0);
    p.rows.push_back(row);
  }
  return p;
}

TEST(BranchAndBound, WarmStartsGiveColdAnswersWithFewerNodes) {
  // The ADMM pattern: the same block re-solved with slightly moved targets and, now and then,
  // a new rhs. Each warm answer equals a cold solve; the warm start (incumbent from the
  // previous point) saves nodes overall.
  std::mt19937 rng(53);
  long warm_nodes = 0, cold_nodes = 0;
  for (int block = 0; block < 30; ++block) {
    BlockProblem p = block % 2 == 0 ? RandomIntegerBlock(rng) : ModerateIntegerBlock(rng);
    std::string error;
    auto made = CreateBlockSolver(p, {}, &error);
    ASSERT_NE(made, nullptr) << error;
    auto* bnb = dynamic_cast<BranchAndBoundSolver*>(made.get());
    std::vector<double> v(p.num_vars(), 0.0);
    for (int call = 0; call < 8; ++call) {
      for (int i = 0; i < p.num_vars(); ++i) p.prox_target[i] += Uniform(rng, -0.05, 0.05);
      if (call % 3 == 2 && !p.rows.empty()) {
        p.rows[0].rhs += Uniform(rng, -0.2, 0.2);
        ++p.revision;
      }
      const BlockStatus status = bnb->Solve(p, &v);
      // Cold: a fresh solver and no previous point (an empty v skips the warm start).
      auto fresh_made = CreateBlockSolver(p, {}, &error);
      auto* fresh = dynamic_cast<BranchAndBoundSolver*>(fresh_made.get());
      std::vector<double> cold;
      const BlockStatus cold_status = fresh->Solve(p, &cold);
      ASSERT_EQ(BlockStatusName(status), std::string(BlockStatusName(cold_status)))
          << bnb->last_error() << " / " << fresh->last_error();
      if (status != BlockStatus::kOptimal) continue;
      EXPECT_LE(RelDiff(bnb->objective(), fresh->objective()), 1e-9) << "block " << block;
      ExpectIntegralFeasible(p, v, block);
      warm_nodes += bnb->nodes();
      cold_nodes += fresh->nodes();
    }
  }
  std::printf("[stats] branch and bound nodes: warm %ld, cold %ld\n", warm_nodes, cold_nodes);
  EXPECT_LT(warm_nodes, cold_nodes);
}

TEST(BranchAndBound, MatchesEnumerationWithALogTerm) {
  // Pure-integer blocks over the log solver: the reference evaluates every integer point.
  std::mt19937 rng(54);
  for (int instance = 0; instance < 100; ++instance) {
    const int n = std::uniform_int_distribution<int>(2, 3)(rng);
    BlockProblem p = EmptyBlock(n);
    BlockLog log{{}, {}, Uniform(rng, 0.1, 1.0), Uniform(rng, 0.5, 5.0)};
    for (int i = 0; i < n; ++i) {
      p.integral[i] = 1;
      p.upper[i] = 3.0;
      p.prox_weight[i] = Uniform(rng, 0.2, 2.0);
      p.prox_target[i] = Uniform(rng, 0.0, 3.0);
      p.linear[i] = Uniform(rng, -1.0, 2.0);
      log.index.push_back(i);
      log.coef.push_back(Uniform(rng, 0.2, 2.0));
    }
    p.logs.push_back(log);
    if (instance % 2 == 0) {
      BlockRow row{{}, {}, Sense::kLessEqual, Uniform(rng, 1.0, 5.0)};
      for (int i = 0; i < n; ++i) {
        row.index.push_back(i);
        row.coef.push_back(Uniform(rng, 0.5, 1.5));
      }
      p.rows.push_back(row);
    }
    double ref = kInf;
    std::vector<double> x(n, 0.0);
    for (int code = 0; code < (n == 2 ? 16 : 64); ++code) {
      for (int i = 0, c = code; i < n; ++i, c /= 4) x[i] = c % 4;
      if (MaxBlockViolation(p, x) > 0.0) continue;
      ref = std::min(ref, EvaluateBlockObjective(p, x));
    }
    const testing::Solution s = SolveOnce(p, false);
    EXPECT_EQ(s.solver, "bnb(log)");
    ASSERT_EQ(s.status, BlockStatus::kOptimal) << "instance " << instance << ": " << s.error;
    EXPECT_LE(RelDiff(s.objective, ref), kObjectiveTolerance) << "instance " << instance;
    ExpectIntegralFeasible(p, s.v, instance);
  }
}

// Builds a block from per-variable rows {q, p, c, t, lower, upper, integral}.
BlockProblem MakeBlock(const std::vector<std::vector<double>>& vars, std::vector<BlockRow> rows) {
  BlockProblem p = EmptyBlock(static_cast<int>(vars.size()));
  for (size_t i = 0; i < vars.size(); ++i) {
    p.quadratic[i] = vars[i][0];
    p.prox_weight[i] = vars[i][1];
    p.linear[i] = vars[i][2];
    p.prox_target[i] = vars[i][3];
    p.lower[i] = vars[i][4];
    p.upper[i] = vars[i][5];
    p.integral[i] = vars[i][6] != 0.0;
  }
  p.rows = std::move(rows);
  return p;
}

TEST(BranchAndBound, SurvivesDegenerateRelaxations) {
  // Found by random search: nodes where an equality row pins a variable exactly at its
  // bound, so the active-set relaxation meets zero-length steps onto constraints that are
  // dependent on its working set (they once made it fail with a singular system).
  const std::vector<BlockProblem> blocks = {
      MakeBlock({{0.72174701030215482,
                  0.79652852237641314,
                  1.3352086900141269,
                  0.4223805975270194,
                  0,
                  3,
                  1},
                 {0.11875380739818379,
                  0.55415100245284277,
                  1.9313855926086338,
                  0.38763125017194522,
                  0,
                  1,
                  1},
                 {0, 0.96772952465017137, -0.49828062309712484, 2.5830094416097129, 0, 2, 1},
                 {0,
                  1.3083113622684568,
                  -0.071628580052453206,
                  1.2030094790895935,
                  -1.9194156636382522,
                  2.1431830774683109,
                  0}},
                {{{0, 1, 2, 3}, {1, -1.8816455737419979, 1, 1}, Sense::kEqual, 0.51224201755341792},
                 {{0, 1}, {1, 1}, Sense::kEqual, 1}}),
      MakeBlock({{0, 1.8702968056127185, -0.20970422388791032, 2.9471506412621693, 0, 1, 1},
                 {0.33178941259787176,
                  0.3143162195028425,
                  1.4072374453418144,
                  1.0518691657361097,
                  -1,
                  1,
                  1},
                 {0, 1.8555697973582681, -1.5378000543225094, 1.3370981334285061, -2, 0, 1},
                 {0, 1.56098645804956, 1.3563285113422898, 2.009214999438214, 0, 1, 1},
                 {0.13797492170229417,
                  1.6647141842910342,
                  -0.89072066612668377,
                  0.82344929028714775,
                  -1.2475589104796678,
                  2.6899421866919431,
                  0}},
                {{{0, 1, 3},
                  {-0.98579685882715307, 1.047674416076732, -1.7222686140720471},
                  Sense::kGreaterEqual,
                  -1.5084493437882132},
                 {{0, 1}, {-1.3629722049120425, 0.37854956609400414}, Sense::kEqual, 0}}),
  };
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::vector<double> ref_v;
    const double ref = EnumerationReference(blocks[b], &ref_v);
    ASSERT_TRUE(std::isfinite(ref));
    for (bool force_clp : {false, true}) {
      const testing::Solution s = SolveOnce(blocks[b], force_clp);
      ASSERT_EQ(s.status, BlockStatus::kOptimal)
          << "block " << b << " " << s.solver << ": " << s.error;
      EXPECT_LE(RelDiff(s.objective, ref), kObjectiveTolerance) << "block " << b;
      ExpectIntegralFeasible(blocks[b], s.v, static_cast<int>(b));
    }
  }
}

TEST(BranchAndBound, DetectsIntegerInfeasibility) {
  BlockProblem no_integer = EmptyBlock(1);
  no_integer.integral[0] = 1;
  no_integer.lower[0] = 0.2;
  no_integer.upper[0] = 0.8;
  no_integer.prox_weight[0] = 1.0;
  EXPECT_EQ(SolveOnce(no_integer, false).status, BlockStatus::kInfeasible);

  BlockProblem odd = EmptyBlock(2);  // 2 x0 + 2 x1 = 3 has no integer solution
  odd.integral = {1, 1};
  odd.upper = {5.0, 5.0};
  odd.prox_weight = {1.0, 1.0};
  odd.rows.push_back({{0, 1}, {2.0, 2.0}, Sense::kEqual, 3.0});
  const testing::Solution s = SolveOnce(odd, false);
  EXPECT_EQ(s.solver, "bnb(one_row)");
  EXPECT_EQ(s.status, BlockStatus::kInfeasible) << s.error;
}

}  // namespace
}  // namespace dede::internal
