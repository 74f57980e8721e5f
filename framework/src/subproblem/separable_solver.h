// Fast exact solvers for separable blocks: no row ("clip") or one row ("one_row").
//
// Both reduce to per-variable terms
//   f_i(v) = (h_i / 2) v^2 + g_i v - sum_k w_k log(alpha_k v + beta_k),   lo_i <= v <= hi_i,
// with h_i = 2 q_i + p_i and g_i = c_i - p_i t_i, plus at most one row a'v (sense) rhs that is
// handled through its Lagrange multiplier lambda: every variable then minimizes
// f_i(v) + lambda a_i v on its own, and lambda is found by a one-dimensional search.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"

namespace dede::internal {

// ---- helpers shared by every block solver and the tests ----------------------------------

// The block objective at v in the minimization form of block_problem.h (constants included).
// +infinity when a log term with positive weight has a non-positive argument.
double EvaluateBlockObjective(const BlockProblem& problem, const std::vector<double>& v);

// Largest absolute violation of a bound or a row at v; 0 when v is feasible. Integrality is
// not measured. NaN entries count as infinite violation.
double MaxBlockViolation(const BlockProblem& problem, const std::vector<double>& v);

// As MaxBlockViolation, but each row's violation is divided by max(1, |rhs| + sum_k |a_k v_k|),
// so rows with large coefficients are held to the same relative accuracy as unit rows.
double ScaledBlockViolation(const BlockProblem& problem, const std::vector<double>& v);

// True if variable i is strictly convex through its own terms: q_i + p_i / 2 > 0 or a
// one-variable log term with positive weight and non-zero coefficient.
std::vector<std::uint8_t> StrictlyConvexVariables(const BlockProblem& problem);

// ---- the separable core -------------------------------------------------------------------

// Solves min sum_i f_i(v_i) s.t. (optional single row), lo <= v <= hi exactly. Reused by the
// log solver, which shifts the linear terms and needs the sensitivity of the solution.
class SeparableCore {
 public:
  // Takes the structure of `structure`. Every log term must have at most one variable, except
  // `skip_log` (an index into structure.logs, or -1), which the caller handles itself. The
  // block may have at most one row. Returns false and sets *error otherwise.
  bool Init(const BlockProblem& structure, int skip_log, std::string* error);

  // Reloads bounds, curvature, log terms and the row (call when problem.revision changed).
  void LoadParameters(const BlockProblem& problem);
  // Reloads g = c - p t (every solve), t from problem.prox_target or from `target` (num_vars
  // values: the engine's flat arrays, which the block's problem then need not copy).
  void LoadLinear(const BlockProblem& problem) { LoadLinear(problem, problem.prox_target.data()); }
  void LoadLinear(const BlockProblem& problem, const double* target);
  // g_i, writable: the log solver adds its shift -theta * a_i before calling Solve.
  std::vector<double>& linear() { return g_; }
  // A compact core (LoadCompact: one row, unit coefficients, one curvature and one pair of
  // bounds) holds no g of its own: LoadLinear and Solve use `buffer` (num_vars values, set
  // between LoadParameters and each LoadLinear; nullptr after the solve).
  bool compact() const { return compact_; }
  // Prefetches the arrays a solve reads first (see BlockSolver::Prefetch).
  void Prefetch() const {
    if (compact_) return;
    for (const std::vector<double>* a : {&g_, &rq_a_, &rq_hinv_, &rq_lo_, &rq_hi_})
      __builtin_prefetch(a->data());
  }
  void UseLinearBuffer(double* buffer) { linear_buffer_ = buffer; }

  // Solves with the current parameters. *v must have num_vars entries (its content is not
  // used). On kOptimal, multiplier() and inverse_curvature() describe the solution.
  BlockStatus Solve(double tolerance, std::vector<double>* v) {
    v->resize(static_cast<std::size_t>(n_));
    return Solve(tolerance, v->data());
  }
  // The same into out[0 .. num_vars), which may be partly written when the status is not
  // kOptimal.
  BlockStatus Solve(double tolerance, double* out);

  int num_vars() const { return n_; }
  bool has_row() const { return has_row_; }
  // Row multiplier lambda (>= 0 for <=, <= 0 for >=), 0 without a row.
  double multiplier() const { return lambda_; }
  // True if the row restricts the solution (equality, or lambda != 0).
  bool row_active() const { return row_active_; }
  // 1 / f_i''(v_i) for variables strictly inside their bounds, 0 for variables at a bound
  // (and for zero-curvature variables splitting the row's slack).
  double inverse_curvature(int i) const { return inv_curv_[i]; }
  // d(a'v)/dtheta >= 0 when the linear terms move by -theta a on the variables `index` (with
  // coefficients `coef`) and the row, if active, stays tight:
  //   sum a_i^2 d_i - (sum a_i r_i d_i)^2 / sum r_i^2 d_i,   d_i = inverse_curvature(i).
  // The sensitivity the nested searches (log, two_row) take their Newton steps from.
  double Sensitivity(const std::vector<int>& index, const std::vector<double>& coef) const;
  // Row coefficient of variable i (0 if not in the row).
  double row_coef(int i) const { return row_coef_dense_[i]; }
  const std::string& last_error() const { return error_; }
  // Whether Solve records inverse_curvature() (and so Sensitivity): the nested searches need
  // it; the plain one-row solver does not, and skips a write per variable. On by default.
  void set_track_curvature(bool on) { track_curvature_ = on; }
  // Tests: false runs the general loops also where a specialised one applies (call before
  // LoadParameters). The results must be bitwise the same.
  void set_shape_specialization(bool on) { specialize_ = on; }

 private:
  enum class Kind : std::uint8_t { kQuadratic, kLinear, kLog };
  enum class State : std::uint8_t { kLower, kUpper, kFree, kTie, kEmpty };
  struct VarLog {
    double alpha, beta, weight;
  };
  struct RowEval {
    double minus = 0.0, plus = 0.0;  // left / right limits of the row activity r(lambda)
    double slope = 0.0;              // r'(lambda) away from breakpoints
    bool unbounded = false;          // +inf and -inf terms at once: the Lagrangian is unbounded
  };

  double Derivative(int i, double gg, double x) const;
  double Curvature(int i, double x) const;
  // argmin over [lo_i, hi_i] of f_i(v) + mu v, with gg = g_i + mu.
  double SolveVar(int i, double gg, State* state) const;
  double SolveLogVar(int i, double gg, State* state) const;
  // Activity of the row when every row variable minimizes its Lagrangian term at lambda.
  // During a solve whose row covers every variable in order (identity_row_, no curvature
  // record), it also writes those minimizers into the solution (eval_out_): what FinishRow
  // would write at the same lambda, so FinishRow skips an accepted evaluation's pass.
  RowEval EvalRow(double lambda) const;
  void CollectBreakpoints(double lo, double hi, std::vector<double>* out) const;
  // Sets v for the row variables at the final multiplier. Zero-curvature variables that are
  // indifferent at lambda move (least first from the clip choice) so that a'v lands in
  // [lo_target, hi_target].
  // a'v over the row's variables.
  double RowActivity(const double* v) const;
  void FinishRow(double lambda, double lo_target, double hi_target, double* v);
  BlockStatus SolveRow(double tolerance, double* v);
  // SolveRow's search for the row's multiplier: the row's target activity, the tolerances, and
  // the multiplier's bracket [lo, hi] that its phases narrow in turn. Each phase returns the
  // solve's status when it settles it, nothing to go on.
  struct RowSearch {
    double target = 0.0, scale = 1.0, tol_r = 0.0, tol_exact = 0.0;
    double lo = 0.0, hi = 0.0;
    double lambda = 0.0;         // the multiplier a Newton search found
    bool from_zero = true;       // whether the search goes on from lambda = 0
    bool zero_excluded = false;  // whether the bracket excludes lambda = 0
  };
  std::optional<BlockStatus> StartRowSearch(double tolerance, RowSearch* s);
  std::optional<BlockStatus> SolveRowWarm(RowSearch* s, double* v);
  std::optional<BlockStatus> SolveRowFromZero(RowSearch* s, double* v);
  std::optional<BlockStatus> SolveRowAtBreakpoint(RowSearch* s, std::size_t* first, double* v);
  BlockStatus RowNewtonBetween(RowSearch* s, double* best_f);
  bool CombineRowEnds(const RowSearch& s, double tolerance, double* v);
  // TryWarmNewton within s's bracket, toward its target.
  bool RowNewton(double from, const RowEval* at_from, int max_one_sided, RowSearch* s);
  // Semismooth Newton on r(lambda) = rhs from `start`. Returns false to fall back to
  // breakpoints, with [*lambda_lo, *lambda_hi] narrowed to what the trial evaluations proved.
  // at_start: the evaluation at `start` if already known (else nullptr). Gives up once
  // max_one_sided points in a row from the start lie on the start's side of the crossing.
  bool TryWarmNewton(double start,
                     const RowEval* at_start,
                     double rhs,
                     double tol_r,
                     double tol_exact,
                     double* lambda_lo,
                     double* lambda_hi,
                     double* lambda,
                     int max_one_sided);
  void LoadRow(const BlockRow& row);
  // The per-variable arrays of the general case (sized at the first LoadParameters that needs
  // them, so a compact block never holds them).
  void AllocateFull();
  // A row over every variable in order with unit coefficients, one curvature, one pair of
  // bounds and no logs (transport, path flows), for a solver that needs no curvature record:
  // loads the scalars, releases the per-variable arrays and returns true. The loops are the
  // specialised ones below, so the results are bitwise those of the general load.
  bool LoadCompact(const BlockProblem& problem);

  // One-variable logs per variable, CSR: log_source_[log_source_begin_[i] ..] index
  // BlockProblem::logs (fixed structure); logs_[log_begin_[i] ..] are the active ones
  // (positive weight, non-zero coefficient) of the current parameters.
  std::vector<int> log_source_begin_, log_source_;
  std::vector<int> log_begin_;
  std::vector<VarLog> logs_;
  std::vector<double> h_, g_, lo_, hi_, dom_lo_, dom_hi_;
  std::vector<Kind> kind_;
  std::vector<double> inv_curv_;

  bool has_row_ = false;
  Sense sense_ = Sense::kLessEqual;
  double rhs_ = 0.0;
  std::vector<int> row_var_;            // variables with a non-zero row coefficient
  std::vector<double> row_a_;           // their coefficients
  std::vector<double> row_coef_dense_;  // per variable, 0 if absent
  std::vector<int> row_quadratic_;      // positions in row_var_ of kQuadratic variables
  std::vector<int> row_special_;        // positions of kLinear and kLog variables
  // Per kQuadratic row position (same order as row_quadratic_), structure of arrays for the
  // hot loop: y = a v = clip(-(g + lambda a) a / h, ...), kept as a, 1/h, lo, hi, g.
  std::vector<double> rq_a_, rq_hinv_, rq_curv_, rq_lo_, rq_hi_, rq_g_;  // rq_curv_ = a^2 / h
  std::vector<int> rq_var_;
  // Every variable is a quadratic one of the row, in order (rq_var_[k] == k): the row's
  // linear terms are g_ itself, read in place instead of gathered into rq_g_ on every solve.
  bool identity_row_ = false;
  const double* rq_g_view_ = nullptr;  // g_ or rq_g_, set by SolveRow
  // Shapes of the row's quadratic part that EvalRow reads less memory for, with the same
  // arithmetic (a = 1 makes a * x, lambda * a and a^2 / h exact): every coefficient 1; and,
  // on top of it, one curvature and one pair of bounds for all (transport, path flows).
  bool unit_row_ = false;
  bool uniform_row_ = false;
  double uniform_hinv_ = 0.0, uniform_lo_ = 0.0, uniform_hi_ = 0.0;
  bool track_curvature_ = true;
  bool specialize_ = true;
  int n_ = 0;             // variables
  std::size_t nq_ = 0;    // quadratic variables of the row (rq_* length when not compact)
  bool compact_ = false;  // LoadCompact: nothing is held per variable
  double* linear_buffer_ = nullptr;
  double* LinearData() { return linear_buffer_ != nullptr ? linear_buffer_ : g_.data(); }
  std::vector<int> free_vars_;  // variables outside the row
  // Per revision: reachable range of a'v (its ends open if only approached at a log
  // domain boundary), and the first variable whose own data make the block infeasible.
  double r_min_ = 0.0, r_max_ = 0.0;
  bool min_open_ = false, max_open_ = false;
  int bad_var_ = -1;
  const char* bad_var_reason_ = nullptr;
  std::vector<double> breakpoints_;
  std::vector<int> tie_scratch_;
  std::vector<double> step_scratch_;  // the left end's solution at a collapsed step

  // The solution buffer EvalRow also writes (null: it writes none), the multiplier it last
  // wrote there and that evaluation's activity; and whether the final solution is known
  // finite (its activity was: a sum with an infinite or NaN term is not), which spares Solve
  // its last pass.
  double* eval_out_ = nullptr;
  mutable bool eval_out_valid_ = false;
  mutable double eval_out_lambda_ = 0.0;
  mutable double eval_out_sum_ = 0.0;
  bool out_finite_ = false;

  double lambda_ = 0.0;
  double last_lambda_ = 0.0;
  bool have_last_lambda_ = false;
  bool row_active_ = false;
  std::string error_;
};

// "clip" (no row) and "one_row" block solvers over SeparableCore.
class SeparableSolver final : public BlockSolver {
 public:
  // Returns nullptr and sets *error if the structure is not separable with at most one row.
  static std::unique_ptr<SeparableSolver> Create(const BlockProblem& structure,
                                                 const BlockSolverOptions& options,
                                                 std::string* error);

  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  bool solves_in_place() const override { return true; }
  void Prefetch() const override {
    core_.Prefetch();
    __builtin_prefetch(scratch_.data());
  }
  BlockStatus SolveInPlace(const BlockProblem& problem, const double* t, double* v) override;
  bool takes_linear() const override { return true; }
  BlockStatus SolveFromLinear(const BlockProblem& problem, const double* g, double* v) override;
  std::string name() const override { return core_.has_row() ? "one_row" : "clip"; }
  std::string last_error() const override { return error_; }

 private:
  SeparableSolver() = default;
  // Exactly one of t (the targets) and g (the linear term, formed by the caller) is non-null.
  BlockStatus SolveWith(const BlockProblem& problem, const double* t, const double* g, double* v);

  std::vector<double> scratch_;  // Solve's result until it is known to be optimal
  std::string error_;
  BlockSolverOptions options_;
  SeparableCore core_;
  int num_vars_ = 0;
  int num_rows_ = 0;
  std::uint64_t revision_ = 0;
  bool loaded_ = false;
};

}  // namespace dede::internal
