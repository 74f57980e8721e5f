#include "subproblem/clp_block_solver.h"

#include <algorithm>
#include <cmath>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinError.hpp>
#include <coin/CoinFinite.hpp>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>

#include "subproblem/active_set_qp.h"
#include "subproblem/separable_solver.h"

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Clp's defaults (1e-7) leave ~1e-7 errors in its solutions; 1e-10 makes the LP path agree
// with the exact solvers to ~1e-10 at no measurable cost.
constexpr double kMinClpTolerance = 1e-10;
constexpr double kMaxClpTolerance = 1e-7;
// A "proven optimal" point further than this from feasible (bounds absolute, rows relative to
// their magnitude: ScaledBlockViolation) triggers a cold re-solve.
constexpr double kAcceptViolation = 1e-7;

double ToClp(double x) {
  if (x >= COIN_DBL_MAX) return COIN_DBL_MAX;
  if (x <= -COIN_DBL_MAX) return -COIN_DBL_MAX;
  return x;
}

const char* ClpStatusName(int status) {
  switch (status) {
    case 0:
      return "optimal";
    case 1:
      return "primal infeasible";
    case 2:
      return "dual infeasible (unbounded)";
    case 3:
      return "stopped on iterations or time";
    case 4:
      return "stopped due to errors";
    case 5:
      return "stopped by event handler";
    default:
      return "unknown status";
  }
}

}  // namespace

// ---- ClpBlockSolver -------------------------------------------------------------------------

ClpBlockSolver::~ClpBlockSolver() = default;

std::string ClpBlockSolver::name() const { return IsQuadratic() ? "clp+qp" : "clp"; }

bool ClpBlockSolver::IsQuadratic() const {
  return std::any_of(hessian_.begin(), hessian_.end(), [](double h) { return h != 0.0; });
}

std::unique_ptr<ClpBlockSolver> ClpBlockSolver::Create(const BlockProblem& structure,
                                                       const BlockSolverOptions& options,
                                                       std::string* error) {
  for (const BlockLog& log : structure.logs) {
    if (!log.index.empty()) {
      *error = "clp block solver: block has " + std::to_string(structure.logs.size()) +
               " log terms and " + std::to_string(structure.rows.size()) +
               " rows; Clp supports linear and quadratic objectives only";
      return nullptr;
    }
  }
  std::unique_ptr<ClpBlockSolver> solver(new ClpBlockSolver());
  solver->options_ = options;
  const int n = structure.num_vars();
  const int m = static_cast<int>(structure.rows.size());
  solver->num_vars_ = n;
  solver->num_rows_ = m;
  // Column-major pattern of the rows (fixed structure).
  std::vector<int> count(n, 0);
  for (const BlockRow& row : structure.rows) {
    for (int i : row.index) {
      if (i < 0 || i >= n) {
        *error = "clp block solver: row references variable " + std::to_string(i) + " of " +
                 std::to_string(n);
        return nullptr;
      }
      ++count[i];
    }
  }
  solver->col_start_.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) solver->col_start_[i + 1] = solver->col_start_[i] + count[i];
  const int nnz = solver->col_start_[n];
  solver->col_row_.assign(nnz, 0);
  solver->col_value_.assign(nnz, 0.0);
  solver->element_of_.resize(m);
  std::vector<int> fill(solver->col_start_.begin(), solver->col_start_.end() - 1);
  for (int r = 0; r < m; ++r) {
    const BlockRow& row = structure.rows[r];
    solver->element_of_[r].resize(row.index.size());
    for (size_t k = 0; k < row.index.size(); ++k) {
      const int e = fill[row.index[k]]++;
      solver->col_row_[e] = r;
      solver->element_of_[r][k] = e;
    }
  }
  solver->col_lo_.assign(n, 0.0);
  solver->col_hi_.assign(n, 0.0);
  // The structure's curvature decides name() until the first solve reloads it.
  solver->hessian_.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    solver->hessian_[i] = 2.0 * structure.quadratic[i] + structure.prox_weight[i];
  }
  solver->objective_.assign(n, 0.0);
  solver->row_lo_.assign(m, 0.0);
  solver->row_hi_.assign(m, 0.0);
  solver->qp_ = std::make_unique<ActiveSetQp>(n,
                                              m,
                                              &solver->col_start_,
                                              &solver->col_row_,
                                              &solver->col_value_,
                                              &solver->hessian_,
                                              &solver->objective_,
                                              &solver->col_lo_,
                                              &solver->col_hi_,
                                              &solver->row_lo_,
                                              &solver->row_hi_);
  return solver;
}

ClpBlockSolver::Changes ClpBlockSolver::LoadParameters(const BlockProblem& problem) {
  Changes changes;
  for (int i = 0; i < num_vars_; ++i) {
    const double lo = problem.lower[i], hi = problem.upper[i];
    if (lo != col_lo_[i] || hi != col_hi_[i]) {
      col_lo_[i] = lo;
      col_hi_[i] = hi;
      changes.bounds = true;
    }
    const double h = 2.0 * problem.quadratic[i] + problem.prox_weight[i];
    if (h != hessian_[i]) {
      hessian_[i] = h;
      changes.hessian = true;
    }
  }
  for (int r = 0; r < num_rows_; ++r) {
    const BlockRow& row = problem.rows[r];
    const double lo = row.sense == Sense::kLessEqual ? -kInf : row.rhs;
    const double hi = row.sense == Sense::kGreaterEqual ? kInf : row.rhs;
    if (lo != row_lo_[r] || hi != row_hi_[r]) {
      row_lo_[r] = lo;
      row_hi_[r] = hi;
      changes.bounds = true;
    }
    for (size_t k = 0; k < row.coef.size(); ++k) {
      double& value = col_value_[element_of_[r][k]];
      if (value != row.coef[k]) {
        value = row.coef[k];
        changes.coefficients = true;
      }
    }
  }
  return changes;
}

void ClpBlockSolver::BuildModel(bool keep_basis) {
  std::vector<unsigned char> status;
  if (keep_basis && model_ != nullptr && solved_once_) {
    status.assign(model_->statusArray(), model_->statusArray() + num_vars_ + num_rows_);
  }
  auto model = std::make_unique<ClpSimplex>();
  model->setLogLevel(0);
  const double tol = std::clamp(options_.tolerance, kMinClpTolerance, kMaxClpTolerance);
  model->setPrimalTolerance(tol);
  model->setDualTolerance(tol);
  std::vector<CoinBigIndex> start(col_start_.begin(), col_start_.end());
  std::vector<double> lo(num_vars_), hi(num_vars_), rlo(num_rows_), rhi(num_rows_);
  for (int i = 0; i < num_vars_; ++i) {
    lo[i] = ToClp(col_lo_[i]);
    hi[i] = ToClp(col_hi_[i]);
  }
  for (int r = 0; r < num_rows_; ++r) {
    rlo[r] = ToClp(row_lo_[r]);
    rhi[r] = ToClp(row_hi_[r]);
  }
  std::vector<double> zero(num_vars_, 0.0);
  model->loadProblem(num_vars_,
                     num_rows_,
                     start.data(),
                     col_row_.data(),
                     col_value_.data(),
                     lo.data(),
                     hi.data(),
                     clp_objective_zero_ ? zero.data() : objective_.data(),
                     rlo.data(),
                     rhi.data());
  if (!status.empty()) model->copyinStatus(status.data());
  model_ = std::move(model);
}

void ClpBlockSolver::SetClpObjective(bool zero) {
  for (int i = 0; i < num_vars_; ++i)
    model_->setObjectiveCoefficient(i, zero ? 0.0 : objective_[i]);
  clp_objective_zero_ = zero;
}

BlockStatus ClpBlockSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  error_.clear();
  if (problem.num_vars() != num_vars_ || static_cast<int>(problem.rows.size()) != num_rows_) {
    error_ = "block structure changed since the solver was created";
    return BlockStatus::kError;
  }
  try {
    bool bounds_changed = false, changed = false;
    if (!loaded_ || problem.revision != revision_) {
      const Changes changes = LoadParameters(problem);
      if (!loaded_ || changes.coefficients) {
        BuildModel(/*keep_basis=*/true);
      } else if (changes.bounds) {
        for (int i = 0; i < num_vars_; ++i) {
          model_->setColumnBounds(i, ToClp(col_lo_[i]), ToClp(col_hi_[i]));
        }
        for (int r = 0; r < num_rows_; ++r) {
          model_->setRowBounds(r, ToClp(row_lo_[r]), ToClp(row_hi_[r]));
        }
      }
      bounds_changed = !loaded_ || changes.bounds || changes.coefficients;
      changed = bounds_changed || changes.hessian;
      revision_ = problem.revision;
      loaded_ = true;
    }
    for (int i = 0; i < num_vars_; ++i) {
      objective_[i] = problem.linear[i] - problem.prox_weight[i] * problem.prox_target[i];
    }
    if (IsQuadratic()) return SolveQp(changed, problem, v);
    return SolveLp(bounds_changed, problem, v);
  } catch (const CoinError& e) {
    error_ = "Clp error in " + e.className() + "::" + e.methodName() + ": " + e.message();
  } catch (const std::exception& e) {
    error_ = std::string("exception in Clp block solve: ") + e.what();
  }
  // The model may be in any state after an exception: start from scratch next time.
  model_.reset();
  qp_->Invalidate();
  loaded_ = false;
  solved_once_ = false;
  return BlockStatus::kError;
}

double ClpBlockSolver::ClpViolation(const BlockProblem& problem) {
  scratch_.assign(model_->primalColumnSolution(), model_->primalColumnSolution() + num_vars_);
  for (int i = 0; i < num_vars_; ++i) {
    scratch_[i] = std::clamp(scratch_[i], problem.lower[i], problem.upper[i]);
  }
  return ScaledBlockViolation(problem, scratch_);
}

// Clp 1.17 is not trusted on its own verdicts: its dual simplex reports some feasible blocks
// with free columns infeasible (from a fresh model too), and its primal simplex stops "due
// to errors" on some infeasible ones. So a warm run that does not end in a verified optimum
// is repeated from a fresh model with the primal simplex and then, unless that one ends in
// a verified optimum, with the dual simplex. A verified point from either wins, then the
// primal's infeasible/unbounded verdict, then the dual's.
int ClpBlockSolver::RunConfirmed(bool warm, bool prefer_dual, const BlockProblem& problem) {
  const bool first = !solved_once_;
  solved_once_ = true;
  if (warm && !first) {
    if (prefer_dual) {
      model_->dual();
    } else {
      model_->primal();
    }
    if (model_->status() == 0 && ClpViolation(problem) <= kAcceptViolation) return 0;
  }
  BuildModel(/*keep_basis=*/false);
  model_->primal();
  const int primal = model_->status();
  if (primal == 0 && ClpViolation(problem) <= kAcceptViolation) return 0;
  BuildModel(/*keep_basis=*/false);
  model_->dual();
  const int dual = model_->status();
  if (dual == 0 && ClpViolation(problem) <= kAcceptViolation) return 0;
  if (primal == 1 || primal == 2) return primal;
  if (dual == 1 || dual == 2) return dual;
  return primal == 0 ? 4 : primal;  // an "optimal" point that failed verification: an error
}

BlockStatus ClpBlockSolver::SolveLp(bool bounds_changed,
                                    const BlockProblem& problem,
                                    std::vector<double>* v) {
  if (clp_objective_zero_) {
    SetClpObjective(false);
    bounds_changed = true;  // the basis is not primal-optimal for c: let dual simplex decide
  } else {
    for (int i = 0; i < num_vars_; ++i) {
      if (model_->objective()[i] != objective_[i])
        model_->setObjectiveCoefficient(i, objective_[i]);
    }
  }
  // An objective change keeps the basis primal feasible (primal simplex); a bound change
  // keeps it dual feasible (dual simplex).
  const int status = RunConfirmed(/*warm=*/true, /*prefer_dual=*/bounds_changed, problem);
  if (status == 0) {
    v->swap(scratch_);
    return BlockStatus::kOptimal;
  }
  error_ = std::string("Clp: ") + ClpStatusName(status) + " (status " + std::to_string(status) +
           ", secondary " + std::to_string(model_->secondaryStatus()) + ")";
  if (status == 1) return BlockStatus::kInfeasible;
  if (status == 2) return BlockStatus::kUnbounded;
  return BlockStatus::kError;
}

BlockStatus ClpBlockSolver::SolveQp(bool parameters_changed,
                                    const BlockProblem& problem,
                                    std::vector<double>* v) {
  // Warm: the previous working set stays valid when only c changed; after a parameter
  // change it is moved onto the new bounds if its equality solution is still feasible.
  bool warm = qp_->has_state() && (!parameters_changed || qp_->Retarget());
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!warm) {
      // Phase 1: any basic feasible point of the rows and bounds (zero objective).
      if (!clp_objective_zero_) SetClpObjective(true);
      const int status = RunConfirmed(/*warm=*/true, /*prefer_dual=*/false, problem);
      if (status == 1) {
        error_ = "rows and bounds are infeasible (Clp phase 1: primal infeasible)";
        return BlockStatus::kInfeasible;
      }
      if (status != 0) {
        error_ = std::string("Clp phase 1: ") + ClpStatusName(status);
        return BlockStatus::kError;
      }
      qp_->StartFromBasis(*model_);
    }
    std::string qp_error;
    const BlockStatus status = qp_->Run(&qp_error);
    if (status == BlockStatus::kOptimal) {
      scratch_ = qp_->x();
      for (int i = 0; i < num_vars_; ++i) {
        scratch_[i] = std::clamp(scratch_[i], problem.lower[i], problem.upper[i]);
      }
      const double worst = ScaledBlockViolation(problem, scratch_);
      if (worst <= kAcceptViolation) {
        v->swap(scratch_);
        return BlockStatus::kOptimal;
      }
      char buf[160];
      std::snprintf(buf,
                    sizeof(buf),
                    "active-set QP: final point violates the block by %.3g (relative)",
                    worst);
      qp_error = buf;
      qp_->Invalidate();
    }
    error_ = qp_error;
    if (status == BlockStatus::kUnbounded) return status;
    if (!warm) break;
    warm = false;  // a warm run that failed gets one cold retry
  }
  return BlockStatus::kError;
}

}  // namespace dede::internal
