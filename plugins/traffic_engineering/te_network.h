// The traffic_engineering plugin's network model and round state: two of the three parts the
// plugin composes (te_plugin.h; the third is its settings, te_settings.h). The network model is
// built once by Describe (topology, pairs and their paths, the Problem's variables and rows);
// the round state is what Refresh and ApplyEvent change (link capacities and failures, the
// inbox's events).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dede/problem.h"
#include "te_data.h"
#include "te_traffic.h"

namespace dede::te {

// A scheduled change of a link's state: from `round` on, the link is failed (capacity 0) or
// back at its capacity.
struct LinkEvent {
  int round = 0;
  int link = 0;
  bool fail = true;
};

// One (source, destination) pair with a demand in some round, its paths and their variables.
struct PairModel {
  int src = 0, dst = 0;
  std::vector<Path> paths;
  std::vector<VarId> flow;  // f_p, one per path
  ConstraintId demand_row = -1;
  double demand = 0.0;  // this round, scaled, allocation units (set by Refresh)
};

// Built by Describe; fixed afterwards (the structure of the Problem).
struct TeNetwork {
  Topology topology;
  TrafficSeries series;                // traffic_series, loaded with the topology
  std::vector<LinkEvent> link_events;  // the configured ones, resolved, sorted by round
  std::vector<PairModel> pairs;
  std::map<std::pair<int, int>, int> pair_index;
  std::vector<std::pair<int, int>> generated_pairs;  // pairs as (src, dst) (generator)
  std::vector<int> block_of_pair;                    // demand block of each pair
  int num_variables = 0;
  std::vector<VarId> path_var;           // all f_p
  std::vector<const Path*> path_of_var;  // parallel to path_var
  std::vector<int> pair_of_var;          // parallel to path_var
  // entries[s]: (link, x[e, s]) for the links used by demand block s.
  std::vector<std::vector<std::pair<int, VarId>>> entries;
  std::vector<ConstraintId> capacity_row;        // per link (max total flow), -1 if unused
  std::vector<std::vector<VarId>> link_entries;  // per link: its entries x[e, s]
  // Path i loads the entries path_entry[path_entry_begin[i] .. path_entry_begin[i + 1]).
  std::vector<std::size_t> path_entry_begin;
  std::vector<VarId> path_entry;
  std::vector<int> fill_order;  // path indices, fewest hops first (FillResidual)
  double flow_unit = 1.0;       // largest link capacity: the unit of every variable
  bool record_paths = false;    // record_paths, or automatic (<= 20,000 paths)
  // Path cache: the file used, and how many pairs' paths came from it or were computed.
  std::string path_cache_file;
  int paths_from_cache = 0, paths_computed = 0;
  // Per-pair standard deviation of consecutive changes (temporal fluctuation), data units.
  std::vector<double> change_sigma;
};

// An inbox event as applied (ApplyEvent), folded over the configured data by Refresh.
struct InboxEvent {
  enum class Kind { kLinkFail, kLinkRecover, kLinkCapacity, kDemand, kMatrix } kind;
  int round = 0;
  int link = -1;
  int pair = -1;
  double value = 0;
  std::vector<std::pair<int, double>> matrix;  // (pair, demand) of a whole matrix
};

// What a round changes: a function of the round number and the inbox's events only.
struct TeRoundState {
  // Inbox events in the order applied; Refresh(r) folds those of rounds <= r over the
  // configured data, so a replay on resume rebuilds the same rounds.
  std::vector<InboxEvent> inbox;
  std::vector<double> capacity;  // this round, data units (0: failed)
  std::vector<char> failed;      // this round
};

}  // namespace dede::te
