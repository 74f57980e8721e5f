// Constants and helpers shared by SeparableCore's files (separable_solver.cpp: the set-up;
// separable_solve.cpp: the per-variable minimisers and the search on the row multiplier).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace dede::internal::separable_detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Feasibility slack of the row, relative to max(1, |rhs|): a row that misses by less than
// this is treated as reachable (its nearest reachable value is used instead).
inline constexpr double kRowFeasibilityTolerance = 1e-9;
// Iteration cap of the safeguarded Newton search; each iteration at least halves the bracket
// once both ends are finite, so it is never reached in practice.
inline constexpr int kMaxNewtonIterations = 300;
// Steps of the warm Newton from the last multiplier before the breakpoint search (a sort)
// takes over. On a long row whose clipped set moves, Newton crawls: each step crosses into a
// flatter piece and undershoots. At 6, 35% of the resource rows' solves of the 1M-entry
// transport benchmark fell to the search (5.3 evaluations a solve); at 12, 0.6% (4.9). The
// cluster's and Kdl's rows counted the same evaluations either way.
inline constexpr int kMaxWarmNewtonSteps = 12;
// Points on the probe's side of the crossing after which the warm Newton toward lambda = 0
// (an inequality row whose crossing moved that way) gives up, and lambda = 0 is evaluated: a
// row turning slack would otherwise walk toward 0 one piece at a time (SolveRow).
inline constexpr int kMaxTowardZeroOneSided = 2;
// Row residual accepted (relative to max(1, |rhs|)) when the multiplier bracket has shrunk to
// adjacent doubles: below the 1e-6 feasibility the engine needs, above plain rounding.
inline constexpr double kCollapsedRowTolerance = 1e-8;

inline double Clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Largest gap below which two finite brackets are considered collapsed.
inline bool Collapsed(double lo, double hi) {
  return hi - lo <= 4.0 * std::numeric_limits<double>::epsilon() *
                        std::max({1.0, std::fabs(lo), std::fabs(hi)});
}

// No double strictly between lo and hi worth trying, relative to their own magnitude.
inline bool CollapsedRelative(double lo, double hi) {
  return hi - lo <=
         4.0 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(lo), std::fabs(hi));
}

// A point strictly inside (lo, hi) used to start or restart a search; grows geometrically
// when one side is unbounded.
inline double InteriorPoint(double lo, double hi) {
  if (std::isfinite(lo) && std::isfinite(hi)) return lo + 0.5 * (hi - lo);
  if (std::isfinite(lo)) return lo + std::max(1.0, std::fabs(lo));
  if (std::isfinite(hi)) return hi - std::max(1.0, std::fabs(hi));
  return 0.0;
}

// Sums terms that may be infinite without producing NaN: +inf and -inf together are reported.
struct InfSum {
  double finite = 0.0;
  int pos = 0, neg = 0;
  void Add(double y) {
    if (y == kInf) {
      ++pos;
    } else if (y == -kInf) {
      ++neg;
    } else {
      finite += y;
    }
  }
  bool Conflict() const { return pos > 0 && neg > 0; }
  double Value(double base) const { return pos > 0 ? kInf : (neg > 0 ? -kInf : base + finite); }
};

}  // namespace dede::internal::separable_detail
