#include "dede/problem.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include "core/check.h"

namespace dede {
namespace {

std::uint64_t EntryHash(int matrix, int r, int d) {
  // splitmix64's finaliser over the three indices.
  std::uint64_t h = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(r)) << 32) ^
                    static_cast<std::uint32_t>(d) ^
                    (static_cast<std::uint64_t>(static_cast<std::uint32_t>(matrix)) << 56);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

const char* SideName(Side s) { return s == Side::kResource ? "resource" : "demand"; }

std::string BlockName(BlockId b) {
  return std::string(SideName(b.side)) + " " + std::to_string(b.index);
}

// Sets *slot and tells whether the value changed (a NaN always counts as a change).
bool Assign(double* slot, double value) {
  if (*slot == value) return false;
  *slot = value;
  return true;
}

}  // namespace

double Problem::Violation::Max() const { return std::max({constraint, bound, integrality}); }

Problem::Problem(int num_resources, int num_demands)
    : num_resources_(num_resources), num_demands_(num_demands) {
  DEDE_CHECK(num_resources >= 0 && num_demands >= 0);
}

void Problem::Touch(ChangeKind kind, int id) {
  ++revision_;
  // Bounded: past the cap the log starts over, and solvers further behind refresh everything.
  const std::size_t cap =
      std::max<std::size_t>(std::size_t{1} << 16, places_.size() + constraints_.size());
  if (changes_.size() >= cap) {
    changes_.clear();
    log_start_ = revision_;
    return;
  }
  changes_.push_back({kind, id});
}

void Problem::TouchStructure() {
  ++revision_;
  changes_.clear();
  log_start_ = revision_;
}

void Problem::SetObjectiveSense(ObjectiveSense sense) {
  sense_ = sense;
  TouchStructure();  // flips every cost's sign for the solvers, and the convexity checks
}

bool Problem::ChangesSince(std::uint64_t revision, Changes* changes) const {
  *changes = Changes();
  if (revision < log_start_ || revision > revision_) return false;
  for (std::size_t i = revision - log_start_; i < changes_.size(); ++i) {
    const Change& c = changes_[i];
    switch (c.kind) {
      case ChangeKind::kVariable:
        changes->variables.push_back(c.id);
        break;
      case ChangeKind::kConstraint:
        changes->constraints.push_back(c.id);
        break;
      case ChangeKind::kLogTerm:
        changes->log_terms.push_back(c.id);
        break;
      case ChangeKind::kGlobal:
        changes->global = true;
        break;
    }
  }
  for (auto* ids : {&changes->variables, &changes->constraints, &changes->log_terms}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  return true;
}

int Problem::AddAllocation(std::string name, Domain domain) {
  DEDE_CHECK(matrix_names_.size() < (1u << 15));
  if (domain.type == VarType::kBinary) domain = Domain::Binary();
  matrix_names_.push_back(std::move(name));
  matrix_domains_.push_back(domain);
  TouchStructure();
  return static_cast<int>(matrix_names_.size()) - 1;
}

VarId Problem::AddEntry(int matrix, int resource, int demand) {
  DEDE_CHECK(matrix >= 0 && matrix < num_matrices());
  DEDE_CHECK(resource >= 0 && resource < num_resources_);
  DEDE_CHECK(demand >= 0 && demand < num_demands_);
  if ((entry_count_ + 1) * 2 > entry_table_.size()) {
    // Grow to twice the size and re-insert (keys are read from places_).
    std::vector<VarId> old = std::move(entry_table_);
    entry_table_.assign(std::max<std::size_t>(64, old.size() * 2), -1);
    for (const VarId id : old) {
      if (id < 0) continue;
      const VarPlace& e = places_[static_cast<std::size_t>(id)];
      entry_table_[EntrySlot(e.matrix, e.a, e.b)] = id;
    }
  }
  const std::size_t slot = EntrySlot(matrix, resource, demand);
  DEDE_CHECK_MSG(entry_table_[slot] < 0, "duplicate allocation entry");
  const VarId id = num_variables();
  entry_table_[slot] = id;
  ++entry_count_;
  PushVariable({resource, demand, static_cast<std::int16_t>(matrix), VarType::kContinuous},
               matrix_domains_[matrix]);
  TouchStructure();
  return id;
}

void Problem::PushVariable(const VarPlace& place, const Domain& domain) {
  VarPlace p = place;
  p.type = domain.type;
  places_.push_back(p);
  lower_.push_back(domain.lower);
  upper_.push_back(domain.upper);
  linear_cost_.push_back(0.0);
  if (!quadratic_cost_.empty()) quadratic_cost_.push_back(0.0);
}

void Problem::Reserve(std::size_t variables,
                      std::size_t constraints,
                      std::size_t named_locals,
                      std::size_t named_constraints) {
  places_.reserve(variables);
  lower_.reserve(variables);
  upper_.reserve(variables);
  linear_cost_.reserve(variables);
  constraints_.reserve(constraints);
  local_names_.reserve(named_locals);
  constraint_names_.reserve(named_constraints);
}

VarId Problem::AddEntry(int matrix, int resource, int demand, const EntryImage& image) {
  const VarId id = AddEntry(matrix, resource, demand);
  if (!image.active()) return id;
  DEDE_CHECK_MSG(image.local < id, "an entry's image must be a variable added before it");
  if (image_local_.size() < places_.size()) {
    image_local_.reserve(places_.capacity());  // grows with the variables, not by doubling
    image_local_.resize(places_.size(), -1);
  }
  image_local_[static_cast<std::size_t>(id)] = image.local;
  if (image.scale != 1.0 || image.offset != 0.0 || std::signbit(image.offset)) {
    if (image_affine_.empty()) image_affine_.assign(places_.size(), {1.0, 0.0});
  }
  if (!image_affine_.empty()) {
    image_affine_.reserve(places_.capacity());
    image_affine_.resize(places_.size(), {1.0, 0.0});
    image_affine_[static_cast<std::size_t>(id)] = {image.scale, image.offset};
  }
  ++num_images_;
  return id;
}

// The slot holding (matrix, resource, demand), or the empty slot where it would go.
std::size_t Problem::EntrySlot(int matrix, int resource, int demand) const {
  const std::size_t mask = entry_table_.size() - 1;
  std::size_t slot = EntryHash(matrix, resource, demand) & mask;
  while (true) {
    const VarId id = entry_table_[slot];
    if (id < 0) return slot;
    const VarPlace& e = places_[static_cast<std::size_t>(id)];
    if (e.matrix == matrix && e.a == resource && e.b == demand) return slot;
    slot = (slot + 1) & mask;
  }
}

std::vector<VarId> Problem::AddDenseEntries(int matrix) {
  std::vector<VarId> ids;
  ids.reserve(static_cast<std::size_t>(num_resources_) * num_demands_);
  for (int r = 0; r < num_resources_; ++r)
    for (int d = 0; d < num_demands_; ++d) ids.push_back(AddEntry(matrix, r, d));
  return ids;
}

VarId Problem::Entry(int matrix, int resource, int demand) const {
  if (entry_table_.empty()) return -1;
  return entry_table_[EntrySlot(matrix, resource, demand)];
}

VarId Problem::AddLocal(BlockId owner, Domain domain, std::string name) {
  DEDE_CHECK(owner.index >= 0 &&
             owner.index < (owner.side == Side::kResource ? num_resources_ : num_demands_));
  if (domain.type == VarType::kBinary) domain = Domain::Binary();
  PushVariable({static_cast<std::int32_t>(owner.side), owner.index, -1, VarType::kContinuous},
               domain);
  if (!name.empty()) local_names_.emplace_back(num_variables() - 1, std::move(name));
  TouchStructure();
  return num_variables() - 1;
}

const std::string& Problem::variable_name(VarId v) const {
  static const std::string kNone;
  const auto it = std::lower_bound(
      local_names_.begin(),
      local_names_.end(),
      v,
      [](const std::pair<VarId, std::string>& named, VarId id) { return named.first < id; });
  return it != local_names_.end() && it->first == v ? it->second : kNone;
}

const std::string& Problem::constraint_name(ConstraintId c) const {
  static const std::string kNone;
  const auto it = std::lower_bound(constraint_names_.begin(),
                                   constraint_names_.end(),
                                   c,
                                   [](const std::pair<ConstraintId, std::string>& named,
                                      ConstraintId id) { return named.first < id; });
  return it != constraint_names_.end() && it->first == c ? it->second : kNone;
}

ConstraintId Problem::AddConstraint(
    BlockId block, const LinearExpr& expr, Sense sense, double rhs, std::string name) {
  DEDE_CHECK(block.index >= 0 &&
             block.index < (block.side == Side::kResource ? num_resources_ : num_demands_));
  Constraint c;
  c.block = block;
  c.sense = sense;
  c.rhs = rhs - expr.constant;
  // Merge duplicate variables so each appears once.
  std::vector<Term> terms = expr.terms;
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.var < b.var; });
  c.terms.reserve(terms.size());  // exact unless terms merge: no growth slack in a large model
  for (const Term& t : terms) {
    DEDE_CHECK(t.var >= 0 && t.var < num_variables());
    if (!c.terms.empty() && c.terms.back().var == t.var) {
      c.terms.back().coef += t.coef;
    } else {
      c.terms.push_back(t);
    }
  }
  constraints_.push_back(std::move(c));
  if (!name.empty()) constraint_names_.emplace_back(num_constraints() - 1, std::move(name));
  TouchStructure();
  return num_constraints() - 1;
}

void Problem::AddLinearCost(VarId var, double coef) {
  linear_cost_.at(static_cast<std::size_t>(var)) += coef;
  Touch(ChangeKind::kVariable, var);
}

double* Problem::QuadraticSlot(VarId var) {
  DEDE_CHECK(var >= 0 && var < num_variables());
  if (quadratic_cost_.empty()) {
    quadratic_cost_.reserve(places_.capacity());
    quadratic_cost_.assign(places_.size(), 0.0);
  }
  return &quadratic_cost_[static_cast<std::size_t>(var)];
}

void Problem::AddQuadraticCost(VarId var, double coef) {
  *QuadraticSlot(var) += coef;
  Touch(ChangeKind::kVariable, var);
}

int Problem::AddLogTerm(BlockId block, const LinearExpr& expr, double weight) {
  log_terms_.push_back({block, expr, weight});
  TouchStructure();
  return static_cast<int>(log_terms_.size()) - 1;
}

void Problem::SetGlobalTerm(GlobalKind kind,
                            Side side,
                            std::vector<int> blocks,
                            std::vector<LinearExpr> exprs,
                            double weight) {
  DEDE_CHECK(blocks.size() == exprs.size());
  global_.kind = kind;
  global_.side = side;
  global_.weight = weight;
  global_.blocks = std::move(blocks);
  global_.exprs = std::move(exprs);
  TouchStructure();
}

void Problem::SetRhs(ConstraintId c, double rhs) {
  if (Assign(&constraints_.at(c).rhs, rhs)) Touch(ChangeKind::kConstraint, c);
}

void Problem::SetCoefficient(ConstraintId c, VarId var, double coef) {
  for (Term& t : constraints_.at(c).terms) {
    if (t.var == var) {
      if (Assign(&t.coef, coef)) Touch(ChangeKind::kConstraint, c);
      return;
    }
  }
  DEDE_CHECK_MSG(false, "SetCoefficient: variable does not appear in the constraint");
}

void Problem::SetBounds(VarId var, double lower, double upper) {
  const std::size_t i = static_cast<std::size_t>(var);
  const bool lower_changed = Assign(&lower_.at(i), lower);
  if (Assign(&upper_.at(i), upper) || lower_changed) Touch(ChangeKind::kVariable, var);
}

void Problem::SetLinearCost(VarId var, double coef) {
  if (Assign(&linear_cost_.at(static_cast<std::size_t>(var)), coef))
    Touch(ChangeKind::kVariable, var);
}

void Problem::SetQuadraticCost(VarId var, double coef) {
  // A zero where every quadratic cost is zero changes nothing (and allocates nothing).
  if (quadratic_cost_.empty() && coef == 0.0) {
    DEDE_CHECK(var >= 0 && var < num_variables());
    return;
  }
  if (Assign(QuadraticSlot(var), coef)) Touch(ChangeKind::kVariable, var);
}

void Problem::SetLogWeight(int log_term, double weight) {
  if (Assign(&log_terms_.at(log_term).weight, weight)) Touch(ChangeKind::kLogTerm, log_term);
}

void Problem::SetGlobalWeight(double weight) {
  if (Assign(&global_.weight, weight)) Touch(ChangeKind::kGlobal, 0);
}

void Problem::SetGlobalCoefficient(int k, VarId var, double coef) {
  for (Term& t : global_.exprs.at(k).terms) {
    if (t.var == var) {
      if (Assign(&t.coef, coef)) Touch(ChangeKind::kGlobal, k);
      return;
    }
  }
  DEDE_CHECK_MSG(false, "SetGlobalCoefficient: variable does not appear in the expression");
}

void Problem::SetGlobalConstant(int k, double constant) {
  if (Assign(&global_.exprs.at(k).constant, constant)) Touch(ChangeKind::kGlobal, k);
}

bool Problem::HasIntegers() const {
  return std::any_of(places_.begin(), places_.end(), [](const VarPlace& p) {
    return p.type != VarType::kContinuous;
  });
}

bool Problem::BlockOf(VarId var, Side side, int* index) const {
  const VarPlace& p = places_[static_cast<std::size_t>(var)];
  if (p.matrix >= 0) {
    *index = side == Side::kResource ? p.a : p.b;
    return true;
  }
  if (static_cast<Side>(p.a) != side) return false;
  *index = p.b;
  return true;
}

bool Problem::Validate(std::string* error) const {
  const std::uint64_t validated = validated_.Load();
  if (validated == revision_) return true;
  Changes changes;
  const bool incremental = validated != ValidatedMark::kNever && ChangesSince(validated, &changes);
  if (!Check(incremental ? &changes : nullptr, error)) return false;
  validated_.Store(revision_);
  return true;
}

std::string Problem::VariableLabel(VarId id) const {
  const Variable v = variable(id);
  std::ostringstream out;
  out << "variable " << id;
  if (v.IsEntry()) {
    out << " (" << matrix_names_[v.matrix] << "[" << v.resource << "," << v.demand << "])";
  } else if (!variable_name(id).empty()) {
    out << " ('" << variable_name(id) << "', local to " << BlockName(v.owner) << ")";
  } else {
    out << " (local to " << BlockName(v.owner) << ")";
  }
  return out.str();
}

bool Problem::CheckImage(VarId id, std::string* error) const {
  const EntryImage im = image(id);
  if (!im.active()) return true;
  const Variable v = variable(id);
  std::string why;
  if (im.local >= num_variables() || IsEntry(im.local) ||
      !(variable(im.local).owner == BlockId::Demand(v.demand))) {
    why = VariableLabel(id) + " is declared the image of " + VariableLabel(im.local) +
          ", which is not a local of demand " + std::to_string(v.demand);
  } else if (!std::isfinite(im.scale) || im.scale == 0.0 || !std::isfinite(im.offset)) {
    why = VariableLabel(id) + " is declared the image " + std::to_string(im.offset) + " + " +
          std::to_string(im.scale) + " * " + VariableLabel(im.local) +
          ": the scale must be finite and non-zero, the offset finite";
  } else {
    return true;
  }
  if (error) *error = why;
  return false;
}

bool Problem::Check(const Changes* changes, std::string* error) const {
  auto fail = [&](const std::string& message) {
    if (error) *error = message;
    return false;
  };
  auto var_name = [&](VarId id) { return VariableLabel(id); };
  // `what` names the expression; it is called only to word a failure, since building the
  // name of each of millions of valid constraints cost more than checking them.
  auto check_expr = [&](const std::vector<Term>& terms, BlockId block, const auto& what) -> bool {
    for (const Term& t : terms) {
      if (t.var < 0 || t.var >= num_variables())
        return fail(what() + " references unknown variable " + std::to_string(t.var));
      if (!std::isfinite(t.coef))
        return fail(what() + " has a non-finite coefficient on " + var_name(t.var));
      int index = -1;
      if (!BlockOf(t.var, block.side, &index) || index != block.index)
        return fail(what() + " (" + BlockName(block) + ") references " + var_name(t.var) +
                    ", which does not belong to that block");
      if (block.side == Side::kDemand && num_images_ > 0 && image(t.var).active())
        return fail(what() + " (" + BlockName(block) + ") references " + var_name(t.var) +
                    ", whose demand side is the image of " + var_name(image(t.var).local) +
                    ": write it on that local");
    }
    return true;
  };

  const auto check_variable = [&](VarId id) {
    const Variable v = variable(id);
    if (std::isnan(v.domain.lower) || std::isnan(v.domain.upper) || v.domain.lower > v.domain.upper)
      return fail(var_name(id) + " has bounds [" + std::to_string(v.domain.lower) + ", " +
                  std::to_string(v.domain.upper) + "]");
    if (!std::isfinite(v.linear_cost) || !std::isfinite(v.quadratic_cost))
      return fail(var_name(id) + " has a non-finite cost");
    const bool maximize = sense_ == ObjectiveSense::kMaximize;
    if ((maximize && v.quadratic_cost > 0) || (!maximize && v.quadratic_cost < 0))
      return fail(var_name(id) + " has quadratic cost " + std::to_string(v.quadratic_cost) +
                  ", which is not convex in the objective's sense");
    return true;
  };
  const auto check_constraint = [&](ConstraintId c) {
    const Constraint& con = constraints_[c];
    const auto what = [&] {
      const std::string& name = constraint_name(c);
      return "constraint " + std::to_string(c) + (name.empty() ? "" : " '" + name + "'");
    };
    if (!check_expr(con.terms, con.block, what)) return false;
    if (std::isnan(con.rhs)) return fail(what() + " has a NaN right-hand side");
    return true;
  };
  const auto check_log_term = [&](std::size_t k) {
    const LogTerm& l = log_terms_[k];
    const auto what = [k] { return "log term " + std::to_string(k); };
    if (!check_expr(l.expr.terms, l.block, what)) return false;
    if (sense_ != ObjectiveSense::kMaximize || l.weight < 0)
      return fail(what() + " has weight " + std::to_string(l.weight) +
                  ": a log utility needs a maximize objective and a non-negative weight");
    return true;
  };
  if (changes != nullptr) {
    for (VarId id : changes->variables) {
      if (!check_variable(id)) return false;
    }
    for (ConstraintId c : changes->constraints) {
      if (!check_constraint(c)) return false;
    }
    for (int k : changes->log_terms) {
      if (!check_log_term(static_cast<std::size_t>(k))) return false;
    }
  } else {
    for (VarId id = 0; id < num_variables(); ++id) {
      if (!check_variable(id)) return false;
    }
    for (VarId id = 0; num_images_ > 0 && id < num_variables(); ++id) {
      if (!CheckImage(id, error)) return false;
    }
    for (ConstraintId c = 0; c < num_constraints(); ++c) {
      if (!check_constraint(c)) return false;
    }
    for (std::size_t k = 0; k < log_terms_.size(); ++k) {
      if (!check_log_term(k)) return false;
    }
  }
  if (global_.kind != GlobalKind::kNone && (changes == nullptr || changes->global)) {
    if (global_.kind == GlobalKind::kMaxMin && sense_ != ObjectiveSense::kMaximize)
      return fail("the max-min global term needs a maximize objective");
    if (global_.kind == GlobalKind::kMinMax && sense_ != ObjectiveSense::kMinimize)
      return fail("the min-max global term needs a minimize objective");
    if (global_.weight < 0)
      return fail("the global term has negative weight " + std::to_string(global_.weight));
    if (global_.blocks.empty()) return fail("the global term has no blocks");
    for (std::size_t k = 0; k < global_.blocks.size(); ++k) {
      if (k > 0 && global_.blocks[k] <= global_.blocks[k - 1])
        return fail("global term blocks must be strictly increasing (block " +
                    std::to_string(global_.blocks[k]) + ")");
      const BlockId b{global_.side, global_.blocks[k]};
      const int limit = b.side == Side::kResource ? num_resources_ : num_demands_;
      if (b.index < 0 || b.index >= limit)
        return fail("global term block " + std::to_string(b.index) + " is out of range");
      const auto what = [k] { return "global term expression " + std::to_string(k); };
      if (!check_expr(global_.exprs[k].terms, b, what)) return false;
    }
  }
  return true;
}

double Problem::EvaluateObjective(const std::vector<double>& values) const {
  return EvaluateObjective(values, VariableCosts(values, 0, num_variables()));
}

double Problem::VariableCosts(const std::vector<double>& values, VarId begin, VarId end) const {
  DEDE_CHECK(static_cast<int>(values.size()) == num_variables());
  DEDE_CHECK(0 <= begin && begin <= end && end <= num_variables());
  double total = 0.0;
  const std::size_t b = static_cast<std::size_t>(begin), e = static_cast<std::size_t>(end);
  // Without quadratic costs q is 0: 0 * v * v still turns an infinite value into NaN.
  const double* q = quadratic_cost_.empty() ? nullptr : quadratic_cost_.data();
  for (std::size_t i = b; i < e; ++i) {
    const double qi = q != nullptr ? q[i] : 0.0;
    total += linear_cost_[i] * values[i] + qi * values[i] * values[i];
  }
  return total;
}

double Problem::EvaluateObjective(const std::vector<double>& values, double variable_costs) const {
  DEDE_CHECK(static_cast<int>(values.size()) == num_variables());
  double total = objective_constant_ + variable_costs;
  auto eval = [&](const LinearExpr& e) { return e.Value(values); };
  for (const LogTerm& l : log_terms_) {
    const double arg = eval(l.expr);
    if (l.weight == 0) continue;
    total += arg > 0 ? l.weight * std::log(arg) : -kInfinity;
  }
  if (global_.kind != GlobalKind::kNone && !global_.exprs.empty()) {
    double best = global_.kind == GlobalKind::kMaxMin ? kInfinity : -kInfinity;
    for (const LinearExpr& e : global_.exprs) {
      const double value = eval(e);
      best = global_.kind == GlobalKind::kMaxMin ? std::min(best, value) : std::max(best, value);
    }
    total += global_.weight * best;
  }
  return total;
}

void Problem::Violation::Merge(const Violation& later) {
  bound = std::max(bound, later.bound);
  integrality = std::max(integrality, later.integrality);
  if (later.constraint > constraint) {
    constraint = later.constraint;
    worst_constraint = later.worst_constraint;
    worst_image = later.worst_image;
  }
}

Problem::Violation Problem::MeasureViolation(const std::vector<double>& values) const {
  return MeasureViolation(values, 0, num_variables(), 0, num_constraints());
}

Problem::Violation Problem::MeasureViolation(const std::vector<double>& values,
                                             VarId var_begin,
                                             VarId var_end,
                                             ConstraintId con_begin,
                                             ConstraintId con_end) const {
  DEDE_CHECK(static_cast<int>(values.size()) == num_variables());
  DEDE_CHECK(0 <= var_begin && var_begin <= var_end && var_end <= num_variables());
  DEDE_CHECK(0 <= con_begin && con_begin <= con_end && con_end <= num_constraints());
  Violation out;
  for (VarId id = var_begin; id < var_end; ++id) {
    const std::size_t i = static_cast<std::size_t>(id);
    const Domain d{lower_[i], upper_[i], places_[i].type};
    const double x = values[id];
    if (std::isnan(x)) {
      out.bound = kInfinity;
      continue;
    }
    out.bound = std::max({out.bound, d.lower - x, x - d.upper});
    if (d.IsIntegral()) out.integrality = std::max(out.integrality, std::abs(x - std::round(x)));
    if (num_images_ == 0) continue;
    // The image as the row entry - scale * local = offset.
    const EntryImage im = image(id);
    if (!im.active()) continue;
    double viol = std::abs(x - im.scale * values[im.local] - im.offset);
    if (std::isnan(viol)) viol = kInfinity;
    viol /= std::max(1.0, std::abs(im.offset));
    if (viol > out.constraint) {
      out.constraint = viol;
      out.worst_constraint = -1;
      out.worst_image = id;
    }
  }
  for (ConstraintId c = con_begin; c < con_end; ++c) {
    const Constraint& con = constraints_[c];
    double lhs = 0;
    for (const Term& t : con.terms) lhs += t.coef * values[t.var];
    double viol = 0;
    switch (con.sense) {
      case Sense::kLessEqual:
        viol = lhs - con.rhs;
        break;
      case Sense::kGreaterEqual:
        viol = con.rhs - lhs;
        break;
      case Sense::kEqual:
        viol = std::abs(lhs - con.rhs);
        break;
    }
    if (std::isnan(viol)) viol = kInfinity;
    viol /= std::max(1.0, std::abs(con.rhs));
    if (viol > out.constraint) {
      out.constraint = viol;
      out.worst_constraint = c;
      out.worst_image = -1;
    }
  }
  return out;
}

namespace {

// Order-dependent 64-bit digest of a sequence of words (not cryptographic: it tells processes
// that built different problems apart, it does not resist one built to collide). Four lanes
// take the words in turn, so that four multiplication chains run at once (one chain took about
// 100 ns an entry on transport); each step is a bijection of its lane, so a change in one word
// always changes its lane, and the lanes are mixed at the end.
class Digest {
 public:
  void Add(std::uint64_t w) {
    // The lanes rotate (registers, not an indexed array): lane a_ takes this word and becomes
    // d_, so the chain a word starts is continued four words later.
    const std::uint64_t h = std::rotl((a_ ^ w) * 0x9e3779b97f4a7c15ull, 29);
    a_ = b_, b_ = c_, c_ = d_, d_ = h;
    ++n_;
  }
  void Add(double v) { Add(std::bit_cast<std::uint64_t>(v)); }
  void Add(int v) { Add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(v))); }
  void Add(const BlockId& id) {
    Add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(id.index)) << 8 |
        static_cast<std::uint64_t>(id.side));
  }
  void Add(const Term& t) {
    Add(t.var);
    Add(t.coef);
  }
  void Add(const LinearExpr& e) {
    AddAll(e.terms);
    Add(e.constant);
  }
  template <typename T>
  void AddAll(const std::vector<T>& values) {
    Add(static_cast<std::uint64_t>(values.size()));
    for (const T& v : values) Add(v);
  }
  std::uint64_t value() const {
    std::uint64_t h = n_;
    for (std::uint64_t l : {a_, b_, c_, d_}) {
      h ^= l + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
      h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
      h ^= h >> 31;
    }
    return h;
  }

 private:
  std::uint64_t a_ = 1, b_ = 2, c_ = 3, d_ = 4;
  std::uint64_t n_ = 0;
};

}  // namespace

std::uint64_t Problem::Fingerprint() const {
  Digest d;
  d.Add(num_resources_), d.Add(num_demands_);
  d.Add(static_cast<int>(sense_)), d.Add(objective_constant_);
  d.Add(static_cast<std::uint64_t>(matrix_domains_.size()));
  for (const Domain& m : matrix_domains_)
    d.Add(m.lower), d.Add(m.upper), d.Add(static_cast<int>(m.type));
  d.Add(static_cast<std::uint64_t>(places_.size()));
  for (const VarPlace& p : places_) {
    d.Add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.a)) << 32 |
          static_cast<std::uint32_t>(p.b));
    d.Add(static_cast<std::uint64_t>(static_cast<std::uint16_t>(p.matrix)) << 8 |
          static_cast<std::uint64_t>(p.type));
  }
  d.AddAll(lower_), d.AddAll(upper_), d.AddAll(linear_cost_), d.AddAll(quadratic_cost_);
  d.Add(static_cast<std::uint64_t>(constraints_.size()));
  for (const Constraint& c : constraints_) {
    d.Add(c.block), d.Add(static_cast<int>(c.sense)), d.Add(c.rhs);
    d.AddAll(c.terms);
  }
  d.Add(static_cast<std::uint64_t>(log_terms_.size()));
  for (const LogTerm& l : log_terms_) d.Add(l.block), d.Add(l.expr), d.Add(l.weight);
  d.Add(static_cast<int>(global_.kind)), d.Add(static_cast<int>(global_.side));
  d.Add(global_.weight);
  d.AddAll(global_.blocks);
  d.Add(static_cast<std::uint64_t>(global_.exprs.size()));
  for (const LinearExpr& e : global_.exprs) d.Add(e);
  d.AddAll(image_local_);
  d.Add(static_cast<std::uint64_t>(image_affine_.size()));
  for (const auto& [scale, offset] : image_affine_) d.Add(scale), d.Add(offset);
  return d.value();
}

}  // namespace dede
