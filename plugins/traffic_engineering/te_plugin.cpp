// traffic_engineering: see te_plugin.h and README.md. The model itself is built by
// BuildPathModel (te_model.cpp); this file reads the settings, produces each round's demands and
// link states and reports. The repair and polish of an allocation are in te_repair.cpp, the
// baselines (exact LP, POP-k, demand pinning) in te_baselines.cpp.
#include "te_plugin.h"

#include <fnmatch.h>
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
                                      "topology_directed",
                                      "traffic_matrix_pattern",
                                      "traffic_series",
                                      "traffic_series_first_row",
                                      "traffic_series_rows"});
  status.Update(settings.Require("topology"));
  if (!status.ok()) return status;
  if (int{settings.Has("traffic_matrices")} + int{settings.Has("traffic")} +
          int{settings.Has("traffic_series")} !=
      1) {
    return Invalid(settings.Where() + ": " + settings.path() +
                   ": give exactly one of 'traffic_matrices' (CSV files), 'traffic_series' (one "
                   "CSV, a matrix per row) and 'traffic' (a generator)");
  }
  seed_ = context.seed;
  status.Update(settings.Read("topology", &topology_file_));
  topology_options_ = TopologyOptions{};
  std::string format = "auto";
  status.Update(settings.ReadChoice(
      "topology_format", {"auto", "json", "csv", "graphml", "sndlib"}, &format));
  std::string parallel = "reject", directed = "file";
  status.Update(settings.ReadChoice("parallel_links", {"reject", "sum", "max"}, &parallel));
  status.Update(settings.ReadChoice("topology_directed", {"file", "true", "false"}, &directed));
  topology_options_.direction = directed == "true"    ? TopologyOptions::Direction::kDirected
                                : directed == "false" ? TopologyOptions::Direction::kUndirected
                                                      : TopologyOptions::Direction::kFile;
  if (settings.Has("topology_default_capacity")) {
    status.Update(
        settings.Read("topology_default_capacity", &topology_options_.default_capacity, 0.0, 1e15));
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
  std::string demand_blocks = "pair";
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

// The topology, the link events, the pairs with a demand and their paths, then the model.
Status TrafficEngineeringPlugin::Describe(Problem* problem) {
  Result<Topology> topology = LoadTopology(topology_file_, topology_options_);
  if (!topology.ok()) return topology.status();
  topology_ = std::move(topology.value());
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
  const int num_links = static_cast<int>(topology_.links.size());
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
  return Status::Ok();
}

// Pairs with a positive demand in some round get variables (the structure is fixed).
Status TrafficEngineeringPlugin::WantedPairs(std::set<std::pair<int, int>>* wanted_out) {
  std::set<std::pair<int, int>>& wanted = *wanted_out;
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
    return CheckScaledDemand(series_file_, series_.demand, scale_);
  } else {
    for (const std::string& file : matrix_files_) {
      Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, topology_);
      if (!matrix.ok()) return matrix.status();
      for (const DemandEntry& d : matrix.value()) wanted.emplace(d.src, d.dst);
      if (Status s = CheckScaledDemand(file, matrix.value(), scale_); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Each wanted pair's paths: from the paths file, the path cache, or computed (in parallel).
Status TrafficEngineeringPlugin::BuildPairs(const std::set<std::pair<int, int>>& wanted) {
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
    // Pairs are independent: any split gives the same paths. One finder (its residual network)
    // per worker thread.
    tbb::enumerable_thread_specific<EdgeDisjointPathFinder> finders(
        [&] { return EdgeDisjointPathFinder(topology_); });
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, wanted_list.size(), 256),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        EdgeDisjointPathFinder& finder = finders.local();
                        for (std::size_t i = range.begin(); i != range.end(); ++i) {
                          if (cached[i]) continue;
                          computed[i] =
                              finder.Find(wanted_list[i].first, wanted_list[i].second, num_paths_);
                        }
                      });
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
  return Status::Ok();
}

// The path model (BuildPathModel) and the plugin's maps from pairs and paths to its variables.
Status TrafficEngineeringPlugin::BuildModel(Problem* problem) {
  const int num_links = static_cast<int>(topology_.links.size());
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
  // The repair's fill order (fewest hops first, model order among equals): fixed with the
  // paths, so FillResidual does not sort every call (the sort was most of the seed's time on
  // networks of 16,000 pairs).
  fill_order_.resize(path_var_.size());
  std::iota(fill_order_.begin(), fill_order_.end(), 0);
  std::stable_sort(fill_order_.begin(), fill_order_.end(), [&](int a, int b) {
    return path_of_var_[a]->links.size() < path_of_var_[b]->links.size();
  });
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
  std::inplace_merge(link_states.begin(),
                     link_states.begin() + configured,
                     link_states.end(),
                     [](const LinkEvent& a, const LinkEvent& b) { return a.round < b.round; });
  std::fill(failed_.begin(), failed_.end(), 0);
  for (const LinkEvent& event : link_states) failed_[event.link] = event.fail ? 1 : 0;
  // Inbox events applied up to this round, over the configured data and in their order:
  // demands and capacities they set are absolute (not multiplied by `scale`).
  std::vector<double> base_capacity(topology_.links.size());
  for (std::size_t e = 0; e < topology_.links.size(); ++e)
    base_capacity[e] = topology_.links[e].capacity;
  for (const InboxEvent& event : inbox_) {
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
      for (int e : path.links) {
        if (!links.empty()) links += ' ';
        links += std::to_string(e);
      }
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
      for (int v : path.Nodes(topology_)) {
        if (!nodes.empty()) nodes += ' ';
        nodes += NodeName(topology_, v);
      }
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

}  // namespace dede::te
