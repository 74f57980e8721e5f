// dede_micro: Google Benchmark micro-benchmarks of the engine's hot paths.
//
//   dede_micro                                   all of them
//   dede_micro --benchmark_filter=BlockSolver    one family
//
// - AdmmIteration: time per ADMM iteration on a synthetic transport LP, by thread count;
//   items/s is allocation entries processed per second (ns per entry = 1e9 / items_per_second).
// - BlockSolver: the fast exact block solvers (one-row projection; clip) against the Clp path
//   on the same block (force_clp), cold (a new solver per solve) and warm (re-solve after a
//   small change of the prox target, as between ADMM iterations).
// - StoreWriteRound: rows per second of a round's allocation written to SQLite.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "dede/solver.h"
#include "store/store.h"
#include "subproblem/block_problem.h"
#include "synthetic.h"

namespace {

using dede::internal::BlockProblem;
using dede::internal::BlockRow;
using dede::internal::BlockSolverOptions;
using dede::internal::BlockStatus;
using dede::internal::CreateBlockSolver;

void BM_AdmmIteration(benchmark::State& state) {
  dede::tools::SyntheticSpec spec;
  spec.resources = 500;
  spec.demands = 5000;
  spec.entries_per_demand = 40;  // 200k entries
  static const auto problem = dede::tools::MakeTransportLp(spec);
  constexpr int kIterations = 20;
  dede::AdmmOptions options;
  options.num_threads = static_cast<int>(state.range(0));
  options.max_iterations = kIterations;
  options.check_termination_every = kIterations;
  options.rho_update = dede::RhoUpdate::kFixed;
  options.repair = false;
  for (auto _ : state) {
    state.PauseTiming();
    dede::AdmmSolver solver(*problem, options);
    dede::Allocation allocation;
    dede::SolveSummary summary;
    state.ResumeTiming();
    solver.Solve(&allocation, &summary);
    benchmark::DoNotOptimize(summary.objective);
  }
  state.SetItemsProcessed(state.iterations() * kIterations * problem->num_variables());
  state.counters["entries"] = problem->num_variables();
}
BENCHMARK(BM_AdmmIteration)
    ->Arg(1)
    ->Arg(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One resource row over n variables in [0, 1] with prox terms: the block every per-resource
// subproblem of a capacity-constrained allocation reduces to.
BlockProblem OneRowBlock(int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  BlockProblem p;
  p.lower.assign(n, 0.0);
  p.upper.assign(n, 1.0);
  p.integral.assign(n, 0);
  p.linear.resize(n);
  p.quadratic.assign(n, 0.0);
  p.prox_weight.assign(n, 1.0);
  p.prox_target.resize(n);
  BlockRow row;
  for (int i = 0; i < n; ++i) {
    p.linear[i] = -0.5 * unit(rng);
    p.prox_target[i] = unit(rng);
    row.index.push_back(i);
    row.coef.push_back(0.5 + unit(rng));
  }
  row.rhs = 0.25 * n;
  p.rows.push_back(row);
  return p;
}

void BlockSolverCold(benchmark::State& state, bool force_clp) {
  const BlockProblem p = OneRowBlock(static_cast<int>(state.range(0)), 7);
  BlockSolverOptions options;
  options.force_clp = force_clp;
  std::vector<double> v(p.num_vars(), 0.0);
  std::string name;
  for (auto _ : state) {
    auto solver = CreateBlockSolver(p, options, nullptr);
    if (solver->Solve(p, &v) != BlockStatus::kOptimal) state.SkipWithError("not optimal");
    name = solver->name();
  }
  state.SetLabel(name);
}

void BlockSolverWarm(benchmark::State& state, bool force_clp) {
  BlockProblem p = OneRowBlock(static_cast<int>(state.range(0)), 7);
  const std::vector<double> target = p.prox_target;
  BlockSolverOptions options;
  options.force_clp = force_clp;
  std::vector<double> v(p.num_vars(), 0.0);
  auto solver = CreateBlockSolver(p, options, nullptr);
  solver->Solve(p, &v);
  int step = 0;
  for (auto _ : state) {
    ++step;
    for (int i = 0; i < p.num_vars(); ++i) p.prox_target[i] = target[i] + 1e-3 * (step % 7);
    if (solver->Solve(p, &v) != BlockStatus::kOptimal) state.SkipWithError("not optimal");
  }
  state.SetLabel(solver->name());
}

void BM_BlockSolverOneRowFastCold(benchmark::State& s) { BlockSolverCold(s, false); }
void BM_BlockSolverOneRowClpCold(benchmark::State& s) { BlockSolverCold(s, true); }
void BM_BlockSolverOneRowFastWarm(benchmark::State& s) { BlockSolverWarm(s, false); }
void BM_BlockSolverOneRowClpWarm(benchmark::State& s) { BlockSolverWarm(s, true); }
BENCHMARK(BM_BlockSolverOneRowFastCold)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverOneRowClpCold)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverOneRowFastWarm)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverOneRowClpWarm)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);

void BM_StoreWriteRound(benchmark::State& state) {
  dede::tools::SyntheticSpec spec;
  spec.resources = 200;
  spec.demands = 2000;
  spec.entries_per_demand = static_cast<int>(state.range(0)) / spec.demands;
  const auto problem = dede::tools::MakeTransportLp(spec);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("dede_micro_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  auto store = dede::internal::Store::Open(path.string());
  if (!store.ok()) {
    state.SkipWithError(store.status().message().c_str());
    return;
  }
  dede::internal::Store& db = *store.value();
  dede::internal::DeploymentRecord deployment{"micro", "bench", "0", "micro.yaml", "x: 1"};
  auto id = db.UpsertDeployment(deployment);
  if (!id.ok() || !db.WriteVariables(id.value(), *problem).ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  dede::internal::RoundRecord record;
  record.solver = "admm";
  record.summary.termination = dede::Termination::kConverged;
  record.summary.message = "ok";
  for (dede::VarId v = 0; v < problem->num_variables(); ++v) {
    record.allocation.emplace_back(v, 0.5 + 1e-6 * v);
  }
  int round = 0;
  for (auto _ : state) {
    record.round = round++;
    const dede::Status status = db.WriteRound(id.value(), record);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(record.allocation.size()));
  store.value().reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}
BENCHMARK(BM_StoreWriteRound)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
