// What stands between a request and the database in the HTTP endpoint (http_server.h), each
// usable from any serving thread and testable without the network: the Host check, the
// per-client rate limit, the per-round answer cache and the pool of read-only connections.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dede/status.h"
#include "runtime/http_server.h"

namespace dede::internal {

class Store;

// DNS rebinding: a page of evil.example whose name is made to resolve to 127.0.0.1 reaches a
// loopback endpoint with `Host: evil.example:8642`. Accepted Host values (any case; the port,
// if given, must be the endpoint's) name the endpoint: the IP literal of the address the
// connection arrived on ("10.0.0.5", "[fe80::1]"); on a loopback connection also localhost,
// 127.0.0.1 and [::1]; and the names of http.allowed_hosts (an entry with a port,
// "dede.example:8080", matches that port only: a proxy's or a forwarded port).
// False with *why (for the 421 body) otherwise, and for a malformed value.
bool HostAllowed(const std::string& host,
                 const std::string& local_address,  // the connection's, as Asio prints it
                 bool local_is_loopback,
                 int port,
                 const std::vector<std::string>& allowed_hosts,
                 std::string* why);

// A token bucket per client (remote address): `burst` requests at once, refilled at
// `per_second`. Remembers at most kMaxClients clients (full buckets are forgotten first).
class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMaxClients = 4096;
  RateLimiter(double per_second, int burst) : per_second_(per_second), burst_(burst) {}
  // True if the client may make a request now (a token is taken); else *retry_after_seconds
  // is when the next token comes (>= 1, whole seconds for Retry-After).
  bool Allow(const std::string& client, Clock::time_point now, int* retry_after_seconds);

 private:
  struct Bucket {
    double tokens;
    Clock::time_point updated;
  };
  void Forget(Clock::time_point now);  // under mutex_
  const double per_second_;
  const int burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

// The answers of the current round, by request target. Invalidate() (a round committed)
// starts a new generation; an answer built from a read that began before it is not kept.
// Bounded in bytes: past the bound, answers are built per request (never wrong, only slower).
class ResponseCache {
 public:
  static constexpr std::size_t kMaxBytes = 16 << 20;
  void Invalidate() { generation_.fetch_add(1, std::memory_order_acq_rel); }
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // The answer to `target` in the current generation, if built.
  std::shared_ptr<const HttpReply> Find(const std::string& target);
  // Keeps `reply`, built by a read that began in `generation`, unless that one is over.
  void Insert(const std::string& target, std::uint64_t generation, HttpReply reply);

 private:
  std::atomic<std::uint64_t> generation_{0};
  std::mutex mutex_;
  std::uint64_t held_generation_ = 0;  // of `answers_`
  std::size_t bytes_ = 0;
  std::unordered_map<std::string, std::shared_ptr<const HttpReply>> answers_;
};

// Read-only connections to the database, each used by one thread at a time: a request leases
// one (opening it if none is free: at most one per serving thread is ever open) and returns it,
// unless a query on it failed (the next request opens a fresh one).
class ReadPool {
 public:
  explicit ReadPool(std::string database) : database_(std::move(database)) {}
  ~ReadPool();
  Result<std::unique_ptr<Store>> Lease();
  void Return(std::unique_ptr<Store> store);

 private:
  const std::string database_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Store>> free_;
};

}  // namespace dede::internal
