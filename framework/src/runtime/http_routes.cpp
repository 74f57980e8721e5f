// The answers of the HTTP endpoint (http_server.h), without the network: one function per path.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "runtime/http_server.h"
#include "store/store.h"

namespace dede::internal {
namespace {

constexpr int kMaxRounds = 1000;

// A SQL string literal.
std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

HttpReply Error(int status, const std::string& message) { return HttpError(status, message); }

// The cell of a query result as JSON: numbers as numbers (non-finite: null), text as text.
nlohmann::json Cell(const QueryResult& result, std::size_t row, std::size_t column) {
  const std::optional<std::string>& cell = result.rows[row][column];
  if (!cell) return nullptr;
  if (!result.numeric[row][column]) return *cell;
  long long integer = 0;
  const char* end = cell->data() + cell->size();
  if (auto [ptr, ec] = std::from_chars(cell->data(), end, integer);
      ec == std::errc() && ptr == end) {
    return integer;
  }
  double value = 0;
  if (auto [ptr, ec] = std::from_chars(cell->data(), end, value);
      ec == std::errc() && ptr == end && std::isfinite(value)) {
    return value;
  }
  return nullptr;
}

nlohmann::json Rows(const QueryResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t r = 0; r < result.rows.size(); ++r) {
    nlohmann::json row = nlohmann::json::object();
    for (std::size_t c = 0; c < result.columns.size(); ++c)
      row[result.columns[c]] = Cell(result, r, c);
    rows.push_back(std::move(row));
  }
  return rows;
}

// "?a=1&b=2" -> {a: 1, b: 2}; false on a malformed or repeated parameter.
bool ParseQuery(const std::string& query, std::vector<std::pair<std::string, std::string>>* out) {
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start < query.size()) {
    std::size_t amp = query.find('&', start);
    if (amp == std::string::npos) amp = query.size();
    const std::string item = query.substr(start, amp - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    if (!seen.insert(item.substr(0, eq)).second) return false;
    out->emplace_back(item.substr(0, eq), item.substr(eq + 1));
    start = amp + 1;
  }
  return true;
}

bool ParseCount(const std::string& text, long long lo, long long hi, long long* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return !text.empty() && ec == std::errc() && ptr == end && *out >= lo && *out <= hi;
}

std::string PromLabel(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string PromNumber(const std::optional<std::string>& cell) {
  if (!cell) return "NaN";
  double v = 0;
  const char* end = cell->data() + cell->size();
  auto [ptr, ec] = std::from_chars(cell->data(), end, v);
  if (ec != std::errc() || ptr != end) return "NaN";
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}

std::string EscapeHtml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A polyline of (round, value) scaled into a w x h box, with its range as text.
std::string Plot(const std::string& title, const std::vector<std::pair<double, double>>& points) {
  const int w = 640, h = 160;
  std::ostringstream svg;
  svg << "<h2>" << EscapeHtml(title) << "</h2>\n";
  if (points.empty()) return svg.str() + "<p>no rounds yet</p>\n";
  double x0 = points.front().first, x1 = points.back().first;
  double y0 = points.front().second, y1 = y0;
  for (const auto& [x, y] : points) {
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
  }
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1;
  svg << "<svg width='" << w << "' height='" << h << "' style='border:1px solid #999'>"
      << "<polyline fill='none' stroke='#1f77b4' stroke-width='1.5' points='";
  for (const auto& [x, y] : points) {
    svg << (x - x0) / (x1 - x0) * (w - 10) + 5 << ',' << h - 5 - (y - y0) / (y1 - y0) * (h - 10)
        << ' ';
  }
  char range[160];
  std::snprintf(range,
                sizeof(range),
                "rounds %.0f..%.0f, from %.6g to %.6g",
                x0,
                points.back().first,
                y0,
                y1);
  svg << "'/></svg><p>" << range << "</p>\n";
  return svg.str();
}

using Params = std::vector<std::pair<std::string, std::string>>;

// One request's parameters and connection.
struct Request {
  const Params& params;
  const std::string& deployment;
  Store* store;
  bool* failed;
  std::string where;  // the deployment's rows of round_summary

  const std::string* Param(const std::string& key) const {
    for (const auto& [k, v] : params)
      if (k == key) return &v;
    return nullptr;
  }
  bool Allow(const std::set<std::string>& keys) const {
    for (const auto& [k, v] : params)
      if (!keys.count(k)) return false;
    return true;
  }
  Result<QueryResult> Query(const std::string& sql) const {
    Store::QueryLimits limits;
    limits.seconds = 5;
    Result<QueryResult> result = store->Query(sql, limits);
    if (!result.ok() && failed != nullptr) *failed = true;
    return result;
  }
};

// SQL errors name no file; the message is the store's ("SQL error: no such table: ...").
HttpReply QueryFailed(const Status& status) {
  return Error(500, "reading the database failed: " + status.message());
}

HttpReply Healthz(const Request& q) {
  if (!q.params.empty()) return Error(400, "/healthz takes no parameters");
  Result<QueryResult> r = q.Query(
      "SELECT max(round) AS last_round, count(*) AS rounds FROM round_summary WHERE " + q.where);
  if (!r.ok()) return Error(503, "the database is not readable: " + r.status().message());
  HttpReply reply;
  reply.body = nlohmann::json{{"status", "ok"},
                              {"deployment", q.deployment},
                              {"last_round", Cell(r.value(), 0, 0)},
                              {"rounds", Cell(r.value(), 0, 1)}}
                   .dump() +
               "\n";
  return reply;
}

HttpReply Rounds(const Request& q) {
  long long last = 10;
  if (!q.Allow({"last"})) return Error(400, "/rounds takes 'last' only");
  if (const std::string* v = q.Param("last"); v && !ParseCount(*v, 1, kMaxRounds, &last)) {
    return Error(400, "last = '" + *v + "': expected an integer in [1, 1000]");
  }
  Result<QueryResult> r = q.Query(
      "SELECT round, started_utc, solver, method, termination, feasible, iterations, objective, "
      "primal_residual, dual_residual, max_violation, total_seconds, message FROM round_summary "
      "WHERE " +
      q.where + " ORDER BY round DESC LIMIT " + std::to_string(last));
  if (!r.ok()) return QueryFailed(r.status());
  HttpReply reply;
  reply.body = Rows(r.value()).dump() + "\n";
  return reply;
}

HttpReply Allocation(const Request& q) {
  if (!q.Allow({"demand", "round"})) return Error(400, "/allocation takes 'demand' and 'round'");
  long long demand = 0, round = -1;
  const std::string* d = q.Param("demand");
  if (!d || !ParseCount(*d, 0, 2147483647, &demand)) {
    return Error(400, "demand: expected a demand index >= 0 (?demand=7)");
  }
  if (const std::string* v = q.Param("round"); v && !ParseCount(*v, 0, 2147483647, &round)) {
    return Error(400, "round = '" + *v + "': expected a round >= 0");
  }
  const std::string id = "(SELECT id FROM deployments WHERE name = " + Quote(q.deployment) + ")";
  const std::string which =
      round >= 0 ? std::to_string(round)
                 : "(SELECT max(round) FROM allocations WHERE deployment_id = " + id + ")";
  Result<QueryResult> r = q.Query(
      "SELECT a.round, v.var_id, v.matrix_name AS matrix, v.resource, a.value FROM allocations a "
      "JOIN variables v ON v.deployment_id = a.deployment_id AND v.var_id = a.var_id "
      "WHERE a.deployment_id = " +
      id + " AND a.round = " + which +
      " AND v.kind = 'entry' AND v.demand = " + std::to_string(demand) + " ORDER BY v.var_id");
  if (!r.ok()) return QueryFailed(r.status());
  nlohmann::json body = {
      {"deployment", q.deployment},
      {"demand", demand},
      {"round", r->rows.empty() ? nlohmann::json(nullptr) : Cell(r.value(), 0, 0)},
      {"entries", nlohmann::json::array()}};
  double total = 0;
  for (std::size_t k = 0; k < r->rows.size(); ++k) {
    body["entries"].push_back({{"var_id", Cell(r.value(), k, 1)},
                               {"matrix", Cell(r.value(), k, 2)},
                               {"resource", Cell(r.value(), k, 3)},
                               {"value", Cell(r.value(), k, 4)}});
    const nlohmann::json value = Cell(r.value(), k, 4);
    if (value.is_number()) total += value.get<double>();
  }
  body["total"] = total;
  HttpReply reply;
  reply.body = body.dump() + "\n";
  return reply;
}

// The inbox's backlog: events of this deployment still pending and already due at the next
// round (the runner's Store::PendingEvents: apply_from_round <= round, apply_after passed).
// Keep this condition the same as the runner's backlog log line (issue 49's inbox cap).
void InboxGauge(const Request& q,
                const std::string& next_round,
                const std::string& label,
                std::ostream& out) {
  Result<QueryResult> pending = q.Query(
      "SELECT count(*) FROM events WHERE deployment = " + Quote(q.deployment) +
      " AND status = 'pending' AND apply_from_round <= " + next_round +
      " AND (apply_after IS NULL OR apply_after <= (julianday('now') - 2440587.5) * 86400.0)");
  if (!pending.ok() || pending->rows.empty()) return;  // a database before the inbox
  out << "# HELP dede_inbox_pending_events Events pending in the inbox and due at the next "
         "round.\n# TYPE dede_inbox_pending_events gauge\n"
      << "dede_inbox_pending_events{" << label << "} " << PromNumber(pending->rows[0][0]) << "\n";
}

HttpReply Metrics(const Request& q) {
  if (!q.params.empty()) return Error(400, "/metrics takes no parameters");
  Result<QueryResult> r = q.Query(
      "SELECT round, iterations, objective, primal_residual, dual_residual, max_violation, "
      "feasible, COALESCE(round_seconds, total_seconds), gap, termination, deployment_id "
      "FROM round_summary WHERE " +
      q.where + " ORDER BY round DESC LIMIT 1");
  if (!r.ok()) return QueryFailed(r.status());
  HttpReply reply;
  reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
  const std::string label = "deployment=\"" + PromLabel(q.deployment) + "\"";
  std::ostringstream out;
  const char* names[] = {"dede_last_round",
                         "dede_round_iterations",
                         "dede_round_objective",
                         "dede_round_primal_residual",
                         "dede_round_dual_residual",
                         "dede_round_max_violation",
                         "dede_round_feasible",
                         "dede_round_seconds",
                         "dede_round_gap"};
  const char* help[] = {"Last committed round.",
                        "ADMM iterations of the last round.",
                        "Objective of the last round's allocation.",
                        "Primal residual at the end of the last round's solve.",
                        "Dual residual at the end of the last round's solve.",
                        "Largest constraint violation of the last round's allocation.",
                        "1 if the last round's allocation is feasible.",
                        "Wall time of the last round (events to report), as its log line "
                        "gives it.",
                        "Certified gap of the last round's allocation: at most this far from "
                        "the optimum, relative (NaN: its solver proves no bound)."};
  out << "# HELP dede_rounds_total Rounds committed.\n# TYPE dede_rounds_total counter\n";
  Result<QueryResult> count = q.Query("SELECT count(*) FROM round_summary WHERE " + q.where);
  out << "dede_rounds_total{" << label << "} "
      << (count.ok() && !count->rows.empty() ? PromNumber(count->rows[0][0]) : "0") << "\n";
  long long next_round = 0;
  if (!r->rows.empty()) {
    for (int k = 0; k < 9; ++k) {
      out << "# HELP " << names[k] << ' ' << help[k] << "\n# TYPE " << names[k] << " gauge\n"
          << names[k] << '{' << label << "} " << PromNumber(r->rows[0][k]) << "\n";
    }
    const std::string round = r->rows[0][0].value_or("-1");
    if (long long last = -1; ParseCount(round, 0, 2147483646, &last)) next_round = last + 1;
    const std::string id = r->rows[0][10].value_or("-1");
    Result<QueryResult> m = q.Query("SELECT name, value FROM metrics WHERE deployment_id = " + id +
                                    " AND round = " + round + " ORDER BY name");
    if (m.ok() && !m->rows.empty()) {
      out << "# HELP dede_plugin_metric The plugin's metrics of the last round.\n"
          << "# TYPE dede_plugin_metric gauge\n";
      for (const auto& row : m->rows) {
        out << "dede_plugin_metric{" << label << ",name=\"" << PromLabel(row[0].value_or(""))
            << "\"} " << PromNumber(row[1]) << "\n";
      }
    }
  }
  InboxGauge(q, std::to_string(next_round), label, out);
  reply.body = out.str();
  return reply;
}

HttpReply StatusPage(const Request& q) {
  if (!q.params.empty()) return Error(400, "/ takes no parameters");
  Result<QueryResult> r = q.Query(
      "SELECT round, objective, COALESCE(round_seconds, total_seconds), termination FROM "
      "(SELECT * FROM round_summary WHERE " +
      q.where + " ORDER BY round DESC LIMIT 100) ORDER BY round");
  if (!r.ok()) return QueryFailed(r.status());
  std::vector<std::pair<double, double>> objective, seconds;
  for (const auto& row : r->rows) {
    const std::string x = PromNumber(row[0]), o = PromNumber(row[1]), t = PromNumber(row[2]);
    const double xr = std::atof(x.c_str());
    if (o != "NaN") objective.emplace_back(xr, std::atof(o.c_str()));
    if (t != "NaN") seconds.emplace_back(xr, std::atof(t.c_str()));
  }
  std::ostringstream html;
  html << "<!doctype html><html><head><meta charset='utf-8'><title>dede: "
       << EscapeHtml(q.deployment)
       << "</title><meta http-equiv='refresh' content='10'>"
       // No icon to fetch: a browser's request for /favicon.ico would end in a 404 console error.
       << "<link rel='icon' href='data:,'></head>"
       << "<body style='font-family:sans-serif'><h1>deployment " << EscapeHtml(q.deployment)
       << "</h1>\n";
  if (!r->rows.empty()) {
    html << "<p>last round " << EscapeHtml(r->rows.back()[0].value_or("?")) << ": "
         << EscapeHtml(r->rows.back()[3].value_or("?")) << "</p>\n";
  }
  html << Plot("objective", objective) << Plot("round time (s)", seconds)
       << "<p><a href='/rounds'>/rounds</a> <a href='/metrics'>/metrics</a> "
          "<a href='/healthz'>/healthz</a></p></body></html>\n";
  HttpReply reply;
  reply.content_type = "text/html; charset=utf-8";
  reply.body = html.str();
  return reply;
}

// Before the first round the file may be missing, or created but not yet migrated.
constexpr const char* kNotYet =
    "the database is not available yet (no round committed, or not readable by this process; "
    "the deployment's log says why)";

}  // namespace

HttpReply HttpError(int status, const std::string& message) {
  HttpReply reply;
  reply.status = status;
  reply.body = nlohmann::json{{"error", message}}.dump() + "\n";
  return reply;
}

HttpReply AnswerHttpTarget(const std::string& target,
                           Store* store,
                           const std::string& deployment,
                           bool* store_failed) {
  const std::size_t mark = target.find('?');
  const std::string path = target.substr(0, mark);
  Params params;
  if (mark != std::string::npos && !ParseQuery(target.substr(mark + 1), &params)) {
    return Error(400, "malformed query string");
  }
  const std::set<std::string> paths = {"/", "/healthz", "/rounds", "/allocation", "/metrics"};
  if (!paths.count(path))
    return Error(404, "no such path; try /, /healthz, /rounds, /allocation, /metrics");
  if (store == nullptr || store->schema_version() == 0) return Error(503, kNotYet);
  const Request q{params, deployment, store, store_failed, "deployment = " + Quote(deployment)};
  if (path == "/healthz") return Healthz(q);
  if (path == "/rounds") return Rounds(q);
  if (path == "/allocation") return Allocation(q);
  if (path == "/metrics") return Metrics(q);
  return StatusPage(q);
}

HttpReply HandleHttpTarget(const std::string& target,
                           const std::string& database,
                           const std::string& deployment) {
  Result<std::unique_ptr<Store>> store = Store::Open(database, /*read_only=*/true);
  return AnswerHttpTarget(target, store.ok() ? store.value().get() : nullptr, deployment);
}

}  // namespace dede::internal
