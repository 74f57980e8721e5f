#include "solve_options.h"

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "arrays.h"
#include "config/deployment.h"

namespace dede::python {

namespace {

// One option: how to set it from a Python value and read it back (for comparisons).
template <typename Options>
struct Field {
  const char* name;
  std::function<void(Options*, const py::handle&, const std::string&)> set;
  std::function<double(const Options&)> get;
};

double Number(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value) ||
      !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value) ||
        py::hasattr(value, "__float__")))
    ThrowValue("options['" + key + "'] = " + std::string(py::repr(value)) + ": expected a number");
  const double v = py::cast<double>(value);
  if (std::isnan(v)) ThrowValue("options['" + key + "'] = nan: a number is required");
  return v;
}

int Integer(const py::handle& value, const std::string& key) {
  const double v = Number(value, key);
  if (v != std::floor(v) || std::fabs(v) > 2147483647.0)
    ThrowValue("options['" + key + "'] = " + std::string(py::repr(value)) +
               ": expected an integer");
  return static_cast<int>(v);
}

bool Boolean(const py::handle& value, const std::string& key) {
  if (!py::isinstance<py::bool_>(value))
    ThrowValue("options['" + key + "'] = " + std::string(py::repr(value)) +
               ": expected True or False");
  return py::cast<bool>(value);
}

template <typename E>
E Choice(const py::handle& value,
         const std::string& key,
         const std::vector<std::pair<const char*, E>>& choices) {
  std::string known;
  if (py::isinstance<py::str>(value)) {
    const std::string text = py::cast<std::string>(value);
    for (const auto& [name, e] : choices)
      if (text == name) return e;
  }
  for (const auto& [name, e] : choices) known += (known.empty() ? "" : ", ") + std::string(name);
  ThrowValue("options['" + key + "'] = " + std::string(py::repr(value)) + ": expected one of " +
             known);
}

#define DEDE_NUMBER(T, f)                                                                       \
  {                                                                                             \
#f, [](T * o,                                                                               \
           const py::handle& v,                                                                 \
           const std::string&                                                                   \
               k) { o->f = Number(v, k); }, [](const T& o) { return static_cast<double>(o.f); } \
  }
#define DEDE_INTEGER(T, f)                                                                       \
  {                                                                                              \
#f, [](T * o,                                                                                \
           const py::handle& v,                                                                  \
           const std::string&                                                                    \
               k) { o->f = Integer(v, k); }, [](const T& o) { return static_cast<double>(o.f); } \
  }
#define DEDE_BOOLEAN(T, f)                                                              \
  {                                                                                     \
#f, [](T * o,                                                                       \
           const py::handle& v,                                                         \
           const std::string&                                                           \
               k) { o->f = Boolean(v, k); }, [](const T& o) { return o.f ? 1.0 : 0.0; } \
  }
#define DEDE_CHOICE(T, f, ...)                                                                       \
  {                                                                                                  \
#f, [](T * o,                                                                                    \
           const py::handle& v,                                                                      \
           const std::string&                                                                        \
               k) { o->f = Choice(v, k, __VA_ARGS__); },                                             \
                                                      [](const T&                                    \
                                                             o) { return static_cast<double>(o.f); } \
  }

using EnumRho = std::vector<std::pair<const char*, RhoUpdate>>;
using EnumBlock = std::vector<std::pair<const char*, BlockBalancing>>;
using EnumAnderson = std::vector<std::pair<const char*, AndersonType>>;
using EnumFinal = std::vector<std::pair<const char*, FinalIterate>>;
using EnumCost = std::vector<std::pair<const char*, EntryCostSide>>;
using EnumLp = std::vector<std::pair<const char*, LpMethod>>;

const std::vector<Field<AdmmOptions>>& AdmmFields() {
  using A = AdmmOptions;
  static const std::vector<Field<AdmmOptions>> fields = {
      DEDE_INTEGER(A, max_iterations),
      DEDE_NUMBER(A, rho),
      DEDE_NUMBER(A, relaxation),
      DEDE_NUMBER(A, eps_abs),
      DEDE_NUMBER(A, eps_rel),
      DEDE_INTEGER(A, check_termination_every),
      DEDE_CHOICE(A,
                  rho_update,
                  EnumRho{{"fixed", RhoUpdate::kFixed},
                          {"residual_balancing", RhoUpdate::kResidualBalancing}}),
      DEDE_INTEGER(A, rho_update_every),
      DEDE_NUMBER(A, rho_update_tolerance),
      DEDE_BOOLEAN(A, global_rho_balancing),
      DEDE_BOOLEAN(A, global_copy_balancing),
      DEDE_CHOICE(A,
                  block_rho_balancing,
                  EnumBlock{{"off", BlockBalancing::kOff},
                            {"resource", BlockBalancing::kResource},
                            {"demand", BlockBalancing::kDemand}}),
      DEDE_BOOLEAN(A, equilibrate),
      DEDE_BOOLEAN(A, fill_after_max_min),
      DEDE_NUMBER(A, fill_slack),
      DEDE_NUMBER(A, rho_min),
      DEDE_NUMBER(A, rho_max),
      DEDE_INTEGER(A, anderson_memory),
      DEDE_INTEGER(A, anderson_interval),
      DEDE_CHOICE(A,
                  anderson_type,
                  EnumAnderson{{"type1", AndersonType::kTypeI}, {"type2", AndersonType::kTypeII}}),
      DEDE_BOOLEAN(A, repair),
      DEDE_INTEGER(A, repair_max_rounds),
      DEDE_CHOICE(A,
                  final_iterate,
                  EnumFinal{{"demand", FinalIterate::kDemandSide},
                            {"resource", FinalIterate::kResourceSide}}),
      DEDE_CHOICE(A,
                  entry_cost_side,
                  EnumCost{{"split", EntryCostSide::kSplit},
                           {"resource", EntryCostSide::kResource},
                           {"demand", EntryCostSide::kDemand}}),
      DEDE_NUMBER(A, feasibility_tolerance),
      DEDE_INTEGER(A, integer_iterations),
      DEDE_NUMBER(A, integer_rho_growth),
      DEDE_INTEGER(A, block_node_limit),
      DEDE_NUMBER(A, gap_tolerance),
      DEDE_BOOLEAN(A, verbose),
  };
  return fields;
}

const std::vector<Field<ExactOptions>>& ExactFields() {
  using E = ExactOptions;
  static const std::vector<Field<ExactOptions>> fields = {
      DEDE_NUMBER(E, cut_tolerance),
      DEDE_INTEGER(E, max_cut_rounds),
      DEDE_NUMBER(E, mip_gap),
      DEDE_BOOLEAN(E, use_clp_qp),
      DEDE_CHOICE(E,
                  lp_method,
                  EnumLp{{"auto", LpMethod::kAuto},
                         {"dual", LpMethod::kDual},
                         {"primal", LpMethod::kPrimal},
                         {"barrier", LpMethod::kBarrier}}),
      DEDE_BOOLEAN(E, fill_after_max_min),
      DEDE_NUMBER(E, fill_slack),
      DEDE_BOOLEAN(E, verbose),
  };
  return fields;
}

#undef DEDE_NUMBER
#undef DEDE_INTEGER
#undef DEDE_BOOLEAN
#undef DEDE_CHOICE

template <typename Options>
Options Apply(const py::dict& options,
              const std::vector<Field<Options>>& fields,
              const char* what,
              const char* elsewhere) {
  Options out;
  for (const auto& [key_object, value] : options) {
    const std::string key = py::cast<std::string>(py::str(key_object));
    if (key == "num_threads" || key == "time_limit_seconds")
      ThrowValue("options['" + key + "']: pass " +
                 (key == "num_threads" ? std::string("threads=") : std::string("time_limit=")) +
                 " to solve() instead");
    const Field<Options>* field = nullptr;
    for (const Field<Options>& f : fields)
      if (key == f.name) field = &f;
    if (field == nullptr) {
      std::string known;
      for (const Field<Options>& f : fields)
        known += (known.empty() ? "" : ", ") + std::string(f.name);
      ThrowValue("options['" + key + "']: not " + what + " option (" + elsewhere +
                 "known: " + known + ")");
    }
    field->set(&out, value, key);
  }
  return out;
}

}  // namespace

AdmmOptions AdmmOptionsFrom(const py::dict& options) {
  return Apply(options, AdmmFields(), "an ADMM", "");
}

ExactOptions ExactOptionsFrom(const py::dict& options) {
  return Apply(options, ExactFields(), "an exact-solver", "method='exact'; ");
}

bool SetupOptionsDiffer(const AdmmOptions& a, const AdmmOptions& b) {
  for (const Field<AdmmOptions>& f : AdmmFields()) {
    if (f.get(a) == f.get(b)) continue;
    const std::string key = std::string("solver.admm.") + f.name;
    for (const internal::OptionInfo& info : internal::OptionRegistry())
      if (info.key == key && info.lifetime != "per solve") return true;
  }
  return false;
}

}  // namespace dede::python
