// Random property test of the certified bound: on small random separable problems of every
// objective kind and domain the model has (LP, strictly convex QP, log utility, max-min,
// min-max, binary), no bound an ADMM check reports is on the wrong side of the optimum a
// monolithic exact solve (Clp, Cbc) finds, and the solve's certified gap is consistent with
// it. The instances are those of random_instances.h (fixed seeds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/problem.h"
#include "dede/solver.h"
#include "random_instances.h"

namespace dede {
namespace {

using testing::Family;
using testing::FamilyName;
using testing::MakeRandomInstance;
using testing::RandomInstance;

constexpr int kCasesPerFamily = 40;  // 240 in all
constexpr std::uint64_t kBaseSeed = 0xb0d'0000'2026ULL;
// The side a bound must keep: within this much of the optimum, relative to max(1, |optimum|).
constexpr double kSideTolerance = 1e-9;

struct Stats {
  int cases = 0;
  int with_bound = 0;        // the solve reported a finite bound
  int checks = 0;            // checks that computed a bound
  int finite_checks = 0;     // of which finite
  double worst_side = 0;     // largest excess of a bound past the optimum (relative)
  std::vector<double> gaps;  // the final bound's distance from the optimum (relative)
};

void RunCase(Family family, std::uint64_t seed, Stats* stats) {
  RandomInstance instance = MakeRandomInstance(family, seed);
  SCOPED_TRACE(instance.description);
  const Problem& problem = *instance.problem;
  std::string error;
  ASSERT_TRUE(problem.Validate(&error)) << error;
  const bool maximize = problem.objective_sense() == ObjectiveSense::kMaximize;

  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_EQ(exact_summary.termination, Termination::kConverged) << exact_summary.message;
  const double optimum = problem.EvaluateObjective(exact.values);
  const double scale = std::max(1.0, std::abs(optimum));
  // How far a bound lies on the wrong side of the optimum (<= 0: the right side).
  const auto excess = [&](double bound) {
    return (maximize ? optimum - bound : bound - optimum) / scale;
  };

  AdmmOptions options;
  options.num_threads = 1 + static_cast<int>(seed % 2);
  AdmmSolver solver(problem, options);
  ASSERT_EQ(solver.setup_error(), "");
  Allocation admm;
  SolveSummary summary;
  solver.Solve(&admm, &summary);
  for (const IterationSummary& it : summary.trace) {
    if (std::isnan(it.bound)) continue;
    ++stats->checks;
    if (!std::isfinite(it.bound)) {
      // None at these multipliers: only ever on the safe side.
      EXPECT_EQ(it.bound > 0, maximize) << "check " << it.iteration << ": bound " << it.bound;
      continue;
    }
    ++stats->finite_checks;
    EXPECT_LE(excess(it.bound), kSideTolerance)
        << "check " << it.iteration << ": bound " << it.bound << " past the optimum " << optimum;
    stats->worst_side = std::max(stats->worst_side, excess(it.bound));
  }
  ++stats->cases;
  if (std::isfinite(summary.bound)) {
    ++stats->with_bound;
    EXPECT_LE(excess(summary.bound), kSideTolerance);
    stats->gaps.push_back(-excess(summary.bound));
    // The solve's gap certifies its own allocation: at least its true distance.
    if (summary.feasible) {
      ASSERT_FALSE(std::isnan(summary.gap));
      const double value = summary.objective;
      const double true_gap = std::max(0.0, maximize ? optimum - value : value - optimum) /
                              std::max({std::abs(optimum), std::abs(value), 1e-9});
      EXPECT_GE(summary.gap, true_gap - 1e-9);
    }
  }
}

void RunFamily(Family family, int min_with_bound) {
  Stats stats;
  const std::uint64_t seed0 = kBaseSeed + 1'000'000ULL * static_cast<std::uint64_t>(family);
  for (int k = 0; k < kCasesPerFamily; ++k) RunCase(family, seed0 + k, &stats);
  std::sort(stats.gaps.begin(), stats.gaps.end());
  const auto quantile = [&](double q) {
    return stats.gaps.empty() ? NAN
                              : stats.gaps[static_cast<std::size_t>(q * (stats.gaps.size() - 1))];
  };
  std::printf(
      "[bound] %s: %d cases, %d with a finite bound; %d of %d checks finite; worst excess past "
      "the optimum %.2e; the final bound's distance from the optimum: median %.2e, 90%% %.2e, "
      "max %.2e\n",
      FamilyName(family),
      stats.cases,
      stats.with_bound,
      stats.finite_checks,
      stats.checks,
      stats.worst_side,
      quantile(0.5),
      quantile(0.9),
      quantile(1.0));
  std::fflush(stdout);
  EXPECT_EQ(stats.cases, kCasesPerFamily);
  EXPECT_GE(stats.with_bound, min_with_bound);
}

TEST(CertifiedBoundProperty, LinearPrograms) { RunFamily(Family::kLinear, kCasesPerFamily); }
TEST(CertifiedBoundProperty, StrictlyConvexQuadraticPrograms) {
  RunFamily(Family::kQuadratic, kCasesPerFamily);
}
TEST(CertifiedBoundProperty, LogUtility) { RunFamily(Family::kLog, kCasesPerFamily); }
TEST(CertifiedBoundProperty, MaxMin) { RunFamily(Family::kMaxMin, kCasesPerFamily); }
TEST(CertifiedBoundProperty, MinMax) { RunFamily(Family::kMinMax, kCasesPerFamily); }
TEST(CertifiedBoundProperty, Binary) { RunFamily(Family::kBinary, kCasesPerFamily); }

}  // namespace
}  // namespace dede
