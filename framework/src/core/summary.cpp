#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "dede/solver.h"

namespace dede {

const char* TerminationName(Termination t) {
  switch (t) {
    case Termination::kConverged:
      return "converged";
    case Termination::kConvergedInaccurate:
      return "converged_inaccurate";
    case Termination::kMaxIterations:
      return "max_iterations";
    case Termination::kTimeLimit:
      return "time_limit";
    case Termination::kInfeasible:
      return "infeasible";
    case Termination::kCancelled:
      return "cancelled";
    case Termination::kFailure:
      return "failure";
  }
  return "unknown";
}

const char* LpMethodName(LpMethod m) {
  switch (m) {
    case LpMethod::kAuto:
      return "auto";
    case LpMethod::kDual:
      return "dual";
    case LpMethod::kPrimal:
      return "primal";
    case LpMethod::kBarrier:
      return "barrier";
  }
  return "unknown";
}

bool SolveSummary::IsSolutionUsable() const {
  return feasible && (termination == Termination::kConverged ||
                      termination == Termination::kConvergedInaccurate);
}

std::string SolveSummary::BriefReport() const {
  char buffer[512];
  std::snprintf(buffer,
                sizeof(buffer),
                "%s: %s, iterations %d, objective %.10g, max violation %.2e, rho %.3g, "
                "time %.3f s (setup %.3f, solve %.3f, repair %.3f)",
                method.c_str(),
                TerminationName(termination),
                iterations,
                objective,
                max_violation,
                rho,
                total_seconds,
                setup_seconds,
                solve_seconds,
                repair_seconds);
  std::string out = buffer;
  if (std::isfinite(gap)) {
    std::snprintf(buffer, sizeof(buffer), ", certified gap %.2e (bound %.10g)", gap, bound);
    out += buffer;
  }
  return out;
}

double CertifiedGap(ObjectiveSense sense, double objective, double bound) {
  if (!std::isfinite(objective) || !std::isfinite(bound)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double diff = sense == ObjectiveSense::kMaximize ? bound - objective : objective - bound;
  return std::max(0.0, diff) / std::max({std::abs(bound), std::abs(objective), 1e-9});
}

std::string SolveSummary::FullReport() const {
  std::ostringstream out;
  out << BriefReport() << "\n" << message << "\n";
  if (entry_weight_min >= 0) {
    char line[256];
    std::snprintf(line,
                  sizeof(line),
                  "penalty scaling: entries x [%.3g, %.3g]",
                  entry_weight_min,
                  entry_weight_max);
    out << line;
    if (global_weight >= 0) {
      std::snprintf(line,
                    sizeof(line),
                    ", global term's copies x %.3g x [%.3g, %.3g]",
                    global_weight,
                    copy_factor_min,
                    copy_factor_max);
      out << line;
    }
    if (anderson_steps >= 0) {
      std::snprintf(line,
                    sizeof(line),
                    "; Anderson steps %d (%d undone)",
                    anderson_steps,
                    anderson_rejections);
      out << line;
    }
    out << "\n";
  }
  if (!trace.empty()) {
    char line[256];
    std::snprintf(line,
                  sizeof(line),
                  "%8s %12s %12s %12s %12s %10s %16s %16s %9s\n",
                  "iter",
                  "primal_res",
                  "primal_tol",
                  "dual_res",
                  "dual_tol",
                  "rho",
                  "objective",
                  "bound",
                  "time_s");
    out << line;
    for (const IterationSummary& it : trace) {
      std::snprintf(line,
                    sizeof(line),
                    "%8d %12.4e %12.4e %12.4e %12.4e %10.3g %16.9g %16.9g %9.3f\n",
                    it.iteration,
                    it.primal_residual,
                    it.primal_tolerance,
                    it.dual_residual,
                    it.dual_tolerance,
                    it.rho,
                    it.objective,
                    it.bound,
                    it.seconds);
      out << line;
    }
  }
  return out.str();
}

}  // namespace dede
