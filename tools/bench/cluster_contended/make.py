#!/usr/bin/env python3
"""The contended cluster max-min instances (issues 46 and 48): one Philly VC of the shared trace
each (the six with >= 500 jobs), 32 GPU types, 2,000 jobs plus 200 arrivals, equal priorities,
seeds 1-4: 24 deployments whose solver block is `kind: admm` alone (the defaults; dede_eval
sets the threads and the time limit).

    make.py SHARED_DATA_DIR OUT_DIR [--jobs N --types T --arrivals A]

writes OUT_DIR/vc/<vc>.csv and OUT_DIR/cl-<vc>-s<seed>.yaml. Run them with
    dede_eval deployments OUT_DIR/cl-*.yaml --rounds 1 --threads 2 --methods exact,admm \\
        --budget-fraction 0.5
"""
import argparse
import collections
import csv
import os
import sys

VCS = ["0e4a51", "103959", "2869ce", "7f04ca", "e13805", "ed69ec"]

TEMPLATE = """# Contended cluster max-min (tools/bench/cluster_contended/make.py): Philly VC {vc}, {types}
# GPU types, {jobs} jobs plus {arrivals} arrivals, equal priorities, seed {seed}; solver defaults.
deployment: {{name: cl-{vc}-s{seed}, seed: {seed}}}
plugin:
  name: cluster_scheduling
  settings:
    fairness: max_min
    source: philly
    philly_trace: vc/{vc}.csv
    num_types: {types}
    num_jobs: {jobs}
    num_arrivals: {arrivals}
    max_weight: 1
    max_types_per_job: 64
    mean_interarrival_s: 100
    round_seconds: 360
    rounds: 12
    report_jobs: none
solver:
  kind: admm
schedule:
  interval_seconds: 360
  simulated_time: true
storage:
  database: ":memory:"
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shared")
    parser.add_argument("out")
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--types", type=int, default=32)
    parser.add_argument("--arrivals", type=int, default=200)
    args = parser.parse_args()
    trace = os.path.join(args.shared, "philly-gavel", "jobs_seed0_small_vcs.csv")
    try:
        with open(trace, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        sys.exit(f"make.py: {trace}: {e.strerror}")
    if not rows:
        sys.exit(f"make.py: {trace}: empty file, expected a header with 'vc' in column 2")
    header, by_vc = rows[0], collections.defaultdict(list)
    if len(header) < 2 or header[1] != "vc":
        got = header[1] if len(header) > 1 else ""
        sys.exit(f"make.py: {trace}: line 1, column 2 is '{got}', expected 'vc'")
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            sys.exit(f"make.py: {trace}: line {line}: {len(row)} fields, the header has "
                     f"{len(header)}")
        by_vc[row[1]].append(row)
    os.makedirs(os.path.join(args.out, "vc"), exist_ok=True)
    for vc in VCS:
        if len(by_vc[vc]) < 500:
            sys.exit(f"make.py: {trace}: VC {vc} has {len(by_vc[vc])} jobs, expected >= 500")
        with open(os.path.join(args.out, "vc", vc + ".csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(by_vc[vc])
        for seed in range(1, 5):
            with open(os.path.join(args.out, f"cl-{vc}-s{seed}.yaml"), "w") as f:
                f.write(TEMPLATE.format(vc=vc, seed=seed, jobs=args.jobs, types=args.types,
                                        arrivals=args.arrivals))
    print(f"{len(VCS) * 4} deployments in {args.out}")


if __name__ == "__main__":
    main()
