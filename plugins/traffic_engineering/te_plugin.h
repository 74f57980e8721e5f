// The traffic_engineering domain: path-based WAN traffic engineering as in the DeDe paper
// (section 5.2), a demand block per pair (or per source node, as the paper: demand_blocks). See
// README.md in this directory.
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
#include "te_network.h"
#include "te_settings.h"
#include "te_traffic.h"

namespace dede::te {

// Wall time since `since`, in seconds (the plugin's and the baselines' method timings).
inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Composes three parts: its settings (TeSettings, read by Configure from the section the host
// checked against TeSettingsTable()), the network model Describe builds (TeNetwork) and the
// round state Refresh and ApplyEvent change (TeRoundState).
class TrafficEngineeringPlugin : public DomainPlugin {
 public:
  const SettingsTable* Settings() const override { return &TeSettingsTable(); }
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
  const Topology& topology() const { return net_.topology; }
  const std::vector<std::string>& matrix_files() const { return settings_.matrix_files; }
  Objective objective() const { return settings_.objective; }
  int num_rounds() const { return settings_.num_rounds; }
  int num_pairs() const { return static_cast<int>(net_.pairs.size()); }
  int num_paths_total() const { return static_cast<int>(net_.path_var.size()); }
  int num_paths(int pair) const { return static_cast<int>(net_.pairs[pair].paths.size()); }
  // Total flow sum_p f_p (data units) and the largest link load / capacity of an allocation
  // (capacity of this round: a failed link has capacity 0, so any load on it is infinite).
  // Allocation values are in multiples of flow_unit() (the largest capacity).
  double TotalFlow(const Allocation& allocation) const;
  double MaxLinkUtilization(const Allocation& allocation) const;
  double TotalDemand() const;  // this round, data units, after `scale`
  double flow_unit() const { return net_.flow_unit; }
  // Path cache (plugin.settings.path_cache): the file used, and how many pairs' paths came from
  // it or were computed in the last Describe.
  const std::string& path_cache_file() const { return net_.path_cache_file; }
  int paths_from_cache() const { return net_.paths_from_cache; }
  int paths_computed() const { return net_.paths_computed; }
  // This round's per-link loads (allocation units) and capacities (data units; 0 if failed).
  std::vector<double> LinkLoads(const Allocation& allocation) const;
  std::vector<double> LinkLoads(const std::vector<double>& values) const;
  const std::vector<double>& capacity() const { return round_.capacity; }
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
  // Per pair, a zero flow per path; this round's link capacities in allocation units, split
  // into `parts` (POP's parts).
  std::vector<std::vector<double>> ZeroPathFlows() const;
  std::vector<double> CapacityInUnits(int parts) const;
  // Fills summary fields of a baseline from the full problem and the merged allocation.
  void FinishSummary(const std::string& method,
                     const Problem& problem,
                     const Allocation& allocation,
                     SolveSummary* summary) const;

  // "a->b" (node ids or names) or a link index; -1 if no such link.
  int ParseLinkTarget(const std::string& text) const;

  TeSettings settings_;  // Configure
  TeNetwork net_;        // Describe
  TeRoundState round_;   // Refresh, ApplyEvent
};

}  // namespace dede::te
