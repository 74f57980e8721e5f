// The general block solver for any rows and no log terms.
//
// LP blocks (every q_i = p_i = 0) are solved by Clp's simplex, kept alive across solves so
// each re-solve starts from the previous basis (primal simplex after a cost change, dual
// simplex after a bound change).
//
// QP blocks use Clp for phase 1 only (a feasible basic point, or a proof of infeasibility)
// and then an exact primal active-set method for the diagonal Hessian (ActiveSetQp in the
// .cpp), warm-started from the previous working set. Clp's own QP paths were measured and
// rejected: ClpSimplex::primal on a quadratic model (ClpSimplexNonlinear) stops at
// non-optimal points on blocks without rows, with free rows or with infinite bounds, and the
// barrier with crossover also returns wrong optima; on 359 random one-row blocks 53 and 28
// answers were wrong, respectively.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"

class ClpSimplex;  // Clp stays out of the headers: only clp_block_solver.cpp includes it.

namespace dede::internal {

class ActiveSetQp;

class ClpBlockSolver final : public BlockSolver {
 public:
  // Returns nullptr and sets *error if the block has log terms (Clp solves LPs and QPs only)
  // or an index out of range.
  static std::unique_ptr<ClpBlockSolver> Create(const BlockProblem& structure,
                                                const BlockSolverOptions& options,
                                                std::string* error);
  ~ClpBlockSolver() override;

  // Integrality flags are ignored (the relaxation is solved); branch_and_bound.h adds them.
  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  // "clp" for LP blocks, "clp+qp" for blocks with curvature.
  std::string name() const override;
  std::string last_error() const override { return error_; }

 private:
  ClpBlockSolver() = default;

  // (Re)creates the Clp model (LP data only) from the stored data, keeping the basis status
  // of the old model if asked.
  void BuildModel(bool keep_basis);
  // Copies bounds, rhs, coefficients and curvature from `problem`; returns what changed.
  struct Changes {
    bool bounds = false, coefficients = false, hessian = false;
  };
  Changes LoadParameters(const BlockProblem& problem);
  // Sets Clp's objective to c (LP mode) or to zero (phase 1 of the QP).
  void SetClpObjective(bool zero);
  // Runs Clp (see the .cpp for the confirmation policy); returns Clp's status, 0 only for a
  // point verified feasible, left in scratch_.
  int RunConfirmed(bool warm, bool prefer_dual, const BlockProblem& problem);
  double ClpViolation(const BlockProblem& problem);
  BlockStatus SolveLp(bool bounds_changed, const BlockProblem& problem, std::vector<double>* v);
  BlockStatus SolveQp(bool parameters_changed, const BlockProblem& problem, std::vector<double>* v);
  bool IsQuadratic() const;

  BlockSolverOptions options_;
  std::unique_ptr<ClpSimplex> model_;
  int num_vars_ = 0;
  int num_rows_ = 0;
  // Column-major copy of the rows; element_of_[r][k] is the position of rows[r].coef[k].
  std::vector<int> col_start_, col_row_;
  std::vector<double> col_value_;
  std::vector<std::vector<int>> element_of_;
  // Bounds in the problem's convention (+-infinity), rows as ranges [row_lo_, row_hi_].
  std::vector<double> col_lo_, col_hi_, row_lo_, row_hi_, hessian_, objective_;
  std::unique_ptr<ActiveSetQp> qp_;
  bool clp_objective_zero_ = false;
  std::uint64_t revision_ = 0;
  bool loaded_ = false;
  bool solved_once_ = false;
  std::vector<double> scratch_;
  std::string error_;
};

}  // namespace dede::internal
