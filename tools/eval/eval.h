// The evaluation harness (`dede_eval`): every method of a domain on the same instances and
// rounds, in one process run, one CSV row per (method, instance, round, threads).
//
// Each domain implements one Run* function in eval_<domain>.cpp (owned with its plugin); the
// driver (main.cpp) writes the CSV, the summary table and the gnuplot plots. A domain reports
// rows through the sink as soon as they are measured, so a long run can be watched and an
// interrupted one keeps what it measured.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "dede/status.h"

namespace dede::eval {

struct EvalOptions {
  // "small": the test configuration (seconds, data shipped in tests/data);
  // "medium": minutes; "paper": the paper's sizes (may need ../shared/data).
  std::string size = "small";
  std::vector<int> threads = {1, 0};  // DeDe thread counts to run; 0 = all hardware threads
  int rounds = 0;                     // 0: the domain's default for the size
  double exact_time_limit = 600;      // seconds per exact solve
  std::uint64_t seed = 1;
  std::string repo_dir;              // the source tree (tests/data lives here)
  std::string shared_dir;            // ../shared/data, may not exist: say what is missing and skip
  std::vector<std::string> methods;  // empty: all methods of the domain
  bool Wants(const std::string& method) const {
    if (methods.empty()) return true;
    for (const std::string& m : methods) {
      if (m == method) return true;
    }
    return false;
  }
};

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
  std::string note;
};

using RowSink = std::function<void(const EvalRow&)>;

// One per domain; each returns an error naming what is missing (data, a method name) and
// has already emitted the rows it measured.
Status RunTrafficEngineering(const EvalOptions& options, const RowSink& sink);
Status RunClusterScheduling(const EvalOptions& options, const RowSink& sink);
Status RunLoadBalancing(const EvalOptions& options, const RowSink& sink);

}  // namespace dede::eval
