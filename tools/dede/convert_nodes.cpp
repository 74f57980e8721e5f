// `dede convert ... --nodes FILE`: a node list -> the gpu_placement cluster (cluster.yaml).
// The plugin models racks of equal machines with equal GPU counts, per GPU type (`cluster` for
// one type, `gpu_types` for several). Nodes without GPUs are dropped and counted; anything else
// the plugin cannot represent (two GPU counts within a type, racks of unequal size) is an error
// naming the file, line, column and value.
#include <algorithm>
#include <fstream>
#include <map>

#include "convert.h"

namespace dede::tools {

Status ConvertNodes(const ConvertOptions& options, ConvertReport* report, int largest_job) {
  Result<CsvReader> opened = OpenInput(options.nodes);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  int c_node = 0, c_gpus = 0;
  Status status = RequireColumn(csv, {"node", "node_id", "machine", "sn", "name"}, &c_node);
  status.Update(RequireColumn(csv, {"num_gpu", "num_gpus", "gpu_num", "gpus"}, &c_gpus));
  if (!status.ok()) return status;
  const int c_rack = FindColumn(csv, {"rack", "switch", "rack_id"});
  const int c_type = FindColumn(csv, {"gpu_type", "gpu_model", "gpu_spec", "model"});
  struct Type {
    std::string name;
    int gpus = 0, line = 0;
    std::map<std::string, int> machines_per_rack;  // rack -> machines
    std::map<std::string, int> line_of_rack;
  };
  std::vector<Type> types;
  Adjustments& adj = report->adjustments;
  adj.Declare("dropped_nodes.no_gpu");
  while (csv.Next(&status)) {
    int gpus = 0;
    status.Update(csv.Read(c_gpus, &gpus, 0, 1024));
    if (!status.ok()) return status;
    const std::string at = At(csv);
    if (gpus == 0) {
      adj.Count("dropped_nodes.no_gpu", at + ": node '" + std::string(csv.Field(c_node)) + "'");
      continue;
    }
    const std::string name = c_type >= 0 && !csv.Field(c_type).empty()
                                 ? std::string(csv.Field(c_type))
                                 : std::string("gpu");
    auto it =
        std::find_if(types.begin(), types.end(), [&](const Type& t) { return t.name == name; });
    if (it == types.end()) {
      types.push_back({name, gpus, csv.line(), {}, {}});
      it = types.end() - 1;
    }
    if (it->gpus != gpus) {
      return csv.FieldError(
          c_gpus,
          "node '" + std::string(csv.Field(c_node)) + "' has " + std::to_string(gpus) +
              " GPUs of type '" + name + "', the node on line " + std::to_string(it->line) +
              " has " + std::to_string(it->gpus) +
              ": gpu_placement models one machine size per GPU type "
              "(gpus_per_machine); give the nodes distinct gpu_type names or drop them");
    }
    const std::string rack = c_rack >= 0 ? std::string(csv.Field(c_rack)) : std::string();
    it->line_of_rack.try_emplace(rack, csv.line());
    ++it->machines_per_rack[rack];
  }
  if (!status.ok()) return status;
  if (types.empty()) return InvalidArgument(options.nodes + ": no node with GPUs");
  std::string yaml = types.size() == 1 ? "cluster:" : "gpu_types:";
  int total_largest = 0;
  for (const Type& t : types) {
    const auto& [rack0, m0] = *t.machines_per_rack.begin();
    for (const auto& [rack, m] : t.machines_per_rack) {
      if (m != m0) {
        return InvalidArgument(options.nodes + ":" + std::to_string(t.line_of_rack.at(rack)) +
                               ": rack '" + rack + "' has " + std::to_string(m) +
                               " machines of type '" + t.name + "', rack '" + rack0 + "' has " +
                               std::to_string(m0) +
                               ": gpu_placement's racks are equal (machines_per_rack)");
      }
    }
    const int racks = static_cast<int>(t.machines_per_rack.size());
    const std::string shape = "racks: " + std::to_string(racks) +
                              ", machines_per_rack: " + std::to_string(m0) +
                              ", gpus_per_machine: " + std::to_string(t.gpus);
    yaml +=
        types.size() == 1 ? " {" + shape + "}\n" : "\n  - {name: " + t.name + ", " + shape + "}";
    total_largest = std::max(total_largest, racks * m0 * t.gpus);
  }
  if (types.size() > 1) yaml += "\n";
  if (largest_job > total_largest)
    adj.Count("jobs_larger_than_cluster",
              "a job asks for " + std::to_string(largest_job) + " GPUs, the largest GPU type has " +
                  std::to_string(total_largest) + " (it never runs)");
  const std::string path = options.output_dir + "/cluster.yaml";
  std::ofstream out(path);
  out << "# plugin.settings of gpu_placement, from " << options.nodes << "\n" << yaml;
  out.close();
  if (!out) return InvalidArgument(path + ": cannot write the file");
  report->outputs.push_back(path);
  return Status::Ok();
}

}  // namespace dede::tools
