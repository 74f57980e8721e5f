#!/usr/bin/env bash
# Re-runs the command behind a table of BENCHMARKS.md, from a clean Release build.
#
#   bash tools/bench/reproduce.sh list            # every table id, what it runs, how long it took here
#   bash tools/bench/reproduce.sh ID [ID ...]     # build (cmake --workflow --preset release), then run
#   bash tools/bench/reproduce.sh all-quick       # every table that finishes within minutes here
#   DEDE_BUILD_DIR=build/ci bash tools/bench/reproduce.sh check   # every command's programs exist
#
# Outputs go to bench-out/ID/ (CSV, markdown tables, plots, logs). Tables that read public data
# take it from $DEDE_SHARED_DATA (default ../shared/data next to the repository) and stop with a
# message naming the missing file when it is absent. Every run prints `uptime` before and
# after: the machine's load changes absolute times (compare ratios within one run).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
shared=$(realpath -m "${DEDE_SHARED_DATA:-$root/../shared/data}")
build=$(realpath -m "${DEDE_BUILD_DIR:-$root/build/release}")
out_root=$(realpath -m "${DEDE_BENCH_OUT:-$root/bench-out}")

# id | minutes measured here | description | command (run from bench-out/ID, $B = build dir)
tables() {
  cat <<'EOF'
admm-iteration|1|engine: ADMM time per iteration, bytes per entry, peak RSS and triad bandwidth, 1M-entry transport LP, 1 and 2 threads|"$B/tools/bench/dede_bench" admm --iterations 100
convergence|6|engine: the convergence suite (tools/bench/convergence): ADMM vs Clp to 1e-3 / 1e-4, default settings|"$B/tools/bench/dede_bench" convergence --max-seconds 120 --trace-csv convergence_trace.csv --markdown convergence.md && bash "$R/tools/bench/plot_convergence.sh" convergence_trace.csv convergence.png
convergence-cost-side|11|engine: the convergence suite with each entry's cost on its resource copy (the default) and split half and half (entry_cost_side: split), alternated in one run|bash "$R/tools/bench/convergence_ab.sh" "$B" . split 'entry_cost_side: split'
mpi-scaling|4|engine across processes (Open MPI): mpirun -np 1 and 2 against the single process with 1 and 2 threads at a fixed iteration count, time per iteration, the exchanges' share, MB per iteration and peak RSS per process (transport 1M, Kdl TE, paper-scale cluster)|DEDE_BUILD_DIR="$B" bash "$R/tools/bench/mpi_scaling.sh" .
time-budget|2|runtime: whole rounds of every shipped deployment against a 0.5 s budget|"$B/tools/bench/dede_bench" budget --budget 0.5 --rounds 3
te-b4|1|traffic engineering, B4, shipped matrices at scale 4 (congested), max flow, every method, 3 rounds|"$B/tools/eval/dede_eval" deployments "$R/configs/te_b4.yaml" --rounds 3 --threads 1,2 --set plugin.settings.scale=4 --out .
te-kdl|3|traffic engineering, Kdl, gravity traffic on 5% of the pairs (congested), max flow: exact, DeDe with a 10 s budget, POP-4/16, pinning|"$B/tools/eval/dede_eval" deployments "$R/tools/bench/convergence/te_kdl_maxflow.yaml" --rounds 1 --threads 2 --methods exact,admm,pop-4,pop-16,demand_pinning --set solver.admm.time_limit_seconds=10 --value satisfied_demand --out .
te-kdl-tenth|3|traffic engineering, Kdl as te-kdl: DeDe and POP-4 with a tenth of the exact solve's time, same run|"$B/tools/eval/dede_eval" deployments "$R/tools/bench/convergence/te_kdl_maxflow.yaml" --rounds 1 --threads 2 --methods exact,admm,pop-4 --budget-fraction 0.1 --value satisfied_demand --out .
te-kdl-tenth-seeded|3|traffic engineering, Kdl at a tenth of the exact solve's time: the allocation read from the resource copy, cold start from zero and from the plugin's greedy routing|"$B/tools/eval/dede_eval" deployments "$R/tools/bench/convergence/te_kdl_maxflow.yaml" --rounds 1 --threads 2 --methods exact,admm --budget-fraction 0.1 --set solver.admm.final_iterate=resource --sweep solver.cold_start=zero,repair --value satisfied_demand --out .
te-zoo|3|traffic engineering with the defaults on Topology Zoo's Uninett2010, Deltacom and UsCarrier (gravity, every pair, congested) and Kdl (5% of the pairs): exact, DeDe and POP-4 at a tenth of the exact solve's time|"$B/tools/eval/dede_eval" deployments "$R/tools/bench/te_zoo/uninett2010.yaml" "$R/tools/bench/te_zoo/deltacom.yaml" "$R/tools/bench/te_zoo/uscarrier.yaml" "$R/tools/bench/te_zoo/kdl.yaml" --rounds 1 --threads 2 --methods exact,admm,pop-4 --budget-fraction 0.1 --value satisfied_demand --out .
certified-gap|20|engine: the certified gap against the true gap (exact solve) by iteration budget (cold rounds, no time limit) on the shipped ADMM deployments, Kdl max flow and min max utilisation, B4 min max utilisation and the contended cluster; and where gap_tolerance 0.01 stops|python3 "$R/tools/bench/gap/gap_bench.py" run --dede "$B/tools/dede/dede" --out . --max-budget 2000 && python3 "$R/tools/bench/gap/gap_bench.py" summarize results.csv --markdown summary.md --plot gap.png --plot-instance kdl-maxflow
te-zoo-all|75|traffic engineering with the shipped defaults on every Topology Zoo network of the shared data with >= 60 nodes (32; Kdl at 5% of its pairs), two gravity matrices each at a load where the exact optimum routes 30-70% (calibrated by exact solves, once): exact, DeDe at a tenth of the exact round time, POP-4 at the same budget; per half (choose / report) and all|bash "$R/tools/bench/te_zoo_all/run.sh" . choose && bash "$R/tools/bench/te_zoo_all/run.sh" . report
te-asn2k|25|traffic engineering, the full ASN2k (3.02 M pairs, 32.7 M variables; gravity at 4x the default demand, contended), one process per method, each with a 60 s round: DeDe, POP-64/16/4, demand pinning and the compact path LP (Clp primal simplex, stopped at the limit), satisfied demand, time and peak RSS|DEDE="$B/tools/dede/dede" bash "$R/tools/bench/te_asn2k/run.sh" admm pop-64 pop-16 pop-4 demand_pinning exact
te-asn2k-5pct|3|traffic engineering, ASN2k at 5% of the pairs (151,038; the default demand, 94% routable): exact (compact path LP), DeDe with a 1.5 s budget, POP-4/16/64 and pinning, one process each|DEDE="$B/tools/dede/dede" bash "$R/tools/bench/te_asn2k/run.sh" --fraction 0.05 --set plugin.settings.scale=1 --set solver.admm.time_limit_seconds=1.5 --set solver.exact.lp_method=barrier --set solver.exact.time_limit_seconds=3600 exact admm pop-4 pop-16 pop-64 demand_pinning
cluster-contended|5|cluster scheduling, contended max-min with the solver defaults: the six Philly VCs of the shared trace with >= 500 jobs x seeds 1-4 (32 types, 2,000 jobs), the cold round, exact and DeDe at half the exact round time|python3 "$R/tools/bench/cluster_contended/make.py" "$S" . && "$B/tools/eval/dede_eval" deployments cl-*.yaml --rounds 1 --threads 2 --methods exact,admm --budget-fraction 0.5 --out .
cluster-small|1|cluster scheduling, the shipped trace (10 types, 233 jobs), max-min, every method, 3 rounds|"$B/tools/eval/dede_eval" deployments "$R/configs/cluster_small.yaml" --rounds 3 --threads 1,2 --out .
cluster-paper|4|cluster scheduling at paper scale (configs/cluster_paper.yaml: 456 types x 2,000 jobs, max-min), exact, DeDe, POP-4, Gandiva, 2 rounds|"$B/tools/eval/dede_eval" deployments "$R/configs/cluster_paper.yaml" --rounds 2 --threads 2 --methods exact,admm,pop-4,gandiva --out .
lb-small|3|load balancing, 256 shards x 32 servers: movements of the exact MILP (Cbc), DeDe, greedy, POP-4/16, 5 rounds|"$B/tools/eval/dede_eval" deployments "$R/configs/lb_small.yaml" --rounds 5 --threads 2 --methods exact,dede,dede-nokeep,greedy,pop-4,pop-16 --value movements --out .
lb-paper|6|load balancing at paper scale (2,048 shards x 256 servers), movements of DeDe, greedy, POP-4/16 with DeDe sub-problems (no exact: the MILP has a million variables), 100 rounds|"$B/tools/eval/dede_eval" deployments "$R/configs/lb_paper.yaml" --rounds 100 --threads 2 --methods dede,dede-nokeep,greedy,pop-4,pop-16 --set plugin.settings.pop_solver=dede --reference '' --value movements --out .
gpu-dally|1|GPU placement (configs/gpu_dally.yaml: 60 jobs, 64 GPUs), the six policies until every job finished: average JCT|"$B/tools/eval/dede_eval" deployments "$R/configs/gpu_dally.yaml" --rounds 0 --last-round-only --methods dally,dally-manual,dally-nowait,dally-consolidated,tiresias,gandiva --reference '' --value jct_avg_h --out .
gpu-dally-paper|1|GPU placement, the Dally paper's table 1 setting (simulator alone, not a deployment): Dally vs Tiresias/Gandiva on the dally-workloads trace|"$B/plugins/gpu_placement/dally_bench" --work-model trace_runtime
gpu-traces|1|GPU placement, Dally vs Tiresias by workload and arrivals (simulator alone): the synthetic 500 jobs (batch, Poisson), the Dally authors' 113-job trace and the Tiresias 60-job sample (own arrivals, and re-timed as Poisson at offered load 1), leases 1 h and 20 s, three or four cluster sizes each|DALLY_BENCH="$B/plugins/gpu_placement/dally_bench" DEDE="$B/tools/dede/dede" bash "$R/tools/bench/gpu_traces.sh" .
micro|3|Google Benchmark: ADMM iteration, every block solver vs Clp, SQLite write rate|"$B/tools/bench/dede_micro"
EOF
}

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

list() {
  printf '%-22s %7s  %s\n' id minutes description
  tables | while IFS='|' read -r id minutes description _; do
    printf '%-22s %7s  %s\n' "$id" "$minutes" "$description"
  done
}

run_one() {
  local id=$1 line
  line=$(tables | awk -F'|' -v id="$id" '$1 == id')
  if [ -z "$line" ]; then
    echo "reproduce.sh: unknown table id '$id' (see: bash tools/bench/reproduce.sh list)" >&2
    exit 2
  fi
  local command=${line#*|*|*|}
  mkdir -p "$out_root/$id"
  echo "== $id: $command"
  (
    cd "$out_root/$id"
    export B=$build S=$shared R=$root
    export DEDE_PLUGIN_PATH=${DEDE_PLUGIN_PATH:-$build/plugins}
    uptime | tee uptime.txt
    local start end
    start=$(date +%s.%N)
    bash -c "$command" 2>&1 | tee output.txt
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" -v id="$id" 'BEGIN { printf "%s: %.1f s wall\n", id, b - a }' | tee seconds.txt
    uptime | tee -a uptime.txt
  )
}

# Every program a command names ("$B/...") exists in the build directory (a test runs this so
# the table commands cannot silently rot when a target is renamed).
check() {
  local missing=0
  while IFS='|' read -r id _ _ command; do
    for program in $(grep -o '"\$B/[^"]*"' <<<"$command" | tr -d '"'); do
      local path=${program/\$B/$build}
      if [ ! -x "$path" ]; then
        echo "reproduce.sh: table '$id' runs $path, which is not built" >&2
        missing=1
      fi
    done
  done < <(tables)
  return $missing
}

[ $# -ge 1 ] || usage
case "$1" in
  -h|--help) usage 0 ;;
  list) list; exit 0 ;;
  check) check && echo "reproduce.sh: every table's programs are built in $build"; exit ;;
esac
ids=("$@")
if [ "$1" = all-quick ]; then
  mapfile -t ids < <(tables | awk -F'|' '$2 <= 3 { print $1 }')
fi
for id in "${ids[@]}"; do
  tables | awk -F'|' -v id="$id" '$1 == id { found = 1 } END { exit !found }' || {
    echo "reproduce.sh: unknown table id '$id' (see: bash tools/bench/reproduce.sh list)" >&2
    exit 2
  }
done
mkdir -p "$out_root"
if [ -z "${DEDE_BUILD_DIR:-}" ]; then
  cmake --workflow --preset release > "$out_root/build.log" 2>&1 || {
    echo "reproduce.sh: the release build failed; see $out_root/build.log" >&2
    exit 1
  }
fi
for id in "${ids[@]}"; do run_one "$id"; done
