#include "cluster_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dede::cluster {
namespace {
constexpr double kLogOffset = 1e-6;  // as the reference: log(T'x + 1e-6)
}

std::vector<std::vector<std::pair<int, double>>> ClusterModel::KeptTypes(
    const Instance& instance) const {
  const int num_jobs = static_cast<int>(instance.jobs.size());
  const int k = max_types_per_job_;
  if (k <= 0) return instance.throughput;
  // A type's typical relative throughput: the mean over jobs of T[r, j] / T_equal_j.
  std::vector<double> type_sum(instance.types.size(), 0.0), type_n(instance.types.size(), 0.0);
  for (int j = 0; j < num_jobs; ++j) {
    for (const auto& [r, t] : instance.throughput[j]) {
      type_sum[r] += t / t_equal_[j];
      type_n[r] += 1.0;
    }
  }
  std::vector<std::vector<std::pair<int, double>>> kept(num_jobs);
  std::vector<int> order;
  std::vector<char> taken;
  for (int j = 0; j < num_jobs; ++j) {
    const auto& all = instance.throughput[j];
    const int n = static_cast<int>(all.size());
    if (n <= k || instance.jobs[j].id < 0) {  // arrival slots keep every type
      kept[j] = all;
      continue;
    }
    taken.assign(n, 0);
    order.resize(n);
    auto take_best = [&](int count, auto score) {
      for (int i = 0; i < n; ++i) order[i] = i;
      // Ties by position (type order): deterministic.
      std::stable_sort(
          order.begin(), order.end(), [&](int a, int b) { return score(a) > score(b); });
      for (int i = 0, got = 0; i < n && got < count; ++i) {
        if (taken[order[i]]) continue;
        taken[order[i]] = 1;
        ++got;
      }
    };
    // The fastest types (the job's ceiling is on one of them), then the types where the job
    // does best relative to the other jobs (its comparative advantage): in a max-min or
    // proportional optimum the scarce fast types go to the jobs that gain most on them, and
    // the slow types to the jobs that lose least, so these are the entries an optimum uses.
    const int fastest = std::max(1, k / 4);
    take_best(fastest, [&](int i) { return all[i].second; });
    take_best(k - fastest, [&](int i) {
      const int r = all[i].first;
      return all[i].second / t_equal_[j] / (type_sum[r] / type_n[r]);
    });
    for (int i = 0; i < n; ++i)
      if (taken[i]) kept[j].push_back(all[i]);
  }
  return kept;
}

void ClusterModel::Describe(const Instance& instance,
                            Fairness fairness,
                            Problem* problem,
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
    double t_equal = 0.0;
    for (const auto& [r, t] : instance.throughput[j])
      t_equal += instance.types[r].count / total_count * t;
    if (t_equal_override != nullptr) t_equal = (*t_equal_override)[j];
    t_equal_[j] = t_equal;
  }
  const std::vector<std::vector<std::pair<int, double>>> kept = KeptTypes(instance);
  for (int j = 0; j < num_jobs; ++j) {
    const Job& job = instance.jobs[j];
    weight_[j] = job.weight;
    const double t_equal = t_equal_[j];
    LinearExpr column, value;
    for (const auto& [r, t] : kept[j]) {
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
  capacity_rows_.clear();
  for (int r = 0; r < num_types; ++r) {
    capacity_rows_.push_back(
        problem->AddResourceConstraint(r, rows[r], Sense::kLessEqual, instance.types[r].count));
  }
  // sum_r x[r, j] <= 1 bounds every job's expression by its largest coefficient; SetActive
  // lowers the constant to the active jobs' smallest ceiling.
  inactive_constant_ = largest;
  if (fairness == Fairness::kMaxMin)
    problem->SetGlobalTerm(GlobalKind::kMaxMin, Side::kDemand, blocks, exprs);
}

void ClusterModel::SetCapacity(int type, double count, Problem* problem) const {
  problem->SetRhs(capacity_rows_[type], count);
}

void ClusterModel::ResetJob(int j, const Instance& instance, double t_equal, Problem* problem) {
  const Job& job = instance.jobs[j];
  t_equal_[j] = t_equal;
  weight_[j] = job.weight;
  for (Entry& e : entries_[j]) {
    double t = 0.0;
    for (const auto& [r, value] : instance.throughput[j]) {
      if (r == e.type) t = value;
    }
    e.throughput = t;
    e.allowed = t > 0.0;
    e.coef = t > 0.0 && t_equal > 0.0 ? t * job.scale_factor / (job.weight * t_equal) : 0.0;
    problem->SetGlobalCoefficient(j, e.var, e.coef);
    problem->SetCoefficient(capacity_rows_[e.type], e.var, job.scale_factor);
  }
}

void ClusterModel::SetActive(const std::vector<char>& active, Problem* problem) {
  if (fairness_ == Fairness::kMaxMin) {
    // The optimum is at most the smallest ceiling (max_r coef) of the active jobs, so an
    // inactive slot whose expression is that constant never is the strict minimum. A much
    // larger constant (the old 2 * largest coefficient + 1) would be as correct but drags the
    // ADMM consensus on the global scalar (the mean of the copies t_b) far above the optimum:
    // at paper scale 200 arrival slots put the first iterations' target at ~2,400 against an
    // optimum of 0.31, and the demand blocks then spend the round chasing it.
    double ceiling = std::numeric_limits<double>::infinity();
    for (int j = 0; j < num_jobs(); ++j) {
      if (!active[j]) continue;
      double best = 0.0;
      for (const Entry& e : entries_[j]) best = std::max(best, e.coef);
      ceiling = std::min(ceiling, best);
    }
    if (std::isfinite(ceiling)) inactive_constant_ = ceiling;
  }
  for (int j = 0; j < num_jobs(); ++j) {
    for (const Entry& e : entries_[j]) {
      problem->SetBounds(e.var, 0.0, active[j] && e.allowed ? 1.0 : 0.0);
    }
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
