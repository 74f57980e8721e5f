"""Traffic engineering from a topology file: the largest total flow the Abilene network carries
for one measured traffic matrix, as an edge-flow (multi-commodity) model in dede.

Reads tests/data/te/abilene-links.csv (undirected links with capacities) and the first matrix
of tests/data/te/abilene-tm-3rows.csv (SRC>DST columns), scaled so that links saturate. Resources
are the directed arcs (both directions of every link), demands the node pairs with traffic.
x[a, k] is pair k's flow on arc a: each arc's total is within its capacity (a resource
constraint), each pair's flow is conserved at every node (demand constraints: its column only),
and the pair's delivered flow f_k (a local of demand k) is at most its demand. Maximise
sum f_k. Solved with ADMM and exactly; the script fails if ADMM is infeasible or more than 1%
below the optimum.

    PYTHONPATH=build/python/python python3 examples/python/te_max_flow.py [SCALE]
"""

import csv
import os
import sys

import numpy as np
import scipy.sparse as sp

import dede

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LINKS = os.path.join(ROOT, "tests", "data", "te", "abilene-links.csv")
TRAFFIC = os.path.join(ROOT, "tests", "data", "te", "abilene-tm-3rows.csv")
SCALE = float(sys.argv[1]) if len(sys.argv) > 1 else 100.0

with open(LINKS, newline="") as f:
    links = [(r["src"], r["dst"], float(r["capacity"])) for r in csv.DictReader(f)]
nodes = sorted({n for s, d, _ in links for n in (s, d)})
node = {n: i for i, n in enumerate(nodes)}
arcs = [(node[s], node[d], c) for s, d, c in links] + [(node[d], node[s], c) for s, d, c in links]
tail = np.array([a[0] for a in arcs])
head = np.array([a[1] for a in arcs])
capacity = np.array([a[2] for a in arcs])

with open(TRAFFIC, newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    row = next(reader)
pairs, volume = [], []
for name, value in zip(header[1:], row[1:]):
    src, dst = name.split(">")
    if float(value) > 0 and src in node and dst in node and src != dst:
        pairs.append((node[src], node[dst]))
        volume.append(float(value) * SCALE)
volume = np.array(volume)
print(f"{len(nodes)} nodes, {len(arcs)} arcs, {len(pairs)} pairs, total demand "
      f"{volume.sum():.0f} (scale {SCALE:g})")

p = dede.Problem(len(arcs), len(pairs), sense="max")
x = p.add_allocation("flow")  # every arc may carry every pair: dense arcs x pairs
delivered = p.add_locals("demand", np.arange(len(pairs)), upper=volume)
p.add_constraints("resource", x.row_sums(), "<=", capacity)
# Conservation of pair k at node n: out(n) - in(n) = f_k at its source, -f_k at its sink, else 0.
# One row per (pair, node), on demand block k: +1 for arcs leaving n, -1 for arcs entering it.
rows, cols, data, blocks, order = [], [], [], [], []
num_nodes = len(nodes)
for k, (src, dst) in enumerate(pairs):
    base = k * num_nodes
    ids = x.ids[x.cols == k]  # pair k's arcs, in arc order
    rows += [base + tail, base + head]
    cols += [ids, ids]
    data += [np.ones(len(arcs)), -np.ones(len(arcs))]
    f = delivered.ids[k]
    rows += [np.array([base + src, base + dst])]
    cols += [np.array([f, f])]
    data += [np.array([-1.0, 1.0])]
    blocks.append(np.full(num_nodes, k))
conservation = sp.csr_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(len(pairs) * num_nodes, p.num_variables))
p.add_constraints("demand", conservation, "==", 0.0, blocks=np.concatenate(blocks))
p.add_linear_cost(delivered, 1.0)

admm = p.solve(threads=2, time_limit=60)
exact = p.solve(method="exact")
print("ADMM :", admm.summary)
print("exact:", exact.summary)
load = admm.dense(x).sum(axis=1) / capacity
print(f"routed {admm.summary.objective / volume.sum():.1%} of the demand; busiest arc at "
      f"{load.max():.1%}, {np.sum(load > 0.999)} arcs saturated")
ok = admm.summary.feasible and admm.summary.objective >= 0.99 * exact.summary.objective
print("OK" if ok else "FAILED: ADMM infeasible or more than 1% below the exact optimum")
sys.exit(0 if ok else 1)
