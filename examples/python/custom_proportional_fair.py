"""A custom problem: content servers shared proportionally fairly among regions, re-solved warm
round by round as servers fail and recover (what a deployment's rounds do, here from Python).

Resources are 12 servers with a bandwidth capacity; demands are 40 regions, each reachable
from 4 servers (a sparse x). A region's utility is w_d log(total bandwidth it gets) (a log
term on the demand side), less a transit cost per unit on each server-region pair, and a region
takes at most what it asks for. Each round changes only parameters (a server's capacity, the
regions' weights): the ADMM solver is kept and starts warm from the previous round. Each round
is checked against the exact solver; the script fails on an infeasible allocation or an
objective more than 0.1% (relative) below the exact one.

    PYTHONPATH=build/python/python python3 examples/python/custom_proportional_fair.py
"""

import sys

import numpy as np
import scipy.sparse as sp

import dede

rng = np.random.default_rng(7)
servers, regions, reach = 12, 40, 4
rows = np.concatenate([rng.choice(servers, reach, replace=False) for _ in range(regions)])
cols = np.repeat(np.arange(regions), reach)
mask = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(servers, regions))
capacity = rng.uniform(50.0, 100.0, servers)
asks = rng.uniform(10.0, 40.0, regions)
weight = rng.uniform(0.5, 2.0, regions)
transit = sp.csr_matrix((rng.uniform(0.0, 0.02, rows.size), (rows, cols)), shape=mask.shape)

p = dede.Problem(servers, regions, sense="max")
x = p.add_allocation("bandwidth", sparsity=mask)
cap = p.add_constraints("resource", x.row_sums(), "<=", capacity)
p.add_constraints("demand", x.col_sums(), "<=", asks)
logs = p.add_log_terms("demand", x.col_sums(), weights=weight, constants=1.0)  # log(1 + total)
p.add_linear_cost(x, -transit)  # a cost in a maximisation

ok = True
for round_ in range(5):
    if round_ == 2:
        p.set_rhs(cap[:1], [0.0])  # server 0 fails
    if round_ == 3:
        p.set_rhs(cap[:1], [capacity[0]])  # and recovers
    if round_ >= 1:
        weight = weight * rng.uniform(0.9, 1.1, regions)
        p.set_log_weights(logs, weight)
    admm = p.solve(threads=2, eps_abs=1e-6, eps_rel=1e-5)
    exact = p.solve(method="exact")
    served = admm.dense(x).sum(axis=0)
    good = admm.summary.feasible and admm.summary.objective >= exact.summary.objective - (
        1e-3 * abs(exact.summary.objective))
    ok = ok and good
    print(f"round {round_}: ADMM {admm.summary.objective:.6f} in {admm.summary.iterations} "
          f"iterations ({admm.summary.total_seconds:.3f} s), exact "
          f"{exact.summary.objective:.6f}; smallest region share {np.min(served / asks):.2f}"
          f"{'' if good else '  <-- FAILED'}")
print("OK" if ok else "FAILED")
sys.exit(0 if ok else 1)
