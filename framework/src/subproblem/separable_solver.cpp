#include "subproblem/separable_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "subproblem/separable_detail.h"

namespace dede::internal {

using namespace separable_detail;

// ---- SeparableCore: set-up ------------------------------------------------------------------

bool SeparableCore::Init(const BlockProblem& structure, int skip_log, std::string* error) {
  const int n = structure.num_vars();
  if (structure.rows.size() > 1) {
    *error = "separable solver: block has " + std::to_string(structure.rows.size()) +
             " rows; at most 1 is supported";
    return false;
  }
  std::vector<std::vector<int>> per_var(n);
  for (size_t k = 0; k < structure.logs.size(); ++k) {
    if (static_cast<int>(k) == skip_log) continue;
    const BlockLog& log = structure.logs[k];
    if (log.index.size() > 1) {
      *error = "separable solver: log term " + std::to_string(k) + " has " +
               std::to_string(log.index.size()) +
               " variables; only one-variable logs are separable";
      return false;
    }
    if (log.index.size() == 1) per_var[log.index[0]].push_back(static_cast<int>(k));
  }
  // Without logs no index at all (4 bytes a variable in every block otherwise).
  log_source_begin_.clear();
  log_source_.clear();
  if (std::any_of(per_var.begin(), per_var.end(), [](const auto& l) { return !l.empty(); })) {
    log_source_begin_.assign(n + 1, 0);
    for (int i = 0; i < n; ++i) {
      log_source_.insert(log_source_.end(), per_var[i].begin(), per_var[i].end());
      log_source_begin_[i + 1] = static_cast<int>(log_source_.size());
    }
  }
  n_ = n;
  // g and the other per-variable arrays come with the first LoadParameters (AllocateFull), or
  // never (LoadCompact): sized here for every block they made the engine's set-up peak 8
  // bytes a slot above what its iterations hold.
  has_row_ = structure.rows.size() == 1;
  return true;
}

void SeparableCore::AllocateFull() {
  const int n = n_;
  if (static_cast<int>(h_.size()) == n && !compact_) return;
  g_.assign(n, 0.0);
  log_begin_.assign(n + 1, 0);
  h_.assign(n, 0.0);
  lo_.assign(n, 0.0);
  hi_.assign(n, 0.0);
  dom_lo_.assign(n, -kInf);
  dom_hi_.assign(n, kInf);
  kind_.assign(n, Kind::kLinear);
  inv_curv_.assign(n, 0.0);
  row_coef_dense_.assign(n, 0.0);
  compact_ = false;
}

bool SeparableCore::LoadCompact(const BlockProblem& problem) {
  const int n = n_;
  if (track_curvature_ || !specialize_ || !has_row_ || !log_source_.empty() || n == 0) return false;
  const BlockRow& row = problem.rows[0];
  if (static_cast<int>(row.index.size()) != n) return false;
  const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  const double h = 2.0 * problem.quadratic[0] + problem.prox_weight[0];
  const double lo = problem.lower[0], hi = problem.upper[0];
  if (!(h > 0.0) || !(lo <= hi)) return false;
  for (int i = 0; i < n; ++i) {
    if (row.index[i] != i || row.coef[i] != 1.0) return false;
    if (!same(2.0 * problem.quadratic[i] + problem.prox_weight[i], h) ||
        !same(problem.lower[i], lo) || !same(problem.upper[i], hi)) {
      return false;
    }
  }
  // What LoadParameters and LoadRow would hold, as scalars.
  compact_ = true;
  sense_ = row.sense;
  rhs_ = row.rhs;
  nq_ = static_cast<std::size_t>(n);
  identity_row_ = unit_row_ = uniform_row_ = true;
  uniform_hinv_ = 1.0 / h;
  uniform_lo_ = lo;
  uniform_hi_ = hi;
  bad_var_ = -1;
  bad_var_reason_ = nullptr;
  // The reachable range of the row, summed as LoadRow sums it (no log domains here).
  r_min_ = r_max_ = 0.0;
  min_open_ = max_open_ = false;
  for (int i = 0; i < n; ++i) {
    r_min_ += 1.0 * lo;
    r_max_ += 1.0 * hi;
  }
  const auto release = [](auto& v) { std::remove_reference_t<decltype(v)>().swap(v); };
  release(g_);  // a compact solve takes g from the caller's buffer (UseLinearBuffer)
  release(logs_);
  release(log_begin_);
  release(h_);
  release(lo_);
  release(hi_);
  release(dom_lo_);
  release(dom_hi_);
  release(kind_);
  release(inv_curv_);
  release(row_coef_dense_);
  release(row_var_);
  release(row_a_);
  release(row_quadratic_);
  release(row_special_);
  release(rq_a_);
  release(rq_hinv_);
  release(rq_curv_);
  release(rq_lo_);
  release(rq_hi_);
  release(rq_g_);
  release(rq_var_);
  release(free_vars_);
  return true;
}

void SeparableCore::LoadParameters(const BlockProblem& problem) {
  if (LoadCompact(problem)) return;
  AllocateFull();
  const int n = num_vars();
  logs_.clear();
  for (int i = 0; i < n; ++i) {
    h_[i] = 2.0 * problem.quadratic[i] + problem.prox_weight[i];
    lo_[i] = problem.lower[i];
    hi_[i] = problem.upper[i];
    dom_lo_[i] = -kInf;
    dom_hi_[i] = kInf;
    const int first_log = log_source_.empty() ? 0 : log_source_begin_[i];
    const int end_log = log_source_.empty() ? 0 : log_source_begin_[i + 1];
    for (int k = first_log; k < end_log; ++k) {
      const BlockLog& log = problem.logs[log_source_[k]];
      const double alpha = log.coef[0];
      // A zero weight removes the term; a zero coefficient makes it a constant.
      if (log.weight <= 0.0 || alpha == 0.0) continue;
      logs_.push_back({alpha, log.constant, log.weight});
      const double boundary = -log.constant / alpha;  // alpha v + beta > 0 beyond this point
      if (alpha > 0.0) {
        dom_lo_[i] = std::max(dom_lo_[i], boundary);
      } else {
        dom_hi_[i] = std::min(dom_hi_[i], boundary);
      }
    }
    log_begin_[i + 1] = static_cast<int>(logs_.size());
    if (log_begin_[i + 1] > log_begin_[i]) {
      kind_[i] = Kind::kLog;
    } else {
      kind_[i] = h_[i] > 0.0 ? Kind::kQuadratic : Kind::kLinear;
    }
  }

  // Data errors that do not depend on the linear terms are found once per revision.
  bad_var_ = -1;
  bad_var_reason_ = nullptr;
  for (int i = 0; i < n && bad_var_ < 0; ++i) {
    if (lo_[i] > hi_[i] || std::isnan(lo_[i]) || std::isnan(hi_[i])) {
      bad_var_ = i;
      bad_var_reason_ = "lower bound > upper bound";
    } else if (kind_[i] == Kind::kLog &&
               (std::max(lo_[i], dom_lo_[i]) > std::min(hi_[i], dom_hi_[i]) ||
                (std::max(lo_[i], dom_lo_[i]) == std::min(hi_[i], dom_hi_[i]) &&
                 !(lo_[i] > dom_lo_[i] && hi_[i] < dom_hi_[i])))) {
      bad_var_ = i;
      bad_var_reason_ = "bounds exclude the domain of its log term";
    }
  }

  row_var_.clear();
  row_a_.clear();
  row_quadratic_.clear();
  row_special_.clear();
  std::fill(row_coef_dense_.begin(), row_coef_dense_.end(), 0.0);
  if (has_row_) LoadRow(problem.rows[0]);
  free_vars_.clear();
  for (int i = 0; i < n; ++i) {
    if (row_coef_dense_[i] == 0.0) free_vars_.push_back(i);
  }
  identity_row_ = specialize_ && has_row_ && free_vars_.empty() && row_special_.empty() &&
                  static_cast<int>(rq_var_.size()) == n;
  for (int k = 0; identity_row_ && k < n; ++k) identity_row_ = rq_var_[k] == k;
}

void SeparableCore::LoadRow(const BlockRow& row) {
  sense_ = row.sense;
  rhs_ = row.rhs;
  for (size_t k = 0; k < row.index.size(); ++k) {
    if (row.coef[k] == 0.0) continue;
    const int i = row.index[k];
    const int pos = static_cast<int>(row_var_.size());
    row_var_.push_back(i);
    row_a_.push_back(row.coef[k]);
    row_coef_dense_[i] = row.coef[k];
    (kind_[i] == Kind::kQuadratic ? row_quadratic_ : row_special_).push_back(pos);
  }
  const size_t nq = row_quadratic_.size();
  nq_ = nq;
  rq_a_.resize(nq);
  rq_hinv_.resize(nq);
  rq_curv_.resize(nq);
  rq_lo_.resize(nq);
  rq_hi_.resize(nq);
  rq_g_.resize(nq);
  rq_var_.resize(nq);
  for (size_t k = 0; k < nq; ++k) {
    const int pos = row_quadratic_[k];
    const int i = row_var_[pos];
    rq_var_[k] = i;
    rq_a_[k] = row_a_[pos];
    rq_hinv_[k] = 1.0 / h_[i];
    rq_curv_[k] = rq_a_[k] * rq_a_[k] * rq_hinv_[k];
    rq_lo_[k] = lo_[i];
    rq_hi_[k] = hi_[i];
  }
  unit_row_ = specialize_ && nq > 0;
  for (size_t k = 0; unit_row_ && k < nq; ++k) unit_row_ = rq_a_[k] == 1.0;
  uniform_row_ = unit_row_;
  if (uniform_row_) {
    uniform_hinv_ = rq_hinv_[0];
    uniform_lo_ = rq_lo_[0];
    uniform_hi_ = rq_hi_[0];
  }
  // Bitwise equality (not ==): -0.0 and 0.0 must not be merged, NaN bounds never are.
  const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  for (size_t k = 1; uniform_row_ && k < nq; ++k) {
    uniform_row_ = same(rq_hinv_[k], uniform_hinv_) && same(rq_lo_[k], uniform_lo_) &&
                   same(rq_hi_[k], uniform_hi_);
  }
  // Reachable range of a'v over the bounds and the open log domains.
  r_min_ = r_max_ = 0.0;
  min_open_ = max_open_ = false;
  for (size_t pos = 0; pos < row_var_.size(); ++pos) {
    const int i = row_var_[pos];
    const double ai = row_a_[pos];
    const bool lo_closed = lo_[i] > dom_lo_[i];
    const bool hi_closed = hi_[i] < dom_hi_[i];
    const double lo = lo_closed ? lo_[i] : dom_lo_[i];
    const double hi = hi_closed ? hi_[i] : dom_hi_[i];
    if (ai > 0.0) {
      r_min_ += ai * lo;
      r_max_ += ai * hi;
      min_open_ |= !lo_closed && std::isfinite(lo);
      max_open_ |= !hi_closed && std::isfinite(hi);
    } else {
      r_min_ += ai * hi;
      r_max_ += ai * lo;
      min_open_ |= !hi_closed && std::isfinite(hi);
      max_open_ |= !lo_closed && std::isfinite(lo);
    }
  }
}

void SeparableCore::LoadLinear(const BlockProblem& problem, const double* target) {
  const int n = num_vars();
  const double* t = target;
  double* g = LinearData();
  // The same arithmetic per variable in every branch; one penalty (and one cost) for all
  // variables is the common case (transport, link blocks) and reads one stream, not three.
  if (problem.prox_weight.uniform()) {
    const double p = problem.prox_weight.value();
    if (problem.linear.uniform()) {
      const double c = problem.linear.value();
      for (int i = 0; i < n; ++i) g[i] = c - p * t[i];
    } else {
      const double* c = problem.linear.data();
      for (int i = 0; i < n; ++i) g[i] = c[i] - p * t[i];
    }
    return;
  }
  const SlotValues::View c = problem.linear.view();
  const double* p = problem.prox_weight.data();
  for (int i = 0; i < n; ++i) g[i] = c[i] - p[i] * t[i];
}

double SeparableCore::Sensitivity(const std::vector<int>& index,
                                  const std::vector<double>& coef) const {
  double aa = 0.0, ar = 0.0;
  for (size_t k = 0; k < index.size(); ++k) {
    const double d = inv_curv_[index[k]];
    aa += coef[k] * coef[k] * d;
    ar += coef[k] * row_coef_dense_[index[k]] * d;
  }
  double slope = aa;
  if (row_active_) {
    double rr = 0.0;
    for (size_t k = 0; k < row_var_.size(); ++k)
      rr += row_a_[k] * row_a_[k] * inv_curv_[row_var_[k]];
    if (rr > 0.0) slope -= ar * ar / rr;
  }
  return std::max(slope, 0.0);
}

// ---- SeparableSolver ------------------------------------------------------------------------

std::unique_ptr<SeparableSolver> SeparableSolver::Create(const BlockProblem& structure,
                                                         const BlockSolverOptions& options,
                                                         std::string* error) {
  std::unique_ptr<SeparableSolver> solver(new SeparableSolver());
  if (!solver->core_.Init(structure, -1, error)) return nullptr;
  solver->options_ = options;
  solver->num_vars_ = structure.num_vars();
  solver->num_rows_ = static_cast<int>(structure.rows.size());
  solver->core_.set_track_curvature(false);
  return solver;
}

BlockStatus SeparableSolver::SolveInPlace(const BlockProblem& problem, const double* t, double* v) {
  return SolveWith(problem, t, nullptr, v);
}

BlockStatus SeparableSolver::SolveFromLinear(const BlockProblem& problem,
                                             const double* g,
                                             double* v) {
  return SolveWith(problem, nullptr, g, v);
}

BlockStatus SeparableSolver::SolveWith(const BlockProblem& problem,
                                       const double* t,
                                       const double* g,
                                       double* v) {
  if (problem.num_vars() != num_vars_ || static_cast<int>(problem.rows.size()) != num_rows_) {
    error_ = "block structure changed since the solver was created";
    return BlockStatus::kError;
  }
  if (!loaded_ || problem.revision != revision_) {
    core_.LoadParameters(problem);
    revision_ = problem.revision;
    loaded_ = true;
  }
  // A compact block's g lives only for the solve: one buffer per thread instead of 8 bytes
  // per slot in every block (and it stays in cache from one block to the next).
  // The caller's g is used where it lies (Solve only reads the linear buffer), or copied into
  // the core's own g where the core keeps one.
  thread_local std::vector<double> buffer;
  if (core_.compact()) {
    if (g != nullptr) {
      core_.UseLinearBuffer(const_cast<double*>(g));
    } else {
      if (buffer.size() < static_cast<std::size_t>(num_vars_)) buffer.resize(num_vars_);
      core_.UseLinearBuffer(buffer.data());
    }
  }
  if (g == nullptr) {
    core_.LoadLinear(problem, t);
  } else if (!core_.compact()) {
    std::copy(g, g + num_vars_, core_.linear().begin());
  }
  const BlockStatus status = core_.Solve(options_.tolerance, v);
  core_.UseLinearBuffer(nullptr);
  error_ = core_.last_error();
  return status;
}

BlockStatus SeparableSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  // Solve into scratch: on failure the caller keeps its previous solution.
  scratch_.resize(static_cast<std::size_t>(num_vars_));
  const BlockStatus status = SolveInPlace(problem, problem.prox_target.data(), scratch_.data());
  if (status == BlockStatus::kOptimal) v->swap(scratch_);
  return status;
}

}  // namespace dede::internal
