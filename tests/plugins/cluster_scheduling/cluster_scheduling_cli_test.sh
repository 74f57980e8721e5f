#!/usr/bin/env bash
# cluster_scheduling end to end: configs/cluster_small.yaml (copied, database and data paths
# rewritten) -> `dede run` for 3 simulated rounds -> SQLite rows; then a resumed run.
# Usage: cluster_scheduling_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cluster_scheduling_cli_test: $*"; exit 1; }

sed -e "s|database: dede-cluster-small.db|database: $work/cs.db|" \
    -e "s|interval_seconds: 2|interval_seconds: 0.05|" \
    -e "s|\.\./tests/data/cluster|$src/tests/data/cluster|" \
    "$src/configs/cluster_small.yaml" > "$work/cs.yaml"
export DEDE_PLUGIN_PATH=$plugins

out=$("$dede" validate "$work/cs.yaml") || fail "validate exit: $out"
grep -q "plugin cluster_scheduling 0.2.0, 10 resources, 233 demands" <<< "$out" || fail "validate: $out"
"$dede" run "$work/cs.yaml" --rounds 3 > "$work/run.log" || { cat "$work/run.log"; fail "run"; }
grep -q "^round 2  converged" "$work/run.log" || { cat "$work/run.log"; fail "no converged round 2"; }
q() { sqlite3 "$work/cs.db" "$1"; }
[ "$(q "SELECT count(*) FROM rounds")" = 3 ] || fail "3 rounds expected"
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'min_normalized_throughput' AND value > 0")" = 3 ] || fail "max-min metric rows"
[ "$(q "SELECT value FROM metrics WHERE name = 'active_jobs' AND round = 0")" = 34.0 ] || fail "34 active jobs in round 0: $(q "SELECT * FROM metrics WHERE round = 0")"
# The metric equals the solver's objective (max-min over active jobs = the global term).
[ "$(q "SELECT count(*) FROM metrics m JOIN round_summary s USING (round) WHERE m.name = 'min_normalized_throughput' AND abs(m.value - s.objective) <= 1e-6 * abs(s.objective)")" = 3 ] || fail "metric != objective"
# Every round: feasible, time fractions of each job <= 1, inactive jobs get nothing.
[ "$(q "SELECT count(*) FROM round_summary WHERE max_violation > 1e-6")" = 0 ] || fail "violation"
[ "$(q "SELECT count(*) FROM demand_allocation WHERE round = 0 AND allocated > 1e-9 AND demand >= 34")" = 0 ] || fail "inactive slot allocated"
[ "$(q "SELECT count(*) FROM demand_allocation WHERE allocated > 1 + 1e-6")" = 0 ] || fail "a job runs more than a round"
# Entities: 10 GPU types with counts summing to 352; the active jobs with their weights.
[ "$(q "SELECT sum(value) FROM entity_parameters WHERE round = 0 AND side = 'resource' AND parameter = 'count'")" = 352.0 ] || fail "GPU counts"
active2=$(q "SELECT CAST(value AS INTEGER) FROM metrics WHERE name = 'active_jobs' AND round = 2")
[ "$(q "SELECT count(*) FROM entity_parameters WHERE round = 2 AND side = 'demand' AND parameter = 'weight' AND value >= 1")" = "$active2" ] || fail "job weights ($active2 active)"
[ "$(q "SELECT name FROM entities WHERE round = 0 AND side = 'resource' AND idx = 9")" = worker_9 ] || fail "type names"
# A second run resumes at round 3 with the same simulated time.
out=$("$dede" run "$work/cs.yaml" --rounds 1) || fail "second run: $out"
grep -q "^round 3  .*sim_time_s 1080" <<< "$out" || fail "resume at round 3: $out"
echo "cluster_scheduling cli test passed"
