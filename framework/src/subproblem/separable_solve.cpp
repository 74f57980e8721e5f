// SeparableCore's solve (see separable_solver.h): each variable's minimiser, and the search on
// the row's multiplier (the row activity as a function of lambda, its breakpoints, the
// safeguarded Newton search, the final assignment that lands the row on its target). The
// set-up (structure, parameters) is in separable_solver.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "subproblem/row_sums.h"
#include "subproblem/separable_detail.h"
#include "subproblem/separable_solver.h"

namespace dede::internal {

using namespace separable_detail;

// ---- SeparableCore: one variable ------------------------------------------------------------

// f_i'(x) + mu, with gg = g_i + mu.
double SeparableCore::Derivative(int i, double gg, double x) const {
  double d = h_[i] * x + gg;
  for (int k = log_begin_[i]; k < log_begin_[i + 1]; ++k) {
    const VarLog& l = logs_[k];
    d -= l.weight * l.alpha / (l.alpha * x + l.beta);
  }
  return d;
}

double SeparableCore::Curvature(int i, double x) const {
  double c = h_[i];
  for (int k = log_begin_[i]; k < log_begin_[i + 1]; ++k) {
    const VarLog& l = logs_[k];
    const double s = l.alpha * x + l.beta;
    c += l.weight * l.alpha * l.alpha / (s * s);
  }
  return c;
}

double SeparableCore::SolveVar(int i, double gg, State* state) const {
  switch (kind_[i]) {
    case Kind::kQuadratic: {
      const double x = -gg / h_[i];
      if (x <= lo_[i]) {
        *state = State::kLower;
        return lo_[i];
      }
      if (x >= hi_[i]) {
        *state = State::kUpper;
        return hi_[i];
      }
      *state = State::kFree;
      return x;
    }
    case Kind::kLinear:
      if (gg > 0.0) {
        *state = State::kLower;
        return lo_[i];
      }
      if (gg < 0.0) {
        *state = State::kUpper;
        return hi_[i];
      }
      *state = State::kTie;
      return Clamp(0.0, lo_[i], hi_[i]);
    case Kind::kLog:
      break;
  }
  return SolveLogVar(i, gg, state);
}

// f_i' is strictly increasing on the open log domain and tends to -inf / +inf at a finite
// domain boundary, so the minimizer is a bound (if the derivative there has the right sign)
// or the unique root inside.
double SeparableCore::SolveLogVar(int i, double gg, State* state) const {
  const double lo = lo_[i], hi = hi_[i];
  const bool lo_attainable = lo > dom_lo_[i];
  const bool hi_attainable = hi < dom_hi_[i];
  const double a = std::max(lo, dom_lo_[i]);
  const double b = std::min(hi, dom_hi_[i]);
  if (a > b || (a == b && !(lo_attainable && hi_attainable))) {
    *state = State::kEmpty;
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (lo_attainable && Derivative(i, gg, lo) >= 0.0) {
    *state = State::kLower;
    return lo;
  }
  if (hi_attainable && Derivative(i, gg, hi) <= 0.0) {
    *state = State::kUpper;
    return hi;
  }
  *state = State::kFree;
  const double h = h_[i];
  double x;
  if (log_begin_[i + 1] - log_begin_[i] == 1) {
    // Single log: in s = alpha x + beta the stationarity condition
    // h x + gg - w alpha / s = 0 is h s^2 + (gg alpha - h beta) s - w alpha^2 = 0, whose
    // positive root is taken in the cancellation-free form.
    const VarLog& l = logs_[log_begin_[i]];
    const double B = gg * l.alpha - h * l.beta;
    const double wa2 = l.weight * l.alpha * l.alpha;
    double s;
    if (h > 0.0) {
      const double sq = std::sqrt(B * B + 4.0 * h * wa2);
      s = B > 0.0 ? 2.0 * wa2 / (B + sq) : (sq - B) / (2.0 * h);
    } else {
      s = B > 0.0 ? wa2 / B : kInf;
    }
    if (s == kInf) return l.alpha > 0.0 ? kInf : -kInf;
    x = (s - l.beta) / l.alpha;
    // x = (s - beta) / alpha loses digits when |beta| >> s: one guarded Newton step restores
    // them (the derivative is monotone, so a step that reduces |f'| stays correct).
    if (!(x > a)) x = std::nextafter(a, kInf);
    if (!(x < b)) x = std::nextafter(b, -kInf);
    const double d = Derivative(i, gg, x);
    if (d != 0.0) {
      const double x2 = x - d / Curvature(i, x);
      if (x2 > a && x2 < b && std::fabs(Derivative(i, gg, x2)) < std::fabs(d)) x = x2;
    }
    return x;
  }
  // Several logs on one variable: safeguarded Newton on the monotone derivative.
  double left = a, right = b;
  x = InteriorPoint(left, right);
  for (int it = 0; it < kMaxNewtonIterations; ++it) {
    const double d = Derivative(i, gg, x);
    if (d == 0.0) return x;
    if (d > 0.0) {
      right = x;
    } else {
      left = x;
    }
    if (std::isfinite(left) && std::isfinite(right) && Collapsed(left, right)) return x;
    double next = x - d / Curvature(i, x);
    if (!(next > left && next < right)) next = InteriorPoint(left, right);
    if (std::fabs(next) > 1e300) return next > 0 ? kInf : -kInf;  // no root: unbounded
    if (next == x) return x;
    x = next;
  }
  return x;
}

// ---- SeparableCore: the row -----------------------------------------------------------------

SeparableCore::RowEval SeparableCore::EvalRow(double lambda) const {
  RowEval e;
  const double* g = rq_g_view_;
  // Branch-free (row_sums.cpp): which variables sit at a bound is unpredictable, and
  // mispredictions would dominate the loop. (Written as a conditional, the slope term compiled
  // to two branches and a stack spill: Kdl TE's link blocks spent 8.7% of the run here.)
  double* const out = eval_out_;
  const RowSums q =
      uniform_row_ ? SumUniformRow(g, nq_, lambda, uniform_hinv_, uniform_lo_, uniform_hi_, out)
      : unit_row_  ? SumUnitRow(g, rq_hinv_.data(), rq_lo_.data(), rq_hi_.data(), nq_, lambda, out)
                   : SumGeneralRow(g,
                                  rq_a_.data(),
                                  rq_hinv_.data(),
                                  rq_curv_.data(),
                                  rq_lo_.data(),
                                  rq_hi_.data(),
                                  nq_,
                                  lambda,
                                  out);
  if (out != nullptr) {
    eval_out_valid_ = true;
    eval_out_lambda_ = lambda;
    eval_out_sum_ = q.sum;
  }
  const double sum = q.sum;
  double slope = q.slope;
  if (row_special_.empty()) {
    e.minus = e.plus = sum;
    e.slope = slope;
    return e;
  }
  InfSum minus, plus;
  for (int pos : row_special_) {
    const int i = row_var_[pos];
    const double ai = row_a_[pos];
    if (kind_[i] == Kind::kLinear) {
      // A zero-curvature variable is a step in lambda at mu = -g / a: before it the variable
      // sits at the end that maximizes a v, after it at the end that minimizes it.
      const double mu = -g_[i] / ai;
      const double y_high = ai > 0.0 ? ai * hi_[i] : ai * lo_[i];
      const double y_low = ai > 0.0 ? ai * lo_[i] : ai * hi_[i];
      if (lambda < mu) {
        minus.Add(y_high);
        plus.Add(y_high);
      } else if (lambda > mu) {
        minus.Add(y_low);
        plus.Add(y_low);
      } else {
        minus.Add(y_high);
        plus.Add(y_low);
      }
      continue;
    }
    State state;
    const double x = SolveLogVar(i, g_[i] + lambda * ai, &state);
    if (state == State::kFree && std::isfinite(x)) slope -= ai * ai / Curvature(i, x);
    minus.Add(ai * x);
    plus.Add(ai * x);
  }
  e.unbounded = minus.Conflict() || plus.Conflict();
  e.minus = minus.Value(sum);
  e.plus = plus.Value(sum);
  e.slope = slope;
  return e;
}

// Multipliers at which some row variable changes regime (reaches or leaves a bound, or a
// zero-curvature variable switches ends), strictly inside (lo, hi).
void SeparableCore::CollectBreakpoints(double lo, double hi, std::vector<double>* out) const {
  out->clear();
  auto add = [&](double t) {
    if (t > lo && t < hi) out->push_back(t);
  };
  if (uniform_row_) {
    // The same arithmetic with the shared curvature and bounds (a = 1 divides exactly).
    const double h = 1.0 / uniform_hinv_;
    for (size_t k = 0; k < nq_; ++k) {
      if (std::isfinite(uniform_lo_)) add(-(h * uniform_lo_ + rq_g_view_[k]) / 1.0);
      if (std::isfinite(uniform_hi_)) add(-(h * uniform_hi_ + rq_g_view_[k]) / 1.0);
    }
  } else {
    for (size_t k = 0; k < nq_; ++k) {
      const double h = 1.0 / rq_hinv_[k];
      if (std::isfinite(rq_lo_[k])) add(-(h * rq_lo_[k] + rq_g_view_[k]) / rq_a_[k]);
      if (std::isfinite(rq_hi_[k])) add(-(h * rq_hi_[k] + rq_g_view_[k]) / rq_a_[k]);
    }
  }
  for (int pos : row_special_) {
    const int i = row_var_[pos];
    const double ai = row_a_[pos];
    if (kind_[i] == Kind::kLinear || h_[i] == 0.0) add(-g_[i] / ai);
    if (kind_[i] != Kind::kLog) continue;
    if (std::isfinite(lo_[i]) && lo_[i] > dom_lo_[i] && lo_[i] < dom_hi_[i]) {
      add(-Derivative(i, g_[i], lo_[i]) / ai);
    }
    if (std::isfinite(hi_[i]) && hi_[i] < dom_hi_[i] && hi_[i] > dom_lo_[i]) {
      add(-Derivative(i, g_[i], hi_[i]) / ai);
    }
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

double SeparableCore::RowActivity(const double* v) const {
  double total = 0.0;
  if (compact_) {
    for (int i = 0; i < n_; ++i) total += 1.0 * v[i];
    return total;
  }
  for (std::size_t pos = 0; pos < row_var_.size(); ++pos) total += row_a_[pos] * v[row_var_[pos]];
  return total;
}

void SeparableCore::FinishRow(double lambda, double lo_target, double hi_target, double* out) {
  if (out == eval_out_ && eval_out_valid_ &&
      std::memcmp(&lambda, &eval_out_lambda_, sizeof lambda) == 0) {
    // The last evaluation wrote this multiplier's minimizers there (identity rows only, which
    // have no tied variables to move).
    out_finite_ = std::isfinite(eval_out_sum_);
    return;
  }
  eval_out_valid_ = false;  // (out is about to hold another multiplier's)
  double total = 0.0;
  std::vector<int>& ties = tie_scratch_;
  ties.clear();
  const double* g = rq_g_view_;
  const std::size_t nq = nq_;
  if (identity_row_ && !track_curvature_ && uniform_row_) {
    // The common block (every variable quadratic, in the row, in order) with unit
    // coefficients, one curvature and one pair of bounds: only g is read.
    const double hv = uniform_hinv_, lv = uniform_lo_, uv = uniform_hi_;
    for (size_t k = 0; k < nq; ++k) {
      const double raw = -(g[k] + lambda) * hv;
      const double x = std::min(std::max(raw, lv), uv);
      out[k] = x;
      total += x;
    }
    out_finite_ = std::isfinite(total);  // (every variable is in this sum)
    return;
  }
  if (identity_row_ && !track_curvature_) {
    // The common block (every variable quadratic, in the row, in order): a straight loop.
    for (size_t k = 0; k < nq; ++k) {
      const double raw = -(g[k] + lambda * rq_a_[k]) * rq_hinv_[k];
      const double x = std::min(std::max(raw, rq_lo_[k]), rq_hi_[k]);
      out[k] = x;
      total += rq_a_[k] * x;
    }
    // (Every variable is in this sum with a non-zero coefficient.)
    out_finite_ = std::isfinite(total);
    return;  // no tied variables: they are the row's zero-curvature ones
  }
  for (size_t k = 0; k < nq; ++k) {
    const double raw = -(g[k] + lambda * rq_a_[k]) * rq_hinv_[k];
    const double x = std::min(std::max(raw, rq_lo_[k]), rq_hi_[k]);
    const int i = rq_var_[k];
    out[i] = x;
    const bool inside = (raw > rq_lo_[k]) & (raw < rq_hi_[k]);  // branch-free, as EvalRow
    inv_curv_[i] = static_cast<double>(inside) * rq_hinv_[k];
    total += rq_a_[k] * x;
  }
  for (int pos : row_special_) {
    const int i = row_var_[pos];
    const double ai = row_a_[pos];
    double x;
    if (kind_[i] == Kind::kLinear && lambda == -g_[i] / ai) {
      // Indifferent variable: start from the clip solver's choice, adjust below.
      x = Clamp(0.0, lo_[i], hi_[i]);
      ties.push_back(pos);
      inv_curv_[i] = 0.0;
    } else {
      State state;
      x = SolveVar(i, g_[i] + lambda * ai, &state);
      inv_curv_[i] = state == State::kFree && std::isfinite(x) ? 1.0 / Curvature(i, x) : 0.0;
    }
    out[i] = x;
    total += ai * x;
  }
  if (ties.empty() || !std::isfinite(total)) return;
  // Tied variables absorb whatever the row still needs (they are indifferent at lambda).
  double delta = Clamp(total, lo_target, hi_target) - total;
  for (int pos : ties) {
    if (delta == 0.0) break;
    const int i = row_var_[pos];
    const double ai = row_a_[pos];
    // Room in a v: moving x toward hi raises it when a > 0.
    const double room_up = ai > 0.0 ? ai * (hi_[i] - out[i]) : ai * (lo_[i] - out[i]);
    const double room_down = ai > 0.0 ? ai * (lo_[i] - out[i]) : ai * (hi_[i] - out[i]);
    const double take = delta > 0.0 ? std::min(delta, room_up) : std::max(delta, room_down);
    out[i] += take / ai;
    delta -= take;
  }
}

bool SeparableCore::TryWarmNewton(double start,
                                  const RowEval* at_start,
                                  double rhs,
                                  double tol_r,
                                  double tol_exact,
                                  double* lambda_lo,
                                  double* lambda_hi,
                                  double* lambda,
                                  int max_one_sided) {
  double x = start;
  if (!(x >= *lambda_lo && x <= *lambda_hi)) return false;
  double best_x = x, best_f = kInf;
  bool start_above = false, one_sided = true;  // f > 0 at the start; every f since so too
  for (int step = 0; step < kMaxWarmNewtonSteps; ++step) {
    const RowEval e = step == 0 && at_start != nullptr ? *at_start : EvalRow(x);
    if (e.unbounded || e.minus != e.plus || !std::isfinite(e.plus)) break;
    const double f = e.plus - rhs;
    const double abs_f = std::fabs(f);
    if (step == 0) start_above = f > 0.0;
    one_sided = one_sided && (f > 0.0) == start_above;
    // Within tolerance and no longer improving: rounding level reached.
    if (best_f <= tol_r && abs_f >= best_f) break;
    if (abs_f < best_f) {
      best_f = abs_f;
      best_x = x;
    }
    if (abs_f <= tol_exact) break;
    if (f > 0.0) {
      *lambda_lo = x;
    } else {
      *lambda_hi = x;
    }
    // max_one_sided points, all on the start's side of the crossing: given up.
    if (one_sided && step + 1 >= max_one_sided) break;
    if (!(e.slope < 0.0)) break;
    const double next = x - f / e.slope;
    if (!(next > *lambda_lo && next < *lambda_hi)) break;
    x = next;
  }
  if (best_f > tol_r) return false;
  *lambda = best_x;
  return true;
}

// The row's target and the search's tolerances and first bracket; kInfeasible when no value
// within the bounds meets the row.
std::optional<BlockStatus> SeparableCore::StartRowSearch(double tolerance, RowSearch* s) {
  const double rhs = rhs_;
  const bool need_le = sense_ != Sense::kGreaterEqual;
  const bool need_ge = sense_ != Sense::kLessEqual;
  const double r_min = r_min_, r_max = r_max_;
  const bool min_open = min_open_, max_open = max_open_;
  s->scale = std::max(1.0, std::fabs(rhs));
  const double feas_tol = kRowFeasibilityTolerance * s->scale;
  if ((need_le && (r_min > rhs + feas_tol || (r_min >= rhs && min_open))) ||
      (need_ge && (r_max < rhs - feas_tol || (r_max <= rhs && max_open)))) {
    char buf[160];
    std::snprintf(buf,
                  sizeof(buf),
                  "row unreachable within bounds: a'v ranges over [%.9g, %.9g], rhs %.9g",
                  r_min,
                  r_max,
                  rhs);
    error_ = buf;
    return BlockStatus::kInfeasible;
  }
  // Within the tolerance, aim at the nearest reachable value instead.
  s->target = rhs;
  if (need_le) s->target = std::max(s->target, r_min);
  if (need_ge) s->target = std::min(s->target, r_max);
  s->tol_r = tolerance * s->scale;
  // Newton keeps going past tol_r while it still gains: on a linear piece the next step is
  // exact, which keeps warm and cold answers identical to rounding.
  s->tol_exact = 1e-15 * s->scale;
  // KKT: lambda >= 0 for <=, <= 0 for >=, free for =; at lambda = 0 the row may be slack.
  s->lo = sense_ == Sense::kLessEqual ? 0.0 : -kInf;
  s->hi = sense_ == Sense::kGreaterEqual ? 0.0 : kInf;
  return std::nullopt;
}

bool SeparableCore::RowNewton(double from,
                              const RowEval* at_from,
                              int max_one_sided,
                              RowSearch* s) {
  return TryWarmNewton(
      from, at_from, s->target, s->tol_r, s->tol_exact, &s->lo, &s->hi, &s->lambda, max_one_sided);
}

// The ADMM engine changes the data a little between solves, so the previous multiplier is
// usually one semismooth Newton step away. Evaluating there first also settles, in the common
// case of a binding row, that lambda = 0 is not optimal (r is non-increasing). Then Newton
// from the probe, when there is one. On the near side of the crossing (an inequality row whose
// multiplier moved toward 0, lambda = 0 not excluded) it gives up after kMaxTowardZeroOneSided
// points on the probe's side (a row turning slack) and lambda = 0 is evaluated next
// (SolveRowFromZero). (Newton from lambda = 0 alone crawls back across every piece in between:
// on the 1M-entry transport benchmark, a third of the resource rows' solves, 7 evaluations
// each.) A failed attempt still narrows the bracket, and with it the breakpoints to sort.
std::optional<BlockStatus> SeparableCore::SolveRowWarm(RowSearch* s, double* v) {
  s->from_zero = true;
  s->zero_excluded = false;
  if (!(have_last_lambda_ && last_lambda_ > s->lo && last_lambda_ < s->hi)) return std::nullopt;
  const RowEval probe = EvalRow(last_lambda_);
  if (probe.unbounded || probe.minus != probe.plus || !std::isfinite(probe.plus))
    return std::nullopt;
  if (sense_ == Sense::kLessEqual && probe.plus > s->target) {
    s->lo = last_lambda_;
    s->zero_excluded = true;
  } else if (sense_ == Sense::kGreaterEqual && probe.minus < s->target) {
    s->hi = last_lambda_;
    s->zero_excluded = true;
  }
  const bool toward_zero = !s->zero_excluded && sense_ != Sense::kEqual;
  if (toward_zero && sense_ == Sense::kLessEqual) s->hi = last_lambda_;
  if (toward_zero && sense_ == Sense::kGreaterEqual) s->lo = last_lambda_;
  if (RowNewton(
          last_lambda_, &probe, toward_zero ? kMaxTowardZeroOneSided : kMaxWarmNewtonSteps, s)) {
    FinishRow(s->lambda, s->target, s->target, v);
    lambda_ = s->lambda;
    return BlockStatus::kOptimal;
  }
  s->from_zero = toward_zero;
  // (A failed step with the crossing beyond it excludes 0.)
  if (toward_zero) s->zero_excluded = sense_ == Sense::kLessEqual ? s->lo > 0.0 : s->hi < 0.0;
  return std::nullopt;
}

// Newton from lambda = 0's first step (it lands well surprisingly often), after settling
// whether lambda = 0 is optimal; an equality row without a probe starts at 0.
std::optional<BlockStatus> SeparableCore::SolveRowFromZero(RowSearch* s, double* v) {
  if (!s->from_zero) return std::nullopt;
  const double target = s->target;
  double start = 0.0;
  if (sense_ != Sense::kEqual && !s->zero_excluded) {
    const RowEval e0 = EvalRow(0.0);
    if (e0.unbounded) {
      error_ = "objective unbounded below along the row";
      return BlockStatus::kUnbounded;
    }
    if (sense_ == Sense::kLessEqual) {
      if (e0.plus <= target) {
        FinishRow(0.0, e0.plus, std::min(target, e0.minus), v);
        lambda_ = 0.0;
        return BlockStatus::kOptimal;
      }
      start = e0.slope < 0.0 ? -(e0.plus - target) / e0.slope : kInf;
    } else {
      if (e0.minus >= target) {
        FinishRow(0.0, std::max(target, e0.plus), e0.minus, v);
        lambda_ = 0.0;
        return BlockStatus::kOptimal;
      }
      start = e0.slope < 0.0 ? -(e0.minus - target) / e0.slope : -kInf;
    }
  }
  if (start > s->lo && start < s->hi && RowNewton(start, nullptr, kMaxWarmNewtonSteps, s)) {
    FinishRow(s->lambda, target, target, v);
    lambda_ = s->lambda;
    return BlockStatus::kOptimal;
  }
  return std::nullopt;
}

// r(lambda) is non-increasing: the first breakpoint b with r(b+) <= target, by bisection over
// the bracket's breakpoints, into *first (bp.size(): none). Settles the solve when the crossing
// is at that breakpoint.
std::optional<BlockStatus> SeparableCore::SolveRowAtBreakpoint(RowSearch* s,
                                                               std::size_t* first_out,
                                                               double* v) {
  CollectBreakpoints(s->lo, s->hi, &breakpoints_);
  const std::vector<double>& bp = breakpoints_;
  const double target = s->target;
  size_t first = 0, last = bp.size();
  RowEval at_first;
  bool have_at_first = false;
  while (first < last) {
    const size_t mid = first + (last - first) / 2;
    const RowEval e = EvalRow(bp[mid]);
    if (e.unbounded) {
      error_ = "objective unbounded below along the row";
      return BlockStatus::kUnbounded;
    }
    if (e.plus <= target) {
      last = mid;
      at_first = e;
      have_at_first = true;
    } else {
      first = mid + 1;
    }
  }
  *first_out = first;
  if (first < bp.size()) {
    if (!have_at_first || at_first.minus == at_first.plus) at_first = EvalRow(bp[first]);
    if (at_first.minus >= target) {
      // The crossing is at the breakpoint itself (a jump, or an exact hit).
      const double t = Clamp(target, at_first.plus, at_first.minus);
      FinishRow(bp[first], t, t, v);
      lambda_ = bp[first];
      return BlockStatus::kOptimal;
    }
  }
  return std::nullopt;
}

// Between two breakpoints every variable keeps its regime: r is linear (pure quadratic) or
// smooth and strictly decreasing (logs). Safeguarded Newton on [s->lo, s->hi], exact in one
// step when linear: the best multiplier into s->lambda, its residual into *best_f, the bracket
// left in [s->lo, s->hi].
BlockStatus SeparableCore::RowNewtonBetween(RowSearch* s, double* best_f_out) {
  const double target = s->target, tol_r = s->tol_r, scale = s->scale;
  double& left = s->lo;
  double& right = s->hi;
  double x = InteriorPoint(left, right);
  double best = x, best_f = kInf;
  bool converged = false;
  for (int it = 0; it < kMaxNewtonIterations; ++it) {
    const RowEval e = EvalRow(x);
    if (e.unbounded) {
      error_ = "objective unbounded below along the row";
      return BlockStatus::kUnbounded;
    }
    const double f = e.plus - target;
    const double abs_f = std::fabs(f);
    if (best_f <= tol_r && abs_f >= best_f) {
      converged = true;  // within tolerance and no longer improving
      break;
    }
    if (abs_f < best_f) {
      best_f = abs_f;
      best = x;
    }
    if (abs_f <= s->tol_exact) {
      converged = true;
      break;
    }
    if (f > 0.0) {
      left = x;
    } else {
      right = x;
    }
    if (std::isfinite(left) && std::isfinite(right) && Collapsed(left, right)) {
      // The best lambda in floating point. Its residual is only rounding unless the data
      // are so extreme that r jumps between adjacent doubles; that is not an optimum.
      // Collapsed is absolute below |lambda| = 1: a small multiplier still has resolution
      // left (penalties 1,000 apart put the crossing at lambda 5e-4 with r moving 3e-8
      // across 1e-15), so the search goes on until the bracket is collapsed relatively.
      if (best_f <= kCollapsedRowTolerance * scale || CollapsedRelative(left, right)) {
        converged = best_f <= kCollapsedRowTolerance * scale;
        break;
      }
    }
    double next = std::isfinite(f) && e.slope < 0.0 ? x - f / e.slope : kInf;
    if (!(next > left && next < right)) next = InteriorPoint(left, right);
    if (!std::isfinite(next) || next == x) {
      converged = best_f <= tol_r;
      break;
    }
    x = next;
  }
  s->lambda = best;
  *best_f_out = best_f;
  return converged || best_f <= tol_r ? BlockStatus::kOptimal : BlockStatus::kError;
}

// Variables with a tiny curvature move r across the target between two adjacent multipliers
// [s->lo, s->hi]. Both ends' solutions keep the bounds, and the optimum at the
// (unrepresentable) crossing is their combination that puts the row on the target: into v,
// true when it is within the tolerance.
bool SeparableCore::CombineRowEnds(const RowSearch& s, double tolerance, double* v) {
  const double left = s.lo, right = s.hi, target = s.target;
  FinishRow(left, target, target, v);
  step_scratch_.assign(v, v + n_);
  const double r_left = RowActivity(v);
  FinishRow(right, target, target, v);
  const double r_right = RowActivity(v);
  if (!(r_left > target && r_right < target)) return false;
  const double theta = (target - r_right) / (r_left - r_right);
  // Every variable (a variable may appear in the row more than once; the others have the same
  // value at both ends).
  for (int i = 0; i < n_; ++i) v[i] = theta * step_scratch_[i] + (1 - theta) * v[i];
  // a'v sums terms that may be far larger than it: its rounding is relative to them.
  double magnitude = 0.0;
  if (compact_) {
    for (int i = 0; i < n_; ++i) magnitude += std::fabs(1.0 * v[i]);
  }
  for (std::size_t pos = 0; pos < row_var_.size(); ++pos)
    magnitude += std::fabs(row_a_[pos] * v[row_var_[pos]]);
  const double r = RowActivity(v);
  if (std::fabs(r - target) > tolerance * std::max(s.scale, magnitude)) return false;
  lambda_ = theta * left + (1 - theta) * right;
  return true;
}

// The row's multiplier lambda, in phases that narrow one bracket: a warm start from the last
// solve's multiplier, lambda = 0 and Newton from there, the breakpoints, and Newton between
// the two breakpoints that hold the crossing.
BlockStatus SeparableCore::SolveRow(double tolerance, double* v) {
  if (identity_row_) {
    rq_g_view_ = LinearData();
  } else {
    for (size_t k = 0; k < row_quadratic_.size(); ++k) rq_g_[k] = g_[row_var_[row_quadratic_[k]]];
    rq_g_view_ = rq_g_.data();
  }
  RowSearch s;
  if (const auto status = StartRowSearch(tolerance, &s)) return *status;
  if (const auto status = SolveRowWarm(&s, v)) return *status;
  if (const auto status = SolveRowFromZero(&s, v)) return *status;
  std::size_t first = 0;
  if (const auto status = SolveRowAtBreakpoint(&s, &first, v)) return *status;
  const std::vector<double>& bp = breakpoints_;
  s.lo = first == 0 ? s.lo : bp[first - 1];
  s.hi = first == bp.size() ? s.hi : bp[first];
  double best_f = kInf;
  const BlockStatus status = RowNewtonBetween(&s, &best_f);
  if (status == BlockStatus::kUnbounded) return status;
  if (status != BlockStatus::kOptimal) {
    if (std::isfinite(s.lo) && std::isfinite(s.hi) && CollapsedRelative(s.lo, s.hi) &&
        CombineRowEnds(s, tolerance, v))
      return BlockStatus::kOptimal;
    char buf[160];
    std::snprintf(buf,
                  sizeof(buf),
                  "row multiplier search did not converge: |a'v - rhs| = %.3g at lambda %.9g",
                  best_f,
                  s.lambda);
    error_ = buf;
    return BlockStatus::kError;
  }
  FinishRow(s.lambda, s.target, s.target, v);
  lambda_ = s.lambda;
  return BlockStatus::kOptimal;
}

BlockStatus SeparableCore::Solve(double tolerance, double* out) {
  error_.clear();
  const int n = num_vars();
  if (bad_var_ >= 0) {
    error_ = "variable " + std::to_string(bad_var_) + ": " + bad_var_reason_ + " (bounds [" +
             std::to_string(lo_[bad_var_]) + ", " + std::to_string(hi_[bad_var_]) + "])";
    return BlockStatus::kInfeasible;
  }
  for (int i : free_vars_) {
    State state;
    const double x = SolveVar(i, g_[i], &state);
    out[i] = x;
    inv_curv_[i] = state == State::kFree && std::isfinite(x) ? 1.0 / Curvature(i, x) : 0.0;
  }
  lambda_ = 0.0;
  row_active_ = false;
  out_finite_ = false;
  if (has_row_) {
    // A row over every variable in order: its evaluations write their minimizers into out, so
    // that the accepted one is the solution without another pass (on a failed search out holds
    // the last evaluation's; the callers keep no solution from a failed solve).
    eval_out_ = identity_row_ && !track_curvature_ ? out : nullptr;
    eval_out_valid_ = false;
    const BlockStatus status = SolveRow(tolerance, out);
    eval_out_ = nullptr;
    if (status != BlockStatus::kOptimal) return status;
    last_lambda_ = lambda_;
    have_last_lambda_ = true;
    row_active_ = sense_ == Sense::kEqual || lambda_ != 0.0;
  }
  // (An identity row's solution is every variable, and its activity was finite.)
  if ((identity_row_ && out_finite_) || AllFinite(out, static_cast<std::size_t>(n)))
    return BlockStatus::kOptimal;
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(out[i])) {
      error_ = "variable " + std::to_string(i) +
               " is unbounded (no curvature, no finite bound "
               "in its improving direction)";
      return BlockStatus::kUnbounded;
    }
  }
  return BlockStatus::kOptimal;
}

}  // namespace dede::internal
