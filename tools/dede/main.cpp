// dede: the command-line entry point.
//
//   dede run CONFIG        run a deployment: rounds on a timer, history in SQLite, resumable
//   dede solve CONFIG      one round, nothing written; prints the summary and the metrics
//   dede validate CONFIG   check the file, load the plugin, check its settings and problem
//   dede export CONFIG [NAME FILE]  write a plugin's export (e.g. traffic engineering's paths)
//   (run, solve and validate take --set KEY=VALUE: a key of the file overridden, repeatable)
//   dede convert SHAPE IN -o DIR  a public trace (philly, gavel, dally, tiresias, helios, alibaba)
//   -> the
//                          plugins' trace files, every adjustment counted (convert.h)
//   dede query DB SQL      read-only SQL over a deployment database (table, csv or json)
//   dede storage DB        bytes per table, index and round of a database (dbstat); --vacuum
//   dede plugins           list the plugins found, their versions and their methods
//   dede options           the option reference (Markdown); --plugin NAME: a plugin's settings
//   dede example           the synthetic transport LP solved with ADMM and exactly
//
// Exit codes: 0 success; 1 usage error; 2 invalid input (configuration, plugin, database);
// 3 the run failed (solver or plugin failure at run time, or a database write that failed,
// during set-up too: a full disk).
//
// What `dede run` prints while it runs is its log (framework/src/runtime/log.h): timestamped
// lines with a level, info to standard output, warnings and errors to standard error, chosen
// with --quiet / --log-level (also on `dede solve`). What a command prints as its result (the
// summary of `dede solve`, rows, lists, the option reference) stays plain standard output.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "config/deployment.h"
#include "convert.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "mpi/world.h"
#include "options_doc.h"
#include "plugin/plugin_loader.h"
#include "plugin_options_doc.h"
#include "query.h"
#include "runtime/log.h"
#include "runtime/runner.h"
#include "storage_cmd.h"
#include "store/store.h"
#include "store/writer_lock.h"
#include "submit.h"
#include "synthetic.h"

namespace {

// Set by SIGINT during `dede query`.
std::atomic<bool> g_query_cancel{false};

using dede::Status;

constexpr int kExitUsage = 1;
constexpr int kExitInvalidInput = 2;
constexpr int kExitRunFailed = 3;

// A set-up that fails writing the database (a full disk, a file-size limit: SQLite's "database
// or disk is full" / "disk I/O error", kInternal) fails at run time, as the same write in a round
// does; anything else in set-up is the input's fault.
int SetupExitCode(const Status& status) {
  const std::string& m = status.message();
  const bool write_failed = m.find("disk I/O error") != std::string::npos ||
                            m.find("database or disk is full") != std::string::npos;
  return status.code() == dede::StatusCode::kInternal && write_failed ? kExitRunFailed
                                                                      : kExitInvalidInput;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// CLI11's PositiveNumber and NonNegativeNumber name their upper bound, the largest double, in
// 309 digits; these say "--rounds: 0 is not > 0".
CLI::Validator AtLeast(double min, bool strict) {
  return CLI::Validator(
      [min, strict](std::string& input) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value)) return "'" + input + "' is not a number";
        if (strict ? value > min : value >= min) return {};
        return input + " is not " + (strict ? "> " : ">= ") + Number(min);
      },
      (strict ? "> " : ">= ") + Number(min));
}
const CLI::Validator kPositive = AtLeast(0, true);
const CLI::Validator kNonNegative = AtLeast(0, false);

// `dede run` reports its failures in its log, like the rest of what it prints while running;
// the other commands, and a run whose log is off, print "dede: message" to standard error.
bool g_failures_to_log = false;
// --log-level debug (or trace): the engine's and the exact solver's own trace lines too.
bool g_solver_debug = false;

int Fail(const Status& status, int code) {
  const dede::internal::Logger log;
  if (g_failures_to_log && log.Enabled(dede::internal::LogLevel::kError)) {
    log.Error(status.message());
  } else {
    std::cerr << "dede: " << status.message() << "\n";
  }
  return code;
}

// Loads every plugin on the path; a broken library elsewhere on the path does not stop the
// one we need, but its rejection is shown if the plugin is then not found.
void LoadPlugins(const std::vector<std::string>& paths, dede::internal::PluginRegistry* registry) {
  for (const std::string& path : paths) (void)registry->Add(path);
}

std::string Rejections(const dede::internal::PluginRegistry& registry) {
  std::string text;
  for (const auto& r : registry.rejected())
    text += "\n  rejected " + r.path + ": " + r.status.message();
  return text;
}

struct Loaded {
  dede::internal::DeploymentConfig config;
  dede::internal::PluginRegistry registry;
  dede::internal::PluginInstance plugin;
  std::string plugin_version;
};

// Config + plugin instance, or the exit code of the failure.
int LoadDeploymentAndPlugin(const std::string& file,
                            const std::vector<std::string>& overlays,
                            Loaded* out) {
  auto config = dede::internal::LoadDeployment(file, overlays);
  if (!config.ok()) return Fail(config.status(), kExitInvalidInput);
  out->config = std::move(config.value());
  const dede::internal::Logger log;
  for (const std::string& warning : out->config.warnings) log.Warn(warning);
  out->config.admm.verbose = g_solver_debug;
  out->config.exact.verbose = g_solver_debug;
  LoadPlugins(dede::internal::PluginSearchPath(out->config.plugin_paths), &out->registry);
  auto plugin = out->registry.Create(out->config.plugin);
  if (!plugin.ok()) {
    return Fail(Status(plugin.status().code(),
                       file + ": plugin.name = '" + out->config.plugin +
                           "': " + plugin.status().message() + Rejections(out->registry)),
                kExitInvalidInput);
  }
  out->plugin_version = dede::internal::InfoOf(plugin.value()).version;
  out->plugin = std::move(plugin.value());
  return 0;
}

int RunCommand(const std::string& file,
               const std::vector<std::string>& overlays,
               bool verbose,
               int rounds,
               const std::string& csv) {
  g_failures_to_log = true;
  const dede::internal::Logger log;
  Loaded loaded;
  if (int code = LoadDeploymentAndPlugin(file, overlays, &loaded); code != 0) return code;
  // Under mpirun, rank 0 alone opens the database and the CSV file; the others follow it.
  namespace mpi = dede::internal::mpi;
  dede::internal::RunnerOptions options;
  options.verbose = verbose;
  options.max_rounds = rounds;
  options.distributed = mpi::Size() > 1;
  std::unique_ptr<dede::internal::Store> store;
  std::optional<dede::internal::WriterLock> lock;
  if (mpi::IsRoot()) {
    // One writer per database, refused before anything is solved; held until the run ends.
    auto acquired = dede::internal::WriterLock::Acquire(loaded.config.database);
    if (!acquired.ok()) return Fail(acquired.status(), kExitInvalidInput);
    lock.emplace(std::move(acquired.value()));
    auto opened = dede::internal::Store::Open(loaded.config.database);
    if (!opened.ok()) return Fail(opened.status(), SetupExitCode(opened.status()));
    store = std::move(opened.value());
    options.csv_path = csv;
  }
  dede::internal::Runner runner(
      loaded.config, loaded.plugin.get(), loaded.plugin_version, store.get(), options);
  if (Status s = runner.Setup(); !s.ok()) return Fail(s, SetupExitCode(s));
  log.Info("deployment '" + loaded.config.name + "': plugin " + loaded.config.plugin + " " +
           loaded.plugin_version + ", " + std::to_string(runner.problem().num_variables()) +
           " variables, database " + loaded.config.database);
  auto summary = runner.Run();
  if (!summary.ok()) return Fail(summary.status(), kExitRunFailed);
  log.Info("stopped: " + summary->stop_reason + " (" + std::to_string(summary->rounds_run) +
           " rounds run, last committed round " + std::to_string(summary->last_round) + ")");
  return 0;
}

int SolveCommand(const std::string& file,
                 const std::vector<std::string>& overlays,
                 bool verbose,
                 int round,
                 const std::string& csv) {
  Loaded loaded;
  if (int code = LoadDeploymentAndPlugin(file, overlays, &loaded); code != 0) return code;
  dede::internal::RunnerOptions options;
  options.verbose = verbose;
  options.persist = false;
  // Under mpirun rank 0 alone writes the file.
  if (dede::internal::mpi::IsRoot()) options.csv_path = csv;
  dede::internal::Runner runner(
      loaded.config, loaded.plugin.get(), loaded.plugin_version, nullptr, options);
  if (Status s = runner.Setup(); !s.ok()) return Fail(s, kExitInvalidInput);
  // Plugins derive a round's data from its number alone, so any round can be solved directly.
  runner.set_next_round(round);
  dede::internal::RoundOutcome outcome;
  if (Status s = runner.RunRound({}, &outcome); !s.ok()) return Fail(s, kExitRunFailed);
  if (outcome.finished) {
    std::cerr << "dede: plugin has no data for round " << round << "\n";
    return kExitRunFailed;
  }
  const dede::SolveSummary& summary = outcome.summary;
  std::cout << (verbose ? summary.FullReport()
                        : summary.BriefReport() + "\n" + summary.message + "\n");
  int nonzero = 0;
  for (double v : outcome.allocation.values) nonzero += v != 0.0;
  char fingerprint[32];
  std::snprintf(
      fingerprint,
      sizeof(fingerprint),
      "%016llx",
      static_cast<unsigned long long>(dede::internal::Fingerprint(outcome.allocation.values)));
  std::cout << "allocation: " << nonzero << " non-zero of " << outcome.allocation.values.size()
            << " variables (fingerprint " << fingerprint << ")\n";
  // How far from the optimum the allocation can be, proven by the solver's bound.
  if (std::isfinite(summary.gap)) {
    char gap[96];
    std::snprintf(gap, sizeof(gap), "%.3e (bound %.10g)", summary.gap, summary.bound);
    std::cout << "certified gap: " << gap << "\n";
  } else {
    std::cout << "certified gap: none ("
              << (!summary.feasible              ? "the allocation is not feasible"
                  : std::isfinite(summary.bound) ? "no finite objective"
                                                 : "the method proves no bound")
              << ")\n";
  }
  for (const dede::Metric& m : outcome.report.metrics)
    std::cout << "  " << m.name << " = " << m.value << "\n";
  return summary.IsSolutionUsable() ? 0 : kExitRunFailed;
}

int ValidateCommand(const std::string& file, const std::vector<std::string>& overlays) {
  Loaded loaded;
  if (int code = LoadDeploymentAndPlugin(file, overlays, &loaded); code != 0) return code;
  dede::internal::RunnerOptions options;
  options.persist = false;
  dede::internal::Runner runner(
      loaded.config, loaded.plugin.get(), loaded.plugin_version, nullptr, options);
  if (Status s = runner.Setup(); !s.ok()) return Fail(s, kExitInvalidInput);
  std::cout << file << ": ok (deployment '" << loaded.config.name << "', plugin "
            << loaded.config.plugin << " " << loaded.plugin_version << ", "
            << runner.problem().num_resources() << " resources, " << runner.problem().num_demands()
            << " demands, " << runner.problem().num_variables() << " variables, "
            << runner.problem().num_constraints() << " constraints)\n";
  return 0;
}

// Writes one of the plugin's exports of the configured and described deployment, or lists them.
int ExportCommand(const std::string& file,
                  const std::vector<std::string>& overlays,
                  const std::string& name,
                  const std::string& out) {
  Loaded loaded;
  if (int code = LoadDeploymentAndPlugin(file, overlays, &loaded); code != 0) return code;
  const dede::internal::PluginInfo info = dede::internal::InfoOf(loaded.plugin);
  std::vector<dede::ExportInfo> exports;
  Status status = dede::internal::CallPlugin("Exports", info.name, info.path, [&] {
    exports = loaded.plugin->Exports();
    return Status::Ok();
  });
  if (!status.ok()) return Fail(status, kExitInvalidInput);
  if (name.empty()) {
    std::cout << "plugin " << info.name << ": " << (exports.empty() ? "no exports" : "exports")
              << "\n";
    for (const dede::ExportInfo& e : exports)
      std::cout << "  " << e.name << ": " << e.description << "\n";
    return 0;
  }
  bool known = false;
  std::string names;
  for (const dede::ExportInfo& e : exports) {
    known = known || e.name == name;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  if (!known)
    return Fail(dede::InvalidArgument("plugin " + info.name + " has no export '" + name + "' (" +
                                      (names.empty() ? "it has none" : "exports: " + names) + ")"),
                kExitUsage);
  if (out.empty())
    return Fail(dede::InvalidArgument("dede export: give the output FILE after NAME"), kExitUsage);
  dede::internal::RunnerOptions options;
  options.persist = false;
  dede::internal::Runner runner(
      loaded.config, loaded.plugin.get(), loaded.plugin_version, nullptr, options);
  if (Status s = runner.Setup(); !s.ok()) return Fail(s, kExitInvalidInput);
  status = dede::internal::CallPlugin(
      "Export", info.name, info.path, [&] { return loaded.plugin->Export(name, out); });
  if (!status.ok()) return Fail(status, kExitInvalidInput);
  std::cout << "wrote " << name << " of deployment '" << loaded.config.name << "' to " << out
            << "\n";
  return 0;
}

int PluginsCommand(const std::vector<std::string>& extra) {
  dede::internal::PluginRegistry registry;
  const std::vector<std::string> paths = dede::internal::PluginSearchPath(extra);
  LoadPlugins(paths, &registry);
  std::cout << "search path:";
  for (const std::string& p : paths) std::cout << " " << p;
  std::cout << "\nhost toolchain " << dede::internal::HostToolchain() << ", plugin ABI "
            << dede::kPluginAbiVersion << "\n";
  for (const auto& info : registry.plugins()) {
    std::cout << "  " << info.name << " " << info.version << "  (" << info.path << ")\n";
    // The plugin's own methods (solver.kind: plugin, solver.method: <name>).
    auto created = registry.Create(info.name);
    if (!created.ok()) continue;
    const dede::internal::PluginInstance& plugin = created.value();
    std::vector<dede::MethodInfo> methods;
    const dede::Status status = dede::internal::CallPlugin("Methods", info.name, info.path, [&] {
      methods = plugin->Methods();
      return dede::Status::Ok();
    });
    if (!status.ok()) {
      std::cout << "      methods: " << status.message() << "\n";
      continue;
    }
    for (const dede::MethodInfo& m : methods) {
      std::cout << "      method " << m.name << ": " << m.description << "\n";
    }
    std::vector<dede::EventKind> kinds;
    if (dede::internal::CallPlugin("EventKinds", info.name, info.path, [&] {
          kinds = plugin->EventKinds();
          return dede::Status::Ok();
        }).ok()) {
      for (const dede::EventKind& k : kinds) {
        std::cout << "      event " << k.name << " " << k.target << " " << k.payload << ": "
                  << k.description << "\n";
      }
    }
    std::vector<dede::ExportInfo> exports;
    if (dede::internal::CallPlugin("Exports", info.name, info.path, [&] {
          exports = plugin->Exports();
          return dede::Status::Ok();
        }).ok()) {
      for (const dede::ExportInfo& e : exports)
        std::cout << "      export " << e.name << ": " << e.description << "\n";
    }
  }
  for (const auto& r : registry.rejected()) {
    std::cout << "  rejected " << r.path << ": " << r.status.message() << "\n";
  }
  return registry.rejected().empty() ? 0 : kExitInvalidInput;
}

int ExampleCommand(const dede::tools::SyntheticSpec& spec,
                   int threads,
                   double time_limit,
                   bool verbose) {
  const auto problem = dede::tools::MakeTransportLp(spec);
  std::printf("example: transport LP, %d resources x %d demands, %d entries\n",
              spec.resources,
              spec.demands,
              problem->num_variables());
  dede::AdmmOptions options;
  options.num_threads = threads;
  options.time_limit_seconds = time_limit;
  options.verbose = verbose;
  dede::AdmmSolver solver(*problem, options);
  dede::Allocation allocation;
  dede::SolveSummary admm;
  solver.Solve(&allocation, &admm);
  std::printf("%s\n", verbose ? admm.FullReport().c_str() : admm.BriefReport().c_str());
  dede::ExactOptions exact_options;
  exact_options.time_limit_seconds = time_limit;
  dede::Allocation exact_allocation;
  dede::SolveSummary exact;
  dede::SolveExact(*problem, exact_options, &exact_allocation, &exact);
  std::printf("%s\n", exact.BriefReport().c_str());
  if (exact.termination == dede::Termination::kConverged && exact.objective != 0) {
    std::printf("admm objective / exact objective = %.6f\n", admm.objective / exact.objective);
  }
  return admm.IsSolutionUsable() ? 0 : kExitRunFailed;
}

int Main(int argc, char** argv) {
  // A write past the file-size limit (ulimit -f) fails with EFBIG instead of killing the
  // process: SQLite then reports "database or disk is full", the round's transaction rolls back
  // and the run stops with an error naming the database, which stays usable.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"dede: decouple-and-decompose resource allocation"};
  app.set_version_flag("--version", DEDE_VERSION);
  app.require_subcommand(1);

  std::string config_file, db_path, sql, format = "table";
  double query_seconds = 60;
  int query_memory_mib = 256;  // dede query --max-memory-mib
  bool verbose = false;
  int rounds = -1, round = 0, threads = 0;
  double time_limit = 60;
  std::vector<std::string> plugin_paths;
  std::vector<std::string> overlays;  // --set KEY=VALUE, in order
  std::string csv;                    // --csv FILE: one line per round
  std::string log_level = "info";     // --log-level (run, solve)
  bool quiet = false;                 // --quiet: --log-level warn
  // The log's options, on the commands that log while they run.
  auto add_log_options = [&](CLI::App* command) {
    CLI::Option* level =
        command
            ->add_option("--log-level",
                         log_level,
                         "log lines at this level and above (info and below go to standard "
                         "output, warnings and errors to standard error)")
            ->check(CLI::IsMember(dede::internal::LogLevelNames()))
            ->capture_default_str();
    command->add_flag("--quiet", quiet, "log only warnings and errors (--log-level warn)")
        ->excludes(level);
  };
  dede::tools::SyntheticSpec spec;
  spec.resources = 200;
  spec.demands = 2000;
  spec.entries_per_demand = 20;

  auto* run = app.add_subcommand("run", "run a deployment (rounds on a timer, history in SQLite)");
  run->add_option("config", config_file, "deployment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  // Before --log-level: the round's residual trace. Hidden; kept so scripts keep working.
  bool run_verbose = false;
  run->add_flag("--verbose", run_verbose, "deprecated: --log-level debug")->group("");
  run->add_option(
      "--set",
      overlays,
      "override a key of the deployment file (YAML value), e.g. solver.admm.rho=1e7; repeatable");
  run->add_option("--rounds",
                  rounds,
                  "stop after this many rounds of this run (stop.max_rounds still applies)")
      ->check(kPositive);
  run->add_option(
      "--csv", csv, "also write each round's figures and the plugin's metrics to this CSV file");
  add_log_options(run);

  auto* solve =
      app.add_subcommand("solve", "solve one round and print its summary; writes nothing");
  solve->add_option("config", config_file, "deployment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  solve->add_option("--round", round, "round to solve (the plugin's data for it)")
      ->check(kNonNegative);
  solve->add_flag(
      "--verbose", verbose, "print the full report: every residual check (not a log level)");
  solve->add_option("--csv", csv, "write the round's figures and the plugin's metrics here (CSV)");
  add_log_options(solve);
  solve->add_option(
      "--set",
      overlays,
      "override a key of the deployment file (YAML value), e.g. solver.admm.rho=1e7; repeatable");

  auto* validate =
      app.add_subcommand("validate", "check a deployment file, its plugin and settings");
  validate->add_option("config", config_file, "deployment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  validate->add_option(
      "--set",
      overlays,
      "override a key of the deployment file (YAML value), e.g. solver.admm.rho=1e7; repeatable");

  std::string export_name, export_file;
  auto* exporter = app.add_subcommand(
      "export", "write a plugin's export of a deployment (e.g. paths); without NAME, list them");
  exporter->add_option("config", config_file, "deployment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  exporter->add_option("name", export_name, "what to write (see `dede plugins`)");
  exporter->add_option("file", export_file, "output file (written through a temporary file)");
  exporter->add_option(
      "--set",
      overlays,
      "override a key of the deployment file (YAML value), e.g. solver.admm.rho=1e7; repeatable");

  dede::tools::ConvertOptions convert_options;
  auto* convert = app.add_subcommand(
      "convert",
      "convert a public GPU trace to a plugin's trace files; every adjustment is counted");
  convert->footer(dede::tools::ShapeHelp());
  convert
      ->add_option(
          "shape", convert_options.shape, "philly, gavel, dally, tiresias, helios or alibaba")
      ->required()
      ->check(CLI::IsMember({"philly", "gavel", "dally", "tiresias", "helios", "alibaba"}));
  convert
      ->add_option("input",
                   convert_options.input,
                   "the trace (CSV with a header; gavel: Gavel's .trace; dally: also "
                   "cluster-sim's JSON job list)")
      ->required()
      ->check(CLI::ExistingFile);
  convert->add_option("-o,--output-dir", convert_options.output_dir, "directory for the files")
      ->required();
  convert->add_option("--report", convert_options.report_json, "also write the summary as JSON");
  convert
      ->add_option("--throughputs",
                   convert_options.throughputs,
                   "philly: Gavel table job_type,num_gpus,gpu_type,steps_per_s")
      ->check(CLI::ExistingFile);
  convert->add_option("--gpus-per-type",
                      convert_options.gpus_per_type,
                      "philly: GPUs per worker type, e.g. v100=64,p100=32");
  convert
      ->add_option("--default-gpus-per-type",
                   convert_options.default_gpus_per_type,
                   "philly: GPUs of a type not in --gpus-per-type (counted as defaulted)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  convert->add_option("--vc", convert_options.vcs, "philly: keep only this VC; repeatable")
      ->allow_extra_args(false);
  convert
      ->add_option("--time-origin",
                   convert_options.time_origin,
                   "keep, first (earliest arrival -> 0) or auto (first for helios and alibaba)")
      ->check(CLI::IsMember({"keep", "first", "auto"}))
      ->capture_default_str();
  convert->add_option("--max-jobs", convert_options.max_jobs, "keep the first N arrivals (0: all)")
      ->check(kNonNegative);
  convert
      ->add_option("--work-model",
                   convert_options.work_model,
                   "gpu shapes: the plugin's workload.work_model the run times are written for")
      ->check(CLI::IsMember({"artist_linear", "trace_runtime"}))
      ->capture_default_str();
  convert
      ->add_option("--slowdowns",
                   convert_options.slowdowns,
                   "gpu shapes: slot,machine,rack slowdown factors in (0, 1] for rows without")
      ->delimiter(',')
      ->expected(3)
      ->check(CLI::Range(1e-9, 1.0));
  convert
      ->add_option("--nodes",
                   convert_options.nodes,
                   "gpu shapes: node list (node, num_gpu, rack, gpu_type) -> cluster.yaml")
      ->check(CLI::ExistingFile);

  // One value per occurrence (repeatable): the input file after them is not taken for a class.
  convert
      ->add_option(
          "--keep", convert_options.keep, "write the records of this class (see below); repeatable")
      ->allow_extra_args(false);
  convert
      ->add_option("--drop",
                   convert_options.drop,
                   "drop the records of this class, counted (see below); repeatable")
      ->allow_extra_args(false);

  auto* query = app.add_subcommand("query", "run read-only SQL on a deployment database");
  query->add_option("db", db_path, "SQLite database")->required()->check(CLI::ExistingFile);
  query->add_option("sql", sql, "SQL statement, or - to read it from standard input")->required();
  query->add_option("--time-limit", query_seconds, "seconds before the query is stopped")
      ->check(kPositive)
      ->capture_default_str();
  query->add_option("--format", format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  query
      ->add_option(
          "--max-memory-mib", query_memory_mib, "SQLite heap and result size limit, MiB (0: none)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();

  dede::tools::SubmitRequest submit_request;
  auto* submit = app.add_subcommand(
      "submit", "put an event into a deployment's inbox (applied at the start of its next round)");
  submit->add_option("db", submit_request.db_path, "SQLite database")
      ->required()
      ->check(CLI::ExistingFile);
  submit->add_option("kind", submit_request.kind, "event kind (see `dede plugins`)");
  submit->add_option("target", submit_request.target, "what the event is about (a link, a job)");
  submit->add_option("--json", submit_request.json, "payload: a JSON object")
      ->capture_default_str();
  submit->add_option("--file", submit_request.file, "events from a .json array or a .csv file")
      ->check(CLI::ExistingFile);
  submit->add_option("--deployment",
                     submit_request.deployment,
                     "deployment name (default: the database's only one)");
  submit
      ->add_option(
          "--from-round", submit_request.apply_from_round, "apply at the first round >= this")
      ->check(kNonNegative);
  submit->add_option("--after",
                     submit_request.apply_after,
                     "apply at the first round starting at or after this Unix time");
  submit->add_option("--writer", submit_request.writer, "who submits it (recorded)");
  submit->add_option("--id",
                     submit_request.id,
                     "idempotency key: a retry with the same key and content writes nothing");
  submit->add_flag("--allow-unknown-deployment",
                   submit_request.allow_unknown_deployment,
                   "accept a deployment the database does not hold yet (before its first run)");

  dede::tools::StorageRequest storage_request;
  CLI::App* storage = dede::tools::AddStorageCommand(&app, &storage_request);

  auto* plugins = app.add_subcommand("plugins", "list the plugins found and their versions");
  plugins->add_option("--path", plugin_paths, "extra plugin directory or .so file");

  auto* options = app.add_subcommand(
      "options", "print the deployment option reference (Markdown): the basic keys");
  bool all_options = false;
  options->add_flag("--all", all_options, "every key: the advanced ones and the deprecated too");
  std::string options_plugin;  // --plugin NAME: that plugin's settings reference instead
  options->add_option("--plugin", options_plugin, "the settings reference of this plugin");
  options->add_option("--path", plugin_paths, "extra plugin directory or .so file (--plugin)");

  auto* example =
      app.add_subcommand("example", "solve a synthetic transport LP with ADMM and exactly");
  example->add_option("--resources", spec.resources, "resources")
      ->check(kPositive)
      ->capture_default_str();
  example->add_option("--demands", spec.demands, "demands")
      ->check(kPositive)
      ->capture_default_str();
  example->add_option("--entries-per-demand", spec.entries_per_demand, "entries per demand")
      ->check(kPositive)
      ->capture_default_str();
  example->add_option("--seed", spec.seed, "generator seed")->capture_default_str();
  example->add_option("--threads", threads, "threads (0: all)")->check(kNonNegative);
  example->add_option("--time-limit", time_limit, "seconds per solver")->check(kPositive);
  example->add_flag("--verbose", verbose, "print the residual trace");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }

  if (run->parsed() || solve->parsed()) {
    dede::internal::LogLevel level = dede::internal::LogLevel::kWarn;
    if (run_verbose && run->count("--log-level") == 0) log_level = "debug";
    if (!quiet && !dede::internal::ParseLogLevel(log_level, &level)) return kExitUsage;
    g_solver_debug = level <= dede::internal::LogLevel::kDebug;
    verbose = verbose || g_solver_debug;
    // Under mpirun the other processes log only errors: their results are rank 0's.
    if (!dede::internal::mpi::IsRoot()) level = dede::internal::LogLevel::kError;
    dede::internal::SetUpProcessLog(level);
  }
  if (run->parsed()) return RunCommand(config_file, overlays, verbose, rounds, csv);
  if (solve->parsed()) return SolveCommand(config_file, overlays, verbose, round, csv);
  if (validate->parsed()) return ValidateCommand(config_file, overlays);
  if (exporter->parsed()) return ExportCommand(config_file, overlays, export_name, export_file);
  if (convert->parsed()) {
    dede::tools::ConvertReport report;
    Status s = dede::tools::Convert(convert_options, &report);
    if (!s.ok()) return Fail(s, kExitInvalidInput);
    report.Print(std::cout);
    return 0;
  }
  if (query->parsed()) {
    if (sql == "-") {
      std::ostringstream text;
      text << std::cin.rdbuf();
      sql = text.str();
    }
    // Ctrl-C stops a long query between virtual machine steps (the progress handler).
    std::signal(SIGINT, [](int) { g_query_cancel.store(true); });
    dede::internal::Store::QueryLimits limits;
    limits.seconds = query_seconds;
    limits.cancel = &g_query_cancel;
    limits.max_memory_bytes = static_cast<std::int64_t>(query_memory_mib) << 20;
    Status s = dede::tools::RunQuery(db_path, sql, format, std::cout, limits);
    return s.ok() ? 0
                  : Fail(s,
                         s.code() == dede::StatusCode::kCancelled ? kExitRunFailed
                                                                  : kExitInvalidInput);
  }
  if (storage->parsed()) {
    Status s = dede::tools::Storage(storage_request, std::cout);
    return s.ok() ? 0 : Fail(s, kExitInvalidInput);
  }
  if (submit->parsed()) {
    if (submit_request.file.empty() == submit_request.kind.empty()) {
      return Fail(dede::InvalidArgument("dede submit: give KIND [TARGET] or --file, not both"),
                  kExitUsage);
    }
    submit_request.apply_after_given = submit->count("--after") > 0;
    Status s = dede::tools::Submit(submit_request, std::cout);
    return s.ok() ? 0 : Fail(s, kExitInvalidInput);
  }
  if (plugins->parsed()) return PluginsCommand(plugin_paths);
  if (options->parsed() && !options_plugin.empty()) {
    auto reference = dede::tools::PluginSettingsReference(options_plugin, plugin_paths);
    if (!reference.ok()) return Fail(reference.status(), kExitInvalidInput);
    std::cout << reference.value();
    return 0;
  }
  if (options->parsed()) {
    std::cout << dede::tools::OptionsReference(all_options);
    if (all_options) {
      std::cout << "\nDeprecated keys (they load, with a warning):\n\n"
                << dede::tools::DeprecatedKeysReference();
    } else {
      std::cout << "\n(basic keys; `dede options --all` lists every key)\n";
    }
    return 0;
  }
  if (example->parsed()) return ExampleCommand(spec, threads, time_limit, verbose);
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // Under mpirun every process runs the same command; rank 0 alone prints and writes. The
  // processes agree on the exit code (the largest); a process that fails while the others do
  // not come to that agreement (they may be waiting for it) ends them all with its code.
  const dede::internal::mpi::World world(&argc, &argv);
  if (!dede::internal::mpi::IsRoot() && std::freopen("/dev/null", "w", stdout) == nullptr)
    return kExitRunFailed;
  const int code = Main(argc, argv);
  // Everything printed leaves first: mpirun ends the launch once a process exits non-zero.
  std::cout.flush();
  std::fflush(nullptr);
  return dede::internal::mpi::AgreeExitCode(code);
}
