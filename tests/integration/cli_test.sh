#!/usr/bin/env bash
# The CLI end to end: validate, run (YAML -> rounds -> SQLite rows), query in three formats,
# solve, plugins, options, and the exit codes and messages of bad input.
# Usage: cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cli_test: $*"; exit 1; }

sed -e "s|database: dede-dev.db|database: $work/dev.db|" -e "s|interval_seconds: 2|interval_seconds: 0.05|" \
    "$src/configs/dev.yaml" > "$work/dev.yaml"
export DEDE_PLUGIN_PATH=$plugins

out=$("$dede" validate "$work/dev.yaml") || fail "validate exit"
grep -q ": ok (deployment 'dev-transport'" <<< "$out" || fail "validate: $out"
"$dede" run "$work/dev.yaml" --rounds 3 > "$work/run.log" || { cat "$work/run.log"; fail "run"; }
grep -q "round 2  converged" "$work/run.log" || { cat "$work/run.log"; fail "no round 2 line"; }
[ "$("$dede" query "$work/dev.db" "SELECT count(*) AS n FROM rounds" --format csv | tail -1 | tr -d "\r")" = 3 ] || fail "3 rounds expected"
[ "$(echo "SELECT count(*) AS n FROM rounds" | "$dede" query "$work/dev.db" - --format csv | tail -1 | tr -d "\r")" = 3 ] || fail "SQL from standard input"
if "$dede" query "$work/dev.db" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" --time-limit 0.3 2> "$work/slow.err"; then fail "endless query not stopped"; fi
grep -q "stopped after the time limit of 0.3 s" "$work/slow.err" || { cat "$work/slow.err"; fail "time limit message"; }
out=$("$dede" query "$work/dev.db" "SELECT round, termination FROM rounds ORDER BY round" --format json)
grep -q '"termination": *"converged"' <<< "$out" || fail "json: $out"
"$dede" query "$work/dev.db" "SELECT * FROM demand_allocation LIMIT 3" > /dev/null || fail "demand_allocation view"
"$dede" query "$work/dev.db" "SELECT * FROM resource_utilisation LIMIT 3" > /dev/null || fail "resource_utilisation view"
[ "$(sqlite3 "$work/dev.db" "SELECT count(*) FROM metrics WHERE name = 'satisfied'")" = 3 ] || fail "metrics rows"
# Read-only: a write through `dede query` is refused and changes nothing.
if "$dede" query "$work/dev.db" "DELETE FROM rounds" 2> "$work/q.err"; then fail "query allowed a write"; fi
[ "$(sqlite3 "$work/dev.db" "SELECT count(*) FROM rounds")" = 3 ] || fail "rows lost"
# A second run resumes at round 3.
out=$("$dede" run "$work/dev.yaml" --rounds 1) || fail "second run"
grep -q "^round 3  " <<< "$out" || fail "resume at round 3: $out"
# One writer per database: while a run holds it, a second is refused before solving anything,
# naming the holder; the database is untouched; once the first stops, a run goes on.
"$dede" run "$work/dev.yaml" --rounds 1000 > "$work/first.log" 2>&1 &
first=$!
for _ in $(seq 100); do grep -q "^round" "$work/first.log" && break; sleep 0.05; done
rounds_before=$(sqlite3 "$work/dev.db" "SELECT count(*) FROM rounds")
if "$dede" run "$work/dev.yaml" --rounds 1 > "$work/second.log" 2>&1; then fail "second writer allowed"; fi
grep -q "is being written by another dede run (pid $first)" "$work/second.log" || { cat "$work/second.log"; fail "second writer message"; }
grep -q "^round" "$work/second.log" && fail "the second writer solved a round"
kill -INT $first; wait $first || true
[ "$(sqlite3 "$work/dev.db" "SELECT count(*) FROM rounds")" -ge "$rounds_before" ] || fail "rows lost"
"$dede" run "$work/dev.yaml" --rounds 1 > /dev/null || fail "run after the writer stopped"
out=$("$dede" run "$work/dev.yaml" --rounds 0 2>&1) && fail "--rounds 0 accepted"
out=$("$dede" solve "$work/dev.yaml" --round 5) || fail "solve exit: $out"
grep -q "satisfied" <<< "$out" || fail "solve: $out"
out=$("$dede" plugins) || fail "plugins exit: $out"
grep -q "transport 0.1.0" <<< "$out" || fail "plugins: $out"
out=$("$dede" options) || fail "options exit"
grep -q "solver.admm.rho" <<< "$out" || fail "options"

# Bad input: exit code 2 and a message naming the file, the key and the value.
cp "$work/dev.yaml" "$work/bad.yaml"
sed -i 's/    resources: 50/    resources: -5/' "$work/bad.yaml"
set +e
"$dede" validate "$work/bad.yaml" 2> "$work/bad.err"; code=$?
set -e
[ $code -eq 2 ] || fail "bad plugin setting: exit $code"
grep -q "bad.yaml" "$work/bad.err" && grep -q "resources" "$work/bad.err" && grep -q -- "-5" "$work/bad.err" || { cat "$work/bad.err"; fail "bad setting message"; }
# Settings each within bounds whose product asks for trillions of entries.
sed -e 's/    resources: 50/    resources: 1000000/' "$work/dev.yaml" > "$work/huge.yaml"
sed -i 's/^\(    demands: \).*/\14000000/; s/^\(    entries_per_demand: \).*/\11000000/' "$work/huge.yaml"
set +e
"$dede" validate "$work/huge.yaml" 2> "$work/huge.err"; code=$?
set -e
[ $code -eq 2 ] && grep -q "huge.yaml:.*entries; at most 20000000" "$work/huge.err" || { cat "$work/huge.err"; fail "size bound"; }
sed -e 's/name: transport/name: no_such_plugin/' "$work/dev.yaml" > "$work/noplugin.yaml"
set +e
"$dede" validate "$work/noplugin.yaml" 2> "$work/np.err"; code=$?
set -e
[ $code -eq 2 ] && grep -q "no_such_plugin" "$work/np.err" || { cat "$work/np.err"; fail "unknown plugin"; }
printf 'deployment: {name: x}\nplugin: {name: transport}\nstorage: {database: x.db}\nsolver: {admm: {rho: -1}}\n' > "$work/rho.yaml"
set +e
"$dede" validate "$work/rho.yaml" 2> "$work/rho.err"; code=$?
set -e
[ $code -eq 2 ] && grep -q "rho.yaml:4" "$work/rho.err" && grep -q "rho" "$work/rho.err" || { cat "$work/rho.err"; fail "bad rho"; }
# Events from a CSV file (dede/csv.h): a quoted JSON payload with commas, CRLF, a blank line.
# A malformed field is an error naming file:line:column, the column and the value, and nothing
# of the file is written.
printf 'kind,target,payload,apply_from_round\r\nnoop,3,"{""note"": ""a,b""}",4\r\n\r\nnoop,,,\r\n' \
  > "$work/events.csv"
"$dede" submit "$work/dev.db" --file "$work/events.csv" > "$work/submit.out" \
  || { cat "$work/submit.out"; fail "submit --file events.csv"; }
[ "$(sqlite3 "$work/dev.db" "SELECT count(*) FROM events WHERE kind = 'noop'")" = 2 ] || fail "CSV events"
[ "$(sqlite3 "$work/dev.db" "SELECT json_extract(payload, '\$.note') || ' ' || apply_from_round FROM events WHERE target = '3'")" = "a,b 4" ] \
  || fail "CSV event payload: $(sqlite3 "$work/dev.db" "SELECT * FROM events")"
printf 'kind,apply_from_round\nnoop,1\nnoop,x\n' > "$work/bad_events.csv"
set +e
"$dede" submit "$work/dev.db" --file "$work/bad_events.csv" 2> "$work/be.err"; code=$?
set -e
[ $code -eq 2 ] && grep -qF "bad_events.csv:3:6: column 'apply_from_round': expected an integer in [0, 2000000000], got 'x'" "$work/be.err" \
  || { cat "$work/be.err"; fail "bad CSV event"; }
[ "$(sqlite3 "$work/dev.db" "SELECT count(*) FROM events WHERE kind = 'noop'")" = 2 ] || fail "a bad CSV file wrote events"
# Every shipped deployment validates (file, plugin, settings, problem).
for f in "$src"/configs/*.yaml; do
  out=$("$dede" validate "$f" 2>&1) || fail "shipped config $f does not validate: $out"
done
echo "cli test passed"
