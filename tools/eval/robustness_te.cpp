// dede_eval robustness, traffic engineering (see robustness.h for the studies).
//
// Sizes:
//   small  B4 (tests/data/te, 12 nodes, 38 links), the shipped 4-path file, the shipped matrices
//          at scale 4 (links congested): rounds 0-1 are solved, all 36 give the change
//          variance; failures 2/4/8 links; DeDe runs to convergence. Seconds.
//   medium Kdl (754 nodes, 1,790 links; shared data): gravity traffic over 0.5% of the ordered
//          pairs, heavy-tailed as the paper's matrices (top 10% = 88.4% of the volume), total =
//          a tenth of the sum of the capacities (congested); 8 generated rounds give the change
//          variance, 2 are solved; 4 computed edge-disjoint min-hop paths; per-pair demand
//          blocks; failures 50/100/200; DeDe 10 s per round (rho 1e5).
//   paper  ASN2k (1,739 nodes, 8,558 links: the paper's topology and failure counts), the same
//          at 1% of the pairs (30,073; the paper used all 3.02 M); DeDe 30 s per round (the
//          paper's robustness budget).
// Instances sharing the unperturbed base (k = 4, c = 0, q = base, 0 failures) are solved once
// and reported under each study. Every method's allocation goes through the plugin's repair;
// `feasible` = the model's largest violation <= 1e-6 after it.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "robustness.h"
#include "runtime/solver_services.h"
#include "te_plugin.h"

namespace dede::eval {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Num(double v, const char* format = "%.6g") {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

ConfigNode Scalar(const std::string& key, const std::string& value) {
  return ConfigNode::Scalar(value, "dede_eval robustness", 0, 0, "plugin.settings." + key);
}

// The unperturbed traffic of a size and what the solves need.
struct Base {
  std::string label;  // instance prefix: "b4-x4", "kdl-p0.005"
  std::string topology_file;
  std::string paths_file;  // small: the shipped path file; else computed (cached)
  te::Topology topology;
  std::vector<std::pair<int, int>> pairs;   // (src, dst) node indices, sorted
  std::vector<std::vector<double>> series;  // [round][pair], data units; >= rounds entries
  int rounds = 2;                           // rounds solved per instance
  std::vector<int> failure_counts;
  double dede_seconds = kInfinity;
  double dede_rho = 0;  // 0: AdmmOptions' default
  bool per_pair_blocks = false;
};

struct Tag {
  std::string study, level;
  int level_index = 0;
  double x = std::nan("");  // NaN: the mean edge betweenness (granularity)
};

struct Instance {
  std::vector<Tag> tags;                     // the base instance carries one tag per study
  std::string slug;                          // directory name for its matrices
  std::vector<std::vector<double>> demands;  // [round][pair]
  int num_paths = 4;
  std::vector<int> failed_links;
};

Result<Base> MakeBase(const EvalOptions& options, const RobustnessOptions& robustness) {
  Base base;
  base.rounds = options.rounds > 0 ? options.rounds : 2;
  if (options.size == "small") {
    const std::string dir = options.repo_dir + "/tests/data/te";
    base.topology_file = dir + "/B4.json";
    base.paths_file = dir + "/B4-paths.csv";
    for (const std::string& f : {base.topology_file, base.paths_file}) {
      if (!fs::exists(f)) {
        return NotFound("robustness small: missing " + f + " (the shipped B4 data)");
      }
    }
    Result<te::Topology> topology = te::LoadTopology(base.topology_file);
    if (!topology.ok()) return topology.status();
    base.topology = std::move(topology.value());
    const double scale = 4.0;  // as `dede_eval run --size small`: links congested
    std::vector<std::map<std::pair<int, int>, double>> matrices;
    std::set<std::pair<int, int>> pairs;
    for (int i = 0;; ++i) {
      const std::string file = dir + "/matrices/B4_real_" + std::to_string(i) + "_1.0.csv";
      if (!fs::exists(file)) break;
      Result<std::vector<te::DemandEntry>> matrix = te::LoadTrafficMatrix(file, base.topology);
      if (!matrix.ok()) return matrix.status();
      matrices.emplace_back();
      for (const te::DemandEntry& e : matrix.value()) {
        matrices.back()[{e.src, e.dst}] = scale * e.demand;
        pairs.insert({e.src, e.dst});
      }
    }
    if (static_cast<int>(matrices.size()) < std::max(2, base.rounds)) {
      return NotFound("robustness small: need at least " +
                      std::to_string(std::max(2, base.rounds)) +
                      " matrices B4_real_<i>_1.0.csv in " + dir + "/matrices, found " +
                      std::to_string(matrices.size()));
    }
    base.pairs.assign(pairs.begin(), pairs.end());
    for (const auto& m : matrices) {
      std::vector<double> row(base.pairs.size(), 0.0);
      for (std::size_t k = 0; k < base.pairs.size(); ++k) {
        auto it = m.find(base.pairs[k]);
        if (it != m.end()) row[k] = it->second;
      }
      base.series.push_back(std::move(row));
    }
    base.label = "b4-x4";
    base.failure_counts = {2, 4, 8};
    base.dede_seconds = robustness.dede_seconds > 0 ? robustness.dede_seconds : kInfinity;
    base.dede_rho = robustness.dede_rho;
    return base;
  }
  std::string name;
  double fraction = 0;
  if (options.size == "medium") {
    name = "Kdl";
    fraction = 0.005;
    base.dede_seconds = 10;
  } else if (options.size == "paper") {
    name = "ASN2k";
    fraction = 0.01;
    base.dede_seconds = 30;
  } else {
    return InvalidArgument("robustness: unknown size '" + options.size +
                           "' (small, medium, paper)");
  }
  if (robustness.pair_fraction > 0) fraction = robustness.pair_fraction;
  if (robustness.dede_seconds > 0) base.dede_seconds = robustness.dede_seconds;
  base.dede_rho = robustness.dede_rho > 0 ? robustness.dede_rho : 1e5;
  base.topology_file =
      options.shared_dir + "/dede-examples/traffic_engineering/topologies/" + name + ".json";
  if (!fs::exists(base.topology_file)) {
    return NotFound("robustness " + options.size + ": missing " + base.topology_file + " (the " +
                    name +
                    " topology of the shared data set dede-examples; pass "
                    "--shared-data pointing at shared/data, or use --size small)");
  }
  Result<te::Topology> topology = te::LoadTopology(base.topology_file);
  if (!topology.ok()) return topology.status();
  base.topology = std::move(topology.value());
  te::TrafficSpec spec;
  spec.enabled = true;
  spec.model = te::TrafficModel::kGravity;
  spec.seed = options.seed;
  spec.rounds = std::max(8, base.rounds);
  spec.heavy_tail = 0.884;  // the paper's production matrices: top 10% = 88.4% of the volume
  spec.pair_fraction = fraction;
  base.pairs = te::GeneratedPairs(base.topology, spec);
  for (int r = 0; r < spec.rounds; ++r) {
    base.series.push_back(te::GenerateTraffic(base.topology, spec, base.pairs, r));
  }
  base.label = (name == "Kdl" ? "kdl" : "asn2k") + std::string("-p") + Num(fraction);
  base.failure_counts = {50, 100, 200};
  base.per_pair_blocks = true;
  return base;
}

std::vector<std::vector<double>> BaseRounds(const Base& base) {
  return {base.series.begin(), base.series.begin() + base.rounds};
}

std::vector<Instance> MakeInstances(const Base& base,
                                    const EvalOptions& options,
                                    const RobustnessOptions& robustness) {
  std::vector<Instance> instances;
  Instance reference;
  reference.slug = "base";
  reference.demands = BaseRounds(base);
  const double base_share = robustness::TopShare(base.series.front(), 0.1);
  if (robustness.Wants("granularity")) reference.tags.push_back({"granularity", "k=4", 0});
  if (robustness.Wants("temporal")) reference.tags.push_back({"temporal", "c=0", 0, 0.0});
  if (robustness.Wants("spatial")) {
    reference.tags.push_back(
        {"spatial", "q=" + Num(base_share, "%.3f") + " (base)", 0, base_share});
  }
  if (robustness.Wants("failures")) reference.tags.push_back({"failures", "links=0", 0, 0.0});
  if (reference.tags.empty()) return instances;
  instances.push_back(reference);

  if (robustness.Wants("granularity")) {
    int index = 1;
    for (int k : {2, 1}) {
      Instance in;
      in.tags.push_back({"granularity", "k=" + std::to_string(k), index++});
      in.slug = "granularity-k" + std::to_string(k);
      in.demands = BaseRounds(base);
      in.num_paths = k;
      instances.push_back(std::move(in));
    }
    for (double share : {0.5, 0.25}) {
      Instance in;
      in.tags.push_back({"granularity", "pairs=" + Num(share), index++});
      in.slug = "granularity-pairs" + Num(share);
      const int n = static_cast<int>(base.pairs.size());
      const std::vector<int> kept = robustness::NestedSample(
          n, std::max(1, static_cast<int>(std::lround(share * n))), options.seed + 17);
      for (const std::vector<double>& round : BaseRounds(base)) {
        std::vector<double> d(round.size(), 0.0);
        double total = 0, kept_total = 0;
        for (double v : round) total += v;
        for (int k : kept) kept_total += round[k];
        // The kept pairs carry the whole volume: fewer, larger demands.
        for (int k : kept) d[k] = kept_total > 0 ? round[k] * total / kept_total : 0.0;
        in.demands.push_back(std::move(d));
      }
      instances.push_back(std::move(in));
    }
  }
  if (robustness.Wants("temporal")) {
    const std::vector<double> variance = robustness::ChangeVariance(base.series);
    int index = 1;
    for (double c : {2.0, 5.0, 10.0, 20.0}) {
      Instance in;
      in.tags.push_back({"temporal", "c=" + Num(c), index++, c});
      in.slug = "temporal-c" + Num(c);
      in.demands = BaseRounds(base);
      for (int r = 0; r < static_cast<int>(in.demands.size()); ++r) {
        robustness::AddTemporalNoise(c, variance, options.seed, r, &in.demands[r]);
      }
      instances.push_back(std::move(in));
    }
  }
  if (robustness.Wants("spatial")) {
    int index = 1;
    for (double q : {0.8, 0.6, 0.4, 0.2}) {
      Instance in;
      in.tags.push_back({"spatial", "q=" + Num(q), index++, q});
      in.slug = "spatial-q" + Num(q);
      in.demands = BaseRounds(base);
      for (std::vector<double>& d : in.demands) robustness::Redistribute(0.1, q, &d);
      instances.push_back(std::move(in));
    }
  }
  if (robustness.Wants("failures")) {
    int index = 1;
    for (int count : base.failure_counts) {
      Instance in;
      in.tags.push_back(
          {"failures", "links=" + std::to_string(count), index++, static_cast<double>(count)});
      in.slug = "failures-" + std::to_string(count);
      in.demands = BaseRounds(base);
      in.failed_links = robustness::NestedSample(
          static_cast<int>(base.topology.links.size()), count, options.seed + 101);
      instances.push_back(std::move(in));
    }
  }
  return instances;
}

// Writes the rounds' matrices (node ids, data units) and returns the file names.
Result<std::vector<std::string>> WriteMatrices(const Base& base,
                                               const Instance& instance,
                                               const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Internal("robustness: cannot create " + dir.string() + ": " + ec.message());
  std::vector<std::string> files;
  for (std::size_t r = 0; r < instance.demands.size(); ++r) {
    char name[32];
    std::snprintf(name, sizeof(name), "tm%02zu.csv", r);
    const fs::path file = dir / name;
    std::ofstream out(file);
    out << "src,dst,demand\n";
    for (std::size_t k = 0; k < base.pairs.size(); ++k) {
      if (instance.demands[r][k] <= 0) continue;
      out << base.topology.node_names[base.pairs[k].first] << ','
          << base.topology.node_names[base.pairs[k].second] << ','
          << Num(instance.demands[r][k], "%.17g") << '\n';
    }
    out.close();
    if (!out) return Internal("robustness: cannot write " + file.string());
    files.push_back(file.string());
  }
  return files;
}

ConfigNode Settings(const Base& base,
                    const Instance& instance,
                    const std::vector<std::string>& matrices,
                    const std::string& path_cache,
                    double pop_split_fraction) {
  ConfigNode node = ConfigNode::Map("dede_eval robustness", 0, 0, "plugin.settings");
  node.Insert("topology", Scalar("topology", base.topology_file));
  if (!base.paths_file.empty()) {
    node.Insert("paths", Scalar("paths", base.paths_file));
  } else {
    node.Insert("path_cache", Scalar("path_cache", path_cache));
  }
  node.Insert("num_paths", Scalar("num_paths", std::to_string(instance.num_paths)));
  node.Insert("objective", Scalar("objective", "max_total_flow"));
  node.Insert("record_paths", Scalar("record_paths", "false"));
  // The plugin's max-flow repair fill (default on); TE_EVAL_REPAIR_FILL=false gives the
  // session-3 tables, measured before the fill existed.
  if (const char* fill = std::getenv("TE_EVAL_REPAIR_FILL"); fill && *fill)
    node.Insert("repair_fill", Scalar("repair_fill", fill));
  if (base.per_pair_blocks) node.Insert("demand_blocks", Scalar("demand_blocks", "pair"));
  if (pop_split_fraction > 0) {
    node.Insert("pop_split_fraction",
                Scalar("pop_split_fraction", Num(pop_split_fraction, "%.17g")));
  }
  ConfigNode list =
      ConfigNode::List("dede_eval robustness", 0, 0, "plugin.settings.traffic_matrices");
  for (const std::string& m : matrices) list.Append(Scalar("traffic_matrices", m));
  node.Insert("traffic_matrices", list);
  if (!instance.failed_links.empty()) {
    ConfigNode events =
        ConfigNode::List("dede_eval robustness", 0, 0, "plugin.settings.link_events");
    for (int link : instance.failed_links) {
      ConfigNode e = ConfigNode::Map("dede_eval robustness", 0, 0, "plugin.settings.link_events[]");
      e.Insert("round", Scalar("link_events.round", "0"));
      e.Insert("link", Scalar("link_events.link", std::to_string(link)));
      e.Insert("action", Scalar("link_events.action", "fail"));
      events.Append(e);
    }
    node.Insert("link_events", events);
  }
  return node;
}

// Mean over the links of the share of the pairs with a demand (in some round) that have one of
// their first k paths through the link: the paper's mean edge betweenness for a path model.
double MeanEdgeBetweenness(const Base& base, const Instance& instance, const std::string& file) {
  if (file.empty()) return std::nan("");
  Result<std::vector<te::PairPaths>> paths = te::LoadPaths(file, base.topology);
  if (!paths.ok()) return std::nan("");
  std::map<std::pair<int, int>, const te::PairPaths*> by_pair;
  for (const te::PairPaths& p : paths.value()) by_pair[{p.src, p.dst}] = &p;
  const std::size_t num_links = base.topology.links.size();
  std::vector<int> served(num_links, 0);
  int active = 0;
  for (std::size_t k = 0; k < base.pairs.size(); ++k) {
    bool positive = false;
    for (const auto& round : instance.demands) positive = positive || round[k] > 0;
    if (!positive) continue;
    ++active;
    auto it = by_pair.find(base.pairs[k]);
    if (it == by_pair.end()) continue;
    std::set<int> links;
    const auto& list = it->second->paths;
    for (int p = 0; p < std::min<int>(instance.num_paths, static_cast<int>(list.size())); ++p) {
      links.insert(list[p].links.begin(), list[p].links.end());
    }
    for (int e : links) ++served[e];
  }
  if (active == 0 || num_links == 0) return std::nan("");
  double sum = 0;
  for (int s : served) sum += static_cast<double>(s) / active;
  return sum / static_cast<double>(num_links);
}

Status RunInstance(const EvalOptions& options,
                   const RobustnessOptions& robustness,
                   const Base& base,
                   const Instance& instance,
                   const RobustnessSink& sink) {
  const fs::path dir = fs::path(robustness.work_dir) / "instances" / base.label / instance.slug;
  Result<std::vector<std::string>> matrices = WriteMatrices(base, instance, dir);
  if (!matrices.ok()) return matrices.status();
  const std::string path_cache = (fs::path(robustness.work_dir) / "path-cache").string();
  te::TrafficEngineeringPlugin plugin;
  PluginContext context;
  context.config_file = "dede_eval robustness";
  context.seed = options.seed;
  Status status = plugin.Configure(
      Settings(base, instance, matrices.value(), path_cache, robustness.pop_split_fraction),
      context);
  if (!status.ok()) return status;
  Problem problem(0, 0);
  const auto describe_start = Clock::now();
  status = plugin.Describe(&problem);
  if (!status.ok()) return status;
  const double betweenness = MeanEdgeBetweenness(
      base, instance, base.paths_file.empty() ? plugin.path_cache_file() : base.paths_file);
  std::fprintf(stderr,
               "robustness %s/%s: %d pairs, %d paths, %d variables, %d constraints, %zu failed "
               "links, mean edge betweenness %s; described in %.1f s\n",
               base.label.c_str(),
               instance.slug.c_str(),
               plugin.num_pairs(),
               plugin.num_paths_total(),
               problem.num_variables(),
               problem.num_constraints(),
               instance.failed_links.size(),
               Num(betweenness).c_str(),
               Since(describe_start));

  AdmmOptions admm;
  // The plugin's repair makes every allocation feasible; the framework's projection repair
  // only costs time here (as in `dede_eval run`).
  admm.repair = false;
  if (base.dede_rho > 0) admm.rho = base.dede_rho;
  admm.time_limit_seconds = base.dede_seconds;
  ExactOptions exact_options;
  exact_options.time_limit_seconds = options.exact_time_limit;
  const SolverServices services = internal::MakeSolverServices(admm, exact_options);
  std::vector<std::unique_ptr<AdmmSolver>> solvers;  // one per thread count, warm-started
  if (options.Wants("dede")) {
    for (int threads : options.threads) {
      AdmmOptions o = admm;
      o.num_threads = threads;
      solvers.push_back(std::make_unique<AdmmSolver>(problem, o));
      if (!solvers.back()->setup_error().empty()) {
        return Internal("robustness: ADMM setup: " + solvers.back()->setup_error());
      }
    }
  }
  const bool plugin_exact = robustness.exact_solver == "plugin";
  bool plugin_has_exact = false;
  for (const MethodInfo& m : plugin.Methods())
    plugin_has_exact = plugin_has_exact || m.name == "exact";
  if (plugin_exact && !plugin_has_exact) {
    return InvalidArgument(
        "robustness: --exact-solver plugin: the traffic_engineering plugin "
        "has no 'exact' method in this build");
  }

  for (int round = 0; round < static_cast<int>(instance.demands.size()); ++round) {
    bool finished = false;
    status = plugin.Refresh(round, &problem, &finished);
    if (!status.ok()) return status;
    if (finished) break;
    const double total_demand = plugin.TotalDemand();
    double reference = std::nan("");
    std::string reference_name = "none";
    auto emit = [&](EvalRow row) {
      row.domain = "traffic_engineering";
      row.objective = "max_flow";
      row.round = round;
      for (const Tag& tag : instance.tags) {
        RobustnessRow out;
        out.row = row;
        out.row.instance = tag.study + "/" + tag.level + "/" + base.label + "/tm" +
                           (round < 10 ? "0" : "") + std::to_string(round);
        out.row.note = "robustness " + tag.study + " " + tag.level +
                       (instance.tags.size() > 1 ? " (shared base)" : "") +
                       "; mean edge betweenness " + Num(betweenness) + "; failed links " +
                       std::to_string(instance.failed_links.size()) + "; total demand " +
                       Num(total_demand, "%.10g") + (row.note.empty() ? "" : "; " + row.note);
        out.study = tag.study;
        out.level = tag.level;
        out.level_index = tag.level_index;
        out.x = std::isnan(tag.x) ? betweenness : tag.x;
        out.total_demand = total_demand;
        sink(out);
      }
    };
    auto finish = [&](EvalRow row, Allocation allocation, const SolveSummary& summary) {
      const auto repair_start = Clock::now();
      const Status repaired = plugin.Repair(problem, &allocation);
      row.seconds += Since(repair_start);
      row.feasible = repaired.ok() && problem.MeasureViolation(allocation.values).Max() <= 1e-6;
      row.value = plugin.TotalFlow(allocation);
      row.reference = reference_name;
      if (!std::isnan(reference) && reference > 0) row.quality = row.value / reference;
      std::string detail = std::string(TerminationName(summary.termination));
      if (summary.iterations >= 0)
        detail += ", " + std::to_string(summary.iterations) + " iterations";
      if (total_demand > 0) detail += ", satisfied demand " + Num(row.value / total_demand);
      row.note = row.note.empty() ? detail : row.note + "; " + detail;
      emit(row);
    };
    auto usable = [&](const Allocation& a, const SolveSummary& s) {
      return a.values.size() == static_cast<std::size_t>(problem.num_variables()) && s.feasible;
    };
    // Reference first, so every other row carries its quality.
    if (options.Wants("exact")) {
      Allocation allocation;
      SolveSummary summary;
      const auto start = Clock::now();
      if (plugin_exact) {
        status = plugin.SolveWith("exact", round, problem, services, &allocation, &summary);
      } else {
        SolveExact(problem, exact_options, &allocation, &summary);
        status = Status::Ok();
      }
      EvalRow row;
      row.method = "exact";
      row.threads = 1;
      row.seconds = Since(start);
      if (status.ok() && usable(allocation, summary)) {
        Allocation repaired = allocation;
        if (plugin.Repair(problem, &repaired).ok()) {
          reference = plugin.TotalFlow(repaired);
          reference_name = summary.termination == Termination::kConverged
                               ? "exact"
                               : "exact@" + Num(options.exact_time_limit) + "s";
        }
        row.note = (plugin_exact ? "plugin exact: " + summary.message : "Clp on the full model");
        finish(row, allocation, summary);
      } else {
        row.note = "exact gave no feasible allocation (" +
                   (status.ok() ? summary.message : status.message()) + ")";
        row.reference = "none";
        emit(row);
      }
    }
    for (std::size_t i = 0; i < solvers.size(); ++i) {
      Allocation allocation;
      SolveSummary summary;
      const auto start = Clock::now();
      solvers[i]->Solve(&allocation, &summary);
      EvalRow row;
      row.method = "dede";
      row.threads = options.threads[i] > 0 ? options.threads[i] : summary.num_threads;
      row.seconds = Since(start);
      if (allocation.values.size() != static_cast<std::size_t>(problem.num_variables())) {
        row.note = "ADMM returned no allocation: " + summary.message;
        row.reference = reference_name;
        emit(row);
        continue;
      }
      row.note = "rho " + Num(summary.rho) + ", budget " + Num(base.dede_seconds) + " s";
      finish(row, allocation, summary);
    }
    for (const MethodInfo& method : plugin.Methods()) {
      if (method.name == "exact" || !options.Wants(method.name)) continue;
      if (method.name == "flow_deviation") continue;  // min max utilisation only
      Allocation allocation;
      SolveSummary summary;
      const auto start = Clock::now();
      status = plugin.SolveWith(method.name, round, problem, services, &allocation, &summary);
      EvalRow row;
      row.method = method.name;
      row.seconds = Since(start);
      row.threads = summary.num_threads > 0 ? summary.num_threads : 1;
      if (!status.ok()) {
        row.note = "failed: " + status.message();
        row.reference = reference_name;
        emit(row);
        continue;
      }
      row.note = summary.message;
      finish(row, allocation, summary);
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunTrafficEngineeringRobustness(const EvalOptions& options,
                                       const RobustnessOptions& robustness,
                                       const RobustnessSink& sink) {
  for (const std::string& s : robustness.studies) {
    bool known = false;
    for (const std::string& k : RobustnessStudies()) known = known || k == s;
    if (!known) {
      return InvalidArgument("robustness: unknown study '" + s +
                             "' (granularity, temporal, spatial, failures)");
    }
  }
  Result<Base> base = MakeBase(options, robustness);
  if (!base.ok()) return base.status();
  const std::vector<Instance> instances = MakeInstances(base.value(), options, robustness);
  Status status;
  for (const Instance& instance : instances) {
    const Status s = RunInstance(options, robustness, base.value(), instance, sink);
    if (!s.ok()) {
      status.Update(Internal("robustness " + instance.slug + ": " + s.message()));
    }
  }
  return status;
}

}  // namespace dede::eval
