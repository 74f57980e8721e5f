#!/usr/bin/env bash
# traffic_engineering end to end with a link failure: `dede run` on a copy of
# configs/te_b4_failure.yaml (B4, 5 rounds of generated gravity traffic, link 0 -> 1 failed in
# rounds 1-2 and recovered in round 3), then SQLite queries: rows for every round, no flow on the
# failed link while it is down (allocation entries, link records and path flows through it),
# every capacity within 1e-6; then 3 rounds of the POP-16 deployment (solver.kind: plugin).
# Usage: te_failure_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "te_failure_cli_test: $*"; exit 1; }
export DEDE_PLUGIN_PATH=$plugins

sed -e "s|database: dede-te-b4-failure.db|database: $work/te.db|" \
    -e "s|interval_seconds: 1|interval_seconds: 0.05|" \
    -e "s|\.\./tests/data/te|$src/tests/data/te|" \
    "$src/configs/te_b4_failure.yaml" > "$work/te.yaml"
"$dede" validate "$work/te.yaml" > /dev/null || fail "validate"
"$dede" run "$work/te.yaml" > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "run"; }
q() { sqlite3 "$work/te.db" "$1"; }
expect() {  # expect <what> <expected> <sql>
  local got
  got=$(q "$3")
  [ "$got" = "$2" ] || fail "$1: expected '$2', got '$got' from: $3"
}

expect "rounds" 5 "SELECT count(*) FROM rounds"
expect "converged or usable rounds" 5 "SELECT count(*) FROM rounds WHERE feasible = 1"
expect "link records per round" "38,38,38,38,38" \
  "SELECT group_concat(n) FROM (SELECT count(*) AS n FROM domain_records WHERE kind = 'link' GROUP BY round ORDER BY round)"
expect "path-flow records per round" "310,310,310,310,310" \
  "SELECT group_concat(n) FROM (SELECT count(*) AS n FROM domain_records WHERE kind = 'path_flow' GROUP BY round ORDER BY round)"
expect "failed_links metric" "0,1,1,0,0" \
  "SELECT group_concat(CAST(value AS INTEGER)) FROM (SELECT value FROM metrics WHERE name = 'failed_links' ORDER BY round)"
# Link 0 is 0 -> 1 (B4.json): down in rounds 1 and 2.
expect "failed link state" "0,1,1,0,0" \
  "SELECT group_concat(json_extract(data, '$.failed')) FROM (SELECT data FROM domain_records WHERE kind = 'link' AND key = '0->1' ORDER BY round)"
expect "failed link load in its failure rounds" "0,0" \
  "SELECT group_concat(json_extract(data, '$.load')) FROM (SELECT data FROM domain_records WHERE kind = 'link' AND key = '0->1' AND round IN (1, 2) ORDER BY round)"
expect "failed link entries in its failure rounds" 0 \
  "SELECT count(*) FROM allocations a JOIN variables v ON v.deployment_id = a.deployment_id AND v.var_id = a.var_id
    WHERE v.kind = 'entry' AND v.resource = 0 AND a.round IN (1, 2) AND a.value > 1e-12"
# Paths through 0 -> 1 (node lists containing the hop '0 1') carry nothing while it is down.
expect "path flows through the failed link" 0 \
  "SELECT count(*) FROM domain_records WHERE kind = 'path_flow' AND round IN (1, 2)
    AND (' ' || json_extract(data, '$.nodes') || ' ') LIKE '% 0 1 %' AND json_extract(data, '$.flow') > 1e-9"
expect "it carries traffic again after recovery" 2 \
  "SELECT count(*) FROM domain_records WHERE kind = 'link' AND key = '0->1' AND round IN (3, 4) AND json_extract(data, '$.load') > 1"
expect "links over capacity (records)" 0 \
  "SELECT count(*) FROM domain_records WHERE kind = 'link'
    AND json_extract(data, '$.load') > json_extract(data, '$.capacity') * (1 + 1e-6) + 1e-6"
expect "links over capacity (allocation entries)" 0 \
  "SELECT count(*) FROM resource_utilisation WHERE allocated > capacity * (1 + 1e-6) + 1e-6"
expect "path flows within demands" 0 \
  "SELECT count(*) FROM (SELECT round, substr(key, 1, instr(key, '#') - 1) AS pair,
            sum(json_extract(data, '$.flow')) AS flow, max(json_extract(data, '$.demand')) AS demand
       FROM domain_records WHERE kind = 'path_flow' GROUP BY round, pair)
    WHERE flow > demand * (1 + 1e-6) + 1e-6"
expect "satisfied demand in (0.5, 1]" 5 \
  "SELECT count(*) FROM metrics WHERE name = 'satisfied_demand' AND value > 0.5 AND value <= 1.000001"

# The POP-16 baseline through the runner.
sed -e "s|database: dede-te-b4-pop16.db|database: $work/pop.db|" \
    -e "s|interval_seconds: 1|interval_seconds: 0.05|" \
    -e "s|\.\./tests/data/te|$src/tests/data/te|" \
    "$src/configs/te_b4_pop.yaml" > "$work/pop.yaml"
"$dede" run "$work/pop.yaml" --rounds 3 > "$work/pop.log" 2>&1 || { cat "$work/pop.log"; fail "pop run"; }
qp() { sqlite3 "$work/pop.db" "$1"; }
[ "$(qp "SELECT count(*) FROM rounds WHERE method = 'pop-16' AND feasible = 1")" = 3 ] \
  || fail "pop-16 rounds: $(qp "SELECT round, method, termination, feasible, message FROM rounds")"
[ "$(qp "SELECT count(*) FROM resource_utilisation WHERE allocated > capacity * (1 + 1e-6) + 1e-6")" = 0 ] \
  || fail "pop-16: links over capacity"
echo "te failure cli test passed"
