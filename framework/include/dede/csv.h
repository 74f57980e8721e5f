/// \file
/// The one reader of delimited text tables (CSV and its whitespace- or ';'-separated kin) for the
/// host and for plugins: traces, matrices, path files, checkpoint states. Records are streamed
/// from a file or read from a string; every error names where it is and what was found:
///   "trace.csv:12:17: column 'num_gpus': expected an integer in [1, 65536], got '4.5'"
/// i.e. `<name>:<line>:<column>`, where the column is the 1-based byte offset of the field's
/// first character in its line (a UTF-8 byte-order mark not counted), the field is named by its
/// header column ("column 'num_gpus'") or, without a header, by its position ("field 3"), and the
/// value is quoted as written (a long one cut after 60 bytes).
///
/// Syntax (RFC 4180, plus what the project's files have always allowed):
/// - Records end at LF, CRLF or a lone CR; the last one needs no line end. A UTF-8 byte-order
///   mark at the start is skipped. Lines of nothing but spaces and tabs are skipped.
/// - A field that starts with '"' is quoted: it ends at the next lone '"', "" inside stands for
///   one '"', and delimiters and line ends inside are part of the value (the record then spans
///   lines; its errors name the line it starts on). Anything but spaces, tabs, the delimiter or a
///   line end after the closing quote is an error. A '"' inside an unquoted field is kept as is.
/// - A trailing delimiter makes a last, empty field ("a,b," has three fields).
/// - Numbers (Read, ParseInteger, ParseDouble) are what std::from_chars reads, plus an optional
///   leading '+': decimal digits for integers; decimal or scientific notation for doubles. Hex
///   forms, thousands separators and spaces inside are errors. Nothing here throws.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dede/status.h"

namespace dede {

/// Fields in this order, for designated initializers: CsvReader::Open(path, {.ragged = true}).
struct CsvOptions {
  /// The field separator: ',', ';', a tab, ... or kWhitespace: then any run of spaces and tabs
  /// separates fields and blanks at the start and end of a line are not fields.
  static constexpr char kWhitespace = ' ';
  char delimiter = ',';
  /// The first record (after blank lines) names the columns: Column(), ExpectHeader() and errors
  /// that say "column 'name'". Without a header, errors say "field N".
  bool header = true;
  /// Header names compare without regard to ASCII case (Column, ExpectHeader, RequireColumns).
  bool ignore_header_case = false;
  /// Spaces and tabs around a field (and around a quoted field's quotes) are not part of it. Off:
  /// kept in unquoted fields, as RFC 4180 says (a field " 5" then reads as no number).
  bool trim = true;
  /// Records may have more or fewer fields than the header (or, without one, than the first
  /// record); a missing field reads as empty. Off: such a record is an error naming both counts.
  bool ragged = false;
  /// A line whose first character other than spaces and tabs is this one is skipped ('\0': no
  /// comments). Only outside quoted fields.
  char comment = '\0';
};

class CsvReader {
 public:
  /// Opens a file. NotFound "<path>: cannot open the file" if it cannot be read; with a header,
  /// InvalidArgument if the file has no header line or the header is malformed.
  static Result<CsvReader> Open(const std::string& path, const CsvOptions& options = {});
  /// Open, then ExpectHeader(header): a table whose columns are exactly `header`, in that order.
  static Result<CsvReader> OpenWithHeader(const std::string& path,
                                          const std::vector<std::string_view>& header,
                                          const CsvOptions& options = {});
  /// Reads `text`; `name` stands for the file in messages ("checkpoint of round 3"). Otherwise as
  /// Open.
  static Result<CsvReader> FromString(std::string text,
                                      std::string name,
                                      const CsvOptions& options = {});

  CsvReader(CsvReader&& other) noexcept;
  CsvReader& operator=(CsvReader&& other) noexcept;
  ~CsvReader();

  const std::string& name() const;

  // ---- header (empty without one) ----------------------------------------------------------
  const std::vector<std::string>& header() const;
  /// The line the header is on (1 unless blank lines precede it); 0 without a header.
  int header_line() const;
  /// The index of the first column called `name`, or -1.
  int Column(std::string_view name) const;
  /// OK if the header is exactly `names`, in that order. Else "<name>:1: header is 'a,b',
  /// expected 'x,y,z'".
  Status ExpectHeader(const std::vector<std::string_view>& names) const;
  /// OK if every one of `names` is a column (others may be present too). Else "<name>:1: missing
  /// column 'x' (the header is 'a,b')".
  Status RequireColumns(const std::vector<std::string_view>& names) const;

  // ---- records ---------------------------------------------------------------------------------
  /// Reads the next record: true if there is one; false at the end of the input, or on a
  /// malformed record, when *status says where and why (it is left alone otherwise). A record
  /// with the wrong number of fields (without `ragged`) is malformed.
  bool Next(Status* status);
  /// The current record: its number of fields, the line it starts on, and a field's text ("" for
  /// a column past the end). The views live until the next call to Next.
  int size() const;
  int line() const;
  std::string_view Field(int column) const;
  /// The field's items, separated by `separator` (kWhitespace: runs of spaces and tabs), each
  /// without surrounding blanks; none for an empty field. "0 2 3" -> {"0", "2", "3"}.
  std::vector<std::string_view> Items(int column, char separator) const;

  /// Typed fields. On failure an InvalidArgument of the form
  ///   "<name>:<line>:<column>: column 'x': expected an integer in [1, 32], got '4.5'"
  /// and *out unchanged. Doubles are finite unless a bound is infinite; NaN never reads.
  Status Read(int column,
              int* out,
              int min = std::numeric_limits<int>::min(),
              int max = std::numeric_limits<int>::max()) const;
  Status Read(int column,
              std::int64_t* out,
              std::int64_t min = std::numeric_limits<std::int64_t>::min(),
              std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
  Status Read(int column,
              double* out,
              double min = std::numeric_limits<double>::lowest(),
              double max = std::numeric_limits<double>::max()) const;
  /// An integer written as digits or as a number with an integral value ("4", "4.0", "4e0"), as
  /// spreadsheet and pandas exports write integer columns.
  Status ReadIntegral(int column,
                      std::int64_t* out,
                      std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;

  /// Errors about the current record, for the checks a caller makes itself:
  ///   Where(c)           "<name>:<line>:<column>" of field c
  ///   Where()            "<name>:<line>" of the record
  ///   FieldError(c, m)   "<name>:<line>:<column>: column 'x': m"
  ///   Expected(c, what)  "<name>:<line>:<column>: column 'x': expected what, got '<value>'"
  ///   RecordError(m)     "<name>:<line>: m"
  std::string Where(int column) const;
  std::string Where() const;
  /// "column 'x'" with a header, else "field 3".
  std::string FieldName(int column) const;
  Status FieldError(int column, std::string_view message) const;
  Status Expected(int column, std::string_view what) const;
  Status RecordError(std::string_view message) const;

 private:
  struct Impl;
  explicit CsvReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The whole of `text` as a number, with the reader's syntax (above): false if it is not one or
/// does not fit. ParseDouble reads "inf" and "nan" as std::from_chars does (Read does not).
bool ParseInteger(std::string_view text, std::int64_t* out);
bool ParseInteger(std::string_view text, int* out);
bool ParseDouble(std::string_view text, double* out);

}  // namespace dede
