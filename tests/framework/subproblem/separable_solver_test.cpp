#include "subproblem/separable_solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <coin/ClpSimplex.hpp>
#include <cstdio>
#include <cstring>
#include <random>

#include "framework/subproblem/block_test_util.h"

namespace dede::internal {
namespace {

using testing::BisectOneRow;
using testing::BisectVariable;
using testing::Chance;
using testing::EmptyBlock;
using testing::kInf;
using testing::MaxAbsDiff;
using testing::RandomBlock;
using testing::RandomSpec;
using testing::RelDiff;
using testing::SolveOnce;
using testing::Uniform;

constexpr double kObjectiveTolerance = 1e-7;  // fast path vs Clp, relative to max(1, |obj|)
constexpr double kSolutionTolerance = 1e-7;
constexpr double kFeasibilityTolerance = 1e-9;
constexpr double kReferenceTolerance = 1e-6;  // vs the bisection references (solution)

// Compares the fast path with Clp on one instance; returns the fast solver's name.
std::string ExpectMatchesClp(const BlockProblem& p, int instance, bool compare_solution = true) {
  const testing::Solution fast = SolveOnce(p, /*force_clp=*/false);
  const testing::Solution clp = SolveOnce(p, /*force_clp=*/true);
  EXPECT_EQ(BlockStatusName(fast.status), std::string(BlockStatusName(clp.status)))
      << "instance " << instance << " fast: " << fast.error << " clp: " << clp.error;
  if (fast.status == BlockStatus::kOptimal && clp.status == BlockStatus::kOptimal) {
    EXPECT_LE(RelDiff(fast.objective, clp.objective), kObjectiveTolerance)
        << "instance " << instance << " fast " << fast.objective << " clp " << clp.objective;
    if (compare_solution) {
      EXPECT_LE(MaxAbsDiff(fast.v, clp.v), kSolutionTolerance) << "instance " << instance;
    }
    EXPECT_LE(MaxBlockViolation(p, fast.v), kFeasibilityTolerance) << "instance " << instance;
  }
  return fast.solver;
}

TEST(SeparableSolver, ClipMatchesClpOnRandomBlocksWithoutRows) {
  std::mt19937 rng(11);
  RandomSpec spec;
  spec.num_rows = 0;
  spec.allow_unbounded = true;  // a few zero-curvature variables without a bound
  int unbounded = 0;
  for (int instance = 0; instance < 300; ++instance) {
    spec.allow_unbounded = instance % 10 == 0;
    const BlockProblem p = RandomBlock(rng, spec);
    EXPECT_EQ(ExpectMatchesClp(p, instance), "clip");
    unbounded += SolveOnce(p, false).status == BlockStatus::kUnbounded;
  }
  EXPECT_GT(unbounded, 0);  // the generator did exercise the unbounded branch
}

TEST(SeparableSolver, OneRowMatchesClpOnRandomBlocks) {
  std::mt19937 rng(12);
  RandomSpec spec;
  spec.num_rows = 1;
  spec.max_vars = 14;
  spec.infeasible_probability = 0.1;
  int infeasible = 0, by_sense[3] = {0, 0, 0};
  for (int instance = 0; instance < 400; ++instance) {
    BlockProblem p = RandomBlock(rng, spec);
    if (instance % 7 == 0) {
      // Equal coefficients and equal curvature: many ties among breakpoints.
      for (size_t k = 0; k < p.rows[0].coef.size(); ++k) {
        const int i = p.rows[0].index[k];
        p.rows[0].coef[k] = 1.0;
        p.quadratic[i] = 0.0;
        p.prox_weight[i] = 1.0;
        p.linear[i] = 0.0;
        p.lower[i] = 0.0;
        p.upper[i] = 1.0;
      }
    }
    EXPECT_EQ(ExpectMatchesClp(p, instance), "one_row") << "instance " << instance;
    infeasible += SolveOnce(p, false).status == BlockStatus::kInfeasible;
    ++by_sense[static_cast<int>(p.rows[0].sense)];
  }
  EXPECT_GT(infeasible, 10);
  EXPECT_GT(by_sense[0], 50);
  EXPECT_GT(by_sense[1], 50);
  EXPECT_GT(by_sense[2], 50);
}

TEST(SeparableSolver, OneRowOfManyVariablesMatchesClp) {
  std::mt19937 rng(13);
  RandomSpec spec;
  spec.min_vars = 100;
  spec.max_vars = 300;
  spec.infeasible_probability = 0.0;
  for (int instance = 0; instance < 20; ++instance) {
    EXPECT_EQ(ExpectMatchesClp(RandomBlock(rng, spec), instance), "one_row");
  }
}

TEST(SeparableSolver, OneRowStaysExactWhenRowVariablesLoseCurvature) {
  // The solver is chosen on strictly convex data; a parameter change then removes the
  // curvature of some row variables (e.g. q set to 0 on a local). Their steps in the
  // multiplier must still give the optimum (ties: objective only, it is not unique).
  std::mt19937 rng(14);
  RandomSpec spec;
  spec.infeasible_probability = 0.05;
  int degenerate = 0;
  for (int instance = 0; instance < 300; ++instance) {
    BlockProblem p = RandomBlock(rng, spec);
    std::string error;
    auto solver = CreateBlockSolver(p, {}, &error);
    ASSERT_NE(solver, nullptr) << error;
    ASSERT_EQ(solver->name(), "one_row");
    for (int i : p.rows[0].index) {
      if (!Chance(rng, 0.5)) continue;
      p.quadratic[i] = p.prox_weight[i] = 0.0;
      if (!std::isfinite(p.lower[i])) p.lower[i] = Uniform(rng, -3.0, -0.5);
      if (!std::isfinite(p.upper[i])) p.upper[i] = Uniform(rng, 0.5, 3.0);
      if (Chance(rng, 0.3)) p.linear[i] = 0.0;  // exact ties at lambda = 0
      ++degenerate;
    }
    p.revision = 1;
    std::vector<double> v(p.num_vars(), 0.0);
    const BlockStatus status = solver->Solve(p, &v);
    const testing::Solution clp = SolveOnce(p, true);
    ASSERT_EQ(BlockStatusName(status), std::string(BlockStatusName(clp.status)))
        << "instance " << instance << ": " << solver->last_error() << " / " << clp.error;
    if (status != BlockStatus::kOptimal) continue;
    EXPECT_LE(RelDiff(EvaluateBlockObjective(p, v), clp.objective), kObjectiveTolerance)
        << "instance " << instance;
    EXPECT_LE(MaxBlockViolation(p, v), kFeasibilityTolerance) << "instance " << instance;
  }
  EXPECT_GT(degenerate, 100);
}

// Random one-variable log terms w log(alpha v + beta) on some variables.
void AddVariableLogs(std::mt19937& rng, BlockProblem* p, double probability) {
  for (int i = 0; i < p->num_vars(); ++i) {
    if (!Chance(rng, probability)) continue;
    const int count = Chance(rng, 0.15) ? 2 : 1;
    for (int c = 0; c < count; ++c) {
      BlockLog log;
      log.index = {i};
      log.coef = {Uniform(rng, 0.3, 2.0) * (Chance(rng, 0.25) ? -1.0 : 1.0)};
      // Keep the domain boundary where the bounds leave room on its open side.
      const double inside = std::isfinite(p->lower[i]) && std::isfinite(p->upper[i])
                                ? 0.5 * (p->lower[i] + p->upper[i])
                                : (std::isfinite(p->lower[i])
                                       ? p->lower[i] + 1.0
                                       : (std::isfinite(p->upper[i]) ? p->upper[i] - 1.0 : 0.0));
      const double margin = Uniform(rng, 0.1, 2.0);
      log.constant = margin - log.coef[0] * inside;  // alpha * inside + beta = margin > 0
      log.weight = Uniform(rng, 0.1, 3.0);
      p->logs.push_back(log);
    }
  }
}

TEST(SeparableSolver, OneVariableLogsMatchDerivativeBisection) {
  std::mt19937 rng(15);
  RandomSpec spec;
  spec.num_rows = 0;
  spec.zero_curvature_probability = 0.4;
  for (int instance = 0; instance < 300; ++instance) {
    BlockProblem p = RandomBlock(rng, spec);
    AddVariableLogs(rng, &p, 0.7);
    const testing::Solution fast = SolveOnce(p, false);
    ASSERT_EQ(fast.status, BlockStatus::kOptimal) << "instance " << instance << ": " << fast.error;
    EXPECT_EQ(fast.solver, "clip");
    for (int i = 0; i < p.num_vars(); ++i) {
      const double ref = BisectVariable(p, i, 0.0);
      EXPECT_NEAR(fast.v[i], ref, kReferenceTolerance * std::max(1.0, std::fabs(ref)))
          << "instance " << instance << " var " << i;
      // First-order optimality at interior points, to far below the comparison tolerance.
      if (fast.v[i] > p.lower[i] && fast.v[i] < p.upper[i]) {
        EXPECT_NEAR(testing::OwnDerivative(p, i, 0.0, fast.v[i]), 0.0, 1e-8)
            << "instance " << instance << " var " << i;
      }
    }
  }
}

TEST(SeparableSolver, OneRowWithLogsMatchesMultiplierBisection) {
  std::mt19937 rng(16);
  RandomSpec spec;
  spec.max_vars = 7;
  spec.infeasible_probability = 0.0;
  int checked = 0;
  for (int instance = 0; instance < 200; ++instance) {
    BlockProblem p = RandomBlock(rng, spec);
    AddVariableLogs(rng, &p, 0.6);
    // The log domain may exclude the old rhs; keep the instance only if the reference finds
    // a feasible optimum.
    std::vector<double> ref;
    BisectOneRow(p, &ref);
    bool finite = true;
    for (double x : ref) finite = finite && std::isfinite(x);
    if (!finite || MaxBlockViolation(p, ref) > 1e-6) continue;
    const testing::Solution fast = SolveOnce(p, false);
    ASSERT_EQ(fast.status, BlockStatus::kOptimal) << "instance " << instance << ": " << fast.error;
    EXPECT_EQ(fast.solver, "one_row");
    EXPECT_LE(MaxAbsDiff(fast.v, ref), kReferenceTolerance) << "instance " << instance;
    EXPECT_LE(RelDiff(fast.objective, EvaluateBlockObjective(p, ref)), 1e-8)
        << "instance " << instance;
    EXPECT_LE(MaxBlockViolation(p, fast.v), kFeasibilityTolerance) << "instance " << instance;
    ++checked;
  }
  EXPECT_GT(checked, 120);
}

// min over x of the objective with y = (rhs - a x) / b, by ternary search (convex in x).
double TwoVariableEqualityReference(const BlockProblem& p, double rhs) {
  const double a = p.rows[0].coef[0], b = p.rows[0].coef[1];
  double lo = std::max(p.lower[0], -50.0), hi = std::min(p.upper[0], 50.0);
  // y's bounds and its log domain y > -beta (the log term has coefficient 1) bound x.
  const double y_lo = std::max({p.lower[1], -50.0, -p.logs[0].constant + 1e-13});
  const double y_hi = std::min(p.upper[1], 50.0);
  const double x1 = (rhs - b * y_lo) / a, x2 = (rhs - b * y_hi) / a;
  lo = std::max(lo, std::min(x1, x2));
  hi = std::min(hi, std::max(x1, x2));
  if (lo > hi) return kInf;
  auto f = [&](double x) {
    std::vector<double> v = {x, (rhs - a * x) / b};
    return EvaluateBlockObjective(p, v);
  };
  for (int it = 0; it < 300; ++it) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return f(0.5 * (lo + hi));
}

TEST(SeparableSolver, OneRowWithLogsAndZeroCurvatureVariablesIsExact) {
  // Clp cannot take log terms, so a one-row block whose row has a zero-curvature variable
  // goes to the multiplier search too: the zero-curvature variable is a step in lambda.
  std::mt19937 rng(17);
  int checked = 0;
  for (int instance = 0; instance < 200; ++instance) {
    BlockProblem p = EmptyBlock(2);
    p.linear[0] = Uniform(rng, -2.0, 2.0);
    p.lower[0] = Uniform(rng, -3.0, 0.0);
    p.upper[0] = Uniform(rng, 0.5, 3.0);
    p.linear[1] = Uniform(rng, -1.0, 1.0);
    p.prox_weight[1] = Chance(rng, 0.5) ? Uniform(rng, 0.1, 1.0) : 0.0;
    p.lower[1] = -kInf;
    p.upper[1] = Uniform(rng, 2.0, 6.0);  // without curvature, c < 0 would be unbounded
    p.logs.push_back({{1}, {1.0}, Uniform(rng, -0.5, 0.5), Uniform(rng, 0.2, 2.0)});
    BlockRow row{{0, 1},
                 {Uniform(rng, 0.5, 2.0), Uniform(rng, 0.5, 2.0)},
                 Sense::kEqual,
                 Uniform(rng, 0.0, 3.0)};
    const int sense = instance % 3;
    row.sense =
        sense == 0 ? Sense::kEqual : (sense == 1 ? Sense::kLessEqual : Sense::kGreaterEqual);
    p.rows.push_back(row);
    const testing::Solution fast = SolveOnce(p, false);
    ASSERT_EQ(fast.solver, "one_row");
    // Convex: either the row-free optimum is feasible, or the row is tight at the optimum.
    double ref = TwoVariableEqualityReference(p, row.rhs);
    if (row.sense != Sense::kEqual) {
      BlockProblem free = p;
      free.rows.clear();
      const testing::Solution unconstrained = SolveOnce(free, false);
      if (unconstrained.status == BlockStatus::kOptimal &&
          MaxBlockViolation(p, unconstrained.v) <= 1e-12) {
        ref = std::min(ref, unconstrained.objective);
      }
    }
    if (!std::isfinite(ref)) {
      EXPECT_NE(fast.status, BlockStatus::kOptimal) << "instance " << instance;
      continue;
    }
    ASSERT_EQ(fast.status, BlockStatus::kOptimal) << "instance " << instance << ": " << fast.error;
    EXPECT_LE(fast.objective, ref + 1e-9 * std::max(1.0, std::fabs(ref)))
        << "instance " << instance;
    EXPECT_GE(fast.objective, ref - 1e-7 * std::max(1.0, std::fabs(ref)))
        << "instance " << instance;
    EXPECT_LE(MaxBlockViolation(p, fast.v), kFeasibilityTolerance) << "instance " << instance;
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

TEST(SeparableSolver, ReportsUnboundedAndInfeasibleBlocks) {
  BlockProblem p = EmptyBlock(2);
  p.lower = {0.0, -kInf};
  p.upper = {1.0, kInf};
  p.linear = {1.0, 2.0};  // variable 1: no curvature, no lower bound
  EXPECT_EQ(SolveOnce(p, false).status, BlockStatus::kUnbounded);

  BlockProblem q = EmptyBlock(2);
  q.prox_weight = {1.0, 1.0};
  q.upper = {1.0, 1.0};
  q.rows.push_back({{0, 1}, {1.0, 1.0}, Sense::kGreaterEqual, 2.5});
  const testing::Solution s = SolveOnce(q, false);
  EXPECT_EQ(s.status, BlockStatus::kInfeasible);
  EXPECT_NE(s.error.find("row unreachable"), std::string::npos) << s.error;

  BlockProblem crossed = EmptyBlock(1);
  crossed.lower = {2.0};
  crossed.upper = {1.0};
  crossed.prox_weight = {1.0};
  EXPECT_EQ(SolveOnce(crossed, false).status, BlockStatus::kInfeasible);

  BlockProblem log_domain = EmptyBlock(1);  // log(v - 5) with v <= 3
  log_domain.upper = {3.0};
  log_domain.logs.push_back({{0}, {1.0}, -5.0, 1.0});
  EXPECT_EQ(SolveOnce(log_domain, false).status, BlockStatus::kInfeasible);
}

TEST(SeparableSolver, WarmResolvesMatchColdSolves) {
  // One solver per block, re-solved with new linear terms and targets every call and a new
  // rhs (with a revision bump) every few calls, as the ADMM engine does.
  std::mt19937 rng(18);
  RandomSpec spec;
  spec.min_vars = 5;
  spec.max_vars = 40;
  spec.infeasible_probability = 0.0;
  for (int block = 0; block < 20; ++block) {
    BlockProblem p = RandomBlock(rng, spec);
    if (block % 4 == 3) p.rows.clear();
    std::string error;
    auto solver = CreateBlockSolver(p, {}, &error);
    ASSERT_NE(solver, nullptr) << error;
    std::vector<double> v(p.num_vars(), 0.0);
    for (int call = 0; call < 30; ++call) {
      for (int i = 0; i < p.num_vars(); ++i) {
        p.linear[i] += Uniform(rng, -0.05, 0.05);
        p.prox_target[i] += Uniform(rng, -0.05, 0.05);
      }
      if (call % 5 == 4 && !p.rows.empty()) {
        double lo, hi;
        testing::RowRange(p, p.rows[0], &lo, &hi);
        p.rows[0].rhs = std::clamp(p.rows[0].rhs + Uniform(rng, -0.3, 0.3),
                                   std::isfinite(lo) ? lo : -1e9,
                                   std::isfinite(hi) ? hi : 1e9);
        ++p.revision;
      }
      const BlockStatus status = solver->Solve(p, &v);
      const testing::Solution cold = SolveOnce(p, false);
      const testing::Solution clp = SolveOnce(p, true);
      ASSERT_EQ(status, cold.status) << solver->last_error();
      ASSERT_EQ(status, clp.status);
      if (status != BlockStatus::kOptimal) continue;
      EXPECT_LE(MaxAbsDiff(v, cold.v), 1e-9) << "block " << block << " call " << call;
      EXPECT_LE(MaxAbsDiff(v, clp.v), kSolutionTolerance) << "block " << block << " call " << call;
    }
  }
}

TEST(SeparableCore, SpecialisedRowLoopsAreBitwiseTheGeneralOnes) {
  // Blocks of the shapes with their own loops (one row over every variable in order; unit
  // coefficients; one curvature and one pair of bounds), re-solved warm as the engine does,
  // against the same core with the general loops: every value and multiplier bitwise equal.
  // (The specialised core also keeps the search's accepted evaluation as the solution instead
  // of assigning it again, and skips the finiteness pass when the row's activity is finite.)
  std::mt19937 rng(1806);
  int compact_solves = 0;
  for (int block = 0; block < 60; ++block) {
    const int n = 1 + static_cast<int>(rng() % 200);
    BlockProblem p = EmptyBlock(n);
    const bool uniform = block % 3 != 2;  // else per-variable curvature and bounds
    const bool unit = block % 5 != 4;     // else random coefficients
    const double penalty = Uniform(rng, 0.1, 10.0);
    const double upper = block % 2 == 0 ? kInf : Uniform(rng, 0.5, 3.0);
    BlockRow row;
    row.sense = block % 4 == 0 ? Sense::kEqual
                               : (block % 4 == 1 ? Sense::kGreaterEqual : Sense::kLessEqual);
    for (int i = 0; i < n; ++i) {
      p.prox_weight[i] = uniform ? penalty : Uniform(rng, 0.1, 10.0);
      p.upper[i] = uniform ? upper : Uniform(rng, 0.5, 3.0);
      row.index.push_back(i);
      row.coef.push_back(unit ? 1.0 : Uniform(rng, 0.2, 3.0));
    }
    row.rhs = Uniform(rng, 0.1, 0.9) * n * (std::isfinite(upper) ? 0.5 : 1.0);
    p.rows.push_back(row);
    SeparableCore fast, general;
    std::string error;
    ASSERT_TRUE(fast.Init(p, -1, &error)) << error;
    ASSERT_TRUE(general.Init(p, -1, &error)) << error;
    general.set_shape_specialization(false);
    for (SeparableCore* core : {&fast, &general}) core->set_track_curvature(false);
    std::vector<double> a, b, buffer(n);
    for (int call = 0; call < 20; ++call) {
      for (int i = 0; i < n; ++i) {
        p.linear[i] = Uniform(rng, -2.0, 2.0);
        p.prox_target[i] = Uniform(rng, -1.0, 2.0);
      }
      if (call % 7 == 0) {
        for (SeparableCore* core : {&fast, &general}) core->LoadParameters(p);
      }
      // A compact core (the fast one, where the shape allows) keeps g in the caller's buffer.
      ASSERT_FALSE(general.compact());
      if (fast.compact()) {
        fast.UseLinearBuffer(buffer.data());
        ++compact_solves;
      }
      for (SeparableCore* core : {&fast, &general}) core->LoadLinear(p);
      const BlockStatus sa = fast.Solve(1e-10, &a);
      const BlockStatus sb = general.Solve(1e-10, &b);
      ASSERT_EQ(sa, sb) << "block " << block << " call " << call;
      if (sa != BlockStatus::kOptimal) continue;
      ASSERT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(double)), 0)
          << "block " << block << " call " << call;
      const double la = fast.multiplier(), lb = general.multiplier();
      ASSERT_EQ(std::memcmp(&la, &lb, sizeof la), 0) << "block " << block << " call " << call;
    }
  }
  EXPECT_GT(compact_solves, 100);
}

TEST(SeparableCore, WarmSolvesFollowAMultiplierDriftingToZeroAndBack) {
  // A long row whose crossing drifts toward lambda = 0 call after call, turns slack, and binds
  // again (the ADMM engine's resource rows early in a solve): the warm core, which starts each
  // search from its last multiplier, against a fresh core per call. Both senses, the
  // one-curvature shape and the general one.
  std::mt19937 rng(2811);
  int toward_zero = 0, slack = 0;
  for (int block = 0; block < 8; ++block) {
    const int n = 400;
    BlockProblem p = EmptyBlock(n);
    const bool general_shape = block % 2 == 1;
    const bool less_equal = block % 4 < 2;
    BlockRow row;
    row.sense = less_equal ? Sense::kLessEqual : Sense::kGreaterEqual;
    std::vector<double> base(n);
    for (int i = 0; i < n; ++i) {
      p.prox_weight[i] = general_shape ? Uniform(rng, 0.5, 2.0) : 1.0;
      p.upper[i] = general_shape ? Uniform(rng, 1.0, 2.0) : 1.5;
      base[i] = Uniform(rng, 0.0, 1.5);
      row.index.push_back(i);
      row.coef.push_back(general_shape ? Uniform(rng, 0.5, 1.5) : 1.0);
    }
    row.rhs = 0.5 * n * (less_equal ? 0.6 : 1.2);
    p.rows.push_back(row);
    SeparableCore warm;
    std::string error;
    ASSERT_TRUE(warm.Init(p, -1, &error)) << error;
    warm.set_track_curvature(false);
    warm.LoadParameters(p);
    std::vector<double> buffer(n), cold_buffer(n), a, b;
    double last = 0.0;
    for (int call = 0; call < 48; ++call) {
      // The targets' shift: from binding (the row's activity pushed past the rhs) down to slack
      // over 24 calls and back; for >= rows the mirror image.
      const double phase = call < 24 ? call / 23.0 : (47 - call) / 23.0;
      const double shift = (less_equal ? 1.0 : -1.0) * (0.4 - 0.9 * phase);
      for (int i = 0; i < n; ++i) p.prox_target[i] = base[i] + shift + Uniform(rng, -0.01, 0.01);
      SeparableCore cold;
      ASSERT_TRUE(cold.Init(p, -1, &error)) << error;
      cold.set_track_curvature(false);
      cold.LoadParameters(p);
      if (warm.compact()) warm.UseLinearBuffer(buffer.data());
      if (cold.compact()) cold.UseLinearBuffer(cold_buffer.data());
      warm.LoadLinear(p);
      cold.LoadLinear(p);
      ASSERT_EQ(warm.Solve(1e-10, &a), BlockStatus::kOptimal) << warm.last_error();
      ASSERT_EQ(cold.Solve(1e-10, &b), BlockStatus::kOptimal) << cold.last_error();
      EXPECT_LE(MaxAbsDiff(a, b), 1e-9) << "block " << block << " call " << call;
      const double lambda = warm.multiplier();
      EXPECT_NEAR(lambda, cold.multiplier(), 1e-9 * std::max(1.0, std::fabs(lambda)))
          << "block " << block << " call " << call;
      if (lambda == 0.0) ++slack;
      if (last != 0.0 && lambda != 0.0 && std::fabs(lambda) < std::fabs(last)) ++toward_zero;
      last = lambda;
    }
  }
  // The drift exercised both ends: multipliers that moved toward 0 and rows that turned slack.
  EXPECT_GT(toward_zero, 40);
  EXPECT_GT(slack, 40);
}

TEST(SeparableSolver, RevisionBumpReloadsBounds) {
  BlockProblem p = EmptyBlock(3);
  p.prox_weight = {1.0, 1.0, 1.0};
  p.prox_target = {2.0, 2.0, 2.0};
  p.upper = {kInf, kInf, kInf};
  p.rows.push_back({{0, 1, 2}, {1.0, 1.0, 1.0}, Sense::kLessEqual, 3.0});
  std::string error;
  auto solver = CreateBlockSolver(p, {}, &error);
  ASSERT_NE(solver, nullptr) << error;
  std::vector<double> v(3, 0.0);
  ASSERT_EQ(solver->Solve(p, &v), BlockStatus::kOptimal);
  EXPECT_NEAR(v[0], 1.0, 1e-12);
  // New bounds without a revision bump are not even read (documented caching) ...
  p.upper = {0.5, kInf, kInf};
  ASSERT_EQ(solver->Solve(p, &v), BlockStatus::kOptimal);
  EXPECT_NEAR(v[0], 1.0, 1e-12);
  // ... and with one they are.
  ++p.revision;
  ASSERT_EQ(solver->Solve(p, &v), BlockStatus::kOptimal);
  EXPECT_NEAR(v[0], 0.5, 1e-12);
  EXPECT_NEAR(v[1], 1.25, 1e-12);
  EXPECT_NEAR(v[2], 1.25, 1e-12);
  const testing::Solution clp = SolveOnce(p, true);
  EXPECT_LE(MaxAbsDiff(v, clp.v), kSolutionTolerance);
}

TEST(SeparableSolver, TimingOneRowProjectionVersusColdClp) {
  // Not an assertion on speed: prints the numbers for the record.
  constexpr int kVars = 2000;
  std::mt19937 rng(19);
  BlockProblem p = EmptyBlock(kVars);
  BlockRow row;
  row.sense = Sense::kLessEqual;
  for (int i = 0; i < kVars; ++i) {
    p.prox_weight[i] = 1.0;
    p.prox_target[i] = Uniform(rng, 0.0, 1.0);
    p.linear[i] = -Uniform(rng, 0.0, 0.5);
    p.upper[i] = 1.0;
    row.index.push_back(i);
    row.coef.push_back(Uniform(rng, 0.5, 1.5));
  }
  row.rhs = 0.25 * kVars;
  p.rows.push_back(row);
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };

  constexpr int kFastRuns = 200;
  std::vector<double> v(kVars, 0.0);
  auto t0 = Clock::now();
  for (int run = 0; run < kFastRuns; ++run) {
    auto solver = CreateBlockSolver(p, {}, nullptr);
    ASSERT_EQ(solver->Solve(p, &v), BlockStatus::kOptimal);
  }
  const double fast_cold = ms(Clock::now() - t0) / kFastRuns;

  auto warm_solver = CreateBlockSolver(p, {}, nullptr);
  ASSERT_EQ(warm_solver->Solve(p, &v), BlockStatus::kOptimal);
  BlockProblem moving = p;
  t0 = Clock::now();
  for (int run = 0; run < kFastRuns; ++run) {
    for (int i = 0; i < kVars; i += 1) moving.prox_target[i] = p.prox_target[i] + 1e-3 * (run % 7);
    ASSERT_EQ(warm_solver->Solve(moving, &v), BlockStatus::kOptimal);
  }
  const double fast_warm = ms(Clock::now() - t0) / kFastRuns;

  constexpr int kClpRuns = 3;
  std::vector<double> w(kVars, 0.0);
  BlockSolverOptions clp_options;
  clp_options.force_clp = true;
  t0 = Clock::now();
  for (int run = 0; run < kClpRuns; ++run) {
    auto solver = CreateBlockSolver(p, clp_options, nullptr);
    ASSERT_EQ(solver->Solve(p, &w), BlockStatus::kOptimal);
  }
  const double clp_cold = ms(Clock::now() - t0) / kClpRuns;

  auto clp_warm_solver = CreateBlockSolver(p, clp_options, nullptr);
  ASSERT_EQ(clp_warm_solver->Solve(p, &w), BlockStatus::kOptimal);
  t0 = Clock::now();
  for (int run = 0; run < kClpRuns; ++run) {
    for (int i = 0; i < kVars; i += 1) moving.prox_target[i] = p.prox_target[i] + 1e-3 * (run + 1);
    ASSERT_EQ(clp_warm_solver->Solve(moving, &w), BlockStatus::kOptimal);
  }
  const double clp_warm = ms(Clock::now() - t0) / kClpRuns;

  auto check = CreateBlockSolver(p, {}, nullptr);
  ASSERT_EQ(check->Solve(p, &v), BlockStatus::kOptimal);
  auto check_clp = CreateBlockSolver(p, clp_options, nullptr);
  ASSERT_EQ(check_clp->Solve(p, &w), BlockStatus::kOptimal);
  EXPECT_LE(MaxAbsDiff(v, w), kSolutionTolerance);

  // Clp's own QP (ClpSimplex::primal on a model with a quadratic objective), cold, for
  // reference; the block solver does not use it (see clp_block_solver.h).
  double raw_clp = 0.0, raw_clp_error = 0.0;
  for (int run = 0; run < kClpRuns; ++run) {
    t0 = Clock::now();
    ClpSimplex model;
    model.setLogLevel(0);
    model.setPrimalTolerance(1e-10);
    model.setDualTolerance(1e-10);
    std::vector<CoinBigIndex> start(kVars + 1);
    std::vector<int> rows(kVars, 0), diag(kVars);
    std::vector<double> lo(kVars, 0.0), hi(kVars, 1.0), cost(kVars), hess(kVars, 1.0);
    for (int i = 0; i <= kVars; ++i) start[i] = i;
    for (int i = 0; i < kVars; ++i) {
      diag[i] = i;
      cost[i] = p.linear[i] - p.prox_target[i];
    }
    double row_lo = -COIN_DBL_MAX, row_hi = row.rhs;
    const std::vector<double> coef = row.coef.ToVector();
    model.loadProblem(kVars,
                      1,
                      start.data(),
                      rows.data(),
                      coef.data(),
                      lo.data(),
                      hi.data(),
                      cost.data(),
                      &row_lo,
                      &row_hi);
    model.loadQuadraticObjective(kVars, start.data(), diag.data(), hess.data());
    model.primal();
    raw_clp += ms(Clock::now() - t0) / kClpRuns;
    std::vector<double> x(model.primalColumnSolution(), model.primalColumnSolution() + kVars);
    raw_clp_error = std::max(raw_clp_error, MaxAbsDiff(x, v));
  }
  std::printf(
      "[timing] one-row projection, %d variables: fast cold %.4f ms, fast warm %.4f ms; "
      "general path (Clp phase 1 + active-set QP) cold %.2f ms, warm %.3f ms; "
      "Clp's own QP primal cold %.2f ms (max deviation %.1e); "
      "ratios cold: %.0fx (general), %.0fx (Clp QP); warm: %.1fx\n",
      kVars,
      fast_cold,
      fast_warm,
      clp_cold,
      clp_warm,
      raw_clp,
      raw_clp_error,
      clp_cold / fast_cold,
      raw_clp / fast_cold,
      clp_warm / fast_warm);
}

}  // namespace
}  // namespace dede::internal
