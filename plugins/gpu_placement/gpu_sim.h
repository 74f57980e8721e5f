// Deterministic event-driven simulator of a racks x machines x GPUs cluster, with the Dally
// scheduler (Sharma et al., IEEE BigData 2025), its variants, Tiresias and Gandiva.
// Readings of the paper's ambiguities follow /work/shared/design-notes/dally.md; see README.md.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace dede::gpu {

enum class Tier { kMachine = 0, kRack = 1, kNetwork = 2 };
enum class Policy {
  kDally,
  kDallyManual,
  kDallyNoWait,
  kDallyFullyConsolidated,
  kTiresias,
  kGandiva
};
enum class WorkModel { kArtistLinear, kTraceRuntime };

const char* PolicyName(Policy p);

struct ClusterShape {
  int racks = 2;
  int machines_per_rack = 8;
  int gpus_per_machine = 8;
  int TotalGpus() const { return racks * machines_per_rack * gpus_per_machine; }
};

// Communication overhead as a fraction of compute time, by tier (Table I of the paper by default).
struct Overhead {
  double machine = 0, rack = 0, network = 0;
  double At(Tier t) const {
    return t == Tier::kMachine ? machine : t == Tier::kRack ? rack : network;
  }
};
std::map<std::string, Overhead> TableIOverheads();
// High-skew models (largest tensor / model size), consolidated by Tiresias.
bool IsHighSkew(const std::string& model);

struct JobSpec {
  int id = 0;
  double arrival_s = 0;
  int gpus = 1;
  double iterations = 0;
  double time_per_iteration_s = 0;
  std::string model;
  Overhead overhead;  // filled from the model table, or from the trace's slowdown columns
  // Speed factor per GPU pool (heterogeneous clusters): the progress rate on pool k is multiplied
  // by pool_speed[k]. Empty: 1 on every pool.
  std::vector<double> pool_speed;
};

struct SimOptions {
  ClusterShape cluster;
  Policy policy = Policy::kDally;
  WorkModel work_model = WorkModel::kArtistLinear;  // ideal runtime = iterations*tpi/g (ArtISt-sim)
  double lease_s = 3600;                            // lease length L
  double manual_machine_timer_s = 12 * 3600;        // Dally-manual T_Mc
  double manual_rack_timer_s = 24 * 3600;           // Dally-manual T_Rk, cumulative from wait_since
  double history_leases = 48;                       // auto-tuner window H, in leases
  double machine_floor_leases = 6, rack_floor_leases = 12;
  bool sample_sd = true;                // sample SD (0 for n = 1); false: population SD
  bool enforce_rack_ge_machine = true;  // T_Rk >= T_Mc
  // Tiresias: discretized 2D-LAS (default) with thresholds in GPU-seconds of attained service, or
  // the continuous LAS that ArtISt-sim runs (tiresias_continuous_las = true).
  std::vector<double> tiresias_queue_limits_gpu_s = {3250, 7200};
  bool tiresias_continuous_las = false;
  // Tiresias placement. The paper's text: high-skew jobs are consolidated onto the fewest machines
  // possible, every other job takes whatever free GPUs it is offered (random, network-agnostic).
  // false / false gives ArtISt-sim's code: every job takes a machine, else a rack, else (low skew
  // only) any.
  bool tiresias_any_offer = true;
  bool tiresias_fewest_machines = true;
  double gandiva_migration_cost_s = 0;
  uint64_t seed = 1;  // Gandiva's random placement
  // Leases expire (the paper's preemption by non-renewal). false: a job keeps its first placement
  // until it completes (the no-preemption ablation); lease_s still is the auto-tuner's time unit.
  bool lease_expiry = true;
  // Jobs larger than a machine skip T_Mc [A9]. true (paper, code): they wait for a rack until the
  // cumulative T_Rk; false: only for T_Rk - T_Mc (the rack stage's own share of the wait).
  bool large_job_cumulative_rack_wait = true;
  // Dally's starvation clock. false (default): time since the job last entered the wait queue
  // (arrival or lease expiry), as the paper's prose (a timer elapses while the job waits for
  // resources) and the code [A8]. true: Algorithm 1's literal get_last_resource_assignment_time(),
  // i.e. since its last assignment, so the lease it just ran counts as starvation (and nearly every
  // re-acceptance records a ~1-lease sample in the auto-tuner's history).
  bool starvation_since_assignment = false;
  // Nw_sens of a job that has never run (0/0 in the paper). false (default): 1. The paper ranks
  // jobs by the network slowdown they have suffered (lower Nw_sens = more slowdown = served first);
  // a job that has not run has suffered none, so it ranks with the jobs that ran without slowdown,
  // by queue entry. true (ArtISt-sim code, design note [A4]): 0, offered GPUs before every job that
  // ran.
  bool never_run_first = false;
  // Heterogeneous clusters: one shape per GPU pool (type). Empty: the single pool `cluster`.
  std::vector<ClusterShape> pools;
  // Keep Metrics::utilization_over_time (one entry per event); off in long stepped runs.
  bool record_utilization_timeline = true;
};

// Dally's Nw_sens = (I_compl/I_total) / (T_run/T_ideal); 0 for a job that has never run.
double NetworkSensitivity(double work_done,
                          double work_total,
                          double time_running_s,
                          double ideal_runtime_s);

// Auto-tuner history of waits (in leases) per (tier, demand) with an age-based window.
class WaitHistory {
 public:
  // now_s must not decrease from one call to the next (the window is a suffix of the samples).
  void Record(Tier tier, int gpus, double now_s, double wait_leases);
  // mean + 2 sd of the entries recorded within window_s before now_s; 1 if none (then floors
  // apply).
  double Value(Tier tier, int gpus, double now_s, double window_s, bool sample_sd) const;
  size_t Size(Tier tier, int gpus) const;
  // Every sample, keyed by (tier, gpus): (recorded at, wait in leases), in recording order.
  const std::map<std::pair<int, int>, std::vector<std::pair<double, double>>>& samples() const {
    return hist_;
  }
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>>& mutable_samples() {
    return hist_;
  }

 private:
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> hist_;
};

struct Timers {
  double machine_s = 0, rack_s = 0;
};
// Algorithm 2 with the code's clamps: T_Mc = min(ceil(0.8 H), max(6, ceil(v_m))), T_Rk = min(H,
// max(12, ceil(v_r))).
Timers TunedTimers(const WaitHistory& h, int gpus, double now_s, const SimOptions& o);

// A placement: GPUs taken per machine index (machine m is in rack m / machines_per_rack).
using Placement = std::vector<std::pair<int, int>>;
Tier PlacementTier(const Placement& p, const ClusterShape& c);

class FreePool {
 public:
  explicit FreePool(const ClusterShape& c);
  int Free(int machine) const { return free_[machine]; }
  int RackFree(int rack) const;
  int TotalFree() const { return total_; }
  // Best fit: the machine with the fewest free GPUs that still fits; -1 if none.
  bool FindMachine(int gpus, Placement* out) const;
  // Best fit rack (least free that fits), filled from its machines with most free GPUs first.
  bool FindRack(int gpus, Placement* out) const;
  // ceil(gpus / GPUs per machine) machines of one rack (best-fit rack), filled fullest-free first;
  // a job larger than a rack: FindAny.
  bool FindFewestMachines(int gpus, Placement* out) const;
  // Any GPUs: racks with most free first, machines with most free first.
  bool FindAny(int gpus, Placement* out) const;
  void Take(const Placement& p);
  void Give(const Placement& p);
  const ClusterShape& shape() const { return c_; }

 private:
  ClusterShape c_;
  std::vector<int> free_;
  int total_ = 0;
};

enum class OfferResult {
  kAcceptMachine,
  kAcceptRack,
  kAcceptNetwork,
  kRejectMachineTimer,
  kRejectRackTimer,
  kNoFit
};
// Algorithm 1 for one job against the pool. starv_s = now - wait_since.
OfferResult DallyOffer(const FreePool& pool,
                       int gpus,
                       double starv_s,
                       Timers t,
                       const ClusterShape& c,
                       Placement* out);

struct JobResult {
  int id = 0;
  int gpus = 0;
  std::string model;
  double arrival_s = 0, first_start_s = -1, end_s = -1;
  double queueing_s = 0, running_s = 0, ideal_runtime_s = 0;
  int allocs[3] = {0, 0, 0};
  int migrations = 0;
};

struct Metrics {
  double makespan_s = 0;
  double jct_avg_s = 0, jct_median_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  double queue_avg_s = 0, queue_p95_s = 0, queue_p99_s = 0;
  double comm_avg_s = 0;   // average exposed communication per job: T_run - ideal runtime
  double utilization = 0;  // leased GPU-seconds / (total GPUs x makespan)
  int64_t events = 0;
  std::vector<std::pair<double, double>>
      utilization_over_time;  // (time, leased fraction) at each event
};

struct SimResult {
  std::vector<JobResult> jobs;
  Metrics metrics;
};

SimResult Simulate(const std::vector<JobSpec>& jobs, const SimOptions& o);

// A job's simulated state (Simulation::jobs()).
struct SimJob {
  JobSpec spec;
  double work = 0,
         done = 0;  // work units (GPU-seconds of compute for kArtistLinear, seconds otherwise)
  double ideal_runtime_s = 0;  // time to finish on the best possible (zero-overhead) placement
  bool arrived = false, running = false, finished = false;
  double wait_since = 0, lease_end = 0, start_time = -1;
  double last_assignment = 0;  // arrival, then the time of each assignment
  double rate = 0;             // work units per second on the current placement
  int pool = -1;               // pool of the current placement (-1 when not running)
  int target = 0;              // pool the job is offered in while it waits (combined mode)
  Placement placement;
  Timers timers;              // cached at the last tuning [A7]
  double attained_gpu_s = 0;  // Tiresias
  JobResult res;
};

// The simulator as a steppable object: events are processed in time order by AdvanceTo, so a run
// cut into ticks of any length takes exactly the same decisions (and floating-point operations) as
// one uninterrupted run. Save/Load serialize the whole dynamic state (jobs, pools, histories,
// Gandiva affinities, RNG) bit-exactly; the job specs and options are not part of the state.
class Simulation {
 public:
  Simulation(const std::vector<JobSpec>& jobs, const SimOptions& o);

  // Adds a job after construction (a live submission): it arrives at max(spec.arrival_s, now())
  // and takes the next index of jobs(). Submitting the same jobs at the same points of a run
  // gives the same run (a replay from the start takes exactly the same decisions).
  void Submit(const JobSpec& spec);
  // Processes every event batch at a time <= t.
  void AdvanceTo(double t);
  void RunToEnd() { AdvanceTo(kNever); }
  // All jobs finished, or no event can ever change anything (jobs that can never fit).
  bool Done() const { return remaining_ == 0 || next_ == kNever; }
  int remaining() const { return static_cast<int>(remaining_); }
  double now() const { return now_; }
  double next_event() const { return next_; }
  // GPU-seconds leased from the start up to time t >= now().
  double BusyGpuSecondsAt(double t) const;
  int UsedGpus() const;
  int TotalGpus() const;
  // Pool each waiting job is offered in from now on (one entry per job, jobs() order).
  void SetTargets(const std::vector<int>& pool_by_job);

  const std::vector<SimJob>& jobs() const { return jobs_; }
  const WaitHistory& history(int pool) const { return history_[pool]; }
  const ClusterShape& shape(int pool) const { return shapes_[pool]; }
  int num_pools() const { return static_cast<int>(shapes_.size()); }
  const SimOptions& options() const { return o_; }
  // The timers Dally would use now for a job of `gpus` GPUs in `pool` (policy-dependent).
  Timers CurrentTimers(int pool, int gpus) const;
  // Metrics over the jobs finished so far (the final metrics once Done()).
  SimResult Result() const;

  std::string Save() const;
  // Restores a state written by Save() for the same jobs and options; false with *error otherwise.
  bool Load(const std::string& state, std::string* error);

  static constexpr double kNever = std::numeric_limits<double>::infinity();

 private:
  bool IsDally() const;
  double Rate(const SimJob& j, Tier t, int pool) const;
  void ProcessBatch();
  double NextEvent() const;
  void Release(SimJob& j);
  void Start(SimJob& j, int pool, const Placement& p, double now);
  Timers DallyTimers(const SimJob& j, int pool, double now) const;
  double StarvationStart(const SimJob& j) const {
    return o_.starvation_since_assignment ? j.last_assignment : j.wait_since;
  }
  void OfferRound(double now);
  void DallyRound(double now, int pool, std::vector<SimJob*>& w);
  int TiresiasQueue(const SimJob& j) const;
  void TiresiasRound(double now, int pool, std::vector<SimJob*>& w);
  bool RandomPlacement(int pool, int g, Placement* p);
  bool GandivaMachine(int pool, int g, Placement* p);
  void GandivaRound(double now, int pool, std::vector<SimJob*>& w);

  SimOptions o_;
  std::vector<ClusterShape> shapes_;
  std::vector<FreePool> pools_;
  std::mt19937_64 rng_;
  std::vector<SimJob> jobs_;
  std::vector<size_t> order_;  // jobs_ indices by arrival (stable); next_arrival_ walks it
  std::vector<WaitHistory> history_;
  std::vector<std::vector<int>>
      machine_affinity_;  // Gandiva: per pool, demand a machine is affinitized to
  double t0_ = 0, now_ = 0, next_ = 0, busy_gpu_s_ = 0;
  size_t next_arrival_ = 0, remaining_ = 0;
  int64_t events_ = 0;
  std::vector<std::pair<double, double>> timeline_;
};

// Percentile with linear interpolation, p in [0, 100].
double Percentile(std::vector<double> v, double p);

// Removes the jobs without work (zero iterations or zero time per iteration: a trace's jobs
// that failed at once) and returns how many: the plugin and dally_bench both drop them and say
// so (the simulator has no meaning for a job that needs GPUs for no time).
int DropZeroWorkJobs(std::vector<JobSpec>* jobs);

// CSV loader for dally-workloads files. Unknown or empty model: overheads from the slowdown columns
// (machine = 1/cross_slot - 1, rack = 1/cross_machine - 1, network = 1/cross_rack - 1).
std::vector<JobSpec> LoadDallyCsv(const std::string& path, std::string* error);

// What `dede convert` records beside a converted trace, in `<trace>.meta.json`: the work model
// its time per iteration was written for (how the plugin and dally_bench must read it), its
// source and the conversion's counts. A trace without the file (written by hand, or a shipped
// dally-workloads file) records nothing.
struct TraceMeta {
  bool present = false;
  std::string path;        // the sidecar's path
  std::string work_model;  // artist_linear | trace_runtime
  std::string source;      // e.g. "alibaba (v2023 pod list) openb_pod_list_default.csv"
};
std::string TraceMetaPath(const std::string& trace);
// Reads the sidecar of `trace` if there is one; false with *error if it is unreadable or holds
// no valid work model.
bool ReadTraceMeta(const std::string& trace, TraceMeta* meta, std::string* error);
const char* WorkModelName(WorkModel m);
// The work model a run reads `trace` with. `requested` is the run's (explicit: the user set it).
// A trace that records its model: an explicit different choice is an error naming both; an
// implicit one takes the trace's. *note says which was taken and why (empty when the trace
// records nothing).
bool ResolveWorkModel(const std::string& trace,
                      WorkModel requested,
                      bool explicit_choice,
                      const std::string& requested_by,
                      WorkModel* resolved,
                      std::string* note,
                      std::string* error);

// CSV loader for the Tiresias simulator's job format (tiresias-sample jobs_60.csv: job_id,
// arrival_s, num_gpu, model, iterations, duration_s). duration_s is the job's run time in isolation
// on its GPUs, so the time per iteration is chosen to make the ideal runtime equal duration_s under
// `work_model`. Overheads are left empty (the caller maps the model names).
std::vector<JobSpec> LoadTiresiasCsv(const std::string& path,
                                     WorkModel work_model,
                                     std::string* error);

// Synthetic workload shaped like the paper's 500-job trace (model x demand histogram of the design
// note), lognormal durations (median 56 ks); arrivals all 0 (batch) or Poisson at jobs_per_day.
std::vector<JobSpec> GenerateWorkload(int num_jobs,
                                      bool poisson,
                                      double jobs_per_day,
                                      uint64_t seed);

}  // namespace dede::gpu
