#!/usr/bin/env bash
# storage.retention end to end with the real binary (B4 traffic engineering, the exact solver so
# that every round is a function of the plugin's state): rounds outside the window keep their
# summary and metrics and lose their full records; a run stopped and resumed twice, with inbox
# events before, between and after the stops, ends with exactly the database of one
# uninterrupted run; `dede storage` reports the tables and the window; an older database
# (auto_vacuum none) is switched at start when small, or by `dede storage --vacuum`, which is
# refused while `dede run` writes the database.
# Usage: retention_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
runner=
trap '[ -n "$runner" ] && kill -9 "$runner" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "retention_test: $*"; exit 1; }
export DEDE_PLUGIN_PATH=$plugins
q() { "$dede" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }

config() {  # config NAME DATABASE [RETENTION]
  cat > "$work/$1.yaml" <<YAML
deployment: {name: b4, seed: 1}
plugin:
  name: traffic_engineering
  settings:
    topology: $src/tests/data/te/B4.json
    paths: $src/tests/data/te/B4-paths.csv
    num_paths: 4
    traffic_matrices: $src/tests/data/te/matrices
solver: {kind: exact}
schedule: {interval_seconds: 1, simulated_time: true}
storage:
  database: $2
  retention: ${3:-{keep_rounds: 5\}}
YAML
}
submit_events() {
  "$dede" submit "$1" link_fail "0->1" --from-round 8 > /dev/null
  "$dede" submit "$1" demand "0->2" --json '{"demand": 1000}' --from-round 14 > /dev/null
}
submit_late() {  # submitted while a run is stopped, for rounds after it
  "$dede" submit "$1" link_recover "0->1" --from-round 22 > /dev/null
  "$dede" submit "$1" link_capacity 3 --json '{"capacity": 1}' --from-round 29 > /dev/null
}

# --- 1. One uninterrupted run of the 36 matrices, and one stopped after 10 and 20 rounds.
config straight "$work/straight.db"
config resumed "$work/resumed.db"
"$dede" run "$work/straight.yaml" --rounds 1 > /dev/null || fail "straight: round 0"
"$dede" run "$work/resumed.yaml" --rounds 1 > /dev/null || fail "resumed: round 0"
for db in straight resumed; do submit_events "$work/$db.db" || fail "submit to $db"; done
submit_late "$work/straight.db" || fail "submit late to straight"
"$dede" run "$work/straight.yaml" > "$work/straight.log" 2>&1 || { cat "$work/straight.log"; fail "straight run"; }
"$dede" run "$work/resumed.yaml" --rounds 9 > "$work/r1.log" 2>&1 || { cat "$work/r1.log"; fail "resumed run 1"; }
submit_late "$work/resumed.db" || fail "submit late to resumed"
"$dede" run "$work/resumed.yaml" --rounds 10 > "$work/r2.log" 2>&1 || { cat "$work/r2.log"; fail "resumed run 2"; }
"$dede" run "$work/resumed.yaml" > "$work/r3.log" 2>&1 || { cat "$work/r3.log"; fail "resumed run 3"; }
grep -q "resuming deployment 'b4' after round 19 (warm start from its allocation, 2 events re-applied)" "$work/r3.log" \
  || { cat "$work/r3.log"; fail "the third run did not resume after round 19 with the 2 events"; }
grep -q "storage retention: full records (allocation, entities, parameters, domain records) of the last 5 rounds" \
  "$work/straight.log" || { cat "$work/straight.log"; fail "no retention line at start"; }
grep -q "storage retention: 1 round pruned (.* rows deleted, .*); full records from round 1 on" "$work/straight.log" \
  || { cat "$work/straight.log"; fail "no line for the first rounds pruned"; }

# --- 2. The window: rounds 31..35 full, every round's summary and metrics kept.
db=$work/straight.db
[ "$(q "$db" "SELECT count(*) FROM rounds")" = 36 ] || fail "rounds: $(q "$db" "SELECT count(*) FROM rounds")"
[ "$(q "$db" "SELECT count(DISTINCT round) FROM metrics")" = 36 ] || fail "metrics of every round"
for table in allocations entities entity_parameters domain_records; do
  [ "$(q "$db" "SELECT min(round) || '..' || max(round) || ' ' || count(DISTINCT round) FROM $table")" = "31..35 5" ] \
    || fail "$table holds rounds $(q "$db" "SELECT min(round) || '..' || max(round) FROM $table")"
done
[ "$(q "$db" "SELECT group_concat(round) FROM plugin_states")" = 35 ] || true  # stateless plugins have none
[ "$(q "$db" "SELECT count(*) FROM events WHERE status = 'applied'")" = 4 ] || fail "events: $(q "$db" "SELECT * FROM events")"
[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || fail "integrity_check"
[ "$(q "$db" "PRAGMA auto_vacuum")" = 2 ] || fail "a new database is not incremental"

# --- 3. The resumed database is the uninterrupted one: every kept row, every summary column.
same() {
  local a b
  a=$(q "$work/straight.db" "$1")
  b=$(q "$work/resumed.db" "$1")
  [ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b") | head -5; fail "resumed run differs: $1"; }
  [ -n "$a" ] || fail "no rows: $1"
}
same "SELECT round, printf('%.17g', objective), termination, feasible, method, printf('%.17g', max_violation) FROM rounds ORDER BY round"
same "SELECT round, name, printf('%.17g', value) FROM metrics ORDER BY round, name"
same "SELECT round, var_id, printf('%.17g', value) FROM allocations ORDER BY round, var_id"
same "SELECT round, side, idx, parameter, printf('%.17g', value) FROM entity_parameters ORDER BY 1, 2, 3, 4"
same "SELECT round, kind, key, data FROM domain_records ORDER BY round, kind, key"
same "SELECT id, kind, target, status, round FROM events ORDER BY id"

# --- 4. dede storage: per table and index, the window, bytes per round; JSON too.
"$dede" storage "$db" > "$work/storage.txt" || { cat "$work/storage.txt"; fail "dede storage"; }
grep -q "auto_vacuum incremental" "$work/storage.txt" || { cat "$work/storage.txt"; fail "storage: auto_vacuum"; }
grep -q "deployment 'b4': 36 rounds (0..35), full records from round 31 on" "$work/storage.txt" \
  || { cat "$work/storage.txt"; fail "storage: the window"; }
grep -Eq "^allocations +table +[0-9]+ +[0-9]+ +[0-9.]+% +[0-9]+ +5 +[0-9]+$" "$work/storage.txt" \
  || { cat "$work/storage.txt"; fail "storage: the allocations line"; }
grep -Eq "^  domain_records_by_key +index " "$work/storage.txt" || { cat "$work/storage.txt"; fail "storage: an index line"; }
grep -Eq "^rounds +table +[0-9]+ +[0-9]+ +[0-9.]+% +36 +36 +[0-9]+$" "$work/storage.txt" \
  || { cat "$work/storage.txt"; fail "storage: the rounds line"; }
grep -q "^per round: .* kept for every round (rounds, metrics, over 36 rounds); .* of full records" "$work/storage.txt" \
  || { cat "$work/storage.txt"; fail "storage: the per-round line"; }
"$dede" storage "$db" --format json > "$work/storage.json" || fail "dede storage --format json"
grep -q '"auto_vacuum": "incremental"' "$work/storage.json" || { cat "$work/storage.json"; fail "storage json"; }
grep -q '"oldest_full_round": 31' "$work/storage.json" || { cat "$work/storage.json"; fail "storage json: window"; }
if "$dede" storage "$work/missing.db" > /dev/null 2>&1; then fail "storage of a missing file succeeded"; fi

# --- 5. An older database (auto_vacuum none): switched at start when small (logged), or by
# `dede storage --vacuum`, which waits for no running deployment: it is refused while one writes.
sqlite3 "$work/old.db" "PRAGMA journal_mode = WAL" > /dev/null
config old "$work/old.db"
"$dede" run "$work/old.yaml" --rounds 3 > "$work/old.log" 2>&1 || { cat "$work/old.log"; fail "old run"; }
grep -q "storage retention: switching $work/old.db to incremental auto-vacuum (one VACUUM of" "$work/old.log" \
  || { cat "$work/old.log"; fail "no switch line"; }
[ "$(q "$work/old.db" "PRAGMA auto_vacuum")" = 2 ] || fail "old.db was not switched"
sqlite3 "$work/older.db" "PRAGMA journal_mode = WAL" > /dev/null
config older "$work/older.db" "{}"
sed -i -e "s|interval_seconds: 1, simulated_time: true|interval_seconds: 0.2|" "$work/older.yaml"
"$dede" run "$work/older.yaml" > "$work/older.log" 2>&1 &
runner=$!
for _ in $(seq 1 100); do [ "$(q "$work/older.db" "SELECT count(*) FROM rounds" 2>/dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
if "$dede" storage "$work/older.db" --vacuum > "$work/vacuum1.log" 2>&1; then fail "--vacuum while dede run writes"; fi
grep -q "lock" "$work/vacuum1.log" || { cat "$work/vacuum1.log"; fail "--vacuum refusal does not name the lock"; }
kill -TERM "$runner"; wait "$runner" || true; runner=
[ "$(q "$work/older.db" "PRAGMA auto_vacuum")" = 0 ] || fail "older.db should still be auto_vacuum none"
"$dede" storage "$work/older.db" --vacuum > "$work/vacuum2.log" 2>&1 || { cat "$work/vacuum2.log"; fail "--vacuum"; }
grep -q "auto_vacuum incremental" "$work/vacuum2.log" || { cat "$work/vacuum2.log"; fail "--vacuum output"; }
[ "$(q "$work/older.db" "PRAGMA auto_vacuum")" = 2 ] || fail "older.db was not switched by --vacuum"
[ "$(q "$work/older.db" "PRAGMA integrity_check")" = ok ] || fail "older.db integrity after --vacuum"
echo "retention test passed"
