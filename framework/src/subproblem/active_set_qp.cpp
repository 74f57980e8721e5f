#include "subproblem/active_set_qp.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Solves a x = b (a: dim x dim, row-major; both overwritten, b becomes x) by Gaussian
// elimination with partial pivoting. False if a pivot vanishes relative to the matrix.
// Written out rather than Eigen's PartialPivLU: the systems here are the KKT systems of
// small blocks (dimension about 20 for a 4-path block), where Eigen's blocked LU (panel,
// TRSM and GEMM kernels above dimension 16) made the whole warm QP solve 1.6x slower
// (dede_micro BM_BlockSolverPathClpWarm: 2.5 -> 4.0 us). The rank decisions, which must be
// robust rather than fast, are Eigen's (NullVector).
bool DenseSolve(std::vector<double>* a_in, int dim, std::vector<double>* b_in) {
  std::vector<double>& a = *a_in;
  std::vector<double>& b = *b_in;
  double scale = 0.0;
  for (double e : a) scale = std::max(scale, std::fabs(e));
  const double tiny = 1e-14 * std::max(scale, 1e-300);
  for (int k = 0; k < dim; ++k) {
    int piv = k;
    for (int r = k + 1; r < dim; ++r) {
      if (std::fabs(a[r * dim + k]) > std::fabs(a[piv * dim + k])) piv = r;
    }
    if (!(std::fabs(a[piv * dim + k]) > tiny)) return false;
    if (piv != k) {
      for (int c = k; c < dim; ++c) std::swap(a[k * dim + c], a[piv * dim + c]);
      std::swap(b[k], b[piv]);
    }
    const double inv = 1.0 / a[k * dim + k];
    for (int r = k + 1; r < dim; ++r) {
      const double f = a[r * dim + k] * inv;
      if (f == 0.0) continue;
      for (int c = k + 1; c < dim; ++c) a[r * dim + c] -= f * a[k * dim + c];
      b[r] -= f * b[k];
    }
  }
  for (int k = dim - 1; k >= 0; --k) {
    double s = b[k];
    for (int c = k + 1; c < dim; ++c) s -= a[k * dim + c] * b[c];
    b[k] = s / a[k * dim + k];
  }
  return true;
}

// If a (rows x cols, row-major) has rank < cols, stores a null vector in *d and returns true.
// Complete pivoting; a pivot counts when above 1e-11 of the largest (the largest entry).
bool NullVector(const std::vector<double>& a_in, int rows, int cols, std::vector<double>* d) {
  if (cols == 0) return false;
  d->assign(cols, 0.0);
  if (rows == 0) {
    (*d)[0] = 1.0;  // no row restricts anything
    return true;
  }
  thread_local Eigen::FullPivLU<Eigen::MatrixXd> lu;
  lu.compute(Eigen::Map<const RowMajorMatrix>(a_in.data(), rows, cols));
  lu.setThreshold(1e-11);
  if (lu.rank() == cols) return false;
  const Eigen::VectorXd k = lu.kernel().col(0);
  for (int c = 0; c < cols; ++c) (*d)[c] = k[c];
  return true;
}

}  // namespace

void ActiveSetQp::StartFromBasis(const ClpSimplex& model) {
  const double* x = model.primalColumnSolution();
  const double* activity = model.primalRowSolution();
  x_.assign(x, x + n_);
  vs_.assign(n_, VarState::kFree);
  rs_.assign(m_, RowState::kInactive);
  for (int i = 0; i < n_; ++i) {
    x_[i] = std::clamp(x_[i], lo_[i], hi_[i]);
    switch (model.getColumnStatus(i)) {
      case ClpSimplex::basic:
        break;
      case ClpSimplex::atLowerBound:
      case ClpSimplex::isFixed:
        if (std::isfinite(lo_[i])) {
          vs_[i] = VarState::kLower;
          x_[i] = lo_[i];
        } else {
          vs_[i] = VarState::kHeld;
        }
        break;
      case ClpSimplex::atUpperBound:
        if (std::isfinite(hi_[i])) {
          vs_[i] = VarState::kUpper;
          x_[i] = hi_[i];
        } else {
          vs_[i] = VarState::kHeld;
        }
        break;
      default:  // isFree / superBasic: nonbasic away from a bound
        vs_[i] = h_[i] > 0.0 ? VarState::kFree : VarState::kHeld;
        break;
    }
  }
  for (int r = 0; r < m_; ++r) {
    if (model.getRowStatus(r) == ClpSimplex::basic) continue;
    const double a = activity[r];
    const bool lo_ok = std::isfinite(row_lo_[r]), hi_ok = std::isfinite(row_hi_[r]);
    if (lo_ok && (!hi_ok || std::fabs(a - row_lo_[r]) <= std::fabs(a - row_hi_[r]))) {
      rs_[r] = RowState::kLower;
    } else if (hi_ok) {
      rs_[r] = RowState::kUpper;
    }
  }
  has_state_ = true;
}

void ActiveSetQp::Partition() {
  p_.clear();
  z_.clear();
  w_.clear();
  wpos_.assign(m_, -1);
  zpos_.assign(n_, -1);
  for (int i = 0; i < n_; ++i) {
    if (vs_[i] != VarState::kFree) continue;
    if (h_[i] > 0.0) {
      p_.push_back(i);
    } else {
      zpos_[i] = static_cast<int>(z_.size());
      z_.push_back(i);
    }
  }
  for (int r = 0; r < m_; ++r) {
    if (rs_[r] == RowState::kInactive) continue;
    wpos_[r] = static_cast<int>(w_.size());
    w_.push_back(r);
  }
}

ActiveSetQp::Eqp ActiveSetQp::SolveEqp() {
  Partition();
  const int w = static_cast<int>(w_.size()), z = static_cast<int>(z_.size());
  if (z > 0) {
    awz_.assign(static_cast<size_t>(w) * z, 0.0);
    for (int k = 0; k < z; ++k) {
      const int i = z_[k];
      for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
        const int pos = wpos_[col_row_[e]];
        if (pos >= 0) awz_[static_cast<size_t>(pos) * z + k] = col_value_[e];
      }
    }
    if (NullVector(awz_, w, z, &dz_)) return Eqp::kSingular;
  }
  const int dim = w + z;
  kkt_.assign(static_cast<size_t>(dim) * dim, 0.0);
  rhs_.assign(dim, 0.0);
  for (int k = 0; k < w; ++k) {
    const int r = w_[k];
    rhs_[k] = -(rs_[r] == RowState::kLower ? row_lo_[r] : row_hi_[r]);
  }
  for (int i = 0; i < n_; ++i) {
    const bool free = vs_[i] == VarState::kFree;
    const bool curved = h_[i] > 0.0;
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
      const int k = wpos_[col_row_[e]];
      if (k < 0) continue;
      const double a = col_value_[e];
      if (!free) {
        rhs_[k] += a * x_[i];
      } else if (curved) {
        rhs_[k] -= a * c_[i] / h_[i];
        for (int e2 = col_start_[i]; e2 < col_start_[i + 1]; ++e2) {
          const int k2 = wpos_[col_row_[e2]];
          if (k2 >= 0) kkt_[static_cast<size_t>(k) * dim + k2] += a * col_value_[e2] / h_[i];
        }
      } else {
        const int zk = w + zpos_[i];
        kkt_[static_cast<size_t>(k) * dim + zk] = -a;
        kkt_[static_cast<size_t>(zk) * dim + k] = a;
      }
    }
  }
  for (int k = 0; k < z; ++k) rhs_[w + k] = -c_[z_[k]];
  if (dim > 0 && !DenseSolve(&kkt_, dim, &rhs_)) return Eqp::kFailed;
  mu_.assign(rhs_.begin(), rhs_.begin() + w);
  xs_ = x_;
  for (int i : p_) {
    double s = c_[i];
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
      const int k = wpos_[col_row_[e]];
      if (k >= 0) s += col_value_[e] * mu_[k];
    }
    xs_[i] = -s / h_[i];
  }
  for (int k = 0; k < z; ++k) xs_[z_[k]] = rhs_[w + k];
  return Eqp::kSolved;
}

// True if constraint `c` (a row index, or m_ + i for variable i's bound), restricted to the
// free variables, is a combination of the working rows: least squares by column-pivoting
// Householder QR on the free variables' columns of the working rows (the normal equations
// would square their condition number).
bool ActiveSetQp::DependsOnWorkingSet(int c) {
  const int w = static_cast<int>(w_.size());
  const int row = c < m_ ? c : -1;
  const int var = c < m_ ? -1 : c - m_;
  auto target = [&](int i) {
    if (var >= 0) return i == var ? 1.0 : 0.0;
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
      if (col_row_[e] == row) return col_value_[e];
    }
    return 0.0;
  };
  int free = 0;
  for (int i = 0; i < n_; ++i) free += vs_[i] == VarState::kFree ? 1 : 0;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(free, w);  // row f: free variable f's coefficients
  Eigen::VectorXd t(free);
  int f = 0;
  for (int i = 0; i < n_; ++i) {
    if (vs_[i] != VarState::kFree) continue;
    t[f] = target(i);
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
      const int k = wpos_[col_row_[e]];
      if (k >= 0) a(f, k) = col_value_[e];
    }
    ++f;
  }
  const double norm2 = t.squaredNorm();
  if (norm2 == 0.0) return true;
  if (w == 0) return false;
  const Eigen::VectorXd y = a.colPivHouseholderQr().solve(t);
  return (t - a * y).squaredNorm() <= 1e-18 * norm2;
}

bool ActiveSetQp::Feasible(const std::vector<double>& x, double tol) const {
  for (int i = 0; i < n_; ++i) {
    if (!(x[i] >= lo_[i] - tol * (1.0 + std::fabs(lo_[i])) &&
          x[i] <= hi_[i] + tol * (1.0 + std::fabs(hi_[i])))) {
      return false;
    }
  }
  std::vector<double> act(m_, 0.0);
  for (int i = 0; i < n_; ++i) {
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e)
      act[col_row_[e]] += col_value_[e] * x[i];
  }
  for (int r = 0; r < m_; ++r) {
    if (act[r] < row_lo_[r] - tol * (1.0 + std::fabs(row_lo_[r])) ||
        act[r] > row_hi_[r] + tol * (1.0 + std::fabs(row_hi_[r]))) {
      return false;
    }
  }
  return true;
}

bool ActiveSetQp::Retarget() {
  if (!has_state_) return false;
  for (int i = 0; i < n_; ++i) {
    switch (vs_[i]) {
      case VarState::kLower:
        if (std::isfinite(lo_[i])) {
          x_[i] = lo_[i];
        } else {
          vs_[i] = h_[i] > 0.0 ? VarState::kFree : VarState::kHeld;
        }
        break;
      case VarState::kUpper:
        if (std::isfinite(hi_[i])) {
          x_[i] = hi_[i];
        } else {
          vs_[i] = h_[i] > 0.0 ? VarState::kFree : VarState::kHeld;
        }
        break;
      case VarState::kHeld:
        x_[i] = std::clamp(x_[i], lo_[i], hi_[i]);
        break;
      case VarState::kFree:
        break;
    }
  }
  for (int r = 0; r < m_; ++r) {
    if (rs_[r] == RowState::kLower && !std::isfinite(row_lo_[r])) rs_[r] = RowState::kInactive;
    if (rs_[r] == RowState::kUpper && !std::isfinite(row_hi_[r])) rs_[r] = RowState::kInactive;
  }
  if (SolveEqp() != Eqp::kSolved || !Feasible(xs_, 1e-12)) {
    has_state_ = false;
    return false;
  }
  for (int i = 0; i < n_; ++i) x_[i] = std::clamp(xs_[i], lo_[i], hi_[i]);
  return true;
}

// At the minimizer on W (xs_): moves x there and returns true when every multiplier has the
// right sign (optimal); else drops from W the most wrong-signed constraint, or, unless
// single_drop, every wrong-signed curved variable, and returns false.
bool ActiveSetQp::DropWrongSigned(bool single_drop, double grad_scale) {
  for (int i = 0; i < n_; ++i) {
    if (vs_[i] == VarState::kFree) x_[i] = xs_[i];
  }
  const double tol = 1e-10 * grad_scale;
  int drop_var = -1, drop_row = -1;
  double worst = tol;
  std::vector<int> batch;
  for (int i = 0; i < n_; ++i) {
    if (vs_[i] == VarState::kFree || lo_[i] == hi_[i]) continue;
    double nu = h_[i] * x_[i] + c_[i];
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
      const int k = wpos_[col_row_[e]];
      if (k >= 0) nu += col_value_[e] * mu_[k];
    }
    double violation;
    if (vs_[i] == VarState::kLower) {
      violation = -nu;
    } else if (vs_[i] == VarState::kUpper) {
      violation = nu;
    } else {
      violation = std::fabs(nu);
    }
    if (violation > tol && h_[i] > 0.0) batch.push_back(i);
    if (violation > worst) {
      worst = violation;
      drop_var = i;
    }
  }
  for (size_t k = 0; k < w_.size(); ++k) {
    const int r = w_[k];
    if (row_lo_[r] == row_hi_[r]) continue;  // equality rows stay
    const double violation = rs_[r] == RowState::kUpper ? -mu_[k] : mu_[k];
    if (violation > worst) {
      worst = violation;
      drop_row = r;
      drop_var = -1;
    }
  }
  if (drop_var < 0 && drop_row < 0) return true;
  if (drop_row >= 0) {
    rs_[drop_row] = RowState::kInactive;
  } else if (!single_drop && h_[drop_var] > 0.0) {
    // Freeing every wrong-signed curved variable at once keeps the equality problem
    // non-singular and cuts the iterations of a cold start from n to a handful; a
    // zero-length step afterwards switches back to one drop at a time.
    for (int i : batch) vs_[i] = VarState::kFree;
  } else {
    vs_[drop_var] = VarState::kFree;
  }
  return false;
}

// Ratio test along p over the free variables' bounds and the inactive rows. In absolute
// form p also removes the rounding drift of x off the active constraints, and on a
// degenerate point (a variable pinned at its bound by an active row, a duplicate row)
// that drift would block at (almost) zero length with a constraint dependent on W. Such
// a blocker is therefore checked for independence, and skipped if dependent. Gives the step
// along p = xs - x (a ray when `ray`): its length and what blocks it.
ActiveSetQp::Step ActiveSetQp::RatioTest(bool ray) {
  delta_.assign(m_, 0.0);
  delta_abs_.assign(m_, 0.0);
  for (int i = 0; i < n_; ++i) {
    if (vs_[i] != VarState::kFree) continue;
    const double p = xs_[i] - x_[i];
    if (p == 0.0) continue;
    for (int e = col_start_[i]; e < col_start_[i + 1]; ++e) {
      delta_[col_row_[e]] += col_value_[e] * p;
      delta_abs_[col_row_[e]] += std::fabs(col_value_[e] * p);
    }
  }
  Step step;
  double& alpha = step.alpha;
  int& block_var = step.block_var;
  int& block_row = step.block_row;
  bool& block_upper = step.block_upper;
  dependent_.assign(m_ + n_, 0);
  while (true) {
    alpha = ray ? kInf : 1.0;
    block_var = block_row = -1;
    block_upper = false;
    for (int i = 0; i < n_; ++i) {
      if (vs_[i] != VarState::kFree || dependent_[m_ + i]) continue;
      const double p = xs_[i] - x_[i];
      double t = kInf;
      bool upper = false;
      if (p < 0.0 && std::isfinite(lo_[i])) {
        t = std::max(0.0, (lo_[i] - x_[i]) / p);
      } else if (p > 0.0 && std::isfinite(hi_[i])) {
        t = std::max(0.0, (hi_[i] - x_[i]) / p);
        upper = true;
      }
      if (t < alpha) {
        alpha = t;
        block_var = i;
        block_upper = upper;
      }
    }
    for (int r = 0; r < m_; ++r) {
      if (rs_[r] != RowState::kInactive || dependent_[r]) continue;
      const double d = delta_[r];
      // Rows that p leaves unchanged up to rounding never block.
      if (!(std::fabs(d) > 1e-11 * delta_abs_[r])) continue;
      double t = kInf;
      bool upper = false;
      if (d > 0.0 && std::isfinite(row_hi_[r])) {
        t = std::max(0.0, (row_hi_[r] - act_[r]) / d);
        upper = true;
      } else if (d < 0.0 && std::isfinite(row_lo_[r])) {
        t = std::max(0.0, (row_lo_[r] - act_[r]) / d);
      }
      if (t < alpha) {
        alpha = t;
        block_row = r;
        block_var = -1;
        block_upper = upper;
      }
    }
    const int blocker = block_row >= 0 ? block_row : (block_var >= 0 ? m_ + block_var : -1);
    // Rows are always checked (rare); a bound only if x is already on it up to drift.
    bool check = blocker >= 0 && blocker < m_;
    if (block_var >= 0) {
      const double bound = block_upper ? hi_[block_var] : lo_[block_var];
      check = std::fabs(bound - x_[block_var]) <= 1e-9 * (1.0 + std::fabs(bound));
    }
    if (!check || !DependsOnWorkingSet(blocker)) break;
    dependent_[blocker] = 1;
  }
  return step;
}

BlockStatus ActiveSetQp::Run(std::string* error) {
  const int max_iterations = 20 * (n_ + m_) + 200;
  bool single_drop = false;
  double grad_scale = 1.0;
  for (int i = 0; i < n_; ++i) grad_scale = std::max(grad_scale, std::fabs(c_[i]));
  for (int it = 0; it < max_iterations; ++it) {
    const Eqp eqp = SolveEqp();
    if (eqp == Eqp::kFailed) {
      *error = "active-set QP: singular equality system (dependent active rows)";
      has_state_ = false;
      return BlockStatus::kError;
    }
    // Row activities of the current point.
    act_.assign(m_, 0.0);
    for (int i = 0; i < n_; ++i) {
      for (int e = col_start_[i]; e < col_start_[i + 1]; ++e)
        act_[col_row_[e]] += col_value_[e] * x_[i];
    }
    // Step direction: to the equality-problem solution, or along the zero-curvature ray.
    bool ray = eqp == Eqp::kSingular;
    if (ray) {
      double slope = 0.0, slope_abs = 0.0;
      for (size_t k = 0; k < z_.size(); ++k) {
        slope += c_[z_[k]] * dz_[k];
        slope_abs += std::fabs(c_[z_[k]] * dz_[k]);
      }
      if (slope > 0.0) {
        for (double& d : dz_) d = -d;
        slope = -slope;
      }
      if (!(slope < -1e-13 * std::max(slope_abs, 1e-300))) {
        // Flat direction: hold the variable that moves most where it is (removes the
        // direction without changing the objective).
        size_t best = 0;
        for (size_t k = 1; k < z_.size(); ++k) {
          if (std::fabs(dz_[k]) > std::fabs(dz_[best])) best = k;
        }
        vs_[z_[best]] = VarState::kHeld;
        continue;
      }
      xs_ = x_;
      for (size_t k = 0; k < z_.size(); ++k) xs_[z_[k]] = x_[z_[k]] + dz_[k];  // p = dz
    }
    // p = xs - x on free variables.
    double p_max = 0.0;
    for (int i = 0; i < n_; ++i) {
      if (vs_[i] != VarState::kFree) continue;
      p_max = std::max(p_max, std::fabs(xs_[i] - x_[i]) / (1.0 + std::fabs(x_[i])));
    }
    if (!ray && p_max <= 1e-14) {
      // Minimizer on W: optimal unless a multiplier has the wrong sign.
      if (DropWrongSigned(single_drop, grad_scale)) return BlockStatus::kOptimal;
      continue;
    }
    const Step step = RatioTest(ray);
    const double alpha = step.alpha;
    const int block_var = step.block_var, block_row = step.block_row;
    const bool block_upper = step.block_upper;
    if (alpha == kInf) {
      *error = "active-set QP: objective unbounded below along a zero-curvature direction";
      return BlockStatus::kUnbounded;
    }
    if (block_var < 0 && block_row < 0) {
      for (int i = 0; i < n_; ++i) {
        if (vs_[i] == VarState::kFree) x_[i] = xs_[i];
      }
      continue;
    }
    if (alpha == 0.0) single_drop = true;
    for (int i = 0; i < n_; ++i) {
      if (vs_[i] == VarState::kFree) x_[i] += alpha * (xs_[i] - x_[i]);
    }
    if (block_var >= 0) {
      vs_[block_var] = block_upper ? VarState::kUpper : VarState::kLower;
      x_[block_var] = block_upper ? hi_[block_var] : lo_[block_var];
    } else {
      rs_[block_row] = block_upper ? RowState::kUpper : RowState::kLower;
    }
  }
  *error = "active-set QP: no convergence within " + std::to_string(max_iterations) +
           " iterations (cycling on a degenerate point?)";
  has_state_ = false;
  return BlockStatus::kError;
}

}  // namespace dede::internal
