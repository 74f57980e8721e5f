#include "cluster_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dede::cluster {
namespace {
constexpr double kLogOffset = 1e-6;  // as the reference: log(T'x + 1e-6)
}

void ClusterModel::Describe(const Instance& instance, Fairness fairness, Problem* problem,
                            const std::vector<double>* t_equal_override) {
  fairness_ = fairness;
  const int num_types = static_cast<int>(instance.types.size());
  const int num_jobs = static_cast<int>(instance.jobs.size());
  *problem = Problem(num_types, num_jobs);
  problem->SetObjectiveSense(ObjectiveSense::kMaximize);
  const int x = problem->AddAllocation("x", Domain::Box(0.0, 1.0));
  double total_count = 0.0;
  for (const WorkerType& t : instance.types) total_count += t.count;
  entries_.assign(num_jobs, {});
  weight_.assign(num_jobs, 1.0);
  t_equal_.assign(num_jobs, 0.0);
  log_terms_.clear();
  std::vector<LinearExpr> rows(num_types);
  std::vector<int> blocks;
  std::vector<LinearExpr> exprs;
  double largest = 0.0;
  for (int j = 0; j < num_jobs; ++j) {
    const Job& job = instance.jobs[j];
    weight_[j] = job.weight;
    double t_equal = 0.0;
    for (const auto& [r, t] : instance.throughput[j]) t_equal += instance.types[r].count / total_count * t;
    if (t_equal_override != nullptr) t_equal = (*t_equal_override)[j];
    t_equal_[j] = t_equal;
    LinearExpr column, value;
    for (const auto& [r, t] : instance.throughput[j]) {
      const VarId v = problem->AddEntry(x, r, j);
      // Max-min: T s / (w T_equal). Proportional fairness: T / T_equal; the per-job constant
      // factor s / T_equal only shifts the objective by w log(s / T_equal) and keeps the log's
      // argument O(1) (with T s the block log solver lost accuracy on 32-GPU jobs).
      const double coef = fairness == Fairness::kMaxMin
                              ? t * job.scale_factor / (job.weight * t_equal)
                              : t / t_equal;
      entries_[j].push_back({v, r, t, coef});
      column.Add(v, 1.0);
      value.Add(v, coef);
      rows[r].Add(v, job.scale_factor);
      largest = std::max(largest, coef);
    }
    problem->AddDemandConstraint(j, column, Sense::kLessEqual, 1.0);
    if (fairness == Fairness::kMaxMin) {
      blocks.push_back(j);
      exprs.push_back(value);
    } else {
      value.constant = kLogOffset;
      log_terms_.push_back(problem->AddLogTerm(BlockId::Demand(j), value, job.weight));
    }
  }
  for (int r = 0; r < num_types; ++r)
    problem->AddResourceConstraint(r, rows[r], Sense::kLessEqual, instance.types[r].count);
  // sum_r x[r, j] <= 1 bounds every job's expression by its largest coefficient.
  inactive_constant_ = 2.0 * largest + 1.0;
  if (fairness == Fairness::kMaxMin)
    problem->SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, blocks, exprs);
}

void ClusterModel::SetActive(const std::vector<char>& active, Problem* problem) const {
  for (int j = 0; j < num_jobs(); ++j) {
    for (const Entry& e : entries_[j]) problem->SetBounds(e.var, 0.0, active[j] ? 1.0 : 0.0);
    if (fairness_ == Fairness::kMaxMin) {
      problem->SetGlobalConstant(j, active[j] ? 0.0 : inactive_constant_);
    } else {
      problem->SetLogWeight(log_terms_[j], active[j] ? weight_[j] : 0.0);
    }
  }
}

double ClusterModel::Throughput(int job, const Allocation& allocation) const {
  double sum = 0.0;
  for (const Entry& e : entries_[job]) sum += e.throughput * std::max(0.0, allocation[e.var]);
  return sum;
}

double ClusterModel::NormalizedThroughput(int job, const Allocation& allocation) const {
  double sum = 0.0;
  for (const Entry& e : entries_[job]) sum += e.coef * allocation[e.var];
  return sum;
}

double ClusterModel::Value(const Allocation& allocation, const std::vector<char>& active) const {
  if (fairness_ == Fairness::kMaxMin) {
    double least = std::numeric_limits<double>::infinity();
    for (int j = 0; j < num_jobs(); ++j)
      if (active[j]) least = std::min(least, NormalizedThroughput(j, allocation));
    return std::isinf(least) ? 0.0 : least;
  }
  double sum = 0.0;
  for (int j = 0; j < num_jobs(); ++j)
    if (active[j]) sum += weight_[j] * std::log(NormalizedThroughput(j, allocation) + kLogOffset);
  return sum;
}

}  // namespace dede::cluster
