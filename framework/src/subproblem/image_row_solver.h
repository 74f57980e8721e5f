// "image_row": a block whose declared images (BlockProblem::images) fold into strictly convex
// bases, with at most one row, over the bases, and no log terms. This is a traffic-engineering
// pair block: its path flows, the entries of their links as images of the flows, the demand
// row. Solved in place from the block's own arrays, with nothing kept between solves:
//   1. every image folds into its base: (H_i / 2) v_i^2 + G_i v_i with v_i = o + s w becomes
//      (H_i s^2 / 2) w^2 + s (H_i o + G_i) w, and its bounds an interval on w;
//   2. each base is then min (H / 2) w^2 + G w over [lo, hi], H > 0: w(lambda) =
//      clamp((-G - lambda a) / H, lo, hi) for the row's multiplier lambda;
//   3. the row activity r(lambda) = sum a w(lambda) is piecewise linear and non-increasing: the
//      multiplier is found among the sorted breakpoints (binary search) and interpolated on
//      its segment, exact up to rounding, with no iteration;
//   4. every image is offset + scale * its base, clipped to its bounds.
// The aggregate solver over the one-row search reaches the same point with a reduced copy of
// the block and an inner solver object (about 2.5 kB a block, ASN2k has 3 M pair blocks); this
// one holds a message.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"

namespace dede::internal {

class ImageRowSolver final : public BlockSolver {
 public:
  // nullptr when `structure` is not of the shape above (the caller falls back to aggregate).
  static std::unique_ptr<ImageRowSolver> TryCreate(const BlockProblem& structure);

  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  bool solves_in_place() const override { return true; }
  BlockStatus SolveInPlace(const BlockProblem& problem, const double* t, double* v) override;
  std::string name() const override { return "image_row"; }
  std::string last_error() const override { return error_; }

 private:
  ImageRowSolver() = default;
  std::string error_;
};

}  // namespace dede::internal
