// The network side of the HTTP endpoint: an Asio loop of its own on http.threads threads, one
// strand per connection, a strand for the acceptor. The answers are http_routes.cpp's, behind
// http_guard.h's rate limit, Host check, cache and connection pool.
#include "runtime/http_server.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/http_guard.h"
#include "store/store.h"

namespace dede::internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::uint32_t kHeaderLimit = 8 * 1024;
constexpr auto kRequestTimeout = std::chrono::seconds(10);

// Asio prints a v4 client of a v6 socket as ::ffff:a.b.c.d: the v4 address is the client.
asio::ip::address Plain(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  return address;
}

// A serving thread is named (top -H, /proc/PID/task/TID/comm: "dede-http") and yields the
// cores to the rounds: at nice 19 the scheduler gives it ~1.5% of a core the rounds want, and
// any idle time (a round uses a fraction of its interval). Not SCHED_IDLE: under back-to-back
// rounds on every core that would starve health probes (0.3% of a core). Only this thread's
// nice changes (Linux: per thread); lowering one's own priority needs no privilege.
void LowerThreadPriority() {
  pthread_setname_np(pthread_self(), "dede-http");
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
}

}  // namespace

struct HttpServer::Impl {
  Impl(HttpServerOptions o, std::string db, std::string name, Logger logger)
      : options(std::move(o)),
        database(std::move(db)),
        deployment(std::move(name)),
        log(std::move(logger)),
        limiter(options.rate_limit_per_second, options.rate_limit_burst),
        pool(database) {}

  const HttpServerOptions options;
  const std::string database, deployment;
  const Logger log;
  RateLimiter limiter;
  ResponseCache cache;
  ReadPool pool;
  int port = -1;
  std::atomic<bool> stopped{false};
  std::atomic<bool> database_failing{false};  // warned about the current run of failures
  std::atomic<int> open_connections{0};
  // Destroyed by Stop (after the threads are joined), with every connection still open.
  std::optional<asio::io_context> io;
  std::optional<asio::strand<asio::io_context::executor_type>> accept_strand;
  std::optional<tcp::acceptor> acceptor;  // on accept_strand
  std::vector<std::thread> threads;
  // On accept_strand only.
  bool accept_failing = false;  // warned about the current run of failed accepts
  bool paused = false;          // at max_connections: accepting again when one closes

  void Accept();
  void ConnectionClosed();
  // The answer to a parsed request (any serving thread).
  HttpReply Serve(const http::request<http::empty_body>& request,
                  const asio::ip::address& remote,
                  const asio::ip::address& local);
  HttpReply Answer(const std::string& target);
};

namespace {

// One connection: read one request (bounded in size and time), answer, close.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(HttpServer::Impl* server, tcp::socket socket)
      : server_(server), stream_(std::move(socket)) {}
  ~Session() { server_->ConnectionClosed(); }

  void Start() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(0);
    stream_.expires_after(kRequestTimeout);
    http::async_read(
        stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
          self->OnRead(ec);
        });
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
      reply = HttpError(431, "request headers over 8 KiB");
    } else if (ec == http::error::body_limit) {
      reply = HttpError(413, "requests carry no body");
    } else if (ec) {
      reply = HttpError(400, "malformed request: " + ec.message());
    } else {
      const auto& request = parser_->get();
      request_line = std::string(request.method_string()) + " " + std::string(request.target());
      version = request.version();
      head = request.method() == http::verb::head;
      beast::error_code ignored;
      reply = server_->Serve(request,
                             Plain(stream_.socket().remote_endpoint(ignored).address()),
                             Plain(stream_.socket().local_endpoint(ignored).address()));
    }
    if (server_->log.Enabled(LogLevel::kDebug)) {
      server_->log.Debug("http: " + request_line + " -> " + std::to_string(reply.status));
    }
    Write(std::move(reply), version, head);
  }

  void Write(HttpReply reply, unsigned version, bool head) {
    response_.emplace(static_cast<http::status>(reply.status), version);
    response_->set(http::field::server, "dede");
    response_->set(http::field::content_type, reply.content_type);
    response_->set(http::field::cache_control, "no-store");
    if (reply.status == 405) response_->set(http::field::allow, "GET, HEAD");
    if (reply.retry_after_seconds > 0)
      response_->set(http::field::retry_after, std::to_string(reply.retry_after_seconds));
    response_->keep_alive(false);
    const std::size_t length = reply.body.size();
    response_->body() = head ? std::string() : std::move(reply.body);
    response_->prepare_payload();
    if (head) response_->content_length(length);
    stream_.expires_after(kRequestTimeout);
    http::async_write(
        stream_, *response_, [self = shared_from_this()](beast::error_code, std::size_t) {
          self->Close();
        });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  HttpServer::Impl* server_;  // outlives every session (Stop destroys them first)
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
};

}  // namespace

HttpReply HttpServer::Impl::Serve(const http::request<http::empty_body>& request,
                                  const asio::ip::address& remote,
                                  const asio::ip::address& local) {
  // The cheapest refusals first: a flood costs one map lookup per request.
  int retry_after = 0;
  if (!limiter.Allow(remote.to_string(), RateLimiter::Clock::now(), &retry_after)) {
    HttpReply reply = HttpError(429,
                                "too many requests from " + remote.to_string() +
                                    " (http.rate_limit_per_second, http.rate_limit_burst)");
    reply.retry_after_seconds = retry_after;
    return reply;
  }
  const auto host = request.find(http::field::host);
  if (host == request.end()) {
    // HTTP/1.0 has no Host; browsers (the DNS rebinding attack) always send one.
    if (request.version() >= 11) return HttpError(400, "HTTP/1.1 requests need a Host header");
  } else {
    std::string why;
    if (!HostAllowed(std::string(host->value()),
                     local.to_string(),
                     local.is_loopback(),
                     port,
                     options.allowed_hosts,
                     &why)) {
      return HttpError(421, why);
    }
  }
  if (request.method() != http::verb::get && request.method() != http::verb::head)
    return HttpError(405, "read-only endpoint: GET or HEAD only");
  return Answer(std::string(request.target()));
}

HttpReply HttpServer::Impl::Answer(const std::string& target) {
  if (std::shared_ptr<const HttpReply> cached = cache.Find(target)) return *cached;
  // Read before the database: an answer read from an older round is then never kept.
  const std::uint64_t generation = cache.generation();
  Result<std::unique_ptr<Store>> store = pool.Lease();
  if (!store.ok()) {
    // The log (the operator's) says why; the answer names no file.
    if (!database_failing.exchange(true)) {
      const bool missing = store.status().code() == StatusCode::kNotFound;
      log.Log(missing ? LogLevel::kInfo : LogLevel::kWarn,
              "http: answering 503 until the database can be read: " + store.status().message());
    }
    return AnswerHttpTarget(target, nullptr, deployment);
  }
  database_failing.store(false);
  bool failed = false;
  HttpReply reply = AnswerHttpTarget(target, store.value().get(), deployment, &failed);
  // A connection that failed, or opened before the schema existed, is not used again.
  if (!failed && store.value()->schema_version() > 0) pool.Return(std::move(store.value()));
  if (reply.status == 200) cache.Insert(target, generation, reply);
  return reply;
}

void HttpServer::Impl::Accept() {
  acceptor->async_accept(asio::make_strand(*io), [this](beast::error_code ec, tcp::socket socket) {
    if (stopped) return;
    if (ec && !accept_failing) log.Warn("http: accepting a connection failed: " + ec.message());
    accept_failing = static_cast<bool>(ec);
    if (!ec) {
      open_connections.fetch_add(1);
      std::make_shared<Session>(this, std::move(socket))->Start();
    }
    // At the bound, the kernel's backlog holds the next clients until a connection closes.
    if (open_connections.load() >= options.max_connections) {
      paused = true;
      return;
    }
    Accept();
  });
}

void HttpServer::Impl::ConnectionClosed() {
  open_connections.fetch_sub(1);
  if (stopped) return;
  asio::post(*accept_strand, [this] {
    if (paused && !stopped && open_connections.load() < options.max_connections) {
      paused = false;
      Accept();
    }
  });
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      const std::string& database,
                                                      const std::string& deployment,
                                                      Logger log) {
  if (database == ":memory:") {
    return InvalidArgument(
        "http.enabled needs a database file (storage.database is :memory:, "
        "which no other connection can read)");
  }
  if (options.threads < 1 || options.max_connections < 1 || options.rate_limit_burst < 1 ||
      !(options.rate_limit_per_second > 0)) {
    return InvalidArgument(
        "http: threads, max_connections, rate_limit_burst and rate_limit_per_second must be > 0");
  }
  beast::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(options.address, ec);
  if (ec) return InvalidArgument("http.address = '" + options.address + "': not an IP address");
  auto impl = std::make_unique<Impl>(options, database, deployment, std::move(log));
  impl->io.emplace(options.threads);
  impl->accept_strand.emplace(asio::make_strand(*impl->io));
  impl->acceptor.emplace(*impl->accept_strand);
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(options.port));
  impl->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor->bind(endpoint, ec);
  if (!ec) impl->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Unavailable("http: cannot listen on " + options.address + ":" +
                       std::to_string(options.port) + ": " + ec.message());
  }
  impl->port = impl->acceptor->local_endpoint(ec).port();
  Impl* raw = impl.get();
  asio::post(*impl->accept_strand, [raw] { raw->Accept(); });
  for (int k = 0; k < options.threads; ++k) {
    impl->threads.emplace_back([raw] {
      LowerThreadPriority();
      auto work = asio::make_work_guard(*raw->io);
      raw->io->run();
    });
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port; }

void HttpServer::RoundCommitted() { impl_->cache.Invalidate(); }

void HttpServer::Stop() {
  if (impl_->stopped.exchange(true)) return;
  impl_->io->stop();
  for (std::thread& thread : impl_->threads) thread.join();
  impl_->threads.clear();
  // No thread runs the loop now: closing the acceptor, then destroying the loop (and with it
  // every session's handler) closes every connection.
  impl_->acceptor.reset();
  impl_->accept_strand.reset();
  impl_->io.reset();
}

}  // namespace dede::internal
