#include "query.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "store/file_access.h"
#include "store/store.h"

namespace dede::tools {
namespace {

using internal::QueryResult;

// Display width of UTF-8 text: code points, i.e. bytes that do not continue a sequence.
// (East Asian wide characters count as one; good enough for names and numbers.)
std::size_t DisplayWidth(std::string_view text) {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

// A value on one table line: control characters that would break the layout are escaped.
std::string TableCell(const std::optional<std::string>& value) {
  if (!value) return "NULL";
  std::string cell;
  cell.reserve(value->size());
  for (const char c : *value) {
    switch (c) {
      case '\n':
        cell += "\\n";
        break;
      case '\r':
        cell += "\\r";
        break;
      case '\t':
        cell += "\\t";
        break;
      default:
        cell += c;
    }
  }
  return cell;
}

void WriteTable(const QueryResult& result, std::ostream& out) {
  const std::size_t columns = result.columns.size();
  std::vector<std::vector<std::string>> cells(result.rows.size());
  std::vector<std::size_t> width(columns);
  // A column is right-aligned (header included) when every non-NULL value in it is a number.
  std::vector<bool> right(columns, true);
  for (std::size_t c = 0; c < columns; ++c) width[c] = DisplayWidth(result.columns[c]);
  for (std::size_t r = 0; r < result.rows.size(); ++r) {
    for (std::size_t c = 0; c < columns; ++c) {
      const auto& value = result.rows[r][c];
      cells[r].push_back(TableCell(value));
      width[c] = std::max(width[c], DisplayWidth(cells[r].back()));
      if (value && !result.numeric[r][c]) right[c] = false;
    }
  }
  auto write_line = [&](const std::vector<std::string>& line,
                        const std::vector<bool>& align_right) {
    std::string text;
    for (std::size_t c = 0; c < columns; ++c) {
      if (c > 0) text += "  ";
      const std::size_t padding = width[c] - DisplayWidth(line[c]);
      if (align_right[c]) text.append(padding, ' ');
      text += line[c];
      if (!align_right[c]) text.append(padding, ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  write_line(result.columns, right);
  std::vector<std::string> rule(columns);
  for (std::size_t c = 0; c < columns; ++c) rule[c].assign(width[c], '-');
  write_line(rule, right);
  for (std::size_t r = 0; r < result.rows.size(); ++r) {
    std::vector<bool> align(columns);
    for (std::size_t c = 0; c < columns; ++c) align[c] = right[c] || result.numeric[r][c];
    write_line(cells[r], align);
  }
  out << "(" << result.rows.size() << (result.rows.size() == 1 ? " row)" : " rows)") << '\n';
}

// RFC 4180, section 2: quote a field that contains a comma, a double quote, CR or LF, and
// double the quotes inside it.
std::string CsvField(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string field = "\"";
  for (const char c : value) {
    if (c == '"') field += '"';
    field += c;
  }
  field += '"';
  return field;
}

void WriteCsv(const QueryResult& result, std::ostream& out) {
  auto write_line = [&](auto&& field_of) {
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      if (c > 0) out << ',';
      out << field_of(c);
    }
    out << "\r\n";  // RFC 4180 line break
  };
  write_line([&](std::size_t c) { return CsvField(result.columns[c]); });
  for (const auto& row : result.rows) {
    write_line([&](std::size_t c) { return row[c] ? CsvField(*row[c]) : std::string(); });
  }
}

// Store::Query gives numbers as shortest round-trip text; turn them back into JSON numbers.
nlohmann::ordered_json JsonNumber(const std::string& text) {
  std::int64_t integer = 0;
  const char* end = text.data() + text.size();
  if (auto [ptr, ec] = std::from_chars(text.data(), end, integer);
      ec == std::errc() && ptr == end) {
    return integer;
  }
  double real = 0;
  if (auto [ptr, ec] = std::from_chars(text.data(), end, real);
      ec == std::errc() && ptr == end && std::isfinite(real)) {
    return real;
  }
  return text;  // "inf", "-inf": JSON has no such numbers
}

void WriteJson(const QueryResult& result, std::ostream& out) {
  // Objects need distinct keys; `SELECT a.round, b.round` would otherwise lose a column.
  std::vector<std::string> keys;
  std::unordered_set<std::string> used;
  for (const std::string& column : result.columns) {
    std::string key = column;
    for (int n = 2; used.contains(key); ++n) key = column + "_" + std::to_string(n);
    used.insert(key);
    keys.push_back(std::move(key));
  }
  if (result.rows.empty()) {
    out << "[]\n";
    return;
  }
  out << "[\n";
  for (std::size_t r = 0; r < result.rows.size(); ++r) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < keys.size(); ++c) {
      const auto& value = result.rows[r][c];
      if (!value) {
        object[keys[c]] = nullptr;
      } else if (result.numeric[r][c]) {
        object[keys[c]] = JsonNumber(*value);
      } else {
        object[keys[c]] = *value;
      }
    }
    // Invalid UTF-8 in a text value is replaced (U+FFFD) rather than failing the whole output.
    out << "  " << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
        << (r + 1 < result.rows.size() ? ",\n" : "\n");
  }
  out << "]\n";
}

}  // namespace

Status RunQuery(const std::string& db_path,
                const std::string& sql,
                const std::string& format,
                std::ostream& out,
                const internal::Store::QueryLimits& limits) {
  if (format != "table" && format != "csv" && format != "json") {
    return InvalidArgument("unknown output format '" + format + "'; use table, csv or json");
  }
  // Read-only media: SQLite cannot create the -shm a WAL database needs; when the file alone
  // is the whole database it is opened immutable, else refused with the reason.
  std::string refused;
  const internal::ReadOpenMode mode =
      internal::DecideReadOpen(db_path, internal::ProbeDatabaseFile(db_path), &refused);
  if (mode == internal::ReadOpenMode::kRefused) return FailedPrecondition(refused);
  auto store = internal::Store::Open(
      db_path, /*read_only=*/true, /*immutable=*/mode == internal::ReadOpenMode::kImmutable);
  if (!store.ok()) return store.status();
  auto result = store.value()->Query(sql, limits);
  if (!result.ok()) {
    const int version = store.value()->schema_version();
    if (version < internal::Store::LatestSchemaVersion()) {
      return Status(result.status().code(),
                    result.status().message() + " (note: '" + db_path + "' has schema version " +
                        std::to_string(version) + ", older than this binary's " +
                        std::to_string(internal::Store::LatestSchemaVersion()) +
                        "; views and columns added since are missing until a read-write open, "
                        "e.g. `dede run`, migrates it)");
    }
    return result.status();
  }
  // Render fully before writing, so a failure never leaves half a table on `out`.
  std::ostringstream text;
  try {
    if (format == "csv") {
      WriteCsv(result.value(), text);
    } else if (format == "json") {
      WriteJson(result.value(), text);
    } else {
      WriteTable(result.value(), text);
    }
  } catch (const std::exception& e) {  // nlohmann::json reports errors by exception
    return Internal("formatting the query result as " + format + ": " + e.what());
  }
  out << text.str();
  return Status::Ok();
}

}  // namespace dede::tools
