#!/usr/bin/env bash
# Soak: a deployment run for many rounds with storage.retention, live events and a kill + resume.
# Not a test (it runs for tens of minutes); issue 49's acceptance:
#   bash tools/bench/soak.sh [ROUNDS] [OUT_DIR]       (default 100000 rounds, /tmp/dede-soak)
#
# The deployment: traffic engineering on B4 (tests/data/te), gravity traffic generated per round
# (the plugin's `traffic` generator: a function of the round, so any round can be replayed),
# every path's flow recorded (domain records, as configs/te_b4_live.yaml), the exact solver (each
# round a function of the plugin's state: a resumed run must give the same rounds bit for bit;
# SOAK_SOLVER=admm runs the ADMM of te_b4_live instead, whose warm start from the stored
# allocation is close but not bit-exact, so the resume check then compares to 1e-6),
# `schedule.simulated_time: true` (rounds back to back), `storage.retention.keep_rounds` 1000.
#
# While it runs: an event every SOAK_EVENT_SECONDS (`dede submit`: a link fails or recovers, a
# demand changes), and every SOAK_SAMPLE_SECONDS a line of samples.tsv: elapsed seconds, last
# round, database bytes, WAL bytes, resident memory of `dede run` (kB).
# Near the end (SOAK_RESUME_ROUNDS before ROUNDS) the live events stop, three events are
# submitted for rounds ahead, and a consistent copy of the database is taken (VACUUM INTO, from
# a reader: the run goes on). After the run: PRAGMA integrity_check, `dede storage` (bytes per
# table), then the copy is resumed, killed with SIGKILL after a third of the remaining rounds,
# resumed again to ROUNDS, and its rounds after the copy are compared with the uninterrupted
# run's: summaries, metrics, events, allocations and domain records.
# summary.txt holds the figures: size after warm-up (round 2 x keep_rounds) and at the end, RSS
# at both, integrity, resume. Exit status 0 only if integrity and resume hold.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-100000}
out=${2:-/tmp/dede-soak}
build=${DEDE_BUILD_DIR:-build/release}
case $build in /*) ;; *) build=$PWD/$build ;; esac
dede=$build/tools/dede/dede
keep=${SOAK_KEEP_ROUNDS:-1000}
solver=${SOAK_SOLVER:-exact}
sample_seconds=${SOAK_SAMPLE_SECONDS:-10}
event_seconds=${SOAK_EVENT_SECONDS:-2}
resume_rounds=${SOAK_RESUME_ROUNDS:-600}
warmup=$((2 * keep))
[ -x "$dede" ] || { echo "soak: $dede not built (cmake --workflow --preset release)" >&2; exit 2; }
command -v sqlite3 > /dev/null || { echo "soak: the sqlite3 shell is needed (apt-get install sqlite3)" >&2; exit 2; }
[ "$rounds" -gt $((warmup + resume_rounds)) ] || { echo "soak: ROUNDS must exceed $((warmup + resume_rounds))" >&2; exit 2; }
export DEDE_PLUGIN_PATH=$build/plugins
mkdir -p "$out"
rm -f "$out"/live.db* "$out"/copy.db* "$out"/*.log "$out"/samples.tsv "$out"/summary.txt
runner=
submitter=
cleanup() {
  [ -n "$submitter" ] && kill "$submitter" 2> /dev/null
  [ -n "$runner" ] && kill -9 "$runner" 2> /dev/null
  true
}
trap cleanup EXIT

if [ "$solver" = admm ]; then
  solver_yaml="{kind: admm, cold_start: repair, admm: {num_threads: 0, eps_abs: 1.0e-5, eps_rel: 1.0e-4, time_limit_seconds: 4}}"
else
  solver_yaml="{kind: exact}"
fi
write_config() {  # write_config NAME DATABASE
  cat > "$out/$1.yaml" <<YAML
deployment: {name: soak-b4, seed: 1}
plugin:
  name: traffic_engineering
  settings:
    topology: $PWD/tests/data/te/B4.json
    paths: $PWD/tests/data/te/B4-paths.csv
    num_paths: 4
    traffic: {model: gravity, rounds: $rounds}
    objective: max_total_flow
solver: $solver_yaml
schedule: {interval_seconds: 5, simulated_time: true}
storage:
  database: $2
  retention: {keep_rounds: $keep}
stop: {max_rounds: $rounds}
YAML
}
write_config live "$out/live.db"
write_config copy "$out/copy.db"

q() { sqlite3 -readonly "$1" "$2" 2> /dev/null || true; }
last_round() { local r; r=$(q "$1" "SELECT max(round) FROM rounds"); echo "${r:-0}"; }
file_bytes() { stat -c %s "$1" 2> /dev/null || echo 0; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2> /dev/null || echo 0; }

# Live events, cycling through what an operator sends: link 0->1 fails, recovers, a demand
# changes, link 3's capacity changes and comes back. Runs until told to stop (a file).
submit_loop() {
  local i=0
  while [ ! -e "$out/stop-events" ]; do
    case $((i % 5)) in
      0) "$dede" submit "$out/live.db" link_fail "0->1" --writer soak ;;
      1) "$dede" submit "$out/live.db" link_recover "0->1" --writer soak ;;
      2) "$dede" submit "$out/live.db" demand "0->2" --json "{\"demand\": $((500 + (i * 37) % 1500))}" --writer soak ;;
      3) "$dede" submit "$out/live.db" link_capacity 3 --json '{"capacity": 2000}' --writer soak ;;
      4) "$dede" submit "$out/live.db" link_capacity 3 --json '{"capacity": 10000}' --writer soak ;;
    esac > /dev/null 2>> "$out/submit.log" || true
    i=$((i + 1))
    sleep "$event_seconds"
  done
}

echo "soak: $rounds rounds of B4 traffic engineering ($solver), retention keep_rounds $keep, into $out"
start=$(date +%s)
"$dede" run "$out/live.yaml" > "$out/run.log" 2>&1 &
runner=$!
for _ in $(seq 1 300); do [ -s "$out/live.db" ] && break; sleep 0.1; done
rm -f "$out/stop-events"
submit_loop &
submitter=$!

printf 'elapsed_s\tround\tdb_bytes\twal_bytes\trss_kb\n' > "$out/samples.tsv"
copy_round=
warm_db=
warm_rss=
while kill -0 "$runner" 2> /dev/null; do
  now=$(($(date +%s) - start))
  round=$(last_round "$out/live.db")
  rss=$(rss_kb "$runner")
  printf '%s\t%s\t%s\t%s\t%s\n' "$now" "$round" "$(file_bytes "$out/live.db")" \
    "$(file_bytes "$out/live.db-wal")" "${rss:-0}" >> "$out/samples.tsv"
  if [ -z "$warm_db" ] && [ "$round" -ge "$warmup" ]; then
    warm_db=$(file_bytes "$out/live.db")
    warm_rss=${rss:-0}
    warm_round=$round
    "$dede" storage "$out/live.db" > "$out/storage_warmup.txt" 2>&1 || true
  fi
  if [ -z "$copy_round" ] && [ "$round" -ge $((rounds - resume_rounds)) ]; then
    # The events of the compared rounds: submitted before the copy, for rounds ahead.
    touch "$out/stop-events"
    wait "$submitter" 2> /dev/null || true
    submitter=
    for ahead in 100 200 300; do
      "$dede" submit "$out/live.db" demand "1->3" --json "{\"demand\": $((ahead * 3))}" \
        --from-round $((round + ahead)) --writer soak-ahead > /dev/null
    done
    sqlite3 "$out/live.db" "VACUUM INTO '$out/copy.db'"
    copy_round=$(last_round "$out/copy.db")
    echo "soak: copy of the database at round $copy_round (elapsed ${now} s)"
  fi
  sleep "$sample_seconds"
done
status=0
wait "$runner" || status=$?
runner=
end=$(date +%s)
[ "$status" = 0 ] || { tail -20 "$out/run.log"; echo "soak: dede run failed ($status)"; exit 1; }
final_round=$(last_round "$out/live.db")
end_db=$(file_bytes "$out/live.db")
end_rss=$(tail -1 "$out/samples.tsv" | cut -f5)
integrity=$(sqlite3 "$out/live.db" "PRAGMA integrity_check")
"$dede" storage "$out/live.db" > "$out/storage_end.txt"
events=$(q "$out/live.db" "SELECT count(*) || ' (' || sum(status = 'applied') || ' applied, ' || sum(status = 'rejected') || ' rejected, ' || sum(status = 'pending') || ' pending)' FROM events")

# --- Resume: the copy, killed once, must end with the rounds of the uninterrupted run.
resume=ok
if [ -z "$copy_round" ]; then
  resume="not checked: no copy was taken"
else
  "$dede" run "$out/copy.yaml" > "$out/resume1.log" 2>&1 &
  runner=$!
  kill_at=$((copy_round + (rounds - copy_round) / 3))
  for _ in $(seq 1 6000); do
    [ "$(last_round "$out/copy.db")" -ge "$kill_at" ] && break
    kill -0 "$runner" 2> /dev/null || break
    sleep 0.05
  done
  kill -9 "$runner" 2> /dev/null || true
  wait "$runner" 2> /dev/null || true
  runner=
  killed_at=$(last_round "$out/copy.db")
  "$dede" run "$out/copy.yaml" > "$out/resume2.log" 2>&1 || resume="failed: the second resume exited non-zero"
  where="round > $copy_round"
  if [ "$solver" = admm ]; then num="printf('%.6g', objective)"; val="printf('%.6g', value)"; else num="printf('%.17g', objective)"; val="printf('%.17g', value)"; fi
  for sql in "SELECT round, $num, termination, feasible FROM rounds WHERE $where ORDER BY round" \
             "SELECT round, name, $val FROM metrics WHERE $where ORDER BY round, name" \
             "SELECT id, kind, target, status, round FROM events WHERE id IN (SELECT id FROM events WHERE round > $copy_round OR status = 'pending') ORDER BY id" \
             "SELECT round, var_id, $val FROM allocations WHERE $where ORDER BY round, var_id" \
             "SELECT round, kind, key, data FROM domain_records WHERE $where AND kind <> 'path_flow' OR ($where AND kind = 'path_flow' AND '$solver' = 'exact') ORDER BY round, kind, key"; do
    a=$(q "$out/live.db" "$sql" | md5sum)
    b=$(q "$out/copy.db" "$sql" | md5sum)
    n=$(q "$out/live.db" "$sql" | wc -l)
    if [ "$a" != "$b" ] || [ "$n" = 0 ]; then
      resume="differs: $sql"
      break
    fi
  done
  compared=$(q "$out/copy.db" "SELECT count(*) FROM rounds WHERE round > $copy_round")
  [ "$(sqlite3 "$out/copy.db" "PRAGMA integrity_check")" = ok ] || resume="copy: integrity_check failed"
fi

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%+.1f%%", 100 * (b - a) / a; else print "n/a" }'; }
per_round() { awk -F'\t' -v r0="$warm_round" 'NR > 1 && $2 >= r0 { if (!n++) { d0 = $3; t0 = $2 } d1 = $3; t1 = $2 } END { if (t1 > t0) printf "%.0f", (d1 - d0) / (t1 - t0); else print "n/a" }' "$out/samples.tsv"; }
{
  echo "soak of $final_round + 1 rounds (asked: $rounds) of B4 traffic engineering, solver $solver, storage.retention.keep_rounds $keep"
  echo "wall time: $((end - start)) s ($(awk -v s=$((end - start)) -v r="$rounds" 'BEGIN { printf "%.1f", 1000 * s / r }') ms per round)"
  echo "events: $events"
  echo "database after warm-up (round $warm_round): $warm_db bytes; at the end (round $final_round): $end_db bytes ($(pct "$warm_db" "$end_db"))"
  echo "growth after warm-up: $(per_round) bytes per round (the rounds and metrics rows every round keeps)"
  echo "resident memory of dede run: $warm_rss kB after warm-up, $end_rss kB at the end ($(pct "$warm_rss" "$end_rss"))"
  echo "integrity_check: $integrity"
  echo "resume: $resume (copy at round ${copy_round:-?}, killed at round ${killed_at:-?}, ${compared:-0} rounds compared)"
  echo
  echo "bytes per table after warm-up (dede storage):"
  cat "$out/storage_warmup.txt" 2> /dev/null || true
  echo
  echo "bytes per table at the end (dede storage):"
  cat "$out/storage_end.txt"
} > "$out/summary.txt"
cat "$out/summary.txt"
[ "$integrity" = ok ] && [ "$resume" = ok ]
