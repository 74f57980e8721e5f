// load_balancing core: one round of shard placement as plain data (no dede::Problem), the
// DeDe solve path (ADMM on the relaxation over servers and shards, rounding, exact flow
// repair) and the baselines (E-Store greedy, POP-k split). See README.md in this directory.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dede/problem.h"
#include "dede/solver.h"
#include "dede/status.h"

namespace dede::lb {

// One round: shard loads, the band and the memory limit (shards per server).
struct Instance {
  int servers = 0;
  std::vector<double> load;  // per shard, >= 0
  double epsilon = 0.1;
  int memory_limit = 16;

  int shards() const { return static_cast<int>(load.size()); }
  double Total() const;
  double Low() const { return (1 - epsilon) * Total() / servers; }
  double High() const { return (1 + epsilon) * Total() / servers; }
};

// servers[k]: the servers that hold a copy of shard k (sorted, unique).
using ServerSets = std::vector<std::vector<int>>;

// shares[k]: (server, fraction of shard k's load served there), fractions > 0 summing to 1.
struct Placement {
  std::vector<std::vector<std::pair<int, double>>> shares;
  ServerSets Servers() const;  // the placement carried to the next round: fraction > 0
};

// Shard k on server k mod S (the published example's initial placement).
ServerSets InitialPlacement(int servers, int shards);

// Allowed servers of shard k (new placements are only opened there); empty: every server.
using Allowed = std::vector<std::vector<int>>;

struct Check {
  double movements = 0;  // new placements: (s, k) placed now and not in the current placement
  double max_load = 0, min_load = 0, low = 0, high = 0;
  int max_shards = 0;     // placements on the fullest server
  bool feasible = false;  // band, memory, every shard fully placed (within 1e-6)
  std::string why;        // the first violated condition when not feasible
};
Check Evaluate(const Instance& instance, const ServerSets& current, const Placement& placement);

// ---- DeDe path --------------------------------------------------------------------------
// The host's ADMM (SolverServices::admm): starts warm from *allocation when it holds one value
// per variable.
using AdmmService =
    std::function<Status(const Problem&, const AdmmOptions&, Allocation*, SolveSummary*)>;

struct DedeOptions {
  // The continuous relaxation (a new pair costs its fraction) over the pairs of the current
  // placement plus candidate pairs crossing the min cut of the current placement's flow
  // network (see README.md), solved by the framework's ADMM through `admm`.
  bool use_admm = true;
  AdmmService admm;          // required when use_admm
  AdmmOptions admm_options;  // the deployment's solver.admm (threads, penalty rules)
  int max_iterations = 300;
  double rho = 1.0;
  double eps = 1e-3;               // primal/dual residual tolerance (per pair, rms)
  int candidates_per_shard = 8;    // least-loaded reachable servers per stuck shard
  int candidates_per_server = 16;  // hottest stuck shards per starved server
  double open_threshold = 0.02;    // a new pair is opened when its relaxed fraction exceeds this
  // Keep placements of the current round alive (a small positive share) when the server has
  // fewer than memory_limit - keep_reserve placements: later rounds then move less.
  bool keep_alive = true;
  int keep_reserve = 2;
  double time_limit_seconds = 5.0;
};

struct DedeStats {
  int admm_iterations = 0;
  double admm_seconds = 0, repair_seconds = 0, total_seconds = 0;
  int candidate_pairs = 0, opened = 0, added = 0, pruned = 0;
  bool current_feasible = false;  // the current placement already admitted a feasible split
  std::string message;
};

// A feasible placement (Evaluate(...).feasible) or an error when none was found.
Status SolveDede(const Instance& instance,
                 const ServerSets& current,
                 const Allowed& allowed,
                 const DedeOptions& options,
                 Placement* placement,
                 DedeStats* stats);

// ---- Repair and baselines ---------------------------------------------------------------
// Makes `start` (a set of placements, e.g. a heuristic's result) feasible: splits the load by
// a max flow over its pairs, opens pairs across the flow's min cut while it is infeasible
// (hottest stuck shard to the least-loaded starved server with memory room), and with
// `prune` removes opened pairs not in `current` that are not needed. Movements are counted
// against `current` by Evaluate.
Status RepairPlacement(const Instance& instance,
                       const ServerSets& current,
                       const ServerSets& start,
                       const Allowed& allowed,
                       bool prune,
                       bool keep_alive,
                       int keep_reserve,
                       Placement* placement,
                       int* added,
                       int* pruned);

// E-Store-style greedy (POP's heuristicBalance): one server per shard, the hottest shards of
// servers above avg + 5% move to the least-loaded server while they fit; then RepairPlacement
// (no pruning) so the result is feasible.
Status SolveGreedy(const Instance& instance,
                   const ServerSets& current,
                   const Allowed& allowed,
                   Placement* placement);

// POP-k: servers in k contiguous groups; shards split so that each group gets total / k of
// the load (shards already on a group's servers first, in ascending load; a shard may be
// split between groups); each group solved by `solve_group` (its own Instance with the
// partial loads, the current placement restricted to the group, local server indices); the
// results merged. Requires servers % k == 0.
using GroupSolver = std::function<Status(const Instance&, const ServerSets&, Placement*)>;
Status SolvePop(const Instance& instance,
                const ServerSets& current,
                int k,
                const GroupSolver& solve_group,
                Placement* placement);

}  // namespace dede::lb
