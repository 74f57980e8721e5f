// cluster_scheduling: heterogeneity-aware GPU allocation (max-min or proportional fairness)
// driven by a round-based job simulator. See README.md in this directory.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cluster_data.h"
#include "cluster_model.h"
#include "dede/plugin.h"

namespace dede::cluster {
namespace {

std::string Resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || path.front() == '/' || dir.empty()) return path;
  return dir + "/" + path;
}

class ClusterSchedulingPlugin : public DomainPlugin {
 public:
  Status Configure(const ConfigNode& settings, const PluginContext& context) override {
    std::string fairness = "max_min";
    std::string source = "trace";
    if (!settings.IsNull()) {
      Status status = settings.CheckKeys(
          {"fairness", "source", "cluster_spec", "throughputs", "trace", "round_seconds", "rounds",
           "num_types", "num_jobs", "num_arrivals", "mean_interarrival_s",
           "restricted_fraction"});
      status.Update(settings.ReadChoice("fairness", {"max_min", "proportional"}, &fairness));
      status.Update(settings.ReadChoice("source", {"trace", "generator"}, &source));
      status.Update(settings.Read("cluster_spec", &cluster_spec_));
      status.Update(settings.Read("throughputs", &throughputs_));
      status.Update(settings.Read("trace", &trace_));
      status.Update(settings.Read("round_seconds", &round_seconds_, 1e-3, 1e9));
      status.Update(settings.Read("rounds", &rounds_, 0, 1 << 30));
      status.Update(settings.Read("num_types", &generator_.num_types, 1, 1 << 16));
      status.Update(settings.Read("num_jobs", &generator_.num_jobs, 0, 1 << 20));
      status.Update(settings.Read("num_arrivals", &generator_.num_arrivals, 0, 1 << 20));
      status.Update(settings.Read("mean_interarrival_s", &generator_.mean_interarrival_s, 1e-3, 1e12));
      status.Update(settings.Read("restricted_fraction", &generator_.restricted_fraction, 0.0, 1.0));
      if (!status.ok()) return status;
    }
    fairness_ = fairness == "max_min" ? Fairness::kMaxMin : Fairness::kProportional;
    generator_.seed = context.seed;
    if (source == "generator") {
      instance_ = GenerateInstance(generator_);
      if (instance_.jobs.empty())
        return InvalidArgument(settings.Where() + ": plugin.settings: the generator needs num_jobs + num_arrivals >= 1");
      return Status::Ok();
    }
    for (const char* key : {"cluster_spec", "throughputs", "trace"}) {
      const ConfigNode* node = settings.Find(key);
      if (node == nullptr)
        return InvalidArgument(settings.Where() + ": plugin.settings." + key +
                               " is required with source: trace");
    }
    auto types = LoadClusterSpec(Resolve(context.config_dir, cluster_spec_));
    if (!types.ok()) return types.status();
    auto table = LoadThroughputs(Resolve(context.config_dir, throughputs_));
    if (!table.ok()) return table.status();
    const std::string trace_path = Resolve(context.config_dir, trace_);
    auto jobs = LoadJobTrace(trace_path);
    if (!jobs.ok()) return jobs.status();
    auto instance = MakeInstance(types.value(), table.value(), std::move(jobs.value()), trace_path);
    if (!instance.ok()) return instance.status();
    instance_ = std::move(instance.value());
    return Status::Ok();
  }

  Status Describe(Problem* problem) override {
    model_.Describe(instance_, fairness_, problem);
    replica_ = *problem;
    ResetSimulation();
    return Status::Ok();
  }

  Status Refresh(int round, Problem* problem, bool* finished) override {
    Status status = AdvanceTo(round);
    if (!status.ok()) return status;
    *finished = (rounds_ > 0 && round >= rounds_) || AllDone();
    if (*finished) return Status::Ok();
    model_.SetActive(Active(), problem);
    return Status::Ok();
  }

  Status Report(int round, const Problem& problem, const Allocation& allocation,
                RoundReport* report) override {
    (void)problem;
    Status status = AdvanceTo(round);
    if (!status.ok()) return status;
    const std::vector<char> active = Active();
    int num_active = 0, completed = 0, arrived = 0;
    double completion_sum = 0.0;
    for (int j = 0; j < num_jobs(); ++j) {
      num_active += active[j];
      arrived += Arrived(j);
      if (completion_s_[j] >= 0) {
        ++completed;
        completion_sum += completion_s_[j] - instance_.jobs[j].arrival_s;
      }
    }
    const std::string value_name =
        fairness_ == Fairness::kMaxMin ? "min_normalized_throughput" : "sum_log_throughput";
    report->metrics = {{value_name, model_.Value(allocation, active)},
                       {"active_jobs", static_cast<double>(num_active)},
                       {"completed_jobs", static_cast<double>(completed)},
                       {"arrived_jobs", static_cast<double>(arrived)},
                       {"mean_jct_s", completed > 0 ? completion_sum / completed : 0.0},
                       {"sim_time_s", Now()}};
    for (int r = 0; r < static_cast<int>(instance_.types.size()); ++r) {
      report->entities.push_back({Side::kResource, r, instance_.types[r].name,
                                  {{"count", static_cast<double>(instance_.types[r].count)}}});
    }
    for (int j = 0; j < num_jobs(); ++j) {
      const Job& job = instance_.jobs[j];
      const double jct = completion_s_[j] >= 0 ? completion_s_[j] - job.arrival_s : -1.0;
      report->entities.push_back(
          {Side::kDemand, j, "job" + std::to_string(job.id),
           {{"weight", job.weight},
            {"active", active[j] ? 1.0 : 0.0},
            {"scale_factor", static_cast<double>(job.scale_factor)},
            {"job_type", static_cast<double>(job.job_type)},
            {"arrival_s", job.arrival_s},
            {"progress", std::min(1.0, steps_[j] / job.total_steps)},
            {"normalized_throughput", active[j] ? model_.NormalizedThroughput(j, allocation) : 0.0},
            {"completion_s", completion_s_[j]},
            {"jct_s", jct}}});
    }
    return Status::Ok();
  }

 private:
  int num_jobs() const { return static_cast<int>(instance_.jobs.size()); }
  double Now() const { return sim_round_ * round_seconds_; }
  // Arrived by the start of the current round (the steady-state jobs at time 0).
  bool Arrived(int j) const { return instance_.jobs[j].arrival_s <= Now(); }
  std::vector<char> Active() const {
    std::vector<char> active(num_jobs(), 0);
    for (int j = 0; j < num_jobs(); ++j) active[j] = Arrived(j) && completion_s_[j] < 0;
    return active;
  }
  bool AllDone() const {
    return std::all_of(completion_s_.begin(), completion_s_.end(), [](double c) { return c >= 0; });
  }
  void ResetSimulation() {
    sim_round_ = 0;
    steps_.assign(num_jobs(), 0.0);
    completion_s_.assign(num_jobs(), -1.0);
  }

  // The simulated state at the start of `round` is a function of the round number only: jobs
  // progress by the exact optimum of each earlier round (SolveExact on a private copy of the
  // problem), not by whatever the runtime's solver returned, so a restarted deployment replays
  // to exactly the same state. Only the latest state is kept: the runtime asks for rounds in
  // order, so each Refresh costs one extra exact solve; an earlier round replays from round 0.
  Status AdvanceTo(int round) {
    if (round < sim_round_) ResetSimulation();
    while (sim_round_ < round) {
      const std::vector<char> active = Active();
      if (std::any_of(active.begin(), active.end(), [](char a) { return a != 0; })) {
        model_.SetActive(active, &replica_);
        Allocation allocation;
        SolveSummary summary;
        SolveExact(replica_, ExactOptions{}, &allocation, &summary);
        if (!summary.IsSolutionUsable())
          return Internal("cluster_scheduling: simulation of round " + std::to_string(sim_round_) +
                          ": exact solve failed: " + summary.BriefReport());
        const double start = Now();
        for (int j = 0; j < num_jobs(); ++j) {
          if (!active[j]) continue;
          const double rate = model_.Throughput(j, allocation);
          const double remaining = instance_.jobs[j].total_steps - steps_[j];
          if (rate * round_seconds_ >= remaining && rate > 0) {
            completion_s_[j] = start + remaining / rate;
            steps_[j] = instance_.jobs[j].total_steps;
          } else {
            steps_[j] += rate * round_seconds_;
          }
        }
      }
      ++sim_round_;
    }
    return Status::Ok();
  }

  Fairness fairness_ = Fairness::kMaxMin;
  std::string cluster_spec_, throughputs_, trace_;
  double round_seconds_ = 360.0;
  int rounds_ = 0;
  GeneratorOptions generator_;
  Instance instance_;
  ClusterModel model_;
  Problem replica_{0, 0};
  int sim_round_ = 0;
  std::vector<double> steps_, completion_s_;
};

}  // namespace
}  // namespace dede::cluster

DEDE_DECLARE_PLUGIN(dede::cluster::ClusterSchedulingPlugin, "cluster_scheduling", "0.1.0")
