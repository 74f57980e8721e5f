// Checks shared by every block solver and the tests (declared in separable_solver.h): the
// block objective, bound and row violations, and which variables are strictly convex.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "subproblem/separable_solver.h"

namespace dede::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

double EvaluateBlockObjective(const BlockProblem& problem, const std::vector<double>& v) {
  double objective = 0.0;
  const int n = problem.num_vars();
  for (int i = 0; i < n; ++i) {
    const double x = v[i];
    objective += problem.quadratic[i] * x * x + problem.linear[i] * x;
    if (problem.prox_weight[i] != 0.0) {
      const double d = x - problem.prox_target[i];
      objective += 0.5 * problem.prox_weight[i] * d * d;
    }
  }
  for (const BlockLog& log : problem.logs) {
    if (log.weight == 0.0) continue;
    double s = log.constant;
    for (size_t k = 0; k < log.index.size(); ++k) s += log.coef[k] * v[log.index[k]];
    if (!(s > 0.0)) return kInf;
    objective -= log.weight * std::log(s);
  }
  return objective;
}

namespace {

// Largest bound violation (absolute) and row violation, each row's divided by
// max(1, |rhs| + sum_k |a_k v_k|) when `scaled`.
double BlockViolation(const BlockProblem& problem, const std::vector<double>& v, bool scaled) {
  double worst = 0.0;
  const int n = problem.num_vars();
  for (int i = 0; i < n; ++i) {
    if (std::isnan(v[i])) return kInf;
    worst = std::max({worst, problem.lower[i] - v[i], v[i] - problem.upper[i]});
  }
  for (const BlockRow& row : problem.rows) {
    double activity = 0.0, magnitude = std::fabs(row.rhs);
    for (size_t k = 0; k < row.index.size(); ++k) {
      const double term = row.coef[k] * v[row.index[k]];
      activity += term;
      magnitude += std::fabs(term);
    }
    if (std::isnan(activity)) return kInf;
    const double scale = scaled ? std::max(1.0, magnitude) : 1.0;
    if (row.sense != Sense::kGreaterEqual) worst = std::max(worst, (activity - row.rhs) / scale);
    if (row.sense != Sense::kLessEqual) worst = std::max(worst, (row.rhs - activity) / scale);
  }
  const BlockImages& im = problem.images;
  for (size_t k = 0; k < im.size(); ++k) {
    const double image = im.offset[k] + im.scale[k] * v[im.base[k]];
    const double gap = std::fabs(v[im.slot[k]] - image);
    if (std::isnan(gap)) return kInf;
    const double scale = scaled ? std::max({1.0,
                                            std::fabs(v[im.slot[k]]) + std::fabs(im.offset[k]) +
                                                std::fabs(im.scale[k] * v[im.base[k]])})
                                : 1.0;
    worst = std::max(worst, gap / scale);
  }
  return worst;
}

}  // namespace

double MaxBlockViolation(const BlockProblem& problem, const std::vector<double>& v) {
  return BlockViolation(problem, v, /*scaled=*/false);
}

double ScaledBlockViolation(const BlockProblem& problem, const std::vector<double>& v) {
  return BlockViolation(problem, v, /*scaled=*/true);
}

std::vector<std::uint8_t> StrictlyConvexVariables(const BlockProblem& problem) {
  const int n = problem.num_vars();
  std::vector<std::uint8_t> strict(n, 0);
  for (int i = 0; i < n; ++i) {
    strict[i] = problem.quadratic[i] + 0.5 * problem.prox_weight[i] > 0.0;
  }
  for (const BlockLog& log : problem.logs) {
    if (log.index.size() == 1 && log.coef[0] != 0.0 && log.weight > 0.0) strict[log.index[0]] = 1;
  }
  return strict;
}

}  // namespace dede::internal
