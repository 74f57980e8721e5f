// dede_bench convergence: how fast the ADMM engine reaches the exact optimum on a fixed suite
// of deployments, against Clp on the same instance in the same run.
#pragma once

#include <string>
#include <vector>

namespace dede::tools {

struct ConvergenceOptions {
  std::vector<std::string> deployments;  // YAML files; each names its plugin and settings
  int round = 0;                         // the plugin's round whose problem is solved
  int threads = 0;                       // ADMM threads (0: all); Clp is single-threaded
  // ADMM's budget per instance: max(min_admm_seconds, admm_time_factor x Clp's time), capped
  // by max_admm_seconds.
  double admm_time_factor = 5.0;
  double min_admm_seconds = 10.0;
  double max_admm_seconds = 300.0;
  int check_every = 5;    // iterations between trace points
  std::string trace_csv;  // optional: every trace point of every instance
  std::string markdown;   // optional: the table as markdown
  bool verbose = false;
};

// Runs the suite and prints one row per instance. Returns a process exit code.
int RunConvergence(const ConvergenceOptions& options);

}  // namespace dede::tools
