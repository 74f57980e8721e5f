// The host's solvers as a plugin method sees them (dede::SolverServices): used by the runner
// for `solver.kind: plugin` and by tools that call plugin methods directly (dede_eval).
#pragma once

#include <stop_token>

#include "dede/plugin.h"

namespace dede::internal {

// Cold-start ADMM and exact solves of whatever problem the plugin hands over. Exceptions from
// the solvers become Status errors; the functions are safe to call concurrently. The solvers
// log to the process log (dede/log.h), the host's logger, as the plugin itself does.
SolverServices MakeSolverServices(const AdmmOptions& admm,
                                  const ExactOptions& exact,
                                  std::stop_token stop = {});

}  // namespace dede::internal
