// Feasibility repair after the iterations: alternating Euclidean projections of each block's
// variables onto its feasible set, resource side then demand side.
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

// Alternating projections: each block's variables are projected (Euclidean) onto the block's
// feasible set, resource side then demand side, until the whole assignment satisfies every
// constraint within the tolerance. Starting from a converged ADMM point the first few rounds
// move the allocation by about the primal residual.
bool AdmmEngine::Repair(std::vector<double>* values, int* rounds, std::string* message) {
  const double tol = options_.feasibility_tolerance;
  // Aim a little below the tolerance so rounding in the final measurement cannot tip it over.
  const double target = 0.5 * tol;
  *rounds = 0;
  // The engine's measure: the same result as Problem::MeasureViolation, over fixed ranges in
  // parallel (Kdl TE, 1.5M constraints: a serial pass was a tenth of a second, twice a round).
  Problem::Violation viol = MeasureViolation(*values);
  if (viol.Max() <= target) return true;
  std::vector<SavedCosts> swapped[2];
  if (!PrepareProjections(swapped, message)) return false;
  // Every way out of the rounds below restores the iterations' parameters.
  struct Restore {
    AdmmEngine* engine;
    std::vector<SavedCosts>* swapped;
    ~Restore() { engine->RestoreCosts(swapped); }
  } restore{this, swapped};
  std::vector<std::uint8_t> bad[2];
  for (int round = 1; round <= options_.repair_max_rounds; ++round) {
    *rounds = round;
    for (int s = 0; s < 2; ++s) {
      bad[s].assign(blocks_[s].size(), 0);
      ForEachBlock(s, [&](int b) {
        Block& block = blocks_[s][b];
        if (block.vars.empty()) return;
        const bool own = OwnProjector(block);
        BlockProblem& pp = own ? *block.extra->projection : block.problem;
        BlockSolver* projector = own ? block.extra->projector.get() : block.solver.get();
        const std::size_t n = block.vars.size();
        std::vector<double> t(n), v(n);
        for (std::size_t i = 0; i < n; ++i) {
          const VarId var = block.vars[i].var;
          t[i] = v[i] = var >= 0 ? (*values)[var] : SlotValue(s, block, i);
        }
        const BlockStatus st = SolveBlock(projector, &pp, t.data(), v.data());
        if (st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit) {
          bad[s][b] = 1;
          return;
        }
        for (std::size_t i = 0; i < block.vars.size(); ++i) {
          if (block.vars[i].var >= 0) (*values)[block.vars[i].var] = v[i];
        }
      });
      ShareRepair(s, values, &bad[s]);
      for (std::size_t b = 0; b < bad[s].size(); ++b) {
        if (bad[s][b]) {
          *message = std::string("repair: the feasible set of ") +
                     (s == 0 ? "resource" : "demand") + " block " + std::to_string(b) +
                     " is empty (" + ProjectorError(blocks_[s][b]) + ")";
          return false;
        }
      }
      viol = MeasureViolation(*values);
      if (viol.Max() <= target) return true;
    }
    // The solve's time budget covers the repair as well: past the deadline no further round
    // starts (the round under way always finishes, so the overrun is one round at most).
    // (Every process takes the decision together.)
    const std::int64_t deadline = deadline_ns_.load(std::memory_order_relaxed);
    if (round < options_.repair_max_rounds &&
        executor_->Agree(deadline > 0 && std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             Clock::now().time_since_epoch())
                                                 .count() > deadline) != 0) {
      std::ostringstream out;
      out << "repair: stopped at the time limit (" << options_.time_limit_seconds << " s) after "
          << round << " rounds, max violation " << viol.Max() << " > " << tol << " (worst "
          << WorstItem(viol) << ")";
      *message = out.str();
      return viol.Max() <= tol;
    }
  }
  std::ostringstream out;
  out << "repair: max violation " << viol.Max() << " > " << tol << " after "
      << options_.repair_max_rounds << " rounds (worst " << WorstItem(viol) << ")";
  *message = out.str();
  return viol.Max() <= tol;
}

// A projection round's outputs from each block's owner: its flag (an empty feasible set) and
// the values of its variables.
void AdmmEngine::ShareRepair(int side,
                             std::vector<double>* values,
                             std::vector<std::uint8_t>* bad) {
  if (executor_->processes() <= 1) return;
  ShareVariables(side, /*entry_side=*/side, values, bad);
}

}  // namespace dede::internal

namespace dede::internal {

using namespace engine;

// A block without log terms or integral variables is projected by its own solver, with the
// projection's parameters (no costs, distance weight 1) swapped into its problem until the
// repair ends (saved in swapped[side][block]): the structure is the one the solver was built
// for, only more strictly convex. A second solver per block doubled the engine's solver memory
// (ASN2k, 5% of the pairs: 430 of 2,380 MB at the peak). A block with log terms (the
// projection drops them) or integral variables (it projects onto integral points) gets a
// projector of its own, built on first use; later, the current parameters (rhs,
// coefficients, bounds) are copied in. False, with *message, if a projector cannot be built.
bool AdmmEngine::PrepareProjections(std::vector<SavedCosts>* swapped, std::string* message) {
  BlockSolverOptions solver_options;
  solver_options.node_limit = options_.block_node_limit;
  solver_options.deadline_ns = &deadline_ns_;
  for (int s = 0; s < 2; ++s) {
    swapped[s].resize(blocks_[s].size());
    std::vector<std::string> failure(blocks_[s].size());
    ForEachBlockLocal(s, [&](Block& block) {
      if (block.vars.empty()) return;
      if (OwnProjector(block)) {
        // Another process projects it.
        if (!executor_->Owns(s, block.id.index)) return;
        Block::Extra& extra = block.GetExtra();
        if (!extra.projection) extra.projection = std::make_unique<BlockProblem>();
        BlockProblem& pp = *extra.projection;
        if (extra.projector) {
          pp.lower = block.problem.lower;
          pp.upper = block.problem.upper;
          pp.rows = block.problem.rows;
          ++pp.revision;
          return;
        }
        pp = block.problem;
        pp.logs.clear();
        pp.integral = extra.integral_flags;
        SetProjectionCosts(block, &pp);
        std::string why;
        extra.projector = CreateBlockSolver(pp, solver_options, &why);
        if (!extra.projector) failure[static_cast<std::size_t>(block.id.index)] = "repair: " + why;
        return;
      }
      BlockProblem& bp = block.problem;
      SavedCosts& saved = swapped[s][static_cast<std::size_t>(block.id.index)];
      saved.active = true;
      saved.linear.swap(bp.linear);
      saved.quadratic.swap(bp.quadratic);
      saved.prox_weight.swap(bp.prox_weight);
      SetProjectionCosts(block, &bp);
      ++bp.revision;
    });
    for (const std::string& why : failure) {  // the first in block order: deterministic
      if (!why.empty()) {
        *message = why;
        RestoreCosts(swapped);
        return false;
      }
    }
  }
  return true;
}

void AdmmEngine::SetProjectionCosts(const Block& block, BlockProblem* pp) {
  const std::size_t n = block.vars.size();
  pp->linear.assign(n, 0.0);
  pp->quadratic.assign(n, 0.0);
  pp->prox_weight.assign(n, 1.0);
  // The global copy t_b is free to move: drop it from the projection distance.
  if (block.global_row >= 0) pp->prox_weight.set(n - 1, 1e-6);
}

void AdmmEngine::RestoreCosts(std::vector<SavedCosts>* saved) {
  for (int s = 0; s < 2; ++s) {
    if (saved[s].empty()) continue;
    ForEachBlockLocal(s, [&](Block& block) {
      SavedCosts& c = saved[s][static_cast<std::size_t>(block.id.index)];
      if (!c.active) return;
      BlockProblem& bp = block.problem;
      bp.linear.swap(c.linear);
      bp.quadratic.swap(c.quadratic);
      bp.prox_weight.swap(c.prox_weight);
      ++bp.revision;
      c = SavedCosts{};
    });
  }
}

std::string AdmmEngine::ProjectorError(const Block& block) {
  const BlockSolver* solver = OwnProjector(block)
                                  ? (block.extra ? block.extra->projector.get() : nullptr)
                                  : block.solver.get();
  return solver != nullptr ? solver->last_error() : std::string();
}

}  // namespace dede::internal
