#include "synthetic.h"

#include <algorithm>
#include <random>
#include <vector>

namespace dede::tools {

std::unique_ptr<Problem> MakeTransportLp(const SyntheticSpec& spec) {
  auto p = std::make_unique<Problem>(spec.resources, spec.demands);
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> weight(0.5, 1.5);
  std::uniform_real_distribution<double> volume(1.0, 10.0);
  const int m = p->AddAllocation("x", Domain::NonNegative());
  const int k = std::min(spec.entries_per_demand, spec.resources);
  std::vector<int> resources(spec.resources);
  for (int r = 0; r < spec.resources; ++r) resources[r] = r;
  std::vector<LinearExpr> rows(spec.resources);
  std::vector<double> offered(spec.resources, 0.0);
  p->SetObjectiveSense(ObjectiveSense::kMaximize);
  for (int d = 0; d < spec.demands; ++d) {
    // Partial Fisher-Yates: k distinct resources.
    for (int i = 0; i < k; ++i) {
      std::uniform_int_distribution<int> pick(i, spec.resources - 1);
      std::swap(resources[i], resources[pick(rng)]);
    }
    const double vol = volume(rng);
    LinearExpr col;
    for (int i = 0; i < k; ++i) {
      const int r = resources[i];
      const VarId v = p->AddEntry(m, r, d);
      p->AddLinearCost(v, weight(rng));
      col.Add(v, 1.0);
      rows[r].Add(v, 1.0);
      offered[r] += vol / k;
    }
    p->AddDemandConstraint(d, col, Sense::kLessEqual, vol);
  }
  for (int r = 0; r < spec.resources; ++r)
    p->AddResourceConstraint(r, rows[r], Sense::kLessEqual, 0.6 * offered[r] + 1.0);
  return p;
}

}  // namespace dede::tools
