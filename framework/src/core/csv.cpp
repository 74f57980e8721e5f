// The delimited-text reader of dede/csv.h: a character-level state machine over a 64 KiB window
// of the file (or the whole string), so a table of any size streams in constant memory.
#include "dede/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <system_error>
#include <utility>

#include "dede/config_node.h"  // FormatNumber

namespace dede {
namespace {

constexpr std::size_t kWindowBytes = 64 * 1024;
constexpr std::size_t kQuotedValueBytes = 60;  // longer values are cut in messages

bool IsBlank(int c) { return c == ' ' || c == '\t'; }

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool SameName(std::string_view a, std::string_view b, bool ignore_case) {
  if (!ignore_case) return a == b;
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return LowerAscii(x) == LowerAscii(y);
         });
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// 'value', cut after kQuotedValueBytes.
std::string Quote(std::string_view value) {
  // Appended piece by piece: g++ 12 -O3 warns (-Wrestrict) about "'" + std::string(...).
  std::string out(1, '\'');
  out.append(value.substr(0, kQuotedValueBytes));
  if (value.size() <= kQuotedValueBytes) return out += '\'';
  return out.append("...' (").append(std::to_string(value.size())).append(" bytes)");
}

std::string Joined(const std::vector<std::string>& names, char delimiter) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += delimiter == CsvOptions::kWhitespace ? ' ' : delimiter;
    out += names[i];
  }
  return out;
}

// from_chars after an optional '+' (from_chars takes only '-'); "+-1" is not a number.
template <typename T>
std::errc FromChars(std::string_view text, T* out) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return std::errc::invalid_argument;
  }
  if (text.empty()) return std::errc::invalid_argument;
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc()) return ec;
  if (ptr != end) return std::errc::invalid_argument;
  *out = value;
  return std::errc();
}

// " in [lo, hi]", " >= lo", " <= hi" or "", leaving out a bound that is the type's own limit.
template <typename T>
std::string Bounds(T min, T max, T type_min, T type_max, std::string (*format)(T)) {
  const bool low = min != type_min, high = max != type_max;
  if (low && high) return " in [" + format(min) + ", " + format(max) + "]";
  if (low) return " >= " + format(min);
  if (high) return " <= " + format(max);
  return "";
}

std::string FormatInteger(std::int64_t v) { return std::to_string(v); }
std::string FormatDouble(double v) { return FormatNumber(v); }

// "an integer in [lo, hi]" and the like, for Expected().
std::string IntegerWhat(std::int64_t min,
                        std::int64_t max,
                        std::int64_t type_min = std::numeric_limits<std::int64_t>::min(),
                        std::int64_t type_max = std::numeric_limits<std::int64_t>::max()) {
  return "an integer" + Bounds<std::int64_t>(min, max, type_min, type_max, FormatInteger);
}

struct Position {
  int line = 1;
  int column = 1;
};

}  // namespace

struct CsvReader::Impl {
  std::string name;
  CsvOptions options;
  // Input: a window of the file (refilled as it is consumed) or the whole string.
  std::ifstream file;
  bool from_file = false;
  std::string window;
  std::size_t pos = 0;
  // Where the next character is.
  Position at;
  bool after_cr = false;  // the last character was a CR: a LF now ends no further line
  // The current record: fields [0, count) of `fields` (strings reused across records).
  std::vector<std::string> fields;
  std::vector<Position> starts;
  int count = 0;
  int record_line = 0;
  Position record_end;
  int expected_fields = -1;  // the header's or the first record's count; -1: not known yet
  std::vector<std::string> header;
  int header_line = 0;

  int Peek() {
    if (pos == window.size() && !Refill()) return -1;
    return static_cast<unsigned char>(window[pos]);
  }
  bool Refill() {
    if (!from_file || !file) return false;
    window.resize(kWindowBytes);
    file.read(window.data(), static_cast<std::streamsize>(window.size()));
    window.resize(static_cast<std::size_t>(file.gcount()));
    pos = 0;
    return !window.empty();
  }
  // Consumes one character; LF, CRLF and a lone CR each end one line.
  int Get() {
    const int c = Peek();
    if (c < 0) return c;
    ++pos;
    if (c == '\n') {
      if (!after_cr) ++at.line;
      at.column = 1;
    } else if (c == '\r') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
    after_cr = c == '\r';
    return c;
  }
  bool AtFieldEnd(int c) const {
    if (c < 0 || c == '\n' || c == '\r') return true;
    return options.delimiter == CsvOptions::kWhitespace ? IsBlank(c) : c == options.delimiter;
  }
  // A blank that is not the delimiter: with '\t' as the separator, a tab ends a field (an
  // empty field between two tabs stays a field) and only spaces are trimmed.
  bool Blank(int c) const {
    return IsBlank(c) && (options.delimiter == CsvOptions::kWhitespace || c != options.delimiter);
  }
  void SkipBlanks() {
    while (Blank(Peek())) Get();
  }
  void SkipLine() {
    for (int c = Peek(); c >= 0 && c != '\n' && c != '\r'; c = Peek()) Get();
    EndLine();
  }
  // Consumes one line end: LF, CRLF or CR.
  void EndLine() {
    const int c = Peek();
    if (c == '\r') {
      Get();
      if (Peek() == '\n') Get();
    } else if (c == '\n') {
      Get();
    }
  }
  std::string At(Position p) const {
    return name + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
  }

  // One field into *out. *comment: the line is a comment (its first field starts with the
  // comment character); nothing is read then.
  Status ReadField(std::string* out, bool* quoted, bool* comment);
  // One record into `fields`; false at the end of the input or on an error (*status).
  bool ReadRecord(Status* status);
  // Skips a UTF-8 byte-order mark and reads the header, if there is to be one.
  Status Start();
};

Status CsvReader::Impl::ReadField(std::string* out, bool* quoted, bool* comment) {
  out->clear();
  *quoted = false;
  *comment = false;
  const bool drop_blanks = options.trim || options.delimiter == CsvOptions::kWhitespace;
  starts[count] = at;
  while (Blank(Peek())) out->push_back(static_cast<char>(Get()));
  if (count == 0 && options.comment != '\0' && Peek() == options.comment) {
    *comment = true;
    return Status::Ok();
  }
  if (drop_blanks) {
    out->clear();
    starts[count] = at;
  }
  if (Peek() != '"' || !out->empty()) {
    for (int c = Peek(); !AtFieldEnd(c); c = Peek()) out->push_back(static_cast<char>(Get()));
    if (drop_blanks) {
      while (!out->empty() && Blank(out->back())) out->pop_back();
    }
    return Status::Ok();
  }
  *quoted = true;
  const Position open = at;
  Get();
  for (;;) {
    const int c = Get();
    if (c < 0) {
      return InvalidArgument(At(open) + ": the quoted field is not closed before the end of the " +
                             (from_file ? "file" : "text"));
    }
    if (c == '"') {
      if (Peek() != '"') break;
      Get();
    }
    out->push_back(static_cast<char>(c));
  }
  if (drop_blanks) SkipBlanks();
  const int next = Peek();
  if (!AtFieldEnd(next)) {
    return InvalidArgument(At(at) + ": '" + std::string(1, static_cast<char>(next)) +
                           "' after the closing quote of a field (a '\"' inside a quoted field "
                           "is written \"\")");
  }
  return Status::Ok();
}

bool CsvReader::Impl::ReadRecord(Status* status) {
  const bool whitespace = options.delimiter == CsvOptions::kWhitespace;
  for (;;) {
    if (Peek() < 0) return false;
    record_line = at.line;
    count = 0;
    bool comment = false, blank_line = false;
    for (;;) {
      if (static_cast<int>(fields.size()) <= count) {
        fields.emplace_back();
        starts.emplace_back();
      }
      bool quoted = false;
      Status field = ReadField(&fields[count], &quoted, &comment);
      if (!field.ok()) {
        *status = std::move(field);
        return false;
      }
      if (comment) break;
      if (count == 0) {
        const std::string& f = fields[0];
        blank_line = !quoted && std::all_of(f.begin(), f.end(), IsBlank);
      }
      ++count;
      if (whitespace) SkipBlanks();
      const int c = Peek();
      if (c < 0 || c == '\n' || c == '\r') break;
      if (!whitespace) Get();  // the delimiter
    }
    if (comment) {
      SkipLine();
      continue;
    }
    record_end = at;
    EndLine();
    if (count == 1 && blank_line) continue;
    break;
  }
  if (expected_fields < 0) expected_fields = count;
  if (!options.ragged && count != expected_fields) {
    *status =
        InvalidArgument(name + ":" + std::to_string(record_line) + ": " + std::to_string(count) +
                        " fields, expected " + std::to_string(expected_fields) +
                        (options.header ? " (the header's columns)" : " (the first record's)"));
    return false;
  }
  return true;
}

Status CsvReader::Impl::Start() {
  // The window holds the first 64 KiB, so the whole mark if there is one.
  if (Peek() == 0xEF && window.compare(pos, 3, "\xEF\xBB\xBF") == 0) pos += 3;
  if (!options.header) return Status::Ok();
  Status status;
  if (!ReadRecord(&status)) {
    if (!status.ok()) return status;
    return InvalidArgument(name + ": empty " + (from_file ? "file" : "text") +
                           ", expected a header line");
  }
  header.assign(fields.begin(), fields.begin() + count);
  header_line = record_line;
  expected_fields = count;
  count = 0;
  return Status::Ok();
}

CsvReader::CsvReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CsvReader::CsvReader(CsvReader&& other) noexcept = default;
CsvReader& CsvReader::operator=(CsvReader&& other) noexcept = default;
CsvReader::~CsvReader() = default;

Result<CsvReader> CsvReader::Open(const std::string& path, const CsvOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = path;
  impl->options = options;
  impl->from_file = true;
  impl->file.open(path, std::ios::binary);
  if (!impl->file) return NotFound(path + ": cannot open the file");
  Status status = impl->Start();
  if (!status.ok()) return status;
  return CsvReader(std::move(impl));
}

Result<CsvReader> CsvReader::OpenWithHeader(const std::string& path,
                                            const std::vector<std::string_view>& header,
                                            const CsvOptions& options) {
  Result<CsvReader> csv = Open(path, options);
  if (!csv.ok()) return csv;
  Status status = csv->ExpectHeader(header);
  if (!status.ok()) return status;
  return csv;
}

Result<CsvReader> CsvReader::FromString(std::string text,
                                        std::string name,
                                        const CsvOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->options = options;
  impl->window = std::move(text);
  Status status = impl->Start();
  if (!status.ok()) return status;
  return CsvReader(std::move(impl));
}

const std::string& CsvReader::name() const { return impl_->name; }

const std::vector<std::string>& CsvReader::header() const { return impl_->header; }

int CsvReader::header_line() const { return impl_->header_line; }

int CsvReader::Column(std::string_view name) const {
  for (std::size_t c = 0; c < impl_->header.size(); ++c) {
    if (SameName(impl_->header[c], name, impl_->options.ignore_header_case)) {
      return static_cast<int>(c);
    }
  }
  return -1;
}

Status CsvReader::ExpectHeader(const std::vector<std::string_view>& names) const {
  const std::vector<std::string>& got = impl_->header;
  bool same = got.size() == names.size();
  for (std::size_t c = 0; same && c < names.size(); ++c) {
    same = SameName(got[c], names[c], impl_->options.ignore_header_case);
  }
  if (same) return Status::Ok();
  const std::vector<std::string> want(names.begin(), names.end());
  return InvalidArgument(impl_->name + ":" + std::to_string(impl_->header_line) + ": header is '" +
                         Joined(got, impl_->options.delimiter) + "', expected '" +
                         Joined(want, impl_->options.delimiter) + "'");
}

Status CsvReader::RequireColumns(const std::vector<std::string_view>& names) const {
  for (std::string_view name : names) {
    if (Column(name) >= 0) continue;
    return InvalidArgument(impl_->name + ":" + std::to_string(impl_->header_line) +
                           ": missing column '" + std::string(name) + "' (the header is '" +
                           Joined(impl_->header, impl_->options.delimiter) + "')");
  }
  return Status::Ok();
}

bool CsvReader::Next(Status* status) {
  Status error;
  if (impl_->ReadRecord(&error)) return true;
  impl_->count = 0;
  if (!error.ok()) *status = std::move(error);
  return false;
}

int CsvReader::size() const { return impl_->count; }

int CsvReader::line() const { return impl_->record_line; }

std::string_view CsvReader::Field(int column) const {
  if (column < 0 || column >= impl_->count) return {};
  return impl_->fields[column];
}

std::vector<std::string_view> CsvReader::Items(int column, char separator) const {
  std::vector<std::string_view> items;
  std::string_view rest = Field(column);
  if (separator == CsvOptions::kWhitespace) {
    for (;;) {
      while (!rest.empty() && IsBlank(rest.front())) rest.remove_prefix(1);
      if (rest.empty()) return items;
      std::size_t n = 0;
      while (n < rest.size() && !IsBlank(rest[n])) ++n;
      items.push_back(rest.substr(0, n));
      rest.remove_prefix(n);
    }
  }
  if (TrimBlanks(rest).empty()) return items;
  for (;;) {
    const std::size_t end = rest.find(separator);
    items.push_back(TrimBlanks(rest.substr(0, end)));
    if (end == std::string_view::npos) return items;
    rest.remove_prefix(end + 1);
  }
}

std::string CsvReader::FieldName(int column) const {
  if (column >= 0 && column < static_cast<int>(impl_->header.size())) {
    return "column '" + impl_->header[column] + "'";
  }
  return "field " + std::to_string(column + 1);
}

std::string CsvReader::Where(int column) const {
  if (column >= 0 && column < impl_->count) return impl_->At(impl_->starts[column]);
  return impl_->At(impl_->record_end);  // a missing field of a ragged record: its end
}

std::string CsvReader::Where() const {
  return impl_->name + ":" + std::to_string(impl_->record_line);
}

Status CsvReader::FieldError(int column, std::string_view message) const {
  return InvalidArgument(Where(column) + ": " + FieldName(column) + ": " + std::string(message));
}

Status CsvReader::Expected(int column, std::string_view what) const {
  return FieldError(column, "expected " + std::string(what) + ", got " + Quote(Field(column)));
}

Status CsvReader::RecordError(std::string_view message) const {
  return InvalidArgument(Where() + ": " + std::string(message));
}

Status CsvReader::Read(int column, int* out, int min, int max) const {
  std::int64_t value = 0;
  if (FromChars(Field(column), &value) != std::errc() || value < min || value > max) {
    return Expected(
        column,
        IntegerWhat(min, max, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  }
  *out = static_cast<int>(value);
  return Status::Ok();
}

Status CsvReader::Read(int column, std::int64_t* out, std::int64_t min, std::int64_t max) const {
  std::int64_t value = 0;
  if (FromChars(Field(column), &value) != std::errc() || value < min || value > max) {
    return Expected(column, IntegerWhat(min, max));
  }
  *out = value;
  return Status::Ok();
}

Status CsvReader::Read(int column, double* out, double min, double max) const {
  double value = 0;
  const std::errc ec = FromChars(Field(column), &value);
  if (ec == std::errc() && !std::isnan(value) && value >= min && value <= max) {
    *out = value;
    return Status::Ok();
  }
  // With finite bounds, an out-of-range value ("1e999") or an infinity needs "finite" said.
  const bool finite = std::isfinite(min) && std::isfinite(max);
  const bool not_finite = ec == std::errc::result_out_of_range || std::isinf(value);
  const double inf = std::numeric_limits<double>::infinity();
  const std::string bounds = finite ? Bounds<double>(min,
                                                     max,
                                                     std::numeric_limits<double>::lowest(),
                                                     std::numeric_limits<double>::max(),
                                                     FormatDouble)
                                    : Bounds<double>(min, max, -inf, inf, FormatDouble);
  return Expected(column, (finite && not_finite ? "a finite number" : "a number") + bounds);
}

Status CsvReader::ReadIntegral(int column,
                               std::int64_t* out,
                               std::int64_t min,
                               std::int64_t max) const {
  std::int64_t value = 0;
  std::errc ec = FromChars(Field(column), &value);
  if (ec == std::errc::invalid_argument) {
    // 2^63 is exactly representable; every double below it converts without overflow.
    double number = 0;
    ec = FromChars(Field(column), &number);
    if (ec == std::errc() && std::trunc(number) == number && number >= -9223372036854775808.0 &&
        number < 9223372036854775808.0) {
      value = static_cast<std::int64_t>(number);
    } else {
      ec = std::errc::invalid_argument;
    }
  }
  if (ec != std::errc() || value < min || value > max) {
    return Expected(column, IntegerWhat(min, max));
  }
  *out = value;
  return Status::Ok();
}

bool ParseInteger(std::string_view text, std::int64_t* out) {
  return FromChars(text, out) == std::errc();
}

bool ParseInteger(std::string_view text, int* out) { return FromChars(text, out) == std::errc(); }

bool ParseDouble(std::string_view text, double* out) { return FromChars(text, out) == std::errc(); }

}  // namespace dede
