// Checkpoint of the GPU simulation (Simulation::Save / Load): the whole state as text, so a
// restarted deployment continues the simulation bit for bit.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

#include "dede/csv.h"
#include "gpu_sim.h"

namespace dede::gpu {

// Text, whitespace-separated; doubles in their shortest round-trip form (std::to_chars), so they
// read back bit-exactly.
namespace {

class Writer {
 public:
  Writer& D(double v) {
    char b[64];
    // Shortest representation that reads back to the same double (most values are short).
    const auto r = std::to_chars(b, b + sizeof(b), v);
    s_.append(b, r.ptr);
    s_ += ' ';
    return *this;
  }
  Writer& I(int64_t v) {
    s_ += std::to_string(v);
    s_ += ' ';
    return *this;
  }
  Writer& S(const std::string& v) {
    s_ += v;
    s_ += ' ';
    return *this;
  }
  std::string str() const { return s_; }

 private:
  std::string s_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : in_(s) {}
  // Numbers as dede/csv.h reads them ("inf" and "nan" included: to_chars writes them).
  double D() {
    std::string t;
    double v = 0;
    if (!(in_ >> t) || !ParseDouble(t, &v)) return Fail();
    return v;
  }
  int64_t I() {
    std::string t;
    std::int64_t v = 0;
    if (!(in_ >> t) || !ParseInteger(t, &v)) return static_cast<int64_t>(Fail());
    return v;
  }
  std::string S() {
    std::string t;
    if (!(in_ >> t)) Fail();
    return t;
  }
  std::istream& stream() { return in_; }
  bool ok() const { return ok_; }

 private:
  double Fail() {
    ok_ = false;
    return 0;
  }
  std::istringstream in_;
  bool ok_ = true;
};

constexpr const char* kStateMagic = "dally-sim-v3";

}  // namespace

std::string Simulation::Save() const {
  Writer w;
  w.S(kStateMagic)
      .I(static_cast<int64_t>(jobs_.size()))
      .I(num_pools())
      .I(static_cast<int>(o_.policy));
  w.D(t0_)
      .D(now_)
      .D(next_)
      .D(busy_gpu_s_)
      .I(static_cast<int64_t>(next_arrival_))
      .I(static_cast<int64_t>(remaining_));
  w.I(events_);
  for (const auto& j : jobs_) {
    w.I(j.spec.id);
    if (!j.arrived) {  // a job that has not arrived is in its initial state but for its pool target
      w.S("p").I(j.target);
      continue;
    }
    w.S("a").D(j.done).I(j.running).I(j.finished).D(j.wait_since).D(j.lease_end);
    w.D(j.start_time)
        .D(j.last_assignment)
        .D(j.rate)
        .I(j.pool)
        .I(j.target)
        .D(j.timers.machine_s)
        .D(j.timers.rack_s)
        .D(j.attained_gpu_s);
    w.D(j.res.first_start_s).D(j.res.end_s).D(j.res.queueing_s).D(j.res.running_s);
    w.I(j.res.allocs[0]).I(j.res.allocs[1]).I(j.res.allocs[2]).I(j.res.migrations);
    w.I(static_cast<int64_t>(j.placement.size()));
    for (const auto& [m, n] : j.placement) w.I(m).I(n);
  }
  for (int p = 0; p < num_pools(); ++p) {
    const auto& h = history_[p].samples();
    w.I(static_cast<int64_t>(h.size()));
    for (const auto& [key, v] : h) {
      w.I(key.first).I(key.second).I(static_cast<int64_t>(v.size()));
      for (const auto& [at, x] : v) w.D(at).D(x);
    }
    w.I(static_cast<int64_t>(machine_affinity_[p].size()));
    for (int a : machine_affinity_[p]) w.I(a);
  }
  w.I(static_cast<int64_t>(timeline_.size()));
  for (const auto& [t, u] : timeline_) w.D(t).D(u);
  std::ostringstream rng;
  rng << rng_;
  return w.str() + "rng " + rng.str() + "\n";
}

bool Simulation::Load(const std::string& state, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "simulator state: " + why;
    return false;
  };
  Reader r(state);
  if (r.S() != kStateMagic) return fail("not a " + std::string(kStateMagic) + " state");
  if (r.I() != static_cast<int64_t>(jobs_.size()) || r.I() != num_pools() ||
      r.I() != static_cast<int>(o_.policy))
    return fail("saved for another workload, cluster or policy");
  Simulation s = *this;  // parse into a copy: *this is unchanged on failure
  s.t0_ = r.D();
  s.now_ = r.D();
  s.next_ = r.D();
  s.busy_gpu_s_ = r.D();
  s.next_arrival_ = static_cast<size_t>(r.I());
  s.remaining_ = static_cast<size_t>(r.I());
  s.events_ = r.I();
  for (auto& pool : s.pools_) pool = FreePool(pool.shape());
  for (auto& j : s.jobs_) {
    if (r.I() != j.spec.id) return fail("job order differs");
    const std::string kind = r.S();
    if (kind == "p") {
      const int target = static_cast<int>(r.I());
      SimJob fresh;
      fresh.spec = j.spec;
      fresh.work = j.work;
      fresh.ideal_runtime_s = j.ideal_runtime_s;
      fresh.res.id = j.res.id;
      fresh.res.gpus = j.res.gpus;
      fresh.res.model = j.res.model;
      fresh.res.arrival_s = j.res.arrival_s;
      fresh.res.ideal_runtime_s = j.res.ideal_runtime_s;
      fresh.target = target;
      j = std::move(fresh);
      continue;
    }
    if (kind != "a") return fail("bad record of job " + std::to_string(j.spec.id));
    j.done = r.D();
    j.arrived = true;
    j.running = r.I() != 0;
    j.finished = r.I() != 0;
    j.wait_since = r.D();
    j.lease_end = r.D();
    j.start_time = r.D();
    j.last_assignment = r.D();
    j.rate = r.D();
    j.pool = static_cast<int>(r.I());
    j.target = static_cast<int>(r.I());
    j.timers.machine_s = r.D();
    j.timers.rack_s = r.D();
    j.attained_gpu_s = r.D();
    j.res.first_start_s = r.D();
    j.res.end_s = r.D();
    j.res.queueing_s = r.D();
    j.res.running_s = r.D();
    for (int& a : j.res.allocs) a = static_cast<int>(r.I());
    j.res.migrations = static_cast<int>(r.I());
    const int64_t n = r.I();
    if (!r.ok() || n < 0 || n > 1 << 20)
      return fail("bad placement of job " + std::to_string(j.spec.id));
    j.placement.clear();
    for (int64_t k = 0; k < n; ++k) {
      const int m = static_cast<int>(r.I());
      const int g = static_cast<int>(r.I());
      j.placement.emplace_back(m, g);
    }
    if (j.running) {
      if (j.pool < 0 || j.pool >= s.num_pools())
        return fail("bad pool of job " + std::to_string(j.spec.id));
      for (const auto& [m, g] : j.placement)
        if (m < 0 || m >= static_cast<int>(s.machine_affinity_[j.pool].size()) || g <= 0)
          return fail("bad placement of job " + std::to_string(j.spec.id));
      s.pools_[j.pool].Take(j.placement);
    }
  }
  for (int p = 0; p < s.num_pools(); ++p) {
    auto& h = s.history_[p].mutable_samples();
    h.clear();
    const int64_t keys = r.I();
    if (!r.ok() || keys < 0) return fail("bad wait history");
    for (int64_t k = 0; k < keys; ++k) {
      const int tier = static_cast<int>(r.I());
      const int g = static_cast<int>(r.I());
      const int64_t n = r.I();
      if (!r.ok() || n < 0) return fail("bad wait history");
      auto& v = h[{tier, g}];
      for (int64_t i = 0; i < n; ++i) {
        const double at = r.D();
        const double x = r.D();
        v.emplace_back(at, x);
      }
    }
    if (r.I() != static_cast<int64_t>(s.machine_affinity_[p].size()))
      return fail("pool shape differs");
    for (int& a : s.machine_affinity_[p]) a = static_cast<int>(r.I());
  }
  const int64_t n = r.I();
  if (!r.ok() || n < 0) return fail("bad utilisation timeline");
  s.timeline_.clear();
  for (int64_t i = 0; i < n; ++i) {
    const double t = r.D();
    const double u = r.D();
    s.timeline_.emplace_back(t, u);
  }
  if (r.S() != "rng") return fail("missing RNG state");
  r.stream() >> s.rng_;
  if (!r.ok() || r.stream().fail()) return fail("truncated");
  for (const auto& pool : s.pools_)
    for (int m = 0; m < pool.shape().racks * pool.shape().machines_per_rack; ++m)
      if (pool.Free(m) < 0) return fail("placements overlap");
  *this = std::move(s);
  return true;
}

}  // namespace dede::gpu
