// `dede convert ... --nodes FILE`: a node list -> the gpu_placement cluster (cluster.yaml).
//
// The plugin models GPU pools (`gpu_types`), each of racks of equal machines with equal GPU
// counts; a job runs inside one pool. A real node list mixes machine sizes within a GPU type
// (Alibaba's v2023 list: V100M16 nodes of 1, 4 and 8 GPUs) and racks of unequal size, so the
// nodes of one type are grouped into pools of one machine size and one rack size: each pool is
// a `gpu_types` entry named after the type (plus "_<g>gpu" and "_<m>per_rack" where the type
// needed splitting), with the type's speed. What that cannot model: a job spanning machines of
// two sizes, or racks of two sizes, of one type (it runs within one of the pools). Every node
// placed in a split pool is counted (split_gpu_types), nodes without GPUs are dropped and
// counted; a job larger than every pool is counted (it never runs).
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "convert.h"

namespace dede::tools {
namespace {

struct Node {
  std::string type, rack;
  int gpus = 0, line = 0;
};

struct Pool {
  std::string type;
  int gpus = 0, machines_per_rack = 0, racks = 0, nodes = 0;
};

Status ReadNodes(const ConvertOptions& options, std::vector<Node>* nodes, Adjustments* adj) {
  Result<CsvReader> opened = OpenInput(options.nodes);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  int c_node = 0, c_gpus = 0;
  Status status = RequireColumn(csv, {"node", "node_id", "machine", "sn", "name"}, &c_node);
  status.Update(RequireColumn(csv, {"num_gpu", "num_gpus", "gpu_num", "gpus", "gpu"}, &c_gpus));
  if (!status.ok()) return status;
  const int c_rack = FindColumn(csv, {"rack", "switch", "rack_id"});
  const int c_type = FindColumn(csv, {"gpu_type", "gpu_model", "gpu_spec", "model"});
  adj->Declare("dropped_nodes.no_gpu");
  adj->Declare("split_gpu_types");
  while (csv.Next(&status)) {
    Node n;
    status.Update(csv.Read(c_gpus, &n.gpus, 0, 1024));
    if (!status.ok()) return status;
    if (n.gpus == 0) {
      adj->Count("dropped_nodes.no_gpu",
                 At(csv) + ": node '" + std::string(csv.Field(c_node)) + "'");
      continue;
    }
    n.type = c_type >= 0 && !csv.Field(c_type).empty() ? std::string(csv.Field(c_type)) : "gpu";
    n.rack = c_rack >= 0 ? std::string(csv.Field(c_rack)) : std::string();
    n.line = csv.line();
    nodes->push_back(n);
  }
  if (!status.ok()) return status;
  if (nodes->empty()) return InvalidArgument(options.nodes + ": no node with GPUs");
  return Status::Ok();
}

// Pools in order of first appearance of their type, then machine size, then rack size.
std::vector<Pool> GroupPools(const std::vector<Node>& nodes) {
  std::vector<std::string> types;
  for (const Node& n : nodes)
    if (std::find(types.begin(), types.end(), n.type) == types.end()) types.push_back(n.type);
  std::vector<Pool> pools;
  for (const std::string& type : types) {
    // (machine size, rack) -> machines; then racks grouped by their machine count.
    std::map<std::pair<int, std::string>, int> machines;
    for (const Node& n : nodes)
      if (n.type == type) ++machines[{n.gpus, n.rack}];
    std::map<std::pair<int, int>, int> racks;  // (gpus, machines per rack) -> racks
    for (const auto& [key, m] : machines) ++racks[{key.first, m}];
    for (auto it = racks.rbegin(); it != racks.rend(); ++it) {  // largest machines first
      const auto& [key, r] = *it;
      pools.push_back({type, key.first, key.second, r, key.second * r});
    }
  }
  return pools;
}

std::string PoolName(const Pool& p, const std::vector<Pool>& pools) {
  std::set<int> sizes;  // machine sizes of the type
  int same_size = 0;
  for (const Pool& q : pools) {
    if (q.type == p.type) sizes.insert(q.gpus);
    same_size += q.type == p.type && q.gpus == p.gpus;
  }
  std::string name = p.type;
  if (sizes.size() > 1) name.append("_").append(std::to_string(p.gpus)).append("gpu");
  if (same_size > 1)
    name.append("_").append(std::to_string(p.machines_per_rack)).append("per_rack");
  return name;
}

}  // namespace

Status ConvertNodes(const ConvertOptions& options, ConvertReport* report, int largest_job) {
  Adjustments& adj = report->adjustments;
  std::vector<Node> nodes;
  if (Status s = ReadNodes(options, &nodes, &adj); !s.ok()) return s;
  const std::vector<Pool> pools = GroupPools(nodes);
  std::string yaml = pools.size() == 1 ? "cluster:" : "gpu_types:";
  int largest_pool = 0;
  for (const Pool& p : pools) {
    const std::string name = PoolName(p, pools);
    if (name != p.type)
      adj.Count("split_gpu_types",
                "type '" + p.type + "': " + std::to_string(p.nodes) + " node(s) of " +
                    std::to_string(p.gpus) + " GPUs -> pool " + name,
                p.nodes);
    const std::string shape = "racks: " + std::to_string(p.racks) +
                              ", machines_per_rack: " + std::to_string(p.machines_per_rack) +
                              ", gpus_per_machine: " + std::to_string(p.gpus);
    yaml += pools.size() == 1 ? " {" + shape + "}\n" : "\n  - {name: " + name + ", " + shape + "}";
    largest_pool = std::max(largest_pool, p.racks * p.machines_per_rack * p.gpus);
  }
  if (pools.size() > 1) yaml += "\n";
  if (largest_job > largest_pool)
    adj.Count("jobs_larger_than_cluster",
              "a job asks for " + std::to_string(largest_job) + " GPUs, the largest GPU pool has " +
                  std::to_string(largest_pool) + " (it never runs)");
  if (pools.size() > 1)
    report->notes.push_back(
        "cluster.yaml: " + std::to_string(pools.size()) +
        " GPU pools; a job runs within one pool (it cannot span machines of two sizes or two "
        "types)");
  const std::string path = options.output_dir + "/cluster.yaml";
  std::ofstream out(path);
  out << "# plugin.settings of gpu_placement, from " << options.nodes << "\n" << yaml;
  out.close();
  if (!out) return InvalidArgument(path + ": cannot write the file");
  report->outputs.push_back(path);
  return Status::Ok();
}

}  // namespace dede::tools
