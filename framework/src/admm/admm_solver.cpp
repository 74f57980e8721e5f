// One solve (AdmmEngine::Solve) step by step, and the public AdmmSolver; the steps the
// iteration calls are in the files listed in admm_engine.h.
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
#include "admm/measure.h"
#include "core/logging.h"
#include "dede/host_solvers.h"

namespace dede {
namespace internal {

using namespace engine;

// One solve, step by step (each step a method below or in the file admm_engine.h names):
//   Prepare      validate and refresh the blocks, integer solvers, cold start, Anderson
//   Iterate      k = 1, 2, ...: Iteration (x half step with over-relaxation, alpha, Anderson,
//                z half step with the dual update), then on a check iteration CheckResiduals
//                (residuals, trace, convergence, the integer phase) and AdaptPenalties (rho
//                and the penalty factors)
//   FillStage    the second stage of a work-conserving max-min (fill.cpp)
//   Finish       the allocation from the chosen side, the repair, the final measure
void AdmmEngine::Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary) {
  SolveRun run;
  run.start = Clock::now();
  run.summary = summary;
  // The time limit covers the repair too: the iterations stop early enough to leave it the
  // time the last repair took (at most half the budget), or a tenth of the budget before the
  // first repair of this engine (which also builds the projectors). Kdl max flow with 2 s:
  // the round took 2.86 s before (a 0.7 s repair after the full 2 s of iterations).
  run.budget = options_.time_limit_seconds;
  run.iterate_limit = run.budget;
  if (options_.repair && std::isfinite(run.budget)) {
    run.iterate_limit -= last_repair_seconds_ >= 0
                             ? std::min(last_repair_seconds_, 0.5 * run.budget)
                             : 0.1 * run.budget;
  }
  SetDeadline(run, run.iterate_limit);
  stop_ = stop;
  *summary = SolveSummary();
  summary->method = "admm";
  // Later solves reuse the structure: their setup is the block refresh inside the solve.
  summary->setup_seconds = setup_reported_ ? 0.0 : setup_seconds_;
  setup_reported_ = true;
  tbb::task_arena arena(ThreadCount());
  if (!Prepare(&run, arena)) return;
  // The best repaired iterate is kept for continuous problems with a global term (not with a
  // second stage, which has its own fallback; not above 8M variables, where the copy is large).
  run.track_best = global_side_ >= 0 && !run.has_integers && !options_.fill_after_max_min &&
                   problem_.num_variables() <= kMaxTrackedVariables;
  run.next_rho_update = options_.rho_update_every;
  run.relaxed_budget = options_.max_iterations;
  run.total_budget = run.relaxed_budget + (run.has_integers ? options_.integer_iterations : 0);
  const BlockExecutor::Traffic traffic = executor_->traffic();
  cut_shares_ = whole_shares_ = 0;
  arena.execute([&] { Iterate(&run, 1, run.total_budget); });
  FillStage(&run, arena);
  Summarize(run);
  if (run.failed) {
    summary->termination = run.termination;
    summary->message = run.message + run.fill_message + DistributionReport(run, traffic);
    summary->total_seconds = summary->setup_seconds + summary->solve_seconds;
    cold_ = true;
    return;
  }
  if (run.termination == Termination::kMaxIterations) {
    if (run.inaccurate_ok) {
      run.termination = Termination::kConvergedInaccurate;
      run.message = "Residuals within 10x tolerance when the iteration budget ran out.";
    } else {
      run.message = "Iteration budget of " + std::to_string(run.total_budget) + " used up.";
    }
  }
  Finish(&run, arena, allocation);
  summary->message += DistributionReport(run, traffic);
}

std::string AdmmEngine::DistributionReport(const SolveRun& run,
                                           const BlockExecutor::Traffic& before) {
  const int n = executor_->processes();
  if (n <= 1) {
    LogDebug(
        "admm memory: engine state at set-up {:.1f} MB (heap), peak RSS {:.0f} MB; the resource "
        "side's targets {}",
        setup_heap_bytes_ / 1e6,
        PeakRssBytes() / 1e6,
        targets_over_x_ ? "over x" : "in an array of their own");
    return {};
  }
  const BlockExecutor::Traffic now = executor_->traffic();
  // Per process: half steps (resource, demand), exchanges within them, bytes received, time
  // inside the MPI calls, the process's peak RSS so far and the heap its engine kept at
  // set-up (bytes).
  constexpr std::size_t kFigures = 7;
  const std::vector<double> all =
      executor_->AllGather({run.resource_seconds,
                            run.demand_seconds,
                            now.seconds - before.seconds,
                            static_cast<double>(now.bytes_received - before.bytes_received),
                            now.mpi_seconds - before.mpi_seconds,
                            PeakRssBytes(),
                            setup_heap_bytes_});
  double compute_max = 0, compute_sum = 0, exchange_min = kInfinity, exchange_max = 0;
  double received = 0, in_mpi_max = 0, rss_min = kInfinity, rss_max = 0;
  double engine_min = kInfinity, engine_max = 0;
  for (int r = 0; r < n; ++r) {
    const double* f = all.data() + static_cast<std::size_t>(r) * kFigures;
    const double compute = f[0] + f[1] - f[2];
    compute_max = std::max(compute_max, compute);
    compute_sum += compute;
    exchange_min = std::min(exchange_min, f[2]);
    exchange_max = std::max(exchange_max, f[2]);
    received = std::max(received, f[3]);
    in_mpi_max = std::max(in_mpi_max, f[4]);
    rss_min = std::min(rss_min, f[5]);
    rss_max = std::max(rss_max, f[5]);
    engine_min = std::min(engine_min, f[6]);
    engine_max = std::max(engine_max, f[6]);
    if (executor_->rank() == 0) {
      LogDebug(
          "admm process {} of {}: resource half steps {:.3f} s, demand {:.3f} s, of which "
          "exchange {:.3f} s (in MPI {:.3f} s); received {:.1f} MB; peak RSS {:.0f} MB, engine "
          "state at set-up {:.1f} MB",
          r,
          n,
          f[0],
          f[1],
          f[2],
          f[4],
          f[3] / 1e6,
          f[5] / 1e6,
          f[6] / 1e6);
    }
  }
  const double mean = compute_sum / n;
  return fmt::format(
      " Distributed over {} processes: half steps computed in {:.3f} s at most (load imbalance "
      "{:.2f}: the slowest over the mean), exchanges {:.3f}-{:.3f} s (in MPI calls {:.3f} s at "
      "most, the rest packing and unpacking; {} half steps sent the cut only, {} the whole "
      "state), {:.2f} MB received per iteration by a process, peak RSS {:.0f}-{:.0f} MB per "
      "process so far (the engine's state at set-up {:.1f}-{:.1f} MB of it).",
      n,
      compute_max,
      mean > 0 ? compute_max / mean : 1.0,
      exchange_min,
      exchange_max,
      in_mpi_max,
      cut_shares_,
      whole_shares_,
      received / 1e6 / std::max(1, run.iterations),
      rss_min / 1e6,
      rss_max / 1e6,
      engine_min / 1e6,
      engine_max / 1e6);
}

void AdmmEngine::SetDeadline(const SolveRun& run, double seconds) {
  std::int64_t deadline = 0;
  if (std::isfinite(seconds)) {
    deadline = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   (run.start + std::chrono::duration<double>(seconds)).time_since_epoch())
                   .count();
  }
  deadline_ns_.store(deadline, std::memory_order_relaxed);
}

bool AdmmEngine::Prepare(SolveRun* run, tbb::task_arena& arena) {
  SolveSummary* summary = run->summary;
  std::string error;
  if (!setup_error_.empty()) {
    summary->message = "Setup failed: " + setup_error_;
    return false;
  }
  if (!options_.IsValid(&error)) {
    summary->message = error;
    return false;
  }
  if (layout_.partial() &&
      (options_.anderson_memory > 0 || options_.block_rho_balancing != BlockBalancing::kOff)) {
    summary->message =
        "Anderson acceleration and per-block penalty factors need every process to hold the "
        "whole engine state, and this engine was built across processes without them: set "
        "solver.admm.anderson_memory / block_rho_balancing before the first solve";
    return false;
  }
  summary->num_threads = ThreadCount();
  // Every solve, not only when this process's problem changed: a process whose round made
  // other changes would otherwise skip a collective the others enter.
  if (executor_->processes() > 1 && !SameProblemEverywhere(*executor_, &error)) {
    summary->message = error;
    return false;
  }
  if (problem_.revision() != seen_revision_) {
    const auto t_validate = Clock::now();
    if (!problem_.Validate(&error)) {
      summary->message = "Invalid problem: " + error;
      return false;
    }
    const double validate_s = Seconds(t_validate);
    const auto t_refresh = Clock::now();
    arena.execute([&] { RefreshParameters(); });
    LogDebug("admm refresh: validate {:.3f} s, block parameters {:.3f} s",
             validate_s,
             Seconds(t_refresh));
  }
  // The boxes of the certified bound, when the parameters changed (bound.cpp).
  if (box_revision_ != problem_.revision()) {
    const auto t_boxes = Clock::now();
    ComputeBoxes();
    LogDebug("admm bound boxes: {:.3f} s", Seconds(t_boxes));
  }
  side0_value_.assign(blocks_[0].size(), 0.0);
  run->has_integers = problem_.HasIntegers();
  if (run->has_integers) {
    BlockSolverOptions solver_options;
    solver_options.node_limit = options_.block_node_limit;
    solver_options.deadline_ns = &deadline_ns_;
    for (int s = 0; s < 2; ++s) {
      for (Block& block : blocks_[s]) {
        if (!block.has_integers || !executor_->Owns(s, block.id.index) ||
            block.GetExtra().integer_solver)
          continue;
        BlockProblem flagged = block.problem;
        flagged.integral = block.extra->integral_flags;
        std::string why;
        block.extra->integer_solver = CreateBlockSolver(flagged, solver_options, &why);
        if (!block.extra->integer_solver) {
          summary->message = "Setup failed: " + why;
          return false;
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
    LogDebug("admm cold start {:.3f} s", Seconds(t_cold));
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
  // With more than one process: Anderson and the per-block balancing read every pair, so
  // every process needs the whole state again (the last solve may have left the others'
  // blocks' state stale here: share.cpp).
  if (anderson_ || balanced_side_ >= 0) Consolidate();
  PlaceTargets(run->has_integers);
  return true;
}

// The iterations from k = first to last (the second stage of a work-conserving max-min
// continues the numbering).
void AdmmEngine::Iterate(SolveRun* run, int first, int last_k) {
  for (int k = first; k <= last_k; ++k) {
    // A stop request (bit 1) or the end of the time (bit 2) on any process stops them all.
    const unsigned stop = executor_->Agree((stop_.stop_requested() ? 1u : 0u) |
                                           (Seconds(run->start) > run->iterate_limit ? 2u : 0u));
    if ((stop & 1u) != 0) {
      run->termination = Termination::kCancelled;
      run->message = "Stop requested after " + std::to_string(run->iterations) + " iterations.";
      return;
    }
    if ((stop & 2u) != 0) {
      run->termination = Termination::kTimeLimit;
      run->message = "Time limit " + std::to_string(options_.time_limit_seconds) +
                     " s reached after " + std::to_string(run->iterations) + " iterations" +
                     (run->iterate_limit < run->budget
                          ? " (" + std::to_string(run->budget - run->iterate_limit) +
                                " s of it kept for the repair)"
                          : std::string()) +
                     ".";
      return;
    }
    if (run->has_integers && !run->integer_phase && k > run->relaxed_budget) {
      run->integer_phase = true;
      run->integer_start = k;
    }
    const bool measure = k % options_.check_termination_every == 0;
    const bool rho_update_due = measure && k >= run->next_rho_update;
    if (!Iteration(run, k, measure, rho_update_due)) return;
    if (!measure) continue;
    IterationSummary it;
    switch (CheckResiduals(run, k, &it)) {
      case Check::kStop:
        return;
      case Check::kNextIteration:
        continue;
      case Check::kGoOn:
        break;
    }
    TrackBest(run, k);
    AdaptPenalties(run, k, it, rho_update_due);
  }
}

// One ADMM iteration: the x half step (resource blocks) with over-relaxation, the global
// scalar alpha, the Anderson step, the z half step (demand blocks) with the dual update.
bool AdmmEngine::Iteration(SolveRun* run, int k, bool measure, bool rho_update_due) {
  if (measure) std::fill(norms_.begin(), norms_.end(), Norms{});
  // The check's bound (bound.cpp) needs this iteration's plain steps: not in the integer phase
  // (its blocks are not convex), the fill stage (another problem) or an Anderson step (which
  // moves the state between the half steps).
  bound_now_ = measure && !run->integer_phase && !filling_ &&
               !(anderson_ && k % options_.anderson_interval == 0) &&
               box_revision_ == problem_.revision();
  relaxation_ = run->integer_phase ? 1.0 : options_.relaxation;
  auto t0 = Clock::now();
  if (!HalfStep(0, run->integer_phase, measure, &run->message, &run->termination)) {
    run->failed = !Interrupted(run->termination);
    return false;
  }
  UpdateGlobalAlpha(0, measure);
  if (anderson_ && !run->integer_phase && k % options_.anderson_interval == 0) Accelerate();
  run->resource_seconds += Seconds(t0);
  t0 = Clock::now();
  // The global pairs' z before this half step, for their penalty balancing at a rho update.
  if (rho_update_due && !global_pairs_.empty() && options_.global_rho_balancing) {
    global_z_prev_.resize(global_pairs_.size());
    for (std::size_t g = 0; g < global_pairs_.size(); ++g)
      global_z_prev_[g] = Ps(global_pairs_[g]).z;
  }
  // Every pair's z before this half step, for the per-block balancing at a rho update.
  if (rho_update_due && balanced_side_ >= 0 &&
      options_.rho_update == RhoUpdate::kResidualBalancing) {
    Consolidate();               // (with more than one process)
    z_prev_.resize(ps_.size());  // (every pair: per-block factors keep the whole state)
    for (std::size_t p = 0; p < ps_.size(); ++p) z_prev_[p] = ps_[p].z;
  }
  if (!HalfStep(1, run->integer_phase, measure, &run->message, &run->termination)) {
    run->failed = !Interrupted(run->termination);
    if (!run->failed) run->iterations = k;
    return false;
  }
  UpdateGlobalAlpha(1, measure);
  run->demand_seconds += Seconds(t0);
  run->iterations = k;
  return true;
}

// A check iteration: residuals into the trace, the observer, convergence (which, with integer
// variables, starts the integer phase) and the end of the integer phase.
AdmmEngine::Check AdmmEngine::CheckResiduals(SolveRun* run, int k, IterationSummary* out) {
  IterationSummary& it = *out;
  it.iteration = k;
  Residuals(&it, /*want_objective=*/true);
  if (bound_now_) {
    const double bound = CheckBound(
        last_lag_, last_alpha_coef_, run->best_bound, std::numeric_limits<double>::quiet_NaN());
    it.bound = UserBound(bound);
    run->best_bound = std::max(run->best_bound, bound);
    if (global_side_ >= 0) run->checks.emplace_back(last_lag_, last_alpha_coef_);
  }
  it.seconds = Seconds(run->start);
  run->summary->trace.push_back(it);
  run->last = it;
  LogDebug(
      "admm {:6d}  {:8.3f} s  r_prim {:.3e} (tol {:.3e})  r_dual {:.3e} (tol {:.3e})  rho "
      "{:.3g}  obj {:.9g}",
      k,
      it.seconds,
      it.primal_residual,
      it.primal_tolerance,
      it.dual_residual,
      it.dual_tolerance,
      it.rho,
      it.objective);
  if (executor_->Agree(observer_ && !observer_(it) ? 1u : 0u) != 0) {
    run->termination = Termination::kCancelled;
    run->message = "Stopped by the observer after " + std::to_string(k) + " iterations.";
    return Check::kStop;
  }
  const bool converged =
      it.primal_residual <= it.primal_tolerance && it.dual_residual <= it.dual_tolerance;
  run->inaccurate_ok =
      it.primal_residual <= 10 * it.primal_tolerance && it.dual_residual <= 10 * it.dual_tolerance;
  // The stop on the certified gap (gap_tolerance > 0, continuous problems): it replaces the
  // residuals' stop, which may come with a larger gap. A trial repairs the iterate as the
  // round will and measures its gap to the best bound; after one that falls short, the next
  // waits a quarter of the iterations so far (about 30 trials in 10,000 iterations, each the
  // cost of a repair). (The iterate's own objective is no guide: on the contended cluster it
  // stays far below the repaired allocation's.) A work-conserving max-min's second stage may then
  // lower the minimum by fill_slack: the first stage stops that much inside the tolerance.
  double tol = options_.gap_tolerance;
  if (tol > 0 && !run->has_integers) {
    if (options_.fill_after_max_min && global_side_ == 1 && tol > 2 * options_.fill_slack) {
      tol -= options_.fill_slack;
    }
    if (k >= run->next_gap_trial && std::isfinite(run->best_bound)) {
      const double gap = TrialGap(*run);
      if (gap <= tol) {
        run->termination = Termination::kConverged;
        std::ostringstream out_message;
        out_message.precision(2);
        out_message << std::scientific << "Certified gap " << gap << " <= gap_tolerance " << tol
                    << " (primal residual " << it.primal_residual << ", dual residual "
                    << it.dual_residual << ").";
        run->message = out_message.str();
        return Check::kStop;
      }
      run->next_gap_trial = NextTrial(k);
    }
    return Check::kGoOn;
  }
  if (converged) {
    if (run->has_integers && !run->integer_phase) {
      // The relaxation has converged: continue with exact integer block solves.
      run->integer_phase = true;
      run->integer_start = k;
      return Check::kNextIteration;
    }
    run->termination = Termination::kConverged;
    std::ostringstream out_message;
    out_message.precision(2);
    out_message << std::scientific << "Primal residual " << it.primal_residual
                << " <= " << it.primal_tolerance << ", dual residual " << it.dual_residual
                << " <= " << it.dual_tolerance << ".";
    run->message = out_message.str();
    return Check::kStop;
  }
  if (run->integer_phase && run->integer_start > 0 &&
      k - run->integer_start >= options_.integer_iterations) {
    return Check::kStop;
  }
  return Check::kGoOn;
}

// The solve's figures beside the allocation: iterations, penalties, their factors' ranges,
// Anderson, the time per side and the last residuals.
void AdmmEngine::Summarize(const SolveRun& run) {
  SolveSummary* summary = run.summary;
  summary->iterations = run.iterations;
  summary->rho_updates = run.rho_updates;
  summary->entry_weight_min = entry_weight_range_[0];
  summary->entry_weight_max = entry_weight_range_[1];
  if (balanced_side_ >= 0) {
    // The block factors multiply the equilibration's: the range over the entries as they are.
    double lo = kInfinity, hi = 0;
    for (const int s : {0, 1}) {
      for (const Block& block : blocks_[s]) {
        for (const BlockVar& bv : block.vars) {
          if (bv.pair < 0 || bv.var < 0) continue;
          lo = std::min(lo, PairWeight(bv.pair));
          hi = std::max(hi, PairWeight(bv.pair));
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
  summary->resource_seconds = run.resource_seconds;
  summary->demand_seconds = run.demand_seconds;
  summary->primal_residual = run.last.primal_residual;
  summary->dual_residual = run.last.dual_residual;
  summary->solve_seconds = Seconds(run.start);
}

// The allocation: the chosen side's entries, then the repair, which may use the rest of the
// budget, then the one measure of violation and objective the summary reports.
void AdmmEngine::Finish(SolveRun* run, tbb::task_arena& arena, Allocation* allocation) {
  SolveSummary* summary = run->summary;
  SetDeadline(*run, run->budget);
  const auto repair_start = Clock::now();
  // The trace's buffer becomes the allocation (8 bytes a variable not held twice at the end).
  std::vector<double> values = std::move(trace_values_);
  trace_values_.clear();
  arena.execute([&] {
    GatherValues(&values, options_.final_iterate == FinalIterate::kResourceSide ? 0 : 1);
  });
  if (!run->first_stage_state.ps.empty()) RestoreIterates(&run->first_stage_state);
  int rounds = 0;
  std::string repair_message;
  bool repaired = true;
  if (options_.repair) {
    arena.execute([&] { repaired = Repair(&values, &rounds, &repair_message); });
  }
  if (!run->first_stage_values.empty()) {
    // The second stage must not cost the minimum more than fill_slack beyond its floor (it
    // can, when its budget ends before the copies agree and the repair trims the
    // expressions): then the first stage's allocation is returned instead.
    const double minimum = Global(values).minimum;
    const double allowed = run->fill_floor - options_.fill_slack * std::abs(run->fill_floor);
    if (!(minimum >= allowed)) {
      std::ostringstream out;
      out.precision(6);
      out << " The second stage's allocation was dropped: its minimum " << minimum << " < "
          << allowed << "; the first stage's is returned.";
      run->fill_message += out.str();
      values = std::move(run->first_stage_values);
      rounds = 0;
      repair_message.clear();
      repaired = true;
      if (options_.repair) {
        arena.execute([&] { repaired = Repair(&values, &rounds, &repair_message); });
      }
    }
  }
  // (A problem with a global term: the best repaired iterate of the checks, if better.)
  bool replaced = false;
  arena.execute([&] { replaced = ReturnBest(run, &values); });
  if (replaced) {
    rounds = 0;
    repair_message.clear();
    repaired = true;
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
  summary->bound =
      UserBound(summary->feasible ? BoundWithIncumbent(*run, summary->objective) : run->best_bound);
  if (!std::isfinite(summary->bound)) summary->bound = std::numeric_limits<double>::quiet_NaN();
  summary->gap = summary->feasible ? CertifiedGap(summary->objective, summary->bound)
                                   : std::numeric_limits<double>::quiet_NaN();
  LogDebug("admm finish: gather and repair {:.3f} s, violation and objective {:.3f} s",
           summary->repair_seconds,
           Seconds(check_start));
  summary->termination = run->termination;
  summary->message = run->message + run->fill_message;
  if (!repaired || !summary->feasible) {
    std::ostringstream out;
    out << " Allocation is NOT feasible: max violation " << summary->max_violation << " ("
        << WorstItem(viol) << ")." << (repair_message.empty() ? "" : " " + repair_message);
    summary->message += out.str();
  } else if (rounds > 0) {
    summary->message += " Repaired in " + std::to_string(rounds) + " projection rounds.";
  }
  allocation->values = std::move(values);
  summary->solve_seconds = Seconds(run->start) - summary->repair_seconds;
  summary->total_seconds = summary->setup_seconds + Seconds(run->start);
}

}  // namespace internal

AdmmSolver::AdmmSolver(const Problem& problem, const AdmmOptions& options)
    : engine_(std::make_unique<internal::AdmmEngine>(problem, options)) {}
AdmmSolver::AdmmSolver(const Problem& problem,
                       const AdmmOptions& options,
                       std::unique_ptr<internal::BlockExecutor> executor)
    : engine_(std::make_unique<internal::AdmmEngine>(problem, options, std::move(executor))) {}
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
Status AdmmSolver::SetOptions(const AdmmOptions& options) {
  std::string error;
  if (!options.IsValid(&error)) return InvalidArgument(error);
  // The options the engine's build reads (penalty layout, cost placement, block solvers).
  const AdmmOptions& built = engine_->options();
  const std::pair<const char*, bool> set_up[] = {
      {"block_rho_balancing", options.block_rho_balancing != built.block_rho_balancing},
      {"equilibrate", options.equilibrate != built.equilibrate},
      {"entry_cost_side", options.entry_cost_side != built.entry_cost_side},
      {"block_node_limit", options.block_node_limit != built.block_node_limit},
  };
  for (const auto& [name, changed] : set_up) {
    if (changed) {
      return FailedPrecondition(std::string("AdmmOptions::") + name +
                                " changed: it is read when the solver is built (lifetime "
                                "set-up); build a new AdmmSolver to change it");
    }
  }
  engine_->SetOptions(options);
  return Status::Ok();
}
void AdmmSolver::SetObserver(Observer observer) { engine_->SetObserver(std::move(observer)); }
void AdmmSolver::SetRepairer(Repairer repairer) { engine_->SetRepairer(std::move(repairer)); }
const AdmmOptions& AdmmSolver::options() const { return engine_->options(); }
const std::string& AdmmSolver::setup_error() const { return engine_->setup_error(); }

}  // namespace dede
