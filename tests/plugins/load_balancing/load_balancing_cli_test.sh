#!/usr/bin/env bash
# load_balancing end to end: configs/lb_small.yaml (copied; database and data paths rewritten)
# -> `dede run` (plugin method dede) for 3 rounds -> SQLite rows; resume for 2 more rounds
# equals a fresh 5-round run; the greedy and pop-16 methods from YAML, feasible every round;
# inbox events (shard loads, servers down and up).
# Usage: load_balancing_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "load_balancing_cli_test: $*"; exit 1; }

config() {  # config <db name> [sed expressions...]
  local db=$1
  shift
  sed -e "s|database: dede-lb-small.db|database: $work/$db|" \
      -e "s|interval_seconds: 2|interval_seconds: 0.01|" \
      -e "s|\.\./tests/data/lb|$src/tests/data/lb|" "$@" \
      "$src/configs/lb_small.yaml"
}
export DEDE_PLUGIN_PATH=$plugins
config lb.db > "$work/lb.yaml"

out=$("$dede" validate "$work/lb.yaml") || fail "validate exit: $out"
grep -q "plugin load_balancing 0.2.0, 32 resources, 256 demands" <<< "$out" || fail "validate: $out"
"$dede" run "$work/lb.yaml" --rounds 3 > "$work/run.log" || { cat "$work/run.log"; fail "run"; }
cat "$work/run.log"
q() { sqlite3 "$work/${DB:-lb.db}" "$1"; }
[ "$(q "SELECT count(*) FROM rounds")" = 3 ] || fail "3 rounds expected"
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'feasible' AND value = 1")" = 3 ] || fail "feasible every round: $(q "SELECT * FROM metrics")"
[ "$(q "SELECT count(DISTINCT round) FROM metrics WHERE name = 'movements' AND value >= 0 AND value = round(value)")" = 3 ] || fail "movements per round"
# Round 0 starts from shard k on server k mod 32, which cannot hold shard 0 (load 100) in the
# band: it must be split, so round 0 has movements.
[ "$(q "SELECT value > 0 FROM metrics WHERE round = 0 AND name = 'movements'")" = 1 ] || fail "round 0 movements"
[ "$(q "SELECT count(*) FROM metrics a JOIN metrics b USING (round) WHERE a.name = 'max_load' AND b.name = 'band_high' AND a.value <= b.value * (1 + 1e-6)")" = 3 ] || fail "max load above band"
[ "$(q "SELECT count(*) FROM metrics a JOIN metrics b USING (round) WHERE a.name = 'min_load' AND b.name = 'band_low' AND a.value >= b.value * (1 - 1e-6)")" = 3 ] || fail "min load below band"
[ "$(q "SELECT count(*) FROM metrics WHERE name = 'max_shards_per_server' AND value <= 16")" = 3 ] || fail "memory limit"
[ "$(q "SELECT count(*) FROM entity_parameters WHERE round = 0 AND side = 'demand' AND parameter = 'load'")" = 256 ] || fail "shard loads"
[ "$(q "SELECT value FROM entity_parameters WHERE round = 0 AND side = 'demand' AND idx = 0 AND parameter = 'load'")" = 100.0 ] || fail "shard 0 load"
[ "$(q "SELECT name FROM entities WHERE round = 0 AND side = 'resource' AND idx = 7")" = server7 ] || fail "server names"
[ "$(q "SELECT count(*) FROM domain_records WHERE kind = 'solve' AND key = 'dede'")" = 3 ] || fail "solve records"
[ "$(q "SELECT json_extract(data, '\$.movements') = m.value FROM domain_records d JOIN metrics m ON m.round = d.round AND m.name = 'movements' WHERE d.round = 0")" = 1 ] || fail "record movements"
# Every shard fully placed in the persisted allocation: x is load served, so the x entries of
# each shard sum to the shard's load of the round.
[ "$(q "SELECT count(*) FROM (SELECT a.round, v.demand, sum(a.value) s FROM allocations a JOIN variables v USING (deployment_id, var_id) WHERE v.matrix_name = 'x' GROUP BY a.round, v.demand) t JOIN entity_parameters e ON e.round = t.round AND e.side = 'demand' AND e.idx = t.demand AND e.parameter = 'load' WHERE abs(t.s - e.value) <= 1e-6 * max(1, e.value)")" = 768 ] || fail "shards fully placed"
# y integral and covering x: every persisted y is 1, every x > 0 has its y.
[ "$(q "SELECT count(*) FROM allocations a JOIN variables v USING (deployment_id, var_id) WHERE v.matrix_name = 'y' AND a.value != 1")" = 0 ] || fail "y integral"
[ "$(q "SELECT count(*) FROM allocations a JOIN variables v USING (deployment_id, var_id) WHERE v.matrix_name = 'x' AND NOT EXISTS (SELECT 1 FROM allocations b JOIN variables w USING (deployment_id, var_id) WHERE b.round = a.round AND w.matrix_name = 'y' AND w.resource = v.resource AND w.demand = v.demand)")" = 0 ] || fail "x without y"

# Resume: 2 more rounds continue from the checkpointed placement, as a fresh 5-round run does.
"$dede" run "$work/lb.yaml" --rounds 2 > "$work/resume.log" || { cat "$work/resume.log"; fail "resume"; }
grep -q "resuming deployment" "$work/resume.log" || fail "no resume: $(cat "$work/resume.log")"
config fresh.db > "$work/fresh.yaml"
"$dede" run "$work/fresh.yaml" --rounds 5 > /dev/null || fail "fresh run"
a=$(q "SELECT group_concat(value) FROM (SELECT value FROM metrics WHERE name = 'movements' ORDER BY round)")
b=$(DB=fresh.db q "SELECT group_concat(value) FROM (SELECT value FROM metrics WHERE name = 'movements' ORDER BY round)")
[ "$a" = "$b" ] || fail "resumed movements $a != fresh $b"
[ "$(q "SELECT group_concat(round) FROM plugin_states")" = 4 ] || fail "the latest state only"

# Baselines from YAML.
for method in greedy pop-16; do
  config "$method.db" -e "s|method: dede|method: $method|" > "$work/$method.yaml"
  "$dede" run "$work/$method.yaml" --rounds 2 > "$work/$method.log" || { cat "$work/$method.log"; fail "$method run"; }
  [ "$(DB=$method.db q "SELECT count(*) FROM metrics WHERE name = 'feasible' AND value = 1")" = 2 ] || fail "$method feasible: $(cat "$work/$method.log")"
  [ "$(DB=$method.db q "SELECT count(*) FROM domain_records WHERE key = '$method'")" = 2 ] || fail "$method records"
done
# The inbox: shard 5's load from round 1 on (then a bad target and a bad payload, rejected);
# a resumed run keeps the new load (the event is re-applied, not in the checkpoint).
config events.db > "$work/events.yaml"
"$dede" run "$work/events.yaml" --rounds 1 > /dev/null || fail "events run 1"
"$dede" submit "$work/events.db" shard_load 5 --json '{"load": 42.5}' > /dev/null || fail "submit"
"$dede" submit "$work/events.db" shard_load 999 --json '{"load": 1}' > /dev/null || fail "submit 2"
"$dede" submit "$work/events.db" shard_load 5 --json '{"load": "heavy"}' > /dev/null || fail "submit 3"
"$dede" run "$work/events.yaml" --rounds 1 > "$work/events.log" || { cat "$work/events.log"; fail "events run 2"; }
"$dede" run "$work/events.yaml" --rounds 1 > "$work/events3.log" || { cat "$work/events3.log"; fail "events run 3"; }
[ "$(DB=events.db q "SELECT group_concat(status || ':' || round, ' ') FROM (SELECT * FROM events ORDER BY id)")" = "applied:1 rejected:1 rejected:1" ] \
  || fail "event states: $(DB=events.db q "SELECT * FROM events")"
DB=events.db q "SELECT reason FROM events WHERE id = 2" | grep -q "not a shard index" || fail "reason 2"
DB=events.db q "SELECT reason FROM events WHERE id = 3" | grep -q "event 3: payload.load" || fail "reason 3: $(DB=events.db q "SELECT reason FROM events WHERE id = 3")"
[ "$(DB=events.db q "SELECT group_concat(value, ' ') FROM (SELECT value FROM entity_parameters WHERE side = 'demand' AND idx = 5 AND parameter = 'load' ORDER BY round)")" \
  = "$(DB=events.db q "SELECT value FROM entity_parameters WHERE round = 0 AND side = 'demand' AND idx = 5 AND parameter = 'load'") 42.5 42.5" ] \
  || fail "shard 5 loads: $(DB=events.db q "SELECT round, value FROM entity_parameters WHERE side = 'demand' AND idx = 5 AND parameter = 'load'")"
[ "$(DB=events.db q "SELECT count(*) FROM metrics WHERE name = 'feasible' AND value = 1")" = 3 ] || fail "events: feasible every round"
# Servers: server 4 drained from round 3 (each round a new process: round 4 resumes, the event
# is replayed before the checkpoint), back from round 5; a bad target is rejected. Nothing is
# allocated on server 4 while it is down, the band is over 7 servers, then 8 again.
"$dede" submit "$work/events.db" server_down 4 > /dev/null || fail "submit server_down"
"$dede" submit "$work/events.db" server_down 99 > /dev/null || fail "submit server_down 99"
for i in 1 2; do
  "$dede" run "$work/events.yaml" --rounds 1 > "$work/down$i.log" || { cat "$work/down$i.log"; fail "server_down run $i"; }
done
"$dede" submit "$work/events.db" server_up 4 > /dev/null || fail "submit server_up"
"$dede" run "$work/events.yaml" --rounds 1 > "$work/up.log" || { cat "$work/up.log"; fail "server_up run"; }
E() { DB=events.db q "$1"; }
[ "$(E "SELECT group_concat(status || ':' || round, ' ') FROM (SELECT * FROM events WHERE id > 3 ORDER BY id)")" = "applied:3 rejected:3 applied:5" ] \
  || fail "server event states: $(E "SELECT * FROM events")"
E "SELECT reason FROM events WHERE id = 5" | grep -q "event 5 (server_down): target '99' is not a server index 0..31" || fail "reason 5: $(E "SELECT reason FROM events WHERE id = 5")"
grep -q "events re-applied" "$work/down2.log" || fail "no replay: $(cat "$work/down2.log")"
alloc_on4() { E "SELECT count(*) FROM allocations a JOIN variables v USING (deployment_id, var_id) WHERE a.round = $1 AND v.resource = 4 AND a.value > 0"; }
[ "$(E "SELECT count(*) FROM allocations WHERE round = 2")" -gt 0 ] || fail "round 2 allocation"
[ "$(alloc_on4 2)" -gt 0 ] || fail "server 4 used before the drain"
[ "$(alloc_on4 3)" = 0 ] || fail "round 3: $(alloc_on4 3) values on the down server 4"
[ "$(alloc_on4 4)" = 0 ] || fail "round 4 (resumed): $(alloc_on4 4) values on the down server 4"
[ "$(alloc_on4 5)" -gt 0 ] || fail "round 5: server 4 back but unused"
[ "$(E "SELECT group_concat(value, ' ') FROM (SELECT value FROM metrics WHERE name = 'servers_up' AND round >= 2 ORDER BY round)")" = "32.0 31.0 31.0 32.0" ] \
  || fail "servers_up: $(E "SELECT round, value FROM metrics WHERE name = 'servers_up'")"
[ "$(E "SELECT group_concat(value, ' ') FROM (SELECT value FROM entity_parameters WHERE side = 'resource' AND idx = 4 AND parameter = 'up' AND round >= 2 ORDER BY round)")" = "1.0 0.0 0.0 1.0" ] \
  || fail "server 4 up parameter"
# The band of round 3 is over the 31 up servers: band_high = 1.1 * total load / 31.
[ "$(E "SELECT abs(m.value - 1.1 * t.total / 31) <= 1e-9 * m.value FROM metrics m JOIN (SELECT round, sum(value) total FROM entity_parameters WHERE side = 'demand' AND parameter = 'load' GROUP BY round) t USING (round) WHERE m.round = 3 AND m.name = 'band_high'")" = 1 ] \
  || fail "round 3 band_high"
# Shards only on server 4 when it went down moved: at least that many movements in round 3.
[ "$(E "SELECT m.value >= (SELECT count(*) FROM entity_parameters a JOIN entity_parameters b USING (deployment_id, round, side, idx) WHERE a.round = 3 AND a.side = 'demand' AND a.parameter = 'current_server' AND a.value = 4 AND b.parameter = 'current_copies' AND b.value = 1) AND m.value > 0 FROM metrics m WHERE m.round = 3 AND m.name = 'movements'")" = 1 ] \
  || fail "round 3 movements"
[ "$(E "SELECT count(*) FROM metrics WHERE name = 'feasible' AND value = 1")" = 6 ] || fail "server events: feasible every round"

# POP-16 with 31 of 32 servers up: the round fails (no allocation), the deployment goes on.
config pop.db -e "s|method: dede|method: pop-16|" > "$work/pop.yaml"
"$dede" run "$work/pop.yaml" --rounds 1 > /dev/null || fail "pop run 1"
"$dede" submit "$work/pop.db" server_down 0 > /dev/null || fail "submit pop server_down"
"$dede" run "$work/pop.yaml" --rounds 2 > "$work/pop.log" || { cat "$work/pop.log"; fail "pop run 2"; }
[ "$(DB=pop.db q "SELECT group_concat(termination, ' ') FROM (SELECT termination FROM rounds ORDER BY round)")" = "converged failure failure" ] \
  || fail "pop terminations: $(DB=pop.db q "SELECT round, termination, message FROM rounds")"
DB=pop.db q "SELECT message FROM rounds WHERE round = 1" | grep -q "pop-16 needs the up servers (31 of 32) to be a multiple of 16" || fail "pop message"
[ "$(DB=pop.db q "SELECT count(*) FROM allocations WHERE round > 0")" = 0 ] || fail "pop: allocation of a failed round"
echo "load_balancing cli test passed"
