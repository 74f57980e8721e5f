// Topology formats of the traffic_engineering plugin: node-link JSON variants (edges, string
// ids, undirected), edge-list CSV, GraphML (Topology Zoo) and SNDlib native, each checked
// against an independent conversion of the same network where there is one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "dede/csv.h"
#include "te_data.h"
#include "te_test_util.h"

namespace dede::te {
namespace {

const std::string kDataDir = std::string(DEDE_TEST_DATA_DIR) + "/te";

using testing::TempFile;

using testing::Contains;

// (src name, dst name) -> capacity.
std::map<std::pair<std::string, std::string>, double> Arcs(const Topology& t) {
  std::map<std::pair<std::string, std::string>, double> arcs;
  for (const Link& l : t.links) arcs[{t.node_names[l.src], t.node_names[l.dst]}] = l.capacity;
  return arcs;
}

// A CSV's rows as maps from its header's names.
std::vector<std::map<std::string, std::string>> ReadRows(const std::string& file) {
  std::vector<std::map<std::string, std::string>> rows;
  Result<CsvReader> csv = CsvReader::Open(file, {.ragged = true});
  EXPECT_TRUE(csv.ok()) << csv.status().message();
  if (!csv.ok()) return rows;
  Status status;
  while (csv->Next(&status)) {
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < csv->header().size(); ++k) {
      row[csv->header()[k]] = csv->Field(static_cast<int>(k));
    }
    rows.push_back(std::move(row));
  }
  EXPECT_TRUE(status.ok()) << status.message();
  return rows;
}

TEST(TopologyFormats, NetworkxEdgesKeyStringIdsAndUndirectedLinks) {
  // networkx >= 3.4 writes "edges"; an undirected graph says "directed": false and lists each
  // link once.
  TempFile f("und.json", R"({"directed": false, "multigraph": false,
      "nodes": [{"id": "Oslo"}, {"id": "Bergen"}, {"id": "Trondheim"}],
      "edges": [{"source": "Oslo", "target": "Bergen", "capacity": 10},
                {"source": "Trondheim", "target": "Oslo", "capacity": 20}]})");
  Result<Topology> t = LoadTopology(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->integer_ids);
  EXPECT_EQ(t->node_names, (std::vector<std::string>{"Bergen", "Oslo", "Trondheim"}));
  EXPECT_EQ(t->file_order, (std::vector<int>{1, 0, 2}));
  ASSERT_EQ(t->links.size(), 4u);  // each link in both directions, the reverse right after it
  EXPECT_EQ(t->node_names[t->links[1].src], "Bergen");
  EXPECT_EQ(t->node_names[t->links[1].dst], "Oslo");
  EXPECT_EQ(t->links[1].capacity, 10);
  EXPECT_EQ(t->LinkIndex(t->NodeIndexByName("Oslo"), t->NodeIndexByName("Trondheim")), 3);
  EXPECT_EQ(t->report.reverse_links_added, 2);
  EXPECT_FALSE(t->report.directed);
  EXPECT_EQ(t->NodeIndexByName("Stavanger"), -1);
}

TEST(TopologyFormats, UndirectedFileEqualsItsExplicitTwoWayVersion) {
  // B4 lists both directions of every link with equal capacities: its undirected form (each
  // unordered pair once) must load to the same arcs and capacities.
  Result<Topology> directed = LoadTopology(kDataDir + "/B4.json");
  ASSERT_TRUE(directed.ok()) << directed.status().message();
  std::ostringstream doc;
  doc << R"({"directed": false, "nodes": [)";
  for (int v = 0; v < directed->num_nodes(); ++v) {
    doc << (v ? "," : "") << R"({"id": )" << directed->node_ids[v] << "}";
  }
  doc << R"(], "links": [)";
  bool first = true;
  for (const Link& l : directed->links) {
    if (l.src > l.dst) continue;
    ASSERT_EQ(directed->links[directed->LinkIndex(l.dst, l.src)].capacity, l.capacity);
    doc << (first ? "" : ",") << R"({"source": )" << directed->node_ids[l.src] << R"(, "target": )"
        << directed->node_ids[l.dst] << R"(, "capacity": )" << l.capacity << "}";
    first = false;
  }
  doc << "]}";
  TempFile f("b4u.json", doc.str());
  Result<Topology> undirected = LoadTopology(f.path());
  ASSERT_TRUE(undirected.ok()) << undirected.status().message();
  EXPECT_EQ(Arcs(undirected.value()), Arcs(directed.value()));
  EXPECT_EQ(undirected->report.reverse_links_added, 19);
}

TEST(TopologyFormats, ParallelLinksAreRejectedOrMergedAsAsked) {
  // SNDlib-style: an undirected file that lists both directions.
  const std::string text = R"({"directed": false, "nodes": [{"id": 1}, {"id": 2}],
      "links": [{"source": 1, "target": 2, "capacity": 10},
                {"source": 2, "target": 1, "capacity": 30}]})";
  TempFile f("par.json", text);
  Result<Topology> rejected = LoadTopology(f.path());
  ASSERT_FALSE(rejected.ok());
  const std::string m = rejected.status().message();
  EXPECT_TRUE(Contains(m, "links[1]") && Contains(m, "duplicate link 2 -> 1") &&
              Contains(m, "links[0]") && Contains(m, "undirected") && Contains(m, "parallel_links"))
      << m;
  TopologyOptions sum;
  sum.parallel_links = ParallelLinks::kSum;
  Result<Topology> summed = LoadTopology(f.path(), sum);
  ASSERT_TRUE(summed.ok()) << summed.status().message();
  ASSERT_EQ(summed->links.size(), 2u);
  EXPECT_EQ(summed->links[0].capacity, 40);
  EXPECT_EQ(summed->links[1].capacity, 40);
  EXPECT_EQ(summed->report.parallel_links_merged, 2);
  TopologyOptions max;
  max.parallel_links = ParallelLinks::kMax;
  Result<Topology> largest = LoadTopology(f.path(), max);
  ASSERT_TRUE(largest.ok());
  EXPECT_EQ(largest->links[0].capacity, 30);
}

TEST(TopologyFormats, ErrorsNameTheFileAndTheEntry) {
  {
    TempFile f("both.json", R"({"nodes": [], "links": [], "edges": []})");
    Result<Topology> t = LoadTopology(f.path());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.status().message(), "both 'links' and 'edges'"));
  }
  {
    TempFile f("nocap.json", R"({"nodes": [{"id": "a"}, {"id": "b"}],
        "edges": [{"source": "a", "target": "b"}]})");
    Result<Topology> t = LoadTopology(f.path());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.status().message(), f.path() + ": edges[0].capacity is missing") &&
                Contains(t.status().message(), "topology_default_capacity"))
        << t.status().message();
    TopologyOptions options;
    options.default_capacity = 1000;
    Result<Topology> filled = LoadTopology(f.path(), options);
    ASSERT_TRUE(filled.ok());
    EXPECT_EQ(filled->links[0].capacity, 1000);
    EXPECT_EQ(filled->report.capacities_defaulted, 1);
  }
  {
    TempFile f("dupname.json", R"({"nodes": [{"id": "a"}, {"id": "a"}], "links": []})");
    Result<Topology> t = LoadTopology(f.path());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.status().message(), "duplicate node id a") &&
                Contains(t.status().message(), "nodes[0]") &&
                Contains(t.status().message(), "nodes[1]"))
        << t.status().message();
  }
  {
    TempFile f("bad.graphml", "<graphml><graph edgedefault='undirected'><node id='a'/>");
    Result<Topology> t = LoadTopology(f.path());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.status().message(), "not valid XML")) << t.status().message();
  }
  {
    TempFile f("what.topo", "hello\n");
    Result<Topology> t = LoadTopology(f.path());
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.status().message(), "topology_format")) << t.status().message();
  }
}

TEST(TopologyFormats, EdgeListCsvWithAByteOrderMarkAndNames) {
  TempFile f("edges.csv", "\xEF\xBB\xBFsrc,dst,capacity,comment\nA,B,5,x\nB,C,7,y\nC,A,9,z\n");
  Result<Topology> t = LoadTopology(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->report.format, "edge-list CSV");
  ASSERT_EQ(t->links.size(), 3u);
  EXPECT_EQ(Arcs(t.value()),
            (std::map<std::pair<std::string, std::string>, double>{
                {{"A", "B"}, 5}, {{"B", "C"}, 7}, {{"C", "A"}, 9}}));
  TempFile bad("edges_bad.csv", "src,dst,capacity\nA,B,five\n");
  Result<Topology> e = LoadTopology(bad.path());
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(Contains(e.status().message(),
                       bad.path() + ":2:5: column 'capacity': expected a number, got 'five'"))
      << e.status().message();
}

TEST(TopologyFormats, TopologyZooGraphmlMatchesTheNcflowConversion) {
  // Uninett2010 from Topology Zoo, as NCFlow converts it: every undirected edge two arcs of
  // capacity 1000, parallel edges merged (shared data set topology-zoo, edges.csv).
  TopologyOptions options;
  options.default_capacity = 1000;
  options.parallel_links = ParallelLinks::kMax;
  Result<Topology> t = LoadTopology(kDataDir + "/Uninett2010.graphml", options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->report.format, "GraphML");
  EXPECT_FALSE(t->report.directed);
  EXPECT_EQ(t->num_nodes(), 74);
  std::map<std::pair<std::string, std::string>, double> reference;
  for (const auto& row : ReadRows(kDataDir + "/Uninett2010-edges.csv")) {
    reference[{row.at("src"), row.at("dst")}] = std::stod(row.at("capacity"));
  }
  EXPECT_EQ(reference.size(), 202u);
  EXPECT_EQ(Arcs(t.value()), reference);
  EXPECT_EQ(t->report.capacities_defaulted, 101);
  // Without a default the file has no capacities: an error naming an edge.
  Result<Topology> none = LoadTopology(kDataDir + "/Uninett2010.graphml");
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(Contains(none.status().message(), "edge 0.capacity is missing"))
      << none.status().message();
}

TEST(TopologyFormats, SndlibNativeMatchesTheCsvConversion) {
  // abilene: 12 nodes, 15 undirected links with pre-installed capacity.
  Result<Topology> t = LoadTopology(kDataDir + "/abilene-sndlib.txt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->report.format, "SNDlib native");
  EXPECT_FALSE(t->integer_ids);
  EXPECT_EQ(t->num_nodes(), 12);
  std::map<std::pair<std::string, std::string>, double> reference;
  for (const auto& row : ReadRows(kDataDir + "/abilene-links.csv")) {
    const double capacity = std::stod(row.at("capacity"));
    reference[{row.at("src"), row.at("dst")}] = capacity;
    reference[{row.at("dst"), row.at("src")}] = capacity;
  }
  EXPECT_EQ(reference.size(), 30u);
  EXPECT_EQ(Arcs(t.value()), reference);
  EXPECT_EQ(t->report.reverse_links_added, 15);
  // The CSV conversion lists each undirected link once: read as undirected it is the same
  // network, link for link, in the same order; as the file says (directed) it is half of it.
  TopologyOptions undirected;
  undirected.direction = TopologyOptions::Direction::kUndirected;
  Result<Topology> csv = LoadTopology(kDataDir + "/abilene-links.csv", undirected);
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  EXPECT_FALSE(csv->report.directed);
  EXPECT_EQ(csv->report.reverse_links_added, 15);
  EXPECT_EQ(Arcs(csv.value()), reference);
  Result<Topology> one_way = LoadTopology(kDataDir + "/abilene-links.csv");
  ASSERT_TRUE(one_way.ok());
  EXPECT_EQ(one_way->links.size(), 15u);
  // And a file's own "undirected" can be overridden the other way.
  TopologyOptions directed;
  directed.direction = TopologyOptions::Direction::kDirected;
  Result<Topology> sndlib_one_way = LoadTopology(kDataDir + "/abilene-sndlib.txt", directed);
  ASSERT_TRUE(sndlib_one_way.ok());
  EXPECT_TRUE(sndlib_one_way->report.directed);
  EXPECT_EQ(sndlib_one_way->links.size(), 15u);
}

}  // namespace
}  // namespace dede::te
