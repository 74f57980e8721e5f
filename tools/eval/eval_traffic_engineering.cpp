// dede_eval, traffic engineering: DeDe (ADMM, warm-started across rounds, one solver per thread
// count), exact (the plugin's "exact" method: Clp on the compact path LP), POP-4/16/64 and demand
// pinning (the plugin's methods) on the same rounds, for max total flow ("max_flow") and min max
// link utilisation ("min_mlu").
//
// Instances ("size"):
//   small  B4 (tests/data/te), the first 3 shipped matrices at scale 4 (links congested), the
//          shipped 4 edge-disjoint paths; 3 rounds; seconds.
//   medium Kdl (754 nodes, 1,790 links; shared data) with a gravity matrix over 5% of the ordered
//          pairs (links congested); 4 computed edge-disjoint min-hop paths; per-pair demand
//          blocks; DeDe 120 s per round; 2 rounds.
//   paper  ASN2k (1,739 nodes, 8,558 links; shared data), the same at 5% of the pairs; DeDe 60 s;
//          1 round. Exact is limited by --exact-time-limit (600 s default) and may find nothing.
// Every method's allocation goes through the plugin's repair, as in a deployment; `feasible` is
// the model's largest violation <= 1e-6 after it. value: total flow (data units) or the max
// link utilisation; quality: value / exact (max flow), exact / value (min max utilisation).
//
// Environment overrides for tuning runs (none needed for the defaults): TE_EVAL_SCALE (demand
// factor), TE_EVAL_PAIR_FRACTION (share of ordered pairs with a demand), TE_EVAL_ADMM_RHO,
// TE_EVAL_ADMM_SECONDS (DeDe's time budget per round), TE_EVAL_ADMM_EPS (eps_abs = eps_rel),
// TE_EVAL_ADMM_FRACTION (DeDe's whole row per round, seed and repair included, is aimed at
// this fraction of the round's exact solve time: the acceptance test "within 1/10 of Clp's
// time" is TE_EVAL_ADMM_FRACTION=0.1),
// TE_EVAL_OBJECTIVES ("max_flow", "min_mlu" or both, comma separated), TE_EVAL_REPAIR_FILL,
// TE_EVAL_POLISH_SWEEPS, TE_EVAL_POLISH_SECONDS (the plugin's repair_fill / polish_sweeps /
// polish_seconds), TE_EVAL_ADMM_RELAXATION,
// TE_EVAL_ADMM_RHO_UPDATE_EVERY, TE_EVAL_ADMM_CHECK_EVERY, TE_EVAL_COLD_START ("repair": as
// solver.cold_start), TE_EVAL_DEMAND_BLOCKS
// ("source", the paper's grouping and the default, or "pair"), TE_EVAL_EXACT_MODEL ("entry": the
// exact row solves the main entry model with SolveExact instead of the compact path LP),
// TE_EVAL_EXACT_LP_METHOD (Clp's method for the exact LP; barrier by default),
// TE_EVAL_FINAL_ITERATE ("demand" or "resource": solver.admm.final_iterate),
// TE_EVAL_ADMM_MAX_ITERATIONS (a fixed iteration count: machine-independent quality),
// TE_EVAL_VERBOSE (1: DeDe's residual trace on stderr).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dede/host_solvers.h"
#include "dede/solver.h"
#include "eval.h"
#include "runtime/solver_services.h"
#include "te_plugin.h"

namespace dede::eval {
namespace {

using te::Objective;
using te::TrafficEngineeringPlugin;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Num(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  return buffer;
}

double EnvDouble(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  return end != v ? d : fallback;
}

ConfigNode Scalar(const std::string& key, const std::string& value) {
  return ConfigNode::Scalar(value, "dede_eval", 0, 0, "plugin.settings." + key);
}

struct SizeSpec {
  std::string label;  // instance prefix
  int rounds = 3;
  double dede_budget_seconds = kInfinity;
  double max_flow_rho = 0;  // initial ADMM rho for max total flow (0: the default)
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::string> matrices;                         // or ...
  std::vector<std::pair<std::string, std::string>> traffic;  // ... a generator
};

Result<SizeSpec> Spec(const EvalOptions& options) {
  SizeSpec spec;
  const std::string seed = std::to_string(options.seed);
  const std::string scale_env = std::getenv("TE_EVAL_SCALE") ? std::getenv("TE_EVAL_SCALE") : "";
  const std::string pair_env =
      std::getenv("TE_EVAL_PAIR_FRACTION") ? std::getenv("TE_EVAL_PAIR_FRACTION") : "";
  if (options.size == "small") {
    const std::string dir = options.repo_dir + "/tests/data/te";
    std::vector<std::string> files = {dir + "/B4.json", dir + "/B4-paths.csv"};
    for (int i = 0; i < 3; ++i) {
      spec.matrices.push_back(dir + "/matrices/B4_real_" + std::to_string(i) + "_1.0.csv");
      files.push_back(spec.matrices.back());
    }
    for (const std::string& f : files) {
      if (!std::filesystem::exists(f))
        return NotFound("traffic_engineering small: missing " + f +
                        " (the shipped B4 data; is --repo-dir the source tree?)");
    }
    const std::string scale = scale_env.empty() ? "4" : scale_env;
    spec.label = "b4-x" + scale;
    spec.rounds = 3;
    spec.settings = {{"topology", dir + "/B4.json"},
                     {"paths", dir + "/B4-paths.csv"},
                     {"scale", scale},
                     {"record_paths", "false"}};
    return spec;
  }
  std::string topology;
  if (options.size == "medium") {
    topology = "Kdl";
    spec.rounds = 2;
  } else if (options.size == "paper") {
    topology = "ASN2k";
    spec.rounds = 1;
  } else {
    return InvalidArgument("traffic_engineering: unknown size '" + options.size +
                           "' (small, medium, paper)");
  }
  const std::string file =
      options.shared_dir + "/dede-examples/traffic_engineering/topologies/" + topology + ".json";
  if (!std::filesystem::exists(file)) {
    return NotFound("traffic_engineering " + options.size + ": missing " + file + " (the " +
                    topology +
                    " topology of the shared data set dede-examples; pass "
                    "--shared-dir pointing at shared/data)");
  }
  // Gravity traffic; the total is a multiple of the sum of the capacities divided by the mean
  // path length, so that at the default scale most links are congested.
  const std::string scale = scale_env.empty() ? (topology == "Kdl" ? "1" : "1") : scale_env;
  spec.label = (topology == "Kdl" ? "kdl" : "asn2k") + std::string("/gravity-x") + scale;
  // Per-pair demand blocks: with the paper's per-source grouping the framework's block QPs were
  // too slow at these sizes (BENCHMARKS). 5% of the ordered pairs by default (Clp found no
  // feasible max-flow point within 20 minutes even then); TE_EVAL_PAIR_FRACTION=1 for all.
  spec.settings = {
      {"topology", file}, {"scale", scale}, {"record_paths", "false"}, {"demand_blocks", "pair"}};
  spec.traffic = {{"model", "gravity"},
                  {"seed", seed},
                  {"rounds", std::to_string(spec.rounds)},
                  {"pair_fraction", pair_env.empty() ? "0.05" : pair_env}};
  spec.dede_budget_seconds = topology == "Kdl" ? 120 : 60;
  spec.max_flow_rho = 1e5;
  return spec;
}

ConfigNode Settings(const SizeSpec& spec, const std::string& objective, int rounds) {
  ConfigNode node = ConfigNode::Map("dede_eval", 0, 0, "plugin.settings");
  for (const auto& [k, v] : spec.settings) {
    if (k == "demand_blocks" && std::getenv("TE_EVAL_DEMAND_BLOCKS")) continue;
    node.Insert(k, Scalar(k, v));
  }
  if (const char* blocks = std::getenv("TE_EVAL_DEMAND_BLOCKS"); blocks && *blocks) {
    node.Insert("demand_blocks", Scalar("demand_blocks", blocks));
  }
  // The plugin's repair: TE_EVAL_REPAIR_FILL (max flow, default true), TE_EVAL_POLISH_SWEEPS
  // and TE_EVAL_POLISH_SECONDS (min max utilisation, defaults the plugin's; 0 sweeps = no
  // polish, 0 seconds = no time bound).
  for (const auto& [env, key] :
       {std::pair<const char*, const char*>{"TE_EVAL_REPAIR_FILL", "repair_fill"},
        {"TE_EVAL_POLISH_SWEEPS", "polish_sweeps"},
        {"TE_EVAL_POLISH_SECONDS", "polish_seconds"}}) {
    if (const char* value = std::getenv(env); value && *value) node.Insert(key, Scalar(key, value));
  }
  node.Insert("objective", Scalar("objective", objective));
  if (!spec.matrices.empty()) {
    ConfigNode list = ConfigNode::List("dede_eval", 0, 0, "plugin.settings.traffic_matrices");
    for (const std::string& m : spec.matrices) list.Append(Scalar("traffic_matrices", m));
    node.Insert("traffic_matrices", list);
  } else {
    ConfigNode traffic = ConfigNode::Map("dede_eval", 0, 0, "plugin.settings.traffic");
    for (const auto& [k, v] : spec.traffic) traffic.Insert(k, Scalar("traffic." + k, v));
    traffic.Insert("rounds", Scalar("traffic.rounds", std::to_string(rounds)));
    node.Insert("traffic", traffic);
  }
  return node;
}

Status RunObjective(const EvalOptions& options,
                    const SizeSpec& spec,
                    const std::string& objective,
                    const RowSink& sink) {
  const bool max_flow = objective == "max_total_flow";
  const std::string short_name = max_flow ? "max_flow" : "min_mlu";
  const int rounds = options.rounds > 0 ? options.rounds : spec.rounds;
  TrafficEngineeringPlugin plugin;
  PluginContext context;
  context.config_file = "dede_eval";
  context.seed = options.seed;
  Status status = plugin.Configure(Settings(spec, objective, rounds), context);
  if (!status.ok()) return status;
  Problem problem(0, 0);
  const auto describe_start = Clock::now();
  status = plugin.Describe(&problem);
  if (!status.ok()) return status;
  std::fprintf(stderr,
               "traffic_engineering %s %s: %d nodes, %zu links, %d pairs, %d paths, %d "
               "variables, %d constraints; described in %.1f s\n",
               spec.label.c_str(),
               short_name.c_str(),
               plugin.topology().num_nodes(),
               plugin.topology().links.size(),
               plugin.num_pairs(),
               plugin.num_paths_total(),
               problem.num_variables(),
               problem.num_constraints(),
               Since(describe_start));

  AdmmOptions admm;
  // The plugin's repair makes any allocation feasible (scaling paths down, or to the demand), so
  // the framework's alternating-projection repair is off: on Kdl each of its rounds costs a full
  // ADMM half step, and it ran for minutes after the budget. TE_EVAL_ADMM_FRAMEWORK_REPAIR=1
  // turns it back on.
  admm.repair = EnvDouble("TE_EVAL_ADMM_FRAMEWORK_REPAIR", 0.0) > 0;
  if (max_flow && spec.max_flow_rho > 0) admm.rho = spec.max_flow_rho;
  admm.rho = EnvDouble("TE_EVAL_ADMM_RHO", admm.rho);
  admm.relaxation = EnvDouble("TE_EVAL_ADMM_RELAXATION", admm.relaxation);
  admm.rho_update_every =
      static_cast<int>(EnvDouble("TE_EVAL_ADMM_RHO_UPDATE_EVERY", admm.rho_update_every));
  admm.check_termination_every =
      static_cast<int>(EnvDouble("TE_EVAL_ADMM_CHECK_EVERY", admm.check_termination_every));
  admm.time_limit_seconds = EnvDouble("TE_EVAL_ADMM_SECONDS", spec.dede_budget_seconds);
  admm.max_iterations =
      static_cast<int>(EnvDouble("TE_EVAL_ADMM_MAX_ITERATIONS", admm.max_iterations));
  admm.verbose = EnvDouble("TE_EVAL_VERBOSE", 0.0) > 0;
  if (const char* side = std::getenv("TE_EVAL_FINAL_ITERATE"); side != nullptr && *side != '\0') {
    const std::string value(side);
    if (value != "demand" && value != "resource") {
      return Status(StatusCode::kInvalidArgument,
                    "TE_EVAL_FINAL_ITERATE = '" + value + "': expected demand or resource");
    }
    admm.final_iterate =
        value == "resource" ? FinalIterate::kResourceSide : FinalIterate::kDemandSide;
  }
  const double eps = EnvDouble("TE_EVAL_ADMM_EPS", 0.0);
  if (eps > 0) admm.eps_abs = admm.eps_rel = eps;
  ExactOptions exact_options;
  exact_options.time_limit_seconds = options.exact_time_limit;
  // Clp's fastest method on path LPs: barrier + crossover solves Kdl at 5% of the pairs in
  // ~36 s where the dual simplex (Clp's own choice) had no answer after 20 minutes.
  // TE_EVAL_EXACT_LP_METHOD=auto|dual|primal|barrier overrides it.
  exact_options.lp_method = LpMethod::kBarrier;
  if (const char* m = std::getenv("TE_EVAL_EXACT_LP_METHOD"); m != nullptr && *m != '\0') {
    const std::string method = m;
    if (method == "auto") {
      exact_options.lp_method = LpMethod::kAuto;
    } else if (method == "dual") {
      exact_options.lp_method = LpMethod::kDual;
    } else if (method == "primal") {
      exact_options.lp_method = LpMethod::kPrimal;
    } else if (method != "barrier") {
      return InvalidArgument("TE_EVAL_EXACT_LP_METHOD = '" + method +
                             "': expected auto, dual, primal or barrier");
    }
  }
  const SolverServices services = internal::MakeSolverServices(admm, exact_options);
  // One warm-started ADMM solver per thread count (threads 0 = all hardware threads).
  std::vector<std::unique_ptr<AdmmSolver>> solvers;
  if (options.Wants("dede")) {
    for (int threads : options.threads) {
      AdmmOptions o = admm;
      o.num_threads = threads;
      solvers.push_back(std::make_unique<AdmmSolver>(problem, o));
      if (!solvers.back()->setup_error().empty()) {
        return Internal("traffic_engineering: ADMM setup: " + solvers.back()->setup_error());
      }
    }
  }
  auto value_of = [&](const Allocation& a) {
    return max_flow ? plugin.TotalFlow(a) : plugin.MaxLinkUtilization(a);
  };
  // Per solver: seconds a row took beyond its ADMM budget (engine finish + plugin repair).
  std::vector<double> after_budget(solvers.size(), -1.0);
  for (int round = 0; round < rounds; ++round) {
    bool finished = false;
    status = plugin.Refresh(round, &problem, &finished);
    if (!status.ok()) return status;
    if (finished) break;
    const std::string instance =
        spec.label + "/tm" + (round < 10 ? "0" : "") + std::to_string(round);
    EvalRow base;
    base.domain = "traffic_engineering";
    base.objective = short_name;
    base.instance = instance;
    base.round = round;
    // Reference: the exact LP (first, so the other rows carry their quality).
    double reference = std::nan("");
    double exact_seconds = std::nan("");
    base.reference = "none";
    auto finish = [&](EvalRow row, Allocation allocation, const SolveSummary& summary) {
      // The plugin's repair (capping, overload scaling, fill) is part of every method's time.
      const auto repair_start = Clock::now();
      const Status repaired = plugin.Repair(problem, &allocation);
      const double repair_seconds = Since(repair_start);
      row.seconds += repair_seconds;
      row.feasible = repaired.ok() && problem.MeasureViolation(allocation.values).Max() <= 1e-6;
      row.value = value_of(allocation);
      if (!std::isnan(reference) && row.value > 0) {
        row.quality = max_flow ? row.value / reference : reference / row.value;
      }
      if (!row.note.empty()) row.note += "; ";
      row.note +=
          std::string(TerminationName(summary.termination)) +
          (summary.iterations >= 0 ? ", " + std::to_string(summary.iterations) + " iterations"
                                   : "") +
          (summary.resource_seconds >= 0
               ? " (resource side " + Num(summary.resource_seconds) + " s, demand side " +
                     Num(summary.demand_seconds) + " s)"
               : "") +
          (max_flow ? ", satisfied demand " + Num(row.value / plugin.TotalDemand()) : "") +
          ", plugin repair " + Num(repair_seconds) + " s";
      sink(row);
      return row;
    };
    if (options.Wants("exact")) {
      // The plugin's "exact" method: the compact path LP (path flows only), as the issue's
      // exact baseline. TE_EVAL_EXACT_MODEL=entry solves the main (entry) model instead.
      const bool entry_model = std::getenv("TE_EVAL_EXACT_MODEL") &&
                               std::string(std::getenv("TE_EVAL_EXACT_MODEL")) == "entry";
      Allocation allocation;
      SolveSummary summary;
      const auto start = Clock::now();
      Status solved = Status::Ok();
      if (entry_model) {
        SolveExact(problem, exact_options, &allocation, &summary);
      } else {
        solved = plugin.SolveWith("exact", round, problem, services, &allocation, &summary);
      }
      const double seconds = Since(start);
      exact_seconds = seconds;
      EvalRow row = base;
      row.method = "exact";
      row.threads = 1;
      row.seconds = seconds;
      const bool usable =
          solved.ok() &&
          allocation.values.size() == static_cast<std::size_t>(problem.num_variables()) &&
          summary.feasible;
      if (usable) {
        Allocation repaired = allocation;
        if (plugin.Repair(problem, &repaired).ok()) {
          reference = value_of(repaired);
          base.reference = summary.termination == Termination::kConverged
                               ? "exact"
                               : "exact@" + Num(options.exact_time_limit) + "s";
        }
        row.note = std::string(entry_model ? "entry model, " : "compact path LP, ") + "Clp " +
                   TerminationName(summary.termination);
        row.reference = base.reference;
        finish(row, allocation, summary);
      } else {
        row.note = "exact gave no feasible allocation (" +
                   (solved.ok() ? summary.message : solved.message()) + ")";
        sink(row);
      }
    }
    if (options.Wants("dede")) {
      const double fraction = EnvDouble("TE_EVAL_ADMM_FRACTION", 0.0);
      const char* cold_start = std::getenv("TE_EVAL_COLD_START");
      const bool cold_start_from_repair = cold_start && std::string(cold_start) == "repair";
      for (std::size_t i = 0; i < solvers.size(); ++i) {
        Allocation allocation;
        SolveSummary summary;
        const auto start = Clock::now();
        double seed_repair_seconds = 0;
        if (round == 0 && cold_start_from_repair) {
          // As solver.cold_start: repair in a deployment (timed with DeDe).
          Allocation seed;
          seed.values.assign(problem.num_variables(), 0.0);
          const auto repair_start = Clock::now();
          const bool repaired = plugin.Repair(problem, &seed).ok();
          seed_repair_seconds = Since(repair_start);
          if (repaired) solvers[i]->WarmStart(seed.values);
        }
        const double seed_seconds = Since(start);
        if (fraction > 0 && !std::isnan(exact_seconds)) {
          // The whole row (seed, ADMM, the engine's finish and the plugin's repair) has to fit
          // in the target: ADMM gets what the seed left, less what followed the ADMM budget in
          // the previous round. First round: twice the seed's repair (the final repair runs
          // the same routine, and the engine's gather and check cost about as much) or 5% of
          // the target, whichever is larger. (It was the whole seed, warm start included:
          // 0.17-0.39 s against 0.13-0.18 s measured after the budget.)
          const double target = fraction * exact_seconds;
          const double after = after_budget[i] >= 0
                                   ? after_budget[i]
                                   : std::max(2.0 * seed_repair_seconds, 0.05 * target);
          AdmmOptions o = solvers[i]->options();
          o.time_limit_seconds = std::max(0.05 * target, target - seed_seconds - after);
          solvers[i]->SetOptions(o);
        }
        solvers[i]->Solve(&allocation, &summary);
        EvalRow row = base;
        row.method = "dede";
        row.threads = options.threads[i] > 0 ? options.threads[i] : summary.num_threads;
        row.seconds = Since(start);
        if (allocation.values.size() != static_cast<std::size_t>(problem.num_variables())) {
          row.note = "ADMM returned no allocation: " + summary.message;
          sink(row);
          continue;
        }
        // Where the row's time went outside the iterations (the plugin's repair is added by
        // finish()): the seed, the engine's refresh and cold start, its final gather and check.
        const double iterating = summary.resource_seconds + summary.demand_seconds;
        row.note = "rho " + Num(summary.rho) + ", budget " +
                   Num(solvers[i]->options().time_limit_seconds) + " s, seed " + Num(seed_seconds) +
                   " s (repair " + Num(seed_repair_seconds) + " s), engine outside iterations " +
                   Num(summary.solve_seconds + summary.repair_seconds - iterating) + " s";
        const EvalRow done = finish(row, allocation, summary);
        after_budget[i] = done.seconds - seed_seconds - solvers[i]->options().time_limit_seconds;
      }
    }
    for (const MethodInfo& method : plugin.Methods()) {
      if (method.name == "exact" || !options.Wants(method.name)) continue;
      if (method.name == "flow_deviation" && max_flow) continue;  // a min-max heuristic
      Allocation allocation;
      SolveSummary summary;
      const auto start = Clock::now();
      status = plugin.SolveWith(method.name, round, problem, services, &allocation, &summary);
      EvalRow row = base;
      row.method = method.name;
      row.seconds = Since(start);
      row.threads = summary.num_threads > 0 ? summary.num_threads : 1;
      if (!status.ok()) {
        row.note = "failed: " + status.message();
        sink(row);
        continue;
      }
      row.note = summary.message;
      finish(row, allocation, summary);
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunTrafficEngineering(const EvalOptions& options, const RowSink& sink) {
  Result<SizeSpec> spec = Spec(options);
  if (!spec.ok()) return spec.status();
  std::string which = std::getenv("TE_EVAL_OBJECTIVES") ? std::getenv("TE_EVAL_OBJECTIVES") : "";
  if (which.empty()) which = "max_flow,min_mlu";
  Status status;
  if (which.find("max_flow") != std::string::npos) {
    status.Update(RunObjective(options, spec.value(), "max_total_flow", sink));
  }
  if (which.find("min_mlu") != std::string::npos) {
    status.Update(RunObjective(options, spec.value(), "min_max_utilization", sink));
  }
  return status;
}

}  // namespace dede::eval
