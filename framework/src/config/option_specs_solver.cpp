// The option registry's solver.* entries: the method, the keys every method reads, then
// solver.admm (AdmmOptions) and solver.exact (ExactOptions) in declaration order.
#include <string>
#include <utility>
#include <vector>

#include "config/deployment.h"
#include "config/spec_builders.h"

namespace dede::internal::spec_detail {
namespace {

// The penalty, its updates and the acceleration: how the iterations converge.
void AddAdmmIterationSpecs(std::vector<Spec>* out) {
  std::vector<Spec>& s = *out;
  // clang-format off
  // solver.admm: AdmmOptions, in declaration order. Bounds are AdmmOptions::IsValid's.
  s.push_back(Int("solver.admm.max_iterations",
      [](auto& c) -> auto& { return c.admm.max_iterations; }, AtLeast(1),
      "Iteration budget of the continuous phase.", true, true));
  s.push_back(Double("solver.admm.rho", [](auto& c) -> auto& { return c.admm.rho; },
      AboveFinite(0),
      "Initial penalty, used when the solver starts cold (and from a stored allocation); "
      "residual balancing corrects a poor choice.", true, true));
  s.push_back(Double("solver.admm.relaxation",
      [](auto& c) -> auto& { return c.admm.relaxation; }, Open(0, 2),
      "Over-relaxation alpha: 1 is plain ADMM; 1.5-1.8 usually converges faster.", true, true));
  s.push_back(Double("solver.admm.eps_abs", [](auto& c) -> auto& { return c.admm.eps_abs; },
      AtLeastFinite(0),
      "Absolute tolerance of the primal and dual residuals (scaled by sqrt(n)); eps_abs or "
      "eps_rel must be > 0.", true, true));
  s.push_back(Double("solver.admm.eps_rel", [](auto& c) -> auto& { return c.admm.eps_rel; },
      AtLeastFinite(0), "Relative tolerance of the primal and dual residuals.", true, true));
  s.push_back(Int("solver.admm.check_termination_every",
      [](auto& c) -> auto& { return c.admm.check_termination_every; }, AtLeast(1),
      "Iterations between residual checks (each check is a parallel reduction).", true, true));
  s.push_back(Choice<RhoUpdate>("solver.admm.rho_update",
      [](auto& c) -> auto& { return c.admm.rho_update; },
      {{"fixed", RhoUpdate::kFixed}, {"residual_balancing", RhoUpdate::kResidualBalancing}},
      "fixed keeps rho; residual_balancing rescales it to balance the primal and dual "
      "residuals.", true));
  s.push_back(Int("solver.admm.rho_update_every",
      [](auto& c) -> auto& { return c.admm.rho_update_every; }, AtLeast(1),
      "Iterations between rho updates, each taken at the first residual check at or after "
      "its time.", true, true));
  s.push_back(Choice<BlockBalancing>("solver.admm.block_rho_balancing",
      [](auto& c) -> auto& { return c.admm.block_rho_balancing; },
      {{"off", BlockBalancing::kOff}, {"resource", BlockBalancing::kResource},
       {"demand", BlockBalancing::kDemand}},
      "With residual_balancing, give the entries of each block of this side a penalty factor "
      "of their own, balanced on the block's residuals (where residuals concentrate in a few "
      "blocks, e.g. saturated links); used when the solver is built.", false));
  s.push_back(Bool("solver.admm.equilibrate",
      [](auto& c) -> auto& { return c.admm.equilibrate; },
      "Scale each entry's penalty by the square of its largest constraint coefficient (over "
      "their geometric mean): Ruiz-style column scaling of the coupling; used when the solver "
      "is built.", false));
  s.push_back(Int("solver.admm.anderson_memory",
      [](auto& c) -> auto& { return c.admm.anderson_memory; }, Closed(0, 50),
      "Safeguarded Anderson acceleration: extrapolate the iteration's state from this many "
      "past ones every 10 iterations (type I); 0: off. Costs 2 memory + 7 doubles per "
      "shared entry.", true, true));
  // clang-format on
}

// Budgets, the repair, the integer phase and the stopping rule.
void AddAdmmRoundSpecs(std::vector<Spec>* out) {
  std::vector<Spec>& s = *out;
  // clang-format off
  s.push_back(Basic(Double("solver.admm.time_limit_seconds",
      [](auto& c) -> auto& { return c.admm.time_limit_seconds; }, Above(0),
      "Wall-clock budget of the whole round (seed, refresh, iterations, the plugin's repair "
      "and report; the engine's build, once per deployment, is outside it); .inf: none.",
      true, true)));
  s.push_back(Basic(Int("solver.admm.num_threads", [](auto& c) -> auto& { return c.admm.num_threads; },
      Closed(0, AdmmOptions::kMaxThreads), "Worker threads; 0: all hardware threads.", true,
      true)));
  s.push_back(Bool("solver.admm.repair", [](auto& c) -> auto& { return c.admm.repair; },
      "Repair feasibility after the iterations by alternating projections.", true));
  s.push_back(Int("solver.admm.repair_max_rounds",
      [](auto& c) -> auto& { return c.admm.repair_max_rounds; }, AtLeast(0),
      "Projection rounds the repair may use.", true, true));
  s.push_back(Choice<FinalIterate>("solver.admm.final_iterate",
      [](auto& c) -> auto& { return c.admm.final_iterate; },
      {{"demand", FinalIterate::kDemandSide}, {"resource", FinalIterate::kResourceSide}},
      "Copy of the shared entries the allocation is read from before the repair: demand (z, "
      "demand constraints hold) or resource (x, resource constraints hold). For capacity-bound "
      "problems whose plugin repair trims demands to fit, resource usually loses less.", true));
    s.push_back(Int("solver.admm.integer_iterations",
      [](auto& c) -> auto& { return c.admm.integer_iterations; }, AtLeast(0),
      "Iterations of the integer phase, in which each block solves its own mixed-integer "
      "problem.", true, true));
  s.push_back(Int("solver.admm.block_node_limit",
      [](auto& c) -> auto& { return c.admm.block_node_limit; }, AtLeast(1),
      "Branch-and-bound nodes per block solve; used when the block solvers are built.", false,
      true));
  s.push_back(Basic(Double("solver.admm.gap_tolerance",
      [](auto& c) -> auto& { return c.admm.gap_tolerance; }, Bounds{0, 1, false, true},
      "Stop once the allocation's certified gap (its distance from the optimum, proven by the "
      "checks' Lagrangian bound, relative) is at most this (0: off; continuous problems).",
      true, true)));
  // clang-format on
}

void AddExactSpecs(std::vector<Spec>* out) {
  std::vector<Spec>& s = *out;
  // clang-format off
  // solver.exact: ExactOptions, in declaration order. Bounds are the exact solver's.
  s.push_back(Basic(Double("solver.exact.time_limit_seconds",
      [](auto& c) -> auto& { return c.exact.time_limit_seconds; }, Above(0),
      "Wall-clock budget of the exact solve; .inf: none.", true)));
  s.push_back(Double("solver.exact.cut_tolerance",
      [](auto& c) -> auto& { return c.exact.cut_tolerance; }, AtLeastFinite(0),
      "Relative gap at which outer approximation of log and quadratic terms stops.", true));
  s.push_back(Int("solver.exact.max_cut_rounds",
      [](auto& c) -> auto& { return c.exact.max_cut_rounds; }, AtLeast(1),
      "Rounds of tangent cuts of the outer approximation.", true));
  s.push_back(Double("solver.exact.mip_gap", [](auto& c) -> auto& { return c.exact.mip_gap; },
      AtLeastFinite(0), "Relative MIP gap at which branch and cut stops.", true));
  s.push_back(Bool("solver.exact.use_clp_qp", [](auto& c) -> auto& { return c.exact.use_clp_qp; },
      "Continuous QPs with Clp's QP primal (faster, but unreliable) instead of tangent cuts.",
      true));
  s.push_back(Choice<LpMethod>("solver.exact.lp_method",
      [](auto& c) -> auto& { return c.exact.lp_method; },
      {{"auto", LpMethod::kAuto}, {"dual", LpMethod::kDual}, {"primal", LpMethod::kPrimal},
       {"barrier", LpMethod::kBarrier}},
      "First solve of a continuous LP: auto (Clp's choice, usually dual simplex), dual, primal "
      "(interrupted iterates stay feasible) or barrier (interior point + crossover; far faster "
      "on large path LPs).", true));
  // clang-format on
}

}  // namespace

void AddSolverSpecs(std::vector<Spec>* out) {
  std::vector<Spec>& s = *out;
  // clang-format off
  // solver
  s.push_back(Basic(Choice<SolverKind>("solver.kind", [](auto& c) -> auto& { return c.solver; },
      {{"admm", SolverKind::kAdmm}, {"exact", SolverKind::kExact}, {"plugin", SolverKind::kPlugin}},
      "admm: the DeDe ADMM solver (solver.admm); exact: one monolithic LP/MILP (solver.exact); "
      "plugin: a method of the plugin itself (solver.method), e.g. a POP or greedy baseline.",
      false)));
  s.push_back(Basic(String("solver.method", [](auto& c) -> auto& { return c.method; }, false, false,
      "With solver.kind: plugin, the plugin's method to run (`dede plugins` lists each "
      "plugin's methods); `none` otherwise.", false)));
  s.push_back(Choice<ColdStart>("solver.cold_start",
      [](auto& c) -> auto& { return c.cold_start; },
      {{"zero", ColdStart::kZero}, {"repair", ColdStart::kRepair}},
      "With solver.kind: admm, where the first solve of a run starts: zero, or the plugin's "
      "repair of an all-zero allocation (a domain heuristic: greedy routing for traffic "
      "engineering). A resumed run starts from its last stored allocation either way.",
      false));
  // Keys that every method reads (the measure of a round, the max-min second stage).
  s.push_back(Basic(Double("solver.feasibility_tolerance",
      [](auto& c) -> auto& { return c.admm.feasibility_tolerance; }, AboveFinite(0),
      "Constraint violation accepted as feasible, for every method: a round's `feasible` and "
      "the ADMM repair's target (relative to |rhs| where it exceeds 1).", true)));
  s.push_back(Basic(Bool("solver.fill_after_max_min",
      [](auto& c) -> auto& { return c.admm.fill_after_max_min; },
      "Work-conserving max-min, for admm and exact: after the max-min solve, maximise the total "
      "of the max-min expressions with each kept at or above the minimum found (continuous "
      "problems; the exact solver's plain LPs).", true)));
  s.push_back(Double("solver.fill_slack",
      [](auto& c) -> auto& { return c.admm.fill_slack; }, Bounds{0, 1, false, true},
      "Relative amount the second stage (fill_after_max_min) may lower the minimum found by the "
      "first (>= 0, < 1).", true));
  // clang-format on
  AddAdmmIterationSpecs(out);
  AddAdmmRoundSpecs(out);
  AddExactSpecs(out);
}

}  // namespace dede::internal::spec_detail
