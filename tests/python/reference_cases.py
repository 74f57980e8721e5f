"""The published DeDe test suite's 46 instances (../shared/REFERENCE_TESTS.md), written with the
Python module. Each builder adds variables, constraints and costs in the order the C++
builders of tests/reference/reference_problems.cpp do, so the two models are the same model:
the tests compare their fingerprints and their allocations bit for bit.

build(id) returns (problem, parameter) where parameter is, for #2/#2b, the ids and values of
the constraints x[i,:].sum() >= p[i] (None otherwise).
"""

import math

import numpy as np

import dede

INF = math.inf


def _index(n):
    return np.arange(n, dtype=np.float64)


def _grid(n, m, domain, lower, upper, row_sense, row_rhs, col_sense, col_rhs, sense="min"):
    p = dede.Problem(n, m, sense=sense)
    x = p.add_allocation("x", domain=domain, lower=lower, upper=upper)
    rows = p.add_constraints("resource", x.row_sums(), row_sense, row_rhs)
    p.add_constraints("demand", x.col_sums(), col_sense, col_rhs)
    return p, x, rows


def _weights(n, m, w):
    return np.array([[w(i, j) for j in range(m)] for i in range(n)], dtype=np.float64)


def _ratio(i, j):
    return (i * j) / (i + j + 1)


def _mixed(domain1, lower1, domain2, lower2, row_sense, rhs1, rhs2, col_sense, col_rhs,
           sense="min"):
    """x1 (2 x 5) on resources 0-1 and x2 (3 x 5) on resources 2-4; demand j binds the column
    sums of both."""
    p = dede.Problem(5, 5, sense=sense)
    r1, c1 = np.divmod(np.arange(10), 5)
    x1 = p.add_allocation("x1", sparsity=(r1, c1), domain=domain1, lower=lower1)
    r2, c2 = np.divmod(np.arange(15), 5)
    x2 = p.add_allocation("x2", sparsity=(r2 + 2, c2), domain=domain2, lower=lower2)
    p.add_constraints("resource", x1.row_sums()[0:2], row_sense, [rhs1(i) for i in range(2)],
                      blocks=[0, 1])
    p.add_constraints("resource", x2.row_sums()[2:5], row_sense, [rhs2(i) for i in range(3)],
                      blocks=[2, 3, 4])
    p.add_constraints("demand", x1.col_sums() + x2.col_sums(), col_sense,
                      [col_rhs(j) for j in range(5)])
    return p, x1, x2


def _stacked(x, w, offset):
    """w(i + offset, j) over x's rows (x2's row i is row i + 2 of the stacked matrix)."""
    return np.array([w(int(r) - x.rows.min() + offset, int(c)) for r, c in zip(x.rows, x.cols)])


def _three_vectors(resource_sense, x2_rhs, x3_rhs, demand_sense, demand_rhs, sense="min"):
    p = dede.Problem(2, 5, sense=sense)
    x2 = p.add_allocation("x2", sparsity=(np.zeros(5, int), np.arange(5)))
    x3 = p.add_allocation("x3", sparsity=(np.ones(5, int), np.arange(5)), domain="integer",
                          lower=-INF)
    x1 = p.add_locals("demand", np.arange(5), domain="binary", lower=0.0, upper=1.0,
                      names=[f"x1[{j}]" for j in range(5)])
    p.add_constraints("resource", x2.row_sums()[0:1], resource_sense, [x2_rhs], blocks=[0])
    p.add_constraints("resource", x3.row_sums()[1:2], resource_sense, [x3_rhs], blocks=[1])
    p.add_constraints("demand", x1.terms() + x2.col_sums() + x3.col_sums(), demand_sense,
                      [demand_rhs(j) for j in range(5)])
    return p, x1, x2, x3


def _diag(x, n):
    return np.array([x.ids[i * x.shape[1] + i] for i in range(n)])


def b01():
    p, x, _ = _grid(100, 100, "continuous", 0, INF, ">=", _index(100), "<=", _index(100))
    p.add_linear_cost(x, 1.0)
    return p, None


def b02():
    pv = np.array([1.0, 3.0, 5.0, 7.0])
    p, x, rows = _grid(4, 4, "continuous", 0, INF, ">=", pv, ">=", 1.0)
    p.add_linear_cost(x, 1.0)
    return p, (rows, pv)


def b03():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, ">=", _index(10), "<=", _index(10), "max")
    p.add_linear_cost(_diag(x, 10), [1.0 if i % 2 == 0 else -1.0 for i in range(10)])
    return p, None


def b04():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, "<=", _index(10), "<=", _index(10), "max")
    p.add_linear_cost([x.ids[99], x.ids[55]], [1.0, 1.0])
    return p, None


def b05():
    p, x, _ = _grid(3, 3, "continuous", 0, INF, "<=", _index(3), "<=", _index(3), "max")
    p.add_linear_cost(_diag(x, 3), 0.0)
    return p, None


def b06():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, ">=", _index(10), "<=", _index(10), "max")
    p.add_linear_cost(x, 1.0)
    return p, None


def b07():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, "<=", _index(10), "<=", 1.0, "max")
    p.add_linear_cost(x, 1.0)
    return p, None


def b08():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, ">=", _index(10), "<=", _index(10), "max")
    p.add_linear_cost(x, _weights(10, 10, lambda i, j: float(i - j)))
    return p, None


def b09():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, ">=", _index(10), "<=", _index(10), "max")
    p.add_linear_cost(x, _weights(10, 10, _ratio))
    return p, None


def b10():
    p, x, _ = _grid(3, 4, "continuous", 0, INF, ">=", _index(3), "<=", _index(4), "max")
    p.add_linear_cost(x, _weights(3, 4, lambda i, j: 1.0 if (i, j) == (0, 2) else 0.0))
    return p, None


def b11():
    p = dede.Problem(10, 10)
    x = p.add_allocation("x", lower=-INF, upper=5.0)
    p.add_constraints("demand", x.col_sums(), "<=", 5.0)
    p.sense = "max"
    p.add_linear_cost(_diag(x, 10), 1.0)
    return p, None


def _int_grid(n, row_sense, row_rhs, col_rhs, lower=0.0, domain="integer"):
    return _grid(n, n, domain, lower, INF, row_sense, row_rhs, "<=", col_rhs, "max")


def b12():
    p, x, _ = _int_grid(10, "<=", _index(10), _index(10))
    p.add_linear_cost([x.ids[99], x.ids[55]], [1.0, 1.0])
    return p, None


def b13():
    p, x, _ = _int_grid(5, "<=", _index(5), _index(5))
    p.add_constant(2.0)
    return p, None


def b14():
    p, x, _ = _int_grid(10, "<=", _index(10), _index(10))
    p.add_linear_cost([x.ids[99]], [1.0])
    p.add_constant(2.0)
    return p, None


def b15():
    p, x, _ = _int_grid(5, ">=", _index(5), _index(5), lower=-INF)
    p.add_linear_cost(x, 1.0)
    return p, None


def b16():
    p, x, _ = _int_grid(5, "<=", _index(5), 1.0, lower=-INF)
    p.add_linear_cost(x, 1.0)
    return p, None


def b17():
    p, x, _ = _int_grid(10, ">=", _index(10), _index(10))
    p.add_linear_cost(x, _weights(10, 10, lambda i, j: float(i - j)))
    return p, None


def b18():
    p, x, _ = _int_grid(10, ">=", _index(10), _index(10))
    p.add_linear_cost(x, _weights(10, 10, _ratio))
    return p, None


def b19():
    p, x, _ = _int_grid(10, ">=", _index(10), _index(10), lower=0.0, domain="binary")
    p.add_linear_cost(x, 1.0)
    return p, None


def b20():
    p, x1, x2 = _mixed("integer", 0.0, "continuous", 0.0, ">=", lambda i: 2.0 * i,
                       lambda i: 2.0 * i, "<=", lambda j: 2 * 1.23456789 * j, "max")
    p.add_linear_cost([x1.ids[0], x1.ids[6], x2.ids[2], x2.ids[8], x2.ids[14]],
                      [1.0, -1.0, 1.0, -1.0, 1.0])
    return p, None


def b21():
    p, x1, x2 = _mixed("continuous", 0.0, "integer", 0.0, "<=", lambda i: 1.5 * i,
                       lambda i: 1.5 * i, "<=", float, "max")
    p.add_linear_cost([x1.ids[0], x1.ids[4], x2.ids[10], x2.ids[14]], 1.0)
    return p, None


def b22():
    p, x1, x2 = _mixed("integer", 0.0, "continuous", 0.0, ">=", float, float, "<=",
                       lambda j: 2.3456 * j, "max")
    p.add_linear_cost(x1, 1.0)
    p.add_linear_cost(x2, 1.0)
    return p, None


def b23():
    p, x1, x2 = _mixed("continuous", 0.0, "integer", -INF, "<=", float, float, "<=",
                       lambda j: 1.0, "max")
    p.add_linear_cost(x1, 1.0)
    p.add_linear_cost(x2, 1.0)
    return p, None


def b24():
    p, x1, x2 = _mixed("integer", 0.0, "continuous", 0.0, ">=", float, float, "<=", float,
                       "max")
    p.add_linear_cost(x1, _stacked(x1, lambda i, j: float(i - j), 0))
    p.add_linear_cost(x2, _stacked(x2, lambda i, j: float(i - j), 2))
    return p, None


def b25():
    p, x1, x2 = _mixed("continuous", 0.0, "integer", 0.0, ">=", float, float, "<=", float,
                       "max")
    p.add_linear_cost(x1, _stacked(x1, _ratio, 0))
    p.add_linear_cost(x2, _stacked(x2, _ratio, 2))
    return p, None


def b26():
    p, x1, x2, x3 = _three_vectors("<=", 12.3456, 10.0, ">=", lambda j: 4.0, "max")
    for j in range(5):
        p.add_linear_cost([x1.ids[j], x2.ids[j], x3.ids[j]], 1.0)
    return p, None


def _log_problem(w):
    p, x, _ = _grid(10, 10, "continuous", 1.0, INF, "<=", 10.0 * (_index(10) + 1), "<=",
                    10.0 * (_index(10) + 1), "max")
    p.add_log_terms("resource", x.entries(), weights=_weights(10, 10, w).ravel(), blocks=x.rows)
    return p


def b27():
    return _log_problem(lambda i, j: 1.0), None


def b28():
    return _log_problem(lambda i, j: float(i + j)), None


def b29():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, ">=", _index(10), "<=", _index(10))
    p.add_quadratic_cost(x, 1.0)
    return p, None


def b30():
    p, x, _ = _grid(10, 10, "continuous", 0, INF, ">=", _index(10), "<=", _index(10))
    w = _weights(10, 10, _ratio)
    p.add_quadratic_cost(x, w * w)
    return p, None


def b31():
    p, x, _ = _grid(5, 5, "integer", -INF, INF, ">=", _index(5), "<=", _index(5))
    p.add_quadratic_cost(x, 1.0)
    return p, None


def b32():
    p, x, _ = _grid(5, 5, "integer", -INF, INF, ">=", _index(5), "<=", _index(5))
    w = _weights(5, 5, lambda i, j: float((i + 1) * (j + 1)))
    p.add_quadratic_cost(x, w * w)
    return p, None


def b33():
    p, x, _ = _grid(5, 5, "binary", 0.0, 1.0, ">=", _index(5), "<=", _index(5))
    p.add_quadratic_cost(x, 1.0 / 3.0)
    return p, None


def b34():
    p, x1, x2 = _mixed("integer", -INF, "continuous", 0.0, ">=", lambda i: 1.2 * i,
                       lambda i: 3.5 * i, ">=", lambda j: 2.23 * j)
    p.add_quadratic_cost(x1, 1.0)
    p.add_quadratic_cost(x2, 1.0)
    return p, None


def b35():
    p, x1, x2 = _mixed("continuous", 0.0, "integer", -INF, ">=", lambda i: 9.6 * i, float,
                       ">=", lambda j: 5.5 * j)
    w1 = _stacked(x1, lambda i, j: math.sqrt(float((i + 1) * (j + 1))), 0)
    w2 = _stacked(x2, lambda i, j: math.sqrt(float((i + 1) * (j + 1))), 2)
    p.add_quadratic_cost(x1, w1 * w1)
    p.add_quadratic_cost(x2, w2 * w2)
    return p, None


def b36():
    p, x1, x2, x3 = _three_vectors(">=", 12.3456, 10.0, ">=", lambda j: 4.0 * j)
    for j in range(5):
        p.add_quadratic_cost([x1.ids[j], x2.ids[j], x3.ids[j]], 1.0)
    return p, None


def b37():
    p, x1, x2, x3 = _three_vectors(">=", 12.3456, 10.0, ">=", lambda j: 4.0 * j)
    for j in range(5):
        w1, w2, w3 = float(j + 1), math.sin(float(j * j)), math.cos(float(j * j * j))
        p.add_quadratic_cost([x1.ids[j], x2.ids[j], x3.ids[j]], [w1 * w1, w2 * w2, w3 * w3])
    return p, None


def b44():
    p = dede.Problem(100, 100)
    x2 = p.add_allocation("x2")
    x1 = p.add_locals("demand", np.arange(100), domain="binary", lower=0.0, upper=1.0,
                      names=[f"x1[{j}]" for j in range(100)])
    p.add_constraints("resource", x2.row_sums(), "<=", 1.0)
    p.add_constraints("demand", x1.terms() + x2.col_sums(), "<=", _index(100))
    p.sense = "max"
    p.add_linear_cost(x1, 1.0)
    p.add_linear_cost(x2, 1.0)
    return p, None


def b45():
    p, x, _ = _grid(2, 2, "continuous", 0, INF, ">=", 2.0 * (_index(2) + 1), "<=",
                    2.0 * (_index(2) + 1), "max")
    p.add_log_terms("resource", x.row_sums(), weights=1.0)
    return p, None


BUILDERS = {
    "01": b01, "02": b02, "02b": b02, "03": b03, "04": b04, "05": b05, "06": b06, "07": b07,
    "08": b08, "09": b09, "10": b10, "11": b11, "12": b12, "13": b13, "14": b14, "15": b15,
    "16": b16, "17": b17, "18": b18, "19": b19, "20": b20, "21": b21, "22": b22, "23": b23,
    "24": b24, "25": b25, "26": b26, "27": b27, "28": b28, "29": b29, "30": b30, "31": b31,
    "32": b32, "33": b33, "34": b34, "35": b35, "36": b36, "37": b37, "38": b09, "39": b28,
    "40": b18, "41": b32, "42": b26, "43": b37, "44": b44, "45": b45,
}


def build(case_id):
    return BUILDERS[case_id]()
