// Loaders and path computation for the traffic-engineering plugin; see te_data.h.
#include "te_data.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/edmonds_karp_max_flow.hpp>
#include <nlohmann/json.hpp>

namespace dede::te {
namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

bool ParseInt(const std::string& text, long long* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

bool ParseDouble(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// Reads a CSV file with the expected header; rows come back with their 1-based line numbers.
Status ReadCsv(const std::string& file, const std::vector<std::string>& header,
               std::vector<std::pair<int, std::vector<std::string>>>* rows) {
  std::ifstream in(file);
  if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the file");
  std::string line;
  if (!std::getline(in, line)) return Invalid(file + ": empty file, expected a header line");
  std::vector<std::string> got = SplitCsvLine(Trim(line));
  for (std::string& g : got) g = Trim(g);
  if (got != header) {
    std::string want;
    for (const std::string& h : header) want += (want.empty() ? "" : ",") + h;
    return Invalid(file + ":1: header is '" + Trim(line) + "', expected '" + want + "'");
  }
  int line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    line = Trim(line);
    if (line.empty()) continue;
    std::vector<std::string> fields = SplitCsvLine(line);
    if (fields.size() != header.size()) {
      return Invalid(file + ":" + std::to_string(line_number) + ": " +
                     std::to_string(fields.size()) + " fields, expected " +
                     std::to_string(header.size()));
    }
    for (std::string& f : fields) f = Trim(f);
    rows->emplace_back(line_number, std::move(fields));
  }
  return Status::Ok();
}

std::string At(const std::string& file, int line, const std::string& field) {
  return file + ":" + std::to_string(line) + ": " + field;
}

Status ReadNode(const std::string& file, int line, const std::string& field,
                const std::string& text, const Topology& topology, int* index) {
  long long id = 0;
  if (!ParseInt(text, &id)) return Invalid(At(file, line, field) + " = '" + text + "' is not an integer");
  *index = topology.NodeIndex(id);
  if (*index < 0) return Invalid(At(file, line, field) + " = " + text + ": no such node in the topology");
  return Status::Ok();
}

}  // namespace

int Topology::NodeIndex(long long id) const {
  auto it = std::lower_bound(node_ids.begin(), node_ids.end(), id);
  if (it == node_ids.end() || *it != id) return -1;
  return static_cast<int>(it - node_ids.begin());
}

int Topology::LinkIndex(int src, int dst) const {
  for (int e = 0; e < static_cast<int>(links.size()); ++e) {
    if (links[e].src == src && links[e].dst == dst) return e;
  }
  return -1;
}

Result<Topology> LoadTopology(const std::string& file) {
  std::ifstream in(file);
  if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the topology file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return Invalid(file + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object()) return Invalid(file + ": expected a JSON object with 'nodes' and 'links'");
  for (const char* key : {"nodes", "links"}) {
    if (!doc.contains(key) || !doc[key].is_array()) {
      return Invalid(file + ": field '" + key + "' is missing or not an array");
    }
  }
  Topology topology;
  const nlohmann::json& nodes = doc["nodes"];
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = file + ": nodes[" + std::to_string(i) + "]";
    if (!nodes[i].is_object() || !nodes[i].contains("id") || !nodes[i]["id"].is_number_integer()) {
      return Invalid(where + ".id is missing or not an integer");
    }
    topology.node_ids.push_back(nodes[i]["id"].get<long long>());
  }
  std::sort(topology.node_ids.begin(), topology.node_ids.end());
  for (std::size_t i = 1; i < topology.node_ids.size(); ++i) {
    if (topology.node_ids[i] == topology.node_ids[i - 1]) {
      return Invalid(file + ": nodes: duplicate node id " + std::to_string(topology.node_ids[i]));
    }
  }
  const nlohmann::json& links = doc["links"];
  std::map<std::pair<int, int>, std::size_t> seen;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string where = file + ": links[" + std::to_string(i) + "]";
    const nlohmann::json& l = links[i];
    if (!l.is_object()) return Invalid(where + " is not an object");
    Link link;
    int* ends[2] = {&link.src, &link.dst};
    const char* names[2] = {"source", "target"};
    for (int k = 0; k < 2; ++k) {
      if (!l.contains(names[k]) || !l[names[k]].is_number_integer()) {
        return Invalid(where + "." + names[k] + " is missing or not an integer");
      }
      const long long id = l[names[k]].get<long long>();
      *ends[k] = topology.NodeIndex(id);
      if (*ends[k] < 0) {
        return Invalid(where + "." + names[k] + " = " + std::to_string(id) +
                       ": no such node in 'nodes'");
      }
    }
    if (!l.contains("capacity") || !l["capacity"].is_number()) {
      return Invalid(where + ".capacity is missing or not a number");
    }
    link.capacity = l["capacity"].get<double>();
    if (!std::isfinite(link.capacity) || link.capacity < 0) {
      std::ostringstream value;
      value << link.capacity;
      return Invalid(where + ".capacity = " + value.str() + ". Violated constraint: capacity >= 0");
    }
    if (link.src == link.dst) {
      return Invalid(where + ": self loop at node " + std::to_string(topology.node_ids[link.src]));
    }
    auto [it, inserted] = seen.emplace(std::make_pair(link.src, link.dst), i);
    if (!inserted) {
      return Invalid(where + ": duplicate link " + std::to_string(topology.node_ids[link.src]) +
                     " -> " + std::to_string(topology.node_ids[link.dst]) + " (also links[" +
                     std::to_string(it->second) + "])");
    }
    topology.links.push_back(link);
  }
  return topology;
}

Result<std::vector<DemandEntry>> LoadTrafficMatrix(const std::string& file,
                                                   const Topology& topology) {
  std::vector<std::pair<int, std::vector<std::string>>> rows;
  Status status = ReadCsv(file, {"src", "dst", "demand"}, &rows);
  if (!status.ok()) return status;
  std::vector<DemandEntry> entries;
  std::map<std::pair<int, int>, int> seen;
  for (const auto& [line, f] : rows) {
    DemandEntry entry;
    status = ReadNode(file, line, "src", f[0], topology, &entry.src);
    status.Update(ReadNode(file, line, "dst", f[1], topology, &entry.dst));
    if (!status.ok()) return status;
    if (!ParseDouble(f[2], &entry.demand) || !std::isfinite(entry.demand)) {
      return Invalid(At(file, line, "demand") + " = '" + f[2] + "' is not a number");
    }
    if (entry.demand < 0) {
      return Invalid(At(file, line, "demand") + " = " + f[2] + ". Violated constraint: demand >= 0");
    }
    auto [it, inserted] = seen.emplace(std::make_pair(entry.src, entry.dst), line);
    if (!inserted) {
      return Invalid(file + ":" + std::to_string(line) + ": duplicate pair " + f[0] + " -> " + f[1] +
                     " (also line " + std::to_string(it->second) + ")");
    }
    if (entry.demand == 0) continue;
    if (entry.src == entry.dst) {
      return Invalid(file + ":" + std::to_string(line) + ": positive demand from node " + f[0] +
                     " to itself");
    }
    entries.push_back(entry);
  }
  return entries;
}

Result<std::vector<PairPaths>> LoadPaths(const std::string& file, const Topology& topology) {
  std::vector<std::pair<int, std::vector<std::string>>> rows;
  Status status = ReadCsv(file, {"src", "dst", "path_idx", "hops", "nodes", "edge_ids"}, &rows);
  if (!status.ok()) return status;
  std::map<std::pair<int, int>, PairPaths> pairs;
  for (const auto& [line, f] : rows) {
    Path path;
    status = ReadNode(file, line, "src", f[0], topology, &path.src);
    status.Update(ReadNode(file, line, "dst", f[1], topology, &path.dst));
    if (!status.ok()) return status;
    long long index = 0, hops = 0;
    if (!ParseInt(f[2], &index)) return Invalid(At(file, line, "path_idx") + " = '" + f[2] + "' is not an integer");
    if (!ParseInt(f[3], &hops)) return Invalid(At(file, line, "hops") + " = '" + f[3] + "' is not an integer");
    std::istringstream node_list(f[4]);
    std::string token;
    while (node_list >> token) {
      int node = -1;
      status = ReadNode(file, line, "nodes", token, topology, &node);
      if (!status.ok()) return status;
      path.nodes.push_back(node);
    }
    if (path.nodes.size() < 2 || path.nodes.front() != path.src || path.nodes.back() != path.dst) {
      return Invalid(At(file, line, "nodes") + " = '" + f[4] + "' does not lead from src " + f[0] +
                     " to dst " + f[1]);
    }
    for (std::size_t i = 0; i + 1 < path.nodes.size(); ++i) {
      const int e = topology.LinkIndex(path.nodes[i], path.nodes[i + 1]);
      if (e < 0) {
        return Invalid(At(file, line, "nodes") + " = '" + f[4] + "': no link " +
                       std::to_string(topology.node_ids[path.nodes[i]]) + " -> " +
                       std::to_string(topology.node_ids[path.nodes[i + 1]]) + " in the topology");
      }
      path.links.push_back(e);
    }
    if (hops != path.hops()) {
      return Invalid(At(file, line, "hops") + " = " + f[3] + " but 'nodes' has " +
                     std::to_string(path.hops()) + " hops");
    }
    std::istringstream edge_list(f[5]);
    std::vector<int> edge_ids;
    long long edge = 0;
    while (edge_list >> token) {
      if (!ParseInt(token, &edge)) return Invalid(At(file, line, "edge_ids") + " = '" + f[5] + "' is not a list of integers");
      edge_ids.push_back(static_cast<int>(edge));
    }
    if (edge_ids != path.links) {
      return Invalid(At(file, line, "edge_ids") + " = '" + f[5] +
                     "' does not match the links of 'nodes' in topology order");
    }
    PairPaths& pair = pairs[{path.src, path.dst}];
    pair.src = path.src;
    pair.dst = path.dst;
    if (index != static_cast<long long>(pair.paths.size())) {
      return Invalid(At(file, line, "path_idx") + " = " + f[2] + ", expected " +
                     std::to_string(pair.paths.size()) + " (paths of a pair are numbered 0, 1, ...)");
    }
    pair.paths.push_back(std::move(path));
  }
  std::vector<PairPaths> out;
  out.reserve(pairs.size());
  for (auto& [key, pair] : pairs) out.push_back(std::move(pair));
  return out;
}

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, long,
                    boost::property<boost::edge_residual_capacity_t, long,
                                    boost::property<boost::edge_reverse_t,
                                                    Traits::edge_descriptor>>>>;

}  // namespace

std::vector<Path> EdgeDisjointMinHopPaths(const Topology& topology, int src, int dst, int k) {
  if (src == dst || k <= 0) return {};
  const int n = topology.num_nodes();
  const int num_links = static_cast<int>(topology.links.size());
  // Unit capacities: a maximum flow is a maximum set of edge-disjoint paths. Edmonds-Karp
  // augments along shortest residual paths and may cancel earlier choices, so it finds as many
  // paths as exist (a greedy "remove the used links" search may not) and, like networkx's
  // edge_disjoint_paths, balances their lengths.
  FlowGraph graph(n);
  auto capacity = boost::get(boost::edge_capacity, graph);
  auto reverse = boost::get(boost::edge_reverse, graph);
  auto residual = boost::get(boost::edge_residual_capacity, graph);
  std::vector<Traits::edge_descriptor> forward(num_links);
  for (int e = 0; e < num_links; ++e) {
    const Link& link = topology.links[e];
    forward[e] = boost::add_edge(link.src, link.dst, graph).first;
    const auto back = boost::add_edge(link.dst, link.src, graph).first;
    capacity[forward[e]] = 1;
    capacity[back] = 0;
    reverse[forward[e]] = back;
    reverse[back] = forward[e];
  }
  const long flow = boost::edmonds_karp_max_flow(graph, src, dst);
  // Decompose: follow unused flow-carrying links (in topology order) from src; a revisited
  // node closes a cycle, which is dropped.
  std::vector<std::vector<int>> out_flow(n);
  for (int e = 0; e < num_links; ++e) {
    if (capacity[forward[e]] - residual[forward[e]] > 0) {
      out_flow[topology.links[e].src].push_back(e);
    }
  }
  std::vector<std::size_t> next(n, 0);
  std::vector<Path> paths;
  for (long i = 0; i < flow; ++i) {
    Path path;
    path.src = src;
    path.dst = dst;
    path.nodes.push_back(src);
    int v = src;
    while (v != dst) {
      if (next[v] >= out_flow[v].size()) break;  // cannot happen for a valid flow
      const int e = out_flow[v][next[v]++];
      const int w = topology.links[e].dst;
      auto seen = std::find(path.nodes.begin(), path.nodes.end(), w);
      if (seen != path.nodes.end()) {  // cycle back to w: cut it out
        const auto keep = seen - path.nodes.begin();
        path.nodes.resize(keep + 1);
        path.links.resize(keep);
      } else {
        path.nodes.push_back(w);
        path.links.push_back(e);
      }
      v = w;
    }
    if (v != dst) break;
    paths.push_back(std::move(path));
  }
  std::stable_sort(paths.begin(), paths.end(),
                   [](const Path& a, const Path& b) { return a.hops() < b.hops(); });
  if (static_cast<int>(paths.size()) > k) paths.resize(k);
  return paths;
}

}  // namespace dede::te
