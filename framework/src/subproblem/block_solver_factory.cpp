// Structure-based choice of the block solver (see CreateBlockSolver in block_problem.h).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>

#include "subproblem/aggregate_solver.h"
#include "subproblem/block_problem.h"
#include "subproblem/branch_and_bound.h"
#include "subproblem/clp_block_solver.h"
#include "subproblem/image_row_solver.h"
#include "subproblem/log_solver.h"
#include "subproblem/separable_solver.h"
#include "subproblem/two_row_solver.h"

namespace dede::internal {
namespace {

constexpr const char* kSupported =
    "supported: no rows and one-variable logs only (clip); one row and one-variable logs only "
    "(one_row); one multi-variable log and at most one row, every variable of both strictly "
    "convex (log); two rows and one-variable logs only, every row variable strictly convex "
    "(two_row); any rows without log terms (clp); the same after folding "
    "variables defined by a two-variable equality row into the other variable (aggregate)";

template <typename Coefs>
bool CheckIndices(const std::vector<int>& index,
                  const Coefs& coef,
                  int n,
                  const std::string& what,
                  std::string* error) {
  if (index.size() != coef.size()) {
    *error = what + " has " + std::to_string(index.size()) + " indices but " +
             std::to_string(coef.size()) + " coefficients";
    return false;
  }
  std::unordered_set<int> seen;
  for (int i : index) {
    if (i < 0 || i >= n) {
      *error = what + " references variable " + std::to_string(i) + " of a block with " +
               std::to_string(n) + " variables";
      return false;
    }
    if (!seen.insert(i).second) {
      *error = what + " references variable " + std::to_string(i) + " twice";
      return false;
    }
  }
  return true;
}

bool Validate(const BlockProblem& p, std::string* error) {
  const size_t n = p.lower.size();
  const auto bad_size = [&](const char* field, size_t size) {
    *error = std::string("BlockProblem::") + field + " has " + std::to_string(size) +
             " entries; expected " + std::to_string(n) + " (size of lower)";
    return false;
  };
  if (p.upper.size() != n) return bad_size("upper", p.upper.size());
  if (p.linear.size() != n) return bad_size("linear", p.linear.size());
  if (p.quadratic.size() != n) return bad_size("quadratic", p.quadratic.size());
  if (p.prox_weight.size() != n) return bad_size("prox_weight", p.prox_weight.size());
  if (p.prox_target.size() != n) return bad_size("prox_target", p.prox_target.size());
  if (!p.integral.empty() && p.integral.size() != n) return bad_size("integral", p.integral.size());
  for (size_t i = 0; i < n; ++i) {
    if (p.quadratic[i] < 0.0 || p.prox_weight[i] < 0.0) {
      *error = "variable " + std::to_string(i) + " has quadratic " +
               std::to_string(p.quadratic[i]) + ", prox_weight " +
               std::to_string(p.prox_weight[i]) + ": both must be >= 0 (convexity)";
      return false;
    }
  }
  for (size_t r = 0; r < p.rows.size(); ++r) {
    if (!CheckIndices(p.rows[r].index,
                      p.rows[r].coef,
                      static_cast<int>(n),
                      "row " + std::to_string(r),
                      error)) {
      return false;
    }
  }
  const BlockImages& im = p.images;
  if (im.base.size() != im.slot.size() || im.offset.size() != im.slot.size() ||
      im.scale.size() != im.slot.size()) {
    *error = "BlockProblem::images has " + std::to_string(im.slot.size()) + " slots, " +
             std::to_string(im.base.size()) + " bases, " + std::to_string(im.offset.size()) +
             " offsets and " + std::to_string(im.scale.size()) + " scales";
    return false;
  }
  {
    std::vector<std::uint8_t> role(n, 0);  // 1: an image, 2: a base
    for (const BlockRow& row : p.rows)
      for (int i : row.index)
        if (i >= 0 && static_cast<size_t>(i) < n) role[i] |= 4;
    for (const BlockLog& log : p.logs)
      for (int i : log.index)
        if (i >= 0 && static_cast<size_t>(i) < n) role[i] |= 4;
    for (size_t k = 0; k < im.size(); ++k) {
      const int i = im.slot[k], b = im.base[k];
      if (i < 0 || static_cast<size_t>(i) >= n || b < 0 || static_cast<size_t>(b) >= n || i == b) {
        *error = "image " + std::to_string(k) + " maps variable " + std::to_string(b) +
                 " to variable " + std::to_string(i) + " of a block with " + std::to_string(n) +
                 " variables";
        return false;
      }
      if (role[i] != 0 || (role[b] & 1) != 0) {
        *error = "image " + std::to_string(k) + ": variable " + std::to_string(i) +
                 " is an image and also a base, a second image or in a row or log term";
        return false;
      }
      role[i] |= 1;
      role[b] |= 2;
      if (!std::isfinite(im.scale[k]) || im.scale[k] == 0.0 || !std::isfinite(im.offset[k])) {
        *error = "image " + std::to_string(k) + " has scale " + std::to_string(im.scale[k]) +
                 " and offset " + std::to_string(im.offset[k]);
        return false;
      }
    }
    for (size_t k = 0; k < im.size(); ++k) {
      if ((role[im.slot[k]] & 2) != 0) {
        *error = "image " + std::to_string(k) + ": variable " + std::to_string(im.slot[k]) +
                 " is an image and a base";
        return false;
      }
    }
  }
  for (size_t k = 0; k < p.logs.size(); ++k) {
    const std::string what = "log term " + std::to_string(k);
    if (!CheckIndices(p.logs[k].index, p.logs[k].coef, static_cast<int>(n), what, error)) {
      return false;
    }
    if (p.logs[k].weight < 0.0) {
      *error = what + " has weight " + std::to_string(p.logs[k].weight) + "; must be >= 0";
      return false;
    }
  }
  return true;
}

std::unique_ptr<BlockSolver> CreateContinuous(const BlockProblem& s,
                                              const BlockSolverOptions& options,
                                              std::string* error) {
  if (!s.images.empty()) {
    // Declared images must be folded: in place when the folded block is one strictly convex
    // row (image_row), else the aggregate over whatever the folded block gets.
    if (!options.force_clp) {
      if (std::unique_ptr<ImageRowSolver> solver = ImageRowSolver::TryCreate(s)) return solver;
    }
    std::string why;
    std::unique_ptr<AggregateSolver> aggregate =
        AggregateSolver::TryCreate(s, [&options, &why](const BlockProblem& reduced) {
          return CreateContinuous(reduced, options, &why);
        });
    if (aggregate == nullptr) *error = "block with images, once they are folded: " + why;
    return aggregate;
  }
  if (options.force_clp) return ClpBlockSolver::Create(s, options, error);
  int multi_logs = 0, var_logs = 0;
  int multi_index = -1;
  for (size_t k = 0; k < s.logs.size(); ++k) {
    if (s.logs[k].index.size() >= 2) {
      ++multi_logs;
      multi_index = static_cast<int>(k);
    } else if (s.logs[k].index.size() == 1) {
      ++var_logs;
    }
  }
  const int num_rows = static_cast<int>(s.rows.size());
  const std::vector<std::uint8_t> strict = StrictlyConvexVariables(s);
  auto all_strict = [&](const std::vector<int>& index) {
    for (int i : index) {
      if (!strict[i]) return false;
    }
    return true;
  };
  const bool row_strict = num_rows == 1 && all_strict(s.rows[0].index);

  if (multi_logs == 0 && num_rows == 0) return SeparableSolver::Create(s, options, error);
  if (multi_logs == 0 && num_rows == 1 && row_strict)
    return SeparableSolver::Create(s, options, error);
  if (multi_logs == 1 && num_rows <= 1 && all_strict(s.logs[multi_index].index) &&
      (num_rows == 0 || row_strict)) {
    return LogSolver::Create(s, options, error);
  }
  // Clp cannot take log terms. A single row with one-variable logs is still exact with the
  // multiplier search, whose breakpoints include the steps of zero-curvature variables.
  if (multi_logs == 0 && var_logs > 0 && num_rows == 1) {
    return SeparableSolver::Create(s, options, error);
  }
  if (multi_logs == 0 && num_rows == 2 && all_strict(s.rows[0].index) &&
      all_strict(s.rows[1].index)) {
    return TwoRowSolver::Create(s, options, error);
  }
  // No fast solver fits as is. Variables that are affine images of one other variable fold
  // into it (aggregate); worth it when the reduced block gets a fast solver.
  std::unique_ptr<AggregateSolver> aggregate =
      AggregateSolver::TryCreate(s, [&options](const BlockProblem& reduced) {
        std::string ignored;
        std::unique_ptr<BlockSolver> inner = CreateContinuous(reduced, options, &ignored);
        if (inner != nullptr && inner->name().rfind("clp", 0) == 0) inner.reset();
        return inner;
      });
  if (aggregate != nullptr) return aggregate;
  if (multi_logs == 0 && var_logs == 0) return ClpBlockSolver::Create(s, options, error);
  *error = "block has " + std::to_string(s.logs.size()) + " log terms (" +
           std::to_string(multi_logs) + " over several variables) and " + std::to_string(num_rows) +
           " rows";
  if (multi_logs == 1 && num_rows <= 1) {
    *error += ", but a variable of the log term or the row is not strictly convex";
  }
  *error += std::string("; ") + kSupported;
  return nullptr;
}

}  // namespace

BlockStatus BlockSolver::SolveInPlace(const BlockProblem&, const double*, double*) {
  return BlockStatus::kError;  // callers ask solves_in_place() first
}

BlockStatus BlockSolver::SolveFromLinear(const BlockProblem&, const double*, double*) {
  return BlockStatus::kError;  // callers ask takes_linear() first
}

const char* BlockStatusName(BlockStatus s) {
  switch (s) {
    case BlockStatus::kOptimal:
      return "optimal";
    case BlockStatus::kInfeasible:
      return "infeasible";
    case BlockStatus::kUnbounded:
      return "unbounded";
    case BlockStatus::kNodeLimit:
      return "node_limit";
    case BlockStatus::kError:
      return "error";
  }
  return "unknown";
}

std::unique_ptr<BlockSolver> CreateBlockSolver(const BlockProblem& structure,
                                               const BlockSolverOptions& options,
                                               std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  error->clear();
  if (!Validate(structure, error)) return nullptr;
  std::unique_ptr<BlockSolver> continuous = CreateContinuous(structure, options, error);
  if (continuous == nullptr) return nullptr;
  for (std::uint8_t flag : structure.integral) {
    if (flag) return BranchAndBoundSolver::Create(std::move(continuous), structure, options);
  }
  return continuous;
}

}  // namespace dede::internal
