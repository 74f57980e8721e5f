#!/usr/bin/env bash
# cluster_scheduling end to end: configs/cluster_small.yaml (copied, database and data paths
# rewritten) -> `dede run` for 3 simulated rounds -> SQLite rows (rounds, metrics, job records,
# checkpoints); a resumed run continues the simulation from the checkpoint; with the exact
# solver, 6 rounds straight give the same per-round objectives as 3 rounds, a restart and 3
# more, and a run killed with SIGKILL mid-way resumes to the same rounds; a plugin method
# (POP-4) runs from YAML.
# Usage: cluster_scheduling_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cluster_scheduling_cli_test: $*"; exit 1; }

# make_config <db> <solver block sed expression...>
make_config() {
  local db=$1 out=$2
  shift 2
  sed -e "s|database: dede-cluster-small.db|database: $db|" \
      -e "s|interval_seconds: 2|interval_seconds: 0.02|" \
      -e "s|\.\./tests/data/cluster|$src/tests/data/cluster|" \
      "$@" "$src/configs/cluster_small.yaml" > "$out"
}
make_config "$work/cs.db" "$work/cs.yaml"
export DEDE_PLUGIN_PATH=$plugins

out=$("$dede" validate "$work/cs.yaml") || fail "validate exit: $out"
grep -q "plugin cluster_scheduling 0.2.0, 10 resources, 233 demands" <<< "$out" || fail "validate: $out"
# Max-min: the plugin recommends starting ADMM from its seed; an explicit key wins, and
# proportional fairness gets no recommendation.
grep -q "plugin cluster_scheduling recommends solver.cold_start: repair (applied" <<< "$out" || fail "max-min recommendation: $out"
! grep -q "recommends solver.admm.rho" <<< "$out" || fail "the deployment's rho was overridden: $out"
out=$("$dede" validate "$work/cs.yaml" --set solver.cold_start=zero) || fail "validate exit: $out"
! grep -q "recommends" <<< "$out" || fail "an explicit cold_start was overridden: $out"
# rho left unset: 200 / the 34 jobs present at the start.
sed -e "/^    rho: 1.0$/d" "$work/cs.yaml" > "$work/norho.yaml"
out=$("$dede" validate "$work/norho.yaml") || fail "validate exit: $out"
grep -q "plugin cluster_scheduling recommends solver.admm.rho: 5.88 (applied" <<< "$out" || fail "max-min rho recommendation: $out"
out=$("$dede" validate "$work/cs.yaml" --set plugin.settings.fairness=proportional) || fail "validate exit: $out"
! grep -q "recommends" <<< "$out" || fail "proportional fairness has no recommendation: $out"
"$dede" run "$work/cs.yaml" --rounds 3 > "$work/run.log" || { cat "$work/run.log"; fail "run"; }
grep -q "Z info  round 2  converged" "$work/run.log" || { cat "$work/run.log"; fail "no converged round 2"; }
q() { sqlite3 "$1" "$2"; }
Q() { q "$work/cs.db" "$1"; }
[ "$(Q "SELECT count(*) FROM rounds")" = 3 ] || fail "3 rounds expected"
[ "$(Q "SELECT count(*) FROM metrics WHERE name = 'min_normalized_throughput' AND value > 0")" = 3 ] || fail "max-min metric rows"
[ "$(Q "SELECT value FROM metrics WHERE name = 'active_jobs' AND round = 0")" = 34.0 ] || fail "34 active jobs in round 0: $(Q "SELECT * FROM metrics WHERE round = 0")"
[ "$(Q "SELECT count(*) FROM metrics WHERE name = 'jain_fairness' AND value > 0 AND value <= 1")" = 3 ] || fail "fairness score"
# The metric equals the solver's objective (max-min over active jobs = the global term).
[ "$(Q "SELECT count(*) FROM metrics m JOIN round_summary s USING (round) WHERE m.name = 'min_normalized_throughput' AND abs(m.value - s.objective) <= 1e-6 * abs(s.objective)")" = 3 ] || fail "metric != objective"
# Every round: feasible, time fractions of each job <= 1, inactive jobs get nothing.
[ "$(Q "SELECT count(*) FROM round_summary WHERE max_violation > 1e-6")" = 0 ] || fail "violation"
[ "$(Q "SELECT count(*) FROM demand_allocation WHERE round = 0 AND allocated > 1e-9 AND demand >= 34")" = 0 ] || fail "inactive slot allocated"
[ "$(Q "SELECT count(*) FROM demand_allocation WHERE allocated > 1 + 1e-6")" = 0 ] || fail "a job runs more than a round"
# Entities: 10 GPU types with counts summing to 352; the active jobs with their weights.
[ "$(Q "SELECT sum(value) FROM entity_parameters WHERE round = 0 AND side = 'resource' AND parameter = 'count'")" = 352.0 ] || fail "GPU counts"
active2=$(Q "SELECT CAST(value AS INTEGER) FROM metrics WHERE name = 'active_jobs' AND round = 2")
[ "$(Q "SELECT count(*) FROM entity_parameters WHERE round = 2 AND side = 'demand' AND parameter = 'weight' AND value >= 1")" = "$active2" ] || fail "job weights ($active2 active)"
[ "$(Q "SELECT name FROM entities WHERE round = 0 AND side = 'resource' AND idx = 9")" = worker_9 ] || fail "type names"
# Job records: the 34 jobs of round 0 arrive in round 0 (arrival time and no completion yet);
# arrivals of later rounds lie inside their round; the latest checkpoint is kept.
[ "$(Q "SELECT count(*) FROM domain_records WHERE round = 0 AND kind = 'job' AND json_extract(data, '\$.event') LIKE 'arrived%' AND json_extract(data, '\$.arrival_s') <= 0")" = 34 ] || fail "round 0 arrivals: $(Q "SELECT * FROM domain_records WHERE round = 0 LIMIT 3")"
[ "$(Q "SELECT count(*) FROM domain_records WHERE kind = 'job' AND json_extract(data, '\$.event') = 'arrived' AND json_extract(data, '\$.completion_s') IS NOT NULL")" = 0 ] || fail "arrival with completion"
[ "$(Q "SELECT count(*) FROM domain_records WHERE round > 0 AND kind = 'job' AND (json_extract(data, '\$.arrival_s') <= (round - 1) * 360 OR json_extract(data, '\$.arrival_s') > round * 360) AND json_extract(data, '\$.event') = 'arrived'")" = 0 ] || fail "arrival outside its round"
[ "$(Q "SELECT group_concat(round) FROM plugin_states")" = 2 ] || fail "the latest checkpoint only"
# Work-conserving max-min (the deployment's fill_after_max_min): the GPUs the minimum does
# not need are used; without the second stage and without the plugin's repair fill most stay
# idle, for the same minimum (0.1%); the repair fill alone uses them too, for the same minimum.
# (The no-fill run starts ADMM from zero, set explicitly: from the plugin's seed, the max-min
# recommendation, the allocation it ends at keeps more of the seed's GPUs busy.)
util() { q "$1" "SELECT printf('%.6f', value) FROM metrics WHERE name = 'gpu_utilization' AND round = 0"; }
minimum() { q "$1" "SELECT printf('%.9f', value) FROM metrics WHERE name = 'min_normalized_throughput' AND round = 0"; }
make_config "$work/nofill.db" "$work/nofill.yaml" -e "s|fill_after_max_min: true|fill_after_max_min: false\n  cold_start: zero|" \
  -e "s|^  settings:|  settings:\n    repair_fill: false|"
"$dede" run "$work/nofill.yaml" --rounds 1 > /dev/null || fail "run without the second stage"
make_config "$work/repairfill.db" "$work/repairfill.yaml" -e "s|fill_after_max_min: true|fill_after_max_min: false|"
"$dede" run "$work/repairfill.yaml" --rounds 1 > /dev/null || fail "run with the repair's fill only"
awk -v a="$(util "$work/cs.db")" 'BEGIN { exit !(a > 0.95 && a <= 1 + 1e-9) }' || fail "GPUs used with the second stage: $(util "$work/cs.db")"
awk -v a="$(util "$work/nofill.db")" 'BEGIN { exit !(a < 0.5) }' || fail "GPUs used without it: $(util "$work/nofill.db")"
awk -v a="$(util "$work/repairfill.db")" 'BEGIN { exit !(a > 0.95 && a <= 1 + 1e-9) }' || fail "GPUs used with the repair's fill: $(util "$work/repairfill.db")"
awk -v a="$(minimum "$work/repairfill.db")" -v b="$(minimum "$work/nofill.db")" 'BEGIN { exit !(a >= b * (1 - 1e-9)) }' \
  || fail "the repair's fill lowered the minimum: $(minimum "$work/repairfill.db") vs $(minimum "$work/nofill.db")"
awk -v a="$(minimum "$work/cs.db")" -v b="$(minimum "$work/nofill.db")" 'BEGIN { exit !(a >= b * (1 - 2e-3) && a <= b * (1 + 1e-6)) }'   || fail "minimum with the second stage $(minimum "$work/cs.db") vs $(minimum "$work/nofill.db")"
# A second run resumes at round 3 with the same simulated time.
out=$("$dede" run "$work/cs.yaml" --rounds 1) || fail "second run: $out"
grep -q "Z info  round 3  .*sim_time_s 1080" <<< "$out" || fail "resume at round 3: $out"

# Checkpoints: the exact solver is deterministic, so 6 rounds straight and 3 + restart + 3
# give the same objective in every round, and the same job completions.
exact=(-e "s|kind: admm|kind: exact|")
make_config "$work/straight.db" "$work/straight.yaml" "${exact[@]}"
make_config "$work/split.db" "$work/split.yaml" "${exact[@]}"
"$dede" run "$work/straight.yaml" --rounds 24 > /dev/null || fail "straight run"
"$dede" run "$work/split.yaml" --rounds 10 > /dev/null || fail "split run, part 1"
"$dede" run "$work/split.yaml" --rounds 14 > "$work/resume.log" || fail "split run, part 2"
grep -q "resuming deployment" "$work/resume.log" || { cat "$work/resume.log"; fail "no resume"; }
objectives() { q "$1" "SELECT round || ':' || printf('%.12g', objective) FROM round_summary ORDER BY round"; }
[ "$(objectives "$work/straight.db")" = "$(objectives "$work/split.db")" ] || fail "objectives differ after restart: $(objectives "$work/straight.db") vs $(objectives "$work/split.db")"
[ "$(objectives "$work/split.db" | wc -l)" = 24 ] || fail "24 rounds expected"
records() { q "$1" "SELECT round || ' ' || key || ' ' || data FROM domain_records ORDER BY round, key"; }
[ "$(records "$work/straight.db")" = "$(records "$work/split.db")" ] || fail "job records differ after restart"
[ "$(q "$work/split.db" "SELECT count(*) FROM domain_records WHERE json_extract(data, '\$.event') LIKE '%completed' AND abs(json_extract(data, '\$.jct_s') - (json_extract(data, '\$.completion_s') - json_extract(data, '\$.arrival_s'))) < 1e-6")" -ge 1 ] || fail "no completed job with its JCT in 24 rounds"

# kill -9 in the middle of a run (rounds every 0.1 s): the resumed deployment still matches
# the straight run round for round (the checkpoint is committed with its round).
make_config "$work/killed.db" "$work/killed.yaml" "${exact[@]}" -e "s|rounds: 100|rounds: 24|" \
    -e "s|interval_seconds: 0.02|interval_seconds: 0.1|"
"$dede" run "$work/killed.yaml" > "$work/killed.log" 2>&1 &
pid=$!
sleep 1.2
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
done_rounds=$(q "$work/killed.db" "SELECT count(*) FROM rounds")
"$dede" run "$work/killed.yaml" > "$work/killed2.log" || { cat "$work/killed2.log"; fail "resume after kill -9"; }
[ "$(objectives "$work/killed.db")" = "$(objectives "$work/straight.db")" ] || fail "objectives differ after kill -9 at round $done_rounds"
[ "$(records "$work/killed.db")" = "$(records "$work/straight.db")" ] || fail "job records differ after kill -9 at round $done_rounds"
echo "killed after $done_rounds committed rounds; resumed to 24"

# A plugin method from YAML: POP-4 (exact parts) for 2 rounds.
make_config "$work/pop.db" "$work/pop.yaml" -e "s|kind: admm|kind: plugin\n  method: pop-4|"
"$dede" run "$work/pop.yaml" --rounds 2 > "$work/pop.log" || { cat "$work/pop.log"; fail "pop-4 run"; }
[ "$(q "$work/pop.db" "SELECT count(*) FROM round_summary WHERE max_violation <= 1e-6")" = 2 ] || fail "pop-4 rounds"
[ "$(q "$work/pop.db" "SELECT count(*) FROM rounds WHERE solver = 'plugin'")" = 2 ] || fail "pop-4 solver column: $(q "$work/pop.db" "SELECT * FROM rounds")"
# Inbox events with the exact solver: two reserved slots, a job arrives in round 2, another
# job leaves, a worker type shrinks; a resumed run (events replayed before the checkpoint is
# restored) gives the same rounds as one uninterrupted run with the same events.
make_config "$work/live.db" "$work/live.yaml" -e "s|kind: admm|kind: exact|" \
  -e "s|    rounds: 100|    rounds: 100\n    event_job_slots: 2|"
make_config "$work/live2.db" "$work/live2.yaml" -e "s|kind: admm|kind: exact|" \
  -e "s|    rounds: 100|    rounds: 100\n    event_job_slots: 2|"
submit_all() {
  "$dede" submit "$1" job_arrive 9001 --json '{"job_type": 6, "scale_factor": 1, "total_steps": 5000}' --from-round 2 > /dev/null
  "$dede" submit "$1" job_depart 3 --from-round 2 > /dev/null
  "$dede" submit "$1" gpu_count worker_4 --json '{"count": 8}' --from-round 3 > /dev/null
}
"$dede" run "$work/live.yaml" --rounds 1 > /dev/null || fail "live run 1"
"$dede" run "$work/live2.yaml" --rounds 1 > /dev/null || fail "live2 run 1"
submit_all "$work/live.db" || fail "submit live"
submit_all "$work/live2.db" || fail "submit live2"
"$dede" run "$work/live.yaml" --rounds 4 > "$work/live.log" 2>&1 || { cat "$work/live.log"; fail "live run 2"; }
"$dede" run "$work/live2.yaml" --rounds 2 > /dev/null 2>&1 || fail "live2 run 2"
"$dede" run "$work/live2.yaml" --rounds 2 > "$work/live2.log" 2>&1 || { cat "$work/live2.log"; fail "live2 resume"; }
grep -q "2 events re-applied" "$work/live2.log" || { cat "$work/live2.log"; fail "no replay on resume"; }
[ "$(q "$work/live.db" "SELECT group_concat(status || ':' || round, ' ') FROM (SELECT * FROM events ORDER BY id)")" = "applied:2 applied:2 applied:3" ] \
  || fail "live events: $(q "$work/live.db" "SELECT * FROM events")"
[ "$(q "$work/live.db" "SELECT json_extract(data, '$.event') FROM domain_records WHERE kind = 'job' AND key = '9001' AND round = 2")" = arrived ] \
  || fail "no arrival record of job 9001: $(q "$work/live.db" "SELECT round, key, data FROM domain_records WHERE key = '9001'")"
[ "$(q "$work/live.db" "SELECT value FROM metrics WHERE name = 'departed_jobs' AND round = 4")" = 1.0 ] || fail "departed_jobs"
a=$(q "$work/live.db" "SELECT group_concat(printf('%.12g', objective), ' ') FROM (SELECT objective FROM rounds ORDER BY round)")
b=$(q "$work/live2.db" "SELECT group_concat(printf('%.12g', objective), ' ') FROM (SELECT objective FROM rounds ORDER BY round)")
[ "$a" = "$b" ] || fail "resumed objectives $b differ from the uninterrupted run's $a"
echo "cluster_scheduling cli test passed"
