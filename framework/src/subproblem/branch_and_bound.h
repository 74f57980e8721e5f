// Depth-first branch and bound for blocks with integral variables, over any continuous block
// solver of the same structure (which ignores the integrality flags).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"

namespace dede::internal {

class BranchAndBoundSolver final : public BlockSolver {
 public:
  // Integrality is tested with this absolute tolerance; incumbents are rounded exactly.
  static constexpr double kIntegralityTolerance = 1e-9;

  // `relaxation` must have been created for `structure` (integrality ignored).
  static std::unique_ptr<BranchAndBoundSolver> Create(std::unique_ptr<BlockSolver> relaxation,
                                                      const BlockProblem& structure,
                                                      const BlockSolverOptions& options);

  // kOptimal: proven optimal (up to a relative objective gap of 1e-9).
  // kNodeLimit: options.node_limit relaxations were solved before the search finished; *v is
  //   the best integral point found (always one when this status is returned).
  // kInfeasible: no integral point satisfies the rows and bounds.
  // kUnbounded: a relaxation was unbounded.
  // kError: a relaxation failed, or the node limit was hit before any integral point.
  // *v is only written for kOptimal and kNodeLimit. An integral rounding of *v on entry
  // is tried first (integral variables fixed, the rest re-optimized) as the first incumbent.
  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  std::string name() const override { return "bnb(" + relaxation_->name() + ")"; }
  std::string last_error() const override { return error_; }

  // Block objective (EvaluateBlockObjective) of the point returned by the last Solve.
  double objective() const { return objective_; }
  // Relaxations solved by the last Solve.
  int nodes() const { return nodes_; }

 private:
  BranchAndBoundSolver() = default;

  // Solves the relaxation with the integral variables' bounds set to node_lo / node_hi.
  BlockStatus SolveNode(const std::vector<double>& node_lo,
                        const std::vector<double>& node_hi,
                        std::vector<double>* x);

  BlockSolverOptions options_;
  bool PastDeadline() const {
    if (options_.deadline_ns == nullptr) return false;
    const std::int64_t deadline = options_.deadline_ns->load(std::memory_order_relaxed);
    if (deadline == 0) return false;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count() > deadline;
  }
  std::unique_ptr<BlockSolver> relaxation_;
  std::vector<int> integral_vars_;
  BlockProblem work_;                // the caller's problem with node bounds
  std::uint64_t work_revision_ = 0;  // bumped on every bound change seen by the relaxation
  std::uint64_t revision_ = 0;
  bool loaded_ = false;
  double objective_ = 0.0;
  int nodes_ = 0;
  std::string error_;
};

}  // namespace dede::internal
