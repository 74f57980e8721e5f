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
grep -q "Z info  round 3  " <<< "$out" || fail "resume at round 3: $out"
# The log: every line has an ISO-8601 UTC time with milliseconds and the level; --quiet drops
# the round lines (info, standard output) and keeps the warnings (standard error: here a round
# without a usable solution); a bad --log-level is a usage error naming the option and value.
stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z'
grep -Eq "^$stamp info  round 2  converged  iterations [0-9]+  objective " "$work/run.log" \
  || { cat "$work/run.log"; fail "round line: time and level"; }
"$dede" run "$work/dev.yaml" --rounds 1 --quiet --set "storage.database=$work/quiet.db" \
  --set solver.admm.max_iterations=1 --set solver.admm.repair=false > "$work/quiet.out" 2> "$work/quiet.err" || { cat "$work/quiet.err"; fail "quiet run"; }
[ ! -s "$work/quiet.out" ] || { cat "$work/quiet.out"; fail "--quiet logged info lines"; }
grep -Eq "^$stamp warn  round 0: no usable solution \(max_iterations, infeasible" "$work/quiet.err" \
  || { cat "$work/quiet.err"; fail "--quiet dropped the warning"; }
[ "$(sqlite3 "$work/quiet.db" "SELECT count(*) FROM rounds")" = 1 ] || fail "the quiet run's round"
# A budget that runs out with a feasible allocation (the framework's repair) is the anytime
# answer: an info line naming what was returned, no warning.
"$dede" run "$work/dev.yaml" --rounds 1 --set "storage.database=$work/limit.db" \
  --set solver.admm.max_iterations=1 > "$work/limit.out" 2> "$work/limit.err" || { cat "$work/limit.err"; fail "limit run"; }
grep -Eq "^$stamp info  round 0: iteration limit reached: returned solver \(objective [0-9.]+, seed 0\)" "$work/limit.out" \
  || { cat "$work/limit.out"; fail "the iteration limit's info line"; }
! grep -q "warn  round" "$work/limit.err" || { cat "$work/limit.err"; fail "a feasible limited round warned"; }
set +e
"$dede" run "$work/dev.yaml" --log-level verbose > "$work/level.out" 2> "$work/level.err"; code=$?
set -e
[ $code -eq 1 ] && grep -q -- "--log-level: verbose not in {trace,debug,info,warn,error,off}" "$work/level.err" \
  || { cat "$work/level.err"; fail "bad --log-level: exit $code"; }
[ ! -s "$work/level.out" ] || fail "a bad --log-level ran"
if "$dede" run "$work/dev.yaml" --quiet --log-level info 2> "$work/level.err"; then fail "--quiet with --log-level"; fi
grep -q -- "--log-level excludes --quiet" "$work/level.err" || { cat "$work/level.err"; fail "--quiet with --log-level message"; }
# One writer per database: while a run holds it, a second is refused before solving anything,
# naming the holder; the database is untouched; once the first stops, a run goes on.
"$dede" run "$work/dev.yaml" --rounds 1000 > "$work/first.log" 2>&1 &
first=$!
# (Up to 60 s for its first round: a sanitizer build on a loaded machine took over 5.)
for _ in $(seq 1200); do grep -q "info  round" "$work/first.log" && break; sleep 0.05; done
grep -q "info  round" "$work/first.log" || { cat "$work/first.log"; fail "the first run solved no round in 60 s"; }
rounds_before=$(sqlite3 "$work/dev.db" "SELECT count(*) FROM rounds")
if "$dede" run "$work/dev.yaml" --rounds 1 > "$work/second.log" 2>&1; then fail "second writer allowed"; fi
grep -q "is being written by another dede run (pid $first)" "$work/second.log" || { cat "$work/second.log"; fail "second writer message"; }
grep -q "info  round" "$work/second.log" && fail "the second writer solved a round"
kill -INT $first; wait $first || true
[ "$(sqlite3 "$work/dev.db" "SELECT count(*) FROM rounds")" -ge "$rounds_before" ] || fail "rows lost"
"$dede" run "$work/dev.yaml" --rounds 1 > /dev/null || fail "run after the writer stopped"
out=$("$dede" run "$work/dev.yaml" --rounds 0 2>&1) && fail "--rounds 0 accepted"
out=$("$dede" solve "$work/dev.yaml" --round 5) || fail "solve exit: $out"
grep -q "satisfied" <<< "$out" || fail "solve: $out"
# A command's result is no log line: plain, and there with --quiet.
out=$("$dede" solve "$work/dev.yaml" --round 5 --quiet) || fail "solve --quiet exit: $out"
grep -q "^  satisfied = " <<< "$out" || fail "solve --quiet: $out"
out=$("$dede" plugins) || fail "plugins exit: $out"
grep -q "transport 0.1.0" <<< "$out" || fail "plugins: $out"
out=$("$dede" options) || fail "options exit"
grep -q "solver.admm.time_limit_seconds" <<< "$out" || fail "options: a basic key"
! grep -q "solver.admm.rho\b" <<< "$out" || fail "options: an advanced key in the default view"
out=$("$dede" options --all) || fail "options --all exit"
grep -q "solver.admm.rho" <<< "$out" || fail "options --all: an advanced key"
grep -q "solver.admm.feasibility_tolerance.*solver.feasibility_tolerance" <<< "$out" \
  || fail "options --all: the deprecated keys"

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
