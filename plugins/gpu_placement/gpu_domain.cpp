// gpu_placement domain: problem description, ticks, records, checkpoints (settings and
// workload: gpu_settings.cpp).
#include "gpu_domain.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string_view>

#include "dede/csv.h"

namespace dede::gpu {
namespace {
constexpr double kHour = 3600.0;
}  // namespace

// ---- plugin ---------------------------------------------------------------------------------

Status GpuPlacementDomain::Configure(const ConfigNode& settings, const PluginContext& context) {
  Status st = ParseSettings(settings, context, &settings_);
  if (!st.ok()) return st;
  Result<std::vector<JobSpec>> jobs =
      LoadWorkload(settings_, &settings_.trace_jobs_skipped, &settings_.trace_zero_work_jobs);
  if (!jobs.ok()) return jobs.status();
  jobs_ = std::move(jobs.value());
  workload_jobs_ = jobs_.size();
  origin_s_ = jobs_.front().arrival_s;
  policy_ = settings_.policy;
  return Status::Ok();
}

Status GpuPlacementDomain::Describe(Problem* problem) {
  const int K = static_cast<int>(settings_.types.size());
  // Describe starts from the workload alone: a resumed run re-applies the submissions.
  jobs_.resize(workload_jobs_);
  submitted_round_.clear();
  const int J = static_cast<int>(workload_jobs_) + settings_.event_job_slots;
  *problem = Problem(K, J);
  problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  const int x = problem->AddAllocation("gpus", Domain::NonNegative());
  double total = 0;
  for (const GpuType& t : settings_.types) total += t.shape.TotalGpus();
  vars_.assign(static_cast<size_t>(J) * K, -1);
  t_equal_.assign(J, 0);
  std::vector<LinearExpr> rows(K), exprs;
  std::vector<int> blocks;
  double largest = 0;
  column_.assign(J, -1);
  // A free slot is a one-GPU job of unit speed until a submission fills it (WriteSubmittedSlots).
  JobSpec free_slot;
  for (int j = 0; j < J; ++j) {
    const JobSpec& job = j < static_cast<int>(workload_jobs_) ? jobs_[j] : free_slot;
    auto speed = [&](int k) { return job.pool_speed.empty() ? 1.0 : job.pool_speed[k]; };
    for (int k = 0; k < K; ++k)
      t_equal_[j] += settings_.types[k].shape.TotalGpus() / total * speed(k);
    LinearExpr column, value;
    for (int k = 0; k < K; ++k) {
      const VarId v = problem->AddEntry(x, k, j);
      vars_[static_cast<size_t>(j) * K + k] = v;
      problem->SetBounds(v, 0, 0);  // Refresh opens the entries of the tick's active jobs
      const double coef = speed(k) / (job.gpus * t_equal_[j]);  // = ValueCoefficient(j, k)
      column.Add(v, 1.0);
      value.Add(v, coef);
      rows[k].Add(v, 1.0);
      if (j < static_cast<int>(workload_jobs_)) largest = std::max(largest, coef * job.gpus);
    }
    column_[j] = problem->AddDemandConstraint(j, column, Sense::kLessEqual, job.gpus);
    blocks.push_back(j);
    exprs.push_back(value);
  }
  for (int k = 0; k < K; ++k)
    problem->AddResourceConstraint(
        k, rows[k], Sense::kLessEqual, settings_.types[k].shape.TotalGpus());
  inactive_constant_ = 2 * largest + 1;
  problem->SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, blocks, exprs);
  for (int j = 0; j < J; ++j) problem->SetGlobalConstant(j, inactive_constant_);
  active_.assign(J, 0);
  written_slots_ = workload_jobs_;
  ResetSimulation(policy_);
  return Status::Ok();
}

void GpuPlacementDomain::ResetSimulation(Policy policy) {
  policy_ = policy;
  SimOptions o = settings_.sim;
  o.policy = policy;
  // The submitted jobs join at their rounds' ticks (SubmitDue), as in the run being replayed.
  sim_ = std::make_unique<Simulation>(
      std::vector<JobSpec>(jobs_.begin(), jobs_.begin() + workload_jobs_), o);
  sim_round_ = 0;
  credit_.assign(active_.size(), std::vector<double>(settings_.types.size(), 0.0));
  ResetReportBaseline();
}

void GpuPlacementDomain::ResetReportBaseline() {
  job_signature_.assign(active_.size(), std::string());
  reported_samples_.assign(settings_.types.size(), {});
  reported_timers_.clear();
  reported_time_s_ = sim_round_ == 0 ? origin_s_ : TickEnd(sim_round_ - 1);
  reported_busy_gpu_s_ = sim_->BusyGpuSecondsAt(std::max(reported_time_s_, sim_->now()));
}

void GpuPlacementDomain::SubmitDue(int round) {
  for (size_t j = sim_->jobs().size(); j < jobs_.size(); ++j) {
    if (submitted_round_[j - workload_jobs_] > round) break;
    sim_->Submit(jobs_[j]);
  }
}

void GpuPlacementDomain::Tick(int round) {
  SubmitDue(round);
  sim_->AdvanceTo(TickEnd(round));
  sim_round_ = round + 1;
}

Status GpuPlacementDomain::AdvanceTo(int round) {
  if (round < sim_round_) ResetSimulation(policy_);
  if (round > sim_round_ && settings_.types.size() > 1)
    return FailedPrecondition(
        "gpu_placement: round " + std::to_string(round) + " requested after round " +
        std::to_string(sim_round_ - 1) +
        ": the combined mode of several GPU types replays only from a checkpoint "
        "(its pool choices come from the solver's shares)");
  while (sim_round_ < round) Tick(sim_round_);
  SubmitDue(round);
  return Status::Ok();
}

double GpuPlacementDomain::ValueCoefficient(int job, int type) const {
  const JobSpec& spec = jobs_[job];
  const double speed = spec.pool_speed.empty() ? 1.0 : spec.pool_speed[type];
  return speed / (spec.gpus * t_equal_[job]);
}

Status GpuPlacementDomain::Refresh(int round, Problem* problem, bool* finished) {
  Status st = AdvanceTo(round);
  if (!st.ok()) return st;
  refreshed_round_ = round;
  // With free slots the deployment waits for submissions (idle rounds) until its stop rule.
  *finished = sim_->Done() && active_.size() == jobs_.size();
  if (*finished) return Status::Ok();
  WriteSubmittedSlots(problem);
  const auto& sj = sim_->jobs();
  const double end = TickEnd(round);
  const int K = static_cast<int>(settings_.types.size());
  for (size_t j = 0; j < jobs_.size(); ++j) {
    // Active in this tick: arrives by its end and has not finished before its start.
    const char a = jobs_[j].arrival_s <= end && !sj[j].finished;
    if (a == active_[j]) continue;
    active_[j] = a;
    for (int k = 0; k < K; ++k) {
      const bool fits = jobs_[j].gpus <= settings_.types[k].shape.TotalGpus();
      problem->SetBounds(Var(k, static_cast<int>(j)), 0, a && fits ? jobs_[j].gpus : 0);
    }
  }
  // An inactive job's slot in the max-min term is a constant that must never be the strict
  // minimum: the smallest ceiling of the active jobs (no allocation lifts the minimum above
  // it) is enough. A much larger constant is as correct but pulls ADMM's global scalar (the
  // mean of the copies) far above the optimum, which slows every round (seen in cluster
  // scheduling at paper scale).
  double ceiling = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < jobs_.size(); ++j) {
    if (!active_[j]) continue;
    double best = 0;
    for (int k = 0; k < K; ++k) {
      if (jobs_[j].gpus <= settings_.types[k].shape.TotalGpus()) {
        best = std::max(best, ValueCoefficient(static_cast<int>(j), k) * jobs_[j].gpus);
      }
    }
    ceiling = std::min(ceiling, best);
  }
  const double constant = std::isfinite(ceiling) && ceiling > 0 ? ceiling : inactive_constant_;
  for (size_t j = 0; j < active_.size(); ++j) {
    problem->SetGlobalConstant(static_cast<int>(j), active_[j] ? 0 : constant);
  }
  return Status::Ok();
}

void GpuPlacementDomain::FillAllocation(const Problem& problem, Allocation* allocation) const {
  allocation->values.assign(problem.num_variables(), 0.0);
  const auto& sj = sim_->jobs();
  for (size_t j = 0; j < sj.size(); ++j)
    if (sj[j].running) allocation->values[Var(sj[j].pool, static_cast<int>(j))] = sj[j].spec.gpus;
}

std::vector<MethodInfo> GpuPlacementDomain::Methods() const {
  return {{"dally",
           "Dally: delay scheduling over machine/rack/network with auto-tuned timers, Nw_sens "
           "priority"},
          {"dally-manual", "Dally with fixed timers (timers.machine, timers.rack; 12 h + 12 h)"},
          {"dally-nowait", "Dally without waiting: best tier free now"},
          {"dally-consolidated", "Dally that waits for the best tier as long as needed"},
          {"tiresias", "Tiresias: discretized 2D-LAS with skew-based consolidation"},
          {"gandiva", "Gandiva: network-agnostic placement with migration"}};
}

Status GpuPlacementDomain::SolveWith(const std::string& method,
                                     int round,
                                     const Problem& problem,
                                     const SolverServices& services,
                                     Allocation* allocation,
                                     SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  Policy p;
  if (!ParseMethod(method, &p)) {
    std::string list;
    for (const MethodInfo& m : Methods()) list += (list.empty() ? "" : ", ") + m.name;
    return InvalidArgument("gpu_placement has no method '" + method + "' (methods: " + list + ")");
  }
  if (p != policy_) {
    if (settings_.types.size() > 1 && sim_round_ > 0)
      return FailedPrecondition("gpu_placement: method '" + method + "' after ticks of '" +
                                MethodName(policy_) + "' with several GPU types");
    ResetSimulation(p);
  }
  Status st = AdvanceTo(round);
  if (!st.ok()) return st;
  // Several GPU types: the pools come from max-min shares computed by the host's ADMM from a cold
  // start (a function of the round's problem only, so a resumed deployment repeats them exactly).
  std::string shares_note;
  int iterations = 0;
  if (settings_.types.size() > 1) {
    if (!services.admm)
      return FailedPrecondition("gpu_placement: several GPU types need the host's ADMM solver");
    Allocation shares;
    SolveSummary s;
    st = services.admm(problem, services.admm_options, &shares, &s);
    if (!st.ok()) return st;
    if (s.termination == Termination::kCancelled) {
      *summary = s;
      return Status::Ok();
    }
    iterations = s.iterations;
    if (s.IsSolutionUsable() && static_cast<int>(shares.values.size()) == problem.num_variables()) {
      UpdateTargets(shares);
      shares_note = "; max-min shares by ADMM (" + std::to_string(s.iterations) + " iterations)";
    } else {
      shares_note =
          "; ADMM shares unusable (" + s.BriefReport() + "): pools of the previous round kept";
    }
  }
  Tick(round);
  ticked_round_ = round;
  FillAllocation(problem, allocation);
  *summary = SolveSummary();
  summary->termination = Termination::kConverged;
  summary->method = method;
  summary->message = "simulated " + std::to_string(settings_.tick_s) + " s with " + method + "; " +
                     std::to_string(sim_->remaining()) + " jobs not finished" + shares_note;
  summary->iterations = iterations;
  summary->total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary->solve_seconds = summary->total_seconds;
  return Status::Ok();
}

// Combined mode: shares (fractions of each job's gang per pool) accumulate in a deficit counter;
// a waiting job is offered in the pool where it is owed the most. One pool: always pool 0.
void GpuPlacementDomain::UpdateTargets(const Allocation& shares) {
  const int K = static_cast<int>(settings_.types.size());
  if (K == 1) return;
  const auto& sj = sim_->jobs();
  std::vector<int> target(sj.size(), 0);
  for (size_t j = 0; j < sj.size(); ++j) {
    const double g = jobs_[j].gpus;
    int best = -1;  // the pool that fits the job where it is owed the most (ties: lower index)
    for (int k = 0; k < K; ++k) {
      const double share = std::clamp(shares.values[Var(k, static_cast<int>(j))] / g, 0.0, 1.0);
      const double held = sj[j].running && sj[j].pool == k ? 1.0 : 0.0;
      if (active_[j]) credit_[j][k] += share - held;
      if (jobs_[j].gpus > settings_.types[k].shape.TotalGpus()) continue;
      if (best < 0 || credit_[j][k] > credit_[j][best]) best = k;
    }
    target[j] = best;  // LoadWorkload guarantees that some pool fits
  }
  sim_->SetTargets(target);
}

Status GpuPlacementDomain::Repair(const Problem& problem, Allocation* allocation) {
  if (ticked_round_ == refreshed_round_) return Status::Ok();  // a plugin method ran the tick
  if (refreshed_round_ != sim_round_)
    return Internal("gpu_placement: Repair without a Refresh of round " +
                    std::to_string(sim_round_));
  if (static_cast<int>(allocation->values.size()) == problem.num_variables())
    UpdateTargets(*allocation);
  Tick(refreshed_round_);
  ticked_round_ = refreshed_round_;
  FillAllocation(problem, allocation);
  return Status::Ok();
}

namespace {
const char* TierName(Tier t) {
  return t == Tier::kMachine ? "machine" : t == Tier::kRack ? "rack" : "network";
}
double Nan() { return std::numeric_limits<double>::quiet_NaN(); }
}  // namespace

Status GpuPlacementDomain::Report(int round,
                                  const Problem& problem,
                                  const Allocation& allocation,
                                  RoundReport* report) {
  (void)problem;
  (void)allocation;
  const double now = TickEnd(round);
  ReportMetrics(now, report);
  ReportJobs(report);
  ReportHistory(report);
  return Status::Ok();
}

// The tick's metrics (jobs by state, utilisation, averages over the finished jobs, placement
// tiers) and the GPU types' entities.
void GpuPlacementDomain::ReportMetrics(double now, RoundReport* report) {
  const auto& sj = sim_->jobs();
  const int K = static_cast<int>(settings_.types.size());
  // Metrics of the tick.
  int running = 0, queued = 0, finished = 0, arrived = 0, tiers[3] = {0, 0, 0};
  double slowdown = 0, jct = 0, queueing = 0, comm = 0, makespan = 0;
  for (const SimJob& j : sj) {
    arrived += j.arrived;
    if (j.finished) {
      ++finished;
      jct += j.res.end_s - j.res.arrival_s;
      queueing += j.res.queueing_s;
      comm += j.res.running_s - j.ideal_runtime_s;
      makespan = std::max(makespan, j.res.end_s - origin_s_);
    } else if (j.running) {
      ++running;
      const Tier t = PlacementTier(j.placement, sim_->shape(j.pool));
      ++tiers[static_cast<int>(t)];
      slowdown += 1 + (j.spec.gpus == 1 ? 0 : j.spec.overhead.At(t));
    } else if (j.arrived) {
      ++queued;
    }
  }
  const double busy = sim_->BusyGpuSecondsAt(std::max(now, sim_->now()));
  const double span = now - reported_time_s_;
  const double tick_util =
      span > 0 ? (busy - reported_busy_gpu_s_) / (sim_->TotalGpus() * span) : 0;
  reported_busy_gpu_s_ = busy;
  reported_time_s_ = now;
  const double nf = std::max(1, finished);
  report->metrics = {{"sim_time_h", now / kHour},
                     {"makespan_h", makespan / kHour},
                     {"finished_jobs", static_cast<double>(finished)},
                     {"running_jobs", static_cast<double>(running)},
                     {"queued_jobs", static_cast<double>(queued)},
                     {"arrived_jobs", static_cast<double>(arrived)},
                     {"trace_jobs_skipped", static_cast<double>(settings_.trace_jobs_skipped)},
                     {"trace_zero_work_jobs", static_cast<double>(settings_.trace_zero_work_jobs)},
                     {"gpu_utilization", tick_util},
                     {"gpus_held", static_cast<double>(sim_->UsedGpus())},
                     {"jct_avg_h", finished ? jct / nf / kHour : 0},
                     {"queueing_avg_h", finished ? queueing / nf / kHour : 0},
                     {"comm_avg_h", finished ? comm / nf / kHour : 0},
                     {"running_slowdown_avg", running ? slowdown / running : 0},
                     {"running_machine_tier", static_cast<double>(tiers[0])},
                     {"running_rack_tier", static_cast<double>(tiers[1])},
                     {"running_network_tier", static_cast<double>(tiers[2])}};
  for (int k = 0; k < K; ++k)
    report->entities.push_back(
        {Side::kResource,
         k,
         settings_.types[k].name,
         {{"capacity", static_cast<double>(settings_.types[k].shape.TotalGpus())},
          {"racks", static_cast<double>(settings_.types[k].shape.racks)}}});
}

// The active jobs' entities, and a job record (and a placement record when the placement
// changed) for every job whose state or placement changed in the tick.
void GpuPlacementDomain::ReportJobs(RoundReport* report) {
  const auto& sj = sim_->jobs();
  // Jobs whose state or placement changed in the tick: a job record and a placement record.
  for (size_t i = 0; i < sj.size(); ++i) {
    const SimJob& j = sj[i];
    if (active_[i])
      report->entities.push_back({Side::kDemand,
                                  static_cast<int>(i),
                                  "job" + std::to_string(j.spec.id),
                                  {{"gpus", static_cast<double>(j.spec.gpus)},
                                   {"arrival_s", j.spec.arrival_s},
                                   {"progress", j.work > 0 ? j.done / j.work : 0}}});
    const char* state = j.finished  ? "finished"
                        : j.running ? "running"
                        : j.arrived ? "queued"
                                    : "pending";
    std::ostringstream where;
    for (const auto& [m, n] : j.placement) {
      const ClusterShape& c = sim_->shape(j.pool);
      where << (where.tellp() > 0 ? " " : "") << "r" << m / c.machines_per_rack << "m"
            << m % c.machines_per_rack << ":" << n;
    }
    std::string sig = std::string(state) + "|" + std::to_string(j.pool) + "|" + where.str() + "|" +
                      std::to_string(j.res.allocs[0] + j.res.allocs[1] + j.res.allocs[2]);
    if (sig == job_signature_[i]) continue;
    const bool placement_changed = job_signature_[i].empty() ? j.running : true;
    job_signature_[i] = sig;
    const std::string key = "job" + std::to_string(j.spec.id);
    std::string tier = "";
    if (j.running) tier = TierName(PlacementTier(j.placement, sim_->shape(j.pool)));
    DomainRecord r;
    r.kind = "job";
    r.key = key;
    r.values = {{"id", static_cast<double>(j.spec.id)},
                {"gpus", static_cast<double>(j.spec.gpus)},
                {"arrival_s", j.spec.arrival_s},
                {"start_s", j.res.first_start_s >= 0 ? j.res.first_start_s : Nan()},
                {"completion_s", j.finished ? j.res.end_s : Nan()},
                {"jct_s", j.finished ? j.res.end_s - j.res.arrival_s : Nan()},
                {"queueing_s", j.res.queueing_s},
                {"running_s", j.res.running_s},
                {"ideal_runtime_s", j.ideal_runtime_s},
                {"progress", j.work > 0 ? j.done / j.work : 0},
                {"machine_allocs", static_cast<double>(j.res.allocs[0])},
                {"rack_allocs", static_cast<double>(j.res.allocs[1])},
                {"network_allocs", static_cast<double>(j.res.allocs[2])},
                {"migrations", static_cast<double>(j.res.migrations)}};
    r.labels = {{"state", state}, {"model", j.spec.model}, {"tier", tier}};
    report->records.push_back(std::move(r));
    if (placement_changed) {
      DomainRecord p;
      p.kind = "placement";
      p.key = key;
      std::vector<int> racks;
      for (const auto& [m, n] : j.placement)
        racks.push_back(m / sim_->shape(j.pool).machines_per_rack);
      std::sort(racks.begin(), racks.end());
      racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
      p.values = {{"gpus", j.running ? static_cast<double>(j.spec.gpus) : 0.0},
                  {"machine_count", static_cast<double>(j.placement.size())},
                  {"rack_count", static_cast<double>(racks.size())},
                  {"lease_end_s", j.running ? j.lease_end : Nan()}};
      p.labels = {{"gpu_type", j.running ? settings_.types[j.pool].name : ""},
                  {"tier", tier},
                  {"machines", where.str()}};
      report->records.push_back(std::move(p));
    }
  }
}

// The wait-time samples recorded in the tick, and (under Dally) the timers that changed, per
// GPU type, tier and demand.
void GpuPlacementDomain::ReportHistory(RoundReport* report) {
  const int K = static_cast<int>(settings_.types.size());
  // Wait-time samples recorded in the tick, and timer values that changed, per (tier, demand).
  std::vector<int> demands;
  for (const JobSpec& j : jobs_) demands.push_back(j.gpus);
  std::sort(demands.begin(), demands.end());
  demands.erase(std::unique(demands.begin(), demands.end()), demands.end());
  for (int k = 0; k < K; ++k) {
    const std::string prefix = K > 1 ? settings_.types[k].name + "/" : "";
    for (const auto& [key, samples] : sim_->history(k).samples()) {
      size_t& seen = reported_samples_[k][key];
      for (; seen < samples.size(); ++seen) {
        DomainRecord r;
        r.kind = "wait_sample";
        r.key = prefix + TierName(static_cast<Tier>(key.first)) + "/" + std::to_string(key.second) +
                "/" + std::to_string(seen);
        r.values = {{"gpus", static_cast<double>(key.second)},
                    {"recorded_at_s", samples[seen].first},
                    {"wait_leases", samples[seen].second},
                    {"wait_s", samples[seen].second * settings_.sim.lease_s}};
        r.labels = {{"tier", TierName(static_cast<Tier>(key.first))}};
        report->records.push_back(std::move(r));
      }
    }
    const bool dally = policy_ == Policy::kDally || policy_ == Policy::kDallyManual ||
                       policy_ == Policy::kDallyNoWait ||
                       policy_ == Policy::kDallyFullyConsolidated;
    if (!dally) continue;
    for (int g : demands) {
      const Timers t = sim_->CurrentTimers(k, g);
      const std::string key = prefix + std::to_string(g);
      auto it = reported_timers_.find(key);
      if (it != reported_timers_.end() && it->second == std::make_pair(t.machine_s, t.rack_s))
        continue;
      reported_timers_[key] = {t.machine_s, t.rack_s};
      const double window = settings_.sim.history_leases * settings_.sim.lease_s;
      DomainRecord r;
      r.kind = "timer";
      r.key = key;
      r.values = {
          {"gpus", static_cast<double>(g)},
          {"machine_timer_s", t.machine_s},
          {"rack_timer_s", t.rack_s},
          {"machine_samples", static_cast<double>(sim_->history(k).Size(Tier::kMachine, g))},
          {"rack_samples", static_cast<double>(sim_->history(k).Size(Tier::kRack, g))},
          {"machine_value_leases",
           sim_->history(k).Value(Tier::kMachine, g, sim_->now(), window, settings_.sim.sample_sd)},
          {"rack_value_leases",
           sim_->history(k).Value(Tier::kRack, g, sim_->now(), window, settings_.sim.sample_sd)}};
      r.labels = {{"policy", MethodName(policy_)}, {"gpu_type", settings_.types[k].name}};
      report->records.push_back(std::move(r));
    }
  }
}

Status GpuPlacementDomain::SaveState(int round, std::string* state) {
  // A solver that returned no allocation skips Repair: the round's tick still happens (with
  // the pools chosen before), so the saved state is the state after `round` in every case.
  if (refreshed_round_ == round && ticked_round_ != round && sim_round_ == round) {
    Tick(round);
    ticked_round_ = round;
  }
  if (round + 1 != sim_round_)
    return Internal("gpu_placement: SaveState for round " + std::to_string(round) + " but " +
                    std::to_string(sim_round_) + " ticks simulated");
  if (settings_.checkpoint_every == 0 || (round + 1) % settings_.checkpoint_every != 0) {
    // No checkpoint this round: only the policy, so a resume replays from round 0 with it.
    *state = std::string("gpu_placement-replay ") + MethodName(policy_) + "\n";
    return Status::Ok();
  }
  std::ostringstream out;
  char buf[64];
  out << "gpu_placement-v1 " << MethodName(policy_) << " " << sim_round_ << " " << credit_.size()
      << " " << settings_.types.size();
  for (const auto& c : credit_)
    for (double v : c) {
      const auto r = std::to_chars(buf, buf + sizeof(buf), v);
      out << ' ' << std::string_view(buf, r.ptr - buf);
    }
  out << "\n" << sim_->Save();
  *state = out.str();
  return Status::Ok();
}

Status GpuPlacementDomain::RestoreState(int last_round, const std::string& state) {
  if (state.empty()) return Status::Ok();  // nothing saved: Refresh replays
  std::istringstream in(state);
  std::string magic, method, line;
  int ticks = -1;
  size_t jobs = 0, types = 0;
  in >> magic >> method >> ticks >> jobs >> types;
  Policy p;
  if (magic == "gpu_placement-replay" && ParseMethod(method, &p) && settings_.types.size() == 1) {
    ResetSimulation(
        p);  // the next Refresh replays rounds 0..last_round with the deployment's policy
    return Status::Ok();
  }
  if (magic != "gpu_placement-v1" || !ParseMethod(method, &p) || ticks != last_round + 1 ||
      jobs != active_.size() || types != settings_.types.size())
    return FailedPrecondition("gpu_placement: the checkpoint of round " +
                              std::to_string(last_round) +
                              " does not match this deployment's workload and cluster");
  ResetSimulation(p);
  SubmitDue(last_round);  // the replayed submissions, so the state's job list matches
  for (auto& c : credit_)
    for (double& v : c) {
      std::string t;
      in >> t;
      if (!ParseDouble(t, &v))
        return FailedPrecondition("gpu_placement: the checkpoint of round " +
                                  std::to_string(last_round) + " has a malformed share credit '" +
                                  t + "'");
    }
  std::getline(in, line);
  const std::string rest(std::istreambuf_iterator<char>(in), {});
  std::string error;
  if (!sim_->Load(rest, &error))
    return FailedPrecondition("gpu_placement: round " + std::to_string(last_round) + ": " + error);
  sim_round_ = ticks;
  // Records continue from the restored state: everything up to it was reported before the stop.
  ResetReportBaseline();
  for (int k = 0; k < static_cast<int>(settings_.types.size()); ++k)
    for (const auto& [key, samples] : sim_->history(k).samples())
      reported_samples_[k][key] = samples.size();
  RoundReport scratch;
  const int saved_round = refreshed_round_;
  Status st = Report(last_round, Problem(0, 0), Allocation(), &scratch);
  refreshed_round_ = saved_round;
  return st;
}

}  // namespace dede::gpu
