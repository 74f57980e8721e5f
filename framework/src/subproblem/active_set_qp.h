// ActiveSetQp: the exact primal active-set method the Clp block solver finishes its QPs with
// (see clp_block_solver.h), for a diagonal, positive semidefinite Hessian.
#pragma once

#include <coin/ClpSimplex.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"

namespace dede::internal {

// Primal active-set method (Nocedal & Wright, Numerical Optimization, 2nd ed., Alg. 16.3) for
//   min sum_i h_i/2 x_i^2 + c_i x_i   s.t.  row_lo <= A x <= row_hi,  lo <= x <= hi,  h >= 0.
// The working set W holds variables at a bound (or held at their value) and rows at one of
// their bounds. With F the free variables, split into P (h > 0) and Z (h = 0), the equality
// problem on W is solved in absolute form through the Schur complement of the diagonal block:
//   x_P = -(c_P + A_WP' mu) / h_P,
//   [ A_WP H_P^-1 A_WP'   -A_WZ ] [mu ]   [ -A_WP H_P^-1 c_P - b_W ]
//   [ A_WZ'                 0   ] [x_Z] = [ -c_Z                    ]
// (b_W: the rows' active bounds minus the contribution of the fixed variables), a dense
// system of size |W rows| + |Z|. It is non-singular while A_WZ has full column rank; when a
// dropped constraint breaks that, A_WZ has a null vector d, a zero-curvature direction, and
// the method moves along it (descent by the sign of the dropped multiplier) until a
// constraint blocks, or reports the block unbounded.
class ActiveSetQp {
 public:
  enum class VarState : std::uint8_t { kFree, kLower, kUpper, kHeld };
  enum class RowState : std::uint8_t { kInactive, kLower, kUpper };

  ActiveSetQp(int n,
              int m,
              const std::vector<int>* col_start,
              const std::vector<int>* col_row,
              const std::vector<double>* col_value,
              const std::vector<double>* h,
              const std::vector<double>* c,
              const std::vector<double>* lo,
              const std::vector<double>* hi,
              const std::vector<double>* row_lo,
              const std::vector<double>* row_hi)
      : n_(n),
        m_(m),
        col_start_(*col_start),
        col_row_(*col_row),
        col_value_(*col_value),
        h_(*h),
        c_(*c),
        lo_(*lo),
        hi_(*hi),
        row_lo_(*row_lo),
        row_hi_(*row_hi) {}

  // Takes the working set from a basic solution of Clp (phase 1).
  void StartFromBasis(const ClpSimplex& model);
  // After a parameter change: moves the working set onto the new bounds and jumps to its
  // equality-problem solution. False if that point is infeasible (the caller restarts).
  bool Retarget();
  BlockStatus Run(std::string* error);

  bool has_state() const { return has_state_; }
  void Invalidate() { has_state_ = false; }
  const std::vector<double>& x() const { return x_; }

 private:
  enum class Eqp { kSolved, kSingular, kFailed };
  void Partition();
  // Solves the equality problem on W into xs_ / mu_, or finds the null direction dz_.
  Eqp SolveEqp();
  bool Feasible(const std::vector<double>& x, double tol) const;
  bool DependsOnWorkingSet(int r);
  // Run's steps: the multipliers' check at a minimizer on W, and the ratio test.
  bool DropWrongSigned(bool single_drop, double grad_scale);
  struct Step {
    double alpha = 0.0;                  // the step's length (1: to xs_)
    int block_var = -1, block_row = -1;  // what blocks it (-1: nothing)
    bool block_upper = false;            // at its upper bound or row side
  };
  Step RatioTest(bool ray);

  const int n_, m_;
  const std::vector<int>& col_start_;
  const std::vector<int>& col_row_;
  const std::vector<double>& col_value_;
  const std::vector<double>& h_;
  const std::vector<double>& c_;
  const std::vector<double>& lo_;
  const std::vector<double>& hi_;
  const std::vector<double>& row_lo_;
  const std::vector<double>& row_hi_;

  bool has_state_ = false;
  std::vector<double> x_;
  std::vector<VarState> vs_;
  std::vector<RowState> rs_;

  // Scratch of one iteration.
  std::vector<int> p_, z_, w_, wpos_, zpos_;
  std::vector<double> kkt_, rhs_, xs_, mu_, dz_, awz_, delta_, delta_abs_, act_;
  std::vector<char> dependent_;
};

}  // namespace dede::internal
