"""dede: separable resource allocation with the DeDe ADMM engine, from Python.

The C++ engine of the `dede` framework (x copied into z, resource constraints on the rows of x,
demand constraints on the columns of z, ADMM on x = z) behind a NumPy/SciPy interface:

    import numpy as np, dede
    p = dede.Problem(num_resources=3, num_demands=4, sense="max")
    x = p.add_allocation("x")                       # dense 3 x 4, x >= 0
    p.add_constraints("resource", x.row_sums(), "<=", [4, 5, 6])
    p.add_constraints("demand", x.col_sums(), "<=", [2, 2, 3, 3])
    p.add_linear_cost(x, 1.0)
    sol = p.solve()                                 # method="admm" | "exact"
    sol[x].toarray(), sol.summary.objective, sol.summary.gap

Deployments (the YAML files `dede run` takes) run from here too (`dede.Deployment`), and a
deployment's database reads as pandas DataFrames (`dede.read_rounds`, `read_allocations`,
`read_metrics`). See python/README.md.
"""

from ._dede import DeploymentError, ModelError, __version__
from .problem import Allocation, Locals, Problem, Solution, Summary
from .deployment import Deployment, Round
from .history import read_allocations, read_metrics, read_rounds, read_table

__all__ = [
    "Allocation",
    "Deployment",
    "DeploymentError",
    "Locals",
    "ModelError",
    "Problem",
    "Round",
    "Solution",
    "Summary",
    "__version__",
    "read_allocations",
    "read_metrics",
    "read_rounds",
    "read_table",
]
