// Random property tests: on small random separable LPs and strictly convex QPs, the ADMM
// engine's allocation is feasible and its objective matches one monolithic exact solve.
//
// Each instance is built around a random feasible point x0 (every constraint's right-hand side
// is a' x0 plus a slack on the open side), so it is feasible; LPs have finite box bounds and
// QPs a positive quadratic cost on every variable, so the optimum is finite. Seeds are fixed:
// the instances are the same on every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/problem.h"
#include "dede/solver.h"
#include "random_instances.h"

namespace dede {
namespace {

using testing::Family;
using testing::MakeRandomInstance;
using testing::RandomInstance;

constexpr int kCasesPerFamily = 150;
constexpr std::uint64_t kBaseSeed = 0x5eed'0000'2025ULL;
// |ADMM objective - exact objective| / max(1, |exact objective|): the max(1, .) keeps the
// comparison meaningful when the optimum is near zero.
constexpr double kObjectiveRelativeTolerance = 1e-3;
constexpr double kFeasibilityTolerance = 1e-6;

struct FamilyStats {
  int cases = 0;
  double max_relative_error = 0.0;
  std::string worst_case;
  double max_violation = 0.0;
  int admm_not_converged = 0;
};

// Solves one instance both ways and checks the ADMM result; updates *stats.
void RunCase(Family family, std::uint64_t seed, int num_threads, FamilyStats* stats) {
  RandomInstance instance = MakeRandomInstance(family, seed);
  SCOPED_TRACE(instance.description);
  const Problem& problem = *instance.problem;
  std::string error;
  ASSERT_TRUE(problem.Validate(&error)) << error;

  Allocation exact;
  SolveSummary exact_summary;
  SolveExact(problem, ExactOptions{}, &exact, &exact_summary);
  ASSERT_EQ(exact_summary.termination, Termination::kConverged) << exact_summary.message;
  ASSERT_EQ(static_cast<int>(exact.values.size()), problem.num_variables());
  const double exact_objective = problem.EvaluateObjective(exact.values);
  // The comparison is only meaningful against a feasible reference.
  EXPECT_LE(problem.MeasureViolation(exact.values).Max(), kFeasibilityTolerance)
      << "the exact solver returned an infeasible allocation (" << exact_summary.message << ")";

  AdmmOptions options;
  options.num_threads = num_threads;
  AdmmSolver solver(problem, options);
  ASSERT_EQ(solver.setup_error(), "");
  Allocation admm;
  SolveSummary admm_summary;
  solver.Solve(&admm, &admm_summary);
  ASSERT_EQ(static_cast<int>(admm.values.size()), problem.num_variables())
      << TerminationName(admm_summary.termination) << ": " << admm_summary.message;
  const double admm_objective = problem.EvaluateObjective(admm.values);
  const double violation = problem.MeasureViolation(admm.values).Max();
  const double relative_error =
      std::abs(admm_objective - exact_objective) / std::max(1.0, std::abs(exact_objective));

  EXPECT_LE(violation, kFeasibilityTolerance);
  // Says which side is wrong: a feasible ADMM allocation that beats the exact objective
  // proves the exact solver's answer is not optimal.
  const bool maximize = problem.objective_sense() == ObjectiveSense::kMaximize;
  const bool admm_better =
      maximize ? admm_objective > exact_objective : admm_objective < exact_objective;
  EXPECT_LE(relative_error, kObjectiveRelativeTolerance)
      << "ADMM " << admm_objective << " vs exact " << exact_objective << " ("
      << TerminationName(admm_summary.termination) << ", " << admm_summary.iterations
      << " iterations)"
      << (admm_better && violation <= kFeasibilityTolerance
              ? ": ADMM's feasible allocation is better, so the exact solver is not optimal"
              : "");

  ++stats->cases;
  if (admm_summary.termination != Termination::kConverged) ++stats->admm_not_converged;
  stats->max_violation = std::max(stats->max_violation, violation);
  if (relative_error >= stats->max_relative_error) {
    stats->max_relative_error = relative_error;
    stats->worst_case = instance.description;
  }
}

void RunFamily(Family family) {
  FamilyStats stats;
  const std::uint64_t family_seed = kBaseSeed + (family == Family::kLinear ? 0 : 1'000'000);
  for (int k = 0; k < kCasesPerFamily; ++k) {
    // Both thread counts, alternately.
    RunCase(family, family_seed + k, 1 + k % 2, &stats);
  }
  std::printf(
      "[property] %s: %d of %d cases solved by both, max relative objective error %.3e (%s), "
      "max violation %.3e, %d ADMM solves not kConverged\n",
      family == Family::kLinear ? "LP" : "QP",
      stats.cases,
      kCasesPerFamily,
      stats.max_relative_error,
      stats.worst_case.c_str(),
      stats.max_violation,
      stats.admm_not_converged);
  std::fflush(stdout);
  EXPECT_EQ(stats.cases, kCasesPerFamily);
}

TEST(AdmmSolverProperty, MatchesExactSolverOnRandomSeparableLps) { RunFamily(Family::kLinear); }

TEST(AdmmSolverProperty, MatchesExactSolverOnRandomStrictlyConvexQps) {
  RunFamily(Family::kQuadratic);
}

}  // namespace
}  // namespace dede
