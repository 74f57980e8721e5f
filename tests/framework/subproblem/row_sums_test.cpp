// The one-row search's inner loop (row_sums.h): the vector code against a plain scalar
// statement of its order (four lanes, combined as (0 + 1) + (2 + 3), then the tail in order;
// short rows in order), to the bit. The clone this machine runs (AVX2 where present) must
// give exactly what the scalar order gives, which is what every other x86-64 computes too.
#include "subproblem/row_sums.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Row {
  std::vector<double> g, a, hinv, curv, lo, hi;
};

// The documented order, one element at a time.
RowSums Reference(const Row& r, double lambda) {
  const std::size_t n = r.g.size();
  double lane_sum[4] = {0, 0, 0, 0}, lane_slope[4] = {0, 0, 0, 0};
  double sum = 0.0, slope = 0.0;
  std::size_t k = 0;
  const auto element = [&](std::size_t i, double* s, double* sl) {
    const double raw = -(r.g[i] + lambda * r.a[i]) * r.hinv[i];
    const double x = std::min(std::max(raw, r.lo[i]), r.hi[i]);
    if (raw > r.lo[i] && raw < r.hi[i]) *sl -= r.curv[i];
    *s += r.a[i] * x;
  };
  if (n >= kLaneMinimum) {
    for (; k + 4 <= n; k += 4) {
      for (int l = 0; l < 4; ++l) element(k + l, &lane_sum[l], &lane_slope[l]);
    }
    sum = (lane_sum[0] + lane_sum[1]) + (lane_sum[2] + lane_sum[3]);
    slope = (lane_slope[0] + lane_slope[1]) + (lane_slope[2] + lane_slope[3]);
  }
  for (; k < n; ++k) element(k, &sum, &slope);
  return {sum, slope};
}

bool SameBits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// A row of n variables: general coefficients, or unit ones, or unit ones with one curvature
// and one pair of bounds; some bounds infinite, scales spread over orders of magnitude.
Row RandomRow(std::mt19937_64& rng, std::size_t n, int shape) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Row r;
  const double h = std::pow(10.0, 3 * u(rng));
  const double lo = u(rng) < -0.5 ? -kInf : u(rng);
  const double hi = u(rng) > 0.5 ? kInf : 1.5 + u(rng);
  for (std::size_t k = 0; k < n; ++k) {
    const double a = shape == 0 ? u(rng) * 4 : 1.0;
    const double hk = shape == 2 ? h : std::pow(10.0, 3 * u(rng));
    r.g.push_back(u(rng) * 3 * std::pow(10.0, 2 * u(rng)));
    r.a.push_back(a);
    r.hinv.push_back(a / hk);  // the core keeps a / h and a^2 / h for its general rows
    r.curv.push_back(a * a / hk);
    r.lo.push_back(shape == 2 ? lo : (u(rng) < -0.7 ? -kInf : u(rng)));
    r.hi.push_back(shape == 2 ? hi : (u(rng) > 0.7 ? kInf : 1.5 + u(rng)));
    if (shape != 0) r.hinv.back() = 1.0 / hk, r.curv.back() = r.hinv.back();
  }
  return r;
}

TEST(RowSums, EveryShapeSumsInTheDocumentedOrderToTheBit) {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int laned = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = trial % 7 == 0 ? trial % 17 : 1 + rng() % 300;
    const int shape = trial % 3;
    const Row r = RandomRow(rng, n, shape);
    const double lambda = u(rng) * std::pow(10.0, 2 * u(rng));
    const RowSums want = Reference(r, lambda);
    const RowSums general = SumGeneralRow(
        r.g.data(), r.a.data(), r.hinv.data(), r.curv.data(), r.lo.data(), r.hi.data(), n, lambda);
    ASSERT_TRUE(SameBits(general.sum, want.sum) && SameBits(general.slope, want.slope))
        << "trial " << trial << " n " << n << ": " << general.sum << " vs " << want.sum;
    if (shape >= 1) {
      const RowSums unit =
          SumUnitRow(r.g.data(), r.hinv.data(), r.lo.data(), r.hi.data(), n, lambda);
      ASSERT_TRUE(SameBits(unit.sum, want.sum) && SameBits(unit.slope, want.slope))
          << "trial " << trial;
    }
    if (shape == 2 && n > 0) {
      const RowSums uniform = SumUniformRow(r.g.data(), n, lambda, r.hinv[0], r.lo[0], r.hi[0]);
      ASSERT_TRUE(SameBits(uniform.sum, want.sum) && SameBits(uniform.slope, want.slope))
          << "trial " << trial;
    }
    laned += n >= kLaneMinimum;
  }
  EXPECT_GT(laned, 2000);
}

// With an output array every shape also stores each variable's value: the same sums to the bit, and
// x_k the clipped minimiser as the solver's final assignment computes it (std::min(std::max(raw,
// lo), hi)), in the lanes and in the tail; nothing past n is written.
TEST(RowSums, WithAnOutputEveryShapeStoresEachClippedMinimiserAndSumsTheSame) {
  std::mt19937_64 rng(1128);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  constexpr double kSentinel = -12345.0;
  for (int trial = 0; trial < 1500; ++trial) {
    const std::size_t n = trial % 7 == 0 ? trial % 17 : 1 + rng() % 300;
    const int shape = trial % 3;
    const Row r = RandomRow(rng, n, shape);
    const double lambda = u(rng) * std::pow(10.0, 2 * u(rng));
    const RowSums want = Reference(r, lambda);
    const auto check = [&](const RowSums& got, const std::vector<double>& x, const char* name) {
      ASSERT_TRUE(SameBits(got.sum, want.sum) && SameBits(got.slope, want.slope))
          << name << " trial " << trial << " n " << n;
      for (std::size_t k = 0; k < n; ++k) {
        const double raw = -(r.g[k] + lambda * r.a[k]) * r.hinv[k];
        ASSERT_TRUE(SameBits(x[k], std::min(std::max(raw, r.lo[k]), r.hi[k])))
            << name << " trial " << trial << " k " << k;
      }
      ASSERT_EQ(x[n], kSentinel) << name << " wrote past the row";
    };
    std::vector<double> x(n + 1, kSentinel);
    check(SumGeneralRow(r.g.data(),
                        r.a.data(),
                        r.hinv.data(),
                        r.curv.data(),
                        r.lo.data(),
                        r.hi.data(),
                        n,
                        lambda,
                        x.data()),
          x,
          "general");
    if (shape >= 1) {
      std::fill(x.begin(), x.end(), kSentinel);
      check(SumUnitRow(r.g.data(), r.hinv.data(), r.lo.data(), r.hi.data(), n, lambda, x.data()),
            x,
            "unit");
    }
    if (shape == 2 && n > 0) {
      std::fill(x.begin(), x.end(), kSentinel);
      check(SumUniformRow(r.g.data(), n, lambda, r.hinv[0], r.lo[0], r.hi[0], x.data()),
            x,
            "uniform");
    }
  }
}

// Hand-computed: eight variables x = clip(-(g + 1), 0, 2) with g = -3 .. 4: raw = 2, 1, 0, -1,
// ..., so x = 2, 1, 0, 0, ... (the first at its upper bound, the second inside); sum 3, slope -1.
// With 16 copies the row is summed in lanes: 48 and -16 exactly.
TEST(RowSums, HandComputedClipAndSlope) {
  std::vector<double> g;
  for (int k = 0; k < 8; ++k) g.push_back(-3.0 + k);
  RowSums s = SumUniformRow(g.data(), g.size(), 1.0, 1.0, 0.0, 2.0);
  EXPECT_EQ(s.sum, 3.0);
  EXPECT_EQ(s.slope, -1.0);
  std::vector<double> many;
  for (int c = 0; c < 16; ++c) many.insert(many.end(), g.begin(), g.end());
  s = SumUniformRow(many.data(), many.size(), 1.0, 1.0, 0.0, 2.0);
  EXPECT_EQ(s.sum, 48.0);
  EXPECT_EQ(s.slope, -16.0);
}

// Every position (in the lanes and in the tail) and every kind of non-finite value is seen;
// the largest double, denormals and signed zeros are finite.
TEST(RowSums, AllFiniteFindsAnyInfinityOrNaN) {
  const double finite[] = {0.0,
                           -0.0,
                           1.0,
                           -3.5,
                           std::numeric_limits<double>::max(),
                           -std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::denorm_min()};
  const double bad[] = {kInf, -kInf, std::numeric_limits<double>::quiet_NaN()};
  for (std::size_t n = 0; n <= 23; ++n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = finite[i % 7];
    EXPECT_TRUE(AllFinite(v.data(), n)) << n;
    for (std::size_t pos = 0; pos < n; ++pos) {
      for (double b : bad) {
        std::vector<double> w = v;
        w[pos] = b;
        EXPECT_FALSE(AllFinite(w.data(), n)) << "n " << n << " at " << pos << ": " << b;
      }
    }
  }
}

}  // namespace
}  // namespace dede::internal
