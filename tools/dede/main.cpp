// dede: command-line entry point.
//   dede solve [--resources R --demands D --entries-per-demand K --seed S --threads T]
//     solves the bundled synthetic transport LP with ADMM and with the exact LP and prints both
//     summaries side by side (the main job until YAML deployments land).
#include <cstdio>
#include <thread>

#include <CLI/CLI.hpp>

#include "dede/solver.h"
#include "synthetic.h"

int main(int argc, char** argv) {
  CLI::App app{"dede: decouple-and-decompose resource allocation"};
  app.set_version_flag("--version", DEDE_VERSION);
  app.require_subcommand(1);

  dede::tools::SyntheticSpec spec;
  spec.resources = 200;
  spec.demands = 2000;
  spec.entries_per_demand = 20;
  int threads = 0;
  bool verbose = false;
  bool skip_exact = false;
  double time_limit = 60;
  auto* solve = app.add_subcommand("solve", "solve the bundled example with ADMM and exactly");
  solve->add_option("--resources", spec.resources, "resources (rows)")->check(CLI::PositiveNumber)
      ->capture_default_str();
  solve->add_option("--demands", spec.demands, "demands (columns)")->check(CLI::PositiveNumber)
      ->capture_default_str();
  solve->add_option("--entries-per-demand", spec.entries_per_demand, "entries per column")
      ->check(CLI::PositiveNumber)->capture_default_str();
  solve->add_option("--seed", spec.seed, "generator seed")->capture_default_str();
  solve->add_option("--threads", threads, "worker threads (0: all)")->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  solve->add_option("--time-limit", time_limit, "seconds per solver")->check(CLI::PositiveNumber)
      ->capture_default_str();
  solve->add_flag("--verbose", verbose, "print the residual trace");
  solve->add_flag("--no-exact", skip_exact, "skip the exact LP");
  CLI11_PARSE(app, argc, argv);

  const auto problem = dede::tools::MakeTransportLp(spec);
  std::printf("example: transport LP, %d resources x %d demands, %d entries\n", spec.resources,
              spec.demands, problem->num_variables());
  dede::AdmmOptions options;
  options.num_threads = threads;
  options.time_limit_seconds = time_limit;
  options.verbose = verbose;
  dede::AdmmSolver solver(*problem, options);
  dede::Allocation allocation;
  dede::SolveSummary admm;
  solver.Solve(&allocation, &admm);
  std::printf("%s\n", verbose ? admm.FullReport().c_str() : admm.BriefReport().c_str());
  int status = admm.IsSolutionUsable() ? 0 : 2;
  if (!skip_exact) {
    dede::ExactOptions exact_options;
    exact_options.time_limit_seconds = time_limit;
    dede::Allocation exact_allocation;
    dede::SolveSummary exact;
    dede::SolveExact(*problem, exact_options, &exact_allocation, &exact);
    std::printf("%s\n", exact.BriefReport().c_str());
    if (exact.termination == dede::Termination::kConverged && exact.objective != 0) {
      std::printf("admm objective / exact objective = %.6f\n", admm.objective / exact.objective);
    }
  }
  if (status != 0) std::fprintf(stderr, "dede: %s\n", admm.message.c_str());
  return status;
}
