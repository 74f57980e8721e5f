#include "submit.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "store/store.h"

namespace dede::tools {
namespace {

using internal::EventRow;

// RFC 4180 fields of one record (quotes doubled inside quoted fields); records do not span
// lines here.
Result<std::vector<std::string>> SplitCsv(const std::string& line, const std::string& where) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else {
      field += c;
    }
  }
  if (quoted) return InvalidArgument(where + ": unterminated quoted field");
  fields.push_back(std::move(field));
  return fields;
}

Status ParseNumber(const std::string& text, const std::string& where, double* out) {
  std::size_t used = 0;
  try {
    *out = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(*out)) {
    return InvalidArgument(where + " = '" + text + "' is not a finite number");
  }
  return Status::Ok();
}

Status ParseRound(const std::string& text, const std::string& where, int* out) {
  double v = 0;
  Status status = ParseNumber(text, where, &v);
  if (!status.ok()) return status;
  if (v < 0 || v > 2e9 || v != std::floor(v)) {
    return InvalidArgument(where + " = '" + text + "': expected a round number >= 0");
  }
  *out = static_cast<int>(v);
  return Status::Ok();
}

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

Status ReadCsvFile(const SubmitRequest& r, const EventRow& base, std::vector<EventRow>* out) {
  std::ifstream in(r.file);
  if (!in) return NotFound(r.file + ": cannot open the file");
  std::string line;
  if (!std::getline(in, line)) return InvalidArgument(r.file + ": empty file, expected a header");
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  Result<std::vector<std::string>> header = SplitCsv(line, r.file + ":1");
  if (!header.ok()) return header.status();
  const std::vector<std::string> known = {
      "kind", "target", "payload", "apply_from_round", "apply_after", "deployment", "writer"};
  bool has_kind = false;
  for (const std::string& h : header.value()) {
    if (std::find(known.begin(), known.end(), h) == known.end()) {
      return InvalidArgument(r.file + ":1: unknown column '" + h +
                             "' (kind, target, payload, apply_from_round, apply_after, "
                             "deployment, writer)");
    }
    has_kind |= h == "kind";
  }
  if (!has_kind) return InvalidArgument(r.file + ":1: no 'kind' column");
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = r.file + ":" + std::to_string(number);
    Result<std::vector<std::string>> fields = SplitCsv(line, where);
    if (!fields.ok()) return fields.status();
    if (fields->size() != header->size()) {
      return InvalidArgument(where + ": " + std::to_string(fields->size()) + " fields, expected " +
                             std::to_string(header->size()));
    }
    EventRow row = base;
    for (std::size_t c = 0; c < fields->size(); ++c) {
      const std::string& h = header.value()[c];
      const std::string& v = fields.value()[c];
      const std::string field = where + ": " + h;
      if (h == "kind") row.kind = v;
      if (h == "target") row.target = v;
      if (h == "deployment" && !v.empty()) row.deployment = v;
      if (h == "writer" && !v.empty()) row.writer = v;
      if (h == "payload" && !v.empty()) row.payload = v;
      if (h == "apply_from_round" && !v.empty()) {
        Status status = ParseRound(v, field, &row.apply_from_round);
        if (!status.ok()) return status;
      }
      if (h == "apply_after" && !v.empty()) {
        Status status = ParseNumber(v, field, &row.apply_after);
        if (!status.ok()) return status;
      }
    }
    if (row.kind.empty()) return InvalidArgument(where + ": kind is empty");
    out->push_back(std::move(row));
  }
  return Status::Ok();
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
