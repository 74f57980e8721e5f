// dede_bench admm: time per ADMM iteration on a synthetic separable LP (default ~1M entries),
// for 1 and N threads, measured in one run so the ratio is meaningful on a noisy machine.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "dede/solver.h"
#include "synthetic.h"

namespace {

struct Run {
  int threads = 0;
  double seconds = 0;
  int iterations = 0;
  double objective = 0;
  std::string termination;
};

Run TimeIterations(const dede::Problem& problem, int threads, int iterations, double rho) {
  dede::AdmmOptions options;
  options.num_threads = threads;
  options.max_iterations = iterations;
  options.check_termination_every = iterations;  // one residual check at the end
  options.rho_update = dede::RhoUpdate::kFixed;
  options.rho = rho;
  options.repair = false;
  dede::AdmmSolver solver(problem, options);
  dede::Allocation allocation;
  dede::SolveSummary summary;
  solver.Solve(&allocation, &summary);
  Run run;
  run.threads = threads;
  run.seconds = summary.resource_seconds + summary.demand_seconds;
  run.iterations = summary.iterations;
  run.objective = summary.objective;
  run.termination = dede::TerminationName(summary.termination);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dede benchmarks"};
  app.require_subcommand(1);
  dede::tools::SyntheticSpec spec;
  int iterations = 50;
  int max_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double rho = 1.0;
  bool quality = false;
  double exact_time_limit = 600;
  auto* admm = app.add_subcommand("admm", "time per ADMM iteration on a synthetic transport LP");
  admm->add_option("--resources", spec.resources, "resources (rows)")->capture_default_str();
  admm->add_option("--demands", spec.demands, "demands (columns)")->capture_default_str();
  admm->add_option("--entries-per-demand", spec.entries_per_demand, "entries per column")
      ->capture_default_str();
  admm->add_option("--seed", spec.seed, "generator seed")->capture_default_str();
  admm->add_option("--iterations", iterations, "ADMM iterations per timed run")->capture_default_str();
  admm->add_option("--threads", max_threads, "largest thread count (runs 1 and this)")
      ->capture_default_str();
  admm->add_option("--rho", rho, "fixed penalty")->capture_default_str();
  admm->add_flag("--quality", quality, "also solve to tolerance and compare with the exact LP");
  admm->add_option("--exact-time-limit", exact_time_limit, "seconds for the exact LP")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const auto t0 = std::chrono::steady_clock::now();
  const auto problem = dede::tools::MakeTransportLp(spec);
  const double build_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double entries = static_cast<double>(problem->num_variables());
  std::printf("instance: transport LP, %d resources x %d demands, %.0f entries, seed %llu "
              "(built in %.2f s)\n",
              spec.resources, spec.demands, entries, static_cast<unsigned long long>(spec.seed),
              build_s);
  std::printf("%8s %10s %14s %18s %12s\n", "threads", "iters", "s/iteration", "ns/entry/iter",
              "speed-up");
  double base = 0;
  for (int threads : {1, max_threads}) {
    if (threads == max_threads && max_threads == 1 && base > 0) break;
    const Run run = TimeIterations(*problem, threads, iterations, rho);
    const double per_iter = run.seconds / run.iterations;
    if (threads == 1) base = per_iter;
    std::printf("%8d %10d %14.4f %18.2f %12.2f\n", threads, run.iterations, per_iter,
                per_iter / entries * 1e9, base / per_iter);
    std::fflush(stdout);
  }
  if (quality) {
    dede::AdmmOptions options;
    options.num_threads = max_threads;
    options.eps_abs = 1e-5;
    options.eps_rel = 1e-4;
    dede::AdmmSolver solver(*problem, options);
    dede::Allocation allocation;
    dede::SolveSummary admm;
    solver.Solve(&allocation, &admm);
    std::printf("admm : %s\n", admm.BriefReport().c_str());
    dede::ExactOptions exact_options;
    exact_options.time_limit_seconds = exact_time_limit;
    dede::Allocation exact_allocation;
    dede::SolveSummary exact;
    dede::SolveExact(*problem, exact_options, &exact_allocation, &exact);
    std::printf("exact: %s\n", exact.BriefReport().c_str());
    if (exact.termination == dede::Termination::kConverged) {
      std::printf("quality: admm / exact objective = %.6f, time ratio exact / admm = %.2f\n",
                  admm.objective / exact.objective, exact.total_seconds / admm.total_seconds);
    }
  }
  return 0;
}
