// The cluster_scheduling domain: settings, the problem (ClusterModel), the round-based job
// simulator with checkpoints, and the baselines as plugin methods. Lives in cluster_core so
// that tests and dede_eval drive it without loading the shared object; the module only
// declares it (cluster_scheduling_plugin.cpp). See README.md in this directory.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster_baselines.h"
#include "cluster_data.h"
#include "cluster_model.h"
#include "dede/plugin.h"

namespace dede::cluster {

class ClusterSchedulingPlugin : public DomainPlugin {
 public:
  // The keys of plugin.settings (checked and completed by the host before Configure).
  const SettingsTable* Settings() const override;
  Status Configure(const ConfigNode& settings, const PluginContext& context) override;
  Status Describe(Problem* problem) override;
  Status Refresh(int round, Problem* problem, bool* finished) override;
  Status Report(int round,
                const Problem& problem,
                const Allocation& allocation,
                RoundReport* report) override;
  // The repair of nothing (an all-zero allocation) is the plugin's cheap allocation: the
  // better by the fairness objective of Gandiva's and the load share (SolveLoadShare). The round
  // pipeline compares it with the solver's answer (never worse than the seed) and, with
  // solver.cold_start: repair, starts ADMM there. Then, with repair_fill, any feasible
  // allocation gets the GPUs it leaves idle (FillIdleGpus); an infeasible one is left as it is.
  Status Repair(const Problem& problem, Allocation* allocation) override;
  // Max-min: solver.cold_start: repair (the first round's ADMM starts from that allocation, not
  // from zero) and solver.admm.rho = kRhoJobs / (jobs present at the start), within [1e-3, 10];
  // measured in BENCHMARKS.md, "Cluster scheduling".
  static constexpr double kRhoJobs = 200.0;
  std::vector<std::pair<std::string, std::string>> RecommendedSettings() const override;
  std::vector<MethodInfo> Methods() const override;
  Status SolveWith(const std::string& method,
                   int round,
                   const Problem& problem,
                   const SolverServices& services,
                   Allocation* allocation,
                   SolveSummary* summary) override;
  // The simulator state after `round`: the job set (checked on restore) and each job's
  // progress and completion time, doubles in hexadecimal so a restore is bit-exact.
  Status SaveState(int round, std::string* state) override;
  Status RestoreState(int last_round, const std::string& state) override;
  // Inbox events: gpu_count (a worker type's GPUs from this round on), job_depart (a job
  // leaves: inactive from this round on, never completed) and job_arrive (a job fills one of
  // the event_job_slots reserved at start). A resumed run gets them again (replay, before the
  // checkpoint is restored) and applies them the same way.
  std::vector<EventKind> EventKinds() const override;
  Status ApplyEvent(int round, const Event& event, std::string* rejection) override;

  // For tests and tools.
  const Instance& instance() const { return instance_; }
  const ClusterModel& model() const { return model_; }
  Fairness fairness() const { return fairness_; }
  std::vector<char> Active() const;  // jobs active in the round last refreshed
  int sim_round() const { return sim_round_; }
  double round_seconds() const { return round_seconds_; }

 private:
  int num_jobs() const { return static_cast<int>(instance_.jobs.size()); }
  Status LoadInstance(const ConfigNode& settings, const PluginContext& context);
  Status ApplyArrival(int round, const Event& event, std::string* rejection);
  // An arrival slot not yet filled never arrives.
  static constexpr double kUnfilledSlot = std::numeric_limits<double>::max();
  double Now() const { return sim_round_ * round_seconds_; }
  bool Arrived(int j) const { return instance_.jobs[j].arrival_s <= Now(); }
  bool AllDone() const;
  void ResetSimulation();
  // Applies one round of progress (round sim_round_) under `allocation` (empty: nothing runs)
  // and moves to the next round. Returns the jobs that completed during the round.
  std::vector<int> Advance(const Allocation& allocation);
  // Catches up to `round` without a runtime allocation (no checkpoint: `dede solve --round k`,
  // or a database written before checkpoints): earlier rounds run on Gandiva's allocation,
  // which needs no solver and is deterministic.
  void FastForward(int round);

  Fairness fairness_ = Fairness::kMaxMin;
  std::string source_ = "trace";
  std::string cluster_spec_, throughputs_, trace_, philly_trace_;
  double round_seconds_ = 360.0;
  int rounds_ = 0;
  bool report_jobs_ = true;  // demand entities for the active jobs every round
  bool repair_fill_ = true;  // the repair gives idle GPUs to jobs with room (FillIdleGpus)
  bool pop_admm_ = false;
  int pop_threads_ = 1;
  int max_types_per_job_ = 0;  // 0: an entry for every allowed type
  std::uint64_t seed_ = 0;
  GeneratorOptions generator_;
  Instance instance_;
  ClusterModel model_;
  int num_variables_ = 0;
  int sim_round_ = 0;
  std::vector<double> steps_, completion_s_;
  std::vector<int> departed_from_;  // per job: the round it left (INT_MAX: never)
  std::vector<int> base_counts_;    // the configured GPUs per type
  struct CountEvent {
    int round, type, count;
  };
  std::vector<CountEvent> count_events_;  // in the order applied
  int event_job_slots_ = 0;               // plugin.settings.event_job_slots
  std::optional<ThroughputTable> table_;  // source trace: the job types' throughputs
  std::vector<char> slot_dirty_;          // filled since the last Refresh: the model follows
  std::vector<double> slot_t_equal_;      // equal-share throughput of a filled slot's job
  bool Departed(int j) const { return departed_from_[j] <= sim_round_; }
};

}  // namespace dede::cluster
