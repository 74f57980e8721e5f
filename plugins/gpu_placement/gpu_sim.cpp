// Event-driven simulation of Dally / Tiresias / Gandiva. Why-comments reference the design note
// (/work/shared/design-notes/dally.md, sections in brackets).
#include "gpu_sim.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

namespace dede::gpu {

const char* PolicyName(Policy p) {
  switch (p) {
    case Policy::kDally:
      return "Dally";
    case Policy::kDallyManual:
      return "Dally-manual";
    case Policy::kDallyNoWait:
      return "Dally-noWait";
    case Policy::kDallyFullyConsolidated:
      return "Dally-fullyCons";
    case Policy::kTiresias:
      return "Tiresias";
    case Policy::kGandiva:
      return "Gandiva";
  }
  return "?";
}

std::map<std::string, Overhead> TableIOverheads() {
  // Table I: communication latency as % of compute time (8 GPUs, ASTRA-sim), as fractions.
  return {{"VGG", {0.01, 0.06, 0.07}},
          {"VGG11", {0.01, 0.06, 0.07}},
          {"AlexNet", {0.02, 0.13, 1.00}},
          {"MobileNetV3", {0.42, 9.40, 195.92}},
          {"ResNet18", {0.07, 1.16, 27.49}},
          {"ResNet50", {0.12, 0.12, 0.38}},
          {"BERT", {0.08, 0.23, 7.15}},
          {"BERT-large", {0.08, 0.23, 7.15}}};
}

bool IsHighSkew(const std::string& m) {
  return m == "VGG" || m == "VGG11" || m == "AlexNet" || m == "MobileNetV3";
}

double NetworkSensitivity(double work_done,
                          double work_total,
                          double time_running_s,
                          double ideal_runtime_s) {
  if (time_running_s <= 0 || work_total <= 0 || ideal_runtime_s <= 0)
    return 0.0;  // never run: highest priority
  return (work_done / work_total) / (time_running_s / ideal_runtime_s);
}

void WaitHistory::Record(Tier tier, int gpus, double now_s, double wait_leases) {
  hist_[{static_cast<int>(tier), gpus}].emplace_back(now_s, wait_leases);
}

size_t WaitHistory::Size(Tier tier, int gpus) const {
  auto it = hist_.find({static_cast<int>(tier), gpus});
  return it == hist_.end() ? 0 : it->second.size();
}

double WaitHistory::Value(
    Tier tier, int gpus, double now_s, double window_s, bool sample_sd) const {
  auto it = hist_.find({static_cast<int>(tier), gpus});
  if (it == hist_.end()) return 1.0;
  // Age-based window [A1]: an entry recorded exactly window_s ago is still inside.
  // Samples are appended in time order: the window is a suffix (binary search for its start).
  const auto& all = it->second;
  auto first =
      std::partition_point(all.begin(), all.end(), [&](const std::pair<double, double>& e) {
        return now_s - e.first > window_s;
      });
  std::vector<double> w;
  for (auto e = first; e != all.end(); ++e)
    if (now_s - e->first <= window_s) w.push_back(e->second);
  if (w.empty()) return 1.0;
  const double n = static_cast<double>(w.size());
  const double mean = std::accumulate(w.begin(), w.end(), 0.0) / n;
  if (mean == 0.0) return 1.0;
  double ss = 0;
  for (double x : w) ss += (x - mean) * (x - mean);
  double sd = 0;
  if (sample_sd)
    sd = w.size() >= 2 ? std::sqrt(ss / (n - 1)) : 0.0;
  else
    sd = std::sqrt(ss / n);
  return mean + 2 * sd;
}

Timers TunedTimers(const WaitHistory& h, int gpus, double now_s, const SimOptions& o) {
  const double H = o.history_leases, L = o.lease_s;
  const double vm = h.Value(Tier::kMachine, gpus, now_s, H * L, o.sample_sd);
  const double vr = h.Value(Tier::kRack, gpus, now_s, H * L, o.sample_sd);
  const double tm = std::min(std::ceil(0.8 * H), std::max(o.machine_floor_leases, std::ceil(vm)));
  double tr = std::min(H, std::max(o.rack_floor_leases, std::ceil(vr)));
  if (o.enforce_rack_ge_machine) tr = std::max(tr, tm);  // [A2]
  return {tm * L, tr * L};
}

Tier PlacementTier(const Placement& p, const ClusterShape& c) {
  if (p.size() <= 1) return Tier::kMachine;
  const int r0 = p[0].first / c.machines_per_rack;
  for (const auto& [m, n] : p)
    if (m / c.machines_per_rack != r0) return Tier::kNetwork;
  return Tier::kRack;
}

FreePool::FreePool(const ClusterShape& c)
    : c_(c), free_(c.racks * c.machines_per_rack, c.gpus_per_machine) {
  total_ = c.TotalGpus();
}

int FreePool::RackFree(int rack) const {
  int s = 0;
  for (int m = rack * c_.machines_per_rack; m < (rack + 1) * c_.machines_per_rack; ++m)
    s += free_[m];
  return s;
}

bool FreePool::FindMachine(int gpus, Placement* out) const {
  if (gpus > c_.gpus_per_machine) return false;
  int best = -1;
  for (int m = 0; m < static_cast<int>(free_.size()); ++m)
    if (free_[m] >= gpus && (best < 0 || free_[m] < free_[best])) best = m;
  if (best < 0) return false;
  *out = {{best, gpus}};
  return true;
}

namespace {
// Fill `gpus` from the given machines, most free first (fewest machines spanned); ties by index.
void FillFrom(const std::vector<int>& free, std::vector<int> machines, int gpus, Placement* out) {
  std::stable_sort(
      machines.begin(), machines.end(), [&](int a, int b) { return free[a] > free[b]; });
  out->clear();
  for (int m : machines) {
    if (gpus == 0) break;
    const int take = std::min(gpus, free[m]);
    if (take > 0) out->emplace_back(m, take);
    gpus -= take;
  }
  std::sort(out->begin(), out->end());
}
}  // namespace

bool FreePool::FindRack(int gpus, Placement* out) const {
  if (gpus > c_.machines_per_rack * c_.gpus_per_machine) return false;
  int best = -1, best_free = 0;
  for (int r = 0; r < c_.racks; ++r) {
    const int f = RackFree(r);
    if (f >= gpus && (best < 0 || f < best_free)) best = r, best_free = f;
  }
  if (best < 0) return false;
  std::vector<int> ms;
  for (int m = best * c_.machines_per_rack; m < (best + 1) * c_.machines_per_rack; ++m)
    ms.push_back(m);
  FillFrom(free_, ms, gpus, out);
  return true;
}

bool FreePool::FindFewestMachines(int gpus, Placement* out) const {
  if (gpus <= c_.gpus_per_machine) return FindMachine(gpus, out);
  if (gpus > c_.machines_per_rack * c_.gpus_per_machine) return FindAny(gpus, out);
  const int k = (gpus + c_.gpus_per_machine - 1) / c_.gpus_per_machine;
  int best = -1, best_free = 0;
  std::vector<int> best_ms;
  for (int r = 0; r < c_.racks; ++r) {
    std::vector<int> ms;
    for (int m = r * c_.machines_per_rack; m < (r + 1) * c_.machines_per_rack; ++m) ms.push_back(m);
    std::stable_sort(ms.begin(), ms.end(), [&](int a, int b) { return free_[a] > free_[b]; });
    int top = 0;
    for (int i = 0; i < k; ++i) top += free_[ms[i]];
    const int f = RackFree(r);
    if (top >= gpus && (best < 0 || f < best_free))
      best = r, best_free = f, best_ms.assign(ms.begin(), ms.begin() + k);
  }
  if (best < 0) return false;
  FillFrom(free_, best_ms, gpus, out);
  return true;
}

bool FreePool::FindAny(int gpus, Placement* out) const {
  if (total_ < gpus) return false;
  std::vector<int> racks(c_.racks);
  std::iota(racks.begin(), racks.end(), 0);
  std::stable_sort(
      racks.begin(), racks.end(), [&](int a, int b) { return RackFree(a) > RackFree(b); });
  out->clear();
  int left = gpus;
  for (int r : racks) {
    if (left == 0) break;
    const int take = std::min(left, RackFree(r));
    if (take == 0) continue;
    std::vector<int> ms;
    for (int m = r * c_.machines_per_rack; m < (r + 1) * c_.machines_per_rack; ++m) ms.push_back(m);
    Placement part;
    FillFrom(free_, ms, take, &part);
    out->insert(out->end(), part.begin(), part.end());
    left -= take;
  }
  std::sort(out->begin(), out->end());
  return true;
}

void FreePool::Take(const Placement& p) {
  for (const auto& [m, n] : p) free_[m] -= n, total_ -= n;
}
void FreePool::Give(const Placement& p) {
  for (const auto& [m, n] : p) free_[m] += n, total_ += n;
}

OfferResult DallyOffer(const FreePool& pool,
                       int gpus,
                       double starv_s,
                       Timers t,
                       const ClusterShape& c,
                       Placement* out) {
  if (gpus > c.gpus_per_machine) t.machine_s = 0;  // [A9]
  if (gpus > c.gpus_per_machine * c.machines_per_rack) t.machine_s = t.rack_s = 0;
  if (pool.TotalFree() < gpus) return OfferResult::kNoFit;
  if (pool.FindMachine(gpus, out)) return OfferResult::kAcceptMachine;  // step 1: unconditional
  if (starv_s < t.machine_s) return OfferResult::kRejectMachineTimer;   // step 2
  if (pool.FindRack(gpus, out)) return OfferResult::kAcceptRack;        // step 3
  if (starv_s < t.rack_s) return OfferResult::kRejectRackTimer;         // step 4
  pool.FindAny(gpus, out);                                              // step 5
  return OfferResult::kAcceptNetwork;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-6;
}  // namespace

Simulation::Simulation(const std::vector<JobSpec>& jobs, const SimOptions& o)
    : o_(o), rng_(o.seed) {
  shapes_ = o.pools.empty() ? std::vector<ClusterShape>{o.cluster} : o.pools;
  for (const auto& c : shapes_) {
    pools_.emplace_back(c);
    machine_affinity_.emplace_back(c.racks * c.machines_per_rack, 0);
  }
  history_.resize(shapes_.size());
  for (const auto& s : jobs) {
    SimJob j;
    j.spec = s;
    const double compute = s.iterations * s.time_per_iteration_s;
    j.work = compute;
    j.ideal_runtime_s = o.work_model == WorkModel::kArtistLinear ? compute / s.gpus : compute;
    j.res.id = s.id;
    j.res.gpus = s.gpus;
    j.res.model = s.model;
    j.res.arrival_s = s.arrival_s;
    j.res.ideal_runtime_s = j.ideal_runtime_s;
    jobs_.push_back(std::move(j));
  }
  std::stable_sort(jobs_.begin(), jobs_.end(), [](const SimJob& a, const SimJob& b) {
    return a.spec.arrival_s < b.spec.arrival_s;
  });
  remaining_ = jobs_.size();
  t0_ = now_ = jobs_.empty() ? 0 : jobs_.front().spec.arrival_s;
  next_ = jobs_.empty() ? kNever : now_;  // the first batch (the first arrivals) is pending
}

int Simulation::TotalGpus() const {
  int n = 0;
  for (const auto& c : shapes_) n += c.TotalGpus();
  return n;
}

int Simulation::UsedGpus() const {
  int n = TotalGpus();
  for (const auto& p : pools_) n -= p.TotalFree();
  return n;
}

double Simulation::BusyGpuSecondsAt(double t) const {
  double b = busy_gpu_s_;
  for (const auto& j : jobs_)
    if (j.running) b += (t - now_) * j.spec.gpus;
  return b;
}

void Simulation::SetTargets(const std::vector<int>& pool_by_job) {
  for (size_t i = 0; i < jobs_.size() && i < pool_by_job.size(); ++i)
    jobs_[i].target = std::clamp(pool_by_job[i], 0, num_pools() - 1);
}

void Simulation::AdvanceTo(double t) {
  while (next_ <= t && next_ != kNever) ProcessBatch();
}

// One event batch at time next_: progress up to it, arrivals, completions and lease expiries,
// one offer round, then the time of the next batch.
void Simulation::ProcessBatch() {
  const double dt = next_ - now_;
  if (dt > 0) {
    for (auto& j : jobs_) {
      if (!j.running) continue;
      j.done = std::min(j.work, j.done + j.rate * dt);
      j.res.running_s += dt;
      j.attained_gpu_s += dt * j.spec.gpus;
      busy_gpu_s_ += dt * j.spec.gpus;
    }
  }
  now_ = next_;
  const double now = now_;
  while (next_arrival_ < jobs_.size() && jobs_[next_arrival_].spec.arrival_s <= now + kEps) {
    auto& j = jobs_[next_arrival_++];
    j.arrived = true;
    j.wait_since = j.last_assignment = j.spec.arrival_s;
  }
  // Completions and lease expiries: release GPUs, rejoin the queue [1.3].
  for (auto& j : jobs_) {
    if (!j.running) continue;
    if (j.done >= j.work - kEps * std::max(1.0, j.work)) {
      Release(j);
      j.finished = true;
      j.res.end_s = now;
      --remaining_;
    } else if (j.lease_end <= now + kEps) {
      Release(j);
      j.wait_since = now;  // [A8]
    }
  }
  if (remaining_ == 0) {
    next_ = kNever;
    return;
  }
  OfferRound(now);
  ++events_;
  if (o_.record_utilization_timeline)
    timeline_.emplace_back(now, static_cast<double>(UsedGpus()) / TotalGpus());
  next_ = NextEvent();
}

double Simulation::NextEvent() const {
  double next = kInf;
  if (next_arrival_ < jobs_.size()) next = jobs_[next_arrival_].spec.arrival_s;
  for (const auto& j : jobs_) {
    if (j.running) {
      next = std::min(next, std::min(j.lease_end, now_ + (j.work - j.done) / j.rate));
    } else if (j.arrived && !j.finished && IsDally()) {
      // Timer crossings can turn a reject into an accept.
      const double base = StarvationStart(j);
      for (double t : {base + j.timers.machine_s, base + j.timers.rack_s})
        if (t > now_ + kEps && std::isfinite(t)) next = std::min(next, t);
    }
  }
  return next;  // infinite: nothing can ever change (jobs that can never fit)
}

SimResult Simulation::Result() const {
  SimResult out;
  double end = t0_;
  std::vector<double> jct, queue;
  double comm = 0;
  for (const auto& j : jobs_) {
    out.jobs.push_back(j.res);
    if (!j.finished) continue;
    end = std::max(end, j.res.end_s);
    jct.push_back(j.res.end_s - j.res.arrival_s);
    queue.push_back(j.res.queueing_s);
    comm += j.res.running_s - j.ideal_runtime_s;
  }
  auto& m = out.metrics;
  m.events = events_;
  m.utilization_over_time = timeline_;
  m.makespan_s = end - t0_;
  if (!jct.empty()) {
    const double n = static_cast<double>(jct.size());
    m.jct_avg_s = std::accumulate(jct.begin(), jct.end(), 0.0) / n;
    m.jct_median_s = Percentile(jct, 50);
    m.jct_p95_s = Percentile(jct, 95);
    m.jct_p99_s = Percentile(jct, 99);
    m.queue_avg_s = std::accumulate(queue.begin(), queue.end(), 0.0) / n;
    m.queue_p95_s = Percentile(queue, 95);
    m.queue_p99_s = Percentile(queue, 99);
    m.comm_avg_s = comm / n;
  }
  if (m.makespan_s > 0) m.utilization = busy_gpu_s_ / (TotalGpus() * m.makespan_s);
  return out;
}

bool Simulation::IsDally() const {
  return o_.policy == Policy::kDally || o_.policy == Policy::kDallyManual ||
         o_.policy == Policy::kDallyNoWait || o_.policy == Policy::kDallyFullyConsolidated;
}

double Simulation::Rate(const SimJob& j, Tier t, int pool) const {
  const double ov = j.spec.gpus == 1 ? 0.0 : j.spec.overhead.At(t);
  const double g = o_.work_model == WorkModel::kArtistLinear ? j.spec.gpus : 1.0;
  const double r = g / (1.0 + ov);
  return j.spec.pool_speed.empty() ? r : r * j.spec.pool_speed[pool];
}

void Simulation::Release(SimJob& j) {
  pools_[j.pool].Give(j.placement);
  j.placement.clear();
  j.running = false;
  j.pool = -1;
}

void Simulation::Start(SimJob& j, int pool, const Placement& p, double now) {
  const Tier t = PlacementTier(p, shapes_[pool]);
  pools_[pool].Take(p);
  j.placement = p;
  j.pool = pool;
  j.running = true;
  j.rate = Rate(j, t, pool);
  j.lease_end = o_.lease_expiry ? now + o_.lease_s : kInf;
  j.last_assignment = now;
  if (j.start_time < 0) j.start_time = now, j.res.first_start_s = now;
  j.res.queueing_s += now - j.wait_since;
  j.res.allocs[static_cast<int>(t)]++;
}

Timers Simulation::DallyTimers(const SimJob& j, int pool, double now) const {
  Timers t;
  switch (o_.policy) {
    case Policy::kDallyManual:
      t = {o_.manual_machine_timer_s, o_.manual_rack_timer_s};
      break;
    case Policy::kDallyNoWait:
      t = {0, 0};
      break;
    case Policy::kDallyFullyConsolidated:
      t = {kInf, kInf};
      break;
    default:
      t = TunedTimers(history_[pool], j.spec.gpus, now, o_);
  }
  // A job larger than a machine skips T_Mc in DallyOffer; here only the alternative reading of
  // how long it then waits for a rack.
  if (!o_.large_job_cumulative_rack_wait && j.spec.gpus > shapes_[pool].gpus_per_machine &&
      std::isfinite(t.rack_s))
    t.rack_s = std::max(0.0, t.rack_s - t.machine_s);
  return t;
}

Timers Simulation::CurrentTimers(int pool, int gpus) const {
  SimJob j;
  j.spec.gpus = gpus;
  return DallyTimers(j, pool, now_);
}

void Simulation::OfferRound(double now) {
  for (int pool = 0; pool < num_pools(); ++pool) {
    std::vector<SimJob*> w;
    for (auto& j : jobs_)
      if (j.arrived && !j.running && !j.finished && j.target == pool) w.push_back(&j);
    if (IsDally())
      DallyRound(now, pool, w);
    else if (o_.policy == Policy::kTiresias)
      TiresiasRound(now, pool, w);
    else
      GandivaRound(now, pool, w);
  }
}

void Simulation::DallyRound(double now, int pool, std::vector<SimJob*>& w) {
  std::vector<double> key(jobs_.size());
  std::map<int, Timers> by_demand;  // the timers depend on (pool, demand, now) only
  for (auto* j : w) {
    auto it = by_demand.find(j->spec.gpus);
    if (it == by_demand.end())
      it = by_demand.emplace(j->spec.gpus, DallyTimers(*j, pool, now)).first;
    j->timers = it->second;
    key[j - jobs_.data()] =
        j->res.running_s > 0 || o_.never_run_first
            ? NetworkSensitivity(j->done, j->work, j->res.running_s, j->ideal_runtime_s)
            : 1.0;
  }
  std::stable_sort(w.begin(), w.end(), [&](const SimJob* a, const SimJob* b) {
    const double ka = key[a - jobs_.data()], kb = key[b - jobs_.data()];
    if (ka != kb) return ka < kb;
    if (a->wait_since != b->wait_since) return a->wait_since < b->wait_since;
    return a->spec.id < b->spec.id;
  });
  FreePool& fp = pools_[pool];
  for (auto* j : w) {
    if (fp.TotalFree() == 0) break;
    Placement p;
    const double starv = now - StarvationStart(*j);
    const OfferResult r = DallyOffer(fp, j->spec.gpus, starv, j->timers, shapes_[pool], &p);
    if (r != OfferResult::kAcceptMachine && r != OfferResult::kAcceptRack &&
        r != OfferResult::kAcceptNetwork)
      continue;
    // [A5]: record only consolidated acceptances that waited at least one lease.
    if (r != OfferResult::kAcceptNetwork && starv >= o_.lease_s)
      history_[pool].Record(r == OfferResult::kAcceptMachine ? Tier::kMachine : Tier::kRack,
                            j->spec.gpus,
                            now,
                            starv / o_.lease_s);
    Start(*j, pool, p, now);
  }
}

int Simulation::TiresiasQueue(const SimJob& j) const {
  int q = 0;
  for (double lim : o_.tiresias_queue_limits_gpu_s)
    if (j.attained_gpu_s >= lim) ++q;
  return q;
}

void Simulation::TiresiasRound(double now, int pool, std::vector<SimJob*>& w) {
  // Discretized 2D-LAS: queue by attained GPU-time, FIFO (by arrival) within a queue.
  std::stable_sort(w.begin(), w.end(), [&](const SimJob* a, const SimJob* b) {
    if (o_.tiresias_continuous_las) {
      if (a->attained_gpu_s != b->attained_gpu_s) return a->attained_gpu_s < b->attained_gpu_s;
    } else {
      const int qa = TiresiasQueue(*a), qb = TiresiasQueue(*b);
      if (qa != qb) return qa < qb;
    }
    if (a->spec.arrival_s != b->spec.arrival_s) return a->spec.arrival_s < b->spec.arrival_s;
    return a->spec.id < b->spec.id;
  });
  const ClusterShape& c = shapes_[pool];
  FreePool& fp = pools_[pool];
  const int rack_gpus = c.machines_per_rack * c.gpus_per_machine;
  for (auto* j : w) {
    if (fp.TotalFree() == 0) break;
    Placement p;
    const int g = j->spec.gpus;
    bool ok = false;
    if (IsHighSkew(j->spec.model)) {
      // Skew-based consolidation: high-skew jobs never take a network placement if they fit a rack.
      ok = o_.tiresias_fewest_machines ? fp.FindFewestMachines(g, &p)
                                       : fp.FindMachine(g, &p) || fp.FindRack(g, &p) ||
                                             (g > rack_gpus && fp.FindAny(g, &p));
    } else if (o_.tiresias_any_offer) {
      ok = RandomPlacement(pool, g, &p);  // any offer: topology-agnostic
    } else {
      ok = fp.FindMachine(g, &p) || fp.FindRack(g, &p) || fp.FindAny(g, &p);
    }
    if (ok) Start(*j, pool, p, now);
  }
}

bool Simulation::RandomPlacement(int pool, int g, Placement* p) {
  const FreePool& fp = pools_[pool];
  if (fp.TotalFree() < g) return false;
  std::vector<int> slots;
  for (int m = 0; m < static_cast<int>(machine_affinity_[pool].size()); ++m)
    for (int k = 0; k < fp.Free(m); ++k) slots.push_back(m);
  std::shuffle(slots.begin(), slots.end(), rng_);
  std::map<int, int> cnt;
  for (int i = 0; i < g; ++i) cnt[slots[i]]++;
  p->assign(cnt.begin(), cnt.end());
  return true;
}

bool Simulation::GandivaMachine(int pool, int g, Placement* p) {
  const FreePool& fp = pools_[pool];
  auto& affinity = machine_affinity_[pool];
  const int n = static_cast<int>(affinity.size());
  auto pick = [&](auto pred) {
    int best = -1;
    for (int m = 0; m < n; ++m)
      if (pred(m) && fp.Free(m) >= g && (best < 0 || fp.Free(m) > fp.Free(best))) best = m;
    return best;
  };
  int m = pick([&](int k) { return affinity[k] == g; });
  if (m < 0) m = pick([&](int k) { return affinity[k] == 0; });
  if (m < 0) m = pick([](int) { return true; });
  if (m < 0) return false;
  affinity[m] = g;
  *p = {{m, g}};
  return true;
}

void Simulation::GandivaRound(double now, int pool, std::vector<SimJob*>& w) {
  // Sticky near-FIFO order: started jobs by start time descending, then never-started ones [2.2].
  std::stable_sort(w.begin(), w.end(), [&](const SimJob* a, const SimJob* b) {
    if (a->start_time != b->start_time) return a->start_time > b->start_time;
    if (a->wait_since != b->wait_since) return a->wait_since < b->wait_since;
    return a->spec.id < b->spec.id;
  });
  const ClusterShape& c = shapes_[pool];
  FreePool& fp = pools_[pool];
  for (auto* j : w) {
    if (fp.TotalFree() == 0) break;
    Placement p;
    const int g = j->spec.gpus;
    // Network-agnostic: small jobs try one machine (affinity); otherwise random free GPUs.
    const bool ok =
        (g <= c.gpus_per_machine && GandivaMachine(pool, g, &p)) || RandomPlacement(pool, g, &p);
    if (ok) Start(*j, pool, p, now);
  }
  // Migration towards better consolidation for running jobs on a poor tier.
  for (auto& j : jobs_) {
    if (!j.running || j.pool != pool) continue;
    const Tier cur = PlacementTier(j.placement, c);
    const int g = j.spec.gpus;
    const bool want_machine = g <= c.gpus_per_machine && cur != Tier::kMachine;
    const bool want_rack = g > c.gpus_per_machine && cur == Tier::kNetwork;
    if (!want_machine && !want_rack) continue;
    fp.Give(j.placement);
    Placement p;
    const bool ok = want_machine ? fp.FindMachine(g, &p) : fp.FindRack(g, &p);
    if (!ok) {
      fp.Take(j.placement);
      continue;
    }
    fp.Take(p);
    j.placement = p;
    j.rate = Rate(j, PlacementTier(p, c), pool);
    if (o_.gandiva_migration_cost_s > 0) j.lease_end += o_.gandiva_migration_cost_s;
    j.res.migrations++;
    j.res.allocs[static_cast<int>(PlacementTier(p, c))]++;
  }
}

// ---- checkpoint ---------------------------------------------------------------------------
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
  double D() {
    std::string t;
    if (!(in_ >> t)) return Fail();
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return Fail();
    return v;
  }
  int64_t I() {
    std::string t;
    if (!(in_ >> t)) return static_cast<int64_t>(Fail());
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end == t.c_str() || *end != '\0') return static_cast<int64_t>(Fail());
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

SimResult Simulate(const std::vector<JobSpec>& jobs, const SimOptions& o) {
  Simulation s(jobs, o);
  s.RunToEnd();
  return s.Result();
}

std::vector<JobSpec> GenerateWorkload(int num_jobs,
                                      bool poisson,
                                      double jobs_per_day,
                                      uint64_t seed) {
  // Model x demand counts of the paper's 500-job batch trace (design note 3.4); sampled
  // proportionally.
  struct Row {
    const char* model;
    int counts[9];
  };
  static const int kDemand[9] = {1, 2, 4, 8, 16, 32, 40, 48, 56};
  static const Row kRows[] = {{"MobileNetV3", {17, 2, 15, 52, 26, 10, 1, 1, 1}},
                              {"BERT", {94, 4, 7, 15, 5, 0, 0, 0, 0}},
                              {"ResNet50", {67, 7, 16, 27, 7, 1, 0, 0, 0}},
                              {"AlexNet", {27, 0, 9, 13, 4, 0, 0, 0, 0}},
                              {"ResNet18", {35, 0, 3, 0, 0, 0, 0, 0, 0}},
                              {"VGG", {30, 0, 2, 2, 0, 0, 0, 0, 0}}};
  std::vector<std::pair<const char*, int>> cells;
  std::vector<double> weights;
  for (const auto& r : kRows)
    for (int k = 0; k < 9; ++k)
      if (r.counts[k] > 0) cells.emplace_back(r.model, kDemand[k]), weights.push_back(r.counts[k]);
  std::mt19937_64 rng(seed);
  std::discrete_distribution<int> pick(weights.begin(), weights.end());
  std::lognormal_distribution<double> dur(std::log(56000.0), 1.3);
  std::exponential_distribution<double> gap(jobs_per_day / 86400.0);
  const auto table = TableIOverheads();
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 0; i < num_jobs; ++i) {
    JobSpec s;
    s.id = i;
    const auto& c = cells[pick(rng)];
    s.model = c.first;
    s.gpus = c.second;
    const double d = std::clamp(dur(rng), 600.0, 1.17e6);
    s.time_per_iteration_s = 0.5;
    s.iterations = std::round(d / s.time_per_iteration_s);
    s.overhead = table.at(s.model);
    if (poisson && i > 0) t += gap(rng);
    s.arrival_s = poisson ? t : 0.0;
    jobs.push_back(s);
  }
  return jobs;
}

}  // namespace dede::gpu
