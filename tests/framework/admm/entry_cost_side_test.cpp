// Which copy of an entry carries its linear cost (AdmmOptions::entry_cost_side) changes the
// iterates, not the optimum: each choice reaches the monolithic LP's objective, on a
// maximization and on a minimization with quadratic costs (which stay split), and a cost that
// changes between warm solves reaches the new optimum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "synthetic.h"

namespace dede {
namespace {

constexpr EntryCostSide kSides[] = {
    EntryCostSide::kSplit, EntryCostSide::kResource, EntryCostSide::kDemand};

const char* Name(EntryCostSide side) {
  switch (side) {
    case EntryCostSide::kSplit:
      return "split";
    case EntryCostSide::kResource:
      return "resource";
    case EntryCostSide::kDemand:
      return "demand";
  }
  return "?";
}

AdmmOptions Tight(EntryCostSide side) {
  AdmmOptions options;
  options.num_threads = 1;
  options.eps_abs = 1e-6;
  options.eps_rel = 1e-6;
  options.entry_cost_side = side;
  return options;
}

void ExpectExactOptimum(const Problem& p, AdmmSolver* solver, const std::string& what) {
  Allocation allocation, exact_allocation;
  SolveSummary summary, exact;
  solver->Solve(&allocation, &summary);
  SolveExact(p, ExactOptions(), &exact_allocation, &exact);
  ASSERT_EQ(exact.termination, Termination::kConverged) << what;
  ASSERT_EQ(summary.termination, Termination::kConverged) << what << summary.BriefReport();
  EXPECT_NEAR(summary.objective, exact.objective, 1e-4 * std::abs(exact.objective))
      << what << summary.BriefReport();
  EXPECT_LE(summary.max_violation, 1e-6) << what;
  std::printf("%s%s\n", what.c_str(), summary.BriefReport().c_str());
}

TEST(EntryCostSide, EverySideReachesTheTransportLpsOptimum) {
  tools::SyntheticSpec spec;
  spec.resources = 16;
  spec.demands = 120;
  spec.entries_per_demand = 6;
  const auto problem = tools::MakeTransportLp(spec);
  for (EntryCostSide side : kSides) {
    AdmmSolver solver(*problem, Tight(side));
    ExpectExactOptimum(*problem, &solver, std::string(Name(side)) + ": ");
  }
}

// Minimize shipping costs with a quadratic congestion term per entry: every demand must be
// met in full (equality columns) from capacities that barely cover it.
TEST(EntryCostSide, EverySideReachesTheOptimumWithQuadraticCosts) {
  const int resources = 12, demands = 40;
  Problem p(resources, demands);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  p.AddDenseEntries(m);
  for (int r = 0; r < resources; ++r) {
    LinearExpr row;
    for (int d = 0; d < demands; ++d) {
      const VarId v = p.Entry(m, r, d);
      row.Add(v, 1.0);
      p.AddLinearCost(v, 1.0 + 0.37 * ((r * 7 + d * 3) % 11));
      p.AddQuadraticCost(v, 0.05 * (1 + (r + d) % 3));
    }
    p.AddResourceConstraint(r, row, Sense::kLessEqual, 4.0 + (r % 4));
  }
  for (int d = 0; d < demands; ++d) {
    LinearExpr col;
    for (int r = 0; r < resources; ++r) col.Add(p.Entry(m, r, d), 1.0);
    p.AddDemandConstraint(d, col, Sense::kEqual, 1.0 + 0.1 * (d % 5));
  }
  std::vector<double> costs;
  for (VarId v = 0; v < p.num_variables(); ++v) costs.push_back(p.variable(v).linear_cost);
  for (EntryCostSide side : kSides) {
    AdmmSolver solver(p, Tight(side));
    ExpectExactOptimum(p, &solver, std::string(Name(side)) + ": ");
    // A warm solve after the costs move (the side holding them reloads them).
    for (VarId v = 0; v < p.num_variables(); v += 3) p.SetLinearCost(v, 0.5);
    ExpectExactOptimum(p, &solver, std::string(Name(side)) + ", new costs: ");
    for (VarId v = 0; v < p.num_variables(); ++v) p.SetLinearCost(v, costs[v]);
  }
}

}  // namespace
}  // namespace dede
