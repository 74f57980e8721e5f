#include "runtime/http_guard.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "store/store.h"

namespace dede::internal {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "name", "name:port", "[v6]" or "[v6]:port" -> name (brackets kept) and port text.
bool SplitHost(const std::string& host, std::string* name, std::string* port) {
  std::size_t end = 0;
  if (!host.empty() && host[0] == '[') {
    end = host.find(']');
    if (end == std::string::npos) return false;
    ++end;
  } else {
    end = std::min(host.find(':'), host.size());
  }
  *name = host.substr(0, end);
  const std::string rest = host.substr(end);
  if (name->empty()) return false;
  if (rest.empty()) return true;
  *port = rest.substr(1);
  return rest[0] == ':' && !port->empty() && port->size() <= 5 &&
         std::all_of(port->begin(), port->end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool HostAllowed(const std::string& host,
                 const std::string& local_address,
                 bool local_is_loopback,
                 int port,
                 const std::vector<std::string>& allowed_hosts,
                 std::string* why) {
  const std::string value = Lower(host);
  std::string name, port_text;
  if (!SplitHost(value, &name, &port_text)) {
    *why = "Host '" + host + "' is malformed: expected name[:port]";
    return false;
  }
  for (const std::string& entry : allowed_hosts) {
    const std::string allowed = Lower(entry);
    if (allowed == name || allowed == value) return true;
  }
  std::vector<std::string> names = {
      local_address.find(':') != std::string::npos ? "[" + local_address + "]" : local_address};
  if (local_is_loopback) {
    for (const char* loopback : {"localhost", "127.0.0.1", "[::1]"}) {
      if (names[0] != loopback) names.push_back(loopback);
    }
  }
  const bool port_ok = port_text.empty() || port_text == std::to_string(port);
  if (port_ok && std::find(names.begin(), names.end(), name) != names.end()) return true;
  std::string expected;
  for (const std::string& n : names)
    expected += (expected.empty() ? "" : ", ") + n + ":" + std::to_string(port);
  for (const std::string& entry : allowed_hosts) expected += ", " + entry;
  *why = "Host '" + host + "' does not name this endpoint, which answers to " + expected +
         " (http.allowed_hosts adds names; other names are refused against DNS rebinding)";
  return false;
}

bool RateLimiter::Allow(const std::string& client,
                        Clock::time_point now,
                        int* retry_after_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = buckets_.find(client);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxClients) Forget(now);
    // Still full: every client is mid-burst; the oldest bucket goes (it only helps that one).
    if (buckets_.size() >= kMaxClients) {
      buckets_.erase(std::min_element(buckets_.begin(), buckets_.end(), [](auto& a, auto& b) {
        return a.second.updated < b.second.updated;
      }));
    }
    it = buckets_.emplace(client, Bucket{static_cast<double>(burst_), now}).first;
  }
  Bucket& bucket = it->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.updated).count();
  bucket.tokens = std::min<double>(burst_, bucket.tokens + std::max(0.0, elapsed) * per_second_);
  bucket.updated = std::max(bucket.updated, now);
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return true;
  }
  *retry_after_seconds =
      std::max(1, static_cast<int>(std::ceil((1 - bucket.tokens) / per_second_)));
  return false;
}

void RateLimiter::Forget(Clock::time_point now) {
  std::erase_if(buckets_, [&](const auto& item) {
    const double elapsed = std::chrono::duration<double>(now - item.second.updated).count();
    return item.second.tokens + elapsed * per_second_ >= burst_;
  });
}

std::shared_ptr<const HttpReply> ResponseCache::Find(const std::string& target) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (held_generation_ != generation()) return nullptr;
  auto it = answers_.find(target);
  return it == answers_.end() ? nullptr : it->second;
}

void ResponseCache::Insert(const std::string& target, std::uint64_t generation, HttpReply reply) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t current = this->generation();
  if (generation != current) return;  // a round committed while it was read
  if (held_generation_ != current) {
    answers_.clear();
    bytes_ = 0;
    held_generation_ = current;
  }
  const std::size_t size = target.size() + reply.body.size();
  if (bytes_ + size > kMaxBytes || answers_.count(target)) return;
  bytes_ += size;
  answers_.emplace(target, std::make_shared<const HttpReply>(std::move(reply)));
}

ReadPool::~ReadPool() = default;

Result<std::unique_ptr<Store>> ReadPool::Lease() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      std::unique_ptr<Store> store = std::move(free_.back());
      free_.pop_back();
      return store;
    }
  }
  return Store::Open(database_, /*read_only=*/true);
}

void ReadPool::Return(std::unique_ptr<Store> store) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(store));
}

}  // namespace dede::internal
