// ConfigNode: the framework-owned configuration tree. Every message starts with Where() and
// names the dotted key path and the value as written, so a user can find and fix the line.
#include "dede/config_node.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

namespace dede {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return out;
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

const char* KindName(ConfigNode::Kind kind) {
  switch (kind) {
    case ConfigNode::Kind::kNull:
      return "an empty value";
    case ConfigNode::Kind::kScalar:
      return "a scalar";
    case ConfigNode::Kind::kList:
      return "a list";
    case ConfigNode::Kind::kMap:
      return "a map";
  }
  return "an unknown node";
}

// Parses the whole of `text` as a double. YAML spells infinity and NaN ".inf" and ".nan";
// from_chars does not accept a leading '+', which YAML allows.
bool ParseDouble(std::string_view text, double* out, bool* out_of_range) {
  *out_of_range = false;
  bool negative = false;
  std::string_view body = text;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body.empty() || body.front() == '+' || body.front() == '-') return false;
  const std::string lower = Lower(body);
  if (lower == ".inf" || lower == "inf" || lower == "infinity") {
    *out = negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
    return true;
  }
  if (lower == ".nan" || lower == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  // Only digits, '.', and an exponent: keeps from_chars' "nan(...)" and hex forms out.
  const bool plain = std::all_of(lower.begin(), lower.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == '+' || c == '-';
  });
  if (!plain) return false;
  double value = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (end != body.data() + body.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    *out_of_range = true;
    return false;
  }
  if (ec != std::errc()) return false;
  *out = negative ? -value : value;
  return true;
}

}  // namespace

std::string FormatNumber(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (ec != std::errc()) return "?";
  return std::string(buffer.data(), end);
}

ConfigNode ConfigNode::Scalar(
    std::string value, std::string file, int line, int column, std::string path) {
  ConfigNode node;
  node.kind_ = Kind::kScalar;
  node.scalar_ = std::move(value);
  node.file_ = std::move(file);
  node.line_ = line;
  node.column_ = column;
  node.path_ = std::move(path);
  return node;
}

ConfigNode ConfigNode::List(std::string file, int line, int column, std::string path) {
  ConfigNode node;
  node.kind_ = Kind::kList;
  node.file_ = std::move(file);
  node.line_ = line;
  node.column_ = column;
  node.path_ = std::move(path);
  return node;
}

ConfigNode ConfigNode::Map(std::string file, int line, int column, std::string path) {
  ConfigNode node;
  node.kind_ = Kind::kMap;
  node.file_ = std::move(file);
  node.line_ = line;
  node.column_ = column;
  node.path_ = std::move(path);
  return node;
}

std::string ConfigNode::Where() const {
  std::string where = file_.empty() ? "<config>" : file_;
  // Appended piecewise: `":" + std::to_string(n)` trips GCC 12's -Wrestrict false positive.
  if (line_ > 0) {
    where += ':';
    where += std::to_string(line_);
    if (column_ > 0) {
      where += ':';
      where += std::to_string(column_);
    }
  }
  return where;
}

const ConfigNode* ConfigNode::Find(const std::string& key) const {
  if (kind_ != Kind::kMap) return nullptr;
  for (const auto& [k, value] : entries_) {
    if (k == key) return &value;
  }
  return nullptr;
}

ConfigNode* ConfigNode::FindMutable(const std::string& key) {
  return const_cast<ConfigNode*>(static_cast<const ConfigNode*>(this)->Find(key));
}

void ConfigNode::Set(const std::string& key, ConfigNode value) {
  if (ConfigNode* existing = FindMutable(key)) {
    *existing = std::move(value);
  } else {
    Insert(key, std::move(value));
  }
}

namespace {

// "solver.admm.rho" or, for a root scalar, "<value>".
std::string DisplayPath(const std::string& path) { return path.empty() ? "<value>" : path; }

// "in solver.admm" / "at the top level".
std::string InMap(const std::string& path) {
  return path.empty() ? "at the top level" : "in " + path;
}

// The error for a node that is not a scalar of the expected type.
Status WrongType(const ConfigNode& node, const char* expected) {
  if (node.IsScalar()) {
    return InvalidArgument(node.Where() + ": " + DisplayPath(node.path()) + " = '" + node.scalar() +
                           "': expected " + expected);
  }
  return InvalidArgument(node.Where() + ": " + DisplayPath(node.path()) + ": expected " + expected +
                         ", got " + KindName(node.kind()));
}

}  // namespace

Result<double> ConfigNode::AsDouble() const {
  if (!IsScalar()) return WrongType(*this, "a number");
  double value = 0;
  bool out_of_range = false;
  if (!ParseDouble(scalar_, &value, &out_of_range)) {
    return WrongType(*this, out_of_range ? "a number within the range of a double" : "a number");
  }
  return value;
}

Result<std::int64_t> ConfigNode::AsInt() const {
  if (!IsScalar()) return WrongType(*this, "an integer");
  std::string_view text = scalar_;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!text.empty() && end == text.data() + text.size() && ec == std::errc()) return value;
  if (ec == std::errc::result_out_of_range) {
    return WrongType(*this, "an integer within the range of a 64-bit integer");
  }
  // Integral values written as numbers ("1e4", "2000.0") are accepted: budgets are often
  // written in scientific notation.
  double as_double = 0;
  bool out_of_range = false;
  if (ParseDouble(scalar_, &as_double, &out_of_range) && std::isfinite(as_double) &&
      std::trunc(as_double) == as_double) {
    // 2^63 is exactly representable; every double below it converts without overflow.
    if (as_double >= -9223372036854775808.0 && as_double < 9223372036854775808.0) {
      return static_cast<std::int64_t>(as_double);
    }
    return WrongType(*this, "an integer within the range of a 64-bit integer");
  }
  return WrongType(*this, "an integer");
}

Result<bool> ConfigNode::AsBool() const {
  if (!IsScalar()) return WrongType(*this, "a boolean (true or false)");
  const std::string lower = Lower(scalar_);
  if (lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "no" || lower == "off") return false;
  return WrongType(*this, "a boolean (true or false)");
}

Result<std::string> ConfigNode::AsString() const {
  if (!IsScalar()) return WrongType(*this, "a string");
  return scalar_;
}

namespace {

// Looks up an optional key of `map`. A null `map` (an empty section, "solver:") has no keys;
// any other non-map is an error, because the caller expected a section there.
Status Lookup(const ConfigNode& map, const std::string& key, const ConfigNode** out) {
  *out = nullptr;
  if (map.IsNull()) return Status::Ok();
  if (!map.IsMap()) return WrongType(map, "a map");
  *out = map.Find(key);
  return Status::Ok();
}

// A key written without a value ("rho:"). The null node carries no position of its own, so
// the message uses the enclosing map's.
Status EmptyValue(const ConfigNode& map, const std::string& key, const char* expected) {
  return InvalidArgument(map.Where() + ": " + JoinPath(map.path(), key) +
                         " has no value: expected " + expected);
}

Status Violated(const ConfigNode& node, const std::string& constraint) {
  return InvalidArgument(node.Where() + ": " + DisplayPath(node.path()) + " = " + node.scalar() +
                         ". Violated constraint: " + DisplayPath(node.path()) + " " + constraint);
}

}  // namespace

Status ConfigNode::Read(const std::string& key, double* out, double min, double max) const {
  const ConfigNode* child = nullptr;
  if (Status status = Lookup(*this, key, &child); !status.ok()) return status;
  if (child == nullptr) return Status::Ok();
  if (child->IsNull()) return EmptyValue(*this, key, "a number");
  Result<double> value = child->AsDouble();
  if (!value.ok()) return value.status();
  const double v = value.value();
  if (std::isnan(v)) return Violated(*child, "is a number (not NaN)");
  if (v < min) return Violated(*child, ">= " + FormatNumber(min));
  if (v > max) return Violated(*child, "<= " + FormatNumber(max));
  *out = v;
  return Status::Ok();
}

Status ConfigNode::Read(const std::string& key, int* out, int min, int max) const {
  const ConfigNode* child = nullptr;
  if (Status status = Lookup(*this, key, &child); !status.ok()) return status;
  if (child == nullptr) return Status::Ok();
  if (child->IsNull()) return EmptyValue(*this, key, "an integer");
  Result<std::int64_t> value = child->AsInt();
  if (!value.ok()) return value.status();
  const std::int64_t v = value.value();
  if (v < min) return Violated(*child, ">= " + std::to_string(min));
  if (v > max) return Violated(*child, "<= " + std::to_string(max));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status ConfigNode::Read(const std::string& key, bool* out) const {
  const ConfigNode* child = nullptr;
  if (Status status = Lookup(*this, key, &child); !status.ok()) return status;
  if (child == nullptr) return Status::Ok();
  if (child->IsNull()) return EmptyValue(*this, key, "a boolean (true or false)");
  Result<bool> value = child->AsBool();
  if (!value.ok()) return value.status();
  *out = value.value();
  return Status::Ok();
}

Status ConfigNode::Read(const std::string& key, std::string* out) const {
  const ConfigNode* child = nullptr;
  if (Status status = Lookup(*this, key, &child); !status.ok()) return status;
  if (child == nullptr) return Status::Ok();
  if (child->IsNull()) return EmptyValue(*this, key, "a string");
  Result<std::string> value = child->AsString();
  if (!value.ok()) return value.status();
  *out = std::move(value.value());
  return Status::Ok();
}

Status ConfigNode::ReadChoice(const std::string& key,
                              const std::vector<std::string>& choices,
                              std::string* out) const {
  std::string list;
  for (const std::string& choice : choices) list += (list.empty() ? "" : ", ") + choice;
  const std::string expected = "one of: " + list;
  const ConfigNode* child = nullptr;
  if (Status status = Lookup(*this, key, &child); !status.ok()) return status;
  if (child == nullptr) return Status::Ok();
  if (child->IsNull()) return EmptyValue(*this, key, expected.c_str());
  if (!child->IsScalar() ||
      std::find(choices.begin(), choices.end(), child->scalar()) == choices.end()) {
    return WrongType(*child, expected.c_str());
  }
  *out = child->scalar();
  return Status::Ok();
}

Status ConfigNode::Require(const std::string& key) const {
  if (!IsMap() && !IsNull()) return WrongType(*this, "a map");
  if (Find(key) != nullptr) return Status::Ok();
  return InvalidArgument(Where() + ": missing required key '" + key + "' " + InMap(path_));
}

Status ConfigNode::CheckKeys(const std::vector<std::string>& allowed) const {
  if (IsNull()) return Status::Ok();
  if (!IsMap()) return WrongType(*this, "a map");
  for (const auto& [key, value] : entries_) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    if (list.empty()) list = "(none)";
    // A null value has no position; fall back to the map's.
    const std::string where = value.line() > 0 ? value.Where() : Where();
    return InvalidArgument(where + ": unknown key '" + key + "' " + InMap(path_) +
                           "; allowed: " + list);
  }
  return Status::Ok();
}

}  // namespace dede
