// Decouple and decompose: every entry gets its two copies (a consensus pair), every resource
// and demand its block with its own constraints, the global term its per-block copies; the
// block solvers are built and primed; parameters are copied in before each solve; cold and
// warm starts.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
#include "core/check.h"
#include "core/logging.h"

namespace dede::internal {

using namespace engine;

// Hands the heap's free pages back to the system. The set-up's temporaries (the entries'
// pairs, the decomposition's maps) leave free chunks amid the heap, and the engine's large
// arrays are mappings of their own that never reuse them: without this, they stay resident
// (6 MB of the 1M-entry transport benchmark's peak).
static void ReleaseFreeHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void AdmmEngine::AddBlockVar(Block* block, VarId var, int pair) {
  block->vars.push_back({var, pair});
}

// Build: decouple (two copies of every entry), decompose (a block per resource and per
// demand), parameters, penalties, solvers, and the resource side's flat arrays.
void AdmmEngine::Build(std::unique_ptr<BlockExecutor> executor) {
  std::string error;
  // (Before the validation: a process whose problem differs could fail it alone.)
  if (executor && executor->processes() > 1 && !SameProblemEverywhere(*executor, &error)) {
    setup_error_ = error;
    return;
  }
  if (!options_.IsValid(&error) || !problem_.Validate(&error)) {
    setup_error_ = error;
    return;
  }
  Decouple();
  EstimateWork();
  layout_.SetExecutor(executor_.get());
  if (executor) SetExecutor(std::move(executor));
  // A process that will keep only its own blocks builds only their structure and parameters
  // (the others' would be dropped below: built, they set the set-up's peak). Equilibration
  // reads every block's rows first.
  layout_.SetPartial(DropsOthersBlocks() && !options_.equilibrate);
  Decompose();
  tbb::task_arena(ThreadCount()).execute([&] { RefreshParameters(); });
  rho_ = options_.rho;  // the solvers are built, and primed, with the penalty they start with
  InitPenaltyWeights();
  BuildSideArrays();
  BuildRoute();
  DropOthersBlocks();
  HoldOwnPairs();
  MarkPairRuns();
  side0_x_.Assign(side0_size_);  // (side0_t_ once the solvers say where the targets live)
  // The entries' pairs are not read past this point (unless per-block factors write both
  // slots of a pair): released before the consensus state is allocated, so the set-up's
  // peak holds them and ps_ not both (16 bytes an entry).
  if (balanced_side_ < 0) {
    pairs_.erase(pairs_.begin(),
                 pairs_.begin() + static_cast<std::ptrdiff_t>(layout_.entry_pairs()));
    pairs_.shrink_to_fit();
    pairs_offset_ = layout_.entry_pairs();
  }
  ps_.assign(layout_.held_pairs(), PairState{});
  norms_.assign(blocks_[1].size() + 1, Norms{});
  int failed_side = -1, failed_block = -1;
  const bool built = CreateSolvers(&error, &failed_side, &failed_block);
  if (layout_.partial()) {
    // Each process built its own blocks' solvers only: every one learns of a failure (the
    // first in process order), or they would part ways at the first solve.
    const std::vector<double> failures =
        executor_->AllGather({static_cast<double>(failed_side), static_cast<double>(failed_block)});
    for (std::size_t r = 0; r < failures.size() / 2; ++r) {
      if (failures[2 * r] < 0) continue;
      if (static_cast<int>(r) != executor_->rank()) {
        error = std::string(failures[2 * r] == 0 ? "resource " : "demand ") +
                std::to_string(static_cast<long long>(failures[2 * r + 1])) +
                ": no block solver could be built (on process " + std::to_string(r) +
                ", which names the reason)";
      } else if (executor_->rank() != 0) {
        LogError("process {}: {}", executor_->rank(), error);
      }
      setup_error_ = error;
      return;
    }
  }
  if (!built) {
    setup_error_ = error;
  } else {
    PlaceTargets(problem_.HasIntegers());
    PrimeSolvers();
  }
  ReleaseFreeHeap();
}

bool AdmmEngine::TargetsCanShareX(bool has_integers) const {
  if (options_.final_iterate != FinalIterate::kDemandSide || global_side_ >= 0 ||
      options_.anderson_memory > 0 || balanced_side_ >= 0 || has_integers)
    return false;
  // (This process's own blocks: each process places its own targets, and the route carries
  // them from and into wherever they live on each.)
  for (const Block& block : blocks_[0]) {
    if (block.vars.empty() || !executor_->Owns(0, block.id.index)) continue;
    if (!block.solver || !block.solver->solves_in_place()) return false;
  }
  return true;
}

void AdmmEngine::PlaceTargets(bool has_integers) {
  targets_over_x_ = TargetsCanShareX(has_integers);
  if (targets_over_x_) {
    side0_t_.Assign(0);
  } else if (side0_t_.size() != side0_size_) {
    side0_t_.Assign(side0_size_);
  }
  InvalidateTargets();  // (written where they now live before the next resource half step)
}

// Every entry's resource-side copy x goes to its resource's block and its demand-side copy z
// to its demand's block, joined by a consensus pair; a local goes to its owner's block; a
// max-min / min-max term gets a copy t_b in each participating block, paired with the global
// scalar alpha on the other side. Constraints and log terms follow their blocks.
void AdmmEngine::Decouple() {
  for (int s = 0; s < 2; ++s) {
    const int n = s == 0 ? problem_.num_resources() : problem_.num_demands();
    blocks_[s].resize(n);
    for (int b = 0; b < n; ++b) blocks_[s][b].id = {s == 0 ? Side::kResource : Side::kDemand, b};
  }
  // Each block's slots counted first and reserved: exact vectors (ASN2k has 3 M blocks).
  // The entries' pairs are numbered by demand block, each block's in VarId order (its slot
  // order): the pairs of a range of demand blocks form one range (what a process holds under
  // mpirun: HoldOwnPairs), and the demand half step reads them in sequence. (The bundled
  // plugins add their entries in demand order: there the numbering is VarId order.)
  std::vector<std::uint32_t> next_pair(blocks_[1].size() + 1, 0);
  {
    std::vector<std::uint32_t> count[2] = {std::vector<std::uint32_t>(blocks_[0].size(), 0),
                                           std::vector<std::uint32_t>(blocks_[1].size(), 0)};
    std::size_t entries = 0;
    for (VarId v = 0; v < problem_.num_variables(); ++v) {
      const Variable var = problem_.variable(v);
      if (var.IsEntry()) {
        ++count[0][static_cast<std::size_t>(var.resource)];
        ++count[1][static_cast<std::size_t>(var.demand)];
        ++next_pair[static_cast<std::size_t>(var.demand) + 1];
        ++entries;
      } else {
        ++count[SideIndex(var.owner.side)][static_cast<std::size_t>(var.owner.index)];
      }
    }
    const GlobalTerm& global = problem_.global_term();
    if (global.kind != GlobalKind::kNone) {
      for (int b : global.blocks) ++count[SideIndex(global.side)][static_cast<std::size_t>(b)];
    }
    for (int s = 0; s < 2; ++s)
      for (std::size_t b = 0; b < blocks_[s].size(); ++b) blocks_[s][b].vars.reserve(count[s][b]);
    std::partial_sum(next_pair.begin(), next_pair.end(), next_pair.begin());
    pairs_.reserve(entries + global.blocks.size());
    pairs_.resize(entries);
    layout_.SetPairs(entries, entries);
  }
  // Entries (one pair each) and locals in VarId order: deterministic layout.
  for (VarId v = 0; v < problem_.num_variables(); ++v) {
    const Variable& var = problem_.variable(v);
    if (var.IsEntry()) {
      const int p = static_cast<int>(next_pair[static_cast<std::size_t>(var.demand)]++);
      Pair pair;
      pair.block[0] = var.resource;
      pair.block[1] = var.demand;
      pair.slot[0] = static_cast<int>(blocks_[0][var.resource].vars.size());
      pair.slot[1] = static_cast<int>(blocks_[1][var.demand].vars.size());
      pairs_[static_cast<std::size_t>(p)] = pair;
      AddBlockVar(&blocks_[0][var.resource], v, p);
      AddBlockVar(&blocks_[1][var.demand], v, p);
    } else {
      Block& block = blocks_[SideIndex(var.owner.side)][var.owner.index];
      AddBlockVar(&block, v, -1);
    }
  }
  const GlobalTerm& global = problem_.global_term();
  if (global.kind != GlobalKind::kNone) {
    global_side_ = SideIndex(global.side);
    for (std::size_t k = 0; k < global.blocks.size(); ++k) {
      Block& block = blocks_[global_side_][global.blocks[k]];
      const int p = static_cast<int>(pairs_.size());
      Pair pair;
      pair.block[global_side_] = global.blocks[k];
      pair.slot[global_side_] = static_cast<int>(block.vars.size());
      pair.block[1 - global_side_] = -1;  // alpha
      pairs_.push_back(pair);
      global_pairs_.push_back(p);
      AddBlockVar(&block, -1, p);
      block.global_expr = static_cast<int>(k);
    }
  }
  layout_.SetPairs(pairs_.size(), layout_.entry_pairs());
  for (ConstraintId c = 0; c < problem_.num_constraints(); ++c) {
    const BlockId id = problem_.constraint(c).block;
    blocks_[SideIndex(id.side)][id.index].constraints.push_back(c);
  }
  for (int k = 0; k < static_cast<int>(problem_.log_terms().size()); ++k) {
    const BlockId id = problem_.log_terms()[k].block;
    blocks_[SideIndex(id.side)][id.index].log_terms.push_back(k);
  }
}

// Each block's work estimate, from its slots, images and rows as Decompose lays them out, and
// the order the blocks of a side are scheduled in: known before the blocks' structure, so
// that the executor can place them first.
void AdmmEngine::EstimateWork() {
  const GlobalTerm& global = problem_.global_term();
  // (A Variable is assembled per call: looked up only where some variable is integral.)
  const bool any_integral = problem_.HasIntegers();
  for (int s = 0; s < 2; ++s) {
    for (Block& block : blocks_[s]) {
      const std::size_t n = block.vars.size();
      std::size_t images = 0;
      bool integral = false;
      for (const BlockVar& bv : block.vars) {
        if (bv.var < 0) continue;
        if (s == 1 && problem_.num_images() > 0 && problem_.image(bv.var).active()) ++images;
        integral = integral || (any_integral && problem_.variable(bv.var).domain.IsIntegral());
      }
      std::size_t rows = block.constraints.size();
      double nnz = static_cast<double>(n) + 2.0 * static_cast<double>(images);
      for (ConstraintId c : block.constraints)
        nnz += static_cast<double>(problem_.constraint(c).terms.size());
      if (block.global_expr >= 0) {
        ++rows;  // the global term's row: its terms and t_b
        nnz += static_cast<double>(global.exprs[block.global_expr].terms.size() + 1);
      }
      block.work = nnz * (rows + images > 1 ? 10.0 : 1.0) * (integral ? 10.0 : 1.0);
    }
    // Heavy blocks (over 1/64 of the side's work) start first, largest first, so that none is
    // left to run alone at the end of a half step; the rest follow in index order, which is
    // the order their data was allocated in: walking it streams memory. Sorting thousands of
    // small blocks by size instead scatters every half step over the heap (Kdl max flow,
    // 28,245 pair blocks: the demand half step took 1.6x as long).
    double total_work = 0;
    for (const Block& block : blocks_[s]) total_work += block.work;
    const auto heavy = [&](int b) { return blocks_[s][b].work * 64 > total_work; };
    order_[s].resize(blocks_[s].size());
    std::iota(order_[s].begin(), order_[s].end(), 0);
    std::stable_partition(order_[s].begin(), order_[s].end(), heavy);
    const auto light = std::find_if_not(order_[s].begin(), order_[s].end(), heavy);
    std::stable_sort(order_[s].begin(), light, [&](int a, int b) {
      return blocks_[s][a].work > blocks_[s][b].work;
    });
  }
}

// Each held block's subproblem structure: its variables' slots, rows, images, log terms.
void AdmmEngine::Decompose() {
  const GlobalTerm& global = problem_.global_term();
  // Block structure: map problem variables to slots, allocate rows and logs.
  for (int s = 0; s < 2; ++s) {
    for (Block& block : blocks_[s]) {
      if (!Held(s, block.id.index)) continue;
      const int n = static_cast<int>(block.vars.size());
      BlockProblem& bp = block.problem;
      bp.lower.assign(n, 0);
      bp.upper.assign(n, 0);
      bp.linear.assign(n, 0);
      bp.quadratic.assign(n, 0);
      bp.prox_weight.assign(n, 0);
      // prox_target and a demand block's v are sized in CreateSolvers, block by block, and
      // only where its solver needs them: allocated here for every block they made the
      // set-up's peak 24 bytes an entry above what the iterations hold.
      std::unordered_map<VarId, int> slot;
      for (int i = 0; i < n; ++i) {
        if (block.vars[i].var >= 0) slot[block.vars[i].var] = i;
      }
      // Integrality flags only where some slot is integral (bp.integral empty: none).
      for (int i = 0; i < n; ++i) {
        if (block.vars[i].var >= 0 && problem_.variable(block.vars[i].var).domain.IsIntegral()) {
          if (!block.has_integers) {
            block.GetExtra().integral_flags.assign(n, 0);
            bp.integral.assign(n, 0);
          }
          block.has_integers = true;
          block.extra->integral_flags[i] = 1;
        }
      }
      auto make_row = [&](const std::vector<Term>& terms) {
        BlockRow row;
        for (const Term& t : terms) {
          row.index.push_back(slot.at(t.var));
          row.coef.push_back(t.coef);
        }
        return row;
      };
      for (ConstraintId c : block.constraints)
        bp.rows.push_back(make_row(problem_.constraint(c).terms));
      // An entry declared the image of a local: on the demand side, a slot its local defines.
      // (Sized first: each block's arrays then lie next to its other data, in block order,
      // which the demand half step walks.)
      if (s == 1 && problem_.num_images() > 0) {
        std::size_t count = 0;
        for (const BlockVar& bv : block.vars)
          count += bv.var >= 0 && problem_.image(bv.var).active() ? 1 : 0;
        bp.images.slot.reserve(count);
        bp.images.base.reserve(count);
      }
      for (int i = 0; s == 1 && problem_.num_images() > 0 && i < n; ++i) {
        const EntryImage im =
            block.vars[i].var >= 0 ? problem_.image(block.vars[i].var) : EntryImage{};
        if (im.active()) bp.images.push_back(i, slot.at(im.local), im.offset, im.scale);
      }
      bp.images.offset.Compact();
      bp.images.scale.Compact();
      if (block.global_expr >= 0) {
        BlockRow row = make_row(global.exprs[block.global_expr].terms);
        row.index.push_back(n - 1);  // t_b is the block's last variable
        row.coef.push_back(-1.0);
        row.sense = global.kind == GlobalKind::kMaxMin ? Sense::kGreaterEqual : Sense::kLessEqual;
        block.global_row = static_cast<int>(bp.rows.size());
        bp.rows.push_back(std::move(row));
      }
      for (int k : block.log_terms) {
        const LogTerm& l = problem_.log_terms()[k];
        BlockLog log;
        for (const Term& t : l.expr.terms) {
          log.index.push_back(slot.at(t.var));
          log.coef.push_back(t.coef);
        }
        bp.logs.push_back(std::move(log));
      }
    }
  }
}

// Every pair's penalty factor: 1, or with equilibration the column scaling below; the
// per-copy and per-block factors start at 1.
void AdmmEngine::InitPenaltyWeights() {
  weight_offset_ = 0;
  pair_weight_.assign(pairs_.size(), 1.0);
  if (options_.equilibrate) {
    // Column equilibration of the entries: a pair's penalty follows the square of its largest
    // coefficient in the constraint rows of its two blocks (the global term's rows excluded:
    // the objective's scale is the global pairs' own factor), normalised by the geometric
    // mean over the pairs, so rho keeps its meaning. Scaling an entry by 1 / c and its penalty
    // by c^2 is the same iteration: this is Ruiz-style column scaling of the coupling x = z.
    std::vector<double> largest(pairs_.size(), 0.0);
    for (int s = 0; s < 2; ++s) {
      for (const Block& block : blocks_[s]) {
        for (std::size_t r = 0; r < block.problem.rows.size(); ++r) {
          if (static_cast<int>(r) == block.global_row) continue;
          const BlockRow& row = block.problem.rows[r];
          for (std::size_t j = 0; j < row.index.size(); ++j) {
            const BlockVar& bv = block.vars[row.index[j]];
            if (bv.pair < 0 || bv.var < 0) continue;
            largest[bv.pair] = std::max(largest[bv.pair], std::abs(row.coef[j]));
          }
        }
        // An image is the row entry - scale * local = offset: the entry's coefficient is 1.
        for (int i : block.problem.images.slot) {
          const BlockVar& bv = block.vars[static_cast<std::size_t>(i)];
          if (bv.pair >= 0) largest[bv.pair] = std::max(largest[bv.pair], 1.0);
        }
      }
    }
    double log_sum = 0;
    int counted = 0;
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      if (largest[p] > 0) {
        log_sum += 2 * std::log(largest[p]);
        ++counted;
      }
    }
    const double mean = counted > 0 ? std::exp(log_sum / counted) : 1.0;
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      if (largest[p] > 0) pair_weight_[p] = largest[p] * largest[p] / mean;
    }
  }
  entry_weight_range_[0] = kInfinity;
  entry_weight_range_[1] = 0;
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    entry_weight_range_[0] = std::min(entry_weight_range_[0], pair_weight_[p]);
    entry_weight_range_[1] = std::max(entry_weight_range_[1], pair_weight_[p]);
  }
  if (pairs_.empty()) entry_weight_range_[0] = entry_weight_range_[1] = 1;
  // Kept only where some factor differs from 1 (8 bytes a pair otherwise).
  base_weight_.clear();
  if (entry_weight_range_[0] != 1 || entry_weight_range_[1] != 1) base_weight_ = pair_weight_;
  base_weight_.shrink_to_fit();
  balanced_side_ = options_.block_rho_balancing == BlockBalancing::kResource ? 0
                   : options_.block_rho_balancing == BlockBalancing::kDemand ? 1
                                                                             : -1;
  copy_factor_.assign(global_pairs_.size(), 1.0);
  block_factor_.assign(balanced_side_ >= 0 ? blocks_[balanced_side_].size() : 0, 1.0);
  // Every entry's factor is 1 and stays so: keep the global pairs' alone.
  if (base_weight_.empty() && balanced_side_ < 0) {
    const std::size_t entries = layout_.entry_pairs();
    pair_weight_.erase(pair_weight_.begin(),
                       pair_weight_.begin() + static_cast<std::ptrdiff_t>(entries));
    pair_weight_.shrink_to_fit();
    weight_offset_ = entries;
  }
}

// Copies the current parameter values (bounds, costs, rhs, coefficients, weights) from the
// problem into every block. Structure is unchanged, so solvers only reload numbers.
void AdmmEngine::RefreshParameters() {
  const double sign = problem_.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  const GlobalTerm& global = problem_.global_term();
  // Blocks are independent: refreshed in parallel, in the caller's task arena (Kdl TE, 30,035
  // blocks and 1.5M entries: 0.11-0.18 s per round on one thread).
  const auto refresh = [&](Block& block) {
    if (!Held(SideIndex(block.id.side), block.id.index)) return;
    BlockProblem& bp = block.problem;
    // Only a block whose data changed gets a new revision: its solver then reloads it (a
    // round that changes the demands leaves every resource block's factorisation valid).
    bool changed = false;
    const auto set = [&changed](double* slot, double value) {
      if (!(*slot == value)) {
        *slot = value;
        changed = true;
      }
    };
    const auto set_slot = [&changed](SlotValues* slots, std::size_t i, double value) {
      if (!((*slots)[i] == value)) {
        slots->set(i, value);
        changed = true;
      }
    };
    for (std::size_t i = 0; i < block.vars.size(); ++i) {
      const VarId v = block.vars[i].var;
      if (v < 0) {  // t_b: free copy of the global scalar
        set_slot(&bp.lower, i, -kInfinity);
        set_slot(&bp.upper, i, kInfinity);
        continue;
      }
      const Variable& var = problem_.variable(v);
      const double share = var.IsEntry() ? 0.5 : 1.0;
      set_slot(&bp.lower, i, var.domain.lower);
      set_slot(&bp.upper, i, var.domain.upper);
      if (!bp.integral.empty()) bp.integral[i] = 0;  // relaxed; the integer solver has flags
      set_slot(&bp.linear, i, SlotCost(v, SideIndex(block.id.side)));
      set_slot(&bp.quadratic, i, sign * share * var.quadratic_cost);
    }
    // One value again where every slot holds the same (transport, link blocks).
    bp.lower.Compact();
    bp.upper.Compact();
    bp.linear.Compact();
    bp.quadratic.Compact();
    for (std::size_t k = 0; k < block.constraints.size(); ++k) {
      const Constraint& c = problem_.constraint(block.constraints[k]);
      BlockRow& row = bp.rows[k];
      if (row.sense != c.sense) {
        row.sense = c.sense;
        changed = true;
      }
      set(&row.rhs, c.rhs);
      for (std::size_t j = 0; j < c.terms.size(); ++j) set_slot(&row.coef, j, c.terms[j].coef);
      row.coef.Compact();
    }
    if (block.global_row >= 0) {
      const LinearExpr& e = global.exprs[block.global_expr];
      BlockRow& row = bp.rows[block.global_row];
      for (std::size_t j = 0; j < e.terms.size(); ++j) set_slot(&row.coef, j, e.terms[j].coef);
      row.coef.Compact();
      set(&row.rhs, -e.constant);
    }
    for (std::size_t k = 0; k < block.log_terms.size(); ++k) {
      const LogTerm& l = problem_.log_terms()[block.log_terms[k]];
      BlockLog& log = bp.logs[k];
      for (std::size_t j = 0; j < l.expr.terms.size(); ++j) {
        set(&log.coef[j], l.expr.terms[j].coef);
      }
      set(&log.constant, l.expr.constant);
      set(&log.weight, l.weight);
    }
    if (changed) ++bp.revision;
  };
  // After a parameter-only change, only the blocks it touched (a traffic matrix sets 28,245
  // demand right-hand sides on Kdl; its 1,790 links and 1.5M entries stay as they were).
  Problem::Changes changes;
  if (seen_revision_ == kNeverRefreshed || !problem_.ChangesSince(seen_revision_, &changes)) {
    PrepareLinearCosts();
    for (int s = 0; s < 2; ++s) ForEachBlockLocal(s, refresh);
  } else {
    std::vector<std::uint8_t> touched[2] = {std::vector<std::uint8_t>(blocks_[0].size(), 0),
                                            std::vector<std::uint8_t>(blocks_[1].size(), 0)};
    const auto touch = [&](BlockId id) { touched[SideIndex(id.side)][id.index] = 1; };
    for (VarId v : changes.variables) {
      const Variable& var = problem_.variable(v);
      if (var.IsEntry()) {
        touch(BlockId::Resource(var.resource));
        touch(BlockId::Demand(var.demand));
      } else {
        touch(var.owner);
      }
    }
    for (ConstraintId c : changes.constraints) touch(problem_.constraint(c).block);
    for (int k : changes.log_terms) touch(problem_.log_terms()[k].block);
    if (changes.global) {
      for (int b : global.blocks) touch(BlockId{global.side, b});
    }
    for (int s = 0; s < 2; ++s) {
      std::vector<int> list;
      for (std::size_t b = 0; b < touched[s].size(); ++b) {
        if (touched[s][b]) list.push_back(static_cast<int>(b));
      }
      ForEachBlockLocal(s, refresh, &list);
    }
  }
  seen_revision_ = problem_.revision();
  PlaceLinearCosts();
}

double AdmmEngine::SlotCost(VarId v, int side) const {
  const double sign = problem_.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  const Variable& var = problem_.variable(v);
  if (!var.IsEntry()) return sign * var.linear_cost;
  switch (options_.entry_cost_side) {
    case EntryCostSide::kSplit:
      break;
    case EntryCostSide::kResource:
      return side == 0 ? sign * var.linear_cost : 0.0;
    case EntryCostSide::kDemand:
      return side == 1 ? sign * var.linear_cost : 0.0;
  }
  return sign * 0.5 * var.linear_cost;
}

void AdmmEngine::PrepareLinearCosts() {
  for (int s = 0; s < 2; ++s) {
    // Whether each held block's costs will differ across its slots (a global copy's slot
    // keeps the cost it has).
    std::vector<Block>& blocks = blocks_[s];
    std::vector<std::uint8_t> differ(blocks.size(), 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size(), 64),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        for (std::size_t b = range.begin(); b != range.end(); ++b) {
                          const Block& block = blocks[b];
                          const SlotValues& c = block.problem.linear;
                          if (!Held(s, static_cast<int>(b)) || c.size() != block.vars.size())
                            continue;
                          const auto cost = [&](std::size_t i) {
                            const VarId v = block.vars[i].var;
                            return v < 0 ? c[i] : SlotCost(v, s);
                          };
                          for (std::size_t i = 1; i < block.vars.size() && !differ[b]; ++i)
                            differ[b] = !(cost(i) == cost(0));
                        }
                      });
    std::size_t need = 0;
    bool in_place = true;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      if (!differ[b]) continue;
      const SlotValues& c = blocks[b].problem.linear;
      in_place = in_place && c.placed() && c.data() == side_linear_[s].data() + need;
      need += c.size();
    }
    if (in_place && need == side_linear_[s].size()) continue;
    FlatArray placed;
    placed.Assign(need);
    std::size_t at = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      SlotValues& c = blocks[b].problem.linear;
      if (!differ[b]) {
        c.Unplace();  // (its costs turn uniform in the refresh)
        continue;
      }
      c.Place(placed.data() + at);
      at += c.size();
    }
    side_linear_[s].Swap(placed);
  }
}

void AdmmEngine::PlaceLinearCosts() {
  bool moved = false;
  for (int s = 0; s < 2; ++s) {
    std::size_t need = 0;
    bool in_place = true;
    for (const Block& block : blocks_[s]) {
      const SlotValues& c = block.problem.linear;
      if (c.uniform()) continue;
      in_place = in_place && c.placed() && c.data() == side_linear_[s].data() + need;
      need += c.size();
    }
    if (in_place && (need > 0 || side_linear_[s].size() == 0)) continue;
    // (A block whose costs became uniform, or turned per-slot, since the last placement:
    // placed anew; the old array holds the values until every block has moved.)
    FlatArray placed;
    placed.Assign(need);
    std::size_t at = 0;
    for (Block& block : blocks_[s]) {
      SlotValues& c = block.problem.linear;
      if (c.uniform()) continue;
      c.Place(placed.data() + at);
      at += c.size();
    }
    side_linear_[s].Swap(placed);
    moved = true;
  }
  if (moved) ReleaseFreeHeap();  // (the blocks' own arrays, just freed)
}

bool AdmmEngine::CreateSolvers(std::string* error, int* failed_side, int* failed_block) {
  BlockSolverOptions solver_options;
  solver_options.node_limit = options_.block_node_limit;
  solver_options.deadline_ns = &deadline_ns_;
  for (int s = 0; s < 2; ++s) {
    for (Block& block : blocks_[s]) {
      if (block.vars.empty()) continue;
      // Structure with every copy penalized (prox weight > 0) so the factory sees the
      // curvature the iterations will have.
      for (std::size_t i = 0; i < block.vars.size(); ++i)
        block.problem.prox_weight[i] = Weight(block.vars[i].pair);
      block.problem.prox_weight.Compact();
      const std::size_t n = block.vars.size();
      block.problem.prox_target.assign(n, 0.0);
      std::string why;
      block.solver = CreateBlockSolver(block.problem, solver_options, &why);
      if (!block.solver) {
        *error = (s == 0 ? "resource " : "demand ") + std::to_string(block.id.index) + ": " + why;
        *failed_side = s;
        *failed_block = block.id.index;
        return false;
      }
      // Another process solves this block: its solver decides only how the block keeps its
      // values (below), the same on every process.
      const bool own = executor_->Owns(s, block.id.index);
      const bool in_place = block.solver->solves_in_place();
      if (!own) block.solver.reset();
      // A solver that solves in place never reads the problem's targets (8 bytes a slot);
      // a block that builds a second solver from its problem (integral, log) keeps them.
      if (in_place && !OwnProjector(block)) {
        std::vector<double>().swap(block.problem.prox_target);
        if (s == 1 && std::all_of(block.vars.begin(), block.vars.end(), [](const BlockVar& bv) {
              return bv.pair >= 0;
            })) {
          block.values_in_pairs = true;
        }
      }
      // A resource block's values are in side0_x_; a demand block's in its pairs' z or here.
      if (s == 1 && !block.values_in_pairs) block.v.assign(n, 0.0);
    }
  }
  return true;
}

// A block solver loads its block's data on its first solve, and a cold first iteration paid
// for every block at once (0.5 s on Kdl's 30,000 blocks, five later iterations' worth). One
// solve per block here, against zero targets into scratch, moves that one-time load into the
// setup. The iterates are untouched, and a failure is left for the iterations to report.
void AdmmEngine::SetExecutor(std::unique_ptr<BlockExecutor> executor) {
  executor_ = std::move(executor);
  layout_.SetExecutor(executor_.get());
  for (int s = 0; s < 2; ++s) {
    std::vector<double> work(blocks_[s].size());
    for (std::size_t b = 0; b < work.size(); ++b) work[b] = blocks_[s][b].work;
    executor_->Partition(s, work);
    // The half steps and the repair hand the executor only this process's blocks.
    std::erase_if(order_[s], [&](int b) { return !executor_->Owns(s, b); });
  }
}

void AdmmEngine::PrimeSolvers() {
  tbb::task_arena arena(ThreadCount());
  arena.execute([&] {
    for (int s = 0; s < 2; ++s) {
      ForEachBlock(s, [&](int b) {
        Block& block = blocks_[s][b];
        if (!block.solver) return;
        const std::size_t n = block.vars.size();
        std::vector<double> zero(n, 0.0), scratch(n);
        for (std::size_t i = 0; i < n; ++i) scratch[i] = SlotValue(s, block, i);
        (void)SolveBlock(block.solver.get(), &block.problem, zero.data(), scratch.data());
      });
    }
  });
}

void AdmmEngine::ColdStart() {
  InvalidateTargets();
  std::fill(ps_.begin(), ps_.end(), PairState{});
  ResetPenaltyFactors();
  alpha_ = 0;
  for (int s = 0; s < 2; ++s)
    for (Block& block : blocks_[s]) std::fill(block.v.begin(), block.v.end(), 0.0);
  std::fill(side0_x_.data(), side0_x_.data() + side0_x_.size(), 0.0);
  rho_ = options_.rho;
  RefreshProxWeights();
  if (anderson_) anderson_->Reset();
  cold_ = false;
}

// Starts the next solve from a stored allocation (e.g. the last committed round after a
// restart): both copies of every entry take its value, locals keep theirs, the global copies
// take their expression values, duals start at zero and rho at its initial value.
void AdmmEngine::WarmStart(const std::vector<double>& values) {
  if (!setup_error_.empty() || static_cast<int>(values.size()) != problem_.num_variables()) return;
  // Every slot and every pair is written below: no cold-start fill first (on Kdl that pass
  // over 1.5M pairs and 30,000 blocks took 0.03-0.14 s).
  InvalidateTargets();
  alpha_ = 0;
  ResetPenaltyFactors();
  rho_ = options_.rho;
  RefreshProxWeights();
  if (anderson_) anderson_->Reset();
  cold_ = false;
  const GlobalTerm& global = problem_.global_term();
  std::vector<double> expr_value(global.exprs.size(), 0.0);
  for (std::size_t k = 0; k < global.exprs.size(); ++k)
    expr_value[k] = global.exprs[k].Value(values);
  if (!expr_value.empty()) {
    alpha_ = global.kind == GlobalKind::kMaxMin
                 ? *std::min_element(expr_value.begin(), expr_value.end())
                 : *std::max_element(expr_value.begin(), expr_value.end());
  }
  // Both copies of an entry take its value, so the demand side sets them together: pairs are
  // numbered in the demand blocks' order, and the resource side, whose pairs lie scattered,
  // touches only its own slots (and its global copies). Blocks write disjoint slots and pairs:
  // in parallel. (Kdl TE, 1.5M entries: 0.1-0.34 s on one thread with the scattered writes.)
  tbb::task_arena(ThreadCount()).execute([&] {
    for (int s = 0; s < 2; ++s) {
      ForEachBlockLocal(s, [&](Block& block) {
        for (std::size_t i = 0; i < block.vars.size(); ++i) {
          const VarId var = block.vars[i].var;
          const double value = var >= 0 ? values[var] : expr_value[block.global_expr];
          if (!block.values_in_pairs) Values(s, block)[i] = value;  // else the pair's z, below
          const int p = block.vars[i].pair;
          if (p < 0) continue;
          if (var < 0) {
            Ps(p) = PairState{};          // a global copy; the other one is alpha (below)
            if (s == 1) Ps(p).z = value;  // (a resource-side copy is its block's value)
          } else if (s == 1) {
            Ps(p) = PairState{value, 0.0};
          }
        }
      });
    }
  });
  // Every process holds every global pair (the alpha step reads them all), but the loop above
  // wrote only those of the blocks it holds: set each from its expression's value here, the
  // same on every process. A resource-side alpha is x of its pairs through X(); a demand-side
  // one is their z.
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    PairState& q = Ps(global_pairs_[k]);
    q = PairState{};
    q.z = global_side_ == 1 ? expr_value[k] : alpha_;
  }
}

}  // namespace dede::internal
