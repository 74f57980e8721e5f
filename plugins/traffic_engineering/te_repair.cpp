// traffic_engineering: from a solver's allocation to a feasible routing (see te_plugin.h):
// path flows read back from the entries, scaled into the links' capacities, the residual
// capacity filled along alive paths (max total flow), and the maximum utilisation polished
// (min max utilisation); link loads and path liveness shared with the reports and baselines.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "te_plugin.h"

namespace dede::te {

int TrafficEngineeringPlugin::FirstAlivePath(const PairModel& pair) const {
  for (std::size_t i = 0; i < pair.paths.size(); ++i) {
    if (PathAlive(pair.paths[i])) return static_cast<int>(i);
  }
  return -1;
}

bool TrafficEngineeringPlugin::PathAlive(const Path& path) const {
  for (int e : path.links) {
    if (round_.failed[e]) return false;
  }
  return true;
}

std::vector<double> TrafficEngineeringPlugin::LinkLoads(const Allocation& allocation) const {
  return LinkLoads(allocation.values);
}

std::vector<double> TrafficEngineeringPlugin::LinkLoads(const std::vector<double>& values) const {
  std::vector<double> load(net_.topology.links.size(), 0.0);
  for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
    const double f = std::max(0.0, values[net_.path_var[i]]);
    for (int e : net_.path_of_var[i]->links) load[e] += f;
  }
  return load;
}

void TrafficEngineeringPlugin::SetEntriesFromPaths(Allocation* allocation) const {
  std::vector<double>& v = allocation->values;
  for (const auto& row : net_.entries) {
    for (const auto& link_entry : row) v[link_entry.second] = 0.0;
  }
  for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
    const double flow = v[net_.path_var[i]];
    for (std::size_t j = net_.path_entry_begin[i]; j < net_.path_entry_begin[i + 1]; ++j)
      v[net_.path_entry[j]] += flow;
  }
}

void TrafficEngineeringPlugin::SetPathFlows(const std::vector<std::vector<double>>& flows,
                                            Allocation* allocation) const {
  allocation->values.assign(net_.num_variables, 0.0);
  for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
    for (std::size_t i = 0; i < net_.pairs[k].flow.size() && i < flows[k].size(); ++i) {
      allocation->values[net_.pairs[k].flow[i]] = std::max(0.0, flows[k][i]);
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
  for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
    v[net_.path_var[i]] =
        PathAlive(*net_.path_of_var[i]) ? std::max(0.0, v[net_.path_var[i]]) : 0.0;
  }
  if (settings_.objective == Objective::kMaxTotalFlow) {
    // A path carries no more than any link on it grants its block: f_p <= x[e, block] for
    // every e on p. The demand-side copy satisfies this with equality already; the
    // resource-side copy (solver.admm.final_iterate: resource) fits every link's capacity,
    // and trimming its path flows to it keeps most of that fit, so less is scaled away below.
    for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
      double& flow = v[net_.path_var[i]];
      for (std::size_t j = net_.path_entry_begin[i]; j < net_.path_entry_begin[i + 1]; ++j) {
        flow = std::min(flow, std::max(0.0, v[net_.path_entry[j]]));
      }
    }
    // As the reference's fix step: cap every demand, then scale each path by the worst
    // overload on its links. Loads only shrink, so link_load_e <= sum f_p c_e / load_e = c_e.
    for (const PairModel& pair : net_.pairs) {
      double sum = 0.0;
      for (VarId f : pair.flow) sum += v[f];
      if (sum > pair.demand) {
        const double factor = sum > 0 ? pair.demand / sum : 0.0;
        for (VarId f : pair.flow) v[f] *= factor;
      }
    }
    const std::vector<double> load = LinkLoads(*allocation);
    for (std::size_t i = 0; i < net_.path_var.size(); ++i) {
      double factor = 1.0;
      for (int e : net_.path_of_var[i]->links) {
        const double cap = round_.capacity[e] / net_.flow_unit;
        if (load[e] > cap) factor = std::min(factor, load[e] > 0 ? cap / load[e] : 0.0);
      }
      v[net_.path_var[i]] *= factor;
    }
    if (settings_.repair_fill) FillResidual(&v);
  } else {
    // Every demand is routed in full: rescale the pair's flows to its volume (all of it on the
    // first path that avoids failed links if the solver left none).
    for (const PairModel& pair : net_.pairs) {
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
    if (settings_.polish_sweeps > 0) PolishUtilization(&v);
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
    residual[e] = std::max(0.0, round_.capacity[e] / net_.flow_unit - load[e]);
  std::vector<double> unmet(net_.pairs.size());
  for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
    double sum = 0.0;
    for (VarId f : net_.pairs[k].flow) sum += v[f];
    unmet[k] = std::max(0.0, net_.pairs[k].demand - sum);
  }
  for (const int i : net_.fill_order) {
    double& need = unmet[net_.pair_of_var[i]];
    if (need <= 0 || !PathAlive(*net_.path_of_var[i])) continue;
    double add = need;
    for (int e : net_.path_of_var[i]->links) add = std::min(add, residual[e]);
    // Below this the addition is rounding noise (and could push a link over by an ulp).
    if (add <= 1e-12 * std::max(1.0, need)) continue;
    v[net_.path_var[i]] += add;
    need -= add;
    for (int e : net_.path_of_var[i]->links) residual[e] = std::max(0.0, residual[e] - add);
  }
}

void TrafficEngineeringPlugin::PolishUtilization(std::vector<double>* values) const {
  // Flow deviation on the potential sum_e c_e (u_e / U)^p, whose minimiser approaches the
  // min-max utilisation routing as p grows: pair by pair, move flow from its path of highest
  // marginal cost to its path of lowest one by a Newton step. p starts at 16 and doubles (up
  // to 256) whenever a sweep stops lowering the max utilisation. Every pair keeps its full
  // volume; the best routing seen is kept, so the polish never makes the max worse.
  std::vector<double>& v = *values;
  const std::size_t num_links = net_.topology.links.size();
  std::vector<double> inv_cap(num_links, 0.0);
  for (std::size_t e = 0; e < num_links; ++e) {
    if (round_.capacity[e] > 0) inv_cap[e] = net_.flow_unit / round_.capacity[e];
  }
  std::vector<double> load = LinkLoads(v);
  auto max_utilization = [&] {
    double worst = 0.0;
    for (std::size_t e = 0; e < num_links; ++e) worst = std::max(worst, load[e] * inv_cap[e]);
    return worst;
  };
  // Per pair: its alive paths (indices into pair.flow).
  std::vector<std::vector<int>> alive(net_.pairs.size());
  for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
    for (std::size_t i = 0; i < net_.pairs[k].paths.size(); ++i) {
      if (PathAlive(net_.pairs[k].paths[i])) alive[k].push_back(static_cast<int>(i));
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
  // The best routing seen, as path flows (parallel to net_.path_var).
  std::vector<double> best_flows(net_.path_var.size());
  auto keep_best = [&] {
    for (std::size_t i = 0; i < net_.path_var.size(); ++i) best_flows[i] = v[net_.path_var[i]];
  };
  keep_best();
  int stalled = 0;
  // polish_seconds > 0: no sweep starts once that much time has passed (the first always runs).
  const auto polish_start = std::chrono::steady_clock::now();
  const auto out_of_time = [&] {
    return settings_.polish_seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - polish_start).count() >=
               settings_.polish_seconds;
  };
  for (int sweep = 0; sweep < settings_.polish_sweeps && best > 0 && (sweep == 0 || !out_of_time());
       ++sweep) {
    const double p = static_cast<double>(1 << squarings);
    const double scale = 1.0 / max_utilization();  // relative load u_e / U, U this sweep's max
    for (std::size_t k = 0; k < net_.pairs.size(); ++k) {
      const PairModel& pair = net_.pairs[k];
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
  for (std::size_t i = 0; i < net_.path_var.size(); ++i) v[net_.path_var[i]] = best_flows[i];
}

}  // namespace dede::te
