// One round of the exact baseline's model: a Clp solve (LP or QP, warm after the first) or a
// Cbc branch and bound (see exact_model.h).
#include <string_view>

#include "core/logging.h"
#include "exact/exact_model.h"

namespace dede::internal::exact {

int LogMessageHandler::print() {
  std::string_view text = messageBuffer();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (!text.empty()) LogDebug("exact: {}", text);
  return 0;
}

int LogMessageHandler::SolverLogLevel() { return LogEnabled(LogLevel::kDebug) ? 1 : 0; }

namespace {

// bounds[0, count) times scale (ExactSolver::primal_scale_, a power of two); infinities stay.
std::vector<double> Scaled(const double* bounds, int count, double scale) {
  std::vector<double> out(bounds, bounds + count);
  for (double& b : out) {
    if (std::abs(b) < COIN_DBL_MAX) b *= scale;
  }
  return out;
}

}  // namespace

void ExactSolver::LoadClpModel(bool first) {
  if (first) {
    clp_.passInMessageHandler(&log_handler_);
    clp_.setLogLevel(LogMessageHandler::SolverLogLevel());
    const CoinPackedMatrix matrix = model_.Matrix();
    const int n = model_.num_cols(), m = model_.num_rows();
    const std::vector<double> col_lower = Scaled(model_.col_lower.data(), n, primal_scale_);
    const std::vector<double> col_upper = Scaled(model_.col_upper.data(), n, primal_scale_);
    const std::vector<double> row_lower = Scaled(model_.row_lower.data(), m, primal_scale_);
    const std::vector<double> row_upper = Scaled(model_.row_upper.data(), m, primal_scale_);
    clp_.loadProblem(matrix,
                     col_lower.data(),
                     col_upper.data(),
                     model_.cost.data(),
                     row_lower.data(),
                     row_upper.data());
    if (quadratic_objective_) {
      // Clp's objective is c'x + 1/2 x'Qx, so the diagonal of Q is 2 * (sign * q).
      std::vector<CoinBigIndex> start(n + 1, 0);
      std::vector<int> column;
      std::vector<double> element;
      for (int j = 0; j < n; ++j) {
        if (j < problem_.num_variables() && problem_.variable(j).quadratic_cost != 0.0) {
          column.push_back(j);
          element.push_back(2.0 * sign_ * problem_.variable(j).quadratic_cost);
        }
        start[j + 1] = static_cast<CoinBigIndex>(column.size());
      }
      clp_.loadQuadraticObjective(n, start.data(), column.data(), element.data());
    }
  } else if (model_.num_rows() > clp_rows_loaded_) {
    // Only cuts were added since the last solve: append them and warm-start from the basis.
    const int first_row = clp_rows_loaded_;
    const int count = model_.num_rows() - first_row;
    const CoinBigIndex offset = model_.row_start[first_row];
    std::vector<CoinBigIndex> starts(count + 1);
    for (int i = 0; i <= count; ++i) starts[i] = model_.row_start[first_row + i] - offset;
    const std::vector<double> lower =
        Scaled(model_.row_lower.data() + first_row, count, primal_scale_);
    const std::vector<double> upper =
        Scaled(model_.row_upper.data() + first_row, count, primal_scale_);
    clp_.addRows(count,
                 lower.data(),
                 upper.data(),
                 starts.data(),
                 model_.row_index.data() + offset,
                 model_.row_value.data() + offset);
  }
  clp_rows_loaded_ = model_.num_rows();
}

RoundResult ExactSolver::SolveClpRound(bool first, bool after_unbounded) {
  RoundResult result;
  LoadClpModel(first);

  const double remaining = Remaining();
  if (IsFinite(remaining)) {
    // Wall time only: Clp's other limit is the process's CPU time, which solves running in
    // parallel threads (POP's groups) use up together.
    clp_.setMaximumWallSeconds(std::max(remaining, 0.0));
  }
  int iterations = 0;
  if (quadratic_objective_) {
    // Clp's QP primal (reduced gradient) ends with a primal solution that lags its final basis
    // slightly (1e-8 relative on a 100x100 transport QP); a second pass from that basis
    // recomputes it, usually without an iteration. Clp's QP barrier would be faster on large
    // problems but aborts the process on an assertion for some unbounded ones.
    clp_.primal(first ? 0 : 1);
    iterations = clp_.numberIterations();
    if (clp_.status() == 0) {
      clp_.primal(1);
      iterations += clp_.numberIterations();
    }
  } else if (first) {
    switch (options_.lp_method) {
      case LpMethod::kAuto:
        clp_.initialSolve();
        break;
      case LpMethod::kDual:
        clp_.dual();
        break;
      case LpMethod::kPrimal:
        clp_.primal();
        break;
      case LpMethod::kBarrier: {
        // Presolve, interior point, crossover to a basis (later cut rounds warm-start from it).
        ClpSolve how;
        how.setSolveType(ClpSolve::useBarrier);
        clp_.initialSolve(how);
        break;
      }
    }
  } else if (after_unbounded) {
    // The basis is primal feasible but not dual feasible; the primal simplex also proves
    // unboundedness reliably, where the dual's artificial bounds can hide it.
    clp_.primal(1);
  } else {
    // Added cuts keep the basis dual feasible, the case the dual simplex is made for.
    clp_.dual();
  }
  result.iterations = quadratic_objective_ ? iterations : clp_.numberIterations();
  const int status = clp_.status();
  const int n = clp_.numberColumns();
  result.x.assign(clp_.primalColumnSolution(), clp_.primalColumnSolution() + n);
  for (double& value : result.x) value /= primal_scale_;
  result.internal_objective = clp_.objectiveValue() / primal_scale_;
  switch (status) {
    case 0:
      // Clp's QP primal does not detect unboundedness: it reports "optimal" with values near
      // 1e30. A convex QP is unbounded iff it is feasible and some recession direction that
      // leaves the quadratic variables alone decreases the linear cost. Cuts never change the
      // recession cone, so one check per solve is enough.
      if (quadratic_objective_ && !qp_ray_checked_) {
        qp_ray_checked_ = true;
        qp_unbounded_ = HasImprovingRay();
      }
      if (qp_unbounded_) {
        result.status = RoundResult::Status::kUnbounded;
        result.detail =
            "the objective decreases without bound along a recession direction "
            "that leaves every quadratic variable unchanged";
        break;
      }
      result.status = RoundResult::Status::kOptimal;
      result.x_is_solution = true;
      result.internal_bound = result.internal_objective;
      break;
    case 1:
      result.status = RoundResult::Status::kInfeasible;
      // Clp's sum is in its scaled units; reported in the model's.
      result.detail = "Clp proved the problem primal infeasible (sum of infeasibilities " +
                      Num(clp_.sumPrimalInfeasibilities() / primal_scale_) + ")";
      break;
    case 2:
      result.status = RoundResult::Status::kUnbounded;
      result.detail = "Clp proved the problem unbounded (dual infeasible)";
      break;
    case 3:
      // The iteration limit is Clp's default (unlimited), so only the clock stops it here.
      result.status = RoundResult::Status::kTimeLimit;
      result.detail = "Clp stopped on its time limit after " + std::to_string(result.iterations) +
                      " iterations";
      break;
    default:
      result.status = RoundResult::Status::kFailure;
      result.detail = "Clp stopped with status " + std::to_string(status) + " (secondary " +
                      std::to_string(clp_.secondaryStatus()) + ")";
      break;
  }
  return result;
}

RoundResult ExactSolver::SolveCbcRound(const std::vector<double>* start) {
  RoundResult result;
  OsiClpSolverInterface solver;
  const CoinPackedMatrix matrix = model_.Matrix();
  solver.loadProblem(matrix,
                     model_.col_lower.data(),
                     model_.col_upper.data(),
                     model_.cost.data(),
                     model_.row_lower.data(),
                     model_.row_upper.data());
  for (int j = 0; j < model_.num_cols(); ++j)
    if (model_.is_integer[j]) solver.setInteger(j);
  const int log_level = LogMessageHandler::SolverLogLevel();
  solver.passInMessageHandler(&log_handler_);
  solver.getModelPtr()->passInMessageHandler(&log_handler_);
  solver.messageHandler()->setLogLevel(log_level);
  solver.getModelPtr()->setLogLevel(log_level);

  CbcModel cbc(solver);
  cbc.passInMessageHandler(&log_handler_);
  cbc.solver()->passInMessageHandler(&log_handler_);
  cbc.setLogLevel(log_level);
  cbc.messageHandler()->setLogLevel(log_level);
  cbc.solver()->messageHandler()->setLogLevel(log_level);
  cbc.setUseElapsedTime(true);
  const double remaining = Remaining();
  if (IsFinite(remaining)) cbc.setMaximumSeconds(std::max(remaining, 0.0));
  cbc.setAllowableFractionGap(options_.mip_gap);
  cbc.setAllowableGap(std::max(1e-10, options_.mip_gap * 1e-3));

  // The standard Cbc ingredients (as in its own examples): without cuts and heuristics a plain
  // branch and bound is orders of magnitude slower on anything but toy problems.
  CglProbing probing;
  probing.setUsingObjective(true);
  probing.setMaxPass(3);
  probing.setMaxProbe(100);
  probing.setMaxLook(50);
  probing.setRowCuts(3);
  CglGomory gomory;
  gomory.setLimit(300);
  CglKnapsackCover knapsack;
  CglClique clique;
  clique.setStarCliqueReport(false);
  clique.setRowCliqueReport(false);
  CglMixedIntegerRounding2 mir;
  CglFlowCover flow;
  cbc.addCutGenerator(&probing, -1, "Probing");
  cbc.addCutGenerator(&gomory, -1, "Gomory");
  cbc.addCutGenerator(&knapsack, -1, "Knapsack");
  cbc.addCutGenerator(&clique, -1, "Clique");
  cbc.addCutGenerator(&mir, -1, "MixedIntegerRounding2");
  cbc.addCutGenerator(&flow, -1, "FlowCover");
  CbcRounding rounding(cbc);
  cbc.addHeuristic(&rounding);
  CbcHeuristicLocal local(cbc);
  cbc.addHeuristic(&local);
  CbcHeuristicFPump pump(cbc);
  cbc.addHeuristic(&pump);

  if (start != nullptr) {
    // The previous round's point with exact auxiliary values is feasible for this round's
    // model (tangents never cut off the curve), so it is a valid first incumbent.
    cbc.setBestSolution(
        start->data(), static_cast<int>(start->size()), InternalObjective(*start), true);
  }
  // Solving the root LP here (as Cbc's own examples do) lets its iterations be counted:
  // CbcModel's counter only covers the tree search.
  // CbcModel's own limit is only checked between its phases; the root LP of a large model
  // can take longer than the whole budget, so Clp under Cbc gets the same limit.
  if (IsFinite(remaining)) {
    if (auto* osi = dynamic_cast<OsiClpSolverInterface*>(cbc.solver())) {
      osi->getModelPtr()->setMaximumWallSeconds(std::max(remaining, 0.0));
    }
  }
  cbc.initialSolve();
  const int root_iterations = cbc.solver()->getIterationCount();
  if (const auto* osi = dynamic_cast<const OsiClpSolverInterface*>(cbc.solver());
      osi != nullptr && IsFinite(remaining) && osi->getModelPtr()->status() == 3) {
    // The root LP stopped on the limit (Clp status 3); Cbc would read the unfinished LP as
    // infeasible. The warm start, if any, is the best point known.
    result.status = RoundResult::Status::kTimeLimit;
    result.iterations = root_iterations;
    result.detail = "Cbc's root LP stopped on the time limit after " +
                    std::to_string(root_iterations) + " simplex iterations" +
                    (start != nullptr ? "" : ", without an integer-feasible solution");
    if (start != nullptr) {
      result.x = *start;
      result.x_is_solution = true;
      result.internal_objective = InternalObjective(*start);
    }
    return result;
  }
  cbc.branchAndBound();
  // Cbc 2.10 ends a search whose time ran out before or during the root node's cuts with
  // status 0 and no incumbent, which isProvenInfeasible() reads as a proof: a solve that used
  // its time is a time limit whatever the status says (seen on the load-balancing MILP of
  // configs/lb_small.yaml, whose root LP takes most of a short budget).
  const bool out_of_time = cbc.isSecondsLimitReached() ||
                           (IsFinite(remaining) && Remaining() <= 0.05 * std::max(remaining, 0.0));

  result.iterations = root_iterations + cbc.getIterationCount();
  result.nodes = cbc.getNodeCount();
  const double* best = cbc.bestSolution();
  if (best != nullptr) {
    result.x.assign(best, best + model_.num_cols());
    result.x_is_solution = true;
    result.internal_objective = cbc.getObjValue();
  } else if (cbc.solver() != nullptr && cbc.solver()->getColSolution() != nullptr) {
    const double* relaxed = cbc.solver()->getColSolution();
    result.x.assign(relaxed, relaxed + model_.num_cols());
  }
  result.internal_bound = cbc.getBestPossibleObjValue();
  const std::string counts = std::to_string(result.nodes) + " nodes, " +
                             std::to_string(result.iterations) + " simplex iterations";
  if (cbc.isContinuousUnbounded()) {
    result.status = RoundResult::Status::kUnbounded;
    result.detail = "Cbc: the continuous relaxation is unbounded";
  } else if (out_of_time && !(cbc.isProvenOptimal() && best != nullptr)) {
    result.status = RoundResult::Status::kTimeLimit;
    result.detail = "Cbc stopped on its time limit (" + counts + ")" +
                    (best ? "" : " without an integer-feasible solution");
  } else if (cbc.isProvenInfeasible()) {
    result.status = RoundResult::Status::kInfeasible;
    result.detail = "Cbc proved the problem infeasible (" + counts + ")";
  } else if (cbc.isProvenOptimal() && best != nullptr) {
    result.status = RoundResult::Status::kOptimal;
    result.detail = "Cbc proved optimality (" + counts + ")";
  } else {
    result.status = RoundResult::Status::kFailure;
    result.detail = "Cbc stopped with status " + std::to_string(cbc.status()) + ", secondary " +
                    std::to_string(cbc.secondaryStatus()) + " (" + counts + ")";
  }
  return result;
}

}  // namespace dede::internal::exact
