// The cluster scheduling allocation problem (Gavel-style, DeDe section 5.1) on a dede::Problem.
//
// Resources = worker (GPU) types, demands = jobs; one demand slot per job of the instance, so
// the structure (entries, rows, objective coefficients) is fixed at Describe and only bounds,
// the global constants and the log weights change as jobs arrive and leave:
//  * x[r, j] >= 0 is the fraction of a round job j runs on type r; an entry exists only where
//    the job's throughput on r is > 0 (restrictions are structural).
//  * resource r: sum_j s_j x[r, j] <= count_r; demand j: sum_r x[r, j] <= 1.
//  * max-min: maximize min_j sum_r T[r,j] s_j x[r,j] / (w_j T_equal_j), with T_equal_j =
//    sum_r (count_r / sum count) T[r, j] (the job's throughput on an equal share).
//  * proportional fairness: maximize sum_j w_j log(sum_r T[r,j] s_j x[r,j] / T_equal_j + 1e-6)
//    (dividing by the per-job constant T_equal_j only shifts the objective; it keeps the
//    arguments O(1) whatever the throughput unit).
// Inactive jobs: entries bounded to [0, 0]; in max-min their global expression gets the
// constant inactive_constant() = the smallest ceiling max_r coef of the active jobs (no job can
// exceed its ceiling, so the optimum is at most that constant and an inactive slot never lowers
// the minimum); in proportional fairness their log weight is 0.
#pragma once

#include <utility>
#include <vector>

#include "cluster_data.h"
#include "dede/problem.h"
#include "dede/solver.h"

namespace dede::cluster {

enum class Fairness { kMaxMin, kProportional };

class ClusterModel {
 public:
  struct Entry {
    VarId var;
    int type;             // resource (worker type) r
    double throughput;    // T[r, j]
    double coef;          // coefficient in the job's objective expression
    bool allowed = true;  // false: the job cannot run on this type (an arrival slot's entry)
  };

  // Entries per job: 0 (default) declares one per allowed type; k > 0 keeps only k of them for
  // jobs with more (the k / 4 fastest, then the best by comparative advantage: T[r, j] /
  // T_equal_j over the mean of that ratio on type r). T_equal_j still uses every type, so the
  // per-job values are those of the full problem and any allocation of the sparse problem is
  // one of the full problem. Call before Describe.
  void set_max_types_per_job(int k) { max_types_per_job_ = k; }
  int max_types_per_job() const { return max_types_per_job_; }

  // Declares the problem for every job of `instance` (all active). `t_equal`, if given, is the
  // equal-share throughput per job to normalize with instead of the instance's own (POP
  // sub-problems pass the full cluster's, so every part maximizes the same per-job values).
  void Describe(const Instance& instance,
                Fairness fairness,
                Problem* problem,
                const std::vector<double>* t_equal = nullptr);
  // Writes the active set (one flag per job) into the problem's parameters.
  // Max-min: inactive slots get the active jobs' smallest ceiling as their constant.
  void SetActive(const std::vector<char>& active, Problem* problem);
  // GPUs of worker type `type` available to the allocation.
  void SetCapacity(int type, double count, Problem* problem) const;
  // Job j's data changed (an arrival filled its slot; max-min only): throughputs, weight and
  // scale factor are read again from `instance`, with the job's equal-share throughput
  // `t_equal`, and written into the problem's coefficients.
  void ResetJob(int j, const Instance& instance, double t_equal, Problem* problem);

  // min over active jobs of the normalized throughput (max-min), or sum over active jobs of
  // w_j log(normalized throughput + 1e-6) (proportional fairness).
  double Value(const Allocation& allocation, const std::vector<char>& active) const;
  // Steps per second of job j under the allocation: sum_r T[r, j] x[r, j].
  double Throughput(int job, const Allocation& allocation) const;
  double NormalizedThroughput(int job, const Allocation& allocation) const;
  double inactive_constant() const { return inactive_constant_; }
  int num_jobs() const { return static_cast<int>(entries_.size()); }
  Fairness fairness() const { return fairness_; }
  // The job's entries, one per allowed (and kept) type, in the order of
  // Instance::throughput[job].
  const std::vector<Entry>& entries(int job) const { return entries_[job]; }
  // T_equal_j: the job's throughput on an equal share of the cluster (steps per second).
  double t_equal(int job) const { return t_equal_[job]; }

 private:
  std::vector<std::vector<std::pair<int, double>>> KeptTypes(const Instance& instance) const;

  int max_types_per_job_ = 0;
  Fairness fairness_ = Fairness::kMaxMin;
  std::vector<std::vector<Entry>> entries_;  // per job
  std::vector<double> weight_;
  std::vector<double> t_equal_;
  std::vector<int> log_terms_;
  double inactive_constant_ = 1.0;
  std::vector<ConstraintId> capacity_rows_;  // sum_j s_j x[r, j] <= count_r, by type
};

}  // namespace dede::cluster
