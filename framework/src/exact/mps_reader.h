// Reads a general LP / MILP in MPS format into a dede::Problem, so the exact baseline can be
// checked against published optima (tests/data/netlib).
#pragma once

#include <string>

#include "dede/problem.h"

namespace dede::internal {

// Reads the MPS file at `path` (fixed or free format, as CoinMpsIO accepts) into *out.
//
// A general LP has no resource/demand structure, so it becomes a Problem with one resource and
// one demand in which every column is a local variable of resource 0 and every row a resource-0
// constraint: `E` rows are equalities, `L`/`G` rows inequalities, a ranged row becomes two
// constraints (>= lower, <= upper), and free `N` rows other than the objective are dropped.
// Integer columns (MARKER INTORG) keep their integrality. The objective is minimised; its
// constant is minus the objective row's RHS entry, the convention the Netlib optima use (E226).
// Column and row names are kept as variable and constraint names.
//
// Returns false on a missing or unreadable file or a parse error; *error (if not null) then
// names the file and the offending line or field as CoinMpsIO reported it, and *out is left
// untouched.
bool ReadMps(const std::string& path, Problem* out, std::string* error);

}  // namespace dede::internal
