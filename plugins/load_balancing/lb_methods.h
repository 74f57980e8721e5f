// load_balancing methods (SDK v2 Methods()/SolveWith): the DeDe path and the baselines on one
// round, at the level of plain data (Instance, current placement) and of the plugin's Problem.
#pragma once
#include <string>
#include <vector>

#include "dede/plugin.h"
#include "lb_core.h"
#include "lb_model.h"

namespace dede::lb {

struct MethodOptions {
  DedeOptions dede;                  // "dede" (and "dede-nokeep" with keep_alive off)
  std::string pop_solver = "exact";  // POP sub-problems: "exact" (services.exact) or "dede"
};

struct MethodResult {
  Placement placement;
  double seconds = 0;            // wall time of the method
  double max_group_seconds = 0;  // POP: slowest group (the parallel time)
  int iterations = -1;           // ADMM iterations (dede)
  std::string note;              // e.g. "exact: time limit, repaired"
  DedeStats stats;
};

std::vector<MethodInfo> MethodList();

// The full MILP (every server a candidate) with services.exact; an allocation that is not a
// feasible integral placement (time limit) is repaired with RepairPlacement, no solution at
// all falls back to repairing the current placement; `note` says which.
Status SolveExactPlacement(const Instance& in,
                           const ServerSets& current,
                           const SolverServices& services,
                           MethodResult* result);

// One of MethodList() (or "exact") on one round.
Status RunMethod(const std::string& method,
                 const Instance& in,
                 const ServerSets& current,
                 const Allowed& allowed,
                 const SolverServices& services,
                 MethodOptions* options,
                 MethodResult* result);

// The plugin's SolveWith: RunMethod on the model's round over its up servers (the model's
// compacted view), written into an allocation of `problem`; per-round method statistics in
// *record (kind "solve"). A method that finds no placement (also POP-k when the up servers
// are not a multiple of k, while the configured ones are) ends in Termination::kFailure
// without an allocation and an ok Status; only an invalid method or configuration is an
// error.
Status SolveMethod(const std::string& method,
                   const LbModel& model,
                   const Problem& problem,
                   const SolverServices& services,
                   MethodOptions* options,
                   Allocation* allocation,
                   SolveSummary* summary,
                   DomainRecord* record);

}  // namespace dede::lb
