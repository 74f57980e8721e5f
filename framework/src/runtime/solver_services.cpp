#include "runtime/solver_services.h"

#include <exception>
#include <string>

namespace dede::internal {

namespace {

template <typename F>
Status Guard(const char* what, F&& f) {
  try {
    f();
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, std::string(what) + " threw: " + e.what());
  } catch (...) {
    return Status(StatusCode::kInternal, std::string(what) + " threw a non-standard exception");
  }
}

}  // namespace

SolverServices MakeSolverServices(const AdmmOptions& admm, const ExactOptions& exact,
                                  std::stop_token stop) {
  SolverServices services;
  services.admm_options = admm;
  services.exact_options = exact;
  services.stop = stop;
  services.admm = [stop](const Problem& problem, const AdmmOptions& options,
                         Allocation* allocation, SolveSummary* summary) -> Status {
    std::string error;
    if (!options.IsValid(&error)) return InvalidArgument(error);
    if (!problem.Validate(&error)) return InvalidArgument(error);
    return Guard("ADMM solve", [&] {
      AdmmSolver solver(problem, options);
      solver.Solve(stop, allocation, summary);
    });
  };
  services.exact = [](const Problem& problem, const ExactOptions& options,
                      Allocation* allocation, SolveSummary* summary) -> Status {
    std::string error;
    if (!problem.Validate(&error)) return InvalidArgument(error);
    return Guard("exact solve", [&] { SolveExact(problem, options, allocation, summary); });
  };
  return services;
}

}  // namespace dede::internal
