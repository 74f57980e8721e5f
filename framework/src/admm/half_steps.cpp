// One ADMM iteration's work: the x half step (resource blocks) with over-relaxation, the global
// scalar alpha in closed form, the optional Anderson step, and the z half step (demand blocks)
// with the dual update, all fused per pair.
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

// Solves every block of one side against the other side's current values. The per-pair
// updates of the iteration are fused into the block loops so that they run in parallel and
// touch each pair once per half step:
//   resource side: x = solve(z - u), xh = a x + (1 - a) z
//   demand side:   z = solve(xh + u), u += xh - z   (and the residual norms when `measure`)
bool AdmmEngine::HalfStep(int side, bool integer_phase, bool measure, std::string* message,
                          Termination* termination) {
  std::atomic<bool> failed{false};
  std::atomic<bool> interrupted{false};
  std::vector<BlockStatus> status(blocks_[side].size(), BlockStatus::kOptimal);
  const double a = relaxation_;
  // A half step can outlast the whole budget (a cold first iteration of thousands of QP
  // blocks): blocks not yet started when the deadline passes or a stop is requested keep
  // their previous values, and the solve ends after this half step.
  const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
  ForEachBlock(side, [&](int b) {
    Block& block = blocks_[side][b];
    if (block.vars.empty()) return;
    if (interrupted.load(std::memory_order_relaxed)) return;
    // The clock is read before every eighth block and before every large one (a read costs
    // 56 ns here, and Kdl TE has 30,000 blocks per iteration), a stop request before each.
    const bool read_clock = deadline > 0 && ((b & 7) == 0 || block.work >= kClockEveryBlockWork);
    if ((read_clock && std::chrono::duration_cast<std::chrono::nanoseconds>(
                           Clock::now().time_since_epoch())
                               .count() > deadline) ||
        stop_.stop_requested()) {
      interrupted = true;
      return;
    }
    BlockProblem& bp = block.problem;
    const std::size_t n = block.vars.size();
    const BlockVar* vars = block.vars.data();
    double* target = bp.prox_target.data();
    const PairState* ps = ps_.data();
    // One loop per side, with plain pointers: `side` was reloaded from memory for every pair.
    // (Prefetching the scattered resource-side pairs 16 or 32 ahead made no difference.)
    if (side == 0) {
      for (std::size_t i = 0; i < n; ++i) {
        const int p = vars[i].pair;
        if (p < 0) continue;
        target[i] = ps[p].z - ps[p].u;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const int p = vars[i].pair;
        if (p < 0) continue;
        target[i] = ps[p].xh + ps[p].u;
      }
    }
    const bool integral = integer_phase && block.has_integers;
    BlockSolver* solver = integral ? block.integer_solver.get() : block.solver.get();
    if (integral) bp.integral = block.integral_flags;
    const BlockStatus st = solver->Solve(bp, &block.v);
    if (integral) std::fill(bp.integral.begin(), bp.integral.end(), 0);
    if (st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit) {
      status[b] = st;
      failed = true;
      return;
    }
    if (side == 0) {
      for (std::size_t i = 0; i < n; ++i) {
        const int p = block.vars[i].pair;
        if (p < 0) continue;
        ps_[p].x = block.v[i];
        ps_[p].xh = a * block.v[i] + (1 - a) * ps_[p].z;
      }
      return;
    }
    if (!measure) {
      for (std::size_t i = 0; i < n; ++i) {
        const int p = block.vars[i].pair;
        if (p < 0) continue;
        const double z_new = block.v[i];
        ps_[p].z = z_new;
        ps_[p].u += ps_[p].xh - z_new;
      }
      return;
    }
    // A check: the dual residual and the dual norm carry each pair's penalty factor.
    Norms acc;
    for (std::size_t i = 0; i < n; ++i) {
      const int p = block.vars[i].pair;
      if (p >= 0) AssignZMeasured(p, block.v[i], &acc);
    }
    norms_[b] = acc;
  });
  if (!failed) {
    if (!interrupted) return true;
    // Reported as a time limit or a cancellation, not as a failure: the values are usable.
    *termination = stop_.stop_requested() ? Termination::kCancelled : Termination::kTimeLimit;
    *message = std::string(stop_.stop_requested() ? "Stop requested" : "Time limit reached") +
               " during the " + (side == 0 ? "resource" : "demand") +
               " half step (blocks not yet solved kept their previous values).";
    return false;
  }
  for (std::size_t b = 0; b < status.size(); ++b) {
    if (status[b] == BlockStatus::kOptimal || status[b] == BlockStatus::kNodeLimit) continue;
    const Block& block = blocks_[side][b];
    BlockSolver* solver = integer_phase && block.has_integers ? block.integer_solver.get()
                                                              : block.solver.get();
    *termination = status[b] == BlockStatus::kInfeasible ? Termination::kInfeasible
                                                          : Termination::kFailure;
    *message = std::string(side == 0 ? "Resource" : "Demand") + " block " + std::to_string(b) +
               " (" + solver->name() + "): " + BlockStatusName(status[b]) +
               (solver->last_error().empty() ? "" : ": " + solver->last_error());
    return false;
  }
  return true;
}

// Closed-form update of the global scalar alpha, which lives on side 1 - global_side_, with
// the same fused per-pair updates as HalfStep.
void AdmmEngine::UpdateGlobalAlpha(int side, bool measure) {
  if (global_side_ < 0 || side == global_side_ || global_pairs_.empty() || filling_) return;
  const GlobalTerm& global = problem_.global_term();
  const double a = relaxation_;
  double sum = 0;
  if (side == 0) {
    // alpha is a resource-side (x) value, t_b demand-side: max-min over demands.
    // alpha = argmin -w alpha + rho/2 sum_b (alpha - z_b + u_b)^2.
    double wsum = 0;
    for (int p : global_pairs_) {
      sum += pair_weight_[p] * (ps_[p].z - ps_[p].u);
      wsum += pair_weight_[p];
    }
    alpha_ = sum / wsum + global.weight / (rho_ * wsum);
    for (int p : global_pairs_) {
      ps_[p].x = alpha_;
      ps_[p].xh = a * alpha_ + (1 - a) * ps_[p].z;
    }
    return;
  }
  // alpha is a demand-side (z) value, t_b resource-side: min-max over resources.
  // alpha = argmin w alpha + rho/2 sum_b (xh_b - alpha + u_b)^2.
  double wsum = 0;
  for (int p : global_pairs_) {
    sum += pair_weight_[p] * (ps_[p].xh + ps_[p].u);
    wsum += pair_weight_[p];
  }
  alpha_ = sum / wsum - global.weight / (rho_ * wsum);
  Norms acc;
  for (int p : global_pairs_) {
    if (measure) {
      AssignZMeasured(p, alpha_, &acc);
    } else {
      ps_[p].z = alpha_;
      ps_[p].u += ps_[p].xh - alpha_;
    }
  }
  if (measure) norms_.back() = acc;
}

// Between the half steps: q = xh + u is the demand half step's target and the whole state of
// the iteration, so it is what the accelerator extrapolates; the demand half step then reads
// xh = q_next - u (and sets u = q_next - z). Pairs are independent: any split is deterministic.
void AdmmEngine::Accelerate() {
  const std::size_t np = ps_.size();
  anderson_f_.resize(np);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, np, 4096),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t p = range.begin(); p != range.end(); ++p)
                        anderson_f_[p] = ps_[p].xh + ps_[p].u;
                    });
  anderson_->Apply(anderson_f_, &anderson_next_);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, np, 4096),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t p = range.begin(); p != range.end(); ++p)
                        ps_[p].xh = anderson_next_[p] - ps_[p].u;
                    });
}

}  // namespace dede::internal
