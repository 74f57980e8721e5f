// dede._dede.Deployment: a deployment file solved or run through the runtime `dede solve` and
// `dede run` use (config::LoadDeployment, the plugin loader, runtime::Runner and its round
// pipeline). run() writes rounds to the deployment's database under its writer lock, as
// `dede run` does, but back to back (no timer, no signal handling: the caller's loop decides).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "config/deployment.h"
#include "errors.h"
#include "plugin/plugin_loader.h"
#include "problem_model.h"
#include "runtime/runner.h"
#include "store/store.h"
#include "store/writer_lock.h"

namespace dede::python {

namespace {

namespace in = dede::internal;

void Check(const Status& status) {
  if (!status.ok()) throw DeploymentError(status.message());
}

// One runner with its own plugin instance: solve (nothing written) or run (the database).
struct Session {
  in::PluginInstance plugin;
  std::optional<in::WriterLock> lock;
  std::unique_ptr<in::Store> store;
  std::unique_ptr<in::Runner> runner;
};

class PyDeployment {
 public:
  PyDeployment(const std::string& path,
               const std::vector<std::string>& overrides,
               const std::vector<std::string>& plugin_paths) {
    auto config = in::LoadDeployment(path, overrides);
    Check(config.status());
    config_ = std::move(config.value());
    std::vector<std::string> first = config_.plugin_paths;
    first.insert(first.end(), plugin_paths.begin(), plugin_paths.end());
    for (const std::string& p : in::PluginSearchPath(first)) (void)registry_.Add(p);
    auto plugin = registry_.Create(config_.plugin);
    if (!plugin.ok()) {
      std::string rejected;
      for (const auto& r : registry_.rejected())
        rejected += "\n  rejected " + r.path + ": " + r.status.message();
      throw DeploymentError(path + ": plugin.name = '" + config_.plugin +
                            "': " + plugin.status().message() + rejected);
    }
    plugin_version_ = in::InfoOf(plugin.value()).version;
  }

  py::dict Describe() const {
    py::dict d;
    d["name"] = config_.name;
    d["file"] = config_.file;
    d["plugin"] = config_.plugin;
    d["plugin_version"] = plugin_version_;
    d["database"] = config_.database;
    d["solver"] = config_.solver == in::SolverKind::kAdmm    ? "admm"
                  : config_.solver == in::SolverKind::kExact ? "exact"
                                                             : "plugin";
    d["max_rounds"] = config_.max_rounds;
    py::list warnings;
    for (const std::string& w : config_.warnings) warnings.append(w);
    d["warnings"] = warnings;
    return d;
  }

  py::dict SolveRound(int round) {
    if (round < 0)
      throw std::invalid_argument("round = " + std::to_string(round) + ": must be >= 0");
    Session& s = Open(&solve_, false);
    in::RoundOutcome outcome;
    {
      py::gil_scoped_release release;
      s.runner->set_next_round(round);
      Check(s.runner->RunRound({}, &outcome));
    }
    return OutcomeDict(outcome, *s.runner);
  }

  py::list Run(int rounds) {
    if (rounds < 0)
      throw std::invalid_argument("rounds = " + std::to_string(rounds) + ": must be >= 0");
    Session& s = Open(&run_, true);
    py::list out;
    for (int k = 0; k < rounds; ++k) {
      if (config_.max_rounds > 0 && s.runner->next_round() >= config_.max_rounds) break;
      in::RoundOutcome outcome;
      {
        py::gil_scoped_release release;
        Check(s.runner->RunRound({}, &outcome));
      }
      if (outcome.finished) break;
      out.append(OutcomeDict(outcome, *s.runner));
    }
    return out;
  }

  int NextRound() { return Open(&run_, true).runner->next_round(); }

  py::dict Variables() { return VariablesDict(Open(&solve_, false).runner->problem()); }

  std::string Log() const { return log_.str(); }

  // Releases the database and its writer lock (a later run() opens them again).
  void Close() { run_.reset(); }

 private:
  Session& Open(std::unique_ptr<Session>* slot, bool persist) {
    if (*slot) return **slot;
    auto s = std::make_unique<Session>();
    auto plugin = registry_.Create(config_.plugin);
    Check(plugin.status());
    s->plugin = std::move(plugin.value());
    in::RunnerOptions options;
    options.persist = persist;
    options.log = &log_;
    if (persist) {
      auto lock = in::WriterLock::Acquire(config_.database);
      Check(lock.status());
      s->lock.emplace(std::move(lock.value()));
      auto store = in::Store::Open(config_.database);
      Check(store.status());
      s->store = std::move(store.value());
    }
    s->runner = std::make_unique<in::Runner>(
        config_, s->plugin.get(), plugin_version_, s->store.get(), options);
    {
      py::gil_scoped_release release;
      Check(s->runner->Setup());
    }
    *slot = std::move(s);
    return **slot;
  }

  static py::dict OutcomeDict(in::RoundOutcome& outcome, const in::Runner& runner) {
    py::dict d;
    d["round"] = outcome.round;
    d["finished"] = outcome.finished;
    d["seconds"] = outcome.seconds;
    d["summary"] = SummaryDict(outcome.summary);
    py::dict metrics;
    for (const Metric& m : outcome.report.metrics) metrics[py::str(m.name)] = m.value;
    d["metrics"] = metrics;
    int applied = 0;
    for (const in::EventOutcome& e : outcome.events) applied += e.applied ? 1 : 0;
    d["events_applied"] = applied;
    d["events_rejected"] = static_cast<int>(outcome.events.size()) - applied;
    const bool full = outcome.allocation.values.size() ==
                      static_cast<std::size_t>(runner.problem().num_variables());
    d["values"] = full ? py::object(ToNumpy(std::move(outcome.allocation.values))) : py::none();
    return d;
  }

  in::DeploymentConfig config_;
  in::PluginRegistry registry_;
  std::string plugin_version_;
  std::ostringstream log_;
  // Declared after the registry: destroyed first (the plugins' code lives in its libraries).
  std::unique_ptr<Session> solve_;
  std::unique_ptr<Session> run_;
};

}  // namespace

void BindDeployment(py::module_& m) {
  py::class_<PyDeployment>(m, "Deployment")
      .def(py::init<const std::string&,
                    const std::vector<std::string>&,
                    const std::vector<std::string>&>(),
           py::arg("path"),
           py::arg("overrides") = std::vector<std::string>{},
           py::arg("plugin_paths") = std::vector<std::string>{})
      .def("describe", &PyDeployment::Describe)
      .def("solve_round", &PyDeployment::SolveRound, py::arg("round"))
      .def("run", &PyDeployment::Run, py::arg("rounds"))
      .def("next_round", &PyDeployment::NextRound)
      .def("variables", &PyDeployment::Variables)
      .def("log", &PyDeployment::Log)
      .def("close", &PyDeployment::Close);
}

}  // namespace dede::python
