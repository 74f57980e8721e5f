// gpu_placement settings and workload: plugin.settings parsed and checked (every error names
// file:line:column, key and value), the jobs loaded from a trace or generated, method names.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_domain.h"

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
                        "gandiva",
                        "event_job_slots"});
  if (!st.ok()) return st;
  st.Update(settings.Read("tick_s", &s.tick_s, 1e-3, 1e9));
  st.Update(settings.Read("event_job_slots", &s.event_job_slots, 0, 1 << 20));
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
  std::string arrivals, work_model = "artist_linear";
  st.Update(w.ReadChoice("arrivals", {"batch", "poisson", "trace"}, &arrivals));
  st.Update(w.Read("jobs_per_day", &s.jobs_per_day, 1e-6, 1e9));
  int seed = -1;
  st.Update(w.Read("seed", &seed, 0, std::numeric_limits<int>::max()));
  if (seed >= 0) s.workload_seed = static_cast<uint64_t>(seed);
  st.Update(w.ReadChoice("work_model", {"artist_linear", "trace_runtime"}, &work_model));
  // batch: every job at time 0; poisson: generated (synthetic); trace: the trace's own times
  // (the default with a trace), as dally_bench --arrivals.
  if (arrivals.empty()) arrivals = s.source == "synthetic" ? "batch" : "trace";
  s.poisson = arrivals == "poisson";
  s.trace_batch = s.source != "synthetic" && arrivals == "batch";
  if (st.ok() && s.source == "synthetic" && arrivals == "trace")
    return Bad(*w.Find("arrivals"), "'trace' arrivals need a trace (workload.source)");
  if (st.ok() && s.source != "synthetic" && arrivals == "poisson")
    return Bad(*w.Find("arrivals"),
               "'poisson' generates arrivals for the synthetic workload; a trace has its own "
               "(trace) or all at time 0 (batch)");
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
    // A converted dally_csv trace records the work model its times were written for: a
    // different workload.work_model is refused, none set takes the trace's.
    if (st.ok() && s.source == "dally_csv") {
      std::string note, error;
      const ConfigNode* wm = w.Find("work_model");
      if (!ResolveWorkModel(s.trace,
                            s.sim.work_model,
                            wm != nullptr,
                            wm != nullptr ? wm->Where() + ": " + wm->path() : std::string(),
                            &s.sim.work_model,
                            &note,
                            &error))
        return InvalidArgument(error);
    }
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

Status CompleteJob(const DomainSettings& s,
                   const std::string& where,
                   bool keep_trace_overheads,
                   JobSpec* job) {
  JobSpec& j = *job;
  bool known = false;
  const Overhead ov = ResolveOverhead(j.model, s, &known);
  // dally_csv jobs of models outside the table keep the overheads of their slowdown columns.
  if (known || !keep_trace_overheads) j.overhead = ov;
  if (j.gpus < 1 || !(j.iterations > 0) || !(j.time_per_iteration_s > 0) || !(j.arrival_s >= 0))
    return InvalidArgument(where + ": job " + std::to_string(j.id) + " has gpus " +
                           std::to_string(j.gpus) +
                           ", iterations, time per iteration or arrival out of range");
  int largest_pool = 0;
  for (const GpuType& t : s.types) largest_pool = std::max(largest_pool, t.shape.TotalGpus());
  if (j.gpus > largest_pool)
    return InvalidArgument(where + ": job " + std::to_string(j.id) + " needs " +
                           std::to_string(j.gpus) + " GPUs, more than the largest GPU pool (" +
                           std::to_string(largest_pool) + ")");
  j.pool_speed.clear();
  if (s.types.size() > 1) {
    for (const GpuType& t : s.types) {
      auto it = t.model_speed.find(j.model);
      j.pool_speed.push_back(it != t.model_speed.end() ? it->second : t.speed);
    }
  }
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
                             (zero_work_jobs > 0
                                  ? " with work (" + std::to_string(zero_work_jobs) + " without)"
                                  : std::string()));
    if (s.trace_batch)
      for (JobSpec& j : jobs) j.arrival_s = 0;  // workload.arrivals: batch
    if (s.jobs > 0 && static_cast<int>(jobs.size()) > s.jobs) {
      trace_jobs_skipped = static_cast<int>(jobs.size()) - s.jobs;  // reported every round
      jobs.resize(s.jobs);
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.id < b.id;
  });
  const std::string where = s.trace.empty() ? std::string("workload") : s.trace;
  for (JobSpec& j : jobs) {
    Status st = CompleteJob(s, where, /*keep_trace_overheads=*/s.source == "dally_csv", &j);
    if (!st.ok()) return st;
  }
  std::vector<int> ids;
  for (const JobSpec& j : jobs) ids.push_back(j.id);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    return InvalidArgument(where + ": duplicate job id " +
                           std::to_string(*std::adjacent_find(ids.begin(), ids.end())));
  if (skipped != nullptr) *skipped = trace_jobs_skipped;
  if (zero_work != nullptr) *zero_work = zero_work_jobs;
  return jobs;
}

}  // namespace dede::gpu
