#!/usr/bin/env bash
# gpu_placement end to end: configs/gpu_dally.yaml (copied, 30 jobs, database rewritten) ->
# `dede run` until every job completed -> SQLite rows; then the same deployment stopped after 7
# rounds and resumed from its checkpoint must record identical job completions; a tiresias run of
# the Tiresias sample trace; configs/gpu_combined.yaml (two GPU types) with ADMM, and with a plugin
# method stopped and resumed; live submissions through the inbox.
# Usage: gpu_placement_cli_test.sh <dede binary> <plugin dir> <source dir> [PART]
# PART (dally | tiresias | combined | plugin_method | live; default all of them) runs one part:
# CMake registers each as its own test, so that ctest spreads them over its jobs.
set -euo pipefail
dede=$1
plugins=$2
src=$3
part=${4:-all}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "gpu_placement_cli_test: $*"; exit 1; }
export DEDE_PLUGIN_PATH=$plugins

q() { sqlite3 "$1" "$2"; }
completions="SELECT key, json_extract(data, '$.completion_s') FROM domain_records WHERE kind = 'job' AND json_extract(data, '$.state') = 'finished' ORDER BY key"

make_config() {  # $1 = output file, $2 = database
  sed -e "s|database: dede-gpu-dally.db|database: $2|" -e "s|jobs: 60|jobs: 30|" \
      "$src/configs/gpu_dally.yaml" > "$1"
}
part_dally() {
  make_config "$work/a.yaml" "$work/a.db"
  make_config "$work/b.yaml" "$work/b.db"

  out=$("$dede" validate "$work/a.yaml") || fail "validate exit: $out"
  grep -q "plugin gpu_placement .*, 1 resources, 30 demands" <<< "$out" || fail "validate: $out"
  "$dede" run "$work/a.yaml" > "$work/a.log" || { cat "$work/a.log"; fail "run"; }
  tail -n 2 "$work/a.log"
  grep -q "plugin has no data for round" "$work/a.log" || fail "the deployment should end when every job completed"
  rounds=$(q "$work/a.db" "SELECT count(*) FROM rounds")
  [ "$rounds" -gt 10 ] || fail "only $rounds rounds"
  [ "$(q "$work/a.db" "SELECT count(DISTINCT method) FROM rounds")" = 1 ] || fail "method column"
  [ "$(q "$work/a.db" "SELECT method FROM rounds LIMIT 1")" = dally ] || fail "method should be dally"
  # Every job completes exactly once, with a JCT >= its queueing delay.
  [ "$(q "$work/a.db" "SELECT count(*) FROM domain_records WHERE kind = 'job' AND json_extract(data, '$.state') = 'finished'")" = 30 ] \
    || fail "30 finished job records expected"
  [ "$(q "$work/a.db" "SELECT count(*) FROM domain_records WHERE kind = 'job' AND json_extract(data, '$.state') = 'finished' AND json_extract(data, '$.jct_s') >= json_extract(data, '$.queueing_s')")" = 30 ] \
    || fail "jct >= queueing"
  [ "$(q "$work/a.db" "SELECT count(DISTINCT key) FROM domain_records WHERE kind = 'placement'")" = 30 ] || fail "placements"
  [ "$(q "$work/a.db" "SELECT count(*) FROM domain_records WHERE kind = 'timer'")" -ge 1 ] || fail "timer records"
  # The allocation holds who has GPUs: never more than the cluster's 64 GPUs, and equal to the metric.
  [ "$(q "$work/a.db" "SELECT count(*) FROM (SELECT round, sum(value) s FROM allocations GROUP BY round) WHERE s > 64")" = 0 ] \
    || fail "allocation above capacity"
  [ "$(q "$work/a.db" "SELECT count(*) FROM metrics m WHERE name = 'gpus_held' AND value <> (SELECT coalesce(sum(value), 0) FROM allocations a WHERE a.round = m.round)")" = 0 ] \
    || fail "gpus_held differs from the allocation"
  [ "$(q "$work/a.db" "SELECT group_concat(round) FROM plugin_states")" = "$((rounds - 1))" ] || fail "the latest checkpoint only"
  [ "$(q "$work/a.db" "SELECT value FROM metrics WHERE name = 'finished_jobs' ORDER BY round DESC LIMIT 1")" = 30.0 ] \
    || fail "finished_jobs metric"

  # Stop after 7 rounds, resume: identical completions.
  "$dede" run "$work/b.yaml" --rounds 7 > "$work/b1.log" || { cat "$work/b1.log"; fail "run b (7 rounds)"; }
  "$dede" run "$work/b.yaml" > "$work/b2.log" || { cat "$work/b2.log"; fail "resume b"; }
  grep -q "resuming deployment" "$work/b2.log" || fail "second run should resume"
  [ "$(q "$work/a.db" "$completions")" = "$(q "$work/b.db" "$completions")" ] || fail "resumed run differs"
  [ "$(q "$work/b.db" "SELECT count(*) FROM rounds")" = "$rounds" ] || fail "resumed run has another number of rounds"
}

part_tiresias() {
  # Tiresias on the Tiresias sample trace (60 jobs, 2 x 2 x 4 GPUs, 5-minute ticks).
  sed -e "s|database: dede-gpu-dally.db|database: $work/t.db|" -e "s|method: dally|method: tiresias|" \
      -e "s|tick_s: 3600 |tick_s: 300 |" \
      -e "s|cluster: {racks: 2, machines_per_rack: 4, gpus_per_machine: 8}|cluster: {racks: 2, machines_per_rack: 2, gpus_per_machine: 4}|" \
      -e "s|source: synthetic |source: tiresias_csv\n      trace: $src/tests/data/dally/tiresias_jobs_60.csv\n      #|" \
      "$src/configs/gpu_dally.yaml" > "$work/t.yaml"
  "$dede" run "$work/t.yaml" > "$work/t.log" || { cat "$work/t.yaml" "$work/t.log"; fail "run tiresias"; }
  [ "$(q "$work/t.db" "SELECT count(*) FROM domain_records WHERE kind = 'job' AND json_extract(data, '$.state') = 'finished'")" = 60 ] \
    || fail "tiresias sample: 60 finished jobs expected"
  dally_bench_retimed_trace
}

dally_bench_retimed_trace() {
  # dally_bench --arrivals poisson with a trace: the header says the arrivals were re-timed and
  # at what rate, and two runs print the same rows (seeded; the wall-time column aside).
  local bench=$plugins/gpu_placement/dally_bench
  [ -x "$bench" ] || { echo "no $bench: dally_bench check skipped"; return 0; }
  local args=(--trace "$src/tests/data/dally/jobs_online_comparison.csv" --arrivals poisson
              --racks 1 --machines-per-rack 4 --jobs-per-day 2000 --seconds)
  "$bench" "${args[@]}" > "$work/r1.txt" || fail "dally_bench poisson with a trace: exit $?"
  "$bench" "${args[@]}" > "$work/r2.txt" || fail "dally_bench poisson with a trace (2)"
  grep -q "re-timed as a Poisson process at 2000 jobs/day" "$work/r1.txt" \
    || fail "dally_bench: the header should say the arrivals were re-timed: $(head -n 3 "$work/r1.txt")"
  [ "$(grep -c '^1 *poisson ' "$work/r1.txt")" = 6 ] || fail "dally_bench: six poisson rows expected"
  rows() { grep -v wall "$1" | sed 's/ *[0-9.]*$//'; }
  [ "$(rows "$work/r1.txt")" = "$(rows "$work/r2.txt")" ] || fail "dally_bench: two seeded runs differ"
}

part_combined() {
  # Combined mode (configs/gpu_combined.yaml: two GPU types, ADMM max-min shares + Dally in each pool).
  sed -e "s|database: dede-gpu-combined.db|database: $work/c.db|" "$src/configs/gpu_combined.yaml" > "$work/c.yaml"
  "$dede" run "$work/c.yaml" > "$work/c.log" || { cat "$work/c.log"; fail "run combined"; }
  [ "$(q "$work/c.db" "SELECT count(*) FROM domain_records WHERE kind = 'job' AND json_extract(data, '$.state') = 'finished'")" = 40 ] \
    || fail "combined: 40 finished job records expected"
  [ "$(q "$work/c.db" "SELECT count(DISTINCT resource_name) FROM resource_utilisation WHERE allocated > 0")" = 2 ] \
    || fail "combined: both GPU types should hold jobs"
  [ "$(q "$work/c.db" "SELECT count(*) FROM resource_utilisation WHERE allocated > capacity")" = 0 ] || fail "combined: above capacity"
  [ "$(q "$work/c.db" "SELECT count(*) FROM rounds WHERE solver <> 'admm' OR feasible <> 1")" = 0 ] || fail "combined: admm rounds, feasible"
}

part_plugin_method() {
  # Several GPU types with a plugin method (cold-start ADMM shares each round): stop and resume exactly.
  for x in d e; do
    sed -e "s|database: dede-gpu-combined.db|database: $work/$x.db|" -e "s|  kind: admm|  kind: plugin\n  method: dally|" \
        "$src/configs/gpu_combined.yaml" > "$work/$x.yaml"
  done
  "$dede" run "$work/d.yaml" > "$work/d.log" || { cat "$work/d.log"; fail "run d"; }
  "$dede" run "$work/e.yaml" --rounds 30 > "$work/e1.log" || { cat "$work/e1.log"; fail "run e (30 rounds)"; }
  "$dede" run "$work/e.yaml" > "$work/e2.log" || { cat "$work/e2.log"; fail "resume e"; }
  [ "$(q "$work/d.db" "$completions")" = "$(q "$work/e.db" "$completions")" ] || fail "two GPU types: resumed run differs"
  [ "$(q "$work/d.db" "SELECT count(*) FROM domain_records WHERE kind = 'job' AND json_extract(data, '$.state') = 'finished'")" = 40 ] \
    || fail "two GPU types, plugin method: 40 finished jobs expected"
}

part_live() {
  # Live submissions (inbox events): two slots; a job submitted for round 2, a malformed one
  # rejected with its reason; the same events on a run stopped and resumed give the same rounds.
  for x in live live2; do
    sed -e "s|database: dede-gpu-dally.db|database: $work/$x.db|" -e "s|jobs: 60|jobs: 30|" \
        -e "s|    tick_s: 3600 |    event_job_slots: 2\n    tick_s: 3600 |" "$src/configs/gpu_dally.yaml" > "$work/$x.yaml"
    "$dede" run "$work/$x.yaml" --rounds 1 > /dev/null || fail "$x run 1"
    "$dede" submit "$work/$x.db" job_arrive 9001 --json '{"gpus": 8, "model": "VGG19", "duration_s": 7200}' --from-round 2 > /dev/null \
      || fail "submit $x"
    "$dede" submit "$work/$x.db" job_arrive 9002 --json '{"gpus": 1000, "duration_s": 60}' > /dev/null || fail "submit $x (2)"
  done
  "$dede" run "$work/live.yaml" --rounds 7 > "$work/live.log" 2>&1 || { cat "$work/live.log"; fail "live run 2"; }
  "$dede" run "$work/live2.yaml" --rounds 2 > /dev/null 2>&1 || fail "live2 run 2"
  "$dede" run "$work/live2.yaml" --rounds 5 > "$work/live2.log" 2>&1 || { cat "$work/live2.log"; fail "live2 resume"; }
  grep -q "1 events\? re-applied" "$work/live2.log" || { cat "$work/live2.log"; fail "no replay on resume"; }
  [ "$(q "$work/live.db" "SELECT group_concat(status || ':' || coalesce(round, ''), ' ') FROM (SELECT * FROM events ORDER BY id)")" = "applied:2 rejected:1" ] \
    || fail "live events: $(q "$work/live.db" "SELECT * FROM events")"
  q "$work/live.db" "SELECT reason FROM events WHERE target = '9002'" | grep -q "needs 1000 GPUs, more than the largest GPU pool (64)" \
    || fail "rejection reason: $(q "$work/live.db" "SELECT reason FROM events WHERE target = '9002'")"
  [ "$(q "$work/live.db" "SELECT min(round) FROM domain_records WHERE kind = 'job' AND key = 'job9001'")" = 2 ] \
    || fail "no record of job 9001 from round 2: $(q "$work/live.db" "SELECT round, data FROM domain_records WHERE key = 'job9001'")"
  [ "$(q "$work/live.db" "SELECT json_extract(data, '$.arrival_s') FROM domain_records WHERE kind = 'job' AND key = 'job9001' AND round = 2")" = 7200 ] \
    || fail "job 9001 should arrive at the start of round 2's tick (7200 s)"
  [ "$(q "$work/live.db" "SELECT value FROM metrics WHERE name = 'arrived_jobs' AND round = 2")" = 31.0 ] || fail "arrived_jobs"
  rows="SELECT round, var_id, value FROM allocations ORDER BY round, var_id"
  [ "$(q "$work/live.db" "$rows")" = "$(q "$work/live2.db" "$rows")" ] || fail "resumed run with a submission differs"
}

if [ "$part" = all ]; then
  for p in dally tiresias combined plugin_method live; do "part_$p"; done
else
  declare -F "part_$part" > /dev/null || fail "unknown part '$part'"
  "part_$part"
fi
echo "gpu_placement cli test ($part) passed"
