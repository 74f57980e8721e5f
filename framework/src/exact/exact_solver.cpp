// The exact baseline: the whole Problem as one model, solved by Clp (LP, QP) or Cbc (MILP).
//
// Reformulations (all exact at convergence):
//  * global max-min / min-max term -> epigraph column alpha with one row per block;
//  * weight * log(expr)            -> column s_k, maximise weight * s_k subject to tangent cuts
//                                     s_k <= log(e0) + (expr - e0) / e0 (outer approximation,
//                                     refined round by round at the current expr);
//  * q * v^2 in an integer problem -> column t_v >= 0, tangent cuts t_v >= 2 v0 v - v0^2 (Cbc
//                                     has no quadratic objective); continuous problems use
//                                     Clp's quadratic objective instead.
// Clp and Cbc minimise, so a maximised objective is negated internally and reported back in the
// user's sense.
#include "core/logging.h"
#include "dede/host_solvers.h"
#include "exact/exact_model.h"

namespace dede {
namespace internal {
namespace exact {

double ExactSolver::Remaining() const {
  return options_.time_limit_seconds - Seconds(start_, Clock::now());
}

void ExactSolver::Build() {
  integer_ = problem_.HasIntegers();
  const int n = problem_.num_variables();
  for (VarId id = 0; id < n; ++id) {
    const Variable& v = problem_.variable(id);
    double lower = v.domain.lower, upper = v.domain.upper;
    if (v.domain.type == VarType::kBinary) {
      lower = std::max(lower, 0.0);
      upper = std::min(upper, 1.0);
    }
    model_.AddColumn(lower, upper, sign_ * v.linear_cost, v.domain.IsIntegral());
  }
  std::vector<int> index;
  std::vector<double> value;
  for (const Constraint& c : problem_.constraints()) {
    index.clear();
    value.clear();
    for (const Term& t : c.terms) {
      index.push_back(t.var);
      value.push_back(t.coef);
    }
    const double lower = c.sense == Sense::kLessEqual ? -kInfinity : c.rhs;
    const double upper = c.sense == Sense::kGreaterEqual ? kInfinity : c.rhs;
    model_.AddRow(index, value, lower, upper);
  }
  // Entry images as the rows entry - scale * local = offset, after the constraints (row c is
  // constraint c: the rounds update right-hand sides by id).
  for (VarId id = 0; problem_.num_images() > 0 && id < n; ++id) {
    const EntryImage im = problem_.image(id);
    if (!im.active()) continue;
    model_.AddRow({id, im.local}, {1.0, -im.scale}, im.offset, im.offset);
  }

  // Epigraph of the global term: alpha <= every expr (max-min) or >= every expr (min-max), so
  // at the optimum alpha is the min (max) and sign * weight * alpha is its internal cost.
  const GlobalTerm& global = problem_.global_term();
  if (global.kind != GlobalKind::kNone && global.weight != 0.0) {
    const int alpha = model_.AddColumn(-kInfinity, kInfinity, sign_ * global.weight, false);
    alpha_column_ = alpha;
    for (const LinearExpr& e : global.exprs) {
      index.clear();
      value.clear();
      for (const Term& t : e.terms) {
        index.push_back(t.var);
        value.push_back(t.coef);
      }
      index.push_back(alpha);
      value.push_back(-1.0);
      if (global.kind == GlobalKind::kMaxMin) {
        model_.AddRow(index, value, -e.constant, kInfinity);
      } else {
        model_.AddRow(index, value, -kInfinity, -e.constant);
      }
    }
  }

  // Quadratic costs: tangent cuts by default; Clp's QP primal only when asked for (see
  // ExactOptions::use_clp_qp).
  for (VarId id = 0; id < n; ++id) {
    const double q = problem_.variable(id).quadratic_cost;
    if (q == 0.0) continue;
    if (!integer_ && options_.use_clp_qp) {
      quadratic_objective_ = true;
      continue;
    }
    SquareAux aux;
    aux.var = id;
    aux.column = model_.AddColumn(0.0, kInfinity, sign_ * q, false);  // t >= 0: tangent at 0
    aux.points.push_back(0.0);
    squares_.push_back(aux);
  }

  for (const LogTerm& l : problem_.log_terms()) {
    if (l.weight == 0.0) continue;  // contributes nothing (EvaluateObjective skips it too)
    LogAux aux;
    // Validate() guarantees a maximised objective, so the internal cost is -weight.
    aux.column = model_.AddColumn(-kInfinity, kInfinity, -l.weight, false);
    aux.weight = l.weight;
    aux.constant = l.expr.constant;
    // Merge duplicate variables: the floor row must list each column once.
    std::vector<Term> terms = l.expr.terms;
    std::sort(
        terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.var < b.var; });
    for (const Term& t : terms) {
      if (!aux.index.empty() && aux.index.back() == t.var) {
        aux.coef.back() += t.coef;
      } else {
        aux.index.push_back(t.var);
        aux.coef.push_back(t.coef);
      }
    }
    double lo = aux.constant, hi = aux.constant;
    for (std::size_t k = 0; k < aux.index.size(); ++k) {
      const Variable& v = problem_.variable(aux.index[k]);
      const double a = aux.coef[k];
      const double l = a > 0 ? a * v.domain.lower : a * v.domain.upper;
      const double u = a > 0 ? a * v.domain.upper : a * v.domain.lower;
      lo += std::isnan(l) ? -kInfinity : l;
      hi += std::isnan(u) ? kInfinity : u;
    }
    aux.range_lower = lo;
    aux.range_upper = hi;
    // Bounds that already keep expr >= floor make the row redundant (its recession a'd >= 0
    // is implied too, see HasImprovingRay).
    if (!(lo >= kLogFloor)) model_.AddRow(aux.index, aux.coef, kLogFloor - aux.constant, kInfinity);
    logs_.push_back(std::move(aux));
  }

  base_rows_ = model_.num_rows();
  AddInitialCuts();
  ChoosePrimalScale();
}

// Clp's primal feasibility tolerance is absolute (1e-7): in a plain LP whose data are all small
// (the TE plugin's demands in units of the largest capacity go down to 1e-6) Clp may return a
// point that violates rows by a sizeable fraction of their own scale, and the objective there
// is off by as much (TE min max utilisation against GLPK's exact simplex: 2.3e-7 relative on one
// of 4,032 measured Abilene matrices, 8e-3 with those demands at 1/1,000; on Kdl Clp's barrier
// returned a point 6.7e-7 infeasible and 1.5e-6 below the optimum). Multiplying every bound by
// s is the same LP in finer units: the same bases are optimal, the duals are unchanged, and the
// tolerance shrinks by s relative to the data. s is a power of two (exact both ways) taken from
// the largest finite nonzero bound, which lands in (kPrimalScaleTarget / 2, kPrimalScaleTarget];
// problems with larger data are left alone, as scaling down would coarsen the tolerance for
// their small values. Cut rounds (tangent points are in the model's units), QPs and MILPs
// (integrality is not scale-free) keep s = 1.
void ExactSolver::ChoosePrimalScale() {
  primal_scale_ = 1.0;
  if (integer_ || quadratic_objective_ || !logs_.empty() || !squares_.empty()) return;
  double largest = 0.0;
  auto consider = [&](const std::vector<double>& bounds) {
    for (double b : bounds) {
      if (b != 0.0 && std::abs(b) < COIN_DBL_MAX) largest = std::max(largest, std::abs(b));
    }
  };
  consider(model_.col_lower);
  consider(model_.col_upper);
  consider(model_.row_lower);
  consider(model_.row_upper);
  if (largest == 0.0 || largest > kPrimalScaleTarget / 2) return;
  // 2^(exponent - 1) <= target / largest. The ratio is capped at 2^1000 because it overflows
  // for bounds below ~1e-305, and frexp's exponent of an infinity is unspecified.
  int exponent = 0;
  std::frexp(std::min(kPrimalScaleTarget / largest, std::ldexp(1.0, 1000)), &exponent);
  primal_scale_ = std::ldexp(1.0, exponent - 1);
}

// Initial cuts: a handful spread over the range each expression can take, so the first
// relaxation is bounded and already close to the curve wherever the optimum lies.
void ExactSolver::AddInitialCuts() {
  for (int k = 0; k < static_cast<int>(logs_.size()); ++k) {
    const double lo = logs_[k].range_lower, hi = logs_[k].range_upper;
    const double low = IsFinite(lo) ? std::max(lo, kLogFloor) : kLogFloor;
    double bottom, top;
    if (IsFinite(hi)) {
      top = std::max(hi, kLogFloor);
      bottom = std::min(top, std::max(low, top * 1e-4));
    } else {
      // No finite range: cover the scales allocation problems usually live on; rounds add
      // cuts wherever the optimum turns out to be, ExtendCuts if the relaxation is unbounded.
      bottom = std::max(low, 1e-3);
      top = std::max(1e4, bottom * 1e7);
    }
    for (int j = 0; j < kInitialCutPoints; ++j) {
      const double f = static_cast<double>(j) / (kInitialCutPoints - 1);
      AddLogCut(k, bottom * std::pow(top / bottom, f));
    }
  }
  for (int k = 0; k < static_cast<int>(squares_.size()); ++k) {
    const Domain& d = problem_.variable(squares_[k].var).domain;
    const bool integral = d.IsIntegral();
    std::vector<double> points;
    if (IsFinite(d.lower) && IsFinite(d.upper)) {
      for (int k = 0; k < kInitialCutPoints; ++k)
        points.push_back(d.lower + (d.upper - d.lower) * k / (kInitialCutPoints - 1));
    } else {
      for (double p : {1.0, 10.0, 100.0, 1000.0})
        for (double s : {-1.0, 1.0}) points.push_back(s * p);
      if (IsFinite(d.lower)) points.push_back(d.lower);
      if (IsFinite(d.upper)) points.push_back(d.upper);
    }
    for (double p : points) {
      if (p < d.lower || p > d.upper) continue;
      AddSquareCut(k, integral ? std::round(p) : p);
    }
  }
}

void ExactSolver::AddLogCut(int k, double e0) {
  LogAux* aux = &logs_[k];
  e0 = std::max(e0, kLogFloor);
  for (double p : aux->points)
    if (std::abs(p - e0) <= 1e-12 * std::max(1.0, e0)) return;
  aux->points.push_back(e0);
  // s <= log(e0) + (expr - e0) / e0  <=>  s - sum(a_i / e0) x_i <= log(e0) - 1 + c / e0.
  std::vector<int> index = aux->index;
  std::vector<double> value(aux->coef.size());
  for (std::size_t k = 0; k < value.size(); ++k) value[k] = -aux->coef[k] / e0;
  index.push_back(aux->column);
  value.push_back(1.0);
  model_.AddRow(index, value, -kInfinity, std::log(e0) - 1.0 + aux->constant / e0);
  ++num_cuts_;
}

void ExactSolver::AddSquareCut(int k, double v0) {
  SquareAux* aux = &squares_[k];
  for (double p : aux->points)
    if (std::abs(p - v0) <= 1e-12 * std::max(1.0, std::abs(v0))) return;
  aux->points.push_back(v0);
  // t >= 2 v0 v - v0^2  <=>  t - 2 v0 v >= -v0^2.
  model_.AddRow({aux->var, aux->column}, {-2.0 * v0, 1.0}, -v0 * v0, kInfinity);
  ++num_cuts_;
}

int ExactSolver::AddViolatedCuts(const std::vector<double>& x) {
  const int before = num_cuts_;
  const double tol = options_.cut_tolerance;
  for (int k = 0; k < static_cast<int>(logs_.size()); ++k) {
    const double e = std::max(logs_[k].Expr(x.data()), kLogFloor);
    const double log_e = std::log(e);
    if (x[logs_[k].column] - log_e > tol * std::max(1.0, std::abs(log_e))) AddLogCut(k, e);
  }
  for (int k = 0; k < static_cast<int>(squares_.size()); ++k) {
    const SquareAux& aux = squares_[k];
    double v = x[aux.var];
    if (problem_.variable(aux.var).domain.IsIntegral() &&
        std::abs(v - std::round(v)) <= kIntegerSnap)
      v = std::round(v);
    if (v * v - x[aux.column] > tol * std::max(1.0, v * v)) AddSquareCut(k, v);
  }
  return num_cuts_ - before;
}

void ExactSolver::ExtendCuts() {
  for (int k = 0; k < static_cast<int>(logs_.size()); ++k) {
    const std::vector<double>& points = logs_[k].points;
    AddLogCut(k, 100.0 * *std::max_element(points.begin(), points.end()));
  }
  for (int k = 0; k < static_cast<int>(squares_.size()); ++k) {
    const Domain& d = problem_.variable(squares_[k].var).domain;
    const std::vector<double>& points = squares_[k].points;
    const auto [lo, hi] = std::minmax_element(points.begin(), points.end());
    const double far_hi = std::max(1.0, std::abs(*hi)) * 100.0;
    const double far_lo = -std::max(1.0, std::abs(*lo)) * 100.0;
    if (far_hi <= d.upper) AddSquareCut(k, far_hi);
    if (far_lo >= d.lower) AddSquareCut(k, far_lo);
  }
}

bool ExactSolver::HasImprovingRay() {
  // Recession cone of the relaxation without cuts: every finite bound and right-hand side
  // becomes 0. The log floor rows give a_k'd >= 0, so no log argument shrinks along d.
  // Directions that move a quadratic variable are excluded: the square eventually dominates.
  LinearModel ray;
  const int n = model_.num_cols();
  auto zero_if_finite = [](double bound) { return std::abs(bound) < 1e30 ? 0.0 : bound; };
  std::vector<char> fixed(n, 0);
  for (const LogAux& aux : logs_) fixed[aux.column] = 1;
  for (const SquareAux& aux : squares_) fixed[aux.var] = fixed[aux.column] = 1;
  if (quadratic_objective_)
    for (VarId id = 0; id < problem_.num_variables(); ++id)
      if (problem_.variable(id).quadratic_cost != 0.0) fixed[id] = 1;
  // Gain along d: the log arguments' growth (weighted) minus the internal linear cost.
  std::vector<double> gain(n, 0.0);
  for (int j = 0; j < n; ++j) gain[j] = fixed[j] ? 0.0 : -model_.cost[j];
  for (const LogAux& aux : logs_)
    for (std::size_t k = 0; k < aux.index.size(); ++k)
      if (!fixed[aux.index[k]]) gain[aux.index[k]] += aux.weight * aux.coef[k];
  for (int j = 0; j < n; ++j) {
    const double lower = fixed[j] ? 0.0 : zero_if_finite(model_.col_lower[j]);
    const double upper = fixed[j] ? 0.0 : zero_if_finite(model_.col_upper[j]);
    ray.AddColumn(lower, upper, -gain[j], false);
  }
  std::vector<int> index;
  std::vector<double> value;
  for (int i = 0; i < base_rows_; ++i) {
    index.assign(model_.row_index.begin() + model_.row_start[i],
                 model_.row_index.begin() + model_.row_start[i + 1]);
    value.assign(model_.row_value.begin() + model_.row_start[i],
                 model_.row_value.begin() + model_.row_start[i + 1]);
    ray.AddRow(
        index, value, zero_if_finite(model_.row_lower[i]), zero_if_finite(model_.row_upper[i]));
  }
  index.clear();
  value.clear();
  std::vector<int> gain_index;
  std::vector<double> gain_value;
  for (int j = 0; j < n; ++j) {
    if (model_.cost[j] != 0.0 && !fixed[j]) {
      index.push_back(j);
      value.push_back(model_.cost[j]);
    }
    if (gain[j] != 0.0) {
      gain_index.push_back(j);
      gain_value.push_back(gain[j]);
    }
  }
  ray.AddRow(index, value, -kInfinity, 0.0);            // the linear part never worsens
  ray.AddRow(gain_index, gain_value, -kInfinity, 1.0);  // normalisation
  ClpSimplex clp;
  clp.setLogLevel(0);
  const CoinPackedMatrix matrix = ray.Matrix();
  clp.loadProblem(matrix,
                  ray.col_lower.data(),
                  ray.col_upper.data(),
                  ray.cost.data(),
                  ray.row_lower.data(),
                  ray.row_upper.data());
  const double remaining = Remaining();
  if (IsFinite(remaining)) clp.setMaximumWallSeconds(std::max(remaining, 0.0));
  clp.initialSolve();
  return clp.status() == 0 && -clp.objectiveValue() > kRayTolerance;
}

void ExactSolver::RepairAuxiliary(std::vector<double>* x) const {
  for (const LogAux& aux : logs_)
    (*x)[aux.column] = std::log(std::max(aux.Expr(x->data()), kLogFloor));
  for (const SquareAux& aux : squares_) (*x)[aux.column] = (*x)[aux.var] * (*x)[aux.var];
}

double ExactSolver::InternalObjective(const std::vector<double>& x) const {
  double total = 0.0;
  for (int j = 0; j < model_.num_cols(); ++j) total += model_.cost[j] * x[j];
  return total;
}

std::vector<double> ExactSolver::UserValues(const std::vector<double>& x) const {
  const int n = problem_.num_variables();
  std::vector<double> values(x.begin(), x.begin() + n);
  // Cbc's integer tolerance is 1e-7: snap its noise so integrality holds exactly.
  for (VarId id = 0; id < n; ++id) {
    if (!problem_.variable(id).domain.IsIntegral()) continue;
    const double r = std::round(values[id]);
    if (std::abs(values[id] - r) <= kIntegerSnap) values[id] = r;
  }
  return values;
}

double ExactSolver::UserObjective(const std::vector<double>& x) const {
  return problem_.EvaluateObjective(UserValues(x));
}

std::string ExactSolver::FillAfterMaxMin(RoundResult* round) {
  const GlobalTerm& global = problem_.global_term();
  const double optimum = round->x[alpha_column_];
  const double floor = optimum - options_.fill_slack * std::abs(optimum);
  // Every expression keeps its epigraph row e_b >= alpha, now with alpha fixed at the floor;
  // the objective becomes the largest total of the expressions (plus the problem's own
  // linear costs), which the current basis still satisfies: the primal simplex goes on from it.
  std::vector<double> cost(clp_.objective(), clp_.objective() + clp_.numberColumns());
  for (const LinearExpr& e : global.exprs) {
    for (const Term& t : e.terms) cost[t.var] += sign_ * global.weight * t.coef;
  }
  cost[alpha_column_] = 0.0;
  for (int j = 0; j < static_cast<int>(cost.size()); ++j) clp_.setObjectiveCoefficient(j, cost[j]);
  clp_.setColumnLower(alpha_column_, floor * primal_scale_);
  clp_.setColumnUpper(alpha_column_, floor * primal_scale_);
  const double remaining = Remaining();
  if (IsFinite(remaining)) {
    // Wall time only: Clp's other limit is the process's CPU time, which solves running in
    // parallel threads (POP's groups) use up together.
    clp_.setMaximumWallSeconds(std::max(remaining, 0.0));
  }
  clp_.primal(1);
  if (clp_.status() != 0) {
    return "; the second stage (maximise the total at the minimum) stopped with Clp status " +
           std::to_string(clp_.status()) + ", the max-min optimum is returned";
  }
  const int n = clp_.numberColumns();
  round->x.assign(clp_.primalColumnSolution(), clp_.primalColumnSolution() + n);
  for (double& value : round->x) value /= primal_scale_;
  return "; then the total of the max-min expressions maximised with each >= " + Num(floor) + " (" +
         std::to_string(clp_.numberIterations()) + " simplex iterations)";
}

void ExactSolver::Finish(const RoundResult& round,
                         Termination termination,
                         const std::string& message,
                         bool have_bound,
                         Allocation* allocation,
                         SolveSummary* summary) {
  summary->termination = termination;
  const int n = problem_.num_variables();
  const bool has_point = static_cast<int>(round.x.size()) >= n &&
                         termination != Termination::kInfeasible &&
                         termination != Termination::kFailure;
  std::string text = message;
  if (has_point) {
    std::vector<double> values = UserValues(round.x);
    summary->objective = problem_.EvaluateObjective(values);
    summary->max_violation = problem_.MeasureViolation(values).Max();
    summary->feasible = summary->max_violation <= kFeasibilityTolerance;
    if (have_bound && round.internal_bound > -1e50 && round.internal_bound < 1e50)
      summary->bound = sign_ * round.internal_bound + problem_.objective_constant();
    if (summary->feasible) {
      summary->gap = CertifiedGap(problem_.objective_sense(), summary->objective, summary->bound);
    }
    text += ". Objective " + Num(summary->objective);
    if (!std::isnan(summary->bound)) text += ", bound " + Num(summary->bound);
    text += ", max violation " + Num(summary->max_violation);
    if (!summary->feasible) {
      text += " (not feasible within " + Num(kFeasibilityTolerance) + ")";
      // The solver's own tolerances let the point through; it is not a proven optimum.
      if (termination == Termination::kConverged)
        summary->termination = Termination::kConvergedInaccurate;
    }
    text += ".";
    allocation->values = std::move(values);
  } else {
    text += ".";
  }
  summary->message = text;
}

// An unbounded outer approximation: true to solve again with the outermost cuts pushed out
// (only the linearisation is unbounded), false with the round's detail saying why not.
bool ExactSolver::RetryUnbounded(RoundResult* round, int* retries) {
  if (HasImprovingRay()) {
    round->detail +=
        ", and a recession direction of the feasible set improves the "
        "objective itself (through its linear part or a log argument)";
    return false;
  }
  if (*retries < kMaxUnboundedRetries) {
    // Only the linearisation is unbounded (a log tangent rises faster than a linear cost
    // falls, or no tangent of v^2 is steep enough yet): push the outermost cuts out.
    ++*retries;
    ExtendCuts();
    return true;
  }
  round->status = RoundResult::Status::kFailure;
  round->detail =
      "The outer approximation stayed unbounded after moving its outermost "
      "cuts out " +
      std::to_string(*retries) + " times, although no improving recession direction was found";
  return false;
}

// A round that did not reach its optimum ends the run: its termination and message, and, at a
// time limit, the previous cut round's point when the interrupted one is no solution.
void ExactSolver::EndOnFailedRound(const RoundResult& previous,
                                   bool outer,
                                   int rounds,
                                   RoundResult* round,
                                   Termination* termination,
                                   std::string* message,
                                   bool* have_bound) const {
  switch (round->status) {
    case RoundResult::Status::kInfeasible:
      *termination = Termination::kInfeasible;
      break;
    case RoundResult::Status::kTimeLimit:
      *termination = Termination::kTimeLimit;
      break;
    default:
      *termination = Termination::kFailure;
      break;
  }
  *message = round->detail;
  if (round->status == RoundResult::Status::kUnbounded)
    *message = "The problem is unbounded: " + round->detail;
  *have_bound = *termination == Termination::kTimeLimit && integer_;
  if (*termination == Termination::kTimeLimit && !round->x_is_solution && !previous.x.empty()) {
    // The last completed round's point satisfies every constraint; an interrupted simplex
    // iterate need not. Its relaxation bound stays valid too.
    round->x = previous.x;
    round->internal_bound = previous.internal_bound;
    *have_bound = true;
    *message += "; returning the previous cut round's solution";
  }
  if (outer) *message += " (cut round " + std::to_string(rounds + 1) + ")";
}

void ExactSolver::Run(Allocation* allocation, SolveSummary* summary) {
  Build();
  const bool outer = !logs_.empty() || !squares_.empty();
  if (integer_) {
    summary->method = outer ? "cbc-oa" : "cbc";
  } else if (outer) {
    summary->method = "clp-oa";
  } else {
    summary->method = quadratic_objective_ ? "clp-qp" : "clp";
  }
  const Clock::time_point solve_start = Clock::now();
  summary->setup_seconds = Seconds(start_, solve_start);

  int rounds = 0;
  int total_iterations = 0;
  int unbounded_retries = 0;
  std::vector<double> incumbent;  // Cbc: last round's point, repaired, as a warm start
  RoundResult round;
  RoundResult previous;  // the last round solved to optimality
  Termination termination = Termination::kFailure;
  std::string message;
  bool have_bound = false;
  while (true) {
    if (Remaining() <= 0 && rounds > 0) {
      // `round` is the last completed round: its point and bound are both valid.
      termination = Termination::kTimeLimit;
      message = "Time limit of " + Num(options_.time_limit_seconds) + " s reached after " +
                std::to_string(rounds) + " cut rounds";
      have_bound = true;
      break;
    }
    const bool first = rounds == 0 && unbounded_retries == 0;
    const bool after_unbounded = round.status == RoundResult::Status::kUnbounded;
    round = integer_ ? SolveCbcRound(incumbent.empty() ? nullptr : &incumbent)
                     : SolveClpRound(first, after_unbounded);
    total_iterations += round.iterations;
    LogDebug("exact round {}: {} rows, {} cuts, {} iterations, objective {:.10g}, {:.3f} s",
             rounds + 1,
             model_.num_rows(),
             num_cuts_,
             round.iterations,
             sign_ * round.internal_objective + problem_.objective_constant(),
             Seconds(start_, Clock::now()));
    if (round.status == RoundResult::Status::kUnbounded && outer &&
        RetryUnbounded(&round, &unbounded_retries)) {
      continue;
    }
    if (round.status != RoundResult::Status::kOptimal) {
      EndOnFailedRound(previous, outer, rounds, &round, &termination, &message, &have_bound);
      break;
    }
    ++rounds;
    if (!outer) {
      termination = Termination::kConverged;
      message = round.detail.empty() ? "Clp: optimal after " + std::to_string(round.iterations) +
                                           " simplex iterations"
                                     : round.detail;
      have_bound = true;
      break;
    }
    // The relaxation's optimum bounds the true one, and the true objective at its point is
    // attained: once they agree to the tolerance the point is certified, even if single terms
    // are still linearised more loosely than cut_tolerance (Kelley's method spends most of
    // its rounds tightening terms that no longer move the objective).
    const double bound = sign_ * round.internal_bound + problem_.objective_constant();
    const double gap = std::abs(bound - UserObjective(round.x)) / std::max(1.0, std::abs(bound));
    const int added = gap <= options_.cut_tolerance ? 0 : AddViolatedCuts(round.x);
    if (added == 0) {
      termination = Termination::kConverged;
      message = "Outer approximation converged after " + std::to_string(rounds) +
                " cut rounds: relative gap " + Num(gap) + " to the relaxation bound (" +
                std::to_string(num_cuts_) + " cuts, " + std::to_string(total_iterations) +
                " simplex iterations)";
      have_bound = true;
      break;
    }
    if (rounds >= options_.max_cut_rounds) {
      termination = Termination::kMaxIterations;
      message = "Cut-round budget of " + std::to_string(options_.max_cut_rounds) +
                " used up with " + std::to_string(added) + " cuts still violated";
      have_bound = true;
      break;
    }
    previous = round;
    if (integer_) {
      incumbent = round.x;
      incumbent.resize(model_.num_cols(), 0.0);
      RepairAuxiliary(&incumbent);
    }
  }
  if (options_.fill_after_max_min && !outer && !integer_ && alpha_column_ >= 0 &&
      problem_.global_term().kind == GlobalKind::kMaxMin &&
      termination == Termination::kConverged && Remaining() > 0) {
    message += FillAfterMaxMin(&round);
    // The bound was the max-min optimum's; the returned point's objective is below it by at
    // most the slack.
    have_bound = false;
  }
  summary->iterations = outer ? rounds : total_iterations;
  Finish(round, termination, message, have_bound, allocation, summary);
  const Clock::time_point end = Clock::now();
  summary->solve_seconds = Seconds(solve_start, end);
  summary->total_seconds = Seconds(start_, end);
}

}  // namespace exact

namespace {

using exact::IsFinite;
using exact::Num;

bool ValidateOptions(const ExactOptions& options, std::string* error) {
  auto fail = [&](const std::string& field, double value, const std::string& rule) {
    *error = "ExactOptions::" + field + " = " + Num(value) + ". Violated constraint: " + rule;
    return false;
  };
  if (!(options.time_limit_seconds > 0))
    return fail("time_limit_seconds", options.time_limit_seconds, "time_limit_seconds > 0");
  if (!(options.cut_tolerance >= 0) || !IsFinite(options.cut_tolerance))
    return fail("cut_tolerance", options.cut_tolerance, "0 <= cut_tolerance < inf");
  if (options.max_cut_rounds < 1)
    return fail("max_cut_rounds", options.max_cut_rounds, "max_cut_rounds >= 1");
  if (!(options.mip_gap >= 0) || !IsFinite(options.mip_gap))
    return fail("mip_gap", options.mip_gap, "0 <= mip_gap < inf");
  if (!(options.fill_slack >= 0 && options.fill_slack < 1))
    return fail("fill_slack", options.fill_slack, "0 <= fill_slack < 1");
  return true;
}

}  // namespace
}  // namespace internal

void SolveExact(const Problem& problem,
                const ExactOptions& options,
                Allocation* allocation,
                SolveSummary* summary) {
  const auto start = internal::exact::Clock::now();
  *summary = SolveSummary{};
  summary->method = problem.HasIntegers() ? "cbc" : "clp";
  auto fail = [&](const std::string& message) {
    summary->termination = Termination::kFailure;
    summary->message = message;
    summary->total_seconds = internal::exact::Seconds(start, internal::exact::Clock::now());
  };
  try {
    std::string error;
    if (!internal::ValidateOptions(options, &error)) return fail(error);
    if (!problem.Validate(&error)) return fail("Invalid problem: " + error);
    internal::exact::ExactSolver solver(problem, options, start);
    solver.Run(allocation, summary);
  } catch (const CoinError& e) {
    fail("Coin error in " + e.className() + "::" + e.methodName() + ": " + e.message());
  } catch (const std::exception& e) {
    fail(std::string("Exception in the exact solver: ") + e.what());
  } catch (...) {
    fail("Unknown exception in the exact solver");
  }
}

}  // namespace dede
