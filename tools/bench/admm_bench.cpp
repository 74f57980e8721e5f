// dede_bench admm: time per ADMM iteration on a synthetic separable LP (default ~1M entries),
// for 1 and N threads, measured in one run so the ratio is meaningful on a noisy machine.
// dede_bench budget: whole rounds of the shipped deployments against the solver's time budget.
// dede_bench convergence: iterations and seconds to 1e-3 / 1e-4 of Clp's optimum on a fixed
// suite of deployments (tools/bench/convergence/), Clp's time beside them.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "budget_bench.h"
#include "convergence_bench.h"
#include "core/memory_use.h"
#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "synthetic.h"

namespace {

struct Run {
  int threads = 0;
  double seconds = 0;
  double resource_seconds = 0, demand_seconds = 0;
  int iterations = 0;
  double objective = 0;
  std::string termination;
  double engine_bytes = 0;        // heap in use with the solver built and solved, over the model
  std::uint64_t fingerprint = 0;  // FNV-1a of the allocation's bytes
};

// Changes to the engine that should not change its arithmetic keep this identical at a fixed
// iteration count (and thread count: the residual check's reduction is per block, so it is).
std::uint64_t Fingerprint(const std::vector<double>& values) {
  std::uint64_t h = 1469598103934665603ull;
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int k = 0; k < 8; ++k) {
      h ^= (bits >> (8 * k)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

using dede::internal::HeapInUseBytes;
using dede::internal::PeakRssBytes;

// STREAM's triad a = b + s c over arrays far larger than the caches, on `threads` threads
// (each its own contiguous part, first-touched by it); the best of a few repetitions, counting
// 24 bytes per element as STREAM does (a write-allocate cache moves 32).
double TriadBytesPerSecond(int threads) {
  const std::size_t n = std::size_t{1} << 24;  // 3 x 128 MiB
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  const auto run = [&](auto&& body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        body(begin, end);
      });
    }
    for (auto& th : pool) th.join();
  };
  run([&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
  });
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const double s = 0.5 + rep;
    const auto t0 = std::chrono::steady_clock::now();
    run([&](std::size_t begin, std::size_t end) {
      double* __restrict pa = a.get();
      const double* __restrict pb = b.get();
      const double* __restrict pc = c.get();
      for (std::size_t i = begin; i < end; ++i) pa[i] = pb[i] + s * pc[i];
    });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 24.0 * static_cast<double>(n) / seconds);
  }
  // Keep the result alive.
  if (a[n / 2] < 0) std::printf("%g\n", a[n / 2]);
  return best;
}

Run TimeIterations(const dede::Problem& problem,
                   int threads,
                   int iterations,
                   double rho,
                   dede::EntryCostSide cost_side) {
  dede::AdmmOptions options;
  options.entry_cost_side = cost_side;
  options.num_threads = threads;
  options.max_iterations = iterations;
  options.check_termination_every = iterations;  // one residual check at the end
  options.rho_update = dede::RhoUpdate::kFixed;
  options.rho = rho;
  options.repair = false;
  const double heap_before = HeapInUseBytes();
  dede::AdmmSolver solver(problem, options);
  dede::Allocation allocation;
  dede::SolveSummary summary;
  solver.Solve(&allocation, &summary);
  Run run;
  // The engine's own state: the returned allocation (one double per variable) is not part of it.
  run.engine_bytes = HeapInUseBytes() - heap_before -
                     static_cast<double>(allocation.values.capacity() * sizeof(double));
  run.fingerprint = Fingerprint(allocation.values);
  run.threads = threads;
  run.seconds = summary.resource_seconds + summary.demand_seconds;
  run.resource_seconds = summary.resource_seconds;
  run.demand_seconds = summary.demand_seconds;
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
  dede::EntryCostSide cost_side = dede::AdmmOptions().entry_cost_side;  // the engine's default
  double exact_time_limit = 600;
  auto* admm = app.add_subcommand("admm", "time per ADMM iteration on a synthetic transport LP");
  admm->add_option("--resources", spec.resources, "resources (rows)")->capture_default_str();
  admm->add_option("--demands", spec.demands, "demands (columns)")->capture_default_str();
  admm->add_option("--entries-per-demand", spec.entries_per_demand, "entries per column")
      ->capture_default_str();
  admm->add_option("--seed", spec.seed, "generator seed")->capture_default_str();
  admm->add_option("--iterations", iterations, "ADMM iterations per timed run")
      ->capture_default_str();
  admm->add_option("--threads", max_threads, "largest thread count (runs 1 and this)")
      ->capture_default_str();
  admm->add_option("--rho", rho, "fixed penalty")->capture_default_str();
  admm->add_option("--entry-cost-side", cost_side, "copy carrying each entry's linear cost")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, dede::EntryCostSide>{{"split", dede::EntryCostSide::kSplit},
                                                     {"resource", dede::EntryCostSide::kResource},
                                                     {"demand", dede::EntryCostSide::kDemand}}))
      ->default_str("resource");
  admm->add_flag("--quality", quality, "also solve to tolerance and compare with the exact LP");
  admm->add_option("--exact-time-limit", exact_time_limit, "seconds for the exact LP")
      ->capture_default_str();
  dede::tools::ConvergenceOptions conv;
  auto* convergence = app.add_subcommand(
      "convergence", "ADMM vs Clp to 1e-3 / 1e-4 of the optimum on a suite of deployments");
  convergence->add_option("deployments",
                          conv.deployments,
                          "deployment files (default: every tools/bench/convergence/*.yaml)");
  convergence->add_option("--round", conv.round, "plugin round to solve")->capture_default_str();
  convergence->add_option("--threads", conv.threads, "ADMM threads (0: all)")
      ->capture_default_str();
  convergence
      ->add_option(
          "--time-factor", conv.admm_time_factor, "ADMM budget: this many times Clp's time ...")
      ->capture_default_str();
  convergence->add_option("--min-seconds", conv.min_admm_seconds, "... but at least this")
      ->capture_default_str();
  convergence->add_option("--max-seconds", conv.max_admm_seconds, "... and at most this")
      ->capture_default_str();
  convergence->add_option("--check-every", conv.check_every, "iterations between trace points")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  convergence->add_option("--trace-csv", conv.trace_csv, "write every trace point here");
  convergence->add_option("--markdown", conv.markdown, "write the table here");
  convergence->add_flag("--verbose", conv.verbose, "print the ADMM residual trace");
  dede::tools::BudgetOptions budget;
  auto* budget_cmd = app.add_subcommand(
      "budget", "whole rounds against the solver's time budget on the shipped deployments");
  budget_cmd->add_option(
      "deployments", budget.deployments, "deployment files (default: every configs/*.yaml)");
  budget_cmd->add_option("--budget", budget.budget, "seconds: the solvers' time_limit_seconds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  budget_cmd->add_option("--rounds", budget.rounds, "rounds per deployment (round 0 is cold)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  budget_cmd->add_option("--set", budget.overlays, "a deployment key overridden (repeatable)");
  CLI11_PARSE(app, argc, argv);
  if (budget_cmd->parsed()) return dede::tools::RunBudget(budget);
  if (convergence->parsed()) {
    if (conv.deployments.empty()) {
      const std::filesystem::path dir =
          std::filesystem::path(DEDE_SOURCE_DIR) / "tools" / "bench" / "convergence";
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".yaml") conv.deployments.push_back(entry.path().string());
      }
      std::sort(conv.deployments.begin(), conv.deployments.end());
      if (conv.deployments.empty()) {
        std::fprintf(stderr, "dede_bench convergence: no deployments in %s\n", dir.c_str());
        return 1;
      }
    }
    return dede::tools::RunConvergence(conv);
  }

  const auto t0 = std::chrono::steady_clock::now();
  const double heap_start = HeapInUseBytes();
  const auto problem = dede::tools::MakeTransportLp(spec);
  const double model_bytes = HeapInUseBytes() - heap_start;
  const double build_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double entries = static_cast<double>(problem->num_variables());
  std::printf(
      "instance: transport LP, %d resources x %d demands, %.0f entries, seed %llu "
      "(built in %.2f s)\n",
      spec.resources,
      spec.demands,
      entries,
      static_cast<unsigned long long>(spec.seed),
      build_s);
  std::printf("model (dede::Problem): %.0f bytes per entry (heap in use)\n", model_bytes / entries);
  {
    // What the check that every process built the same problem costs a solve under mpirun.
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t digest = problem->Fingerprint();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("model digest %016llx: %.1f ms (%.2f ns per entry; once per solve under mpirun)\n",
                static_cast<unsigned long long>(digest),
                s * 1e3,
                s * 1e9 / entries);
  }
  std::printf("%8s %10s %14s %18s %12s %16s %14s %18s\n",
              "threads",
              "iters",
              "s/iteration",
              "ns/entry/iter",
              "speed-up",
              "engine B/entry",
              "engine GB/s",
              "allocation");
  double base = 0;
  std::vector<Run> runs;
  for (int threads : {1, max_threads}) {
    if (threads == max_threads && max_threads == 1 && base > 0) break;
    const Run run = TimeIterations(*problem, threads, iterations, rho, cost_side);
    const double per_iter = run.seconds / run.iterations;
    if (threads == 1) base = per_iter;
    // If every byte of the engine's state were read once per iteration: the bandwidth that
    // takes (an estimate: the solvers read parts twice, and block data stays in cache).
    std::printf("%8d %10d %14.4f %18.2f %12.2f %16.0f %14.2f %18llx\n",
                threads,
                run.iterations,
                per_iter,
                per_iter / entries * 1e9,
                base / per_iter,
                run.engine_bytes / entries,
                run.engine_bytes / per_iter / 1e9,
                static_cast<unsigned long long>(run.fingerprint));
    std::fflush(stdout);
    std::printf("%8s resource half step %.2f ns, demand half step %.2f ns per entry\n",
                "",
                run.resource_seconds / run.iterations / entries * 1e9,
                run.demand_seconds / run.iterations / entries * 1e9);
    runs.push_back(run);
  }
  const double peak_rss = PeakRssBytes();
  std::printf("peak RSS: %.0f MB (%.0f bytes per entry)\n", peak_rss / 1e6, peak_rss / entries);
  std::printf("%8s %18s\n", "threads", "triad GB/s");
  for (const Run& run : runs) {
    const double triad = TriadBytesPerSecond(run.threads);
    const double per_iter = run.seconds / run.iterations;
    std::printf("%8d %18.2f   (engine state per iteration / triad: %.0f%%)\n",
                run.threads,
                triad / 1e9,
                100.0 * run.engine_bytes / per_iter / triad);
  }
  if (quality) {
    dede::AdmmOptions options;
    options.num_threads = max_threads;
    options.entry_cost_side = cost_side;
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
                  admm.objective / exact.objective,
                  exact.total_seconds / admm.total_seconds);
    }
  }
  return 0;
}
