// traffic_engineering's answers to the host beyond the round loop: its recommended solver
// settings and its exports (`dede export CONFIG paths FILE`: the model's paths, so that another
// solver or tool works on exactly the paths this deployment uses). See README.md.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dede/config_node.h"
#include "te_plugin.h"

namespace dede::te {

std::vector<std::pair<std::string, std::string>> TrafficEngineeringPlugin::RecommendedSettings()
    const {
  if (settings_.objective != Objective::kMaxTotalFlow) return {};
  std::vector<std::pair<std::string, std::string>> out = {
      {"solver.cold_start", "repair"}, {"solver.admm.final_iterate", "resource"}};
  // rho from the flows' scale. The penalty is in objective units per squared flow (flows in
  // units of the largest capacity), so a fixed rho is right for one network's demands only
  // (1e7 suits Kdl's 5% of its pairs, mean demand 7.7e-4 capacities, and held Uninett2010,
  // Deltacom and UsCarrier, 0.006-0.015, at 0.86-0.93 of the optimum in a tenth of Clp's
  // time). 5 / d^2 for the mean demand d of the round-0 pairs gave 0.992-0.9999 on those three
  // (BENCHMARKS.md, te-zoo) and 8.4e6 on Kdl (0.994).
  std::vector<double> demands;
  if (!net_.pairs.empty() && net_.flow_unit > 0 && RoundDemands(0, &demands).ok()) {
    double sum = 0;
    int count = 0;
    for (double d : demands) {
      if (!(d > 0)) continue;
      sum += d * settings_.scale / net_.flow_unit;
      ++count;
    }
    if (count > 0 && sum > 0 && std::isfinite(sum)) {
      const double mean = sum / count;
      out.push_back({"solver.admm.rho", FormatNumber(std::clamp(5.0 / (mean * mean), 1e-3, 1e12))});
    }
  }
  return out;
}

std::vector<ExportInfo> TrafficEngineeringPlugin::Exports() const {
  return {{"paths",
           "every modelled pair's paths, pairs by (src, dst) node index, paths in the model's "
           "order: CSV src,dst,path_idx,hops,nodes,edge_ids (the paths / path_cache format)"}};
}

Status TrafficEngineeringPlugin::Export(const std::string& name, const std::string& file) {
  if (name != "paths")
    return InvalidArgument("traffic_engineering has no export '" + name + "' (exports: paths)");
  std::vector<PairPaths> out;
  out.reserve(net_.pairs.size());
  for (const PairModel& pair : net_.pairs) {
    PairPaths p;
    p.src = pair.src;
    p.dst = pair.dst;
    p.paths = pair.paths;
    out.push_back(std::move(p));
  }
  return WritePaths(file, net_.topology, out);
}

}  // namespace dede::te
