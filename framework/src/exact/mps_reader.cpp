#include "exact/mps_reader.h"

#include <CoinError.hpp>
#include <CoinMessageHandler.hpp>
#include <CoinMpsIO.hpp>
#include <CoinPackedMatrix.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace dede::internal {
namespace {

// CoinMpsIO reports problems (with the line number and the offending card) through its message
// handler rather than through the return value, which only counts errors. Collecting the
// warnings and errors lets ReadMps return a message that points at the line.
class CollectingHandler : public CoinMessageHandler {
 public:
  CollectingHandler() { setLogLevel(1); }
  int print() override {
    const char severity = currentMessage().severity();
    if (severity == 'W' || severity == 'E' || severity == 'S') {
      if (!text_.empty()) text_ += "; ";
      std::string line = messageBuffer();
      while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
      text_ += line;
    }
    return 0;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// CoinMpsIO stores infinite bounds as its own large value (COIN_DBL_MAX by default).
double FromCoin(double value, double coin_infinity) {
  if (value >= coin_infinity || value >= 1e30) return kInfinity;
  if (value <= -coin_infinity || value <= -1e30) return -kInfinity;
  return value;
}

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

// MPS is text in short fields. CoinMpsIO's card reader dereferences a null pointer on a NUL
// byte inside a line and copies fields into fixed buffers (found by tools/fuzz.sh), so the file
// is scanned first: a C0 control character other than tab, carriage return and line feed, a
// field longer than COIN_MAX_FIELD_LENGTH - 1 or a line longer than MAX_CARD_LENGTH - 1 is an
// error naming its line. Returns the reason, or "" for a file CoinMpsIO may read.
std::string ScanText(const std::string& path) {
  constexpr std::size_t kMaxField = COIN_MAX_FIELD_LENGTH - 1;
  constexpr std::size_t kMaxLine = MAX_CARD_LENGTH - 1;
  std::ifstream in(path, std::ios::binary);
  char buffer[1 << 16];
  long long line = 1;
  std::size_t line_length = 0, field_length = 0;
  while (in) {
    in.read(buffer, sizeof(buffer));
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      const unsigned char c = static_cast<unsigned char>(buffer[i]);
      if (c == '\n') {
        ++line;
        line_length = field_length = 0;
        continue;
      }
      if (c < 0x20 && c != '\t' && c != '\r') {
        char hex[8];
        std::snprintf(hex, sizeof(hex), "%02x", c);
        return "line " + std::to_string(line) + ": control character 0x" + hex +
               " (not a text file)";
      }
      field_length = (c == ' ' || c == '\t' || c == '\r') ? 0 : field_length + 1;
      if (++line_length > kMaxLine)
        return "line " + std::to_string(line) + " is longer than " + std::to_string(kMaxLine) +
               " characters";
      if (field_length > kMaxField)
        return "line " + std::to_string(line) + ": a field is longer than " +
               std::to_string(kMaxField) + " characters";
    }
  }
  return "";
}
}  // namespace

bool ReadMps(const std::string& path, Problem* out, std::string* error) {
  try {
    // CoinMpsIO silently tries "<path>.gz" when the file is missing; checking first gives the
    // caller a plain "cannot open" instead of a confusing message about another name.
    if (!std::ifstream(path).good()) return Fail(error, "MPS file '" + path + "': cannot open");
    if (const std::string why = ScanText(path); !why.empty())
      return Fail(error, "MPS file '" + path + "': " + why);

    CollectingHandler handler;
    CoinMpsIO mps;
    mps.passInMessageHandler(&handler);
    // An empty extension: the path is used exactly as given (names like "vtp.base.mps").
    const int num_errors = mps.readMps(path.c_str(), "");
    if (num_errors != 0) {
      std::string message = "MPS file '" + path + "': ";
      // CoinMpsIO returns -1 when the file is not MPS at all, and adds 100000 to the count
      // when it gave up after too many errors.
      if (num_errors < 0) {
        message += "not a readable MPS file";
      } else if (num_errors >= 100000) {
        message += "too many errors, parsing abandoned";
      } else {
        message += std::to_string(num_errors) + " error(s) while parsing";
      }
      if (!handler.text().empty()) message += ": " + handler.text();
      return Fail(error, message);
    }

    const double coin_infinity = mps.getInfinity();
    const int num_rows = mps.getNumRows();
    const int num_cols = mps.getNumCols();
    const double* col_lower = mps.getColLower();
    const double* col_upper = mps.getColUpper();
    const double* row_lower = mps.getRowLower();
    const double* row_upper = mps.getRowUpper();
    const double* cost = mps.getObjCoefficients();

    Problem problem(1, 1);
    problem.SetObjectiveSense(ObjectiveSense::kMinimize);
    const BlockId owner = BlockId::Resource(0);
    std::vector<VarId> ids(num_cols);
    for (int j = 0; j < num_cols; ++j) {
      Domain domain;
      domain.lower = FromCoin(col_lower[j], coin_infinity);
      domain.upper = FromCoin(col_upper[j], coin_infinity);
      if (std::isnan(domain.lower) || std::isnan(domain.upper) || domain.lower > domain.upper)
        return Fail(error,
                    "MPS file '" + path + "': column '" + mps.columnName(j) + "' has bounds [" +
                        std::to_string(col_lower[j]) + ", " + std::to_string(col_upper[j]) + "]");
      domain.type = mps.isInteger(j) ? VarType::kInteger : VarType::kContinuous;
      ids[j] = problem.AddLocal(owner, domain, mps.columnName(j));
      if (cost[j] != 0.0) problem.AddLinearCost(ids[j], cost[j]);
    }
    // The RHS entry of the objective row is "minus the constant" in the MPS convention that
    // Netlib's published optima follow (E226 has one: -7.113, the optimum includes +7.113).
    problem.AddConstant(-mps.objectiveOffset());

    const CoinPackedMatrix* by_row = mps.getMatrixByRow();
    for (int i = 0; i < num_rows; ++i) {
      const double lower = FromCoin(row_lower[i], coin_infinity);
      const double upper = FromCoin(row_upper[i], coin_infinity);
      if (lower == -kInfinity && upper == kInfinity) continue;  // a free (extra N) row
      if (lower > upper)
        return Fail(error,
                    "MPS file '" + path + "': row '" + mps.rowName(i) + "' has an empty range [" +
                        std::to_string(lower) + ", " + std::to_string(upper) + "]");
      const CoinShallowPackedVector row = by_row->getVector(i);
      LinearExpr expr;
      expr.terms.reserve(row.getNumElements());
      for (int k = 0; k < row.getNumElements(); ++k)
        if (row.getElements()[k] != 0.0) expr.Add(ids[row.getIndices()[k]], row.getElements()[k]);
      const std::string name = mps.rowName(i);
      if (lower == upper) {
        problem.AddConstraint(owner, expr, Sense::kEqual, lower, name);
      } else {
        if (lower > -kInfinity)
          problem.AddConstraint(
              owner, expr, Sense::kGreaterEqual, lower, upper < kInfinity ? name + ".lo" : name);
        if (upper < kInfinity)
          problem.AddConstraint(
              owner, expr, Sense::kLessEqual, upper, lower > -kInfinity ? name + ".up" : name);
      }
    }
    *out = std::move(problem);
    return true;
  } catch (const CoinError& e) {
    return Fail(
        error,
        "MPS file '" + path + "': " + e.className() + "::" + e.methodName() + ": " + e.message());
  } catch (const std::exception& e) {
    return Fail(error, "MPS file '" + path + "': " + e.what());
  }
}

}  // namespace dede::internal
