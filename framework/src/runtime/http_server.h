// The read-only HTTP endpoint of a running deployment (http.enabled), on the runner's Asio
// loop with Boost.Beast. It reads the deployment's database through its own read-only
// connection (WAL: it never blocks the rounds' writes and never sees half a round) and answers
//   GET /healthz              {"status": "ok", "deployment", "last_round", "rounds"}
//   GET /rounds?last=N        the last N rounds of round_summary (default 10, at most 1000)
//   GET /allocation?demand=D  the demand's non-zero entries in the last round that stored an
//                             allocation (&round=R for another stored round)
//   GET /metrics              Prometheus text exposition (format 0.0.4) of the last round
//   GET /                     a status page with the objective and round time of the last
//                             100 rounds (inline SVG, no scripts)
// Nothing changes the deployment. Requests are bounded (8 KiB of headers, no body, 10 s to
// arrive); each connection is served and closed on its own, so a slow client delays nobody.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "dede/status.h"
#include "runtime/log.h"

namespace dede::internal {

class HttpServer {
 public:
  // Binds address:port (port 0: any free one) and starts accepting on `io`. The database is
  // opened read-only per request (it may not exist before the first round). Each request is a
  // debug line of `log` (method, target, status); a failing accept a warning (once until one
  // succeeds again).
  static Result<std::unique_ptr<HttpServer>> Start(boost::asio::io_context& io,
                                                   const std::string& address,
                                                   int port,
                                                   const std::string& database,
                                                   const std::string& deployment,
                                                   Logger log = Logger());
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;  // the bound port
  // Stops accepting and closes open connections (the loop can then run out of work).
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// The response to one request target ("/rounds?last=5"), without the network: status code,
// content type and body. Exposed for tests.
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};
HttpReply HandleHttpTarget(const std::string& target,
                           const std::string& database,
                           const std::string& deployment);

}  // namespace dede::internal
