// The objective and the constraint violation of a full assignment, over fixed ranges in
// parallel and merged in order: the same result as Problem's one-pass functions, whatever the
// thread count (Kdl TE, 1.5M constraints: a tenth of a second on one thread). Used by the
// engine's checks and by the runner's measure of the allocation it persists.
#pragma once

#include <string>
#include <vector>

#include "dede/problem.h"

namespace dede::internal {

double MeasureObjective(const Problem& problem, const std::vector<double>& values);
Problem::Violation MeasureViolation(const Problem& problem, const std::vector<double>& values);
// "constraint 12", "the image of entry 40" or "constraint -1" (none) for messages.
std::string WorstItem(const Problem::Violation& violation);

}  // namespace dede::internal
