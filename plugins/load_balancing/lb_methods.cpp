// load_balancing methods. See lb_methods.h and README.md.
#include "lb_methods.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "dede/stopwatch.h"

namespace dede::lb {
namespace {

using Clock = dede::SteadyClock;
using dede::SecondsSince;

}  // namespace

std::vector<MethodInfo> MethodList() {
  return {
      {"dede", "ADMM relaxation over servers and shards, rounding, exact flow repair, keep-alive"},
      {"dede-nokeep", "dede without keeping unused current placements alive"},
      {"greedy", "E-Store-style greedy (hottest shards off overloaded servers) + flow repair"},
      {"pop-4",
       "POP: 4 contiguous server groups, load-split shards, sub-problems solved separately"},
      {"pop-16",
       "POP: 16 contiguous server groups, load-split shards, sub-problems solved separately"}};
}

Status SolveExactPlacement(const Instance& in,
                           const ServerSets& current,
                           const SolverServices& services,
                           MethodResult* result) {
  if (!services.exact) return FailedPrecondition("load_balancing: no exact solver lent");
  LbOptions o;
  o.servers = in.servers;
  o.shards = in.shards();
  o.epsilon = in.epsilon;
  o.memory_limit = in.memory_limit;
  o.candidates = 0;
  LbModel model;
  Problem problem(1, 1);
  Status status = model.Build(o, {in.load}, &problem);
  if (!status.ok()) return status;
  status = model.SetRound(0, current, &problem);
  if (!status.ok()) return status;
  Allocation a;
  SolveSummary summary;
  status = services.exact(problem, services.exact_options, &a, &summary);
  if (!status.ok()) return status;
  result->note = std::string("exact: ") + TerminationName(summary.termination);
  if (static_cast<int>(a.values.size()) == problem.num_variables()) {
    if (!model.Evaluate(a).feasible) {
      result->note += model.Repair(problem, &a) ? ", repaired" : ", repair failed";
    }
    result->placement = model.ToPlacement(a);
    return Status::Ok();
  }
  result->note += ", no solution: current placement repaired";
  return RepairPlacement(
      in, current, current, {}, /*prune=*/true, false, 0, &result->placement, nullptr, nullptr);
}

Status RunMethod(const std::string& method,
                 const Instance& in,
                 const ServerSets& current,
                 const Allowed& allowed,
                 const SolverServices& services,
                 MethodOptions* options,
                 MethodResult* result) {
  *result = MethodResult();
  const Clock::time_point t0 = Clock::now();
  Status status;
  if (method == "dede" || method == "dede-nokeep") {
    DedeOptions o = options->dede;
    if (method == "dede-nokeep") o.keep_alive = false;
    o.admm = services.admm;
    o.admm_options = services.admm_options;
    if (std::isfinite(services.admm_options.time_limit_seconds))
      o.time_limit_seconds = services.admm_options.time_limit_seconds;
    status = SolveDede(in, current, allowed, o, &result->placement, &result->stats);
    result->iterations = result->stats.admm_iterations;
    result->note = result->stats.current_feasible ? "current placement feasible, ADMM skipped" : "";
  } else if (method == "greedy") {
    status = SolveGreedy(in, current, allowed, &result->placement);
  } else if (method == "pop-4" || method == "pop-16") {
    const int k = method == "pop-4" ? 4 : 16;
    if (!allowed.empty())
      return InvalidArgument("load_balancing: " + method +
                             " needs every server as a candidate (candidates: 0)");
    std::string notes;
    status = SolvePop(
        in,
        current,
        k,
        [&](const Instance& sub, const ServerSets& cur, Placement* out) {
          const Clock::time_point tg = Clock::now();
          Status st;
          if (options->pop_solver == "dede") {
            DedeOptions o = options->dede;
            o.admm = services.admm;
            o.admm_options = services.admm_options;
            o.admm_options.num_threads = 1;
            st = SolveDede(sub, cur, {}, o, out, nullptr);
          } else {
            MethodResult r;
            st = SolveExactPlacement(sub, cur, services, &r);
            *out = r.placement;
            if (r.note.find("repair") != std::string::npos ||
                r.note.find("time") != std::string::npos) {
              if (notes.find(r.note) == std::string::npos)
                notes += (notes.empty() ? "" : "; ") + r.note;
            }
          }
          result->max_group_seconds = std::max(result->max_group_seconds, SecondsSince(tg));
          return st;
        },
        &result->placement);
    result->note =
        "sub-problems: " + options->pop_solver + (notes.empty() ? "" : " (" + notes + ")");
  } else if (method == "exact") {
    status = SolveExactPlacement(in, current, services, result);
  } else {
    std::string names;
    for (const MethodInfo& m : MethodList()) names += (names.empty() ? "" : ", ") + m.name;
    return InvalidArgument("load_balancing has no method '" + method + "' (methods: " + names +
                           ")");
  }
  result->seconds = SecondsSince(t0);
  return status;
}

Status SolveMethod(const std::string& method,
                   const LbModel& model,
                   const Problem& problem,
                   const SolverServices& services,
                   MethodOptions* options,
                   Allocation* allocation,
                   SolveSummary* summary,
                   DomainRecord* record) {
  // The method sees the up servers only (local indices); its placement is mapped back.
  const Instance in = model.instance();
  const ServerSets& current = model.local_current();
  MethodResult r;
  Status status;
  const int pop = method == "pop-4" ? 4 : method == "pop-16" ? 16 : 0;
  if (pop > 0 && model.options().servers % pop == 0 && in.servers % pop != 0) {
    // The configured servers split into groups, the up ones this round do not: no placement
    // this round (a failed round, the deployment goes on), not a configuration error.
    status = FailedPrecondition("load_balancing: " + method + " needs the up servers (" +
                                std::to_string(in.servers) + " of " +
                                std::to_string(model.options().servers) + ") to be a multiple of " +
                                std::to_string(pop));
  } else {
    status = RunMethod(method, in, current, model.local_allowed(), services, options, &r);
  }
  summary->method = method;
  summary->total_seconds = r.seconds;
  summary->solve_seconds = r.seconds;
  summary->iterations = r.iterations;
  if (status.code() == StatusCode::kInvalidArgument) return status;
  if (!status.ok()) {
    // The method found no placement: report the failure, no allocation.
    summary->termination = Termination::kFailure;
    summary->message = status.message();
    allocation->values.clear();
    return Status::Ok();
  }
  status = model.ToAllocation(model.ToGlobal(r.placement), problem, allocation);
  if (!status.ok()) return status;
  const Check c = Evaluate(in, current, r.placement);
  summary->termination = c.feasible ? Termination::kConverged : Termination::kFailure;
  summary->feasible = c.feasible;
  summary->objective = c.movements;
  summary->message = c.feasible
                         ? "feasible placement, " + std::to_string(static_cast<int>(c.movements)) +
                               " movements" + (r.note.empty() ? "" : "; " + r.note)
                         : "infeasible placement: " + c.why;
  record->kind = "solve";
  record->key = method;
  record->values = {{"seconds", r.seconds},
                    {"movements", c.movements},
                    {"admm_iterations", double(r.stats.admm_iterations)},
                    {"admm_seconds", r.stats.admm_seconds},
                    {"repair_seconds", r.stats.repair_seconds},
                    {"candidate_pairs", double(r.stats.candidate_pairs)},
                    {"opened", double(r.stats.opened)},
                    {"added", double(r.stats.added)},
                    {"pruned", double(r.stats.pruned)},
                    {"max_group_seconds", r.max_group_seconds}};
  record->labels = {{"note", r.note}};
  return Status::Ok();
}

}  // namespace dede::lb
