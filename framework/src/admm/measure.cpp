#include "admm/measure.h"

#include <tbb/parallel_for.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dede::internal {
namespace {

// The checks split variables and constraints into this many fixed ranges.
constexpr int kChunks = 64;
int Bound(int n, int k) { return static_cast<int>(static_cast<std::int64_t>(n) * k / kChunks); }

}  // namespace

double MeasureObjective(const Problem& problem, const std::vector<double>& values) {
  const int n = problem.num_variables();
  std::vector<double> part(kChunks);
  tbb::parallel_for(0, kChunks, [&](int k) {
    part[k] = problem.VariableCosts(values, Bound(n, k), Bound(n, k + 1));
  });
  double costs = 0.0;
  for (double p : part) costs += p;
  return problem.EvaluateObjective(values, costs);
}

Problem::Violation MeasureViolation(const Problem& problem, const std::vector<double>& values) {
  const int nv = problem.num_variables(), nc = problem.num_constraints();
  std::vector<Problem::Violation> part(kChunks);
  tbb::parallel_for(0, kChunks, [&](int k) {
    part[k] = problem.MeasureViolation(
        values, Bound(nv, k), Bound(nv, k + 1), Bound(nc, k), Bound(nc, k + 1));
  });
  Problem::Violation total;
  for (const Problem::Violation& v : part) total.Merge(v);
  return total;
}

std::string WorstItem(const Problem::Violation& violation) {
  if (violation.worst_constraint < 0 && violation.worst_image >= 0)
    return "the image of entry " + std::to_string(violation.worst_image);
  return "constraint " + std::to_string(violation.worst_constraint);
}

}  // namespace dede::internal
