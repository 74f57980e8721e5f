#include "problem_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "errors.h"

namespace dede::python {

namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<int>::max();

std::string At(const std::string& name, std::size_t k) {
  return name + "[" + std::to_string(k) + "]";
}

py::array_t<std::int32_t> Ids(std::size_t n) {
  return py::array_t<std::int32_t>(static_cast<py::ssize_t>(n));
}

int BlockCount(const Problem& p, Side side) {
  return side == Side::kResource ? p.num_resources() : p.num_demands();
}

const char* SideName(Side side) { return side == Side::kResource ? "resource" : "demand"; }

// Senses as one string for all rows or a sequence of one per row.
std::vector<Sense> ParseSenses(const py::handle& senses, std::size_t rows) {
  if (py::isinstance<py::str>(senses))
    return std::vector<Sense>(rows, ParseSense(py::cast<std::string>(senses), "senses"));
  std::vector<Sense> out;
  out.reserve(rows);
  std::size_t k = 0;
  for (const py::handle item : senses) {
    if (!py::isinstance<py::str>(item))
      ThrowValue(At("senses", k) + ": expected '<=', '==' or '>=', got " +
                 std::string(py::repr(item)));
    out.push_back(ParseSense(py::cast<std::string>(item), At("senses", k)));
    ++k;
  }
  if (out.size() != rows)
    ThrowValue("senses: expected " + std::to_string(rows) + " values (one per row), got " +
               std::to_string(out.size()));
  return out;
}

// The rows of a CSR matrix as linear expressions (duplicates are merged by the model).
LinearExpr RowExpr(const CsrRows& csr, std::size_t k, double constant) {
  LinearExpr e;
  const auto begin = static_cast<std::size_t>(csr.indptr[k]);
  const auto end = static_cast<std::size_t>(csr.indptr[k + 1]);
  e.terms.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i)
    e.terms.push_back({static_cast<VarId>(csr.indices[i]), csr.data[i]});
  e.constant = constant;
  return e;
}

std::vector<std::string> Names(const py::object& names, std::size_t n, const char* what) {
  std::vector<std::string> out;
  if (names.is_none()) return out;
  for (const py::handle item : names) out.push_back(py::cast<std::string>(py::str(item)));
  if (out.size() != n)
    ThrowValue(std::string(what) + ": expected " + std::to_string(n) + " names, got " +
               std::to_string(out.size()));
  return out;
}

}  // namespace

Side ParseSide(const std::string& side) {
  if (side == "resource") return Side::kResource;
  if (side == "demand") return Side::kDemand;
  ThrowValue("side = '" + side + "': expected 'resource' or 'demand'");
}

Sense ParseSense(const std::string& sense, const std::string& where) {
  if (sense == "<=") return Sense::kLessEqual;
  if (sense == "==" || sense == "=") return Sense::kEqual;
  if (sense == ">=") return Sense::kGreaterEqual;
  ThrowValue(where + " = '" + sense + "': expected '<=', '==' or '>='");
}

VarType ParseDomain(const std::string& domain) {
  if (domain == "continuous") return VarType::kContinuous;
  if (domain == "integer") return VarType::kInteger;
  if (domain == "binary") return VarType::kBinary;
  ThrowValue("domain = '" + domain + "': expected 'continuous', 'integer' or 'binary'");
}

PyProblem::PyProblem(std::int64_t num_resources, std::int64_t num_demands) {
  if (num_resources < 0 || num_resources > kMaxIndex)
    ThrowValue("num_resources = " + std::to_string(num_resources) + ": must be in [0, " +
               std::to_string(kMaxIndex) + "]");
  if (num_demands < 0 || num_demands > kMaxIndex)
    ThrowValue("num_demands = " + std::to_string(num_demands) + ": must be in [0, " +
               std::to_string(kMaxIndex) + "]");
  problem_ =
      std::make_unique<Problem>(static_cast<int>(num_resources), static_cast<int>(num_demands));
}

PyProblem::~PyProblem() = default;

void PyProblem::SetSense(const std::string& sense) {
  ObjectiveSense s;
  if (sense == "min" || sense == "minimize") {
    s = ObjectiveSense::kMinimize;
  } else if (sense == "max" || sense == "maximize") {
    s = ObjectiveSense::kMaximize;
  } else {
    ThrowValue("sense = '" + sense + "': expected 'min' or 'max'");
  }
  StructureChanged();
  problem_->SetObjectiveSense(s);
}

namespace {

// A binary variable's bounds are [0, 1] (the model forces them): other bounds are an error
// rather than silently replaced. upper = inf is the default of every domain and reads as 1.
void CheckBinaryBounds(VarType type, double lower, double upper, const std::string& where) {
  if (type != VarType::kBinary) return;
  if (lower != 0.0 || !(upper == 1.0 || upper == kInfinity))
    ThrowValue(where + "lower, upper = " + FormatNumber(lower) + ", " + FormatNumber(upper) +
               ": a binary variable's bounds are [0, 1]");
}

}  // namespace

py::tuple PyProblem::AddAllocation(const std::string& name,
                                   const std::string& domain,
                                   double lower,
                                   double upper,
                                   const py::handle& resources_object,
                                   const py::handle& demands_object) {
  CheckIdle();
  const VarType type = ParseDomain(domain);
  if (std::isnan(lower)) ThrowValue("lower = nan: a number is required");
  if (std::isnan(upper)) ThrowValue("upper = nan: a number is required");
  if (lower > upper)
    ThrowValue("lower = " + FormatNumber(lower) + " > upper = " + FormatNumber(upper));
  CheckBinaryBounds(type, lower, upper, "");
  if (problem_->num_matrices() + 1 >= (1 << 15))
    ThrowValue("add_allocation('" + name + "'): at most 32767 allocation matrices");
  const IndexArray resources(resources_object, "resources");
  const IndexArray demands(
      demands_object, "demands", static_cast<std::ptrdiff_t>(resources.size()));
  resources.CheckRange(0, problem_->num_resources(), "resource indices");
  demands.CheckRange(0, problem_->num_demands(), "demand indices");
  const std::size_t n = resources.size();
  if (static_cast<std::int64_t>(problem_->num_variables()) + static_cast<std::int64_t>(n) >
      kMaxIndex)
    ThrowValue("resources: " + std::to_string(n) + " entries would exceed 2^31 - 1 variables");
  CheckNewEntries(name, resources, demands);
  // Every check passed: only now is the model changed.
  StructureChanged();
  const int matrix = problem_->AddAllocation(name, Domain{lower, upper, type});
  problem_->Reserve(static_cast<std::size_t>(problem_->num_variables()) + n,
                    static_cast<std::size_t>(problem_->num_constraints()));
  py::array_t<std::int32_t> ids = Ids(n);
  std::int32_t* out = ids.mutable_data();
  for (std::size_t k = 0; k < n; ++k)
    out[k] =
        problem_->AddEntry(matrix, static_cast<int>(resources[k]), static_cast<int>(demands[k]));
  return py::make_tuple(matrix, ids);
}

// The model aborts on a duplicate entry: find any first, in the call and against the matrix.
void PyProblem::CheckNewEntries(const std::string& name,
                                const IndexArray& resources,
                                const IndexArray& demands) const {
  const std::size_t n = resources.size();
  const std::int64_t columns = problem_->num_demands();
  auto duplicate = [&](std::size_t k, const std::string& why) {
    ThrowValue("(resources[" + std::to_string(k) + "], demands[" + std::to_string(k) + "]) = (" +
               std::to_string(resources[k]) + ", " + std::to_string(demands[k]) +
               "): duplicate entry of allocation '" + name + "' (" + why + ")");
  };
  // Keys in increasing order (row-major, as scipy's canonical formats and np.nonzero give
  // them) need no sort.
  bool increasing = true;
  for (std::size_t k = 1; k < n && increasing; ++k)
    increasing = resources[k - 1] * columns + demands[k - 1] < resources[k] * columns + demands[k];
  if (increasing) return;
  std::vector<std::pair<std::int64_t, std::size_t>> keys(n);
  for (std::size_t k = 0; k < n; ++k) keys[k] = {resources[k] * columns + demands[k], k};
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 1; k < n; ++k) {
    if (keys[k].first == keys[k - 1].first)
      duplicate(std::max(keys[k].second, keys[k - 1].second),
                "also at position " + std::to_string(std::min(keys[k].second, keys[k - 1].second)));
  }
}

py::array_t<std::int32_t> PyProblem::AddLocals(const std::string& side_name,
                                               const py::handle& blocks_object,
                                               const std::string& domain,
                                               const py::handle& lower_object,
                                               const py::handle& upper_object,
                                               const py::object& names_object) {
  const Side side = ParseSide(side_name);
  const VarType type = ParseDomain(domain);
  const IndexArray blocks(blocks_object, "blocks");
  const std::size_t n = blocks.size();
  blocks.CheckRange(0, BlockCount(*problem_, side), std::string(SideName(side)) + " blocks");
  const DoubleArray lower(lower_object, "lower", static_cast<std::ptrdiff_t>(n));
  const DoubleArray upper(upper_object, "upper", static_cast<std::ptrdiff_t>(n));
  lower.CheckFinite(true);
  upper.CheckFinite(true);
  for (std::size_t k = 0; k < n; ++k) {
    if (lower[k] > upper[k])
      ThrowValue(At("lower", k) + " = " + FormatNumber(lower[k]) + " > " + At("upper", k) + " = " +
                 FormatNumber(upper[k]));
    CheckBinaryBounds(type, lower[k], upper[k], At("local", k) + ": ");
  }
  const std::vector<std::string> names = Names(names_object, n, "names");
  StructureChanged();
  problem_->Reserve(static_cast<std::size_t>(problem_->num_variables()) + n,
                    static_cast<std::size_t>(problem_->num_constraints()));
  py::array_t<std::int32_t> ids = Ids(n);
  std::int32_t* out = ids.mutable_data();
  for (std::size_t k = 0; k < n; ++k) {
    const BlockId owner{side, static_cast<int>(blocks[k])};
    out[k] = problem_->AddLocal(
        owner, Domain{lower[k], upper[k], type}, names.empty() ? std::string() : names[k]);
  }
  return ids;
}

py::array_t<std::int32_t> PyProblem::AddConstraints(const std::string& side_name,
                                                    const py::handle& blocks_object,
                                                    const py::handle& indptr,
                                                    const py::handle& indices,
                                                    const py::handle& data,
                                                    const py::handle& senses_object,
                                                    const py::handle& rhs_object,
                                                    const py::object& names_object) {
  const Side side = ParseSide(side_name);
  const CsrRows csr(indptr, indices, data, problem_->num_variables(), "A");
  const std::size_t rows = csr.rows();
  const IndexArray blocks(blocks_object, "blocks", static_cast<std::ptrdiff_t>(rows));
  blocks.CheckRange(0, BlockCount(*problem_, side), std::string(SideName(side)) + " blocks");
  const DoubleArray rhs(rhs_object, "rhs", static_cast<std::ptrdiff_t>(rows));
  rhs.CheckFinite();
  const std::vector<Sense> senses = ParseSenses(senses_object, rows);
  const std::vector<std::string> names = Names(names_object, rows, "names");
  StructureChanged();
  problem_->Reserve(static_cast<std::size_t>(problem_->num_variables()),
                    static_cast<std::size_t>(problem_->num_constraints()) + rows);
  py::array_t<std::int32_t> ids = Ids(rows);
  std::int32_t* out = ids.mutable_data();
  for (std::size_t k = 0; k < rows; ++k) {
    out[k] = problem_->AddConstraint(BlockId{side, static_cast<int>(blocks[k])},
                                     RowExpr(csr, k, 0.0),
                                     senses[k],
                                     rhs[k],
                                     names.empty() ? std::string() : names[k]);
  }
  return ids;
}

py::array_t<std::int32_t> PyProblem::AddLogTerms(const std::string& side_name,
                                                 const py::handle& blocks_object,
                                                 const py::handle& indptr,
                                                 const py::handle& indices,
                                                 const py::handle& data,
                                                 const py::handle& constants_object,
                                                 const py::handle& weights_object) {
  const Side side = ParseSide(side_name);
  const CsrRows csr(indptr, indices, data, problem_->num_variables(), "A");
  const std::size_t rows = csr.rows();
  const IndexArray blocks(blocks_object, "blocks", static_cast<std::ptrdiff_t>(rows));
  blocks.CheckRange(0, BlockCount(*problem_, side), std::string(SideName(side)) + " blocks");
  const DoubleArray constants(constants_object, "constants", static_cast<std::ptrdiff_t>(rows));
  const DoubleArray weights(weights_object, "weights", static_cast<std::ptrdiff_t>(rows));
  constants.CheckFinite();
  weights.CheckFinite();
  StructureChanged();
  py::array_t<std::int32_t> ids = Ids(rows);
  std::int32_t* out = ids.mutable_data();
  for (std::size_t k = 0; k < rows; ++k) {
    out[k] = problem_->AddLogTerm(
        BlockId{side, static_cast<int>(blocks[k])}, RowExpr(csr, k, constants[k]), weights[k]);
  }
  return ids;
}

void PyProblem::SetGlobal(const std::string& kind_name,
                          const std::string& side_name,
                          const py::handle& blocks_object,
                          const py::handle& indptr,
                          const py::handle& indices,
                          const py::handle& data,
                          const py::handle& constants_object,
                          double weight) {
  GlobalKind kind;
  if (kind_name == "max_min") {
    kind = GlobalKind::kMaxMin;
  } else if (kind_name == "min_max") {
    kind = GlobalKind::kMinMax;
  } else {
    ThrowValue("kind = '" + kind_name + "': expected 'max_min' or 'min_max'");
  }
  const Side side = ParseSide(side_name);
  const CsrRows csr(indptr, indices, data, problem_->num_variables(), "A");
  const std::size_t rows = csr.rows();
  const IndexArray blocks(blocks_object, "blocks", static_cast<std::ptrdiff_t>(rows));
  blocks.CheckRange(0, BlockCount(*problem_, side), std::string(SideName(side)) + " blocks");
  const DoubleArray constants(constants_object, "constants", static_cast<std::ptrdiff_t>(rows));
  constants.CheckFinite();
  if (!std::isfinite(weight)) ThrowValue("weight = " + FormatNumber(weight) + ": must be finite");
  std::vector<int> block_ids(rows);
  std::vector<LinearExpr> exprs(rows);
  for (std::size_t k = 0; k < rows; ++k) {
    block_ids[k] = static_cast<int>(blocks[k]);
    exprs[k] = RowExpr(csr, k, constants[k]);
  }
  StructureChanged();
  problem_->SetGlobalTerm(kind, side, std::move(block_ids), std::move(exprs), weight);
}

void PyProblem::AddConstant(double value) {
  CheckIdle();
  if (!std::isfinite(value)) ThrowValue("constant = " + FormatNumber(value) + ": must be finite");
  problem_->AddConstant(value);
}

void PyProblem::CheckIdle() const {
  if (solving_.load())
    throw std::runtime_error(
        "the problem is being solved in another thread: change it after solve() returns");
}

void PyProblem::CheckVariables(const IndexArray& vars) const {
  CheckIdle();
  vars.CheckRange(0, problem_->num_variables(), "variable ids");
}

void PyProblem::AddLinearCost(const py::handle& vars_object, const py::handle& coefs_object) {
  const IndexArray vars(vars_object, "vars");
  const DoubleArray coefs(coefs_object, "coefs", static_cast<std::ptrdiff_t>(vars.size()));
  CheckVariables(vars);
  coefs.CheckFinite();
  for (std::size_t k = 0; k < vars.size(); ++k)
    problem_->AddLinearCost(static_cast<VarId>(vars[k]), coefs[k]);
}

void PyProblem::SetLinearCost(const py::handle& vars_object, const py::handle& coefs_object) {
  const IndexArray vars(vars_object, "vars");
  const DoubleArray coefs(coefs_object, "coefs", static_cast<std::ptrdiff_t>(vars.size()));
  CheckVariables(vars);
  coefs.CheckFinite();
  for (std::size_t k = 0; k < vars.size(); ++k)
    problem_->SetLinearCost(static_cast<VarId>(vars[k]), coefs[k]);
}

void PyProblem::AddQuadraticCost(const py::handle& vars_object, const py::handle& coefs_object) {
  const IndexArray vars(vars_object, "vars");
  const DoubleArray coefs(coefs_object, "coefs", static_cast<std::ptrdiff_t>(vars.size()));
  CheckVariables(vars);
  coefs.CheckFinite();
  for (std::size_t k = 0; k < vars.size(); ++k)
    problem_->AddQuadraticCost(static_cast<VarId>(vars[k]), coefs[k]);
}

void PyProblem::SetQuadraticCost(const py::handle& vars_object, const py::handle& coefs_object) {
  const IndexArray vars(vars_object, "vars");
  const DoubleArray coefs(coefs_object, "coefs", static_cast<std::ptrdiff_t>(vars.size()));
  CheckVariables(vars);
  coefs.CheckFinite();
  for (std::size_t k = 0; k < vars.size(); ++k)
    problem_->SetQuadraticCost(static_cast<VarId>(vars[k]), coefs[k]);
}

void PyProblem::SetBounds(const py::handle& vars_object,
                          const py::handle& lower_object,
                          const py::handle& upper_object) {
  const IndexArray vars(vars_object, "vars");
  const auto n = static_cast<std::ptrdiff_t>(vars.size());
  const DoubleArray lower(lower_object, "lower", n);
  const DoubleArray upper(upper_object, "upper", n);
  CheckVariables(vars);
  lower.CheckFinite(true);
  upper.CheckFinite(true);
  for (std::size_t k = 0; k < vars.size(); ++k) {
    if (lower[k] > upper[k])
      ThrowValue("lower[" + std::to_string(k) + "] = " + FormatNumber(lower[k]) + " > upper[" +
                 std::to_string(k) + "] = " + FormatNumber(upper[k]) + " (variable " +
                 std::to_string(vars[k]) + ")");
  }
  for (std::size_t k = 0; k < vars.size(); ++k)
    problem_->SetBounds(static_cast<VarId>(vars[k]), lower[k], upper[k]);
}

void PyProblem::SetRhs(const py::handle& constraints_object, const py::handle& rhs_object) {
  CheckIdle();
  const IndexArray constraints(constraints_object, "constraints");
  const DoubleArray rhs(rhs_object, "rhs", static_cast<std::ptrdiff_t>(constraints.size()));
  constraints.CheckRange(0, problem_->num_constraints(), "constraint ids");
  rhs.CheckFinite();
  for (std::size_t k = 0; k < constraints.size(); ++k)
    problem_->SetRhs(static_cast<ConstraintId>(constraints[k]), rhs[k]);
}

void PyProblem::SetCoefficients(const py::handle& constraints_object,
                                const py::handle& vars_object,
                                const py::handle& coefs_object) {
  CheckIdle();
  const IndexArray constraints(constraints_object, "constraints");
  const auto n = static_cast<std::ptrdiff_t>(constraints.size());
  const IndexArray vars(vars_object, "vars", n);
  const DoubleArray coefs(coefs_object, "coefs", n);
  constraints.CheckRange(0, problem_->num_constraints(), "constraint ids");
  CheckVariables(vars);
  coefs.CheckFinite();
  for (std::size_t k = 0; k < constraints.size(); ++k) {
    const Constraint& c = problem_->constraint(static_cast<ConstraintId>(constraints[k]));
    const bool present = std::any_of(
        c.terms.begin(), c.terms.end(), [&](const Term& t) { return t.var == vars[k]; });
    if (!present)
      ThrowValue("vars[" + std::to_string(k) + "] = " + std::to_string(vars[k]) +
                 ": variable does not appear in constraint " + std::to_string(constraints[k]) +
                 " (a coefficient can change, not the constraint's variables)");
  }
  for (std::size_t k = 0; k < constraints.size(); ++k)
    problem_->SetCoefficient(
        static_cast<ConstraintId>(constraints[k]), static_cast<VarId>(vars[k]), coefs[k]);
}

void PyProblem::SetLogWeights(const py::handle& terms_object, const py::handle& weights_object) {
  CheckIdle();
  const IndexArray terms(terms_object, "terms");
  const DoubleArray weights(weights_object, "weights", static_cast<std::ptrdiff_t>(terms.size()));
  terms.CheckRange(0, static_cast<std::int64_t>(problem_->log_terms().size()), "log term ids");
  weights.CheckFinite();
  for (std::size_t k = 0; k < terms.size(); ++k)
    problem_->SetLogWeight(static_cast<int>(terms[k]), weights[k]);
}

void PyProblem::SetGlobalWeight(double weight) {
  CheckIdle();
  if (problem_->global_term().kind == GlobalKind::kNone)
    ThrowValue("set_global_weight: the problem has no max-min or min-max term");
  if (!std::isfinite(weight)) ThrowValue("weight = " + FormatNumber(weight) + ": must be finite");
  problem_->SetGlobalWeight(weight);
}

void PyProblem::SetGlobalCoefficients(const py::handle& rows_object,
                                      const py::handle& vars_object,
                                      const py::handle& coefs_object) {
  CheckIdle();
  const GlobalTerm& global = problem_->global_term();
  const IndexArray rows(rows_object, "rows");
  const auto n = static_cast<std::ptrdiff_t>(rows.size());
  const IndexArray vars(vars_object, "vars", n);
  const DoubleArray coefs(coefs_object, "coefs", n);
  rows.CheckRange(0, static_cast<std::int64_t>(global.exprs.size()), "rows of the global term");
  CheckVariables(vars);
  coefs.CheckFinite();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const LinearExpr& e = global.exprs[static_cast<std::size_t>(rows[k])];
    const bool present = std::any_of(
        e.terms.begin(), e.terms.end(), [&](const Term& t) { return t.var == vars[k]; });
    if (!present)
      ThrowValue("vars[" + std::to_string(k) + "] = " + std::to_string(vars[k]) +
                 ": variable does not appear in row " + std::to_string(rows[k]) +
                 " of the global term");
  }
  for (std::size_t k = 0; k < rows.size(); ++k)
    problem_->SetGlobalCoefficient(
        static_cast<int>(rows[k]), static_cast<VarId>(vars[k]), coefs[k]);
}

void PyProblem::SetGlobalConstants(const py::handle& rows_object,
                                   const py::handle& constants_object) {
  CheckIdle();
  const GlobalTerm& global = problem_->global_term();
  const IndexArray rows(rows_object, "rows");
  const DoubleArray constants(
      constants_object, "constants", static_cast<std::ptrdiff_t>(rows.size()));
  rows.CheckRange(0, static_cast<std::int64_t>(global.exprs.size()), "rows of the global term");
  constants.CheckFinite();
  for (std::size_t k = 0; k < rows.size(); ++k)
    problem_->SetGlobalConstant(static_cast<int>(rows[k]), constants[k]);
}

void PyProblem::Validate() const {
  std::string error;
  if (!problem_->Validate(&error)) throw ModelError(error);
}

py::dict PyProblem::Variables() const { return VariablesDict(*problem_); }

py::dict VariablesDict(const Problem& problem) {
  const Problem* problem_ = &problem;
  const auto n = static_cast<py::ssize_t>(problem_->num_variables());
  py::array_t<std::int32_t> matrix(n), resource(n), demand(n), side(n), block(n);
  py::array_t<double> lower(n), upper(n), linear(n), quadratic(n);
  py::array_t<std::int8_t> type(n);
  for (py::ssize_t v = 0; v < n; ++v) {
    const Variable var = problem_->variable(static_cast<VarId>(v));
    matrix.mutable_at(v) = var.matrix;
    resource.mutable_at(v) = var.resource;
    demand.mutable_at(v) = var.demand;
    side.mutable_at(v) = var.IsEntry() ? -1 : static_cast<int>(var.owner.side);
    block.mutable_at(v) = var.IsEntry() ? -1 : var.owner.index;
    lower.mutable_at(v) = var.domain.lower;
    upper.mutable_at(v) = var.domain.upper;
    linear.mutable_at(v) = var.linear_cost;
    quadratic.mutable_at(v) = var.quadratic_cost;
    type.mutable_at(v) = static_cast<std::int8_t>(var.domain.type);
  }
  py::dict out;
  out["matrix"] = matrix;
  out["resource"] = resource;
  out["demand"] = demand;
  out["side"] = side;
  out["block"] = block;
  out["lower"] = lower;
  out["upper"] = upper;
  out["linear_cost"] = linear;
  out["quadratic_cost"] = quadratic;
  out["type"] = type;
  return out;
}

namespace {
std::vector<double> FullAssignment(const Problem& problem, const py::handle& values_object) {
  const DoubleArray values(values_object, "values", problem.num_variables());
  values.CheckFinite();
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return out;
}
}  // namespace

double PyProblem::Evaluate(const py::handle& values) const {
  return problem_->EvaluateObjective(FullAssignment(*problem_, values));
}

py::dict PyProblem::Violation(const py::handle& values) const {
  const Problem::Violation v = problem_->MeasureViolation(FullAssignment(*problem_, values));
  py::dict out;
  out["max"] = v.Max();
  out["constraint"] = v.constraint;
  out["bound"] = v.bound;
  out["integrality"] = v.integrality;
  out["worst_constraint"] = v.worst_constraint;
  return out;
}

}  // namespace dede::python
