#include "deployments.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include "config/deployment.h"
#include "plugin/plugin_loader.h"
#include "runtime/runner.h"

namespace dede::eval {
namespace {

using internal::DeploymentConfig;
using internal::PluginInstance;
using internal::PluginRegistry;

std::string Num(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  return buffer;
}

// What the reference method measured on one deployment, by round.
struct ReferenceRounds {
  std::map<int, double> value;  // feasible rounds only
  std::vector<double> seconds;  // every round
  double Budget(double fraction) const {
    if (seconds.empty()) return std::nan("");
    std::vector<double> s = seconds;
    std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
    return fraction * s[s.size() / 2];
  }
};

// One run of a deployment: a method at a thread count.
struct MethodRun {
  std::string label;                  // the row's method
  std::vector<std::string> overlays;  // appended to the suite's
  int threads = 1;                    // for the row (ADMM: the solver's count)
};

std::vector<MethodRun> Runs(const std::string& method, const std::vector<int>& threads) {
  if (method == "admm") {
    std::vector<MethodRun> runs;
    for (int t : threads) {
      runs.push_back({"admm",
                      {"solver.kind=admm",
                       "solver.method=none",
                       "solver.admm.num_threads=" + std::to_string(t)},
                      t});
    }
    return runs;
  }
  if (method == "exact") return {{"exact", {"solver.kind=exact", "solver.method=none"}, 1}};
  const std::string name = method.rfind("plugin:", 0) == 0 ? method.substr(7) : method;
  return {{method, {"solver.kind=plugin", "solver.method=" + name}, 1}};
}

Result<PluginInstance> CreatePlugin(const DeploymentConfig& config,
                                    PluginRegistry* registry,
                                    std::string* version) {
  (void)registry->Add(internal::PluginSearchPath(config.plugin_paths));
  Result<PluginInstance> plugin = registry->Create(config.plugin);
  if (!plugin.ok()) {
    return Status(
        plugin.status().code(),
        config.file + ": plugin.name = '" + config.plugin + "': " + plugin.status().message());
  }
  *version = internal::InfoOf(plugin.value()).version;
  return plugin;
}

// The method list when none is given: exact, admm, then the plugin's own methods ("plugin:"
// before a name that is also a solver kind).
Result<std::vector<std::string>> DefaultMethods(const DeploymentConfig& config,
                                                PluginRegistry* registry) {
  std::string version;
  Result<PluginInstance> plugin = CreatePlugin(config, registry, &version);
  if (!plugin.ok()) return plugin.status();
  std::vector<std::string> methods = {"exact", "admm"};
  for (const MethodInfo& m : plugin.value()->Methods()) {
    methods.push_back(m.name == "exact" || m.name == "admm" ? "plugin:" + m.name : m.name);
  }
  return methods;
}

double Quality(double value, double reference, bool maximize) {
  if (std::isnan(value) || std::isnan(reference)) return std::nan("");
  if (maximize) return reference != 0 ? value / reference : std::nan("");
  return value != 0 ? reference / value : (reference == 0 ? 1.0 : std::nan(""));
}

// The value of a round: the named metric of the plugin's report, or the objective.
Result<double> ValueOf(const internal::RoundOutcome& outcome, const std::string& metric) {
  if (metric.empty()) return outcome.summary.objective;
  for (const Metric& m : outcome.report.metrics) {
    if (m.name == metric) return m.value;
  }
  std::string names;
  for (const Metric& m : outcome.report.metrics) names += (names.empty() ? "" : ", ") + m.name;
  return NotFound("--value " + metric + ": the plugin reports no such metric (it reports: " +
                  (names.empty() ? std::string("none") : names) + ")");
}

// Every round of one method on one deployment. `reference` (by round) gets the values when
// this is the reference method; otherwise it gives each row its quality.
// *in_rounds: the failure (if any) came from a round, not from loading the deployment.
Status RunMethod(const std::string& file,
                 const DeploymentSuite& suite,
                 const std::pair<std::string, std::vector<std::string>>& combination,
                 const MethodRun& run,
                 bool is_reference,
                 ReferenceRounds* reference,
                 const RowSink& sink,
                 bool* in_rounds) {
  *in_rounds = false;
  std::vector<std::string> overlays = suite.overlays;
  overlays.insert(overlays.end(), combination.second.begin(), combination.second.end());
  overlays.insert(overlays.end(), run.overlays.begin(), run.overlays.end());
  std::string budget_note;
  if (suite.budget_fraction > 0 && !is_reference) {
    const double budget = reference->Budget(suite.budget_fraction);
    if (!(budget > 0))
      return FailedPrecondition("--budget-fraction: the reference method '" + suite.reference +
                                "' measured no round to take the fraction of");
    // The same wall time for every method: ADMM's round budget, and the plugin methods'
    // (POP's groups share solver.exact.time_limit_seconds, which bounds their whole round).
    overlays.push_back("solver.admm.time_limit_seconds=" + Num(budget));
    if (run.label != "exact") overlays.push_back("solver.exact.time_limit_seconds=" + Num(budget));
    budget_note = ", budget " + Num(budget) + " s";
  }
  Result<DeploymentConfig> config = internal::LoadDeployment(file, overlays);
  if (!config.ok()) return config.status();
  PluginRegistry registry;
  std::string version;
  Result<PluginInstance> plugin = CreatePlugin(config.value(), &registry, &version);
  if (!plugin.ok()) return plugin.status();
  std::ostringstream log;
  internal::RunnerOptions options;
  options.persist = false;
  options.log = &log;
  internal::Runner runner(config.value(), plugin.value().get(), version, nullptr, options);
  // The deployment's set-up (configure, describe, the engine's build): once per deployment,
  // reported beside the round times, which it is not part of.
  const auto setup_start = std::chrono::steady_clock::now();
  Status status = runner.Setup();
  if (!status.ok()) return status;
  const double setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
  const bool maximize = runner.problem().objective_sense() == ObjectiveSense::kMaximize;
  *in_rounds = true;
  const int rounds = suite.rounds > 0 ? suite.rounds : std::numeric_limits<int>::max();
  EvalRow last;
  bool have_last = false;
  for (int round = 0; round < rounds; ++round) {
    internal::RoundOutcome outcome;
    status = runner.RunRound({}, &outcome);
    if (!status.ok()) return status;
    if (outcome.finished) break;
    const SolveSummary& s = outcome.summary;
    EvalRow row;
    row.domain = config->plugin;
    row.objective = config->name + (combination.first.empty() ? "" : " " + combination.first);
    row.method = run.label;
    row.instance = config->name + "/r" + std::to_string(outcome.round);
    row.round = outcome.round;
    row.threads = s.num_threads > 0 ? s.num_threads : run.threads > 0 ? run.threads : 1;
    row.seconds = outcome.seconds;
    // A time-limited solve returns an allocation too (a fixed budget is the setting the
    // comparison is about): the row has a value whenever there is a full allocation.
    const bool have_allocation =
        static_cast<int>(outcome.allocation.values.size()) == runner.problem().num_variables();
    row.feasible = have_allocation && s.feasible;
    row.gap = row.feasible ? s.gap : std::nan("");
    row.note = std::string(TerminationName(s.termination)) +
               (s.iterations > 0 ? ", " + std::to_string(s.iterations) + " iterations" : "") +
               ", max violation " + Num(s.max_violation) + budget_note +
               (outcome.round == 0 ? ", deployment set-up " + Num(setup_seconds) + " s" : "") +
               (s.returned.empty() || s.returned == "solver" ? "" : ", returned " + s.returned);
    if (!have_allocation) row.note += ": " + s.message;
    Result<double> value = ValueOf(outcome, suite.value_metric);
    if (!value.ok()) return value.status();
    row.value = have_allocation ? value.value() : std::nan("");
    row.reference = suite.reference.empty() ? "none" : suite.reference;
    if (is_reference) {
      if (row.feasible) reference->value[outcome.round] = row.value;
      reference->seconds.push_back(row.seconds);
      row.quality = row.feasible ? 1.0 : std::nan("");
    } else if (const auto it = reference->value.find(outcome.round); it != reference->value.end()) {
      row.quality = Quality(row.value, it->second, maximize);
    } else {
      row.reference = "none";
    }
    if (suite.last_round_only) {
      last = row;
      have_last = true;
    } else {
      sink(row);
    }
  }
  if (have_last) sink(last);
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::pair<std::string, std::vector<std::string>>>> SweepCombinations(
    const std::vector<std::string>& sweeps) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out = {{"", {}}};
  for (const std::string& sweep : sweeps) {
    const std::size_t eq = sweep.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == sweep.size())
      return InvalidArgument("--sweep " + sweep + ": expected KEY=V1,V2,...");
    const std::string key = sweep.substr(0, eq);
    std::vector<std::string> values;
    std::stringstream in(sweep.substr(eq + 1));
    for (std::string v; std::getline(in, v, ',');) {
      if (v.empty()) return InvalidArgument("--sweep " + sweep + ": an empty value");
      values.push_back(v);
    }
    std::vector<std::pair<std::string, std::vector<std::string>>> next;
    for (const auto& [label, overlays] : out) {
      for (const std::string& v : values) {
        std::vector<std::string> o = overlays;
        o.push_back(key + "=" + v);
        next.push_back({(label.empty() ? "" : label + " ") + key + "=" + v, std::move(o)});
      }
    }
    out = std::move(next);
  }
  return out;
}

Status RunDeployments(const DeploymentSuite& suite, const RowSink& sink) {
  Result<std::vector<std::pair<std::string, std::vector<std::string>>>> combinations =
      SweepCombinations(suite.sweeps);
  if (!combinations.ok()) return combinations.status();
  if (suite.budget_fraction > 0 && suite.reference.empty())
    return InvalidArgument("--budget-fraction needs a reference method (--reference)");
  Status result;
  for (const std::string& file : suite.configs) {
    std::vector<std::string> methods = suite.methods;
    if (methods.empty()) {
      Result<DeploymentConfig> config = internal::LoadDeployment(file, suite.overlays);
      if (!config.ok()) return config.status();
      PluginRegistry registry;
      Result<std::vector<std::string>> found = DefaultMethods(config.value(), &registry);
      if (!found.ok()) return found.status();
      methods = std::move(found.value());
    }
    // The reference first, so that every other row carries its quality (and its time the
    // others' budget).
    std::stable_partition(methods.begin(), methods.end(), [&](const std::string& m) {
      return !suite.reference.empty() && m == suite.reference;
    });
    for (const auto& combination : combinations.value()) {
      ReferenceRounds reference;
      for (const std::string& method : methods) {
        for (const MethodRun& run : Runs(method, suite.threads)) {
          const bool is_reference = !suite.reference.empty() && method == suite.reference;
          bool in_rounds = false;
          Status status =
              RunMethod(file, suite, combination, run, is_reference, &reference, sink, &in_rounds);
          if (status.ok()) continue;
          // A method asked for by name that fails is a row and the exit status; one of the
          // default list that fails in its rounds (a plugin method the deployment's objective
          // does not admit) is skipped, said on stderr; a deployment that does not load is an
          // error either way. The other methods still run.
          const std::string where =
              file + (combination.first.empty() ? "" : " [" + combination.first + "]");
          if (suite.methods.empty() && in_rounds) {
            std::cerr << "dede_eval: " << where << ": method " << run.label
                      << " skipped: " << status.message() << "\n";
            continue;
          }
          EvalRow row;
          row.domain = file;
          row.objective = where;
          row.method = run.label;
          row.instance = file;
          row.threads = run.threads;
          row.note = "failed: " + status.message();
          sink(row);
          result.Update(
              Status(status.code(), where + ", method " + run.label + ": " + status.message()));
        }
      }
    }
  }
  return result;
}

}  // namespace dede::eval
