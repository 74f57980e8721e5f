#!/usr/bin/env bash
# Dally vs Tiresias by workload and arrivals (BENCHMARKS.md, "GPU placement"): dally_bench on
# the three shipped workloads, each with its own arrivals and with Poisson arrivals, on cluster
# sizes where the workload queues, and prints one markdown row per workload x arrivals x cluster
# x lease. The simulator is deterministic: one run per configuration.
#
#   DALLY_BENCH=build/release/plugins/gpu_placement/dally_bench DEDE=build/release/tools/dede/dede \
#     bash tools/bench/gpu_traces.sh [OUT]        # OUT: default the current directory
#
# Writes OUT/raw/*.txt (every dally_bench output, verbatim), OUT/results.csv (one row per
# configuration), OUT/summary.md (the table) and, if gnuplot is installed, OUT/gpu_traces.png.
#
# Workloads and what each row means:
#   synthetic  dally_bench's 500 jobs (seed 2025) on 8 x 8-GPU machines per rack, lease 1 h: batch
#              (every job at 0) and Poisson at 100 jobs/day (the setting of the plugin README).
#   dally113   tests/data/dally/jobs_online_comparison.csv (the Dally authors' cluster-sim, 113 jobs
#              of 2-4 GPUs, ~6 min each, arriving within 80 s), leases 1 h and 20 s (cluster-sim's
#              lease_time in tests/data/dally/clusters.csv).
#   tiresias60 tests/data/dally/tiresias_jobs_60.csv converted by `dede convert tiresias` (60 jobs
#              of 1-8 GPUs, 30 s apart, 2.5 min median), 4-GPU machines, leases 1 h and 20 s.
# A trace's "own" rows keep its arrival times; its "poisson" rows re-time the same jobs in the
# same order (dally_bench --arrivals poisson --trace) at offered load 1: the rate at which the
# jobs' ideal GPU-time per day equals the cluster's GPU-seconds per day, so every size is loaded
# alike. Work model trace_runtime everywhere (a job's ideal run time is its recorded duration:
# the dally CSV's ideal_duration_s, Tiresias' duration_s; the synthetic table of the README).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:-.}")
bench=$(realpath -m "${DALLY_BENCH:?"set DALLY_BENCH to the dally_bench binary"}")
dede=$(realpath -m "${DEDE:?"set DEDE to the dede binary (dede convert)"}")
mkdir -p "$out/raw"
cd "$src"  # the shipped traces by their paths in the repository, in every output

"$dede" convert tiresias tests/data/dally/tiresias_jobs_60.csv -o "$out/tiresias60" \
  --work-model trace_runtime > "$out/raw/convert_tiresias60.txt"
dally113=tests/data/dally/jobs_online_comparison.csv
tiresias60=$out/tiresias60/jobs.csv

# Poisson rate (jobs/day) at offered load 1 on $2 GPUs for the dally_csv trace $1 (trace_runtime:
# a job's ideal GPU-time is gpus x iterations x time per iteration).
load1_rate() {
  awk -F, -v gpus="$2" '
    NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    { work += $c["num_gpus"] * $c["total_iterations"] * $c["time_per_iteration_s"]; n++ }
    END { printf "%.0f\n", gpus * 86400 / (work / n) }' "$1"
}

# workload | trace ('' = synthetic) | racks x machines x GPUs | arrivals (own = the trace's) | lease s
configs() {
  local shape lease
  for shape in 2x8x8 4x8x8 8x8x8 16x8x8; do
    echo "synthetic||$shape|batch|3600"
    echo "synthetic||$shape|poisson|3600"
  done
  for lease in 3600 20; do
    for shape in 1x4x4 1x4x8 2x4x8; do
      echo "dally113|$dally113|$shape|own|$lease"
      echo "dally113|$dally113|$shape|poisson|$lease"
    done
  done
  for lease in 3600 20; do
    for shape in 1x2x4 1x3x4 2x2x4; do
      echo "tiresias60|$tiresias60|$shape|own|$lease"
      echo "tiresias60|$tiresias60|$shape|poisson|$lease"
    done
  done
}

csv=$out/results.csv
echo "workload,arrivals,rate_per_day,cluster,gpus,lease_s,work_model,makespan_unit,time_unit,dally_jct_avg,tiresias_jct_avg,jct_avg_change_pct,dally_makespan,tiresias_makespan,makespan_change_pct,dally_queue_p95,tiresias_queue_p95,queue_p95_change_pct,dally_comm,tiresias_comm,dally_util,wall_s" > "$csv"
uptime >> "$out/uptime.txt"
while IFS='|' read -r workload trace shape arrivals lease; do
  IFS=x read -r racks machines gpus_per_machine <<< "$shape"
  gpus=$((racks * machines * gpus_per_machine))
  args=(--work-model trace_runtime --lease-s "$lease" --racks "$racks"
        --machines-per-rack "$machines" --gpus-per-machine "$gpus_per_machine")
  rate=100
  # Synthetic: makespan in days, other times in hours (dally_bench's default); the traces (jobs of
  # minutes): every time in seconds.
  units=d,h
  if [ -n "$trace" ]; then
    args+=(--trace "$trace" --seconds)
    units=s,s
    [ "$arrivals" = poisson ] && rate=$(load1_rate "$trace" "$gpus")
  fi
  [ "$arrivals" = own ] && args+=(--arrivals trace) || args+=(--arrivals "$arrivals")
  [ "$arrivals" = poisson ] && args+=(--jobs-per-day "$rate")
  [ "$arrivals" = poisson ] || rate=
  raw=$out/raw/${workload}_${arrivals}_${shape}_lease${lease}.txt
  echo "dally_bench ${args[*]}" > "$raw"
  "$bench" "${args[@]}" >> "$raw"
  awk -v w="$workload" -v a="$arrivals" -v rate="$rate" -v shape="$shape" -v gpus="$gpus" \
      -v lease="$lease" -v units="$units" '
    function pct(s) { gsub(/[%,]/, "", s); return s + 0 }
    # racks arrival policy makespan jct_avg jct_med jct_p95 jct_p99 q_avg q_p95 q_p99 comm util wall
    $3 == "Dally" { dm = $4; dj = $5; dq = $10; dc = $12; du = $13 }
    $3 == "Tiresias" { tm = $4; tj = $5; tq = $10; tc = $12 }
    /Dally vs Tiresias:/ { mc = pct($5); jc = pct($8); qc = pct($14) }
    /wall time of the six simulations/ { wall = $(NF - 1) }
    END {
      if (dc == 0) dc = 0  # no "-0.0"
      printf "%s,%s,%s,%s,%d,%s,trace_runtime,%s,%s,%s,%+d,%s,%s,%+d,%s,%s,%+d,%.1f,%.1f,%s,%s\n",
             w, a, rate, shape, gpus, lease, units, dj, tj, jc, dm, tm, mc, dq, tq, qc, dc, tc, du,
             wall
    }' "$raw" >> "$csv"
done < <(configs)
uptime >> "$out/uptime.txt"

# The markdown table.
{
  echo "| workload | arrivals | cluster (GPUs) | lease | avg JCT Dally / Tiresias | avg JCT | makespan Dally / Tiresias | makespan | P95 queue Dally / Tiresias | P95 queue | comm Dally / Tiresias | Dally util | wall s |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, 'NR > 1 {
    arr = $2 == "poisson" ? "Poisson " $3 "/day" : $2
    lease = $6 == 3600 ? "1 h" : $6 " s"
    printf "| %s | %s | %s (%d) | %s | %s / %s %s | %+d%% | %s / %s %s | %+d%% | %s / %s %s | %+d%% | %s / %s %s | %.2f | %.3f |\n",
           $1, arr, $4, $5, lease, $10, $11, $9, $12, $13, $14, $8, $15, $16, $17, $9, $18, $19,
           $20, $9, $21, $22
  }' "$csv"
  echo
  # The synthetic rows' other figures (the six policies of each dally_bench run).
  echo "| synthetic: racks, arrivals | avg queue | P99 queue | comm h Dally / Tiresias / Gandiva | avg JCT h Dally / -manual / -noWait / -fullyCons | noWait makespan vs Tiresias | Gandiva makespan d (Dally's) / median / P99 JCT h | 1-GPU / multi-GPU avg JCT h, Dally; Tiresias | Dally rack-timer samples' mean wait (leases) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for shape in 2x8x8 4x8x8 8x8x8 16x8x8; do
    for arrivals in batch poisson; do
      awk -v racks="${shape%%x*}" -v a="$arrivals" '
        function pct(s) { gsub(/[%,]/, "", s); return s + 0 }
        $1 == racks && $2 == a { mk[$3] = $4; jct[$3] = $5; med[$3] = $6; p99[$3] = $8; comm[$3] = $12 }
        /Dally vs Tiresias:/ { q = pct($11); q99 = pct($17) }
        /1-GPU \/ multi-GPU/ { split_ = sprintf("%.1f / %.1f; %.1f / %.1f", $9, pct($11), $13, pct($15)) }
        /auto-tuner samples/ { rack_wait = $(NF - 1) }
        END {
          printf "| %s, %s | %+d%% | %+d%% | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f / %.1f | %+.0f%% | %.0f (%.0f) / %.1f / %.0f | %s | %s |\n",
                 racks, a, q, q99, comm["Dally"], comm["Tiresias"], comm["Gandiva"], jct["Dally"],
                 jct["Dally-manual"], jct["Dally-noWait"], jct["Dally-fullyCons"],
                 100 * (mk["Dally-noWait"] - mk["Tiresias"]) / mk["Tiresias"], mk["Gandiva"],
                 mk["Dally"], med["Gandiva"], p99["Gandiva"], split_, rack_wait
        }' "$out/raw/synthetic_${arrivals}_${shape}_lease3600.txt"
    done
  done
} > "$out/summary.md"
cat "$out/summary.md"

# The plot: Dally's change against Tiresias per configuration (negative: Dally better).
if command -v gnuplot > /dev/null; then
  awk -F, 'NR > 1 {
    lease = $6 == 3600 ? "1h" : $6 "s"
    arr = $2 == "poisson" ? "Poi" : $2
    printf "\"%s %s %s %s\" %s %s %s\n", $1, arr, $4, lease, $12, $15, $18
  }' "$csv" > "$out/plot.dat"
  gnuplot <<EOF
set terminal pngcairo size 1400,760 font ",9" noenhanced
set output "$out/gpu_traces.png"
set title "Dally vs Tiresias: change in % (negative: Dally better); trace_runtime, one run each"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -60 nomirror
set ytics nomirror
set grid ytics
set yrange [-110:*]
set key top left
set bmargin 11
set rmargin 8
plot "$out/plot.dat" using 2:xtic(1) title "avg JCT", "" using 3 title "makespan", "" using 4 title "P95 queueing"
EOF
  rm -f "$out/plot.dat"
fi
