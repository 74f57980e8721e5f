// The penalty of pair p is rho * PairWeight(p). rho is balanced on the residuals of every
// pair (OSQP, section 5.2, in Solve); pair_weight_ is the product of
//   - the entry's equilibration factor (base_weight_, fixed at build), and either
//   - for an entry, the factor of its block on the side named by block_rho_balancing, or
//   - for a copy t_b of the global scalar, the copies' common factor (global_weight_) times the
//     copy's own (copy_factor_, from its share of the objective's dual).
// Every factor is reset by a cold or warm start; scaled duals u = y / (rho w) follow every
// change, so the iteration's unscaled duals y are untouched.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "admm/admm_engine.h"
#include "core/logging.h"

namespace dede::internal {

using namespace engine;

void AdmmEngine::SetRho(double rho) {
  if (rho == rho_) return;
  rho_ = rho;
  // q = xh + u mixes primal values with duals scaled by 1 / rho: the map has changed.
  if (anderson_) anderson_->Reset();
  RefreshProxWeights();
}

void AdmmEngine::RefreshProxWeights() {
  // Every penalized slot holds Weight(pair) (CreateSolvers and this function keep it so).
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
      if (changed) {
        block.problem.prox_weight.Compact();
        ++block.problem.revision;
      }
    }
  }
}

void AdmmEngine::ResetPenaltyFactors() {
  if (base_weight_.empty()) {
    std::fill(pair_weight_.begin(), pair_weight_.end(), 1.0);
  } else {
    pair_weight_ = base_weight_;
  }
  global_weight_ = 1.0;
  copy_factor_.assign(global_pairs_.size(), 1.0);
  for (int p : global_pairs_) MutablePairWeight(p) = 1.0;
  block_factor_.assign(balanced_side_ >= 0 ? blocks_[balanced_side_].size() : 0, 1.0);
}

// Sets pair p's weight, rescaling its scaled dual and writing its slots in both blocks.
void AdmmEngine::SetPairWeight(int p, double weight) {
  if (weight == PairWeight(p)) return;
  Ps(p).u *= PairWeight(p) / weight;
  InvalidateTargets();
  MutablePairWeight(p) = weight;
  const Pair& pair = PairAt(p);
  for (int s = 0; s < 2; ++s) {
    if (pair.block[s] < 0) continue;  // the global alpha: no block
    if (!Held(s, pair.block[s])) continue;
    BlockProblem& bp = blocks_[s][pair.block[s]].problem;
    bp.prox_weight[pair.slot[s]] = Weight(p);
    ++bp.revision;
  }
}

// The global pairs (t_b, alpha) get their own penalty factor: their duals at the optimum are
// the objective weight shared among the bottleneck blocks, and their values the objective's
// scale, neither of which is tied to the entries' (a min-max utilisation over 1,790 links
// against path flows in Gb/s; a max-min of normalised throughputs against time shares).
void AdmmEngine::SetGlobalWeight(double weight) {
  if (weight == global_weight_) return;
  global_weight_ = weight;
  for (std::size_t k = 0; k < global_pairs_.size(); ++k)
    SetPairWeight(global_pairs_[k], weight * copy_factor_[k]);
  if (anderson_) anderson_->Reset();
}

// OSQP-style balancing restricted to the global pairs: returns true if the factor changed.
bool AdmmEngine::BalanceGlobalWeight() {
  if (global_pairs_.empty() || global_z_prev_.size() != global_pairs_.size()) return false;
  double r = 0, dz = 0, x = 0, z = 0, u = 0;
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const PairState& q = Ps(global_pairs_[k]);
    const double qx = X(global_pairs_[k]);
    r += (qx - q.z) * (qx - q.z);
    dz += (q.z - global_z_prev_[k]) * (q.z - global_z_prev_[k]);
    x += qx * qx;
    z += q.z * q.z;
    u += q.u * q.u;
  }
  const double pn = std::sqrt(r) / std::max(std::sqrt(std::max(x, z)), 1e-300);
  const double dn = std::sqrt(dz) / std::max(std::sqrt(u), 1e-300);
  if (!(pn > 0 && dn > 0 && std::isfinite(pn) && std::isfinite(dn))) return false;
  const double proposed = std::clamp(global_weight_ * std::sqrt(pn / dn), 1e-6, 1e6);
  if (proposed > global_weight_ * options_.rho_update_tolerance ||
      proposed < global_weight_ / options_.rho_update_tolerance) {
    LogDebug("admm global penalty factor {:.3g} -> {:.3g} (relative residuals {:.2e} / {:.2e})",
             global_weight_,
             proposed,
             pn,
             dn);
    SetGlobalWeight(proposed);
    return true;
  }
  return false;
}

// Each copy's factor follows its share of the objective's dual: sqrt(|y_b| / mean |y|) in
// [1/100, 100]. A copy whose row does not bind carries no dual; at weight 1 it only echoes
// alpha back into alpha's average (1,790 link copies of which a handful bind on Kdl), which
// slows alpha down by the ratio of echoing to binding copies. Re-set at every rho update.
void AdmmEngine::BalanceCopies() {
  const std::size_t n = global_pairs_.size();
  if (n < 2) return;
  std::vector<double> y(n);
  double mean = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const int p = global_pairs_[k];
    y[k] = std::abs(PairWeight(p) * Ps(p).u);
    mean += y[k];
  }
  mean /= static_cast<double>(n);
  if (!(mean > 0 && std::isfinite(mean))) return;
  for (std::size_t k = 0; k < n; ++k) {
    copy_factor_[k] = std::clamp(std::sqrt(y[k] / mean), kFactorFloor, 1 / kFactorFloor);
    SetPairWeight(global_pairs_[k], global_weight_ * copy_factor_[k]);
  }
  if (anderson_) anderson_->Reset();
}

// Per-block residual balancing of the entries of one side: block b's factor is multiplied by
// sqrt(p_b / d_b), its relative primal residual over its relative dual residual (OSQP's rule
// on the block's own pairs), over the geometric mean of that ratio across the blocks (rho
// keeps the common level), within [1/100, 100]. Where residuals concentrate in a few blocks
// (the saturated links of a min max utilisation) their entries get the penalty they need
// without raising it everywhere else.
void AdmmEngine::BalanceBlocks() {
  if (balanced_side_ < 0 || z_prev_.size() != ps_.size()) return;
  std::vector<Block>& blocks = blocks_[balanced_side_];
  std::vector<double> ratio(blocks.size(), 0.0);
  double log_sum = 0;
  int counted = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    double r = 0, dz = 0, xn = 0, zn = 0, un = 0;
    for (const BlockVar& bv : blocks[b].vars) {
      if (bv.pair < 0 || bv.var < 0) continue;  // locals and the global copy
      const PairState& q = Ps(bv.pair);
      const double qx = X(bv.pair);
      const double w = PairWeight(bv.pair);
      const double step = q.z - z_prev_[Local(bv.pair)];
      r += (qx - q.z) * (qx - q.z);
      dz += w * w * step * step;
      xn += qx * qx;
      zn += q.z * q.z;
      un += w * w * q.u * q.u;
    }
    const double pn = std::sqrt(r) / std::max(std::sqrt(std::max(xn, zn)), 1e-300);
    const double dn = std::sqrt(dz) / std::max(std::sqrt(un), 1e-300);
    if (pn > 0 && dn > 0 && std::isfinite(pn) && std::isfinite(dn)) {
      ratio[b] = std::sqrt(pn / dn);
      log_sum += std::log(ratio[b]);
      ++counted;
    }
  }
  if (counted == 0) return;
  const double mean = std::exp(log_sum / counted);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (!(ratio[b] > 0)) continue;
    const double f = std::clamp(block_factor_[b] * ratio[b] / mean, kFactorFloor, 1 / kFactorFloor);
    if (f == block_factor_[b]) continue;
    block_factor_[b] = f;
    for (const BlockVar& bv : blocks[b].vars) {
      if (bv.pair < 0 || bv.var < 0) continue;
      SetPairWeight(bv.pair, BaseWeight(bv.pair) * f);
    }
  }
  if (anderson_) anderson_->Reset();
}

// After a check iteration: with integers, a growing rho forces the copies onto one integral
// point; otherwise, at a rho update, residual balancing of rho (OSQP, section 5.2) and of the
// penalty factors.
void AdmmEngine::AdaptPenalties(SolveRun* run,
                                int k,
                                const IterationSummary& it,
                                bool rho_update_due) {
  if (run->integer_phase && options_.integer_rho_growth > 1 &&
      rho_ * options_.integer_rho_growth <= RhoCeiling()) {
    // Nonconvex ADMM over integer blocks can cycle between integral points that each side
    // prefers; a growing penalty forces the two copies onto a common integral point.
    const double proposed = rho_ * options_.integer_rho_growth;
    for (PairState& q : ps_) q.u *= rho_ / proposed;
    InvalidateTargets();
    SetRho(proposed);
    ++run->rho_updates;
  }
  if (options_.rho_update != RhoUpdate::kResidualBalancing || run->integer_phase ||
      !rho_update_due) {
    return;
  }
  run->next_rho_update = k + options_.rho_update_every;
  // Balance the residuals relative to their own scales (OSQP, section 5.2).
  const double pn = it.primal_residual / std::max(xz_norm_, 1e-300);
  const double dn = it.dual_residual / std::max(rho_ * u_norm_, 1e-300);
  if (pn > 0 && dn > 0 && std::isfinite(pn) && std::isfinite(dn)) {
    // The initial rho widens [rho_min, rho_max] rather than being pulled into it: a rho set
    // above rho_max (max-flow TE starts at 1e7) must not drop 10x at the first update because
    // of the bound alone, whatever the residuals say.
    const double proposed = std::clamp(rho_ * std::sqrt(pn / dn), RhoFloor(), RhoCeiling());
    if (proposed > rho_ * options_.rho_update_tolerance ||
        proposed < rho_ / options_.rho_update_tolerance) {
      // Scaled duals u = y / rho must follow rho.
      const double scale = rho_ / proposed;
      for (PairState& q : ps_) q.u *= scale;
      InvalidateTargets();
      SetRho(proposed);
      ++run->rho_updates;
    }
  }
  if (options_.global_rho_balancing) {
    if (BalanceGlobalWeight()) ++run->rho_updates;
    if (options_.global_copy_balancing) BalanceCopies();
  }
  BalanceBlocks();
}

}  // namespace dede::internal
