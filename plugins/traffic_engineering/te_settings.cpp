// traffic_engineering settings: the declared table and the reading of a checked section. The
// host has checked every key, type, bound and choice against TeSettingsTable() and filled the
// defaults; what is left here is what a table cannot say (te_settings.h).
#include "te_settings.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

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

std::vector<SettingSpec> TrafficKeys() {
  const TrafficSpec d;
  return {
      Setting::Choice("model", {"gravity", "uniform", "bimodal", "poisson"}, "generator model")
          .Default("gravity"),
      Setting::Double("seed", "the generator's seed").DefaultNote("deployment.seed").Range(0, 9e15),
      Setting::Int("rounds", "rounds of generated traffic").Default(d.rounds).Range(1, 1000000),
      Setting::Double("total_demand",
                      "expected total demand of a round before scale (0: a tenth of the sum of "
                      "the link capacities)")
          .Default(d.total_demand)
          .Range(0, 1e18),
      Setting::Double("heavy_tail",
                      "share of the volume the top 10% of demands carry (0: off, else >= 0.1)")
          .Default(d.heavy_tail)
          .Range(0, 0.999999),
      Setting::Double("decay", "poisson: mean proportional to decay^(hop distance)")
          .Default(d.decay)
          .Range(1e-9, 1.0),
      Setting::Double("pair_fraction", "share of ordered pairs that get a demand")
          .Default(d.pair_fraction)
          .Range(1e-9, 1.0),
  };
}

std::vector<SettingSpec> RobustnessKeys() {
  const RobustnessSpec d;
  return {
      Setting::Double("temporal_fluctuation",
                      "c: each demand gets a N(0, c sigma^2) draw, sigma^2 the variance of its "
                      "consecutive changes (0: off)")
          .Default(d.temporal_fluctuation)
          .Range(0, 1e6),
      Setting::Double("spatial_redistribution",
                      "share of the volume moved to the top 10% of demands (0: off)")
          .Default(d.spatial_redistribution)
          .Range(0, 0.999999),
      Setting::Double("seed", "the perturbations' seed")
          .DefaultNote("deployment.seed")
          .Range(0, 9e15),
  };
}

SettingsTable MakeTable() {
  return {
      Setting::String("topology",
                      "topology file (networkx JSON, edge-list CSV, GraphML, SNDlib), relative to "
                      "the deployment file")
          .Required(),
      Setting::Choice("topology_format",
                      {"auto", "json", "csv", "graphml", "sndlib"},
                      "format of the topology file (auto: by extension, SNDlib by content)")
          .Default("auto"),
      Setting::Choice("parallel_links",
                      {"reject", "sum", "max"},
                      "several links between the same nodes: an error, or one link of their "
                      "summed or largest capacity")
          .Default("reject"),
      Setting::Choice("topology_directed",
                      {"file", "true", "false"},
                      "links as the file says, or every link one-way / both ways")
          .Default("file"),
      Setting::Double("topology_default_capacity",
                      "capacity of links the file gives none (GraphML)")
          .DefaultNote("none: such a link is an error")
          .Range(0, 1e15),
      Setting::String("paths", "path file (else k shortest paths are computed)"),
      Setting::Int("num_paths", "paths per pair when computed").Default(4).Range(1, 64),
      Setting::String("path_cache", "directory caching computed paths per topology"),
      Setting::StringOrList("traffic_matrices",
                            "a directory of traffic-matrix CSV files (natural order) or a list "
                            "of files; one round each"),
      Setting::String("traffic_matrix_pattern", "file names read from a traffic_matrices directory")
          .DefaultNote("`*.csv` (with a directory)"),
      Setting::String("traffic_series", "one CSV, one traffic matrix per row (a round each)"),
      Setting::Int("traffic_series_first_row", "first row of the series")
          .DefaultNote("0 (with traffic_series)")
          .Range(0, 100000000),
      Setting::Int("traffic_series_rows", "rows of the series read")
          .DefaultNote("all (with traffic_series)")
          .Range(1, 100000000),
      Setting::Section("traffic", "generated traffic instead of files", TrafficKeys()),
      Setting::Section("robustness", "perturbations of every round's demands", RobustnessKeys()),
      Setting::Choice("objective", {"max_total_flow", "min_max_utilization"}, "the objective")
          .Default("max_total_flow"),
      Setting::Double("scale", "every demand multiplied by this").Default(1.0).Range(0, 1e12),
      Setting::List(
          "link_events",
          "scheduled link failures and recoveries",
          {Setting::Int("round", "first round of the change").Required().Range(0, 100000000),
           Setting::String("link", "a->b (node ids or names) or a link index").Required(),
           Setting::Choice("action", {"fail", "recover"}, "what happens").Required()}),
      Setting::Choice("demand_blocks",
                      {"source", "pair"},
                      "demand blocks of the model: one per source node or one per pair")
          .Default("pair"),
      Setting::Double("pop_split_fraction", "POP: share of large demands split across parts")
          .Default(0.0)
          .Range(0, 16),
      Setting::Double("pinning_top_fraction",
                      "demand pinning: share of the largest demands solved by the LP")
          .Default(0.1)
          .Range(1e-9, 1.0),
      Setting::Bool("record_paths", "record the path set and each path's flow (domain_records)")
          .DefaultNote("when there are <= 20,000 paths"),
      Setting::Bool("repair_fill",
                    "max total flow: the repair routes unmet demand greedily on the residual "
                    "capacity")
          .Default(true),
      Setting::Int("polish_sweeps",
                   "min max utilisation: flow-deviation sweeps of the repair (never raise it)")
          .Default(200)
          .Range(0, 100000),
      Setting::Double("polish_seconds", "min max utilisation: time bound of the polish (0: none)")
          .Default(0.0)
          .Range(0, 1e9),
  };
}

// The topology's options and the keys that name files (resolved against the deployment).
Status ReadTopologyAndScalars(const ConfigNode& settings, const std::string& dir, TeSettings* s) {
  std::string format, parallel, directed, objective, demand_blocks;
  Status status = settings.Read("topology", &s->topology_file);
  status.Update(settings.Read("topology_format", &format));
  status.Update(settings.Read("parallel_links", &parallel));
  status.Update(settings.Read("topology_directed", &directed));
  status.Update(settings.Read("topology_default_capacity", &s->topology_options.default_capacity));
  status.Update(settings.Read("paths", &s->paths_file));
  status.Update(settings.Read("num_paths", &s->num_paths));
  status.Update(settings.Read("scale", &s->scale));
  status.Update(settings.Read("pop_split_fraction", &s->pop_split_fraction));
  status.Update(settings.Read("pinning_top_fraction", &s->pinning_top_fraction));
  s->record_paths_set = settings.Has("record_paths");
  status.Update(settings.Read("record_paths", &s->record_paths));
  status.Update(settings.Read("repair_fill", &s->repair_fill));
  status.Update(settings.Read("polish_sweeps", &s->polish_sweeps));
  status.Update(settings.Read("polish_seconds", &s->polish_seconds));
  status.Update(settings.Read("objective", &objective));
  status.Update(settings.Read("demand_blocks", &demand_blocks));
  status.Update(settings.Read("path_cache", &s->path_cache_dir));
  if (!status.ok()) return status;
  Result<TopologyFormat> parsed_format = ParseTopologyFormat(format);
  if (!parsed_format.ok()) return parsed_format.status();
  s->topology_options.format = parsed_format.value();
  s->topology_options.parallel_links = parallel == "sum"   ? ParallelLinks::kSum
                                       : parallel == "max" ? ParallelLinks::kMax
                                                           : ParallelLinks::kReject;
  s->topology_options.direction = directed == "true"    ? TopologyOptions::Direction::kDirected
                                  : directed == "false" ? TopologyOptions::Direction::kUndirected
                                                        : TopologyOptions::Direction::kFile;
  s->objective =
      objective == "max_total_flow" ? Objective::kMaxTotalFlow : Objective::kMinMaxUtilization;
  s->per_pair_blocks = demand_blocks == "pair";
  s->topology_file = Resolve(dir, s->topology_file);
  if (!s->paths_file.empty()) s->paths_file = Resolve(dir, s->paths_file);
  if (!s->path_cache_dir.empty()) s->path_cache_dir = Resolve(dir, s->path_cache_dir);
  return Status::Ok();
}

// traffic_matrices: a list of files, or a directory read with traffic_matrix_pattern.
Status ReadMatrixFiles(const ConfigNode& settings, const std::string& dir, TeSettings* s) {
  std::string pattern = "*.csv";
  const bool pattern_set = settings.Has("traffic_matrix_pattern");
  Status status = settings.Read("traffic_matrix_pattern", &pattern);
  if (!status.ok()) return status;
  const ConfigNode& matrices = *settings.Find("traffic_matrices");
  if (matrices.IsList()) {
    for (const ConfigNode& item : matrices.items()) {
      Result<std::string> file = item.AsString();
      if (!file.ok()) return file.status();
      s->matrix_files.push_back(Resolve(dir, file.value()));
    }
  } else {
    const std::string directory = Resolve(dir, matrices.scalar());
    std::error_code ec;
    if (!std::filesystem::is_directory(directory, ec)) {
      return Invalid(matrices.Where() + ": " + matrices.path() + " = '" + matrices.scalar() +
                     "': not a directory (" + directory +
                     "); give a directory of CSV files or a list");
    }
    // Every file whose name matches the pattern (default *.csv): a directory holding other
    // CSV files (a README table, the topology) is read with a narrower one.
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
      if (entry.is_regular_file() &&
          ::fnmatch(pattern.c_str(), entry.path().filename().c_str(), 0) == 0) {
        s->matrix_files.push_back(entry.path().string());
      }
    }
    std::sort(s->matrix_files.begin(), s->matrix_files.end(), NaturalLess);
  }
  if (s->matrix_files.empty()) {
    return Invalid(matrices.Where() + ": " + matrices.path() + ": no traffic-matrix files" +
                   (matrices.IsScalar() ? " matching '" + pattern + "'" : std::string()));
  }
  if (pattern_set && !matrices.IsScalar()) {
    return Invalid(settings.Where() + ": " + settings.path() +
                   ".traffic_matrix_pattern applies to a directory, not to a list of files");
  }
  s->num_rounds = static_cast<int>(s->matrix_files.size());
  return Status::Ok();
}

// Exactly one of traffic_matrices, traffic_series and traffic.
Status ReadTraffic(const ConfigNode& settings, const std::string& dir, TeSettings* s) {
  if (int{settings.Has("traffic_matrices")} + int{settings.Has("traffic")} +
          int{settings.Has("traffic_series")} !=
      1) {
    return Invalid(settings.Where() + ": " + settings.path() +
                   ": give exactly one of 'traffic_matrices' (CSV files), 'traffic_series' (one "
                   "CSV, a matrix per row) and 'traffic' (a generator)");
  }
  if (settings.Has("traffic_series")) {
    Status status = settings.Read("traffic_series", &s->series_file);
    status.Update(settings.Read("traffic_series_first_row", &s->series_first_row));
    status.Update(settings.Read("traffic_series_rows", &s->series_rows));
    if (!status.ok()) return status;
    s->series_file = Resolve(dir, s->series_file);  // rows counted in Describe
  } else if (settings.Has("traffic_series_first_row") || settings.Has("traffic_series_rows")) {
    return Invalid(settings.Where() + ": " + settings.path() +
                   ": traffic_series_first_row and traffic_series_rows need traffic_series");
  }
  if (!s->series_file.empty()) return Status::Ok();
  if (const ConfigNode* traffic = settings.Find("traffic")) {
    Status status = ParseTrafficSpec(*traffic, s->seed, &s->traffic);
    if (!status.ok()) return status;
    s->num_rounds = s->traffic.rounds;
    return Status::Ok();
  }
  return ReadMatrixFiles(settings, dir, s);
}

Status ReadLinkEvents(const ConfigNode& settings, TeSettings* s) {
  const ConfigNode* events = settings.Find("link_events");
  if (events == nullptr || events->IsNull()) return Status::Ok();
  for (std::size_t i = 0; i < events->items().size(); ++i) {
    const ConfigNode& e = events->items()[i];
    const std::string where = e.Where() + ": " + events->path() + "[" + std::to_string(i) + "]";
    RawLinkEvent raw;
    std::string action;
    Status status = e.Read("round", &raw.round);
    status.Update(e.Read("link", &raw.link));
    status.Update(e.Read("action", &action));
    if (!status.ok()) return status;
    raw.fail = action == "fail";
    raw.where = where + ".link = '" + raw.link + "'";
    s->raw_events.push_back(std::move(raw));
  }
  return Status::Ok();
}

}  // namespace

const SettingsTable& TeSettingsTable() {
  static const SettingsTable table = MakeTable();
  return table;
}

Status ReadTeSettings(const ConfigNode& settings, const PluginContext& context, TeSettings* out) {
  TeSettings s;
  s.seed = context.seed;
  s.robustness.seed = s.seed;
  Status status = ReadTopologyAndScalars(settings, context.config_dir, &s);
  if (!status.ok()) return status;
  status = ReadTraffic(settings, context.config_dir, &s);
  if (!status.ok()) return status;
  if (const ConfigNode* robustness = settings.Find("robustness")) {
    status = ParseRobustnessSpec(*robustness, s.seed, &s.robustness);
    if (!status.ok()) return status;
  }
  status = ReadLinkEvents(settings, &s);
  if (!status.ok()) return status;
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace dede::te
