/// \file
/// The framework's own solvers, for host programs (the runtime, the tools, the tests): the DeDe
/// ADMM solver (linked from dede_admm) and the exact baseline (dede_exact). Not part of the
/// installed plugin SDK, which does not link them: a plugin solves through the SolverServices
/// the host lends it (dede/plugin.h). The types both share are in dede/solver.h.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "dede/problem.h"
#include "dede/solver.h"
#include "dede/status.h"

namespace dede {

namespace internal {
class AdmmEngine;
class BlockExecutor;
}  // namespace internal

/// The DeDe ADMM solver. Holds the subproblem solvers and the iterates between solves, so the
/// next Solve after a parameter change warm-starts (x, z, duals and rho). The problem must
/// outlive the solver and must not change structure after construction.
class AdmmSolver {
 public:
  AdmmSolver(const Problem& problem, const AdmmOptions& options);
  /// The blocks run where `executor` says (the host's wiring: mpi/world.h); this process builds
  /// only its own blocks' solvers.
  AdmmSolver(const Problem& problem,
             const AdmmOptions& options,
             std::unique_ptr<internal::BlockExecutor> executor);
  ~AdmmSolver();
  AdmmSolver(const AdmmSolver&) = delete;
  AdmmSolver& operator=(const AdmmSolver&) = delete;

  /// Never throws. On kFailure *allocation is left unchanged.
  void Solve(std::stop_token stop, Allocation* allocation, SolveSummary* summary);
  void Solve(Allocation* allocation, SolveSummary* summary) { Solve({}, allocation, summary); }
  /// Forget the iterates: the next solve starts cold.
  void Reset();
  /// Start the next solve from a full assignment (by VarId), e.g. an allocation restored from
  /// the database after a restart. Ignored if the size does not match.
  void WarmStart(const std::vector<double>& values);
  /// Options that take effect at the next Solve (threads, tolerances, budgets: the keys whose
  /// lifetime is "per solve" in `dede options --all`). Refused, with nothing changed, when
  /// `options` is invalid or changes one that is read when the solver is built
  /// (block_rho_balancing, equilibrate, entry_cost_side, block_node_limit): build a new solver
  /// for those.
  Status SetOptions(const AdmmOptions& options);
  /// Called on the solving thread at every termination check with that check's summary (after
  /// it is added to the trace); returning false ends the solve as kCancelled, with the current
  /// iterate returned as for a stop request. For progress displays and benchmarks that stop
  /// at their own criterion. An empty function (the default) is not called.
  using Observer = std::function<bool(const IterationSummary&)>;
  void SetObserver(Observer observer);
  /// How AdmmOptions::gap_tolerance's trials finish an iterate before they measure its
  /// certified gap, after the engine's repair (AdmmOptions::repair): the host's own repair (a
  /// domain plugin's), called on the solving thread with a full assignment to repair in place;
  /// false: it could not. Empty (the default): the engine's repair alone.
  using Repairer = std::function<bool(std::vector<double>*)>;
  void SetRepairer(Repairer repairer);
  const AdmmOptions& options() const;
  /// Why the solver could not be built (empty if it can be used).
  const std::string& setup_error() const;

 private:
  std::unique_ptr<internal::AdmmEngine> engine_;
};

/// The whole problem as one LP/QP (Clp) or MILP (Cbc). Same summary type. Never throws.
void SolveExact(const Problem& problem,
                const ExactOptions& options,
                Allocation* allocation,
                SolveSummary* summary);

}  // namespace dede
