#!/usr/bin/env bash
# traffic_engineering end to end: `dede run` on a copy of configs/te_b4.yaml for 3 rounds (B4,
# matrices 0..2, max total flow), then the rounds and metrics rows in SQLite.
# Usage: te_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "te_cli_test: $*"; exit 1; }

# The copy lives elsewhere, so the data paths (relative to the YAML file) are made absolute.
sed -e "s|database: dede-te-b4.db|database: $work/te.db|" \
    -e "s|interval_seconds: 1|interval_seconds: 0.05|" \
    -e "s|\.\./tests/data/te|$src/tests/data/te|" \
    "$src/configs/te_b4.yaml" > "$work/te.yaml"
export DEDE_PLUGIN_PATH=$plugins

out=$("$dede" validate "$work/te.yaml") || fail "validate exit: $out"
grep -q ": ok (deployment 'te-b4'" <<< "$out" || fail "validate: $out"
"$dede" run "$work/te.yaml" --rounds 3 > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "run"; }
grep -q "round 2  converged" "$work/run.log" || { cat "$work/run.log"; fail "no converged round 2 line"; }
q() { sqlite3 "$work/te.db" "$1"; }
[ "$(q "SELECT count(*) FROM rounds")" = 3 ] || fail "3 rounds expected, got $(q "SELECT count(*) FROM rounds")"
[ "$(q "SELECT count(*) FROM rounds WHERE termination = 'converged'")" = 3 ] || fail "terminations: $(q "SELECT round, termination FROM rounds")"
for m in total_flow total_demand satisfied_demand max_link_utilization; do
  [ "$(q "SELECT count(*) FROM metrics WHERE name = '$m'")" = 3 ] || fail "metric $m: $(q "SELECT * FROM metrics LIMIT 8")"
done
# Matrices 0..2 fit: all demand is carried and no link is over capacity.
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'satisfied_demand' AND value BETWEEN 0.995 AND 1.000001")" = 3 ] \
  || fail "satisfied_demand: $(q "SELECT * FROM metrics WHERE name = 'satisfied_demand'")"
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'max_link_utilization' AND value <= 1.000001")" = 3 ] \
  || fail "max_link_utilization: $(q "SELECT * FROM metrics WHERE name = 'max_link_utilization'")"
# Matrix 0's total demand (dede-examples README: 26,682.5959).
total0=$(q "SELECT printf('%.2f', value) FROM metrics WHERE name = 'total_demand' AND round = 0")
[ "$total0" = "26682.60" ] || fail "total demand of round 0: $total0"
# The utilisation view: no link above capacity.
over=$("$dede" query "$work/te.db" "SELECT count(*) AS n FROM resource_utilisation WHERE utilisation > 1.000001" --format csv | tail -1 | tr -d "\r")
[ "$over" = 0 ] || fail "links over capacity in resource_utilisation: $over"
# A file-size limit (a full disk behaves alike): the write fails with a message naming the
# database and the limit, the round is rolled back, the database stays intact, and a run
# without the limit resumes after the last committed round.
sed -e "s|$work/te.db|$work/small.db|" "$work/te.yaml" > "$work/small.yaml"
set +e
(ulimit -f 300; exec "$dede" run "$work/small.yaml" > "$work/small.log" 2>&1)
code=$?
set -e
[ $code = 3 ] || { cat "$work/small.log"; fail "file-size limit: exit $code, expected 3"; }
grep -q "the file-size limit (ulimit -f) is 307200 bytes; the failed transaction was rolled back" "$work/small.log" \
  || { cat "$work/small.log"; fail "file-size limit message"; }
[ "$(sqlite3 "$work/small.db" "PRAGMA integrity_check")" = ok ] || fail "integrity after the size limit"
before=$(sqlite3 "$work/small.db" "SELECT count(*) FROM rounds")
"$dede" run "$work/small.yaml" --rounds 2 > "$work/small2.log" 2>&1 || { cat "$work/small2.log"; fail "resume after the size limit"; }
[ "$(sqlite3 "$work/small.db" "SELECT count(*) FROM rounds")" = $((before + 2)) ] || fail "rounds after the resume"

# dede export: the paths the plugin computes (no paths file) are written in the path file
# format; on B4 they are the shipped path file, line for line, and a deployment that reads the
# export solves the same round to the same objective.
sed -e '/^    paths:/d' "$work/te.yaml" > "$work/computed.yaml"
"$dede" export "$work/computed.yaml" | grep -q "paths: every modelled pair's paths" || fail "export list"
"$dede" export "$work/computed.yaml" paths "$work/exported.csv" > /dev/null || fail "export paths"
cmp -s "$work/exported.csv" "$src/tests/data/te/B4-paths.csv" || fail "exported paths differ from B4-paths.csv: $(diff "$work/exported.csv" "$src/tests/data/te/B4-paths.csv" | head -5)"
sed -e "s|^    topology: .*|&\n    paths: $work/exported.csv|" "$work/computed.yaml" > "$work/reread.yaml"
grep -q "paths: $work/exported.csv" "$work/reread.yaml" || fail "reread config"
a=$("$dede" solve "$work/computed.yaml" | grep "total_flow =")
b=$("$dede" solve "$work/reread.yaml" | grep "total_flow =")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "objective with exported paths: '$b' vs '$a'"
# The plugin's recommended solver settings (max total flow: the resource copy as the final
# iterate, rho from the demands' scale; the copy sets cold_start itself) fill what the
# deployment leaves unset, never an explicit key, and none for min max utilisation.
out=$("$dede" validate "$work/computed.yaml")
grep -q "plugin traffic_engineering recommends solver.admm.final_iterate: resource (applied" <<< "$out" || fail "recommended settings: $out"
grep -q "plugin traffic_engineering recommends solver.admm.rho: [0-9.e+]* (applied" <<< "$out" || fail "recommended rho: $out"
! grep -q "recommends solver.cold_start" <<< "$out" || fail "cold_start is set by the deployment: $out"
out=$("$dede" validate "$work/computed.yaml" --set solver.admm.final_iterate=demand --set solver.admm.rho=2)
! grep -q "recommends solver.admm.final_iterate\|recommends solver.admm.rho" <<< "$out" || fail "an explicit final_iterate or rho was overridden: $out"
out=$("$dede" validate "$work/computed.yaml" --set plugin.settings.objective=min_max_utilization)
! grep -q "recommends" <<< "$out" || fail "min max utilisation has no recommendations: $out"
set +e
"$dede" export "$work/computed.yaml" flows "$work/x.csv" > "$work/export.err" 2>&1
rc=$?
set -e
[ $rc = 1 ] && grep -q "has no export 'flows' (exports: paths)" "$work/export.err" || fail "unknown export: rc $rc, $(cat "$work/export.err")"
echo "te cli test passed"
