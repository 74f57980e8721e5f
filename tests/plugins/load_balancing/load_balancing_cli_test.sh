#!/usr/bin/env bash
# load_balancing end to end: configs/lb_small.yaml (copied, shrunk to 8 servers x 32 shards,
# database and data paths rewritten) -> `dede run` for 3 rounds -> SQLite rows.
# Usage: load_balancing_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "load_balancing_cli_test: $*"; exit 1; }

sed -e "s|database: dede-lb-small.db|database: $work/lb.db|" \
    -e "s|interval_seconds: 2|interval_seconds: 0.05|" \
    -e "s|servers: 32|servers: 8|" -e "s|shards: 256|shards: 32|" \
    -e "s|memory_limit: 16|memory_limit: 8|" -e "s|candidates: 4|candidates: 3|" \
    -e "s|time_limit_seconds: 20|time_limit_seconds: 5|" \
    -e "s|\.\./tests/data/lb|$src/tests/data/lb|" \
    "$src/configs/lb_small.yaml" > "$work/lb.yaml"
export DEDE_PLUGIN_PATH=$plugins

out=$("$dede" validate "$work/lb.yaml") || fail "validate exit: $out"
grep -q "plugin load_balancing 0.1.0, 8 resources, 32 demands" <<< "$out" || fail "validate: $out"
"$dede" run "$work/lb.yaml" --rounds 3 > "$work/run.log" || { cat "$work/run.log"; fail "run"; }
cat "$work/run.log"
q() { sqlite3 "$work/lb.db" "$1"; }
[ "$(q "SELECT count(*) FROM rounds")" = 3 ] || fail "3 rounds expected"
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'feasible' AND value = 1")" = 3 ] || fail "feasible every round: $(q "SELECT * FROM metrics")"
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'movements' AND value >= 0")" = 3 ] || fail "movements"
[ "$(q "SELECT count(*) FROM metrics a JOIN metrics b USING (round) WHERE a.name = 'max_load' AND b.name = 'band_high' AND a.value <= b.value * (1 + 1e-6)")" = 3 ] || fail "max load above band"
[ "$(q "SELECT count(*) FROM metrics a JOIN metrics b USING (round) WHERE a.name = 'min_load' AND b.name = 'band_low' AND a.value >= b.value * (1 - 1e-6)")" = 3 ] || fail "min load below band"
[ "$(q "SELECT count(*) FROM entity_parameters WHERE round = 0 AND side = 'demand' AND parameter = 'load'")" = 32 ] || fail "shard loads"
[ "$(q "SELECT value FROM entity_parameters WHERE round = 0 AND side = 'demand' AND idx = 0 AND parameter = 'load'")" = 100.0 ] || fail "shard 0 load"
[ "$(q "SELECT name FROM entities WHERE round = 0 AND side = 'resource' AND idx = 7")" = server7 ] || fail "server names"
echo "load_balancing cli test passed"
