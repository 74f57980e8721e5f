// traffic_engineering: see te_plugin.h and README.md. The model itself is built by
// BuildPathModel (te_model.cpp); this file builds the network model (te_network.h) from the
// settings (read in te_settings.cpp), produces each round's demands and link states (the round
// state) and reports. The repair and polish of an allocation are in te_repair.cpp, the
// baselines (exact LP, POP-k, demand pinning) in te_baselines.cpp.
#include "te_plugin.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include "te_text.h"

namespace dede::te {
namespace {

using text::Invalid;

std::string NodeName(const Topology& t, int v) { return t.node_names[v]; }

}  // namespace

// The section was checked against TeSettingsTable() and completed by the host; the rest is
// ReadTeSettings' (te_settings.cpp). A new configuration starts with an empty inbox.
Status TrafficEngineeringPlugin::Configure(const ConfigNode& settings,
                                           const PluginContext& context) {
  round_.inbox.clear();
  return ReadTeSettings(settings, context, &settings_);
}

// The topology, the link events, the pairs with a demand and their paths, then the model.
Status TrafficEngineeringPlugin::Describe(Problem* problem) {
  Result<Topology> topology = LoadTopology(settings_.topology_file, settings_.topology_options);
  if (!topology.ok()) return topology.status();
  net_.topology = std::move(topology.value());
  Status status = ResolveLinkEvents();
  if (!status.ok()) return status;
  std::set<std::pair<int, int>> wanted;
  status = WantedPairs(&wanted);
  if (!status.ok()) return status;
  status = BuildPairs(wanted);
  if (!status.ok()) return status;
  return BuildModel(problem);
}

// Link events: "a->b" (node ids) or a link index.
Status TrafficEngineeringPlugin::ResolveLinkEvents() {
  const int num_links = static_cast<int>(net_.topology.links.size());
  net_.link_events.clear();
  for (const RawLinkEvent& raw : settings_.raw_events) {
    LinkEvent event;
    event.round = raw.round;
    event.fail = raw.fail;
    event.link = -1;
    event.link = ParseLinkTarget(raw.link);
    if (event.link < 0) {
      return Invalid(raw.where + ": no such link in " + settings_.topology_file +
                     " (give 'a->b' with node ids, or a link index 0.." +
                     std::to_string(num_links - 1) + ")");
    }
    net_.link_events.push_back(event);
  }
  std::stable_sort(net_.link_events.begin(),
                   net_.link_events.end(),
                   [](const LinkEvent& a, const LinkEvent& b) { return a.round < b.round; });
  return Status::Ok();
}

// Pairs with a positive demand in some round get variables (the structure is fixed).
Status TrafficEngineeringPlugin::WantedPairs(std::set<std::pair<int, int>>* wanted_out) {
  std::set<std::pair<int, int>>& wanted = *wanted_out;
  if (settings_.traffic.enabled) {
    for (const auto& p : GeneratedPairs(net_.topology, settings_.traffic)) wanted.insert(p);
  } else if (!settings_.series_file.empty()) {
    Result<TrafficSeries> series = LoadTrafficSeries(
        settings_.series_file, net_.topology, settings_.series_first_row, settings_.series_rows);
    if (!series.ok()) return series.status();
    net_.series = std::move(series.value());
    settings_.num_rounds = static_cast<int>(net_.series.demand.size());
    for (const std::vector<double>& row : net_.series.demand) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (row[c] > 0) wanted.insert(net_.series.pairs[c]);
      }
    }
    return CheckScaledDemand(settings_.series_file, net_.series.demand, settings_.scale);
  } else {
    for (const std::string& file : settings_.matrix_files) {
      Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, net_.topology);
      if (!matrix.ok()) return matrix.status();
      for (const DemandEntry& d : matrix.value()) wanted.emplace(d.src, d.dst);
      if (Status s = CheckScaledDemand(file, matrix.value(), settings_.scale); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Each wanted pair's paths: from the paths file, the path cache, or computed (in parallel).
Status TrafficEngineeringPlugin::BuildPairs(const std::set<std::pair<int, int>>& wanted) {
  std::map<std::pair<int, int>, std::vector<Path>> given;
  if (!settings_.paths_file.empty()) {
    Result<std::vector<PairPaths>> paths = LoadPaths(settings_.paths_file, net_.topology);
    if (!paths.ok()) return paths.status();
    for (PairPaths& p : paths.value()) {
      if (static_cast<int>(p.paths.size()) > settings_.num_paths)
        p.paths.resize(settings_.num_paths);
      given[{p.src, p.dst}] = std::move(p.paths);
    }
  }
  net_.pairs.clear();
  net_.pair_index.clear();
  // Computed paths: in parallel over contiguous blocks of pairs, one path finder per thread.
  const std::vector<std::pair<int, int>> wanted_list(wanted.begin(), wanted.end());
  std::vector<std::vector<Path>> computed;
  net_.path_cache_file.clear();
  net_.paths_from_cache = 0;
  net_.paths_computed = 0;
  std::vector<char> cached;
  if (settings_.paths_file.empty() && !settings_.path_cache_dir.empty()) {
    // Path cache: a path file keyed by the topology hash, k and the metric, next to nothing
    // else: a restart (or another deployment on the same topology) reads it instead of
    // recomputing; pairs it lacks are computed and the file is rewritten with them.
    char name[96];
    std::snprintf(name,
                  sizeof(name),
                  "paths-%016llx-k%d-min-hop.csv",
                  static_cast<unsigned long long>(TopologyHash(net_.topology)),
                  settings_.num_paths);
    net_.path_cache_file = (std::filesystem::path(settings_.path_cache_dir) / name).string();
    std::error_code ec;
    if (std::filesystem::exists(net_.path_cache_file, ec)) {
      Result<std::vector<PairPaths>> paths = LoadPaths(net_.path_cache_file, net_.topology);
      if (!paths.ok()) {
        return Status(paths.status().code(),
                      "path cache (plugin.settings.path_cache = '" + settings_.path_cache_dir +
                          "'): " + paths.status().message() + "; delete the file to rebuild it");
      }
      for (PairPaths& p : paths.value()) given[{p.src, p.dst}] = std::move(p.paths);
    }
  }
  if (settings_.paths_file.empty()) {
    computed.resize(wanted_list.size());
    cached.assign(wanted_list.size(), 0);
    for (std::size_t i = 0; i < wanted_list.size(); ++i) {
      if (auto it = given.find(wanted_list[i]); it != given.end()) {
        computed[i] = it->second;
        cached[i] = 1;
        ++net_.paths_from_cache;
      }
    }
    // Pairs are independent: any split gives the same paths. One finder (its residual network)
    // per worker thread.
    tbb::enumerable_thread_specific<EdgeDisjointPathFinder> finders(
        [&] { return EdgeDisjointPathFinder(net_.topology); });
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, wanted_list.size(), 256),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        EdgeDisjointPathFinder& finder = finders.local();
                        for (std::size_t i = range.begin(); i != range.end(); ++i) {
                          if (cached[i]) continue;
                          computed[i] = finder.Find(
                              wanted_list[i].first, wanted_list[i].second, settings_.num_paths);
                        }
                      });
    net_.paths_computed = static_cast<int>(wanted_list.size()) - net_.paths_from_cache;
    if (!net_.path_cache_file.empty() && net_.paths_computed > 0) {
      // Everything known, sorted by (src, dst): the cache's pairs and the new ones.
      std::map<std::pair<int, int>, const std::vector<Path>*> all;
      for (const auto& [key, paths] : given) all[key] = &paths;
      for (std::size_t i = 0; i < wanted_list.size(); ++i) all[wanted_list[i]] = &computed[i];
      std::vector<PairPaths> out;
      out.reserve(all.size());
      for (const auto& [key, paths] : all) {
        if (!paths->empty()) out.push_back({key.first, key.second, *paths});
      }
      std::error_code ec;
      std::filesystem::create_directories(settings_.path_cache_dir, ec);
      const Status written = WritePaths(net_.path_cache_file, net_.topology, out);
      if (!written.ok()) {
        return Status(written.code(),
                      "path cache (plugin.settings.path_cache = '" + settings_.path_cache_dir +
                          "'): " + written.message());
      }
    }
  }
  for (std::size_t w = 0; w < wanted_list.size(); ++w) {
    const auto [src, dst] = wanted_list[w];
    PairModel pair;
    pair.src = src;
    pair.dst = dst;
    if (settings_.paths_file.empty()) {
      pair.paths = std::move(computed[w]);
    } else if (auto it = given.find({src, dst}); it != given.end()) {
      pair.paths = it->second;
    }
    if (pair.paths.empty()) {
      // Generated traffic only goes between connected pairs; a file's demand must be routable.
      if (settings_.traffic.enabled) continue;
      return Invalid(
          (settings_.paths_file.empty() ? settings_.topology_file : settings_.paths_file) +
          ": no path from node " + NodeName(net_.topology, src) + " to node " +
          NodeName(net_.topology, dst) +
          ", which has a positive demand in the traffic matrices (disconnected pair)");
    }
    net_.pair_index[{src, dst}] = static_cast<int>(net_.pairs.size());
    net_.pairs.push_back(std::move(pair));
  }
  net_.generated_pairs.clear();
  for (const PairModel& pair : net_.pairs) net_.generated_pairs.emplace_back(pair.src, pair.dst);
  return Status::Ok();
}

// The path model (BuildPathModel) and the plugin's maps from pairs and paths to its variables.
Status TrafficEngineeringPlugin::BuildModel(Problem* problem) {
  const int num_links = static_cast<int>(net_.topology.links.size());
  // Variables are measured in units of the largest capacity, so flows, capacities and link
  // utilisations are all O(1): ADMM uses one rho for the consensus of flows and of the min-max
  // epigraph copies, and with flows in data units (thousands) it converged to points 2-15% off
  // the optimum on B4 (min max utilisation); normalised, it matches the LP.
  net_.flow_unit = 1.0;
  for (const Link& link : net_.topology.links)
    net_.flow_unit = std::max(net_.flow_unit, link.capacity);
  std::vector<double> capacity(num_links);
  for (int e = 0; e < num_links; ++e)
    capacity[e] = net_.topology.links[e].capacity / net_.flow_unit;
  std::vector<Commodity> commodities;
  commodities.reserve(net_.pairs.size());
  for (const PairModel& pair : net_.pairs)
    commodities.push_back({pair.src, pair.dst, &pair.paths, 0.0});
  PathModel model;
  Status status = BuildPathModel(net_.topology,
                                 capacity,
                                 commodities,
                                 settings_.objective,
                                 net_.flow_unit,
                                 settings_.topology_file,
                                 &model,
                                 settings_.per_pair_blocks);
  if (!status.ok()) return status;
  net_.block_of_pair = model.block;
  net_.path_var.clear();
  net_.path_of_var.clear();
  net_.pair_of_var.clear();
  for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
    net_.pairs[k].flow = model.flow[k];
    net_.pairs[k].demand_row = model.demand_row[k];
    for (std::size_t i = 0; i < net_.pairs[k].paths.size(); ++i) {
      net_.path_var.push_back(net_.pairs[k].flow[i]);
      net_.path_of_var.push_back(&net_.pairs[k].paths[i]);
      net_.pair_of_var.push_back(static_cast<int>(k));
    }
  }
  net_.entries = std::move(model.entries);
  net_.capacity_row = std::move(model.capacity_row);
  net_.link_entries.assign(num_links, {});
  for (const auto& row : net_.entries) {
    for (const auto& [e, entry] : row) net_.link_entries[e].push_back(entry);
  }
  // Per path: the entries x[e, block] its flow loads, in link order (SetEntriesFromPaths).
  {
    std::vector<std::map<int, VarId>> entry_of(net_.entries.size());
    for (std::size_t b = 0; b < net_.entries.size(); ++b) {
      for (const auto& [e, entry] : net_.entries[b]) entry_of[b][e] = entry;
    }
    net_.path_entry_begin.assign(1, 0);
    net_.path_entry.clear();
    for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
      const std::map<int, VarId>& of = entry_of[net_.block_of_pair[net_.pair_of_var[i]]];
      for (int e : net_.path_of_var[i]->links) {
        const auto it = of.find(e);
        if (it == of.end()) {
          return Internal("traffic_engineering: path " + std::to_string(i) + " uses link " +
                          std::to_string(e) + " without an entry in its demand block");
        }
        net_.path_entry.push_back(it->second);
      }
      net_.path_entry_begin.push_back(net_.path_entry.size());
    }
  }
  // The repair's fill order (fewest hops first, model order among equals): fixed with the
  // paths, so FillResidual does not sort every call (the sort was most of the seed's time on
  // networks of 16,000 pairs).
  net_.fill_order.resize(net_.path_var.size());
  std::iota(net_.fill_order.begin(), net_.fill_order.end(), 0);
  std::stable_sort(net_.fill_order.begin(), net_.fill_order.end(), [&](int a, int b) {
    return net_.path_of_var[a]->links.size() < net_.path_of_var[b]->links.size();
  });
  *problem = std::move(model.problem);
  net_.num_variables = problem->num_variables();
  net_.record_paths =
      settings_.record_paths_set ? settings_.record_paths : net_.path_var.size() <= 20000;
  round_.capacity.assign(num_links, 0.0);
  round_.failed.assign(num_links, 0);
  for (int e = 0; e < num_links; ++e) round_.capacity[e] = net_.topology.links[e].capacity;

  // Temporal fluctuation needs each demand's spread of consecutive changes over the series.
  net_.change_sigma.clear();
  if (settings_.robustness.temporal_fluctuation > 0) {
    std::vector<std::vector<double>> series;
    for (int r = 0; r < settings_.num_rounds; ++r) {
      std::vector<double> d;
      status = BaseDemands(r, &d);
      if (!status.ok()) return status;
      series.push_back(std::move(d));
    }
    net_.change_sigma = ChangeSigma(series);
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::BaseDemands(int round, std::vector<double>* demands) const {
  demands->assign(net_.pairs.size(), 0.0);
  if (settings_.traffic.enabled) {
    *demands = GenerateTraffic(net_.topology, settings_.traffic, net_.generated_pairs, round);
    return Status::Ok();
  }
  if (!settings_.series_file.empty()) {
    const std::vector<double>& row = net_.series.demand[round];
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (row[c] <= 0) continue;
      auto it = net_.pair_index.find(net_.series.pairs[c]);
      if (it == net_.pair_index.end()) {
        return Status(StatusCode::kInternal,
                      settings_.series_file + ": a pair without path variables");
      }
      (*demands)[it->second] = row[c];
    }
    return Status::Ok();
  }
  const std::string& file = settings_.matrix_files[round];
  Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, net_.topology);
  if (!matrix.ok()) return matrix.status();
  for (const DemandEntry& d : matrix.value()) {
    auto it = net_.pair_index.find({d.src, d.dst});
    if (it == net_.pair_index.end()) {
      return Invalid(file + ": demand from node " + NodeName(net_.topology, d.src) + " to node " +
                     NodeName(net_.topology, d.dst) +
                     " has no path variables (the file changed after the deployment started?)");
    }
    (*demands)[it->second] = d.demand;
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::RoundDemands(int round, std::vector<double>* demands) const {
  Status status = BaseDemands(round, demands);
  if (!status.ok()) return status;
  if (settings_.robustness.temporal_fluctuation > 0 && round > 0) {
    Fluctuate(settings_.robustness.temporal_fluctuation,
              net_.change_sigma,
              settings_.robustness.seed,
              round,
              demands);
  }
  if (settings_.robustness.spatial_redistribution > 0) {
    RedistributeTop(0.1, settings_.robustness.spatial_redistribution, demands);
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::Refresh(int round, Problem* problem, bool* finished) {
  *finished = round < 0 || round >= settings_.num_rounds;
  if (*finished) return Status::Ok();
  std::vector<double> demands;
  Status status = RoundDemands(round, &demands);
  if (!status.ok()) return status;
  for (std::size_t k = 0; k < net_.pairs.size(); ++k) demands[k] *= settings_.scale;
  // Link states: the events up to this round, in order (a function of the round only).
  // The configured link events and the inbox's failures and recoveries, in round order (the
  // configured ones first within a round; each list keeps its own order).
  std::vector<LinkEvent> link_states;
  for (const LinkEvent& event : net_.link_events) {
    if (event.round <= round) link_states.push_back(event);
  }
  const std::size_t configured = link_states.size();
  for (const InboxEvent& event : round_.inbox) {
    if (event.round > round) continue;
    if (event.kind == InboxEvent::Kind::kLinkFail || event.kind == InboxEvent::Kind::kLinkRecover) {
      link_states.push_back({event.round, event.link, event.kind == InboxEvent::Kind::kLinkFail});
    }
  }
  std::inplace_merge(link_states.begin(),
                     link_states.begin() + configured,
                     link_states.end(),
                     [](const LinkEvent& a, const LinkEvent& b) { return a.round < b.round; });
  std::fill(round_.failed.begin(), round_.failed.end(), 0);
  for (const LinkEvent& event : link_states) round_.failed[event.link] = event.fail ? 1 : 0;
  // Inbox events applied up to this round, over the configured data and in their order:
  // demands and capacities they set are absolute (not multiplied by `scale`).
  std::vector<double> base_capacity(net_.topology.links.size());
  for (std::size_t e = 0; e < net_.topology.links.size(); ++e)
    base_capacity[e] = net_.topology.links[e].capacity;
  for (const InboxEvent& event : round_.inbox) {
    if (event.round > round) continue;
    switch (event.kind) {
      case InboxEvent::Kind::kLinkFail:
      case InboxEvent::Kind::kLinkRecover:
        break;  // above
      case InboxEvent::Kind::kLinkCapacity:
        base_capacity[event.link] = event.value;
        break;
      case InboxEvent::Kind::kDemand:
        demands[event.pair] = event.value;
        break;
      case InboxEvent::Kind::kMatrix:
        std::fill(demands.begin(), demands.end(), 0.0);
        for (const auto& [pair, value] : event.matrix) demands[pair] = value;
        break;
    }
  }
  for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
    net_.pairs[k].demand = demands[k] / net_.flow_unit;
    problem->SetRhs(net_.pairs[k].demand_row, net_.pairs[k].demand);
  }
  for (std::size_t e = 0; e < net_.topology.links.size(); ++e) {
    round_.capacity[e] = round_.failed[e] ? 0.0 : base_capacity[e];
    if (net_.capacity_row[e] >= 0)
      problem->SetRhs(net_.capacity_row[e], round_.capacity[e] / net_.flow_unit);
    // A failed link's entries are fixed at 0 (for min max utilisation this is the only way the
    // link is switched off: its utilisation expression keeps the nominal capacity).
    for (VarId entry : net_.link_entries[e])
      problem->SetBounds(entry, 0.0, round_.failed[e] ? 0.0 : kInfinity);
  }
  if (settings_.objective == Objective::kMinMaxUtilization) {
    for (const PairModel& pair : net_.pairs) {
      if (pair.demand <= 0) continue;
      if (FirstAlivePath(pair) < 0) {
        return Invalid("round " + std::to_string(round) + ": the link events fail every path of " +
                       NodeName(net_.topology, pair.src) + " -> " +
                       NodeName(net_.topology, pair.dst) +
                       ", which has a demand; min_max_utilization routes every demand in full");
      }
    }
  }
  return Status::Ok();
}

double TrafficEngineeringPlugin::TotalFlow(const Allocation& allocation) const {
  double total = 0.0;
  for (VarId f : net_.path_var) total += std::max(0.0, allocation[f]);
  return total * net_.flow_unit;
}

double TrafficEngineeringPlugin::MaxLinkUtilization(const Allocation& allocation) const {
  const std::vector<double> load = LinkLoads(allocation);
  double worst = 0.0;
  for (std::size_t e = 0; e < load.size(); ++e) {
    const double cap = round_.capacity[e] / net_.flow_unit;
    if (cap > 0) {
      worst = std::max(worst, load[e] / cap);
    } else if (load[e] > 1e-12) {
      worst = kInfinity;
    }
  }
  return worst;
}

double TrafficEngineeringPlugin::TotalDemand() const {
  double total = 0.0;
  for (const PairModel& pair : net_.pairs) total += pair.demand;
  return total * net_.flow_unit;
}

std::vector<DemandEntry> TrafficEngineeringPlugin::Demands() const {
  std::vector<DemandEntry> out;
  out.reserve(net_.pairs.size());
  for (const PairModel& pair : net_.pairs)
    out.push_back({pair.src, pair.dst, pair.demand * net_.flow_unit});
  return out;
}

Status TrafficEngineeringPlugin::Report(int round,
                                        const Problem& problem,
                                        const Allocation& allocation,
                                        RoundReport* report) {
  if (static_cast<int>(allocation.values.size()) != problem.num_variables()) {
    return Status(StatusCode::kInternal, "traffic_engineering: allocation size mismatch");
  }
  const double flow = TotalFlow(allocation);
  const double demand = TotalDemand();
  const int failed = static_cast<int>(std::count(round_.failed.begin(), round_.failed.end(), 1));
  report->metrics = {{"total_flow", flow},
                     {"total_demand", demand},
                     {"satisfied_demand", demand > 0 ? flow / demand : 1.0},
                     {"max_link_utilization", MaxLinkUtilization(allocation)},
                     {"flow_unit", net_.flow_unit},
                     {"failed_links", static_cast<double>(failed)}};
  // What the topology reader changed (TopologyReport), every round, where it changed anything.
  const std::pair<const char*, int> changes[] = {
      {"topology_reverse_links_added", net_.topology.report.reverse_links_added},
      {"topology_parallel_links_merged", net_.topology.report.parallel_links_merged},
      {"topology_capacities_defaulted", net_.topology.report.capacities_defaulted},
      {"topology_capacities_from_modules", net_.topology.report.capacities_from_modules}};
  for (const auto& [name, count] : changes) {
    if (count > 0) report->metrics.push_back({name, static_cast<double>(count)});
  }
  // Entity parameters are in allocation units (multiples of flow_unit), like the persisted
  // entries, so the database's utilisation view divides like by like.
  const std::vector<double> load = LinkLoads(allocation);
  for (int e = 0; e < static_cast<int>(net_.topology.links.size()); ++e) {
    const Link& link = net_.topology.links[e];
    const std::string name =
        NodeName(net_.topology, link.src) + "->" + NodeName(net_.topology, link.dst);
    report->entities.push_back(
        {Side::kResource, e, name, {{"capacity", round_.capacity[e] / net_.flow_unit}}});
    // Per-link load (data units), utilisation against this round's capacity, and state.
    const double cap = round_.capacity[e];
    const double used = load[e] * net_.flow_unit;
    report->records.push_back(
        {"link",
         name,
         {{"index", static_cast<double>(e)},
          {"load", used},
          {"capacity", cap},
          {"utilization", cap > 0 ? used / cap : (used > 1e-9 ? kInfinity : 0.0)},
          {"failed", round_.failed[e] ? 1.0 : 0.0}},
         {}});
  }
  if (settings_.per_pair_blocks) {
    for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
      report->entities.push_back({Side::kDemand,
                                  static_cast<int>(k),
                                  NodeName(net_.topology, net_.pairs[k].src) + "->" +
                                      NodeName(net_.topology, net_.pairs[k].dst),
                                  {{"demand", net_.pairs[k].demand}}});
    }
  } else {
    std::vector<double> by_source(net_.topology.num_nodes(), 0.0);
    for (const PairModel& pair : net_.pairs) by_source[pair.src] += pair.demand;
    for (int s = 0; s < net_.topology.num_nodes(); ++s) {
      report->entities.push_back(
          {Side::kDemand, s, "node" + NodeName(net_.topology, s), {{"demand", by_source[s]}}});
    }
  }
  if (net_.record_paths && round == 0) {
    // The path set itself, once (kind "path"): links by index, for joins with "link" records.
    for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
      const Path& path = *net_.path_of_var[i];
      const PairModel& pair = net_.pairs[net_.pair_of_var[i]];
      std::string links;
      for (int e : path.links) {
        if (!links.empty()) links += ' ';
        links += std::to_string(e);
      }
      report->records.push_back(
          {"path",
           NodeName(net_.topology, pair.src) + "->" + NodeName(net_.topology, pair.dst) + "#" +
               std::to_string(&path - pair.paths.data()),
           {{"hops", static_cast<double>(path.hops())}},
           {{"links", links},
            {"source",
             settings_.paths_file.empty()
                 ? (net_.path_cache_file.empty() ? "computed" : net_.path_cache_file)
                 : settings_.paths_file}}});
    }
  }
  if (net_.record_paths) {
    for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
      const Path& path = *net_.path_of_var[i];
      const PairModel& pair = net_.pairs[net_.pair_of_var[i]];
      const int index = static_cast<int>(&path - pair.paths.data());
      std::string nodes;
      for (int v : path.Nodes(net_.topology)) {
        if (!nodes.empty()) nodes += ' ';
        nodes += NodeName(net_.topology, v);
      }
      report->records.push_back(
          {"path_flow",
           NodeName(net_.topology, pair.src) + "->" + NodeName(net_.topology, pair.dst) + "#" +
               std::to_string(index),
           {{"flow", std::max(0.0, allocation[net_.path_var[i]]) * net_.flow_unit},
            {"demand", pair.demand * net_.flow_unit},
            {"hops", static_cast<double>(path.hops())}},
           {{"nodes", nodes}}});
    }
  }
  return Status::Ok();
}

}  // namespace dede::te
