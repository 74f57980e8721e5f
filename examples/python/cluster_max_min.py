"""A small GPU cluster shared max-min fairly (the Gavel-style policy the cluster_scheduling
plugin solves), written directly with the dede Python module.

Resources are 3 GPU types with a number of GPUs each; demands are 24 jobs. x[r, j] is the
fraction of time job j runs on type r. Each type's GPUs are shared (sum_j gpus_j x[r, j] <=
count_r, a resource constraint), each job runs at most all of the time (sum_r x[r, j] <= 1, a
demand constraint), and the policy maximises the smallest normalised throughput
sum_r speed[r, j] x[r, j] / best_j over jobs (a max-min term on the demand side). Solved with
ADMM and exactly; the script fails if they disagree by more than 1% or the ADMM allocation is
infeasible. Then one job finishes and one GPU type grows: the same problem is re-solved warm.

    PYTHONPATH=build/python/python python3 examples/python/cluster_max_min.py
"""

import sys

import numpy as np

import dede

rng = np.random.default_rng(42)
TYPES = ["k80", "p100", "v100"]
count = np.array([8.0, 6.0, 4.0])
jobs = 24
gpus = rng.choice([1.0, 2.0, 4.0], size=jobs, p=[0.6, 0.3, 0.1])
# Throughput of each job on each type (steps/s); newer types are faster, by a job-dependent factor.
speed = np.outer([1.0, 2.2, 3.5], np.ones(jobs)) * rng.uniform(0.6, 1.4, (3, jobs))
best = speed.max(axis=0)  # normalise by the job's best type

p = dede.Problem(len(TYPES), jobs, sense="max")
x = p.add_allocation("x", upper=1.0)
capacity = p.add_constraints("resource", x.row_sums(coefs=np.outer(np.ones(3), gpus)), "<=",
                             count)
p.add_constraints("demand", x.col_sums(), "<=", 1.0)
p.set_max_min("demand", x.col_sums(coefs=speed / best))

admm = p.solve(threads=2)
exact = p.solve(method="exact")
print("ADMM :", admm.summary)
print("exact:", exact.summary)
share = admm.dense(x)
print("per-type GPU use:", dict(zip(TYPES, np.round(share @ gpus, 3))), "of", count)
ok = admm.summary.feasible and abs(admm.summary.objective - exact.summary.objective) <= (
    0.01 * abs(exact.summary.objective))

# Round 2: job 0 finished (its row of the max-min drops out by forbidding it any time), and two
# more v100 GPUs arrived. Parameters only: the solver is kept and starts warm.
p.set_bounds(x.ids[x.cols == 0], 0.0, 0.0)
p.set_global_coefficients(np.zeros(3, dtype=int), x.ids[x.cols == 0], np.zeros(3))
p.set_global_constants([0], [1e3])  # a finished job never is the minimum
p.set_rhs(capacity[2:], [count[2] + 2])
warm = p.solve(threads=2)
exact2 = p.solve(method="exact")
print("round 2 ADMM :", warm.summary)
print("round 2 exact:", exact2.summary)
ok = ok and warm.summary.feasible and abs(warm.summary.objective - exact2.summary.objective) <= (
    0.01 * abs(exact2.summary.objective))
print("OK" if ok else "FAILED: ADMM and the exact optimum disagree, or ADMM is infeasible")
sys.exit(0 if ok else 1)
