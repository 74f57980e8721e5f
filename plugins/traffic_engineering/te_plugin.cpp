// traffic_engineering: see te_plugin.h and README.md. The model itself is built by
// BuildPathModel (te_model.cpp); this file reads the settings, produces each round's demands and
// link states, repairs and reports, and implements the baselines (POP-k, demand pinning).
#include "te_plugin.h"

#include <fnmatch.h>

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

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

std::string Resolve(const std::string& dir, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute() || dir.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(dir) / p).lexically_normal().string();
}

// "B4_real_2_1.0.csv" before "B4_real_10_1.0.csv": digit runs compare as numbers.
bool NaturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string NodeName(const Topology& t, int v) { return t.node_names[v]; }

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

Status TrafficEngineeringPlugin::Configure(const ConfigNode& settings,
                                           const PluginContext& context) {
  if (!settings.IsMap())
    return Invalid(settings.Where() +
                   ": plugin.settings must be a map with 'topology' and 'traffic_matrices' "
                   "or 'traffic'");
  Status status = settings.CheckKeys({"topology",
                                      "paths",
                                      "num_paths",
                                      "traffic_matrices",
                                      "traffic",
                                      "objective",
                                      "scale",
                                      "link_events",
                                      "robustness",
                                      "pop_split_fraction",
                                      "pinning_top_fraction",
                                      "record_paths",
                                      "path_cache",
                                      "demand_blocks",
                                      "repair_fill",
                                      "polish_sweeps",
                                      "polish_seconds",
                                      "topology_format",
                                      "parallel_links",
                                      "topology_default_capacity",
                                      "traffic_matrix_pattern",
                                      "traffic_series",
                                      "traffic_series_first_row",
                                      "traffic_series_rows"});
  status.Update(settings.Require("topology"));
  if (!status.ok()) return status;
  if (int{settings.Has("traffic_matrices")} + int{settings.Has("traffic")} +
          int{settings.Has("traffic_series")} != 1) {
    return Invalid(settings.Where() + ": " + settings.path() +
                   ": give exactly one of 'traffic_matrices' (CSV files), 'traffic_series' (one "
                   "CSV, a matrix per row) and 'traffic' (a generator)");
  }
  seed_ = context.seed;
  status.Update(settings.Read("topology", &topology_file_));
  topology_options_ = TopologyOptions{};
  std::string format = "auto";
  status.Update(settings.ReadChoice("topology_format", {"auto", "json", "csv", "graphml", "sndlib"},
                                    &format));
  std::string parallel = "reject";
  status.Update(settings.ReadChoice("parallel_links", {"reject", "sum", "max"}, &parallel));
  if (settings.Has("topology_default_capacity")) {
    status.Update(settings.Read("topology_default_capacity",
                                &topology_options_.default_capacity, 0.0, 1e15));
  }
  if (status.ok()) {
    topology_options_.format = ParseTopologyFormat(format).value();
    topology_options_.parallel_links = parallel == "sum"   ? ParallelLinks::kSum
                                       : parallel == "max" ? ParallelLinks::kMax
                                                           : ParallelLinks::kReject;
  }
  status.Update(settings.Read("paths", &paths_file_));
  status.Update(settings.Read("num_paths", &num_paths_, 1, 64));
  status.Update(settings.Read("scale", &scale_, 0.0, 1e12));
  status.Update(settings.Read("pop_split_fraction", &pop_split_fraction_, 0.0, 16.0));
  status.Update(settings.Read("pinning_top_fraction", &pinning_top_fraction_, 1e-9, 1.0));
  record_paths_set_ = settings.Has("record_paths");
  status.Update(settings.Read("record_paths", &record_paths_));
  repair_fill_ = true;
  status.Update(settings.Read("repair_fill", &repair_fill_));
  polish_sweeps_ = 200;
  status.Update(settings.Read("polish_sweeps", &polish_sweeps_, 0, 100000));
  polish_seconds_ = 0.0;
  status.Update(settings.Read("polish_seconds", &polish_seconds_, 0.0, 1e9));
  std::string objective = "max_total_flow";
  status.Update(
      settings.ReadChoice("objective", {"max_total_flow", "min_max_utilization"}, &objective));
  if (!status.ok()) return status;
  objective_ =
      objective == "max_total_flow" ? Objective::kMaxTotalFlow : Objective::kMinMaxUtilization;
  topology_file_ = Resolve(context.config_dir, topology_file_);
  if (!paths_file_.empty()) paths_file_ = Resolve(context.config_dir, paths_file_);
  std::string demand_blocks = "source";
  status.Update(settings.ReadChoice("demand_blocks", {"source", "pair"}, &demand_blocks));
  per_pair_blocks_ = demand_blocks == "pair";
  path_cache_dir_.clear();
  status.Update(settings.Read("path_cache", &path_cache_dir_));
  if (!status.ok()) return status;
  if (!path_cache_dir_.empty()) path_cache_dir_ = Resolve(context.config_dir, path_cache_dir_);

  traffic_ = TrafficSpec{};
  robustness_ = RobustnessSpec{};
  robustness_.seed = seed_;
  matrix_files_.clear();
  series_file_.clear();
  series_ = TrafficSeries{};
  if (settings.Has("traffic_series")) {
    status.Update(settings.Read("traffic_series", &series_file_));
    series_first_row_ = 0;
    series_rows_ = -1;
    status.Update(settings.Read("traffic_series_first_row", &series_first_row_, 0, 100000000));
    status.Update(settings.Read("traffic_series_rows", &series_rows_, 1, 100000000));
    if (!status.ok()) return status;
    series_file_ = Resolve(context.config_dir, series_file_);
  } else if (settings.Has("traffic_series_first_row") || settings.Has("traffic_series_rows")) {
    return Invalid(settings.Where() + ": " + settings.path() +
                   ": traffic_series_first_row and traffic_series_rows need traffic_series");
  }
  std::string pattern = "*.csv";
  const bool pattern_set = settings.Has("traffic_matrix_pattern");
  status.Update(settings.Read("traffic_matrix_pattern", &pattern));
  if (!status.ok()) return status;
  if (!series_file_.empty()) {
    // The rows are counted when the topology is known (Describe).
  } else if (const ConfigNode* traffic = settings.Find("traffic")) {
    status = ParseTrafficSpec(*traffic, seed_, &traffic_);
    if (!status.ok()) return status;
    num_rounds_ = traffic_.rounds;
  } else {
    const ConfigNode& matrices = *settings.Find("traffic_matrices");
    if (matrices.IsList()) {
      for (const ConfigNode& item : matrices.items()) {
        Result<std::string> file = item.AsString();
        if (!file.ok()) return file.status();
        matrix_files_.push_back(Resolve(context.config_dir, file.value()));
      }
    } else if (matrices.IsScalar()) {
      const std::string dir = Resolve(context.config_dir, matrices.scalar());
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) {
        return Invalid(matrices.Where() + ": " + matrices.path() + " = '" + matrices.scalar() +
                       "': not a directory (" + dir + "); give a directory of CSV files or a list");
      }
      // Every file whose name matches the pattern (default *.csv): a directory holding other
      // CSV files (a README table, the topology) is read with a narrower one.
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.is_regular_file() &&
            ::fnmatch(pattern.c_str(), entry.path().filename().c_str(), 0) == 0) {
          matrix_files_.push_back(entry.path().string());
        }
      }
      std::sort(matrix_files_.begin(), matrix_files_.end(), NaturalLess);
    } else {
      return Invalid(matrices.Where() + ": " + matrices.path() +
                     " must be a list of CSV files or a directory");
    }
    if (matrix_files_.empty()) {
      return Invalid(matrices.Where() + ": " + matrices.path() + ": no traffic-matrix files" +
                     (matrices.IsScalar() ? " matching '" + pattern + "'" : std::string()));
    }
    if (pattern_set && !matrices.IsScalar()) {
      return Invalid(settings.Where() + ": " + settings.path() +
                     ".traffic_matrix_pattern applies to a directory, not to a list of files");
    }
    num_rounds_ = static_cast<int>(matrix_files_.size());
  }
  if (const ConfigNode* robustness = settings.Find("robustness")) {
    status = ParseRobustnessSpec(*robustness, seed_, &robustness_);
    if (!status.ok()) return status;
  }
  raw_events_.clear();
  inbox_.clear();
  if (const ConfigNode* events = settings.Find("link_events")) {
    if (!events->IsList()) {
      return Invalid(events->Where() + ": " + events->path() +
                     " must be a list of {round, link, action} maps");
    }
    for (std::size_t i = 0; i < events->items().size(); ++i) {
      const ConfigNode& e = events->items()[i];
      const std::string where = e.Where() + ": " + events->path() + "[" + std::to_string(i) + "]";
      if (!e.IsMap()) return Invalid(where + " must be a map with round, link and action");
      status = e.CheckKeys({"round", "link", "action"});
      status.Update(e.Require("round"));
      status.Update(e.Require("link"));
      status.Update(e.Require("action"));
      if (!status.ok()) return status;
      RawLinkEvent raw;
      std::string action;
      status.Update(e.Read("round", &raw.round, 0, 100000000));
      status.Update(e.Read("link", &raw.link));
      status.Update(e.ReadChoice("action", {"fail", "recover"}, &action));
      if (!status.ok()) return status;
      raw.fail = action == "fail";
      raw.where = where + ".link = '" + raw.link + "'";
      raw_events_.push_back(std::move(raw));
    }
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::Describe(Problem* problem) {
  Result<Topology> topology = LoadTopology(topology_file_, topology_options_);
  if (!topology.ok()) return topology.status();
  topology_ = std::move(topology.value());
  const int num_links = static_cast<int>(topology_.links.size());

  // Link events: "a->b" (node ids) or a link index.
  link_events_.clear();
  for (const RawLinkEvent& raw : raw_events_) {
    LinkEvent event;
    event.round = raw.round;
    event.fail = raw.fail;
    event.link = -1;
    event.link = ParseLinkTarget(raw.link);
    if (event.link < 0) {
      return Invalid(raw.where + ": no such link in " + topology_file_ +
                     " (give 'a->b' with node ids, or a link index 0.." +
                     std::to_string(num_links - 1) + ")");
    }
    link_events_.push_back(event);
  }
  std::stable_sort(link_events_.begin(),
                   link_events_.end(),
                   [](const LinkEvent& a, const LinkEvent& b) { return a.round < b.round; });

  // Pairs with a positive demand in some round get variables (the structure is fixed).
  std::set<std::pair<int, int>> wanted;
  if (traffic_.enabled) {
    for (const auto& p : GeneratedPairs(topology_, traffic_)) wanted.insert(p);
  } else if (!series_file_.empty()) {
    Result<TrafficSeries> series =
        LoadTrafficSeries(series_file_, topology_, series_first_row_, series_rows_);
    if (!series.ok()) return series.status();
    series_ = std::move(series.value());
    num_rounds_ = static_cast<int>(series_.demand.size());
    for (const std::vector<double>& row : series_.demand) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (row[c] > 0) wanted.insert(series_.pairs[c]);
      }
    }
  } else {
    for (const std::string& file : matrix_files_) {
      Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, topology_);
      if (!matrix.ok()) return matrix.status();
      for (const DemandEntry& d : matrix.value()) wanted.emplace(d.src, d.dst);
    }
  }
  std::map<std::pair<int, int>, std::vector<Path>> given;
  if (!paths_file_.empty()) {
    Result<std::vector<PairPaths>> paths = LoadPaths(paths_file_, topology_);
    if (!paths.ok()) return paths.status();
    for (PairPaths& p : paths.value()) {
      if (static_cast<int>(p.paths.size()) > num_paths_) p.paths.resize(num_paths_);
      given[{p.src, p.dst}] = std::move(p.paths);
    }
  }
  pairs_.clear();
  pair_index_.clear();
  // Computed paths: in parallel over contiguous blocks of pairs, one path finder per thread.
  const std::vector<std::pair<int, int>> wanted_list(wanted.begin(), wanted.end());
  std::vector<std::vector<Path>> computed;
  path_cache_file_.clear();
  paths_from_cache_ = 0;
  paths_computed_ = 0;
  std::vector<char> cached;
  if (paths_file_.empty() && !path_cache_dir_.empty()) {
    // Path cache: a path file keyed by the topology hash, k and the metric, next to nothing
    // else: a restart (or another deployment on the same topology) reads it instead of
    // recomputing; pairs it lacks are computed and the file is rewritten with them.
    char name[96];
    std::snprintf(name,
                  sizeof(name),
                  "paths-%016llx-k%d-min-hop.csv",
                  static_cast<unsigned long long>(TopologyHash(topology_)),
                  num_paths_);
    path_cache_file_ = (std::filesystem::path(path_cache_dir_) / name).string();
    std::error_code ec;
    if (std::filesystem::exists(path_cache_file_, ec)) {
      Result<std::vector<PairPaths>> paths = LoadPaths(path_cache_file_, topology_);
      if (!paths.ok()) {
        return Status(paths.status().code(),
                      "path cache (plugin.settings.path_cache = '" + path_cache_dir_ +
                          "'): " + paths.status().message() + "; delete the file to rebuild it");
      }
      for (PairPaths& p : paths.value()) given[{p.src, p.dst}] = std::move(p.paths);
    }
  }
  if (paths_file_.empty()) {
    computed.resize(wanted_list.size());
    cached.assign(wanted_list.size(), 0);
    for (std::size_t i = 0; i < wanted_list.size(); ++i) {
      if (auto it = given.find(wanted_list[i]); it != given.end()) {
        computed[i] = it->second;
        cached[i] = 1;
        ++paths_from_cache_;
      }
    }
    const int workers =
        static_cast<int>(std::max(1u,
                                  std::min(std::thread::hardware_concurrency(),
                                           static_cast<unsigned>(wanted_list.size() / 64 + 1))));
    std::atomic<std::size_t> next{0};
    constexpr std::size_t kChunk = 256;
    auto work = [&] {
      EdgeDisjointPathFinder finder(topology_);
      for (std::size_t begin = next.fetch_add(kChunk); begin < wanted_list.size();
           begin = next.fetch_add(kChunk)) {
        const std::size_t end = std::min(wanted_list.size(), begin + kChunk);
        for (std::size_t i = begin; i < end; ++i) {
          if (cached[i]) continue;
          computed[i] = finder.Find(wanted_list[i].first, wanted_list[i].second, num_paths_);
        }
      }
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    paths_computed_ = static_cast<int>(wanted_list.size()) - paths_from_cache_;
    if (!path_cache_file_.empty() && paths_computed_ > 0) {
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
      std::filesystem::create_directories(path_cache_dir_, ec);
      const Status written = WritePaths(path_cache_file_, topology_, out);
      if (!written.ok()) {
        return Status(written.code(),
                      "path cache (plugin.settings.path_cache = '" + path_cache_dir_ +
                          "'): " + written.message());
      }
    }
  }
  for (std::size_t w = 0; w < wanted_list.size(); ++w) {
    const auto [src, dst] = wanted_list[w];
    PairModel pair;
    pair.src = src;
    pair.dst = dst;
    if (paths_file_.empty()) {
      pair.paths = std::move(computed[w]);
    } else if (auto it = given.find({src, dst}); it != given.end()) {
      pair.paths = it->second;
    }
    if (pair.paths.empty()) {
      // Generated traffic only goes between connected pairs; a file's demand must be routable.
      if (traffic_.enabled) continue;
      return Invalid((paths_file_.empty() ? topology_file_ : paths_file_) + ": no path from node " +
                     NodeName(topology_, src) + " to node " + NodeName(topology_, dst) +
                     ", which has a positive demand in the traffic matrices (disconnected pair)");
    }
    pair_index_[{src, dst}] = static_cast<int>(pairs_.size());
    pairs_.push_back(std::move(pair));
  }
  generated_pairs_.clear();
  for (const PairModel& pair : pairs_) generated_pairs_.emplace_back(pair.src, pair.dst);

  // Variables are measured in units of the largest capacity, so flows, capacities and link
  // utilisations are all O(1): ADMM uses one rho for the consensus of flows and of the min-max
  // epigraph copies, and with flows in data units (thousands) it converged to points 2-15% off
  // the optimum on B4 (min max utilisation); normalised, it matches the LP.
  flow_unit_ = 1.0;
  for (const Link& link : topology_.links) flow_unit_ = std::max(flow_unit_, link.capacity);
  std::vector<double> capacity(num_links);
  for (int e = 0; e < num_links; ++e) capacity[e] = topology_.links[e].capacity / flow_unit_;
  std::vector<Commodity> commodities;
  commodities.reserve(pairs_.size());
  for (const PairModel& pair : pairs_)
    commodities.push_back({pair.src, pair.dst, &pair.paths, 0.0});
  PathModel model;
  Status status = BuildPathModel(topology_,
                                 capacity,
                                 commodities,
                                 objective_,
                                 flow_unit_,
                                 topology_file_,
                                 &model,
                                 per_pair_blocks_);
  if (!status.ok()) return status;
  block_of_pair_ = model.block;
  path_var_.clear();
  path_of_var_.clear();
  pair_of_var_.clear();
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    pairs_[k].flow = model.flow[k];
    pairs_[k].demand_row = model.demand_row[k];
    for (std::size_t i = 0; i < pairs_[k].paths.size(); ++i) {
      path_var_.push_back(pairs_[k].flow[i]);
      path_of_var_.push_back(&pairs_[k].paths[i]);
      pair_of_var_.push_back(static_cast<int>(k));
    }
  }
  entries_ = std::move(model.entries);
  capacity_row_ = std::move(model.capacity_row);
  link_entries_.assign(num_links, {});
  for (const auto& row : entries_) {
    for (const auto& [e, entry] : row) link_entries_[e].push_back(entry);
  }
  // Per path: the entries x[e, block] its flow loads, in link order (SetEntriesFromPaths).
  {
    std::vector<std::map<int, VarId>> entry_of(entries_.size());
    for (std::size_t b = 0; b < entries_.size(); ++b) {
      for (const auto& [e, entry] : entries_[b]) entry_of[b][e] = entry;
    }
    path_entry_begin_.assign(1, 0);
    path_entry_.clear();
    for (std::size_t i = 0; i < path_var_.size(); ++i) {
      const std::map<int, VarId>& of = entry_of[block_of_pair_[pair_of_var_[i]]];
      for (int e : path_of_var_[i]->links) {
        const auto it = of.find(e);
        if (it == of.end()) {
          return Internal("traffic_engineering: path " + std::to_string(i) + " uses link " +
                          std::to_string(e) + " without an entry in its demand block");
        }
        path_entry_.push_back(it->second);
      }
      path_entry_begin_.push_back(path_entry_.size());
    }
  }
  *problem = std::move(model.problem);
  num_variables_ = problem->num_variables();
  if (!record_paths_set_) record_paths_ = path_var_.size() <= 20000;
  capacity_.assign(num_links, 0.0);
  failed_.assign(num_links, 0);
  for (int e = 0; e < num_links; ++e) capacity_[e] = topology_.links[e].capacity;

  // Temporal fluctuation needs each demand's spread of consecutive changes over the series.
  change_sigma_.clear();
  if (robustness_.temporal_fluctuation > 0) {
    std::vector<std::vector<double>> series;
    for (int r = 0; r < num_rounds_; ++r) {
      std::vector<double> d;
      status = BaseDemands(r, &d);
      if (!status.ok()) return status;
      series.push_back(std::move(d));
    }
    change_sigma_ = ChangeSigma(series);
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::BaseDemands(int round, std::vector<double>* demands) const {
  demands->assign(pairs_.size(), 0.0);
  if (traffic_.enabled) {
    *demands = GenerateTraffic(topology_, traffic_, generated_pairs_, round);
    return Status::Ok();
  }
  if (!series_file_.empty()) {
    const std::vector<double>& row = series_.demand[round];
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (row[c] <= 0) continue;
      auto it = pair_index_.find(series_.pairs[c]);
      if (it == pair_index_.end()) {
        return Status(StatusCode::kInternal, series_file_ + ": a pair without path variables");
      }
      (*demands)[it->second] = row[c];
    }
    return Status::Ok();
  }
  const std::string& file = matrix_files_[round];
  Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, topology_);
  if (!matrix.ok()) return matrix.status();
  for (const DemandEntry& d : matrix.value()) {
    auto it = pair_index_.find({d.src, d.dst});
    if (it == pair_index_.end()) {
      return Invalid(file + ": demand from node " + NodeName(topology_, d.src) + " to node " +
                     NodeName(topology_, d.dst) +
                     " has no path variables (the file changed after the deployment started?)");
    }
    (*demands)[it->second] = d.demand;
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::RoundDemands(int round, std::vector<double>* demands) const {
  Status status = BaseDemands(round, demands);
  if (!status.ok()) return status;
  if (robustness_.temporal_fluctuation > 0 && round > 0) {
    Fluctuate(robustness_.temporal_fluctuation, change_sigma_, robustness_.seed, round, demands);
  }
  if (robustness_.spatial_redistribution > 0) {
    RedistributeTop(0.1, robustness_.spatial_redistribution, demands);
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::Refresh(int round, Problem* problem, bool* finished) {
  *finished = round < 0 || round >= num_rounds_;
  if (*finished) return Status::Ok();
  std::vector<double> demands;
  Status status = RoundDemands(round, &demands);
  if (!status.ok()) return status;
  for (std::size_t k = 0; k < pairs_.size(); ++k) demands[k] *= scale_;
  // Link states: the events up to this round, in order (a function of the round only).
  // The configured link events and the inbox's failures and recoveries, in round order (the
  // configured ones first within a round; each list keeps its own order).
  std::vector<LinkEvent> link_states;
  for (const LinkEvent& event : link_events_) {
    if (event.round <= round) link_states.push_back(event);
  }
  const std::size_t configured = link_states.size();
  for (const InboxEvent& event : inbox_) {
    if (event.round > round) continue;
    if (event.kind == InboxEvent::Kind::kLinkFail || event.kind == InboxEvent::Kind::kLinkRecover) {
      link_states.push_back({event.round, event.link, event.kind == InboxEvent::Kind::kLinkFail});
    }
  }
  std::inplace_merge(link_states.begin(), link_states.begin() + configured, link_states.end(),
                     [](const LinkEvent& a, const LinkEvent& b) { return a.round < b.round; });
  std::fill(failed_.begin(), failed_.end(), 0);
  for (const LinkEvent& event : link_states) failed_[event.link] = event.fail ? 1 : 0;
  // Inbox events applied up to this round, over the configured data and in their order:
  // demands and capacities they set are absolute (not multiplied by `scale`).
  std::vector<double> base_capacity(topology_.links.size());
  for (std::size_t e = 0; e < topology_.links.size(); ++e) base_capacity[e] = topology_.links[e].capacity;
  for (const InboxEvent& event : inbox_) {
    if (event.round > round) continue;
    switch (event.kind) {
      case InboxEvent::Kind::kLinkFail:
      case InboxEvent::Kind::kLinkRecover: break;  // above
      case InboxEvent::Kind::kLinkCapacity: base_capacity[event.link] = event.value; break;
      case InboxEvent::Kind::kDemand: demands[event.pair] = event.value; break;
      case InboxEvent::Kind::kMatrix:
        std::fill(demands.begin(), demands.end(), 0.0);
        for (const auto& [pair, value] : event.matrix) demands[pair] = value;
        break;
    }
  }
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    pairs_[k].demand = demands[k] / flow_unit_;
    problem->SetRhs(pairs_[k].demand_row, pairs_[k].demand);
  }
  for (std::size_t e = 0; e < topology_.links.size(); ++e) {
    capacity_[e] = failed_[e] ? 0.0 : base_capacity[e];
    if (capacity_row_[e] >= 0) problem->SetRhs(capacity_row_[e], capacity_[e] / flow_unit_);
    // A failed link's entries are fixed at 0 (for min max utilisation this is the only way the
    // link is switched off: its utilisation expression keeps the nominal capacity).
    for (VarId entry : link_entries_[e])
      problem->SetBounds(entry, 0.0, failed_[e] ? 0.0 : kInfinity);
  }
  if (objective_ == Objective::kMinMaxUtilization) {
    for (const PairModel& pair : pairs_) {
      if (pair.demand <= 0) continue;
      if (FirstAlivePath(pair) < 0) {
        return Invalid("round " + std::to_string(round) + ": the link events fail every path of " +
                       NodeName(topology_, pair.src) + " -> " + NodeName(topology_, pair.dst) +
                       ", which has a demand; min_max_utilization routes every demand in full");
      }
    }
  }
  return Status::Ok();
}

int TrafficEngineeringPlugin::FirstAlivePath(const PairModel& pair) const {
  for (std::size_t i = 0; i < pair.paths.size(); ++i) {
    if (PathAlive(pair.paths[i])) return static_cast<int>(i);
  }
  return -1;
}

bool TrafficEngineeringPlugin::PathAlive(const Path& path) const {
  for (int e : path.links) {
    if (failed_[e]) return false;
  }
  return true;
}

std::vector<double> TrafficEngineeringPlugin::LinkLoads(const Allocation& allocation) const {
  return LinkLoads(allocation.values);
}

std::vector<double> TrafficEngineeringPlugin::LinkLoads(const std::vector<double>& values) const {
  std::vector<double> load(topology_.links.size(), 0.0);
  for (std::size_t i = 0; i < path_var_.size(); ++i) {
    const double f = std::max(0.0, values[path_var_[i]]);
    for (int e : path_of_var_[i]->links) load[e] += f;
  }
  return load;
}

void TrafficEngineeringPlugin::SetEntriesFromPaths(Allocation* allocation) const {
  std::vector<double>& v = allocation->values;
  for (const auto& row : entries_) {
    for (const auto& link_entry : row) v[link_entry.second] = 0.0;
  }
  for (std::size_t i = 0; i < path_var_.size(); ++i) {
    const double flow = v[path_var_[i]];
    for (std::size_t j = path_entry_begin_[i]; j < path_entry_begin_[i + 1]; ++j)
      v[path_entry_[j]] += flow;
  }
}

void TrafficEngineeringPlugin::SetPathFlows(const std::vector<std::vector<double>>& flows,
                                            Allocation* allocation) const {
  allocation->values.assign(num_variables_, 0.0);
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    for (std::size_t i = 0; i < pairs_[k].flow.size() && i < flows[k].size(); ++i) {
      allocation->values[pairs_[k].flow[i]] = std::max(0.0, flows[k][i]);
    }
  }
  SetEntriesFromPaths(allocation);
}

Status TrafficEngineeringPlugin::Repair(const Problem& problem, Allocation* allocation) {
  if (static_cast<int>(allocation->values.size()) != problem.num_variables()) {
    return Status(StatusCode::kInternal,
                  "traffic_engineering: allocation has " +
                      std::to_string(allocation->values.size()) + " values, problem has " +
                      std::to_string(problem.num_variables()));
  }
  std::vector<double>& v = allocation->values;
  for (std::size_t i = 0; i < path_var_.size(); ++i) {
    v[path_var_[i]] = PathAlive(*path_of_var_[i]) ? std::max(0.0, v[path_var_[i]]) : 0.0;
  }
  if (objective_ == Objective::kMaxTotalFlow) {
    // A path carries no more than any link on it grants its block: f_p <= x[e, block] for
    // every e on p. The demand-side copy satisfies this with equality already; the
    // resource-side copy (solver.admm.final_iterate: resource) fits every link's capacity,
    // and trimming its path flows to it keeps most of that fit, so less is scaled away below.
    for (std::size_t i = 0; i < path_var_.size(); ++i) {
      double& flow = v[path_var_[i]];
      for (std::size_t j = path_entry_begin_[i]; j < path_entry_begin_[i + 1]; ++j) {
        flow = std::min(flow, std::max(0.0, v[path_entry_[j]]));
      }
    }
    // As the reference's fix step: cap every demand, then scale each path by the worst
    // overload on its links. Loads only shrink, so link_load_e <= sum f_p c_e / load_e = c_e.
    for (const PairModel& pair : pairs_) {
      double sum = 0.0;
      for (VarId f : pair.flow) sum += v[f];
      if (sum > pair.demand) {
        const double factor = sum > 0 ? pair.demand / sum : 0.0;
        for (VarId f : pair.flow) v[f] *= factor;
      }
    }
    const std::vector<double> load = LinkLoads(*allocation);
    for (std::size_t i = 0; i < path_var_.size(); ++i) {
      double factor = 1.0;
      for (int e : path_of_var_[i]->links) {
        const double cap = capacity_[e] / flow_unit_;
        if (load[e] > cap) factor = std::min(factor, load[e] > 0 ? cap / load[e] : 0.0);
      }
      v[path_var_[i]] *= factor;
    }
    if (repair_fill_) FillResidual(&v);
  } else {
    // Every demand is routed in full: rescale the pair's flows to its volume (all of it on the
    // first path that avoids failed links if the solver left none).
    for (const PairModel& pair : pairs_) {
      double sum = 0.0;
      for (VarId f : pair.flow) sum += v[f];
      if (sum > 0) {
        for (VarId f : pair.flow) v[f] *= pair.demand / sum;
      } else {
        for (VarId f : pair.flow) v[f] = 0.0;
        const int first = FirstAlivePath(pair);
        v[pair.flow[first < 0 ? 0 : first]] = pair.demand;
      }
    }
    if (polish_sweeps_ > 0) PolishUtilization(&v);
  }
  // Entries equal the loads their path flows put on each link (coupling rows exact).
  SetEntriesFromPaths(allocation);
  return Status::Ok();
}

void TrafficEngineeringPlugin::FillResidual(std::vector<double>* values) const {
  // Scaling every path by its worst overload leaves slack on the links it relieved. Route the
  // unmet demand greedily on that slack, fewest hops first (a hop-short path uses the least
  // capacity per unit of flow), each path up to its pair's unmet demand and its tightest
  // link's residual capacity. Flows only grow and no link goes above its capacity.
  std::vector<double>& v = *values;
  const std::vector<double> load = LinkLoads(v);
  std::vector<double> residual(load.size());
  for (std::size_t e = 0; e < load.size(); ++e)
    residual[e] = std::max(0.0, capacity_[e] / flow_unit_ - load[e]);
  std::vector<double> unmet(pairs_.size());
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    double sum = 0.0;
    for (VarId f : pairs_[k].flow) sum += v[f];
    unmet[k] = std::max(0.0, pairs_[k].demand - sum);
  }
  std::vector<int> order;
  order.reserve(path_var_.size());
  for (std::size_t i = 0; i < path_var_.size(); ++i) {
    if (unmet[pair_of_var_[i]] > 0 && PathAlive(*path_of_var_[i]))
      order.push_back(static_cast<int>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return path_of_var_[a]->links.size() < path_of_var_[b]->links.size();
  });
  for (int i : order) {
    double& need = unmet[pair_of_var_[i]];
    if (need <= 0) continue;
    double add = need;
    for (int e : path_of_var_[i]->links) add = std::min(add, residual[e]);
    // Below this the addition is rounding noise (and could push a link over by an ulp).
    if (add <= 1e-12 * std::max(1.0, need)) continue;
    v[path_var_[i]] += add;
    need -= add;
    for (int e : path_of_var_[i]->links) residual[e] = std::max(0.0, residual[e] - add);
  }
}

void TrafficEngineeringPlugin::PolishUtilization(std::vector<double>* values) const {
  // Flow deviation on the potential sum_e c_e (u_e / U)^p, whose minimiser approaches the
  // min-max utilisation routing as p grows: pair by pair, move flow from its path of highest
  // marginal cost to its path of lowest one by a Newton step. p starts at 16 and doubles (up
  // to 256) whenever a sweep stops lowering the max utilisation. Every pair keeps its full
  // volume; the best routing seen is kept, so the polish never makes the max worse.
  std::vector<double>& v = *values;
  const std::size_t num_links = topology_.links.size();
  std::vector<double> inv_cap(num_links, 0.0);
  for (std::size_t e = 0; e < num_links; ++e) {
    if (capacity_[e] > 0) inv_cap[e] = flow_unit_ / capacity_[e];
  }
  std::vector<double> load = LinkLoads(v);
  auto max_utilization = [&] {
    double worst = 0.0;
    for (std::size_t e = 0; e < num_links; ++e) worst = std::max(worst, load[e] * inv_cap[e]);
    return worst;
  };
  // Per pair: its alive paths (indices into pair.flow).
  std::vector<std::vector<int>> alive(pairs_.size());
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    for (std::size_t i = 0; i < pairs_[k].paths.size(); ++i) {
      if (PathAlive(pairs_[k].paths[i])) alive[k].push_back(static_cast<int>(i));
    }
  }
  int squarings = 4;  // p = 2^squarings
  // r^p / r = r^(p-1), the marginal cost of a unit of flow on a link at relative load r.
  auto power = [&squarings](double r) {
    double rp = r;
    for (int i = 0; i < squarings; ++i) rp *= rp;
    return rp;
  };
  double best = max_utilization();
  // The best routing seen, as path flows (parallel to path_var_).
  std::vector<double> best_flows(path_var_.size());
  auto keep_best = [&] {
    for (std::size_t i = 0; i < path_var_.size(); ++i) best_flows[i] = v[path_var_[i]];
  };
  keep_best();
  int stalled = 0;
  // polish_seconds > 0: no sweep starts once that much time has passed (the first always runs).
  const auto polish_start = std::chrono::steady_clock::now();
  const auto out_of_time = [&] {
    return polish_seconds_ > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - polish_start)
                   .count() >= polish_seconds_;
  };
  for (int sweep = 0; sweep < polish_sweeps_ && best > 0 && (sweep == 0 || !out_of_time());
       ++sweep) {
    const double p = static_cast<double>(1 << squarings);
    const double scale = 1.0 / max_utilization();  // relative load u_e / U, U this sweep's max
    for (std::size_t k = 0; k < pairs_.size(); ++k) {
      const PairModel& pair = pairs_[k];
      if (alive[k].size() < 2 || pair.demand <= 0) continue;
      int hot = -1, cool = -1;
      double hot_cost = -1.0, cool_cost = kInfinity;
      for (int i : alive[k]) {
        double cost = 0.0;
        for (int e : pair.paths[i].links) {
          const double r = load[e] * inv_cap[e] * scale;
          if (r > 0) cost += power(r) / r;
        }
        if (v[pair.flow[i]] > 0 && cost > hot_cost) hot = i, hot_cost = cost;
        if (cost < cool_cost) cool = i, cool_cost = cost;
      }
      if (hot < 0 || hot == cool || hot_cost - cool_cost <= 1e-9 * hot_cost) continue;
      // Curvature along the move (per unit of flow): links on exactly one of the two paths.
      const std::vector<int>& a = pair.paths[hot].links;
      const std::vector<int>& b = pair.paths[cool].links;
      double curvature = 0.0;
      auto add_curvature = [&](const std::vector<int>& links, const std::vector<int>& other) {
        for (int e : links) {
          if (std::find(other.begin(), other.end(), e) != other.end()) continue;
          const double r = load[e] * inv_cap[e] * scale;
          if (r > 0) curvature += (p - 1) * power(r) / (r * r) * inv_cap[e] * scale;
        }
      };
      add_curvature(a, b);
      add_curvature(b, a);
      if (!(curvature > 0)) continue;
      const double step = std::min(v[pair.flow[hot]], (hot_cost - cool_cost) / curvature);
      if (!(step > 0)) continue;
      v[pair.flow[hot]] -= step;
      v[pair.flow[cool]] += step;
      for (int e : a) load[e] -= step;
      for (int e : b) load[e] += step;
    }
    const double now = max_utilization();
    if (now < best * (1 - 1e-6)) {
      best = now;
      keep_best();
      stalled = 0;
    } else if (++stalled >= 3) {
      if (squarings == 8) break;
      ++squarings;
      stalled = 0;
    }
  }
  for (std::size_t i = 0; i < path_var_.size(); ++i) v[path_var_[i]] = best_flows[i];
}

double TrafficEngineeringPlugin::TotalFlow(const Allocation& allocation) const {
  double total = 0.0;
  for (VarId f : path_var_) total += std::max(0.0, allocation[f]);
  return total * flow_unit_;
}

double TrafficEngineeringPlugin::MaxLinkUtilization(const Allocation& allocation) const {
  const std::vector<double> load = LinkLoads(allocation);
  double worst = 0.0;
  for (std::size_t e = 0; e < load.size(); ++e) {
    const double cap = capacity_[e] / flow_unit_;
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
  for (const PairModel& pair : pairs_) total += pair.demand;
  return total * flow_unit_;
}

std::vector<DemandEntry> TrafficEngineeringPlugin::Demands() const {
  std::vector<DemandEntry> out;
  out.reserve(pairs_.size());
  for (const PairModel& pair : pairs_)
    out.push_back({pair.src, pair.dst, pair.demand * flow_unit_});
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
  const int failed = static_cast<int>(std::count(failed_.begin(), failed_.end(), 1));
  report->metrics = {{"total_flow", flow},
                     {"total_demand", demand},
                     {"satisfied_demand", demand > 0 ? flow / demand : 1.0},
                     {"max_link_utilization", MaxLinkUtilization(allocation)},
                     {"flow_unit", flow_unit_},
                     {"failed_links", static_cast<double>(failed)}};
  // What the topology reader changed (TopologyReport), every round, where it changed anything.
  const std::pair<const char*, int> changes[] = {
      {"topology_reverse_links_added", topology_.report.reverse_links_added},
      {"topology_parallel_links_merged", topology_.report.parallel_links_merged},
      {"topology_capacities_defaulted", topology_.report.capacities_defaulted},
      {"topology_capacities_from_modules", topology_.report.capacities_from_modules}};
  for (const auto& [name, count] : changes) {
    if (count > 0) report->metrics.push_back({name, static_cast<double>(count)});
  }
  // Entity parameters are in allocation units (multiples of flow_unit), like the persisted
  // entries, so the database's utilisation view divides like by like.
  const std::vector<double> load = LinkLoads(allocation);
  for (int e = 0; e < static_cast<int>(topology_.links.size()); ++e) {
    const Link& link = topology_.links[e];
    const std::string name = NodeName(topology_, link.src) + "->" + NodeName(topology_, link.dst);
    report->entities.push_back(
        {Side::kResource, e, name, {{"capacity", capacity_[e] / flow_unit_}}});
    // Per-link load (data units), utilisation against this round's capacity, and state.
    const double cap = capacity_[e];
    const double used = load[e] * flow_unit_;
    report->records.push_back(
        {"link",
         name,
         {{"index", static_cast<double>(e)},
          {"load", used},
          {"capacity", cap},
          {"utilization", cap > 0 ? used / cap : (used > 1e-9 ? kInfinity : 0.0)},
          {"failed", failed_[e] ? 1.0 : 0.0}},
         {}});
  }
  if (per_pair_blocks_) {
    for (std::size_t k = 0; k < pairs_.size(); ++k) {
      report->entities.push_back(
          {Side::kDemand,
           static_cast<int>(k),
           NodeName(topology_, pairs_[k].src) + "->" + NodeName(topology_, pairs_[k].dst),
           {{"demand", pairs_[k].demand}}});
    }
  } else {
    std::vector<double> by_source(topology_.num_nodes(), 0.0);
    for (const PairModel& pair : pairs_) by_source[pair.src] += pair.demand;
    for (int s = 0; s < topology_.num_nodes(); ++s) {
      report->entities.push_back(
          {Side::kDemand, s, "node" + NodeName(topology_, s), {{"demand", by_source[s]}}});
    }
  }
  if (record_paths_ && round == 0) {
    // The path set itself, once (kind "path"): links by index, for joins with "link" records.
    for (std::size_t i = 0; i < path_var_.size(); ++i) {
      const Path& path = *path_of_var_[i];
      const PairModel& pair = pairs_[pair_of_var_[i]];
      std::string links;
      for (int e : path.links) links += (links.empty() ? "" : " ") + std::to_string(e);
      report->records.push_back(
          {"path",
           NodeName(topology_, pair.src) + "->" + NodeName(topology_, pair.dst) + "#" +
               std::to_string(&path - pair.paths.data()),
           {{"hops", static_cast<double>(path.hops())}},
           {{"links", links},
            {"source",
             paths_file_.empty() ? (path_cache_file_.empty() ? "computed" : path_cache_file_)
                                 : paths_file_}}});
    }
  }
  if (record_paths_) {
    for (std::size_t i = 0; i < path_var_.size(); ++i) {
      const Path& path = *path_of_var_[i];
      const PairModel& pair = pairs_[pair_of_var_[i]];
      const int index = static_cast<int>(&path - pair.paths.data());
      std::string nodes;
      for (int v : path.nodes) nodes += (nodes.empty() ? "" : " ") + NodeName(topology_, v);
      report->records.push_back({"path_flow",
                                 NodeName(topology_, pair.src) + "->" +
                                     NodeName(topology_, pair.dst) + "#" + std::to_string(index),
                                 {{"flow", std::max(0.0, allocation[path_var_[i]]) * flow_unit_},
                                  {"demand", pair.demand * flow_unit_},
                                  {"hops", static_cast<double>(path.hops())}},
                                 {{"nodes", nodes}}});
    }
  }
  return Status::Ok();
}

// ---- baselines ------------------------------------------------------------------------------

std::vector<MethodInfo> TrafficEngineeringPlugin::Methods() const {
  return {{"exact",
           "the compact path LP (path flows only, link and demand rows) solved by the host's exact "
           "solver (Clp)"},
          {"pop-4", "POP with 4 random demand groups, each on every link at capacity/4 (Clp)"},
          {"pop-16", "POP with 16 random demand groups, each on every link at capacity/16 (Clp)"},
          {"pop-64", "POP with 64 random demand groups, each on every link at capacity/64 (Clp)"},
          {"demand_pinning",
           "exact LP (Clp) for the top 10% of demands, the rest pinned on their shortest path"},
          {"flow_deviation",
           "min max utilisation only: shortest paths, then the repair's flow-deviation polish "
           "(no LP, no ADMM)"}};
}

Status TrafficEngineeringPlugin::SolveWith(const std::string& method,
                                           int round,
                                           const Problem& problem,
                                           const SolverServices& services,
                                           Allocation* allocation,
                                           SolveSummary* summary) {
  if (problem.num_variables() != num_variables_) {
    return Internal("traffic_engineering: SolveWith got a problem with " +
                    std::to_string(problem.num_variables()) + " variables, described " +
                    std::to_string(num_variables_));
  }
  if (method == "exact") return SolveExactLp(problem, services, allocation, summary);
  if (method == "demand_pinning") return SolvePinning(problem, services, allocation, summary);
  if (method == "flow_deviation") {
    if (objective_ != Objective::kMinMaxUtilization) {
      return Invalid("traffic_engineering: method 'flow_deviation' needs objective "
                     "min_max_utilization (this deployment's objective is max_total_flow)");
    }
    const auto start = std::chrono::steady_clock::now();
    allocation->values.assign(num_variables_, 0.0);
    for (const PairModel& pair : pairs_) {
      const int first = FirstAlivePath(pair);
      if (pair.demand > 0 && first >= 0) allocation->values[pair.flow[first]] = pair.demand;
    }
    if (polish_sweeps_ > 0) PolishUtilization(&allocation->values);
    SetEntriesFromPaths(allocation);
    FinishSummary("flow_deviation", problem, *allocation, summary);
    summary->termination = Termination::kConverged;
    summary->message = "shortest paths + flow deviation";
    summary->total_seconds = Seconds(start);
    return Status::Ok();
  }
  if (method.rfind("pop-", 0) == 0) {
    const std::string digits = method.substr(4);
    int k = 0;
    if (!digits.empty() && digits.size() <= 5 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      k = std::stoi(digits);
    }
    if (k >= 1) return SolvePop(k, round, problem, services, allocation, summary);
  }
  return Invalid("traffic_engineering has no method '" + method +
                 "' (methods: pop-4, pop-16, pop-64 or any pop-<k>, demand_pinning, "
                 "flow_deviation)");
}

Status TrafficEngineeringPlugin::SolveLp(const std::vector<Commodity>& commodities,
                                         const std::vector<double>& capacity,
                                         const SolverServices& services,
                                         std::vector<std::vector<double>>* flows,
                                         SolveSummary* summary) const {
  flows->assign(commodities.size(), {});
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    flows->at(k).assign(commodities[k].paths->size(), 0.0);
  }
  if (commodities.empty()) {
    summary->termination = Termination::kConverged;
    summary->message = "no commodities";
    summary->total_seconds = 0.0;
    return Status::Ok();
  }
  // Failed links: nominal capacity in the utilisation term (it must be > 0); their paths get
  // bounds 0 (and, for max total flow, the capacity row 0).
  std::vector<double> model_capacity = capacity;
  for (std::size_t e = 0; e < capacity.size(); ++e) {
    if (failed_[e] && model_capacity[e] <= 0)
      model_capacity[e] = topology_.links[e].capacity / flow_unit_;
  }
  CompactModel model;
  Status status = BuildCompactModel(topology_,
                                    model_capacity,
                                    failed_,
                                    commodities,
                                    objective_,
                                    flow_unit_,
                                    topology_file_,
                                    &model);
  if (!status.ok()) return status;
  Allocation solution;
  status = services.exact(model.problem, services.exact_options, &solution, summary);
  if (!status.ok()) return status;
  if (solution.values.size() != static_cast<std::size_t>(model.problem.num_variables())) {
    return Internal("traffic_engineering: the exact solver returned no allocation (" +
                    summary->message + ")");
  }
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    for (std::size_t i = 0; i < model.flow[k].size(); ++i) {
      (*flows)[k][i] = std::max(0.0, solution[model.flow[k][i]]);
    }
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::SolveExactLp(const Problem& problem,
                                              const SolverServices& services,
                                              Allocation* allocation,
                                              SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  // The compact path LP over every pair with a demand, at this round's capacities.
  std::vector<Commodity> commodities;
  std::vector<int> pair_of;
  std::size_t columns = 0;
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    if (pairs_[p].demand <= 0) continue;
    commodities.push_back({pairs_[p].src, pairs_[p].dst, &pairs_[p].paths, pairs_[p].demand});
    pair_of.push_back(static_cast<int>(p));
    columns += pairs_[p].paths.size();
  }
  std::vector<double> capacity(capacity_.size());
  for (std::size_t e = 0; e < capacity.size(); ++e) capacity[e] = capacity_[e] / flow_unit_;
  std::vector<std::vector<double>> lp_flows;
  Status status = SolveLp(commodities, capacity, services, &lp_flows, summary);
  if (!status.ok()) return status;
  const Termination termination =
      commodities.empty() ? Termination::kConverged : summary->termination;
  const std::string message = summary->message;
  const double solve_seconds = summary->total_seconds;
  std::vector<std::vector<double>> flows(pairs_.size());
  for (std::size_t p = 0; p < pairs_.size(); ++p) flows[p].assign(pairs_[p].paths.size(), 0.0);
  for (std::size_t c = 0; c < commodities.size(); ++c) flows[pair_of[c]] = std::move(lp_flows[c]);
  SetPathFlows(flows, allocation);
  FinishSummary("exact", problem, *allocation, summary);
  summary->termination = termination;
  summary->solve_seconds = solve_seconds;
  summary->total_seconds = Seconds(start);
  summary->message = "compact path LP (" + std::to_string(commodities.size()) + " demands, " +
                     std::to_string(columns) + " path flows): " + message;
  return Status::Ok();
}

void TrafficEngineeringPlugin::FinishSummary(const std::string& method,
                                             const Problem& problem,
                                             const Allocation& allocation,
                                             SolveSummary* summary) const {
  summary->method = method;
  summary->objective = problem.EvaluateObjective(allocation.values);
  summary->max_violation = problem.MeasureViolation(allocation.values).Max();
  summary->feasible = summary->max_violation <= 1e-6;
  summary->num_threads = 1;
}

Status TrafficEngineeringPlugin::SolvePop(int k,
                                          int round,
                                          const Problem& problem,
                                          const SolverServices& services,
                                          Allocation* allocation,
                                          SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  // Pieces: one per pair with a demand, then POP's client splitting: round(f N) times the
  // largest piece is replaced by two halves.
  struct Piece {
    int pair;
    double demand;
  };
  std::vector<Piece> pieces;
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    if (pairs_[p].demand > 0) pieces.push_back({static_cast<int>(p), pairs_[p].demand});
  }
  const int extra = static_cast<int>(std::llround(pop_split_fraction_ * pieces.size()));
  if (extra > 0) {
    auto less = [&](int a, int b) {
      return pieces[a].demand < pieces[b].demand || (pieces[a].demand == pieces[b].demand && a > b);
    };
    std::priority_queue<int, std::vector<int>, decltype(less)> heap(less);
    for (int i = 0; i < static_cast<int>(pieces.size()); ++i) heap.push(i);
    for (int n = 0; n < extra; ++n) {
      const int i = heap.top();
      heap.pop();
      pieces[i].demand /= 2;
      pieces.push_back({pieces[i].pair, pieces[i].demand});
      heap.push(i);
      heap.push(static_cast<int>(pieces.size()) - 1);
    }
  }
  std::vector<std::vector<int>> pieces_of(pairs_.size());
  for (int i = 0; i < static_cast<int>(pieces.size()); ++i) pieces_of[pieces[i].pair].push_back(i);
  // Each pair's pieces go to distinct groups of a fresh random permutation (wrapping past k).
  std::mt19937_64 rng(StreamSeed(seed_, round, 100 + static_cast<std::uint64_t>(k)));
  std::vector<int> perm(k);
  std::vector<std::vector<Commodity>> groups(k);
  std::vector<std::vector<int>> group_piece(k);
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    if (pieces_of[p].empty()) continue;
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t j = 0; j < pieces_of[p].size(); ++j) {
      const int g = perm[j % k];
      const Piece& piece = pieces[pieces_of[p][j]];
      groups[g].push_back({pairs_[p].src, pairs_[p].dst, &pairs_[p].paths, piece.demand});
      group_piece[g].push_back(pieces_of[p][j]);
    }
  }
  std::vector<double> capacity(capacity_.size());
  for (std::size_t e = 0; e < capacity.size(); ++e) capacity[e] = capacity_[e] / flow_unit_ / k;

  // Sub-problems in parallel (each a Clp solve), as many at once as the deployment's threads.
  int workers = services.admm_options.num_threads > 0
                    ? services.admm_options.num_threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers = std::max(1, std::min(workers, k));
  std::vector<std::vector<std::vector<double>>> group_flows(k);
  std::vector<SolveSummary> group_summary(k);
  std::vector<Status> group_status(k);
  std::vector<double> group_seconds(k, 0.0);
  std::atomic<int> next{0};
  auto work = [&] {
    for (int g = next++; g < k; g = next++) {
      if (services.stop.stop_requested()) {
        group_status[g] = Status(StatusCode::kCancelled, "cancelled");
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      group_status[g] = SolveLp(groups[g], capacity, services, &group_flows[g], &group_summary[g]);
      group_seconds[g] = Seconds(t0);
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();

  // Merge: every pair's path flows are the sums over its pieces.
  std::vector<std::vector<double>> flows(pairs_.size());
  for (std::size_t p = 0; p < pairs_.size(); ++p) flows[p].assign(pairs_[p].paths.size(), 0.0);
  summary->termination = Termination::kConverged;
  summary->message.clear();
  for (int g = 0; g < k; ++g) {
    if (!group_status[g].ok()) {
      if (group_status[g].code() == StatusCode::kCancelled) {
        summary->termination = Termination::kCancelled;
        summary->message = "cancelled";
        continue;
      }
      return Status(group_status[g].code(),
                    "pop-" + std::to_string(k) + " group " + std::to_string(g) + ": " +
                        group_status[g].message());
    }
    if (!groups[g].empty() && !group_summary[g].IsSolutionUsable() &&
        summary->termination == Termination::kConverged) {
      summary->termination = group_summary[g].termination;
      summary->message = "group " + std::to_string(g) + ": " + group_summary[g].message + "; ";
    }
    for (std::size_t c = 0; c < groups[g].size(); ++c) {
      const int p = pieces[group_piece[g][c]].pair;
      for (std::size_t i = 0; i < flows[p].size(); ++i) flows[p][i] += group_flows[g][c][i];
    }
  }
  SetPathFlows(flows, allocation);
  FinishSummary("pop-" + std::to_string(k), problem, *allocation, summary);
  const double slowest = *std::max_element(group_seconds.begin(), group_seconds.end());
  const double sum = std::accumulate(group_seconds.begin(), group_seconds.end(), 0.0);
  summary->num_threads = workers;
  summary->solve_seconds = sum;
  summary->total_seconds = Seconds(start);
  char text[200];
  std::snprintf(text,
                sizeof(text),
                "POP-%d: %zu pieces in %d groups, %d at once; slowest group %.3f s, sum %.3f s",
                k,
                pieces.size(),
                k,
                workers,
                slowest,
                sum);
  summary->message += text;
  return Status::Ok();
}

Status TrafficEngineeringPlugin::SolvePinning(const Problem& problem,
                                              const SolverServices& services,
                                              Allocation* allocation,
                                              SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  // Teal's LP-top, as DeDe compares with it: the top `pinning_top_fraction` of the demands (by
  // volume, a quantile of the positive demands) get the exact path LP over the full capacities;
  // every other demand is pinned on its shortest path in (src, dst) order, with what capacity
  // remains (max total flow) or in full (min max utilisation).
  std::vector<double> positive;
  for (const PairModel& pair : pairs_) {
    if (pair.demand > 0) positive.push_back(pair.demand);
  }
  const double threshold = Quantile(positive, 1.0 - pinning_top_fraction_);
  std::vector<Commodity> top;
  std::vector<int> top_pair;
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    if (pairs_[p].demand > 0 && pairs_[p].demand >= threshold) {
      top.push_back({pairs_[p].src, pairs_[p].dst, &pairs_[p].paths, pairs_[p].demand});
      top_pair.push_back(static_cast<int>(p));
    }
  }
  std::vector<double> capacity(capacity_.size());
  for (std::size_t e = 0; e < capacity.size(); ++e) capacity[e] = capacity_[e] / flow_unit_;
  std::vector<std::vector<double>> top_flows;
  Status status = SolveLp(top, capacity, services, &top_flows, summary);
  if (!status.ok()) return status;
  const double lp_seconds = summary->total_seconds;
  const Termination lp_termination = summary->termination;
  const std::string lp_message = summary->message;

  std::vector<std::vector<double>> flows(pairs_.size());
  for (std::size_t p = 0; p < pairs_.size(); ++p) flows[p].assign(pairs_[p].paths.size(), 0.0);
  for (std::size_t c = 0; c < top.size(); ++c) flows[top_pair[c]] = top_flows[c];
  std::vector<double> residual = capacity;
  const std::vector<double> load = PathLoads(topology_, top, top_flows);
  for (std::size_t e = 0; e < residual.size(); ++e)
    residual[e] = std::max(0.0, residual[e] - load[e]);
  int pinned = 0;
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const PairModel& pair = pairs_[p];
    if (pair.demand <= 0 || pair.demand >= threshold) continue;
    const int first = FirstAlivePath(pair);
    if (first < 0) continue;
    double f = pair.demand;
    if (objective_ == Objective::kMaxTotalFlow) {
      for (int e : pair.paths[first].links) f = std::min(f, residual[e]);
      f = std::max(0.0, f);
    }
    for (int e : pair.paths[first].links) residual[e] = std::max(0.0, residual[e] - f);
    flows[p][first] = f;
    ++pinned;
  }
  SetPathFlows(flows, allocation);
  FinishSummary("demand_pinning", problem, *allocation, summary);
  summary->termination = lp_termination == Termination::kConverged || top.empty()
                             ? Termination::kConverged
                             : lp_termination;
  summary->solve_seconds = lp_seconds;
  summary->total_seconds = Seconds(start);
  summary->message = "demand pinning: LP over " + std::to_string(top.size()) + " top demands (" +
                     lp_message + "), " + std::to_string(pinned) + " pinned";
  return Status::Ok();
}

}  // namespace dede::te
