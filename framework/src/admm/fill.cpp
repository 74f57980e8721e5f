// Work-conserving max-min: the second stage that maximises the total of the max-min
// expressions once the minimum is known, and the copies of the iterates it hands on.
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

namespace dede::internal {

using namespace engine;

void AdmmEngine::SaveIterates(Iterates* out) const {
  out->ps = ps_;
  out->x.assign(side0_x_.data(), side0_x_.data() + side0_x_.size());
  out->v.resize(blocks_[1].size());
  for (std::size_t b = 0; b < blocks_[1].size(); ++b) out->v[b] = blocks_[1][b].v;
  out->alpha = alpha_;
  out->rho = rho_;
  out->global_weight = global_weight_;
  out->pair_weight = pair_weight_;
  out->copy_factor = copy_factor_;
  out->block_factor = block_factor_;
}

void AdmmEngine::RestoreIterates(Iterates* in) {
  InvalidateTargets();
  // The penalties as they were, then the iterates (scaled under those penalties).
  rho_ = in->rho;
  global_weight_ = in->global_weight;
  pair_weight_ = std::move(in->pair_weight);
  copy_factor_ = std::move(in->copy_factor);
  block_factor_ = std::move(in->block_factor);
  RefreshProxWeights();
  ps_ = std::move(in->ps);
  std::copy(in->x.begin(), in->x.end(), side0_x_.data());
  for (std::size_t b = 0; b < blocks_[1].size(); ++b) blocks_[1][b].v = std::move(in->v[b]);
  alpha_ = in->alpha;
  if (anderson_) anderson_->Reset();
}

AdmmEngine::GlobalStats AdmmEngine::Global(const std::vector<double>& values) const {
  GlobalStats stats{kInfinity, 0.0};
  for (const LinearExpr& e : problem_.global_term().exprs) {
    const double v = e.Value(values);
    stats.minimum = std::min(stats.minimum, v);
    stats.total += v;
  }
  return stats;
}

void AdmmEngine::BeginFill(double* floor, double* total) {
  std::vector<double> values;
  GatherValues(&values, global_side_);
  const GlobalTerm& global = problem_.global_term();
  const GlobalStats stats = Global(values);
  const double minimum = stats.minimum;
  *total = stats.total;
  *floor = minimum - options_.fill_slack * std::abs(minimum);
  const double sign = problem_.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  fill_saved_.assign(global.blocks.size(), FillSaved{});
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const Pair& pair = PairAt(global_pairs_[k]);
    PairState& q = Ps(global_pairs_[k]);
    q.z = *floor;  // and x: the block's value or alpha, both the floor
    q.u = 0;
    if (!Held(global_side_, pair.block[global_side_])) continue;
    Block& block = blocks_[global_side_][pair.block[global_side_]];
    BlockProblem& bp = block.problem;
    const int t = pair.slot[global_side_];
    FillSaved& saved = fill_saved_[k];
    saved.lower = bp.lower[t];
    saved.upper = bp.upper[t];
    saved.linear = bp.linear;
    bp.lower[t] = bp.upper[t] = *floor;
    // The global row is e_b - t_b (>= rhs): every other slot of it is a term of e_b, whose
    // coefficient becomes its cost (maximise the sum, in the problem's sense, in this block:
    // the other copy of an entry keeps its own cost).
    const BlockRow& row = bp.rows[block.global_row];
    for (std::size_t j = 0; j < row.index.size(); ++j) {
      if (row.index[j] == t) continue;
      bp.linear[row.index[j]] += sign * global.weight * row.coef[j];
    }
    ++bp.revision;
    if (!block.values_in_pairs) Values(global_side_, block)[t] = *floor;
  }
  alpha_ = *floor;
  filling_ = true;
  InvalidateTargets();
  if (anderson_) anderson_->Reset();
}

double AdmmEngine::EndFill() {
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const Pair& pair = PairAt(global_pairs_[k]);
    if (!Held(global_side_, pair.block[global_side_])) continue;
    Block& block = blocks_[global_side_][pair.block[global_side_]];
    BlockProblem& bp = block.problem;
    const int t = pair.slot[global_side_];
    bp.lower[t] = fill_saved_[k].lower;
    bp.upper[t] = fill_saved_[k].upper;
    bp.linear = std::move(fill_saved_[k].linear);
    bp.lower.Compact();
    bp.upper.Compact();
    ++bp.revision;
  }
  fill_saved_.clear();
  filling_ = false;
  if (anderson_) anderson_->Reset();
  std::vector<double> values;
  GatherValues(&values, global_side_);
  return Global(values).total;
}

// Work-conserving max-min: once the minimum is found, maximise the total of the global term's
// expressions with every one kept at or above it (AdmmOptions::fill_after_max_min). The first
// stage's allocation and iterates are kept: the next solve warm-starts from the first stage's
// iterates (the second stage's t_b were fixed), and Finish falls back to its allocation when
// the second stage cost the minimum more than fill_slack.
void AdmmEngine::FillStage(SolveRun* run, tbb::task_arena& arena) {
  if (run->failed || !options_.fill_after_max_min || global_side_ < 0 || run->has_integers ||
      problem_.global_term().kind != GlobalKind::kMaxMin ||
      !(run->termination == Termination::kConverged || run->inaccurate_ok) ||
      executor_->Agree(Seconds(run->start) < run->iterate_limit ? 0u : 1u) != 0) {
    return;
  }
  const Clock::time_point fill_start = Clock::now();
  const Termination first_termination = run->termination;
  const std::string first_message = run->message;
  const int first_iterations = run->iterations;
  double floor = 0, total_before = 0;
  arena.execute([&] {
    GatherValues(&run->first_stage_values,
                 options_.final_iterate == FinalIterate::kResourceSide ? 0 : 1);
    SaveIterates(&run->first_stage_state);
    BeginFill(&floor, &total_before);
  });
  run->fill_floor = floor;
  run->termination = Termination::kMaxIterations;
  run->inaccurate_ok = false;
  arena.execute(
      [&] { Iterate(run, run->iterations + 1, run->iterations + options_.max_iterations); });
  double total_after = 0;
  arena.execute([&] { total_after = EndFill(); });
  run->summary->fill_iterations = run->iterations - first_iterations;
  run->summary->fill_seconds = Seconds(fill_start);
  std::ostringstream out;
  out.precision(6);
  out << " Then " << run->summary->fill_iterations << " iterations maximising the total of the "
      << "max-min expressions, each >= " << floor << ": total " << total_before << " -> "
      << total_after << " ("
      << TerminationName(
             run->failed ? run->termination
                         : (run->termination == Termination::kMaxIterations && run->inaccurate_ok
                                ? Termination::kConvergedInaccurate
                                : run->termination))
      << ").";
  run->fill_message = out.str();
  if (!run->failed) {
    // The allocation holds the minimum found by the first stage whatever the second did
    // within its budget: the solve's outcome is the first stage's.
    run->termination = first_termination;
    run->message = first_message;
  }
}

}  // namespace dede::internal
