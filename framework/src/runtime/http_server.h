// The read-only HTTP endpoint of a running deployment (http.enabled), with Boost.Beast on an
// Asio loop of its own (http.threads threads), off the rounds' path. It reads the deployment's
// database through a small pool of read-only connections (one per serving thread, opened when
// first needed and again after an error; WAL: it never blocks the rounds' writes and never sees
// half a round) and answers
//   GET /healthz              {"status": "ok", "deployment", "last_round", "rounds"}
//   GET /rounds?last=N        the last N rounds of round_summary (default 10, at most 1000)
//   GET /allocation?demand=D  the demand's non-zero entries in the last round that stored an
//                             allocation (&round=R for another stored round)
//   GET /metrics              Prometheus text exposition (format 0.0.4) of the last round
//   GET /                     a status page with the objective and round time of the last
//                             100 rounds (inline SVG, no scripts)
// Nothing changes the deployment. Answers change only when a round commits, so each is built
// once per round (RoundCommitted) and served from memory until the next. Each client (remote
// address) has a token bucket (429 with Retry-After once it is empty); the Host header must
// name this endpoint (DNS rebinding: 421 otherwise; http_guard.h); requests are bounded (8 KiB
// of headers, no body, 10 s to arrive), connections too (http.max_connections: beyond it the
// server stops accepting until one closes), and a slow client holds only its own connection.
// No answer names a file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dede/status.h"
#include "runtime/log.h"

namespace dede::internal {

class Store;

// The http.* keys (config/option_specs.cpp has their meaning and bounds).
struct HttpServerOptions {
  std::string address = "127.0.0.1";       // http.address: an IP address
  int port = 8642;                         // http.port; 0: any free one
  int threads = 1;                         // http.threads: serving threads (and read connections)
  double rate_limit_per_second = 10;       // http.rate_limit_per_second: per client, sustained
  int rate_limit_burst = 20;               // http.rate_limit_burst: per client, at once
  int max_connections = 64;                // http.max_connections: open at once
  std::vector<std::string> allowed_hosts;  // http.allowed_hosts: Host names besides the literal
};

class HttpServer {
 public:
  // Binds address:port and starts serving on threads of its own. The database is opened
  // read-only when a request needs it (it may not exist before the first round). Each request
  // is a debug line of `log` (method, target, status); a failing accept or database a warning
  // (once until it works again).
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   const std::string& database,
                                                   const std::string& deployment,
                                                   Logger log = Logger());
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;  // the bound port
  // A round committed: the cached answers are stale. Any thread; cheap (an atomic).
  void RoundCommitted();
  // Stops accepting, closes open connections and joins the serving threads. Not from a
  // serving thread.
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The response to one request target ("/rounds?last=5"), without the network: status code,
// content type and body. Exposed for tests.
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  int retry_after_seconds = 0;  // > 0: a Retry-After header (429)
};
// With a read-only connection to the database; `store` null: it is not available (503).
// *store_failed (optional) is set when a query failed, so the caller drops the connection.
HttpReply AnswerHttpTarget(const std::string& target,
                           Store* store,
                           const std::string& deployment,
                           bool* store_failed = nullptr);
// Opens the database read-only for this one answer.
HttpReply HandleHttpTarget(const std::string& target,
                           const std::string& database,
                           const std::string& deployment);
// An error answer: {"error": message}.
HttpReply HttpError(int status, const std::string& message);

}  // namespace dede::internal
