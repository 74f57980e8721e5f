#!/usr/bin/env bash
# `mpirun -np N dede solve` against the single process, on the round path (BENCHMARKS.md,
# "Engine: across processes (Open MPI)"): time per ADMM iteration, the exchanges' share and
# bytes, load imbalance, and peak RSS per process, at a fixed iteration count.
#
#   tools/bench/mpi_scaling.sh [OUT_DIR]     (build: DEDE_BUILD_DIR, default build/perf)
#
# BASELINE_BUILD_DIR=dir (a build of an earlier commit) adds a fifth launch, np2_baseline:
# mpirun -np 2 of that build, alternated with the others (a before/after of the exchange).
#
# Instances: the transport plugin at 1M entries (1,000 x 10,000, 100 per demand), Kdl TE
# (max flow, 5% of the pairs: needs ../shared/data; skipped with a message when absent) and
# the paper-scale cluster. Launches, alternated twice: the single process with 1 and 2
# threads, mpirun -np 1 and -np 2 (one thread per process). Writes OUT_DIR/mpi_scaling.txt
# (one line per run) and OUT_DIR/mpi_scaling.png (gnuplot, when installed).
set -euo pipefail
R=$(cd "$(dirname "$0")/../.." && pwd)
B=${DEDE_BUILD_DIR:-$R/build/perf}
out=${1:-$R/docs/benchmarks/mpi}
mkdir -p "$out"
dede=$B/tools/dede/dede
[ -x "$dede" ] || { echo "mpi_scaling: $dede not built"; exit 1; }
launches="threads1 threads2 np1 np2"
if [ -n "${BASELINE_BUILD_DIR:-}" ]; then
  base_dede=$BASELINE_BUILD_DIR/tools/dede/dede
  [ -x "$base_dede" ] || { echo "mpi_scaling: $base_dede not built"; exit 1; }
  launches="$launches np2_baseline"
fi
command -v mpirun > /dev/null || { echo "mpi_scaling: no mpirun (tools/setup.sh installs Open MPI)"; exit 1; }
[ -x /usr/bin/time ] || { echo "mpi_scaling: no /usr/bin/time (tools/setup.sh installs it)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
iterations=${ITERATIONS:-40}
# Fixed iterations: tolerances no run reaches, no early stop, no time limit.
fixed=(--set solver.admm.max_iterations=$iterations --set solver.admm.eps_abs=1e-14
       --set solver.admm.eps_rel=1e-14 --set solver.admm.time_limit_seconds=100000)

instances=()
instances+=("transport-1M|$R/configs/dev.yaml|--set plugin.settings.resources=1000 --set plugin.settings.demands=10000 --set plugin.settings.entries_per_demand=100")
kdl=$R/tools/bench/convergence/te_kdl_maxflow.yaml
if [ -f "$R/../shared/data/dede-examples/traffic_engineering/topologies/Kdl.json" ]; then
  instances+=("te-kdl|$kdl|")
else
  echo "mpi_scaling: ../shared/data/dede-examples (Kdl topology) missing: te-kdl skipped"
fi
instances+=("cluster-paper|$R/configs/cluster_paper.yaml|")

# run LAUNCH CONFIG EXTRA...: one line: launch, iterations, solve s, exchange s (max over
# processes), MB per iteration, imbalance, peak RSS per process (MB, max).
run() {
  local launch=$1 config=$2
  shift 2
  local log
  log=$(mktemp)
  case $launch in
    threads1) /usr/bin/time -f "peak_kb %M" "$dede" solve "$config" "${fixed[@]}" "$@" --set solver.admm.num_threads=1 > "$log" 2>&1 || true ;;
    threads2) /usr/bin/time -f "peak_kb %M" "$dede" solve "$config" "${fixed[@]}" "$@" --set solver.admm.num_threads=2 > "$log" 2>&1 || true ;;
    np1) mpirun -np 1 /usr/bin/time -f "peak_kb %M" "$dede" solve "$config" "${fixed[@]}" "$@" > "$log" 2>&1 || true ;;
    np2) mpirun -np 2 /usr/bin/time -f "peak_kb %M" "$dede" solve "$config" "${fixed[@]}" "$@" > "$log" 2>&1 || true ;;
    np2_baseline) mpirun -np 2 /usr/bin/time -f "peak_kb %M" "$base_dede" solve "$config" "${fixed[@]}" "$@" > "$log" 2>&1 || true ;;
  esac
  python3 - "$launch" "$log" <<'PY'
import re, sys
launch, path = sys.argv[1], sys.argv[2]
text = open(path).read()
m = re.search(r"iterations (\d+),.*time [0-9.]+ s \(setup [0-9.]+, solve ([0-9.]+), repair", text)
if not m:
    print(f"{launch} FAILED: " + " | ".join(text.strip().splitlines()[-3:]))
    sys.exit(0)
it, solve = int(m.group(1)), float(m.group(2))
d = re.search(r"imbalance ([0-9.]+).*exchanges ([0-9.]+)-([0-9.]+) s \(in MPI calls ([0-9.]+) s.*, ([0-9.]+) MB received per iteration", text)
imb, exch, in_mpi, mb = (float(d.group(1)), float(d.group(3)), float(d.group(4)), float(d.group(5))) if d else (1.0, 0.0, 0.0, 0.0)
peak = max(int(k) for k in re.findall(r"peak_kb (\d+)", text)) / 1e3
print(f"{launch} iterations {it} ms_per_iteration {solve / it * 1e3:.2f} exchange_ms_per_iteration "
      f"{exch / it * 1e3:.2f} in_mpi_ms_per_iteration {in_mpi / it * 1e3:.2f} mb_per_iteration {mb:.2f} imbalance {imb:.2f} peak_rss_mb_per_process {peak:.0f}")
PY
  rm -f "$log"
}

result=$out/mpi_scaling.txt
{
  echo "# $(date -u +%FT%TZ) $(git -C "$R" rev-parse --short HEAD)${BASELINE_BUILD_DIR:+ (baseline: $BASELINE_BUILD_DIR)} $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $iterations iterations"
  for spec in "${instances[@]}"; do
    IFS='|' read -r name config extra <<< "$spec"
    # shellcheck disable=SC2206
    extra_args=($extra)
    for pass in 1 2; do
      for launch in $launches; do
        echo "$name pass $pass $(run "$launch" "$config" "${extra_args[@]}")"
      done
    done
  done
} | tee "$result"

if command -v gnuplot > /dev/null; then
  # ms per iteration of each launch (the faster pass), one group per instance.
  awk '!/^#/ && !/FAILED/ {k = $1 " " $4; v = $8; if (!(k in best) || v < best[k]) best[k] = v}
       END {for (k in best) print k, best[k]}' "$result" | sort > "$out/mpi_scaling.dat"
  python3 - "$out/mpi_scaling.dat" "$out/mpi_scaling.table" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    inst, launch, ms = line.split()
    rows.setdefault(inst, {})[launch] = float(ms)
with open(sys.argv[2], "w") as f:
    for inst, d in rows.items():
        f.write(inst + " " + " ".join(str(d.get(k, "NaN")) for k in ("threads1", "threads2", "np1", "np2")) + "\n")
PY
  gnuplot <<GP
set terminal pngcairo size 900,480 noenhanced
set output "$out/mpi_scaling.png"
set title "ADMM time per iteration: single process vs mpirun (2-core machine, $iterations iterations)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "ms per iteration"
set logscale y
set key top left
plot "$out/mpi_scaling.table" using 2:xtic(1) title "1 process, 1 thread", \
     "" using 3 title "1 process, 2 threads", \
     "" using 4 title "mpirun -np 1", \
     "" using 5 title "mpirun -np 2 (1 thread each)"
GP
  echo "plot: $out/mpi_scaling.png"
else
  echo "mpi_scaling: no gnuplot: the table is written, the plot is not"
fi
