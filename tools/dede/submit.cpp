#include "submit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "dede/csv.h"
#include "store/store.h"

namespace dede::tools {
namespace {

using internal::EventRow;

Status ReadJsonFile(const SubmitRequest& r, const EventRow& base, std::vector<EventRow>* out) {
  std::ifstream in(r.file);
  if (!in) return NotFound(r.file + ": cannot open the file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(r.file + ": not valid JSON: " + e.what());
  }
  if (!doc.is_array()) return InvalidArgument(r.file + ": expected a JSON array of events");
  for (std::size_t k = 0; k < doc.size(); ++k) {
    const std::string where = r.file + ": [" + std::to_string(k) + "]";
    const nlohmann::json& e = doc[k];
    if (!e.is_object()) return InvalidArgument(where + " is not an object");
    EventRow row = base;
    for (const auto& [key, value] : e.items()) {
      const std::string field = where + "." + key;
      if (key == "kind" || key == "target" || key == "deployment" || key == "writer" ||
          key == "id") {
        if (!value.is_string()) return InvalidArgument(field + " is not a string");
        std::string* slot = key == "kind"     ? &row.kind
                            : key == "target" ? &row.target
                            : key == "writer" ? &row.writer
                            : key == "id"     ? &row.idempotency_key
                                              : &row.deployment;
        *slot = value.get<std::string>();
      } else if (key == "payload") {
        if (!value.is_object()) return InvalidArgument(field + " is not a JSON object");
        row.payload = value.dump();
      } else if (key == "apply_from_round") {
        if (!value.is_number_integer() || value.get<long long>() < 0 ||
            value.get<long long>() > 2000000000) {
          return InvalidArgument(field + " is not a round number >= 0");
        }
        row.apply_from_round = value.get<int>();
      } else if (key == "apply_after") {
        if (!value.is_number() || !std::isfinite(value.get<double>())) {
          return InvalidArgument(field + " = " + value.dump() +
                                 ": expected a finite Unix time in seconds");
        }
        row.apply_after = value.get<double>();
      } else {
        return InvalidArgument(field +
                               ": unknown key (kind, target, payload, apply_from_round, "
                               "apply_after, deployment, writer, id)");
      }
    }
    if (row.kind.empty()) return InvalidArgument(where + ".kind is missing");
    out->push_back(std::move(row));
  }
  return Status::Ok();
}

// A header naming some of the columns below (kind required), then one event per record.
Status ReadCsvFile(const SubmitRequest& r, const EventRow& base, std::vector<EventRow>* out) {
  Result<CsvReader> opened = CsvReader::Open(r.file);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  const std::vector<std::string> known = {
      "kind", "target", "payload", "apply_from_round", "apply_after", "deployment", "writer", "id"};
  for (const std::string& h : csv.header()) {
    if (std::find(known.begin(), known.end(), h) == known.end()) {
      return InvalidArgument(r.file + ":" + std::to_string(csv.header_line()) +
                             ": unknown column '" + h +
                             "' (kind, target, payload, apply_from_round, apply_after, "
                             "deployment, writer, id)");
    }
  }
  if (csv.Column("kind") < 0) {
    return InvalidArgument(r.file + ":" + std::to_string(csv.header_line()) + ": no 'kind' column");
  }
  Status status;
  while (csv.Next(&status)) {
    EventRow row = base;
    for (int c = 0; c < csv.size(); ++c) {
      const std::string& h = csv.header()[c];
      const std::string v(csv.Field(c));
      if (h == "kind") row.kind = v;
      if (h == "target") row.target = v;
      if (h == "deployment" && !v.empty()) row.deployment = v;
      if (h == "writer" && !v.empty()) row.writer = v;
      if (h == "id") row.idempotency_key = v;
      if (h == "payload" && !v.empty()) row.payload = v;
      if (h == "apply_from_round" && !v.empty()) {
        std::int64_t round = 0;
        status = csv.ReadIntegral(c, &round, 0, 2000000000);
        if (!status.ok()) return status;
        row.apply_from_round = static_cast<int>(round);
      }
      if (h == "apply_after" && !v.empty()) {
        status = csv.Read(c, &row.apply_after);
        if (!status.ok()) return status;
      }
    }
    if (row.kind.empty()) return csv.Expected(csv.Column("kind"), "an event kind");
    out->push_back(std::move(row));
  }
  return status;
}

std::string FormatValue(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// Events without a deployment go to the database's only one; a named deployment must be one
// the database knows (a typo would otherwise stay pending for ever), unless the request allows
// one that has not run yet.
Status ResolveDeployments(const SubmitRequest& request,
                          internal::Store& store,
                          std::vector<EventRow>* events) {
  Result<std::vector<std::string>> names = store.DeploymentNames();
  if (!names.ok()) return names.status();
  const std::string known =
      names->empty() ? "none: no `dede run` has started one yet" : JoinNames(names.value());
  for (std::size_t k = 0; k < events->size(); ++k) {
    EventRow& e = (*events)[k];
    const std::string where =
        request.file.empty() ? std::string() : request.file + ": event " + std::to_string(k) + ": ";
    if (e.deployment.empty()) {
      if (names->size() != 1) {
        return InvalidArgument(where + request.db_path + " holds " + std::to_string(names->size()) +
                               " deployments (" + known + "): name one with --deployment");
      }
      e.deployment = names->front();
      continue;
    }
    const bool exists = std::find(names->begin(), names->end(), e.deployment) != names->end();
    if (!exists && !request.allow_unknown_deployment) {
      return InvalidArgument(where + "deployment '" + e.deployment + "' is not in " +
                             request.db_path + " (deployments: " + known +
                             "). Check the name, or pass --allow-unknown-deployment to queue "
                             "events for a deployment before its first `dede run`");
    }
  }
  return Status::Ok();
}

}  // namespace

Status Submit(const SubmitRequest& request, std::ostream& out) {
  if (request.apply_after_given && !std::isfinite(request.apply_after)) {
    return InvalidArgument("--after = " + FormatValue(request.apply_after) +
                           ": expected a finite Unix time in seconds");
  }
  if (!request.file.empty() && !request.id.empty()) {
    return InvalidArgument(
        "--id names one event; with --file give each event its own key "
        "(JSON key or CSV column 'id')");
  }
  Result<std::unique_ptr<internal::Store>> store = internal::Store::Open(request.db_path);
  if (!store.ok()) return store.status();
  EventRow base;
  base.deployment = request.deployment;
  base.kind = request.kind;
  base.target = request.target;
  base.payload = request.json;
  base.apply_from_round = request.apply_from_round;
  base.apply_after = request.apply_after_given ? request.apply_after : std::nan("");
  base.writer = request.writer;
  base.idempotency_key = request.id;
  std::vector<EventRow> events;
  if (!request.file.empty()) {
    base.kind.clear();
    base.target.clear();
    base.payload = "{}";
    const bool json =
        request.file.size() >= 5 && request.file.compare(request.file.size() - 5, 5, ".json") == 0;
    Status status =
        json ? ReadJsonFile(request, base, &events) : ReadCsvFile(request, base, &events);
    if (!status.ok()) return status;
    if (events.empty()) return InvalidArgument(request.file + ": no events");
  } else {
    events.push_back(base);
  }
  Status status = ResolveDeployments(request, *store.value(), &events);
  if (!status.ok()) return status;
  Result<std::vector<internal::SubmittedEvent>> submitted = store.value()->SubmitEventsOnce(events);
  if (!submitted.ok()) return submitted.status();
  for (std::size_t k = 0; k < events.size(); ++k) {
    const internal::SubmittedEvent& result = submitted.value()[k];
    out << "event " << result.id << "  " << events[k].deployment << "  " << events[k].kind
        << (events[k].target.empty() ? "" : "  " + events[k].target);
    if (result.existing) {
      out << "  already submitted with id '" << events[k].idempotency_key << "' (" << result.status
          << (result.round >= 0 ? " in round " + std::to_string(result.round) : std::string())
          << "); nothing written";
    }
    out << "\n";
  }
  return Status::Ok();
}

}  // namespace dede::tools
