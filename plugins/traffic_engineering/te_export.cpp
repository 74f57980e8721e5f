// traffic_engineering's answers to the host beyond the round loop: its recommended solver
// settings and its exports (`dede export CONFIG paths FILE`: the model's paths, so that another
// solver or tool works on exactly the paths this deployment uses). See README.md.
#include <string>
#include <vector>

#include "te_plugin.h"

namespace dede::te {

std::vector<std::pair<std::string, std::string>> TrafficEngineeringPlugin::RecommendedSettings()
    const {
  if (objective_ != Objective::kMaxTotalFlow) return {};
  return {{"solver.cold_start", "repair"}, {"solver.admm.final_iterate", "resource"}};
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
  out.reserve(pairs_.size());
  for (const PairModel& pair : pairs_) {
    PairPaths p;
    p.src = pair.src;
    p.dst = pair.dst;
    p.paths = pair.paths;
    out.push_back(std::move(p));
  }
  return WritePaths(file, topology_, out);
}

}  // namespace dede::te
