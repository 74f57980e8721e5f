// Small text helpers shared by the traffic-engineering readers (topologies, matrices, paths).
#pragma once

#include <charconv>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dede/status.h"

namespace dede::te::text {

inline Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

inline std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// Drops a UTF-8 byte-order mark (spreadsheet exports start CSV files with one).
inline std::string StripBom(std::string s) {
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF &&
      static_cast<unsigned char>(s[1]) == 0xBB && static_cast<unsigned char>(s[2]) == 0xBF) {
    s.erase(0, 3);
  }
  return s;
}

// The comma-separated fields of one line, as written (a trailing comma gives an empty last field).
inline std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

inline bool ParseInt(std::string_view text, long long* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

inline bool ParseDouble(std::string_view text, double* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

}  // namespace dede::te::text
