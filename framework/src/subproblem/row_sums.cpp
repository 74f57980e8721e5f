// The one-row search's inner loop in four lanes (see row_sums.h).
#include "subproblem/row_sums.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace dede::internal {
namespace {

enum class Shape { kUniform, kUnit, kGeneral };

// Four doubles, and the comparison masks over them (GCC's vector extensions: element-wise IEEE
// operations, lowered to whatever registers the function's target has).
typedef double Lanes __attribute__((vector_size(32)));
typedef long long Mask __attribute__((vector_size(32)));

// Pointers the shape does not read may be null; hv, lv, uv are the uniform shape's scalars.
// With store, each variable's x goes to out[k] as well.
template <Shape shape, bool store>
[[gnu::always_inline]] inline RowSums Sum(const double* g,
                                          const double* a,
                                          const double* hinv,
                                          const double* curv,
                                          const double* lo,
                                          const double* hi,
                                          double hv,
                                          double lv,
                                          double uv,
                                          std::size_t n,
                                          double lambda,
                                          double* out) {
  double sum = 0.0, slope = 0.0;
  std::size_t k = 0;
  if (n >= kLaneMinimum) {
    const Lanes zero = {0.0, 0.0, 0.0, 0.0};
    const Lanes mu = {lambda, lambda, lambda, lambda};
    Lanes s = zero, sl = zero;
    for (; k + 4 <= n; k += 4) {
      Lanes gk, h = {hv, hv, hv, hv}, l = {lv, lv, lv, lv}, u = {uv, uv, uv, uv};
      std::memcpy(&gk, g + k, sizeof gk);
      if constexpr (shape != Shape::kUniform) {
        std::memcpy(&h, hinv + k, sizeof h);
        std::memcpy(&l, lo + k, sizeof l);
        std::memcpy(&u, hi + k, sizeof u);
      }
      Lanes raw, ak = zero, c = h;
      if constexpr (shape == Shape::kGeneral) {
        std::memcpy(&ak, a + k, sizeof ak);
        std::memcpy(&c, curv + k, sizeof c);
        raw = -(gk + mu * ak) * h;
      } else {
        raw = -(gk + mu) * h;
      }
      // std::min(std::max(raw, l), u), and whether raw is strictly inside: the scalar loop's
      // operations lane by lane.
      Lanes x = raw < l ? l : raw;
      x = u < x ? u : x;
      if constexpr (store) std::memcpy(out + k, &x, sizeof x);
      const Mask inside = (raw > l) & (raw < u);
      sl -= inside ? c : zero;
      if constexpr (shape == Shape::kGeneral) {
        s += ak * x;
      } else {
        s += x;
      }
    }
    sum = (s[0] + s[1]) + (s[2] + s[3]);
    slope = (sl[0] + sl[1]) + (sl[2] + sl[3]);
  }
  // Branch-free: which variables sit at a bound is unpredictable, and mispredictions would
  // dominate the loop. A variable at a bound adds 0 * curvature = 0.
  for (; k < n; ++k) {
    const double h = shape == Shape::kUniform ? hv : hinv[k];
    const double l = shape == Shape::kUniform ? lv : lo[k];
    const double u = shape == Shape::kUniform ? uv : hi[k];
    const double raw =
        shape == Shape::kGeneral ? -(g[k] + lambda * a[k]) * h : -(g[k] + lambda) * h;
    const double x = std::min(std::max(raw, l), u);
    if constexpr (store) out[k] = x;
    const bool inside = (raw > l) & (raw < u);
    slope -= static_cast<double>(inside) * (shape == Shape::kGeneral ? curv[k] : h);
    sum += shape == Shape::kGeneral ? a[k] * x : x;
  }
  return {sum, slope};
}

}  // namespace

// (Two loops per shape, storing or not: the branch is per call, not per variable.)
__attribute__((target_clones("avx2", "default"))) RowSums SumUniformRow(
    const double* g, std::size_t n, double lambda, double hinv, double lo, double hi, double* x) {
  constexpr const double* none = nullptr;
  return x != nullptr ? Sum<Shape::kUniform, true>(
                            g, none, none, none, none, none, hinv, lo, hi, n, lambda, x)
                      : Sum<Shape::kUniform, false>(
                            g, none, none, none, none, none, hinv, lo, hi, n, lambda, x);
}

__attribute__((target_clones("avx2", "default"))) RowSums SumUnitRow(const double* g,
                                                                     const double* hinv,
                                                                     const double* lo,
                                                                     const double* hi,
                                                                     std::size_t n,
                                                                     double lambda,
                                                                     double* x) {
  return x != nullptr ? Sum<Shape::kUnit, true>(
                            g, nullptr, hinv, nullptr, lo, hi, 0.0, 0.0, 0.0, n, lambda, x)
                      : Sum<Shape::kUnit, false>(
                            g, nullptr, hinv, nullptr, lo, hi, 0.0, 0.0, 0.0, n, lambda, x);
}

__attribute__((target_clones("avx2", "default"))) RowSums SumGeneralRow(const double* g,
                                                                        const double* a,
                                                                        const double* hinv,
                                                                        const double* curv,
                                                                        const double* lo,
                                                                        const double* hi,
                                                                        std::size_t n,
                                                                        double lambda,
                                                                        double* x) {
  return x != nullptr
             ? Sum<Shape::kGeneral, true>(g, a, hinv, curv, lo, hi, 0.0, 0.0, 0.0, n, lambda, x)
             : Sum<Shape::kGeneral, false>(g, a, hinv, curv, lo, hi, 0.0, 0.0, 0.0, n, lambda, x);
}

__attribute__((target_clones("avx2", "default"))) bool AllFinite(const double* v, std::size_t n) {
  Mask bad = {0, 0, 0, 0};
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    Lanes x;
    std::memcpy(&x, v + k, sizeof x);
    const Lanes d = x - x;
    bad |= d != d;
  }
  for (; k < n; ++k) {
    if (!std::isfinite(v[k])) return false;
  }
  return (bad[0] | bad[1] | bad[2] | bad[3]) == 0;
}

}  // namespace dede::internal
