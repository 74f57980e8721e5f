// The DeDe ADMM engine.
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
// Entry-level linear and quadratic costs are split evenly between the two copies (at x = z the
// sum is the original cost); log terms and the global expressions stay in their block.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <sstream>
#include <thread>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "admm/anderson.h"
#include "admm/block_executor.h"
#include "core/check.h"
#include "dede/solver.h"
#include "subproblem/block_problem.h"

namespace dede {

namespace internal {
namespace {

using Clock = std::chrono::steady_clock;

bool Interrupted(Termination t) {
  return t == Termination::kTimeLimit || t == Termination::kCancelled;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int SideIndex(Side s) { return s == Side::kResource ? 0 : 1; }

// Blocks at least this heavy (Block::work) read the clock before each solve; lighter ones
// before every eighth.
constexpr double kClockEveryBlockWork = 10000;

// The objective and violation checks split variables and constraints into this many fixed
// ranges.
constexpr int kCheckChunks = 64;
int ChunkBound(int n, int k) {
  return static_cast<int>(static_cast<std::int64_t>(n) * k / kCheckChunks);
}

// A variable of a block as the block sees it.
struct BlockVar {
  VarId var = -1;     // problem variable, or -1 for the global copy t_b
  int pair = -1;      // consensus pair, or -1 for a local variable
};

struct Block {
  BlockId id;
  std::vector<BlockVar> vars;
  std::vector<ConstraintId> constraints;  // row k of `problem` is constraints[k]
  int global_row = -1;                    // row index of e_b - t_b, or -1
  int global_expr = -1;                   // index into GlobalTerm::exprs
  std::vector<int> log_terms;             // problem log term ids, in BlockProblem::logs order
  BlockProblem problem;
  std::vector<double> v;                  // current solution
  std::unique_ptr<BlockSolver> solver;          // continuous (relaxed) solver
  std::unique_ptr<BlockSolver> integer_solver;  // with integrality, built on demand
  std::unique_ptr<BlockSolver> projector;       // feasibility repair, built on demand
  BlockProblem projection;
  bool has_integers = false;
  std::vector<std::uint8_t> integral_flags;  // declared integrality, by slot
  double work = 0;                        // cost estimate for scheduling
};

// A consensus pair: x (resource side) and z (demand side) of one entry or one global copy.
struct Pair {
  int block[2] = {-1, -1};  // block index on each side, -1: the global alpha on that side
  int slot[2] = {-1, -1};   // position in that block's vars
};

}  // namespace

class AdmmEngine {
 public:
  AdmmEngine(const Problem& problem, const AdmmOptions& options)
      : problem_(problem), options_(options) {
    const auto start = Clock::now();
    Build();
    setup_seconds_ = Seconds(start);
  }

  const AdmmOptions& options() const { return options_; }
  void SetOptions(const AdmmOptions& options) { options_ = options; }
  void SetObserver(AdmmSolver::Observer observer) { observer_ = std::move(observer); }
  const std::string& setup_error() const { return setup_error_; }
  void Reset() { cold_ = true; }
  void WarmStart(const std::vector<double>& values);

  void Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary);

 private:
  void Build();
  void AddBlockVar(Block* block, VarId var, int pair);
  void RefreshParameters();
  // [rho_min, rho_max], widened to take in the initial rho: the range every rho update keeps
  // to (residual balancing and the integer phase's growth).
  double RhoFloor() const { return std::min(options_.rho_min, options_.rho); }
  double RhoCeiling() const { return std::max(options_.rho_max, options_.rho); }
  Problem::Violation MeasureViolation(const std::vector<double>& values) const;
  bool CreateSolvers(std::string* error);
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
  bool HalfStep(int side, bool integer_phase, bool measure, std::string* message,
                Termination* termination);
  void UpdateGlobalAlpha(int side, bool measure);
  // Anderson step on the demand half step's targets q = xh + u (see anderson.h).
  void Accelerate();
  // The second stage of a work-conserving max-min: BeginFill fixes every global copy at the
  // minimum found (less fill_slack) and gives the entries of each expression its coefficient
  // as a cost, so the iterations then maximise the total; EndFill restores the blocks and
  // returns the total reached.
  void BeginFill(double* floor, double* total);
  double EndFill();
  double GlobalTotal(const std::vector<double>& values) const;
  double GlobalMinimum(const std::vector<double>& values) const;
  // Residual balancing of the global pairs' own penalty factor (see Solve).
  void SetGlobalWeight(double weight);
  bool BalanceGlobalWeight();
  void Residuals(IterationSummary* it, bool want_objective);
  void GatherValues(std::vector<double>* values, int entry_side);
  double Objective(const std::vector<double>& values) const;
  bool Repair(std::vector<double>* values, int* rounds, std::string* message);
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
  std::unique_ptr<BlockExecutor> executor_ = MakeLocalBlockExecutor();
  // Steady-clock deadline of the running solve in ns (0: none), read by branch and bound.
  std::atomic<std::int64_t> deadline_ns_{0};
  std::stop_token stop_;  // of the running solve, polled between block solves
  std::string setup_error_;
  double setup_seconds_ = 0;
  bool setup_reported_ = false;  // the build time is charged to the first solve only

  std::vector<Block> blocks_[2];
  std::vector<int> order_[2];        // heavy blocks by decreasing work, then the rest by index
  std::vector<Pair> pairs_;
  std::vector<int> global_pairs_;    // pairs of the global term, in GlobalTerm::blocks order
  int global_side_ = -1;             // side whose blocks hold t_b (-1: no global term)

  // Iterates, indexed by pair.
  // Iterates of one consensus pair, kept together: a block touches all of them for each of its
  // pairs, and one side reaches its pairs in scattered order, so one cache line per pair.
  struct PairState {
    double x = 0, z = 0, u = 0, xh = 0;
  };
  // A copy of the iteration's state (the second stage of a work-conserving max-min hands the
  // first stage's on to the next solve).
  struct Iterates {
    std::vector<PairState> ps;
    std::vector<std::vector<double>> v[2];
    double alpha = 0, rho = 0, global_weight = 1;
  };
  void SaveIterates(Iterates* out) const;
  void RestoreIterates(Iterates* in);
  std::vector<PairState> ps_;
  // Penalty of pair p is rho_ * pair_weight_[p] (1 unless the global pairs are reweighted).
  std::vector<double> pair_weight_;
  double Weight(int pair) const { return pair >= 0 ? rho_ * pair_weight_[pair] : 0.0; }
  double global_weight_ = 1.0;           // pair_weight_ of every global pair
  bool filling_ = false;                 // in the second stage of a work-conserving max-min
  struct FillSaved {
    double lower = 0, upper = 0;         // of t_b
    std::vector<double> linear;          // of the block's slots
  };
  std::vector<FillSaved> fill_saved_;    // by global term position
  std::vector<double> global_z_prev_;    // their z before the last measured demand half step
  std::vector<double> trace_values_;  // the iterate the trace's objective is evaluated at
  std::unique_ptr<AndersonAccelerator> anderson_;  // while anderson_memory > 0
  std::vector<double> anderson_f_, anderson_next_;
  double relaxation_ = 1.0;  // over-relaxation in effect this iteration
  // Squared norms for the residuals, accumulated per demand block (plus one slot for the
  // global pairs) on check iterations and summed in block order: deterministic.
  struct Norms {
    double r = 0, s = 0, x = 0, z = 0, u = 0;
  };
  std::vector<Norms> norms_;
  double alpha_ = 0;
  double rho_ = 1;
  double xz_norm_ = 0, u_norm_ = 0;  // from the last residual check
  bool cold_ = true;
  static constexpr std::uint64_t kNeverRefreshed = ~std::uint64_t{0};
  std::uint64_t seen_revision_ = kNeverRefreshed;
};

void AdmmEngine::AddBlockVar(Block* block, VarId var, int pair) {
  block->vars.push_back({var, pair});
}

void AdmmEngine::Build() {
  std::string error;
  if (!options_.IsValid(&error) || !problem_.Validate(&error)) {
    setup_error_ = error;
    return;
  }
  for (int s = 0; s < 2; ++s) {
    const int n = s == 0 ? problem_.num_resources() : problem_.num_demands();
    blocks_[s].resize(n);
    for (int b = 0; b < n; ++b) blocks_[s][b].id = {s == 0 ? Side::kResource : Side::kDemand, b};
  }
  // Entries first (one pair each), then locals, in VarId order: deterministic layout.
  std::vector<int> var_pair(problem_.num_variables(), -1);
  for (VarId v = 0; v < problem_.num_variables(); ++v) {
    const Variable& var = problem_.variable(v);
    if (var.IsEntry()) {
      const int p = static_cast<int>(pairs_.size());
      Pair pair;
      pair.block[0] = var.resource;
      pair.block[1] = var.demand;
      pair.slot[0] = static_cast<int>(blocks_[0][var.resource].vars.size());
      pair.slot[1] = static_cast<int>(blocks_[1][var.demand].vars.size());
      pairs_.push_back(pair);
      var_pair[v] = p;
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
  for (ConstraintId c = 0; c < problem_.num_constraints(); ++c) {
    const BlockId id = problem_.constraint(c).block;
    blocks_[SideIndex(id.side)][id.index].constraints.push_back(c);
  }
  for (int k = 0; k < static_cast<int>(problem_.log_terms().size()); ++k) {
    const BlockId id = problem_.log_terms()[k].block;
    blocks_[SideIndex(id.side)][id.index].log_terms.push_back(k);
  }
  // Block structure: map problem variables to slots, allocate rows and logs.
  for (int s = 0; s < 2; ++s) {
    for (Block& block : blocks_[s]) {
      const int n = static_cast<int>(block.vars.size());
      BlockProblem& bp = block.problem;
      bp.lower.assign(n, 0);
      bp.upper.assign(n, 0);
      bp.integral.assign(n, 0);
      bp.linear.assign(n, 0);
      bp.quadratic.assign(n, 0);
      bp.prox_weight.assign(n, 0);
      bp.prox_target.assign(n, 0);
      std::unordered_map<VarId, int> slot;
      for (int i = 0; i < n; ++i) {
        if (block.vars[i].var >= 0) slot[block.vars[i].var] = i;
      }
      block.integral_flags.assign(n, 0);
      for (int i = 0; i < n; ++i) {
        if (block.vars[i].var >= 0 && problem_.variable(block.vars[i].var).domain.IsIntegral()) {
          block.has_integers = true;
          block.integral_flags[i] = 1;
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
      for (ConstraintId c : block.constraints) bp.rows.push_back(make_row(problem_.constraint(c).terms));
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
      block.v.assign(n, 0.0);
      double nnz = n;
      for (const BlockRow& row : bp.rows) nnz += static_cast<double>(row.index.size());
      block.work = nnz * (bp.rows.size() > 1 ? 10.0 : 1.0) * (block.has_integers ? 10.0 : 1.0);
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
    std::stable_sort(order_[s].begin(), light,
                     [&](int a, int b) { return blocks_[s][a].work > blocks_[s][b].work; });
  }
  tbb::task_arena(ThreadCount()).execute([&] { RefreshParameters(); });
  rho_ = options_.rho;  // the solvers are built, and primed, with the penalty they start with
  pair_weight_.assign(pairs_.size(), 1.0);
  if (!CreateSolvers(&error)) {
    setup_error_ = error;
  } else {
    PrimeSolvers();
  }
  const std::size_t np = pairs_.size();
  ps_.assign(np, PairState{});
  norms_.assign(blocks_[1].size() + 1, Norms{});
}

// Copies the current parameter values (bounds, costs, rhs, coefficients, weights) from the
// problem into every block. Structure is unchanged, so solvers only reload numbers.
void AdmmEngine::RefreshParameters() {
  const double sign = problem_.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  const GlobalTerm& global = problem_.global_term();
  // Blocks are independent: refreshed in parallel, in the caller's task arena (Kdl TE, 30,035
  // blocks and 1.5M entries: 0.11-0.18 s per round on one thread).
  const auto refresh = [&](Block& block) {
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
    for (std::size_t i = 0; i < block.vars.size(); ++i) {
      const VarId v = block.vars[i].var;
      if (v < 0) {  // t_b: free copy of the global scalar
        set(&bp.lower[i], -kInfinity);
        set(&bp.upper[i], kInfinity);
        continue;
      }
      const Variable& var = problem_.variable(v);
      const double share = var.IsEntry() ? 0.5 : 1.0;
      set(&bp.lower[i], var.domain.lower);
      set(&bp.upper[i], var.domain.upper);
      bp.integral[i] = 0;  // relaxed; the integer solver is built from a flagged copy
      set(&bp.linear[i], sign * share * var.linear_cost);
      set(&bp.quadratic[i], sign * share * var.quadratic_cost);
    }
    for (std::size_t k = 0; k < block.constraints.size(); ++k) {
      const Constraint& c = problem_.constraint(block.constraints[k]);
      BlockRow& row = bp.rows[k];
      if (row.sense != c.sense) {
        row.sense = c.sense;
        changed = true;
      }
      set(&row.rhs, c.rhs);
      for (std::size_t j = 0; j < c.terms.size(); ++j) set(&row.coef[j], c.terms[j].coef);
    }
    if (block.global_row >= 0) {
      const LinearExpr& e = global.exprs[block.global_expr];
      BlockRow& row = bp.rows[block.global_row];
      for (std::size_t j = 0; j < e.terms.size(); ++j) set(&row.coef[j], e.terms[j].coef);
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
}

bool AdmmEngine::CreateSolvers(std::string* error) {
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
      std::string why;
      block.solver = CreateBlockSolver(block.problem, solver_options, &why);
      if (!block.solver) {
        *error = (s == 0 ? "resource " : "demand ") + std::to_string(block.id.index) + ": " + why;
        return false;
      }
    }
  }
  return true;
}

void AdmmEngine::ColdStart() {
  std::fill(ps_.begin(), ps_.end(), PairState{});
  SetGlobalWeight(1.0);
  alpha_ = 0;
  for (int s = 0; s < 2; ++s)
    for (Block& block : blocks_[s]) std::fill(block.v.begin(), block.v.end(), 0.0);
  SetRho(options_.rho);
  cold_ = false;
}

// Starts the next solve from a stored allocation (e.g. the last committed round after a
// restart): both copies of every entry take its value, locals keep theirs, the global copies
// take their expression values, duals start at zero and rho at its initial value.
void AdmmEngine::WarmStart(const std::vector<double>& values) {
  if (!setup_error_.empty() || static_cast<int>(values.size()) != problem_.num_variables()) return;
  // Every slot and every pair is written below: no cold-start fill first (on Kdl that pass
  // over 1.5M pairs and 30,000 blocks took 0.03-0.14 s).
  alpha_ = 0;
  SetRho(options_.rho);
  SetGlobalWeight(1.0);
  cold_ = false;
  const GlobalTerm& global = problem_.global_term();
  std::vector<double> expr_value(global.exprs.size(), 0.0);
  for (std::size_t k = 0; k < global.exprs.size(); ++k) {
    double v = global.exprs[k].constant;
    for (const Term& t : global.exprs[k].terms) v += t.coef * values[t.var];
    expr_value[k] = v;
  }
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
          block.v[i] = value;
          const int p = block.vars[i].pair;
          if (p < 0) continue;
          if (var < 0) {
            ps_[p] = PairState{};  // a global copy; the other one is alpha (below)
            (s == 0 ? ps_[p].x : ps_[p].z) = value;
          } else if (s == 1) {
            ps_[p] = PairState{value, value, 0.0, 0.0};
          }
        }
      });
    }
  });
  for (int p : global_pairs_) (global_side_ == 0 ? ps_[p].z : ps_[p].x) = alpha_;
}

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

// A block solver loads its block's data on its first solve, and a cold first iteration paid
// for every block at once (0.5 s on Kdl's 30,000 blocks, five later iterations' worth). One
// solve per block here, against zero targets into scratch, moves that one-time load into the
// setup. The iterates are untouched, and a failure is left for the iterations to report.
void AdmmEngine::PrimeSolvers() {
  tbb::task_arena arena(ThreadCount());
  arena.execute([&] {
    for (int s = 0; s < 2; ++s) {
      ForEachBlock(s, [&](int b) {
        Block& block = blocks_[s][b];
        if (!block.solver) return;
        std::vector<double> scratch = block.v;
        (void)block.solver->Solve(block.problem, &scratch);
      });
    }
  });
}

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
    Norms acc;
    for (std::size_t i = 0; i < n; ++i) {
      const int p = block.vars[i].pair;
      if (p < 0) continue;
      const double z_new = block.v[i];
      // The dual residual and the dual norm carry the pair's penalty factor (a global copy's).
      const double w = block.vars[i].var < 0 ? global_weight_ : 1.0;
      if (measure) {
        const double dz = w * (z_new - ps_[p].z);
        const double d = ps_[p].x - z_new;
        acc.s += dz * dz;
        acc.r += d * d;
        acc.x += ps_[p].x * ps_[p].x;
        acc.z += z_new * z_new;
      }
      ps_[p].z = z_new;
      ps_[p].u += ps_[p].xh - z_new;
      if (measure) acc.u += (w * ps_[p].u) * (w * ps_[p].u);
    }
    if (measure) norms_[b] = acc;
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
    const double w = global_weight_;
    if (measure) {
      const double dz = w * (alpha_ - ps_[p].z);
      const double d = ps_[p].x - alpha_;
      acc.s += dz * dz;
      acc.r += d * d;
      acc.x += ps_[p].x * ps_[p].x;
      acc.z += alpha_ * alpha_;
    }
    ps_[p].z = alpha_;
    ps_[p].u += ps_[p].xh - alpha_;
    if (measure) acc.u += (w * ps_[p].u) * (w * ps_[p].u);
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

void AdmmEngine::SaveIterates(Iterates* out) const {
  out->ps = ps_;
  for (int s = 0; s < 2; ++s) {
    out->v[s].resize(blocks_[s].size());
    for (std::size_t b = 0; b < blocks_[s].size(); ++b) out->v[s][b] = blocks_[s][b].v;
  }
  out->alpha = alpha_;
  out->rho = rho_;
  out->global_weight = global_weight_;
}

void AdmmEngine::RestoreIterates(Iterates* in) {
  // The penalties first (SetGlobalWeight rescales the global pairs' duals), then the
  // iterates as they were under them.
  SetRho(in->rho);
  SetGlobalWeight(in->global_weight);
  ps_ = std::move(in->ps);
  for (int s = 0; s < 2; ++s) {
    for (std::size_t b = 0; b < blocks_[s].size(); ++b) blocks_[s][b].v = std::move(in->v[s][b]);
  }
  alpha_ = in->alpha;
  if (anderson_) anderson_->Reset();
}

double AdmmEngine::GlobalMinimum(const std::vector<double>& values) const {
  double minimum = kInfinity;
  for (const LinearExpr& e : problem_.global_term().exprs) {
    double v = e.constant;
    for (const Term& t : e.terms) v += t.coef * values[t.var];
    minimum = std::min(minimum, v);
  }
  return minimum;
}

double AdmmEngine::GlobalTotal(const std::vector<double>& values) const {
  double total = 0;
  for (const LinearExpr& e : problem_.global_term().exprs) {
    double v = e.constant;
    for (const Term& t : e.terms) v += t.coef * values[t.var];
    total += v;
  }
  return total;
}

void AdmmEngine::BeginFill(double* floor, double* total) {
  std::vector<double> values;
  GatherValues(&values, global_side_);
  const GlobalTerm& global = problem_.global_term();
  const double minimum = GlobalMinimum(values);
  *total = GlobalTotal(values);
  *floor = minimum - options_.fill_slack * std::abs(minimum);
  const double sign = problem_.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  fill_saved_.assign(global.blocks.size(), FillSaved{});
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const Pair& pair = pairs_[global_pairs_[k]];
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
    block.v[t] = *floor;
    PairState& q = ps_[global_pairs_[k]];
    q.x = q.z = q.xh = *floor;
    q.u = 0;
  }
  alpha_ = *floor;
  filling_ = true;
  if (anderson_) anderson_->Reset();
}

double AdmmEngine::EndFill() {
  for (std::size_t k = 0; k < global_pairs_.size(); ++k) {
    const Pair& pair = pairs_[global_pairs_[k]];
    Block& block = blocks_[global_side_][pair.block[global_side_]];
    BlockProblem& bp = block.problem;
    const int t = pair.slot[global_side_];
    bp.lower[t] = fill_saved_[k].lower;
    bp.upper[t] = fill_saved_[k].upper;
    bp.linear = std::move(fill_saved_[k].linear);
    ++bp.revision;
  }
  fill_saved_.clear();
  filling_ = false;
  if (anderson_) anderson_->Reset();
  std::vector<double> values;
  GatherValues(&values, global_side_);
  return GlobalTotal(values);
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

void AdmmEngine::Residuals(IterationSummary* it, bool want_objective) {
  Norms n;
  for (const Norms& b : norms_) {  // fixed order: independent of the thread count
    n.r += b.r;
    n.s += b.s;
    n.x += b.x;
    n.z += b.z;
    n.u += b.u;
  }
  const double sqrt_n = std::sqrt(static_cast<double>(pairs_.size()));
  it->primal_residual = std::sqrt(n.r);
  it->dual_residual = rho_ * std::sqrt(n.s);
  it->primal_tolerance =
      sqrt_n * options_.eps_abs + options_.eps_rel * std::max(std::sqrt(n.x), std::sqrt(n.z));
  it->dual_tolerance = sqrt_n * options_.eps_abs + options_.eps_rel * rho_ * std::sqrt(n.u);
  it->rho = rho_;
  xz_norm_ = std::max(std::sqrt(n.x), std::sqrt(n.z));
  u_norm_ = std::sqrt(n.u);
  it->primal_scale = xz_norm_;
  if (want_objective) {
    // A member buffer: a fresh 12 MB vector per check (Kdl TE) page-faults on every check.
    GatherValues(&trace_values_, 1);
    it->objective = Objective(trace_values_);
  }
}

// Problem::MeasureViolation over fixed ranges in parallel, merged in order: the same result
// as one pass (Kdl TE, 1.5M constraints: 0.08-0.13 s on one thread).
Problem::Violation AdmmEngine::MeasureViolation(const std::vector<double>& values) const {
  const int nv = problem_.num_variables(), nc = problem_.num_constraints();
  std::vector<Problem::Violation> part(kCheckChunks);
  tbb::parallel_for(0, kCheckChunks, [&](int k) {
    part[k] = problem_.MeasureViolation(values, ChunkBound(nv, k), ChunkBound(nv, k + 1),
                                        ChunkBound(nc, k), ChunkBound(nc, k + 1));
  });
  Problem::Violation total;
  for (const Problem::Violation& v : part) total.Merge(v);
  return total;
}

// Full assignment by VarId: entries from one side, locals from their own blocks. Blocks write
// disjoint variables (an entry from its entry_side block only, a local from its owner), and
// every variable once: in parallel, in the caller's arena, with no fill first.
void AdmmEngine::GatherValues(std::vector<double>* values, int entry_side) {
  values->resize(problem_.num_variables());
  for (int s = 0; s < 2; ++s) {
    ForEachBlockLocal(s, [&](const Block& block) {
      for (std::size_t i = 0; i < block.vars.size(); ++i) {
        const VarId v = block.vars[i].var;
        if (v < 0) continue;
        if (block.vars[i].pair >= 0 && s != entry_side) continue;
        (*values)[v] = block.v[i];
      }
    });
  }
}

// Problem::EvaluateObjective with its per-variable sum over fixed ranges in parallel, added in
// order: deterministic, whatever the thread count.
double AdmmEngine::Objective(const std::vector<double>& values) const {
  const int n = problem_.num_variables();
  std::vector<double> part(kCheckChunks);
  tbb::parallel_for(0, kCheckChunks, [&](int k) {
    part[k] = problem_.VariableCosts(values, ChunkBound(n, k), ChunkBound(n, k + 1));
  });
  double costs = 0.0;
  for (double p : part) costs += p;
  return problem_.EvaluateObjective(values, costs);
}

// Alternating projections: each block's variables are projected (Euclidean) onto the block's
// feasible set, resource side then demand side, until the whole assignment satisfies every
// constraint within the tolerance. Starting from a converged ADMM point the first few rounds
// move the allocation by about the primal residual.
bool AdmmEngine::Repair(std::vector<double>* values, int* rounds, std::string* message) {
  BlockSolverOptions solver_options;
  solver_options.node_limit = options_.block_node_limit;
  solver_options.deadline_ns = &deadline_ns_;
  const double tol = options_.feasibility_tolerance;
  // Aim a little below the tolerance so rounding in the final measurement cannot tip it over.
  const double target = 0.5 * tol;
  *rounds = 0;
  Problem::Violation viol = problem_.MeasureViolation(*values);
  if (viol.Max() <= target) return true;
  // Build projectors on first use; later, copy the current parameters (rhs, coefficients,
  // bounds) into them, since they may have changed since the last solve.
  for (int s = 0; s < 2; ++s) {
    for (Block& block : blocks_[s]) {
      if (block.vars.empty()) continue;
      if (block.projector) {
        BlockProblem& pp = block.projection;
        pp.lower = block.problem.lower;
        pp.upper = block.problem.upper;
        pp.rows = block.problem.rows;
        ++pp.revision;
        continue;
      }
      BlockProblem& pp = block.projection;
      pp = block.problem;
      pp.logs.clear();
      const int n = pp.num_vars();
      pp.integral = block.integral_flags;
      for (int i = 0; i < n; ++i) {
        pp.linear[i] = 0;
        pp.quadratic[i] = 0;
        pp.prox_weight[i] = 1.0;
      }
      if (block.global_row >= 0) {
        // The global copy t_b is free to move: drop it from the projection distance.
        pp.prox_weight[n - 1] = 1e-6;
      }
      std::string why;
      block.projector = CreateBlockSolver(pp, solver_options, &why);
      if (!block.projector) {
        *message = "repair: " + why;
        return false;
      }
    }
  }
  std::vector<std::uint8_t> bad[2];
  for (int round = 1; round <= options_.repair_max_rounds; ++round) {
    *rounds = round;
    for (int s = 0; s < 2; ++s) {
      bad[s].assign(blocks_[s].size(), 0);
      ForEachBlock(s, [&](int b) {
        Block& block = blocks_[s][b];
        if (block.vars.empty()) return;
        BlockProblem& pp = block.projection;
        std::vector<double> v(block.vars.size());
        for (std::size_t i = 0; i < block.vars.size(); ++i) {
          const VarId var = block.vars[i].var;
          v[i] = var >= 0 ? (*values)[var] : block.v[i];
          pp.prox_target[i] = v[i];
        }
        const BlockStatus st = block.projector->Solve(pp, &v);
        if (st != BlockStatus::kOptimal && st != BlockStatus::kNodeLimit) {
          bad[s][b] = 1;
          return;
        }
        for (std::size_t i = 0; i < block.vars.size(); ++i) {
          if (block.vars[i].var >= 0) (*values)[block.vars[i].var] = v[i];
        }
      });
      for (std::size_t b = 0; b < bad[s].size(); ++b) {
        if (bad[s][b]) {
          *message = std::string("repair: the feasible set of ") +
                     (s == 0 ? "resource" : "demand") + " block " + std::to_string(b) +
                     " is empty (" + blocks_[s][b].projector->last_error() + ")";
          return false;
        }
      }
      viol = problem_.MeasureViolation(*values);
      if (viol.Max() <= target) return true;
    }
  }
  std::ostringstream out;
  out << "repair: max violation " << viol.Max() << " > " << tol << " after "
      << options_.repair_max_rounds << " rounds (worst constraint " << viol.worst_constraint
      << ")";
  *message = out.str();
  return viol.Max() <= tol;
}

void AdmmEngine::Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary) {
  const auto start = Clock::now();
  {
    std::int64_t deadline = 0;
    if (std::isfinite(options_.time_limit_seconds)) {
      deadline = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     (start + std::chrono::duration<double>(options_.time_limit_seconds))
                         .time_since_epoch())
                     .count();
    }
    deadline_ns_.store(deadline, std::memory_order_relaxed);
  }
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
      std::fprintf(stderr, "admm refresh: validate %.3f s, block parameters %.3f s\n", validate_s,
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
      anderson_ = std::make_unique<AndersonAccelerator>(ps_.size(), options_.anderson_memory, kind,
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
      if (Seconds(start) > options_.time_limit_seconds) {
        termination = Termination::kTimeLimit;
        message = "Time limit " + std::to_string(options_.time_limit_seconds) + " s reached after " +
                  std::to_string(iterations) + " iterations.";
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
      if (measure && !global_pairs_.empty()) {
        global_z_prev_.resize(global_pairs_.size());
        for (std::size_t g = 0; g < global_pairs_.size(); ++g)
          global_z_prev_[g] = ps_[global_pairs_[g]].z;
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
                     k, it.seconds, it.primal_residual, it.primal_tolerance, it.dual_residual,
                     it.dual_tolerance, it.rho, it.objective);
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
        out << std::scientific << "Primal residual " << it.primal_residual << " <= "
            << it.primal_tolerance << ", dual residual " << it.dual_residual << " <= "
            << it.dual_tolerance << ".";
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
        SetRho(proposed);
        ++rho_updates;
      }
      if (options_.rho_update == RhoUpdate::kResidualBalancing && !integer_phase &&
          k % options_.rho_update_every == 0) {
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
            SetRho(proposed);
            ++rho_updates;
          }
        }
        if (options_.global_rho_balancing && BalanceGlobalWeight()) ++rho_updates;
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
      (termination == Termination::kConverged || inaccurate_ok) &&
      Seconds(start) < options_.time_limit_seconds) {
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
        << total_after << " (" << TerminationName(
               failed ? termination
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
  // Final allocation: the chosen side's entries, then repair.
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
    const double minimum = GlobalMinimum(values);
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
  const auto check_start = Clock::now();
  Problem::Violation viol;
  arena.execute([&] { viol = MeasureViolation(values); });
  summary->max_violation = viol.Max();
  summary->feasible = summary->max_violation <= options_.feasibility_tolerance;
  arena.execute([&] { summary->objective = Objective(values); });
  if (options_.verbose) {
    std::fprintf(stderr, "admm finish: gather and repair %.3f s, violation and objective %.3f s\n",
                 summary->repair_seconds, Seconds(check_start));
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
