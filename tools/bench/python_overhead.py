#!/usr/bin/env python3
"""The Python module's overhead over the C++ engine on a large transport problem.

Builds a transport LP with NUM_RESOURCES x NUM_DEMANDS x entries-per-demand entries (default
1000 x 10000 x 100 = 1M entries) from NumPy arrays, solves it with ADMM (cold, then warm after
new demands, as a round does), and reports for each call: the Python wall time of
Problem.solve, the engine's own wall time inside it (Summary.engine_seconds: solver build and
solve with the GIL released) and the difference, the module's overhead (argument checks, the
model's validation, options, the allocation handed to NumPy, the summary), in seconds and as a
share of the engine's time. Memory: the input arrays' bytes, the resident memory the model
holds after the build, the peak the build reached above that (transient copies), and the
solve's peak above its start (the engine's iterates, the returned allocation). Peak RSS is
reset per phase through /proc/self/clear_refs.

    PYTHONPATH=build/release/python python3 tools/bench/python_overhead.py \\
        [--resources 1000] [--demands 10000] [--per-demand 100] [--threads 2] \\
        [--iterations 300] [--repeats 3]
"""

import argparse
import os
import platform
import time

import numpy as np


def rss_mib():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) / 1024.0, int(fields["VmHWM"].split()[0]) / 1024.0


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def build_inputs(resources, demands, per_demand, seed):
    rng = np.random.default_rng(seed)
    # Each demand reaches per_demand distinct resources (row-major order: sorted per column,
    # then the whole list sorted by resource as scipy's CSR gives it).
    cols = np.repeat(np.arange(demands, dtype=np.int64), per_demand)
    rows = np.concatenate([rng.choice(resources, per_demand, replace=False)
                           for _ in range(demands)]).astype(np.int64)
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    cost = rng.uniform(1.0, 10.0, rows.size)
    demand = rng.uniform(1.0, 2.0, demands)
    supply = np.full(resources, 1.3 * demand.sum() / resources)
    return rows, cols, cost, demand, supply


def memory_phase(args, high_level):
    """In a fresh process: RSS growth of building the model from inputs already in memory.
    high_level=False hands the C++ model ready-made CSR arrays through the low-level
    dede._dede.Problem (the model's own memory, as a C++ program holding the same model);
    True builds it the documented way from the raw NumPy arrays (everything the module adds:
    the handle's ids, the row/column sum matrices it builds)."""
    import scipy.sparse as sp
    import dede

    rows, cols, cost, demand, supply = build_inputs(args.resources, args.demands,
                                                    args.per_demand, args.seed)
    n = rows.size
    if not high_level:
        ids = np.arange(n, dtype=np.int32)
        by_row = sp.csr_matrix((np.ones(n), (rows, ids)), shape=(args.resources, n))
        by_col = sp.csr_matrix((np.ones(n), (cols, ids)), shape=(args.demands, n))
    rss_before, _ = rss_mib()
    reset_peak()
    if high_level:
        p = dede.Problem(args.resources, args.demands)
        x = p.add_allocation("x", sparsity=(rows, cols))
        p.add_constraints("resource", x.row_sums(), "<=", supply)
        p.add_constraints("demand", x.col_sums(), ">=", demand)
        p.add_linear_cost(x.ids, cost)
    else:
        p = dede._dede.Problem(args.resources, args.demands)
        p.add_allocation("x", "continuous", 0.0, float("inf"), rows, cols)
        p.add_constraints("resource", np.arange(args.resources), by_row.indptr, by_row.indices,
                          by_row.data, "<=", supply)
        p.add_constraints("demand", np.arange(args.demands), by_col.indptr, by_col.indices,
                          by_col.data, ">=", demand)
        p.add_linear_cost(ids, cost)
    rss_after, peak = rss_mib()
    print(f"{rss_after - rss_before:.1f} {peak - rss_before:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resources", type=int, default=1000)
    parser.add_argument("--demands", type=int, default=10000)
    parser.add_argument("--per-demand", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=300,
                        help="ADMM iterations per solve (max_iterations)")
    parser.add_argument("--repeats", type=int, default=3, help="warm re-solves after the cold one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory-phase", choices=["model", "module"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_phase:
        memory_phase(args, args.memory_phase == "module")
        return

    import dede  # after argparse: --help needs no module

    rows, cols, cost, demand, supply = build_inputs(args.resources, args.demands,
                                                    args.per_demand, args.seed)
    input_mib = sum(a.nbytes for a in (rows, cols, cost, demand, supply)) / 2**20
    rss_inputs, _ = rss_mib()
    reset_peak()
    t = time.perf_counter()
    p = dede.Problem(args.resources, args.demands)
    x = p.add_allocation("x", sparsity=(rows, cols))
    p.add_constraints("resource", x.row_sums(), "<=", supply)
    needs = p.add_constraints("demand", x.col_sums(), ">=", demand)
    p.add_linear_cost(x.ids, cost)
    build_seconds = time.perf_counter() - t
    rss_model, _ = rss_mib()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}, dede {dede.__version__}")
    print(f"problem: {args.resources} resources x {args.demands} demands, {x.nnz} entries, "
          f"{p.num_constraints} constraints; threads {args.threads}, {args.iterations} "
          "iterations a solve")
    print(f"input arrays: {input_mib:.1f} MiB; build from NumPy {build_seconds:.3f} s; "
          f"RSS +{rss_model - rss_inputs:.1f} MiB after the build")

    import subprocess
    import sys
    phases = {}
    for phase in ("model", "module"):
        out = subprocess.run([sys.executable, __file__, "--memory-phase", phase,
                              "--resources", str(args.resources), "--demands", str(args.demands),
                              "--per-demand", str(args.per_demand), "--seed", str(args.seed)],
                             check=True, capture_output=True, text=True).stdout.split()
        phases[phase] = (float(out[0]), float(out[1]))
    model, module = phases["model"], phases["module"]
    print(f"memory (fresh processes, inputs already built): the C++ model alone +{model[0]:.1f} "
          f"MiB (peak +{model[1]:.1f}); built through the module from the NumPy inputs "
          f"+{module[0]:.1f} MiB (peak +{module[1]:.1f}); the module's extra: retained "
          f"{module[0] - model[0]:.1f} MiB, peak {module[1] - model[1]:.1f} MiB, against "
          f"{input_mib:.1f} MiB of input (target: at most one copy)")

    options = dict(max_iterations=args.iterations, eps_abs=1e-12, eps_rel=1e-12)
    rows_out = []
    rng = np.random.default_rng(args.seed + 1)
    for k in range(1 + args.repeats):
        if k > 0:
            p.set_rhs(needs, demand * rng.uniform(0.95, 1.05, demand.size))
        rss_before, _ = rss_mib()
        reset_peak()
        t = time.perf_counter()
        sol = p.solve(threads=args.threads, warm_start=k > 0, **options)
        wall = time.perf_counter() - t
        _, peak = rss_mib()
        s = sol.summary
        overhead = wall - s.engine_seconds
        rows_out.append((k, wall, s.engine_seconds, overhead, peak - rss_before, s))
        del sol
    print(f"{'solve':>6} {'python s':>9} {'engine s':>9} {'overhead s':>11} {'overhead':>9} "
          f"{'peak MiB':>9}  termination / iterations / objective")
    for k, wall, engine, overhead, peak, s in rows_out:
        label = "cold" if k == 0 else f"warm{k}"
        print(f"{label:>6} {wall:9.3f} {engine:9.3f} {overhead:11.4f} "
              f"{100 * overhead / engine:8.2f}% {peak:9.1f}  {s.termination} / {s.iterations} / "
              f"{s.objective:.6f}")
    worst = max(100 * o / e for _, _, e, o, _, _ in rows_out)
    print(f"largest overhead: {worst:.2f}% of the engine's time (target <= 5%)")


if __name__ == "__main__":
    main()
