/// \file
/// Model of a separable resource-allocation problem (DeDe, OSDI 2025).
///
/// A problem has R resources and D demands. Variables are of two kinds:
///  * allocation entries: entry (r, d) of an allocation matrix. Every entry belongs to resource
///    block r and to demand block d; the ADMM engine keeps a resource-side copy x and a
///    demand-side copy z of it and drives them together (x = z).
///  * local variables: owned by exactly one block (slacks, epigraph copies, per-path flows that
///    map linearly onto a column's entries). They have no copy.
/// Constraints belong to one block and may only reference that block's variables: a resource
/// constraint references entries of its row (and the row's locals), a demand constraint
/// references entries of its column (and the column's locals).
///
/// An entry may be declared the affine image of a local of its demand block (EntryImage): its
/// value is then offset + scale * local. This is the row entry - scale * local = offset, kept
/// as one index per entry instead of a constraint (a path model's entries each carry the flow
/// of the one path through their link: millions of two-term rows otherwise). On the demand side
/// such an entry is defined by its local alone, so demand constraints, log terms and demand-side
/// global expressions are written on the local, not on the entry.
///
/// Objective = constant + sum of per-variable linear and quadratic terms + per-block weighted
/// logarithms of linear expressions + at most one global term: weight * min_b e_b (max-min) or
/// weight * max_b e_b (min-max) over per-block linear expressions e_b of one side.
///
/// Parameters (right-hand sides, bounds, costs, coefficients, log and global weights) can be
/// changed between solves with the Set* methods; the structure (variables, constraints, which
/// coefficients are non-zero) is fixed once a solver has been built on the problem.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace dede {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

enum class VarType : std::uint8_t { kContinuous, kInteger, kBinary };

/// Bounds and integrality of a variable. Binary forces bounds [0, 1].
struct Domain {
  double lower = 0.0;
  double upper = kInfinity;
  VarType type = VarType::kContinuous;

  static Domain NonNegative() { return {0.0, kInfinity, VarType::kContinuous}; }
  static Domain Free() { return {-kInfinity, kInfinity, VarType::kContinuous}; }
  static Domain Box(double lower, double upper) { return {lower, upper, VarType::kContinuous}; }
  static Domain Integer(double lower = -kInfinity, double upper = kInfinity) {
    return {lower, upper, VarType::kInteger};
  }
  static Domain Binary() { return {0.0, 1.0, VarType::kBinary}; }
  bool IsIntegral() const { return type != VarType::kContinuous; }
};

enum class Side : std::uint8_t { kResource, kDemand };
enum class Sense : std::uint8_t { kLessEqual, kEqual, kGreaterEqual };
enum class ObjectiveSense : std::uint8_t { kMinimize, kMaximize };

struct BlockId {
  Side side = Side::kResource;
  int index = 0;
  static BlockId Resource(int r) { return {Side::kResource, r}; }
  static BlockId Demand(int d) { return {Side::kDemand, d}; }
  friend bool operator==(const BlockId&, const BlockId&) = default;
};

using VarId = int;
using ConstraintId = int;

struct Term {
  VarId var = -1;
  double coef = 0.0;
};

/// sum_i coef_i * var_i + constant.
struct LinearExpr {
  std::vector<Term> terms;
  double constant = 0.0;

  LinearExpr& Add(VarId var, double coef) {
    terms.push_back({var, coef});
    return *this;
  }
  /// constant + sum coef * values[var], for a full assignment indexed by VarId.
  double Value(const std::vector<double>& values) const {
    double v = constant;
    for (const Term& t : terms) v += t.coef * values[t.var];
    return v;
  }
};

/// entry = offset + scale * local (see the header comment); local < 0: no image.
struct EntryImage {
  VarId local = -1;
  double scale = 1.0;
  double offset = 0.0;
  bool active() const { return local >= 0; }
};

/// One variable as the model sees it. Problem::variable assembles it from the problem's
/// compact storage: a value, not a reference into the problem.
struct Variable {
  Domain domain;
  /// For allocation entries: the entry's matrix, resource and demand. For locals: matrix = -1,
  /// owner is the owning block.
  int matrix = -1;
  int resource = -1;
  int demand = -1;
  BlockId owner;
  double linear_cost = 0.0;     ///< c in c * v
  double quadratic_cost = 0.0;  ///< q in q * v^2
  // A local's name is Problem::variable_name (kept apart: most variables are unnamed entries).
  bool IsEntry() const { return matrix >= 0; }
};

struct Constraint {
  BlockId block;
  std::vector<Term> terms;  ///< each var appears at most once
  Sense sense = Sense::kLessEqual;
  double rhs = 0.0;
  // The name a constraint was given is Problem::constraint_name (kept apart: a path model has
  // millions of unnamed coupling rows).
};

/// weight * log(expr), attached to one block; expr references only that block's variables.
struct LogTerm {
  BlockId block;
  LinearExpr expr;
  double weight = 1.0;
};

enum class GlobalKind : std::uint8_t { kNone, kMaxMin, kMinMax };

/// weight * min_b expr_b (kMaxMin, needs a maximize objective) or weight * max_b expr_b
/// (kMinMax, needs a minimize objective) over blocks of one side. Each participating block has
/// exactly one expression over its own variables.
struct GlobalTerm {
  GlobalKind kind = GlobalKind::kNone;
  Side side = Side::kDemand;
  double weight = 1.0;
  std::vector<int> blocks;        ///< block indices on `side`, increasing
  std::vector<LinearExpr> exprs;  ///< exprs[k] belongs to blocks[k]
};

class Problem {
 public:
  Problem(int num_resources, int num_demands);

  int num_resources() const { return num_resources_; }
  int num_demands() const { return num_demands_; }

  // ---- variables -------------------------------------------------------------------------
  /// Declares an allocation matrix (a family of entries with one domain). Returns its id.
  int AddAllocation(std::string name, Domain domain);
  /// Adds entry (resource, demand) of `matrix`. Aborts on a duplicate or out-of-range index.
  VarId AddEntry(int matrix, int resource, int demand);
  /// The same, its value the image offset + scale * image.local of a local of demand block
  /// `demand` (added before it). Validate() checks the local's block, a finite non-zero scale
  /// and a finite offset. The image is structure: fixed once a solver is built.
  VarId AddEntry(int matrix, int resource, int demand, const EntryImage& image);
  /// Adds all R x D entries of `matrix` (dense); returns ids in row-major order.
  std::vector<VarId> AddDenseEntries(int matrix);
  /// The entry's id, or -1 if absent.
  VarId Entry(int matrix, int resource, int demand) const;
  /// A variable owned by one block only.
  VarId AddLocal(BlockId owner, Domain domain, std::string name = "");

  /// Room for this many variables and constraints in all, of which this many locals and
  /// constraints will have names (a hint: a model built by many Add* calls otherwise grows by
  /// doubling, and can hold up to twice the memory it uses).
  void Reserve(std::size_t variables,
               std::size_t constraints,
               std::size_t named_locals = 0,
               std::size_t named_constraints = 0);

  // ---- constraints -----------------------------------------------------------------------
  /// Adds expr (sense) rhs to `block`. expr.constant is moved to the right-hand side.
  ConstraintId AddConstraint(
      BlockId block, const LinearExpr& expr, Sense sense, double rhs, std::string name = "");
  ConstraintId AddResourceConstraint(int r, const LinearExpr& e, Sense s, double rhs) {
    return AddConstraint(BlockId::Resource(r), e, s, rhs);
  }
  ConstraintId AddDemandConstraint(int d, const LinearExpr& e, Sense s, double rhs) {
    return AddConstraint(BlockId::Demand(d), e, s, rhs);
  }

  // ---- objective -------------------------------------------------------------------------
  void SetObjectiveSense(ObjectiveSense sense);
  void AddLinearCost(VarId var, double coef);
  void AddQuadraticCost(VarId var, double coef);  ///< coef * var^2
  void AddConstant(double value) { objective_constant_ += value; }
  /// weight * log(expr). Needs a maximize objective with weight >= 0 (concave utility).
  int AddLogTerm(BlockId block, const LinearExpr& expr, double weight);
  /// weight * min over blocks of exprs (maximize) / weight * max (minimize). One per problem.
  void SetGlobalTerm(GlobalKind kind,
                     Side side,
                     std::vector<int> blocks,
                     std::vector<LinearExpr> exprs,
                     double weight = 1.0);

  // ---- parameters: change between solves, no rebuild ----------------------------------------
  void SetRhs(ConstraintId c, double rhs);
  void SetCoefficient(ConstraintId c, VarId var, double coef);  ///< var must already appear in c
  void SetBounds(VarId var, double lower, double upper);
  void SetLinearCost(VarId var, double coef);
  void SetQuadraticCost(VarId var, double coef);
  void SetLogWeight(int log_term, double weight);
  void SetGlobalWeight(double weight);
  /// Coefficient of var in global expression k (k indexes GlobalTerm::blocks); var must appear.
  void SetGlobalCoefficient(int k, VarId var, double coef);
  void SetGlobalConstant(int k, double constant);
  /// Incremented by every Add* call and every Set* call that changes a value (setting the
  /// value a parameter already has is not a change): solvers use it to notice changes.
  std::uint64_t revision() const { return revision_; }
  /// What the parameter changes since an earlier revision() touched, each item once, in
  /// increasing order.
  struct Changes {
    std::vector<VarId> variables;           ///< bounds and costs
    std::vector<ConstraintId> constraints;  ///< right-hand sides and coefficients
    std::vector<int> log_terms;             ///< weights
    bool global = false;                    ///< the global term's weight, coefficients, constants
  };
  /// Fills *changes with what changed after `revision` and returns true; returns false when
  /// that is not known: a structural change (Add*, SetGlobalTerm, SetObjectiveSense) came
  /// after it, or the change log, which holds at most max(65,536, variables + constraints)
  /// changes, no longer reaches back to it. The caller then takes everything as changed.
  bool ChangesSince(std::uint64_t revision, Changes* changes) const;

  // ---- inspection --------------------------------------------------------------------------
  ObjectiveSense objective_sense() const { return sense_; }
  double objective_constant() const { return objective_constant_; }
  int num_variables() const { return static_cast<int>(places_.size()); }
  int num_constraints() const { return static_cast<int>(constraints_.size()); }
  int num_matrices() const { return static_cast<int>(matrix_names_.size()); }
  /// Variable v, assembled (by value: the problem stores its fields apart, see places_).
  Variable variable(VarId v) const {
    const std::size_t i = static_cast<std::size_t>(v);
    const VarPlace& place = places_[i];
    Variable out;
    out.domain = {lower_[i], upper_[i], place.type};
    if (place.matrix >= 0) {
      out.matrix = place.matrix;
      out.resource = place.a;
      out.demand = place.b;
      out.owner = BlockId::Resource(place.a);
    } else {
      out.owner = {static_cast<Side>(place.a), place.b};
    }
    out.linear_cost = linear_cost_[i];
    out.quadratic_cost = quadratic_cost_.empty() ? 0.0 : quadratic_cost_[i];
    return out;
  }
  bool IsEntry(VarId v) const { return places_[static_cast<std::size_t>(v)].matrix >= 0; }
  /// The entry's image (AddEntry with an EntryImage), or an inactive one.
  EntryImage image(VarId v) const {
    const std::size_t i = static_cast<std::size_t>(v);
    if (i >= image_local_.size() || image_local_[i] < 0) return {};
    if (image_affine_.empty()) return {image_local_[i], 1.0, 0.0};
    return {image_local_[i], image_affine_[i].first, image_affine_[i].second};
  }
  std::size_t num_images() const { return num_images_; }
  const Constraint& constraint(ConstraintId c) const { return constraints_[c]; }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const std::vector<LogTerm>& log_terms() const { return log_terms_; }
  const GlobalTerm& global_term() const { return global_; }
  const std::string& matrix_name(int m) const { return matrix_names_[m]; }
  /// The name a local was given (AddLocal), or "".
  const std::string& variable_name(VarId v) const;
  /// The name a constraint was given (AddConstraint), or "".
  const std::string& constraint_name(ConstraintId c) const;
  const Domain& matrix_domain(int m) const { return matrix_domains_[m]; }
  bool HasIntegers() const;

  /// The block that owns the variable on `side`: entries belong to both sides, locals to one.
  /// Returns false if the variable is not visible from `side`.
  bool BlockOf(VarId var, Side side, int* index) const;

  /// True if the problem is well formed and convex in the declared sense. Otherwise *error
  /// names the offending item, e.g. "constraint 'cap[3]' (resource 3) references variable 7,
  /// which belongs to demand 2". After a successful validation only the items changed since
  /// are checked again (ChangesSince): a round that sets 30,000 right-hand sides of a
  /// problem with 1.5M constraints re-checks those 30,000.
  bool Validate(std::string* error) const;

  /// A 64-bit digest of the problem as a solver sees it: its shape, the objective's sense and
  /// constant, every variable's place, domain and costs, every constraint, log term and entry
  /// image, and the global term (not the names). Problems built alike, on any machine of the
  /// same byte order, get the same digest; under mpirun the engine compares the processes'
  /// digests before they solve together. One pass over the model.
  std::uint64_t Fingerprint() const;

  /// Objective value (user's sense) of a full assignment indexed by VarId. Log of a
  /// non-positive argument gives -inf.
  double EvaluateObjective(const std::vector<double>& values) const;
  /// The objective's per-variable part (linear and quadratic costs, in the problem's sense)
  /// over variables [begin, end), and the objective given that part summed over all variables:
  /// for callers that split the sum over threads.
  double VariableCosts(const std::vector<double>& values, VarId begin, VarId end) const;
  double EvaluateObjective(const std::vector<double>& values, double variable_costs) const;
  /// Largest violation over constraints and bounds (absolute, or relative to |rhs| when
  /// |rhs| > 1), and the largest distance from an integer for integral variables. An entry's
  /// image counts as the constraint entry - scale * local = offset.
  struct Violation {
    double constraint = 0.0;  ///< constraints and entry images
    double bound = 0.0;
    double integrality = 0.0;
    int worst_constraint = -1;  ///< -1 when the worst is an image (worst_image) or none
    VarId worst_image = -1;     ///< the entry whose image is violated most, if it is the worst
    double Max() const;
    /// Folds in the violation of a later range: equal maxima keep the earlier worst constraint,
    /// so ranges merged in order give what one pass over them gives.
    void Merge(const Violation& later);
  };
  Violation MeasureViolation(const std::vector<double>& values) const;
  /// The same over variables [var_begin, var_end) and constraints [con_begin, con_end) only,
  /// for callers that split the check over threads.
  Violation MeasureViolation(const std::vector<double>& values,
                             VarId var_begin,
                             VarId var_end,
                             ConstraintId con_begin,
                             ConstraintId con_end) const;

 private:
  enum class ChangeKind : std::uint8_t { kVariable, kConstraint, kLogTerm, kGlobal };
  struct Change {
    ChangeKind kind;
    int id;
  };
  // The revision of the last successful validation; copies of a problem carry it along.
  class ValidatedMark {
   public:
    static constexpr std::uint64_t kNever = ~std::uint64_t{0};
    ValidatedMark() = default;
    ValidatedMark(const ValidatedMark& other) : value_(other.Load()) {}
    ValidatedMark& operator=(const ValidatedMark& other) {
      value_.store(other.Load(), std::memory_order_relaxed);
      return *this;
    }
    std::uint64_t Load() const { return value_.load(std::memory_order_relaxed); }
    void Store(std::uint64_t v) const { value_.store(v, std::memory_order_relaxed); }

   private:
    mutable std::atomic<std::uint64_t> value_{kNever};
  };

  // A parameter change: one revision, logged.
  void Touch(ChangeKind kind, int id);
  // A structural change: one revision, and the log starts over.
  void TouchStructure();
  // Checks every item (changes == nullptr) or only the changed ones.
  bool Check(const Changes* changes, std::string* error) const;
  bool CheckImage(VarId id, std::string* error) const;
  // "variable 7 (x[3,2])", "variable 9 ('f', local to demand 2)": for error messages.
  std::string VariableLabel(VarId id) const;

  int num_resources_;
  int num_demands_;
  ObjectiveSense sense_ = ObjectiveSense::kMinimize;
  double objective_constant_ = 0.0;
  std::vector<std::string> matrix_names_;
  std::vector<Domain> matrix_domains_;
  // The variables, a structure of arrays by VarId (36 bytes a variable; an array of
  // Variable took 64): where each sits, its bounds and linear cost, and its quadratic cost
  // only once one is non-zero.
  struct VarPlace {
    std::int32_t a = -1;       // an entry's resource; a local's owner side (0, 1)
    std::int32_t b = -1;       // an entry's demand; a local's owner index
    std::int16_t matrix = -1;  // -1: a local (AddAllocation allows fewer than 2^15 matrices)
    VarType type = VarType::kContinuous;
  };
  std::vector<VarPlace> places_;
  std::vector<double> lower_, upper_, linear_cost_;
  std::vector<double> quadratic_cost_;  // empty while every quadratic cost is 0
  void PushVariable(const VarPlace& place, const Domain& domain);
  // Variable var's quadratic cost, the array allocated on the first one.
  double* QuadraticSlot(VarId var);
  std::vector<Constraint> constraints_;
  std::vector<LogTerm> log_terms_;
  GlobalTerm global_;
  // (matrix, resource, demand) -> entry: open addressing over the entries' VarIds, the key
  // read back from places_ (4 bytes a slot, at most half full; no copy of the key).
  std::vector<VarId> entry_table_;
  // Entry images, by VarId: the local (-1: none), sized on the first image; scale and offset
  // only once an image other than 1 * local + 0 appears (4 bytes a variable for a path model).
  std::vector<VarId> image_local_;
  std::vector<std::pair<double, double>> image_affine_;
  std::size_t num_images_ = 0;
  std::vector<std::pair<VarId, std::string>> local_names_;              // by increasing VarId
  std::vector<std::pair<ConstraintId, std::string>> constraint_names_;  // by increasing id
  std::size_t entry_count_ = 0;
  std::size_t EntrySlot(int matrix, int resource, int demand) const;
  std::uint64_t revision_ = 0;
  std::vector<Change> changes_;  // changes_[i] made revision log_start_ + i + 1
  std::uint64_t log_start_ = 0;
  ValidatedMark validated_;
};

}  // namespace dede
