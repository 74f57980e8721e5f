// Traffic-engineering input data: node-link topologies (JSON), traffic matrices and path sets
// (CSV, the formats of ../shared/data/dede-examples/README.md), and k edge-disjoint min-hop
// paths computed with Boost.Graph. Every loader error names the file and the field or line.
#pragma once

#include <cstdint>
#include <limits>
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

// What a topology reader changed or filled in, counted (the plugin reports it).
struct TopologyReport {
  std::string format;               // "node-link JSON", "edge-list CSV", "GraphML", "SNDlib native"
  bool directed = true;             // as the file says
  int reverse_links_added = 0;      // undirected files: the second direction of each link
  int parallel_links_merged = 0;    // links folded into an earlier one (TopologyOptions)
  int capacities_defaulted = 0;     // links without a capacity: TopologyOptions::default_capacity
  int capacities_from_modules = 0;  // SNDlib links without pre-installed capacity
  std::string Summary() const;
};

// Nodes are indexed 0..n-1 in increasing order of their ids: numeric order when every id is
// an integer, byte order of the names otherwise. Links keep the order of the file (an
// undirected link's reverse direction right after it), which is the edge numbering of the
// path files.
struct Topology {
  // Integer ids: index -> id. Name ids: index -> index (use node_names).
  std::vector<long long> node_ids;
  std::vector<std::string> node_names;  // index -> id as text (integers in decimal)
  bool integer_ids = true;
  std::vector<Link> links;
  std::vector<int> file_order;  // node indices in the order of the file's node list
  // (src << 32 | dst) -> link index; built by LoadTopology (LinkIndex scans without it).
  std::unordered_map<std::uint64_t, int> link_index;
  std::unordered_map<std::string, int> name_index;  // node_names -> index
  TopologyReport report;
  int num_nodes() const { return static_cast<int>(node_names.size()); }
  // Index of node `id` of an integer-id topology, or -1.
  int NodeIndex(long long id) const;
  // Index of the node written `name` (an integer's decimal text for integer ids), or -1.
  int NodeIndexByName(const std::string& name) const;
  // Index of the link src -> dst (node indices), or -1.
  int LinkIndex(int src, int dst) const;
};

// The largest demand a traffic file or a `demand` event may give, in capacity units (after
// `scale`), as capacities are bounded by 1e15: beyond it the path LPs lose every digit of a
// link's capacity and a round fails with a singular system instead of a message.
inline constexpr double kMaxDemand = 1e15;

// One ordered pair's demand, by node index.
struct DemandEntry {
  int src = 0;
  int dst = 0;
  double demand = 0.0;
};

// A path of the pair (src, dst): the link indices from src to dst. Its nodes follow from the
// links (Nodes); they are not stored (ASN2k has 6.6 M paths).
struct Path {
  int src = 0;
  int dst = 0;
  std::vector<int> links;
  int hops() const { return static_cast<int>(links.size()); }
  // src, then the head of every link.
  std::vector<int> Nodes(const Topology& topology) const;
};

// Paths of one ordered pair, shortest first.
struct PairPaths {
  int src = 0;
  int dst = 0;
  std::vector<Path> paths;
};

enum class TopologyFormat { kAuto, kJson, kEdgeCsv, kGraphml, kSndlib };
// Parallel links (the same ordered pair twice, including an undirected file that lists both
// directions): an error, or one link with the sum or the largest of their capacities.
enum class ParallelLinks { kReject, kSum, kMax };

struct TopologyOptions {
  TopologyFormat format = TopologyFormat::kAuto;  // auto: by extension, SNDlib by content
  ParallelLinks parallel_links = ParallelLinks::kReject;
  // Capacity of links the file gives none (Topology Zoo GraphML); NaN: such a link is an error.
  double default_capacity = std::numeric_limits<double>::quiet_NaN();
  // Links as the file says (`kFile`: an edge-list CSV is directed, the others declare it), or
  // every link one-way / both ways whatever the file says (an edge list of undirected links, as
  // SNDlib-derived CSVs are). The report says which (directed, reverse_links_added).
  enum class Direction { kFile, kDirected, kUndirected } direction = Direction::kFile;
};

Result<TopologyFormat> ParseTopologyFormat(const std::string& name);

// Reads a topology in one of four formats:
//  * networkx node-link JSON: {"directed": bool, "nodes": [{"id"}...], "links" or "edges":
//    [{"source", "target", "capacity"}...]}; ids integers or strings; "directed": false makes
//    every link two, one per direction, each with the link's capacity;
//  * edge-list CSV with a header naming src,dst (or source,target) and optionally capacity;
//    one directed link per row;
//  * GraphML (Topology Zoo, networkx): edgedefault honoured, capacity from the edge data key
//    named "capacity", else TopologyOptions::default_capacity;
//  * SNDlib native: NODES and LINKS sections; links undirected; capacity the pre-installed
//    one, or the largest module's.
// Rejects a link to a missing node, a negative, non-finite or over-1e15 capacity, a self loop,
// duplicate node ids and (unless TopologyOptions say otherwise) parallel links. Every error
// names the file and the entry; every change is counted in Topology::report.
Result<Topology> LoadTopology(const std::string& file, const TopologyOptions& options = {});

// CSV `src,dst,demand` with a header line (a UTF-8 byte-order mark is skipped); node ids or
// names (see Topology). An SNDlib native file is read by LoadSndlibDemands instead. Rejects unknown
// nodes, negative demands or demands above kMaxDemand, src == dst with a positive demand and
// duplicate pairs. Zero demands are dropped.
Result<std::vector<DemandEntry>> LoadTrafficMatrix(const std::string& file,
                                                   const Topology& topology);

// The DEMANDS section of an SNDlib native file (`id ( src dst ) routing_unit demand_value
// max_path_length`) as a matrix, each demand from its src to its dst as written. Called by
// LoadTrafficMatrix for files whose first line says "SNDlib native format". A pair given twice
// is an error (SNDlib's undirected demand files list each unordered pair once).
Result<std::vector<DemandEntry>> LoadSndlibDemands(const std::string& file,
                                                   const Topology& topology);

// A series of traffic matrices in one wide CSV, as measured series are published (the shared
// `sndlib-dynamic-tm/<net>/tm.csv`): a first column (a timestamp or any label), then one
// column per ordered pair named `SRC>DST` (or `SRC->DST`); data row r is one matrix. Rows
// first_row .. first_row + rows - 1 are kept (rows < 0: to the end). Every cell must be a
// number in [0, kMaxDemand]; a pair's column naming a node the topology lacks is an error.
struct TrafficSeries {
  std::vector<std::string> labels;          // first column of every kept row
  std::vector<std::pair<int, int>> pairs;   // node indices, by column
  std::vector<std::vector<double>> demand;  // [kept row][column]
};
// Ok unless a demand `file` gives times the plugin's `scale` exceeds kMaxDemand; the message
// names the file, the demand, plugin.settings.scale and the bound.
Status CheckScaledDemand(const std::string& file,
                         const std::vector<DemandEntry>& matrix,
                         double scale);
Status CheckScaledDemand(const std::string& file,
                         const std::vector<std::vector<double>>& series,
                         double scale);

Result<TrafficSeries> LoadTrafficSeries(const std::string& file,
                                        const Topology& topology,
                                        int first_row,
                                        int rows);

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
