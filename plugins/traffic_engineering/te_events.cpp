// The traffic_engineering plugin's inbox events (link failures and recoveries, capacities,
// demands, whole matrices): validation in ApplyEvent, folded over the configured data in
// Refresh (te_plugin.cpp). See README.md, "Events".
#include <set>
#include <string>
#include <vector>

#include "dede/csv.h"
#include "te_plugin.h"

namespace dede::te {

int TrafficEngineeringPlugin::ParseLinkTarget(const std::string& text) const {
  const int num_links = static_cast<int>(net_.topology.links.size());
  const std::size_t arrow = text.find("->");
  if (arrow != std::string::npos) {
    const int a = net_.topology.NodeIndexByName(text.substr(0, arrow));
    const int b = net_.topology.NodeIndexByName(text.substr(arrow + 2));
    return a >= 0 && b >= 0 ? net_.topology.LinkIndex(a, b) : -1;
  }
  int index = -1;
  if (ParseInteger(text, &index) && index >= 0 && index < num_links) return index;
  return -1;
}

std::vector<EventKind> TrafficEngineeringPlugin::EventKinds() const {
  return {
      {"link_fail", "a->b or a link index", "{}", "the link carries nothing from this round on"},
      {"link_recover", "a->b or a link index", "{}", "a failed link carries traffic again"},
      {"link_capacity",
       "a->b or a link index",
       "{capacity: number in [0, 1e15]}",
       "the link's capacity (topology units) from this round on"},
      {"demand",
       "src->dst (node ids or names)",
       "{demand: number in [0, 1e15]}",
       "the pair's demand from this round on (the pair must have paths: a demand in some "
       "input round)"},
      {"traffic_matrix",
       "",
       "{demands: [[src, dst, demand], ...]}",
       "replaces every demand from this round on (pairs not listed: 0)"},
  };
}

Status TrafficEngineeringPlugin::ApplyEvent(int round, const Event& event, std::string* rejection) {
  rejection->clear();
  const std::string where = "event " + std::to_string(event.id) + " (" + event.kind + ")";
  InboxEvent inbox;
  inbox.round = round;
  const ConfigNode& payload = event.payload;
  // Messages from the payload's typed reads already name the event and the field.
  const auto reject = [&](const std::string& why) {
    *rejection = why.rfind("event ", 0) == 0 ? why : where + ": " + why;
    return Status::Ok();
  };
  const auto pair_of = [&](const std::string& src, const std::string& dst) {
    const int a = net_.topology.NodeIndexByName(src);
    const int b = net_.topology.NodeIndexByName(dst);
    auto it = net_.pair_index.find({a, b});
    return a < 0 || b < 0 || it == net_.pair_index.end() ? -1 : it->second;
  };
  if (event.kind == "link_fail" || event.kind == "link_recover" || event.kind == "link_capacity") {
    inbox.link = ParseLinkTarget(event.target);
    if (inbox.link < 0) {
      return reject("target '" + event.target + "' is not a link of " + settings_.topology_file +
                    " (give 'a->b' with node ids or names, or a link index 0.." +
                    std::to_string(net_.topology.links.size() - 1) + ")");
    }
    if (event.kind == "link_capacity") {
      Status status = payload.Require("capacity");
      status.Update(payload.Read("capacity", &inbox.value, 0.0, 1e15));
      if (!status.ok()) return reject(status.message());
      inbox.kind = InboxEvent::Kind::kLinkCapacity;
    } else {
      inbox.kind =
          event.kind == "link_fail" ? InboxEvent::Kind::kLinkFail : InboxEvent::Kind::kLinkRecover;
    }
    if (inbox.kind == InboxEvent::Kind::kLinkFail &&
        settings_.objective == Objective::kMinMaxUtilization) {
      // Min max utilisation routes every demand in full: a failure that leaves a demanded
      // pair without a path would stop the deployment at the next Refresh.
      const char saved = round_.failed[inbox.link];
      round_.failed[inbox.link] = 1;
      std::string cut;
      for (const PairModel& pair : net_.pairs) {
        if (pair.demand > 0 && FirstAlivePath(pair) < 0) {
          cut = net_.topology.node_names[pair.src] + " -> " + net_.topology.node_names[pair.dst];
          break;
        }
      }
      round_.failed[inbox.link] = saved;
      if (!cut.empty()) {
        return reject("failing " + event.target + " leaves " + cut +
                      " (which has a demand) without a path; min_max_utilization routes every "
                      "demand in full");
      }
    }
  } else if (event.kind == "demand") {
    const std::size_t arrow = event.target.find("->");
    inbox.pair = arrow == std::string::npos
                     ? -1
                     : pair_of(event.target.substr(0, arrow), event.target.substr(arrow + 2));
    if (inbox.pair < 0) {
      return reject("target '" + event.target +
                    "' is not a pair with paths ('src->dst'; the "
                    "pairs are fixed at start: those with a demand in some input round)");
    }
    Status status = payload.Require("demand");
    status.Update(payload.Read("demand", &inbox.value, 0.0, kMaxDemand));
    if (!status.ok()) return reject(status.message());
    inbox.kind = InboxEvent::Kind::kDemand;
  } else if (event.kind == "traffic_matrix") {
    Status status = payload.Require("demands");
    if (!status.ok()) return reject(status.message());
    const ConfigNode& demands = *payload.Find("demands");
    if (!demands.IsList()) return reject("payload.demands is not a list of [src, dst, demand]");
    std::set<int> seen;
    for (std::size_t k = 0; k < demands.items().size(); ++k) {
      const ConfigNode& row = demands.items()[k];
      const std::string at = "payload.demands[" + std::to_string(k) + "]";
      if (!row.IsList() || row.items().size() != 3 || !row.items()[0].IsScalar() ||
          !row.items()[1].IsScalar()) {
        return reject(at + " is not [src, dst, demand]");
      }
      const int pair = pair_of(row.items()[0].scalar(), row.items()[1].scalar());
      if (pair < 0) {
        return reject(at + ": " + row.items()[0].scalar() + " -> " + row.items()[1].scalar() +
                      " is not a pair with paths");
      }
      Result<double> value = row.items()[2].AsDouble();
      if (!value.ok()) return reject(value.status().message());
      if (!(value.value() >= 0 && value.value() <= kMaxDemand)) {
        return reject(at + ": demand " + row.items()[2].scalar() + " is not in [0, 1e15]");
      }
      if (!seen.insert(pair).second) return reject(at + ": the pair is listed twice");
      inbox.matrix.emplace_back(pair, value.value());
    }
    inbox.kind = InboxEvent::Kind::kMatrix;
  } else {
    return reject("unknown kind");
  }
  round_.inbox.push_back(std::move(inbox));
  return Status::Ok();
}

}  // namespace dede::te
