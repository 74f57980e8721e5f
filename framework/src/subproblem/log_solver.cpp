#include "subproblem/log_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxOuterIterations = 400;
// Beyond this theta the log term dominates everything else: if a'v + b is still not positive,
// the feasible set has no point where the log is defined.
constexpr double kMaxTheta = 1e300;
// Largest bound or row violation accepted in a final point.
constexpr double kAcceptViolation = 1e-7;

}  // namespace

std::unique_ptr<LogSolver> LogSolver::Create(const BlockProblem& structure,
                                             const BlockSolverOptions& options,
                                             std::string* error) {
  int found = -1;
  for (size_t k = 0; k < structure.logs.size(); ++k) {
    if (structure.logs[k].index.size() < 2) continue;
    if (found >= 0) {
      *error = "log solver: block has more than one multi-variable log term";
      return nullptr;
    }
    found = static_cast<int>(k);
  }
  if (found < 0) {
    *error = "log solver: block has no multi-variable log term";
    return nullptr;
  }
  std::unique_ptr<LogSolver> solver(new LogSolver());
  if (!solver->core_.Init(structure, found, error)) return nullptr;
  solver->domain_problem_ = structure;
  solver->domain_problem_.logs.clear();
  if (!solver->domain_core_.Init(solver->domain_problem_, -1, error)) return nullptr;
  solver->options_ = options;
  solver->num_vars_ = structure.num_vars();
  solver->num_rows_ = static_cast<int>(structure.rows.size());
  solver->log_index_ = found;
  solver->log_var_ = structure.logs[found].index;
  solver->log_a_.assign(solver->log_var_.size(), 0.0);
  solver->base_g_.assign(solver->log_var_.size(), 0.0);
  return solver;
}

BlockStatus LogSolver::Inner(double theta, double* sigma, double* dsigma) {
  std::vector<double>& g = core_.linear();
  for (size_t k = 0; k < log_var_.size(); ++k) g[log_var_[k]] = base_g_[k] - theta * log_a_[k];
  const BlockStatus status = core_.Solve(options_.tolerance, &scratch_);
  if (status != BlockStatus::kOptimal) return status;
  double s = log_b_;
  for (size_t k = 0; k < log_var_.size(); ++k) s += log_a_[k] * scratch_[log_var_[k]];
  *sigma = s;
  *dsigma = core_.Sensitivity(log_var_, log_a_);
  return BlockStatus::kOptimal;
}

BlockStatus LogSolver::LoadDomain(const BlockProblem& problem) {
  BlockProblem& d = domain_problem_;
  d.lower = problem.lower;
  d.upper = problem.upper;
  d.rows = problem.rows;
  d.quadratic.assign(d.quadratic.size(), 0.0);
  d.prox_weight.assign(d.prox_weight.size(), 0.0);
  d.linear.assign(d.linear.size(), 0.0);
  for (size_t k = 0; k < log_var_.size(); ++k) d.linear[log_var_[k]] = -log_a_[k];
  domain_core_.LoadParameters(d);
  domain_core_.LoadLinear(d);
  const BlockStatus status = domain_core_.Solve(options_.tolerance, &scratch_);
  if (status == BlockStatus::kUnbounded) {
    max_argument_ = kInf;
    return BlockStatus::kOptimal;
  }
  if (status != BlockStatus::kOptimal) {
    error_ = domain_core_.last_error();
    return status;
  }
  max_argument_ = log_b_;
  for (size_t k = 0; k < log_var_.size(); ++k) max_argument_ += log_a_[k] * scratch_[log_var_[k]];
  return BlockStatus::kOptimal;
}

BlockStatus LogSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  error_.clear();
  if (problem.num_vars() != num_vars_ || static_cast<int>(problem.rows.size()) != num_rows_ ||
      static_cast<int>(problem.logs.size()) <= log_index_) {
    error_ = "block structure changed since the solver was created";
    return BlockStatus::kError;
  }
  if (!loaded_ || problem.revision != revision_) {
    core_.LoadParameters(problem);
    const BlockLog& log = problem.logs[log_index_];
    log_a_ = log.coef;
    log_b_ = log.constant;
    log_w_ = log.weight;
    revision_ = problem.revision;
    loaded_ = true;
    domain_status_ = LoadDomain(problem);
  }
  if (domain_status_ != BlockStatus::kOptimal) return domain_status_;
  core_.LoadLinear(problem);
  for (size_t k = 0; k < log_var_.size(); ++k) base_g_[k] = core_.linear()[log_var_[k]];

  double sigma = 0.0, dsigma = 0.0;
  const bool trivial =
      log_w_ <= 0.0 || std::all_of(log_a_.begin(), log_a_.end(), [](double a) { return a == 0.0; });
  if (trivial) {
    // The log is absent or constant: a plain separable block.
    const BlockStatus status = Inner(0.0, &sigma, &dsigma);
    error_ = core_.last_error();
    if (status == BlockStatus::kOptimal) v->swap(scratch_);
    return status;
  }

  if (!(max_argument_ > 0.0)) {
    char buf[160];
    std::snprintf(buf,
                  sizeof(buf),
                  "log term argument a'v + b is at most %.9g over the rows and bounds",
                  max_argument_);
    error_ = buf;
    return BlockStatus::kInfeasible;
  }

  // Start from the last price, or from theta = w / sigma(0): there G >= 0 because sigma is
  // non-decreasing, so it is an upper bracket and Newton moves down monotonically.
  double theta;
  if (have_theta_ && last_theta_ > 0.0) {
    theta = last_theta_;
  } else {
    const BlockStatus status = Inner(0.0, &sigma, &dsigma);
    if (status != BlockStatus::kOptimal) {
      error_ = core_.last_error();
      return status;
    }
    theta = sigma > 0.0 ? log_w_ / sigma : 1.0;
  }
  const double tol = options_.tolerance;
  double lo = 0.0, hi = kInf;  // G(lo) < 0 < G(hi); G(0+) = -inf
  bool converged = false;
  // Newton continues past the tolerance while it still gains (quadratic convergence makes
  // that one more inner solve); the best point so far is kept.
  double best_g = kInf, best_theta = theta;
  for (int it = 0; it < kMaxOuterIterations; ++it) {
    const BlockStatus status = Inner(theta, &sigma, &dsigma);
    if (status != BlockStatus::kOptimal) {
      error_ = core_.last_error();
      return status;
    }
    const double s = log_w_ / theta;
    const double G = sigma - s;
    const double abs_g = std::fabs(G);
    const double tol_s = tol * std::max(1.0, s);
    if (sigma > 0.0 && best_g <= tol_s && abs_g >= 0.5 * best_g) {
      converged = true;  // within tolerance and no longer gaining
      break;
    }
    if (sigma > 0.0 && abs_g < best_g) {
      best_g = abs_g;
      best_theta = theta;
      best_v_ = scratch_;
    }
    if (sigma > 0.0 && abs_g <= 1e-15 * std::max(1.0, s)) {
      converged = true;
      break;
    }
    if (G < 0.0) {
      lo = theta;
    } else {
      hi = theta;
    }
    if (lo > 0.0 && std::isfinite(hi) &&
        hi - lo <= 4.0 * std::numeric_limits<double>::epsilon() * hi) {
      converged = best_g <= tol_s;
      break;
    }
    double next = theta - G / (dsigma + log_w_ / (theta * theta));
    if (!(next > lo && next < hi)) {
      if (!std::isfinite(hi)) {
        next = 4.0 * theta;
      } else if (lo == 0.0) {
        next = 0.25 * hi;
      } else {
        next = std::sqrt(lo * hi);  // geometric: theta may span many orders of magnitude
      }
    }
    if (next > kMaxTheta) {
      error_ =
          "log term argument a'v + b cannot be made positive within the block's "
          "constraints";
      return BlockStatus::kInfeasible;
    }
    theta = next;
  }
  // When the iterations stall, floating-point resolution of the inner solves (not the
  // method) limits |G|; a residual this small still moves the ADMM iterate by far less than
  // its own tolerances, so the best point is accepted (the feasibility check below stays).
  constexpr double kAcceptResidual = 1e-8;
  if (converged || best_g <= std::max(tol, kAcceptResidual) * std::max(1.0, log_w_ / best_theta)) {
    converged = true;
    theta = best_theta;
    scratch_.swap(best_v_);
  }
  if (!converged) {
    char buf[200];
    std::snprintf(buf,
                  sizeof(buf),
                  "log solver: root search for the log term's price did not converge "
                  "(|a'v + b - w/theta| = %.3g); a variable of the log may have lost curvature",
                  best_g);
    error_ = buf;
    return BlockStatus::kError;
  }
  // The price search is exact only while theta's arithmetic is: near an almost empty log
  // domain it is not, so the point is checked before it is called optimal.
  const double violation = MaxBlockViolation(problem, scratch_);
  if (violation > kAcceptViolation) {
    char buf[200];
    std::snprintf(buf,
                  sizeof(buf),
                  "log solver: point at price %.3g violates the block by %.3g (log argument at "
                  "most %.3g over the feasible set)",
                  theta,
                  violation,
                  max_argument_);
    error_ = buf;
    return BlockStatus::kError;
  }
  last_theta_ = theta;
  have_theta_ = true;
  v->swap(scratch_);
  return BlockStatus::kOptimal;
}

}  // namespace dede::internal
