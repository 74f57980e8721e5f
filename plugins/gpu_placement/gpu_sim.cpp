// Event-driven simulation of Dally / Tiresias / Gandiva: the job and lease events, starts and
// releases, and the results. The policies' rounds are in gpu_policies.cpp, the checkpoint in
// gpu_checkpoint.cpp, the synthetic workloads in gpu_workload.cpp. Why-comments reference the
// design note (/work/shared/design-notes/dally.md, sections in brackets).
#include "gpu_sim.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace dede::gpu {

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

// A job in its initial state, arriving at `arrival_s`.
SimJob NewJob(const JobSpec& spec, double arrival_s, WorkModel work_model) {
  SimJob j;
  j.spec = spec;
  j.spec.arrival_s = arrival_s;
  const double compute = spec.iterations * spec.time_per_iteration_s;
  j.work = compute;
  j.ideal_runtime_s = work_model == WorkModel::kArtistLinear ? compute / spec.gpus : compute;
  j.res.id = spec.id;
  j.res.gpus = spec.gpus;
  j.res.model = spec.model;
  j.res.arrival_s = arrival_s;
  j.res.ideal_runtime_s = j.ideal_runtime_s;
  return j;
}
}  // namespace

Simulation::Simulation(const std::vector<JobSpec>& jobs, const SimOptions& o)
    : o_(o), rng_(o.seed) {
  shapes_ = o.pools.empty() ? std::vector<ClusterShape>{o.cluster} : o.pools;
  for (const auto& c : shapes_) {
    pools_.emplace_back(c);
    machine_affinity_.emplace_back(c.racks * c.machines_per_rack, 0);
  }
  history_.resize(shapes_.size());
  for (const auto& s : jobs) jobs_.push_back(NewJob(s, s.arrival_s, o.work_model));
  std::stable_sort(jobs_.begin(), jobs_.end(), [](const SimJob& a, const SimJob& b) {
    return a.spec.arrival_s < b.spec.arrival_s;
  });
  order_.resize(jobs_.size());
  std::iota(order_.begin(), order_.end(), size_t{0});
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

void Simulation::Submit(const JobSpec& spec) {
  const double arrival = std::max(spec.arrival_s, now_);
  jobs_.push_back(NewJob(spec, arrival, o_.work_model));
  // After every pending job that arrives at the same time or earlier: the order a constructor
  // given the same jobs would have chosen (stable by arrival), whenever the job is submitted.
  const auto pending = order_.begin() + static_cast<std::ptrdiff_t>(next_arrival_);
  const auto at = std::upper_bound(pending, order_.end(), arrival, [&](double t, size_t i) {
    return t < jobs_[i].spec.arrival_s;
  });
  order_.insert(at, jobs_.size() - 1);
  ++remaining_;
  next_ = std::min(next_, arrival);
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
  while (next_arrival_ < order_.size() &&
         jobs_[order_[next_arrival_]].spec.arrival_s <= now + kEps) {
    auto& j = jobs_[order_[next_arrival_++]];
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
  if (next_arrival_ < order_.size()) next = jobs_[order_[next_arrival_]].spec.arrival_s;
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

SimResult Simulate(const std::vector<JobSpec>& jobs, const SimOptions& o) {
  Simulation s(jobs, o);
  s.RunToEnd();
  return s.Result();
}

}  // namespace dede::gpu
