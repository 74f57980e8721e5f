#include "dede/problem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_use.h"

namespace dede {
namespace {

using internal::HeapInUseBytes;

// What the model holds per allocation entry (issue 18): a transport-shaped problem, 100,000
// entries with a row per resource and per demand and a cost on every entry, takes at most 88
// bytes an entry (the variables' arrays 36, two 16-byte row terms, the entry index about 10).
// An array of 64-byte Variables took about 110. Not under the sanitizers, whose allocators
// mallinfo does not see.
TEST(Problem, AnEntryWithTwoRowTermsAndACostTakesAtMost88Bytes) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "heap accounting needs glibc's allocator";
#endif
  const int resources = 1000, demands = 1000, per_demand = 100;
  const std::size_t entries = static_cast<std::size_t>(demands) * per_demand;
  const double before = HeapInUseBytes();
  double bytes = 0;
  {
    Problem p(resources, demands);
    p.Reserve(entries, resources + demands);
    const int m = p.AddAllocation("x", Domain::NonNegative());
    std::vector<LinearExpr> rows(resources);
    for (int d = 0; d < demands; ++d) {
      LinearExpr column;
      for (int k = 0; k < per_demand; ++k) {
        const int r = (d * 7 + k * 10) % resources;
        const VarId v = p.AddEntry(m, r, d);
        p.SetLinearCost(v, 1.0 + k);
        column.Add(v, 1.0);
        rows[r].Add(v, 1.0);
      }
      p.AddDemandConstraint(d, column, Sense::kEqual, 1.0);
    }
    for (int r = 0; r < resources; ++r) {
      p.AddResourceConstraint(r, rows[r], Sense::kLessEqual, 100.0);
      LinearExpr().terms.swap(rows[r].terms);
    }
    ASSERT_EQ(p.num_variables(), static_cast<int>(entries));
    bytes = HeapInUseBytes() - before;
  }
  EXPECT_LE(bytes / static_cast<double>(entries), 88.0);
  EXPECT_GE(bytes / static_cast<double>(entries), 36.0);  // the measure sees the model at all
}

TEST(Problem, EntriesAreSparseAndLookedUpByIndex) {
  Problem p(3, 4);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId a = p.AddEntry(m, 2, 1);
  const VarId b = p.AddEntry(m, 0, 3);
  EXPECT_EQ(p.Entry(m, 2, 1), a);
  EXPECT_EQ(p.Entry(m, 0, 3), b);
  EXPECT_EQ(p.Entry(m, 1, 1), -1);
  EXPECT_EQ(p.num_variables(), 2);
  int block = -1;
  ASSERT_TRUE(p.BlockOf(a, Side::kDemand, &block));
  EXPECT_EQ(block, 1);
}

// The index grows through many rehashes and tells apart keys that a packed 24-bit key would
// merge (demand 2^24 + 5 of resource 0 against demand 5 of resource 1).
TEST(Problem, EntryIndexFindsEveryEntryThroughGrowthAndBeyond24BitIndices) {
  const int big = (1 << 24) + 6;
  Problem p(300, big);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const int m2 = p.AddAllocation("y", Domain::NonNegative());
  std::vector<VarId> ids;
  for (int r = 0; r < 300; ++r)
    for (int d = 0; d < 300; d += 3) ids.push_back(p.AddEntry((r + d) % 2 == 0 ? m : m2, r, d));
  const VarId far = p.AddEntry(m, 0, (1 << 24) + 5);
  const VarId near = p.AddEntry(m, 1, 5);
  EXPECT_NE(far, near);
  EXPECT_EQ(p.Entry(m, 0, (1 << 24) + 5), far);
  EXPECT_EQ(p.Entry(m, 1, 5), near);
  std::size_t k = 0;
  for (int r = 0; r < 300; ++r) {
    for (int d = 0; d < 300; ++d) {
      const int matrix = (r + d) % 2 == 0 ? m : m2;
      if (d % 3 == 0) {
        ASSERT_EQ(p.Entry(matrix, r, d), ids[k++]) << r << "," << d;
        EXPECT_EQ(p.Entry(matrix == m ? m2 : m, r, d), -1);
      } else if (!(r == 1 && d == 5)) {
        ASSERT_EQ(p.Entry(matrix, r, d), -1) << r << "," << d;
      }
    }
  }
  EXPECT_DEATH(p.AddEntry(m, 0, 0), "duplicate allocation entry");
}

// The digest that tells processes apart under mpirun: problems built alike agree whatever
// their names; any parameter, term or structural change moves it, as does a change that
// keeps every sum (a coefficient moved to another entry).
TEST(Problem, FingerprintTellsProblemsBuiltDifferentlyApart) {
  struct Built {
    Problem p{2, 2};
    VarId x00 = -1, x01 = -1, x10 = -1;
    ConstraintId row = -1;
  };
  const auto build = [](const std::string& name, Built* b) {
    const int m = b->p.AddAllocation(name, Domain::NonNegative());
    b->x00 = b->p.AddEntry(m, 0, 0);
    b->x01 = b->p.AddEntry(m, 0, 1);
    b->x10 = b->p.AddEntry(m, 1, 0);
    LinearExpr e;
    e.Add(b->x00, 1.0).Add(b->x01, 2.0);
    b->row = b->p.AddConstraint(BlockId::Resource(0), e, Sense::kLessEqual, 3.0, name + "cap");
    b->p.AddLinearCost(b->x10, 1.5);
    LinearExpr d0, d1;
    d0.Add(b->x00, 1.0).Add(b->x10, 1.0);
    d1.Add(b->x01, 1.0);
    b->p.SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, {0, 1}, {d0, d1});
  };
  Built a, b;
  build("x", &a);
  build("y", &b);
  const std::uint64_t base = a.p.Fingerprint();
  EXPECT_EQ(b.p.Fingerprint(), base) << "names are not part of the digest";
  b.p.SetRhs(b.row, 3.5);
  EXPECT_NE(b.p.Fingerprint(), base);
  b.p.SetRhs(b.row, 3.0);
  EXPECT_EQ(b.p.Fingerprint(), base);
  b.p.SetCoefficient(b.row, b.x01, 1.0);
  b.p.SetCoefficient(b.row, b.x00, 2.0);  // the same coefficients, on the other entries
  EXPECT_NE(b.p.Fingerprint(), base);
  Built c;
  build("x", &c);
  c.p.SetBounds(c.x01, 0.0, 4.0);
  EXPECT_NE(c.p.Fingerprint(), base);
  Built d;
  build("x", &d);
  d.p.SetGlobalWeight(2.0);
  EXPECT_NE(d.p.Fingerprint(), base);
  Built e;
  build("x", &e);
  e.p.SetObjectiveSense(ObjectiveSense::kMaximize);
  EXPECT_NE(e.p.Fingerprint(), base);
}

TEST(Problem, LocalsKeepTheirNames) {
  Problem p(1, 1);
  const VarId a = p.AddLocal(BlockId::Resource(0), Domain::NonNegative(), "slack");
  const VarId b = p.AddLocal(BlockId::Demand(0), Domain::NonNegative());
  const VarId c = p.AddLocal(BlockId::Demand(0), Domain::NonNegative(), "t");
  EXPECT_EQ(p.variable_name(a), "slack");
  EXPECT_EQ(p.variable_name(b), "");
  EXPECT_EQ(p.variable_name(c), "t");
}

TEST(Problem, TwoMatricesShareResourcesAndDemands) {
  Problem p(2, 2);
  const int m1 = p.AddAllocation("x1", Domain::Integer(0));
  const int m2 = p.AddAllocation("x2", Domain::NonNegative());
  const VarId a = p.AddEntry(m1, 0, 0);
  const VarId b = p.AddEntry(m2, 0, 0);
  EXPECT_NE(a, b);
  EXPECT_TRUE(p.variable(a).domain.IsIntegral());
  EXPECT_FALSE(p.variable(b).domain.IsIntegral());
  EXPECT_TRUE(p.HasIntegers());
}

TEST(Problem, ConstraintOnAnotherBlocksVariableIsRejectedWithNames) {
  Problem p(2, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  p.AddEntry(m, 0, 0);
  const VarId other_row = p.AddEntry(m, 1, 0);
  LinearExpr e;
  e.Add(other_row, 1.0);
  p.AddConstraint(BlockId::Resource(0), e, Sense::kLessEqual, 1.0, "cap0");
  std::string error;
  ASSERT_FALSE(p.Validate(&error));
  EXPECT_NE(error.find("'cap0'"), std::string::npos) << error;
  EXPECT_NE(error.find("x[1,0]"), std::string::npos) << error;
}

TEST(Problem, NonConvexQuadraticIsRejected) {
  Problem p(1, 1);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId v = p.AddEntry(m, 0, 0);
  p.AddQuadraticCost(v, -1.0);
  std::string error;
  EXPECT_FALSE(p.Validate(&error));
  EXPECT_NE(error.find("not convex"), std::string::npos) << error;
}

TEST(Problem, LogTermNeedsMaximize) {
  Problem p(1, 1);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId v = p.AddEntry(m, 0, 0);
  p.AddLogTerm(BlockId::Resource(0), LinearExpr().Add(v, 1.0), 1.0);
  std::string error;
  EXPECT_FALSE(p.Validate(&error));
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  EXPECT_TRUE(p.Validate(&error)) << error;
}

TEST(Problem, ObjectiveIsEvaluatedFromAllTerms) {
  Problem p(1, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId a = p.AddEntry(m, 0, 0);
  const VarId b = p.AddEntry(m, 0, 1);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.AddLinearCost(a, 2.0);
  p.AddConstant(1.0);
  p.AddLogTerm(BlockId::Demand(1), LinearExpr().Add(b, 1.0), 3.0);
  p.SetGlobalTerm(GlobalKind::kMaxMin,
                  Side::kDemand,
                  {0, 1},
                  {LinearExpr().Add(a, 1.0), LinearExpr().Add(b, 1.0)},
                  0.5);
  const std::vector<double> values = {2.0, std::exp(1.0)};
  EXPECT_NEAR(p.EvaluateObjective(values), 1.0 + 4.0 + 3.0 + 0.5 * 2.0, 1e-12);
}

TEST(Problem, ViolationIsRelativeToLargeRightHandSides) {
  Problem p(1, 1);
  const int m = p.AddAllocation("x", Domain::Integer(0, 10));
  const VarId v = p.AddEntry(m, 0, 0);
  p.AddResourceConstraint(0, LinearExpr().Add(v, 1.0), Sense::kLessEqual, 100.0);
  p.AddDemandConstraint(0, LinearExpr().Add(v, 1.0), Sense::kGreaterEqual, 0.5);
  const Problem::Violation viol = p.MeasureViolation({102.5});
  EXPECT_NEAR(viol.constraint, 0.025, 1e-12);
  EXPECT_EQ(viol.worst_constraint, 0);
  EXPECT_NEAR(viol.bound, 92.5, 1e-12);
  EXPECT_NEAR(viol.integrality, 0.5, 1e-12);
  EXPECT_NEAR(viol.Max(), 92.5, 1e-12);
}

TEST(Problem, ViolationOverRangesMergedInOrderEqualsOnePass) {
  Problem p(3, 1);
  const int m = p.AddAllocation("x", Domain::Box(0, 1));
  std::vector<VarId> v;
  for (int r = 0; r < 3; ++r) v.push_back(p.AddEntry(m, r, 0));
  for (int r = 0; r < 3; ++r) {
    p.AddResourceConstraint(r, LinearExpr().Add(v[r], 1.0), Sense::kLessEqual, 0.5);
  }
  // Constraints 1 and 2 are violated by the same amount: the first of them is the worst.
  const std::vector<double> values = {0.25, 2.0, 2.0};
  const Problem::Violation whole = p.MeasureViolation(values);
  EXPECT_EQ(whole.worst_constraint, 1);
  Problem::Violation merged = p.MeasureViolation(values, 0, 1, 0, 1);
  merged.Merge(p.MeasureViolation(values, 1, 2, 1, 2));
  merged.Merge(p.MeasureViolation(values, 2, 3, 2, 3));
  EXPECT_EQ(merged.worst_constraint, whole.worst_constraint);
  EXPECT_EQ(merged.constraint, whole.constraint);
  EXPECT_EQ(merged.bound, whole.bound);
  EXPECT_NEAR(merged.bound, 1.0, 1e-12);
}

TEST(Problem, ParameterChangesBumpTheRevision) {
  Problem p(1, 1);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId v = p.AddEntry(m, 0, 0);
  const ConstraintId c = p.AddResourceConstraint(0, LinearExpr().Add(v, 2.0), Sense::kLessEqual, 1);
  const auto before = p.revision();
  p.SetRhs(c, 3.0);
  p.SetCoefficient(c, v, 4.0);
  EXPECT_GT(p.revision(), before);
  EXPECT_EQ(p.constraint(c).rhs, 3.0);
  EXPECT_EQ(p.constraint(c).terms[0].coef, 4.0);
  // Setting the value a parameter already has is not a change.
  const auto after = p.revision();
  p.SetRhs(c, 3.0);
  p.SetCoefficient(c, v, 4.0);
  p.SetBounds(v, 0.0, kInfinity);
  EXPECT_EQ(p.revision(), after);
  p.SetBounds(v, 0.0, 9.0);
  EXPECT_EQ(p.revision(), after + 1);
}

TEST(Problem, ChangesSinceListsEachChangedItemOnceInOrder) {
  Problem p(2, 2);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId v0 = p.AddEntry(m, 0, 0);
  const VarId v1 = p.AddEntry(m, 1, 1);
  const ConstraintId c0 =
      p.AddResourceConstraint(0, LinearExpr().Add(v0, 1.0), Sense::kLessEqual, 1);
  const ConstraintId c1 =
      p.AddResourceConstraint(1, LinearExpr().Add(v1, 1.0), Sense::kLessEqual, 1);
  const auto built = p.revision();
  Problem::Changes changes;
  ASSERT_TRUE(p.ChangesSince(built, &changes));
  EXPECT_TRUE(changes.variables.empty() && changes.constraints.empty() && !changes.global);
  p.SetRhs(c1, 2.0);
  p.SetBounds(v1, 0.0, 5.0);
  p.SetRhs(c0, 3.0);
  p.SetRhs(c1, 4.0);
  const auto middle = p.revision();
  p.SetLinearCost(v0, 1.0);
  ASSERT_TRUE(p.ChangesSince(built, &changes));
  EXPECT_EQ(changes.constraints, (std::vector<ConstraintId>{c0, c1}));
  EXPECT_EQ(changes.variables, (std::vector<VarId>{v0, v1}));
  ASSERT_TRUE(p.ChangesSince(middle, &changes));
  EXPECT_TRUE(changes.constraints.empty());
  EXPECT_EQ(changes.variables, (std::vector<VarId>{v0}));
  // A structural change: what changed before it is no longer known item by item.
  p.AddResourceConstraint(0, LinearExpr().Add(v0, 1.0), Sense::kGreaterEqual, 0);
  EXPECT_FALSE(p.ChangesSince(middle, &changes));
  ASSERT_TRUE(p.ChangesSince(p.revision(), &changes));
  EXPECT_TRUE(changes.constraints.empty());
  EXPECT_FALSE(p.ChangesSince(p.revision() + 1, &changes));  // a revision not reached yet
}

TEST(Problem, ChangeLogIsBoundedAndThenReportsUnknown) {
  Problem p(1, 1);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId v = p.AddEntry(m, 0, 0);
  const ConstraintId c = p.AddResourceConstraint(0, LinearExpr().Add(v, 1.0), Sense::kLessEqual, 1);
  const auto start = p.revision();
  for (int i = 0; i < 70000; ++i) p.SetRhs(c, 1.0 + i);
  Problem::Changes changes;
  EXPECT_FALSE(p.ChangesSince(start, &changes));
  p.SetRhs(c, 0.5);
  ASSERT_TRUE(p.ChangesSince(p.revision() - 1, &changes));
  EXPECT_EQ(changes.constraints, (std::vector<ConstraintId>{c}));
}

TEST(Problem, ValidationAfterAParameterChangeChecksTheChangedItems) {
  Problem p(2, 1);
  const int m = p.AddAllocation("x", Domain::NonNegative());
  const VarId v0 = p.AddEntry(m, 0, 0);
  const VarId v1 = p.AddEntry(m, 1, 0);
  const ConstraintId c =
      p.AddResourceConstraint(1, LinearExpr().Add(v1, 1.0), Sense::kLessEqual, 1);
  std::string error;
  ASSERT_TRUE(p.Validate(&error)) << error;
  p.SetRhs(c, std::nan(""));
  EXPECT_FALSE(p.Validate(&error));
  EXPECT_NE(error.find("constraint 0 has a NaN right-hand side"), std::string::npos) << error;
  p.SetRhs(c, 2.0);
  EXPECT_TRUE(p.Validate(&error)) << error;
  p.SetBounds(v0, 3.0, 1.0);
  EXPECT_FALSE(p.Validate(&error));
  EXPECT_NE(error.find("variable 0 (x[0,0]) has bounds [3"), std::string::npos) << error;
  p.SetBounds(v0, 0.0, 1.0);
  p.SetObjectiveSense(ObjectiveSense::kMaximize);
  p.SetQuadraticCost(v1, 1.0);  // convex only when minimizing
  EXPECT_FALSE(p.Validate(&error));
  EXPECT_NE(error.find("not convex"), std::string::npos) << error;
  // A copy carries the last validation along, and checks its own changes.
  p.SetQuadraticCost(v1, -1.0);
  ASSERT_TRUE(p.Validate(&error)) << error;
  Problem copy = p;
  EXPECT_TRUE(copy.Validate(&error)) << error;
  copy.SetLinearCost(v0, std::nan(""));
  EXPECT_FALSE(copy.Validate(&error));
  EXPECT_TRUE(p.Validate(&error)) << error;
}

}  // namespace
}  // namespace dede
