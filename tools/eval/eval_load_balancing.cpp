// dede_eval, load balancing: DeDe (per thread count), dede-nokeep, exact (Cbc, time-limited),
// E-Store greedy and POP-4/16 (exact sub-problems) on the same rounds of shard loads. Every
// method carries its own placement from round to round (movements are counted against its
// own previous round), as in the published evaluation.
//
// Exact (Cbc on the full MILP, time-limited) solves the round on the first DeDe chain's
// current placement, so its quality reference is the optimum of the very problem DeDe solved
// (own chain only when dede is not among the methods).
//
// Instances ("size"):
//   small  tests/data/lb/shard_loads_256.csv, first 32 shards on 16 servers (memory 16), 5 rounds
//   medium the same file, 256 shards on 32 servers (the example's default), 20 rounds
//   paper  2,048 shards on 256 servers, 100 rounds, rounds 0-19 warm-up (note "warm-up"): loads
//          from ../shared/data/dede-examples/load_balancing/shard_loads_2048.csv, else generated
//          from tests/data/lb/random_nums.csv with the example's formula (identical values)
// Exact at paper size: the full MILP has 2 x 524,288 variables; Cbc is run on round 20 only,
// after the other methods, in a child process stopped at 1.5 x the time limit + 60 s (Cbc
// ignores its limit in the root LP);
// POP's sub-problems are solved
// with the DeDe path there (Cbc on 4 x 32,768 or 16 x 2,048 binaries per round x 100 rounds
// does not fit a run), with Cbc at the other sizes.
//
// value: movements (new placements). quality: exact / value at the same round (both 0: 1;
// exact 0 and value > 0: NaN, noted); reference "exact@<limit>s", or "none". Baselines other
// than dede run their own chains, so their quality compares different current placements.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dede/solver.h"
#include "eval.h"
#include "lb_core.h"
#include "lb_methods.h"
#include "lb_model.h"
#include "runtime/solver_services.h"

namespace dede::eval {
namespace {

using lb::Instance;
using lb::ServerSets;

struct SizeSpec {
  std::string instance;
  int servers = 8, shards = 32, memory = 8, rounds = 5, warmup = 0;
  bool exact_every_round = true;
  int exact_round = -1;              // paper: the only exact round
  std::string pop_solver = "exact";  // POP's sub-problems (paper: dede, Cbc is too slow there)
  std::vector<std::vector<double>> loads;
  std::string source;
};

Status Spec(const EvalOptions& options, SizeSpec* spec) {
  const std::string repo = options.repo_dir + "/tests/data/lb";
  if (options.size == "small" || options.size == "medium") {
    Status status = lb::LoadShardLoads(repo + "/shard_loads_256.csv", &spec->loads);
    if (!status.ok())
      return NotFound("load_balancing " + options.size + ": " + status.message() +
                      " (the shipped loads; is --repo-dir the source tree?)");
    spec->source = "tests/data/lb/shard_loads_256.csv";
    if (options.size == "small") {
      spec->servers = 16;
      spec->memory = 16;
      spec->instance = "16x32/example";
    } else {
      spec->servers = 32;
      spec->shards = 256;
      spec->memory = 16;
      spec->rounds = 20;
      spec->instance = "32x256/example";
    }
  } else if (options.size == "paper") {
    spec->servers = 256;
    spec->shards = 2048;
    spec->memory = 16;
    spec->rounds = 100;
    spec->warmup = 20;
    spec->exact_every_round = false;
    spec->exact_round = 20;
    spec->pop_solver = "dede";
    spec->instance = "256x2048/example";
    const std::string shared =
        options.shared_dir + "/dede-examples/load_balancing/shard_loads_2048.csv";
    if (std::filesystem::exists(shared) && lb::LoadShardLoads(shared, &spec->loads).ok()) {
      spec->source = shared;
    } else {
      std::vector<double> u;
      Status status = lb::LoadRandomNums(repo + "/random_nums.csv", &u);
      if (!status.ok())
        return NotFound("load_balancing paper: neither " + shared + " nor " + repo +
                        "/random_nums.csv is readable: " + status.message());
      spec->loads = lb::GenerateLoads(u, 2048);
      spec->source = "generated from tests/data/lb/random_nums.csv (" + shared + " missing)";
      std::fprintf(stderr, "load_balancing paper: %s\n", spec->source.c_str());
    }
  } else {
    return InvalidArgument("load_balancing: unknown size '" + options.size +
                           "' (small, medium, paper)");
  }
  if (options.rounds > 0) spec->rounds = options.rounds;
  spec->rounds = std::min<int>(spec->rounds, static_cast<int>(spec->loads.size()));
  for (auto& row : spec->loads) row.resize(spec->shards);
  return Status::Ok();
}

// The exact MILP in a child process with a wall-clock deadline: Cbc does not apply its time
// limit to the root LP, which at 2,048 x 256 did not finish in 32 minutes. The child writes
// "movements feasible seconds|note" to a pipe; past the deadline it is killed (by its pid).
struct ExactOutcome {
  bool answered = false;
  double movements = std::nan(""), seconds = 0;
  bool feasible = false;
  std::string note;
};
ExactOutcome ExactWithDeadline(const Instance& in,
                               const ServerSets& current,
                               const AdmmOptions& admm,
                               const ExactOptions& exact,
                               double deadline_seconds) {
  ExactOutcome out;
  int fds[2];
  if (pipe(fds) != 0) {
    out.note = "pipe failed";
    return out;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    out.note = "fork failed";
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    const SolverServices services = internal::MakeSolverServices(admm, exact);
    lb::MethodOptions unused;
    lb::MethodResult result;
    const Status status = lb::RunMethod("exact", in, current, {}, services, &unused, &result);
    std::string line;
    if (status.ok()) {
      const lb::Check c = lb::Evaluate(in, current, result.placement);
      char head[128];
      std::snprintf(
          head, sizeof(head), "%.17g %d %.17g|", c.movements, c.feasible ? 1 : 0, result.seconds);
      line = head + result.note;
    } else {
      line = "nan 0 0|" + status.message();
    }
    const ssize_t written = write(fds[1], line.data(), line.size());
    (void)written;
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  char buffer[4096];
  for (;;) {
    const double left =
        deadline_seconds -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0) break;
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min(left, 60.0) * 1000) + 1);
    if (ready < 0) break;
    if (ready == 0) continue;
    const ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n <= 0) {
      out.answered = !text.empty();
      break;
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (!out.answered) kill(pid, SIGKILL);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  if (!out.answered) {
    out.seconds = deadline_seconds;
    out.note = "no answer within " + std::to_string(static_cast<int>(deadline_seconds)) +
               " s wall (Cbc does not apply its time limit to the root LP); stopped";
    return out;
  }
  const std::size_t bar = text.find('|');
  int feasible = 0;
  std::sscanf(text.substr(0, bar).c_str(), "%lf %d %lf", &out.movements, &feasible, &out.seconds);
  out.feasible = feasible == 1;
  out.note = bar == std::string::npos ? "" : text.substr(bar + 1);
  return out;
}

std::string Num(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.4g", v);
  return buffer;
}

}  // namespace

Status RunLoadBalancing(const EvalOptions& options, const RowSink& sink) {
  SizeSpec spec;
  Status status = Spec(options, &spec);
  if (!status.ok()) return status;
  AdmmOptions admm;
  admm.time_limit_seconds = 5;
  ExactOptions exact_options;
  exact_options.time_limit_seconds = options.exact_time_limit;
  const std::string exact_ref = "exact@" + Num(options.exact_time_limit) + "s";

  // Method chains: name, threads; each carries its own placement and warm start.
  struct Chain {
    std::string method;
    int threads = 1;
    ServerSets current;
    lb::MethodOptions options;
  };
  std::vector<Chain> chains;
  const auto add_chain = [&](const std::string& method, int threads) {
    chains.emplace_back();
    chains.back().method = method;
    chains.back().threads = threads;
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  if (options.Wants("dede"))
    for (int t : options.threads) add_chain("dede", t == 0 ? static_cast<int>(hw) : t);
  for (const char* m : {"dede-nokeep", "greedy", "pop-4", "pop-16"})
    if (options.Wants(m)) add_chain(m, 1);
  const bool run_exact = options.Wants("exact");
  ServerSets exact_current = lb::InitialPlacement(spec.servers, spec.shards);
  for (Chain& c : chains) {
    c.current = lb::InitialPlacement(spec.servers, spec.shards);
    c.options.pop_solver = spec.pop_solver;
  }

  // Paper size: the exact round runs after all others, in a child process with a deadline.
  bool deferred = false;
  Instance deferred_in;
  ServerSets deferred_current;
  for (int r = 0; r < spec.rounds; ++r) {
    Instance in;
    in.servers = spec.servers;
    in.load = spec.loads[r];
    in.epsilon = 0.1;
    in.memory_limit = spec.memory;
    const std::string warm = r < spec.warmup ? "warm-up" : "";
    auto emit = [&](const std::string& method,
                    int threads,
                    const lb::Check& c,
                    double seconds,
                    double exact_value,
                    std::string note) {
      EvalRow row;
      row.domain = "load_balancing";
      row.objective = "movements";
      row.method = method;
      row.instance = spec.instance;
      row.round = r;
      row.threads = threads;
      row.value = c.movements;
      row.seconds = seconds;
      row.feasible = c.feasible;
      if (!std::isnan(exact_value)) {
        row.reference = exact_ref;
        if (exact_value > 0 && c.movements > 0)
          row.quality = exact_value / c.movements;
        else if (exact_value == 0 && c.movements == 0)
          row.quality = 1.0;
        else
          row.quality = std::nan("");  // exact 0, value > 0 (or an infeasible value of 0)
        if (exact_value == 0 && c.movements > 0)
          note += (note.empty() ? "" : "; ") + std::string("exact 0, quality undefined");
      } else {
        row.reference = "none";
      }
      if (!c.feasible) note += (note.empty() ? "" : "; ") + std::string("infeasible: ") + c.why;
      if (!warm.empty()) note = warm + (note.empty() ? "" : "; " + note);
      row.note = note;
      sink(row);
    };
    // Exact first (quality reference of the round).
    double exact_value = std::nan("");
    const bool exact_now = run_exact && (spec.exact_every_round || r == spec.exact_round);
    if (exact_now && !spec.exact_every_round) {
      deferred = true;
      deferred_in = in;
      deferred_current =
          !chains.empty() && chains[0].method == "dede" ? chains[0].current : exact_current;
    } else if (exact_now) {
      // On the first DeDe chain's current placement (the same problem DeDe solves this round,
      // so quality is a per-round optimality ratio); on its own chain when dede is not run.
      const bool on_dede = !chains.empty() && chains[0].method == "dede";
      ServerSets& cur = on_dede ? chains[0].current : exact_current;
      const SolverServices services = internal::MakeSolverServices(admm, exact_options);
      lb::MethodResult result;
      lb::MethodOptions unused;
      status = lb::RunMethod("exact", in, cur, {}, services, &unused, &result);
      if (!status.ok()) return status;
      const lb::Check c = lb::Evaluate(in, cur, result.placement);
      std::string note = result.note + (on_dede ? "; on dede's current placement" : "; own chain");
      if (note.find("converged") != std::string::npos && c.feasible)
        exact_value = c.movements;
      else
        note += "; not proven optimal, not used as reference";
      emit("exact", 1, c, result.seconds, exact_value, note);
      if (!on_dede) exact_current = result.placement.Servers();
    }
    for (Chain& chain : chains) {
      AdmmOptions a = admm;
      a.num_threads = chain.threads;
      const SolverServices services = internal::MakeSolverServices(a, exact_options);
      lb::MethodResult result;
      status =
          lb::RunMethod(chain.method, in, chain.current, {}, services, &chain.options, &result);
      lb::Check c;
      std::string note = result.note;
      if (!status.ok()) {
        c.why = status.message();
        note = "failed: " + status.message();
      } else {
        c = lb::Evaluate(in, chain.current, result.placement);
      }
      if (chain.method.rfind("pop", 0) == 0)
        note += "; slowest group " + Num(result.max_group_seconds) + " s";
      if (chain.method.rfind("dede", 0) == 0 && status.ok())
        note += (note.empty() ? "" : "; ") + std::string("ADMM ") +
                std::to_string(result.stats.admm_iterations) + " it, opened " +
                std::to_string(result.stats.opened) + ", added " +
                std::to_string(result.stats.added) + ", pruned " +
                std::to_string(result.stats.pruned);
      emit(chain.method, chain.threads, c, result.seconds, exact_value, note);
      if (status.ok()) chain.current = result.placement.Servers();
    }
  }
  if (deferred) {
    const double deadline = 1.5 * options.exact_time_limit + 60;
    const ExactOutcome e =
        ExactWithDeadline(deferred_in, deferred_current, admm, exact_options, deadline);
    EvalRow row;
    row.domain = "load_balancing";
    row.objective = "movements";
    row.method = "exact";
    row.instance = spec.instance;
    row.round = spec.exact_round;
    row.threads = 1;
    row.value = e.movements;
    row.seconds = e.seconds;
    row.feasible = e.answered && e.feasible;
    row.reference = "none";
    row.note = e.note + "; on dede's current placement of the round, run after the other methods";
    sink(row);
  }
  return Status::Ok();
}

}  // namespace dede::eval
