// `dede_eval deployments`: the evaluation harness as a thin driver over deployment files.
//
// Every method runs the product's own round path (config loading with --set overlays, the
// plugin loaded through the registry, Runner and RoundPipeline: refresh, solve, the plugin's
// repair, one measure, report), on the same rounds of the same deployment, nothing persisted.
// A method is an overlay of the deployment: "admm" (solver.kind: admm, once per thread count:
// solver.admm.num_threads), "exact" (solver.kind: exact), any other name a method of the
// plugin (solver.kind: plugin, solver.method: NAME; "plugin:NAME" when the plugin's method is
// itself called exact or admm). A row's value is a metric the plugin reports (--value) or the
// model's objective; its quality is relative to the reference method's value in the same
// round, in the sense of the model's objective (value / reference when maximising).
#pragma once

#include <string>
#include <vector>

#include "dede/status.h"
#include "eval.h"

namespace dede::eval {

struct DeploymentSuite {
  std::vector<std::string> configs;   // deployment files
  std::vector<std::string> overlays;  // KEY=VALUE, applied to every run (before the method's)
  std::vector<std::string> methods;   // empty: exact, admm and every method of the plugin
  std::vector<int> threads = {1, 0};  // ADMM thread counts (0: every hardware thread)
  int rounds = 1;                     // rounds per deployment and method (0: until finished)
  std::string value_metric;           // a plugin metric as the row's value; "": the objective
  std::string reference = "exact";    // the method quality is relative to ("": none)
  // KEY=V1,V2,...: every deployment runs once per combination of the listed values (an overlay
  // each); its rows are grouped as "<deployment> KEY=V ...".
  std::vector<std::string> sweeps;
  // > 0: every method but the reference gets solver.admm.time_limit_seconds = this fraction of
  // the reference's median round time on the same deployment (measured in the same run).
  double budget_fraction = 0;
  // Only each run's final round makes a row (a simulation's end-of-run figures: JCT, makespan).
  bool last_round_only = false;
};

// The overlay sets of the sweeps (the cartesian product, first sweep outermost) with their
// labels ("KEY=V KEY2=W"); one empty set without sweeps. Errors name the malformed sweep.
Result<std::vector<std::pair<std::string, std::vector<std::string>>>> SweepCombinations(
    const std::vector<std::string>& sweeps);

// Emits one row per (deployment, method, thread count, round). Errors name the deployment and
// the method; a method that fails leaves a row saying why and the others still run.
Status RunDeployments(const DeploymentSuite& suite, const RowSink& sink);

}  // namespace dede::eval
