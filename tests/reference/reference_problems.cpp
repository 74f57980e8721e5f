#include "reference/reference_problems.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <utility>

namespace dede::reference {
namespace {

using RhsFn = std::function<double(int)>;

// An allocation matrix whose row i is resource first_resource + i and column j is demand j.
struct Matrix {
  int id = -1;
  int rows = 0;
  int cols = 0;
  int first_resource = 0;
  std::vector<VarId> vars;  // row-major

  VarId operator()(int i, int j) const { return vars[static_cast<std::size_t>(i) * cols + j]; }
  int Resource(int i) const { return first_resource + i; }
};

Matrix AddMatrix(
    Problem* problem, std::string name, Domain domain, int rows, int cols, int first_resource) {
  Matrix m;
  m.id = problem->AddAllocation(std::move(name), domain);
  m.rows = rows;
  m.cols = cols;
  m.first_resource = first_resource;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m.vars.push_back(problem->AddEntry(m.id, first_resource + i, j));
  return m;
}

LinearExpr RowSum(const Matrix& m, int i) {
  LinearExpr e;
  for (int j = 0; j < m.cols; ++j) e.Add(m(i, j), 1.0);
  return e;
}

void AddColumn(const Matrix& m, int j, LinearExpr* e) {
  for (int i = 0; i < m.rows; ++i) e->Add(m(i, j), 1.0);
}

std::vector<ConstraintId> AddRowConstraints(Problem* problem,
                                            const Matrix& m,
                                            Sense sense,
                                            const RhsFn& rhs) {
  std::vector<ConstraintId> ids;
  for (int i = 0; i < m.rows; ++i)
    ids.push_back(problem->AddResourceConstraint(m.Resource(i), RowSum(m, i), sense, rhs(i)));
  return ids;
}

// Linear costs w(i, j) on every entry of m (zeros included, as cvxpy's multiply keeps them).
void AddLinearCosts(Problem* problem, const Matrix& m, const std::function<double(int, int)>& w) {
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) problem->AddLinearCost(m(i, j), w(i, j));
}

// sum_ij (w(i, j) x[i,j])^2 = sum_ij w(i, j)^2 x[i,j]^2.
void AddSquaredCosts(Problem* problem, const Matrix& m, const std::function<double(int, int)>& w) {
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) problem->AddQuadraticCost(m(i, j), w(i, j) * w(i, j));
}

// One N x M matrix x: rows (row_sense) row_rhs(i), columns (col_sense) col_rhs(j).
struct Grid {
  std::unique_ptr<Problem> problem;
  Matrix x;
  std::vector<ConstraintId> row_constraints;
};

Grid MakeGrid(int n,
              int m,
              Domain domain,
              Sense row_sense,
              const RhsFn& row_rhs,
              Sense col_sense,
              const RhsFn& col_rhs) {
  Grid g;
  g.problem = std::make_unique<Problem>(n, m);
  g.x = AddMatrix(g.problem.get(), "x", domain, n, m, 0);
  g.row_constraints = AddRowConstraints(g.problem.get(), g.x, row_sense, row_rhs);
  for (int j = 0; j < m; ++j) {
    LinearExpr e;
    AddColumn(g.x, j, &e);
    g.problem->AddDemandConstraint(j, e, col_sense, col_rhs(j));
  }
  return g;
}

// The mixed tests: x1 (2 x 5) on resources 0-1 and x2 (3 x 5) on resources 2-4; demand j
// constrains x1[:,j].sum() + x2[:,j].sum().
constexpr int kMixedRows1 = 2;
constexpr int kMixedRows2 = 3;
constexpr int kMixedCols = 5;

struct Mixed {
  std::unique_ptr<Problem> problem;
  Matrix x1;
  Matrix x2;
};

Mixed MakeMixed(Domain domain1,
                Domain domain2,
                Sense row_sense,
                const RhsFn& row_rhs1,
                const RhsFn& row_rhs2,
                Sense col_sense,
                const RhsFn& col_rhs) {
  Mixed g;
  g.problem = std::make_unique<Problem>(kMixedRows1 + kMixedRows2, kMixedCols);
  g.x1 = AddMatrix(g.problem.get(), "x1", domain1, kMixedRows1, kMixedCols, 0);
  g.x2 = AddMatrix(g.problem.get(), "x2", domain2, kMixedRows2, kMixedCols, kMixedRows1);
  AddRowConstraints(g.problem.get(), g.x1, row_sense, row_rhs1);
  AddRowConstraints(g.problem.get(), g.x2, row_sense, row_rhs2);
  for (int j = 0; j < kMixedCols; ++j) {
    LinearExpr e;
    AddColumn(g.x1, j, &e);
    AddColumn(g.x2, j, &e);
    g.problem->AddDemandConstraint(j, e, col_sense, col_rhs(j));
  }
  return g;
}

// The "3 vectors" tests: x1 boolean(5), local to demand j; x2 nonneg(5) as a 1 x 5 matrix over
// resource 0; x3 integer(5, no sign bound) as a 1 x 5 matrix over resource 1.
// Resource 0: x2.sum() (sense) x2_rhs; resource 1: x3.sum() (sense) x3_rhs;
// demand j: x1[j] + x2[j] + x3[j] (demand_sense) demand_rhs(j).
constexpr int kVectorLength = 5;

struct ThreeVectors {
  std::unique_ptr<Problem> problem;
  std::vector<VarId> x1;
  Matrix x2;
  Matrix x3;
};

ThreeVectors MakeThreeVectors(Sense resource_sense,
                              double x2_rhs,
                              double x3_rhs,
                              Sense demand_sense,
                              const RhsFn& demand_rhs) {
  ThreeVectors g;
  g.problem = std::make_unique<Problem>(2, kVectorLength);
  g.x2 = AddMatrix(g.problem.get(), "x2", Domain::NonNegative(), 1, kVectorLength, 0);
  g.x3 = AddMatrix(g.problem.get(), "x3", Domain::Integer(), 1, kVectorLength, 1);
  for (int j = 0; j < kVectorLength; ++j)
    g.x1.push_back(
        g.problem->AddLocal(BlockId::Demand(j), Domain::Binary(), "x1[" + std::to_string(j) + "]"));
  g.problem->AddResourceConstraint(0, RowSum(g.x2, 0), resource_sense, x2_rhs);
  g.problem->AddResourceConstraint(1, RowSum(g.x3, 0), resource_sense, x3_rhs);
  for (int j = 0; j < kVectorLength; ++j) {
    LinearExpr e;
    e.Add(g.x1[j], 1.0).Add(g.x2(0, j), 1.0).Add(g.x3(0, j), 1.0);
    g.problem->AddDemandConstraint(j, e, demand_sense, demand_rhs(j));
  }
  return g;
}

double Index(int i) { return i; }
double One(int) { return 1.0; }
double Five(int) { return 5.0; }
// w = i * j / (i + j + 1) of test_multiply2 and friends.
double RatioWeight(int i, int j) { return static_cast<double>(i * j) / (i + j + 1); }

ReferenceInstance Finish(std::string id,
                         std::string label,
                         std::string name,
                         std::unique_ptr<Problem> problem,
                         double optimum,
                         bool integral) {
  ReferenceInstance r;
  r.id = std::move(id);
  r.label = std::move(label);
  r.name = std::move(name);
  r.problem = std::move(problem);
  r.optimum = optimum;
  r.integral = integral;
  return r;
}

// ---- test_dede.py ---------------------------------------------------------------------------

ReferenceInstance Build01() {
  Grid g = MakeGrid(
      100, 100, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish("01", "dede", "test_dede.test_dede", std::move(g.problem), 4950.0, false);
}

ReferenceInstance Build02() {
  const std::vector<double> p = {1, 3, 5, 7};
  Grid g = MakeGrid(
      4,
      4,
      Domain::NonNegative(),
      Sense::kGreaterEqual,
      [&](int i) { return p[i]; },
      Sense::kGreaterEqual,
      One);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  std::vector<ConstraintId> parameter_constraints = g.row_constraints;
  ReferenceInstance r = Finish("02",
                               "dede_with_param",
                               "test_dede.test_dede_with_param[first solve]",
                               std::move(g.problem),
                               16.0,
                               false);
  r.parameter_constraints = std::move(parameter_constraints);
  r.parameter_values = p;
  return r;
}

ReferenceInstance Build02b() {
  ReferenceInstance r = Build02();
  r.id = "02b";
  r.label = "dede_with_param_resolve";
  r.name = "test_dede.test_dede_with_param[after param.value += 1]";
  r.optimum_before_update = r.optimum;
  r.optimum = 20.0;
  r.resolve_after_parameter_update = true;
  return r;
}

// ---- test_lin_cont.py -----------------------------------------------------------------------

ReferenceInstance Build03() {
  Grid g = MakeGrid(
      10, 10, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int i = 0; i < 10; ++i) g.problem->AddLinearCost(g.x(i, i), i % 2 == 0 ? 1.0 : -1.0);
  return Finish(
      "03", "lin_cont_add1", "test_lin_cont.test_add1", std::move(g.problem), 20.0, false);
}

ReferenceInstance Build04() {
  Grid g =
      MakeGrid(10, 10, Domain::NonNegative(), Sense::kLessEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  g.problem->AddLinearCost(g.x(9, 9), 1.0);
  g.problem->AddLinearCost(g.x(5, 5), 1.0);
  return Finish(
      "04", "lin_cont_add2", "test_lin_cont.test_add2", std::move(g.problem), 14.0, false);
}

ReferenceInstance Build05() {
  Grid g =
      MakeGrid(3, 3, Domain::NonNegative(), Sense::kLessEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int i = 0; i < 3; ++i) g.problem->AddLinearCost(g.x(i, i), 0.0);
  return Finish(
      "05", "lin_cont_add_zero", "test_lin_cont.test_add_zero", std::move(g.problem), 0.0, false);
}

ReferenceInstance Build06() {
  Grid g = MakeGrid(
      10, 10, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish(
      "06", "lin_cont_sum1", "test_lin_cont.test_sum1", std::move(g.problem), 45.0, false);
}

ReferenceInstance Build07() {
  Grid g =
      MakeGrid(10, 10, Domain::NonNegative(), Sense::kLessEqual, Index, Sense::kLessEqual, One);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish(
      "07", "lin_cont_sum2", "test_lin_cont.test_sum2", std::move(g.problem), 10.0, false);
}

ReferenceInstance Build08() {
  Grid g = MakeGrid(
      10, 10, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  AddLinearCosts(g.problem.get(), g.x, [](int i, int j) { return static_cast<double>(i - j); });
  return Finish(
      "08", "lin_cont_multiply1", "test_lin_cont.test_multiply1", std::move(g.problem), 0.0, false);
}

constexpr double kMultiply2Optimum = 132.233343059;

ReferenceInstance Build09() {
  Grid g = MakeGrid(
      10, 10, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  AddLinearCosts(g.problem.get(), g.x, RatioWeight);
  return Finish("09",
                "lin_cont_multiply2",
                "test_lin_cont.test_multiply2",
                std::move(g.problem),
                kMultiply2Optimum,
                false);
}

ReferenceInstance Build10() {
  Grid g =
      MakeGrid(3, 4, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  AddLinearCosts(g.problem.get(), g.x, [](int i, int j) { return i == 0 && j == 2 ? 1.0 : 0.0; });
  return Finish("10",
                "lin_cont_multiply_zero",
                "test_lin_cont.test_multiply_zero",
                std::move(g.problem),
                2.0,
                false);
}

ReferenceInstance Build11() {
  // x is free; the elementwise x <= 5 is its upper bound. No row-sum constraints.
  auto problem = std::make_unique<Problem>(10, 10);
  const Matrix x = AddMatrix(problem.get(), "x", Domain::Box(-kInfinity, 5.0), 10, 10, 0);
  for (int j = 0; j < 10; ++j) {
    LinearExpr e;
    AddColumn(x, j, &e);
    problem->AddDemandConstraint(j, e, Sense::kLessEqual, Five(j));
  }
  problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int i = 0; i < 10; ++i) problem->AddLinearCost(x(i, i), 1.0);
  return Finish(
      "11", "lin_cont_trace", "test_lin_cont.test_trace", std::move(problem), 50.0, false);
}

// ---- test_lin_int.py ------------------------------------------------------------------------

ReferenceInstance Build12() {
  Grid g =
      MakeGrid(10, 10, Domain::Integer(0.0), Sense::kLessEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  g.problem->AddLinearCost(g.x(9, 9), 1.0);
  g.problem->AddLinearCost(g.x(5, 5), 1.0);
  return Finish("12", "lin_int_add", "test_lin_int.test_add", std::move(g.problem), 14.0, true);
}

ReferenceInstance Build13() {
  Grid g = MakeGrid(5, 5, Domain::Integer(0.0), Sense::kLessEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  g.problem->AddConstant(2.0);
  return Finish(
      "13", "lin_int_constant1", "test_lin_int.test_constant1", std::move(g.problem), 2.0, true);
}

ReferenceInstance Build14() {
  Grid g =
      MakeGrid(10, 10, Domain::Integer(0.0), Sense::kLessEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  g.problem->AddLinearCost(g.x(9, 9), 1.0);
  g.problem->AddConstant(2.0);
  return Finish(
      "14", "lin_int_constant2", "test_lin_int.test_constant2", std::move(g.problem), 11.0, true);
}

ReferenceInstance Build15() {
  Grid g = MakeGrid(5, 5, Domain::Integer(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish("15", "lin_int_sum1", "test_lin_int.test_sum1", std::move(g.problem), 10.0, true);
}

ReferenceInstance Build16() {
  Grid g = MakeGrid(5, 5, Domain::Integer(), Sense::kLessEqual, Index, Sense::kLessEqual, One);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish("16", "lin_int_sum2", "test_lin_int.test_sum2", std::move(g.problem), 5.0, true);
}

ReferenceInstance Build17() {
  Grid g =
      MakeGrid(10, 10, Domain::Integer(0.0), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  AddLinearCosts(g.problem.get(), g.x, [](int i, int j) { return static_cast<double>(i - j); });
  return Finish(
      "17", "lin_int_multiply1", "test_lin_int.test_multiply1", std::move(g.problem), 0.0, true);
}

ReferenceInstance Build18() {
  Grid g =
      MakeGrid(10, 10, Domain::Integer(0.0), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  AddLinearCosts(g.problem.get(), g.x, RatioWeight);
  return Finish("18",
                "lin_int_multiply2",
                "test_lin_int.test_multiply2",
                std::move(g.problem),
                kMultiply2Optimum,
                true);
}

ReferenceInstance Build19() {
  Grid g =
      MakeGrid(10, 10, Domain::Binary(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish(
      "19", "lin_int_boolean", "test_lin_int.test_boolean", std::move(g.problem), 45.0, true);
}

// ---- test_lin_mix.py ------------------------------------------------------------------------

ReferenceInstance Build20() {
  Mixed g = MakeMixed(
      Domain::Integer(0.0),
      Domain::NonNegative(),
      Sense::kGreaterEqual,
      [](int i) { return 2.0 * i; },
      [](int i) { return 2.0 * i; },
      Sense::kLessEqual,
      [](int j) { return 2 * 1.23456789 * j; });
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  // Diagonal of the stacked 5 x 5 matrix [x1; x2] with alternating signs.
  g.problem->AddLinearCost(g.x1(0, 0), 1.0);
  g.problem->AddLinearCost(g.x1(1, 1), -1.0);
  g.problem->AddLinearCost(g.x2(0, 2), 1.0);
  g.problem->AddLinearCost(g.x2(1, 3), -1.0);
  g.problem->AddLinearCost(g.x2(2, 4), 1.0);
  return Finish(
      "20", "lin_mix_add1", "test_lin_mix.test_add1", std::move(g.problem), 14.81481468, true);
}

ReferenceInstance Build21() {
  const auto rhs = [](int i) { return 1.5 * i; };
  Mixed g = MakeMixed(Domain::NonNegative(),
                      Domain::Integer(0.0),
                      Sense::kLessEqual,
                      rhs,
                      rhs,
                      Sense::kLessEqual,
                      Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  g.problem->AddLinearCost(g.x1(0, 0), 1.0);
  g.problem->AddLinearCost(g.x1(0, 4), 1.0);
  g.problem->AddLinearCost(g.x2(2, 0), 1.0);
  g.problem->AddLinearCost(g.x2(2, 4), 1.0);
  return Finish("21", "lin_mix_add2", "test_lin_mix.test_add2", std::move(g.problem), 3.0, true);
}

ReferenceInstance Build22() {
  Mixed g = MakeMixed(Domain::Integer(0.0),
                      Domain::NonNegative(),
                      Sense::kGreaterEqual,
                      Index,
                      Index,
                      Sense::kLessEqual,
                      [](int j) { return 2.3456 * j; });
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x1.vars) g.problem->AddLinearCost(v, 1.0);
  for (VarId v : g.x2.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish("22", "lin_mix_sum1", "test_lin_mix.test_sum1", std::move(g.problem), 23.456, true);
}

ReferenceInstance Build23() {
  Mixed g = MakeMixed(Domain::NonNegative(),
                      Domain::Integer(),
                      Sense::kLessEqual,
                      Index,
                      Index,
                      Sense::kLessEqual,
                      One);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : g.x1.vars) g.problem->AddLinearCost(v, 1.0);
  for (VarId v : g.x2.vars) g.problem->AddLinearCost(v, 1.0);
  return Finish("23", "lin_mix_sum2", "test_lin_mix.test_sum2", std::move(g.problem), 4.0, true);
}

ReferenceInstance Build24() {
  Mixed g = MakeMixed(Domain::Integer(0.0),
                      Domain::NonNegative(),
                      Sense::kGreaterEqual,
                      Index,
                      Index,
                      Sense::kLessEqual,
                      Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  // w = i - j over the stacked matrix: x2's row i is row i + 2.
  AddLinearCosts(g.problem.get(), g.x1, [](int i, int j) { return static_cast<double>(i - j); });
  AddLinearCosts(
      g.problem.get(), g.x2, [](int i, int j) { return static_cast<double>(i + kMixedRows1 - j); });
  return Finish(
      "24", "lin_mix_multiply1", "test_lin_mix.test_multiply1", std::move(g.problem), 6.0, true);
}

ReferenceInstance Build25() {
  Mixed g = MakeMixed(Domain::NonNegative(),
                      Domain::Integer(0.0),
                      Sense::kGreaterEqual,
                      Index,
                      Index,
                      Sense::kLessEqual,
                      Index);
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  AddLinearCosts(g.problem.get(), g.x1, RatioWeight);
  AddLinearCosts(
      g.problem.get(), g.x2, [](int i, int j) { return RatioWeight(i + kMixedRows1, j); });
  return Finish("25",
                "lin_mix_multiply2",
                "test_lin_mix.test_multiply2",
                std::move(g.problem),
                14.087301587,
                true);
}

constexpr double kLinMixBooleanOptimum = 27.3456;

ThreeVectors MakeLinMixBoolean() {
  ThreeVectors g = MakeThreeVectors(
      Sense::kLessEqual, 12.3456, 10.0, Sense::kGreaterEqual, [](int) { return 4.0; });
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int j = 0; j < kVectorLength; ++j) {
    g.problem->AddLinearCost(g.x1[j], 1.0);
    g.problem->AddLinearCost(g.x2(0, j), 1.0);
    g.problem->AddLinearCost(g.x3(0, j), 1.0);
  }
  return g;
}

ReferenceInstance Build26() {
  return Finish("26",
                "lin_mix_boolean",
                "test_lin_mix.test_boolean",
                MakeLinMixBoolean().problem,
                kLinMixBooleanOptimum,
                true);
}

// ---- test_cvx_cont.py -----------------------------------------------------------------------

// x >= 1 (so log x is defined), x[i,:].sum() <= 10 (i + 1), x[:,j].sum() <= 10 (j + 1),
// maximize sum w(i, j) log x[i,j].
std::unique_ptr<Problem> MakeLogProblem(const std::function<double(int, int)>& w) {
  Grid g = MakeGrid(
      10,
      10,
      Domain::Box(1.0, kInfinity),
      Sense::kLessEqual,
      [](int i) { return 10.0 * (i + 1); },
      Sense::kLessEqual,
      [](int j) { return 10.0 * (j + 1); });
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      LinearExpr e;
      e.Add(g.x(i, j), 1.0);
      g.problem->AddLogTerm(BlockId::Resource(i), e, w(i, j));
    }
  }
  return std::move(g.problem);
}

constexpr double kLogWeightedOptimum = 1541.922228103;

double SumWeight(int i, int j) { return static_cast<double>(i + j); }

ReferenceInstance Build27() {
  return Finish("27",
                "cvx_cont_log",
                "test_cvx_cont.test_log",
                MakeLogProblem([](int, int) { return 1.0; }),
                134.318353958,
                false);
}

ReferenceInstance Build28() {
  return Finish("28",
                "cvx_cont_log_weighted",
                "test_cvx_cont.test_log_weighted",
                MakeLogProblem(SumWeight),
                kLogWeightedOptimum,
                false);
}

ReferenceInstance Build29() {
  Grid g = MakeGrid(
      10, 10, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  // quad_over_lin(x, 1) = sum x^2.
  AddSquaredCosts(g.problem.get(), g.x, [](int, int) { return 1.0; });
  return Finish("29",
                "cvx_cont_quadratic",
                "test_cvx_cont.test_quadratic",
                std::move(g.problem),
                38.835175737,
                false);
}

ReferenceInstance Build30() {
  Grid g = MakeGrid(
      10, 10, Domain::NonNegative(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  AddSquaredCosts(g.problem.get(), g.x, RatioWeight);
  return Finish("30",
                "cvx_cont_quadratic_weighted",
                "test_cvx_cont.test_quadratic_weighted",
                std::move(g.problem),
                337.385109937,
                false);
}

// ---- test_cvx_int.py ------------------------------------------------------------------------

ReferenceInstance Build31() {
  Grid g = MakeGrid(5, 5, Domain::Integer(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  AddSquaredCosts(g.problem.get(), g.x, [](int, int) { return 1.0; });
  return Finish(
      "31", "cvx_int_quadratic", "test_cvx_int.test_quadratic", std::move(g.problem), 10.0, true);
}

std::unique_ptr<Problem> MakeCvxIntWeighted() {
  Grid g = MakeGrid(5, 5, Domain::Integer(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  AddSquaredCosts(
      g.problem.get(), g.x, [](int i, int j) { return static_cast<double>((i + 1) * (j + 1)); });
  return std::move(g.problem);
}

constexpr double kCvxIntWeightedOptimum = 1022.0;

ReferenceInstance Build32() {
  return Finish("32",
                "cvx_int_quadratic_weighted",
                "test_cvx_int.test_quadratic_weighted",
                MakeCvxIntWeighted(),
                kCvxIntWeightedOptimum,
                true);
}

ReferenceInstance Build33() {
  Grid g = MakeGrid(5, 5, Domain::Binary(), Sense::kGreaterEqual, Index, Sense::kLessEqual, Index);
  // quad_over_lin(x, 3) = sum x^2 / 3.
  for (VarId v : g.x.vars) g.problem->AddQuadraticCost(v, 1.0 / 3.0);
  return Finish("33",
                "cvx_int_boolean_quadratic",
                "test_cvx_int.test_boolean_quadratic",
                std::move(g.problem),
                3.333333333,
                true);
}

// ---- test_cvx_mix.py ------------------------------------------------------------------------

ReferenceInstance Build34() {
  Mixed g = MakeMixed(
      Domain::Integer(),
      Domain::NonNegative(),
      Sense::kGreaterEqual,
      [](int i) { return 1.2 * i; },
      [](int i) { return 3.5 * i; },
      Sense::kGreaterEqual,
      [](int j) { return 2.23 * j; });
  AddSquaredCosts(g.problem.get(), g.x1, [](int, int) { return 1.0; });
  AddSquaredCosts(g.problem.get(), g.x2, [](int, int) { return 1.0; });
  return Finish("34",
                "cvx_mix_quadratic",
                "test_cvx_mix.test_quadratic",
                std::move(g.problem),
                32.435969706,
                true);
}

ReferenceInstance Build35() {
  Mixed g = MakeMixed(
      Domain::NonNegative(),
      Domain::Integer(),
      Sense::kGreaterEqual,
      [](int i) { return 9.6 * i; },
      Index,
      Sense::kGreaterEqual,
      [](int j) { return 5.5 * j; });
  // w = sqrt((i + 1)(j + 1)) over the stacked matrix: x2's row i is row i + 2, so i + 3.
  AddSquaredCosts(g.problem.get(), g.x1, [](int i, int j) {
    return std::sqrt(static_cast<double>((i + 1) * (j + 1)));
  });
  AddSquaredCosts(g.problem.get(), g.x2, [](int i, int j) {
    return std::sqrt(static_cast<double>((i + kMixedRows1 + 1) * (j + 1)));
  });
  return Finish("35",
                "cvx_mix_quadratic_weighted",
                "test_cvx_mix.test_quadratic_weighted",
                std::move(g.problem),
                1741.000000201,
                true);
}

ThreeVectors MakeCvxMixBoolean() {
  return MakeThreeVectors(
      Sense::kGreaterEqual, 12.3456, 10.0, Sense::kGreaterEqual, [](int j) { return 4.0 * j; });
}

ReferenceInstance Build36() {
  ThreeVectors g = MakeCvxMixBoolean();
  for (int j = 0; j < kVectorLength; ++j) {
    g.problem->AddQuadraticCost(g.x1[j], 1.0);
    g.problem->AddQuadraticCost(g.x2(0, j), 1.0);
    g.problem->AddQuadraticCost(g.x3(0, j), 1.0);
  }
  return Finish("36",
                "cvx_mix_boolean_quadratic",
                "test_cvx_mix.test_boolean_quadratic",
                std::move(g.problem),
                208.000000076,
                true);
}

constexpr double kCvxMixWeightedOptimum = 26.686567865;

std::unique_ptr<Problem> MakeCvxMixBooleanWeighted() {
  ThreeVectors g = MakeCvxMixBoolean();
  for (int j = 0; j < kVectorLength; ++j) {
    const double w1 = j + 1;
    const double w2 = std::sin(static_cast<double>(j * j));
    const double w3 = std::cos(static_cast<double>(j * j * j));
    g.problem->AddQuadraticCost(g.x1[j], w1 * w1);
    g.problem->AddQuadraticCost(g.x2(0, j), w2 * w2);
    g.problem->AddQuadraticCost(g.x3(0, j), w3 * w3);
  }
  return std::move(g.problem);
}

ReferenceInstance Build37() {
  return Finish("37",
                "cvx_mix_boolean_quadratic_weighted",
                "test_cvx_mix.test_boolean_quadratic_weighted",
                MakeCvxMixBooleanWeighted(),
                kCvxMixWeightedOptimum,
                true);
}

// ---- test_solution.py: the reported objective must match the returned allocation's ---------

ReferenceInstance Solution(ReferenceInstance r,
                           std::string id,
                           std::string label,
                           std::string name) {
  r.id = std::move(id);
  r.label = std::move(label);
  r.name = std::move(name);
  r.check_reported_objective = true;
  return r;
}

ReferenceInstance Build38() {
  return Solution(Build09(), "38", "solution_lin_cont", "test_solution.test_lin_cont");
}

ReferenceInstance Build39() {
  return Solution(Build28(), "39", "solution_cvx_cont", "test_solution.test_cvx_cont");
}

ReferenceInstance Build40() {
  return Solution(Build18(), "40", "solution_lin_int", "test_solution.test_lin_int");
}

ReferenceInstance Build41() {
  return Solution(Build32(), "41", "solution_cvx_int", "test_solution.test_cvx_int");
}

ReferenceInstance Build42() {
  return Solution(Build26(), "42", "solution_lin_mix", "test_solution.test_lin_mix");
}

ReferenceInstance Build43() {
  return Solution(Build37(), "43", "solution_cvx_mix", "test_solution.test_cvx_mix");
}

ReferenceInstance Build44() {
  // x1 boolean(100) appears only in demand constraints (local to demand j); x2 100 x 100.
  constexpr int kSize = 100;
  auto problem = std::make_unique<Problem>(kSize, kSize);
  const Matrix x2 = AddMatrix(problem.get(), "x2", Domain::NonNegative(), kSize, kSize, 0);
  std::vector<VarId> x1;
  for (int j = 0; j < kSize; ++j)
    x1.push_back(
        problem->AddLocal(BlockId::Demand(j), Domain::Binary(), "x1[" + std::to_string(j) + "]"));
  AddRowConstraints(problem.get(), x2, Sense::kLessEqual, One);
  for (int j = 0; j < kSize; ++j) {
    LinearExpr e;
    e.Add(x1[j], 1.0);
    AddColumn(x2, j, &e);
    problem->AddDemandConstraint(j, e, Sense::kLessEqual, Index(j));
  }
  problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (VarId v : x1) problem->AddLinearCost(v, 1.0);
  for (VarId v : x2.vars) problem->AddLinearCost(v, 1.0);
  ReferenceInstance r =
      Finish("44", "solution_large", "test_solution.test_large", std::move(problem), 199.0, true);
  r.check_reported_objective = true;
  return r;
}

ReferenceInstance Build45() {
  // maximize sum_i log(x[i,:].sum()): one log term per resource over its row.
  Grid g = MakeGrid(
      2,
      2,
      Domain::NonNegative(),
      Sense::kGreaterEqual,
      [](int i) { return 2.0 * (i + 1); },
      Sense::kLessEqual,
      [](int j) { return 2.0 * (j + 1); });
  g.problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int i = 0; i < 2; ++i) g.problem->AddLogTerm(BlockId::Resource(i), RowSum(g.x, i), 1.0);
  return Finish("45",
                "solution_nested_log",
                "test_solution.test_nested_log",
                std::move(g.problem),
                2.079441542,
                false);
}

using Builder = ReferenceInstance (*)();

const std::vector<std::pair<std::string, Builder>>& Builders() {
  static const std::vector<std::pair<std::string, Builder>> builders = {
      {"01", Build01}, {"02", Build02}, {"02b", Build02b}, {"03", Build03}, {"04", Build04},
      {"05", Build05}, {"06", Build06}, {"07", Build07},   {"08", Build08}, {"09", Build09},
      {"10", Build10}, {"11", Build11}, {"12", Build12},   {"13", Build13}, {"14", Build14},
      {"15", Build15}, {"16", Build16}, {"17", Build17},   {"18", Build18}, {"19", Build19},
      {"20", Build20}, {"21", Build21}, {"22", Build22},   {"23", Build23}, {"24", Build24},
      {"25", Build25}, {"26", Build26}, {"27", Build27},   {"28", Build28}, {"29", Build29},
      {"30", Build30}, {"31", Build31}, {"32", Build32},   {"33", Build33}, {"34", Build34},
      {"35", Build35}, {"36", Build36}, {"37", Build37},   {"38", Build38}, {"39", Build39},
      {"40", Build40}, {"41", Build41}, {"42", Build42},   {"43", Build43}, {"44", Build44},
      {"45", Build45},
  };
  return builders;
}

}  // namespace

void IncrementParameter(ReferenceInstance* instance) {
  for (std::size_t i = 0; i < instance->parameter_constraints.size(); ++i) {
    instance->parameter_values[i] += 1.0;
    instance->problem->SetRhs(instance->parameter_constraints[i], instance->parameter_values[i]);
  }
}

const std::vector<std::string>& ReferenceInstanceIds() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const auto& [id, builder] : Builders()) out.push_back(id);
    return out;
  }();
  return ids;
}

ReferenceInstance BuildReferenceInstance(const std::string& id) {
  for (const auto& [builder_id, builder] : Builders())
    if (builder_id == id) return builder();
  std::fprintf(stderr, "BuildReferenceInstance: unknown instance id '%s'\n", id.c_str());
  std::abort();
}

}  // namespace dede::reference
