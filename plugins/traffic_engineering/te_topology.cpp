// Topology readers of the traffic-engineering plugin: networkx node-link JSON, an edge-list
// CSV, GraphML (Topology Zoo's own format) and SNDlib's native format. Each reader produces
// the same raw form (node names, links by node name, directed or not); one builder then
// resolves ids, expands undirected links, merges parallel links as asked, and counts every
// change it made. See te_data.h.
#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dede/config_node.h"
#include "dede/csv.h"
#include "te_data.h"
#include "te_text.h"

namespace dede::te {
namespace {

using text::Invalid;

constexpr double kMaxCapacity = 1e15;  // in the topology file's units

struct RawLink {
  std::string src, dst;
  double capacity = 0;
  bool has_capacity = false;
  bool from_modules = false;  // SNDlib: no pre-installed capacity, the largest module's
  std::string where;          // "file: links[3]", "file:12"
};

struct RawTopology {
  std::string format;
  std::vector<std::string> nodes;       // names in file order (empty: from the links)
  std::vector<std::string> node_where;  // for duplicate-node errors
  std::vector<RawLink> links;
  bool directed = true;
};

// A node name that is an integer id, as networkx writes them: digits after an optional '-'.
bool IntegerId(std::string_view name, long long* id) {
  std::int64_t v = 0;
  if (name.empty() || name.front() == '+' || !ParseInteger(name, &v)) return false;
  *id = v;
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Extension(const std::string& file) {
  const std::size_t slash = file.find_last_of('/');
  const std::size_t dot = file.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return Lower(file.substr(dot + 1));
}

// ---- networkx node-link JSON ------------------------------------------------------------------

// A node id as networkx writes it: an integer or a string.
bool JsonId(const nlohmann::json& value, std::string* out) {
  if (value.is_number_integer()) {
    *out = std::to_string(value.get<long long>());
    return true;
  }
  if (value.is_string()) {
    *out = value.get<std::string>();
    return !out->empty();
  }
  return false;
}

Status ReadJson(const std::string& file, RawTopology* raw) {
  std::ifstream in(file);
  if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the topology file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);  // skips a UTF-8 byte-order mark
  } catch (const nlohmann::json::exception& e) {
    return Invalid(file + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object()) return Invalid(file + ": expected a JSON object with 'nodes' and 'links'");
  if (!doc.contains("nodes") || !doc["nodes"].is_array()) {
    return Invalid(file + ": field 'nodes' is missing or not an array");
  }
  // networkx writes the link list as "links" (before 3.4) or "edges" (its current default).
  if (doc.contains("links") && doc.contains("edges")) {
    return Invalid(file + ": both 'links' and 'edges' are present; give one link list");
  }
  const char* key = doc.contains("edges") ? "edges" : "links";
  if (!doc.contains(key) || !doc[key].is_array()) {
    return Invalid(file + ": field 'links' (or 'edges') is missing or not an array");
  }
  if (doc.contains("directed")) {
    if (!doc["directed"].is_boolean()) return Invalid(file + ": field 'directed' is not a boolean");
    raw->directed = doc["directed"].get<bool>();
  }
  raw->format = "node-link JSON";
  const nlohmann::json& nodes = doc["nodes"];
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = file + ": nodes[" + std::to_string(i) + "]";
    std::string id;
    if (!nodes[i].is_object() || !nodes[i].contains("id") || !JsonId(nodes[i]["id"], &id)) {
      return Invalid(where + ".id is missing or not an integer or a non-empty string");
    }
    raw->nodes.push_back(std::move(id));
    raw->node_where.push_back(where);
  }
  const nlohmann::json& links = doc[key];
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string where = file + ": " + key + "[" + std::to_string(i) + "]";
    const nlohmann::json& l = links[i];
    if (!l.is_object()) return Invalid(where + " is not an object");
    RawLink link;
    link.where = where;
    std::string* ends[2] = {&link.src, &link.dst};
    const char* names[2] = {"source", "target"};
    for (int k = 0; k < 2; ++k) {
      if (!l.contains(names[k]) || !JsonId(l[names[k]], ends[k])) {
        return Invalid(where + "." + names[k] + " is missing or not an integer or a string");
      }
    }
    if (l.contains("capacity")) {
      if (!l["capacity"].is_number()) return Invalid(where + ".capacity is not a number");
      link.capacity = l["capacity"].get<double>();
      link.has_capacity = true;
    }
    raw->links.push_back(std::move(link));
  }
  return Status::Ok();
}

// ---- edge-list CSV ------------------------------------------------------------------------------

// Header with `src` and `dst` columns (or `source` and `target`, any case) and optionally
// `capacity`; other columns are ignored. Every row is one directed link.
Status ReadEdgeCsv(const std::string& file, RawTopology* raw) {
  Result<CsvReader> opened = CsvReader::Open(file, {.ignore_header_case = true});
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  // The last of the two spellings present, as before.
  const int col_src = std::max(csv.Column("src"), csv.Column("source"));
  const int col_dst = std::max(csv.Column("dst"), csv.Column("target"));
  const int col_cap = csv.Column("capacity");
  if (col_src < 0 || col_dst < 0) {
    std::string header;
    for (const std::string& h : csv.header()) header += (header.empty() ? "" : ",") + h;
    return Invalid(file + ":" + std::to_string(csv.header_line()) + ": header is '" + header +
                   "', expected columns src,dst[,capacity] (or source,target)");
  }
  raw->format = "edge-list CSV";
  Status status;
  while (csv.Next(&status)) {
    RawLink link;
    link.where = csv.Where();
    link.src = csv.Field(col_src);
    link.dst = csv.Field(col_dst);
    if (link.src.empty()) return csv.Expected(col_src, "a node");
    if (link.dst.empty()) return csv.Expected(col_dst, "a node");
    if (col_cap >= 0 && !csv.Field(col_cap).empty()) {
      // Any number here: Build checks the range and names the link.
      const double inf = std::numeric_limits<double>::infinity();
      status = csv.Read(col_cap, &link.capacity, -inf, inf);
      if (!status.ok()) return status;
      link.has_capacity = true;
    }
    raw->links.push_back(std::move(link));
  }
  return status;
}

// ---- GraphML ------------------------------------------------------------------------------------

namespace pt = boost::property_tree;

std::string Attr(const pt::ptree& node, const std::string& name) {
  return node.get<std::string>("<xmlattr>." + name, "");
}

// Topology Zoo and networkx GraphML: <key> declarations, one <graph> with edgedefault,
// <node id> and <edge source target>. An edge's capacity is its data under the key named
// `capacity` (any case); Topology Zoo's LinkSpeed attributes are not used (mixed units, often
// absent): such files take the default capacity.
Status ReadGraphml(const std::string& file, RawTopology* raw) {
  std::ifstream in(file);
  if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the topology file");
  pt::ptree doc;
  try {
    pt::read_xml(in, doc);
  } catch (const pt::xml_parser_error& e) {
    return Invalid(file + ":" + std::to_string(e.line()) + ": not valid XML: " + e.message());
  }
  const auto root = doc.get_child_optional("graphml");
  if (!root) return Invalid(file + ": no <graphml> element");
  std::string capacity_key;
  const pt::ptree* graph = nullptr;
  int graphs = 0;
  for (const auto& [tag, child] : *root) {
    if (tag == "key" && Attr(child, "for") == "edge" &&
        Lower(Attr(child, "attr.name")) == "capacity") {
      capacity_key = Attr(child, "id");
    }
    if (tag == "graph") {
      graph = &child;
      ++graphs;
    }
  }
  if (graphs != 1) {
    return Invalid(file + ": expected one <graph> element, found " + std::to_string(graphs));
  }
  raw->format = "GraphML";
  const std::string edgedefault = Attr(*graph, "edgedefault");
  if (edgedefault != "directed" && edgedefault != "undirected") {
    return Invalid(file + ": <graph edgedefault> = '" + edgedefault +
                   "', expected 'directed' or 'undirected'");
  }
  raw->directed = edgedefault == "directed";
  int node_count = 0, edge_count = 0;
  for (const auto& [tag, child] : *graph) {
    if (tag == "node") {
      const std::string where = file + ": node " + std::to_string(node_count++);
      const std::string id = Attr(child, "id");
      if (id.empty()) return Invalid(where + " has no id");
      raw->nodes.push_back(id);
      raw->node_where.push_back(where + " (id '" + id + "')");
    } else if (tag == "edge") {
      RawLink link;
      link.where = file + ": edge " + std::to_string(edge_count++);
      link.src = Attr(child, "source");
      link.dst = Attr(child, "target");
      if (link.src.empty() || link.dst.empty())
        return Invalid(link.where + " has no source or target");
      const std::string directed = Attr(child, "directed");
      if (!directed.empty() && (directed == "true") != raw->directed) {
        return Invalid(link.where + ": directed='" + directed + "' differs from the graph's '" +
                       edgedefault + "' (mixed graphs are not supported)");
      }
      for (const auto& [dtag, data] : child) {
        if (dtag != "data" || capacity_key.empty() || Attr(data, "key") != capacity_key) continue;
        const std::string value = text::Trim(data.get_value<std::string>());
        if (!ParseDouble(value, &link.capacity)) {
          return Invalid(link.where + ": capacity = '" + value + "' is not a number");
        }
        link.has_capacity = true;
      }
      raw->links.push_back(std::move(link));
    }
  }
  return Status::Ok();
}

// ---- SNDlib native ------------------------------------------------------------------------------

struct Token {
  std::string text;
  int line;
};

// Words and single parentheses, comments (# to the end of the line) dropped.
std::vector<Token> Tokenize(std::istream& in) {
  std::vector<Token> tokens;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::string word;
    auto flush = [&] {
      if (!word.empty()) tokens.push_back({std::move(word), number});
      word.clear();
    };
    for (char c : line) {
      if (c == '(' || c == ')') {
        flush();
        tokens.push_back({std::string(1, c), number});
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        flush();
      } else {
        word += c;
      }
    }
    flush();
  }
  return tokens;
}

// NODES ( name ( x y ) ... ) and LINKS ( id ( src dst ) pre_capacity pre_cost routing_cost
// setup_cost ( {module_capacity module_cost}* ) ... ). Links are undirected in SNDlib's
// models. A link's capacity is its pre-installed capacity when positive, else its largest
// module's (counted), as the SNDlib CSVs of ../shared/data do.
Status ReadSndlib(const std::string& file, RawTopology* raw) {
  std::ifstream in(file);
  if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the topology file");
  const std::vector<Token> t = Tokenize(in);
  raw->format = "SNDlib native";
  raw->directed = false;
  std::size_t i = 0;
  auto at = [&](std::size_t k) {
    return file + ":" + std::to_string(t[std::min(k, t.size() - 1)].line);
  };
  auto expect = [&](const char* what) -> Status {
    if (i >= t.size()) return Invalid(file + ": unexpected end of file, expected '" + what + "'");
    if (t[i].text != what) {
      return Invalid(at(i) + ": expected '" + what + "', found '" + t[i].text + "'");
    }
    ++i;
    return Status::Ok();
  };
  bool saw_nodes = false, saw_links = false;
  while (i < t.size()) {
    const std::string section = t[i].text;
    if (section != "NODES" && section != "LINKS") {
      ++i;  // META, DEMANDS, ADMISSIBLE_PATHS and the header line: skipped
      if (i < t.size() && t[i].text == "(") {
        int depth = 0;
        for (; i < t.size(); ++i) {
          if (t[i].text == "(") ++depth;
          if (t[i].text == ")" && --depth == 0) {
            ++i;
            break;
          }
        }
      }
      continue;
    }
    ++i;
    Status s = expect("(");
    if (!s.ok()) return s;
    while (i < t.size() && t[i].text != ")") {
      if (section == "NODES") {
        saw_nodes = true;
        raw->nodes.push_back(t[i].text);
        raw->node_where.push_back(at(i) + ": node '" + t[i].text + "'");
        ++i;
        if (i < t.size() && t[i].text == "(") {  // coordinates
          while (i < t.size() && t[i].text != ")") ++i;
          s = expect(")");
          if (!s.ok()) return s;
        }
        continue;
      }
      saw_links = true;
      RawLink link;
      link.where = at(i) + ": link '" + t[i].text + "'";
      ++i;
      s = expect("(");
      if (!s.ok()) return s;
      if (i + 2 > t.size()) return Invalid(link.where + ": truncated");
      link.src = t[i++].text;
      link.dst = t[i++].text;
      s = expect(")");
      if (!s.ok()) return s;
      double numbers[4] = {0, 0, 0, 0};
      for (double& x : numbers) {
        if (i >= t.size() || !ParseDouble(t[i].text, &x)) {
          return Invalid(link.where +
                         ": expected pre_installed_capacity, pre_installed_cost, "
                         "routing_cost and setup_cost numbers");
        }
        ++i;
      }
      double largest_module = 0;
      bool any_module = false;
      if (i < t.size() && t[i].text == "(") {
        ++i;
        while (i < t.size() && t[i].text != ")") {
          double capacity = 0, cost = 0;
          if (!ParseDouble(t[i].text, &capacity) || i + 1 >= t.size() ||
              !ParseDouble(t[i + 1].text, &cost)) {
            return Invalid(link.where + ": expected (module_capacity module_cost) pairs");
          }
          largest_module = std::max(largest_module, capacity);
          any_module = true;
          i += 2;
        }
        s = expect(")");
        if (!s.ok()) return s;
      }
      if (numbers[0] > 0) {
        link.capacity = numbers[0];
        link.has_capacity = true;
      } else if (any_module) {
        link.capacity = largest_module;
        link.has_capacity = true;
        link.from_modules = true;
      }
      raw->links.push_back(std::move(link));
    }
    s = expect(")");
    if (!s.ok()) return s;
  }
  if (!saw_nodes) return Invalid(file + ": no NODES section (not an SNDlib native file?)");
  if (!saw_links) return Invalid(file + ": no LINKS section");
  return Status::Ok();
}

// ---- the common builder -------------------------------------------------------------------------

Status Build(const std::string& file,
             const RawTopology& raw,
             const TopologyOptions& options,
             Topology* out) {
  Topology& topology = *out;
  topology.report.format = raw.format;
  topology.report.directed = raw.directed;
  // Nodes: listed, or (edge lists) every endpoint in order of first appearance.
  std::vector<std::string> names = raw.nodes;
  std::vector<std::string> where = raw.node_where;
  if (names.empty()) {
    std::unordered_map<std::string, bool> seen;
    for (const RawLink& l : raw.links) {
      for (const std::string* n : {&l.src, &l.dst}) {
        if (seen.emplace(*n, true).second) {
          names.push_back(*n);
          where.push_back(l.where);
        }
      }
    }
  }
  // Integer ids keep their numeric order and text; otherwise every id is a name, in byte order.
  topology.integer_ids = true;
  std::vector<long long> values(names.size());
  for (std::size_t k = 0; k < names.size() && topology.integer_ids; ++k) {
    topology.integer_ids = IntegerId(names[k], &values[k]);
  }
  std::vector<int> order(names.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  if (topology.integer_ids) {
    std::stable_sort(
        order.begin(), order.end(), [&](int a, int b) { return values[a] < values[b]; });
  } else {
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return names[a] < names[b]; });
  }
  std::vector<int> index_of(names.size());
  for (std::size_t r = 0; r < order.size(); ++r) {
    const int k = order[r];
    index_of[k] = static_cast<int>(r);
    if (r > 0) {
      const int prev = order[r - 1];
      const bool same = topology.integer_ids ? values[prev] == values[k] : names[prev] == names[k];
      if (same) {
        return Invalid(file + ": nodes: duplicate node id " + names[k] + " (" + where[prev] +
                       " and " + where[k] + ")");
      }
    }
    topology.node_names.push_back(topology.integer_ids ? std::to_string(values[k]) : names[k]);
    topology.node_ids.push_back(topology.integer_ids ? values[k] : static_cast<long long>(r));
    topology.name_index.emplace(topology.node_names.back(), static_cast<int>(r));
  }
  for (std::size_t k = 0; k < names.size(); ++k) topology.file_order.push_back(index_of[k]);

  std::map<std::pair<int, int>, std::size_t> seen;  // arc -> position in raw.links
  for (std::size_t i = 0; i < raw.links.size(); ++i) {
    const RawLink& l = raw.links[i];
    int ends[2];
    const std::string* texts[2] = {&l.src, &l.dst};
    const char* fields[2] = {"source", "target"};
    for (int k = 0; k < 2; ++k) {
      ends[k] = topology.NodeIndexByName(*texts[k]);
      if (ends[k] < 0) {
        return Invalid(l.where + "." + fields[k] + " = " + *texts[k] + ": no such node in 'nodes'");
      }
    }
    double capacity = l.capacity;
    if (!l.has_capacity) {
      if (!std::isfinite(options.default_capacity)) {
        return Invalid(l.where +
                       ".capacity is missing or not a number (or set the plugin's "
                       "topology_default_capacity for files without capacities)");
      }
      capacity = options.default_capacity;
      ++topology.report.capacities_defaulted;
    }
    if (l.from_modules) ++topology.report.capacities_from_modules;
    // Bounded so that sums over thousands of links stay finite and exact to the solvers'
    // relative tolerances (1e308 overflowed the flow unit's arithmetic).
    if (!std::isfinite(capacity) || capacity < 0 || capacity > kMaxCapacity) {
      return Invalid(l.where + ".capacity = " + FormatNumber(capacity) +
                     ". Violated constraint: 0 <= capacity <= 1e15");
    }
    if (ends[0] == ends[1]) {
      return Invalid(l.where + ": self loop at node " + topology.node_names[ends[0]]);
    }
    for (int direction = 0; direction < (raw.directed ? 1 : 2); ++direction) {
      const int a = direction == 0 ? ends[0] : ends[1];
      const int b = direction == 0 ? ends[1] : ends[0];
      if (direction == 1) ++topology.report.reverse_links_added;
      const auto [it, inserted] = seen.emplace(std::make_pair(a, b), i);
      if (!inserted) {
        const int e = topology.LinkIndex(a, b);
        if (options.parallel_links == ParallelLinks::kReject) {
          return Invalid(l.where + ": duplicate link " + topology.node_names[a] + " -> " +
                         topology.node_names[b] + " (also " + raw.links[it->second].where +
                         (raw.directed ? ""
                                       : "; the file is undirected: each link stands for "
                                         "both directions") +
                         "; set the plugin's parallel_links to sum or max to merge them)");
        }
        Link& link = topology.links[e];
        link.capacity = options.parallel_links == ParallelLinks::kSum
                            ? link.capacity + capacity
                            : std::max(link.capacity, capacity);
        if (!(link.capacity <= kMaxCapacity)) {
          return Invalid(l.where + ": merged capacity of " + topology.node_names[a] + " -> " +
                         topology.node_names[b] + " exceeds 1e15");
        }
        ++topology.report.parallel_links_merged;
        continue;
      }
      topology.link_index[static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b)] =
          static_cast<int>(topology.links.size());
      topology.links.push_back({a, b, capacity});
    }
  }
  return Status::Ok();
}

}  // namespace

int Topology::NodeIndex(long long id) const {
  if (!integer_ids) return -1;
  auto it = std::lower_bound(node_ids.begin(), node_ids.end(), id);
  if (it == node_ids.end() || *it != id) return -1;
  return static_cast<int>(it - node_ids.begin());
}

int Topology::NodeIndexByName(const std::string& name) const {
  if (integer_ids) {
    long long id = 0;
    return IntegerId(name, &id) ? NodeIndex(id) : -1;
  }
  auto it = name_index.find(name);
  return it == name_index.end() ? -1 : it->second;
}

int Topology::LinkIndex(int src, int dst) const {
  if (!link_index.empty()) {
    auto it =
        link_index.find(static_cast<std::uint64_t>(src) << 32 | static_cast<std::uint32_t>(dst));
    return it == link_index.end() ? -1 : it->second;
  }
  for (int e = 0; e < static_cast<int>(links.size()); ++e) {
    if (links[e].src == src && links[e].dst == dst) return e;
  }
  return -1;
}

Result<TopologyFormat> ParseTopologyFormat(const std::string& name) {
  if (name == "auto") return TopologyFormat::kAuto;
  if (name == "json") return TopologyFormat::kJson;
  if (name == "csv") return TopologyFormat::kEdgeCsv;
  if (name == "graphml") return TopologyFormat::kGraphml;
  if (name == "sndlib") return TopologyFormat::kSndlib;
  return Invalid("topology format '" + name + "': expected auto, json, csv, graphml or sndlib");
}

Result<Topology> LoadTopology(const std::string& file, const TopologyOptions& options) {
  TopologyFormat format = options.format;
  if (format == TopologyFormat::kAuto) {
    const std::string ext = Extension(file);
    if (ext == "json") {
      format = TopologyFormat::kJson;
    } else if (ext == "graphml" || ext == "xml") {
      format = TopologyFormat::kGraphml;
    } else if (ext == "csv") {
      format = TopologyFormat::kEdgeCsv;
    } else {
      // SNDlib native files carry no fixed extension; they say so on their first line.
      std::ifstream in(file);
      if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the topology file");
      std::string first;
      std::getline(in, first);
      if (first.find("SNDlib native format") != std::string::npos) {
        format = TopologyFormat::kSndlib;
      } else {
        return Invalid(file +
                       ": cannot tell the topology format from the name (.json, .csv, "
                       ".graphml) or the first line (SNDlib native); set the plugin's "
                       "topology_format");
      }
    }
  }
  RawTopology raw;
  Status status;
  switch (format) {
    case TopologyFormat::kJson:
      status = ReadJson(file, &raw);
      break;
    case TopologyFormat::kEdgeCsv:
      status = ReadEdgeCsv(file, &raw);
      break;
    case TopologyFormat::kGraphml:
      status = ReadGraphml(file, &raw);
      break;
    case TopologyFormat::kSndlib:
      status = ReadSndlib(file, &raw);
      break;
    case TopologyFormat::kAuto:
      break;
  }
  if (!status.ok()) return status;
  if (options.direction != TopologyOptions::Direction::kFile)
    raw.directed = options.direction == TopologyOptions::Direction::kDirected;
  Topology topology;
  status = Build(file, raw, options, &topology);
  if (!status.ok()) return status;
  // Without links every traffic file would be blamed for naming nodes the topology lacks.
  if (topology.links.empty()) {
    return Invalid(file + ": the topology has no links (" +
                   std::to_string(topology.node_names.size()) +
                   " nodes): a traffic-engineering deployment needs at least one link");
  }
  return topology;
}

Result<std::vector<DemandEntry>> LoadSndlibDemands(const std::string& file,
                                                   const Topology& topology) {
  std::ifstream in(file);
  if (!in) return Status(StatusCode::kNotFound, file + ": cannot open the file");
  const std::vector<Token> t = Tokenize(in);
  std::size_t i = 0;
  while (i < t.size() && t[i].text != "DEMANDS") ++i;
  if (i >= t.size()) return Invalid(file + ": no DEMANDS section");
  ++i;
  auto at = [&](std::size_t k) {
    return file + ":" + std::to_string(t[std::min(k, t.size() - 1)].line);
  };
  if (i >= t.size() || t[i].text != "(") return Invalid(at(i) + ": expected '(' after DEMANDS");
  ++i;
  std::vector<DemandEntry> entries;
  std::map<std::pair<int, int>, std::string> seen;
  while (i < t.size() && t[i].text != ")") {
    const std::string where = at(i) + ": demand '" + t[i].text + "'";
    // id ( src dst ) routing_unit demand_value max_path_length
    if (i + 7 >= t.size() || t[i + 1].text != "(" || t[i + 4].text != ")") {
      return Invalid(where +
                     ": expected 'id ( src dst ) routing_unit demand_value "
                     "max_path_length'");
    }
    DemandEntry entry;
    entry.src = topology.NodeIndexByName(t[i + 2].text);
    entry.dst = topology.NodeIndexByName(t[i + 3].text);
    if (entry.src < 0 || entry.dst < 0) {
      return Invalid(where + ": node '" + (entry.src < 0 ? t[i + 2].text : t[i + 3].text) +
                     "' is not in the topology");
    }
    double unit = 0;
    if (!ParseDouble(t[i + 5].text, &unit) || !ParseDouble(t[i + 6].text, &entry.demand) ||
        !std::isfinite(entry.demand) || entry.demand < 0 || entry.demand > kMaxDemand) {
      return Invalid(where + ": demand_value = '" + t[i + 6].text +
                     "': expected a number in [0, 1e15]");
    }
    const auto [it, inserted] = seen.emplace(std::make_pair(entry.src, entry.dst), where);
    if (!inserted) return Invalid(where + ": the pair is also " + it->second);
    if (entry.src == entry.dst && entry.demand > 0) {
      return Invalid(where + ": positive demand from a node to itself");
    }
    i += 8;
    if (entry.demand > 0) entries.push_back(entry);
  }
  if (i >= t.size()) return Invalid(file + ": the DEMANDS section is not closed");
  return entries;
}

std::string TopologyReport::Summary() const {
  std::ostringstream out;
  out << format << ", " << (directed ? "directed" : "undirected (each link both ways)");
  if (reverse_links_added > 0) out << ", " << reverse_links_added << " reverse links added";
  if (parallel_links_merged > 0) out << ", " << parallel_links_merged << " parallel links merged";
  if (capacities_defaulted > 0) out << ", " << capacities_defaulted << " capacities defaulted";
  if (capacities_from_modules > 0) {
    out << ", " << capacities_from_modules << " capacities from the largest module";
  }
  return out.str();
}

}  // namespace dede::te
