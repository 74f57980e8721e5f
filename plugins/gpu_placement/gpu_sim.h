// Deterministic event-driven simulator of a racks x machines x GPUs cluster, with the Dally
// scheduler (Sharma et al., IEEE BigData 2025), its variants, Tiresias and Gandiva.
// Readings of the paper's ambiguities follow /work/shared/design-notes/dally.md; see README.md.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace dede::gpu {

enum class Tier { kMachine = 0, kRack = 1, kNetwork = 2 };
enum class Policy { kDally, kDallyManual, kDallyNoWait, kDallyFullyConsolidated, kTiresias, kGandiva };
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
  double At(Tier t) const { return t == Tier::kMachine ? machine : t == Tier::kRack ? rack : network; }
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
  bool sample_sd = true;                 // sample SD (0 for n = 1); false: population SD
  bool enforce_rack_ge_machine = true;   // T_Rk >= T_Mc
  // Tiresias: discretized 2D-LAS (default) with thresholds in GPU-seconds of attained service, or the
  // continuous LAS that ArtISt-sim runs (tiresias_continuous_las = true).
  std::vector<double> tiresias_queue_limits_gpu_s = {3250, 7200};
  bool tiresias_continuous_las = false;
  double gandiva_migration_cost_s = 0;
  uint64_t seed = 1;  // Gandiva's random placement
};

// Dally's Nw_sens = (I_compl/I_total) / (T_run/T_ideal); 0 for a job that has never run.
double NetworkSensitivity(double work_done, double work_total, double time_running_s, double ideal_runtime_s);

// Auto-tuner history of waits (in leases) per (tier, demand) with an age-based window.
class WaitHistory {
 public:
  void Record(Tier tier, int gpus, double now_s, double wait_leases);
  // mean + 2 sd of the entries recorded within window_s before now_s; 1 if none (then floors apply).
  double Value(Tier tier, int gpus, double now_s, double window_s, bool sample_sd) const;
  size_t Size(Tier tier, int gpus) const;

 private:
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> hist_;
};

struct Timers {
  double machine_s = 0, rack_s = 0;
};
// Algorithm 2 with the code's clamps: T_Mc = min(ceil(0.8 H), max(6, ceil(v_m))), T_Rk = min(H, max(12, ceil(v_r))).
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

enum class OfferResult { kAcceptMachine, kAcceptRack, kAcceptNetwork, kRejectMachineTimer, kRejectRackTimer,
                         kNoFit };
// Algorithm 1 for one job against the pool. starv_s = now - wait_since.
OfferResult DallyOffer(const FreePool& pool, int gpus, double starv_s, Timers t, const ClusterShape& c,
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
  double comm_avg_s = 0;     // average exposed communication per job: T_run - ideal runtime
  double utilization = 0;    // leased GPU-seconds / (total GPUs x makespan)
  int64_t events = 0;
  std::vector<std::pair<double, double>> utilization_over_time;  // (time, leased fraction) at each event
};

struct SimResult {
  std::vector<JobResult> jobs;
  Metrics metrics;
};

SimResult Simulate(const std::vector<JobSpec>& jobs, const SimOptions& o);

// Percentile with linear interpolation, p in [0, 100].
double Percentile(std::vector<double> v, double p);

// CSV loader for dally-workloads files. Unknown or empty model: overheads from the slowdown columns
// (machine = 1/cross_slot - 1, rack = 1/cross_machine - 1, network = 1/cross_rack - 1).
std::vector<JobSpec> LoadDallyCsv(const std::string& path, std::string* error);

// Synthetic workload shaped like the paper's 500-job trace (model x demand histogram of the design note),
// lognormal durations (median 56 ks); arrivals all 0 (batch) or Poisson at jobs_per_day.
std::vector<JobSpec> GenerateWorkload(int num_jobs, bool poisson, double jobs_per_day, uint64_t seed);

}  // namespace dede::gpu
