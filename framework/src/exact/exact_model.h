// The exact baseline's model and solver (see exact_solver.cpp for the reformulations), shared
// by exact_solver.cpp (the model, cuts, the run) and exact_rounds.cpp (one Clp or Cbc round).
#pragma once

#include <fmt/format.h>

#include <CbcHeuristic.hpp>
#include <CbcHeuristicFPump.hpp>
#include <CbcHeuristicLocal.hpp>
#include <CbcModel.hpp>
#include <CglClique.hpp>
#include <CglFlowCover.hpp>
#include <CglGomory.hpp>
#include <CglKnapsackCover.hpp>
#include <CglMixedIntegerRounding2.hpp>
#include <CglProbing.hpp>
#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
#include <CoinError.hpp>
#include <CoinFinite.hpp>
#include <CoinMessageHandler.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "dede/problem.h"
#include "dede/solver.h"

namespace dede::internal::exact {

using Clock = std::chrono::steady_clock;

// The log argument is kept at or above this so every tangent cut is finite and log(expr) is
// defined at every returned allocation.
inline constexpr double kLogFloor = 1e-8;
// Distance from an integer below which a Cbc value is snapped to it: Cbc's integer tolerance is
// 1e-7, so snapping removes solver noise without moving a value that is really fractional.
inline constexpr double kIntegerSnap = 1e-6;
// Returned allocations with a violation (Problem::MeasureViolation) up to this are feasible.
inline constexpr double kFeasibilityTolerance = 1e-6;
// How often the outer approximation may push its outermost cuts 100x further out when its
// relaxation is unbounded but the problem itself is not (see HasImprovingRay).
inline constexpr int kMaxUnboundedRetries = 10;
// A recession direction that improves the normalised objective by more than this proves the
// problem unbounded.
inline constexpr double kRayTolerance = 1e-7;
inline constexpr int kInitialCutPoints = 8;
// A plain LP's bounds are multiplied by a power of two that brings the largest finite nonzero
// one up to (kPrimalScaleTarget / 2, kPrimalScaleTarget] while Clp solves it (never down: see
// ExactSolver::ChoosePrimalScale).
inline constexpr double kPrimalScaleTarget = 1024.0;

inline double Seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

inline std::string Num(double value) { return fmt::format("{:.10g}", value); }

// Clp and Cbc spell infinity as COIN_DBL_MAX.
inline double ToCoin(double value) {
  if (value >= 1e30) return COIN_DBL_MAX;
  if (value <= -1e30) return -COIN_DBL_MAX;
  return value;
}

inline bool IsFinite(double value) { return std::isfinite(value); }

// The model under construction, row-major, plus its column data.
struct LinearModel {
  std::vector<double> col_lower, col_upper, cost;
  std::vector<char> is_integer;
  std::vector<double> row_lower, row_upper;
  std::vector<CoinBigIndex> row_start{0};
  std::vector<int> row_index;
  std::vector<double> row_value;

  int num_cols() const { return static_cast<int>(cost.size()); }
  int num_rows() const { return static_cast<int>(row_lower.size()); }

  int AddColumn(double lower, double upper, double objective, bool integer) {
    col_lower.push_back(ToCoin(lower));
    col_upper.push_back(ToCoin(upper));
    cost.push_back(objective);
    is_integer.push_back(integer ? 1 : 0);
    return num_cols() - 1;
  }
  void AddRow(const std::vector<int>& index,
              const std::vector<double>& value,
              double lower,
              double upper) {
    row_index.insert(row_index.end(), index.begin(), index.end());
    row_value.insert(row_value.end(), value.begin(), value.end());
    row_start.push_back(static_cast<CoinBigIndex>(row_index.size()));
    row_lower.push_back(ToCoin(lower));
    row_upper.push_back(ToCoin(upper));
  }
  CoinPackedMatrix Matrix() const {
    std::vector<int> length(num_rows());
    for (int i = 0; i < num_rows(); ++i)
      length[i] = static_cast<int>(row_start[i + 1] - row_start[i]);
    return CoinPackedMatrix(false,
                            num_cols(),
                            num_rows(),
                            row_start.back(),
                            row_value.data(),
                            row_index.data(),
                            row_start.data(),
                            length.data());
  }
};

// weight * log(expr) through column s.
struct LogAux {
  int column = -1;
  std::vector<int> index;
  std::vector<double> coef;
  double constant = 0.0;
  double weight = 0.0;
  double range_lower = -kInfinity;  // of expr over the variable bounds
  double range_upper = kInfinity;
  std::vector<double> points;  // tangent points of the cuts in the model

  double Expr(const double* x) const {
    double e = constant;
    for (std::size_t k = 0; k < index.size(); ++k) e += coef[k] * x[index[k]];
    return e;
  }
};

// q * v^2 (integer problems) through column t >= v^2.
struct SquareAux {
  int var = -1;
  int column = -1;
  std::vector<double> points;
};

// One solve of the current model.
struct RoundResult {
  enum class Status { kOptimal, kInfeasible, kUnbounded, kTimeLimit, kFailure };
  Status status = Status::kFailure;
  std::vector<double> x;       // all columns; empty if the solver has no point
  bool x_is_solution = false;  // x is feasible (an incumbent) for the round's model
  double internal_objective = 0.0;
  double internal_bound = -COIN_DBL_MAX;
  int iterations = 0;
  int nodes = 0;
  std::string detail;
};

// Clp's and Cbc's messages as debug lines of the process log ("exact: Clp0006I ..."), where they
// printed to standard output themselves: they are written at `--log-level debug` (log level 1 of
// the solvers) and, like every log line, carry a time and a level.
class LogMessageHandler final : public CoinMessageHandler {
 public:
  int print() override;
  CoinMessageHandler* clone() const override { return new LogMessageHandler(*this); }
  // The solvers' own log level for the process log's: 1 (their summary) at debug, else 0.
  static int SolverLogLevel();
};

class ExactSolver {
 public:
  ExactSolver(const Problem& problem, const ExactOptions& options, Clock::time_point start)
      : problem_(problem), options_(options), start_(start) {
    sign_ = problem.objective_sense() == ObjectiveSense::kMaximize ? -1.0 : 1.0;
  }

  void Run(Allocation* allocation, SolveSummary* summary);

 private:
  void Build();
  // Plain LPs only: sets primal_scale_ from the model's bounds.
  void ChoosePrimalScale();
  void AddInitialCuts();
  void AddLogCut(int k, double e0);
  void AddSquareCut(int k, double v0);
  // Cuts at x wherever the linearisation misses by more than the tolerance; returns how many.
  int AddViolatedCuts(const std::vector<double>& x);
  // Moves every outer approximation's outermost cut point further out.
  void ExtendCuts();
  // True if the problem itself (not just its outer approximation) is unbounded: some
  // recession direction of the feasible set never worsens the objective and strictly improves
  // it, through the linear part or through a log argument that grows along it.
  bool HasImprovingRay();
  // Puts the exact nonlinear values into the auxiliary columns of x (feasible for every cut,
  // since tangents over-estimate log and under-estimate v^2).
  void RepairAuxiliary(std::vector<double>* x) const;
  double InternalObjective(const std::vector<double>& x) const;
  // The problem's variables out of a model point, integers snapped; and their objective.
  std::vector<double> UserValues(const std::vector<double>& x) const;
  double UserObjective(const std::vector<double>& x) const;
  double Remaining() const;

  // Loads the model into clp_ (first) or appends the rows added since, bounds times
  // primal_scale_.
  void LoadClpModel(bool first);
  // first: load and solve from scratch; after_unbounded: the previous round was unbounded.
  RoundResult SolveClpRound(bool first, bool after_unbounded);
  RoundResult SolveCbcRound(const std::vector<double>* start);
  bool RetryUnbounded(RoundResult* round, int* retries);
  void EndOnFailedRound(const RoundResult& previous,
                        bool outer,
                        int rounds,
                        RoundResult* round,
                        Termination* termination,
                        std::string* message,
                        bool* have_bound) const;

  // Work-conserving max-min on a plain LP: fixes alpha at the optimum (less fill_slack) and
  // re-solves for the largest total of the expressions, warm. Returns a note for the message.
  std::string FillAfterMaxMin(RoundResult* round);
  void Finish(const RoundResult& round,
              Termination termination,
              const std::string& message,
              bool have_bound,
              Allocation* allocation,
              SolveSummary* summary);

  const Problem& problem_;
  const ExactOptions& options_;
  Clock::time_point start_;
  double sign_ = 1.0;

  LinearModel model_;
  std::vector<LogAux> logs_;
  std::vector<SquareAux> squares_;
  bool integer_ = false;
  bool quadratic_objective_ = false;  // Clp QP: diagonal of 2 * sign * q
  int num_cuts_ = 0;
  int base_rows_ = 0;      // rows before the first tangent cut: constraints, epigraph, log floors
  int alpha_column_ = -1;  // the global term's epigraph column, or -1
  // Clp solves for primal_scale_ * x: every row and column bound is multiplied by it (an exact
  // power of two), costs stay, so duals and reduced costs are unchanged and Clp's absolute
  // primal tolerance (1e-7) becomes 1e-7 / primal_scale_ in the model's units. Clp's points
  // and objective are divided by it again (SolveClpRound, FillAfterMaxMin). 1 unless
  // ChoosePrimalScale applies.
  double primal_scale_ = 1.0;

  // Before clp_, which holds a pointer to it: destroyed after it.
  LogMessageHandler log_handler_;
  ClpSimplex clp_;
  int clp_rows_loaded_ = 0;
  bool qp_ray_checked_ = false;
  bool qp_unbounded_ = false;
};

}  // namespace dede::internal::exact
