// load_balancing: shard loads loader and the DeDe load-balancing model (servers x shards).
// See README.md in this directory.
#pragma once
#include <string>
#include <vector>

#include "dede/problem.h"
#include "dede/solver.h"
#include "dede/status.h"

namespace dede::lb {

// loads[round][shard] from a CSV with header `round,shard,load`. Rounds and shards must be
// dense (0..R-1, 0..K-1, every pair exactly once); loads finite and >= 0. Errors name the file,
// the line and the field.
Status LoadShardLoads(const std::string& path, std::vector<std::vector<double>>* loads);

struct LbOptions {
  int servers = 32;
  int shards = 256;
  double epsilon = 0.1;
  int memory_limit = 16;
  // Candidate servers per shard (the entries of its column): servers (k + j) mod S for
  // j = 0..n_k-1, so the initial server k mod S is always a candidate. Heavy shards get more,
  // enough to split their largest load within the band in every round (see Build).
  int candidates = 4;
};

// The model. Holds the shard loads of all rounds and the deterministic current placement.
class LbModel {
 public:
  // loads[round][shard], shards >= options.shards (the first options.shards are used).
  Status Build(const LbOptions& options, std::vector<std::vector<double>> loads, Problem* p);
  // Writes round's band rhs, load coefficients and movement costs (1 - cur) into *p. The
  // current placement of round r is the greedy policy replayed from the initial placement
  // (k mod S) over rounds 0..r-1 (see README.md): a function of the round only.
  Status SetRound(int round, Problem* p);
  int num_rounds() const { return static_cast<int>(loads_.size()); }
  // Greedy repair of a (fractional) allocation to a feasible placement for the current round:
  // columns normalised, load moved from servers above the band to candidates below it, y set
  // to x > 0. Returns true if the result satisfies every constraint.
  bool Repair(const Problem& p, Allocation* a) const;
  struct RoundMetrics {
    double movements = 0, max_load = 0, min_load = 0, low = 0, high = 0, max_shards = 0;
    bool feasible = false;
  };
  RoundMetrics Evaluate(const Problem& p, const Allocation& a) const;
  // Current placement (servers x shards, 0/1) of the round set last.
  const std::vector<std::vector<char>>& current() const { return cur_; }
  const std::vector<double>& round_loads() const { return loads_[round_]; }
  double average() const { return avg_; }
  const LbOptions& options() const { return opt_; }
  int x_entry(int s, int k) const;  // -1 if (s, k) is not a candidate pair
  int y_entry(int s, int k) const;

 private:
  // Fractions frac[s][k] -> feasible fractions (in place) for `load` and the avg of that round.
  bool GreedyFix(const std::vector<double>& load, std::vector<std::vector<double>>* frac,
                 const std::vector<std::vector<char>>& cur) const;
  LbOptions opt_;
  std::vector<std::vector<double>> loads_;
  std::vector<std::vector<int>> cand_;       // cand_[k]: candidate servers of shard k
  std::vector<std::vector<int>> xid_, yid_;  // [s][k] -> VarId or -1
  std::vector<ConstraintId> low_, high_, mem_, link_unused_, demand_;
  int round_ = 0;
  double avg_ = 0;
  std::vector<std::vector<char>> cur_;
  // Replay cache: placement after greedy of rounds < cached_round_.
  mutable int cached_round_ = -1;
  mutable std::vector<std::vector<char>> cached_;
};

}  // namespace dede::lb
