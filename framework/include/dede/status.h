/// \file
/// Expected failures (bad YAML, a plugin mismatch, a locked database) are returned, not thrown:
/// a code plus a message that names the file, the field and the value.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace dede {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     ///< bad configuration or data: fix the input
  kNotFound = 2,            ///< a file, symbol, plugin or row that should exist does not
  kFailedPrecondition = 3,  ///< e.g. a database newer than this binary
  kAlreadyExists = 4,       ///< e.g. two plugins with the same name
  kUnavailable = 5,         ///< e.g. database locked; retrying may help
  kInternal = 6,            ///< a bug or a third-party failure
  kCancelled = 7,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  /// Keeps the first failure: `status.Update(other)` after a series of steps.
  void Update(const Status& other) {
    if (ok() && !other.ok()) *this = other;
  }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

/// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok() && value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace dede
