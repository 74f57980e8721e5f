// dede_bench budget: does a round keep its time budget? Every deployment given (default: the
// shipped configs/*.yaml) is loaded through the plugin registry and run through the Runner,
// the path `dede solve` takes (nothing persisted), with the solver's time limit set to the
// budget by overlays (solver.admm.time_limit_seconds and solver.exact.time_limit_seconds, which
// the plugin methods get through their solver services). Reported per deployment: the set-up
// (plugin Describe, engine build: once per run, outside the budget), the first (cold) round
// and the slowest of the warm rounds, each as wall time of the whole round (events, Refresh,
// solve, repair, report), and the worst overrun of the budget.
#include "budget_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "config/deployment.h"
#include "dede/stopwatch.h"
#include "plugin/plugin_loader.h"
#include "runtime/runner.h"

namespace dede::tools {
namespace {

using Clock = dede::SteadyClock;
using dede::SecondsSince;

std::string Name(const std::string& file) {
  std::string base = std::filesystem::path(file).stem().string();
  return base;
}

std::string Format(double budget) {
  std::ostringstream out;
  out << budget;
  return out.str();
}

}  // namespace

int RunBudget(const BudgetOptions& options) {
  std::vector<std::string> files = options.deployments;
  if (files.empty()) {
    const std::filesystem::path dir = std::filesystem::path(DEDE_SOURCE_DIR) / "configs";
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
  }
  const std::string b = Format(options.budget);
  std::printf("budget %s s per round (solver.admm / solver.exact time_limit_seconds), %d rounds\n",
              b.c_str(),
              options.rounds);
  std::printf(
      "| deployment | solver | set-up s | round 0 s | worst warm round s | worst overrun s | worst "
      "round / budget |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  int failures = 0;
  for (const std::string& file : files) {
    const std::string name = Name(file);
    std::vector<std::string> overlays = {"solver.admm.time_limit_seconds=" + b,
                                         "solver.exact.time_limit_seconds=" + b};
    for (const std::string& o : options.overlays) overlays.push_back(o);
    auto config = internal::LoadDeployment(file, overlays);
    if (!config.ok()) {
      std::printf(
          "| %s | - | skipped: %s |||||\n", name.c_str(), config.status().message().c_str());
      continue;
    }
    internal::PluginRegistry registry;
    for (const std::string& path : internal::PluginSearchPath(config->plugin_paths))
      (void)registry.Add(path);
    auto plugin = registry.Create(config->plugin);
    if (!plugin.ok()) {
      std::printf("| %s | - | skipped: plugin '%s': %s |||||\n",
                  name.c_str(),
                  config->plugin.c_str(),
                  plugin.status().message().c_str());
      continue;
    }
    internal::RunnerOptions runner_options;
    runner_options.persist = false;
    std::ostringstream quiet;
    runner_options.log = &quiet;
    internal::Runner runner(config.value(),
                            plugin.value().get(),
                            internal::InfoOf(plugin.value()).version,
                            nullptr,
                            runner_options);
    const auto t_setup = Clock::now();
    Status status = runner.Setup();
    const double setup = SecondsSince(t_setup);
    const std::string solver = config->solver == internal::SolverKind::kAdmm    ? "admm"
                               : config->solver == internal::SolverKind::kExact ? "exact"
                                                                                : config->method;
    if (!status.ok()) {
      std::printf(
          "| %s | %s | failed: %s |||||\n", name.c_str(), solver.c_str(), status.message().c_str());
      ++failures;
      continue;
    }
    double first = -1, warm = 0, worst = 0;
    int rounds = 0;
    for (int r = 0; r < options.rounds; ++r) {
      internal::RoundOutcome outcome;
      const auto t = Clock::now();
      status = runner.RunRound({}, &outcome);
      const double seconds = SecondsSince(t);
      if (!status.ok() || outcome.finished) break;
      ++rounds;
      worst = std::max(worst, seconds);
      if (r == 0)
        first = seconds;
      else
        warm = std::max(warm, seconds);
    }
    if (!status.ok()) {
      std::printf(
          "| %s | %s | failed: %s |||||\n", name.c_str(), solver.c_str(), status.message().c_str());
      ++failures;
      continue;
    }
    if (rounds == 0) {
      std::printf("| %s | %s | %.2f | no rounds ||||\n", name.c_str(), solver.c_str(), setup);
      continue;
    }
    char warm_text[32] = "-";
    if (rounds > 1) std::snprintf(warm_text, sizeof(warm_text), "%.2f", warm);
    std::printf("| %s | %s | %.2f | %.2f | %s | %+.2f | %.2f |\n",
                name.c_str(),
                solver.c_str(),
                setup,
                first,
                warm_text,
                worst - options.budget,
                worst / options.budget);
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace dede::tools
