#include "subproblem/image_row_solver.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A row that misses its reachable range by less than this (relative to max(1, |rhs|)) takes
// the nearest reachable point, as the one-row search does.
constexpr double kRowFeasibilityTolerance = 1e-9;

double Clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Per-thread working arrays of a solve (the solver itself keeps nothing).
struct Scratch {
  std::vector<double> h, g, lo, hi;  // folded curvature, linear term and bounds, by slot
  std::vector<std::uint8_t> image;   // slot is an image
  std::vector<double> breakpoints;
  void Resize(std::size_t n) {
    if (h.size() >= n) return;
    h.resize(n);
    g.resize(n);
    lo.resize(n);
    hi.resize(n);
    image.resize(n);
  }
};

// The row over the bases in the search direction d = +1 / -1: r(mu) = d * sum a_k w_k(d mu),
// non-increasing in mu >= 0.
struct DirectedRow {
  const BlockRow* row;
  const Scratch* s;
  double d;
  double W(std::size_t j, double mu) const {
    const int k = row->index[j];
    return Clamp((-s->g[k] - mu * d * row->coef[j]) / s->h[k], s->lo[k], s->hi[k]);
  }
  double Activity(double mu) const {
    double r = 0;
    for (std::size_t j = 0; j < row->index.size(); ++j) r += d * row->coef[j] * W(j, mu);
    return r;
  }
  // Activity at mu -> infinity: each w at its bound in the direction its term pushes.
  double Limit() const {
    double r = 0;
    for (std::size_t j = 0; j < row->index.size(); ++j) {
      const double a = d * row->coef[j];
      if (a == 0) continue;
      const int k = row->index[j];
      r += a * (a > 0 ? s->lo[k] : s->hi[k]);
    }
    return std::isnan(r) ? -kInf : r;  // -inf + inf cannot occur: each term tends to -inf
  }
};

// The multiplier of the row over the folded bases: 0 when the row holds at the bases' own
// minimisers, else where the piecewise-linear activity meets the right-hand side.
BlockStatus RowMultiplier(const BlockRow& row, Scratch& s, double* lambda, std::string* error) {
  *lambda = 0;
  const double r0 = DirectedRow{&row, &s, 1.0}.Activity(0.0);
  const bool below = r0 < row.rhs;
  const bool above = r0 > row.rhs;
  const bool search =
      (above && row.sense != Sense::kGreaterEqual) || (below && row.sense != Sense::kLessEqual);
  if (std::isnan(r0)) {
    *error = "image_row: the row's activity is not a number";
    return BlockStatus::kError;
  }
  if (search) {
    const double d = above ? 1.0 : -1.0;
    const DirectedRow r{&row, &s, d};
    const double target = d * row.rhs;
    const double limit = r.Limit();
    double mu = 0;
    if (limit > target) {
      if (limit - target > kRowFeasibilityTolerance * std::max(1.0, std::fabs(row.rhs))) {
        *error = "image_row: the row cannot reach its right-hand side " + std::to_string(row.rhs) +
                 " within the bounds (nearest " + std::to_string(d * limit) + ")";
        return BlockStatus::kInfeasible;
      }
      mu = kInf;  // the nearest reachable point: every base at its bound
    } else {
      // Breakpoints in mu > 0, where a base reaches a bound.
      std::vector<double>& bp = s.breakpoints;
      bp.clear();
      for (std::size_t j = 0; j < row.index.size(); ++j) {
        const double a = d * row.coef[j];
        if (a == 0) continue;
        const std::size_t k = static_cast<std::size_t>(row.index[j]);
        for (const double bound : {s.lo[k], s.hi[k]}) {
          const double m = (-s.g[k] - s.h[k] * bound) / a;
          if (m > 0 && std::isfinite(m)) bp.push_back(m);
        }
      }
      std::sort(bp.begin(), bp.end());
      // The first breakpoint at which the activity is at or below the target.
      std::size_t lo = 0, hi = bp.size();
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (r.Activity(bp[mid]) <= target) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      const double left = lo == 0 ? 0.0 : bp[lo - 1];
      const double r_left = lo == 0 ? d * r0 : r.Activity(left);
      if (lo < bp.size()) {
        // Linear on [left, bp[lo]]: interpolate.
        const double right = bp[lo], r_right = r.Activity(right);
        mu = r_left - r_right > 0 ? left + (r_left - target) * (right - left) / (r_left - r_right)
                                  : right;
        mu = Clamp(mu, left, right);
      } else {
        // Past the last breakpoint: slope -sum a^2 / H over the bases still free.
        double slope = 0;
        const double probe = left + 1.0;
        for (std::size_t j = 0; j < row.index.size(); ++j) {
          const std::size_t k = static_cast<std::size_t>(row.index[j]);
          const double a = row.coef[j];
          const double u = (-s.g[k] - probe * d * a) / s.h[k];
          if (u > s.lo[k] && u < s.hi[k]) slope += a * a / s.h[k];
        }
        mu = slope > 0 ? left + (r_left - target) / slope : left;
      }
    }
    *lambda = d * mu;
  }
  return BlockStatus::kOptimal;
}

}  // namespace

std::unique_ptr<ImageRowSolver> ImageRowSolver::TryCreate(const BlockProblem& s) {
  if (s.images.empty() || !s.logs.empty() || s.rows.size() > 1) return nullptr;
  const std::size_t n = static_cast<std::size_t>(s.num_vars());
  std::vector<std::uint8_t> image(n, 0), strict(n, 0);
  for (std::size_t i = 0; i < n; ++i) strict[i] = 2 * s.quadratic[i] + s.prox_weight[i] > 0;
  for (std::size_t k = 0; k < s.images.size(); ++k) {
    const int i = s.images.slot[k];
    image[static_cast<std::size_t>(i)] = 1;
    if (2 * s.quadratic[i] + s.prox_weight[i] > 0)
      strict[static_cast<std::size_t>(s.images.base[k])] = 1;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!image[i] && !strict[i]) return nullptr;
  if (!s.rows.empty()) {
    for (int i : s.rows[0].index)
      if (image[static_cast<std::size_t>(i)]) return nullptr;
  }
  return std::unique_ptr<ImageRowSolver>(new ImageRowSolver());
}

BlockStatus ImageRowSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  v->resize(static_cast<std::size_t>(problem.num_vars()));
  return SolveInPlace(problem, problem.prox_target.data(), v->data());
}

BlockStatus ImageRowSolver::SolveInPlace(const BlockProblem& p, const double* t, double* v) {
  const std::size_t n = static_cast<std::size_t>(p.num_vars());
  thread_local Scratch s;
  s.Resize(n);
  const SlotValues::View lower = p.lower.view(), upper = p.upper.view();
  const SlotValues::View linear = p.linear.view(), quadratic = p.quadratic.view();
  const SlotValues::View prox = p.prox_weight.view();
  // Every slot's own terms (a local's target is not read: its penalty is 0).
  for (std::size_t i = 0; i < n; ++i) {
    const double w = prox[i];
    s.h[i] = 2 * quadratic[i] + w;
    s.g[i] = linear[i] - (w != 0 ? w * t[i] : 0.0);
    s.lo[i] = lower[i];
    s.hi[i] = upper[i];
    s.image[i] = 0;
  }
  // 1. Fold the images into their bases.
  const BlockImages& im = p.images;
  const SlotValues::View offset = im.offset.view(), scale = im.scale.view();
  const bool unit = im.scale.uniform() && im.scale.value() == 1.0 && im.offset.uniform() &&
                    std::bit_cast<std::uint64_t>(im.offset.value()) == 0;
  if (unit) {
    // Every image is its base (a path's link entries equal its flow): the general fold below
    // with o = 0, s = 1, without its two divisions per image (a third of a Kdl block's solve),
    // and without the bounds when every slot has the same (then they add nothing).
    const bool same_bounds = p.lower.uniform() && p.upper.uniform();
    for (std::size_t k = 0; k < im.size(); ++k) {
      const std::size_t i = static_cast<std::size_t>(im.slot[k]);
      const std::size_t b = static_cast<std::size_t>(im.base[k]);
      s.image[i] = 1;
      s.h[b] += s.h[i];
      s.g[b] += s.g[i];
      if (same_bounds) continue;
      s.lo[b] = std::max(s.lo[b], s.lo[i]);
      s.hi[b] = std::min(s.hi[b], s.hi[i]);
    }
  }
  for (std::size_t k = 0; !unit && k < im.size(); ++k) {
    const std::size_t i = static_cast<std::size_t>(im.slot[k]);
    const std::size_t b = static_cast<std::size_t>(im.base[k]);
    const double o = offset[k], sc = scale[k];
    s.image[i] = 1;
    s.h[b] += s.h[i] * sc * sc;
    s.g[b] += ImageBaseLinear(s.h[i], s.g[i], o, sc);
    const auto [from, to] = ImageBaseInterval(s.lo[i], s.hi[i], o, sc);
    s.lo[b] = std::max(s.lo[b], from);
    s.hi[b] = std::min(s.hi[b], to);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (s.image[i]) continue;
    if (!(s.h[i] > 0) || !std::isfinite(s.h[i])) {
      error_ = "image_row: variable " + std::to_string(i) + " has curvature " +
               std::to_string(s.h[i]) + " (its block's structure changed)";
      return BlockStatus::kError;
    }
    if (s.lo[i] > s.hi[i]) {
      error_ = "image_row: the bounds of variable " + std::to_string(i) +
               " and of its images leave no value (" + std::to_string(s.lo[i]) + " > " +
               std::to_string(s.hi[i]) + ")";
      return BlockStatus::kInfeasible;
    }
  }
  // 2-3. The bases: the row's multiplier, then each base's minimiser.
  double lambda = 0;
  if (!p.rows.empty()) {
    const BlockStatus status = RowMultiplier(p.rows[0], s, &lambda, &error_);
    if (status != BlockStatus::kOptimal) return status;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (s.image[i]) continue;
    v[i] = Clamp(-s.g[i] / s.h[i], s.lo[i], s.hi[i]);
  }
  if (lambda != 0) {
    const BlockRow& row = p.rows[0];
    for (std::size_t j = 0; j < row.index.size(); ++j) {
      const std::size_t k = static_cast<std::size_t>(row.index[j]);
      const double a = row.coef[j];
      if (std::isinf(lambda)) {
        const double pushed = lambda * a;  // +inf: towards lo, -inf: towards hi
        v[k] = pushed > 0 ? s.lo[k] : (pushed < 0 ? s.hi[k] : v[k]);
      } else {
        v[k] = Clamp((-s.g[k] - lambda * a) / s.h[k], s.lo[k], s.hi[k]);
      }
    }
  }
  // 4. The images.
  for (std::size_t k = 0; k < im.size(); ++k) {
    const std::size_t i = static_cast<std::size_t>(im.slot[k]);
    v[i] =
        Clamp(offset[k] + scale[k] * v[static_cast<std::size_t>(im.base[k])], lower[i], upper[i]);
  }
  return BlockStatus::kOptimal;
}

}  // namespace dede::internal
