// Small text helpers shared by the traffic-engineering readers (topologies, matrices, paths).
// Delimited tables and numbers are read with dede/csv.h.
#pragma once

#include <string>
#include <utility>

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

}  // namespace dede::te::text
