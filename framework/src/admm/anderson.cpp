#include "admm/anderson.h"

#include <tbb/parallel_for.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace dede::internal {
namespace {

// Reductions split the vector into this many fixed ranges, summed in order.
constexpr int kChunks = 64;

std::size_t Bound(std::size_t n, int k) { return n * static_cast<std::size_t>(k) / kChunks; }

// Largest coefficient norm accepted: beyond it the small system is numerically singular and
// the extrapolation is noise (SCS uses the same guard).
constexpr double kMaxGammaNorm = 1e10;

}  // namespace

AndersonAccelerator::AndersonAccelerator(
    std::size_t n, int memory, AndersonKind kind, double safeguard, double regularization)
    : n_(n),
      memory_(std::max(1, memory)),
      kind_(kind),
      safeguard_(safeguard),
      regularization_(regularization),
      // memory_ complete columns plus the pending one, so writing the pending s never
      // overwrites a column still in use.
      s_(n * static_cast<std::size_t>(memory_ + 1)),
      y_(n * static_cast<std::size_t>(memory_ + 1)),
      q_prev_(n),
      g_prev_(n),
      fallback_(n),
      st_y_(static_cast<std::size_t>((memory_ + 1) * (memory_ + 1))),
      yt_y_(static_cast<std::size_t>((memory_ + 1) * (memory_ + 1))),
      s_norm2_(static_cast<std::size_t>(memory_ + 1)),
      rhs_(static_cast<std::size_t>(memory_ + 1)) {}

void AndersonAccelerator::Reset() {
  have_prev_ = false;
  have_g_ = false;
  prev_accelerated_ = false;
  slots_.clear();
  pending_ = 0;
  ++stats_.resets;
}

void AndersonAccelerator::ClearColumns() {
  slots_.clear();
  pending_ = 0;
  ++stats_.resets;
}

bool AndersonAccelerator::SolveCoefficients(std::vector<double>* gamma) const {
  const int k = static_cast<int>(slots_.size());
  const int w = memory_ + 1;
  Eigen::MatrixXd a(k, k);
  Eigen::VectorXd b(k);
  double s_fro = 0, y_fro = 0;
  for (int i = 0; i < k; ++i) {
    s_fro += s_norm2_[slots_[i]];
    y_fro += yt_y_[slots_[i] * w + slots_[i]];
  }
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      // Type I: S^T Y gamma = S^T g. Type II: Y^T Y gamma = Y^T g (least squares).
      a(i, j) = kind_ == AndersonKind::kTypeI ? st_y_[slots_[i] * w + slots_[j]]
                                              : yt_y_[slots_[i] * w + slots_[j]];
    }
    b(i) = rhs_[slots_[i]];
  }
  const double r = kind_ == AndersonKind::kTypeI
                       ? regularization_ * std::sqrt(s_fro) * std::sqrt(y_fro)
                       : regularization_ * y_fro;
  a.diagonal().array() += r;
  const Eigen::VectorXd g = a.colPivHouseholderQr().solve(b);
  if (!g.allFinite() || g.norm() > kMaxGammaNorm) return false;
  gamma->assign(g.data(), g.data() + k);
  return true;
}

void AndersonAccelerator::Apply(const std::vector<double>& f, std::vector<double>* next) {
  next->resize(n_);
  if (!have_prev_) {
    std::copy(f.begin(), f.end(), next->begin());
    std::copy(f.begin(), f.end(), q_prev_.begin());
    have_prev_ = true;
    have_g_ = false;
    prev_accelerated_ = false;
    return;
  }
  const int w = memory_ + 1;
  // The column completed by this call (when the residual at the point before is known) joins
  // the complete ones; the oldest leaves once there are more than memory_.
  const bool complete = have_g_;
  std::vector<int> columns = slots_;
  if (complete) columns.push_back(pending_);
  const int c = pending_;
  const int kc = static_cast<int>(columns.size());
  // Per chunk: ||g||^2, then per column i: s_i . y_c, s_c . y_i, y_i . y_c, s_i . g, y_i . g;
  // and s_c . s_c.
  const int stride = 2 + 5 * kc;
  std::vector<double> acc(static_cast<std::size_t>(kChunks * stride), 0.0);
  const double* s = s_.data();
  double* y = y_.data();
  tbb::parallel_for(0, kChunks, [&](int chunk) {
    double* a = acc.data() + static_cast<std::size_t>(chunk) * stride;
    for (std::size_t p = Bound(n_, chunk), end = Bound(n_, chunk + 1); p < end; ++p) {
      const double g = q_prev_[p] - f[p];
      a[0] += g * g;
      if (complete) {
        const double yc = g - g_prev_[p];
        y[static_cast<std::size_t>(c) * n_ + p] = yc;
        const double sc = s[static_cast<std::size_t>(c) * n_ + p];
        a[1] += sc * sc;
        for (int i = 0; i < kc; ++i) {
          const std::size_t at = static_cast<std::size_t>(columns[i]) * n_ + p;
          const double si = s[at], yi = y[at];
          double* ai = a + 2 + 5 * i;
          ai[0] += si * yc;
          ai[1] += sc * yi;
          ai[2] += yi * yc;
          ai[3] += si * g;
          ai[4] += yi * g;
        }
      }
      g_prev_[p] = g;
    }
  });
  std::vector<double> sum(static_cast<std::size_t>(stride), 0.0);
  for (int chunk = 0; chunk < kChunks; ++chunk) {
    for (int j = 0; j < stride; ++j) sum[j] += acc[static_cast<std::size_t>(chunk) * stride + j];
  }
  const double g_norm = std::sqrt(sum[0]);
  const bool had_g = have_g_;
  const double g_before = g_prev_norm_;
  g_prev_norm_ = g_norm;
  have_g_ = true;

  if (prev_accelerated_ && had_g && !(g_norm <= safeguard_ * g_before)) {
    // The extrapolated point is worse than the one it came from: take the plain iterate
    // from that point instead, with a fresh memory.
    ++stats_.rejections;
    ClearColumns();
    std::copy(fallback_.begin(), fallback_.end(), next->begin());
    std::copy(fallback_.begin(), fallback_.end(), q_prev_.begin());
    have_g_ = false;
    prev_accelerated_ = false;
    return;
  }

  if (complete) {
    for (int i = 0; i < kc; ++i) {
      const int si = columns[i];
      const double* ai = sum.data() + 2 + 5 * i;
      st_y_[si * w + c] = ai[0];
      st_y_[c * w + si] = ai[1];
      yt_y_[si * w + c] = ai[2];
      yt_y_[c * w + si] = ai[2];
      rhs_[si] = kind_ == AndersonKind::kTypeI ? ai[3] : ai[4];
    }
    s_norm2_[c] = sum[1];
    slots_ = columns;
    if (static_cast<int>(slots_.size()) > memory_) slots_.erase(slots_.begin());
    // The free slot (the one just evicted, or one never used) takes the next pending s.
    std::vector<std::uint8_t> used(static_cast<std::size_t>(w), 0);
    for (int si : slots_) used[si] = 1;
    pending_ = static_cast<int>(std::find(used.begin(), used.end(), 0) - used.begin());
  }
  std::vector<double> gamma;
  const bool accelerate = !slots_.empty() && SolveCoefficients(&gamma);
  if (!slots_.empty() && !accelerate) ClearColumns();
  const int k = accelerate ? static_cast<int>(slots_.size()) : 0;
  double* pending_s = s_.data() + static_cast<std::size_t>(pending_) * n_;
  tbb::parallel_for(0, kChunks, [&](int chunk) {
    for (std::size_t p = Bound(n_, chunk), end = Bound(n_, chunk + 1); p < end; ++p) {
      double v = f[p];
      for (int i = 0; i < k; ++i) {
        const std::size_t at = static_cast<std::size_t>(slots_[i]) * n_ + p;
        v -= gamma[i] * (s_[at] - y_[at]);
      }
      (*next)[p] = v;
      fallback_[p] = f[p];
      pending_s[p] = v - q_prev_[p];
      q_prev_[p] = v;
    }
  });
  prev_accelerated_ = accelerate;
  if (accelerate) ++stats_.steps;
}

}  // namespace dede::internal
