#include "runtime/solver_services.h"

#include <string>

#include "core/guard.h"
#include "dede/host_solvers.h"

namespace dede::internal {

SolverServices MakeSolverServices(const AdmmOptions& admm,
                                  const ExactOptions& exact,
                                  std::stop_token stop) {
  SolverServices services;
  services.admm_options = admm;
  services.exact_options = exact;
  services.stop = stop;
  services.admm = [stop](const Problem& problem,
                         const AdmmOptions& options,
                         Allocation* allocation,
                         SolveSummary* summary) -> Status {
    std::string error;
    if (!options.IsValid(&error)) return InvalidArgument(error);
    if (!problem.Validate(&error)) return InvalidArgument(error);
    return GuardCall("the ADMM solver", "a plugin's solve", [&] {
      AdmmSolver solver(problem, options);
      if (static_cast<int>(allocation->values.size()) == problem.num_variables())
        solver.WarmStart(allocation->values);
      solver.Solve(stop, allocation, summary);
    });
  };
  services.exact = [](const Problem& problem,
                      const ExactOptions& options,
                      Allocation* allocation,
                      SolveSummary* summary) -> Status {
    std::string error;
    if (!problem.Validate(&error)) return InvalidArgument(error);
    return GuardCall("the exact solver", "a plugin's solve", [&] {
      SolveExact(problem, options, allocation, summary);
    });
  };
  return services;
}

}  // namespace dede::internal
