// traffic_engineering's baselines (methods beside DeDe; see te_plugin.h): the exact LP over
// the path model (Clp), POP-k (random split of the demands into k sub-problems, each with 1/k
// of every link's capacity) and demand pinning (the small demands on their shortest path, an LP
// over the rest).
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include "dede/csv.h"
#include "dede/stopwatch.h"
#include "te_plugin.h"
#include "te_text.h"

namespace dede::te {

using text::Invalid;

namespace {

// What is left of the round's solver.exact.time_limit_seconds (infinite without one).
double TimeLeft(const SolverServices& services, std::chrono::steady_clock::time_point start) {
  return services.exact_options.time_limit_seconds - Seconds(start);
}

// One of POP's pieces: a pair's demand, or a share of it after client splitting.
struct PopPiece {
  int pair;
  double demand;
};

// POP's client splitting: `extra` times, the largest piece is replaced by two halves.
void SplitLargestPieces(int extra, std::vector<PopPiece>* pieces_out) {
  std::vector<PopPiece>& pieces = *pieces_out;
  auto less = [&](int a, int b) {
    return pieces[a].demand < pieces[b].demand || (pieces[a].demand == pieces[b].demand && a > b);
  };
  std::priority_queue<int, std::vector<int>, decltype(less)> heap(less);
  for (int i = 0; i < static_cast<int>(pieces.size()); ++i) heap.push(i);
  for (int n = 0; n < extra; ++n) {
    const int i = heap.top();
    heap.pop();
    pieces[i].demand /= 2;
    pieces.push_back({pieces[i].pair, pieces[i].demand});
    heap.push(i);
    heap.push(static_cast<int>(pieces.size()) - 1);
  }
}

// Appends POP's timing line, and the groups stopped at the time limit if any, to message.
void AppendPopMessage(int k,
                      std::size_t num_pieces,
                      int workers,
                      double slowest,
                      double sum,
                      int stopped,
                      int routed_nothing,
                      double time_limit_seconds,
                      std::string* message) {
  char text[200];
  std::snprintf(text,
                sizeof(text),
                "POP-%d: %zu pieces in %d groups, %d at once; slowest group %.3f s, sum %.3f s",
                k,
                num_pieces,
                k,
                workers,
                slowest,
                sum);
  *message += text;
  if (stopped > 0) {
    std::snprintf(text,
                  sizeof(text),
                  "; %d of %d groups stopped at their share of the %.3g s time limit (%d of them "
                  "routed nothing: no feasible point at the limit, or no time left)",
                  stopped,
                  k,
                  time_limit_seconds,
                  routed_nothing);
    *message += text;
  }
}

}  // namespace

// ---- baselines ------------------------------------------------------------------------------

std::vector<MethodInfo> TrafficEngineeringPlugin::Methods() const {
  return {{"exact",
           "the compact path LP (path flows only, link and demand rows) solved by the host's exact "
           "solver (Clp)"},
          {"pop-4", "POP with 4 random demand groups, each on every link at capacity/4 (Clp)"},
          {"pop-16", "POP with 16 random demand groups, each on every link at capacity/16 (Clp)"},
          {"pop-64", "POP with 64 random demand groups, each on every link at capacity/64 (Clp)"},
          {"demand_pinning",
           "exact LP (Clp) for the top 10% of demands, the rest pinned on their shortest path"},
          {"flow_deviation",
           "min max utilisation only: shortest paths, then the repair's flow-deviation polish "
           "(no LP, no ADMM)"}};
}

Status TrafficEngineeringPlugin::SolveWith(const std::string& method,
                                           int round,
                                           const Problem& problem,
                                           const SolverServices& services,
                                           Allocation* allocation,
                                           SolveSummary* summary) {
  if (problem.num_variables() != net_.num_variables) {
    return Internal("traffic_engineering: SolveWith got a problem with " +
                    std::to_string(problem.num_variables()) + " variables, described " +
                    std::to_string(net_.num_variables));
  }
  if (method == "exact") return SolveExactLp(problem, services, allocation, summary);
  if (method == "demand_pinning") return SolvePinning(problem, services, allocation, summary);
  if (method == "flow_deviation") {
    if (settings_.objective != Objective::kMinMaxUtilization) {
      return Invalid(
          "traffic_engineering: method 'flow_deviation' needs objective "
          "min_max_utilization (this deployment's objective is max_total_flow)");
    }
    const auto start = std::chrono::steady_clock::now();
    allocation->values.assign(net_.num_variables, 0.0);
    for (const PairModel& pair : net_.pairs) {
      const int first = FirstAlivePath(pair);
      if (pair.demand > 0 && first >= 0) allocation->values[pair.flow[first]] = pair.demand;
    }
    if (settings_.polish_sweeps > 0) PolishUtilization(&allocation->values);
    SetEntriesFromPaths(allocation);
    FinishSummary("flow_deviation", problem, *allocation, summary);
    summary->termination = Termination::kConverged;
    summary->message = "shortest paths + flow deviation";
    summary->total_seconds = Seconds(start);
    return Status::Ok();
  }
  if (method.rfind("pop-", 0) == 0) {
    const std::string digits = method.substr(4);
    int k = 0;
    if (!digits.empty() && digits.size() <= 5 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      (void)ParseInteger(digits, &k);  // five digits: always an int
    }
    if (k >= 1) return SolvePop(k, round, problem, services, allocation, summary);
  }
  return Invalid("traffic_engineering has no method '" + method +
                 "' (methods: pop-4, pop-16, pop-64 or any pop-<k>, demand_pinning, "
                 "flow_deviation)");
}

Status TrafficEngineeringPlugin::SolveLp(const std::vector<Commodity>& commodities,
                                         const std::vector<double>& capacity,
                                         const SolverServices& services,
                                         double time_limit,
                                         std::vector<std::vector<double>>* flows,
                                         SolveSummary* summary,
                                         bool* routed_nothing) const {
  if (routed_nothing != nullptr) *routed_nothing = false;
  flows->assign(commodities.size(), {});
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    flows->at(k).assign(commodities[k].paths->size(), 0.0);
  }
  if (commodities.empty()) {
    summary->termination = Termination::kConverged;
    summary->message = "no commodities";
    summary->total_seconds = 0.0;
    return Status::Ok();
  }
  // Failed links: nominal capacity in the utilisation term (it must be > 0); their paths get
  // bounds 0 (and, for max total flow, the capacity row 0).
  std::vector<double> model_capacity = capacity;
  for (std::size_t e = 0; e < capacity.size(); ++e) {
    if (round_.failed[e] && model_capacity[e] <= 0)
      model_capacity[e] = net_.topology.links[e].capacity / net_.flow_unit;
  }
  CompactModel model;
  Status status = BuildCompactModel(net_.topology,
                                    model_capacity,
                                    round_.failed,
                                    commodities,
                                    settings_.objective,
                                    net_.flow_unit,
                                    settings_.topology_file,
                                    &model);
  if (!status.ok()) return status;
  ExactOptions options = services.exact_options;
  options.time_limit_seconds = std::min(options.time_limit_seconds, time_limit);
  if (!(options.time_limit_seconds > 0)) {
    summary->termination = Termination::kTimeLimit;
    summary->feasible = true;
    summary->total_seconds = 0.0;
    summary->message = "no time left: not solved, nothing routed";
    if (routed_nothing != nullptr) *routed_nothing = true;
    return Status::Ok();
  }
  Allocation solution;
  status = services.exact(model.problem, options, &solution, summary);
  if (!status.ok()) return status;
  const bool stopped = summary->termination == Termination::kTimeLimit;
  if (stopped &&
      (!summary->feasible ||
       solution.values.size() != static_cast<std::size_t>(model.problem.num_variables()))) {
    summary->message += "; the point at the time limit is not feasible: nothing of it routed";
    summary->feasible = true;  // what is kept (no flow) is
    if (routed_nothing != nullptr) *routed_nothing = true;
    return Status::Ok();
  }
  if (solution.values.size() != static_cast<std::size_t>(model.problem.num_variables())) {
    return Internal("traffic_engineering: the exact solver returned no allocation (" +
                    summary->message + ")");
  }
  for (std::size_t k = 0; k < commodities.size(); ++k) {
    for (std::size_t i = 0; i < model.flow[k].size(); ++i) {
      (*flows)[k][i] = std::max(0.0, solution[model.flow[k][i]]);
    }
  }
  return Status::Ok();
}

Status TrafficEngineeringPlugin::SolveExactLp(const Problem& problem,
                                              const SolverServices& services,
                                              Allocation* allocation,
                                              SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  // The compact path LP over every pair with a demand, at this round's capacities.
  std::vector<Commodity> commodities;
  std::vector<int> pair_of;
  std::size_t columns = 0;
  for (std::size_t p = 0; p < net_.pairs.size(); ++p) {
    if (net_.pairs[p].demand <= 0) continue;
    commodities.push_back(
        {net_.pairs[p].src, net_.pairs[p].dst, &net_.pairs[p].paths, net_.pairs[p].demand});
    pair_of.push_back(static_cast<int>(p));
    columns += net_.pairs[p].paths.size();
  }
  const std::vector<double> capacity = CapacityInUnits(1);
  std::vector<std::vector<double>> lp_flows;
  Status status =
      SolveLp(commodities, capacity, services, TimeLeft(services, start), &lp_flows, summary);
  if (!status.ok()) return status;
  const Termination termination =
      commodities.empty() ? Termination::kConverged : summary->termination;
  const std::string message = summary->message;
  const double solve_seconds = summary->total_seconds;
  std::vector<std::vector<double>> flows = ZeroPathFlows();
  for (std::size_t c = 0; c < commodities.size(); ++c) flows[pair_of[c]] = std::move(lp_flows[c]);
  SetPathFlows(flows, allocation);
  FinishSummary("exact", problem, *allocation, summary);
  summary->termination = termination;
  summary->solve_seconds = solve_seconds;
  summary->total_seconds = Seconds(start);
  summary->message = "compact path LP (" + std::to_string(commodities.size()) + " demands, " +
                     std::to_string(columns) + " path flows): " + message;
  return Status::Ok();
}

void TrafficEngineeringPlugin::FinishSummary(const std::string& method,
                                             const Problem& problem,
                                             const Allocation& allocation,
                                             SolveSummary* summary) const {
  summary->method = method;
  summary->objective = problem.EvaluateObjective(allocation.values);
  summary->max_violation = problem.MeasureViolation(allocation.values).Max();
  summary->feasible = summary->max_violation <= 1e-6;
  summary->num_threads = 1;
}

Status TrafficEngineeringPlugin::SolvePop(int k,
                                          int round,
                                          const Problem& problem,
                                          const SolverServices& services,
                                          Allocation* allocation,
                                          SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  // Pieces: one per pair with a demand, then POP's client splitting: round(f N) times the
  // largest piece is replaced by two halves.
  std::vector<PopPiece> pieces;
  for (std::size_t p = 0; p < net_.pairs.size(); ++p) {
    if (net_.pairs[p].demand > 0) pieces.push_back({static_cast<int>(p), net_.pairs[p].demand});
  }
  const int extra = static_cast<int>(std::llround(settings_.pop_split_fraction * pieces.size()));
  if (extra > 0) SplitLargestPieces(extra, &pieces);
  std::vector<std::vector<int>> pieces_of(net_.pairs.size());
  for (int i = 0; i < static_cast<int>(pieces.size()); ++i) pieces_of[pieces[i].pair].push_back(i);
  // Each pair's pieces go to distinct groups of a fresh random permutation (wrapping past k).
  std::mt19937_64 rng(StreamSeed(settings_.seed, round, 100 + static_cast<std::uint64_t>(k)));
  std::vector<int> perm(k);
  std::vector<std::vector<Commodity>> groups(k);
  std::vector<std::vector<int>> group_piece(k);
  for (std::size_t p = 0; p < net_.pairs.size(); ++p) {
    if (pieces_of[p].empty()) continue;
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t j = 0; j < pieces_of[p].size(); ++j) {
      const int g = perm[j % k];
      const PopPiece& piece = pieces[pieces_of[p][j]];
      groups[g].push_back(
          {net_.pairs[p].src, net_.pairs[p].dst, &net_.pairs[p].paths, piece.demand});
      group_piece[g].push_back(pieces_of[p][j]);
    }
  }
  const std::vector<double> capacity = CapacityInUnits(k);

  // Sub-problems in parallel (each a Clp solve), as many at once as the deployment's threads.
  int workers = services.admm_options.num_threads > 0
                    ? services.admm_options.num_threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers = std::max(1, std::min(workers, k));
  std::vector<std::vector<std::vector<double>>> group_flows(k);
  std::vector<SolveSummary> group_summary(k);
  std::vector<Status> group_status(k);
  std::vector<double> group_seconds(k, 0.0);
  std::vector<char> group_empty(k, 0);
  // solver.exact.time_limit_seconds bounds the whole round, not each group (SharedTimeLimit).
  SharedTimeLimit time_limit(services.exact_options.time_limit_seconds, k, workers, start);
  // Each group writes its own slots: the split does not change the result.
  tbb::task_arena(workers).execute([&] {
    tbb::parallel_for(0, k, [&](int g) {
      if (services.stop.stop_requested()) {
        group_status[g] = Status(StatusCode::kCancelled, "cancelled");
        return;
      }
      const double limit = time_limit.NextShare();
      const auto t0 = std::chrono::steady_clock::now();
      bool routed_nothing = false;
      group_status[g] = SolveLp(groups[g],
                                capacity,
                                services,
                                limit,
                                &group_flows[g],
                                &group_summary[g],
                                &routed_nothing);
      group_empty[g] = routed_nothing;
      group_seconds[g] = Seconds(t0);
    });
  });

  // Merge: every pair's path flows are the sums over its pieces.
  std::vector<std::vector<double>> flows = ZeroPathFlows();
  summary->termination = Termination::kConverged;
  summary->message.clear();
  int stopped = 0, routed_nothing = 0;
  for (int g = 0; g < k; ++g) {
    if (!group_status[g].ok()) {
      if (group_status[g].code() == StatusCode::kCancelled) {
        summary->termination = Termination::kCancelled;
        summary->message = "cancelled";
        continue;
      }
      return Status(group_status[g].code(),
                    "pop-" + std::to_string(k) + " group " + std::to_string(g) + ": " +
                        group_status[g].message());
    }
    if (group_summary[g].termination == Termination::kTimeLimit) {
      ++stopped;
      routed_nothing += group_empty[g];
    }
    if (!groups[g].empty() && !group_summary[g].IsSolutionUsable() &&
        summary->termination == Termination::kConverged) {
      summary->termination = group_summary[g].termination;
      summary->message = "group " + std::to_string(g) + ": " + group_summary[g].message + "; ";
    }
    for (std::size_t c = 0; c < groups[g].size(); ++c) {
      const int p = pieces[group_piece[g][c]].pair;
      for (std::size_t i = 0; i < flows[p].size(); ++i) flows[p][i] += group_flows[g][c][i];
    }
  }
  SetPathFlows(flows, allocation);
  FinishSummary("pop-" + std::to_string(k), problem, *allocation, summary);
  const double slowest = *std::max_element(group_seconds.begin(), group_seconds.end());
  const double sum = std::accumulate(group_seconds.begin(), group_seconds.end(), 0.0);
  summary->num_threads = workers;
  summary->solve_seconds = sum;
  summary->total_seconds = Seconds(start);
  AppendPopMessage(k,
                   pieces.size(),
                   workers,
                   slowest,
                   sum,
                   stopped,
                   routed_nothing,
                   services.exact_options.time_limit_seconds,
                   &summary->message);
  return Status::Ok();
}

Status TrafficEngineeringPlugin::SolvePinning(const Problem& problem,
                                              const SolverServices& services,
                                              Allocation* allocation,
                                              SolveSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  // Teal's LP-top, as DeDe compares with it: the top `pinning_top_fraction` of the demands (by
  // volume, a quantile of the positive demands) get the exact path LP over the full capacities;
  // every other demand is pinned on its shortest path in (src, dst) order, with what capacity
  // remains (max total flow) or in full (min max utilisation).
  std::vector<double> positive;
  for (const PairModel& pair : net_.pairs) {
    if (pair.demand > 0) positive.push_back(pair.demand);
  }
  const double threshold = Quantile(positive, 1.0 - settings_.pinning_top_fraction);
  std::vector<Commodity> top;
  std::vector<int> top_pair;
  for (std::size_t p = 0; p < net_.pairs.size(); ++p) {
    if (net_.pairs[p].demand > 0 && net_.pairs[p].demand >= threshold) {
      top.push_back(
          {net_.pairs[p].src, net_.pairs[p].dst, &net_.pairs[p].paths, net_.pairs[p].demand});
      top_pair.push_back(static_cast<int>(p));
    }
  }
  const std::vector<double> capacity = CapacityInUnits(1);
  std::vector<std::vector<double>> top_flows;
  // The LP has what is left of the round's time limit (the pinning after it is a pass).
  Status status = SolveLp(top, capacity, services, TimeLeft(services, start), &top_flows, summary);
  if (!status.ok()) return status;
  const double lp_seconds = summary->total_seconds;
  const Termination lp_termination = summary->termination;
  const std::string lp_message = summary->message;

  std::vector<std::vector<double>> flows = ZeroPathFlows();
  for (std::size_t c = 0; c < top.size(); ++c) flows[top_pair[c]] = top_flows[c];
  std::vector<double> residual = capacity;
  const std::vector<double> load = PathLoads(net_.topology, top, top_flows);
  for (std::size_t e = 0; e < residual.size(); ++e)
    residual[e] = std::max(0.0, residual[e] - load[e]);
  int pinned = 0;
  for (std::size_t p = 0; p < net_.pairs.size(); ++p) {
    const PairModel& pair = net_.pairs[p];
    if (pair.demand <= 0 || pair.demand >= threshold) continue;
    const int first = FirstAlivePath(pair);
    if (first < 0) continue;
    double f = pair.demand;
    if (settings_.objective == Objective::kMaxTotalFlow) {
      for (int e : pair.paths[first].links) f = std::min(f, residual[e]);
      f = std::max(0.0, f);
    }
    for (int e : pair.paths[first].links) residual[e] = std::max(0.0, residual[e] - f);
    flows[p][first] = f;
    ++pinned;
  }
  SetPathFlows(flows, allocation);
  FinishSummary("demand_pinning", problem, *allocation, summary);
  summary->termination = lp_termination == Termination::kConverged || top.empty()
                             ? Termination::kConverged
                             : lp_termination;
  summary->solve_seconds = lp_seconds;
  summary->total_seconds = Seconds(start);
  summary->message = "demand pinning: LP over " + std::to_string(top.size()) + " top demands (" +
                     lp_message + "), " + std::to_string(pinned) + " pinned";
  return Status::Ok();
}

std::vector<std::vector<double>> TrafficEngineeringPlugin::ZeroPathFlows() const {
  std::vector<std::vector<double>> flows(net_.pairs.size());
  for (std::size_t p = 0; p < net_.pairs.size(); ++p)
    flows[p].assign(net_.pairs[p].paths.size(), 0.0);
  return flows;
}

std::vector<double> TrafficEngineeringPlugin::CapacityInUnits(int parts) const {
  std::vector<double> capacity(round_.capacity.size());
  for (std::size_t e = 0; e < capacity.size(); ++e)
    capacity[e] = round_.capacity[e] / net_.flow_unit / parts;
  return capacity;
}

}  // namespace dede::te
