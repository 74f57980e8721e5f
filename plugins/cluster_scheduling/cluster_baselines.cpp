#include "cluster_baselines.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include "dede/config_node.h"
#include "dede/stopwatch.h"

namespace dede::cluster {
namespace {

using Clock = dede::SteadyClock;
using dede::SecondsSince;

// Worse outcome first: the merged POP summary reports its worst part.
int Rank(Termination t) {
  switch (t) {
    case Termination::kConverged:
      return 0;
    case Termination::kConvergedInaccurate:
      return 1;
    case Termination::kMaxIterations:
      return 2;
    case Termination::kTimeLimit:
      return 3;
    case Termination::kInfeasible:
      return 4;
    case Termination::kCancelled:
      return 5;
    case Termination::kFailure:
      return 6;
  }
  return 6;
}

// Scales job j's entries down so that their sum, `row`, becomes 1 (nothing if it is <= 1).
void CapJobRow(const ClusterModel& model, int j, double row, Allocation* allocation) {
  if (row <= 1.0) return;
  for (const ClusterModel::Entry& e : model.entries(j)) allocation->values[e.var] /= row;
}

// One POP part's instance: the worker types part_types and the given jobs of instance, each
// with the model's entries and its t_equal appended to t_equal.
void BuildPart(const Instance& instance,
               const ClusterModel& model,
               const std::vector<WorkerType>& part_types,
               const std::vector<int>& jobs,
               Instance* part,
               std::vector<double>* t_equal) {
  part->types = part_types;
  for (int j : jobs) {
    part->jobs.push_back(instance.jobs[j]);
    // The model's entries (all allowed types, or the kept ones with max_types_per_job), so
    // that part entry e is the model's entry e.
    std::vector<std::pair<int, double>> types;
    for (const ClusterModel::Entry& e : model.entries(j)) types.emplace_back(e.type, e.throughput);
    part->throughput.push_back(std::move(types));
    t_equal->push_back(model.t_equal(j));
  }
}

// Solves one POP part's problem with the host's ADMM or exact solver, within limit seconds.
Status SolvePart(const Problem& problem,
                 const PopOptions& options,
                 const SolverServices& services,
                 double limit,
                 Allocation* part_allocation,
                 SolveSummary* part_summary) {
  if (options.use_admm) {
    AdmmOptions admm = services.admm_options;
    if (options.threads > 1) admm.num_threads = 1;
    admm.time_limit_seconds = std::min(admm.time_limit_seconds, limit);
    return services.admm(problem, admm, part_allocation, part_summary);
  }
  ExactOptions exact = services.exact_options;
  exact.time_limit_seconds = std::min(exact.time_limit_seconds, limit);
  return services.exact(problem, exact, part_allocation, part_summary);
}

// Copies a solved part's allocation (clamped to [0, 1]) into the model's entries of its jobs.
void CopyPartAllocation(const ClusterModel& model,
                        const ClusterModel& part_model,
                        const std::vector<int>& jobs,
                        const Allocation& part_allocation,
                        Allocation* allocation) {
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& from = part_model.entries(static_cast<int>(i));
    const auto& to = model.entries(jobs[i]);
    for (std::size_t e = 0; e < from.size(); ++e)
      allocation->values[to[e].var] = std::clamp(part_allocation[from[e].var], 0.0, 1.0);
  }
}

// Completes POP's merged message: the parts' count and slowest time (when no part reported),
// then the parts stopped at or started past the time limit.
void FinishPopMessage(const std::string& method,
                      const PopResult& local,
                      int stopped,
                      int out_of_time,
                      double budget,
                      std::string* message) {
  if (message->empty())
    *message = method + ": " + std::to_string(local.parts_solved) + " parts, slowest " +
               std::to_string(local.max_part_seconds) + " s";
  if (stopped + out_of_time > 0) {
    *message += "; " + std::to_string(stopped) + " parts stopped at their share of the " +
                FormatNumber(budget) + " s time limit, " + std::to_string(out_of_time) +
                " not solved (no time left)";
  }
}

}  // namespace

void SolveGandiva(const Instance& instance,
                  const ClusterModel& model,
                  const std::vector<char>& active,
                  int num_variables,
                  Allocation* allocation) {
  allocation->values.assign(num_variables, 0.0);
  int m = 0;
  for (int j = 0; j < model.num_jobs(); ++j) m += active[j] != 0;
  if (m == 0) return;
  for (int j = 0; j < model.num_jobs(); ++j) {
    if (!active[j]) continue;
    const double s = instance.jobs[j].scale_factor;
    double row = 0.0;
    for (const ClusterModel::Entry& e : model.entries(j)) {
      const double share = instance.types[e.type].count / static_cast<double>(m) / s;
      allocation->values[e.var] = share;
      row += share;
    }
    CapJobRow(model, j, row, allocation);
  }
}

void SolveLoadShare(const Instance& instance,
                    const ClusterModel& model,
                    const std::vector<char>& active,
                    int num_variables,
                    Allocation* allocation) {
  allocation->values.assign(num_variables, 0.0);
  std::vector<double> load(instance.types.size(), 0.0);
  for (int j = 0; j < model.num_jobs(); ++j) {
    if (!active[j]) continue;
    for (const ClusterModel::Entry& e : model.entries(j)) {
      if (e.allowed) load[e.type] += instance.jobs[j].scale_factor;
    }
  }
  for (int j = 0; j < model.num_jobs(); ++j) {
    if (!active[j]) continue;
    double row = 0.0;
    for (const ClusterModel::Entry& e : model.entries(j)) {
      if (!e.allowed || !(load[e.type] > 0)) continue;
      const double share = instance.types[e.type].count / load[e.type];
      allocation->values[e.var] = share;
      row += share;
    }
    CapJobRow(model, j, row, allocation);
  }
}

double FillIdleGpus(const Instance& instance,
                    const ClusterModel& model,
                    const std::vector<char>& active,
                    Allocation* allocation) {
  std::vector<double>& x = allocation->values;
  std::vector<double> residual(instance.types.size());
  for (std::size_t r = 0; r < residual.size(); ++r) residual[r] = instance.types[r].count;
  std::vector<int> jobs;
  std::vector<double> room(model.num_jobs(), 0.0), value(model.num_jobs(), 0.0);
  for (int j = 0; j < model.num_jobs(); ++j) {
    double row = 0.0;
    for (const ClusterModel::Entry& e : model.entries(j)) {
      residual[e.type] -= instance.jobs[j].scale_factor * x[e.var];
      row += x[e.var];
    }
    if (!active[j]) continue;
    room[j] = 1.0 - row;
    value[j] = model.NormalizedThroughput(j, *allocation);
    if (room[j] > 1e-9) jobs.push_back(j);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [&](int a, int b) { return value[a] < value[b]; });
  double added = 0.0;
  std::vector<const ClusterModel::Entry*> order;
  for (const int j : jobs) {
    const double s = instance.jobs[j].scale_factor;
    order.clear();
    for (const ClusterModel::Entry& e : model.entries(j)) {
      if (e.allowed && e.throughput > 0) order.push_back(&e);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
      return a->throughput > b->throughput;
    });
    for (const ClusterModel::Entry* e : order) {
      if (room[j] <= 1e-12) break;
      // A margin below the capacity so that rounding never pushes a row over it.
      const double add = std::min(room[j], (residual[e->type] - 1e-9) / s);
      if (!(add > 1e-12)) continue;
      x[e->var] += add;
      room[j] -= add;
      residual[e->type] -= add * s;
      added += add * s;
    }
  }
  return added;
}

Status SolvePop(const Instance& instance,
                const ClusterModel& model,
                const std::vector<char>& active,
                int num_variables,
                const PopOptions& options,
                const SolverServices& services,
                Allocation* allocation,
                SolveSummary* summary,
                PopResult* result) {
  const Clock::time_point start = Clock::now();
  if (options.k < 1)
    return InvalidArgument("POP: k = " + std::to_string(options.k) + " must be >= 1");
  const int k = options.k;
  const std::string method = "pop-" + std::to_string(k);
  if (options.use_admm ? !services.admm : !services.exact)
    return InvalidArgument(method + ": the host lent no " +
                           std::string(options.use_admm ? "ADMM" : "exact") + " solver");

  // Jobs -> groups: independent uniform draws, as the reference's PartitionedProblem.
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<int> pick(0, k - 1);
  std::vector<std::vector<int>> groups(k);
  for (int j = 0; j < model.num_jobs(); ++j)
    if (active[j]) groups[pick(rng)].push_back(j);

  std::vector<WorkerType> part_types = instance.types;
  for (WorkerType& t : part_types) t.count /= k;  // floor(count_r / k), may be 0

  allocation->values.assign(num_variables, 0.0);
  *summary = SolveSummary();
  summary->method = method + (options.use_admm ? "/admm" : "/exact");
  summary->termination = Termination::kConverged;
  summary->message = "";
  PopResult local;
  std::mutex mutex;
  Status status;

  // The deployment's time limit (solver.exact's, or solver.admm's with use_admm) bounds the
  // whole round, not each part: a part starting gets what is left over the waves of parts still
  // to run, `threads` at a time; one starting with nothing left is not solved (its jobs get
  // nothing) and is counted.
  const double budget = options.use_admm ? services.admm_options.time_limit_seconds
                                         : services.exact_options.time_limit_seconds;
  int out_of_time = 0, stopped = 0;
  auto solve_part = [&](int g, double limit) {
    if (!(limit > 0)) {
      std::lock_guard<std::mutex> lock(mutex);
      ++out_of_time;
      local.all_usable = false;
      if (Rank(Termination::kTimeLimit) > Rank(summary->termination)) {
        summary->termination = Termination::kTimeLimit;
        summary->message = method + " part " + std::to_string(g) + ": no time left";
      }
      return;
    }
    const std::vector<int>& jobs = groups[g];
    Instance part;
    std::vector<double> t_equal;
    BuildPart(instance, model, part_types, jobs, &part, &t_equal);
    Problem problem(0, 0);
    ClusterModel part_model;
    part_model.Describe(part, model.fairness(), &problem, &t_equal);
    part_model.SetActive(std::vector<char>(jobs.size(), 1), &problem);
    Allocation part_allocation;
    SolveSummary part_summary;
    const Clock::time_point part_start = Clock::now();
    const Status part_status =
        SolvePart(problem, options, services, limit, &part_allocation, &part_summary);
    const double seconds = SecondsSince(part_start);
    std::lock_guard<std::mutex> lock(mutex);
    local.max_part_seconds = std::max(local.max_part_seconds, seconds);
    local.sum_part_seconds += seconds;
    ++local.parts_solved;
    if (!part_status.ok()) {
      status.Update(Status(part_status.code(),
                           method + " part " + std::to_string(g) + ": " + part_status.message()));
      return;
    }
    if (!part_summary.IsSolutionUsable()) local.all_usable = false;
    if (part_summary.termination == Termination::kTimeLimit) ++stopped;
    if (Rank(part_summary.termination) > Rank(summary->termination)) {
      summary->termination = part_summary.termination;
      summary->message = method + " part " + std::to_string(g) + ": " + part_summary.message;
    }
    if (part_allocation.values.size() != static_cast<std::size_t>(problem.num_variables())) return;
    CopyPartAllocation(model, part_model, jobs, part_allocation, allocation);
  };

  std::vector<int> todo;
  for (int g = 0; g < k; ++g)
    if (!groups[g].empty()) todo.push_back(g);
  // The parts in a TBB arena of `threads` workers (as the TE plugin's POP), one part a task.
  const int threads = std::clamp(options.threads, 1, std::max(1, static_cast<int>(todo.size())));
  tbb::task_arena(threads).execute([&] {
    SharedTimeLimit time_limit(budget, static_cast<int>(todo.size()), threads, start);
    tbb::parallel_for(0, static_cast<int>(todo.size()), [&](int i) {
      if (!services.stop.stop_requested()) solve_part(todo[i], time_limit.NextShare());
    });
  });
  if (services.stop.stop_requested()) {
    summary->termination = Termination::kCancelled;
    summary->message = method + ": stop requested";
  }
  FinishPopMessage(method, local, stopped, out_of_time, budget, &summary->message);
  local.seconds = SecondsSince(start);
  summary->total_seconds = local.seconds;
  summary->solve_seconds = local.sum_part_seconds;
  summary->num_threads = threads;
  if (result != nullptr) *result = local;
  return status;
}

}  // namespace dede::cluster
