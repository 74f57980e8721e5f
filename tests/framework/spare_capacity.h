// A max-min instance with spare capacity, shared by the ADMM and exact tests of the
// work-conserving second stage. Job 1 runs only on resource 1 (capacity 0.5), so the minimum
// is 0.5; job 0 may use resource 0 (capacity 1) and resource 1. Every value of job 0 in
// [0.5, 1] is max-min optimal; the second stage must give it all of resource 0 (value 1).
#pragma once

#include "dede/problem.h"

namespace dede::test_fixtures {

struct SpareCapacity {
  Problem problem{2, 2};
  VarId x00 = -1, x10 = -1, x11 = -1;
  SpareCapacity() {
    Problem& p = problem;
    const int m = p.AddAllocation("x", Domain::Box(0.0, 1.0));
    x00 = p.AddEntry(m, 0, 0);
    x10 = p.AddEntry(m, 1, 0);
    x11 = p.AddEntry(m, 1, 1);
    p.AddResourceConstraint(0, LinearExpr().Add(x00, 1.0), Sense::kLessEqual, 1.0);
    p.AddResourceConstraint(1, LinearExpr().Add(x10, 1.0).Add(x11, 1.0), Sense::kLessEqual, 0.5);
    p.AddDemandConstraint(0, LinearExpr().Add(x00, 1.0).Add(x10, 1.0), Sense::kLessEqual, 1.0);
    p.AddDemandConstraint(1, LinearExpr().Add(x11, 1.0), Sense::kLessEqual, 1.0);
    p.SetObjectiveSense(ObjectiveSense::kMaximize);
    p.SetGlobalTerm(GlobalKind::kMaxMin,
                    Side::kDemand,
                    {0, 1},
                    {LinearExpr().Add(x00, 1.0).Add(x10, 1.0), LinearExpr().Add(x11, 1.0)});
  }
};

}  // namespace dede::test_fixtures
