#include "subproblem/aggregate_solver.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dede::internal {

std::unique_ptr<AggregateSolver> AggregateSolver::TryCreate(const BlockProblem& structure,
                                                            const InnerFactory& make_inner) {
  const int n = structure.num_vars();
  const int num_rows = static_cast<int>(structure.rows.size());
  std::vector<int> occurrences(n, 0);
  std::vector<std::uint8_t> in_log(n, 0);
  for (const BlockRow& row : structure.rows) {
    for (int i : row.index) ++occurrences[i];
  }
  for (const BlockLog& log : structure.logs) {
    for (int i : log.index) in_log[i] = 1;
  }
  // A declared image's base stays (its images fold into it): not eliminable through a row.
  for (int b : structure.images.base) ++occurrences[b];

  std::unique_ptr<AggregateSolver> solver(new AggregateSolver());
  std::vector<std::uint8_t> defining(num_rows, 0);
  std::vector<std::uint8_t> eliminated(n, 0);
  for (int r = 0; r < num_rows; ++r) {
    const BlockRow& row = structure.rows[r];
    if (row.sense != Sense::kEqual || row.index.size() != 2) continue;
    if (row.coef[0] == 0.0 || row.coef[1] == 0.0) continue;
    const auto eliminable = [&](int pos) {
      const int i = row.index[pos];
      return occurrences[i] == 1 && !in_log[i];
    };
    // Prefer eliminating the variable with a proximal term (an allocation entry), so the
    // reduced block keeps the variables the domain model is written in.
    int pos = -1;
    if (eliminable(0) && eliminable(1)) {
      pos = structure.prox_weight[row.index[1]] > structure.prox_weight[row.index[0]] ? 1 : 0;
    } else if (eliminable(0)) {
      pos = 0;
    } else if (eliminable(1)) {
      pos = 1;
    }
    if (pos < 0) continue;
    Link link;
    link.var = row.index[pos];
    link.base = row.index[1 - pos];
    link.row = r;
    link.var_pos = pos;
    link.base_pos = 1 - pos;
    solver->links_.push_back(link);
    eliminated[link.var] = 1;
    defining[r] = 1;
  }
  for (std::size_t k = 0; k < structure.images.size(); ++k) {
    Link link;
    link.var = structure.images.slot[k];
    link.base = structure.images.base[k];
    link.row = -1 - static_cast<int>(k);  // image k
    solver->links_.push_back(link);
    eliminated[link.var] = 1;
  }
  if (solver->links_.empty()) return nullptr;

  solver->num_vars_ = n;
  solver->num_rows_ = num_rows;
  solver->num_images_ = structure.images.size();
  solver->reduced_of_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    if (eliminated[i]) continue;
    solver->reduced_of_[i] = static_cast<int>(solver->kept_vars_.size());
    solver->kept_vars_.push_back(i);
  }
  BlockProblem& reduced = solver->reduced_;
  const int m = static_cast<int>(solver->kept_vars_.size());
  reduced.lower.assign(m, 0.0);
  reduced.upper.assign(m, 0.0);
  reduced.linear.assign(m, 0.0);
  reduced.quadratic.assign(m, 0.0);
  reduced.prox_weight.assign(m, 0.0);
  reduced.prox_target.assign(m, 0.0);
  if (!structure.integral.empty()) {
    reduced.integral.assign(m, 0);
    for (int k = 0; k < m; ++k) reduced.integral[k] = structure.integral[solver->kept_vars_[k]];
  }
  for (int r = 0; r < num_rows; ++r) {
    if (defining[r]) continue;
    solver->kept_rows_.push_back(r);
    BlockRow row = structure.rows[r];
    for (int& i : row.index) i = solver->reduced_of_[i];
    reduced.rows.push_back(std::move(row));
  }
  for (const BlockLog& log : structure.logs) {
    BlockLog copy = log;
    for (int& i : copy.index) i = solver->reduced_of_[i];
    reduced.logs.push_back(std::move(copy));
  }
  for (const Link& link : solver->links_) {
    solver->link_var_.push_back(link.var);
    solver->link_k_.push_back(solver->reduced_of_[link.base]);
  }
  solver->LoadParameters(structure);
  solver->LoadLinear(structure, structure.prox_target.data());
  solver->inner_ = make_inner(reduced);
  if (solver->inner_ == nullptr) return nullptr;
  solver->w_.assign(m, 0.0);
  return solver;
}

void AggregateSolver::LoadParameters(const BlockProblem& problem) {
  BlockProblem& reduced = reduced_;
  for (std::size_t k = 0; k < kept_vars_.size(); ++k) {
    const int j = kept_vars_[k];
    reduced.lower[k] = problem.lower[j];
    reduced.upper[k] = problem.upper[j];
    reduced.quadratic[k] = problem.quadratic[j];
    reduced.prox_weight[k] = problem.prox_weight[j];
  }
  infeasible_bounds_ = false;
  unit_links_ = true;
  for (Link& link : links_) {
    if (link.row < 0) {  // a declared image: v = offset + scale * base
      const std::size_t k = static_cast<std::size_t>(-1 - link.row);
      link.alpha = problem.images.offset[k];
      link.beta = problem.images.scale[k];
    } else {
      const BlockRow& row = problem.rows[link.row];
      const double a_var = row.coef[link.var_pos];
      const double a_base = row.coef[link.base_pos];
      if (a_var == 0.0 || a_base == 0.0) {
        // A parameter change zeroed a coefficient the structure relied on.
        error_ = "aggregate: row " + std::to_string(link.row) +
                 " lost a coefficient (now 0); the block structure changed";
        infeasible_bounds_ = true;
        continue;
      }
      link.alpha = row.rhs / a_var;
      link.beta = -a_base / a_var;
    }
    link.curvature = 2.0 * problem.quadratic[link.var] + problem.prox_weight[link.var];
    unit_links_ = unit_links_ && link.alpha == 0.0 && link.beta == 1.0 && link.curvature >= 0.0 &&
                  std::isfinite(link.curvature);
    const int k = reduced_of_[link.base];
    reduced.quadratic[k] += 0.5 * link.curvature * link.beta * link.beta;
    // lo <= alpha + beta w <= hi as an interval on w.
    const auto [from, to] =
        ImageBaseInterval(problem.lower[link.var], problem.upper[link.var], link.alpha, link.beta);
    reduced.lower[k] = std::max(std::as_const(reduced.lower)[k], from);
    reduced.upper[k] = std::min(std::as_const(reduced.upper)[k], to);
  }
  for (std::size_t r = 0; r < kept_rows_.size(); ++r) {
    const BlockRow& row = problem.rows[kept_rows_[r]];
    reduced.rows[r].coef = row.coef;
    reduced.rows[r].rhs = row.rhs;
    reduced.rows[r].sense = row.sense;
  }
  for (std::size_t l = 0; l < problem.logs.size(); ++l) {
    reduced.logs[l].coef = problem.logs[l].coef;
    reduced.logs[l].constant = problem.logs[l].constant;
    reduced.logs[l].weight = problem.logs[l].weight;
  }
  ++reduced.revision;
}

void AggregateSolver::LoadLinear(const BlockProblem& problem, const double* target) {
  BlockProblem& reduced = reduced_;
  // The reduced block's linear terms change every solve: one value per slot.
  double* out = reduced.linear.Materialize();
  const SlotValues::View linear = problem.linear.view();
  for (std::size_t k = 0; k < kept_vars_.size(); ++k) {
    const int j = kept_vars_[k];
    out[k] = linear[j];
    reduced.prox_target[k] = target[j];
  }
  if (unit_links_) {
    // beta (H alpha + g) with alpha = 0, beta = 1 and a finite H >= 0 is 0 + g, bit for bit.
    const SlotValues::View weight = problem.prox_weight.view();
    for (std::size_t l = 0; l < link_var_.size(); ++l) {
      const int i = link_var_[l];
      out[link_k_[l]] += 0.0 + (linear[i] - weight[i] * target[i]);
    }
    return;
  }
  for (const Link& link : links_) {
    const int i = link.var;
    const double g = problem.linear[i] - problem.prox_weight[i] * target[i];
    out[reduced_of_[link.base]] += ImageBaseLinear(link.curvature, g, link.alpha, link.beta);
  }
}

void AggregateSolver::Prefetch() const {
  __builtin_prefetch(link_var_.data());
  __builtin_prefetch(link_k_.data());
  __builtin_prefetch(kept_vars_.data());
  __builtin_prefetch(w_.data());
  reduced_.Prefetch();
  PrefetchObject(inner_.get());  // its own arrays it fetches when it runs
}

bool AggregateSolver::Prepare(const BlockProblem& problem) {
  if (problem.num_vars() != num_vars_ || static_cast<int>(problem.rows.size()) != num_rows_ ||
      problem.images.size() != num_images_) {
    error_ = "block structure changed since the solver was created";
    return false;
  }
  if (!loaded_ || problem.revision != revision_) {
    error_.clear();
    LoadParameters(problem);
    revision_ = problem.revision;
    loaded_ = true;
  }
  return !infeasible_bounds_;
}

void AggregateSolver::Expand(const BlockProblem& problem, double* v) const {
  for (std::size_t k = 0; k < kept_vars_.size(); ++k) v[kept_vars_[k]] = w_[k];
  if (unit_links_) {
    const SlotValues::View lower = problem.lower.view();
    const SlotValues::View upper = problem.upper.view();
    for (std::size_t l = 0; l < link_var_.size(); ++l) {
      const int i = link_var_[l];
      v[i] = std::min(std::max(0.0 + w_[link_k_[l]], lower[i]), upper[i]);
    }
    return;
  }
  for (const Link& link : links_) {
    const double value = link.alpha + link.beta * w_[reduced_of_[link.base]];
    v[link.var] = std::min(std::max(value, problem.lower[link.var]), problem.upper[link.var]);
  }
}

BlockStatus AggregateSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  if (!Prepare(problem)) return BlockStatus::kError;
  LoadLinear(problem, problem.prox_target.data());
  for (std::size_t k = 0; k < kept_vars_.size(); ++k) w_[k] = (*v)[kept_vars_[k]];
  const BlockStatus status = inner_->Solve(reduced_, &w_);
  if (status != BlockStatus::kOptimal) {
    error_ = inner_->last_error();
    return status;
  }
  Expand(problem, v->data());
  return BlockStatus::kOptimal;
}

BlockStatus AggregateSolver::SolveInPlace(const BlockProblem& problem, const double* t, double* v) {
  if (!Prepare(problem)) return BlockStatus::kError;
  LoadLinear(problem, t);
  const BlockStatus status = inner_->SolveInPlace(reduced_, reduced_.prox_target.data(), w_.data());
  if (status != BlockStatus::kOptimal) {
    error_ = inner_->last_error();
    return status;
  }
  Expand(problem, v);
  return BlockStatus::kOptimal;
}

}  // namespace dede::internal
