// The DeDe ADMM engine: its state and its steps, one file per step.
//
// Splitting (two-block scaled ADMM, Boyd et al. 2011, section 3.1.3): every allocation entry
// has a resource-side copy x and a demand-side copy z. Resource constraints are hard
// constraints of the resource blocks, demand constraints hard constraints of the demand blocks,
// and x = z couples them. A max-min / min-max term becomes, per participating block, a local
// copy t_b of the global scalar with the row e_b - t_b >= 0 (<= 0), and a consensus pair
// (alpha, t_b) whose alpha side belongs to the *other* ADMM block, so alpha has a closed-form
// update inside that half step and the method stays a two-block ADMM.
//
//   x^{k+1}  = argmin f(x) + rho/2 ||x - z^k + u^k||^2          (resource blocks, in parallel)
//   xh       = a x^{k+1} + (1 - a) z^k                           (over-relaxation)
//   z^{k+1}  = argmin g(z) + rho/2 ||xh - z + u^k||^2            (demand blocks, in parallel)
//   u^{k+1}  = u^k + xh - z^{k+1}
//
// An entry's quadratic cost is split evenly between its two copies; its linear cost goes where
// AdmmOptions::entry_cost_side says (the resource copy by default, or half on each, or the
// demand copy: SlotCost). At x = z the sum is the original cost either way. Log terms and the
// global expressions stay in their block.
//
// Where each step lives:
//   decouple.cpp    Build: Decouple (the two copies, the pairs), Decompose (the blocks),
//                   their solvers, InitPenaltyWeights; parameters, cold and warm starts
//   half_steps.cpp  the x half step, over-relaxation, the z half step with the dual update
//                   (HalfStepPass), the global scalar alpha, Anderson acceleration
//   share.cpp       more than one process: the route of the cut, the exchanges after each
//                   half step, which blocks and pairs a process keeps (with
//                   process_layout.h: ProcessLayout, where the held pairs are)
//   bound.cpp       the certified Lagrangian bound of the checks
//   residuals.cpp   primal and dual residuals, the allocation and its objective and violation
//   penalty.cpp     rho and the penalty factors (residual balancing: AdaptPenalties)
//   repair.cpp      feasibility repair by alternating projections
//   fill.cpp        the second stage of a work-conserving max-min (FillStage)
//   admm_solver.cpp Solve step by step: Prepare, Iterate (Iteration, CheckResiduals,
//                   AdaptPenalties), FillStage, Finish; and the public AdmmSolver
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "admm/anderson.h"
#include "admm/block_executor.h"
#include "admm/flat_array.h"
#include "admm/process_layout.h"
#include "core/memory_use.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "subproblem/block_problem.h"

namespace dede::internal {
namespace engine {
using Clock = std::chrono::steady_clock;

inline bool Interrupted(Termination t) {
  return t == Termination::kTimeLimit || t == Termination::kCancelled;
}

inline double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

inline int SideIndex(Side s) { return s == Side::kResource ? 0 : 1; }

// Blocks at least this heavy (Block::work) read the clock before each solve; lighter ones
// before every eighth.
constexpr double kClockEveryBlockWork = 10000;

// A variable of a block as the block sees it.
struct BlockVar {
  VarId var = -1;  // problem variable, or -1 for the global copy t_b
  int pair = -1;   // consensus pair, or -1 for a local variable
};

struct Block {
  BlockId id;
  std::vector<BlockVar> vars;
  std::vector<ConstraintId> constraints;  // row k of `problem` is constraints[k]
  int global_row = -1;                    // row index of e_b - t_b, or -1
  int global_expr = -1;                   // index into GlobalTerm::exprs
  std::vector<int> log_terms;             // problem log term ids, in BlockProblem::logs order
  // Its prox_target is released (empty) when `solver` solves in place: the targets then come
  // from the engine's arrays (the resource side's flat ones, a demand block's thread buffer).
  BlockProblem problem;
  // The current solution of a demand block; a resource block's lives in the engine's flat
  // array (AdmmEngine::Values).
  std::vector<double> v;
  std::unique_ptr<BlockSolver> solver;  // continuous (relaxed) solver
  // What only blocks with integral variables or log terms need, apart (ASN2k has 3 M blocks).
  struct Extra {
    std::unique_ptr<BlockSolver> integer_solver;  // with integrality, built on demand
    // Feasibility repair of a block with log terms or integral variables, built on demand
    // (the others are projected by `solver`: see AdmmEngine::Repair), and its problem.
    std::unique_ptr<BlockSolver> projector;
    std::unique_ptr<BlockProblem> projection;
    std::vector<std::uint8_t> integral_flags;  // declared integrality, by slot
  };
  std::unique_ptr<Extra> extra;
  Extra& GetExtra() {
    if (!extra) extra = std::make_unique<Extra>();
    return *extra;
  }
  bool has_integers = false;
  // A demand block whose every slot is a pair's and whose solver solves in place keeps no v:
  // slot i's value is its pair's z (ps_[vars[i].pair].z), which the demand half step writes.
  bool values_in_pairs = false;
  // A demand block whose own variables (locals) come first, then consecutive held entries'
  // pairs (slot i's is the first one's + i - run_from) each with a resource-side slot, then at
  // most kMaxRunTail other slots (a max-min copy): the first slot of that run (-1: not such a
  // block) and how many slots follow it. The demand half step then reads the run's pairs'
  // state and positions as one range (MarkPairRuns).
  std::uint8_t run_tail = 0;
  std::int32_t run_from = -1;
  double work = 0;  // cost estimate for scheduling
};

// A consensus pair's demand-side state: its copy z and the scaled dual u.
struct PairState {
  double z = 0, u = 0;
};

// A consensus pair: x (resource side) and z (demand side) of one entry or one global copy.
struct Pair {
  int block[2] = {-1, -1};  // block index on each side, -1: the global alpha on that side
  int slot[2] = {-1, -1};   // position in that block's vars
};

}  // namespace engine

class AdmmEngine {
  using Block = engine::Block;
  using BlockVar = engine::BlockVar;
  using Pair = engine::Pair;

 public:
  // With `executor` (null: the local one), the blocks run where it says (block_executor.h),
  // and this process builds the solvers of its own blocks only.
  AdmmEngine(const Problem& problem,
             const AdmmOptions& options,
             std::unique_ptr<BlockExecutor> executor = nullptr)
      : problem_(problem), options_(options) {
    const auto start = engine::Clock::now();
    const double heap_before = HeapInUseBytes();
    Build(std::move(executor));
    setup_seconds_ = engine::Seconds(start);
    setup_heap_bytes_ = HeapInUseBytes() - heap_before;
  }

  const AdmmOptions& options() const { return options_; }
  void SetOptions(const AdmmOptions& options) { options_ = options; }
  void SetObserver(AdmmSolver::Observer observer) { observer_ = std::move(observer); }
  void SetRepairer(AdmmSolver::Repairer repairer) { repairer_ = std::move(repairer); }
  const std::string& setup_error() const { return setup_error_; }
  void Reset() { cold_ = true; }
  void WarmStart(const std::vector<double>& values);

  void Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary);

  const BlockExecutor& executor() const { return *executor_; }

 private:
  // A copy of the iteration's state (the second stage of a work-conserving max-min hands the
  // first stage's on to the next solve).
  using PairState = engine::PairState;
  struct Iterates {
    std::vector<PairState> ps;
    std::vector<double> x;               // the resource side's flat array
    std::vector<std::vector<double>> v;  // each demand block's solution
    double alpha = 0, rho = 0, global_weight = 1;
    std::vector<double> pair_weight, copy_factor, block_factor;
  };
  // The state of one Solve, which its steps share (see admm_solver.cpp for the steps).
  static constexpr int kMaxTrackedVariables = 8'000'000;
  struct SolveRun {
    engine::Clock::time_point start;
    SolveSummary* summary = nullptr;
    double budget = 0, iterate_limit = 0;  // seconds: the whole solve, the iterations
    Termination termination = Termination::kMaxIterations;
    std::string message;
    double resource_seconds = 0, demand_seconds = 0;
    int iterations = 0, rho_updates = 0;
    // Penalty updates happen at residual checks: at the first check at or after every
    // rho_update_every iterations (the multiples of it when it is a multiple of the check
    // period).
    int next_rho_update = 0;
    bool has_integers = false;
    bool failed = false;
    bool integer_phase = false;
    int integer_start = -1;
    int relaxed_budget = 0, total_budget = 0;
    bool inaccurate_ok = false;  // residuals within 10x their tolerances at the last check
    IterationSummary last;
    // The second stage of a work-conserving max-min (FillStage).
    std::string fill_message;
    std::vector<double> first_stage_values;
    Iterates first_stage_state;
    double fill_floor = -kInfinity;
    // The best of the checks' Lagrangian bounds (the engine's minimising sense), and the
    // iteration before which gap_tolerance tries no repair again (after one that fell short).
    double best_bound = -kInfinity;
    int next_gap_trial = 0;
    // Each check's bound without alpha's term, and alpha's coefficient (BoundWithIncumbent).
    std::vector<std::pair<double, double>> checks;
    // The best repaired iterate (TrackBest): a problem with a global term oscillates on its way
    // to the optimum, so a round stopped by its budget may end on a worse point than one it
    // passed. Empty: none kept.
    bool track_best = false;
    int next_best_trial = 0;
    std::vector<double> best_values;
    double best_objective = 0;
    int best_iteration = 0;
  };
  // The best bound of the run's checks with alpha's box narrowed by an incumbent (a feasible
  // allocation's objective, user's sense; NaN: none): see CheckBound.
  double BoundWithIncumbent(const SolveRun& run, double incumbent) const;
  // A bound in the engine's minimising sense in the user's, and back.
  double UserBound(double internal) const;
  double InternalBound(double user) const;
  // The certified gap of a feasible allocation's objective (user's sense) to a bound (user's
  // sense): >= 0, NaN when either is not finite.
  double CertifiedGap(double objective, double bound) const;
  // gap_tolerance's trial at a check: the iterate repaired as the round will repair it, and
  // its certified gap (NaN: not feasible).
  double TrialGap(const SolveRun& run);
  // The iterate repaired by the engine's repair and (host) the host's: false if it is not
  // feasible then.
  bool RepairedTrial(std::vector<double>* values, bool host);
  // a is a better objective than b in the problem's sense.
  bool Better(double a, double b) const;
  // The iteration before which a trial (gap_tolerance's, the best iterate's) that was made at
  // check k waits: a quarter of the iterations so far, at least one check period.
  int NextTrial(int k) const { return k + std::max(options_.check_termination_every, k / 4); }
  // At a check: a trial of the iterate, kept if it is the best so far (run->track_best; the
  // checks at or after next_best_trial, spaced by a quarter of the iterations so far).
  void TrackBest(SolveRun* run, int k);
  // In Finish: the best trial instead of the final allocation (repaired) if that is worse or
  // not feasible. Returns true if it replaced *values.
  bool ReturnBest(SolveRun* run, std::vector<double>* values);
  // The steps of a solve.
  void SetDeadline(const SolveRun& run, double seconds);
  bool Prepare(SolveRun* run, tbb::task_arena& arena);
  void Iterate(SolveRun* run, int first, int last);
  bool Iteration(SolveRun* run, int k, bool measure, bool rho_update_due);
  enum class Check { kGoOn, kNextIteration, kStop };
  Check CheckResiduals(SolveRun* run, int k, IterationSummary* it);
  void AdaptPenalties(SolveRun* run, int k, const IterationSummary& it, bool rho_update_due);
  void FillStage(SolveRun* run, tbb::task_arena& arena);
  void Summarize(const SolveRun& run);
  // With more than one process: each one's half-step, exchange and traffic figures of this
  // solve, gathered, as a sentence for the summary's message (and per process on stderr
  // with verbose). Collective. Empty on one process.
  std::string DistributionReport(const SolveRun& run, const BlockExecutor::Traffic& before);
  void Finish(SolveRun* run, tbb::task_arena& arena, Allocation* allocation);

  void Build(std::unique_ptr<BlockExecutor> executor);
  // With more than one process: whether every process built the same problem (the digests of
  // the model, gathered; collective). Otherwise *error names the processes that differ from
  // process 0. Checked at set-up and before every solve, since each process builds the
  // problem and its rounds' parameters from the deployment on its own.
  bool SameProblemEverywhere(BlockExecutor& executor, std::string* error) const;
  // Runs the blocks through `executor` (in Build, once the blocks' work is known): it is
  // given each side's block work and runs only the blocks it owns.
  void SetExecutor(std::unique_ptr<BlockExecutor> executor);
  void Decouple();
  void EstimateWork();
  void Decompose();
  void InitPenaltyWeights();
  void AddBlockVar(Block* block, VarId var, int pair);
  void RefreshParameters();
  // Each side's per-slot costs (a block's linear term, where its slots differ) live in one
  // array in block order, side_linear_[side]: the demand half step then reads one stream of
  // costs across its blocks, as it reads the pair states. PrepareLinearCosts (before the
  // refresh writes them) gives that room to the blocks whose costs the problem makes differ,
  // so the refresh writes in place and no block holds an array of its own meanwhile;
  // PlaceLinearCosts (after) moves there whatever is not (a block whose costs changed shape).
  void PrepareLinearCosts();
  void PlaceLinearCosts();
  // A slot's linear cost as the block of `side` holds it (an entry's cost goes to the sides as
  // options_.entry_cost_side says).
  double SlotCost(VarId v, int side) const;
  // [rho_min, rho_max], widened to take in the initial rho: the range every rho update keeps
  // to (residual balancing and the integer phase's growth).
  double RhoFloor() const { return std::min(options_.rho_min, options_.rho); }
  double RhoCeiling() const { return std::max(options_.rho_max, options_.rho); }
  Problem::Violation MeasureViolation(const std::vector<double>& values) const;
  // False, with *error and the block, when a block's solver cannot be built.
  bool CreateSolvers(std::string* error, int* failed_side, int* failed_block);
  void PrimeSolvers();
  // Worker threads of a solve: num_threads, or every hardware thread when it is 0.
  int ThreadCount() const {
    return options_.num_threads > 0
               ? options_.num_threads
               : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  void ColdStart();
  void SetRho(double rho);
  // Returns false and fills *message on a block failure.
  bool HalfStep(
      int side, bool integer_phase, bool measure, std::string* message, Termination* termination);
  // One half step's pass over its side's blocks (half_steps.cpp).
  class HalfStepPass;
  // A block the half step did not start (a deadline or a stop came first).
  static constexpr BlockStatus kSkipped = static_cast<BlockStatus>(255);
  // After a half step's blocks ran (share.cpp; nothing to do on one process): every process
  // gets the blocks' statuses, and either the cut (ShareCut, an ordinary iteration: what its
  // own blocks read next) or the whole state (ShareAll: a check, Anderson).
  void ShareHalfStep(int side, bool measure, std::vector<BlockStatus>* status);
  // Every block's outputs from its owner (a resource block's x; a demand block's values, z
  // and u of its pairs, and on a check its norms), and the statuses unless status is null.
  void ShareAll(int side, bool measure, std::vector<BlockStatus>* status);
  // The statuses, the global copies' z and u, and along the route the x (side 0) or the
  // targets z - u (side 1) of the pairs whose other side lives on another process. Leaves
  // the other processes' blocks' state here stale (ProcessLayout::ReplicaStale).
  void ShareCut(int side, bool measure, std::vector<BlockStatus>* status);
  // With the other processes' state stale here: the resource side's targets from this
  // process's demand blocks, sent to their owners along the route (WriteResourceTargets).
  void WriteOwnTargets();
  // With the other processes' state stale here: GatherValues's assignment of every block
  // from its owner (each process wrote its own blocks' variables into *values).
  // With to_root, only process 0 gets the others' values (the checks' objective).
  void ShareValues(std::vector<double>* values, int entry_side, bool to_root = false);
  // The owners' values of the variables that the blocks of `side` (-1: both) give: its locals,
  // and the entries when side is entry_side; with `flags`, each block's flag (by block of
  // `side`) from its owner too. Every process holds the same bits at every other variable.
  // Merged bitwise (BlockExecutor::MergeBits): this process zeroes the variables it does not
  // give, so it needs no other process's blocks.
  void ShareVariables(int side,
                      int entry_side,
                      std::vector<double>* values,
                      std::vector<std::uint8_t>* flags,
                      bool to_root = false);
  // Which blocks that give each variable this process owns: layout_.var_home() (BuildRoute).
  bool ReplicaStale() const { return layout_.ReplicaStale(); }
  // With more than one process and options that never need the whole state (no Anderson, no
  // per-block penalty factors): the other processes' blocks keep only their id and work
  // (their slots, problem and values are released in Build: DropOthersBlocks), and the
  // others' state counts as stale from the start. layout_.partial() says so, and which pairs
  // this process holds where (process_layout.h).
  ProcessLayout layout_;
  // Whether Build keeps only this process's blocks: more than one process, neither Anderson
  // nor per-block penalty factors (which read every pair).
  bool DropsOthersBlocks() const;
  void DropOthersBlocks();
  // Whether this process holds block b of `side` (its own, or every block when not partial).
  bool Held(int side, int b) const { return layout_.Held(side, b); }
  // The whole state on every process again, after ShareCut (collective: every process calls
  // it at the same points, as the stale flags are the same everywhere). The steps that read
  // every block's values (the checks' objective, the fill stage, the allocation) gather them
  // instead (GatherValues), and the others read only this process's own blocks' state.
  void Consolidate();
  // The route of the cut (with more than one process, in Build).
  void BuildRoute();
  void UpdateGlobalAlpha(int side, bool measure);
  // The exchange between the sides. The resource half step solves its blocks against the
  // targets z - u (Targets), which the demand half step wrote (in pair order, one write per
  // entry: the resource side never visits the pairs in its own, scattered, order), and leaves
  // x in side0_x_, which the demand half step reads to form xh as it goes. Anything that
  // changes z or u outside the demand half step (a rho update, a penalty factor, a start, the
  // fill stage) calls InvalidateTargets, and the next resource half step rewrites them all.
  // This is the seam a distributed executor exchanges across: x one way, z - u the other.
  void InvalidateTargets() { targets_stale_ = true; }
  void WriteResourceTargets();
  // Where the resource side's targets live: side0_t_, or, where nothing reads x between a
  // demand half step and the next resource half step (TargetsCanShareX), side0_x_ itself:
  // the demand half step then writes each pair's target over the x it has just read (one
  // line an entry instead of two, in the step's scattered order), the resource half step
  // solves each block in place (targets in, x out) and side0_t_ is not allocated.
  double* Targets() { return targets_over_x_ ? side0_x_.data() : side0_t_.data(); }
  // Whether the targets may overwrite x: x is read only by the demand half step that follows
  // its resource half step. Not with the resource side's values as the allocation, a global
  // term (the fill stage, the repair of its copies and alpha's own balancing read x after the
  // iterations), Anderson (it extrapolates from x), per-block penalty factors (they read x
  // after a check), integer variables, or a resource block whose solver reads its previous
  // solution (the exact solvers' warm start: only solvers that solve in place take their
  // targets in the solution's array).
  bool TargetsCanShareX(bool has_integers) const;
  // Chooses where the targets live (Build, and every solve: the problem's integers may have
  // changed); allocates side0_t_ when they leave x.
  void PlaceTargets(bool has_integers);
  // xh of every pair into xh_, for a step between the half steps that changes it (Anderson);
  // the demand half step then takes xh_ as it is.
  void MaterializeXh();
  // The resource side's block offsets and each pair's position (once, in Build); the arrays
  // themselves are allocated once BuildRoute has decided their layout (side0_size_).
  void BuildSideArrays();
  // With the other processes' blocks dropped: the resource side's arrays become this
  // process's own resource blocks' range (from side0_base_), then a halo of the positions it
  // receives along the route (the x of its own demand pairs whose resource block lives
  // elsewhere, and of every global copy on that side), in the route's order. Rewrites the
  // route's lists and the pairs' positions (side0_pos_) into that layout.
  void LocalizeSide0(std::vector<std::vector<std::uint32_t>>* to,
                     std::vector<std::vector<std::uint32_t>>* from);
  // The current solution of a block's slots: a resource block's range of side0_x_ (the only
  // copy of it), a demand block's own vector (none when values_in_pairs: see SlotValue).
  double* Values(int side, Block& block) {
    return side == 0 ? side0_x_.data() + Side0Offset(block.id.index) : block.v.data();
  }
  const double* Values(int side, const Block& block) const {
    return side == 0 ? side0_x_.data() + Side0Offset(block.id.index) : block.v.data();
  }
  // The current value of slot i of a block.
  double SlotValue(int side, const Block& block, std::size_t i) const {
    return block.values_in_pairs ? Ps(block.vars[i].pair).z : Values(side, block)[i];
  }
  // Solves a block against targets t into v (n values each) with `solver`, in place where it
  // can; otherwise through the problem's prox_target and a scratch vector that starts from v
  // (branch and bound keeps it when it finds no integral point).
  static BlockStatus SolveBlock(BlockSolver* solver, BlockProblem* bp, const double* t, double* v);
  // Anderson step on the demand half step's targets q = xh + u (see anderson.h).
  void Accelerate();
  // The second stage of a work-conserving max-min: BeginFill fixes every global copy at the
  // minimum found (less fill_slack) and gives the entries of each expression its coefficient
  // as a cost, so the iterations then maximise the total; EndFill restores the blocks and
  // returns the total reached.
  void BeginFill(double* floor, double* total);
  double EndFill();
  // The smallest and the sum of the global term's expressions at a full assignment.
  struct GlobalStats {
    double minimum, total;
  };
  GlobalStats Global(const std::vector<double>& values) const;
  // Residual balancing of the global pairs' own penalty factor (see Solve).
  void SetGlobalWeight(double weight);
  bool BalanceGlobalWeight();
  void BalanceCopies();
  void BalanceBlocks();
  void SetPairWeight(int pair, double weight);
  void RefreshProxWeights();
  void ResetPenaltyFactors();
  // Bounds of the per-copy and per-block factors: [kFactorFloor, 1 / kFactorFloor].
  static constexpr double kFactorFloor = 1e-2;
  void Residuals(IterationSummary* it, bool want_objective);
  // With to_root and more than one process, only process 0's *values is whole.
  void GatherValues(std::vector<double>* values, int entry_side, bool to_root = false);
  double Objective(const std::vector<double>& values) const;
  bool Repair(std::vector<double>* values, int* rounds, std::string* message);
  void ShareRepair(int side, std::vector<double>* values, std::vector<std::uint8_t>* bad);
  // The repair projects a block with its own solver unless the block has log terms or
  // integral variables (see Repair); these helpers swap the projection's costs in and out.
  static bool OwnProjector(const Block& block) {
    return block.has_integers || !block.problem.logs.empty();
  }
  static void SetProjectionCosts(const Block& block, BlockProblem* pp);
  struct SavedCosts {
    bool active = false;
    SlotValues linear, quadratic, prox_weight;
  };
  bool PrepareProjections(std::vector<SavedCosts>* swapped, std::string* message);
  // Puts back the iterations' costs of every block saved[side][block] holds.
  void RestoreCosts(std::vector<SavedCosts>* saved);
  static std::string ProjectorError(const Block& block);
  template <typename F>
  void ForEachBlock(int side, F&& f);
  // f(block) for every block of a side (or only those listed), in parallel in the caller's
  // task arena: local data work (refresh, warm start), not block solves, so not through the
  // executor.
  template <typename F>
  void ForEachBlockLocal(int side, F&& f, const std::vector<int>* only = nullptr);

  const Problem& problem_;
  AdmmOptions options_;
  AdmmSolver::Observer observer_;
  AdmmSolver::Repairer repairer_;  // gap_tolerance's trials (TrialGap); empty: Repair
  std::unique_ptr<BlockExecutor> executor_ = MakeLocalBlockExecutor();
  // Steady-clock deadline of the running solve in ns (0: none), read by branch and bound.
  std::atomic<std::int64_t> deadline_ns_{0};
  std::stop_token stop_;  // of the running solve, polled between block solves
  std::string setup_error_;
  double setup_seconds_ = 0;
  double setup_heap_bytes_ = 0;      // the heap Build kept: this process's engine state at set-up
  double last_repair_seconds_ = -1;  // wall time of the last solve's repair (-1: none yet)
  bool setup_reported_ = false;      // the build time is charged to the first solve only

  std::vector<Block> blocks_[2];
  std::vector<int> order_[2];  // heavy blocks by decreasing work, then the rest by index
  // The pairs' blocks and slots, pair p at pairs_[p - pairs_offset_]: every pair while the
  // set-up needs them (and for good with per-block penalty factors, which write both slots of
  // an entry's pair); afterwards only the global pairs (entries first, then the global pairs:
  // 16 bytes an entry saved).
  std::vector<Pair> pairs_;
  std::size_t pairs_offset_ = 0;
  const Pair& PairAt(int p) const { return pairs_[static_cast<std::size_t>(p) - pairs_offset_]; }
  std::vector<int> global_pairs_;  // pairs of the global term, in GlobalTerm::blocks order
  int global_side_ = -1;           // side whose blocks hold t_b (-1: no global term)

  void SaveIterates(Iterates* out) const;
  void RestoreIterates(Iterates* in);
  // The demand side's iterates of each consensus pair this process holds, at Local(pair)
  // (the entries' pairs are numbered by demand block, so the demand half step reads them in
  // sequence). x lives on the resource side (side0_x_; alpha for a global copy whose resource
  // side is the global scalar) and xh = a x + (1 - a) z is formed where it is used, so a pair
  // holds only the demand side's z and the scaled dual u.
  std::vector<PairState> ps_;
  // Pair p (global numbering, as in BlockVar::pair) is at Local(p) in ps_, side0_pos_ and the
  // other arrays by held pair: a process reads only the pairs it holds (layout_).
  std::size_t Local(int p) const { return layout_.Local(p); }
  PairState& Ps(int p) { return ps_[Local(p)]; }
  const PairState& Ps(int p) const { return ps_[Local(p)]; }
  // Keeps, in ps_'s layout, only the pairs this process holds (in Build, once the route is set
  // up: the route and the resource side's positions are built from every pair).
  void HoldOwnPairs();
  static constexpr std::size_t kMaxRunTail = 4;
  // Sets Block::run_from and run_tail on the demand blocks this process solves (in Build,
  // once the pairs it holds and their positions are final).
  void MarkPairRuns();
  // [first, last) of the blocks of `side` this process owns (the executor gives each process
  // one range); first >= last when it owns none.
  std::pair<int, int> OwnBlocks(int side) const;
  bool targets_stale_ = true;      // resource blocks' targets not yet z - u of the current pairs
  bool targets_over_x_ = false;    // the targets live in side0_x_ (Targets)
  bool xh_ready_ = false;          // xh_ holds this iteration's xh (MaterializeXh)
  std::vector<double> xh_;         // by pair, while xh_ready_
  std::vector<double> global_xh_;  // xh of the global pairs (min-max), in global_pairs_ order
  // The resource side's x and targets (Targets: side0_t_ unless they share x's array), every
  // block a range (side0_offset_) of one array each: every block's, or with the other
  // processes' blocks dropped the own blocks' range (which starts at side0_base_ of the whole
  // layout) and the halo (LocalizeSide0).
  FlatArray side0_x_, side0_t_;
  FlatArray side_linear_[2];               // PlaceLinearCosts
  std::vector<std::size_t> side0_offset_;  // of the whole layout, by block
  std::size_t side0_base_ = 0;             // where this process's arrays start in it
  std::size_t side0_size_ = 0;             // this process's arrays' length
  // Where resource block b's range starts in this process's arrays (a block it holds).
  std::size_t Side0Offset(int b) const {
    return side0_offset_[static_cast<std::size_t>(b)] - side0_base_;
  }
  std::vector<std::uint8_t> side0_all_paired_;  // by block: every slot is a pair's
  // Each held pair's position in them, at Local(pair) (kNoSlot: alpha, no resource block).
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> side0_pos_;
  std::uint32_t Side0Pos(int p) const { return side0_pos_[Local(p)]; }
  // The resource-side copy of pair p.
  double X(int p) const {
    const std::uint32_t j = Side0Pos(p);
    return j != kNoSlot ? side0_x_[j] : alpha_;
  }
  // Penalty of pair p is rho_ * PairWeight(p) (see penalty.cpp for its factors). pair p's
  // factor is pair_weight_[p - weight_offset_]: every pair's while some entry's factor can
  // differ from 1 (equilibration, per-block factors), else only the global pairs' (entries
  // first: 8 bytes an entry saved) and 1 for every entry.
  std::vector<double> pair_weight_;
  std::size_t weight_offset_ = 0;
  double PairWeight(int p) const {
    const std::size_t i = static_cast<std::size_t>(p);
    return i >= weight_offset_ ? pair_weight_[i - weight_offset_] : 1.0;
  }
  double& MutablePairWeight(int p) {
    return pair_weight_[static_cast<std::size_t>(p) - weight_offset_];
  }
  double Weight(int pair) const { return pair >= 0 ? rho_ * PairWeight(pair) : 0.0; }
  double global_weight_ = 1.0;  // pair_weight_ of every global pair
  // The equilibration factor of every pair (1 for the global copies); empty when all are 1.
  std::vector<double> base_weight_;
  double BaseWeight(int pair) const { return base_weight_.empty() ? 1.0 : base_weight_[pair]; }
  std::vector<double> copy_factor_;        // of each global pair, in global_pairs_ order
  int balanced_side_ = -1;                 // side whose blocks have factors (-1: none)
  std::vector<double> block_factor_;       // of each block of balanced_side_
  std::vector<double> z_prev_;             // every pair's z before a rho update's demand step
  double entry_weight_range_[2] = {1, 1};  // smallest and largest entry pair weight
  bool filling_ = false;                   // in the second stage of a work-conserving max-min
  struct FillSaved {
    double lower = 0, upper = 0;  // of t_b
    SlotValues linear;            // of the block's slots
  };
  std::vector<FillSaved> fill_saved_;  // by global term position
  std::vector<double> global_z_prev_;  // their z before the last measured demand half step
  std::vector<double> trace_values_;   // the iterate the trace's objective is evaluated at
  std::unique_ptr<AndersonAccelerator> anderson_;  // while anderson_memory > 0
  std::vector<double> anderson_f_, anderson_next_;
  double relaxation_ = 1.0;  // over-relaxation in effect this iteration
  // Squared norms for the residuals, accumulated per demand block (plus one slot for the
  // global pairs) on check iterations and summed in block order: deterministic.
  // lag and ysum: the demand block's share of the check's Lagrangian bound (DemandBound), its
  // pairs' y x included; the sum of the global pairs' multipliers (their alpha's term is
  // formed once, from it).
  struct Norms {
    double r = 0, s = 0, x = 0, z = 0, u = 0;
    double lag = 0, ysum = 0;
    // As seven doubles in an exchange (share.cpp).
    static constexpr std::size_t kWidth = 7;
    void Put(double* out) const {
      out[0] = r, out[1] = s, out[2] = x, out[3] = z, out[4] = u, out[5] = lag, out[6] = ysum;
    }
    static Norms From(const double* in) {
      return Norms{in[0], in[1], in[2], in[3], in[4], in[5], in[6]};
    }
  };
  std::vector<Norms> norms_;
  // The demand side's per-pair update on a check iteration: z <- z_new, u += xh - z_new, and
  // the pair's terms of the squared norms (dual residual and dual norm weighted by its
  // penalty factor). Shared by the demand blocks and the global alpha.
  void AssignZMeasured(int p, double x, double xh, double z_new, Norms* acc) {
    PairState& q = Ps(p);
    const double w = PairWeight(p);
    const double dz = w * (z_new - q.z);
    const double d = x - z_new;
    acc->s += dz * dz;
    acc->r += d * d;
    acc->x += x * x;
    acc->z += z_new * z_new;
    q.z = z_new;
    q.u += xh - z_new;
    acc->u += (w * q.u) * (w * q.u);
  }
  // ---- the certified bound (bound.cpp) ----------------------------------------------------
  // Lagrangian relaxation of x = z with the multiplier that makes each resource block's x its
  // exact minimiser (PairMultiplier); each demand block's part is exact or bounded below
  // (DemandBound). A valid lower bound (engine's sense: it minimises) at any iterate.
  // Whether this iteration's check computes the bound (set by Iteration).
  bool bound_now_ = false;
  // The implied boxes of the held pairs (by Local(pair)), rounded outward to float, and of
  // the global scalar; computed when the problem's parameters change.
  std::vector<float> pair_lo_, pair_hi_;
  double alpha_lo_ = -kInfinity, alpha_hi_ = kInfinity;
  // The least and greatest values, over the boxes, of the objective's terms other than the
  // global one (engine's sense): they bound alpha at an optimum (CheckBound).
  double others_lo_ = -kInfinity, others_hi_ = kInfinity;
  // The last check's bound without alpha's term, and alpha's coefficient in it.
  double last_lag_ = -kInfinity, last_alpha_coef_ = 0;
  std::uint64_t box_revision_ = kNeverRefreshed;
  void ComputeBoxes();
  // Each resource block's objective at its last solution, on a check (by block).
  std::vector<double> side0_value_;
  // The block's objective sum q v^2 + c v - sum w log(a'v + b) at v (-inf where a log's
  // argument is not positive: no bound then).
  static double BlockValue(const BlockProblem& bp, const double* v);
  // Pair p's multiplier given its resource copy x, before its z and u are updated:
  // -(the resource side's prox subgradient), w (x - z + u).
  double PairMultiplier(int p, double x) const {
    const PairState& q = Ps(p);
    return Weight(p) * (x - q.z + q.u);
  }
  // One pair's terms, before its z and u are updated: its multiplier y, its part
  // y (x - z_new) and the demand side's box term (q_z: the demand slot's quadratic cost); with
  // x_is_alpha the x side is the global scalar, with z_is_alpha the z side is (its term comes
  // from ysum).
  void AddBoundTerms(int p,
                     double x,
                     double xh,
                     double z_new,
                     double q_z,
                     bool x_is_alpha,
                     bool z_is_alpha,
                     Norms* acc) const;
  // A demand block's part of the check's bound, from its solution v and its pairs' xh, before
  // the pairs' z and u are updated: exact where the block is a linear program of at most one
  // row (SingleRowLpBound), else from its objective at v and AddBoundTerms.
  void DemandBound(const Block& block, const double* v, const double* xh, Norms* acc) const;
  // The check's bound from the norms and side0_value_ (engine's sense), without alpha's term:
  // into last_lag_, and alpha's coefficient into last_alpha_coef_.
  void LagrangianBound();
  // The check's bound with alpha's term (bound.cpp), given a bound already proven (prior) and
  // an incumbent's objective (user's sense; NaN: none). -inf: none.
  double CheckBound(double lag, double c, double prior, double incumbent) const;
  // (Whether the half steps of ordinary iterations may send only the cut, and which side's
  // state of the other processes' blocks is stale here since: layout_.)
  int cut_shares_ = 0, whole_shares_ = 0;  // half steps of this solve that sent each
  std::vector<int> global_pair_;  // by demand block, the pair of its global copy t_b (or -1)
  double alpha_ = 0;
  double rho_ = 1;
  double xz_norm_ = 0, u_norm_ = 0;  // from the last residual check
  bool cold_ = true;
  static constexpr std::uint64_t kNeverRefreshed = ~std::uint64_t{0};
  std::uint64_t seen_revision_ = kNeverRefreshed;
};

template <typename F>
void AdmmEngine::ForEachBlockLocal(int side, F&& f, const std::vector<int>* only) {
  std::vector<Block>& blocks = blocks_[side];
  const std::size_t n = only != nullptr ? only->size() : blocks.size();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 64),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t i = range.begin(); i != range.end(); ++i) {
                        f(blocks[only != nullptr ? (*only)[i] : i]);
                      }
                    });
}

template <typename F>
void AdmmEngine::ForEachBlock(int side, F&& f) {
  // In order_ (heavy blocks first, then index order); where and on which thread each runs
  // is the executor's business.
  // Block solves are independent and write disjoint slots, so the result does not depend on
  // the schedule or the thread count.
  executor_->Run(order_[side], std::function<void(int)>(std::forward<F>(f)));
}

}  // namespace dede::internal
