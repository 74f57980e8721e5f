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
// constant kInactiveConstant (above every active job's largest possible value, so the slot can
// never be the minimum and does not move the optimum); in proportional fairness their log
// weight is 0.
#pragma once

#include <vector>

#include "cluster_data.h"
#include "dede/problem.h"
#include "dede/solver.h"

namespace dede::cluster {

enum class Fairness { kMaxMin, kProportional };

class ClusterModel {
 public:
  // Declares the problem for every job of `instance` (all active).
  void Describe(const Instance& instance, Fairness fairness, Problem* problem);
  // Writes the active set (one flag per job) into the problem's parameters.
  void SetActive(const std::vector<char>& active, Problem* problem) const;

  // min over active jobs of the normalized throughput (max-min), or sum over active jobs of
  // w_j log(normalized throughput + 1e-6) (proportional fairness).
  double Value(const Allocation& allocation, const std::vector<char>& active) const;
  // Steps per second of job j under the allocation: sum_r T[r, j] x[r, j].
  double Throughput(int job, const Allocation& allocation) const;
  double NormalizedThroughput(int job, const Allocation& allocation) const;
  double inactive_constant() const { return inactive_constant_; }
  int num_jobs() const { return static_cast<int>(entries_.size()); }

 private:
  struct Entry {
    VarId var;
    double throughput;  // T[r, j]
    double coef;        // coefficient in the job's objective expression
  };
  Fairness fairness_ = Fairness::kMaxMin;
  std::vector<std::vector<Entry>> entries_;  // per job
  std::vector<double> weight_;
  std::vector<int> log_terms_;
  double inactive_constant_ = 1.0;
};

}  // namespace dede::cluster
