// The evaluation harness's rows (`dede_eval deployments`, deployments.h): one CSV row per
// (deployment, method, round, threads). The driver (main.cpp) writes the CSV, the summary
// table and the plots; rows arrive through the sink as soon as they are measured, so a long
// run can be watched and an interrupted one keeps what it measured.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "dede/status.h"

namespace dede::eval {

struct EvalRow {
  std::string domain;     // "traffic_engineering", "cluster_scheduling", "load_balancing"
  std::string objective;  // "max_flow", "min_mlu", "max_min", "prop_fair", "movements"
  std::string method;     // "dede", "exact", "pop-4", "pop-16", "pop-64", "gandiva",
                          // "greedy", "demand_pinning", ...
  std::string instance;   // "b4/tm03", "kdl/gravity-x4", "456x2000/seed1"
  int round = 0;
  int threads = 1;  // threads used by the method (1 for single-threaded baselines)
  // The objective in the domain's units (total flow, max utilization, movements, ...).
  double value = std::numeric_limits<double>::quiet_NaN();
  // Higher is better, 1 = as good as the reference: value / ref for maximization, ref / value
  // for minimization (movements: NaN when ref = 0 and value > 0; say so in `note`).
  double quality = std::numeric_limits<double>::quiet_NaN();
  std::string reference;  // what quality is relative to: "exact", "exact@600s", "none"
  double seconds = std::numeric_limits<double>::quiet_NaN();  // wall time of the solve
  bool feasible = false;  // within 1e-6 after the method's repair
  // The method's certified gap: how far from the optimum its allocation can be, proven by its
  // own bound (relative; NaN: the method proves none, e.g. POP).
  double gap = std::numeric_limits<double>::quiet_NaN();
  std::string note;
};

using RowSink = std::function<void(const EvalRow&)>;

}  // namespace dede::eval
