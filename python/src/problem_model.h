// dede._dede.Problem: a dede::Problem built from NumPy arrays, and the solver kept beside it so
// a re-solve after parameter changes is warm (as the rounds of a deployment are).
//
// Every call checks its arrays first (ValueError naming the argument and the position) and
// only then changes the model, so a failed call leaves the problem as it was. The checks the
// model itself makes (Problem::Validate) run before each solve and raise dede.ModelError with
// the model's message.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrays.h"
#include "dede/host_solvers.h"
#include "dede/problem.h"
#include "dede/status.h"

namespace dede::python {

namespace py = pybind11;

Side ParseSide(const std::string& side);
Sense ParseSense(const std::string& sense, const std::string& where);
VarType ParseDomain(const std::string& domain);

// Each variable's place, bounds, costs and type, as arrays by variable id.
py::dict VariablesDict(const Problem& problem);
py::dict SummaryDict(const SolveSummary& summary);
// The vector's buffer handed to NumPy (no copy).
py::array_t<double> ToNumpy(std::vector<double>&& values);

class PyProblem {
 public:
  PyProblem(std::int64_t num_resources, std::int64_t num_demands);
  ~PyProblem();

  Problem& problem() { return *problem_; }
  const Problem& problem() const { return *problem_; }

  // ---- structure (drops the solver: the next solve builds a new one, cold) ------------------
  void SetSense(const std::string& sense);
  // A new allocation matrix and its entries (resources[k], demands[k]), all checked first;
  // returns (matrix id, the entries' variable ids).
  py::tuple AddAllocation(const std::string& name,
                          const std::string& domain,
                          double lower,
                          double upper,
                          const py::handle& resources,
                          const py::handle& demands);
  py::array_t<std::int32_t> AddLocals(const std::string& side,
                                      const py::handle& blocks,
                                      const std::string& domain,
                                      const py::handle& lower,
                                      const py::handle& upper,
                                      const py::object& names);
  // Row k of the CSR matrix (over variable ids) is constraint k: block blocks[k] of `side`,
  // sense senses[k] ("<=", "==", ">="), right-hand side rhs[k].
  py::array_t<std::int32_t> AddConstraints(const std::string& side,
                                           const py::handle& blocks,
                                           const py::handle& indptr,
                                           const py::handle& indices,
                                           const py::handle& data,
                                           const py::handle& senses,
                                           const py::handle& rhs,
                                           const py::object& names);
  // Row k: weights[k] * log(row k . x + constants[k]) on block blocks[k] of `side`.
  py::array_t<std::int32_t> AddLogTerms(const std::string& side,
                                        const py::handle& blocks,
                                        const py::handle& indptr,
                                        const py::handle& indices,
                                        const py::handle& data,
                                        const py::handle& constants,
                                        const py::handle& weights);
  // kind "max_min" / "min_max": weight * min_k / max_k (row k . x + constants[k]).
  void SetGlobal(const std::string& kind,
                 const std::string& side,
                 const py::handle& blocks,
                 const py::handle& indptr,
                 const py::handle& indices,
                 const py::handle& data,
                 const py::handle& constants,
                 double weight);
  void AddConstant(double value);

  // ---- parameters (keep the solver: the next solve is warm) --------------------------------
  void AddLinearCost(const py::handle& vars, const py::handle& coefs);
  void SetLinearCost(const py::handle& vars, const py::handle& coefs);
  void AddQuadraticCost(const py::handle& vars, const py::handle& coefs);
  void SetQuadraticCost(const py::handle& vars, const py::handle& coefs);
  void SetBounds(const py::handle& vars, const py::handle& lower, const py::handle& upper);
  void SetRhs(const py::handle& constraints, const py::handle& rhs);
  void SetCoefficients(const py::handle& constraints,
                       const py::handle& vars,
                       const py::handle& coefs);
  void SetLogWeights(const py::handle& terms, const py::handle& weights);
  void SetGlobalWeight(double weight);
  void SetGlobalCoefficients(const py::handle& rows,
                             const py::handle& vars,
                             const py::handle& coefs);
  void SetGlobalConstants(const py::handle& rows, const py::handle& constants);

  // ---- inspection ---------------------------------------------------------------------------
  // Problem::Validate: raises dede.ModelError with its message.
  void Validate() const;
  py::dict Variables() const;  // matrix, resource, demand, side, block, lower, upper, type
  double Evaluate(const py::handle& values) const;
  py::dict Violation(const py::handle& values) const;

  // ---- solving (solve_binding.cpp) ----------------------------------------------------------
  // options: AdmmOptions / ExactOptions fields by name (threads and time_limit set theirs).
  // warm_start: True (continue from the last solve), False (cold), or values by variable id.
  py::tuple Solve(const std::string& method,
                  int threads,
                  double time_limit,
                  const py::object& warm_start,
                  const py::dict& options);
  bool has_solver() const { return admm_ != nullptr; }

 private:
  // A change while another thread solves (its GIL released) raises RuntimeError.
  void CheckIdle() const;
  void StructureChanged() {
    CheckIdle();
    admm_.reset();
  }
  void CheckVariables(const IndexArray& vars) const;
  void CheckNewEntries(const std::string& name,
                       const IndexArray& resources,
                       const IndexArray& demands) const;

  std::unique_ptr<Problem> problem_;
  std::unique_ptr<AdmmSolver> admm_;
  std::vector<double> last_values_;  // the last solve's allocation, to restart a rebuilt solver
  std::atomic<bool> solving_{false};
};

}  // namespace dede::python
