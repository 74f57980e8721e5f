// Baselines for cluster scheduling (design note pop-baselines.md, sections 1.2 and 2.4):
//  * Gandiva: throughput-agnostic equal share, no packing.
//  * POP-k: the active jobs split at random into k groups; each group gets floor(count_r / k)
//    instances of every type and solves the same objective on its own; the union is the
//    allocation.
// Both work on the full problem's variables (the ClusterModel that described it), so their
// allocations are measured exactly like the ADMM and exact ones.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster_data.h"
#include "cluster_model.h"
#include "dede/plugin.h"

namespace dede::cluster {

// Gandiva without packing: m = number of active jobs; every active job j gets
// x[r, j] = (count_r / m) / s_j on each type it may run on (restricted jobs get no share of the
// other types), scaled down so that sum_r x[r, j] <= 1. Capacity holds by construction:
// sum_j s_j x[r, j] <= m * count_r / m. Inactive jobs get 0. Deterministic; no solver.
void SolveGandiva(const Instance& instance,
                  const ClusterModel& model,
                  const std::vector<char>& active,
                  int num_variables,
                  Allocation* allocation);

// Each type's GPUs shared among the active jobs that may run on it: x[r, j] = count_r / L_r with
// L_r = sum of s_j over those jobs (every row of a type with users is then full), each job then
// scaled down so that sum_r x[r, j] <= 1. Feasible by construction, like Gandiva, but it leaves
// no type idle that some job can use (Gandiva gives each job count_r / m of every type it may
// use, m = all active jobs: with 64 of 456 types a job most GPUs stay idle). Deterministic.
void SolveLoadShare(const Instance& instance,
                    const ClusterModel& model,
                    const std::vector<char>& active,
                    int num_variables,
                    Allocation* allocation);

// Work-conserving fill of any feasible allocation: the GPUs a type has left go to active jobs
// with room (sum_r x[r, j] < 1) that may run there, jobs of the lowest normalised throughput
// first, each on its fastest types first. Every x only grows and every row stays within its
// bound, so no job loses throughput and the max-min or proportional objective never drops.
// Returns the GPUs added. O(entries log entries).
double FillIdleGpus(const Instance& instance,
                    const ClusterModel& model,
                    const std::vector<char>& active,
                    Allocation* allocation);

struct PopOptions {
  int k = 4;
  std::uint64_t seed = 1;  // job -> group draw (uniform, independent: groups are not balanced)
  bool use_admm = false;   // sub-problems with services.admm instead of services.exact
  int threads = 1;         // sub-problems solved at once (each solve is single-threaded then)
};

struct PopResult {
  double seconds = 0.0;           // wall time of the whole method (split, solves, merge)
  double max_part_seconds = 0.0;  // slowest sub-problem: the ideal parallel time POP reports
  double sum_part_seconds = 0.0;  // all sub-problems one after another
  int parts_solved = 0;           // groups with at least one active job
  bool all_usable = true;         // every sub-problem returned a usable allocation
};

// POP-k on the active jobs of `instance` (described by `model`). Sub-problems normalize with the
// full cluster's equal-share throughputs (ClusterModel::t_equal), so each part maximizes the
// full problem's per-job values. Writes a full allocation (num_variables values; entries of
// jobs in no solved part are 0) and a summary (method "pop-k", termination of the worst part).
Status SolvePop(const Instance& instance,
                const ClusterModel& model,
                const std::vector<char>& active,
                int num_variables,
                const PopOptions& options,
                const SolverServices& services,
                Allocation* allocation,
                SolveSummary* summary,
                PopResult* result = nullptr);

}  // namespace dede::cluster
