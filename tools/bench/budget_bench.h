// dede_bench budget: the wall time of whole rounds against the solver's time budget, on the
// shipped deployments, through the product's round path (budget_bench.cpp).
#pragma once

#include <string>
#include <vector>

namespace dede::tools {

struct BudgetOptions {
  std::vector<std::string> deployments;  // default: every configs/*.yaml
  std::vector<std::string> overlays;     // --set, applied after the budget's own
  double budget = 2.0;                   // seconds: the solvers' time_limit_seconds
  int rounds = 3;                        // round 0 (cold) and warm rounds
};

int RunBudget(const BudgetOptions& options);

}  // namespace dede::tools
