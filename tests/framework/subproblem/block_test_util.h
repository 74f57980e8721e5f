// Random block generators and independent reference solvers for the subproblem tests.
// The references are deliberately naive (bisection on derivatives, enumeration), sharing no
// code with the solvers under test beyond EvaluateBlockObjective / MaxBlockViolation.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <coin/ClpSimplex.hpp>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"
#include "subproblem/separable_solver.h"

namespace dede::internal::testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline BlockProblem EmptyBlock(int n) {
  BlockProblem p;
  p.lower.assign(n, 0.0);
  p.upper.assign(n, kInf);
  p.integral.assign(n, 0);
  p.linear.assign(n, 0.0);
  p.quadratic.assign(n, 0.0);
  p.prox_weight.assign(n, 0.0);
  p.prox_target.assign(n, 0.0);
  return p;
}

struct RandomSpec {
  int min_vars = 1, max_vars = 10;
  int num_rows = 1;
  double zero_curvature_probability = 0.25;  // for variables outside every row
  double infinite_bound_probability = 0.25;
  double infeasible_probability = 0.05;  // rhs pushed outside the reachable range
  bool row_vars_strict = true;           // q_i + p_i/2 > 0 on row variables
  bool allow_unbounded = false;          // zero-curvature variables may lack a bound
};

inline double Uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
inline bool Chance(std::mt19937& rng, double p) { return Uniform(rng, 0.0, 1.0) < p; }

// Reachable range of a'v over the box.
inline void RowRange(const BlockProblem& p, const BlockRow& row, double* lo, double* hi) {
  *lo = *hi = 0.0;
  for (size_t k = 0; k < row.index.size(); ++k) {
    const double a = row.coef[k];
    const double l = p.lower[row.index[k]], u = p.upper[row.index[k]];
    *lo += a > 0 ? a * l : a * u;
    *hi += a > 0 ? a * u : a * l;
  }
}

// A random QP block: mixed senses, finite and infinite bounds, fixed variables, zero-curvature
// variables outside the rows, occasionally an unreachable row.
inline BlockProblem RandomBlock(std::mt19937& rng, const RandomSpec& spec) {
  const int n = std::uniform_int_distribution<int>(spec.min_vars, spec.max_vars)(rng);
  BlockProblem p = EmptyBlock(n);
  std::vector<std::uint8_t> in_row(n, 0);
  for (int r = 0; r < spec.num_rows; ++r) {
    BlockRow row;
    for (int i = 0; i < n; ++i) {
      if (Chance(rng, 0.7) || (i == n - 1 && row.index.empty())) {
        row.index.push_back(i);
        double a = Uniform(rng, 0.2, 2.0) * (Chance(rng, 0.3) ? -1.0 : 1.0);
        if (Chance(rng, 0.2)) a = 1.0;
        row.coef.push_back(a);
        in_row[i] = 1;
      }
    }
    const int s = std::uniform_int_distribution<int>(0, 2)(rng);
    row.sense = s == 0 ? Sense::kLessEqual : (s == 1 ? Sense::kEqual : Sense::kGreaterEqual);
    p.rows.push_back(std::move(row));
  }
  for (int i = 0; i < n; ++i) {
    const bool zero = !in_row[i] ? Chance(rng, spec.zero_curvature_probability)
                                 : (!spec.row_vars_strict && Chance(rng, 0.3));
    if (!zero) {
      if (Chance(rng, 0.6)) p.quadratic[i] = Uniform(rng, 0.05, 2.0);
      if (p.quadratic[i] == 0.0 || Chance(rng, 0.5)) p.prox_weight[i] = Uniform(rng, 0.1, 3.0);
    }
    p.linear[i] = Uniform(rng, -3.0, 3.0);
    p.prox_target[i] = Uniform(rng, -2.0, 2.0);
    p.lower[i] = Chance(rng, spec.infinite_bound_probability) ? -kInf : Uniform(rng, -3.0, 0.5);
    p.upper[i] = Chance(rng, spec.infinite_bound_probability) ? kInf : Uniform(rng, -0.5, 3.0);
    if (p.lower[i] > p.upper[i]) {
      const double lo = p.upper[i];
      p.upper[i] = double(p.lower[i]);
      p.lower[i] = lo;
    }
    if (Chance(rng, 0.05) && std::isfinite(p.lower[i])) p.upper[i] = p.lower[i];
    if (zero && !spec.allow_unbounded) {
      // Keep the block bounded: the improving direction of c v needs a finite bound.
      if (p.linear[i] > 0 && !std::isfinite(p.lower[i])) p.lower[i] = Uniform(rng, -3.0, -0.5);
      if (p.linear[i] < 0 && !std::isfinite(p.upper[i])) p.upper[i] = Uniform(rng, 0.5, 3.0);
    }
  }
  for (BlockRow& row : p.rows) {
    double lo, hi;
    RowRange(p, row, &lo, &hi);
    const double a = std::isfinite(lo) ? lo : -10.0;
    const double b = std::isfinite(hi) ? hi : 10.0;
    row.rhs = Uniform(rng, std::min(a, b), std::max(a, b));
    if (Chance(rng, spec.infeasible_probability)) {
      // Outside the reachable range on the side the sense cares about.
      if (row.sense != Sense::kLessEqual && std::isfinite(hi)) {
        row.rhs = hi + Uniform(rng, 0.5, 2.0);
      } else if (row.sense != Sense::kGreaterEqual && std::isfinite(lo)) {
        row.rhs = lo - Uniform(rng, 0.5, 2.0);
      }
    }
  }
  return p;
}

// A demand block of a path formulation: `paths` flows f_p (variables 0..paths-1, no proximal
// term, linear cost), each defining the entries x_e of its links, which carry the proximal term:
// the row x_e = f_p, or with `general_maps` a x_e - c f_p = rhs (a scaled and shifted image,
// other costs and bounds); one row over the flows. With `images`, *images gets the same block
// with each of those rows declared as an image (offset rhs / a, scale c / a) instead.
inline BlockProblem PathBlock(
    std::mt19937& rng, int paths, Sense sense, bool general_maps, BlockProblem* images = nullptr) {
  std::vector<int> links(paths);
  int n = paths;
  for (int p = 0; p < paths; ++p) {
    links[p] = 1 + static_cast<int>(rng() % 4);
    n += links[p];
  }
  BlockProblem b = EmptyBlock(n);
  BlockImages declared;
  BlockRow demand;
  int next = paths;
  for (int p = 0; p < paths; ++p) {
    b.linear[p] = Uniform(rng, -3.0, 0.5);
    demand.index.push_back(p);
    demand.coef.push_back(general_maps ? Uniform(rng, 0.5, 2.0) : 1.0);
    for (int l = 0; l < links[p]; ++l, ++next) {
      b.prox_weight[next] = Uniform(rng, 0.1, 4.0);
      b.prox_target[next] = Uniform(rng, -1.0, 3.0);
      b.lower[next] = -kInf;
      if (general_maps) {
        b.quadratic[next] = Chance(rng, 0.3) ? Uniform(rng, 0.0, 1.0) : 0.0;
        b.linear[next] = Uniform(rng, -1.0, 1.0);
        if (Chance(rng, 0.3)) b.upper[next] = Uniform(rng, 0.5, 3.0);
        if (Chance(rng, 0.3)) b.lower[next] = Uniform(rng, -2.0, 0.2);
        const double a = Chance(rng, 0.5) ? Uniform(rng, 0.5, 2.0) : -Uniform(rng, 0.5, 2.0);
        const double c = Uniform(rng, 0.2, 3.0);
        const double rhs = Uniform(rng, -0.5, 0.5);
        // a x - c f = rhs: x = rhs / a + (c / a) f.
        b.rows.push_back({{next, p}, {a, -c}, Sense::kEqual, rhs});
        declared.push_back(next, p, rhs / a, c / a);
      } else {
        b.lower[next] = 0.0;
        b.rows.push_back({{next, p}, {1.0, -1.0}, Sense::kEqual, 0.0});
        declared.push_back(next, p, 0.0, 1.0);
      }
    }
  }
  demand.sense = sense;
  demand.rhs = Uniform(rng, 0.5, 4.0);
  b.rows.push_back(demand);
  if (images != nullptr) {
    *images = b;
    images->rows = {demand};
    declared.offset.Compact();
    declared.scale.Compact();
    images->images = std::move(declared);
  }
  return b;
}

struct Solution {
  BlockStatus status = BlockStatus::kError;
  std::vector<double> v;
  double objective = 0.0;
  std::string solver;
  std::string error;
};

inline Solution SolveOnce(const BlockProblem& p, bool force_clp, BlockSolverOptions options = {}) {
  Solution s;
  options.force_clp = force_clp;
  std::string error;
  std::unique_ptr<BlockSolver> solver = CreateBlockSolver(p, options, &error);
  if (solver == nullptr) {
    s.error = "create failed: " + error;
    return s;
  }
  s.solver = solver->name();
  s.v.assign(p.num_vars(), 0.0);
  s.status = solver->Solve(p, &s.v);
  s.error = solver->last_error();
  if (s.status == BlockStatus::kOptimal || s.status == BlockStatus::kNodeLimit) {
    s.objective = EvaluateBlockObjective(p, s.v);
  }
  return s;
}

// ---- naive references for separable terms with one-variable logs --------------------------

// d/dv of variable i's own terms (quadratic, linear, prox, one-variable logs) plus mu v.
inline double OwnDerivative(const BlockProblem& p, int i, double mu, double x) {
  double d =
      2.0 * p.quadratic[i] * x + p.linear[i] + p.prox_weight[i] * (x - p.prox_target[i]) + mu;
  for (const BlockLog& log : p.logs) {
    if (log.index.size() == 1 && log.index[0] == i && log.weight > 0.0) {
      d -= log.weight * log.coef[0] / (log.coef[0] * x + log.constant);
    }
  }
  return d;
}

// argmin over the bounds of variable i's own terms + mu v, by bisection on the derivative.
// Returns NaN if the domain is empty, +-inf if the minimum is at infinity.
inline double BisectVariable(const BlockProblem& p, int i, double mu) {
  double lo = p.lower[i], hi = p.upper[i];
  bool lo_open = false, hi_open = false;
  for (const BlockLog& log : p.logs) {
    if (log.index.size() != 1 || log.index[0] != i || log.weight <= 0.0) continue;
    const double b = -log.constant / log.coef[0];
    if (log.coef[0] > 0 && b >= lo) {
      lo = b;
      lo_open = true;
    }
    if (log.coef[0] < 0 && b <= hi) {
      hi = b;
      hi_open = true;
    }
  }
  if (lo > hi || (lo == hi && (lo_open || hi_open)))
    return std::numeric_limits<double>::quiet_NaN();
  if (!lo_open && std::isfinite(lo) && OwnDerivative(p, i, mu, lo) >= 0) return lo;
  if (!hi_open && std::isfinite(hi) && OwnDerivative(p, i, mu, hi) <= 0) return hi;
  double a = std::isfinite(lo) ? lo : -1e12, b = std::isfinite(hi) ? hi : 1e12;
  if (!std::isfinite(lo) && OwnDerivative(p, i, mu, a) > 0) return -kInf;
  if (!std::isfinite(hi) && OwnDerivative(p, i, mu, b) < 0) return kInf;
  for (int it = 0; it < 200 && b > a; ++it) {
    const double m = 0.5 * (a + b);
    if (m <= a || m >= b) break;
    if (OwnDerivative(p, i, mu, m) > 0) {
      b = m;
    } else {
      a = m;
    }
  }
  return 0.5 * (a + b);
}

// Solves a block with at most one row, no multi-variable logs and strictly convex row
// variables by bisection on the row multiplier.
inline bool BisectOneRow(BlockProblem p, std::vector<double>* v) {
  const int n = p.num_vars();
  v->assign(n, 0.0);
  std::vector<double> a(n, 0.0);
  if (!p.rows.empty()) {
    for (size_t k = 0; k < p.rows[0].index.size(); ++k) a[p.rows[0].index[k]] = p.rows[0].coef[k];
  }
  auto at = [&](double lambda, std::vector<double>* x) {
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
      (*x)[i] = BisectVariable(p, i, lambda * a[i]);
      if (a[i] != 0.0) r += a[i] * (*x)[i];
    }
    return r;
  };
  if (p.rows.empty()) {
    at(0.0, v);
    return true;
  }
  const BlockRow& row = p.rows[0];
  std::vector<double> x(n);
  const double r0 = at(0.0, &x);
  if ((row.sense == Sense::kLessEqual && r0 <= row.rhs) ||
      (row.sense == Sense::kGreaterEqual && r0 >= row.rhs)) {
    *v = x;
    return true;
  }
  double lo = row.sense == Sense::kLessEqual ? 0.0 : -1e6;
  double hi = row.sense == Sense::kGreaterEqual ? 0.0 : 1e6;
  for (int it = 0; it < 200; ++it) {
    const double m = 0.5 * (lo + hi);
    if (at(m, &x) > row.rhs) {
      lo = m;
    } else {
      hi = m;
    }
  }
  at(0.5 * (lo + hi), v);
  return true;
}

// Objective comparison scale.
inline double RelDiff(double a, double b) { return std::fabs(a - b) / std::max(1.0, std::fabs(b)); }

inline double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// Optimality certificate for a block without log terms: the smallest L1 residual of the KKT
// stationarity condition  grad f(x) + A' mu - nu = 0  over multipliers with the right signs
// (mu_r >= 0 on active <= rows, <= 0 on active >= rows, free on = rows, 0 on inactive rows;
// nu_i >= 0 at an active lower bound, <= 0 at an active upper bound, 0 in between), found by
// Clp's LP simplex. Zero (up to rounding) with x feasible proves x optimal for the convex block.
inline double KktResidual(const BlockProblem& p,
                          const std::vector<double>& x,
                          double active_tolerance = 1e-7) {
  const int n = p.num_vars();
  const int m = static_cast<int>(p.rows.size());
  // LP columns: mu_r (m), nu_i (n), s+_i (n), s-_i (n). Rows: one equation per variable.
  const int cols = m + 3 * n;
  std::vector<double> col_lo(cols, 0.0), col_hi(cols, COIN_DBL_MAX), obj(cols, 0.0);
  std::vector<std::vector<std::pair<int, double>>> entries(cols);
  for (int r = 0; r < m; ++r) {
    const BlockRow& row = p.rows[r];
    double act = 0.0;
    for (size_t k = 0; k < row.index.size(); ++k) act += row.coef[k] * x[row.index[k]];
    const bool active =
        std::fabs(act - row.rhs) <= active_tolerance * std::max(1.0, std::fabs(row.rhs));
    if (!active) {
      col_lo[r] = col_hi[r] = 0.0;
    } else if (row.sense == Sense::kLessEqual) {
      col_lo[r] = 0.0;
    } else if (row.sense == Sense::kGreaterEqual) {
      col_lo[r] = -COIN_DBL_MAX;
      col_hi[r] = 0.0;
    } else {
      col_lo[r] = -COIN_DBL_MAX;
    }
    for (size_t k = 0; k < row.index.size(); ++k) entries[r].push_back({row.index[k], row.coef[k]});
  }
  std::vector<double> rhs(n);
  for (int i = 0; i < n; ++i) {
    // grad_i + sum_r a_ri mu_r - nu_i + s+_i - s-_i = 0
    rhs[i] =
        -(2.0 * p.quadratic[i] * x[i] + p.linear[i] + p.prox_weight[i] * (x[i] - p.prox_target[i]));
    const bool at_lo = std::isfinite(p.lower[i]) &&
                       x[i] - p.lower[i] <= active_tolerance * std::max(1.0, std::fabs(p.lower[i]));
    const bool at_hi = std::isfinite(p.upper[i]) &&
                       p.upper[i] - x[i] <= active_tolerance * std::max(1.0, std::fabs(p.upper[i]));
    const int nu = m + i;
    col_lo[nu] = at_hi ? -COIN_DBL_MAX : 0.0;
    col_hi[nu] = at_lo ? COIN_DBL_MAX : 0.0;
    entries[nu].push_back({i, -1.0});
    entries[m + n + i].push_back({i, 1.0});
    entries[m + 2 * n + i].push_back({i, -1.0});
    obj[m + n + i] = obj[m + 2 * n + i] = 1.0;
  }
  std::vector<CoinBigIndex> start(cols + 1, 0);
  std::vector<int> index;
  std::vector<double> value;
  for (int c = 0; c < cols; ++c) {
    for (auto& [row, v] : entries[c]) {
      index.push_back(row);
      value.push_back(v);
    }
    start[c + 1] = static_cast<CoinBigIndex>(index.size());
  }
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(cols,
                 n,
                 start.data(),
                 index.data(),
                 value.data(),
                 col_lo.data(),
                 col_hi.data(),
                 obj.data(),
                 rhs.data(),
                 rhs.data());
  lp.primal();
  if (lp.status() != 0) return kInf;
  return lp.objectiveValue();
}

}  // namespace dede::internal::testing
