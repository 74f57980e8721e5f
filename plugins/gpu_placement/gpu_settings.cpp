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

// Bounds and key names of every section are checked by the host against SettingsTableOf();
// what is read here is what the table does not say: shapes into structs, per-model tables.
Status ReadShape(const ConfigNode& n, ClusterShape* c) {
  Status st = n.Read("racks", &c->racks);
  st.Update(n.Read("machines_per_rack", &c->machines_per_rack));
  st.Update(n.Read("gpus_per_machine", &c->gpus_per_machine));
  return st;
}

// overheads.<model>: a map {machine, rack, network} of fractions of compute time (the model
// names are data, so the table declares `overheads` a map and this checks each entry).
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

namespace {

SettingSpec ShapeKey(const char* name, const char* doc, int ClusterShape::*field, int max) {
  return Setting::Int(name, doc).Default(ClusterShape{}.*field).Range(1, max);
}

std::vector<SettingSpec> ShapeKeys() {
  return {
      ShapeKey("racks", "racks", &ClusterShape::racks, 4096),
      ShapeKey("machines_per_rack", "machines per rack", &ClusterShape::machines_per_rack, 4096),
      ShapeKey("gpus_per_machine", "GPUs per machine", &ClusterShape::gpus_per_machine, 1024)};
}

std::vector<SettingSpec> GpuTypeKeys() {
  std::vector<SettingSpec> keys = ShapeKeys();
  keys.push_back(Setting::String("name", "unique name of the type").DefaultNote("typeN"));
  keys.push_back(Setting::Double("speed", "throughput factor relative to the reference type")
                     .Default(GpuType{}.speed)
                     .Range(1e-6, 1e6));
  keys.push_back(Setting::Map("model_speed", "per-model override of speed: model -> factor"));
  return keys;
}

SettingsTable MakeTable() {
  const DomainSettings d;
  const SimOptions sim;
  return {
      Setting::Double("tick_s", "simulated seconds per round").Default(d.tick_s).Range(1e-3, 1e9),
      Setting::Int("checkpoint_every",
                   "full checkpoint every N rounds (0: never; several GPU types force 1)")
          .Default(d.checkpoint_every)
          .Range(0, 1 << 30),
      Setting::Choice(
          "policy",
          {"dally", "dally-manual", "dally-nowait", "dally-consolidated", "tiresias", "gandiva"},
          "policy of the combined mode (solver.kind admm or exact)")
          .Default(MethodName(d.policy)),
      Setting::Choice("never_run_priority",
                      {"first", "last"},
                      "where jobs that never ran rank in Dally's queue")
          .Default(sim.never_run_first ? "first" : "last"),
      Setting::Section("cluster", "one GPU type (or gpu_types, not both)", ShapeKeys()),
      Setting::List("gpu_types", "several GPU types (pools), each a map", GpuTypeKeys()),
      Setting::Section(
          "workload",
          "the jobs",
          {Setting::Choice("source", {"synthetic", "dally_csv", "tiresias_csv"}, "where from")
               .Default(d.source),
           Setting::String("trace", "trace file (csv sources), relative to the deployment file"),
           Setting::Int("jobs", "synthetic: number of jobs; a trace: its first N (0: all)")
               .DefaultNote("100 (synthetic), 0 (a trace)")
               .Range(0, 1 << 20),
           Setting::Choice("arrivals",
                           {"batch", "poisson", "trace"},
                           "batch: all at time 0; poisson: generated (synthetic); trace: the "
                           "trace's own times")
               .DefaultNote("batch (synthetic), trace (a trace)"),
           Setting::Double("jobs_per_day", "poisson arrivals' rate")
               .Default(d.jobs_per_day)
               .Range(1e-6, 1e9),
           Setting::Int("seed", "the generator's seed")
               .DefaultNote("deployment.seed")
               .Range(0, std::numeric_limits<int>::max()),
           Setting::Choice("work_model",
                           {"artist_linear", "trace_runtime"},
                           "ideal run time model (a dally_csv trace records its own)")
               .DefaultNote("artist_linear, or a dally_csv trace's")}),
      Setting::Map("overheads",
                   "model -> {machine, rack, network}: communication overhead as fractions of "
                   "compute time (Table I by default; `default` for unknown models)"),
      Setting::Section(
          "timers",
          "Dally-manual's timers",
          {Setting::Choice("units", {"hours", "leases", "seconds"}, "unit of machine and rack")
               .Default("hours"),
           Setting::Double("machine", "machine-tier wait").Default(12.0).Range(0, 1e12),
           Setting::Double("rack", "rack-tier wait").DefaultNote("12").Range(0, 1e12),
           Setting::Choice("rack_mode",
                           {"additional", "cumulative"},
                           "rack timer after the machine timer, or counted from the start")
               .Default("additional"),
           Setting::Choice("large_job_rack_wait",
                           {"cumulative", "rack_only"},
                           "jobs larger than a machine: wait counted from the start or at the "
                           "rack tier only")
               .Default(sim.large_job_cumulative_rack_wait ? "cumulative" : "rack_only"),
           Setting::Choice("starvation_clock",
                           {"queue_entry", "last_assignment"},
                           "Dally's starvation clock starts when a job enters the queue or at "
                           "its last assignment")
               .Default(sim.starvation_since_assignment ? "last_assignment" : "queue_entry")}),
      Setting::Double("lease_s", "lease length").Default(sim.lease_s).Range(1e-3, 1e12),
      Setting::Choice("preemption", {"leases", "none"}, "leases expire, or jobs run to the end")
          .Default(sim.lease_expiry ? "leases" : "none"),
      Setting::Section(
          "auto_tuner",
          "Dally's auto-tuner (Algorithm 2), in leases",
          {Setting::Double("history_leases", "window H").Default(sim.history_leases).Range(0, 1e9),
           Setting::Double("machine_floor_leases", "machine timer floor")
               .Default(sim.machine_floor_leases)
               .Range(0, 1e9),
           Setting::Double("rack_floor_leases", "rack timer floor")
               .Default(sim.rack_floor_leases)
               .Range(0, 1e9),
           Setting::Choice("sd", {"sample", "population"}, "standard deviation")
               .Default(sim.sample_sd ? "sample" : "population"),
           Setting::Bool("enforce_rack_ge_machine", "rack timer >= machine timer")
               .Default(sim.enforce_rack_ge_machine)}),
      Setting::Section(
          "tiresias",
          "the Tiresias baseline",
          {Setting::Choice("priority", {"discretized", "continuous"}, "2D-LAS variant")
               .Default(sim.tiresias_continuous_las ? "continuous" : "discretized"),
           Setting::List("queue_limits_gpu_s",
                         "increasing GPU-second thresholds of the queues (default 3250, 7200)"),
           Setting::Choice("low_skew_placement", {"any_offer", "best_tier"}, "low-skew jobs")
               .Default(sim.tiresias_any_offer ? "any_offer" : "best_tier"),
           Setting::Choice(
               "high_skew_placement", {"fewest_machines", "machine_or_rack"}, "high-skew jobs")
               .Default(sim.tiresias_fewest_machines ? "fewest_machines" : "machine_or_rack")}),
      Setting::Section("gandiva",
                       "the Gandiva baseline",
                       {Setting::Double("migration_cost_s", "seconds lost per migration")
                            .Default(sim.gandiva_migration_cost_s)
                            .Range(0, 1e12)}),
      Setting::Int("event_job_slots", "demand slots for jobs submitted while running (job_arrive)")
          .Default(d.event_job_slots)
          .Range(0, 1 << 20),
  };
}

// Cluster: one type (cluster) or several (gpu_types), not both.
Status ParseTypes(const ConfigNode& settings, DomainSettings* s) {
  const ConfigNode* cluster = settings.Find("cluster");
  const ConfigNode* types = settings.Find("gpu_types");
  if (cluster != nullptr && types != nullptr)
    return Bad(*types, "give either plugin.settings.cluster (one GPU type) or gpu_types, not both");
  if (cluster != nullptr) return ReadShape(*cluster, &s->types[0].shape);
  if (types == nullptr) return Status::Ok();
  if (!types->IsList() || types->items().empty())
    return Bad(*types, "expected a non-empty list of GPU types");
  s->types.clear();
  Status st;
  for (const ConfigNode& t : types->items()) {
    GpuType g;
    g.name = "type" + std::to_string(s->types.size());
    st.Update(ReadShape(t, &g.shape));
    st.Update(t.Read("name", &g.name));
    st.Update(t.Read("speed", &g.speed));
    const ConfigNode& ms = Section(t, "model_speed");
    for (const auto& [model, v] : ms.entries()) {
      double x = 1;
      st.Update(ms.Read(model, &x, 1e-6, 1e6));
      g.model_speed[model] = x;
    }
    for (const GpuType& other : s->types)
      if (other.name == g.name) return Bad(t, "duplicate GPU type name '" + g.name + "'");
    s->types.push_back(g);
  }
  return st;
}

Status ParseWorkload(const ConfigNode& w, const PluginContext& context, DomainSettings* s) {
  Status st = w.Read("source", &s->source);
  st.Update(w.Read("jobs", &s->jobs));
  std::string arrivals, work_model = "artist_linear";
  st.Update(w.Read("arrivals", &arrivals));
  st.Update(w.Read("jobs_per_day", &s->jobs_per_day));
  int seed = -1;
  st.Update(w.Read("seed", &seed));
  if (seed >= 0) s->workload_seed = static_cast<uint64_t>(seed);
  st.Update(w.Read("work_model", &work_model));
  if (!st.ok()) return st;
  // batch: every job at time 0; poisson: generated (synthetic); trace: the trace's own times
  // (the default with a trace), as dally_bench --arrivals.
  if (arrivals.empty()) arrivals = s->source == "synthetic" ? "batch" : "trace";
  s->poisson = arrivals == "poisson";
  s->trace_batch = s->source != "synthetic" && arrivals == "batch";
  if (s->source == "synthetic" && arrivals == "trace")
    return Bad(*w.Find("arrivals"), "'trace' arrivals need a trace (workload.source)");
  if (s->source != "synthetic" && arrivals == "poisson")
    return Bad(*w.Find("arrivals"),
               "'poisson' generates arrivals for the synthetic workload; a trace has its own "
               "(trace) or all at time 0 (batch)");
  s->sim.work_model =
      work_model == "artist_linear" ? WorkModel::kArtistLinear : WorkModel::kTraceRuntime;
  if (s->source == "synthetic") {
    if (w.Has("trace"))
      return Bad(*w.Find("trace"), "a trace file needs workload.source dally_csv or tiresias_csv");
    if (s->jobs < 1) return Bad(*w.Find("jobs"), "the synthetic generator needs at least 1 job");
    return Status::Ok();
  }
  // A trace is replayed whole unless workload.jobs says otherwise (the synthetic default of
  // 100 silently cut a 344-job trace).
  if (!w.Has("jobs")) s->jobs = 0;
  if (!w.Has("trace"))
    return InvalidArgument(w.Where() + ": " + w.path() +
                           ".trace is required with source: " + s->source);
  st = w.Read("trace", &s->trace);
  if (!st.ok()) return st;
  if (!s->trace.empty() && s->trace.front() != '/' && !context.config_dir.empty())
    s->trace = context.config_dir + "/" + s->trace;
  // A converted dally_csv trace records the work model its times were written for: a
  // different workload.work_model is refused, none set takes the trace's.
  if (s->source != "dally_csv") return Status::Ok();
  std::string note, error;
  const ConfigNode* wm = w.Find("work_model");
  if (!ResolveWorkModel(s->trace,
                        s->sim.work_model,
                        wm != nullptr,
                        wm != nullptr ? wm->Where() + ": " + wm->path() : std::string(),
                        &s->sim.work_model,
                        &note,
                        &error))
    return InvalidArgument(error);
  return Status::Ok();
}

// Overheads (Table I, overridden or extended per model; `default` for unknown models), the
// manual variant's timers (the paper's "12 h for machine and another 12 h"), leases.
Status ParseOverheadsAndTimers(const ConfigNode& settings, DomainSettings* s) {
  Status st;
  for (const auto& [model, node] : Section(settings, "overheads").entries()) {
    Overhead o;
    st.Update(ReadOverhead(node, &o));
    if (model == "default")
      s->default_overhead = o;
    else
      s->overheads[model] = o;
  }
  const ConfigNode& tm = Section(settings, "timers");
  std::string units = "hours", rack_mode = "additional", large = "cumulative",
              clock = "queue_entry";
  double machine = 12, rack = 12;
  st.Update(tm.Read("starvation_clock", &clock));
  st.Update(tm.Read("units", &units));
  st.Update(tm.Read("machine", &machine));
  st.Update(tm.Read("rack", &rack));
  st.Update(tm.Read("rack_mode", &rack_mode));
  st.Update(tm.Read("large_job_rack_wait", &large));
  st.Update(settings.Read("lease_s", &s->sim.lease_s));
  std::string preemption = "leases";
  st.Update(settings.Read("preemption", &preemption));
  if (!st.ok()) return st;
  s->sim.starvation_since_assignment = clock == "last_assignment";
  s->sim.lease_expiry = preemption == "leases";
  const double unit = units == "hours" ? kHour : units == "leases" ? s->sim.lease_s : 1.0;
  s->sim.manual_machine_timer_s = machine * unit;
  s->sim.manual_rack_timer_s = (rack_mode == "additional" ? machine + rack : rack) * unit;
  if (s->sim.manual_rack_timer_s < s->sim.manual_machine_timer_s && tm.Has("rack"))
    return Bad(*tm.Find("rack"),
               "with rack_mode: cumulative the rack timer must be >= the machine timer");
  s->sim.large_job_cumulative_rack_wait = large == "cumulative";
  return Status::Ok();
}

// The auto-tuner (Algorithm 2: window and clamps in leases) and the baselines.
Status ParseTunerAndBaselines(const ConfigNode& settings, SimOptions* sim) {
  const ConfigNode& at = Section(settings, "auto_tuner");
  Status st = at.Read("history_leases", &sim->history_leases);
  st.Update(at.Read("machine_floor_leases", &sim->machine_floor_leases));
  st.Update(at.Read("rack_floor_leases", &sim->rack_floor_leases));
  std::string sd = "sample";
  st.Update(at.Read("sd", &sd));
  sim->sample_sd = sd == "sample";
  st.Update(at.Read("enforce_rack_ge_machine", &sim->enforce_rack_ge_machine));
  const ConfigNode& ti = Section(settings, "tiresias");
  std::string prio = "discretized", low = "any_offer", high = "fewest_machines";
  st.Update(ti.Read("priority", &prio));
  st.Update(ti.Read("low_skew_placement", &low));
  st.Update(ti.Read("high_skew_placement", &high));
  sim->tiresias_continuous_las = prio == "continuous";
  sim->tiresias_any_offer = low == "any_offer";
  sim->tiresias_fewest_machines = high == "fewest_machines";
  if (const ConfigNode* q = ti.Find("queue_limits_gpu_s")) {
    if (!q->IsList()) return Bad(*q, "expected a list of increasing GPU-second thresholds");
    sim->tiresias_queue_limits_gpu_s.clear();
    for (const ConfigNode& item : q->items()) {
      Result<double> v = item.AsDouble();
      if (!v.ok()) return v.status();
      if (!(v.value() > 0) || (!sim->tiresias_queue_limits_gpu_s.empty() &&
                               v.value() <= sim->tiresias_queue_limits_gpu_s.back()))
        return Bad(item, "queue limits must be positive and increasing");
      sim->tiresias_queue_limits_gpu_s.push_back(v.value());
    }
  }
  st.Update(Section(settings, "gandiva").Read("migration_cost_s", &sim->gandiva_migration_cost_s));
  return st;
}

}  // namespace

const SettingsTable& SettingsTableOf() {
  static const SettingsTable table = MakeTable();
  return table;
}

Status ParseSettings(const ConfigNode& settings,
                     const PluginContext& context,
                     DomainSettings* out) {
  DomainSettings s;
  s.workload_seed = context.seed;
  s.sim.seed = context.seed;
  s.sim.record_utilization_timeline = false;
  Status st = settings.Read("tick_s", &s.tick_s);
  st.Update(settings.Read("event_job_slots", &s.event_job_slots));
  st.Update(settings.Read("checkpoint_every", &s.checkpoint_every));
  std::string policy = MethodName(s.policy), never_run = "last";
  st.Update(settings.Read("policy", &policy));
  ParseMethod(policy, &s.policy);
  st.Update(settings.Read("never_run_priority", &never_run));
  s.sim.never_run_first = never_run == "first";
  if (!st.ok()) return st;
  for (Status part : {ParseTypes(settings, &s),
                      ParseWorkload(Section(settings, "workload"), context, &s),
                      ParseOverheadsAndTimers(settings, &s),
                      ParseTunerAndBaselines(settings, &s.sim)}) {
    if (!part.ok()) return part;
  }
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
