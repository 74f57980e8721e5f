// The path formulation as a dede::Problem; see te_model.h.
//   resources = directed links e, demands = source nodes s;
//   allocation entry x[e, s] = traffic of source s on link e, for links on s's paths;
//   demand block s: locals f_p >= 0 for every path p of every commodity of s,
//     sum_{p in P(k)} f_p <= d_k (max total flow) or = d_k (min max utilisation),
//     x[e, s] - sum_{p of s through e} f_p = 0 (coupling of the entry to the path flows; an
//     entry with a single path through it is declared that flow's image instead of a row);
//   resource block e: sum_s x[e, s] <= c_e (max total flow), or the min-max term
//     max_e sum_s x[e, s] / c_e (min max utilisation).
#include "te_model.h"

#include <map>
#include <string>

namespace dede::te {

namespace {

// Adds each used link's capacity row (max total flow) or utilisation term (min max
// utilisation) over its entries in link_rows, and sets the objective's sense.
Status AddLinkRows(const Topology& topology,
                   const std::vector<double>& capacity,
                   Objective objective,
                   const std::string& where,
                   std::vector<LinearExpr>& link_rows,
                   PathModel* model) {
  const int num_links = static_cast<int>(topology.links.size());
  auto name = [&](int v) { return topology.node_names[v]; };
  Problem& problem = model->problem;
  model->capacity_row.assign(num_links, -1);
  std::vector<int> used_links;
  std::vector<LinearExpr> utilization;
  for (int e = 0; e < num_links; ++e) {
    if (link_rows[e].terms.empty()) continue;
    if (objective == Objective::kMaxTotalFlow) {
      model->capacity_row[e] = problem.AddConstraint(BlockId::Resource(e),
                                                     link_rows[e],
                                                     Sense::kLessEqual,
                                                     capacity[e],
                                                     "capacity[" + std::to_string(e) + "]");
    } else {
      if (capacity[e] <= 0) {
        const Link& link = topology.links[e];
        return InvalidArgument(where + ": link " + name(link.src) + " -> " + name(link.dst) +
                               " has capacity 0 but carries paths; min_max_utilization needs "
                               "capacity > 0 (a failed link is modelled by its flows' bounds)");
      }
      LinearExpr u;
      for (const Term& t : link_rows[e].terms) u.Add(t.var, 1.0 / capacity[e]);
      used_links.push_back(e);
      utilization.push_back(std::move(u));
    }
  }
  if (objective == Objective::kMaxTotalFlow) {
    problem.SetObjectiveSense(ObjectiveSense::kMaximize);
  } else {
    problem.SetObjectiveSense(ObjectiveSense::kMinimize);
    if (!used_links.empty()) {
      problem.SetGlobalTerm(
          GlobalKind::kMinMax, Side::kResource, std::move(used_links), std::move(utilization));
    }
  }
  return Status::Ok();
}

}  // namespace

Status BuildPathModel(const Topology& topology,
                      const std::vector<double>& capacity,
                      const std::vector<Commodity>& commodities,
                      Objective objective,
                      double flow_cost,
                      const std::string& where,
                      PathModel* model,
                      bool per_pair,
                      bool coupling_rows) {
  const int num_nodes = topology.num_nodes();
  const int num_links = static_cast<int>(topology.links.size());
  auto name = [&](int v) { return topology.node_names[v]; };
  const int num_blocks = per_pair ? static_cast<int>(commodities.size()) : num_nodes;
  model->problem = Problem(num_links, num_blocks);
  Problem& problem = model->problem;
  const int x = problem.AddAllocation("x", Domain::NonNegative());
  // Which flows cross each link, by block: the flows are the first variables, in commodity and
  // path order, so their ids are known before they are added. The model is then sized
  // exactly (a vector grown by doubling can hold twice its 64-byte variables: gigabytes on the
  // full ASN2k).
  std::vector<std::map<int, std::vector<VarId>>> through(num_blocks);
  std::size_t num_flows = 0;
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    const int b = per_pair ? static_cast<int>(k) : commodities[k].src;
    for (const Path& path : *commodities[k].paths) {
      const VarId f = problem.num_variables() + static_cast<VarId>(num_flows++);
      for (int e : path.links) through[b][e].push_back(f);
    }
  }
  std::size_t num_entries = 0, num_coupling = 0;
  for (const auto& links : through) {
    num_entries += links.size();
    for (const auto& [e, flows] : links) num_coupling += flows.size() > 1 || coupling_rows ? 1 : 0;
  }
  problem.Reserve(num_flows + num_entries,
                  commodities.size() + num_coupling + static_cast<std::size_t>(num_links),
                  num_flows,
                  commodities.size() + static_cast<std::size_t>(num_links));
  model->flow.assign(commodities.size(), {});
  model->block.assign(commodities.size(), 0);
  model->demand_row.assign(commodities.size(), -1);
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    const Commodity& c = commodities[k];
    const int b = per_pair ? static_cast<int>(k) : c.src;
    model->block[k] = b;
    LinearExpr total;
    model->flow[k].reserve(c.paths->size());
    for (std::size_t i = 0; i < c.paths->size(); ++i) {
      const VarId f =
          problem.AddLocal(BlockId::Demand(b),
                           Domain::NonNegative(),
                           "f[" + name(c.src) + "," + name(c.dst) + "," + std::to_string(i) + "]");
      model->flow[k].push_back(f);
      total.Add(f, 1.0);
      if (objective == Objective::kMaxTotalFlow) problem.AddLinearCost(f, flow_cost);
    }
    model->demand_row[k] = problem.AddConstraint(
        BlockId::Demand(b),
        total,
        objective == Objective::kMaxTotalFlow ? Sense::kLessEqual : Sense::kEqual,
        c.demand,
        "demand[" + name(c.src) + "," + name(c.dst) + "]");
  }
  model->entries.assign(num_blocks, {});
  std::vector<LinearExpr> link_rows(num_links);
  for (int s = 0; s < num_blocks; ++s) {
    model->entries[s].reserve(through[s].size());
    for (const auto& [e, flows] : through[s]) {
      if (flows.size() == 1 && !coupling_rows) {
        // The flow of the one path through e: no row (a path model's entries are millions).
        const VarId entry = problem.AddEntry(x, e, s, EntryImage{flows[0]});
        model->entries[s].emplace_back(e, entry);
        link_rows[e].Add(entry, 1.0);
        continue;
      }
      const VarId entry = problem.AddEntry(x, e, s);
      model->entries[s].emplace_back(e, entry);
      LinearExpr coupling;
      coupling.Add(entry, 1.0);
      for (VarId f : flows) coupling.Add(f, -1.0);
      // Unnamed: one per (link, block) pair, millions on a large WAN, and an identity of the
      // model rather than a limit a message would point an operator to.
      problem.AddConstraint(BlockId::Demand(s), coupling, Sense::kEqual, 0.0);
      link_rows[e].Add(entry, 1.0);
    }
  }
  return AddLinkRows(topology, capacity, objective, where, link_rows, model);
}

Status BuildCompactModel(const Topology& topology,
                         const std::vector<double>& capacity,
                         const std::vector<char>& failed,
                         const std::vector<Commodity>& commodities,
                         Objective objective,
                         double flow_cost,
                         const std::string& where,
                         CompactModel* model) {
  const int num_links = static_cast<int>(topology.links.size());
  auto name = [&](int v) { return topology.node_names[v]; };
  auto is_failed = [&](int e) { return !failed.empty() && failed[e] != 0; };
  model->problem = Problem(1, 1);
  Problem& problem = model->problem;
  const BlockId block = BlockId::Demand(0);
  const bool max_flow = objective == Objective::kMaxTotalFlow;
  model->flow.assign(commodities.size(), {});
  model->demand_row.assign(commodities.size(), -1);
  std::vector<LinearExpr> link_rows(num_links);
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    const Commodity& c = commodities[k];
    LinearExpr total;
    for (std::size_t i = 0; i < c.paths->size(); ++i) {
      const Path& path = (*c.paths)[i];
      bool alive = true;
      for (int e : path.links) alive = alive && !is_failed(e);
      const VarId f = problem.AddLocal(block, alive ? Domain::NonNegative() : Domain::Box(0, 0));
      model->flow[k].push_back(f);
      total.Add(f, 1.0);
      for (int e : path.links) link_rows[e].Add(f, 1.0);
      if (max_flow) problem.AddLinearCost(f, flow_cost);
    }
    model->demand_row[k] = problem.AddConstraint(block,
                                                 total,
                                                 max_flow ? Sense::kLessEqual : Sense::kEqual,
                                                 c.demand,
                                                 "demand[" + name(c.src) + "," + name(c.dst) + "]");
  }
  model->utilization = -1;
  if (!max_flow) {
    model->utilization = problem.AddLocal(block, Domain::NonNegative(), "U");
    problem.AddLinearCost(model->utilization, 1.0);
  }
  model->link_row.assign(num_links, -1);
  for (int e = 0; e < num_links; ++e) {
    LinearExpr& row = link_rows[e];
    if (row.terms.empty()) continue;
    if (max_flow) {
      model->link_row[e] = problem.AddConstraint(
          block, row, Sense::kLessEqual, capacity[e], "capacity[" + std::to_string(e) + "]");
      continue;
    }
    if (capacity[e] <= 0) {
      const Link& link = topology.links[e];
      return InvalidArgument(where + ": link " + name(link.src) + " -> " + name(link.dst) +
                             " has capacity 0 but carries paths; min_max_utilization needs "
                             "capacity > 0 (a failed link is modelled by its flows' bounds)");
    }
    for (Term& t : row.terms) t.coef = 1.0 / capacity[e];
    row.Add(model->utilization, -1.0);
    model->link_row[e] = problem.AddConstraint(
        block, row, Sense::kLessEqual, 0.0, "utilization[" + std::to_string(e) + "]");
  }
  problem.SetObjectiveSense(max_flow ? ObjectiveSense::kMaximize : ObjectiveSense::kMinimize);
  return Status::Ok();
}

std::vector<double> PathLoads(const Topology& topology,
                              const std::vector<Commodity>& commodities,
                              const std::vector<std::vector<double>>& flows) {
  std::vector<double> load(topology.links.size(), 0.0);
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    for (std::size_t i = 0; i < flows[k].size(); ++i) {
      for (int e : (*commodities[k].paths)[i].links) load[e] += flows[k][i];
    }
  }
  return load;
}

}  // namespace dede::te
