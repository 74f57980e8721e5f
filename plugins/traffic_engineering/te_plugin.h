// The traffic_engineering domain: path-based WAN traffic engineering as in the DeDe paper
// (section 5.2), with demands grouped per source node. See README.md in this directory.
#pragma once

#include <string>
#include <vector>

#include "dede/plugin.h"
#include "te_data.h"

namespace dede::te {

enum class Objective { kMaxTotalFlow, kMinMaxUtilization };

class TrafficEngineeringPlugin : public DomainPlugin {
 public:
  Status Configure(const ConfigNode& settings, const PluginContext& context) override;
  Status Describe(Problem* problem) override;
  Status Refresh(int round, Problem* problem, bool* finished) override;
  Status Repair(const Problem& problem, Allocation* allocation) override;
  Status Report(int round,
                const Problem& problem,
                const Allocation& allocation,
                RoundReport* report) override;

  // Inspection (tests, tools).
  const Topology& topology() const { return topology_; }
  const std::vector<std::string>& matrix_files() const { return matrix_files_; }
  int num_paths_total() const { return static_cast<int>(path_var_.size()); }
  // Total flow sum_p f_p (data units) and the largest link load / capacity of an allocation.
  // Allocation values are in multiples of flow_unit() (the largest capacity).
  double TotalFlow(const Allocation& allocation) const;
  double MaxLinkUtilization(const Allocation& allocation) const;
  double TotalDemand() const;  // this round, data units, after `scale`
  double flow_unit() const { return flow_unit_; }

 private:
  struct PairModel {
    int src = 0, dst = 0;
    std::vector<Path> paths;
    std::vector<VarId> flow;  // f_p, one per path
    ConstraintId demand_row = -1;
    double demand = 0.0;  // this round, scaled
  };
  std::vector<double> LinkLoads(const Allocation& allocation) const;

  // Settings.
  std::string topology_file_, paths_file_;
  int num_paths_ = 4;
  std::vector<std::string> matrix_files_;
  Objective objective_ = Objective::kMaxTotalFlow;
  double scale_ = 1.0;
  double flow_unit_ = 1.0;  // largest link capacity: the unit of every variable

  Topology topology_;
  std::vector<PairModel> pairs_;
  std::vector<VarId> path_var_;           // all f_p
  std::vector<const Path*> path_of_var_;  // parallel to path_var_
  // entries_[s]: (link, x[e, s]) for the links used by source s.
  std::vector<std::vector<std::pair<int, VarId>>> entries_;
};

}  // namespace dede::te
