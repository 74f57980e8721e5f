// "aggregate": exact elimination of variables that are affine images of one other variable.
//
// A block variable v_i is *eliminable* when its only row is a two-variable equality
//   a_i v_i + a_j v_j = rhs        (a_i, a_j != 0)
// and it appears in no log term. Then v_i = alpha + beta v_j with alpha = rhs / a_i and
// beta = -a_j / a_i, and its terms fold into v_j:
//   (H_i / 2) v_i^2 + G_i v_i   ->   (H_i beta^2 / 2) v_j^2 + beta (H_i alpha + G_i) v_j + const,
// with H_i = 2 q_i + p_i and G_i = c_i - p_i t_i; its bounds become an interval on v_j. Several
// eliminated variables may fold into the same v_j, which keeps the block separable: no
// cross term appears because each eliminated variable depends on a single base variable.
//
// Declared images (BlockProblem::images: an entry given as offset + scale * a local) fold the
// same way without a row; a block with images always gets this solver.
//
// Typical shape: a demand block of a path formulation, where every allocation entry x[e, b]
// (the load of the block on link e, with an ADMM proximal term) equals the flow of the one path
// through e (edge-disjoint paths); after elimination the block is a one-row separable problem
// over the path flows, solved by the multiplier search instead of a QP.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"

namespace dede::internal {

class AggregateSolver final : public BlockSolver {
 public:
  // Builds the inner solver of the reduced block (fast solvers only: return nullptr to refuse).
  using InnerFactory = std::function<std::unique_ptr<BlockSolver>(const BlockProblem& reduced)>;

  // Returns nullptr when `structure` has no eliminable variable or `make_inner` refuses the
  // reduced block; the caller then picks another solver.
  static std::unique_ptr<AggregateSolver> TryCreate(const BlockProblem& structure,
                                                    const InnerFactory& make_inner);

  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  // In place when the reduced block's solver is (the targets go straight into the fold).
  bool solves_in_place() const override { return inner_->solves_in_place(); }
  BlockStatus SolveInPlace(const BlockProblem& problem, const double* t, double* v) override;
  void Prefetch() const override;
  std::string name() const override { return "aggregate(" + inner_->name() + ")"; }
  std::string last_error() const override { return error_; }

  int num_eliminated() const { return static_cast<int>(links_.size()); }

 private:
  AggregateSolver() = default;

  // v[var] = alpha + beta * v[base], through row `row` (positions of both in the row), or
  // declared: image -1 - row of BlockProblem::images.
  struct Link {
    int var = 0, base = 0, row = 0;
    int var_pos = 0, base_pos = 0;
    // Per revision: the affine map and the curvature H of var.
    double alpha = 0.0, beta = 0.0, curvature = 0.0;
  };

  void LoadParameters(const BlockProblem& problem);
  void LoadLinear(const BlockProblem& problem, const double* target);
  // Reloads the parameters if the revision changed; false (with error_) if the block's
  // structure changed or its bounds cannot be met.
  bool Prepare(const BlockProblem& problem);
  // v[var] of every eliminated variable from the reduced solution w_.
  void Expand(const BlockProblem& problem, double* v) const;

  int num_vars_ = 0;
  int num_rows_ = 0;
  std::size_t num_images_ = 0;
  std::vector<Link> links_;
  // The same links, compact, for the per-solve loops when every map is v = 0 + 1 * v[base]
  // with a finite, non-negative curvature (a path's link entries equal its flow): the
  // general formulas then reduce, exactly, to ones that read no Link.
  std::vector<int> link_var_;    // links_[l].var
  std::vector<int> link_k_;      // reduced index of links_[l].base
  bool unit_links_ = false;      // per revision
  std::vector<int> reduced_of_;  // original variable -> reduced index (-1: eliminated)
  std::vector<int> kept_vars_;   // reduced index -> original variable
  std::vector<int> kept_rows_;   // reduced row -> original row
  BlockProblem reduced_;
  std::unique_ptr<BlockSolver> inner_;
  std::vector<double> w_;  // reduced solution (warm start for the inner solver)
  std::uint64_t revision_ = 0;
  bool loaded_ = false;
  bool infeasible_bounds_ = false;
  std::string error_;
};

}  // namespace dede::internal
