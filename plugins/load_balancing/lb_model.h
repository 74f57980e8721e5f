// load_balancing: shard loads loader and the MILP as a dede::Problem (servers x shards).
// See README.md in this directory.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "dede/problem.h"
#include "dede/solver.h"
#include "dede/status.h"
#include "lb_core.h"

namespace dede::lb {

// loads[round][shard] from a CSV with header `round,shard,load`. Rounds and shards must be
// dense (0..R-1, 0..K-1, every pair exactly once); loads finite and >= 0. Errors name the file,
// the line and the field.
Status LoadShardLoads(const std::string& path, std::vector<std::vector<double>>* loads);

// The published example's loads: round r has Zipf exponent 0.25 + 0.5 u_r and
// load_k = round(1e6 / (k * 1024 / K + 1)^(0.25 + 0.5 u_r)) / 1e4 (shard 0 always 100).
std::vector<std::vector<double>> GenerateLoads(const std::vector<double>& u, int shards);
// u_r from a CSV `round,random_num` (the example's 100 constants), or `rounds` uniform [0, 1)
// draws of std::mt19937_64(seed).
Status LoadRandomNums(const std::string& path, std::vector<double>* u);
std::vector<double> SeededRandomNums(int rounds, unsigned long long seed);

struct LbOptions {
  int servers = 32;
  int shards = 256;
  double epsilon = 0.1;
  int memory_limit = 16;
  // Candidate servers per shard (the entries of its column in the Problem). 0: every server
  // (the full MILP, 2 S K entries). Otherwise servers (k + j) mod S for j = 0..n_k-1, so the
  // initial server k mod S is always a candidate; heavy shards get more, enough to split
  // their largest load within the band in every round (see Build).
  int candidates = 0;
  // Servers offline from round 0 on (spares that a server_up event brings in). Build checks
  // them (CheckUp) and names them in its errors as `down_servers_key` (the plugin: its file
  // and key).
  std::vector<int> down_servers;
  std::string down_servers_key = "load_balancing: down_servers";
};

// A server going down (drained) or coming up from round `round` on (an inbox event).
struct ServerChange {
  int round = 0;
  int server = 0;
  bool up = false;
};

// The MILP as a dede::Problem whose structure is fixed at Build: x[s,k] >= 0 the load of shard
// k served by server s (load units: sum_s x[s,k] = load_k), y[s,k] binary placement with
// x <= load_k y, band lo <= sum_k x[s,k] <= hi, sum_k y[s,k] <= memory_limit, minimise
// sum (1 - current) y. SetRound writes a round's loads, band and movement costs for a given
// current placement (right-hand sides, two-term rows and costs only).
//
// Servers that are down in a round (LbOptions::down_servers, then the ServerChanges in order)
// keep their rows with right-hand sides 0 (band and memory), so nothing can be placed there,
// and the band average is over the up servers. The plugin's methods (lb_core, plain data with
// servers 0..S-1) get a compacted view instead: instance() has the up servers only, renumbered
// 0..up-1 in increasing global order (local indices); local_current() and local_allowed() are
// in local indices (pairs on down servers dropped: placing such a shard again is a movement);
// ToGlobal() maps a method's placement back.
class LbModel {
 public:
  // loads[round][shard], shards >= options.shards (the first options.shards are used).
  Status Build(const LbOptions& options, std::vector<std::vector<double>> loads, Problem* p);
  // Band rhs, load coefficients and movement costs (1 - current) of `round`, and the servers
  // up in it. `current` must only use candidate pairs (it may use down servers: a placement
  // from before a drain).
  Status SetRound(int round, const ServerSets& current, Problem* p);
  // Shard k on its first up candidate (k + j) mod S, j = 0, 1, ... (k mod S if it is up), with
  // the servers up at the start (down_servers, no events).
  ServerSets InitialPlacement() const;
  int num_rounds() const { return static_cast<int>(loads_.size()); }
  // Shard `shard`'s load from `round` on (an inbox event): every later round's table entry.
  void SetLoadFrom(int round, int shard, double load) {
    for (std::size_t r = static_cast<std::size_t>(std::max(round, 0)); r < loads_.size(); ++r)
      loads_[r][shard] = load;
  }
  // Server availability. up[s] in round `round`: down_servers, then the changes of rounds <=
  // `round` in the order they were made.
  std::vector<char> UpAt(int round) const;
  // The first reason why an up-set cannot hold the shards ("" if it can): no server up,
  // memory_limit * up < shards, a shard without an up candidate server (candidates > 0).
  std::string CheckUp(const std::vector<char>& up) const;
  // Server `server` down (up = false) or up from `round` on. Returns "" when recorded, else
  // why not (state unchanged): already down / up, or CheckUp of the result. Changes come in
  // round order (the runner's), a change is checked against the up-set of its round.
  std::string ChangeServer(int round, int server, bool up);
  const std::vector<ServerChange>& server_changes() const { return changes_; }

  // The round set last, as plain data over its up servers (local indices, see above), and the
  // servers each shard may use.
  Instance instance() const;
  const Allowed& allowed() const { return allowed_; }
  const ServerSets& current() const { return cur_; }  // global indices
  const ServerSets& local_current() const { return local_cur_; }
  const Allowed& local_allowed() const { return local_allowed_; }
  const std::vector<int>& up_servers() const { return up_; }  // global ids, ascending
  bool is_up(int s) const { return local_of_[s] >= 0; }
  Placement ToGlobal(const Placement& local) const;
  const std::vector<double>& round_loads() const { return loads_[round_]; }
  const LbOptions& options() const { return opt_; }
  int x_entry(int s, int k) const;  // -1 if (s, k) is not a candidate pair
  int y_entry(int s, int k) const;

  // Allocation <-> placement: x = share * load, y = 1 where x > 0.
  Status ToAllocation(const Placement& placement, const Problem& p, Allocation* a) const;
  Placement ToPlacement(const Allocation& a) const;  // shares x / load > 1e-9, as they are
  // Repair of a solver's allocation: if it is not already a feasible integral placement,
  // its pairs with x > 1e-2 on up servers (else the shard's current up servers, else its
  // first up candidate) are repaired with RepairPlacement (no pruning) on the up servers.
  // Returns true if the result is feasible.
  bool Repair(const Problem& p, Allocation* a) const;
  // Evaluate() of the allocation's placement on the up servers; a share (or y = 1) on a down
  // server makes it infeasible ("shard k placed on server s, which is down").
  Check Evaluate(const Allocation& a) const;

 private:
  LbOptions opt_;
  std::vector<std::vector<double>> loads_;
  std::vector<std::vector<int>> cand_;           // cand_[k]: candidate servers of shard k (sorted)
  Allowed allowed_;                              // empty when dense
  std::vector<std::vector<int>> xid_, yid_;      // [k][j] for cand_[k][j]
  std::vector<std::vector<ConstraintId>> link_;  // x - load_k y <= 0, [k][j]
  std::vector<ConstraintId> low_, high_, memory_, demand_;
  int round_ = 0;
  ServerSets cur_;
  std::vector<ServerChange> changes_;  // in round order
  std::vector<int> up_, local_of_;     // of the round set last: global ids; global -> local or -1
  ServerSets local_cur_;
  Allowed local_allowed_;
};

}  // namespace dede::lb
