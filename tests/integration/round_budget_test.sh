#!/usr/bin/env bash
# Issue 46: for each bundled domain's shipped deployment, its own solver (ADMM, or the plugin's
# method: load balancing's `dede`) with a 1 s budget (solver.admm and solver.exact
# time_limit_seconds, as `dede_bench budget` sets them), (1) the whole round (events to report) stays within 1.2 x the budget + 0.1 s
# (Release builds only: a sanitizer build runs 20-40x slower), (2) the log line's time, the
# database's round_summary.round_seconds and the CSV's round_seconds are one figure, and (3)
# the round says which allocation it returned and is never below its seed.
# usage: round_budget_test.sh DEDE PLUGIN_DIR SOURCE_DIR BUILD_KIND
set -euo pipefail
dede=$1
export DEDE_PLUGIN_PATH=$2
src=$3
kind=${4:-Release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "round_budget_test: $*" >&2; exit 1; }
budget=1.0
timed=1
case "$kind" in *address*|*thread*|*undefined*|Debug*) timed=0 ;; esac
for config in dev te_b4 cluster_small lb_small gpu_combined; do
  db="$work/$config.db"
  "$dede" run "$src/configs/$config.yaml" --rounds 3 --csv "$work/$config.csv" \
    --set "storage.database=$db" --set schedule.simulated_time=true \
    --set "solver.admm.time_limit_seconds=$budget" --set "solver.exact.time_limit_seconds=$budget" \
    > "$work/$config.log" 2> "$work/$config.err" || { cat "$work/$config.err"; fail "$config: run"; }
  # The log's figure (3 decimals) against the database's and the CSV's.
  mapfile -t logged < <(grep -Eo "info  round [0-9]+  [a-z_]+  iterations [0-9]+ .* time [0-9.]+ s" "$work/$config.log" | awk '{print $NF == "s" ? $(NF-1) : $NF}')
  mapfile -t stored < <(sqlite3 "$db" "SELECT printf('%.3f', round_seconds) FROM round_summary ORDER BY round")
  mapfile -t csv < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "round_seconds") c = i; next } { printf "%.3f\n", $c }' "$work/$config.csv")
  [ "${#logged[@]}" = 3 ] || { cat "$work/$config.log"; fail "$config: ${#logged[@]} round lines"; }
  [ "${logged[*]}" = "${stored[*]}" ] && [ "${stored[*]}" = "${csv[*]}" ] \
    || fail "$config: round times differ: log ${logged[*]}, database ${stored[*]}, CSV ${csv[*]}"
  # Which allocation was returned; the cluster's max-min (a maximisation) never below its seed
  # (the plugin's better of Gandiva and the load share), which is above 0.
  [ "$(sqlite3 "$db" "SELECT count(*) FROM rounds WHERE solver = 'admm' AND returned IS NULL")" = 0 ] \
    || fail "$config: an ADMM round without 'returned'"
  if [ "$config" = cluster_small ]; then
    [ "$(sqlite3 "$db" "SELECT seed_objective > 0 AND objective >= seed_objective - 1e-9 FROM rounds WHERE round = 0")" = 1 ] \
      || fail "cluster_small: round 0 $(sqlite3 "$db" "SELECT objective, seed_objective, returned FROM rounds WHERE round = 0")"
  fi
  [ -n "${DEBUG_ROUND_BUDGET:-}" ] && echo "$config: log ${logged[*]} database ${stored[*]} CSV ${csv[*]}"
  if [ "$timed" = 1 ]; then
    over=$(sqlite3 "$db" "SELECT group_concat(round || ': ' || round_seconds, ', ') FROM rounds WHERE round_seconds > 1.2 * $budget + 0.1")
    [ -z "$over" ] || fail "$config: rounds over 1.2 x $budget s + 0.1 s: $over"
  fi
done
echo "round budget test passed"
