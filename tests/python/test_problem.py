"""The Python model: arrays in, allocations out, errors, objectives and warm re-solves."""

import math
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import dede
from conftest import same_bits


def transport(num_resources=6, num_demands=9, density=0.5, seed=3):
    """A random sparse transport LP: min sum c x, rows <= supply, columns == demand."""
    rng = np.random.default_rng(seed)
    mask = rng.random((num_resources, num_demands)) < density
    mask[rng.integers(0, num_resources, num_demands), np.arange(num_demands)] = True
    cost = rng.uniform(1.0, 5.0, (num_resources, num_demands))
    demand = rng.uniform(1.0, 3.0, num_demands)
    supply = np.full(num_resources, 1.5 * demand.sum() / num_resources)
    p = dede.Problem(num_resources, num_demands)
    x = p.add_allocation("x", sparsity=sp.csr_matrix(mask))
    caps = p.add_constraints("resource", x.row_sums(), "<=", supply)
    needs = p.add_constraints("demand", x.col_sums(), "==", demand)
    p.add_linear_cost(x, cost)
    return p, x, caps, needs, cost, supply, demand, mask


# ---- round trips ------------------------------------------------------------------------------

def test_sparsity_forms_give_the_same_model():
    rng = np.random.default_rng(0)
    mask = rng.random((4, 7)) < 0.4
    rows, cols = np.nonzero(mask)
    prints = []
    for sparsity in (mask, sp.csr_matrix(mask), sp.coo_matrix(mask), (rows, cols),
                     (rows.astype(np.int32), cols.astype(np.uint16))):
        p = dede.Problem(4, 7)
        x = p.add_allocation("x", sparsity=sparsity)
        assert x.nnz == mask.sum()
        np.testing.assert_array_equal(x.rows, rows)
        np.testing.assert_array_equal(x.cols, cols)
        prints.append(p.fingerprint())
    assert len(set(prints)) == 1


def test_round_trip_arrays_problem_solve_arrays():
    p, x, caps, needs, cost, supply, demand, mask = transport()
    v = p.variables()
    np.testing.assert_array_equal(v["resource"], x.rows)
    np.testing.assert_array_equal(v["demand"], x.cols)
    np.testing.assert_array_equal(v["linear_cost"], cost[x.rows, x.cols])
    exact = p.solve(method="exact")
    admm = p.solve(threads=1, eps_abs=1e-7, eps_rel=1e-6, max_iterations=50000)
    for sol in (exact, admm):
        m = sol[x]
        assert sp.issparse(m) and m.shape == (6, 9)
        dense = sol.dense(x)
        np.testing.assert_array_equal(m.toarray(), dense)
        assert np.all(dense[~mask] == 0)
        assert np.all(dense.sum(axis=1) <= supply + 1e-6 * np.maximum(1, supply))
        np.testing.assert_allclose(dense.sum(axis=0), demand, rtol=1e-6)
        assert sol.summary.objective == pytest.approx((cost * dense).sum(), rel=1e-12)
        values, summary = sol
        assert values is sol.values and summary is sol.summary
    assert exact.summary.termination == "converged" and exact.summary.usable
    assert admm.summary.objective == pytest.approx(exact.summary.objective, rel=1e-3)
    # The certified gap: a bound the ADMM solve proved, and the gap to it.
    assert admm.summary.bound <= admm.summary.objective + 1e-9
    assert 0 <= admm.summary.gap < 1e-2
    assert admm.summary.trace["iteration"].size > 0
    assert admm.summary.total_seconds > 0


def test_allocation_values_are_not_copied_in():
    """Float64 C-contiguous arrays are read in place; others are converted once."""
    p = dede.Problem(2, 2)
    x = p.add_allocation("x")
    coefs = np.array([1.0, 2.0, 3.0, 4.0])
    p.add_linear_cost(x.ids, coefs)
    p.add_linear_cost(x.ids, [1, 2, 3, 4])  # a list: converted
    p.add_linear_cost(x.ids.astype(np.int64), np.float32(0.5))  # int64 ids, scalar broadcast
    np.testing.assert_array_equal(p.variables()["linear_cost"], 2 * coefs + 0.5)


def test_locals_and_three_matrices_round_trip():
    p = dede.Problem(2, 3, sense="max")
    a = p.add_allocation("a", sparsity=(np.array([0, 0, 0]), np.array([0, 1, 2])))
    b = p.add_allocation("b", sparsity=(np.array([1, 1, 1]), np.array([0, 1, 2])),
                         domain="integer")
    s = p.add_locals("demand", [0, 1, 2], lower=0.0, upper=0.5, names=["s0", "s1", "s2"])
    p.add_constraints("resource", a.row_sums() + b.row_sums(), "<=", [2.0, 2.0])
    p.add_constraints("demand", a.col_sums() + b.col_sums() + s.terms(), "<=", 1.0)
    p.add_linear_cost(a, 1.0)
    p.add_linear_cost(b, 1.5)
    p.add_linear_cost(s, 0.1)
    sol = p.solve(method="exact")
    # Two columns take b = 1 (1.5 each, b integral, sum b <= 2), the third a = 1; s is worth
    # less than a everywhere.
    assert sol.summary.objective == pytest.approx(2 * 1.5 + 1.0, abs=1e-9)
    np.testing.assert_allclose(sol[s], [0.0, 0.0, 0.0], atol=1e-9)
    assert sol.dense(b).sum() == pytest.approx(2.0)
    admm = p.solve(threads=1)
    assert admm.summary.objective == pytest.approx(sol.summary.objective, abs=0.05)
    assert np.all(np.abs(admm.dense(b) - np.round(admm.dense(b))) <= 1e-6)


# ---- objectives -------------------------------------------------------------------------------

def test_max_min_fairness():
    # Two resources of capacity 1 shared by 3 demands; demand 2 can only use resource 1.
    p = dede.Problem(2, 3, sense="max")
    x = p.add_allocation("x", sparsity=np.array([[1, 1, 0], [1, 1, 1]]))
    p.add_constraints("resource", x.row_sums(), "<=", 1.0)
    p.set_max_min("demand", x.col_sums())
    exact = p.solve(method="exact")
    assert exact.summary.objective == pytest.approx(2.0 / 3.0, abs=1e-7)
    admm = p.solve(threads=1)
    assert admm.summary.objective == pytest.approx(2.0 / 3.0, abs=1e-3)
    p.set_global_weight(2.0)  # a parameter: warm re-solve
    again = p.solve(threads=1)
    assert again.summary.objective == pytest.approx(4.0 / 3.0, abs=2e-3)


def test_min_max_utilisation():
    # Route 3 units of each demand over 2 links; minimise the largest link load.
    p = dede.Problem(2, 2)
    x = p.add_allocation("x")
    p.add_constraints("demand", x.col_sums(), "==", [3.0, 1.0])
    p.set_min_max("resource", x.row_sums(coefs=np.array([[1.0, 1.0], [0.5, 0.5]])))
    exact = p.solve(method="exact")
    # loads l0 = a, l1 = (4 - a) / 2, equal at a = 4/3
    assert exact.summary.objective == pytest.approx(4.0 / 3.0, abs=1e-7)
    admm = p.solve(threads=1)
    assert admm.summary.objective == pytest.approx(4.0 / 3.0, abs=1e-3)


def test_log_utility_and_quadratic():
    p = dede.Problem(1, 3, sense="max")
    x = p.add_allocation("x")
    p.add_constraints("resource", x.row_sums(), "<=", 6.0)
    p.add_log_terms("demand", x.col_sums(), weights=[1.0, 2.0, 3.0])
    optimum = 2.0 * math.log(2.0) + 3.0 * math.log(3.0)  # at x = (1, 2, 3)
    exact = p.solve(method="exact")  # outer approximation: the objective to its tolerance
    assert exact.summary.objective == pytest.approx(optimum, abs=1e-6)
    np.testing.assert_allclose(exact.dense(x)[0], [1.0, 2.0, 3.0], atol=2e-3)
    admm = p.solve(threads=1)
    assert admm.summary.objective == pytest.approx(optimum, abs=1e-4)
    np.testing.assert_allclose(admm.dense(x)[0], [1.0, 2.0, 3.0], atol=2e-3)
    q = dede.Problem(1, 2)
    y = q.add_allocation("y")
    q.add_constraints("resource", y.row_sums(), "==", 3.0)
    q.add_quadratic_cost(y, [1.0, 2.0])  # min y0^2 + 2 y1^2, y0 + y1 = 3: y = (2, 1)
    cuts = q.solve(method="exact")  # tangent cuts: the objective to its tolerance
    assert cuts.summary.objective == pytest.approx(6.0, abs=1e-5)
    np.testing.assert_allclose(cuts.dense(y)[0], [2.0, 1.0], atol=1e-3)
    qp = q.solve(method="exact", use_clp_qp=True)  # an ExactOptions field by name
    np.testing.assert_allclose(qp.dense(y)[0], [2.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(q.solve(threads=1).dense(y)[0], [2.0, 1.0], atol=1e-3)


# ---- warm re-solves ---------------------------------------------------------------------------

def test_warm_resolve_after_parameter_changes_matches_cold_model():
    p, x, caps, needs, cost, supply, demand, _ = transport(seed=5)
    first = p.solve(threads=1)
    assert p._p.has_solver
    new_demand = demand * 1.1
    new_cost = cost * np.linspace(0.9, 1.1, cost.size).reshape(cost.shape)
    p.set_rhs(needs, new_demand)
    p.set_linear_cost(x, new_cost)
    p.set_bounds(x.ids[:1], 0.0, 0.25)
    p.set_coefficients([caps[0]], [x.ids[0]], [2.0])
    warm = p.solve(threads=1)
    assert p._p.has_solver  # parameters only: the same solver, warm
    # The same model built from scratch, solved exactly: the warm re-solve reaches it.
    q, y, caps2, needs2, *_ = transport(seed=5)
    q.set_rhs(needs2, new_demand)
    q.set_linear_cost(y, new_cost)
    q.set_bounds(y.ids[:1], 0.0, 0.25)
    q.set_coefficients([caps2[0]], [y.ids[0]], [2.0])
    assert q.fingerprint() == p.fingerprint()
    exact = q.solve(method="exact")
    assert warm.summary.objective == pytest.approx(exact.summary.objective, rel=2e-3)
    assert warm.summary.feasible
    assert first.summary.objective != warm.summary.objective
    # Nothing changed since: the warm solve stops at its first check, a cold one does not.
    again = p.solve(threads=1)
    cold = p.solve(threads=1, warm_start=False)
    assert again.summary.iterations <= 10 < cold.summary.iterations


def test_warm_start_from_an_array_and_structure_changes():
    p, x, caps, needs, *_ = transport(seed=7)
    exact = p.solve(method="exact")
    from_optimum = p.solve(threads=1, warm_start=exact.values)
    cold = p.solve(threads=1, warm_start=False)
    assert from_optimum.summary.iterations <= cold.summary.iterations
    with pytest.raises(ValueError, match=r"warm_start: expected \d+ values, got 3"):
        p.solve(warm_start=[1.0, 2.0, 3.0])
    p.add_constant(1.0)  # a parameter
    assert p._p.has_solver
    p.add_allocation("extra", sparsity=(np.array([0]), np.array([0])))  # structure: rebuilt
    assert not p._p.has_solver
    assert p.solve(threads=1).summary.usable


def test_setup_option_change_rebuilds_warm():
    p, *_ = transport(seed=11)
    a = p.solve(threads=1)
    b = p.solve(threads=1, equilibrate=True)  # read when the solver is built
    assert b.summary.usable and a.summary.usable
    assert b.summary.objective == pytest.approx(a.summary.objective, rel=1e-3)


def test_same_problem_same_bits_every_time():
    p1, *_ = transport(seed=2)
    p2, *_ = transport(seed=2)
    s1 = p1.solve(threads=2)
    s2 = p2.solve(threads=1)
    assert same_bits(s1.values, s2.values)


def test_gil_is_released_while_solving():
    p, *_ = transport(num_resources=60, num_demands=400, seed=1)
    started = threading.Event()
    ticks = []

    def solve():
        started.set()
        p.solve(threads=1, warm_start=False, max_iterations=3000, eps_abs=1e-9, eps_rel=1e-9)

    t = threading.Thread(target=solve)
    t.start()
    started.wait()
    while t.is_alive():
        ticks.append(1)  # runs only if the solving thread does not hold the GIL
        t.join(0.001)
    assert len(ticks) > 3
    # A change while another thread solves is refused (the solver reads the problem).
    started.clear()
    t2 = threading.Thread(target=solve)
    t2.start()
    started.wait()
    refused = None
    try:
        while t2.is_alive() and refused is None:
            try:
                p.set_rhs([0], [1.0])
            except RuntimeError as error:
                refused = str(error)
    finally:
        t2.join()
    assert refused is not None and "being solved in another thread" in refused


# ---- errors -----------------------------------------------------------------------------------

def test_bad_arrays_raise_value_error_naming_argument_and_position():
    p = dede.Problem(3, 4)
    x = p.add_allocation("x")
    before = p.fingerprint()
    with pytest.raises(ValueError, match=r"rhs\[1\] = nan: a finite number is required"):
        p.add_constraints("resource", x.row_sums(), "<=", [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match=r"rhs: expected 3 values, got 2"):
        p._p.add_constraints("resource", [0, 1, 2], x.row_sums().indptr, x.row_sums().indices,
                             x.row_sums().data, "<=", [1.0, 2.0])
    with pytest.raises(ValueError, match=r"coefs\[2\] = inf: a finite number is required"):
        p.add_linear_cost(x.ids[:3], [1.0, 2.0, np.inf])
    with pytest.raises(ValueError, match=r"coefs: shape \(2, 2\) does not match the allocation"):
        p.add_linear_cost(x, np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"vars\[1\] = 99 is out of range \[0, 12\)"):
        p.add_linear_cost([0, 99], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"lower\[0\] = 2 > upper\[0\] = 1"):
        p.set_bounds(x.ids[:1], 2.0, 1.0)
    with pytest.raises(ValueError, match=r"lower\[1\] = nan"):
        p.set_bounds(x.ids[:2], [0.0, np.nan], 1.0)
    with pytest.raises(ValueError, match=r"demands\[2\] = 4 is out of range \[0, 4\)"):
        p.add_allocation("y", sparsity=(np.array([0, 1, 2]), np.array([0, 1, 4])))
    with pytest.raises(ValueError, match=r"duplicate entry of allocation 'z' \(also at position 0"):
        p.add_allocation("z", sparsity=(np.array([1, 1]), np.array([2, 2])))
    with pytest.raises(ValueError, match=r"sparsity: shape \(4, 3\) does not match"):
        p.add_allocation("w", sparsity=np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"resources: expected integer indices, got an array of dtype float64"):
        p._p.add_allocation("q", "continuous", 0.0, math.inf, np.array([0.0]), np.array([1]))
    with pytest.raises(ValueError, match=r"lower, upper = -1, 1: a binary variable's bounds are \[0, 1\]"):
        p.add_allocation("b", domain="binary", lower=-1.0, upper=1.0)
    with pytest.raises(ValueError, match=r"A\.data\[0\] = nan: a finite coefficient is required"):
        p.add_constraints("demand", sp.csr_matrix(([np.nan], ([0], [0])), shape=(4, 12)), "<=", 1.0)
    with pytest.raises(ValueError, match=r"senses\[1\] = '<': expected '<=', '==' or '>='"):
        p.add_constraints("resource", x.row_sums(), ["<=", "<", ">="], 1.0)
    with pytest.raises(ValueError, match=r"blocks\[0\] = 7 is out of range \[0, 3\)"):
        p.add_locals("resource", [7])
    with pytest.raises(ValueError, match=r"side = 'row': expected 'resource' or 'demand'"):
        p.add_locals("row", [0])
    with pytest.raises(ValueError, match=r"domain = 'real'"):
        p.add_allocation("v", domain="real")
    with pytest.raises(ValueError, match=r"num_demands = -1"):
        dede.Problem(2, -1)
    with pytest.raises(ValueError, match=r"threads = -2: must be in \[0, 1024\]"):
        p.solve(threads=-2)
    with pytest.raises(ValueError, match=r"time_limit = -1: must be > 0"):
        p.solve(time_limit=-1)
    with pytest.raises(ValueError, match=r"options\['rho'\] = 'big': expected a number"):
        p.solve(rho="big")
    with pytest.raises(ValueError, match=r"options\['rhoo'\]: not an ADMM option"):
        p.solve(rhoo=1.0)
    with pytest.raises(ValueError, match=r"relaxation"):
        p.solve(relaxation=2.5)  # AdmmOptions::IsValid's message
    # A failed call changed nothing: no matrix, entry, constraint or cost was added.
    assert p.fingerprint() == before
    assert p.num_variables == 12 and p.num_constraints == 0
    c = p.add_constraints("resource", x.row_sums(), "<=", 1.0)
    with pytest.raises(ValueError, match=r"vars\[0\] = 11: variable does not appear in constraint 0"):
        p.set_coefficients([c[0]], [x.ids[-1]], [2.0])


def test_model_checks_raise_model_error_with_the_cpp_message():
    p = dede.Problem(2, 2)
    x = p.add_allocation("x")
    # A resource constraint on resource 0 that references an entry of row 1.
    a = sp.csr_matrix(([1.0], ([0], [x.ids[2]])), shape=(1, p.num_variables))
    p.add_constraints("resource", a, "<=", 1.0, blocks=[0])
    with pytest.raises(dede.ModelError) as error:
        p.validate()
    assert isinstance(error.value, ValueError)
    message = str(error.value)
    assert "constraint" in message and "resource 0" in message
    with pytest.raises(dede.ModelError, match="resource 0"):
        p.solve()
    # A log term in a minimisation is not convex.
    q = dede.Problem(1, 1)
    y = q.add_allocation("y")
    q.add_log_terms("resource", y.row_sums())
    with pytest.raises(dede.ModelError):
        q.solve(method="exact")


def test_infer_blocks_and_its_errors():
    p = dede.Problem(2, 3)
    x = p.add_allocation("x")
    ids = p.add_constraints("demand", x.col_sums()[[2, 0]], "<=", 1.0)  # blocks from variables
    assert [p._p.variables()["demand"][x.ids[2]]] == [2]
    assert len(ids) == 2
    empty = sp.csr_matrix((1, p.num_variables))
    with pytest.raises(ValueError, match=r"A: row 0 has no variables"):
        p.add_constraints("demand", empty, "<=", 1.0)
