// The ADMM iteration (AdmmEngine::Solve) and the public AdmmSolver; the steps it calls are
// in the files listed in admm_engine.h.
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

namespace dede {
namespace internal {

using namespace engine;

void AdmmEngine::Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary) {
  const auto start = Clock::now();
  // The time limit covers the repair too: the iterations stop early enough to leave it the
  // time the last repair took (at most half the budget), or a tenth of the budget before the
  // first repair of this engine (which also builds the projectors). Kdl max flow with 2 s:
  // the round took 2.86 s before (a 0.7 s repair after the full 2 s of iterations).
  const double budget = options_.time_limit_seconds;
  double iterate_limit = budget;
  if (options_.repair && std::isfinite(budget)) {
    iterate_limit -=
        last_repair_seconds_ >= 0 ? std::min(last_repair_seconds_, 0.5 * budget) : 0.1 * budget;
  }
  const auto set_deadline = [&](double seconds) {
    std::int64_t deadline = 0;
    if (std::isfinite(seconds)) {
      deadline = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     (start + std::chrono::duration<double>(seconds)).time_since_epoch())
                     .count();
    }
    deadline_ns_.store(deadline, std::memory_order_relaxed);
  };
  set_deadline(iterate_limit);
  stop_ = stop;
  *summary = SolveSummary();
  summary->method = "admm";
  // Later solves reuse the structure: their setup is the block refresh inside the solve.
  summary->setup_seconds = setup_reported_ ? 0.0 : setup_seconds_;
  setup_reported_ = true;
  std::string error;
  if (!setup_error_.empty()) {
    summary->message = "Setup failed: " + setup_error_;
    return;
  }
  if (!options_.IsValid(&error)) {
    summary->message = error;
    return;
  }
  const int threads = ThreadCount();
  summary->num_threads = threads;
  tbb::task_arena arena(threads);
  if (problem_.revision() != seen_revision_) {
    const auto t_validate = Clock::now();
    if (!problem_.Validate(&error)) {
      summary->message = "Invalid problem: " + error;
      return;
    }
    const double validate_s = Seconds(t_validate);
    const auto t_refresh = Clock::now();
    arena.execute([&] { RefreshParameters(); });
    if (options_.verbose) {
      std::fprintf(stderr,
                   "admm refresh: validate %.3f s, block parameters %.3f s\n",
                   validate_s,
                   Seconds(t_refresh));
    }
  }
  const bool has_integers = problem_.HasIntegers();
  if (has_integers) {
    BlockSolverOptions solver_options;
    solver_options.node_limit = options_.block_node_limit;
    solver_options.deadline_ns = &deadline_ns_;
    for (int s = 0; s < 2; ++s) {
      for (Block& block : blocks_[s]) {
        if (!block.has_integers || block.integer_solver) continue;
        BlockProblem flagged = block.problem;
        flagged.integral = block.integral_flags;
        std::string why;
        block.integer_solver = CreateBlockSolver(flagged, solver_options, &why);
        if (!block.integer_solver) {
          summary->message = "Setup failed: " + why;
          return;
        }
      }
    }
  }
  // Parameters, starts and penalties may all have changed since the last solve.
  InvalidateTargets();
  xh_ready_ = false;
  if (cold_) {
    const auto t_cold = Clock::now();
    ColdStart();
    if (options_.verbose) std::fprintf(stderr, "admm cold start %.3f s\n", Seconds(t_cold));
  }
  if (options_.anderson_memory > 0) {
    const AndersonKind kind = options_.anderson_type == AndersonType::kTypeI
                                  ? AndersonKind::kTypeI
                                  : AndersonKind::kTypeII;
    if (anderson_ && anderson_->memory() == options_.anderson_memory && anderson_->kind() == kind) {
      // A new solve is a new map (parameters, warm start): the history starts afresh.
      anderson_->Reset();
      anderson_->ResetStats();
    } else {
      anderson_ = std::make_unique<AndersonAccelerator>(ps_.size(),
                                                        options_.anderson_memory,
                                                        kind,
                                                        /*safeguard=*/1.0,
                                                        /*regularization=*/1e-10);
    }
  } else {
    anderson_.reset();
  }

  Termination termination = Termination::kMaxIterations;
  std::string message;
  double resource_seconds = 0, demand_seconds = 0;
  int iterations = 0, rho_updates = 0;
  // Penalty updates happen at residual checks: at the first check at or after every
  // rho_update_every iterations (the multiples of it when it is a multiple of the check period).
  int next_rho_update = options_.rho_update_every;
  bool failed = false;
  bool integer_phase = false;
  int integer_start = -1;
  const int relaxed_budget = options_.max_iterations;
  const int total_budget = relaxed_budget + (has_integers ? options_.integer_iterations : 0);
  bool inaccurate_ok = false;
  IterationSummary last;

  // The iterations from k = first to last (the second stage of a work-conserving max-min
  // continues the numbering).
  const auto iterate = [&](int first, int last_k) {
    for (int k = first; k <= last_k; ++k) {
      if (stop.stop_requested()) {
        termination = Termination::kCancelled;
        message = "Stop requested after " + std::to_string(iterations) + " iterations.";
        break;
      }
      if (Seconds(start) > iterate_limit) {
        termination = Termination::kTimeLimit;
        message = "Time limit " + std::to_string(options_.time_limit_seconds) +
                  " s reached after " + std::to_string(iterations) + " iterations" +
                  (iterate_limit < budget ? " (" + std::to_string(budget - iterate_limit) +
                                                " s of it kept for the repair)"
                                          : std::string()) +
                  ".";
        break;
      }
      if (has_integers && !integer_phase && k > relaxed_budget) {
        integer_phase = true;
        integer_start = k;
      }
      const bool measure = k % options_.check_termination_every == 0;
      if (measure) std::fill(norms_.begin(), norms_.end(), Norms{});
      relaxation_ = integer_phase ? 1.0 : options_.relaxation;
      auto t0 = Clock::now();
      if (!HalfStep(0, integer_phase, measure, &message, &termination)) {
        failed = !Interrupted(termination);
        break;
      }
      UpdateGlobalAlpha(0, measure);
      if (anderson_ && !integer_phase && k % options_.anderson_interval == 0) Accelerate();
      resource_seconds += Seconds(t0);
      t0 = Clock::now();
      // The global pairs' z before this half step, for their penalty balancing at a rho update.
      const bool rho_update_due = measure && k >= next_rho_update;
      if (rho_update_due && !global_pairs_.empty() && options_.global_rho_balancing) {
        global_z_prev_.resize(global_pairs_.size());
        for (std::size_t g = 0; g < global_pairs_.size(); ++g)
          global_z_prev_[g] = ps_[global_pairs_[g]].z;
      }
      // Every pair's z before this half step, for the per-block balancing at a rho update.
      if (rho_update_due && balanced_side_ >= 0 &&
          options_.rho_update == RhoUpdate::kResidualBalancing) {
        z_prev_.resize(ps_.size());
        for (std::size_t p = 0; p < ps_.size(); ++p) z_prev_[p] = ps_[p].z;
      }
      if (!HalfStep(1, integer_phase, measure, &message, &termination)) {
        failed = !Interrupted(termination);
        if (!failed) iterations = k;
        break;
      }
      UpdateGlobalAlpha(1, measure);
      demand_seconds += Seconds(t0);
      iterations = k;

      if (k % options_.check_termination_every != 0) continue;
      IterationSummary it;
      it.iteration = k;
      Residuals(&it, /*want_objective=*/true);
      it.seconds = Seconds(start);
      summary->trace.push_back(it);
      last = it;
      if (options_.verbose) {
        std::fprintf(stderr,
                     "admm %6d  %8.3f s  r_prim %.3e (tol %.3e)  r_dual %.3e (tol %.3e)  rho %.3g"
                     "  obj %.9g\n",
                     k,
                     it.seconds,
                     it.primal_residual,
                     it.primal_tolerance,
                     it.dual_residual,
                     it.dual_tolerance,
                     it.rho,
                     it.objective);
      }
      if (observer_ && !observer_(it)) {
        termination = Termination::kCancelled;
        message = "Stopped by the observer after " + std::to_string(k) + " iterations.";
        break;
      }
      const bool converged =
          it.primal_residual <= it.primal_tolerance && it.dual_residual <= it.dual_tolerance;
      inaccurate_ok = it.primal_residual <= 10 * it.primal_tolerance &&
                      it.dual_residual <= 10 * it.dual_tolerance;
      if (converged) {
        if (has_integers && !integer_phase) {
          // The relaxation has converged: continue with exact integer block solves.
          integer_phase = true;
          integer_start = k;
          continue;
        }
        termination = Termination::kConverged;
        std::ostringstream out;
        out.precision(2);
        out << std::scientific << "Primal residual " << it.primal_residual
            << " <= " << it.primal_tolerance << ", dual residual " << it.dual_residual
            << " <= " << it.dual_tolerance << ".";
        message = out.str();
        break;
      }
      if (integer_phase && integer_start > 0 && k - integer_start >= options_.integer_iterations) {
        break;
      }
      if (integer_phase && options_.integer_rho_growth > 1 &&
          rho_ * options_.integer_rho_growth <= RhoCeiling()) {
        // Nonconvex ADMM over integer blocks can cycle between integral points that each side
        // prefers; a growing penalty forces the two copies onto a common integral point.
        const double proposed = rho_ * options_.integer_rho_growth;
        for (PairState& q : ps_) q.u *= rho_ / proposed;
        InvalidateTargets();
        SetRho(proposed);
        ++rho_updates;
      }
      if (options_.rho_update == RhoUpdate::kResidualBalancing && !integer_phase &&
          rho_update_due) {
        next_rho_update = k + options_.rho_update_every;
        // Balance the residuals relative to their own scales (OSQP, section 5.2).
        const double pn = it.primal_residual / std::max(xz_norm_, 1e-300);
        const double dn = it.dual_residual / std::max(rho_ * u_norm_, 1e-300);
        if (pn > 0 && dn > 0 && std::isfinite(pn) && std::isfinite(dn)) {
          // The initial rho widens [rho_min, rho_max] rather than being pulled into it: a
          // rho set above rho_max (max-flow TE starts at 1e7) must not drop 10x at the first
          // update because of the bound alone, whatever the residuals say.
          const double proposed = std::clamp(rho_ * std::sqrt(pn / dn), RhoFloor(), RhoCeiling());
          if (proposed > rho_ * options_.rho_update_tolerance ||
              proposed < rho_ / options_.rho_update_tolerance) {
            // Scaled duals u = y / rho must follow rho.
            const double scale = rho_ / proposed;
            for (PairState& q : ps_) q.u *= scale;
            InvalidateTargets();
            SetRho(proposed);
            ++rho_updates;
          }
        }
        if (options_.global_rho_balancing) {
          if (BalanceGlobalWeight()) ++rho_updates;
          if (options_.global_copy_balancing) BalanceCopies();
        }
        BalanceBlocks();
      }
    }
  };
  arena.execute([&] { iterate(1, total_budget); });
  // Work-conserving max-min: once the minimum is found, maximise the total of the global
  // term's expressions with every one kept at or above it (see FillAfterMaxMin).
  std::string fill_message;
  std::vector<double> first_stage_values;  // kept while the second stage runs
  // The first stage's iterates: the next solve warm-starts from them, not from the second
  // stage's (whose t_b were fixed), so a new round's minimum is found as fast as without it.
  Iterates first_stage_state;
  double fill_floor = -kInfinity;
  if (!failed && options_.fill_after_max_min && global_side_ >= 0 && !has_integers &&
      problem_.global_term().kind == GlobalKind::kMaxMin &&
      (termination == Termination::kConverged || inaccurate_ok) && Seconds(start) < iterate_limit) {
    const Termination first_termination = termination;
    const std::string first_message = message;
    const int first_iterations = iterations;
    double floor = 0, total_before = 0;
    arena.execute([&] {
      GatherValues(&first_stage_values,
                   options_.final_iterate == FinalIterate::kResourceSide ? 0 : 1);
      SaveIterates(&first_stage_state);
      BeginFill(&floor, &total_before);
    });
    fill_floor = floor;
    termination = Termination::kMaxIterations;
    inaccurate_ok = false;
    arena.execute([&] { iterate(iterations + 1, iterations + options_.max_iterations); });
    double total_after = 0;
    arena.execute([&] { total_after = EndFill(); });
    summary->fill_iterations = iterations - first_iterations;
    std::ostringstream out;
    out.precision(6);
    out << " Then " << summary->fill_iterations << " iterations maximising the total of the "
        << "max-min expressions, each >= " << floor << ": total " << total_before << " -> "
        << total_after << " ("
        << TerminationName(failed ? termination
                                  : (termination == Termination::kMaxIterations && inaccurate_ok
                                         ? Termination::kConvergedInaccurate
                                         : termination))
        << ").";
    fill_message = out.str();
    if (!failed) {
      // The allocation holds the minimum found by the first stage whatever the second did
      // within its budget: the solve's outcome is the first stage's.
      termination = first_termination;
      message = first_message;
    }
  }
  summary->iterations = iterations;
  summary->rho_updates = rho_updates;
  summary->entry_weight_min = entry_weight_range_[0];
  summary->entry_weight_max = entry_weight_range_[1];
  if (balanced_side_ >= 0) {
    // The block factors multiply the equilibration's: the range over the entries as they are.
    double lo = kInfinity, hi = 0;
    for (const int s : {0, 1}) {
      for (const Block& block : blocks_[s]) {
        for (const BlockVar& bv : block.vars) {
          if (bv.pair < 0 || bv.var < 0) continue;
          lo = std::min(lo, pair_weight_[bv.pair]);
          hi = std::max(hi, pair_weight_[bv.pair]);
        }
      }
    }
    if (hi > 0) {
      summary->entry_weight_min = lo;
      summary->entry_weight_max = hi;
    }
  }
  summary->global_weight = global_side_ >= 0 ? global_weight_ : -1;
  if (global_side_ >= 0 && !copy_factor_.empty()) {
    const auto [lo, hi] = std::minmax_element(copy_factor_.begin(), copy_factor_.end());
    summary->copy_factor_min = *lo;
    summary->copy_factor_max = *hi;
  }
  if (anderson_) {
    summary->anderson_steps = anderson_->stats().steps;
    summary->anderson_rejections = anderson_->stats().rejections;
  }
  summary->rho = rho_;
  summary->resource_seconds = resource_seconds;
  summary->demand_seconds = demand_seconds;
  summary->primal_residual = last.primal_residual;
  summary->dual_residual = last.dual_residual;
  summary->solve_seconds = Seconds(start);
  if (failed) {
    summary->termination = termination;
    summary->message = message + fill_message;
    summary->total_seconds = summary->setup_seconds + summary->solve_seconds;
    cold_ = true;
    return;
  }
  if (termination == Termination::kMaxIterations) {
    if (inaccurate_ok) {
      termination = Termination::kConvergedInaccurate;
      message = "Residuals within 10x tolerance when the iteration budget ran out.";
    } else {
      message = "Iteration budget of " + std::to_string(total_budget) + " used up.";
    }
  }
  // Final allocation: the chosen side's entries, then repair, which may use the rest of the
  // budget.
  set_deadline(budget);
  const auto repair_start = Clock::now();
  std::vector<double> values;
  arena.execute([&] {
    GatherValues(&values, options_.final_iterate == FinalIterate::kResourceSide ? 0 : 1);
  });
  if (!first_stage_state.ps.empty()) RestoreIterates(&first_stage_state);
  int rounds = 0;
  std::string repair_message;
  bool repaired = true;
  if (options_.repair) {
    arena.execute([&] { repaired = Repair(&values, &rounds, &repair_message); });
  }
  if (!first_stage_values.empty()) {
    // The second stage must not cost the minimum more than fill_slack beyond its floor (it
    // can, when its budget ends before the copies agree and the repair trims the
    // expressions): then the first stage's allocation is returned instead.
    const double minimum = Global(values).minimum;
    const double allowed = fill_floor - options_.fill_slack * std::abs(fill_floor);
    if (!(minimum >= allowed)) {
      std::ostringstream out;
      out.precision(6);
      out << " The second stage's allocation was dropped: its minimum " << minimum << " < "
          << allowed << "; the first stage's is returned.";
      fill_message += out.str();
      values = std::move(first_stage_values);
      rounds = 0;
      repair_message.clear();
      repaired = true;
      if (options_.repair) {
        arena.execute([&] { repaired = Repair(&values, &rounds, &repair_message); });
      }
    }
  }
  summary->repair_rounds = rounds;
  summary->repair_seconds = Seconds(repair_start);
  if (options_.repair) last_repair_seconds_ = summary->repair_seconds;
  const auto check_start = Clock::now();
  Problem::Violation viol;
  arena.execute([&] { viol = MeasureViolation(values); });
  summary->max_violation = viol.Max();
  summary->feasible = summary->max_violation <= options_.feasibility_tolerance;
  arena.execute([&] { summary->objective = Objective(values); });
  if (options_.verbose) {
    std::fprintf(stderr,
                 "admm finish: gather and repair %.3f s, violation and objective %.3f s\n",
                 summary->repair_seconds,
                 Seconds(check_start));
  }
  summary->termination = termination;
  summary->message = message + fill_message;
  if (!repaired || !summary->feasible) {
    std::ostringstream out;
    out << " Allocation is NOT feasible: max violation " << summary->max_violation
        << " (constraint " << viol.worst_constraint << ")."
        << (repair_message.empty() ? "" : " " + repair_message);
    summary->message += out.str();
  } else if (rounds > 0) {
    summary->message += " Repaired in " + std::to_string(rounds) + " projection rounds.";
  }
  allocation->values = std::move(values);
  summary->solve_seconds = Seconds(start) - summary->repair_seconds;
  summary->total_seconds = summary->setup_seconds + Seconds(start);
}

}  // namespace internal

AdmmSolver::AdmmSolver(const Problem& problem, const AdmmOptions& options)
    : engine_(std::make_unique<internal::AdmmEngine>(problem, options)) {}
AdmmSolver::~AdmmSolver() = default;

void AdmmSolver::Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary) {
  try {
    engine_->Solve(stop, allocation, summary);
  } catch (const std::exception& e) {
    *summary = SolveSummary();
    summary->method = "admm";
    summary->message = std::string("Internal error: ") + e.what();
  }
}
void AdmmSolver::Reset() { engine_->Reset(); }
void AdmmSolver::WarmStart(const std::vector<double>& values) { engine_->WarmStart(values); }
void AdmmSolver::SetOptions(const AdmmOptions& options) { engine_->SetOptions(options); }
void AdmmSolver::SetObserver(Observer observer) { engine_->SetObserver(std::move(observer)); }
const AdmmOptions& AdmmSolver::options() const { return engine_->options(); }
const std::string& AdmmSolver::setup_error() const { return engine_->setup_error(); }

}  // namespace dede
