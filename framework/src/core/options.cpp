// Option validation lives in the core library so that configuration code (and plugins) can
// check solver options without linking the solvers.
#include <cmath>
#include <sstream>

#include "dede/solver.h"

namespace dede {

bool AdmmOptions::IsValid(std::string* error) const {
  auto fail = [&](const char* field, double value, const char* bound) {
    if (error) {
      std::ostringstream out;
      out << "AdmmOptions::" << field << " = " << value << ". Violated constraint: " << bound;
      *error = out.str();
    }
    return false;
  };
  if (max_iterations < 1) return fail("max_iterations", max_iterations, "max_iterations >= 1");
  if (!(rho > 0) || !std::isfinite(rho)) return fail("rho", rho, "0 < rho < inf");
  if (!(relaxation > 0 && relaxation < 2))
    return fail("relaxation", relaxation, "0 < relaxation < 2");
  if (!(eps_abs >= 0) || !std::isfinite(eps_abs))
    return fail("eps_abs", eps_abs, "0 <= eps_abs < inf");
  if (!(eps_rel >= 0) || !std::isfinite(eps_rel))
    return fail("eps_rel", eps_rel, "0 <= eps_rel < inf");
  if (eps_abs == 0 && eps_rel == 0) return fail("eps_abs", eps_abs, "eps_abs > 0 or eps_rel > 0");
  if (check_termination_every < 1)
    return fail("check_termination_every", check_termination_every, "check_termination_every >= 1");
  if (rho_update_every < 1)
    return fail("rho_update_every", rho_update_every, "rho_update_every >= 1");
  if (anderson_memory < 0 || anderson_memory > 50)
    return fail("anderson_memory", anderson_memory, "0 <= anderson_memory <= 50");
  if (!(fill_slack >= 0 && fill_slack < 1))
    return fail("fill_slack", fill_slack, "0 <= fill_slack < 1");
  if (anderson_interval < 1)
    return fail("anderson_interval", anderson_interval, "anderson_interval >= 1");
  if (!(rho_update_tolerance >= 1))
    return fail("rho_update_tolerance", rho_update_tolerance, "rho_update_tolerance >= 1");
  if (!(rho_min > 0)) return fail("rho_min", rho_min, "rho_min > 0");
  if (!(rho_max >= rho_min)) return fail("rho_max", rho_max, "rho_max >= rho_min");
  if (!(time_limit_seconds > 0))
    return fail("time_limit_seconds", time_limit_seconds, "time_limit_seconds > 0");
  if (num_threads < 0 || num_threads > kMaxThreads)
    return fail("num_threads", num_threads, "0 <= num_threads <= 1024");
  if (repair_max_rounds < 0)
    return fail("repair_max_rounds", repair_max_rounds, "repair_max_rounds >= 0");
  if (!(feasibility_tolerance > 0) || !std::isfinite(feasibility_tolerance))
    return fail("feasibility_tolerance", feasibility_tolerance, "0 < feasibility_tolerance < inf");
  if (integer_iterations < 0)
    return fail("integer_iterations", integer_iterations, "integer_iterations >= 0");
  if (!(integer_rho_growth >= 1))
    return fail("integer_rho_growth", integer_rho_growth, "integer_rho_growth >= 1");
  if (block_node_limit < 1)
    return fail("block_node_limit", block_node_limit, "block_node_limit >= 1");
  if (!(gap_tolerance >= 0 && gap_tolerance < 1))
    return fail("gap_tolerance", gap_tolerance, "0 <= gap_tolerance < 1");
  return true;
}

}  // namespace dede
