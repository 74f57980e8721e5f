#include "admm/anderson.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <random>
#include <vector>

namespace dede::internal {
namespace {

// F(q) = A q + b with A symmetric, eigenvalues spread in [0.5, 0.99]: the plain iteration
// contracts by 0.99 per step, so it needs hundreds of steps; Anderson needs a few dozen.
struct LinearMap {
  int n = 40;
  std::vector<double> a, b;
  explicit LinearMap(unsigned seed) : a(n * n, 0.0), b(n) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    // A = Q diag(l) Q^T with Q from Gram-Schmidt.
    std::vector<double> q(n * n);
    for (double& v : q) v = u(rng);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < i; ++j) {
        double d = 0;
        for (int k = 0; k < n; ++k) d += q[i * n + k] * q[j * n + k];
        for (int k = 0; k < n; ++k) q[i * n + k] -= d * q[j * n + k];
      }
      double norm = 0;
      for (int k = 0; k < n; ++k) norm += q[i * n + k] * q[i * n + k];
      for (int k = 0; k < n; ++k) q[i * n + k] /= std::sqrt(norm);
    }
    for (int i = 0; i < n; ++i) {
      const double l = 0.5 + 0.49 * i / (n - 1);
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) a[r * n + c] += l * q[i * n + r] * q[i * n + c];
    }
    for (double& v : b) v = u(rng);
  }
  std::vector<double> operator()(const std::vector<double>& x) const {
    std::vector<double> y(b);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) y[r] += a[r * n + c] * x[c];
    return y;
  }
  double Residual(const std::vector<double>& x) const {
    const std::vector<double> f = (*this)(x);
    double s = 0;
    for (int i = 0; i < n; ++i) s += (x[i] - f[i]) * (x[i] - f[i]);
    return std::sqrt(s);
  }
};

double RunAnderson(const LinearMap& map, AndersonKind kind, int steps, AndersonStats* stats) {
  AndersonAccelerator aa(map.n, 5, kind, 1.0, 1e-10);
  std::vector<double> q(map.n, 0.0), next;
  for (int k = 0; k < steps; ++k) {
    aa.Apply(map(q), &next);
    q = next;
  }
  if (stats != nullptr) *stats = aa.stats();
  return map.Residual(q);
}

TEST(Anderson, AcceleratesALinearContraction) {
  const LinearMap map(7);
  std::vector<double> q(map.n, 0.0);
  for (int k = 0; k < 60; ++k) q = map(q);
  const double plain = map.Residual(q);
  for (AndersonKind kind : {AndersonKind::kTypeI, AndersonKind::kTypeII}) {
    AndersonStats stats;
    const double accelerated = RunAnderson(map, kind, 60, &stats);
    EXPECT_LT(accelerated, 1e-3 * plain) << "type " << static_cast<int>(kind) << ": plain " << plain
                                         << ", accelerated " << accelerated;
    EXPECT_GT(stats.steps, 30);
  }
}

// Every extrapolation whose residual grows is undone. F(q) = 0.9 q + 1 along the plain path
// (fixed point 10, approached from below: after 40 plain steps q is still below 9.86), but
// F kicks by +100 anywhere above 9.99. Anderson's extrapolation jumps to about 10 and lands in
// the kick region, where the residual is 100: the safeguard must reject every such point and
// continue from the plain iterate, so each fed point in the kick region (except a last one
// not yet checked) is matched by one rejection, and the plain points keep making progress.
TEST(Anderson, SafeguardRejectsEveryExtrapolationThatIncreasesTheResidual) {
  const auto f = [](double q) { return q > 9.99 ? q + 100.0 : 0.9 * q + 1.0; };
  AndersonAccelerator aa(1, 3, AndersonKind::kTypeI, 1.0, 1e-10);
  std::vector<double> next;
  double q = 0;
  int in_kick_region = 0;
  double best_plain = 0;
  for (int k = 0; k < 40; ++k) {
    aa.Apply({f(q)}, &next);
    q = next[0];
    if (q > 9.99) {
      if (k < 39) ++in_kick_region;
    } else {
      best_plain = std::max(best_plain, q);
    }
  }
  EXPECT_GE(aa.stats().rejections, 3);
  EXPECT_EQ(aa.stats().rejections, in_kick_region);
  EXPECT_GT(best_plain, 9.0);  // the plain path went on between the rejections
}

TEST(Anderson, ResultsDoNotDependOnTheThreadCount) {
  const LinearMap map(3);
  std::vector<double> out[2];
  for (int t = 1; t <= 2; ++t) {
    tbb::task_arena(t).execute([&] {
      AndersonAccelerator aa(map.n, 4, AndersonKind::kTypeI, 1.0, 1e-10);
      std::vector<double> q(map.n, 0.0), next;
      for (int k = 0; k < 20; ++k) {
        aa.Apply(map(q), &next);
        q = next;
      }
      out[t - 1] = q;
    });
  }
  EXPECT_EQ(out[0], out[1]);
}

}  // namespace
}  // namespace dede::internal
