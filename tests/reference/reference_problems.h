// The published DeDe implementation's test suite (illinois-nsai/dede, tests/*.py: 45 test
// functions, 46 problem instances) expressed as dede::Problem instances.
//
// Each instance carries its independently computed optimum (tests/data/reference/expected.json,
// see the README next to it) and what the acceptance rule needs to know about it. The cvxpy
// formulations map onto the model as follows:
//  * an N x M matrix x is an allocation matrix over N resources and M demands;
//    "x[i,:].sum() (sense) b" is a resource constraint, "x[:,j].sum() (sense) b" a demand one;
//  * elementwise constraints (x >= 0, x >= 1, x <= 5) are variable bounds;
//  * the mixed tests' x1 (2 x 5) and x2 (3 x 5) share the 5 demand columns: x1's rows are
//    resources 0-1 and x2's rows are resources 2-4, one allocation matrix each;
//  * the "3 vectors" tests' x1 appears only in demand constraints, so x1[j] is a local variable
//    of demand j; x2 and x3 are 1 x 5 matrices over resource 0 resp. 1;
//  * sum (w x)^2 is a quadratic cost w^2 per entry; w log x a log term per entry.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "dede/problem.h"

namespace dede::reference {

struct ReferenceInstance {
  std::string id;     // "01" ... "45", "02b"
  std::string label;  // identifier-safe, e.g. "lin_cont_add1"
  std::string name;   // the instance's name in expected.json, e.g. "test_lin_cont.test_add1"
  std::unique_ptr<Problem> problem;
  double optimum = 0.0;  // of `problem` as built (for #2b: after the parameter update)
  // Has integer or boolean variables: the integer acceptance rule applies (integrality,
  // constraints within 1e-6, objective within 5%).
  bool integral = false;
  // test_solution.py (#38-44): the reported objective must equal the objective re-evaluated
  // at the returned allocation.
  bool check_reported_objective = false;

  // #2 and #2b: the constraints x[i,:].sum() >= p[i] and the parameter's value p.
  std::vector<ConstraintId> parameter_constraints;
  std::vector<double> parameter_values;
  // #2b: solve the problem as built (optimum `optimum_before_update`), then call
  // IncrementParameter and re-solve with the same solver (warm start, no rebuild).
  bool resolve_after_parameter_update = false;
  double optimum_before_update = std::numeric_limits<double>::quiet_NaN();
};

// p.value += 1: SetRhs(parameter_constraints[i], ++parameter_values[i]) for every i.
void IncrementParameter(ReferenceInstance* instance);

// The ids of all 46 instances in suite order ("01", "02", "02b", "03", ..., "45").
const std::vector<std::string>& ReferenceInstanceIds();
// Builds the instance with the given id. Aborts on an unknown id.
ReferenceInstance BuildReferenceInstance(const std::string& id);

}  // namespace dede::reference
