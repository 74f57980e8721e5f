// One block subproblem of the ADMM engine, in the form every block solver accepts:
//
//   minimize   sum_i ( q_i v_i^2 + c_i v_i + (p_i / 2) (v_i - t_i)^2 )
//            - sum_k w_k log(a_k' v + b_k)
//   subject to rows: a_j' v (<=, =, >=) rhs_j,   l_i <= v_i <= u_i,   v_i integral if flagged
//
// p_i is the ADMM penalty rho for variables that have a copy on the other side and 0 for
// locals; t_i is the consensus target. The engine rewrites c, p, t (and, after a parameter
// change, bounds, rhs, coefficients, q and w) in place between solves; the structure (which
// variables, rows, row sparsity, log terms) is fixed when the solver is created.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dede/problem.h"

namespace dede::internal {

struct BlockRow {
  std::vector<int> index;   // local variable indices, distinct
  std::vector<double> coef;
  Sense sense = Sense::kLessEqual;
  double rhs = 0.0;
};

struct BlockLog {
  std::vector<int> index;
  std::vector<double> coef;
  double constant = 0.0;
  double weight = 1.0;  // >= 0: the block minimizes -weight * log(a'v + b)
};

struct BlockProblem {
  int num_vars() const { return static_cast<int>(lower.size()); }

  std::vector<double> lower, upper;
  std::vector<std::uint8_t> integral;
  std::vector<double> linear;      // c_i
  std::vector<double> quadratic;   // q_i >= 0
  std::vector<double> prox_weight; // p_i >= 0
  std::vector<double> prox_target; // t_i
  std::vector<BlockRow> rows;
  std::vector<BlockLog> logs;
  // Bumped by the engine whenever anything but linear / prox_target changed (bounds, rhs,
  // coefficients, quadratic, prox_weight, log weights), so solvers can skip re-loading them.
  std::uint64_t revision = 0;
};

enum class BlockStatus : std::uint8_t { kOptimal, kInfeasible, kUnbounded, kNodeLimit, kError };
const char* BlockStatusName(BlockStatus s);

struct BlockSolverOptions {
  double tolerance = 1e-10;   // root finding / KKT tolerance of the fast solvers
  int node_limit = 20000;     // branch and bound
  bool force_clp = false;     // tests and benchmarks: bypass the fast paths
  // Branch and bound stops exploring when steady_clock's time_since_epoch() in nanoseconds
  // passes *deadline_ns (0: no deadline), returning kNodeLimit with the best integral point
  // found (or *v unchanged if none). Owned by the caller, who may move it between solves.
  const std::atomic<std::int64_t>* deadline_ns = nullptr;
};

class BlockSolver {
 public:
  virtual ~BlockSolver() = default;
  // Solves `problem` (same structure as at creation). *v holds the previous solution on entry
  // (a warm start; size num_vars) and the new one on exit. Not thread-safe per instance;
  // distinct instances may run concurrently.
  virtual BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) = 0;
  // "clip", "one_row", "log", "clp", "bnb(clp)", ... for summaries and benchmarks.
  virtual std::string name() const = 0;
  // Human-readable reason for the last non-optimal status.
  virtual std::string last_error() const { return {}; }
};

// Picks the fastest exact solver for the block's structure:
//  * any integral variable -> branch and bound over the continuous solver below;
//  * no rows, separable terms -> closed form per variable (clip);
//  * one row, every variable strictly convex (q_i + p_i/2 > 0 or a one-variable log) ->
//    one-dimensional search on the row's multiplier;
//  * one multi-variable log term and at most one row -> nested root finding;
//  * two rows, every variable of both strictly convex -> Newton on the second row's
//    multiplier over the one-row search (two_row);
//  * otherwise, if some variables are affine images of a single other variable (their only
//    row is a two-variable equality) and folding them leaves a block of the shapes above ->
//    that solver on the reduced block (aggregate);
//  * otherwise Clp (QP), kept alive across solves.
// Returns nullptr and sets *error when no solver supports the structure.
std::unique_ptr<BlockSolver> CreateBlockSolver(const BlockProblem& structure,
                                               const BlockSolverOptions& options,
                                               std::string* error);

}  // namespace dede::internal
