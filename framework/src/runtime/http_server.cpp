#include "runtime/http_server.h"

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "store/store.h"

namespace dede::internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::uint32_t kHeaderLimit = 8 * 1024;
constexpr auto kRequestTimeout = std::chrono::seconds(10);
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

HttpReply Error(int status, const std::string& message) {
  HttpReply reply;
  reply.status = status;
  reply.body = nlohmann::json{{"error", message}}.dump() + "\n";
  return reply;
}

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

}  // namespace

HttpReply HandleHttpTarget(const std::string& target,
                           const std::string& database,
                           const std::string& deployment) {
  const std::size_t mark = target.find('?');
  const std::string path = target.substr(0, mark);
  std::vector<std::pair<std::string, std::string>> params;
  if (mark != std::string::npos && !ParseQuery(target.substr(mark + 1), &params)) {
    return Error(400, "malformed query string");
  }
  const auto param = [&](const std::string& key) -> const std::string* {
    for (const auto& [k, v] : params)
      if (k == key) return &v;
    return nullptr;
  };
  const auto allow = [&](std::set<std::string> keys) {
    for (const auto& [k, v] : params)
      if (!keys.count(k)) return false;
    return true;
  };
  const std::set<std::string> paths = {"/", "/healthz", "/rounds", "/allocation", "/metrics"};
  if (!paths.count(path))
    return Error(404, "no such path; try /, /healthz, /rounds, /allocation, /metrics");

  Result<std::unique_ptr<Store>> store = Store::Open(database, /*read_only=*/true);
  if (!store.ok()) {
    if (path == "/healthz") return Error(503, store.status().message());
    return Error(503, "the database is not readable yet: " + store.status().message());
  }
  Store::QueryLimits limits;
  limits.seconds = 5;
  const auto query = [&](const std::string& sql) { return store.value()->Query(sql, limits); };
  const std::string where = "deployment = " + Quote(deployment);

  if (path == "/healthz") {
    if (!params.empty()) return Error(400, "/healthz takes no parameters");
    Result<QueryResult> r = query(
        "SELECT max(round) AS last_round, count(*) AS rounds "
        "FROM round_summary WHERE " +
        where);
    if (!r.ok()) return Error(503, r.status().message());
    HttpReply reply;
    reply.body = nlohmann::json{{"status", "ok"},
                                {"deployment", deployment},
                                {"last_round", Cell(r.value(), 0, 0)},
                                {"rounds", Cell(r.value(), 0, 1)}}
                     .dump() +
                 "\n";
    return reply;
  }
  if (path == "/rounds") {
    long long last = 10;
    if (!allow({"last"})) return Error(400, "/rounds takes 'last' only");
    if (const std::string* v = param("last"); v && !ParseCount(*v, 1, kMaxRounds, &last)) {
      return Error(400, "last = '" + *v + "': expected an integer in [1, 1000]");
    }
    Result<QueryResult> r = query(
        "SELECT round, started_utc, solver, method, termination, feasible, iterations, objective, "
        "primal_residual, dual_residual, max_violation, total_seconds, message FROM round_summary "
        "WHERE " +
        where + " ORDER BY round DESC LIMIT " + std::to_string(last));
    if (!r.ok()) return Error(500, r.status().message());
    HttpReply reply;
    reply.body = Rows(r.value()).dump() + "\n";
    return reply;
  }
  if (path == "/allocation") {
    if (!allow({"demand", "round"})) return Error(400, "/allocation takes 'demand' and 'round'");
    long long demand = 0, round = -1;
    const std::string* d = param("demand");
    if (!d || !ParseCount(*d, 0, 2147483647, &demand)) {
      return Error(400, "demand: expected a demand index >= 0 (?demand=7)");
    }
    if (const std::string* v = param("round"); v && !ParseCount(*v, 0, 2147483647, &round)) {
      return Error(400, "round = '" + *v + "': expected a round >= 0");
    }
    const std::string id = "(SELECT id FROM deployments WHERE name = " + Quote(deployment) + ")";
    const std::string which =
        round >= 0 ? std::to_string(round)
                   : "(SELECT max(round) FROM allocations WHERE deployment_id = " + id + ")";
    Result<QueryResult> r = query(
        "SELECT a.round, v.var_id, v.matrix_name AS matrix, v.resource, a.value FROM allocations a "
        "JOIN variables v ON v.deployment_id = a.deployment_id AND v.var_id = a.var_id "
        "WHERE a.deployment_id = " +
        id + " AND a.round = " + which +
        " AND v.kind = 'entry' AND v.demand = " + std::to_string(demand) + " ORDER BY v.var_id");
    if (!r.ok()) return Error(500, r.status().message());
    nlohmann::json body = {
        {"deployment", deployment},
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
  if (path == "/metrics") {
    if (!params.empty()) return Error(400, "/metrics takes no parameters");
    Result<QueryResult> r = query(
        "SELECT round, iterations, objective, primal_residual, dual_residual, max_violation, "
        "feasible, COALESCE(round_seconds, total_seconds), gap, termination, deployment_id "
        "FROM "
        "round_summary WHERE " +
        where + " ORDER BY round DESC LIMIT 1");
    if (!r.ok()) return Error(500, r.status().message());
    HttpReply reply;
    reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    const std::string label = "deployment=\"" + PromLabel(deployment) + "\"";
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
    Result<QueryResult> count = query("SELECT count(*) FROM round_summary WHERE " + where);
    out << "dede_rounds_total{" << label << "} "
        << (count.ok() && !count->rows.empty() ? PromNumber(count->rows[0][0]) : "0") << "\n";
    if (!r->rows.empty()) {
      for (int k = 0; k < 9; ++k) {
        out << "# HELP " << names[k] << ' ' << help[k] << "\n# TYPE " << names[k] << " gauge\n"
            << names[k] << '{' << label << "} " << PromNumber(r->rows[0][k]) << "\n";
      }
      const std::string round = r->rows[0][0].value_or("-1");
      const std::string id = r->rows[0][10].value_or("-1");
      Result<QueryResult> m = query("SELECT name, value FROM metrics WHERE deployment_id = " + id +
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
    reply.body = out.str();
    return reply;
  }
  // "/": the status page.
  if (!params.empty()) return Error(400, "/ takes no parameters");
  Result<QueryResult> r = query(
      "SELECT round, objective, COALESCE(round_seconds, total_seconds), termination FROM "
      "(SELECT * FROM round_summary WHERE " +
      where + " ORDER BY round DESC LIMIT 100) ORDER BY round");
  if (!r.ok()) return Error(500, r.status().message());
  std::vector<std::pair<double, double>> objective, seconds;
  for (const auto& row : r->rows) {
    const std::string x = PromNumber(row[0]), o = PromNumber(row[1]), t = PromNumber(row[2]);
    const double xr = std::atof(x.c_str());
    if (o != "NaN") objective.emplace_back(xr, std::atof(o.c_str()));
    if (t != "NaN") seconds.emplace_back(xr, std::atof(t.c_str()));
  }
  std::ostringstream html;
  html << "<!doctype html><html><head><meta charset='utf-8'><title>dede: " << EscapeHtml(deployment)
       << "</title><meta http-equiv='refresh' content='10'></head>"
       << "<body style='font-family:sans-serif'><h1>deployment " << EscapeHtml(deployment)
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

// ---- the network side -----------------------------------------------------------------------

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  Impl(asio::io_context& io, std::string db, std::string name, Logger logger)
      : acceptor(io),
        database(std::move(db)),
        deployment(std::move(name)),
        log(std::move(logger)) {}
  tcp::acceptor acceptor;
  std::string database, deployment;
  Logger log;
  bool stopped = false;
  bool accept_failing = false;  // warned about the current run of failed accepts
  std::vector<std::weak_ptr<beast::tcp_stream>> open;

  void Accept();
};

namespace {

// One connection: read one request (bounded in size and time), answer, close.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<HttpServer::Impl> server, tcp::socket socket)
      : server_(std::move(server)),
        stream_(std::make_shared<beast::tcp_stream>(std::move(socket))) {}
  std::shared_ptr<beast::tcp_stream> stream() const { return stream_; }

  void Start() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(0);
    stream_->expires_after(kRequestTimeout);
    http::async_read(
        *stream_,
        buffer_,
        *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted) {
      Close();
      return;
    }
    HttpReply reply;
    unsigned version = 11;
    bool head = false;
    std::string request_line = "unreadable request";
    if (ec == http::error::header_limit) {
      reply = Error(431, "request headers over 8 KiB");
    } else if (ec == http::error::body_limit) {
      reply = Error(413, "requests carry no body");
    } else if (ec) {
      reply = Error(400, "malformed request: " + ec.message());
    } else {
      const auto& request = parser_->get();
      request_line = std::string(request.method_string()) + " " + std::string(request.target());
      version = request.version();
      head = request.method() == http::verb::head;
      if (request.method() != http::verb::get && !head) {
        reply = Error(405, "read-only endpoint: GET or HEAD only");
      } else {
        reply =
            HandleHttpTarget(std::string(request.target()), server_->database, server_->deployment);
      }
    }
    if (server_->log.Enabled(LogLevel::kDebug)) {
      server_->log.Debug("http: " + request_line + " -> " + std::to_string(reply.status));
    }
    response_ = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(reply.status), version);
    response_->set(http::field::server, "dede");
    response_->set(http::field::content_type, reply.content_type);
    response_->set(http::field::cache_control, "no-store");
    if (reply.status == 405) response_->set(http::field::allow, "GET, HEAD");
    response_->keep_alive(false);
    response_->body() = head ? std::string() : std::move(reply.body);
    response_->prepare_payload();
    if (head) response_->content_length(reply.body.size());
    stream_->expires_after(kRequestTimeout);
    http::async_write(
        *stream_, *response_, [self = shared_from_this()](beast::error_code, std::size_t) {
          self->Close();
        });
  }

  void Close() {
    beast::error_code ignored;
    stream_->socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_->close();
  }

  std::shared_ptr<HttpServer::Impl> server_;
  std::shared_ptr<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> response_;
};

}  // namespace

void HttpServer::Impl::Accept() {
  acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
    if (self->stopped) return;
    if (ec && !self->accept_failing) {
      self->log.Warn("http: accepting a connection failed: " + ec.message());
    }
    self->accept_failing = static_cast<bool>(ec);
    if (!ec) {
      auto session = std::make_shared<Session>(self, std::move(socket));
      // Forget connections that are gone, remember this one (Stop closes what is left).
      std::erase_if(self->open, [](const auto& w) { return w.expired(); });
      self->open.push_back(session->stream());
      session->Start();
    }
    self->Accept();
  });
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(asio::io_context& io,
                                                      const std::string& address,
                                                      int port,
                                                      const std::string& database,
                                                      const std::string& deployment,
                                                      Logger log) {
  if (database == ":memory:") {
    return InvalidArgument(
        "http.enabled needs a database file (storage.database is :memory:, "
        "which no other connection can read)");
  }
  beast::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec) return InvalidArgument("http.address = '" + address + "': not an IP address");
  auto impl = std::make_shared<Impl>(io, database, deployment, std::move(log));
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Unavailable("http: cannot listen on " + address + ":" + std::to_string(port) + ": " +
                       ec.message());
  }
  impl->Accept();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const {
  beast::error_code ec;
  const tcp::endpoint endpoint = impl_->acceptor.local_endpoint(ec);
  return ec ? -1 : endpoint.port();
}

void HttpServer::Stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
  for (const auto& weak : impl_->open) {
    if (auto stream = weak.lock()) stream->close();
  }
  impl_->open.clear();
}

}  // namespace dede::internal
