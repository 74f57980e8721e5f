// What a check reads off the iterates: primal and dual residuals, the allocation (one side's
// entries and every block's locals), its objective and its constraint violation, each over
// fixed ranges so the result does not depend on the thread count.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "admm/admm_engine.h"
#include "admm/measure.h"

namespace dede::internal {

using namespace engine;

void AdmmEngine::Residuals(IterationSummary* it, bool want_objective) {
  Norms n;
  for (const Norms& b : norms_) {  // fixed order: independent of the thread count
    n.r += b.r;
    n.s += b.s;
    n.x += b.x;
    n.z += b.z;
    n.u += b.u;
  }
  const double sqrt_n =
      std::sqrt(static_cast<double>(layout_.num_pairs()));  // every process's pairs
  it->primal_residual = std::sqrt(n.r);
  it->dual_residual = rho_ * std::sqrt(n.s);
  it->primal_tolerance =
      sqrt_n * options_.eps_abs + options_.eps_rel * std::max(std::sqrt(n.x), std::sqrt(n.z));
  it->dual_tolerance = sqrt_n * options_.eps_abs + options_.eps_rel * rho_ * std::sqrt(n.u);
  it->rho = rho_;
  xz_norm_ = std::max(std::sqrt(n.x), std::sqrt(n.z));
  u_norm_ = std::sqrt(n.u);
  it->primal_scale = xz_norm_;
  if (bound_now_) LagrangianBound();  // (CheckResiduals adds alpha's term)
  if (want_objective) {
    // A member buffer: a fresh 12 MB vector per check (Kdl TE) page-faults on every check.
    // With more than one process, process 0 alone gathers the values and evaluates the
    // objective, and the others take its figure.
    const bool distributed = ReplicaStale();
    GatherValues(&trace_values_, 1, /*to_root=*/distributed);
    double objective = !distributed || executor_->rank() == 0 ? Objective(trace_values_) : 0.0;
    if (distributed) objective = executor_->AllGather({objective}).front();
    it->objective = objective;
  }
}

// Full assignment by VarId: entries from one side, locals from their own blocks. Blocks write
// disjoint variables (an entry from its entry_side block only, a local from its owner), and
// every variable once: in parallel, in the caller's arena, with no fill first.
// With more than one process and the others' state stale here (between the iterations'
// cut exchanges), each process writes its own blocks' variables and ShareValues brings the
// rest from their owners.
void AdmmEngine::GatherValues(std::vector<double>* values, int entry_side, bool to_root) {
  values->resize(problem_.num_variables());
  const bool stale = ReplicaStale();
  for (int s = 0; s < 2; ++s) {
    ForEachBlockLocal(
        s,
        [&](const Block& block) {
          for (std::size_t i = 0; i < block.vars.size(); ++i) {
            const VarId v = block.vars[i].var;
            if (v < 0) continue;
            if (block.vars[i].pair >= 0 && s != entry_side) continue;
            (*values)[v] = SlotValue(s, block, i);
          }
        },
        stale ? &order_[s] : nullptr);
  }
  if (stale) ShareValues(values, entry_side, to_root);
}

double AdmmEngine::Objective(const std::vector<double>& values) const {
  return MeasureObjective(problem_, values);
}

Problem::Violation AdmmEngine::MeasureViolation(const std::vector<double>& values) const {
  return internal::MeasureViolation(problem_, values);
}

}  // namespace dede::internal
