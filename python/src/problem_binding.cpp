// dede._dede.Problem: the low-level class the Python package (dede/problem.py) wraps. Arrays
// in, arrays out; argument names are those the messages use.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <limits>

#include "problem_model.h"

namespace dede::python {

void BindProblem(py::module_& m) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  using P = PyProblem;
  py::class_<P>(m, "Problem")
      .def(py::init<std::int64_t, std::int64_t>(), py::arg("num_resources"), py::arg("num_demands"))
      .def_property_readonly("num_resources",
                             [](const P& p) { return p.problem().num_resources(); })
      .def_property_readonly("num_demands", [](const P& p) { return p.problem().num_demands(); })
      .def_property_readonly("num_variables",
                             [](const P& p) { return p.problem().num_variables(); })
      .def_property_readonly("num_constraints",
                             [](const P& p) { return p.problem().num_constraints(); })
      .def_property_readonly("num_log_terms",
                             [](const P& p) { return p.problem().log_terms().size(); })
      .def_property_readonly(
          "sense",
          [](const P& p) {
            return p.problem().objective_sense() == ObjectiveSense::kMaximize ? "max" : "min";
          })
      .def_property_readonly("has_solver", &P::has_solver)
      .def("fingerprint", [](const P& p) { return p.problem().Fingerprint(); })
      .def("set_sense", &P::SetSense, py::arg("sense"))
      .def("add_allocation",
           &P::AddAllocation,
           py::arg("name"),
           py::arg("domain"),
           py::arg("lower"),
           py::arg("upper"),
           py::arg("resources"),
           py::arg("demands"))
      .def("add_locals",
           &P::AddLocals,
           py::arg("side"),
           py::arg("blocks"),
           py::arg("domain") = "continuous",
           py::arg("lower") = 0.0,
           py::arg("upper") = kInf,
           py::arg("names") = py::none())
      .def("add_constraints",
           &P::AddConstraints,
           py::arg("side"),
           py::arg("blocks"),
           py::arg("indptr"),
           py::arg("indices"),
           py::arg("data"),
           py::arg("senses"),
           py::arg("rhs"),
           py::arg("names") = py::none())
      .def("add_log_terms",
           &P::AddLogTerms,
           py::arg("side"),
           py::arg("blocks"),
           py::arg("indptr"),
           py::arg("indices"),
           py::arg("data"),
           py::arg("constants"),
           py::arg("weights"))
      .def("set_global",
           &P::SetGlobal,
           py::arg("kind"),
           py::arg("side"),
           py::arg("blocks"),
           py::arg("indptr"),
           py::arg("indices"),
           py::arg("data"),
           py::arg("constants"),
           py::arg("weight") = 1.0)
      .def("add_constant", &P::AddConstant, py::arg("value"))
      .def("add_linear_cost", &P::AddLinearCost, py::arg("vars"), py::arg("coefs"))
      .def("set_linear_cost", &P::SetLinearCost, py::arg("vars"), py::arg("coefs"))
      .def("add_quadratic_cost", &P::AddQuadraticCost, py::arg("vars"), py::arg("coefs"))
      .def("set_quadratic_cost", &P::SetQuadraticCost, py::arg("vars"), py::arg("coefs"))
      .def("set_bounds", &P::SetBounds, py::arg("vars"), py::arg("lower"), py::arg("upper"))
      .def("set_rhs", &P::SetRhs, py::arg("constraints"), py::arg("rhs"))
      .def("set_coefficients",
           &P::SetCoefficients,
           py::arg("constraints"),
           py::arg("vars"),
           py::arg("coefs"))
      .def("set_log_weights", &P::SetLogWeights, py::arg("terms"), py::arg("weights"))
      .def("set_global_weight", &P::SetGlobalWeight, py::arg("weight"))
      .def("set_global_coefficients",
           &P::SetGlobalCoefficients,
           py::arg("rows"),
           py::arg("vars"),
           py::arg("coefs"))
      .def("set_global_constants", &P::SetGlobalConstants, py::arg("rows"), py::arg("constants"))
      .def("validate", &P::Validate)
      .def("variables", &P::Variables)
      .def("evaluate", &P::Evaluate, py::arg("values"))
      .def("violation", &P::Violation, py::arg("values"))
      .def("solve",
           &P::Solve,
           py::arg("method") = "admm",
           py::arg("threads") = 0,
           py::arg("time_limit") = kInf,
           py::arg("warm_start") = true,
           py::arg("options") = py::dict());
}

}  // namespace dede::python
