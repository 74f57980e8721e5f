// Placement policies of the GPU simulation (see gpu_sim.h): Dally's network-tier offers,
// wait-time history and tuned timers, and the baselines it is compared with (Tiresias' queues,
// Gandiva's machine packing, random placement). Why-comments reference the design note
// (/work/shared/design-notes/dally.md, sections in brackets).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "gpu_sim.h"

namespace dede::gpu {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

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

}  // namespace dede::gpu
