#include "cluster_plugin.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string_view>

#include "dede/csv.h"

namespace dede::cluster {
namespace {

std::string Resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || path.front() == '/' || dir.empty()) return path;
  return dir + "/" + path;
}

std::string Hex(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%a", v);
  return buffer;
}

// A double as "%a" writes it ("-0x1.8p+3", "0x0p+0", "inf"), bit for bit.
bool ParseHex(std::string_view s, double* out) {
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  double v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, v, std::chars_format::hex);
    if (ec != std::errc() || ptr != end || s.front() == '-' || s.front() == '+') return false;
  } else if (s.empty() || s.front() == '-' || s.front() == '+' || !ParseDouble(s, &v)) {
    return false;
  }
  *out = negative ? -v : v;
  return true;
}

constexpr const char* kStateHeader = "cluster_scheduling_state 1";

}  // namespace

const SettingsTable* ClusterSchedulingPlugin::Settings() const {
  static const SettingsTable table = {
      Setting::Choice("fairness", {"max_min", "proportional"}, "the objective").Default("max_min"),
      Setting::Choice("source",
                      {"trace", "generator", "philly"},
                      "trace: the three files below; generator: a generated cluster and jobs; "
                      "philly: the generator's cluster with jobs from philly_trace")
          .Default("trace"),
      Setting::String("cluster_spec",
                      "worker types CSV, relative to the deployment file (required with trace)"),
      Setting::String("throughputs", "throughput table CSV (required with trace)"),
      Setting::String("trace", "job trace CSV (required with trace)"),
      Setting::String("philly_trace",
                      "Philly-derived trace CSV (required with philly): the jobs' GPUs, steps and "
                      "throughputs, not their arrivals or VCs (for those: dede convert philly "
                      "and source trace)"),
      Setting::Double("round_seconds", "simulated seconds per round")
          .Default(360.0)
          .Range(1e-3, 1e9),
      Setting::Int("rounds", "stop after this many rounds (0: when every job is done)")
          .Default(0)
          .Range(0, 1 << 30),
      Setting::Int("num_types", "generator and philly: worker types, 8 * U{1..8} instances each")
          .Default(456)
          .Range(1, 1 << 16),
      Setting::Int("num_jobs", "generator and philly: jobs present at time 0")
          .Default(2000)
          .Range(0, 1 << 20),
      Setting::Int("num_arrivals", "generator and philly: Poisson arrivals after time 0")
          .Default(0)
          .Range(0, 1 << 20),
      Setting::Double("mean_interarrival_s", "generator and philly: mean time between arrivals")
          .Default(100.0)
          .Range(1e-3, 1e12),
      Setting::Double("restricted_fraction",
                      "generator and philly: share of jobs restricted to 1..16 random types")
          .Default(1.0 / 3.0)
          .Range(0.0, 1.0),
      Setting::Choice("scale_factors",
                      {"uniform", "philly"},
                      "generator: scale factors uniform over 1..32, or the philly mix (1/2/4/8 "
                      "with 0.5/0.25/0.15/0.1)")
          .Default("uniform"),
      Setting::Double("max_weight", "priorities U(1, max_weight) (generator and philly)")
          .Default(10.0)
          .Range(1.0, 1e6),
      Setting::Choice("pop_solver", {"exact", "admm"}, "POP parts: the host solver")
          .Default("exact"),
      Setting::Int("pop_threads", "POP parts solved in parallel").Default(1).Range(1, 256),
      Setting::Choice("report_jobs",
                      {"active", "none"},
                      "active: a demand entity per active job each round; none: job records only")
          .Default("active"),
      Setting::Bool("repair_fill",
                    "the repair gives GPUs a feasible allocation leaves idle to active jobs with "
                    "room (no job loses throughput)")
          .Default(true),
      Setting::Int("max_types_per_job",
                   "sparse model: a job with more allowed types keeps this many (0: all)")
          .Default(0)
          .Range(0, 1 << 16),
      Setting::Int("event_job_slots",
                   "reserved slots for jobs that arrive through the inbox (job_arrive; "
                   "fairness max_min)")
          .Default(0)
          .Range(0, 1 << 16),
  };
  return &table;
}

Status ClusterSchedulingPlugin::Configure(const ConfigNode& settings,
                                          const PluginContext& context) {
  std::string fairness, pop_solver, report_jobs;
  bool repair_fill = true;
  Status status = settings.Read("fairness", &fairness);
  status.Update(settings.Read("source", &source_));
  status.Update(settings.Read("cluster_spec", &cluster_spec_));
  status.Update(settings.Read("throughputs", &throughputs_));
  status.Update(settings.Read("trace", &trace_));
  status.Update(settings.Read("philly_trace", &philly_trace_));
  status.Update(settings.Read("round_seconds", &round_seconds_));
  status.Update(settings.Read("rounds", &rounds_));
  status.Update(settings.Read("num_types", &generator_.num_types));
  status.Update(settings.Read("num_jobs", &generator_.num_jobs));
  status.Update(settings.Read("num_arrivals", &generator_.num_arrivals));
  status.Update(settings.Read("mean_interarrival_s", &generator_.mean_interarrival_s));
  status.Update(settings.Read("restricted_fraction", &generator_.restricted_fraction));
  status.Update(settings.Read("scale_factors", &generator_.scale_factors));
  status.Update(settings.Read("max_weight", &generator_.max_weight));
  status.Update(settings.Read("pop_solver", &pop_solver));
  status.Update(settings.Read("pop_threads", &pop_threads_));
  status.Update(settings.Read("report_jobs", &report_jobs));
  status.Update(settings.Read("max_types_per_job", &max_types_per_job_));
  status.Update(settings.Read("event_job_slots", &event_job_slots_));
  status.Update(settings.Read("repair_fill", &repair_fill));
  if (!status.ok()) return status;
  repair_fill_ = repair_fill;
  fairness_ = fairness == "max_min" ? Fairness::kMaxMin : Fairness::kProportional;
  pop_admm_ = pop_solver == "admm";
  report_jobs_ = report_jobs == "active";
  seed_ = context.seed;
  generator_.seed = context.seed;
  table_.reset();
  status = LoadInstance(settings, context);
  if (!status.ok()) return status;
  if (event_job_slots_ > 0 && fairness_ != Fairness::kMaxMin) {
    return InvalidArgument(settings.Where() +
                           ": plugin.settings.event_job_slots needs fairness max_min (a job's "
                           "log term cannot change once described)");
  }
  // Reserved slots for jobs that arrive through the inbox (job_arrive): placeholders that never
  // arrive, with an entry on every type, until an event fills one.
  for (int k = 0; k < event_job_slots_; ++k) {
    Job slot;
    slot.id = -(k + 1);
    slot.arrival_s = kUnfilledSlot;
    slot.total_steps = 1.0;
    instance_.jobs.push_back(slot);
    std::vector<std::pair<int, double>> every;
    for (int r = 0; r < static_cast<int>(instance_.types.size()); ++r) every.emplace_back(r, 1.0);
    instance_.throughput.push_back(std::move(every));
  }
  return Status::Ok();
}

Status ClusterSchedulingPlugin::LoadInstance(const ConfigNode& settings,
                                             const PluginContext& context) {
  const std::string where = settings.IsNull() ? std::string("plugin.settings") : settings.Where();
  if (source_ == "generator") {
    instance_ = GenerateInstance(generator_);
    if (instance_.jobs.empty())
      return InvalidArgument(where +
                             ": plugin.settings: the generator needs num_jobs + num_arrivals >= 1");
    return Status::Ok();
  }
  if (source_ == "philly") {
    if (settings.Find("philly_trace") == nullptr)
      return InvalidArgument(where +
                             ": plugin.settings.philly_trace is required with source: philly");
    auto trace = LoadPhillyTrace(Resolve(context.config_dir, philly_trace_));
    if (!trace.ok()) return trace.status();
    if (generator_.num_jobs + generator_.num_arrivals < 1)
      return InvalidArgument(where +
                             ": plugin.settings: source philly needs num_jobs + num_arrivals >= 1");
    auto instance = MakePhillyInstance(trace.value(), generator_);
    if (!instance.ok()) return instance.status();
    instance_ = std::move(instance.value());
    return Status::Ok();
  }
  for (const char* key : {"cluster_spec", "throughputs", "trace"}) {
    if (settings.Find(key) == nullptr)
      return InvalidArgument(where + ": plugin.settings." + key +
                             " is required with source: trace");
  }
  auto types = LoadClusterSpec(Resolve(context.config_dir, cluster_spec_));
  if (!types.ok()) return types.status();
  auto table = LoadThroughputs(Resolve(context.config_dir, throughputs_));
  if (!table.ok()) return table.status();
  table_ = table.value();
  const std::string trace_path = Resolve(context.config_dir, trace_);
  auto jobs = LoadJobTrace(trace_path);
  if (!jobs.ok()) return jobs.status();
  auto instance = MakeInstance(types.value(), table.value(), std::move(jobs.value()), trace_path);
  if (!instance.ok()) return instance.status();
  instance_ = std::move(instance.value());
  return Status::Ok();
}

Status ClusterSchedulingPlugin::Describe(Problem* problem) {
  model_.set_max_types_per_job(max_types_per_job_);
  model_.Describe(instance_, fairness_, problem);
  num_variables_ = problem->num_variables();
  departed_from_.assign(num_jobs(), std::numeric_limits<int>::max());
  slot_dirty_.assign(num_jobs(), 0);
  slot_t_equal_.assign(num_jobs(), 0.0);
  base_counts_.clear();
  for (const WorkerType& t : instance_.types) base_counts_.push_back(t.count);
  count_events_.clear();
  ResetSimulation();
  return Status::Ok();
}

Status ClusterSchedulingPlugin::Refresh(int round, Problem* problem, bool* finished) {
  if (round < sim_round_) ResetSimulation();
  FastForward(round);
  *finished = (rounds_ > 0 && round >= rounds_) || AllDone();
  if (*finished) return Status::Ok();
  // GPU counts: the configured ones, then the inbox's changes up to this round in order.
  for (std::size_t r = 0; r < base_counts_.size(); ++r) instance_.types[r].count = base_counts_[r];
  for (const CountEvent& e : count_events_) {
    if (e.round <= round) instance_.types[e.type].count = e.count;
  }
  for (std::size_t r = 0; r < instance_.types.size(); ++r) {
    model_.SetCapacity(static_cast<int>(r), instance_.types[r].count, problem);
  }
  for (int j = 0; j < num_jobs(); ++j) {
    if (!slot_dirty_[j]) continue;
    model_.ResetJob(j, instance_, slot_t_equal_[j], problem);
    slot_dirty_[j] = 0;
  }
  model_.SetActive(Active(), problem);
  return Status::Ok();
}

Status ClusterSchedulingPlugin::Report(int round,
                                       const Problem& problem,
                                       const Allocation& allocation,
                                       RoundReport* report) {
  (void)problem;
  if (round < sim_round_) ResetSimulation();
  FastForward(round);
  const std::vector<char> active = Active();
  const double start = Now();
  int num_active = 0;
  double sum = 0.0, sum_sq = 0.0;
  for (int j = 0; j < num_jobs(); ++j) {
    if (!active[j]) continue;
    ++num_active;
    const double u = model_.NormalizedThroughput(j, allocation);
    sum += u;
    sum_sq += u * u;
  }
  const double value = model_.Value(allocation, active);
  // Share of the GPUs the allocation uses: sum over jobs and types of s_j x[r, j] over the
  // cluster's GPU count (max-min alone leaves capacity idle that the minimum does not need).
  double gpus_used = 0.0, gpus = 0.0;
  for (const WorkerType& t : instance_.types) gpus += t.count;
  for (int j = 0; j < num_jobs(); ++j) {
    if (!active[j]) continue;
    for (const ClusterModel::Entry& e : model_.entries(j))
      gpus_used += instance_.jobs[j].scale_factor * allocation[e.var];
  }
  const std::vector<int> completed_now = Advance(allocation);

  int completed = 0, arrived = 0;
  double jct_sum = 0.0;
  for (int j = 0; j < num_jobs(); ++j) {
    arrived += instance_.jobs[j].arrival_s <= start;
    if (completion_s_[j] >= 0) {
      ++completed;
      jct_sum += completion_s_[j] - instance_.jobs[j].arrival_s;
    }
  }
  const std::string value_name =
      fairness_ == Fairness::kMaxMin ? "min_normalized_throughput" : "sum_log_throughput";
  report->metrics = {{value_name, value},
                     // Jain's index of the active jobs' normalized throughputs: 1 = all equal.
                     {"jain_fairness", sum_sq > 0 ? sum * sum / (num_active * sum_sq) : 0.0},
                     {"gpu_utilization", gpus > 0 ? gpus_used / gpus : 0.0},
                     {"active_jobs", static_cast<double>(num_active)},
                     {"completed_jobs", static_cast<double>(completed)},
                     {"completed_this_round", static_cast<double>(completed_now.size())},
                     {"arrived_jobs", static_cast<double>(arrived)},
                     {"mean_jct_s", completed > 0 ? jct_sum / completed : 0.0},
                     {"sim_time_s", start}};
  int departed = 0;
  for (int j = 0; j < num_jobs(); ++j) departed += Departed(j);
  if (departed > 0) report->metrics.push_back({"departed_jobs", static_cast<double>(departed)});

  // Job events of this round: arrivals (jobs active for the first time) and completions.
  std::vector<char> done_now(num_jobs(), 0);
  for (int j : completed_now) done_now[j] = 1;
  const double previous = start - round_seconds_;
  for (int j = 0; j < num_jobs(); ++j) {
    const Job& job = instance_.jobs[j];
    const bool arrival = active[j] && (round == 0 || job.arrival_s > previous);
    if (!arrival && !done_now[j]) continue;
    DomainRecord record;
    record.kind = "job";
    record.key = std::to_string(job.id);
    const double completion = completion_s_[j];
    record.values = {{"arrival_s", job.arrival_s},
                     {"scale_factor", static_cast<double>(job.scale_factor)},
                     {"weight", job.weight},
                     {"total_steps", job.total_steps},
                     {"completion_s", done_now[j] ? completion : kInfinity},
                     {"jct_s", done_now[j] ? completion - job.arrival_s : kInfinity}};
    record.labels = {{"event",
                      arrival && done_now[j] ? "arrived_completed"
                      : arrival              ? "arrived"
                                             : "completed"}};
    report->records.push_back(std::move(record));
  }

  for (int r = 0; r < static_cast<int>(instance_.types.size()); ++r) {
    report->entities.push_back({Side::kResource,
                                r,
                                instance_.types[r].name,
                                {{"count", static_cast<double>(instance_.types[r].count)}}});
  }
  if (report_jobs_) {
    for (int j = 0; j < num_jobs(); ++j) {
      if (!active[j]) continue;
      const Job& job = instance_.jobs[j];
      report->entities.push_back(
          {Side::kDemand,
           j,
           "job" + std::to_string(job.id),
           {{"weight", job.weight},
            {"scale_factor", static_cast<double>(job.scale_factor)},
            {"job_type", static_cast<double>(job.job_type)},
            {"arrival_s", job.arrival_s},
            {"progress", std::min(1.0, steps_[j] / job.total_steps)},
            {"normalized_throughput", model_.NormalizedThroughput(j, allocation)}}});
    }
  }
  return Status::Ok();
}

std::vector<MethodInfo> ClusterSchedulingPlugin::Methods() const {
  return {{"gandiva", "throughput-agnostic equal share of every type (no packing)"},
          {"pop-4", "POP: jobs split at random into 4 groups, each with 1/4 of every type"},
          {"pop-16", "POP: jobs split at random into 16 groups, each with 1/16 of every type"},
          {"pop-64", "POP: jobs split at random into 64 groups, each with 1/64 of every type"}};
}

Status ClusterSchedulingPlugin::SolveWith(const std::string& method,
                                          int round,
                                          const Problem& problem,
                                          const SolverServices& services,
                                          Allocation* allocation,
                                          SolveSummary* summary) {
  if (problem.num_variables() != num_variables_)
    return Internal("cluster_scheduling: " + method + ": the problem has " +
                    std::to_string(problem.num_variables()) + " variables, the plugin described " +
                    std::to_string(num_variables_));
  if (round != sim_round_) FastForward(round);
  const std::vector<char> active = Active();
  if (method == "gandiva") {
    const auto start = std::chrono::steady_clock::now();
    SolveGandiva(instance_, model_, active, num_variables_, allocation);
    *summary = SolveSummary();
    summary->method = "gandiva";
    summary->termination = Termination::kConverged;
    summary->message = "Gandiva equal share (no solver)";
    summary->num_threads = 1;
    summary->total_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Status::Ok();
  }
  for (int k : {4, 16, 64}) {
    if (method != "pop-" + std::to_string(k)) continue;
    PopOptions options;
    options.k = k;
    options.seed = seed_ * 1000003ULL + static_cast<std::uint64_t>(round);
    options.use_admm = pop_admm_;
    options.threads = pop_threads_;
    return SolvePop(
        instance_, model_, active, num_variables_, options, services, allocation, summary);
  }
  return InvalidArgument("cluster_scheduling has no method '" + method +
                         "' (its methods: gandiva, pop-4, pop-16, pop-64)");
}

Status ClusterSchedulingPlugin::SaveState(int round, std::string* state) {
  if (sim_round_ == round) Advance(Allocation{});  // no allocation this round: nothing ran
  if (sim_round_ != round + 1)
    return Internal("cluster_scheduling: SaveState(" + std::to_string(round) +
                    ") but the simulator is at round " + std::to_string(sim_round_));
  std::ostringstream out;
  out << kStateHeader << "\n"
      << "next_round " << sim_round_ << "\n"
      << "jobs " << num_jobs() << "\n";
  for (int j = 0; j < num_jobs(); ++j) {
    const Job& job = instance_.jobs[j];
    out << job.id << ' ' << Hex(job.arrival_s) << ' ' << Hex(job.total_steps) << ' '
        << Hex(steps_[j]) << ' ' << Hex(completion_s_[j]) << '\n';
  }
  *state = out.str();
  return Status::Ok();
}

Status ClusterSchedulingPlugin::RestoreState(int last_round, const std::string& state) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("cluster_scheduling: checkpoint of round " + std::to_string(last_round) +
                           ": " + why);
  };
  // Lines of words: the header, "next_round N", "jobs N", then one line per job.
  Result<CsvReader> opened = CsvReader::FromString(
      state,
      "cluster_scheduling checkpoint of round " + std::to_string(last_round),
      {.delimiter = CsvOptions::kWhitespace, .header = false, .ragged = true});
  if (!opened.ok()) return opened.status();
  CsvReader& in = opened.value();
  Status status;
  auto line_is = [&](std::string_view first, int fields) {
    return in.Next(&status) && in.size() == fields && in.Field(0) == first;
  };
  if (!in.Next(&status)) return status.ok() ? bad("empty") : status;
  std::string header;
  for (int k = 0; k < in.size(); ++k) header.append(k > 0 ? " " : "").append(in.Field(k));
  if (header != kStateHeader) return bad("unknown header '" + header + "'");
  int next_round = -1, count = -1;
  if (!line_is("next_round", 2)) return status.ok() ? bad("expected next_round") : status;
  status.Update(in.Read(1, &next_round));
  if (!line_is("jobs", 2)) return status.ok() ? bad("expected jobs") : status;
  status.Update(in.Read(1, &count, 0));
  if (!status.ok()) return status;
  if (next_round != last_round + 1) return bad("it is for round " + std::to_string(next_round - 1));
  if (count != num_jobs())
    return bad("it has " + std::to_string(count) + " jobs, the configured job set " +
               std::to_string(num_jobs()) + " (was the deployment's job source changed?)");
  std::vector<double> steps(count), completion(count);
  for (int j = 0; j < count; ++j) {
    if (!in.Next(&status) || in.size() != 5) {
      return status.ok() ? bad("truncated at job " + std::to_string(j)) : status;
    }
    int id = -1;
    double values[4] = {0, 0, 0, 0};  // arrival, total steps, steps done, completion
    status.Update(in.Read(0, &id));
    for (int k = 0; k < 4 && status.ok(); ++k) {
      if (!ParseHex(in.Field(k + 1), &values[k])) status = in.Expected(k + 1, "a hex double");
    }
    if (!status.ok()) return status;
    steps[j] = values[2];
    completion[j] = values[3];
    const Job& job = instance_.jobs[j];
    if (id != job.id || values[0] != job.arrival_s || values[1] != job.total_steps)
      return bad("job " + std::to_string(j) +
                 " differs from the configured job set (was the deployment's job source changed?)");
  }
  sim_round_ = next_round;
  steps_ = std::move(steps);
  completion_s_ = std::move(completion);
  return Status::Ok();
}

// Max-min (BENCHMARKS.md, "Cluster scheduling"):
// * From zero, a contended first round climbs to the optimum from a minimum of 0: within half
//   of the exact solve's time it often returns no better than the seed. From the seed it starts
//   at 0.6 of the optimum or more.
// * rho from the number of jobs n present at the start: the objective's dual (1) is shared by
//   the jobs the minimum binds, so the duals, and the penalty that suits them, scale as 1 / n.
//   Of the values tried (0.25-5 x it, 12-24 instances per size), 200 / n gave the best median
//   at 500 and 2,000 jobs and 0.011 below the best (0.1) at 1,000; the engine's default 1 is
//   2.5-10 x it there.
std::vector<std::pair<std::string, std::string>> ClusterSchedulingPlugin::RecommendedSettings()
    const {
  if (fairness_ != Fairness::kMaxMin) return {};
  std::vector<std::pair<std::string, std::string>> out = {{"solver.cold_start", "repair"}};
  const auto present = std::count_if(
      instance_.jobs.begin(), instance_.jobs.end(), [](const Job& j) { return j.arrival_s <= 0; });
  if (present > 0) {
    char rho[32];
    std::snprintf(
        rho, sizeof rho, "%.3g", std::clamp(kRhoJobs / static_cast<double>(present), 1e-3, 10.0));
    out.push_back({"solver.admm.rho", rho});
  }
  return out;
}

Status ClusterSchedulingPlugin::Repair(const Problem& problem, Allocation* allocation) {
  if (static_cast<int>(allocation->values.size()) != num_variables_) return Status::Ok();
  const std::vector<char> active = Active();
  bool zero = true;
  for (const double v : allocation->values) zero = zero && v == 0.0;
  if (zero) {
    Allocation gandiva, share;
    SolveGandiva(instance_, model_, active, num_variables_, &gandiva);
    SolveLoadShare(instance_, model_, active, num_variables_, &share);
    const double a = model_.Value(gandiva, active), b = model_.Value(share, active);
    *allocation = std::move(b >= a || std::isnan(a) ? share : gandiva);
  }
  // Idle GPUs go to jobs with room, whatever method produced the allocation; only a feasible
  // allocation is filled (the fill keeps feasibility, it does not restore it).
  if (repair_fill_ && problem.MeasureViolation(allocation->values).Max() <= 1e-9) {
    FillIdleGpus(instance_, model_, active, allocation);
  }
  return Status::Ok();
}

std::vector<char> ClusterSchedulingPlugin::Active() const {
  std::vector<char> active(num_jobs(), 0);
  for (int j = 0; j < num_jobs(); ++j)
    active[j] = Arrived(j) && completion_s_[j] < 0 && !Departed(j);
  return active;
}

bool ClusterSchedulingPlugin::AllDone() const {
  // With arrival slots the deployment waits for arrivals (idle rounds) until its stop rule.
  for (int j = 0; j < num_jobs(); ++j) {
    if (completion_s_[j] < 0 && !Departed(j)) return false;
  }
  return true;
}

std::vector<EventKind> ClusterSchedulingPlugin::EventKinds() const {
  return {{"gpu_count",
           "a worker type's name or index",
           "{count: integer in [0, 2^30]}",
           "the type's GPUs from this round on"},
          {"job_depart",
           "a job id (the trace's job_id)",
           "{}",
           "the job leaves: inactive from this round on (not counted as completed)"},
          {"job_arrive",
           "a new job id",
           "{total_steps: > 0, weight: > 0 (1), job_type and scale_factor (throughputs from the "
           "table) or throughputs: {worker type: steps/s}}",
           "a job arrives: it fills one of plugin.settings.event_job_slots (max-min only)"}};
}

Status ClusterSchedulingPlugin::ApplyEvent(int round, const Event& event, std::string* rejection) {
  rejection->clear();
  const std::string where = "event " + std::to_string(event.id) + " (" + event.kind + ")";
  if (event.kind == "gpu_count") {
    int type = -1;
    for (std::size_t r = 0; r < instance_.types.size(); ++r) {
      if (instance_.types[r].name == event.target) type = static_cast<int>(r);
    }
    int index = -1;
    if (type < 0 && ParseInteger(event.target, &index) && index >= 0 &&
        index < static_cast<int>(instance_.types.size())) {
      type = index;
    }
    if (type < 0) {
      *rejection = where + ": target '" + event.target + "' is not a worker type (a name or 0.." +
                   std::to_string(instance_.types.size() - 1) + ")";
      return Status::Ok();
    }
    int count = 0;
    Status status = event.payload.Require("count");
    status.Update(event.payload.Read("count", &count, 0, 1 << 30));
    if (!status.ok()) {
      *rejection = status.message();
      return Status::Ok();
    }
    count_events_.push_back({round, type, count});
    return Status::Ok();
  }
  if (event.kind == "job_depart") {
    int job = -1;
    for (int j = 0; j < num_jobs(); ++j) {
      if (std::to_string(instance_.jobs[j].id) == event.target) job = j;
    }
    if (job < 0) {
      *rejection = where + ": target '" + event.target + "' is not a job id of the deployment";
      return Status::Ok();
    }
    if (departed_from_[job] != std::numeric_limits<int>::max()) {
      *rejection = where + ": job " + event.target + " already left in round " +
                   std::to_string(departed_from_[job]);
      return Status::Ok();
    }
    if (!event.replay && completion_s_[job] >= 0) {
      *rejection = where + ": job " + event.target + " has completed";
      return Status::Ok();
    }
    departed_from_[job] = round;
    return Status::Ok();
  }
  if (event.kind == "job_arrive") return ApplyArrival(round, event, rejection);
  *rejection = where + ": unknown kind";
  return Status::Ok();
}

Status ClusterSchedulingPlugin::ApplyArrival(int round,
                                             const Event& event,
                                             std::string* rejection) {
  const std::string where = "event " + std::to_string(event.id) + " (job_arrive)";
  const auto reject = [&](const std::string& why) {
    *rejection = why.rfind("event ", 0) == 0 ? why : where + ": " + why;
    return Status::Ok();
  };
  int slot = -1;
  for (int j = 0; j < num_jobs() && slot < 0; ++j) {
    if (instance_.jobs[j].id < 0) slot = j;
  }
  if (slot < 0) {
    return reject(event_job_slots_ == 0
                      ? "the deployment reserved no arrival slots (plugin.settings.event_job_slots)"
                      : "all " + std::to_string(event_job_slots_) +
                            " arrival slots are taken (plugin.settings.event_job_slots)");
  }
  int id = -1;
  if (!ParseInteger(event.target, &id) || id < 0 || id > (1 << 30)) {
    return reject("target '" + event.target + "' is not a job id (an integer in [0, 2^30])");
  }
  for (const Job& job : instance_.jobs) {
    if (job.id == id) return reject("job id " + event.target + " is taken");
  }
  Job job;
  job.id = id;
  job.arrival_s = round * round_seconds_;
  Status status = event.payload.Require("total_steps");
  status.Update(event.payload.Read("total_steps", &job.total_steps, 1e-9, 1e18));
  status.Update(event.payload.Read("weight", &job.weight, 1e-9, 1e9));
  status.Update(event.payload.Read("job_type", &job.job_type, 0, 1 << 24));
  status.Update(event.payload.Read("scale_factor", &job.scale_factor, 1, 32));
  if (!status.ok()) return reject(status.message());
  if ((job.scale_factor & (job.scale_factor - 1)) != 0) {
    return reject("payload.scale_factor = " + std::to_string(job.scale_factor) +
                  ": a power of two in 1..32");
  }
  std::vector<std::pair<int, double>> throughput;
  if (const ConfigNode* given = event.payload.Find("throughputs")) {
    if (!given->IsMap()) return reject("payload.throughputs is not a map {worker type: steps/s}");
    for (const auto& [name, value] : given->entries()) {
      int type = -1;
      for (int r = 0; r < static_cast<int>(instance_.types.size()); ++r) {
        if (instance_.types[r].name == name) type = r;
      }
      if (type < 0) return reject("payload.throughputs." + name + ": no such worker type");
      Result<double> t = value.AsDouble();
      if (!t.ok()) return reject(t.status().message());
      if (!(t.value() >= 0 && t.value() <= 1e18)) {
        return reject("payload.throughputs." + name + ": not in [0, 1e18]");
      }
      if (t.value() > 0) throughput.emplace_back(type, t.value());
    }
    std::sort(throughput.begin(), throughput.end());
  } else if (table_) {
    if (!event.payload.Has("job_type")) {
      return reject("give payload.job_type (and scale_factor), or payload.throughputs");
    }
    for (int r = 0; r < static_cast<int>(instance_.types.size()); ++r) {
      const double t = table_->Get(r, job.job_type, job.scale_factor);
      if (t > 0) throughput.emplace_back(r, t);
    }
  } else {
    return reject(
        "this deployment's jobs come from a generator: give payload.throughputs "
        "{worker type: steps/s}");
  }
  if (throughput.empty())
    return reject("the job can run on no worker type (every throughput is 0)");
  // The equal share under the GPU counts in force when it arrives (the configured ones and the
  // inbox's changes applied so far): fixed for the job's life, as a trace job's is.
  std::vector<double> counts(base_counts_.begin(), base_counts_.end());
  for (const CountEvent& e : count_events_) counts[e.type] = e.count;
  double total = 0.0, t_equal = 0.0;
  for (double c : counts) total += c;
  for (const auto& [r, t] : throughput) t_equal += total > 0 ? counts[r] / total * t : 0.0;
  if (!(t_equal > 0)) return reject("the job's types have no GPUs at the moment");
  instance_.jobs[slot] = job;
  instance_.throughput[slot] = std::move(throughput);
  slot_t_equal_[slot] = t_equal;
  slot_dirty_[slot] = 1;
  return Status::Ok();
}

void ClusterSchedulingPlugin::ResetSimulation() {
  sim_round_ = 0;
  steps_.assign(num_jobs(), 0.0);
  completion_s_.assign(num_jobs(), -1.0);
}

std::vector<int> ClusterSchedulingPlugin::Advance(const Allocation& allocation) {
  std::vector<int> completed;
  const bool runs = allocation.values.size() == static_cast<std::size_t>(num_variables_);
  if (runs) {
    const std::vector<char> active = Active();
    const double start = Now();
    for (int j = 0; j < num_jobs(); ++j) {
      if (!active[j]) continue;
      const double rate = model_.Throughput(j, allocation);
      const double remaining = instance_.jobs[j].total_steps - steps_[j];
      if (rate > 0 && rate * round_seconds_ >= remaining) {
        completion_s_[j] = start + remaining / rate;  // interpolated inside the round
        steps_[j] = instance_.jobs[j].total_steps;
        completed.push_back(j);
      } else {
        steps_[j] += rate * round_seconds_;
      }
    }
  }
  ++sim_round_;
  return completed;
}

void ClusterSchedulingPlugin::FastForward(int round) {
  while (sim_round_ < round) {
    Allocation allocation;
    SolveGandiva(instance_, model_, Active(), num_variables_, &allocation);
    Advance(allocation);
  }
}

}  // namespace dede::cluster
