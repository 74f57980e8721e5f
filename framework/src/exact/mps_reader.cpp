#include "exact/mps_reader.h"

#include <cmath>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "exact/mps_parser.h"
#include "exact/mps_text.h"

namespace dede::internal {
namespace {

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

std::string Located(const std::string& path, const MpsError& error) {
  if (error.line <= 0) return path + ": " + error.message;
  return path + ":" + std::to_string(error.line) + ": " + error.message;
}

// The file must exist, be a regular file (not a directory or a FIFO that never ends) and fit
// the size limit before a byte is parsed.
bool CheckFile(const std::string& path, std::string* error) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    return Fail(error, path + ": cannot open (no such file)");
  if (ec) return Fail(error, path + ": cannot open (" + ec.message() + ")");
  if (!std::filesystem::is_regular_file(status))
    return Fail(error, path + ": cannot read: not a regular file");
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) return Fail(error, path + ": cannot read its size (" + ec.message() + ")");
  if (bytes > kMpsMaxFileBytes)
    return Fail(error,
                path + ": " + std::to_string(bytes) + " bytes, over the MPS reader's limit of " +
                    std::to_string(kMpsMaxFileBytes) + " bytes (1 GiB)");
  return true;
}

// Free format first, then fixed (mps_reader.h, MpsFormat::kAuto).
bool ParseEitherFormat(const std::string& path, MpsModel* model, std::string* error) {
  MpsError free_error;
  if (ParseMps(path, MpsFormat::kFree, model, &free_error)) return true;
  if (free_error.text) return Fail(error, Located(path, free_error));
  MpsModel fixed;
  MpsError fixed_error;
  if (ParseMps(path, MpsFormat::kFixed, &fixed, &fixed_error)) {
    *model = std::move(fixed);
    return true;
  }
  const bool fixed_further = fixed_error.line > free_error.line;
  const MpsError& reported = fixed_further ? fixed_error : free_error;
  const MpsError& other = fixed_further ? free_error : fixed_error;
  return Fail(error,
              Located(path, reported) + " (read as " + (fixed_further ? "fixed" : "free") +
                  "-format MPS; as " + (fixed_further ? "free" : "fixed") +
                  "-format MPS it fails at line " + std::to_string(other.line) + ")");
}

// The sides of a row from its type, right-hand side and range (mps_reader.h).
void RowSides(const MpsRow& row, double* lower, double* upper) {
  const double rhs = row.rhs;
  const double range = row.range;
  const bool ranged = row.range_line != 0;
  switch (row.type) {
    case 'E':
      *lower = *upper = rhs;
      if (ranged && range > 0) *upper = rhs + range;
      if (ranged && range < 0) *lower = rhs + range;
      break;
    case 'L':
      *upper = rhs;
      *lower = ranged ? rhs - std::abs(range) : -kInfinity;
      break;
    default:  // 'G'
      *lower = rhs;
      *upper = ranged ? rhs + std::abs(range) : kInfinity;
      break;
  }
}

bool BuildProblem(const MpsModel& model, Problem* problem, MpsError* error) {
  problem->SetObjectiveSense(model.sense);
  const BlockId owner = BlockId::Resource(0);
  for (const MpsColumn& column : model.columns) {
    const Domain domain{
        column.lower, column.upper, column.integer ? VarType::kInteger : VarType::kContinuous};
    const VarId id = problem->AddLocal(owner, domain, column.name);
    if (column.cost != 0.0) problem->AddLinearCost(id, column.cost);
  }
  // The RHS entry of the objective row is "minus the constant" in the MPS convention that
  // Netlib's published optima follow (E226 has one: -7.113, the constant is +7.113).
  problem->AddConstant(-model.objective_rhs);

  for (const MpsRow& row : model.rows) {
    if (row.type == 'N') continue;  // the objective, or a dropped free row
    double lower = 0.0, upper = 0.0;
    RowSides(row, &lower, &upper);
    // A ranged row has two finite sides, but a finite rhs and range can add up to infinity.
    if (row.range_line != 0 && (std::isinf(lower) || std::isinf(upper))) {
      error->line = row.range_line;
      error->message = "RANGES: range " + MpsNumberText(row.range) + " of row '" + row.name +
                       "' with right-hand side " + MpsNumberText(row.rhs) + " overflows a double";
      return false;
    }
    LinearExpr expr;
    expr.terms = row.terms;
    if (lower == upper) {
      problem->AddConstraint(owner, expr, Sense::kEqual, lower, row.name);
      continue;
    }
    if (lower > -kInfinity)
      problem->AddConstraint(owner,
                             expr,
                             Sense::kGreaterEqual,
                             lower,
                             upper < kInfinity ? row.name + ".lo" : row.name);
    if (upper < kInfinity)
      problem->AddConstraint(
          owner, expr, Sense::kLessEqual, upper, lower > -kInfinity ? row.name + ".up" : row.name);
  }
  return true;
}

}  // namespace

bool ReadMps(const std::string& path, Problem* out, std::string* error, MpsFormat format) {
  try {
    if (!CheckFile(path, error)) return false;
    MpsModel model;
    if (format == MpsFormat::kAuto) {
      if (!ParseEitherFormat(path, &model, error)) return false;
    } else if (MpsError parse_error; !ParseMps(path, format, &model, &parse_error)) {
      return Fail(error, Located(path, parse_error));
    }
    Problem problem(1, 1);
    if (MpsError build_error; !BuildProblem(model, &problem, &build_error))
      return Fail(error, Located(path, build_error));
    *out = std::move(problem);
    return true;
  } catch (const std::exception& e) {  // std::bad_alloc on a machine short of memory
    return Fail(error, path + ": " + e.what());
  }
}

}  // namespace dede::internal
