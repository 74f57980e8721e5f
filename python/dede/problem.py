"""A separable allocation problem built from NumPy / SciPy arrays (the C++ dede::Problem).

Variables are allocation entries (entry (r, d) of a matrix: resource r's row, demand d's
column) and locals (owned by one block). Constraints, log terms and the max-min / min-max term
are rows of a sparse matrix over variable ids, each row on one block of one side: resource
constraints on rows of x, demand constraints on columns. Parameters (right-hand sides,
bounds, costs, coefficients, weights) change between solves and the next ADMM solve starts
warm; adding variables, constraints or terms rebuilds the solver at the next solve.
"""

import math
from dataclasses import dataclass, field, fields

import numpy as np
import scipy.sparse as sp

from . import _dede

_SIDES = ("resource", "demand")


def _side(side):
    if side not in _SIDES:
        raise ValueError(f"side = {side!r}: expected 'resource' or 'demand'")
    return side


class Allocation:
    """An allocation matrix: entry k is (rows[k], cols[k]), variable ids[k]."""

    def __init__(self, problem, matrix, name, rows, cols, ids):
        self.problem = problem
        self.matrix = matrix
        self.name = name
        self.rows = rows
        self.cols = cols
        self.ids = ids

    @property
    def shape(self):
        return (self.problem.num_resources, self.problem.num_demands)

    @property
    def nnz(self):
        return len(self.ids)

    def __repr__(self):
        return f"Allocation({self.name!r}, shape={self.shape}, nnz={self.nnz})"

    def align(self, values, name="values"):
        """One float64 per entry (entry order) from a scalar, a vector of nnz values, a dense
        (R, D) array or a scipy.sparse (R, D) matrix (absent positions read as 0)."""
        if sp.issparse(values):
            if values.shape != self.shape:
                raise ValueError(f"{name}: shape {values.shape} does not match the allocation "
                                 f"{self.name!r}'s {self.shape}")
            return np.asarray(values.tocsr()[self.rows, self.cols], dtype=np.float64).ravel()
        array = np.asarray(values, dtype=np.float64)
        if array.ndim == 0:
            return np.full(self.nnz, float(array))
        if array.ndim == 1:
            if array.shape[0] != self.nnz:
                raise ValueError(f"{name}: expected {self.nnz} values (one per entry of "
                                 f"{self.name!r}) or an array of shape {self.shape}, got "
                                 f"{array.shape[0]}")
            return array
        if array.shape != self.shape:
            raise ValueError(f"{name}: shape {array.shape} does not match the allocation "
                             f"{self.name!r}'s {self.shape}")
        return array[self.rows, self.cols]

    def _sums(self, by, blocks, coefs, name):
        data = self.align(1.0 if coefs is None else coefs, name)
        return sp.csr_matrix((data, (by, self.ids)), shape=(blocks, self.problem.num_variables))

    def row_sums(self, coefs=None):
        """(R, num_variables) CSR: row r is sum_d coefs[r, d] x[r, d] (coefs default 1)."""
        return self._sums(self.rows, self.problem.num_resources, coefs, "coefs")

    def col_sums(self, coefs=None):
        """(D, num_variables) CSR: row d is sum_r coefs[r, d] x[r, d] (coefs default 1)."""
        return self._sums(self.cols, self.problem.num_demands, coefs, "coefs")

    def entries(self, coefs=None):
        """(nnz, num_variables) CSR: row k is coefs[k] x[rows[k], cols[k]]."""
        data = self.align(1.0 if coefs is None else coefs, "coefs")
        k = np.arange(self.nnz)
        return sp.csr_matrix((data, (k, self.ids)), shape=(self.nnz, self.problem.num_variables))


class Locals:
    """Local variables: ids[k] belongs to block blocks[k] of `side`."""

    def __init__(self, problem, side, blocks, ids):
        self.problem = problem
        self.side = side
        self.blocks = blocks
        self.ids = ids

    def __len__(self):
        return len(self.ids)

    def __repr__(self):
        return f"Locals({self.side!r}, n={len(self.ids)})"

    def terms(self, coefs=1.0):
        """(n, num_variables) CSR: row k is coefs[k] * local k."""
        data = np.broadcast_to(np.asarray(coefs, dtype=np.float64), (len(self.ids),))
        k = np.arange(len(self.ids))
        return sp.csr_matrix((data, (k, self.ids)), shape=(len(self.ids), self.problem.num_variables))


@dataclass
class Summary:
    """What a solve reports (the C++ SolveSummary): termination, objective, certified bound
    and gap, violation, times in seconds, and the residual trace of an ADMM solve."""

    termination: str = "failure"
    message: str = ""
    method: str = ""
    usable: bool = False
    iterations: int = -1
    rho_updates: int = -1
    objective: float = math.nan
    bound: float = math.nan
    gap: float = math.nan
    max_violation: float = -1.0
    feasible: bool = False
    rho: float = -1.0
    primal_residual: float = -1.0
    dual_residual: float = -1.0
    num_threads: int = -1
    repair_rounds: int = -1
    fill_iterations: int = -1
    setup_seconds: float = -1.0
    solve_seconds: float = -1.0
    repair_seconds: float = -1.0
    total_seconds: float = -1.0
    returned: str = ""
    seed_objective: float = math.nan
    # The engine's wall time inside the call (solver build when needed, solve), GIL released;
    # NaN for a deployment's round.
    engine_seconds: float = math.nan
    trace: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, d):
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def __str__(self):
        gap = f"{self.gap:.3e}" if math.isfinite(self.gap) else "none"
        return (f"{self.termination}: objective {self.objective:.10g}, gap {gap}, violation "
                f"{self.max_violation:.3g}, {self.iterations} iterations, "
                f"{self.total_seconds:.3f} s ({self.method})")


class Solution:
    """An allocation (values by variable id) and its Summary. `values, summary = solution`
    unpacks it; `solution[x]` is allocation x as a scipy.sparse CSR (R, D) matrix,
    `solution.dense(x)` as a NumPy array, `solution[locals]` the locals' values."""

    def __init__(self, values, summary):
        self.values = values
        self.summary = summary

    def __iter__(self):
        yield self.values
        yield self.summary

    def _need_values(self):
        if self.values is None:
            raise RuntimeError(f"no allocation was returned: {self.summary.termination}: "
                               f"{self.summary.message}")
        return self.values

    def __getitem__(self, handle):
        values = self._need_values()
        if isinstance(handle, Allocation):
            return sp.csr_matrix((values[handle.ids], (handle.rows, handle.cols)),
                                 shape=handle.shape)
        if isinstance(handle, Locals):
            return values[handle.ids]
        return values[np.asarray(handle)]

    def dense(self, allocation):
        values = self._need_values()
        out = np.zeros(allocation.shape)
        out[allocation.rows, allocation.cols] = values[allocation.ids]
        return out


def _ids(handle, name="vars"):
    if isinstance(handle, (Allocation, Locals)):
        return handle.ids
    return np.asarray(handle)


def _coefs(handle, coefs, name="coefs"):
    if isinstance(handle, Allocation):
        return handle.align(coefs, name)
    return np.asarray(coefs, dtype=np.float64) if not np.isscalar(coefs) else np.float64(coefs)


def _csr(a, num_variables, name="A"):
    if not sp.issparse(a):
        array = np.asarray(a, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError(f"{name}: expected a scipy.sparse matrix or a 2-D array over "
                             f"variable ids, got {array.ndim} dimensions")
        a = sp.csr_matrix(array)
    if a.shape[1] > num_variables:
        raise ValueError(f"{name}: {a.shape[1]} columns, but the problem has {num_variables} "
                         "variables (columns are variable ids)")
    a = a.tocsr()
    if not a.has_canonical_format:
        a = a.copy()
        a.sum_duplicates()
    return a


class Problem:
    """A separable resource-allocation problem over num_resources x num_demands blocks."""

    def __init__(self, num_resources, num_demands, sense="min"):
        self._p = _dede.Problem(int(num_resources), int(num_demands))
        if sense != "min":
            self._p.set_sense(sense)

    # ---- shape ----------------------------------------------------------------------------
    num_resources = property(lambda self: self._p.num_resources)
    num_demands = property(lambda self: self._p.num_demands)
    num_variables = property(lambda self: self._p.num_variables)
    num_constraints = property(lambda self: self._p.num_constraints)

    @property
    def sense(self):
        return self._p.sense

    @sense.setter
    def sense(self, value):
        self._p.set_sense(value)

    def __repr__(self):
        return (f"Problem({self.num_resources} resources, {self.num_demands} demands, "
                f"{self.num_variables} variables, {self.num_constraints} constraints, "
                f"{self.sense})")

    # ---- variables ------------------------------------------------------------------------
    def add_allocation(self, name="x", sparsity=None, domain="continuous", lower=0.0,
                       upper=math.inf):
        """Adds an allocation matrix and its entries. sparsity: None (all R x D entries),
        a scipy.sparse (R, D) matrix (its stored entries), a dense (R, D) array (its non-zero
        positions) or a pair (rows, cols) of index arrays (in that order). domain:
        "continuous", "integer" or "binary" (bounds [0, 1]); lower/upper bound every entry
        (set_bounds changes single entries)."""
        shape = (self.num_resources, self.num_demands)
        if sparsity is None:
            rows, cols = np.divmod(np.arange(shape[0] * shape[1], dtype=np.int64), shape[1])
        elif isinstance(sparsity, tuple) and len(sparsity) == 2:
            rows, cols = np.asarray(sparsity[0]), np.asarray(sparsity[1])
            if rows.shape != cols.shape or rows.ndim != 1:
                raise ValueError(f"sparsity: rows and cols must be 1-D arrays of one length, got "
                                 f"shapes {rows.shape} and {cols.shape}")
        else:
            if sp.issparse(sparsity):
                if sparsity.shape != shape:
                    raise ValueError(f"sparsity: shape {sparsity.shape} does not match "
                                     f"(num_resources, num_demands) = {shape}")
                csr = sparsity.tocsr()
                if not csr.has_canonical_format:
                    csr = csr.copy()
                    csr.sum_duplicates()
                rows = np.repeat(np.arange(shape[0], dtype=np.int64), np.diff(csr.indptr))
                cols = csr.indices
            else:
                mask = np.asarray(sparsity)
                if mask.shape != shape:
                    raise ValueError(f"sparsity: shape {mask.shape} does not match "
                                     f"(num_resources, num_demands) = {shape}")
                rows, cols = np.nonzero(mask)
        matrix, ids = self._p.add_allocation(name, domain, float(lower), float(upper), rows, cols)
        return Allocation(self, matrix, name, np.asarray(rows), np.asarray(cols), ids)

    def add_locals(self, side, blocks, domain="continuous", lower=0.0, upper=math.inf,
                   names=None):
        """Adds one local variable per element of `blocks`, owned by that block of `side`."""
        blocks = np.asarray(blocks)
        ids = self._p.add_locals(_side(side), blocks, domain, lower, upper, names)
        return Locals(self, side, blocks, ids)

    # ---- constraints and terms ------------------------------------------------------------
    def _blocks(self, side, a, blocks):
        count = self.num_resources if side == "resource" else self.num_demands
        if blocks is not None:
            return np.asarray(blocks)
        if a.shape[0] == count:
            return np.arange(count)
        # Row k's block: the block of its first variable on that side.
        v = self._p.variables()
        owner = np.where(v["matrix"] >= 0, v["resource" if side == "resource" else "demand"],
                         np.where(v["side"] == _SIDES.index(side), v["block"], -1))
        lengths = np.diff(a.indptr)
        if np.any(lengths == 0):
            k = int(np.flatnonzero(lengths == 0)[0])
            raise ValueError(f"A: row {k} has no variables and {a.shape[0]} rows are not one "
                             f"per {side} ({count}): pass blocks=")
        first = owner[a.indices[a.indptr[:-1]]]
        if np.any(first < 0):
            k = int(np.flatnonzero(first < 0)[0])
            raise ValueError(f"A: row {k}'s first variable {a.indices[a.indptr[k]]} belongs to "
                             f"no {side} block: pass blocks=")
        return first

    def add_constraints(self, side, A, sense, rhs, blocks=None, names=None):
        """Adds row k of A (over variable ids) (sense) rhs[k] to block blocks[k] of `side`;
        blocks default to 0..n-1 when A has one row per block of the side, else to the block
        of each row's first variable. sense: "<=", "==", ">=" or one per row. Returns ids."""
        a = _csr(A, self.num_variables)
        b = self._blocks(_side(side), a, blocks)
        rhs = np.broadcast_to(np.asarray(rhs, dtype=np.float64), (a.shape[0],))
        return self._p.add_constraints(side, b, a.indptr, a.indices, a.data, sense, rhs, names)

    def add_resource_constraints(self, A, sense, rhs, blocks=None, names=None):
        return self.add_constraints("resource", A, sense, rhs, blocks, names)

    def add_demand_constraints(self, A, sense, rhs, blocks=None, names=None):
        return self.add_constraints("demand", A, sense, rhs, blocks, names)

    def add_log_terms(self, side, A, weights=1.0, constants=0.0, blocks=None):
        """weights[k] * log(row k of A . x + constants[k]) on block blocks[k] (maximize,
        weights >= 0: the model's concavity check). Returns the terms' ids."""
        a = _csr(A, self.num_variables)
        b = self._blocks(_side(side), a, blocks)
        n = a.shape[0]
        return self._p.add_log_terms(
            side, b, a.indptr, a.indices, a.data,
            np.broadcast_to(np.asarray(constants, dtype=np.float64), (n,)),
            np.broadcast_to(np.asarray(weights, dtype=np.float64), (n,)))

    def _global(self, kind, side, A, constants, weight, blocks):
        a = _csr(A, self.num_variables)
        b = self._blocks(_side(side), a, blocks)
        c = np.broadcast_to(np.asarray(constants, dtype=np.float64), (a.shape[0],))
        self._p.set_global(kind, side, b, a.indptr, a.indices, a.data, c, float(weight))

    def set_max_min(self, side, A, constants=0.0, weight=1.0, blocks=None):
        """weight * min_k (row k of A . x + constants[k]) (maximize), one row per block."""
        self._global("max_min", side, A, constants, weight, blocks)

    def set_min_max(self, side, A, constants=0.0, weight=1.0, blocks=None):
        """weight * max_k (row k of A . x + constants[k]) (minimize), one row per block."""
        self._global("min_max", side, A, constants, weight, blocks)

    def add_constant(self, value):
        self._p.add_constant(float(value))

    # ---- costs and parameters -------------------------------------------------------------
    def add_linear_cost(self, vars, coefs):
        """coefs[k] * vars[k] added to the objective; vars may be an Allocation (coefs then
        as Allocation.align takes them) or Locals."""
        self._p.add_linear_cost(_ids(vars), _coefs(vars, coefs))

    def set_linear_cost(self, vars, coefs):
        self._p.set_linear_cost(_ids(vars), _coefs(vars, coefs))

    def add_quadratic_cost(self, vars, coefs):
        """coefs[k] * vars[k]^2 added to the objective."""
        self._p.add_quadratic_cost(_ids(vars), _coefs(vars, coefs))

    def set_quadratic_cost(self, vars, coefs):
        self._p.set_quadratic_cost(_ids(vars), _coefs(vars, coefs))

    def set_bounds(self, vars, lower, upper):
        self._p.set_bounds(_ids(vars), _coefs(vars, lower, "lower"), _coefs(vars, upper, "upper"))

    def set_rhs(self, constraints, rhs):
        self._p.set_rhs(np.asarray(constraints), rhs)

    def set_coefficients(self, constraints, vars, coefs):
        self._p.set_coefficients(np.asarray(constraints), _ids(vars), coefs)

    def set_log_weights(self, terms, weights):
        self._p.set_log_weights(np.asarray(terms), weights)

    def set_global_weight(self, weight):
        self._p.set_global_weight(float(weight))

    def set_global_coefficients(self, rows, vars, coefs):
        self._p.set_global_coefficients(np.asarray(rows), _ids(vars), coefs)

    def set_global_constants(self, rows, constants):
        self._p.set_global_constants(np.asarray(rows), constants)

    # ---- inspection -----------------------------------------------------------------------
    def validate(self):
        """Raises dede.ModelError with the C++ model's message if the problem is not well
        formed and convex in its sense."""
        self._p.validate()

    def fingerprint(self):
        """The C++ model's 64-bit digest (Problem::Fingerprint): equal for equal models."""
        return self._p.fingerprint()

    def variables(self):
        """Arrays by variable id: matrix, resource, demand (entries), side, block (locals),
        lower, upper, linear_cost, quadratic_cost, type (0 continuous, 1 integer, 2 binary)."""
        return self._p.variables()

    def evaluate(self, values):
        return self._p.evaluate(values)

    def violation(self, values):
        return self._p.violation(values)

    # ---- solving --------------------------------------------------------------------------
    def solve(self, method="admm", threads=0, time_limit=None, warm_start=True, **options):
        """Solves with the DeDe ADMM engine (method="admm") or exactly (Clp/Cbc, "exact"),
        the GIL released. threads: 0 = all hardware threads; time_limit in seconds (None: none
        for ADMM, 600 s for exact, the C++ default); warm_start: True continues from the last
        ADMM solve of this problem, False starts cold, an array (one value per variable id)
        starts there. options: AdmmOptions / ExactOptions fields by name (rho=..., eps_abs=...,
        max_iterations=..., gap_tolerance=...). Returns a Solution."""
        if time_limit is None:
            time_limit = 600.0 if method == "exact" else math.inf
        if not isinstance(warm_start, bool) and warm_start is not None:
            warm_start = np.asarray(warm_start, dtype=np.float64)
        values, summary = self._p.solve(method, int(threads), float(time_limit), warm_start,
                                        options)
        return Solution(values, Summary.from_dict(summary))
