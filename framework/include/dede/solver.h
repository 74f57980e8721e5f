/// \file
/// What solving a dede::Problem takes and gives back, for every method: the options of the
/// ADMM engine (AdmmOptions) and of the exact baseline (ExactOptions), the summary each solve
/// fills (SolveSummary, with one IterationSummary per termination check) and the allocation
/// (Allocation: values by VarId). The solvers themselves are declared in dede/host_solvers.h,
/// for host programs; a plugin borrows them through the SolverServices the host lends its
/// methods (dede/plugin.h):
/// \code
///   dede::AdmmOptions options = services.admm_options;  // the deployment's solver.admm.*
///   options.time_limit_seconds = 2.0;
///   dede::Allocation allocation;
///   dede::SolveSummary summary;
///   dede::Status status = services.admm(problem, options, &allocation, &summary);
///   if (!status.ok()) return status;                    // set-up errors only
///   if (!summary.IsSolutionUsable()) { /* termination and message say why */ }
/// \endcode
/// A host program keeps an AdmmSolver between solves, so a parameter change re-solves warm:
/// \code
///   dede::AdmmSolver solver(problem, dede::AdmmOptions{});  // the defaults are valid
///   solver.Solve(&allocation, &summary);                    // never throws
///   problem.SetRhs(capacity_row, 12.0);                     // change a parameter ...
///   solver.Solve(&allocation, &summary);                    // ... and re-solve warm
/// \endcode
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "dede/problem.h"

namespace dede {

/// Why a solve ended. Append only: values are persisted.
enum class Termination : std::uint8_t {
  kConverged,            ///< residuals within tolerance and the allocation is feasible
  kConvergedInaccurate,  ///< residuals within 10x tolerance when the iteration budget ran out
  kMaxIterations,        ///< iteration budget used up; the best allocation so far is returned
  kTimeLimit,            ///< wall-clock budget used up; the best allocation so far is returned
  kInfeasible,           ///< a block (or the whole problem) has no feasible point
  kCancelled,            ///< the stop token was triggered
  kFailure,              ///< invalid input or a sub-solver failure; see message
};
const char* TerminationName(Termination t);

enum class RhoUpdate : std::uint8_t { kFixed, kResidualBalancing };

/// Anderson acceleration: type I (S^T Y gamma = S^T g, Broyden-like) or type II (least squares
/// on the residual differences). See AdmmOptions::anderson_memory.
enum class AndersonType : std::uint8_t { kTypeI, kTypeII };

/// Which side's blocks get a penalty factor of their own (AdmmOptions::block_rho_balancing).
enum class BlockBalancing : std::uint8_t { kOff, kResource, kDemand };

/// The copy of the shared entries that the returned allocation is read from. kDemandSide: the
/// last half step's z, which satisfies every demand constraint exactly; kResourceSide: x, which
/// satisfies every resource constraint exactly. Variables held by one side only always come
/// from that side. Either copy is off the other side's constraints by about the primal residual
/// until the repair (the framework's or the plugin's) closes the gap.
enum class FinalIterate : std::uint8_t { kDemandSide, kResourceSide };

/// Which copy of an entry carries the entry's linear cost (AdmmOptions::entry_cost_side): half
/// on each (kSplit), or the whole on the resource copy x or on the demand copy z. The fixed
/// point is the same; the iterates and the speed of convergence are not, and a side whose
/// copies carry no cost holds none. kResource, the default, reached 1e-4 of Clp's optimum in
/// 0.58-1.0 x the iterations of kSplit on six transport LPs (BENCHMARKS.md, convergence);
/// kDemand was kSplit's equal there.
enum class EntryCostSide : std::uint8_t { kSplit, kResource, kDemand };

struct AdmmOptions {
  /// True if usable. Otherwise *error names the field, its value and the violated bound:
  /// "AdmmOptions::relaxation = 2.5. Violated constraint: relaxation < 2".
  bool IsValid(std::string* error) const;

  int max_iterations = 10000;
  /// Initial penalty. Problems whose objective is large relative to their allocation values
  /// converge faster with a larger rho; residual balancing corrects a poor choice.
  double rho = 1.0;
  /// Over-relaxation alpha in (0, 2): 1 is plain ADMM; 1.5-1.8 usually converges faster.
  double relaxation = 1.6;
  /// Termination on the consensus x = z: ||x - z|| <= sqrt(n) eps_abs + eps_rel max(||x||,||z||)
  /// and rho ||z - z_prev|| <= sqrt(n) eps_abs + eps_rel rho ||u||.
  double eps_abs = 1e-5;
  double eps_rel = 1e-4;
  int check_termination_every = 10;  ///< residuals are a parallel reduction: not every iteration
  RhoUpdate rho_update = RhoUpdate::kResidualBalancing;
  int rho_update_every = 50;  ///< in iterations; taken at the first check at or after
  /// Adopt a new rho only if it differs from the current one by more than this factor.
  double rho_update_tolerance = 5.0;
  /// With residual balancing, the copies of a max-min / min-max term's scalar get their own
  /// penalty factor (on top of rho), balanced on their own residuals at every rho update:
  /// their scale and duals are the objective's, not the allocation entries'.
  bool global_rho_balancing = true;
  /// With global_rho_balancing, each copy t_b also gets a factor of its own from its share of
  /// the objective's dual (sqrt(|y_b| / mean |y|), within [0.01, 100]), so copies whose row
  /// does not bind stop holding the global scalar back.
  bool global_copy_balancing = true;
  /// With residual_balancing, the entries of each block of one side get a factor of their own,
  /// balanced on the block's residuals at every rho update (rho keeps the common level). Helps
  /// where residuals concentrate in a few blocks (min max utilisation on a large WAN: the
  /// saturated links); slower on the cluster instances. Off by default (BENCHMARKS.md).
  BlockBalancing block_rho_balancing = BlockBalancing::kOff;
  /// Equilibrate the coupling: each entry's penalty is rho times the square of its largest
  /// coefficient in its blocks' constraint rows, over the geometric mean of those squares
  /// (Ruiz-style column scaling of x = z; rows need none, block constraints being hard). Has no
  /// effect where every coefficient is 1 (transport, traffic engineering). Opt-in: measured on
  /// the cluster instances only (BENCHMARKS.md).
  bool equilibrate = false;
  /// Work-conserving max-min: after the max-min solve converges, a second stage maximises the
  /// sum of the max-min term's expressions with each kept at or above the minimum found (less
  /// fill_slack relative to it), warm-started, within what is left of the iteration and time
  /// budgets; capacity the minimum does not need is then used. Continuous problems only. The
  /// solve's termination is the first stage's; the message and fill_iterations tell the rest.
  bool fill_after_max_min = false;
  double fill_slack = 1e-3;
  /// Range of the updated rho. An initial rho outside it widens it: residual balancing never
  /// pulls rho towards the range because of the bound alone.
  double rho_min = 1e-6;
  double rho_max = 1e6;
  /// Safeguarded Anderson acceleration of the iteration: every `anderson_interval` iterations
  /// the demand half step's target (one value per consensus pair: the Douglas-Rachford state
  /// of the ADMM) is extrapolated from the last `anderson_memory` ones; an extrapolation whose
  /// fixed-point residual grows is undone. 0 turns it off. Memory: 2 anderson_memory + 7
  /// doubles per consensus pair. Not used in the integer phase; a rho change restarts it.
  int anderson_memory = 0;
  int anderson_interval = 10;
  AndersonType anderson_type = AndersonType::kTypeI;
  double time_limit_seconds = std::numeric_limits<double>::infinity();
  int num_threads = 0;  ///< 0: all hardware threads; at most kMaxThreads
  static constexpr int kMaxThreads = 1024;
  /// Feasibility repair after the iterations: alternating projections onto the resource-side
  /// and the demand-side feasible sets until every constraint holds within feasibility_tolerance.
  bool repair = true;
  int repair_max_rounds = 2000;
  FinalIterate final_iterate = FinalIterate::kDemandSide;
  EntryCostSide entry_cost_side = EntryCostSide::kResource;
  double feasibility_tolerance = 1e-6;
  /// Integer variables: the continuous relaxation is solved first, then `integer_iterations`
  /// further ADMM iterations in which each block solves its own small mixed-integer problem
  /// exactly (branch and bound over its continuous solver), as the published DeDe does.
  int integer_iterations = 400;
  /// Factor applied to rho at every termination check of the integer phase until the copies
  /// agree (1 keeps rho fixed).
  double integer_rho_growth = 1.3;
  int block_node_limit = 20000;  ///< branch-and-bound nodes per block solve
  /// Stop on the certified gap (SolveSummary::gap) instead of the residuals: at checks spaced
  /// by a quarter of the iterations so far, the iterate is repaired (AdmmSolver::SetRepairer,
  /// else the engine's repair) and, if its gap to the best bound is within gap_tolerance, the
  /// solve ends there (kConverged; with fill_after_max_min the first stage stops within
  /// gap_tolerance - fill_slack, which the second stage may spend, when the tolerance is above
  /// twice the slack). The time limit and the iteration budget still end it. 0: off (the
  /// residuals decide). Continuous problems (integer ones: the relaxation's bound certifies no
  /// integral point before the integer phase).
  double gap_tolerance = 0.0;
  bool verbose = false;  ///< print the residual trace to stderr
};

/// One termination check.
struct IterationSummary {
  int iteration = 0;
  double primal_residual = 0, dual_residual = 0;
  double primal_tolerance = 0, dual_tolerance = 0;
  /// max(||x||, ||z||) over the consensus pairs: primal_residual / primal_scale is the relative
  /// disagreement of the two copies.
  double primal_scale = 0;
  double rho = 0;
  double objective = 0;  ///< objective at the demand-side iterate (user's sense)
  /// The Lagrangian bound of this check (user's sense: a lower bound when minimising, an upper
  /// bound when maximising; NaN: not computed, -inf / +inf: none at these multipliers).
  double bound = std::numeric_limits<double>::quiet_NaN();
  double seconds = 0;  ///< since the solve started
};

struct SolveSummary {
  std::string BriefReport() const;  ///< one line
  std::string FullReport() const;   ///< a table with the residual trace
  /// True if the returned allocation satisfies every constraint within the feasibility
  /// tolerance and the termination is kConverged or kConvergedInaccurate.
  bool IsSolutionUsable() const;

  Termination termination = Termination::kFailure;
  std::string message = "Solve was not called.";
  std::string method;   ///< "admm", "clp", "cbc", ...
  int iterations = -1;  ///< -1: not computed
  int rho_updates = -1;
  int anderson_steps = -1;       ///< extrapolations used (-1: acceleration off)
  int anderson_rejections = -1;  ///< extrapolations undone by the safeguard
  int fill_iterations = -1;      ///< second stage of a work-conserving max-min (-1: none)
  /// The scaling in effect at the end: entry penalties are rho times a factor in
  /// [entry_weight_min, entry_weight_max] (AdmmOptions::equilibrate times the block factors of
  /// block_rho_balancing), the global term's copies rho times global_weight times a factor of
  /// their own in [copy_factor_min, copy_factor_max] (-1: no global term).
  double entry_weight_min = -1, entry_weight_max = -1, global_weight = -1;
  double copy_factor_min = -1, copy_factor_max = -1;
  int repair_rounds = -1;
  int num_threads = -1;
  double rho = -1;
  double primal_residual = -1, dual_residual = -1;
  double objective = std::numeric_limits<double>::quiet_NaN();  ///< at the returned allocation
  /// A proven bound on the optimum (user's sense: no allocation is better than it): Clp's or
  /// Cbc's dual bound, or the best of the ADMM checks' Lagrangian bounds (NaN: none).
  double bound = std::numeric_limits<double>::quiet_NaN();
  /// The certified gap of the returned allocation: |bound - objective| / max(|bound|,
  /// |objective|, 1e-9), the allocation's distance from the optimum at most (NaN: no bound or
  /// no feasible allocation). The round pipeline recomputes it for the allocation it returns.
  double gap = std::numeric_limits<double>::quiet_NaN();
  double max_violation = -1;  ///< of the returned allocation, see Problem::MeasureViolation
  bool feasible = false;      ///< max_violation <= feasibility tolerance
  double setup_seconds = -1, solve_seconds = -1, repair_seconds = -1, total_seconds = -1;
  double resource_seconds = -1, demand_seconds = -1;  ///< time in each half step
  /// Which allocation the round returned (set by the round pipeline for ADMM rounds): "solver"
  /// (the solver's answer after the plugin's repair), "seed" (the plugin's repair of nothing:
  /// its greedy or equal-share allocation) or "previous" (the previous round's allocation
  /// repaired to this round's state), whichever is feasible and best by the objective (only
  /// "solver" when the plugin's repair is not pure: DomainPlugin::RepairIsPure); empty for the
  /// other methods. seed_objective: the seed's objective (NaN: none).
  std::string returned;
  double seed_objective = std::numeric_limits<double>::quiet_NaN();
  /// The round's split beside setup/solve/repair (-1: none): the seed and the candidates'
  /// repairs before the solve, and the work-conserving fill of a max-min (inside solve_seconds).
  double seed_seconds = -1, fill_seconds = -1;
  std::vector<IterationSummary> trace;
};

/// The certified gap of an allocation whose objective is `objective` (user's sense) given a
/// proven bound on the optimum: max(0, distance) / max(|bound|, |objective|, 1e-9), the
/// distance taken in the objective's sense; NaN when either is not finite.
double CertifiedGap(ObjectiveSense sense, double objective, double bound);

/// Values indexed by VarId.
struct Allocation {
  std::vector<double> values;
  double operator[](VarId v) const { return values[v]; }
};

/// Simplex or interior point for the first solve of a continuous LP.
enum class LpMethod : std::uint8_t {
  kAuto,     ///< Clp's initialSolve (its own choice, usually the dual simplex)
  kDual,     ///< dual simplex
  kPrimal,   ///< primal simplex: every interrupted iterate is primal feasible
  kBarrier,  ///< interior point with crossover (much faster on large path LPs; see BENCHMARKS.md)
};
const char* LpMethodName(LpMethod m);

struct ExactOptions {
  double time_limit_seconds = 600;
  /// Log terms and quadratic terms of integer problems are handled by outer approximation
  /// (tangent cuts) until the relative gap is below this.
  double cut_tolerance = 1e-7;
  int max_cut_rounds = 500;
  double mip_gap = 1e-9;
  /// Quadratic costs of continuous problems: false (default) handles them like integer
  /// problems, by outer approximation with tangent cuts, solved with Clp's dual simplex; true
  /// uses Clp's QP primal, which is faster but in our random-QP property tests reported
  /// non-optimal and even infeasible points as optimal, and can ignore the time limit.
  bool use_clp_qp = false;
  /// Continuous LPs only; cut rounds and MILPs keep the dual simplex / Cbc.
  LpMethod lp_method = LpMethod::kAuto;
  /// Work-conserving max-min, as AdmmOptions::fill_after_max_min: after the LP optimum, the
  /// total of the max-min expressions is maximised with each kept at the minimum (less
  /// fill_slack), warm from the optimal basis. Plain LPs only (no cuts, no integers).
  bool fill_after_max_min = false;
  double fill_slack = 1e-3;
  bool verbose = false;
};

}  // namespace dede
