// The read-only HTTP endpoint against a real client on loopback: routes, JSON shapes, the
// Prometheus text (parsed), errors, request bounds and a slow client.
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
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

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

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("http_server_test_" + std::to_string(::getpid())))
               .string();
    std::filesystem::create_directories(dir_);
    database_ = MakeDatabase(dir_);
    auto server = HttpServer::Start(
        io_, "127.0.0.1", 0, database_, "web \"one\"", Logger::ToStream(&log_, LogLevel::kDebug));
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(server.value());
    port_ = server_->port();
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    asio::post(io_, [this] { server_->Stop(); });
    thread_.join();
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  struct Reply {
    int status = 0;
    std::string content_type, body;
  };
  Reply Request(const std::string& target,
                http::verb verb = http::verb::get,
                const std::string& extra_header = "") {
    asio::io_context io;
    beast::tcp_stream stream(io);
    stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_));
    http::request<http::empty_body> request(verb, target, 11);
    request.set(http::field::host, "127.0.0.1");
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
    reply.body = response.body();
    return reply;
  }

  // The server's log so far, read on the loop's thread (the only one that writes it).
  std::string LogText() {
    std::promise<std::string> text;
    asio::post(io_, [&] { text.set_value(log_.str()); });
    return text.get_future().get();
  }

  std::ostringstream log_;  // outlives the server
  asio::io_context io_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  std::string dir_, database_;
  int port_ = 0;
};

TEST_F(HttpServerTest, EachRequestIsADebugLineOfTheLog) {
  ASSERT_EQ(Request("/healthz").status, 200);
  ASSERT_EQ(Request("/nowhere").status, 404);
  ASSERT_EQ(Request("/healthz", http::verb::post).status, 405);
  const std::string text = LogText();
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
  asio::io_context io;
  auto memory = HttpServer::Start(io, "127.0.0.1", 0, ":memory:", "x");
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find("needs a database file"), std::string::npos);
  auto address = HttpServer::Start(io, "localhost:80", 0, "/tmp/x.db", "x");
  ASSERT_FALSE(address.ok());
  EXPECT_NE(address.status().message().find("http.address = 'localhost:80'"), std::string::npos);
}

}  // namespace
}  // namespace dede::internal
