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
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dede/host_solvers.h"
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

// A max-min demand block: the one-row block plus the block's row of the global term,
// sum_i w_i v_i - t >= 0, with t's own proximal term (the two_row solver's shape).
BlockProblem TwoRowBlock(int n, std::uint32_t seed) {
  BlockProblem p = OneRowBlock(n, seed);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<double> weight(0.1, 1500.0);
  p.lower.push_back(-1e30);
  p.upper.push_back(1e30);
  p.integral.push_back(0);
  p.linear.push_back(0.0);
  p.quadratic.push_back(0.0);
  p.prox_weight.push_back(1.0);
  p.prox_target.push_back(0.5 * n);
  BlockRow global;
  for (int i = 0; i < n; ++i) {
    global.index.push_back(i);
    global.coef.push_back(weight(rng));
  }
  global.index.push_back(n);
  global.coef.push_back(-1.0);
  global.sense = dede::Sense::kGreaterEqual;
  p.rows.push_back(global);
  return p;
}

// A per-pair path block: `paths` edge-disjoint paths of 5 links each; every link entry (prox)
// equals its path's flow, and the flows share the demand row (the aggregate solver's shape).
BlockProblem PathBlock(int paths, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  constexpr int kLinks = 5;
  const int n = paths * (1 + kLinks);
  BlockProblem p;
  p.lower.assign(n, 0.0);
  p.upper.assign(n, 1e30);
  p.integral.assign(n, 0);
  p.linear.assign(n, 0.0);
  p.quadratic.assign(n, 0.0);
  p.prox_weight.assign(n, 0.0);
  p.prox_target.assign(n, 0.0);
  BlockRow demand;
  for (int f = 0; f < paths; ++f) {
    p.linear[f] = -1.0;
    demand.index.push_back(f);
    demand.coef.push_back(1.0);
    for (int l = 0; l < kLinks; ++l) {
      const int x = paths + f * kLinks + l;
      p.prox_weight[x] = 1.0;
      p.prox_target[x] = unit(rng);
      p.rows.push_back({{x, f}, {1.0, -1.0}, dede::Sense::kEqual, 0.0});
    }
  }
  demand.rhs = 0.5 * paths;
  p.rows.push_back(demand);
  return p;
}

using BlockMaker = BlockProblem (*)(int, std::uint32_t);

void BlockSolverCold(benchmark::State& state, BlockMaker make, bool force_clp) {
  const BlockProblem p = make(static_cast<int>(state.range(0)), 7);
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

void BlockSolverWarm(benchmark::State& state, BlockMaker make, bool force_clp) {
  BlockProblem p = make(static_cast<int>(state.range(0)), 7);
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

void BM_BlockSolverOneRowFastCold(benchmark::State& s) { BlockSolverCold(s, OneRowBlock, false); }
void BM_BlockSolverOneRowClpCold(benchmark::State& s) { BlockSolverCold(s, OneRowBlock, true); }
void BM_BlockSolverOneRowFastWarm(benchmark::State& s) { BlockSolverWarm(s, OneRowBlock, false); }
void BM_BlockSolverOneRowClpWarm(benchmark::State& s) { BlockSolverWarm(s, OneRowBlock, true); }
void BM_BlockSolverTwoRowFastCold(benchmark::State& s) { BlockSolverCold(s, TwoRowBlock, false); }
void BM_BlockSolverTwoRowClpCold(benchmark::State& s) { BlockSolverCold(s, TwoRowBlock, true); }
void BM_BlockSolverTwoRowFastWarm(benchmark::State& s) { BlockSolverWarm(s, TwoRowBlock, false); }
void BM_BlockSolverTwoRowClpWarm(benchmark::State& s) { BlockSolverWarm(s, TwoRowBlock, true); }
void BM_BlockSolverPathFastWarm(benchmark::State& s) { BlockSolverWarm(s, PathBlock, false); }
void BM_BlockSolverPathClpWarm(benchmark::State& s) { BlockSolverWarm(s, PathBlock, true); }
BENCHMARK(BM_BlockSolverOneRowFastCold)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverOneRowClpCold)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverOneRowFastWarm)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverOneRowClpWarm)->Arg(200)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverTwoRowFastCold)->Arg(456)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverTwoRowClpCold)->Arg(456)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverTwoRowFastWarm)->Arg(456)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverTwoRowClpWarm)->Arg(456)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverPathFastWarm)->Arg(4)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlockSolverPathClpWarm)->Arg(4)->Unit(benchmark::kMicrosecond);

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
