// traffic_engineering: see te_plugin.h and README.md.
//
// Structure (paper section 5.2, per-source grouping):
//   resources = directed links e, demands = source nodes s;
//   allocation entry x[e, s] = traffic of source s on link e, for links on s's paths;
//   demand block s: locals f_p >= 0 for every path p of every pair (s, d),
//     sum_{p in P(s,d)} f_p <= D[s,d] (max total flow) or = D[s,d] (min max utilisation),
//     x[e, s] - sum_{p of s through e} f_p = 0 (coupling of the entry to the path flows);
//   resource block e: sum_s x[e, s] <= c_e (max total flow only).
#include "te_plugin.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

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

std::string NodeName(const Topology& t, int v) { return std::to_string(t.node_ids[v]); }

}  // namespace

Status TrafficEngineeringPlugin::Configure(const ConfigNode& settings,
                                           const PluginContext& context) {
  if (!settings.IsMap())
    return Invalid(settings.Where() +
                   ": plugin.settings must be a map with 'topology' and 'traffic_matrices'");
  Status status = settings.CheckKeys(
      {"topology", "paths", "num_paths", "traffic_matrices", "objective", "scale"});
  status.Update(settings.Require("topology"));
  status.Update(settings.Require("traffic_matrices"));
  if (!status.ok()) return status;
  status.Update(settings.Read("topology", &topology_file_));
  status.Update(settings.Read("paths", &paths_file_));
  status.Update(settings.Read("num_paths", &num_paths_, 1, 64));
  status.Update(settings.Read("scale", &scale_, 0.0, 1e12));
  std::string objective = "max_total_flow";
  status.Update(
      settings.ReadChoice("objective", {"max_total_flow", "min_max_utilization"}, &objective));
  if (!status.ok()) return status;
  objective_ =
      objective == "max_total_flow" ? Objective::kMaxTotalFlow : Objective::kMinMaxUtilization;
  topology_file_ = Resolve(context.config_dir, topology_file_);
  if (!paths_file_.empty()) paths_file_ = Resolve(context.config_dir, paths_file_);

  const ConfigNode& matrices = *settings.Find("traffic_matrices");
  matrix_files_.clear();
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
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".csv") {
        matrix_files_.push_back(entry.path().string());
      }
    }
    std::sort(matrix_files_.begin(), matrix_files_.end(), NaturalLess);
  } else {
    return Invalid(matrices.Where() + ": " + matrices.path() +
                   " must be a list of CSV files or a directory");
  }
  if (matrix_files_.empty()) {
    return Invalid(matrices.Where() + ": " + matrices.path() + ": no traffic-matrix files");
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::Describe(Problem* problem) {
  Result<Topology> topology = LoadTopology(topology_file_);
  if (!topology.ok()) return topology.status();
  topology_ = std::move(topology.value());
  const int num_nodes = topology_.num_nodes();
  const int num_links = static_cast<int>(topology_.links.size());

  // Pairs with a positive demand in some round get variables (the structure is fixed).
  std::set<std::pair<int, int>> wanted;
  for (const std::string& file : matrix_files_) {
    Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, topology_);
    if (!matrix.ok()) return matrix.status();
    for (const DemandEntry& d : matrix.value()) wanted.emplace(d.src, d.dst);
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
  for (const auto& [src, dst] : wanted) {
    PairModel pair;
    pair.src = src;
    pair.dst = dst;
    if (paths_file_.empty()) {
      pair.paths = EdgeDisjointMinHopPaths(topology_, src, dst, num_paths_);
    } else if (auto it = given.find({src, dst}); it != given.end()) {
      pair.paths = it->second;
    }
    if (pair.paths.empty()) {
      return Invalid((paths_file_.empty() ? topology_file_ : paths_file_) + ": no path from node " +
                     NodeName(topology_, src) + " to node " + NodeName(topology_, dst) +
                     ", which has a positive demand in the traffic matrices (disconnected pair)");
    }
    pairs_.push_back(std::move(pair));
  }

  // Variables are measured in units of the largest capacity, so flows, capacities and link
  // utilisations are all O(1): ADMM uses one rho for the consensus of flows and of the min-max
  // epigraph copies, and with flows in data units (thousands) it converged to points 2-15% off
  // the optimum on B4 (min max utilisation); normalised, it matches the LP.
  flow_unit_ = 1.0;
  for (const Link& link : topology_.links) flow_unit_ = std::max(flow_unit_, link.capacity);

  *problem = Problem(num_links, num_nodes);
  const int x = problem->AddAllocation("x", Domain::NonNegative());
  // Path flows per (source, link) for the coupling rows.
  std::vector<std::map<int, std::vector<VarId>>> through(num_nodes);
  path_var_.clear();
  path_of_var_.clear();
  for (PairModel& pair : pairs_) {
    LinearExpr total;
    for (std::size_t k = 0; k < pair.paths.size(); ++k) {
      const VarId f =
          problem->AddLocal(BlockId::Demand(pair.src),
                            Domain::NonNegative(),
                            "f[" + NodeName(topology_, pair.src) + "," +
                                NodeName(topology_, pair.dst) + "," + std::to_string(k) + "]");
      pair.flow.push_back(f);
      total.Add(f, 1.0);
      path_var_.push_back(f);
      path_of_var_.push_back(&pair.paths[k]);
      for (int e : pair.paths[k].links) through[pair.src][e].push_back(f);
      // Cost flow_unit_ per unit: the objective is the total flow in data units.
      if (objective_ == Objective::kMaxTotalFlow) problem->AddLinearCost(f, flow_unit_);
    }
    pair.demand_row = problem->AddConstraint(
        BlockId::Demand(pair.src),
        total,
        objective_ == Objective::kMaxTotalFlow ? Sense::kLessEqual : Sense::kEqual,
        0.0,
        "demand[" + NodeName(topology_, pair.src) + "," + NodeName(topology_, pair.dst) + "]");
  }
  entries_.assign(num_nodes, {});
  std::vector<LinearExpr> link_rows(num_links);
  for (int s = 0; s < num_nodes; ++s) {
    for (const auto& [e, flows] : through[s]) {
      const VarId entry = problem->AddEntry(x, e, s);
      entries_[s].emplace_back(e, entry);
      LinearExpr coupling;
      coupling.Add(entry, 1.0);
      for (VarId f : flows) coupling.Add(f, -1.0);
      problem->AddConstraint(BlockId::Demand(s),
                             coupling,
                             Sense::kEqual,
                             0.0,
                             "load[" + std::to_string(e) + "," + NodeName(topology_, s) + "]");
      link_rows[e].Add(entry, 1.0);
    }
  }
  std::vector<int> used_links;
  std::vector<LinearExpr> utilization;
  for (int e = 0; e < num_links; ++e) {
    if (link_rows[e].terms.empty()) continue;
    const Link& link = topology_.links[e];
    if (objective_ == Objective::kMaxTotalFlow) {
      problem->AddConstraint(BlockId::Resource(e),
                             link_rows[e],
                             Sense::kLessEqual,
                             link.capacity / flow_unit_,
                             "capacity[" + std::to_string(e) + "]");
    } else {
      if (link.capacity <= 0) {
        return Invalid(topology_file_ + ": link " + NodeName(topology_, link.src) + " -> " +
                       NodeName(topology_, link.dst) +
                       " has capacity 0 but carries paths; min_max_utilization needs capacity > 0");
      }
      LinearExpr u;
      for (const Term& t : link_rows[e].terms) u.Add(t.var, flow_unit_ / link.capacity);
      used_links.push_back(e);
      utilization.push_back(std::move(u));
    }
  }
  if (objective_ == Objective::kMaxTotalFlow) {
    problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  } else {
    problem->SetObjectiveSense(ObjectiveSense::kMinimize);
    problem->SetGlobalTerm(
        GlobalKind::kMinMax, Side::kResource, std::move(used_links), std::move(utilization));
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::Refresh(int round, Problem* problem, bool* finished) {
  *finished = round < 0 || round >= static_cast<int>(matrix_files_.size());
  if (*finished) return Status::Ok();
  const std::string& file = matrix_files_[round];
  Result<std::vector<DemandEntry>> matrix = LoadTrafficMatrix(file, topology_);
  if (!matrix.ok()) return matrix.status();
  std::map<std::pair<int, int>, double> demand;
  for (const DemandEntry& d : matrix.value()) demand[{d.src, d.dst}] = d.demand;
  for (PairModel& pair : pairs_) {
    auto it = demand.find({pair.src, pair.dst});
    pair.demand = it == demand.end() ? 0.0 : scale_ * it->second / flow_unit_;
    if (it != demand.end()) demand.erase(it);
    problem->SetRhs(pair.demand_row, pair.demand);
  }
  if (!demand.empty()) {
    const auto& [src, dst] = demand.begin()->first;
    return Invalid(file + ": demand from node " + NodeName(topology_, src) + " to node " +
                   NodeName(topology_, dst) +
                   " has no path variables (the file changed after "
                   "the deployment started?)");
  }
  return Status::Ok();
}

std::vector<double> TrafficEngineeringPlugin::LinkLoads(const Allocation& allocation) const {
  std::vector<double> load(topology_.links.size(), 0.0);
  for (std::size_t i = 0; i < path_var_.size(); ++i) {
    const double f = std::max(0.0, allocation[path_var_[i]]);
    for (int e : path_of_var_[i]->links) load[e] += f;
  }
  return load;
}

Status TrafficEngineeringPlugin::Repair(const Problem& problem, Allocation* allocation) {
  if (static_cast<int>(allocation->values.size()) != problem.num_variables()) {
    return Status(StatusCode::kInternal,
                  "traffic_engineering: allocation has " +
                      std::to_string(allocation->values.size()) + " values, problem has " +
                      std::to_string(problem.num_variables()));
  }
  std::vector<double>& v = allocation->values;
  for (VarId f : path_var_) v[f] = std::max(0.0, v[f]);
  if (objective_ == Objective::kMaxTotalFlow) {
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
        const double cap = topology_.links[e].capacity / flow_unit_;
        if (load[e] > cap) factor = std::min(factor, load[e] > 0 ? cap / load[e] : 0.0);
      }
      v[path_var_[i]] *= factor;
    }
  } else {
    // Every demand is routed in full: rescale the pair's flows to its volume (all of it on the
    // first path if the solver left none).
    for (const PairModel& pair : pairs_) {
      double sum = 0.0;
      for (VarId f : pair.flow) sum += v[f];
      if (sum > 0) {
        for (VarId f : pair.flow) v[f] *= pair.demand / sum;
      } else {
        for (VarId f : pair.flow) v[f] = 0.0;
        v[pair.flow.front()] = pair.demand;
      }
    }
  }
  // Entries equal the loads their path flows put on each link (coupling rows exact).
  for (int s = 0; s < topology_.num_nodes(); ++s) {
    for (const auto& [e, entry] : entries_[s]) v[entry] = 0.0;
  }
  std::vector<std::map<int, VarId>> entry_of(topology_.num_nodes());
  for (int s = 0; s < topology_.num_nodes(); ++s) {
    for (const auto& [e, entry] : entries_[s]) entry_of[s][e] = entry;
  }
  for (std::size_t i = 0; i < path_var_.size(); ++i) {
    const Path& path = *path_of_var_[i];
    for (int e : path.links) v[entry_of[path.src].at(e)] += v[path_var_[i]];
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
    const double cap = topology_.links[e].capacity / flow_unit_;
    if (cap > 0) {
      worst = std::max(worst, load[e] / cap);
    } else if (load[e] > 0) {
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

Status TrafficEngineeringPlugin::Report(int round,
                                        const Problem& problem,
                                        const Allocation& allocation,
                                        RoundReport* report) {
  (void)round;
  if (static_cast<int>(allocation.values.size()) != problem.num_variables()) {
    return Status(StatusCode::kInternal, "traffic_engineering: allocation size mismatch");
  }
  const double flow = TotalFlow(allocation);
  const double demand = TotalDemand();
  report->metrics = {{"total_flow", flow},
                     {"total_demand", demand},
                     {"satisfied_demand", demand > 0 ? flow / demand : 1.0},
                     {"max_link_utilization", MaxLinkUtilization(allocation)},
                     {"flow_unit", flow_unit_}};
  // Entity parameters are in allocation units (multiples of flow_unit), like the persisted
  // entries, so the database's utilisation view divides like by like.
  for (int e = 0; e < static_cast<int>(topology_.links.size()); ++e) {
    const Link& link = topology_.links[e];
    report->entities.push_back(
        {Side::kResource,
         e,
         NodeName(topology_, link.src) + "->" + NodeName(topology_, link.dst),
         {{"capacity", link.capacity / flow_unit_}}});
  }
  std::vector<double> by_source(topology_.num_nodes(), 0.0);
  for (const PairModel& pair : pairs_) by_source[pair.src] += pair.demand;
  for (int s = 0; s < topology_.num_nodes(); ++s) {
    report->entities.push_back(
        {Side::kDemand, s, "node" + NodeName(topology_, s), {{"demand", by_source[s]}}});
  }
  return Status::Ok();
}

}  // namespace dede::te
