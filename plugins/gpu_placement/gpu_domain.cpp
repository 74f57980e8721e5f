// gpu_placement domain: settings, workload, problem description, ticks, records, checkpoints.
#include "gpu_domain.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string_view>

namespace dede::gpu {
namespace {

constexpr double kHour = 3600.0;

const ConfigNode& Section(const ConfigNode& parent, const char* key) {
  static const ConfigNode kEmpty;
  const ConfigNode* n = parent.Find(key);
  return n == nullptr ? kEmpty : *n;
}

Status Bad(const ConfigNode& node, const std::string& why) {
  std::string value = node.IsScalar() ? " = '" + node.scalar() + "'" : "";
  return InvalidArgument(node.Where() + ": " + node.path() + value + ": " + why);
}

Status CheckMap(const ConfigNode& node, const std::vector<std::string>& keys) {
  if (node.IsNull()) return Status::Ok();
  if (!node.IsMap()) return Bad(node, "expected a map");
  return node.CheckKeys(keys);
}

Status ReadShape(const ConfigNode& n, ClusterShape* c) {
  Status st = CheckMap(
      n, {"racks", "machines_per_rack", "gpus_per_machine", "name", "speed", "model_speed"});
  st.Update(n.Read("racks", &c->racks, 1, 4096));
  st.Update(n.Read("machines_per_rack", &c->machines_per_rack, 1, 4096));
  st.Update(n.Read("gpus_per_machine", &c->gpus_per_machine, 1, 1024));
  return st;
}

Status ReadOverhead(const ConfigNode& n, Overhead* o) {
  if (!n.IsMap())
    return Bad(n, "expected a map {machine, rack, network} of fractions of compute time");
  Status st = n.CheckKeys({"machine", "rack", "network"});
  for (const char* k : {"machine", "rack", "network"})
    if (st.ok() && !n.Has(k))
      st = InvalidArgument(n.Where() + ": " + n.path() + ": missing key '" + k + "'");
  st.Update(n.Read("machine", &o->machine, 0, 1e6));
  st.Update(n.Read("rack", &o->rack, 0, 1e6));
  st.Update(n.Read("network", &o->network, 0, 1e6));
  return st;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Model name of a trace -> overhead row: exact, case-insensitive, then model family (the
// Tiresias sample writes vgg16, resnet101, ...); otherwise the default row.
Overhead ResolveOverhead(const std::string& model, const DomainSettings& s, bool* known) {
  *known = true;
  if (auto it = s.overheads.find(model); it != s.overheads.end()) return it->second;
  const std::string m = Lower(model);
  for (const auto& [name, ov] : s.overheads)
    if (Lower(name) == m) return ov;
  auto family = [&](const char* name) -> const Overhead* {
    auto it = s.overheads.find(name);
    return it == s.overheads.end() ? nullptr : &it->second;
  };
  const Overhead* f = nullptr;
  if (m.rfind("vgg", 0) == 0)
    f = family("VGG");
  else if (m.rfind("resnet", 0) == 0 && m != "resnet18")
    f = family("ResNet50");
  else if (m.rfind("bert", 0) == 0)
    f = family("BERT");
  if (f != nullptr) return *f;
  *known = false;
  return s.default_overhead;
}

}  // namespace

const char* MethodName(Policy p) {
  switch (p) {
    case Policy::kDally:
      return "dally";
    case Policy::kDallyManual:
      return "dally-manual";
    case Policy::kDallyNoWait:
      return "dally-nowait";
    case Policy::kDallyFullyConsolidated:
      return "dally-consolidated";
    case Policy::kTiresias:
      return "tiresias";
    case Policy::kGandiva:
      return "gandiva";
  }
  return "?";
}

bool ParseMethod(const std::string& name, Policy* p) {
  for (Policy q : {Policy::kDally,
                   Policy::kDallyManual,
                   Policy::kDallyNoWait,
                   Policy::kDallyFullyConsolidated,
                   Policy::kTiresias,
                   Policy::kGandiva})
    if (name == MethodName(q)) {
      *p = q;
      return true;
    }
  return false;
}

Status ParseSettings(const ConfigNode& settings,
                     const PluginContext& context,
                     DomainSettings* out) {
  DomainSettings s;
  s.workload_seed = context.seed;
  s.sim.seed = context.seed;
  s.sim.record_utilization_timeline = false;
  Status st = CheckMap(settings,
                       {"tick_s",
                        "checkpoint_every",
                        "policy",
                        "never_run_priority",
                        "cluster",
                        "gpu_types",
                        "workload",
                        "overheads",
                        "timers",
                        "auto_tuner",
                        "lease_s",
                        "preemption",
                        "tiresias",
                        "gandiva"});
  if (!st.ok()) return st;
  st.Update(settings.Read("tick_s", &s.tick_s, 1e-3, 1e9));
  st.Update(settings.Read("checkpoint_every", &s.checkpoint_every, 0, 1 << 30));
  std::string policy = "dally";
  st.Update(settings.ReadChoice(
      "policy",
      {"dally", "dally-manual", "dally-nowait", "dally-consolidated", "tiresias", "gandiva"},
      &policy));
  ParseMethod(policy, &s.policy);
  std::string never_run = "last";
  st.Update(settings.ReadChoice("never_run_priority", {"first", "last"}, &never_run));
  s.sim.never_run_first = never_run == "first";
  // Cluster: one type (cluster) or several (gpu_types), not both.
  const ConfigNode* cluster = settings.Find("cluster");
  const ConfigNode* types = settings.Find("gpu_types");
  if (cluster != nullptr && types != nullptr)
    return Bad(*types, "give either plugin.settings.cluster (one GPU type) or gpu_types, not both");
  if (cluster != nullptr) {
    st.Update(CheckMap(*cluster, {"racks", "machines_per_rack", "gpus_per_machine"}));
    st.Update(ReadShape(*cluster, &s.types[0].shape));
  }
  if (types != nullptr) {
    if (!types->IsList() || types->items().empty())
      return Bad(*types, "expected a non-empty list of GPU types");
    s.types.clear();
    for (const ConfigNode& t : types->items()) {
      GpuType g;
      g.name = "type" + std::to_string(s.types.size());
      st.Update(ReadShape(t, &g.shape));
      st.Update(t.Read("name", &g.name));
      st.Update(t.Read("speed", &g.speed, 1e-6, 1e6));
      const ConfigNode& ms = Section(t, "model_speed");
      if (!ms.IsNull() && !ms.IsMap()) return Bad(ms, "expected a map model -> speed");
      for (const auto& [model, v] : ms.entries()) {
        double x = 1;
        st.Update(ms.Read(model, &x, 1e-6, 1e6));
        g.model_speed[model] = x;
      }
      for (const GpuType& other : s.types)
        if (other.name == g.name) return Bad(t, "duplicate GPU type name '" + g.name + "'");
      s.types.push_back(g);
    }
  }
  // Workload.
  const ConfigNode& w = Section(settings, "workload");
  st.Update(
      CheckMap(w, {"source", "trace", "jobs", "arrivals", "jobs_per_day", "seed", "work_model"}));
  st.Update(w.ReadChoice("source", {"synthetic", "dally_csv", "tiresias_csv"}, &s.source));
  st.Update(w.Read("jobs", &s.jobs, 0, 1 << 20));
  std::string arrivals = "batch", work_model = "artist_linear";
  st.Update(w.ReadChoice("arrivals", {"batch", "poisson"}, &arrivals));
  st.Update(w.Read("jobs_per_day", &s.jobs_per_day, 1e-6, 1e9));
  int seed = -1;
  st.Update(w.Read("seed", &seed, 0, std::numeric_limits<int>::max()));
  if (seed >= 0) s.workload_seed = static_cast<uint64_t>(seed);
  st.Update(w.ReadChoice("work_model", {"artist_linear", "trace_runtime"}, &work_model));
  s.poisson = arrivals == "poisson";
  s.sim.work_model =
      work_model == "artist_linear" ? WorkModel::kArtistLinear : WorkModel::kTraceRuntime;
  if (!st.ok()) return st;
  if (s.source == "synthetic") {
    if (w.Has("trace"))
      return Bad(*w.Find("trace"), "a trace file needs workload.source dally_csv or tiresias_csv");
    if (s.jobs < 1) return Bad(*w.Find("jobs"), "the synthetic generator needs at least 1 job");
  } else {
    // A trace is replayed whole unless workload.jobs says otherwise (the synthetic default of
    // 100 silently cut a 344-job trace).
    if (!w.Has("jobs")) s.jobs = 0;
    if (!w.Has("trace"))
      return InvalidArgument(w.Where() + ": " + w.path() +
                             ".trace is required with source: " + s.source);
    st.Update(w.Read("trace", &s.trace));
    if (!s.trace.empty() && s.trace.front() != '/' && !context.config_dir.empty())
      s.trace = context.config_dir + "/" + s.trace;
  }
  // Overheads: Table I, overridden or extended per model; `default` for unknown models.
  const ConfigNode& ov = Section(settings, "overheads");
  if (!ov.IsNull() && !ov.IsMap())
    return Bad(ov, "expected a map model -> {machine, rack, network}");
  for (const auto& [model, node] : ov.entries()) {
    Overhead o;
    st.Update(ReadOverhead(node, &o));
    if (model == "default")
      s.default_overhead = o;
    else
      s.overheads[model] = o;
  }
  // Timers (manual variant); the paper's "12 h for machine and another 12 h".
  const ConfigNode& tm = Section(settings, "timers");
  st.Update(CheckMap(
      tm, {"units", "machine", "rack", "rack_mode", "large_job_rack_wait", "starvation_clock"}));
  std::string units = "hours", rack_mode = "additional", large = "cumulative",
              clock = "queue_entry";
  st.Update(tm.ReadChoice("starvation_clock", {"queue_entry", "last_assignment"}, &clock));
  s.sim.starvation_since_assignment = clock == "last_assignment";
  double machine = 12, rack = 12;
  st.Update(tm.ReadChoice("units", {"hours", "leases", "seconds"}, &units));
  st.Update(tm.Read("machine", &machine, 0, 1e12));
  st.Update(tm.Read("rack", &rack, 0, 1e12));
  st.Update(tm.ReadChoice("rack_mode", {"additional", "cumulative"}, &rack_mode));
  st.Update(tm.ReadChoice("large_job_rack_wait", {"cumulative", "rack_only"}, &large));
  // Lease and preemption.
  st.Update(settings.Read("lease_s", &s.sim.lease_s, 1e-3, 1e12));
  std::string preemption = "leases";
  st.Update(settings.ReadChoice("preemption", {"leases", "none"}, &preemption));
  s.sim.lease_expiry = preemption == "leases";
  const double unit = units == "hours" ? kHour : units == "leases" ? s.sim.lease_s : 1.0;
  s.sim.manual_machine_timer_s = machine * unit;
  s.sim.manual_rack_timer_s = (rack_mode == "additional" ? machine + rack : rack) * unit;
  if (s.sim.manual_rack_timer_s < s.sim.manual_machine_timer_s && tm.Has("rack"))
    return Bad(*tm.Find("rack"),
               "with rack_mode: cumulative the rack timer must be >= the machine timer");
  s.sim.large_job_cumulative_rack_wait = large == "cumulative";
  // Auto-tuner (Algorithm 2): window and clamps in leases.
  const ConfigNode& at = Section(settings, "auto_tuner");
  st.Update(CheckMap(at,
                     {"history_leases",
                      "machine_floor_leases",
                      "rack_floor_leases",
                      "sd",
                      "enforce_rack_ge_machine"}));
  st.Update(at.Read("history_leases", &s.sim.history_leases, 0, 1e9));
  st.Update(at.Read("machine_floor_leases", &s.sim.machine_floor_leases, 0, 1e9));
  st.Update(at.Read("rack_floor_leases", &s.sim.rack_floor_leases, 0, 1e9));
  std::string sd = "sample";
  st.Update(at.ReadChoice("sd", {"sample", "population"}, &sd));
  s.sim.sample_sd = sd == "sample";
  st.Update(at.Read("enforce_rack_ge_machine", &s.sim.enforce_rack_ge_machine));
  // Baselines.
  const ConfigNode& ti = Section(settings, "tiresias");
  st.Update(CheckMap(
      ti, {"priority", "queue_limits_gpu_s", "low_skew_placement", "high_skew_placement"}));
  std::string prio = "discretized", low = "any_offer", high = "fewest_machines";
  st.Update(ti.ReadChoice("priority", {"discretized", "continuous"}, &prio));
  st.Update(ti.ReadChoice("low_skew_placement", {"any_offer", "best_tier"}, &low));
  st.Update(ti.ReadChoice("high_skew_placement", {"fewest_machines", "machine_or_rack"}, &high));
  s.sim.tiresias_continuous_las = prio == "continuous";
  s.sim.tiresias_any_offer = low == "any_offer";
  s.sim.tiresias_fewest_machines = high == "fewest_machines";
  if (const ConfigNode* q = ti.Find("queue_limits_gpu_s")) {
    if (!q->IsList()) return Bad(*q, "expected a list of increasing GPU-second thresholds");
    s.sim.tiresias_queue_limits_gpu_s.clear();
    for (const ConfigNode& item : q->items()) {
      Result<double> v = item.AsDouble();
      if (!v.ok()) return v.status();
      if (!(v.value() > 0) || (!s.sim.tiresias_queue_limits_gpu_s.empty() &&
                               v.value() <= s.sim.tiresias_queue_limits_gpu_s.back()))
        return Bad(item, "queue limits must be positive and increasing");
      s.sim.tiresias_queue_limits_gpu_s.push_back(v.value());
    }
  }
  const ConfigNode& ga = Section(settings, "gandiva");
  st.Update(CheckMap(ga, {"migration_cost_s"}));
  st.Update(ga.Read("migration_cost_s", &s.sim.gandiva_migration_cost_s, 0, 1e12));
  if (!st.ok()) return st;
  if (s.types.size() > 1) s.checkpoint_every = 1;
  s.sim.cluster = s.types[0].shape;
  s.sim.pools.clear();
  for (const GpuType& t : s.types) s.sim.pools.push_back(t.shape);
  *out = std::move(s);
  return Status::Ok();
}

Result<std::vector<JobSpec>> LoadWorkload(const DomainSettings& s, int* skipped, int* zero_work) {
  int trace_jobs_skipped = 0, zero_work_jobs = 0;
  std::vector<JobSpec> jobs;
  std::string error;
  if (s.source == "synthetic") {
    jobs = GenerateWorkload(s.jobs, s.poisson, s.jobs_per_day, s.workload_seed);
  } else {
    try {
      jobs = s.source == "dally_csv" ? LoadDallyCsv(s.trace, &error)
                                     : LoadTiresiasCsv(s.trace, s.sim.work_model, &error);
    } catch (const std::exception& e) {
      error = s.trace + ": malformed number (" + e.what() + ")";
    }
    if (!error.empty()) return InvalidArgument("plugin.settings.workload.trace: " + error);
    zero_work_jobs = DropZeroWorkJobs(&jobs);  // reported every round
    if (jobs.empty())
      return InvalidArgument("plugin.settings.workload.trace: " + s.trace + " has no jobs" +
                             (zero_work_jobs > 0 ? " with work (" + std::to_string(zero_work_jobs) +
                                                       " without)"
                                                 : std::string()));
    if (s.jobs > 0 && static_cast<int>(jobs.size()) > s.jobs) {
      trace_jobs_skipped = static_cast<int>(jobs.size()) - s.jobs;  // reported every round
      jobs.resize(s.jobs);
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.id < b.id;
  });
  int largest_pool = 0;
  for (const GpuType& t : s.types) largest_pool = std::max(largest_pool, t.shape.TotalGpus());
  for (JobSpec& j : jobs) {
    bool known = false;
    const Overhead ov = ResolveOverhead(j.model, s, &known);
    // dally_csv jobs of models outside the table keep the overheads of their slowdown columns.
    if (known || s.source != "dally_csv") j.overhead = ov;
    if (j.gpus < 1 || !(j.iterations > 0) || !(j.time_per_iteration_s > 0) || !(j.arrival_s >= 0))
      return InvalidArgument((s.trace.empty() ? std::string("workload") : s.trace) + ": job " +
                             std::to_string(j.id) + " has gpus " + std::to_string(j.gpus) +
                             ", iterations, time per iteration or arrival out of range");
    if (j.gpus > largest_pool)
      return InvalidArgument((s.trace.empty() ? std::string("workload") : s.trace) + ": job " +
                             std::to_string(j.id) + " needs " + std::to_string(j.gpus) +
                             " GPUs, more than the largest GPU pool (" +
                             std::to_string(largest_pool) + ")");
    if (s.types.size() > 1) {
      for (const GpuType& t : s.types) {
        auto it = t.model_speed.find(j.model);
        j.pool_speed.push_back(it != t.model_speed.end() ? it->second : t.speed);
      }
    }
  }
  std::vector<int> ids;
  for (const JobSpec& j : jobs) ids.push_back(j.id);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    return InvalidArgument((s.trace.empty() ? std::string("workload") : s.trace) +
                           ": duplicate job id " +
                           std::to_string(*std::adjacent_find(ids.begin(), ids.end())));
  if (skipped != nullptr) *skipped = trace_jobs_skipped;
  if (zero_work != nullptr) *zero_work = zero_work_jobs;
  return jobs;
}

// ---- plugin ---------------------------------------------------------------------------------

Status GpuPlacementDomain::Configure(const ConfigNode& settings, const PluginContext& context) {
  Status st = ParseSettings(settings, context, &settings_);
  if (!st.ok()) return st;
  Result<std::vector<JobSpec>> jobs =
      LoadWorkload(settings_, &settings_.trace_jobs_skipped, &settings_.trace_zero_work_jobs);
  if (!jobs.ok()) return jobs.status();
  jobs_ = std::move(jobs.value());
  origin_s_ = jobs_.front().arrival_s;
  policy_ = settings_.policy;
  return Status::Ok();
}

Status GpuPlacementDomain::Describe(Problem* problem) {
  const int K = static_cast<int>(settings_.types.size());
  const int J = static_cast<int>(jobs_.size());
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
  for (int j = 0; j < J; ++j) {
    const JobSpec& job = jobs_[j];
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
      largest = std::max(largest, coef * job.gpus);
    }
    problem->AddDemandConstraint(j, column, Sense::kLessEqual, job.gpus);
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
  ResetSimulation(policy_);
  return Status::Ok();
}

void GpuPlacementDomain::ResetSimulation(Policy policy) {
  policy_ = policy;
  SimOptions o = settings_.sim;
  o.policy = policy;
  sim_ = std::make_unique<Simulation>(jobs_, o);
  sim_round_ = 0;
  credit_.assign(jobs_.size(), std::vector<double>(settings_.types.size(), 0.0));
  ResetReportBaseline();
}

void GpuPlacementDomain::ResetReportBaseline() {
  job_signature_.assign(jobs_.size(), std::string());
  reported_samples_.assign(settings_.types.size(), {});
  reported_timers_.clear();
  reported_time_s_ = sim_round_ == 0 ? origin_s_ : TickEnd(sim_round_ - 1);
  reported_busy_gpu_s_ = sim_->BusyGpuSecondsAt(std::max(reported_time_s_, sim_->now()));
}

void GpuPlacementDomain::Tick(int round) {
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
  *finished = sim_->Done();
  if (*finished) return Status::Ok();
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
  for (size_t j = 0; j < jobs_.size(); ++j) {
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
  std::vector<int> target(jobs_.size(), 0);
  for (size_t j = 0; j < jobs_.size(); ++j) {
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
  return Status::Ok();
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
      jobs != jobs_.size() || types != settings_.types.size())
    return FailedPrecondition("gpu_placement: the checkpoint of round " +
                              std::to_string(last_round) +
                              " does not match this deployment's workload and cluster");
  ResetSimulation(p);
  for (auto& c : credit_)
    for (double& v : c) {
      std::string t;
      in >> t;
      if (std::from_chars(t.data(), t.data() + t.size(), v).ec != std::errc())
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
