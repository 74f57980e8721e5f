// Small random separable problems for the property tests (property_test.cpp,
// bound_property_test.cpp), each built around a random feasible point x0 (every constraint's
// right-hand side is a' x0 plus a slack on the open side), so it is feasible and its optimum
// finite: LPs have finite box bounds, QPs a positive quadratic cost on every variable. The
// further families add to the LP: a log utility per demand (maximised), a max-min term over
// the demands, a min-max term over the resources, or binary entries. Seeds are fixed: the
// instances are the same on every run.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dede/problem.h"

namespace dede::testing {

enum class Family { kLinear, kQuadratic, kLog, kMaxMin, kMinMax, kBinary };

inline const char* FamilyName(Family f) {
  switch (f) {
    case Family::kLinear:
      return "LP";
    case Family::kQuadratic:
      return "QP";
    case Family::kLog:
      return "log";
    case Family::kMaxMin:
      return "max-min";
    case Family::kMinMax:
      return "min-max";
    case Family::kBinary:
      return "binary";
  }
  return "?";
}

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
inline void AddFeasibleConstraint(Generator* gen,
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

inline RandomInstance MakeRandomInstance(Family family, std::uint64_t seed) {
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
  const int matrix = problem->AddAllocation(
      "x", family == Family::kBinary ? Domain::Binary() : Domain::NonNegative());
  const bool box = family != Family::kQuadratic;  // finite boxes: every family but QP
  std::vector<double> x0;                         // the feasible point, indexed by VarId

  // Bounds and x0 for a new variable: LPs get a finite box with x0 strictly inside; QPs are
  // non-negative or (30%) free.
  // Binary entries are 0 or 1 at x0; the log family's entries are non-negative (the logs'
  // arguments are then positive).
  auto set_domain = [&](VarId v) {
    if (family == Family::kBinary && problem->IsEntry(v)) {
      x0.push_back(gen.Chance(0.5) ? 1.0 : 0.0);
    } else if (box) {
      const double lower = gen.Chance(0.7) || (family == Family::kLog && problem->IsEntry(v))
                               ? 0.0
                               : gen.Uniform(-2.0, 1.0);
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
  // (None in the log family: the engine's log blocks take strictly convex variables only.)
  for (int b = 0; b < num_resources + num_demands; ++b) {
    if (!gen.Chance(0.2) || family == Family::kLog) continue;
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
  bool maximize = gen.Chance(0.5);
  if (family == Family::kLog || family == Family::kMaxMin) maximize = true;
  if (family == Family::kMinMax) maximize = false;
  problem->SetObjectiveSense(maximize ? ObjectiveSense::kMaximize : ObjectiveSense::kMinimize);
  const double sign = maximize ? -1.0 : 1.0;
  for (VarId v = 0; v < problem->num_variables(); ++v) {
    if (family != Family::kQuadratic) {
      problem->AddLinearCost(v, gen.Uniform(-1.0, 1.0));
    } else {
      problem->AddQuadraticCost(v, sign * gen.Uniform(0.1, 2.0));
      problem->AddLinearCost(v, sign * gen.Uniform(-3.0, 3.0));
    }
  }

  // Entries of a column (row) with positive weights, for the log and global terms.
  const auto positive_expr = [&](const std::vector<VarId>& vars) {
    LinearExpr e;
    for (VarId v : vars)
      if (problem->IsEntry(v)) e.Add(v, gen.Uniform(0.5, 2.0));
    return e;
  };
  if (family == Family::kLog) {
    for (int d = 0; d < num_demands; ++d) {
      LinearExpr e = positive_expr(col_vars[d]);
      e.constant = gen.Uniform(0.2, 1.0);
      problem->AddLogTerm(BlockId::Demand(d), e, gen.Uniform(0.5, 3.0));
    }
  } else if (family == Family::kMaxMin || family == Family::kMinMax) {
    const bool max_min = family == Family::kMaxMin;
    const int n = max_min ? num_demands : num_resources;
    std::vector<int> blocks;
    std::vector<LinearExpr> exprs;
    for (int b = 0; b < n; ++b) {
      LinearExpr e = positive_expr(max_min ? col_vars[b] : row_vars[b]);
      if (e.terms.empty()) continue;
      blocks.push_back(b);
      exprs.push_back(std::move(e));
    }
    problem->SetGlobalTerm(max_min ? GlobalKind::kMaxMin : GlobalKind::kMinMax,
                           max_min ? Side::kDemand : Side::kResource,
                           std::move(blocks),
                           std::move(exprs),
                           gen.Uniform(1.0, 5.0));
  }

  RandomInstance out;
  out.description = std::string(FamilyName(family)) + " seed " + std::to_string(seed) + ": " +
                    std::to_string(num_resources) + " x " + std::to_string(num_demands) + ", " +
                    std::to_string(problem->num_variables()) + " variables (" +
                    std::to_string(num_locals) + " local), " +
                    std::to_string(problem->num_constraints()) + " constraints, " +
                    (maximize ? "maximize" : "minimize");
  EXPECT_LE(problem->MeasureViolation(x0).Max(), 1e-12) << "x0 must be feasible";
  out.problem = std::move(problem);
  return out;
}

}  // namespace dede::testing
