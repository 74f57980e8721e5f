#include "convergence_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "config/deployment.h"
#include "dede/host_solvers.h"
#include "dede/plugin.h"
#include "dede/solver.h"
#include "dede/stopwatch.h"
#include "plugin/plugin_loader.h"
#include "plugin/plugin_settings.h"

namespace dede::tools {
namespace {

using Clock = dede::SteadyClock;
using dede::SecondsSince;

// The two accuracy levels of the table.
constexpr double kLevels[2] = {1e-3, 1e-4};

struct Reached {
  int iterations = -1;  // -1: not reached
  double seconds = std::numeric_limits<double>::quiet_NaN();
};

struct Row {
  std::string name;
  std::string skipped;  // why the instance did not run (missing data, ...)
  long long entries = 0;
  int blocks = 0;
  double clp_seconds = std::numeric_limits<double>::quiet_NaN();
  double optimum = std::numeric_limits<double>::quiet_NaN();
  std::string clp_status;
  double admm_setup = 0;
  double admm_budget = 0;
  int iterations = 0;
  double admm_seconds = 0;  // setup + iterations, until the last level was reached or the end
  double final_gap = std::numeric_limits<double>::quiet_NaN();
  double final_residual = std::numeric_limits<double>::quiet_NaN();
  Reached reached[2];
  int anderson_steps = -1, anderson_rejections = -1;
};

// A trace point reaches `level` when the demand-side iterate's objective is within `level`
// of Clp's optimum (relative) and the two copies agree to `level` (relative primal residual).
double RelativeGap(double objective, double optimum) {
  return std::abs(objective - optimum) / std::max(std::abs(optimum), 1e-12);
}

std::string Name(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  if (const auto dot = base.rfind(".yaml"); dot != std::string::npos) base.resize(dot);
  return base;
}

Row RunOne(const std::string& file, const ConvergenceOptions& options, std::FILE* trace_csv) {
  Row row;
  row.name = Name(file);
  auto config = internal::LoadDeployment(file);
  if (!config.ok()) {
    row.skipped = config.status().message();
    return row;
  }
  internal::PluginRegistry registry;
  for (const std::string& path : internal::PluginSearchPath(config->plugin_paths))
    (void)registry.Add(path);
  auto plugin = registry.Create(config->plugin);
  if (!plugin.ok()) {
    row.skipped = "plugin '" + config->plugin + "': " + plugin.status().message();
    return row;
  }
  PluginContext context;
  context.config_file = config->file;
  context.config_dir = config->dir;
  context.seed = config->seed;
  Problem problem(0, 0);
  bool finished = false;
  std::vector<internal::DefaultedSetting> defaulted;
  Status status = internal::ConfigureWithSettings(
      plugin.value().get(), config->plugin_settings, context, &defaulted);
  if (status.ok()) status = plugin.value()->Describe(&problem);
  if (status.ok()) status = plugin.value()->Refresh(options.round, &problem, &finished);
  if (!status.ok() || finished) {
    row.skipped =
        status.ok() ? "no data for round " + std::to_string(options.round) : status.message();
    return row;
  }
  row.entries = problem.num_variables();
  row.blocks = problem.num_resources() + problem.num_demands();
  std::fprintf(stderr,
               "%s: %d resources, %d demands, %d variables, %d constraints\n",
               row.name.c_str(),
               problem.num_resources(),
               problem.num_demands(),
               problem.num_variables(),
               problem.num_constraints());

  // The reference: the whole problem in Clp (the deployment's solver.exact options).
  {
    Allocation exact;
    SolveSummary summary;
    const auto t = Clock::now();
    SolveExact(problem, config->exact, &exact, &summary);
    row.clp_seconds = SecondsSince(t);
    row.clp_status = TerminationName(summary.termination);
    if (summary.termination != Termination::kConverged) {
      row.skipped = "Clp did not solve it (" + row.clp_status + ": " + summary.message + ")";
      return row;
    }
    row.optimum = summary.objective;
    std::fprintf(stderr,
                 "%s: Clp (%s) %.10g in %.2f s\n",
                 row.name.c_str(),
                 LpMethodName(config->exact.lp_method),
                 row.optimum,
                 row.clp_seconds);
  }

  // ADMM from a cold start with the deployment's options, stopped once both levels hold.
  AdmmOptions admm = config->admm;
  admm.num_threads = options.threads;
  admm.max_iterations = 1000000;
  admm.eps_abs = 0;
  admm.eps_rel = 1e-15;  // never converges by its own test: the observer decides
  admm.check_termination_every = options.check_every;
  if (admm.rho_update_every % admm.check_termination_every != 0) {
    admm.rho_update_every = std::max(1, admm.rho_update_every / admm.check_termination_every) *
                            admm.check_termination_every;
  }
  admm.repair = false;
  admm.verbose = options.verbose;
  row.admm_budget =
      std::min(options.max_admm_seconds,
               std::max(options.min_admm_seconds, options.admm_time_factor * row.clp_seconds));
  admm.time_limit_seconds = row.admm_budget;
  const auto t_setup = Clock::now();
  AdmmSolver solver(problem, admm);
  row.admm_setup = SecondsSince(t_setup);
  if (!solver.setup_error().empty()) {
    row.skipped = "ADMM setup: " + solver.setup_error();
    return row;
  }
  solver.SetObserver([&](const IterationSummary& it) {
    const double gap = RelativeGap(it.objective, row.optimum);
    const double residual = it.primal_residual / std::max(it.primal_scale, 1e-300);
    row.iterations = it.iteration;
    row.admm_seconds = row.admm_setup + it.seconds;
    row.final_gap = gap;
    row.final_residual = residual;
    if (trace_csv != nullptr) {
      std::fprintf(trace_csv,
                   "%s,%d,%.6f,%.12g,%.6e,%.6e,%.6e\n",
                   row.name.c_str(),
                   it.iteration,
                   row.admm_setup + it.seconds,
                   it.objective,
                   gap,
                   residual,
                   it.rho);
    }
    for (int l = 0; l < 2; ++l) {
      if (row.reached[l].iterations < 0 && gap <= kLevels[l] && residual <= kLevels[l]) {
        row.reached[l] = {it.iteration, row.admm_setup + it.seconds};
      }
    }
    return row.reached[1].iterations < 0;
  });
  Allocation allocation;
  SolveSummary summary;
  solver.Solve(&allocation, &summary);
  row.anderson_steps = summary.anderson_steps;
  row.anderson_rejections = summary.anderson_rejections;
  if (summary.termination == Termination::kFailure ||
      summary.termination == Termination::kInfeasible) {
    row.skipped = "ADMM failed: " + summary.message;
  }
  return row;
}

std::string Cell(const Reached& r, bool seconds) {
  char buffer[32];
  if (r.iterations < 0) return "-";
  if (seconds) {
    std::snprintf(buffer, sizeof(buffer), "%.2f", r.seconds);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%d", r.iterations);
  }
  return buffer;
}

std::string Ratio(const Reached& r, double clp) {
  char buffer[32];
  if (r.iterations < 0) return "-";
  std::snprintf(buffer, sizeof(buffer), "%.2f", r.seconds / clp);
  return buffer;
}

}  // namespace

int RunConvergence(const ConvergenceOptions& options) {
  std::FILE* trace = nullptr;
  if (!options.trace_csv.empty()) {
    trace = std::fopen(options.trace_csv.c_str(), "w");
    if (trace == nullptr) {
      std::fprintf(stderr, "dede_bench: cannot write %s\n", options.trace_csv.c_str());
      return 1;
    }
    std::fprintf(trace, "instance,iteration,seconds,objective,gap,residual,rho\n");
  }
  std::vector<Row> rows;
  for (const std::string& file : options.deployments) {
    rows.push_back(RunOne(file, options, trace));
    const Row& r = rows.back();
    if (!r.skipped.empty())
      std::fprintf(stderr, "%s: skipped: %s\n", r.name.c_str(), r.skipped.c_str());
    if (trace != nullptr) std::fflush(trace);
  }
  if (trace != nullptr) std::fclose(trace);

  std::string table;
  table +=
      "| instance | variables | Clp s | ADMM it 1e-3 | s 1e-3 | / Clp | it 1e-4 | s 1e-4 | / Clp | "
      "last it | last s | last gap | last resid | Anderson steps / undone |\n";
  table += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const Row& r : rows) {
    char line[512];
    if (!r.skipped.empty()) {
      std::snprintf(line,
                    sizeof(line),
                    "| %s | %lld | skipped: %s |\n",
                    r.name.c_str(),
                    r.entries,
                    r.skipped.c_str());
      table += line;
      continue;
    }
    std::snprintf(
        line,
        sizeof(line),
        "| %s | %lld | %.2f | %s | %s | %s | %s | %s | %s | %d | %.2f | %.1e | %.1e | %s |\n",
        r.name.c_str(),
        r.entries,
        r.clp_seconds,
        Cell(r.reached[0], false).c_str(),
        Cell(r.reached[0], true).c_str(),
        Ratio(r.reached[0], r.clp_seconds).c_str(),
        Cell(r.reached[1], false).c_str(),
        Cell(r.reached[1], true).c_str(),
        Ratio(r.reached[1], r.clp_seconds).c_str(),
        r.iterations,
        r.admm_seconds,
        r.final_gap,
        r.final_residual,
        r.anderson_steps < 0
            ? "off"
            : (std::to_string(r.anderson_steps) + " / " + std::to_string(r.anderson_rejections))
                  .c_str());
    table += line;
  }
  std::printf("%s", table.c_str());
  if (!options.markdown.empty()) {
    std::ofstream out(options.markdown);
    out << table;
    if (!out) {
      std::fprintf(stderr, "dede_bench: cannot write %s\n", options.markdown.c_str());
      return 1;
    }
  }
  for (const Row& r : rows) {
    if (!r.skipped.empty()) return 1;
  }
  return 0;
}

}  // namespace dede::tools
