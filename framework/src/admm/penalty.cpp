// The penalty: rho for every pair, and the global term's copies' own factor on top of it,
// each balanced on its residuals (OSQP, section 5.2); scaled duals follow every change.
#include "admm/admm_engine.h"

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

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace dede::internal {

using namespace engine;

void AdmmEngine::SetRho(double rho) {
  // Every penalized slot holds Weight(pair) (CreateSolvers and this function keep it so).
  if (rho == rho_) return;
  rho_ = rho;
  // q = xh + u mixes primal values with duals scaled by 1 / rho: the map has changed.
  if (anderson_) anderson_->Reset();
  for (int s = 0; s < 2; ++s) {
    for (Block& block : blocks_[s]) {
      bool changed = false;
      for (std::size_t i = 0; i < block.vars.size(); ++i) {
        const double weight = Weight(block.vars[i].pair);
        if (block.problem.prox_weight[i] != weight) {
          block.problem.prox_weight[i] = weight;
          changed = true;
        }
      }
      if (changed) ++block.problem.revision;
    }
  }
}

// The global pairs (t_b, alpha) get their own penalty factor: their duals at the optimum are
// the objective weight shared among the bottleneck blocks, and their values the objective's
// scale, neither of which is tied to the entries' (a min-max utilisation over 1,790 links
// against path flows in Gb/s; a max-min of normalised throughputs against time shares).
void AdmmEngine::SetGlobalWeight(double weight) {
  if (weight == global_weight_) return;
  const double scale = global_weight_ / weight;  // u = y / (rho w) follows w
  global_weight_ = weight;
  for (int p : global_pairs_) {
    pair_weight_[p] = weight;
    ps_[p].u *= scale;
    const Pair& pair = pairs_[p];
    Block& block = blocks_[global_side_][pair.block[global_side_]];
    block.problem.prox_weight[pair.slot[global_side_]] = Weight(p);
    ++block.problem.revision;
  }
  if (anderson_) anderson_->Reset();
}

// OSQP-style balancing restricted to the global pairs: returns true if the factor changed.
bool AdmmEngine::BalanceGlobalWeight() {
  if (global_pairs_.empty() || global_z_prev_.size() != global_pairs_.size()) return false;
  double r = 0, dz = 0, x = 0, z = 0, u = 0;
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const PairState& q = ps_[global_pairs_[k]];
    r += (q.x - q.z) * (q.x - q.z);
    dz += (q.z - global_z_prev_[k]) * (q.z - global_z_prev_[k]);
    x += q.x * q.x;
    z += q.z * q.z;
    u += q.u * q.u;
  }
  const double pn = std::sqrt(r) / std::max(std::sqrt(std::max(x, z)), 1e-300);
  const double dn = std::sqrt(dz) / std::max(std::sqrt(u), 1e-300);
  if (!(pn > 0 && dn > 0 && std::isfinite(pn) && std::isfinite(dn))) return false;
  const double proposed = std::clamp(global_weight_ * std::sqrt(pn / dn), 1e-6, 1e6);
  if (proposed > global_weight_ * options_.rho_update_tolerance ||
      proposed < global_weight_ / options_.rho_update_tolerance) {
    if (options_.verbose) {
      std::fprintf(stderr, "admm global penalty factor %.3g -> %.3g (relative residuals %.2e / %.2e)\n",
                   global_weight_, proposed, pn, dn);
    }
    SetGlobalWeight(proposed);
    return true;
  }
  return false;
}

}  // namespace dede::internal
