#include "exact/mps_parser.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exact/mps_text.h"

namespace dede::internal {
namespace {

enum class Section { kNone, kName, kObjsense, kRows, kColumns, kRhs, kRanges, kBounds, kEndata };

const char* SectionName(Section section) {
  switch (section) {
    case Section::kNone:
      return "";
    case Section::kName:
      return "NAME";
    case Section::kObjsense:
      return "OBJSENSE";
    case Section::kRows:
      return "ROWS";
    case Section::kColumns:
      return "COLUMNS";
    case Section::kRhs:
      return "RHS";
    case Section::kRanges:
      return "RANGES";
    case Section::kBounds:
      return "BOUNDS";
    case Section::kEndata:
      return "ENDATA";
  }
  return "";
}

// Sections that MPS dialects define but an LP / MILP reader of this contract does not read.
bool IsUnsupportedSection(std::string_view keyword) {
  static constexpr std::array<std::string_view, 16> kUnsupported = {"OBJNAME",
                                                                    "OBJSENS",
                                                                    "SOS",
                                                                    "SETS",
                                                                    "QUADOBJ",
                                                                    "QSECTION",
                                                                    "QMATRIX",
                                                                    "QCMATRIX",
                                                                    "CSECTION",
                                                                    "INDICATORS",
                                                                    "GENCONS",
                                                                    "PWLOBJ",
                                                                    "BRANCH",
                                                                    "USERCUTS",
                                                                    "LAZYCONS",
                                                                    "SCENARIOS"};
  for (std::string_view name : kUnsupported)
    if (keyword == name) return true;
  return false;
}

enum class BoundType { kUp, kLo, kFx, kFr, kMi, kPl, kBv, kLi, kUi, kSc, kUnknown };

BoundType ParseBoundType(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, BoundType>, 10> kTypes = {{
      {"UP", BoundType::kUp},
      {"LO", BoundType::kLo},
      {"FX", BoundType::kFx},
      {"FR", BoundType::kFr},
      {"MI", BoundType::kMi},
      {"PL", BoundType::kPl},
      {"BV", BoundType::kBv},
      {"LI", BoundType::kLi},
      {"UI", BoundType::kUi},
      {"SC", BoundType::kSc},
  }};
  for (const auto& [name, type] : kTypes)
    if (text == name) return type;
  return BoundType::kUnknown;
}

bool BoundNeedsValue(BoundType type) {
  return type == BoundType::kUp || type == BoundType::kLo || type == BoundType::kFx ||
         type == BoundType::kLi || type == BoundType::kUi || type == BoundType::kSc;
}

// Names are looked up by string_view without building a std::string per field.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameIndex = std::unordered_map<std::string, int, NameHash, std::equal_to<>>;

// Built by appending: "'" + std::string(text) + "'" trips GCC 12's -Wrestrict at -O3 (a false
// positive inside std::string's concatenation).
std::string Quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out.append(text);
  out += '\'';
  return out;
}

class Parser {
 public:
  Parser(const std::string& path, MpsFormat format, MpsModel* model)
      : reader_(path), fixed_(format == MpsFormat::kFixed), model_(model) {}
  bool Run(MpsError* error);

 private:
  bool Line(std::string_view line);
  bool HeaderLine();
  bool Enter(Section section);
  bool Leave();
  bool DataLine(std::string_view line);
  bool FreeFields(MpsFields* fields);
  bool CheckShape(const MpsFields& fields);
  bool ObjsenseValue(std::string_view word);
  bool RowsLine(const MpsFields& fields);
  bool ColumnsLine(const MpsFields& fields);
  bool MarkerLine(const MpsFields& fields);
  bool ColumnEntry(std::string_view row_name, std::string_view text);
  bool VectorName(std::string_view name, std::string* seen, long long* seen_line);
  bool RhsLine(const MpsFields& fields);
  bool RhsEntry(std::string_view row_name, std::string_view text);
  bool RangeEntry(std::string_view row_name, std::string_view text);
  bool BoundsLine(const MpsFields& fields);
  bool UnknownBoundType(std::string_view type, std::string_view column) {
    return Fail("bound type " + Quote(type) + " of column " + Quote(column) +
                " is not UP, LO, FX, FR, MI, PL, BV, LI or UI");
  }
  bool ApplyBound(BoundType type, std::string_view type_text, double value, MpsColumn* column);
  bool SetLower(MpsColumn* column, double value);
  bool SetUpper(MpsColumn* column, double value);
  void Finish();
  // Parses a number that must be finite; on failure, the error is what() + the reason.
  template <typename What>
  bool Finite(std::string_view text, const What& what, double* value) {
    switch (ParseMpsNumber(text, value)) {
      case MpsNumber::kOk:
        if (std::isfinite(*value)) return true;
        return Fail(what() + (std::isnan(*value) ? " is not a number" : " is not finite"));
      case MpsNumber::kNotANumber:
        return Fail(what() + " is not a number");
      case MpsNumber::kOutOfRange:
        return Fail(what() + " is out of the range of a double");
    }
    return Fail(what() + " is not a number");
  }
  // The current line's error; `message` is prefixed with the section.
  bool Fail(const std::string& message);
  bool FailPlain(const std::string& message);  // without the section

  MpsLineReader reader_;
  bool fixed_;
  MpsModel* model_;
  MpsError error_;
  std::vector<std::string_view> tokens_;
  Section section_ = Section::kNone;
  Section last_ordered_ = Section::kNone;  // the last section that has a place in the order
  long long objsense_line_ = 0;            // its header line; 0: none yet
  bool objsense_pending_ = false;          // OBJSENSE without a value yet
  bool rows_seen_ = false, columns_seen_ = false;
  NameIndex row_index_, column_index_;
  // Per row: the column that last had an entry in it and that entry's line (duplicates).
  std::vector<std::pair<int, long long>> row_entry_;
  int column_ = -1;              // the column COLUMNS is filling; -1 after a MARKER line
  long long integer_block_ = 0;  // the line of the open INTORG marker; 0: none
  std::string rhs_vector_, range_vector_, bound_vector_;
  long long rhs_vector_line_ = 0, range_vector_line_ = 0, bound_vector_line_ = 0;
};

bool Parser::Run(MpsError* error) {
  if (!reader_.is_open()) {
    error->line = 0;
    error->message = "cannot open";
    return false;
  }
  std::string line;
  while (section_ != Section::kEndata) {
    if (!reader_.Next(&line)) {
      if (!reader_.error().empty()) {
        error->line = reader_.line_number();
        error->message = reader_.error();
        error->text = true;
        return false;
      }
      break;
    }
    if (!Line(line)) {
      *error = std::move(error_);
      return false;
    }
  }
  if (section_ != Section::kEndata) {
    error_.line = reader_.line_number();
    error_.message = "the file ends without ENDATA (truncated?)";
    *error = std::move(error_);
    return false;
  }
  Finish();
  return true;
}

bool Parser::Line(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[0] == '*') return true;  // blank or comment
  SplitMpsTokens(line, &tokens_);
  if (line[0] != ' ' && line[0] != '\t') return HeaderLine();
  return DataLine(line);
}

bool Parser::HeaderLine() {
  const std::string_view keyword = tokens_[0];
  if (section_ == Section::kObjsense && objsense_pending_)
    return Fail("no MAX or MIN line before " + Quote(keyword));
  if (keyword == "NAME") return Enter(Section::kName);  // the rest of the line is the name
  if (keyword == "OBJSENSE") {
    if (objsense_line_ != 0)
      return FailPlain("a second OBJSENSE section (the first is at line " +
                       std::to_string(objsense_line_) + ")");
    if (!Leave()) return false;
    section_ = Section::kObjsense;
    objsense_line_ = reader_.line_number();
    if (tokens_.size() > 2)
      return Fail("unexpected text " + Quote(tokens_[2]) + " after the sense");
    if (tokens_.size() == 2) return ObjsenseValue(tokens_[1]);
    objsense_pending_ = true;
    return true;
  }
  static constexpr std::array<std::pair<std::string_view, Section>, 6> kSections = {{
      {"ROWS", Section::kRows},
      {"COLUMNS", Section::kColumns},
      {"RHS", Section::kRhs},
      {"RANGES", Section::kRanges},
      {"BOUNDS", Section::kBounds},
      {"ENDATA", Section::kEndata},
  }};
  for (const auto& [name, section] : kSections) {
    if (keyword != name) continue;
    if (tokens_.size() > 1)
      return FailPlain(std::string(name) + ": unexpected text " + Quote(tokens_[1]) +
                       " after the section name");
    return Enter(section);
  }
  if (IsUnsupportedSection(keyword))
    return FailPlain("section " + std::string(keyword) +
                     " is not supported (an LP / MILP has NAME, OBJSENSE, ROWS, COLUMNS, RHS, "
                     "RANGES, BOUNDS, ENDATA)");
  return FailPlain(Quote(keyword) +
                   " is not an MPS section name (a line that starts in column 1 is a section "
                   "header; data lines start with a space)");
}

// Sections come in the order of the enum (OBJSENSE anywhere, once), each at most once.
bool Parser::Enter(Section section) {
  if (!Leave()) return false;
  if (section == last_ordered_)
    return FailPlain("a second " + std::string(SectionName(section)) + " section");
  if (last_ordered_ != Section::kNone && section < last_ordered_)
    return FailPlain(std::string(SectionName(section)) + " after " + SectionName(last_ordered_) +
                     ": the sections are NAME, ROWS, COLUMNS, RHS, RANGES, BOUNDS, ENDATA, in "
                     "this order and each once");
  if (section == Section::kColumns && !rows_seen_) return FailPlain("COLUMNS before ROWS");
  if (section > Section::kColumns && !columns_seen_)
    return FailPlain(std::string(SectionName(section)) + " without a COLUMNS section before it");
  rows_seen_ = rows_seen_ || section == Section::kRows;
  columns_seen_ = columns_seen_ || section == Section::kColumns;
  section_ = last_ordered_ = section;
  return true;
}

// Checks that leave the current section at a header line.
bool Parser::Leave() {
  if (section_ == Section::kColumns && integer_block_ != 0)
    return Fail("the integer block opened at line " + std::to_string(integer_block_) +
                " ('INTORG') is not closed ('INTEND') before the next section");
  return true;
}

bool Parser::DataLine(std::string_view line) {
  switch (section_) {
    case Section::kNone:
      return FailPlain("a data line before the first section (NAME or ROWS)");
    case Section::kName:
      return Fail("unexpected data line (the problem's name goes on the NAME line)");
    case Section::kObjsense:
      if (!objsense_pending_) return Fail("a second value; the sense is given once");
      if (tokens_.size() != 1)
        return Fail("expected one field (MAX or MIN), found " + std::to_string(tokens_.size()));
      return ObjsenseValue(tokens_[0]);
    case Section::kEndata:
      return true;  // not reached: the reader stops at ENDATA
    default:
      break;
  }
  MpsFields fields;
  if (fixed_) {
    std::string why;
    if (!SplitMpsFixedFields(line, &fields, &why)) return Fail(why);
  } else if (!FreeFields(&fields)) {
    return false;
  }
  if (!CheckShape(fields)) return false;
  switch (section_) {
    case Section::kRows:
      return RowsLine(fields);
    case Section::kColumns:
      return ColumnsLine(fields);
    case Section::kRhs:
    case Section::kRanges:
      return RhsLine(fields);
    default:
      return BoundsLine(fields);
  }
}

// Free format: which fixed-format field each token fills, from the section and the count.
bool Parser::FreeFields(MpsFields* fields) {
  const std::vector<std::string_view>& t = tokens_;
  const std::size_t n = t.size();
  const auto fill = [&](std::initializer_list<int> which) {
    std::size_t k = 0;
    for (int f : which) fields->field[f] = t[k++];
    return true;
  };
  const std::string found = ", found " + std::to_string(n);
  switch (section_) {
    case Section::kRows:
      if (n == 2) return fill({1, 2});
      return Fail("expected 2 fields (row type, row name)" + found);
    case Section::kColumns:
      if (n == 3 && t[1] == "'MARKER'") return fill({2, 3, 5});
      if (n == 3) return fill({2, 3, 4});
      if (n == 5) return fill({2, 3, 4, 5, 6});
      return Fail("expected 3 fields (column, row, value) or 5 (column, row, value, row, value)" +
                  found);
    case Section::kRhs:
    case Section::kRanges:
      if (n == 2) return fill({3, 4});
      if (n == 3) return fill({2, 3, 4});
      if (n == 4) return fill({3, 4, 5, 6});
      if (n == 5) return fill({2, 3, 4, 5, 6});
      return Fail("expected 2 to 5 fields ([vector,] row, value[, row, value])" + found);
    default: {
      const BoundType type = ParseBoundType(t[0]);
      if (type == BoundType::kUnknown) return UnknownBoundType(t[0], n > 2 ? t[2] : t.back());
      if (BoundNeedsValue(type)) {
        if (n == 3) return fill({1, 3, 4});
        if (n == 4) return fill({1, 2, 3, 4});
        return Fail("expected 3 or 4 fields (type, [vector,] column, value) for " +
                    std::string(t[0]) + found);
      }
      if (n == 2) return fill({1, 3});
      if (n == 3) return fill({1, 2, 3});
      if (n == 4) return fill({1, 2, 3, 4});
      return Fail("expected 2 to 4 fields (type, [vector,] column[, value]) for " +
                  std::string(t[0]) + found);
    }
  }
}

// Which fields a data line must and may fill (bit f for field f). Free-format lines always
// fit; this catches fixed-format lines with an empty or an extra field.
bool Parser::CheckShape(const MpsFields& fields) {
  static constexpr std::array<const char*, 7> kRows = {"", "row type", "row name"};
  static constexpr std::array<const char*, 7> kColumns = {
      "", "", "column name", "row name", "value", "row name", "value"};
  static constexpr std::array<const char*, 7> kRhs = {
      "", "", "vector name", "row name", "value", "row name", "value"};
  static constexpr std::array<const char*, 7> kBounds = {
      "", "bound type", "vector name", "column name", "value"};
  const auto& f = fields.field;
  unsigned required = 0, allowed = 0;
  const std::array<const char*, 7>* roles = &kRows;
  switch (section_) {
    case Section::kRows:
      required = allowed = 0b110;
      break;
    case Section::kColumns:
      roles = &kColumns;
      if (f[3] == "'MARKER'") {
        required = allowed = 0b101100;
      } else {
        required = 0b11100;
        allowed = 0b1111100;
      }
      break;
    case Section::kRhs:
    case Section::kRanges:
      roles = &kRhs;
      required = 0b11000;
      allowed = 0b1111100;
      break;
    default:
      roles = &kBounds;
      required = 0b1010;
      allowed = 0b11110;
      break;
  }
  for (int k = 1; k <= 6; ++k) {
    const char* role = (*roles)[k];
    if ((allowed >> k & 1u) == 0 && !f[k].empty())
      return Fail("unexpected text " + Quote(f[k]) + " in " + MpsFieldLabel(k, fixed_));
    if ((required >> k & 1u) != 0 && f[k].empty())
      return Fail("no " + std::string(role) + " (" + MpsFieldLabel(k, fixed_) + ")");
  }
  if ((allowed >> 6 & 1u) != 0 && f[5].empty() != f[6].empty()) {
    const int missing = f[5].empty() ? 5 : 6;
    return Fail("no " + std::string((*roles)[missing]) + " (" + MpsFieldLabel(missing, fixed_) +
                ") for the second entry");
  }
  return true;
}

bool Parser::ObjsenseValue(std::string_view word) {
  objsense_pending_ = false;
  if (word == "MAX" || word == "MAXIMIZE") {
    model_->sense = ObjectiveSense::kMaximize;
  } else if (word == "MIN" || word == "MINIMIZE") {
    model_->sense = ObjectiveSense::kMinimize;
  } else {
    return Fail("sense " + Quote(word) + " is not MAX, MAXIMIZE, MIN or MINIMIZE");
  }
  return true;
}

bool Parser::RowsLine(const MpsFields& fields) {
  const std::string_view type = fields.field[1];
  const std::string_view name = fields.field[2];
  if (type != "N" && type != "E" && type != "L" && type != "G")
    return Fail("row type " + Quote(type) + " of row " + Quote(name) + " is not N, E, L or G");
  const int index = static_cast<int>(model_->rows.size());
  const auto [it, inserted] = row_index_.emplace(std::string(name), index);
  if (!inserted)
    return Fail("row " + Quote(name) + " is declared twice (first at line " +
                std::to_string(model_->rows[it->second].line) + ")");
  MpsRow row;
  row.name = std::string(name);
  row.type = type[0];
  row.line = reader_.line_number();
  model_->rows.push_back(std::move(row));
  row_entry_.emplace_back(-1, 0);
  if (type == "N" && model_->objective < 0) model_->objective = index;
  return true;
}

bool Parser::ColumnsLine(const MpsFields& fields) {
  const auto& f = fields.field;
  if (f[3] == "'MARKER'") return MarkerLine(fields);
  const std::string_view name = f[2];
  if (column_ < 0 || model_->columns[column_].name != name) {
    if (const auto it = column_index_.find(name); it != column_index_.end()) {
      const MpsColumn& first = model_->columns[it->second];
      return Fail("column " + Quote(name) + " continues after " +
                  (column_ < 0 ? std::string("a MARKER line")
                               : "column " + Quote(model_->columns[column_].name)) +
                  "; its entries start at line " + std::to_string(first.line) +
                  " and must be contiguous");
    }
    column_ = static_cast<int>(model_->columns.size());
    column_index_.emplace(std::string(name), column_);
    MpsColumn column;
    column.name = std::string(name);
    column.integer = integer_block_ != 0;
    column.line = reader_.line_number();
    model_->columns.push_back(std::move(column));
  }
  if (!ColumnEntry(f[3], f[4])) return false;
  return f[5].empty() || ColumnEntry(f[5], f[6]);
}

bool Parser::MarkerLine(const MpsFields& fields) {
  const std::string_view kind = fields.field[5];
  column_ = -1;
  if (kind == "'INTORG'") {
    if (integer_block_ != 0)
      return Fail("'INTORG' inside the integer block opened at line " +
                  std::to_string(integer_block_));
    integer_block_ = reader_.line_number();
    return true;
  }
  if (kind == "'INTEND'") {
    if (integer_block_ == 0) return Fail("'INTEND' without an open 'INTORG' block");
    integer_block_ = 0;
    return true;
  }
  return Fail("marker " + Quote(fields.field[2]) + " has type " + std::string(kind) +
              "; 'INTORG' and 'INTEND' are supported");
}

bool Parser::ColumnEntry(std::string_view row_name, std::string_view text) {
  MpsColumn& column = model_->columns[column_];
  const auto it = row_index_.find(row_name);
  if (it == row_index_.end())
    return Fail("column " + Quote(column.name) + " has an entry in row " + Quote(row_name) +
                ", which ROWS does not declare");
  double value = 0.0;
  const auto what = [&] {
    return "value " + Quote(text) + " of column " + Quote(column.name) + " in row " +
           Quote(row_name);
  };
  if (!Finite(text, what, &value)) return false;
  const int r = it->second;
  auto& [last_column, last_line] = row_entry_[r];
  if (last_column == column_)
    return Fail("column " + Quote(column.name) + " has a second entry in row " + Quote(row_name) +
                " (the first is at line " + std::to_string(last_line) + ")");
  last_column = column_;
  last_line = reader_.line_number();
  MpsRow& row = model_->rows[r];
  if (r == model_->objective) {
    column.cost = value;
  } else if (row.type != 'N' && value != 0.0) {  // other N rows are dropped
    row.terms.push_back({column_, value});
  }
  return true;
}

// One RHS / RANGES / BOUNDS vector is read: a second name is an error, not silently skipped.
bool Parser::VectorName(std::string_view name, std::string* seen, long long* seen_line) {
  if (*seen_line == 0) {
    *seen = std::string(name);
    *seen_line = reader_.line_number();
    return true;
  }
  if (name == *seen) return true;
  return Fail("a second vector " + Quote(name) + " (the first, " + Quote(*seen) + ", is at line " +
              std::to_string(*seen_line) + "); only one is read");
}

bool Parser::RhsLine(const MpsFields& fields) {
  const auto& f = fields.field;
  const bool rhs = section_ == Section::kRhs;
  if (!VectorName(
          f[2], rhs ? &rhs_vector_ : &range_vector_, rhs ? &rhs_vector_line_ : &range_vector_line_))
    return false;
  if (!(rhs ? RhsEntry(f[3], f[4]) : RangeEntry(f[3], f[4]))) return false;
  if (f[5].empty()) return true;
  return rhs ? RhsEntry(f[5], f[6]) : RangeEntry(f[5], f[6]);
}

bool Parser::RhsEntry(std::string_view row_name, std::string_view text) {
  const auto it = row_index_.find(row_name);
  if (it == row_index_.end()) return Fail("row " + Quote(row_name) + " is not declared in ROWS");
  double value = 0.0;
  const auto what = [&] { return "value " + Quote(text) + " of row " + Quote(row_name); };
  if (!Finite(text, what, &value)) return false;
  MpsRow& row = model_->rows[it->second];
  if (row.rhs_line != 0)
    return Fail("row " + Quote(row_name) + " has a second right-hand side (the first is at line " +
                std::to_string(row.rhs_line) + ")");
  row.rhs_line = reader_.line_number();
  row.rhs = value;
  if (it->second == model_->objective) model_->objective_rhs = value;
  return true;
}

bool Parser::RangeEntry(std::string_view row_name, std::string_view text) {
  const auto it = row_index_.find(row_name);
  if (it == row_index_.end()) return Fail("row " + Quote(row_name) + " is not declared in ROWS");
  double value = 0.0;
  const auto what = [&] { return "range " + Quote(text) + " of row " + Quote(row_name); };
  if (!Finite(text, what, &value)) return false;
  MpsRow& row = model_->rows[it->second];
  if (row.type == 'N')
    return Fail("row " + Quote(row_name) + " is an N (free) row; ranges apply to E, L and G rows");
  if (row.range_line != 0)
    return Fail("row " + Quote(row_name) + " has a second range (the first is at line " +
                std::to_string(row.range_line) + ")");
  row.range_line = reader_.line_number();
  row.range = value;
  return true;
}

bool Parser::BoundsLine(const MpsFields& fields) {
  const auto& f = fields.field;
  const BoundType type = ParseBoundType(f[1]);
  if (type == BoundType::kUnknown) return UnknownBoundType(f[1], f[3]);
  if (type == BoundType::kSc)
    return Fail("semi-continuous bound (SC) on column " + Quote(f[3]) + " is not supported");
  if (!VectorName(f[2], &bound_vector_, &bound_vector_line_)) return false;
  const auto it = column_index_.find(f[3]);
  if (it == column_index_.end())
    return Fail(std::string(f[1]) + " bound on column " + Quote(f[3]) +
                ", which COLUMNS does not declare");
  MpsColumn& column = model_->columns[it->second];
  double value = 0.0;
  if (BoundNeedsValue(type)) {
    if (f[4].empty())
      return Fail(std::string(f[1]) + " bound of column " + Quote(f[3]) + " has no value");
    switch (ParseMpsNumber(f[4], &value)) {
      case MpsNumber::kOk:
        break;
      case MpsNumber::kNotANumber:
        return Fail("value " + Quote(f[4]) + " of the " + std::string(f[1]) + " bound of column " +
                    Quote(f[3]) + " is not a number");
      case MpsNumber::kOutOfRange:
        return Fail("value " + Quote(f[4]) + " of the " + std::string(f[1]) + " bound of column " +
                    Quote(f[3]) + " is out of the range of a double");
    }
    if (std::isnan(value))
      return Fail("value " + Quote(f[4]) + " of the " + std::string(f[1]) + " bound of column " +
                  Quote(f[3]) + " is not a number");
    if (std::abs(value) >= 1e30) value = std::copysign(kInfinity, value);  // MPS's infinity
  }
  if (!ApplyBound(type, f[1], value, &column)) return false;
  if (column.lower > column.upper)
    return Fail("column " + Quote(column.name) + " has lower bound " + MpsNumberText(column.lower) +
                " above its upper bound " + MpsNumberText(column.upper));
  return true;
}

bool Parser::ApplyBound(BoundType type,
                        std::string_view type_text,
                        double value,
                        MpsColumn* column) {
  const auto infinite = [&](const char* side) {
    return Fail(std::string(type_text) + " bound of column " + Quote(column->name) + " is " +
                MpsNumberText(value) + ": " + side);
  };
  switch (type) {
    case BoundType::kUi:
    case BoundType::kUp:
      if (value == -kInfinity) return infinite("an upper bound of -inf leaves no value");
      // CoinMpsIO's rule: a negative upper bound on a column whose lower bound
      // is still the default 0 means a lower bound of -inf, not an empty column.
      if (value < 0 && column->lower_line == 0) column->lower = -kInfinity;
      column->integer = column->integer || type == BoundType::kUi;
      return SetUpper(column, value);
    case BoundType::kLi:
    case BoundType::kLo:
      if (value == kInfinity) return infinite("a lower bound of +inf leaves no value");
      column->integer = column->integer || type == BoundType::kLi;
      return SetLower(column, value);
    case BoundType::kFx:
      if (std::isinf(value)) return infinite("a fixed value must be finite");
      return SetLower(column, value) && SetUpper(column, value);
    case BoundType::kFr:
      return SetLower(column, -kInfinity) && SetUpper(column, kInfinity);
    case BoundType::kMi:
      return SetLower(column, -kInfinity);
    case BoundType::kPl:
      return SetUpper(column, kInfinity);
    case BoundType::kBv:
      column->integer = true;
      return SetLower(column, 0.0) && SetUpper(column, 1.0);
    default:
      return Fail("unexpected bound type");  // rejected in BoundsLine
  }
}

bool Parser::SetLower(MpsColumn* column, double value) {
  if (column->lower_line != 0)
    return Fail("column " + Quote(column->name) + " already has a lower bound (from line " +
                std::to_string(column->lower_line) + ")");
  column->lower = value;
  column->lower_line = reader_.line_number();
  return true;
}

bool Parser::SetUpper(MpsColumn* column, double value) {
  if (column->upper_line != 0)
    return Fail("column " + Quote(column->name) + " already has an upper bound (from line " +
                std::to_string(column->upper_line) + ")");
  column->upper = value;
  column->upper_line = reader_.line_number();
  return true;
}

void Parser::Finish() {
  // CoinMpsIO's convention: a MARKER integer column that no BOUNDS card names is binary.
  for (MpsColumn& column : model_->columns)
    if (column.integer && column.lower_line == 0 && column.upper_line == 0) column.upper = 1.0;
}

bool Parser::Fail(const std::string& message) {
  error_.line = reader_.line_number();
  error_.message = section_ == Section::kNone ? message : SectionName(section_) + (": " + message);
  error_.text = false;
  return false;
}

bool Parser::FailPlain(const std::string& message) {
  error_.line = reader_.line_number();
  error_.message = message;
  error_.text = false;
  return false;
}

}  // namespace

bool ParseMps(const std::string& path, MpsFormat format, MpsModel* model, MpsError* error) {
  return Parser(path, format, model).Run(error);
}

}  // namespace dede::internal
