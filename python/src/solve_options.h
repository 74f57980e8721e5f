// Solver options from a Python dict: keys are the AdmmOptions / ExactOptions field names (the
// YAML keys under solver.admm / solver.exact, docs/configuration.md), values numbers, booleans
// or the YAML spelling of a choice ("residual_balancing"). An unknown key or a value of the
// wrong type raises ValueError naming it; bounds are AdmmOptions::IsValid's.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>

#include "dede/solver.h"

namespace dede::python {

namespace py = pybind11;

AdmmOptions AdmmOptionsFrom(const py::dict& options);
ExactOptions ExactOptionsFrom(const py::dict& options);
// True if an option the solver reads when it is built (lifetime "set-up" in the option
// registry) differs: the solver must then be rebuilt.
bool SetupOptionsDiffer(const AdmmOptions& a, const AdmmOptions& b);

// Marks a problem as being solved (its GIL released) for the scope.
class ScopedFlag {
 public:
  explicit ScopedFlag(std::atomic<bool>* flag) : flag_(flag) { flag_->store(true); }
  ~ScopedFlag() { flag_->store(false); }
  ScopedFlag(const ScopedFlag&) = delete;
  ScopedFlag& operator=(const ScopedFlag&) = delete;

 private:
  std::atomic<bool>* flag_;
};

}  // namespace dede::python
