// Traffic-engineering input data: node-link topologies (JSON), traffic matrices and path sets
// (CSV, the formats of ../shared/data/dede-examples/README.md), and k edge-disjoint min-hop
// paths computed with Boost.Graph. Every loader error names the file and the field or line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dede/status.h"

namespace dede::te {

struct Link {
  int src = 0;  // node index (see Topology::node_ids)
  int dst = 0;
  double capacity = 0.0;
};

// Nodes are indexed 0..n-1 in increasing order of their JSON ids; links keep the order of the
// JSON `links` array, which is the edge numbering of the path files.
struct Topology {
  std::vector<long long> node_ids;  // index -> id
  std::vector<Link> links;
  std::vector<int> file_order;  // node indices in the order of the JSON `nodes` array
  // (src << 32 | dst) -> link index; built by LoadTopology (LinkIndex scans without it).
  std::unordered_map<std::uint64_t, int> link_index;
  int num_nodes() const { return static_cast<int>(node_ids.size()); }
  // Index of node `id`, or -1.
  int NodeIndex(long long id) const;
  // Index of the link src -> dst (node indices), or -1.
  int LinkIndex(int src, int dst) const;
};

// One ordered pair's demand, by node index.
struct DemandEntry {
  int src = 0;
  int dst = 0;
  double demand = 0.0;
};

// A path of the pair (src, dst): node indices from src to dst and the link indices between.
struct Path {
  int src = 0;
  int dst = 0;
  std::vector<int> nodes;
  std::vector<int> links;
  int hops() const { return static_cast<int>(links.size()); }
};

// Paths of one ordered pair, shortest first.
struct PairPaths {
  int src = 0;
  int dst = 0;
  std::vector<Path> paths;
};

// networkx node-link JSON: {"nodes": [{"id": int}...], "links": [{"source", "target",
// "capacity"}...]}. Rejects a link to a missing node, a negative or non-finite capacity, a
// duplicate link and a self loop.
Result<Topology> LoadTopology(const std::string& file);

// CSV `src,dst,demand` with a header line; node ids. Rejects unknown nodes, negative demands,
// src == dst with a positive demand and duplicate pairs. Zero demands are dropped.
Result<std::vector<DemandEntry>> LoadTrafficMatrix(const std::string& file,
                                                   const Topology& topology);

// CSV `src,dst,path_idx,hops,nodes,edge_ids`; nodes and edge_ids space-separated. Checks that
// every hop is a link of the topology, that `hops` and `edge_ids` agree with `nodes`, and that
// path_idx counts 0, 1, ... per pair. Pairs come out sorted by (src, dst).
Result<std::vector<PairPaths>> LoadPaths(const std::string& file, const Topology& topology);

// Writes `pairs` in the format LoadPaths reads (node ids, link indices), through a temporary
// file renamed into place, so a reader never sees half a file.
Status WritePaths(const std::string& file,
                  const Topology& topology,
                  const std::vector<PairPaths>& pairs);

// FNV-1a hash of what the computed paths depend on: node ids in file order and the links
// (endpoints, in file order). Capacities are left out: min-hop paths do not depend on them.
std::uint64_t TopologyHash(const Topology& topology);

// Up to k edge-disjoint paths from src to dst, fewest hops first, as the reference computes
// them (networkx edge_disjoint_paths, sorted by hop count, first k): a maximum set of
// edge-disjoint paths from Edmonds-Karp with bidirectional BFS on the unit-capacity residual
// network (a Boost.Graph adjacency list), decomposed into paths, stably sorted by hops. The
// search and the decomposition visit nodes and links in file order with the same tie-breaking
// as networkx, so the shipped B4 path file is reproduced. Empty if dst is unreachable.
std::vector<Path> EdgeDisjointMinHopPaths(const Topology& topology, int src, int dst, int k);

// The same for many pairs: the residual network is built once and reset per pair. One finder
// per thread; the topology must outlive it.
class EdgeDisjointPathFinder {
 public:
  explicit EdgeDisjointPathFinder(const Topology& topology);
  ~EdgeDisjointPathFinder();
  EdgeDisjointPathFinder(const EdgeDisjointPathFinder&) = delete;
  EdgeDisjointPathFinder& operator=(const EdgeDisjointPathFinder&) = delete;
  std::vector<Path> Find(int src, int dst, int k);

 private:
  struct Network;
  const Topology& topology_;
  std::unique_ptr<Network> network_;
  std::vector<int> pred_, succ_, pred_edge_, succ_edge_;  // search scratch
};

}  // namespace dede::te
