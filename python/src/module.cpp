// The extension module dede._dede (python/README.md): the model and its solvers
// (problem_binding.cpp, solve_binding.cpp) and deployments (deployment_binding.cpp).
#include <pybind11/pybind11.h>

#include "dede/solver.h"
#include "errors.h"

namespace dede::python {
void BindProblem(pybind11::module_& m);
void BindDeployment(pybind11::module_& m);
}  // namespace dede::python

PYBIND11_MODULE(_dede, m) {
  namespace py = pybind11;
  m.doc() = "dede: separable resource allocation with the DeDe ADMM engine (C++ core)";
  m.attr("__version__") = DEDE_VERSION;
  m.attr("BUILD_PLUGIN_DIR") = DEDE_BUILD_PLUGIN_DIR;
  py::register_exception<dede::python::ModelError>(m, "ModelError", PyExc_ValueError);
  py::register_exception<dede::python::DeploymentError>(m, "DeploymentError", PyExc_RuntimeError);
  dede::python::BindProblem(m);
  dede::python::BindDeployment(m);
}
