// _dede_reference: the C++ side of the Python reference tests. It builds the published DeDe
// suite's instances with the C++ builders of tests/reference/reference_problems.cpp (the ones
// reference_test runs) and solves them with AdmmSolver / SolveExact directly, so a test can
// compare the Python module's model (fingerprint) and allocation (bit for bit) with them.
// Built only for the tests (tests/python/CMakeLists.txt); not part of the installed module.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/status.h"
#include "reference/reference_problems.h"

namespace py = pybind11;

namespace {

using dede::reference::BuildReferenceInstance;
using dede::reference::ReferenceInstance;

py::dict Info(const std::string& id) {
  const ReferenceInstance r = BuildReferenceInstance(id);
  py::dict d;
  d["id"] = r.id;
  d["label"] = r.label;
  d["name"] = r.name;
  d["fingerprint"] = r.problem->Fingerprint();
  d["num_variables"] = r.problem->num_variables();
  d["num_constraints"] = r.problem->num_constraints();
  d["optimum"] = r.optimum;
  d["integral"] = r.integral;
  d["check_reported_objective"] = r.check_reported_objective;
  d["resolve_after_parameter_update"] = r.resolve_after_parameter_update;
  d["optimum_before_update"] = r.optimum_before_update;
  return d;
}

py::tuple Result(const dede::Allocation& a, const dede::SolveSummary& s) {
  py::array_t<double> values(static_cast<py::ssize_t>(a.values.size()));
  std::copy(a.values.begin(), a.values.end(), values.mutable_data());
  return py::make_tuple(
      values, std::string(dede::TerminationName(s.termination)), s.objective, s.iterations);
}

// Solves instance `id` as the C++ suite does (default options, `threads` threads); for an
// instance re-solved after its parameter update (#2b) returns both solves, else one.
py::list Solve(const std::string& id, const std::string& method, int threads) {
  ReferenceInstance r = BuildReferenceInstance(id);
  py::list out;
  dede::Allocation allocation;
  dede::SolveSummary summary;
  if (method == "exact") {
    py::gil_scoped_release release;
    dede::SolveExact(*r.problem, dede::ExactOptions{}, &allocation, &summary);
  } else {
    dede::AdmmOptions options;
    options.num_threads = threads;
    auto solver = std::make_unique<dede::AdmmSolver>(*r.problem, options);
    {
      py::gil_scoped_release release;
      solver->Solve(&allocation, &summary);
    }
    if (r.resolve_after_parameter_update) {
      out.append(Result(allocation, summary));
      dede::reference::IncrementParameter(&r);
      py::gil_scoped_release release;
      solver->Solve(&allocation, &summary);
    }
  }
  out.append(Result(allocation, summary));
  return out;
}

}  // namespace

PYBIND11_MODULE(_dede_reference, m) {
  m.def("ids", [] { return dede::reference::ReferenceInstanceIds(); });
  m.def("info", &Info, py::arg("id"));
  m.def("solve", &Solve, py::arg("id"), py::arg("method") = "admm", py::arg("threads") = 1);
}
