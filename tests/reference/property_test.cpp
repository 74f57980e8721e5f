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

namespace dede {
namespace {

constexpr int kCasesPerFamily = 150;
constexpr std::uint64_t kBaseSeed = 0x5eed'0000'2025ULL;
// |ADMM objective - exact objective| / max(1, |exact objective|): the max(1, .) keeps the
// comparison meaningful when the optimum is near zero.
constexpr double kObjectiveRelativeTolerance = 1e-3;
constexpr double kFeasibilityTolerance = 1e-6;

enum class Family { kLinear, kQuadratic };

struct RandomInstance {
  std::unique_ptr<Problem> problem;
  std::string description;
};

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  int UniformInt(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

 private:
  std::mt19937_64 rng_;
};

// Adds `expr (sense) rhs` to `block`, with a random sense and a right-hand side that x0
// satisfies: equality exactly, inequalities with a random slack (sometimes zero, so that
// constraints are active at x0 too).
void AddFeasibleConstraint(Generator* gen,
                           Problem* problem,
                           BlockId block,
                           const LinearExpr& expr,
                           const std::vector<double>& x0) {
  double value = 0.0;
  for (const Term& t : expr.terms) value += t.coef * x0[t.var];
  const double slack = gen->Chance(0.2) ? 0.0 : gen->Uniform(0.0, 1.5);
  switch (gen->UniformInt(0, 2)) {
    case 0:
      problem->AddConstraint(block, expr, Sense::kLessEqual, value + slack);
      break;
    case 1:
      problem->AddConstraint(block, expr, Sense::kGreaterEqual, value - slack);
      break;
    default:
      problem->AddConstraint(block, expr, Sense::kEqual, value);
      break;
  }
}

RandomInstance MakeRandomInstance(Family family, std::uint64_t seed) {
  Generator gen(seed);
  const int num_resources = gen.UniformInt(3, 8);
  const int num_demands = gen.UniformInt(3, 8);
  const double density = gen.Uniform(0.3, 1.0);

  std::vector<std::vector<bool>> present(num_resources, std::vector<bool>(num_demands, false));
  for (auto& row : present)
    for (std::size_t d = 0; d < row.size(); ++d) row[d] = gen.Chance(density);
  for (int r = 0; r < num_resources; ++r)
    if (std::none_of(present[r].begin(), present[r].end(), [](bool b) { return b; }))
      present[r][gen.UniformInt(0, num_demands - 1)] = true;
  for (int d = 0; d < num_demands; ++d) {
    bool any = false;
    for (int r = 0; r < num_resources; ++r) any = any || present[r][d];
    if (!any) present[gen.UniformInt(0, num_resources - 1)][d] = true;
  }

  auto problem = std::make_unique<Problem>(num_resources, num_demands);
  const int matrix = problem->AddAllocation("x", Domain::NonNegative());
  std::vector<double> x0;  // the feasible point, indexed by VarId

  // Bounds and x0 for a new variable: LPs get a finite box with x0 strictly inside; QPs are
  // non-negative or (30%) free.
  auto set_domain = [&](VarId v) {
    if (family == Family::kLinear) {
      const double lower = gen.Chance(0.7) ? 0.0 : gen.Uniform(-2.0, 1.0);
      const double upper = lower + gen.Uniform(0.5, 4.0);
      problem->SetBounds(v, lower, upper);
      x0.push_back(gen.Uniform(lower + 0.1 * (upper - lower), upper - 0.1 * (upper - lower)));
    } else if (gen.Chance(0.3)) {
      problem->SetBounds(v, -kInfinity, kInfinity);
      x0.push_back(gen.Uniform(-2.0, 2.0));
    } else {
      x0.push_back(gen.Uniform(0.0, 3.0));
    }
  };

  std::vector<std::vector<VarId>> row_vars(num_resources), col_vars(num_demands);
  for (int r = 0; r < num_resources; ++r) {
    for (int d = 0; d < num_demands; ++d) {
      if (!present[r][d]) continue;
      const VarId v = problem->AddEntry(matrix, r, d);
      set_domain(v);
      row_vars[r].push_back(v);
      col_vars[d].push_back(v);
    }
  }
  // A few locals (slack-like variables owned by one block), about one block in five.
  int num_locals = 0;
  for (int b = 0; b < num_resources + num_demands; ++b) {
    if (!gen.Chance(0.2)) continue;
    const BlockId block =
        b < num_resources ? BlockId::Resource(b) : BlockId::Demand(b - num_resources);
    std::string name = "s";  // not "s" + to_string(b): g++ 12 warns falsely (-Wrestrict)
    name += std::to_string(b);
    const VarId v = problem->AddLocal(block, Domain::NonNegative(), name);
    set_domain(v);
    (block.side == Side::kResource ? row_vars[block.index] : col_vars[block.index]).push_back(v);
    ++num_locals;
  }

  // Constraints: one per block (15% of blocks have none), coefficients mostly positive.
  auto random_expr = [&](const std::vector<VarId>& vars) {
    LinearExpr e;
    for (VarId v : vars)
      e.Add(v, gen.Chance(0.15) ? gen.Uniform(-1.0, -0.2) : gen.Uniform(0.3, 2.0));
    return e;
  };
  for (int r = 0; r < num_resources; ++r)
    if (!gen.Chance(0.15))
      AddFeasibleConstraint(
          &gen, problem.get(), BlockId::Resource(r), random_expr(row_vars[r]), x0);
  for (int d = 0; d < num_demands; ++d)
    if (!gen.Chance(0.15))
      AddFeasibleConstraint(&gen, problem.get(), BlockId::Demand(d), random_expr(col_vars[d]), x0);

  // Objective. LP: random costs, random sense. QP: minimize q x^2 + c x with q > 0, or the
  // same problem negated and maximized (concave).
  const bool maximize = gen.Chance(0.5);
  problem->SetObjectiveSense(maximize ? ObjectiveSense::kMaximize : ObjectiveSense::kMinimize);
  const double sign = maximize ? -1.0 : 1.0;
  for (VarId v = 0; v < problem->num_variables(); ++v) {
    if (family == Family::kLinear) {
      problem->AddLinearCost(v, gen.Uniform(-1.0, 1.0));
    } else {
      problem->AddQuadraticCost(v, sign * gen.Uniform(0.1, 2.0));
      problem->AddLinearCost(v, sign * gen.Uniform(-3.0, 3.0));
    }
  }

  RandomInstance out;
  out.description = std::string(family == Family::kLinear ? "LP" : "QP") + " seed " +
                    std::to_string(seed) + ": " + std::to_string(num_resources) + " x " +
                    std::to_string(num_demands) + ", " + std::to_string(problem->num_variables()) +
                    " variables (" + std::to_string(num_locals) + " local), " +
                    std::to_string(problem->num_constraints()) + " constraints, " +
                    (maximize ? "maximize" : "minimize");
  EXPECT_LE(problem->MeasureViolation(x0).Max(), 1e-12) << "x0 must be feasible";
  out.problem = std::move(problem);
  return out;
}

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
