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
};

// The MILP as a dede::Problem whose structure is fixed at Build: x[s,k] >= 0 the load of shard
// k served by server s (load units: sum_s x[s,k] = load_k), y[s,k] binary placement with
// x <= load_k y, band lo <= sum_k x[s,k] <= hi, sum_k y[s,k] <= memory_limit, minimise
// sum (1 - current) y. SetRound writes a round's loads, band and movement costs for a given
// current placement (right-hand sides, two-term rows and costs only).
class LbModel {
 public:
  // loads[round][shard], shards >= options.shards (the first options.shards are used).
  Status Build(const LbOptions& options, std::vector<std::vector<double>> loads, Problem* p);
  // Band rhs, load coefficients and movement costs (1 - current) of `round`. `current` must
  // only use candidate pairs.
  Status SetRound(int round, const ServerSets& current, Problem* p);
  int num_rounds() const { return static_cast<int>(loads_.size()); }
  // Shard `shard`'s load from `round` on (an inbox event): every later round's table entry.
  void SetLoadFrom(int round, int shard, double load) {
    for (std::size_t r = static_cast<std::size_t>(std::max(round, 0)); r < loads_.size(); ++r)
      loads_[r][shard] = load;
  }
  // The round set last, as plain data, and the servers each shard may use.
  Instance instance() const;
  const Allowed& allowed() const { return allowed_; }
  const ServerSets& current() const { return cur_; }
  const std::vector<double>& round_loads() const { return loads_[round_]; }
  const LbOptions& options() const { return opt_; }
  int x_entry(int s, int k) const;  // -1 if (s, k) is not a candidate pair
  int y_entry(int s, int k) const;

  // Allocation <-> placement: x = share * load, y = 1 where x > 0.
  Status ToAllocation(const Placement& placement, const Problem& p, Allocation* a) const;
  Placement ToPlacement(const Allocation& a) const;  // shares x / load > 1e-9, as they are
  // Repair of a solver's allocation: if it is not already a feasible integral placement,
  // its pairs with x > 1e-2 (else the shard's current servers) are repaired with
  // RepairPlacement (no pruning). Returns true if the result is feasible.
  bool Repair(const Problem& p, Allocation* a) const;
  Check Evaluate(const Allocation& a) const;

 private:
  LbOptions opt_;
  std::vector<std::vector<double>> loads_;
  std::vector<std::vector<int>> cand_;           // cand_[k]: candidate servers of shard k (sorted)
  Allowed allowed_;                              // empty when dense
  std::vector<std::vector<int>> xid_, yid_;      // [k][j] for cand_[k][j]
  std::vector<std::vector<ConstraintId>> link_;  // x - load_k y <= 0, [k][j]
  std::vector<ConstraintId> low_, high_, demand_;
  int round_ = 0;
  ServerSets cur_;
};

}  // namespace dede::lb
