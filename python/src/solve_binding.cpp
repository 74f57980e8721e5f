// PyProblem::Solve: options from a dict, the solve with the GIL released, the allocation handed
// to NumPy without a copy, and the summary as a dict.
#include <pybind11/stl.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "arrays.h"
#include "config/deployment.h"
#include "dede/stopwatch.h"
#include "errors.h"
#include "problem_model.h"
#include "solve_options.h"

namespace dede::python {

py::array_t<double> ToNumpy(std::vector<double>&& values) {
  auto* owned = new std::vector<double>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(
      static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

py::dict SummaryDict(const SolveSummary& s) {
  py::dict d;
  d["termination"] = std::string(TerminationName(s.termination));
  d["message"] = s.message;
  d["method"] = s.method;
  d["usable"] = s.IsSolutionUsable();
  d["iterations"] = s.iterations;
  d["rho_updates"] = s.rho_updates;
  d["objective"] = s.objective;
  d["bound"] = s.bound;
  d["gap"] = s.gap;
  d["max_violation"] = s.max_violation;
  d["feasible"] = s.feasible;
  d["rho"] = s.rho;
  d["primal_residual"] = s.primal_residual;
  d["dual_residual"] = s.dual_residual;
  d["num_threads"] = s.num_threads;
  d["repair_rounds"] = s.repair_rounds;
  d["fill_iterations"] = s.fill_iterations;
  d["setup_seconds"] = s.setup_seconds;
  d["solve_seconds"] = s.solve_seconds;
  d["repair_seconds"] = s.repair_seconds;
  d["total_seconds"] = s.total_seconds;
  d["returned"] = s.returned;
  d["seed_objective"] = s.seed_objective;
  const auto n = static_cast<py::ssize_t>(s.trace.size());
  py::array_t<double> iteration(n), primal(n), dual(n), rho(n), objective(n), bound(n), seconds(n);
  for (py::ssize_t i = 0; i < n; ++i) {
    const IterationSummary& t = s.trace[static_cast<std::size_t>(i)];
    iteration.mutable_at(i) = t.iteration;
    primal.mutable_at(i) = t.primal_residual;
    dual.mutable_at(i) = t.dual_residual;
    rho.mutable_at(i) = t.rho;
    objective.mutable_at(i) = t.objective;
    bound.mutable_at(i) = t.bound;
    seconds.mutable_at(i) = t.seconds;
  }
  py::dict trace;
  trace["iteration"] = iteration;
  trace["primal_residual"] = primal;
  trace["dual_residual"] = dual;
  trace["rho"] = rho;
  trace["objective"] = objective;
  trace["bound"] = bound;
  trace["seconds"] = seconds;
  d["trace"] = trace;
  return d;
}

namespace {

void CheckBudget(int threads, double time_limit) {
  if (threads < 0 || threads > AdmmOptions::kMaxThreads)
    ThrowValue("threads = " + std::to_string(threads) + ": must be in [0, " +
               std::to_string(AdmmOptions::kMaxThreads) + "] (0: all hardware threads)");
  if (std::isnan(time_limit) || time_limit <= 0)
    ThrowValue("time_limit = " + FormatNumber(time_limit) + ": must be > 0 (None: no limit)");
}

// AdmmSolver::SetOptions; false when it refuses them (a set-up option changed: the solver must
// be rebuilt). Written for both its signatures (void before it learnt to refuse, then Status).
bool ApplyOptions(AdmmSolver* solver, const AdmmOptions& options) {
  if constexpr (std::is_void_v<decltype(solver->SetOptions(options))>) {
    solver->SetOptions(options);
    return true;
  } else {
    return solver->SetOptions(options).ok();
  }
}

}  // namespace

py::tuple PyProblem::Solve(const std::string& method,
                           int threads,
                           double time_limit,
                           const py::object& warm_start,
                           const py::dict& options) {
  CheckIdle();
  CheckBudget(threads, time_limit);
  if (method != "admm" && method != "exact")
    ThrowValue("method = '" + method + "': expected 'admm' or 'exact'");
  Validate();
  Allocation allocation;
  SolveSummary summary;
  // The engine's wall time, GIL released: building the solver (when needed) and solving. What
  // the Python call takes beyond it is the module's overhead (tools/bench/python_overhead.py).
  double engine_seconds = 0.0;
  if (method == "exact") {
    ExactOptions exact = ExactOptionsFrom(options);
    exact.time_limit_seconds = time_limit;
    const ScopedFlag busy(&solving_);
    py::gil_scoped_release release;
    const Stopwatch watch;
    SolveExact(*problem_, exact, &allocation, &summary);
    engine_seconds = watch.Seconds();
  } else {
    AdmmOptions admm = AdmmOptionsFrom(options);
    admm.num_threads = threads;
    admm.time_limit_seconds = time_limit;
    std::string why;
    if (!admm.IsValid(&why)) ThrowValue(why);
    std::vector<double> start;
    bool cold = false;
    if (py::isinstance<py::bool_>(warm_start)) {
      cold = !py::cast<bool>(warm_start);
    } else if (!warm_start.is_none()) {
      const DoubleArray values(warm_start, "warm_start", problem_->num_variables());
      values.CheckFinite();
      start.resize(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) start[i] = values[i];
    }
    // A changed set-up option needs a new solver; it continues from the last allocation.
    if (admm_ && (SetupOptionsDiffer(admm_->options(), admm) || !ApplyOptions(admm_.get(), admm))) {
      admm_.reset();
      if (!cold && start.empty()) start = last_values_;
    }
    const ScopedFlag busy(&solving_);
    py::gil_scoped_release release;
    const Stopwatch watch;
    if (!admm_) admm_ = std::make_unique<AdmmSolver>(*problem_, admm);
    if (cold) admm_->Reset();
    if (!start.empty()) admm_->WarmStart(start);
    admm_->Solve(&allocation, &summary);
    engine_seconds = watch.Seconds();
  }
  if (admm_ && !admm_->setup_error().empty()) {
    const std::string error = admm_->setup_error();
    admm_.reset();
    throw ModelError(error);
  }
  py::object values = py::none();
  if (allocation.values.size() == static_cast<std::size_t>(problem_->num_variables())) {
    last_values_ = allocation.values;
    values = ToNumpy(std::move(allocation.values));
  }
  py::dict summary_dict = SummaryDict(summary);
  summary_dict["engine_seconds"] = engine_seconds;
  return py::make_tuple(values, summary_dict);
}

}  // namespace dede::python
