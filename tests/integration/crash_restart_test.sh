#!/usr/bin/env bash
# A real process is killed with SIGKILL in the middle of a deployment and restarted: the
# database must hold every committed round exactly once, in order, with its allocation, and
# the restarted run must resume after the last committed round. Then SIGTERM must stop cleanly.
# Usage: crash_restart_test.sh <dede binary> <plugin dir>
set -euo pipefail
dede=$1
plugins=$2
work=$(mktemp -d)
trap 'rm -rf "$work"; kill -9 $(jobs -p) 2>/dev/null || true' EXIT

cat > "$work/deploy.yaml" <<YAML
deployment: {name: crash-test, seed: 3}
plugin:
  name: transport
  paths: [$plugins]
  settings: {resources: 40, demands: 400, entries_per_demand: 8}
solver:
  kind: admm
  admm: {num_threads: 2, eps_abs: 1.0e-5, eps_rel: 1.0e-4}
schedule: {interval_seconds: 0.3, overrun: back_to_back}
storage: {database: state.db}
stop: {max_rounds: 12}
YAML

rounds() { sqlite3 "$work/state.db" "SELECT count(*) FROM rounds" 2>/dev/null || echo 0; }
check_contiguous() {
  local expected=$1
  local got
  got=$(sqlite3 "$work/state.db" "SELECT count(*), count(DISTINCT round), coalesce(min(round), -1), coalesce(max(round), -1) FROM rounds")
  [ "$got" = "$expected|$expected|0|$((expected - 1))" ] || { echo "rounds table: $got, expected $expected contiguous rounds"; exit 1; }
  local missing
  missing=$(sqlite3 "$work/state.db" "SELECT count(*) FROM rounds r WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.deployment_id = r.deployment_id AND a.round = r.round)")
  [ "$missing" = 0 ] || { echo "$missing committed rounds have no allocation rows"; exit 1; }
  [ "$(sqlite3 "$work/state.db" 'PRAGMA integrity_check')" = ok ] || { echo "integrity_check failed"; exit 1; }
}

# 1. Start, wait for at least 3 committed rounds, kill -9.
"$dede" run "$work/deploy.yaml" > "$work/run1.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(rounds)" -ge 3 ] && break
  kill -0 $pid 2>/dev/null || { cat "$work/run1.log"; echo "dede exited early"; exit 1; }
  sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null || true
committed=$(rounds)
echo "killed after $committed committed rounds"
[ "$committed" -ge 3 ] || { cat "$work/run1.log"; echo "no rounds committed"; exit 1; }
check_contiguous "$committed"

# 2. Restart: resumes after the last committed round and completes the 12 rounds.
"$dede" run "$work/deploy.yaml" > "$work/run2.log" 2>&1 || { cat "$work/run2.log"; exit 1; }
grep -q "resuming deployment 'crash-test' after round $((committed - 1))" "$work/run2.log" || {
  cat "$work/run2.log"; echo "restart did not resume after round $((committed - 1))"; exit 1; }
check_contiguous 12
[ "$(sqlite3 "$work/state.db" 'SELECT count(*) FROM deployments')" = 1 ] || { echo "duplicate deployment rows"; exit 1; }

# 3. SIGTERM stops cleanly (exit 0) and keeps the rounds contiguous.
sed -i 's/max_rounds: 12/max_rounds: 1000/' "$work/deploy.yaml"
"$dede" run "$work/deploy.yaml" > "$work/run3.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(rounds)" -ge 14 ] && break
  sleep 0.1
done
kill -TERM $pid
status=0
wait $pid || status=$?
[ $status -eq 0 ] || { cat "$work/run3.log"; echo "SIGTERM exit status $status"; exit 1; }
grep -q "received SIGTERM" "$work/run3.log" || { cat "$work/run3.log"; echo "no SIGTERM message"; exit 1; }
check_contiguous "$(rounds)"
echo "crash/restart test passed: $(rounds) rounds"
