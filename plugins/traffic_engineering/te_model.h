// The path formulation as a dede::Problem, shared by the plugin's main model and the baselines'
// sub-problems (POP-k groups, the demand-pinning LP). See README.md for the structure.
#pragma once

#include <utility>
#include <vector>

#include "dede/problem.h"
#include "dede/status.h"
#include "te_data.h"

namespace dede::te {

enum class Objective { kMaxTotalFlow, kMinMaxUtilization };

// One commodity of a model: an ordered pair (or a piece of one, POP's client splitting) with
// its paths and its volume in allocation units.
struct Commodity {
  int src = 0;
  int dst = 0;
  const std::vector<Path>* paths = nullptr;  // shortest first; not owned
  double demand = 0.0;
};

struct PathModel {
  Problem problem{0, 0};
  std::vector<std::vector<VarId>> flow;    // [commodity][path]: f_p
  std::vector<ConstraintId> demand_row;    // per commodity: sum_p f_p <= d (or = d)
  std::vector<ConstraintId> capacity_row;  // per link (max total flow; -1 if unused)
  std::vector<int> block;  // per commodity: its demand block (source node, or commodity index)
  // entries[b]: (link, x[e, b]) for the links on the paths of demand block b, increasing links.
  std::vector<std::vector<std::pair<int, VarId>>> entries;
};

// Resources = links, demands = source nodes (per-source grouping, the paper's) or, with
// `per_pair`, one demand block per commodity (smaller blocks, more entries); x[e, b] couples the
// path flows of block b through link e. `capacity` is per link in allocation units; `flow_cost` is
// the cost per unit of path flow for max total flow (so the objective is in data units).
// Min max utilisation needs capacity > 0 on every link that carries a path; the error names
// `where` (the topology file) and the link. An entry that carries the flow of a single path
// (every entry of a pair's edge-disjoint paths) is declared the image of that flow (an
// EntryImage) unless `coupling_rows`, which writes every coupling as a row (the model before
// images: the same problem, kept for tests that compare the two).
Status BuildPathModel(const Topology& topology,
                      const std::vector<double>& capacity,
                      const std::vector<Commodity>& commodities,
                      Objective objective,
                      double flow_cost,
                      const std::string& where,
                      PathModel* model,
                      bool per_pair = false,
                      bool coupling_rows = false);

// The compact path LP (the exact baseline's model): the path flows are the only variables besides
// U, with no allocation entries. One resource block (empty) and one demand block own everything:
//   locals f_p >= 0 (paths whose links are all up; a path through a failed link has bounds 0);
//   per commodity k: sum_{p in P(k)} f_p <= d_k (max total flow) or = d_k (min max util.);
//   max total flow: per used link e, sum_{p through e} f_p <= capacity[e]; maximise
//     flow_cost * sum_p f_p;
//   min max utilisation: a local U >= 0 and per used link e, sum_{p through e} f_p / c_e - U <= 0
//     with c_e = capacity[e] (> 0; `failed` links keep their nominal capacity here, their paths
//     are switched off by the bounds); minimise U.
// It has (paths + 1) columns and (commodities + used links) rows, against the entry model's
// extra column and row per (link, block). `failed` may be empty (no failures).
struct CompactModel {
  Problem problem{1, 1};
  std::vector<std::vector<VarId>> flow;  // [commodity][path]: f_p
  std::vector<ConstraintId> demand_row;  // per commodity
  std::vector<ConstraintId> link_row;    // per link (-1 if unused)
  VarId utilization = -1;                // U (min max utilisation)
};

Status BuildCompactModel(const Topology& topology,
                         const std::vector<double>& capacity,
                         const std::vector<char>& failed,
                         const std::vector<Commodity>& commodities,
                         Objective objective,
                         double flow_cost,
                         const std::string& where,
                         CompactModel* model);

// Per-link loads sum_{p through e} f_p of per-commodity path flows.
std::vector<double> PathLoads(const Topology& topology,
                              const std::vector<Commodity>& commodities,
                              const std::vector<std::vector<double>>& flows);

}  // namespace dede::te
