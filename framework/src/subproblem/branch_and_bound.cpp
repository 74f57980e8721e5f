#include "subproblem/branch_and_bound.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "subproblem/separable_solver.h"

namespace dede::internal {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A node is pruned when its relaxation cannot improve the incumbent by more than this
// (relative to max(1, |incumbent|)).
constexpr double kRelativeGap = 1e-9;

struct Node {
  std::vector<double> lo, hi;  // bounds of the integral variables
};

}  // namespace

std::unique_ptr<BranchAndBoundSolver> BranchAndBoundSolver::Create(
    std::unique_ptr<BlockSolver> relaxation,
    const BlockProblem& structure,
    const BlockSolverOptions& options) {
  std::unique_ptr<BranchAndBoundSolver> solver(new BranchAndBoundSolver());
  solver->relaxation_ = std::move(relaxation);
  solver->options_ = options;
  for (int i = 0; i < static_cast<int>(structure.integral.size()); ++i) {
    if (structure.integral[i]) solver->integral_vars_.push_back(i);
  }
  return solver;
}

BlockStatus BranchAndBoundSolver::SolveNode(const std::vector<double>& node_lo,
                                            const std::vector<double>& node_hi,
                                            std::vector<double>* x) {
  for (size_t k = 0; k < integral_vars_.size(); ++k) {
    work_.lower[integral_vars_[k]] = node_lo[k];
    work_.upper[integral_vars_[k]] = node_hi[k];
  }
  work_.revision = ++work_revision_;
  ++nodes_;
  return relaxation_->Solve(work_, x);
}

BlockStatus BranchAndBoundSolver::Solve(const BlockProblem& problem, std::vector<double>* v) {
  error_.clear();
  nodes_ = 0;
  const int n = problem.num_vars();
  if (!loaded_ || problem.revision != revision_) {
    const std::uint64_t keep = work_revision_;
    work_ = problem;
    work_revision_ = keep;
    revision_ = problem.revision;
    loaded_ = true;
  } else {
    work_.linear = problem.linear;
    work_.prox_target = problem.prox_target;
  }
  // Root bounds of the integral variables, rounded inward.
  const size_t ni = integral_vars_.size();
  Node root{std::vector<double>(ni), std::vector<double>(ni)};
  for (size_t k = 0; k < ni; ++k) {
    const int i = integral_vars_[k];
    root.lo[k] = std::ceil(problem.lower[i] - kIntegralityTolerance);
    root.hi[k] = std::floor(problem.upper[i] + kIntegralityTolerance);
    if (root.lo[k] > root.hi[k]) {
      error_ = "integral variable " + std::to_string(i) + " has no integer in its bounds";
      return BlockStatus::kInfeasible;
    }
  }

  double incumbent = kInf;
  std::vector<double> best, x;
  auto accept = [&](std::vector<double>& point) {
    for (int i : integral_vars_) point[i] = std::round(point[i]);
    const double obj = EvaluateBlockObjective(problem, point);
    if (obj < incumbent) {
      incumbent = obj;
      best = point;
    }
  };

  // Warm start: the previous solution's integral part, rounded into the root box, with the
  // continuous variables re-optimized, becomes the first incumbent. It is tried right after
  // the root relaxation, and only if that one is fractional (an integral root needs nothing
  // else). The previous point also picks the child explored first.
  std::vector<double> previous;
  if (static_cast<int>(v->size()) == n &&
      std::all_of(v->begin(), v->end(), [](double x) { return std::isfinite(x); })) {
    previous = *v;
  }
  auto try_previous = [&]() {
    Node fixed = root;
    for (size_t k = 0; k < ni; ++k) {
      fixed.lo[k] = fixed.hi[k] =
          std::clamp(std::round(previous[integral_vars_[k]]), root.lo[k], root.hi[k]);
    }
    x = previous;
    if (SolveNode(fixed.lo, fixed.hi, &x) == BlockStatus::kOptimal) accept(x);
  };

  std::vector<Node> stack;
  stack.push_back(root);
  bool limit_hit = false, at_root = true;
  bool out_of_time = false;
  while (!stack.empty()) {
    if (nodes_ >= options_.node_limit) {
      limit_hit = true;
      break;
    }
    if (PastDeadline()) {
      limit_hit = out_of_time = true;
      break;
    }
    Node node = std::move(stack.back());
    stack.pop_back();
    x = best.empty() ? (previous.empty() ? std::vector<double>(n, 0.0) : previous) : best;
    const BlockStatus status = SolveNode(node.lo, node.hi, &x);
    if (status == BlockStatus::kInfeasible) {
      if (at_root) break;  // the relaxation of the whole block is infeasible
      continue;
    }
    if (status != BlockStatus::kOptimal) {
      error_ = "relaxation (" + relaxation_->name() + ") returned " + BlockStatusName(status) +
               ": " + relaxation_->last_error();
      return status == BlockStatus::kUnbounded ? BlockStatus::kUnbounded : BlockStatus::kError;
    }
    const double bound = EvaluateBlockObjective(problem, x);
    if (bound >= incumbent - kRelativeGap * std::max(1.0, std::fabs(incumbent))) continue;
    // Most fractional integral variable.
    int branch = -1;
    double worst = kIntegralityTolerance;
    for (size_t k = 0; k < ni; ++k) {
      const double value = x[integral_vars_[k]];
      const double frac = std::fabs(value - std::round(value));
      if (frac > worst) {
        worst = frac;
        branch = static_cast<int>(k);
      }
    }
    if (branch < 0) {
      accept(x);
      continue;
    }
    const double value = x[integral_vars_[branch]];
    const double down_value = std::floor(value);
    Node down = node, up = std::move(node);
    down.hi[branch] = down_value;
    up.lo[branch] = down_value + 1.0;
    // Depth first; the child holding the previous solution's value (else the nearer
    // rounding) is pushed last, so it is explored first.
    const double lean = previous.empty() ? value : previous[integral_vars_[branch]];
    if (lean - down_value < 0.5) {
      stack.push_back(std::move(up));
      stack.push_back(std::move(down));
    } else {
      stack.push_back(std::move(down));
      stack.push_back(std::move(up));
    }
    if (at_root && !previous.empty() && nodes_ < options_.node_limit) try_previous();
    at_root = false;
  }

  if (out_of_time) {
    // The caller's time budget is spent: hand back what there is (the caller reports the
    // time limit), rather than failing the whole solve.
    error_ = "deadline reached after " + std::to_string(nodes_) + " nodes" +
             (best.empty() ? "; no integral point found, *v unchanged" : "");
    if (!best.empty()) {
      objective_ = incumbent;
      v->swap(best);
    }
    return BlockStatus::kNodeLimit;
  }
  if (best.empty()) {
    if (limit_hit) {
      error_ = "node limit " + std::to_string(options_.node_limit) +
               " reached before any integral point was found";
      return BlockStatus::kError;
    }
    error_ = "no integral point satisfies the block's rows and bounds";
    return BlockStatus::kInfeasible;
  }
  objective_ = incumbent;
  v->swap(best);
  if (limit_hit) {
    error_ = "node limit " + std::to_string(options_.node_limit) +
             " reached; returning the best integral point found";
    return BlockStatus::kNodeLimit;
  }
  return BlockStatus::kOptimal;
}

}  // namespace dede::internal
