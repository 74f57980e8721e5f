/// \file
/// A parsed configuration tree (from YAML), owned by the framework so that plugins never see
/// yaml-cpp. Every node remembers where it came from, so errors can name file, line and key:
///   "configs/te.yaml:12:5: plugin.settings.paths = -3. Violated constraint: paths >= 1"
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dede/status.h"

namespace dede {

/// The shortest text that reads back as the same double ("1e-05", "0.1", "1e+308", "inf",
/// "nan"): how errors and files of the project write numbers.
std::string FormatNumber(double value);

class ConfigNode {
 public:
  enum class Kind : std::uint8_t { kNull, kScalar, kList, kMap };

  ConfigNode() = default;
  static ConfigNode Scalar(
      std::string value, std::string file, int line, int column, std::string path);
  static ConfigNode List(std::string file, int line, int column, std::string path);
  static ConfigNode Map(std::string file, int line, int column, std::string path);

  Kind kind() const { return kind_; }
  bool IsNull() const { return kind_ == Kind::kNull; }
  bool IsScalar() const { return kind_ == Kind::kScalar; }
  bool IsList() const { return kind_ == Kind::kList; }
  bool IsMap() const { return kind_ == Kind::kMap; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }                 // 1-based; 0 if unknown
  int column() const { return column_; }             // 1-based; 0 if unknown
  const std::string& path() const { return path_; }  // dotted key path, "plugin.settings.k"
  /// "file:line:column" for messages.
  std::string Where() const;

  const std::string& scalar() const { return scalar_; }
  const std::vector<ConfigNode>& items() const { return items_; }
  const std::vector<std::pair<std::string, ConfigNode>>& entries() const { return entries_; }
  /// nullptr if absent (or this is not a map).
  const ConfigNode* Find(const std::string& key) const;
  bool Has(const std::string& key) const { return Find(key) != nullptr; }

  /// nullptr if absent (or this is not a map).
  ConfigNode* FindMutable(const std::string& key);
  /// Replaces the value of `key` (keeping its position) or appends it; a map only.
  void Set(const std::string& key, ConfigNode value);

  void Append(ConfigNode item) { items_.push_back(std::move(item)); }
  void Insert(std::string key, ConfigNode value) {
    entries_.emplace_back(std::move(key), std::move(value));
  }

  /// Conversions of a scalar node, with errors naming Where(), path and value.
  Result<double> AsDouble() const;
  Result<std::int64_t> AsInt() const;
  Result<bool> AsBool() const;  ///< true/false/yes/no/on/off
  Result<std::string> AsString() const;

  /// Typed reads of an optional key of a map: *out keeps its value (the default) when the key is
  /// absent; a wrong type or a value outside [min, max] is an InvalidArgument naming the key.
  Status Read(const std::string& key,
              double* out,
              double min = -std::numeric_limits<double>::infinity(),
              double max = std::numeric_limits<double>::infinity()) const;
  Status Read(const std::string& key,
              int* out,
              int min = std::numeric_limits<int>::min(),
              int max = std::numeric_limits<int>::max()) const;
  Status Read(const std::string& key, bool* out) const;
  Status Read(const std::string& key, std::string* out) const;
  /// One of `choices`.
  Status ReadChoice(const std::string& key,
                    const std::vector<std::string>& choices,
                    std::string* out) const;
  /// Fails if the key is absent.
  Status Require(const std::string& key) const;
  /// Fails on the first key of this map that is not in `allowed`, naming it and the allowed set.
  Status CheckKeys(const std::vector<std::string>& allowed) const;

 private:
  Kind kind_ = Kind::kNull;
  std::string scalar_;
  std::vector<ConfigNode> items_;
  std::vector<std::pair<std::string, ConfigNode>> entries_;
  std::string file_;
  int line_ = 0;
  int column_ = 0;
  std::string path_;
};

}  // namespace dede
