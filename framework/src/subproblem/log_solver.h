// The "log" block solver: one log term over several variables, w log(a'v + b), on top of a
// separable block with at most one row.
//
// For a fixed theta = w / s the log term's gradient is the constant -theta a, so the block
// reduces to a separable problem with linear terms g - theta a (SeparableCore). Its solution
// v(theta) makes sigma(theta) = a'v(theta) + b non-decreasing, and the optimum is the unique
// root of G(theta) = sigma(theta) - w / theta (strictly increasing). G is found by Newton's
// method on theta, with the derivative of sigma taken from the core's active set, inside a
// bracket that falls back to geometric bisection.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "subproblem/block_problem.h"
#include "subproblem/separable_solver.h"

namespace dede::internal {

class LogSolver final : public BlockSolver {
 public:
  // Needs exactly one log term with two or more variables, every other log term on a single
  // variable and at most one row. Returns nullptr and sets *error otherwise. Uniqueness of
  // v(theta) (every variable of the log and of the row strictly convex) is the factory's
  // selection rule; without it Solve may report kError.
  static std::unique_ptr<LogSolver> Create(const BlockProblem& structure,
                                           const BlockSolverOptions& options,
                                           std::string* error);

  BlockStatus Solve(const BlockProblem& problem, std::vector<double>* v) override;
  std::string name() const override { return "log"; }
  std::string last_error() const override { return error_; }

  // theta = w / (a'v + b) at the last optimum (the log term's "price").
  double theta() const { return last_theta_; }

 private:
  LogSolver() = default;

  // Solves the inner problem at theta into scratch_; sets *sigma and *dsigma (d sigma/d theta).
  BlockStatus Inner(double theta, double* sigma, double* dsigma);
  // Per revision: the largest a'v + b over the row and bounds (the LP solved by a second
  // core with every curvature and the other logs removed). At most 0 means no point has a
  // defined log: the block is infeasible, which the price search alone would only find by
  // pushing theta to where its arithmetic breaks down.
  BlockStatus LoadDomain(const BlockProblem& problem);

  BlockSolverOptions options_;
  SeparableCore core_;
  SeparableCore domain_core_;
  BlockProblem domain_problem_;
  double max_argument_ = 0.0;
  BlockStatus domain_status_ = BlockStatus::kOptimal;
  int num_vars_ = 0;
  int num_rows_ = 0;
  int log_index_ = -1;
  std::vector<int> log_var_;
  std::vector<double> log_a_, base_g_;
  double log_b_ = 0.0, log_w_ = 0.0;
  double last_theta_ = 0.0;
  bool have_theta_ = false;
  std::uint64_t revision_ = 0;
  bool loaded_ = false;
  std::vector<double> scratch_, best_v_;
  std::string error_;
};

}  // namespace dede::internal
