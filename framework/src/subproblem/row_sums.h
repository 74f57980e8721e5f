// The one-row search's inner loop (SeparableCore::EvalRow): the activity of the row's quadratic
// variables, each at its clipped minimiser for the multiplier lambda, and its slope:
//   x_k = clip(-(g_k + lambda a_k) / h_k, lo_k, hi_k),  sum = sum_k a_k x_k,
//   slope = -sum over the unclipped k of a_k^2 / h_k.
// Three shapes with the same arithmetic per variable (a = 1 makes lambda a, a x and a^2 / h
// exact): every coefficient 1 with one curvature and one pair of bounds (transport, path
// flows: only g is read), every coefficient 1, and the general row.
//
// Rows of at least kLaneMinimum variables sum in four lanes (variable k in lane k mod 4 up to
// the last multiple of 4, the lanes added as (0 + 1) + (2 + 3), then the rest in order); the
// lanes run in AVX2 registers where the CPU has them (a clone picked at load time) and in
// pairs of SSE2 registers otherwise, with the same result to the bit on every x86-64. Shorter
// rows sum in order. The three shapes give the same bits for the same row.
#pragma once

#include <cstddef>

namespace dede::internal {

inline constexpr std::size_t kLaneMinimum = 16;

struct RowSums {
  double sum = 0.0;
  double slope = 0.0;
};

// With x non-null each variable's value also goes to x[k] (as the solver's final assignment
// computes it, std::min(std::max(raw, lo_k), hi_k)), so that an evaluation the search accepts
// is also the solution; the sums are the same either way.
RowSums SumUniformRow(const double* g,
                      std::size_t n,
                      double lambda,
                      double hinv,
                      double lo,
                      double hi,
                      double* x = nullptr);
RowSums SumUnitRow(const double* g,
                   const double* hinv,
                   const double* lo,
                   const double* hi,
                   std::size_t n,
                   double lambda,
                   double* x = nullptr);
RowSums SumGeneralRow(const double* g,
                      const double* a,
                      const double* hinv,
                      const double* curv,
                      const double* lo,
                      const double* hi,
                      std::size_t n,
                      double lambda,
                      double* x = nullptr);

// Whether every v[0 .. n) is finite (no infinity, no NaN): the solvers' last check of a
// solution, in lanes as above (x - x is 0 for a finite x and NaN otherwise).
bool AllFinite(const double* v, std::size_t n);

}  // namespace dede::internal
