// The read-only HTTP endpoint against a real client on loopback: routes, JSON shapes, the
// Prometheus text (parsed), errors, request bounds and a slow client; the Host check, the rate
// limit, the per-round cache and 503s that name no file (issue 49), also without the network.
#include "runtime/http_server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "config/deployment.h"
#include "runtime/http_guard.h"
#include "store/store.h"

namespace dede::internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// A deployment "web" with a 2 x 2 problem and three rounds (objective 10, 11, 12).
std::string MakeDatabase(const std::string& dir) {
  const std::string path = dir + "/web.db";
  auto store = Store::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().message();
  DeploymentRecord deployment;
  deployment.name = "web \"one\"";
  deployment.plugin = "fixture";
  deployment.plugin_version = "1";
  deployment.config_file = "web.yaml";
  deployment.config_yaml = "x";
  auto id = store.value()->UpsertDeployment(deployment);
  EXPECT_TRUE(id.ok());
  Problem problem(2, 2);
  const int m = problem.AddAllocation("x", Domain::NonNegative());
  problem.AddDenseEntries(m);
  EXPECT_TRUE(store.value()->WriteVariables(id.value(), problem).ok());
  for (int round = 0; round < 3; ++round) {
    RoundRecord record;
    record.round = round;
    record.started_unix_seconds = 1.7e9 + round;
    record.solver = "admm";
    record.summary.termination = Termination::kConverged;
    record.summary.method = "admm";
    record.summary.iterations = 100 + round;
    record.summary.objective = 10 + round;
    record.summary.max_violation = 0;
    record.summary.feasible = true;
    record.summary.total_seconds = 0.5;
    record.summary.gap = 0.25 / (1 + round);
    // Entries (r, d) in VarId order: (0,0), (0,1), (1,0), (1,1).
    record.allocation = {{0, 1.0}, {1, 2.0 + round}, {3, 4.0}};
    record.report.metrics = {{"total_flow", 7.5 + round}, {"failed_links", 0}};
    EXPECT_TRUE(store.value()->WriteRound(id.value(), record).ok());
  }
  return path;
}

// Writes round `round` of the deployment MakeDatabase made (objective 10 + round).
void AddRound(const std::string& path, int round) {
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  DeploymentRecord deployment;
  deployment.name = "web \"one\"";
  deployment.plugin = "fixture";
  deployment.plugin_version = "1";
  deployment.config_file = "web.yaml";
  deployment.config_yaml = "x";
  auto id = store.value()->UpsertDeployment(deployment);
  ASSERT_TRUE(id.ok());
  RoundRecord record;
  record.round = round;
  record.started_unix_seconds = 1.7e9 + round;
  record.solver = "admm";
  record.summary.termination = Termination::kConverged;
  record.summary.method = "admm";
  record.summary.objective = 10 + round;
  record.summary.feasible = true;
  record.allocation = {{0, 1.0}};
  ASSERT_TRUE(store.value()->WriteRound(id.value(), record).ok());
}

struct Reply {
  int status = 0;
  std::string content_type, body, retry_after;
};

// One request from a real client. `host`: the Host header ("" for none).
Reply Request(int port,
              const std::string& target,
              const std::string& host = "127.0.0.1",
              http::verb verb = http::verb::get,
              const std::string& extra_header = "") {
  asio::io_context io;
  beast::tcp_stream stream(io);
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> request(verb, target, 11);
  if (!host.empty()) request.set(http::field::host, host);
  if (!extra_header.empty()) request.set("X-Padding", extra_header);
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  beast::error_code ec;
  http::read(stream, buffer, response, ec);
  Reply reply;
  if (ec && ec != http::error::end_of_stream) return reply;
  reply.status = response.result_int();
  reply.content_type = std::string(response[http::field::content_type]);
  reply.retry_after = std::string(response[http::field::retry_after]);
  reply.body = response.body();
  return reply;
}

std::string TestDir(const std::string& name) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  return dir;
}

// Rate limit far above the tests' requests unless a test says otherwise.
HttpServerOptions Options() {
  HttpServerOptions options;
  options.port = 0;
  options.rate_limit_per_second = 1e6;
  options.rate_limit_burst = 1000000;
  return options;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir("http_server_test");
    database_ = MakeDatabase(dir_);
    auto server = HttpServer::Start(
        Options(), database_, "web \"one\"", Logger::ToStream(&log_, LogLevel::kDebug));
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(server.value());
    port_ = server_->port();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  Reply Request(const std::string& target,
                http::verb verb = http::verb::get,
                const std::string& extra_header = "") {
    return dede::internal::Request(port_, target, "127.0.0.1", verb, extra_header);
  }

  // The server's log, once it has stopped (its threads are joined: nothing writes it then).
  std::string StoppedLogText() {
    server_->Stop();
    return log_.str();
  }

  std::ostringstream log_;  // outlives the server
  std::unique_ptr<HttpServer> server_;
  std::string dir_, database_;
  int port_ = 0;
};

TEST_F(HttpServerTest, EachRequestIsADebugLineOfTheLog) {
  ASSERT_EQ(Request("/healthz").status, 200);
  ASSERT_EQ(Request("/nowhere").status, 404);
  ASSERT_EQ(Request("/healthz", http::verb::post).status, 405);
  const std::string text = StoppedLogText();
  const std::string stamp = R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )";
  EXPECT_TRUE(std::regex_search(text, std::regex(stamp + "debug http: GET /healthz -> 200\n")))
      << text;
  EXPECT_NE(text.find("debug http: GET /nowhere -> 404\n"), std::string::npos) << text;
  EXPECT_NE(text.find("debug http: POST /healthz -> 405\n"), std::string::npos) << text;
}

TEST_F(HttpServerTest, HealthRoundsAndAllocationAnswerJson) {
  Reply health = Request("/healthz");
  ASSERT_EQ(health.status, 200) << health.body;
  EXPECT_EQ(health.content_type, "application/json");
  const nlohmann::json h = nlohmann::json::parse(health.body);
  EXPECT_EQ(h.at("status"), "ok");
  EXPECT_EQ(h.at("deployment"), "web \"one\"");
  EXPECT_EQ(h.at("last_round"), 2);
  EXPECT_EQ(h.at("rounds"), 3);

  Reply rounds = Request("/rounds?last=2");
  ASSERT_EQ(rounds.status, 200) << rounds.body;
  const nlohmann::json r = nlohmann::json::parse(rounds.body);
  ASSERT_TRUE(r.is_array());
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].at("round"), 2);
  EXPECT_EQ(r[1].at("round"), 1);
  EXPECT_DOUBLE_EQ(r[0].at("objective").get<double>(), 12.0);
  EXPECT_EQ(r[0].at("termination"), "converged");
  EXPECT_EQ(r[0].at("iterations"), 102);

  Reply allocation = Request("/allocation?demand=1");
  ASSERT_EQ(allocation.status, 200) << allocation.body;
  const nlohmann::json a = nlohmann::json::parse(allocation.body);
  EXPECT_EQ(a.at("round"), 2);
  ASSERT_EQ(a.at("entries").size(), 2u);  // (0,1) = 4 and (1,1) = 4
  EXPECT_EQ(a.at("entries")[0].at("resource"), 0);
  EXPECT_DOUBLE_EQ(a.at("entries")[0].at("value").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(a.at("total").get<double>(), 8.0);
  const nlohmann::json older = nlohmann::json::parse(Request("/allocation?demand=1&round=0").body);
  EXPECT_DOUBLE_EQ(older.at("total").get<double>(), 6.0);
}

// A parser of the Prometheus text exposition format 0.0.4, strict enough to fail on what a
// scraper rejects: every sample `name{label="value",...} number`, a TYPE line for it first.
std::map<std::string, double> ParsePrometheus(const std::string& text, std::string* error) {
  std::map<std::string, double> samples;
  std::set<std::string> typed;
  const std::regex sample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? ([-+]?(?:[0-9.eE+-]+|Inf|NaN))$)");
  const std::regex type(
      R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (std::regex_match(line, m, type)) {
      typed.insert(m[1]);
      continue;
    }
    if (!std::regex_match(line, m, sample)) {
      *error = "not a sample line: " + line;
      return {};
    }
    if (!typed.count(m[1])) {
      *error = "sample before its TYPE line: " + line;
      return {};
    }
    samples[line.substr(0, line.rfind(' '))] = std::stod(m[5]);
  }
  return samples;
}

TEST_F(HttpServerTest, MetricsAreValidPrometheusText) {
  Reply metrics = Request("/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
  std::string error;
  const auto samples = ParsePrometheus(metrics.body, &error);
  ASSERT_TRUE(error.empty()) << error << "\n" << metrics.body;
  const std::string label = R"({deployment="web \"one\""})";
  EXPECT_EQ(samples.at("dede_last_round" + label), 2);
  EXPECT_EQ(samples.at("dede_rounds_total" + label), 3);
  EXPECT_EQ(samples.at("dede_round_objective" + label), 12);
  EXPECT_EQ(samples.at("dede_round_feasible" + label), 1);
  EXPECT_DOUBLE_EQ(samples.at("dede_round_gap" + label), 0.25 / 3);
  EXPECT_EQ(samples.at(R"(dede_plugin_metric{deployment="web \"one\"",name="total_flow"})"), 9.5);
}

TEST_F(HttpServerTest, StatusPageAndErrors) {
  Reply page = Request("/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<svg"), std::string::npos);
  EXPECT_NE(page.body.find("web &quot;one&quot;"), std::string::npos);  // escaped
  EXPECT_EQ(Request("/nowhere").status, 404);
  EXPECT_EQ(Request("/healthz", http::verb::post).status, 405);
  EXPECT_EQ(Request("/healthz", http::verb::delete_).status, 405);
  EXPECT_EQ(Request("/rounds?last=0").status, 400);
  EXPECT_EQ(Request("/rounds?last=5000").status, 400);
  EXPECT_EQ(Request("/rounds?last=2&last=3").status, 400);
  EXPECT_EQ(Request("/rounds?limit=2").status, 400);
  EXPECT_EQ(Request("/allocation").status, 400);
  EXPECT_EQ(Request("/allocation?demand=-1").status, 400);
  // Headers over 8 KiB.
  EXPECT_EQ(Request("/healthz", http::verb::get, std::string(9000, 'x')).status, 431);
  // Nothing changed: still three rounds.
  EXPECT_EQ(nlohmann::json::parse(Request("/healthz").body).at("rounds"), 3);
}

TEST_F(HttpServerTest, ASlowClientDelaysNobody) {
  // Half a request line, then silence: the server waits for it without holding anyone else.
  asio::io_context io;
  tcp::socket slow(io);
  slow.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_));
  asio::write(slow, asio::buffer(std::string("GET /heal")));
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < 5; ++k) EXPECT_EQ(Request("/healthz").status, 200);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0);
}

TEST(HttpServerStart, NeedsAFileDatabaseAndAValidAddress) {
  auto memory = HttpServer::Start(Options(), ":memory:", "x");
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find("needs a database file"), std::string::npos);
  HttpServerOptions options = Options();
  options.address = "localhost:80";
  auto address = HttpServer::Start(options, "/tmp/x.db", "x");
  ASSERT_FALSE(address.ok());
  EXPECT_NE(address.status().message().find("http.address = 'localhost:80'"), std::string::npos);
}

// DNS rebinding: only names of the endpoint itself are answered.
TEST_F(HttpServerTest, HostHeaderMustNameTheEndpoint) {
  const std::string port = std::to_string(port_);
  for (const std::string& host : std::vector<std::string>{"localhost:" + port,
                                                          "127.0.0.1:" + port,
                                                          "[::1]:" + port,
                                                          std::string("LOCALHOST"),
                                                          std::string("127.0.0.1")}) {
    EXPECT_EQ(dede::internal::Request(port_, "/healthz", host).status, 200) << host;
  }
  for (const std::string& host : std::vector<std::string>{"evil.example:" + port,
                                                          std::string("evil.example"),
                                                          "localhost:1",
                                                          "127.0.0.1.evil.example:" + port}) {
    const Reply reply = dede::internal::Request(port_, "/healthz", host);
    EXPECT_EQ(reply.status, 421) << host;
    EXPECT_NE(reply.body.find("does not name this endpoint"), std::string::npos) << reply.body;
    EXPECT_NE(reply.body.find("http.allowed_hosts"), std::string::npos) << reply.body;
  }
  EXPECT_EQ(dede::internal::Request(port_, "/healthz", "[::1").status, 421);  // malformed
  const Reply none = dede::internal::Request(port_, "/healthz", "");
  EXPECT_EQ(none.status, 400);
  EXPECT_NE(none.body.find("Host header"), std::string::npos) << none.body;
}

TEST(HttpServerHosts, AllowedHostsAddNames) {
  const std::string dir = TestDir("http_hosts_test");
  const std::string database = MakeDatabase(dir);
  HttpServerOptions options = Options();
  options.allowed_hosts = {"dede.example", "proxy.example:8080"};
  auto server = HttpServer::Start(options, database, "web \"one\"");
  ASSERT_TRUE(server.ok()) << server.status().message();
  const int port = server.value()->port();
  EXPECT_EQ(Request(port, "/healthz", "dede.example:" + std::to_string(port)).status, 200);
  EXPECT_EQ(Request(port, "/healthz", "dede.example").status, 200);
  EXPECT_EQ(Request(port, "/healthz", "proxy.example:8080").status, 200);
  EXPECT_EQ(Request(port, "/healthz", "proxy.example:9090").status, 421);
  EXPECT_EQ(Request(port, "/healthz", "other.example").status, 421);
  server.value().reset();
  std::filesystem::remove_all(dir);
}

TEST(HttpGuard, HostAllowedWithoutTheNetwork) {
  std::string why;
  // Bound to a LAN address: its literal, not the loopback names.
  EXPECT_TRUE(HostAllowed("10.0.0.5:8642", "10.0.0.5", false, 8642, {}, &why));
  EXPECT_TRUE(HostAllowed("10.0.0.5", "10.0.0.5", false, 8642, {}, &why));
  EXPECT_FALSE(HostAllowed("localhost:8642", "10.0.0.5", false, 8642, {}, &why));
  EXPECT_NE(why.find("10.0.0.5:8642"), std::string::npos) << why;
  EXPECT_FALSE(HostAllowed("10.0.0.5:80", "10.0.0.5", false, 8642, {}, &why));
  EXPECT_TRUE(HostAllowed("[fe80::1]:8642", "fe80::1", false, 8642, {}, &why));
  EXPECT_TRUE(HostAllowed("Dede.Example:443", "10.0.0.5", false, 8642, {"dede.example"}, &why));
  EXPECT_FALSE(HostAllowed("10.0.0.5:x", "10.0.0.5", false, 8642, {}, &why));
  EXPECT_NE(why.find("malformed"), std::string::npos) << why;
  EXPECT_FALSE(HostAllowed("", "10.0.0.5", false, 8642, {}, &why));
}

TEST(HttpGuard, RateLimiterRefillsPerClient) {
  RateLimiter limiter(/*per_second=*/2, /*burst=*/3);
  const auto t0 = RateLimiter::Clock::now();
  int retry = 0;
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(limiter.Allow("a", t0, &retry)) << k;
  EXPECT_FALSE(limiter.Allow("a", t0, &retry));
  EXPECT_EQ(retry, 1);                          // half a second to the next token, rounded up
  EXPECT_TRUE(limiter.Allow("b", t0, &retry));  // another client has its own bucket
  EXPECT_FALSE(limiter.Allow("a", t0 + std::chrono::milliseconds(400), &retry));
  EXPECT_TRUE(limiter.Allow("a", t0 + std::chrono::milliseconds(600), &retry));
  EXPECT_FALSE(limiter.Allow("a", t0 + std::chrono::milliseconds(600), &retry));
  // Refills up to the burst only.
  for (int k = 0; k < 3; ++k)
    EXPECT_TRUE(limiter.Allow("a", t0 + std::chrono::seconds(100), &retry)) << k;
  EXPECT_FALSE(limiter.Allow("a", t0 + std::chrono::seconds(100), &retry));
  RateLimiter slow(/*per_second=*/0.1, /*burst=*/1);
  EXPECT_TRUE(slow.Allow("c", t0, &retry));
  EXPECT_FALSE(slow.Allow("c", t0, &retry));
  EXPECT_EQ(retry, 10);
}

TEST(HttpServerRateLimit, AnswersTooManyRequestsThenRecovers) {
  const std::string dir = TestDir("http_rate_test");
  const std::string database = MakeDatabase(dir);
  HttpServerOptions options = Options();
  options.rate_limit_per_second = 5;
  options.rate_limit_burst = 4;
  auto server = HttpServer::Start(options, database, "web \"one\"");
  ASSERT_TRUE(server.ok()) << server.status().message();
  const int port = server.value()->port();
  int ok = 0;
  Reply limited;
  for (int k = 0; k < 6; ++k) {
    Reply reply = Request(port, "/healthz");
    if (reply.status == 200) ++ok;
    if (reply.status == 429) limited = reply;
  }
  EXPECT_GE(ok, 4);
  EXPECT_LE(ok, 5);  // a token may come back during the six requests
  ASSERT_EQ(limited.status, 429);
  EXPECT_EQ(limited.retry_after, "1");
  EXPECT_NE(limited.body.find("too many requests"), std::string::npos) << limited.body;
  std::this_thread::sleep_for(std::chrono::milliseconds(450));  // two tokens back
  EXPECT_EQ(Request(port, "/healthz").status, 200);
  server.value().reset();
  std::filesystem::remove_all(dir);
}

// The same answer until the runner says a round committed, then the new round's.
TEST_F(HttpServerTest, AnswersAreCachedUntilTheNextRound) {
  const std::string page = Request("/").body;
  const std::string metrics = Request("/metrics").body;
  EXPECT_EQ(nlohmann::json::parse(Request("/healthz").body).at("rounds"), 3);
  AddRound(database_, 3);  // written, but the endpoint was not told
  EXPECT_EQ(nlohmann::json::parse(Request("/healthz").body).at("rounds"), 3);
  EXPECT_EQ(Request("/").body, page);
  EXPECT_EQ(Request("/metrics").body, metrics);
  server_->RoundCommitted();
  const nlohmann::json health = nlohmann::json::parse(Request("/healthz").body);
  EXPECT_EQ(health.at("rounds"), 4);
  EXPECT_EQ(health.at("last_round"), 3);
  EXPECT_NE(Request("/").body, page);
  EXPECT_NE(Request("/metrics").body.find("dede_last_round{deployment=\"web \\\"one\\\"\"} 3"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(Request("/rounds?last=1").body)[0].at("round"), 3);
}

TEST(HttpGuard, ResponseCacheKeepsOnlyTheCurrentRoundsAnswers) {
  ResponseCache cache;
  HttpReply reply;
  reply.body = "round 1";
  const std::uint64_t before = cache.generation();
  cache.Insert("/", before, reply);
  ASSERT_NE(cache.Find("/"), nullptr);
  EXPECT_EQ(cache.Find("/")->body, "round 1");
  EXPECT_EQ(cache.Find("/metrics"), nullptr);
  cache.Invalidate();
  EXPECT_EQ(cache.Find("/"), nullptr);
  // Read before the round committed, stored after: not kept.
  cache.Insert("/", before, reply);
  EXPECT_EQ(cache.Find("/"), nullptr);
  reply.body = "round 2";
  cache.Insert("/", cache.generation(), reply);
  EXPECT_EQ(cache.Find("/")->body, "round 2");
}

// Before the first round, or with an unreadable file: 503, and no answer names a file.
TEST(HttpServerUnavailable, AnswersNameNoFile) {
  const std::string dir = TestDir("http_unavailable_test");
  const std::string missing = dir + "/not_yet/state.db";
  const std::string garbage = dir + "/garbage.db";
  {
    std::ofstream out(garbage);
    out << std::string(4096, 'x');
  }
  for (const std::string& database : {missing, garbage}) {
    std::ostringstream log;
    auto server = HttpServer::Start(Options(), database, "web", Logger::ToStream(&log));
    ASSERT_TRUE(server.ok()) << server.status().message();
    const int port = server.value()->port();
    for (const char* target : {"/healthz", "/", "/metrics", "/rounds", "/allocation?demand=0"}) {
      const Reply reply = Request(port, target);
      EXPECT_EQ(reply.status, 503) << database << " " << target;
      EXPECT_NE(reply.body.find("not available yet"), std::string::npos) << reply.body;
      EXPECT_EQ(reply.body.find(dir), std::string::npos) << reply.body;
      EXPECT_EQ(reply.body.find(".db"), std::string::npos) << reply.body;
      const HttpReply direct = HandleHttpTarget(target, database, "web");
      EXPECT_EQ(direct.status, 503) << target;
      EXPECT_EQ(direct.body.find(dir), std::string::npos) << direct.body;
    }
    server.value()->Stop();
    // The operator's log says why, once.
    EXPECT_NE(log.str().find("answering 503 until the database can be read"), std::string::npos)
        << log.str();
  }
  // The database appears (the first round): answers follow without a restart.
  std::filesystem::create_directories(dir + "/not_yet");
  auto server = HttpServer::Start(Options(), missing, "web \"one\"");
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(Request(server.value()->port(), "/healthz").status, 503);
  std::filesystem::copy_file(MakeDatabase(dir), missing);
  EXPECT_EQ(Request(server.value()->port(), "/healthz").status, 200);
  server.value().reset();
  std::filesystem::remove_all(dir);
}

// The inbox's backlog: pending events of this deployment that are due at the next round.
TEST_F(HttpServerTest, MetricsCountTheInboxBacklog) {
  {
    auto store = Store::Open(database_);
    ASSERT_TRUE(store.ok());
    EventRow due;
    due.deployment = "web \"one\"";
    due.kind = "link_fail";
    EventRow later = due;
    later.apply_from_round = 100;  // not due at round 3
    EventRow other = due;
    other.deployment = "another";
    ASSERT_TRUE(store.value()->SubmitEvents({due, due, later, other}).ok());
  }
  std::string error;
  const auto samples = ParsePrometheus(Request("/metrics").body, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(samples.at(R"(dede_inbox_pending_events{deployment="web \"one\""})"), 2);
}

// The http.* keys of a deployment file: bad values name the file, the key and the value.
TEST(HttpServerConfig, BadKeysNameFileKeyAndValue) {
  const std::string dir = TestDir("http_config_test");
  const auto load = [&](const std::string& http) {
    const std::string path = dir + "/d.yaml";
    std::ofstream(path) << "deployment: {name: x}\nplugin: {name: p}\n"
                           "storage: {database: s.db}\nhttp: " +
                               http + "\n";
    return LoadDeployment(path);
  };
  auto good = load("{allowed_hosts: [dede.example, 'proxy.example:8080'], threads: 2}");
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->http_allowed_hosts,
            (std::vector<std::string>{"dede.example", "proxy.example:8080"}));
  EXPECT_EQ(good->http_threads, 2);
  const auto bad_host = load("{allowed_hosts: ['bad host']}");
  ASSERT_FALSE(bad_host.ok());
  EXPECT_NE(bad_host.status().message().find("d.yaml:4:"), std::string::npos);
  EXPECT_NE(bad_host.status().message().find("http.allowed_hosts: 'bad host'"), std::string::npos)
      << bad_host.status().message();
  const auto scalar = load("{allowed_hosts: dede.example}");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.status().message().find("expected a list of host names"), std::string::npos);
  const auto rate = load("{rate_limit_per_second: 0}");
  ASSERT_FALSE(rate.ok());
  EXPECT_NE(rate.status().message().find("http.rate_limit_per_second = 0"), std::string::npos)
      << rate.status().message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dede::internal
