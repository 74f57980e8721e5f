// The gpu_placement domain on the framework's round loop: each round advances the event-driven
// simulator (gpu_sim.h) by one tick of simulated time. See README.md in this directory.
//
// Problem: resources = GPU types (pools), demands = the jobs of the workload (one slot per job,
// in arrival order). x[k, j] in [0, g_j] is the number of GPUs of type k that job j holds at the
// end of the round's tick (an entry is bounded to 0 when the job has not arrived, has finished,
// or can never fit pool k). Rows: sum_j x[k, j] <= GPUs of type k; columns: sum_k x[k, j] <= g_j.
// Objective (used by the combined mode): maximise min_j sum_k speed_jk x[k, j] / (g_j T_eq_j),
// the max-min share of the cluster-scheduling formulation with T_eq_j = sum_k (GPUs_k / GPUs)
// speed_jk; a job outside the tick's active set gets a constant above every reachable value.
//
// Modes:
//  * solver.kind: plugin, solver.method: dally | dally-manual | dally-nowait |
//    dally-consolidated | tiresias | gandiva. SolveWith runs one tick with that policy. With
//    several GPU types it first computes the max-min shares with the host's ADMM (SolverServices,
//    cold start, so a resumed deployment repeats the pool choices exactly), as the combined mode.
//  * solver.kind: admm (or exact): the solver computes the max-min share of each job per GPU
//    type; Repair turns the shares into the pool each waiting job is offered in (a per-job
//    deficit counter over ticks), runs one tick of `settings.policy` (default dally) inside the
//    pools, and replaces the allocation by the GPUs actually held. With one GPU type every job
//    is offered in the only pool, so the schedule is exactly the pure policy's.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dede/plugin.h"
#include "gpu_sim.h"

namespace dede::gpu {

struct GpuType {
  std::string name = "gpu";
  ClusterShape shape;
  double speed = 1.0;                         // throughput factor relative to the reference type
  std::map<std::string, double> model_speed;  // per-model override of `speed`
};

// Everything `plugin.settings` configures (defaults faithful to the paper's text).
struct DomainSettings {
  std::vector<GpuType> types = {GpuType{}};
  double tick_s = 300;  // simulated time per round
  // Full checkpoint (SaveState) every N rounds; 0: never. Other rounds save only the policy, and a
  // deployment resumed from such a round replays the simulation from round 0 (exact with one GPU
  // type; several types need a checkpoint every round, so they force 1).
  int checkpoint_every = 1;
  Policy policy =
      Policy::kDally;  // policy of the combined mode (and of replays before a method is known)
  // Workload.
  std::string source = "synthetic";  // synthetic | dally_csv | tiresias_csv
  std::string trace;                 // resolved path of the trace (csv sources)
  int jobs = 100;                    // synthetic: number of jobs; csv: first N jobs (0 = all,
                                     // the default for a trace)
  int trace_jobs_skipped = 0;        // csv: jobs of the trace beyond `jobs` (reported)
  int trace_zero_work_jobs = 0;      // csv: jobs without work, dropped (reported)
  bool poisson = false;              // synthetic arrivals
  bool trace_batch = false;          // a trace's jobs all at time 0 (workload.arrivals: batch)
  double jobs_per_day = 100;
  uint64_t workload_seed = 1;
  // Communication overhead by model (fractions of compute time); models not listed take
  // default_overhead (ResNet50's Table I row unless configured).
  std::map<std::string, Overhead> overheads = TableIOverheads();
  Overhead default_overhead = {0.12, 0.12, 0.38};
  SimOptions sim;  // lease, timers, tuner, baselines (policy set per mode)
  // Demand slots reserved for jobs submitted while the deployment runs (inbox events
  // `job_arrive`); with slots the deployment runs idle rounds when every job is done.
  int event_job_slots = 0;
};

// The keys of `plugin.settings` (GpuPlacementDomain::Settings): the host checks the section
// against them and fills their defaults (taken from DomainSettings and SimOptions) first.
const SettingsTable& SettingsTableOf();
// Reads a checked `plugin.settings` (CheckSettings against SettingsTableOf()) and the domain's
// own checks (cluster or gpu_types, arrivals against the source, per-model tables); errors
// name file:line:column, key and value.
Status ParseSettings(const ConfigNode& settings, const PluginContext& context, DomainSettings* out);
// Loads or generates the jobs, sorted by (arrival, id), with overheads and per-pool speeds.
// *skipped (if given): jobs of a trace beyond `jobs`, dropped.
// *zero_work (if given): jobs of a trace without work (zero iterations or time), dropped.
// Fills a job's overheads (from its model; a dally_csv job of an unknown model keeps its own
// with keep_trace_overheads) and per-pool speeds, and checks its size and work; errors start
// with `where`.
Status CompleteJob(const DomainSettings& s,
                   const std::string& where,
                   bool keep_trace_overheads,
                   JobSpec* job);
Result<std::vector<JobSpec>> LoadWorkload(const DomainSettings& s,
                                          int* skipped = nullptr,
                                          int* zero_work = nullptr);

// Policy <-> method name ("dally", "dally-manual", "dally-nowait", "dally-consolidated",
// "tiresias", "gandiva").
const char* MethodName(Policy p);
bool ParseMethod(const std::string& name, Policy* p);

class GpuPlacementDomain : public DomainPlugin {
 public:
  const SettingsTable* Settings() const override { return &SettingsTableOf(); }
  Status Configure(const ConfigNode& settings, const PluginContext& context) override;
  Status Describe(Problem* problem) override;
  Status Refresh(int round, Problem* problem, bool* finished) override;
  Status Repair(const Problem& problem, Allocation* allocation) override;
  // Repair advances the simulator by the round (once a round): not a pure function.
  bool RepairIsPure() const override { return false; }
  Status Report(int round,
                const Problem& problem,
                const Allocation& allocation,
                RoundReport* report) override;
  std::vector<MethodInfo> Methods() const override;
  Status SolveWith(const std::string& method,
                   int round,
                   const Problem& problem,
                   const SolverServices& services,
                   Allocation* allocation,
                   SolveSummary* summary) override;
  Status SaveState(int round, std::string* state) override;
  Status RestoreState(int last_round, const std::string& state) override;
  // Inbox: `job_arrive` fills the next of settings.event_job_slots with a job that arrives at
  // the start of the round's tick. Not in the checkpoint: a resumed run gets the events again
  // (replay, before RestoreState) and submits the jobs at the same points of the simulation.
  std::vector<EventKind> EventKinds() const override;
  Status ApplyEvent(int round, const Event& event, std::string* rejection) override;

  // For tests and tools.
  const Simulation& simulation() const { return *sim_; }
  const std::vector<JobSpec>& workload() const { return jobs_; }
  const DomainSettings& settings() const { return settings_; }
  double TickEnd(int round) const { return origin_s_ + (round + 1) * settings_.tick_s; }

 private:
  void ResetSimulation(Policy policy);
  Status AdvanceTo(int round);  // replays ticks until sim_round_ == round
  void Tick(int round);         // one tick: submissions due, then sim time to TickEnd(round)
  void SubmitDue(int round);    // hands the simulator the submitted jobs of rounds <= round
  void WriteSubmittedSlots(Problem* problem);  // the filled slots' rows and max-min terms
  void FillAllocation(const Problem& problem, Allocation* allocation) const;
  void UpdateTargets(const Allocation& shares);
  void ResetReportBaseline();
  void ReportMetrics(double now, RoundReport* report);  // Report's tick metrics and types
  void ReportJobs(RoundReport* report);     // Report's job entities and changed job records
  void ReportHistory(RoundReport* report);  // Report's new wait samples and changed timers
  VarId Var(int pool, int job) const {
    return vars_[static_cast<size_t>(job) * settings_.types.size() + pool];
  }

  DomainSettings settings_;
  std::vector<JobSpec> jobs_;  // the workload's jobs, then the submitted ones (slot order)
  size_t workload_jobs_ = 0;
  std::vector<int> submitted_round_;  // per submitted job: the round its event applied in
  std::vector<ConstraintId> column_;  // per slot: sum_k x[k, j] <= g_j
  size_t written_slots_ = 0;          // slots whose rows and terms the problem holds
  double origin_s_ = 0;
  std::vector<VarId> vars_;
  std::vector<double> t_equal_;
  // The max-min term's coefficient of x[type, job] (normalised throughput per GPU).
  double ValueCoefficient(int job, int type) const;
  double inactive_constant_ = 1;  // before any job is active; Refresh uses the smallest ceiling
  std::vector<char> active_;
  std::unique_ptr<Simulation> sim_;
  Policy policy_ = Policy::kDally;
  int sim_round_ = 0;  // ticks simulated so far
  int refreshed_round_ = -1, ticked_round_ = -1;
  std::vector<std::vector<double>> credit_;  // combined mode: per job, per pool share deficit
  // Report baseline: what the previous Report saw, to record changes only.
  std::vector<std::string> job_signature_;
  std::vector<std::map<std::pair<int, int>, size_t>> reported_samples_;
  std::map<std::string, std::pair<double, double>> reported_timers_;
  double reported_busy_gpu_s_ = 0, reported_time_s_ = 0;
};

}  // namespace dede::gpu
