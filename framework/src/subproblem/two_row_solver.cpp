#include "subproblem/two_row_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxOuterIterations = 300;
constexpr double kMaxMultiplier = 1e300;
// Largest scaled violation (ScaledBlockViolation) accepted in a final point.
constexpr double kAcceptViolation = 1e-7;

}  // namespace

std::unique_ptr<TwoRowSolver> TwoRowSolver::Create(const BlockProblem& structure,
                                                   const BlockSolverOptions& options,
                                                   std::string* error) {
  if (structure.rows.size() != 2) {
    *error = "two_row solver: block has " + std::to_string(structure.rows.size()) +
             " rows; needs exactly 2";
    return nullptr;
  }
  for (const BlockLog& log : structure.logs) {
    if (log.index.size() >= 2) {
      *error = "two_row solver: block has a log term over several variables";
      return nullptr;
    }
  }
  std::unique_ptr<TwoRowSolver> solver(new TwoRowSolver());
  solver->core_problem_ = structure;
  solver->core_problem_.rows.resize(1);
  if (!solver->core_.Init(solver->core_problem_, -1, error)) return nullptr;
  solver->range_problem_ = solver->core_problem_;
  solver->range_problem_.logs.clear();
  solver->range_problem_.quadratic.assign(solver->range_problem_.quadratic.size(), 0.0);
  solver->range_problem_.prox_weight.assign(solver->range_problem_.prox_weight.size(), 0.0);
  if (!solver->range_core_.Init(solver->range_problem_, -1, error)) return nullptr;
  solver->options_ = options;
  solver->num_vars_ = structure.num_vars();
  solver->b_var_ = structure.rows[1].index;
  solver->b_coef_ = structure.rows[1].coef.ToVector();
  solver->b_dense_.assign(solver->num_vars_, 0.0);
  solver->base_g_.assign(solver->num_vars_, 0.0);
  return solver;
}

BlockStatus TwoRowSolver::LoadRange() {
  BlockProblem& r = range_problem_;
  r.linear.assign(r.linear.size(), 0.0);
  ++r.revision;
  range_core_.LoadParameters(r);
  double ends[2];
  for (int side = 0; side < 2; ++side) {
    // side 0: min b'v; side 1: max b'v (min -b'v).
    for (std::size_t k = 0; k < b_var_.size(); ++k) {
      r.linear[b_var_[k]] = side == 0 ? b_coef_[k] : -b_coef_[k];
    }
    range_core_.LoadLinear(r);
    const BlockStatus status = range_core_.Solve(options_.tolerance, &scratch_);
    if (status == BlockStatus::kUnbounded) {
      ends[side] = side == 0 ? -kInf : kInf;
      continue;
    }
    if (status != BlockStatus::kOptimal) {
      error_ = "two_row solver: the first row and the bounds: " + range_core_.last_error();
      return status;
    }
    double s = 0.0;
    for (std::size_t k = 0; k < b_var_.size(); ++k) s += b_coef_[k] * scratch_[b_var_[k]];
    ends[side] = s;
  }
  range_min_ = ends[0];
  range_max_ = ends[1];
  return BlockStatus::kOptimal;
}

BlockStatus TwoRowSolver::Inner(double mu, double* s, double* ds) {
  std::vector<double>& g = core_.linear();
  for (std::size_t k = 0; k < b_var_.size(); ++k) {
    g[b_var_[k]] = base_g_[b_var_[k]] + mu * b_coef_[k];
  }
  const BlockStatus status = core_.Solve(options_.tolerance, &scratch_);
  if (status != BlockStatus::kOptimal) return status;
  double sum = 0.0;
  for (std::size_t k = 0; k < b_var_.size(); ++k) sum += b_coef_[k] * scratch_[b_var_[k]];
  *s = sum;
  // v moves by -d_i b_i per unit of mu on free variables (the first row kept tight).
  *ds = -core_.Sensitivity(b_var_, b_coef_);
  return BlockStatus::kOptimal;
}

void TwoRowSolver::LoadParameters(const BlockProblem& problem) {
  BlockProblem& cp = core_problem_;
  cp.lower = problem.lower;
  cp.upper = problem.upper;
  cp.quadratic = problem.quadratic;
  cp.prox_weight = problem.prox_weight;
  cp.rows[0] = problem.rows[0];
  cp.logs = problem.logs;
  ++cp.revision;
  core_.LoadParameters(cp);
  const BlockRow& b = problem.rows[1];
  b_coef_ = b.coef.ToVector();
  b_sense_ = b.sense;
  b_rhs_ = b.rhs;
  range_problem_.lower = problem.lower;
  range_problem_.upper = problem.upper;
  range_problem_.rows[0] = problem.rows[0];
  range_status_ = LoadRange();
  revision_ = problem.revision;
  loaded_ = true;
}

bool TwoRowSolver::SecondRowReachable() {
  const double rhs = b_rhs_;
  const double slack = 1e-9 * std::max(1.0, std::fabs(rhs));
  const bool below = b_sense_ != Sense::kGreaterEqual && range_min_ > rhs + slack;
  const bool above = b_sense_ != Sense::kLessEqual && range_max_ < rhs - slack;
  if (!below && !above) return true;
  char buf[200];
  std::snprintf(buf,
                sizeof(buf),
                "two_row solver: the second row needs %s %.9g but reaches [%.9g, %.9g] over "
                "the first row and the bounds",
                b_sense_ == Sense::kEqual ? "="
                : below                   ? "<="
                                          : ">=",
                rhs,
                range_min_,
                range_max_);
  error_ = buf;
  return false;
}

double TwoRowSolver::NextMultiplier(
    double mu, double f, double ds, double lo, double hi, double* expand) {
  double next = ds < 0.0 ? mu - f / ds : std::nan("");
  if (!(next > lo && next < hi)) {
    if (std::isfinite(lo) && std::isfinite(hi)) {
      next = 0.5 * (lo + hi);
    } else if (std::isfinite(lo)) {
      next = lo + *expand;
      *expand *= 4.0;
    } else {
      next = hi - *expand;
      *expand *= 4.0;
    }
  }
  return next;
}

bool TwoRowSolver::CombineBracketEnds(const BlockProblem& problem,
                                      double lo,
                                      double hi,
                                      double f_lo,
                                      double f_hi,
                                      double* violation,
                                      double* best_mu) {
  const double theta = -f_hi / (f_lo - f_hi);
  scratch_.resize(static_cast<std::size_t>(num_vars_));
  for (int i = 0; i < num_vars_; ++i) scratch_[i] = theta * lo_v_[i] + (1 - theta) * hi_v_[i];
  const double combined = ScaledBlockViolation(problem, scratch_);
  if (!(combined < *violation)) return false;
  *violation = combined;
  best_v_ = scratch_;
  *best_mu = theta * lo + (1 - theta) * hi;
  return true;
}

BlockStatus TwoRowSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  error_.clear();
  if (problem.num_vars() != num_vars_ || problem.rows.size() != 2 ||
      problem.rows[1].index.size() != b_var_.size()) {
    error_ = "block structure changed since the solver was created";
    return BlockStatus::kError;
  }
  BlockProblem& cp = core_problem_;
  if (!loaded_ || problem.revision != revision_) LoadParameters(problem);
  if (range_status_ != BlockStatus::kOptimal) return range_status_;
  const double rhs = b_rhs_;
  if (!SecondRowReachable()) return BlockStatus::kInfeasible;
  cp.linear = problem.linear;
  cp.prox_target = problem.prox_target;
  core_.LoadLinear(cp);
  base_g_ = core_.linear();

  // mu's domain by the row's sense; F(mu) = s(mu) - rhs is non-increasing.
  const double allowed_lo = b_sense_ == Sense::kLessEqual ? 0.0 : -kInf;
  const double allowed_hi = b_sense_ == Sense::kGreaterEqual ? 0.0 : kInf;
  double mu = have_mu_ ? std::clamp(last_mu_, allowed_lo, allowed_hi) : 0.0;
  if (!std::isfinite(mu)) mu = 0.0;
  double lo = -kInf, hi = kInf;  // F(lo) > 0 > F(hi)
  double expand = std::max(1.0, std::fabs(mu));
  double best = kInf, best_mu = mu;
  bool converged = false;
  bool have_good = false;
  double good_mu = mu;
  int failures = 0;
  double f_lo = 0, f_hi = 0;  // F at the bracket's ends, once they are finite
  for (int it = 0; it < kMaxOuterIterations; ++it) {
    double s = 0.0, ds = 0.0;
    const BlockStatus status = Inner(mu, &s, &ds);
    if (status != BlockStatus::kOptimal) {
      // The first row's own search can break down at an extreme mu (a second row whose rhs
      // sits at the end of its reachable range sends mu towards infinity): step back towards
      // the last good multiplier, as if mu had overshot.
      if (!have_good || ++failures > 60) {
        if (!have_good) {
          error_ = core_.last_error();
          return status;
        }
        break;
      }
      if (mu > good_mu) {
        hi = mu;
      } else {
        lo = mu;
      }
      mu = 0.5 * (good_mu + mu);
      continue;
    }
    have_good = true;
    good_mu = mu;
    double magnitude = std::fabs(rhs);
    for (std::size_t k = 0; k < b_var_.size(); ++k) {
      magnitude += std::fabs(b_coef_[k] * scratch_[b_var_[k]]);
    }
    const double tol = options_.tolerance * std::max(1.0, magnitude);
    const double f = s - rhs;
    // At the end of mu's domain a slack row is optimal (complementarity).
    const bool slack_at_end = (mu == allowed_lo && f < 0.0) || (mu == allowed_hi && f > 0.0);
    const double residual = slack_at_end ? 0.0 : std::fabs(f);
    if (residual < best) {
      best = residual;
      best_mu = mu;
      best_v_ = scratch_;
    }
    if (residual <= tol) {
      converged = true;
      break;
    }
    if (f > 0.0) {
      lo = mu;
      f_lo = f;
      lo_v_.swap(scratch_);  // the next Inner rewrites scratch_ whole: no copy on this path
    } else {
      hi = mu;
      f_hi = f;
      hi_v_.swap(scratch_);
    }
    if (std::isfinite(lo) && std::isfinite(hi) &&
        hi - lo <=
            4.0 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(lo), std::fabs(hi))) {
      break;
    }
    const double next =
        std::clamp(NextMultiplier(mu, f, ds, lo, hi, &expand), allowed_lo, allowed_hi);
    if (next == mu) break;  // pinned at the end of the domain with the wrong sign: stalled
    if (std::fabs(next) > kMaxMultiplier) break;
    mu = next;
  }
  // Floating-point resolution of the inner solves can stall the search a little above the
  // tolerance; the point is accepted when the block's scaled violation is still tiny.
  if (best_v_.size() != static_cast<std::size_t>(num_vars_)) {
    error_ = "two_row solver: no inner solution";
    return BlockStatus::kError;
  }
  double violation = ScaledBlockViolation(problem, best_v_);
  if (!converged && violation > kAcceptViolation && std::isfinite(lo) && std::isfinite(hi) &&
      f_lo > 0.0 && f_hi < 0.0) {
    // The bracket has collapsed onto a step of s(mu) too steep for doubles (a variable with
    // a tiny penalty in the second row: its value jumps between adjacent multipliers). The
    // two end solutions both satisfy the first row and the bounds, so the combination that
    // puts the second row on its right-hand side does too, and is optimal up to the
    // bracket's width.
    if (CombineBracketEnds(problem, lo, hi, f_lo, f_hi, &violation, &best_mu)) best = 0;
  }
  if (!converged && violation > kAcceptViolation) {
    char buf[200];
    std::snprintf(buf,
                  sizeof(buf),
                  "two_row solver: multiplier search did not converge (residual %.3g at mu %.3g)",
                  best,
                  best_mu);
    error_ = buf;
    return BlockStatus::kError;
  }
  if (violation > kAcceptViolation) {
    char buf[160];
    std::snprintf(
        buf, sizeof(buf), "two_row solver: point violates the block by %.3g (relative)", violation);
    error_ = buf;
    return BlockStatus::kError;
  }
  last_mu_ = best_mu;
  have_mu_ = true;
  v->swap(best_v_);
  return BlockStatus::kOptimal;
}

}  // namespace dede::internal
