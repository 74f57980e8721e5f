// Lines, fields and numbers of an MPS file, for the parser (mps_parser.h).
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace dede::internal {

// Reads a file line by line through a fixed buffer. A line over kMpsMaxLineLength, a control
// character or more than kMpsMaxFileBytes stop it with an error naming the line, so a huge
// line or a binary file costs no memory.
class MpsLineReader {
 public:
  explicit MpsLineReader(const std::string& path);
  bool is_open() const { return in_.is_open(); }
  // The next line without its line feed (and a carriage return before it). False at the end
  // of the file, or on an error: then error() says why and line_number() is the bad line.
  bool Next(std::string* line);
  long long line_number() const { return line_number_; }
  const std::string& error() const { return error_; }

 private:
  bool Fill();
  bool Finish(std::string* line);
  std::ifstream in_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  std::uintmax_t bytes_ = 0;
  long long line_number_ = 0;
  std::string error_;
};

// A data line's fields, numbered as in fixed format: 1 a type, 2 and 3 names, 4 a number, 5 a
// name, 6 a number. An empty view: not given. The views point into the line.
struct MpsFields {
  std::array<std::string_view, 7> field;  // [0] unused
};

// The space- and tab-separated tokens of `line`.
void SplitMpsTokens(std::string_view line, std::vector<std::string_view>* tokens);

// Fixed format: the fields by column (mps_reader.h), without leading and trailing spaces.
// False if the line has a tab or text between the fields; *why then says where.
bool SplitMpsFixedFields(std::string_view line, MpsFields* fields, std::string* why);

// "field 4 (columns 25-36)" in fixed format, "field 4" in free format.
std::string MpsFieldLabel(int field, bool fixed);

enum class MpsNumber : std::uint8_t { kOk, kNotANumber, kOutOfRange };
// A decimal number ("1", "-1.5e3", ".5", "+2"); "inf", "infinity" and "nan" are kOk with that
// value (callers decide), a value beyond a double's range is kOutOfRange.
MpsNumber ParseMpsNumber(std::string_view text, double* value);

// The shortest text that reads back as `value` ("inf" and "-inf" for infinities).
std::string MpsNumberText(double value);

}  // namespace dede::internal
