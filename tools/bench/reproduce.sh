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
admm-iteration|1|ADMM time per iteration, bytes per entry, peak RSS and triad bandwidth, 1M-entry transport LP, 1 and 2 threads|"$B/tools/bench/dede_bench" admm --iterations 100
convergence|6|the convergence suite (tools/bench/convergence): ADMM vs Clp to 1e-3 / 1e-4, default settings|"$B/tools/bench/dede_bench" convergence --max-seconds 120 --trace-csv convergence_trace.csv --markdown convergence.md && bash "$R/tools/bench/plot_convergence.sh" convergence_trace.csv convergence.png
convergence-global|8|the suite's max-min / min-max instances with and without the global term's own penalty balancing, same run|bash "$R/tools/bench/convergence_ab.sh" "$B" . off 'global_rho_balancing: false' te_b4_minmlu cluster_contended_maxmin cluster_paper_maxmin te_kdl_minmlu
convergence-equilibrate|2|the suite's quick instances with and without equilibration, same run|DEDE_CONVERGENCE_MAX_SECONDS=30 bash "$R/tools/bench/convergence_ab.sh" "$B" . eq 'equilibrate: true' te_b4_minmlu cluster_contended_maxmin cluster_paper_maxmin transport_99k
convergence-factors|25|the whole suite with its settings and with the per-copy and per-block penalty factors off (the engine before them), same run|bash "$R/tools/bench/convergence_ab.sh" "$B" . pf 'global_copy_balancing: false, block_rho_balancing: off'
convergence-anderson|20|the whole suite with and without Anderson acceleration (type2, memory 5, a step every 5 iterations), same run|bash "$R/tools/bench/convergence_ab.sh" "$B" . aa5 'anderson_memory: 5, anderson_type: type2, anderson_interval: 5'
admm-quality|1|ADMM vs Clp on a 99k-entry transport LP, same run|"$B/tools/bench/dede_bench" admm --resources 300 --demands 3000 --entries-per-demand 33 --quality
micro|3|Google Benchmark: ADMM iteration, every block solver vs Clp, SQLite write rate|"$B/tools/bench/dede_micro"
harness-small|1|every domain and method at size small (the integration test's run)|"$B/tools/eval/dede_eval" run --size small --threads 1,all --out .
te-small|1|traffic engineering, B4, max flow + min max utilisation, every method|"$B/tools/eval/dede_eval" run --domain traffic_engineering --size small --threads 1,all --out .
te-medium|30|traffic engineering, Kdl (5% of pairs, gravity, congested), every method|"$B/tools/eval/dede_eval" run --domain traffic_engineering --size medium --threads all --shared-data "$S" --out .
te-paper|30|traffic engineering, ASN2k (5% of pairs), every method|"$B/tools/eval/dede_eval" run --domain traffic_engineering --size paper --threads all --shared-data "$S" --out .
te-kdl-acceptance-maxflow|3|Kdl 5% of pairs, max flow: exact (Clp barrier) then DeDe with 1/10 of its time, same run|TE_EVAL_SIZE=medium DEDE_SHARED_DATA="$S" TE_EVAL_OBJECTIVES=max_flow TE_EVAL_METHODS=exact,dede TE_EVAL_THREADS=0 TE_EVAL_ADMM_FRACTION=0.1 TE_EVAL_ADMM_RHO=10000000 "$B/tests/plugins/traffic_engineering/te_eval_test" --gtest_also_run_disabled_tests --gtest_filter='*Measure*'
te-kdl-acceptance-maxflow-seeded|3|as te-kdl-acceptance-maxflow, cold round seeded by the repair (solver.cold_start: repair), relaxation 1.8|TE_EVAL_COLD_START=repair TE_EVAL_ADMM_RELAXATION=1.8 TE_EVAL_SIZE=medium DEDE_SHARED_DATA="$S" TE_EVAL_OBJECTIVES=max_flow TE_EVAL_METHODS=exact,dede TE_EVAL_THREADS=0 TE_EVAL_ADMM_FRACTION=0.1 TE_EVAL_ADMM_RHO=10000000 "$B/tests/plugins/traffic_engineering/te_eval_test" --gtest_also_run_disabled_tests --gtest_filter='*Measure*'
te-kdl-acceptance-maxflow-resource|3|as te-kdl-acceptance-maxflow-seeded, the allocation read from the resource-side copy (solver.admm.final_iterate: resource)|TE_EVAL_FINAL_ITERATE=resource TE_EVAL_COLD_START=repair TE_EVAL_ADMM_RELAXATION=1.8 TE_EVAL_SIZE=medium DEDE_SHARED_DATA="$S" TE_EVAL_OBJECTIVES=max_flow TE_EVAL_METHODS=exact,dede TE_EVAL_THREADS=0 TE_EVAL_ADMM_FRACTION=0.1 TE_EVAL_ADMM_RHO=10000000 "$B/tests/plugins/traffic_engineering/te_eval_test" --gtest_also_run_disabled_tests --gtest_filter='*Measure*'
te-kdl-acceptance-minmlu|5|Kdl 5% of pairs, min max utilisation: exact (Clp barrier), DeDe with 1/10 of its time (+ the repair polish), flow deviation alone|TE_EVAL_SIZE=medium DEDE_SHARED_DATA="$S" TE_EVAL_OBJECTIVES=min_mlu TE_EVAL_METHODS=exact,dede,flow_deviation TE_EVAL_THREADS=0 TE_EVAL_ADMM_FRACTION=0.1 "$B/tests/plugins/traffic_engineering/te_eval_test" --gtest_also_run_disabled_tests --gtest_filter='*Measure*'
te-kdl-minmlu-nopolish|3|Kdl 5% of pairs, min max utilisation: exact (Clp barrier), DeDe with 1/10 of its time, without the repair polish (polish_sweeps 0)|TE_EVAL_POLISH_SWEEPS=0 TE_EVAL_SIZE=medium DEDE_SHARED_DATA="$S" TE_EVAL_OBJECTIVES=min_mlu TE_EVAL_METHODS=exact,dede TE_EVAL_THREADS=0 TE_EVAL_ADMM_FRACTION=0.1 "$B/tests/plugins/traffic_engineering/te_eval_test" --gtest_also_run_disabled_tests --gtest_filter='*Measure*'
te-robustness-small|1|TE robustness study on B4 (granularity, temporal, spatial, failures)|"$B/tools/eval/dede_eval" robustness --size small --out .
te-robustness-medium|3|TE robustness study on Kdl (0.5% of pairs)|"$B/tools/eval/dede_eval" robustness --size medium --shared-data "$S" --out .
te-robustness-paper|6|TE robustness study on ASN2k (1% of pairs, 50/100/200 failed links)|"$B/tools/eval/dede_eval" robustness --size paper --shared-data "$S" --out .
cluster-small|1|cluster scheduling on the shipped trace, max-min and proportional fairness|"$B/tools/eval/dede_eval" run --domain cluster_scheduling --size small --threads 1,all --out .
cluster-paper-maxmin|10|cluster scheduling, 456 types x 2,000 jobs, max-min, 20 rounds|DEDE_EVAL_CLUSTER_OBJECTIVE=max_min "$B/tools/eval/dede_eval" run --domain cluster_scheduling --size paper --rounds 20 --threads all --shared-data "$S" --out .
cluster-paper-pf|25|cluster scheduling, 456 types x 2,000 jobs, proportional fairness|DEDE_EVAL_CLUSTER_OBJECTIVE=prop_fair "$B/tools/eval/dede_eval" run --domain cluster_scheduling --size paper --threads all --shared-data "$S" --out .
cluster-simulation|15|200 simulated rounds of configs/cluster_paper.yaml through the runtime, history in SQLite|sed -e "s|philly_trace: .*|philly_trace: $S/philly-gavel/jobs_seed0_small_vcs.csv|" -e "s|database: .*|database: $PWD/cluster_paper.db|" "$R/configs/cluster_paper.yaml" > cluster_paper.yaml && DEDE_PLUGIN_PATH="$B/plugins" "$B/tools/dede/dede" run cluster_paper.yaml
lb-small|1|load balancing, 32 shards x 16 servers, every method, exact Cbc|"$B/tools/eval/dede_eval" run --domain load_balancing --size small --out .
lb-medium|12|load balancing, 256 x 32, 20 rounds, exact Cbc (60 s)|"$B/tools/eval/dede_eval" run --domain load_balancing --size medium --threads 1,all --exact-time-limit 60 --out .
lb-paper|1|load balancing, 2,048 x 256, 100 rounds (acceptance rows 20-99)|"$B/tools/eval/dede_eval" run --domain load_balancing --size paper --threads 1,all --methods dede,dede-nokeep,greedy,pop-4,pop-16 --out .
gpu-dally-1|1|Dally vs Tiresias/Gandiva, trace_runtime (table 1)|"$B/plugins/gpu_placement/dally_bench" --work-model trace_runtime
gpu-dally-2|1|Dally, artist_linear work model (table 2)|"$B/plugins/gpu_placement/dally_bench" --work-model artist_linear
gpu-dally-3|1|Tiresias as the authors' code (table 3)|"$B/plugins/gpu_placement/dally_bench" --work-model trace_runtime --tiresias code
gpu-dally-4|1|never-run jobs first (table 4)|"$B/plugins/gpu_placement/dally_bench" --work-model trace_runtime --never-run first
gpu-dally-5|1|starvation clock since the last assignment (table 5)|"$B/plugins/gpu_placement/dally_bench" --work-model trace_runtime --starvation-clock last_assignment
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
