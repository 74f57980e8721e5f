// The traffic_engineering domain: path-based WAN traffic engineering as in the DeDe paper
// (section 5.2), with demands grouped per source node. See README.md in this directory.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dede/plugin.h"
#include "te_data.h"
#include "te_model.h"
#include "te_traffic.h"

namespace dede::te {

// Wall time since `since`, in seconds (the plugin's and the baselines' method timings).
inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// A scheduled change of a link's state: from `round` on, the link is failed (capacity 0) or
// back at its capacity.
struct LinkEvent {
  int round = 0;
  int link = 0;
  bool fail = true;
};

// A link event as configured, resolved against the topology in Describe.
struct RawLinkEvent {
  int round = 0;
  std::string link;  // "a->b" (node ids) or a link index
  bool fail = true;
  std::string where;  // "file:line:col: plugin.settings.link_events[i].link = '...'"
};

class TrafficEngineeringPlugin : public DomainPlugin {
 public:
  Status Configure(const ConfigNode& settings, const PluginContext& context) override;
  Status Describe(Problem* problem) override;
  Status Refresh(int round, Problem* problem, bool* finished) override;
  Status Repair(const Problem& problem, Allocation* allocation) override;
  // Repair caps every demand, scales each path by the worst overload on its links (max total
  // flow) or routes every demand in full (min max utilisation), and sets the entries to the
  // path loads: any allocation comes out feasible.
  bool RepairMakesFeasible() const override { return true; }
  Status Report(int round,
                const Problem& problem,
                const Allocation& allocation,
                RoundReport* report) override;
  // Baselines: "exact" (the compact path LP), "pop-4", "pop-16", "pop-64" (any "pop-<k>" is
  // accepted) and "demand_pinning".
  std::vector<MethodInfo> Methods() const override;
  std::vector<EventKind> EventKinds() const override;
  // Max total flow: the cold round from the greedy routing (solver.cold_start: repair) and the
  // allocation read from the capacity-feasible resource copy (solver.admm.final_iterate:
  // resource): at a tenth of Clp's time on Kdl 0.992 of the optimum against 0.979 without
  // (BENCHMARKS.md). Min max utilisation: none (the framework's defaults).
  std::vector<std::pair<std::string, std::string>> RecommendedSettings() const override;
  // `paths`: the model's paths in the path file format (te_export.cpp).
  std::vector<ExportInfo> Exports() const override;
  Status Export(const std::string& name, const std::string& file) override;
  Status ApplyEvent(int round, const Event& event, std::string* rejection) override;
  Status SolveWith(const std::string& method,
                   int round,
                   const Problem& problem,
                   const SolverServices& services,
                   Allocation* allocation,
                   SolveSummary* summary) override;

  // Inspection (tests, tools).
  const Topology& topology() const { return topology_; }
  const std::vector<std::string>& matrix_files() const { return matrix_files_; }
  Objective objective() const { return objective_; }
  int num_rounds() const { return num_rounds_; }
  int num_pairs() const { return static_cast<int>(pairs_.size()); }
  int num_paths_total() const { return static_cast<int>(path_var_.size()); }
  int num_paths(int pair) const { return static_cast<int>(pairs_[pair].paths.size()); }
  // Total flow sum_p f_p (data units) and the largest link load / capacity of an allocation
  // (capacity of this round: a failed link has capacity 0, so any load on it is infinite).
  // Allocation values are in multiples of flow_unit() (the largest capacity).
  double TotalFlow(const Allocation& allocation) const;
  double MaxLinkUtilization(const Allocation& allocation) const;
  double TotalDemand() const;  // this round, data units, after `scale`
  double flow_unit() const { return flow_unit_; }
  // Path cache (plugin.settings.path_cache): the file used, and how many pairs' paths came from
  // it or were computed in the last Describe.
  const std::string& path_cache_file() const { return path_cache_file_; }
  int paths_from_cache() const { return paths_from_cache_; }
  int paths_computed() const { return paths_computed_; }
  // This round's per-link loads (allocation units) and capacities (data units; 0 if failed).
  std::vector<double> LinkLoads(const Allocation& allocation) const;
  std::vector<double> LinkLoads(const std::vector<double>& values) const;
  const std::vector<double>& capacity() const { return capacity_; }
  // This round's demand per pair (data units), pairs in (src, dst) order.
  std::vector<DemandEntry> Demands() const;
  // Pins every path flow of the allocation to `flows` (per pair, per path; allocation units)
  // and sets the entries to the loads (tests, baselines).
  void SetPathFlows(const std::vector<std::vector<double>>& flows, Allocation* allocation) const;

 private:
  // Describe's steps.
  Status ResolveLinkEvents();
  Status WantedPairs(std::set<std::pair<int, int>>* wanted);
  Status BuildPairs(const std::set<std::pair<int, int>>& wanted);
  Status BuildModel(Problem* problem);
  struct PairModel {
    int src = 0, dst = 0;
    std::vector<Path> paths;
    std::vector<VarId> flow;  // f_p, one per path
    ConstraintId demand_row = -1;
    double demand = 0.0;  // this round, scaled, allocation units
  };
  // The demands of `round` (data units, before `scale`), by pair index: from the matrix file or
  // the generator (BaseDemands), then the robustness perturbations (RoundDemands).
  Status BaseDemands(int round, std::vector<double>* demands) const;
  Status RoundDemands(int round, std::vector<double>* demands) const;
  // This round: is every link of the path up; the first such path of the pair (-1: none).
  bool PathAlive(const Path& path) const;
  int FirstAlivePath(const PairModel& pair) const;
  // Entries x[e, s] := the loads of the path flows (the coupling rows then hold exactly).
  void SetEntriesFromPaths(Allocation* allocation) const;
  // Max total flow repair, after the overload scaling: unmet demand routed greedily on the
  // residual link capacity (setting repair_fill, default on).
  void FillResidual(std::vector<double>* values) const;
  // Min max utilisation repair, after every pair is rescaled to its volume: up to
  // `polish_sweeps` flow-deviation sweeps that lower the max utilisation (never raise it).
  void PolishUtilization(std::vector<double>* values) const;
  Status SolvePop(int k,
                  int round,
                  const Problem& problem,
                  const SolverServices& services,
                  Allocation* allocation,
                  SolveSummary* summary);
  // The compact path LP of the whole round (BuildCompactModel), solved by services.exact.
  Status SolveExactLp(const Problem& problem,
                      const SolverServices& services,
                      Allocation* allocation,
                      SolveSummary* summary);
  Status SolvePinning(const Problem& problem,
                      const SolverServices& services,
                      Allocation* allocation,
                      SolveSummary* summary);
  // Solves the compact path LP of `commodities` with `capacity` (allocation units) exactly,
  // within `time_limit` seconds (and the deployment's solver.exact.time_limit_seconds). A solve
  // stopped at its limit keeps its point when that is feasible (the primal simplex's iterate
  // is) and routes nothing otherwise (barrier's and the dual simplex's iterates are not); the
  // summary's message says which.
  Status SolveLp(const std::vector<Commodity>& commodities,
                 const std::vector<double>& capacity,
                 const SolverServices& services,
                 double time_limit,
                 std::vector<std::vector<double>>* flows,
                 SolveSummary* summary,
                 bool* routed_nothing = nullptr) const;
  // Fills summary fields of a baseline from the full problem and the merged allocation.
  void FinishSummary(const std::string& method,
                     const Problem& problem,
                     const Allocation& allocation,
                     SolveSummary* summary) const;

  // Settings.
  std::string topology_file_, paths_file_;
  TopologyOptions topology_options_;
  int num_paths_ = 4;
  std::vector<std::string> matrix_files_;
  std::string series_file_;  // traffic_series (empty: none)
  int series_first_row_ = 0, series_rows_ = -1;
  TrafficSeries series_;  // loaded in Describe
  TrafficSpec traffic_;   // when generated (traffic_.enabled)
  RobustnessSpec robustness_;
  std::vector<LinkEvent> link_events_;  // sorted by round
  // Inbox events (ApplyEvent), in the order applied; Refresh(r) folds those of rounds <= r
  // over the configured data, so a replay on resume rebuilds the same rounds.
  struct InboxEvent {
    enum class Kind { kLinkFail, kLinkRecover, kLinkCapacity, kDemand, kMatrix } kind;
    int round = 0;
    int link = -1;
    int pair = -1;
    double value = 0;
    std::vector<std::pair<int, double>> matrix;  // (pair, demand) of a whole matrix
  };
  std::vector<InboxEvent> inbox_;
  // "a->b" (node ids or names) or a link index; -1 if no such link.
  int ParseLinkTarget(const std::string& text) const;
  Objective objective_ = Objective::kMaxTotalFlow;
  double scale_ = 1.0;
  double pop_split_fraction_ = 0.0;
  double pinning_top_fraction_ = 0.1;
  bool record_paths_ = false;
  bool repair_fill_ = true;
  int polish_sweeps_ = 200;
  double polish_seconds_ = 0.0;    // 0: the sweeps alone bound the polish
  bool record_paths_set_ = false;  // otherwise: paths recorded when there are <= 20,000
  std::vector<RawLinkEvent> raw_events_;
  std::string path_cache_dir_, path_cache_file_;
  int paths_from_cache_ = 0, paths_computed_ = 0;
  std::uint64_t seed_ = 0;
  int num_rounds_ = 0;
  double flow_unit_ = 1.0;  // largest link capacity: the unit of every variable

  Topology topology_;
  std::vector<PairModel> pairs_;
  std::map<std::pair<int, int>, int> pair_index_;
  std::vector<std::pair<int, int>> generated_pairs_;  // pairs_ as (src, dst)
  bool per_pair_blocks_ = false;                      // demand_blocks: pair (else source)
  std::vector<int> block_of_pair_;                    // demand block of each pair
  int num_variables_ = 0;
  std::vector<VarId> path_var_;           // all f_p
  std::vector<const Path*> path_of_var_;  // parallel to path_var_
  std::vector<int> pair_of_var_;          // parallel to path_var_
  // entries_[s]: (link, x[e, s]) for the links used by source s.
  std::vector<std::vector<std::pair<int, VarId>>> entries_;
  std::vector<ConstraintId> capacity_row_;        // per link (max total flow), -1 if unused
  std::vector<std::vector<VarId>> link_entries_;  // per link: its entries x[e, s]
  // Path i loads the entries path_entry_[path_entry_begin_[i] .. path_entry_begin_[i + 1]).
  std::vector<std::size_t> path_entry_begin_;
  std::vector<VarId> path_entry_;
  std::vector<int> fill_order_;   // path indices, fewest hops first (FillResidual)
  std::vector<double> capacity_;  // this round, data units (0: failed)
  std::vector<char> failed_;      // this round
  // Per-pair standard deviation of consecutive changes (temporal fluctuation), data units.
  std::vector<double> change_sigma_;
};

}  // namespace dede::te
