// Synthetic separable allocation problems for benchmarks and the CLI example.
#pragma once

#include <cstdint>
#include <memory>

#include "dede/problem.h"

namespace dede::tools {

struct SyntheticSpec {
  int resources = 1000;
  int demands = 10000;
  int entries_per_demand = 100;  // distinct random resources per demand
  std::uint64_t seed = 1;
};

// Weighted transportation LP: maximize sum_ij w_ij x_ij subject to sum_j x_ij <= cap_i per
// resource, sum_i x_ij <= volume_j per demand, x >= 0. Capacities are set to 60% of the
// demand routed to each resource, so resources are congested and both sides bind.
std::unique_ptr<Problem> MakeTransportLp(const SyntheticSpec& spec);

}  // namespace dede::tools
