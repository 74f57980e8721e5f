// Loaders and path computation for the traffic-engineering plugin; see te_data.h.
#include "te_data.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "dede/csv.h"
#include "te_text.h"

namespace dede::te {
namespace {

using text::Invalid;

// The node `text` names (an id where the topology's ids are integers, else a name), or why not.
bool FindNode(std::string_view text, const Topology& topology, int* index, std::string* why) {
  if (topology.integer_ids) {
    std::int64_t id = 0;
    if (!ParseInteger(text, &id)) {
      *why = "'";
      why->append(text).append("' is not a node id (the topology's ids are integers)");
      return false;
    }
    *index = topology.NodeIndex(id);
  } else {
    *index = topology.NodeIndexByName(std::string(text));
  }
  if (*index >= 0) return true;
  *why = "'";
  why->append(text).append("' is not a node of the topology");
  return false;
}

Status ReadNode(const CsvReader& csv, int column, const Topology& topology, int* index) {
  std::string why;
  if (FindNode(csv.Field(column), topology, index, &why)) return Status::Ok();
  return csv.FieldError(column, why);
}

}  // namespace

namespace {

Status CheckLargestDemand(const std::string& file, double largest_demand, double scale) {
  if (largest_demand * scale <= kMaxDemand) return Status::Ok();
  char text[160];
  std::snprintf(text,
                sizeof(text),
                "a demand of %.6g times plugin.settings.scale = %.6g is %.6g",
                largest_demand,
                scale,
                largest_demand * scale);
  return Invalid(file + ": " + text +
                 ", above 1e15 (the largest demand, also for a `demand` event); lower the scale");
}

}  // namespace

Status CheckScaledDemand(const std::string& file,
                         const std::vector<DemandEntry>& matrix,
                         double scale) {
  double largest = 0;
  for (const DemandEntry& entry : matrix) largest = std::max(largest, entry.demand);
  return CheckLargestDemand(file, largest, scale);
}

Status CheckScaledDemand(const std::string& file,
                         const std::vector<std::vector<double>>& series,
                         double scale) {
  double largest = 0;
  for (const std::vector<double>& row : series) {
    for (double demand : row) largest = std::max(largest, demand);
  }
  return CheckLargestDemand(file, largest, scale);
}

Result<std::vector<DemandEntry>> LoadTrafficMatrix(const std::string& file,
                                                   const Topology& topology) {
  {
    std::ifstream in(file);
    std::string first;
    if (in && std::getline(in, first) && first.find("SNDlib native format") != std::string::npos) {
      return LoadSndlibDemands(file, topology);
    }
  }
  Result<CsvReader> opened = CsvReader::OpenWithHeader(file, {"src", "dst", "demand"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  std::vector<DemandEntry> entries;
  std::map<std::pair<int, int>, int> seen;
  while (csv.Next(&status)) {
    DemandEntry entry;
    status.Update(ReadNode(csv, 0, topology, &entry.src));
    status.Update(ReadNode(csv, 1, topology, &entry.dst));
    status.Update(csv.Read(2, &entry.demand, 0.0, kMaxDemand));
    if (!status.ok()) return status;
    const std::string pair = std::string(csv.Field(0)) + " -> " + std::string(csv.Field(1));
    auto [it, inserted] = seen.emplace(std::make_pair(entry.src, entry.dst), csv.line());
    if (!inserted) {
      return csv.RecordError("duplicate pair " + pair + " (also line " +
                             std::to_string(it->second) + ")");
    }
    if (entry.demand == 0) continue;
    if (entry.src == entry.dst) {
      return csv.RecordError("positive demand from node " + std::string(csv.Field(0)) +
                             " to itself");
    }
    entries.push_back(entry);
  }
  if (!status.ok()) return status;
  return entries;
}

namespace {

// The pair a series column names: SRC>DST or SRC->DST.
Status ReadSeriesPair(
    const CsvReader& csv, int column, const Topology& topology, int* src, int* dst) {
  const std::string& name = csv.header()[column];
  const std::string where = csv.name() + ":" + std::to_string(csv.header_line()) + ": column " +
                            std::to_string(column + 1) + " '" + name + "'";
  std::size_t split = name.find("->");
  std::size_t width = 2;
  if (split == std::string::npos) {
    split = name.find('>');
    width = 1;
  }
  if (split == std::string::npos || split == 0 || split + width >= name.size()) {
    return Invalid(where + ": expected SRC>DST (or SRC->DST)");
  }
  std::string why;
  if (!FindNode(std::string_view(name).substr(0, split), topology, src, &why)) {
    return Invalid(where + ": source " + why);
  }
  if (!FindNode(std::string_view(name).substr(split + width), topology, dst, &why)) {
    return Invalid(where + ": target " + why);
  }
  if (*src == *dst) return Invalid(where + ": a pair from a node to itself");
  return Status::Ok();
}

}  // namespace

Result<TrafficSeries> LoadTrafficSeries(const std::string& file,
                                        const Topology& topology,
                                        int first_row,
                                        int rows) {
  // Ragged: rows outside [first_row, first_row + rows) are not checked (a long series may
  // have a malformed row where it is not used).
  Result<CsvReader> opened = CsvReader::Open(file, {.ragged = true});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  const int columns = static_cast<int>(csv.header().size());
  if (columns < 2) {
    return Invalid(file + ":" + std::to_string(csv.header_line()) + ": header has " +
                   std::to_string(columns) +
                   " columns, expected a label column then one column per pair (SRC>DST)");
  }
  TrafficSeries series;
  std::map<std::pair<int, int>, int> seen;
  for (int c = 1; c < columns; ++c) {
    int src = -1, dst = -1;
    Status status = ReadSeriesPair(csv, c, topology, &src, &dst);
    if (!status.ok()) return status;
    const auto [it, inserted] = seen.emplace(std::make_pair(src, dst), c);
    if (!inserted) {
      return Invalid(file + ":" + std::to_string(csv.header_line()) + ": column " +
                     std::to_string(c + 1) + " '" + csv.header()[c] +
                     "': the pair is also column " + std::to_string(it->second + 1));
    }
    series.pairs.emplace_back(src, dst);
  }
  Status status;
  int data_row = -1;
  while (csv.Next(&status)) {
    ++data_row;
    if (data_row < first_row) continue;
    if (rows >= 0 && data_row >= first_row + rows) break;
    if (csv.size() != columns) {
      return csv.RecordError(std::to_string(csv.size()) + " fields, expected " +
                             std::to_string(columns) + " (the header's columns)");
    }
    std::vector<double> demand(series.pairs.size());
    for (int c = 1; c < columns; ++c) {
      status = csv.Read(c, &demand[c - 1], 0.0, kMaxDemand);
      if (!status.ok()) return status;
    }
    series.labels.emplace_back(csv.Field(0));
    series.demand.push_back(std::move(demand));
  }
  if (!status.ok()) return status;
  if (series.demand.empty()) {
    return Invalid(file + ": no data rows from row " + std::to_string(first_row) +
                   " (the file has " + std::to_string(data_row + 1) + ")");
  }
  if (rows >= 0 && static_cast<int>(series.demand.size()) < rows) {
    return Invalid(file + ": " + std::to_string(rows) + " rows asked from row " +
                   std::to_string(first_row) + ", the file has " +
                   std::to_string(series.demand.size()) + " from there");
  }
  return series;
}

namespace {

// Columns of a path file.
enum PathColumn { kSrc, kDst, kPathIdx, kHops, kNodes, kEdgeIds };

// One row of a path file: its nodes lead from src to dst over links of the topology, in
// `hops` hops, and edge_ids are those links.
Status ReadPath(const CsvReader& csv, const Topology& topology, Path* path, std::int64_t* index) {
  Status status = ReadNode(csv, kSrc, topology, &path->src);
  status.Update(ReadNode(csv, kDst, topology, &path->dst));
  std::int64_t hops = 0;
  status.Update(csv.Read(kPathIdx, index, 0));
  status.Update(csv.Read(kHops, &hops, 0));
  if (!status.ok()) return status;
  const std::string nodes(csv.Field(kNodes));
  std::vector<int> sequence;
  for (std::string_view item : csv.Items(kNodes, CsvOptions::kWhitespace)) {
    int node = -1;
    std::string why;
    if (!FindNode(item, topology, &node, &why)) return csv.FieldError(kNodes, why);
    sequence.push_back(node);
  }
  if (sequence.size() < 2 || sequence.front() != path->src || sequence.back() != path->dst) {
    return csv.FieldError(kNodes,
                          "'" + nodes + "' does not lead from src " + std::string(csv.Field(kSrc)) +
                              " to dst " + std::string(csv.Field(kDst)));
  }
  path->links.reserve(sequence.size() - 1);
  for (std::size_t i = 0; i + 1 < sequence.size(); ++i) {
    const int e = topology.LinkIndex(sequence[i], sequence[i + 1]);
    if (e < 0) {
      return csv.FieldError(kNodes,
                            "'" + nodes + "': no link " + topology.node_names[sequence[i]] +
                                " -> " + topology.node_names[sequence[i + 1]] + " in the topology");
    }
    path->links.push_back(e);
  }
  if (hops != path->hops()) {
    return csv.Expected(kHops, std::to_string(path->hops()) + " (the hops of 'nodes')");
  }
  std::vector<int> edge_ids;
  std::string links;
  for (int e : path->links) links += (links.empty() ? "" : " ") + std::to_string(e);
  for (std::string_view item : csv.Items(kEdgeIds, CsvOptions::kWhitespace)) {
    int edge = -1;
    if (!ParseInteger(item, &edge)) {
      return csv.Expected(kEdgeIds, "link indices separated by spaces ('" + links + "')");
    }
    edge_ids.push_back(edge);
  }
  if (edge_ids != path->links) {
    return csv.Expected(kEdgeIds, "'" + links + "' (the links of 'nodes' in topology order)");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<PairPaths>> LoadPaths(const std::string& file, const Topology& topology) {
  Result<CsvReader> opened =
      CsvReader::OpenWithHeader(file, {"src", "dst", "path_idx", "hops", "nodes", "edge_ids"});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  Status status;
  std::map<std::pair<int, int>, PairPaths> pairs;
  while (csv.Next(&status)) {
    Path path;
    std::int64_t index = 0;
    status = ReadPath(csv, topology, &path, &index);
    if (!status.ok()) return status;
    PairPaths& pair = pairs[{path.src, path.dst}];
    pair.src = path.src;
    pair.dst = path.dst;
    if (index != static_cast<std::int64_t>(pair.paths.size())) {
      return csv.Expected(
          kPathIdx,
          std::to_string(pair.paths.size()) + " (paths of a pair are numbered 0, 1, ...)");
    }
    pair.paths.push_back(std::move(path));
  }
  if (!status.ok()) return status;
  std::vector<PairPaths> out;
  out.reserve(pairs.size());
  for (auto& [key, pair] : pairs) out.push_back(std::move(pair));
  return out;
}

Status WritePaths(const std::string& file,
                  const Topology& topology,
                  const std::vector<PairPaths>& pairs) {
  const std::string temporary =
      file + ".tmp" + std::to_string(reinterpret_cast<std::uintptr_t>(&pairs));
  {
    std::ofstream out(temporary);
    if (!out) return Status(StatusCode::kUnavailable, temporary + ": cannot create the file");
    out << "src,dst,path_idx,hops,nodes,edge_ids\n";
    for (const PairPaths& pair : pairs) {
      for (std::size_t i = 0; i < pair.paths.size(); ++i) {
        const Path& path = pair.paths[i];
        out << topology.node_names[pair.src] << ',' << topology.node_names[pair.dst] << ',' << i
            << ',' << path.hops() << ',';
        const std::vector<int> nodes = path.Nodes(topology);
        for (std::size_t j = 0; j < nodes.size(); ++j) {
          out << (j ? " " : "") << topology.node_names[nodes[j]];
        }
        out << ',';
        for (std::size_t j = 0; j < path.links.size(); ++j) out << (j ? " " : "") << path.links[j];
        out << '\n';
      }
    }
    if (!out.flush()) return Status(StatusCode::kUnavailable, temporary + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return Status(StatusCode::kUnavailable, file + ": cannot rename the written file into place");
  }
  return Status::Ok();
}

std::uint64_t TopologyHash(const Topology& topology) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](long long v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<std::uint64_t>(v >> (8 * i)) & 0xff;
      h *= 1099511628211ULL;
    }
  };
  // Integer ids hash as they always have (path caches stay valid); names byte by byte.
  auto node = [&](int v) {
    if (topology.integer_ids) {
      mix(topology.node_ids[v]);
      return;
    }
    mix(static_cast<long long>(topology.node_names[v].size()));
    for (unsigned char c : topology.node_names[v]) mix(c);
  };
  mix(static_cast<long long>(topology.file_order.size()));
  for (int v : topology.file_order) node(v);
  mix(static_cast<long long>(topology.links.size()));
  for (const Link& l : topology.links) {
    node(l.src);
    node(l.dst);
  }
  return h;
}

namespace {

// The residual network of the unit-capacity link graph, stored as a Boost.Graph adjacency list
// whose out- and in-edge lists keep insertion order (the order the search depends on).
using Residual = boost::adjacency_list<boost::vecS,
                                       boost::vecS,
                                       boost::bidirectionalS,
                                       boost::no_property,
                                       boost::property<boost::edge_index_t, int>>;

struct ResidualNetwork {
  Residual graph;
  std::vector<int> capacity, flow, reverse;  // by edge index
  std::map<std::pair<int, int>, int> index;  // (u, v) -> edge index
  int Add(int u, int v, int cap) {
    const int e = static_cast<int>(capacity.size());
    boost::add_edge(u, v, e, graph);
    capacity.push_back(cap);
    flow.push_back(0);
    reverse.push_back(-1);
    index[{u, v}] = e;
    return e;
  }
};

constexpr int kUnseen = -2;  // not in pred/succ
constexpr int kRoot = -1;    // pred[src] / succ[dst]

}  // namespace

struct EdgeDisjointPathFinder::Network {
  ResidualNetwork r;
  std::vector<std::vector<int>> out_links;  // topology links by source node
  std::vector<int> in_degree;               // topology links by target node
  std::vector<int> order;                   // nodes in file order
};

EdgeDisjointPathFinder::~EdgeDisjointPathFinder() = default;

EdgeDisjointPathFinder::EdgeDisjointPathFinder(const Topology& topology)
    : topology_(topology), network_(std::make_unique<Network>()) {
  const int n = topology.num_nodes();
  Network& net = *network_;
  // The link order of the graph the reference builds (networkx DiGraph from node-link JSON):
  // nodes in file order, each node's out-links in file order.
  net.out_links.assign(n, {});
  net.in_degree.assign(n, 0);
  for (int e = 0; e < static_cast<int>(topology.links.size()); ++e) {
    net.out_links[topology.links[e].src].push_back(e);
    ++net.in_degree[topology.links[e].dst];
  }
  net.order = topology.file_order;
  if (static_cast<int>(net.order.size()) != n) {
    net.order.resize(n);
    for (int v = 0; v < n; ++v) net.order[v] = v;
  }
  // Residual network as networkx's build_residual_network: every link (u, v) in that order adds
  // (u, v) with capacity 1 and, if absent, (v, u) with capacity 0; a link whose reverse was
  // added earlier only sets that edge's capacity. Flow is antisymmetric on the pair.
  ResidualNetwork& r = net.r;
  r.graph = Residual(n);
  for (int u : net.order) {
    for (int e : net.out_links[u]) {
      const int v = topology.links[e].dst;
      auto it = r.index.find({u, v});
      if (it != r.index.end()) {
        r.capacity[it->second] = 1;
        continue;
      }
      const int forward = r.Add(u, v, 1);
      auto back = r.index.find({v, u});
      const int backward = back != r.index.end() ? back->second : r.Add(v, u, 0);
      r.reverse[forward] = backward;
      r.reverse[backward] = forward;
    }
  }
}

std::vector<Path> EdgeDisjointMinHopPaths(const Topology& topology, int src, int dst, int k) {
  return EdgeDisjointPathFinder(topology).Find(src, dst, k);
}

std::vector<Path> EdgeDisjointPathFinder::Find(int src, int dst, int k) {
  if (src == dst || k <= 0) return {};
  const Topology& topology = topology_;
  const int n = topology.num_nodes();
  Network& net = *network_;
  ResidualNetwork& r = net.r;
  const std::vector<int>& order = net.order;
  std::fill(r.flow.begin(), r.flow.end(), 0);
  auto edge_id = boost::get(boost::edge_index, r.graph);
  // At most min(out-degree of src, in-degree of dst) paths.
  const long cutoff = static_cast<long>(
      std::min(net.out_links[src].size(), static_cast<std::size_t>(net.in_degree[dst])));

  // Edmonds-Karp with a bidirectional breadth-first search for each augmenting path (as
  // networkx's edmonds_karp, the default of edge_disjoint_paths): shortest residual paths,
  // which may cancel flow of earlier paths.
  long flow_value = 0;
  while (flow_value < cutoff) {
    std::vector<int>& pred = pred_;
    std::vector<int>& succ = succ_;
    std::vector<int>& pred_edge = pred_edge_;
    std::vector<int>& succ_edge = succ_edge_;
    pred.assign(n, kUnseen);
    succ.assign(n, kUnseen);
    pred_edge.assign(n, -1);
    succ_edge.assign(n, -1);
    pred[src] = kRoot;
    succ[dst] = kRoot;
    std::vector<int> q_s{src}, q_t{dst};
    int meet = -1;
    while (meet < 0) {
      std::vector<int> q;
      if (q_s.size() <= q_t.size()) {
        for (int u : q_s) {
          for (auto [it, end] = boost::out_edges(u, r.graph); it != end && meet < 0; ++it) {
            const int e = edge_id[*it];
            const int v = static_cast<int>(boost::target(*it, r.graph));
            if (pred[v] == kUnseen && r.flow[e] < r.capacity[e]) {
              pred[v] = u;
              pred_edge[v] = e;
              if (succ[v] != kUnseen) meet = v;
              q.push_back(v);
            }
          }
          if (meet >= 0) break;
        }
        q_s = std::move(q);
      } else {
        for (int u : q_t) {
          for (auto [it, end] = boost::in_edges(u, r.graph); it != end && meet < 0; ++it) {
            const int e = edge_id[*it];
            const int v = static_cast<int>(boost::source(*it, r.graph));
            if (succ[v] == kUnseen && r.flow[e] < r.capacity[e]) {
              succ[v] = u;
              succ_edge[v] = e;
              if (pred[v] != kUnseen) meet = v;
              q.push_back(v);
            }
          }
          if (meet >= 0) break;
        }
        q_t = std::move(q);
      }
      if (meet < 0 && (q_s.empty() || q_t.empty())) break;
    }
    if (meet < 0) break;
    // The residual edges of the augmenting path: pred_edge back to src, succ_edge on to dst.
    auto augment = [&](int e) {
      r.flow[e] += 1;
      r.flow[r.reverse[e]] -= 1;
    };
    for (int u = meet; u != src; u = pred[u]) augment(pred_edge[u]);
    for (int u = meet; u != dst; u = succ[u]) augment(succ_edge[u]);
    ++flow_value;
  }

  // Decompose as networkx does: saturated edges in residual-edge order form, per node, an
  // insertion-ordered set of successors; each path starts at one of src's successors (in
  // order) and then repeatedly takes the most recently inserted remaining successor.
  std::vector<std::vector<int>> saturated(n);
  for (int u : order) {
    for (auto [it, end] = boost::out_edges(u, r.graph); it != end; ++it) {
      const int e = edge_id[*it];
      if (r.flow[e] > 0 && r.flow[e] == r.capacity[e]) {
        saturated[u].push_back(static_cast<int>(boost::target(*it, r.graph)));
      }
    }
  }
  // Each walk as its nodes first (cycles are removed on nodes), then as links.
  std::vector<Path> paths;
  std::vector<std::vector<int>> walks;
  const std::vector<int> first_hops = saturated[src];
  long found = 0;
  for (int first : first_hops) {
    if (found >= cutoff) break;
    Path path;
    path.src = src;
    path.dst = dst;
    std::vector<int> walk = {src, first};
    int u = first;
    while (u != dst && !saturated[u].empty()) {
      const int v = saturated[u].back();
      saturated[u].pop_back();
      walk.push_back(v);
      u = v;
    }
    if (u != dst) continue;
    if (first != dst) ++found;  // networkx does not count a direct link against the cutoff
    for (std::size_t i = 0; i + 1 < walk.size(); ++i) {
      path.links.push_back(topology.LinkIndex(walk[i], walk[i + 1]));
    }
    paths.push_back(std::move(path));
    walks.push_back(std::move(walk));
  }
  // As the reference: sort by the min-hop distance of the decomposed walk (1 per link, the
  // largest 64-bit integer for a link without capacity), keep the first k, then remove cycles
  // (a walk of the decomposition can pass a node twice). Cycle removal comes after the sort, so
  // the result need not be sorted by its own hop counts.
  auto distance = [&](const Path& p) {
    double d = 0.0;
    for (int e : p.links) d += topology.links[e].capacity <= 0 ? 9223372036854775807.0 : 1.0;
    return d;
  };
  std::vector<std::size_t> by_distance(paths.size());
  for (std::size_t i = 0; i < by_distance.size(); ++i) by_distance[i] = i;
  std::stable_sort(by_distance.begin(), by_distance.end(), [&](std::size_t a, std::size_t b) {
    return distance(paths[a]) < distance(paths[b]);
  });
  if (static_cast<int>(by_distance.size()) > k) by_distance.resize(static_cast<std::size_t>(k));
  std::vector<Path> kept;
  kept.reserve(by_distance.size());
  for (std::size_t i : by_distance) {
    Path& path = paths[i];
    const std::vector<int>& walk = walks[i];
    std::vector<int> stack;
    std::vector<char> on_stack(n, 0);
    for (int v : walk) {
      if (on_stack[v]) {
        while (stack.back() != v) {
          on_stack[stack.back()] = 0;
          stack.pop_back();
        }
      } else {
        stack.push_back(v);
        on_stack[v] = 1;
      }
    }
    if (stack.size() != walk.size()) {
      path.links.clear();
      for (std::size_t j = 0; j + 1 < stack.size(); ++j) {
        path.links.push_back(topology.LinkIndex(stack[j], stack[j + 1]));
      }
    }
    path.links.shrink_to_fit();
    kept.push_back(std::move(path));
  }
  return kept;
}

std::vector<int> Path::Nodes(const Topology& topology) const {
  std::vector<int> nodes;
  nodes.reserve(links.size() + 1);
  nodes.push_back(src);
  for (int e : links) nodes.push_back(topology.links[static_cast<std::size_t>(e)].dst);
  return nodes;
}

}  // namespace dede::te
