// Small hand-computed problems shared by the ADMM engine's tests.
#pragma once

#include <vector>

#include "dede/problem.h"

namespace dede::testing {

// Three jobs share two unit resources; every job may use at most one unit of time in total.
// Maximizing the minimum job allocation splits the capacity 2 evenly: 2/3 each.
inline Problem MaxMinProblem() {
  Problem p(2, 3);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  p.AddDenseEntries(m);
  for (int r = 0; r < 2; ++r) {
    LinearExpr row;
    for (int d = 0; d < 3; ++d) row.Add(p.Entry(m, r, d), 1.0);
    p.AddResourceConstraint(r, row, Sense::kLessEqual, 1.0);
  }
  std::vector<LinearExpr> exprs;
  for (int d = 0; d < 3; ++d) {
    LinearExpr col;
    for (int r = 0; r < 2; ++r) col.Add(p.Entry(m, r, d), 1.0);
    p.AddDemandConstraint(d, col, Sense::kLessEqual, 1.0);
    exprs.push_back(col);
  }
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, {0, 1, 2}, exprs);
  return p;
}

}  // namespace dede::testing
