// The "two_row" block solver: a separable block with two rows, every variable of both rows
// strictly convex (q_i + p_i / 2 > 0 or a one-variable log term).
//
// With a multiplier mu on the second row b'v (sense) rhs_b, every mu leaves a one-row separable
// problem (linear terms g + mu b), solved exactly by SeparableCore. Its solution v(mu) is unique
// and s(mu) = b'v(mu) is continuous and non-increasing, so the optimum is the root of
// s(mu) = rhs_b (mu >= 0 for <=, mu <= 0 for >=, complementary with the row's slack). The root
// is found by Newton's method, with s'(mu) from the core's active set, inside a bracket that
// falls back to bisection. An LP over the first row and the bounds gives the reachable range of
// b'v, so an infeasible block is recognised without pushing mu to infinity.
//
// Typical shape: a max-min demand block (the demand's own row sum_r x_r <= 1 plus its row of the
// global term, e(x) - t >= 0), which otherwise needs Clp's QP.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"
#include "subproblem/separable_solver.h"

namespace dede::internal {

class TwoRowSolver final : public BlockSolver {
 public:
  // Needs exactly two rows and no log term over several variables. Returns nullptr and sets
  // *error otherwise. Strict convexity of the rows' variables is the factory's selection rule.
  static std::unique_ptr<TwoRowSolver> Create(const BlockProblem& structure,
                                              const BlockSolverOptions& options,
                                              std::string* error);

  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  std::string name() const override { return "two_row"; }
  std::string last_error() const override { return error_; }

  // The second row's multiplier at the last optimum.
  double multiplier() const { return last_mu_; }

 private:
  TwoRowSolver() = default;

  // Solves the one-row problem at mu into scratch_; sets *s = b'v and *ds = ds/dmu (<= 0).
  BlockStatus Inner(double mu, double* s, double* ds);
  // Per revision: the range of b'v over the first row and the bounds (two LPs).
  BlockStatus LoadRange();
  // Solve's steps: the problem's parameters (on a new revision); whether the second row's
  // right-hand side is within its range over the first row and the bounds (else error_ says
  // why); the safeguarded Newton step for mu within the bracket (lo, hi), expanding an open
  // end by *expand; and, with the bracket collapsed on a jump of s(mu), the combination of its
  // ends' solutions that puts the second row on its right-hand side, kept in best_v_ when its
  // violation is below *violation.
  void LoadParameters(const BlockProblem& problem);
  bool SecondRowReachable();
  static double NextMultiplier(
      double mu, double f, double ds, double lo, double hi, double* expand);
  bool CombineBracketEnds(const BlockProblem& problem,
                          double lo,
                          double hi,
                          double f_lo,
                          double f_hi,
                          double* violation,
                          double* best_mu);

  BlockSolverOptions options_;
  SeparableCore core_;        // the block without its second row
  SeparableCore range_core_;  // same rows and bounds, no curvature: LPs for the range of b'v
  BlockProblem core_problem_;
  BlockProblem range_problem_;
  int num_vars_ = 0;
  std::vector<int> b_var_;
  std::vector<double> b_coef_;
  std::vector<double> b_dense_;
  Sense b_sense_ = Sense::kLessEqual;
  double b_rhs_ = 0.0;
  double range_min_ = 0.0, range_max_ = 0.0;
  std::vector<double> base_g_;
  double last_mu_ = 0.0;
  bool have_mu_ = false;
  std::uint64_t revision_ = 0;
  bool loaded_ = false;
  BlockStatus range_status_ = BlockStatus::kOptimal;
  std::vector<double> scratch_, best_v_;
  // Inner solutions at the ends of the bracket (F > 0 at lo, F < 0 at hi), for the
  // interpolation when the bracket collapses above the tolerance.
  std::vector<double> lo_v_, hi_v_;
  std::string error_;
};

}  // namespace dede::internal
