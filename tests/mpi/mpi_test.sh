#!/usr/bin/env bash
# `mpirun -np N dede ...` against the threaded single process (framework/src/mpi).
#
#   mpi_test.sh solve <dede> <mpirun> <config> [--set K=V ...]
#       `dede solve` with N = 1, 2, 4 processes (DEDE_MPI_TEST_NP: the list, e.g. "2" in the
#       sanitizer build, which runs every exchange at np 2 and leaves the counts to Release): the allocation's fingerprint (every bit of
#       every value), the certified gap, the solver's line (termination, iterations, objective, violation; the
#       times cut off) and the plugin's metrics equal the single process's with 2 threads.
#   mpi_test.sh run <dede> <mpirun> <config>
#       `dede run` into SQLite, with an inbox event, then resumed with another N: the rounds,
#       allocations and events tables equal the single process's, run the same way.
#   mpi_test.sh exit <dede> <mpirun> <config> [--set K=V ...]
#       `dede solve` that fails alike on every process (the settings make the allocation
#       unusable): np 2 ends with the single process's non-zero code, every process normally
#       (no MPI_Abort), rank 0's output whole.
#   mpi_test.sh differ <dede> <mpirun> <config> [--set K=V ...]
#       Two processes whose problems differ (process 1 with another deployment seed, as a
#       plugin that is not deterministic would build): every process ends non-zero within 60 s
#       and rank 0 says the processes built different problems, naming process 1.
#   mpi_test.sh kill|hang|hang0 <dede> <mpirun> <config>
#       kill -9 (kill) or SIGSTOP (hang; hang0: rank 0, between rounds) of one process mid-run: every process exits non-zero
#       within 30 s, the database passes integrity_check with whole rounds only, and the run
#       resumes.
set -euo pipefail
mode=$1
dede=$2
mpirun=$3
config=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"; kill -9 $(jobs -p) 2>/dev/null || true' EXIT
# Open MPI refuses root without these (CI runs as root). More processes than cores: waiting
# processes must yield theirs (busy-polling, np 4 on 2 cores took 25 times as long).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# Sanitizer builds: no leak check under mpirun. Open MPI keeps process-lifetime allocations
# in components it unloads at MPI_Finalize, which LeakSanitizer can attribute (and suppress)
# only with whole stacks (fast_unwind_on_malloc=0) and the components kept loaded: 5x the
# time of these tests. The address and undefined-behaviour checks stay on; the leak check of
# the code these processes run is every other test's.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fail() { echo "FAIL: $*"; exit 1; }
launch() {  # launch N args...: N = 0 is the process alone (no mpirun)
  local n=$1
  shift
  if [ "$n" = 0 ]; then "$dede" "$@"; else "$mpirun" -np "$n" "$dede" "$@"; fi
}

# What must not depend on N: the allocation line, the solver's line without its times, metrics.
solve_key() {
  grep -E '^(allocation:|certified gap:|[a-z_-]+: [a-z_ ]+, iterations|  [A-Za-z_]+ = )' |
    sed 's/, time .*//'
}

case "$mode" in
solve)
  launch 0 solve "$config" --set solver.admm.num_threads=2 "$@" > "$work/ref.out" 2>&1 \
    || { cat "$work/ref.out"; fail "single process"; }
  solve_key < "$work/ref.out" > "$work/ref.key"
  grep -q fingerprint "$work/ref.key" || { cat "$work/ref.out"; fail "no fingerprint printed"; }
  for n in ${DEDE_MPI_TEST_NP:-1 2 4}; do
    # Rank 0's command names one CSV file, the others' another (mpirun's colon form): rank 0
    # alone writes, so the second must not appear.
    if [ "$n" -gt 1 ]; then
      "$mpirun" -np 1 "$dede" solve "$config" "$@" --csv "$work/np$n.csv" \
        : -np "$((n - 1))" "$dede" solve "$config" "$@" --csv "$work/np$n.others.csv"
    else
      launch "$n" solve "$config" "$@" --csv "$work/np$n.csv"
    fi > "$work/np$n.out" 2>&1 || { cat "$work/np$n.out"; fail "np $n"; }
    # One line of figures after the header, written by rank 0 alone.
    [ "$(wc -l < "$work/np$n.csv")" = 2 ] || { cat "$work/np$n.csv"; fail "np $n: the CSV file is not one round"; }
    [ ! -e "$work/np$n.others.csv" ] || fail "np $n: a process other than rank 0 wrote a CSV file"
    solve_key < "$work/np$n.out" > "$work/np$n.key"
    diff "$work/ref.key" "$work/np$n.key" || fail "np $n differs from the single process"
    # Rank 0 alone prints.
    [ "$(grep -c '^allocation:' "$work/np$n.out")" = 1 ] || { cat "$work/np$n.out"; fail "np $n: not one result"; }
    # Through the engine, half steps send the cut only (unless Anderson is on).
    if [ "$n" -gt 1 ] && grep -q "Distributed over" "$work/np$n.out" && ! [[ "$*" == *anderson_memory=[1-9]* ]]; then
      cut=$(grep -oE '[0-9]+ half steps sent the cut only' "$work/np$n.out" | head -1 | cut -d' ' -f1)
      [ "${cut:-0}" -gt 0 ] || { cat "$work/np$n.out"; fail "np $n: no half step sent the cut only"; }
    fi
    # The round's message gives every process's peak RSS and its engine's state.
    if [ "$n" -gt 1 ] && grep -q "Distributed over" "$work/np$n.out"; then
      grep -qE 'peak RSS [0-9]+-[0-9]+ MB per process' "$work/np$n.out" ||
        { cat "$work/np$n.out"; fail "np $n: no peak RSS per process in the message"; }
      grep -qE "the engine's state at set-up [0-9.]+-[0-9.]+ MB" "$work/np$n.out" ||
        { cat "$work/np$n.out"; fail "np $n: no engine state per process in the message"; }
    fi
  done
  echo "solve: np ${DEDE_MPI_TEST_NP:-1 2 4} equal the single process: $(grep '^allocation:' "$work/ref.key")"
  ;;
differ)
  set +e
  start=$(date +%s)
  timeout 120 "$mpirun" -np 1 "$dede" solve "$config" "$@" \
    : -np 1 "$dede" solve "$config" "$@" --set deployment.seed=2 > "$work/np2.out" 2>&1
  got=$?
  set -e
  took=$(($(date +%s) - start))
  [ "$got" -ne 0 ] || { cat "$work/np2.out"; fail "processes with different problems exit 0"; }
  [ "$got" -ne 124 ] || { cat "$work/np2.out"; fail "processes with different problems hang"; }
  [ "$took" -le 60 ] || fail "processes with different problems took $took s to stop"
  grep -q 'the processes built different problems.*process 1 ' "$work/np2.out" ||
    { cat "$work/np2.out"; fail "no message naming the process whose problem differs"; }
  echo "differ: different problems stop every process (exit $got, $took s) with the message"
  ;;
exit)
  set +e
  "$dede" solve "$config" "$@" > "$work/ref.out" 2>&1
  ref=$?
  launch 2 solve "$config" "$@" > "$work/np2.out" 2>&1
  got=$?
  set -e
  [ "$ref" -ne 0 ] || fail "the single process exits 0: no failure to test"
  [ "$got" = "$ref" ] || { cat "$work/np2.out"; fail "np 2 exits $got, the single process $ref"; }
  ! grep -q MPI_ABORT "$work/np2.out" || { cat "$work/np2.out"; fail "np 2 ended through MPI_Abort"; }
  grep -q '^allocation:' "$work/np2.out" || { cat "$work/np2.out"; fail "np 2: rank 0's result is missing"; }
  echo "exit: np 2 ends with the single process's code $ref, every process normally"
  ;;
run)
  tables() {
    sqlite3 "$1" "SELECT round, termination, iterations, printf('%!.17g %!.17g', objective, max_violation)
                  FROM rounds ORDER BY round;
                  SELECT round, var_id, printf('%!.17g', value) FROM allocations ORDER BY round, var_id;
                  SELECT id, kind, target, status, round, reason FROM events ORDER BY id"
  }
  for n in 0 2; do
    db="$work/np$n.db"
    set_db=(--set "storage.database=$db" --set schedule.interval_seconds=0.01)
    launch "$n" run "$config" "${set_db[@]}" --rounds 2 > "$work/run$n.a.log" 2>&1 \
      || { cat "$work/run$n.a.log"; fail "np $n: first run"; }
    "$dede" submit "$db" link_fail 3 --from-round 3 > /dev/null || fail "submit"
    # Resumed with another number of processes (the single process's with 1 thread).
    [ "$n" = 0 ] && m=0 || m=4
    launch "$m" run "$config" "${set_db[@]}" --rounds 3 > "$work/run$n.b.log" 2>&1 \
      || { cat "$work/run$n.b.log"; fail "np $m: resumed run"; }
    grep -q "resuming deployment" "$work/run$n.b.log" || { cat "$work/run$n.b.log"; fail "np $m did not resume"; }
    [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "np $n: integrity_check"
    tables "$db" > "$work/np$n.tables"
  done
  [ "$(sqlite3 "$work/np2.db" 'SELECT count(*) FROM rounds')" = 5 ] || fail "np 2: not 5 rounds"
  [ "$(sqlite3 "$work/np2.db" "SELECT status || ' ' || round FROM events")" = "applied 3" ] \
    || fail "np 2: the event was not applied in round 3"
  diff "$work/np0.tables" "$work/np2.tables" > "$work/diff" || { head -20 "$work/diff"; fail "tables differ"; }
  echo "run: 5 rounds (2 with np 2, 3 resumed with np 4, an event in round 3) equal the single process's"
  ;;
kill | hang | hang0)
  # kill: SIGKILL to rank 1 (mpirun sees the death); hang: SIGSTOP to rank 1 (the others'
  # watchdog sees an exchange waiting longer than DEDE_MPI_TIMEOUT_SECONDS); hang0: SIGSTOP to
  # rank 0 with a 1 s round interval, mostly between rounds (the others wait for its next
  # round at most the interval plus DEDE_MPI_TIMEOUT_SECONDS).
  signal=KILL
  rank=1
  interval=0.01
  [ "$mode" != kill ] && signal=STOP
  [ "$mode" = hang0 ] && rank=0 && interval=1
  export DEDE_MPI_TIMEOUT_SECONDS=3
  db="$work/kill.db"
  set_db=(--set "storage.database=$db" --set schedule.interval_seconds=$interval)
  "$mpirun" -np 2 "$dede" run "$config" "${set_db[@]}" --rounds 1000 > "$work/kill.log" 2>&1 &
  launcher=$!
  rounds() { sqlite3 "$db" "SELECT count(*) FROM rounds" 2>/dev/null || echo 0; }
  for _ in $(seq 1 600); do
    [ "$(rounds)" -ge 2 ] && break
    kill -0 $launcher 2>/dev/null || { cat "$work/kill.log"; fail "mpirun exited early"; }
    sleep 0.05
  done
  # The process of that rank (a child of mpirun).
  victim=""
  for pid in $(pgrep -P $launcher); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then victim=$pid; fi
  done
  [ -n "$victim" ] || fail "no rank $rank process under mpirun $launcher"
  kill -s "$signal" "$victim"
  start=$(date +%s)
  set +e
  wait $launcher
  code=$?
  set -e
  took=$(( $(date +%s) - start ))
  [ "$code" != 0 ] || fail "mpirun exited 0 after SIG$signal to rank $rank"
  [ "$took" -le 30 ] || fail "the launch took $took s to end"
  pgrep -f "$db" > /dev/null && fail "a process of the launch is still running"
  if [ "$mode" != kill ]; then
    grep -q "a process of the launch hangs" "$work/kill.log" || { cat "$work/kill.log"; fail "no watchdog message"; }
  fi
  [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
  committed=$(rounds)
  got=$(sqlite3 "$db" "SELECT count(DISTINCT round), min(round), max(round) FROM rounds")
  [ "$got" = "$committed|0|$((committed - 1))" ] || fail "rounds not contiguous: $got"
  missing=$(sqlite3 "$db" "SELECT count(*) FROM rounds r WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.round = r.round)")
  [ "$missing" = 0 ] || fail "$missing rounds without their allocation"
  "$mpirun" -np 2 "$dede" run "$config" "${set_db[@]}" --rounds 2 > "$work/resume.log" 2>&1 \
    || { cat "$work/resume.log"; fail "resume"; }
  [ "$(rounds)" = $((committed + 2)) ] || fail "resume did not add 2 rounds"
  echo "$mode: SIG$signal to rank $rank: exit $code after $took s, $committed whole rounds kept, resumed"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
