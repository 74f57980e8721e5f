#include "submit.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
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
      if (key == "kind" || key == "target" || key == "deployment" || key == "writer") {
        if (!value.is_string()) return InvalidArgument(field + " is not a string");
        std::string* slot = key == "kind"     ? &row.kind
                            : key == "target" ? &row.target
                            : key == "writer" ? &row.writer
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
        if (!value.is_number()) return InvalidArgument(field + " is not a number");
        row.apply_after = value.get<double>();
      } else {
        return InvalidArgument(field +
                               ": unknown key (kind, target, payload, apply_from_round, "
                               "apply_after, deployment, writer)");
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
      "kind", "target", "payload", "apply_from_round", "apply_after", "deployment", "writer"};
  for (const std::string& h : csv.header()) {
    if (std::find(known.begin(), known.end(), h) == known.end()) {
      return InvalidArgument(r.file + ":" + std::to_string(csv.header_line()) +
                             ": unknown column '" + h +
                             "' (kind, target, payload, apply_from_round, apply_after, "
                             "deployment, writer)");
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

}  // namespace

Status Submit(const SubmitRequest& request, std::ostream& out) {
  Result<std::unique_ptr<internal::Store>> store = internal::Store::Open(request.db_path);
  if (!store.ok()) return store.status();
  EventRow base;
  base.deployment = request.deployment;
  base.kind = request.kind;
  base.target = request.target;
  base.payload = request.json;
  base.apply_from_round = request.apply_from_round;
  base.apply_after = request.apply_after;
  base.writer = request.writer;
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
  // Events without a deployment go to the database's only one.
  bool need_default = false;
  for (const EventRow& e : events) need_default |= e.deployment.empty();
  if (need_default) {
    Result<std::vector<std::string>> names = store.value()->DeploymentNames();
    if (!names.ok()) return names.status();
    if (names->size() != 1) {
      std::string list;
      for (const std::string& n : names.value()) list += (list.empty() ? "" : ", ") + n;
      return InvalidArgument(request.db_path + " holds " + std::to_string(names->size()) +
                             " deployments" + (list.empty() ? "" : " (" + list + ")") +
                             ": name one with --deployment");
    }
    for (EventRow& e : events) {
      if (e.deployment.empty()) e.deployment = names->front();
    }
  }
  Result<std::vector<std::int64_t>> ids = store.value()->SubmitEvents(events);
  if (!ids.ok()) return ids.status();
  for (std::size_t k = 0; k < ids->size(); ++k) {
    out << "event " << ids.value()[k] << "  " << events[k].deployment << "  " << events[k].kind
        << (events[k].target.empty() ? "" : "  " + events[k].target) << "\n";
  }
  return Status::Ok();
}

}  // namespace dede::tools
