// The one place where an exception becomes a Status: code that is not ours (a plugin, a
// solver library, a parser) may throw, and nothing it throws crosses into the host.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "dede/status.h"

namespace dede::internal {

// Runs f (returning void or something a Status is built from). An exception becomes
// Internal("<who> threw in <what>: <reason>"), e.g. "plugin 'te' (/path/te.so) threw in
// Describe: bad topology".
template <class F>
Status GuardCall(const std::string& who, const std::string& what, F&& f) {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
      std::invoke(std::forward<F>(f));
      return Status::Ok();
    } else {
      return Status(std::invoke(std::forward<F>(f)));
    }
  } catch (const std::exception& e) {
    return Internal(who + " threw in " + what + ": " + e.what());
  } catch (...) {
    return Internal(who + " threw in " + what + ": an exception not derived from std::exception");
  }
}

}  // namespace dede::internal
