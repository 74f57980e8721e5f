#!/usr/bin/env bash
# The event inbox end to end on B4 (configs/te_b4.yaml): `dede submit` while deployments run,
# the runner applying or rejecting each event exactly once in the round that used it, the state
# re-applied on resume (also after kill -9), and the database intact.
# Usage: te_events_cli_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
work=$(mktemp -d)
runner=
trap '[ -n "$runner" ] && kill -9 "$runner" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "te_events_cli_test: $*"; exit 1; }
export DEDE_PLUGIN_PATH=$plugins
q() { "$dede" query "$work/te.db" "$1" --format csv | tail -n +2 | tr -d '\r'; }

sed -e "s|database: dede-te-b4.db|database: $work/te.db|" \
    -e "s|interval_seconds: 1|interval_seconds: 0.05|" \
    -e "s|\.\./tests/data/te|$src/tests/data/te|" \
    "$src/configs/te_b4.yaml" > "$work/te.yaml"

# --- 1. Events between two runs: applied, rejected with a reason, or waiting for their round.
"$dede" run "$work/te.yaml" --rounds 2 > "$work/run1.log" 2>&1 || { cat "$work/run1.log"; fail "run 1"; }
"$dede" submit "$work/te.db" link_fail "0->1" --writer test > "$work/submit.log" || fail "submit link_fail"
"$dede" submit "$work/te.db" demand "0->2" --json '{"demand": 1000}' >> "$work/submit.log" || fail "submit demand"
"$dede" submit "$work/te.db" link_capacity 3 --json '{"capacity": -1}' >> "$work/submit.log" || fail "submit bad capacity"
"$dede" submit "$work/te.db" volcano "0->1" >> "$work/submit.log" || fail "submit unknown kind"
"$dede" submit "$work/te.db" link_recover "0->1" --from-round 4 >> "$work/submit.log" || fail "submit future"
[ "$(wc -l < "$work/submit.log")" = 5 ] || { cat "$work/submit.log"; fail "5 submissions expected"; }
# Bad input to submit itself: nothing is written.
if "$dede" submit "$work/te.db" demand "0->2" --json '[1, 2]' > "$work/bad.log" 2>&1; then fail "a non-object payload was accepted"; fi
grep -q "is not a JSON object" "$work/bad.log" || { cat "$work/bad.log"; fail "payload error"; }
[ "$(q "SELECT count(*) FROM events")" = 5 ] || fail "a rejected submission wrote a row"

"$dede" run "$work/te.yaml" --rounds 2 > "$work/run2.log" 2>&1 || { cat "$work/run2.log"; fail "run 2"; }
[ "$(q "SELECT group_concat(id || ':' || status || ':' || ifnull(round, '-'), ' ') FROM (SELECT * FROM events ORDER BY id)")" \
  = "1:applied:2 2:applied:2 3:rejected:2 4:rejected:2 5:pending:-" ] \
  || fail "event states: $(q "SELECT id, kind, status, round, reason FROM events")"
q "SELECT reason FROM events WHERE id = 3" | grep -q "^event 3: payload.capacity = -1. Violated constraint" \
  || fail "reason of event 3: $(q "SELECT reason FROM events WHERE id = 3")"
q "SELECT reason FROM events WHERE id = 4" | grep -q "kind 'volcano' is not one of" \
  || fail "reason of event 4: $(q "SELECT reason FROM events WHERE id = 4")"
grep -q "event 3 rejected" "$work/run2.log" || { cat "$work/run2.log"; fail "no log line for event 3"; }
[ "$(q "SELECT group_concat(value, ' ') FROM (SELECT value FROM metrics WHERE name = 'failed_links' ORDER BY round)")" = "0.0 0.0 1.0 1.0" ] \
  || fail "failed_links: $(q "SELECT round, value FROM metrics WHERE name = 'failed_links'")"
# Round 2's total demand: matrix 2's, with pair 0->2 at 1,000 instead of its own value.
expected=$(awk -F, 'NR > 1 { t += ($1 == 0 && $2 == 2) ? 1000 : $3 } END { printf "%.4f", t }' \
  "$src/tests/data/te/matrices/B4_real_2_1.0.csv")
[ "$(q "SELECT printf('%.4f', value) FROM metrics WHERE name = 'total_demand' AND round = 2")" = "$expected" ] \
  || fail "total demand of round 2: $(q "SELECT value FROM metrics WHERE name = 'total_demand' AND round = 2"), expected $expected"

# --- 2. Resume re-applies the state: round 4 still has the link failed until event 5 recovers
# it (from round 4), and the demand override holds.
"$dede" run "$work/te.yaml" --rounds 1 > "$work/run3.log" 2>&1 || { cat "$work/run3.log"; fail "run 3"; }
grep -q "2 events re-applied" "$work/run3.log" || { cat "$work/run3.log"; fail "no replay line"; }
[ "$(q "SELECT status || ':' || round FROM events WHERE id = 5")" = "applied:4" ] || fail "event 5: $(q "SELECT * FROM events WHERE id = 5")"
[ "$(q "SELECT value = 0 FROM metrics WHERE name = 'failed_links' AND round = 4")" = 1 ] || { cat "$work/run3.log"; q "SELECT round, value FROM metrics WHERE name = 'failed_links'"; q "SELECT * FROM events"; fail "round 4 failed_links"; }
expected4=$(awk -F, 'NR > 1 { t += ($1 == 0 && $2 == 2) ? 1000 : $3 } END { printf "%.4f", t }' \
  "$src/tests/data/te/matrices/B4_real_4_1.0.csv")
[ "$(q "SELECT printf('%.4f', value) FROM metrics WHERE name = 'total_demand' AND round = 4")" = "$expected4" ] \
  || fail "the demand override did not survive the resume"

# --- 3. Concurrent writers while rounds run, and kill -9 in the middle: every event is applied
# exactly once in the committed history, none is lost, the failed-link state after resume
# follows the events in order.
"$dede" run "$work/te.yaml" > "$work/run4.log" 2>&1 &
runner=$!
for i in $(seq 1 24); do
  if [ $((i % 2)) = 1 ]; then kind=link_fail; else kind=link_recover; fi
  "$dede" submit "$work/te.db" "$kind" 5 --writer "w$((i % 3))" > /dev/null || fail "concurrent submit $i"
  sleep 0.02
  if [ "$i" = 13 ]; then kill -9 "$runner"; wait "$runner" 2>/dev/null || true; runner=; fi
done
[ "$(q "PRAGMA integrity_check")" = ok ] || fail "integrity_check after kill -9"
last=$(q "SELECT max(round) FROM rounds")
[ "$(q "SELECT count(*) FROM events WHERE status <> 'pending' AND round > $last")" = 0 ] \
  || fail "an event is marked by an uncommitted round"
"$dede" run "$work/te.yaml" --rounds 2 > "$work/run5.log" 2>&1 || { cat "$work/run5.log"; fail "run after kill -9"; }
[ "$(q "SELECT count(*) FROM events WHERE status = 'pending'")" = 0 ] || fail "events left pending: $(q "SELECT id FROM events WHERE status = 'pending'")"
[ "$(q "SELECT count(*) FROM events WHERE id > 5 AND status = 'applied'")" = 24 ] || fail "applied: $(q "SELECT id, status, reason FROM events WHERE id > 5")"
# 24 alternating events end with a recover: link 5 is up in the last round.
final=$(q "SELECT value = 0 FROM metrics WHERE name = 'failed_links' AND round = (SELECT max(round) FROM rounds)")
[ "$final" = 1 ] || fail "failed_links after the last recover: $final"
# The failure state of every round follows the last event applied at or before it.
bad=$(q "SELECT count(*) FROM metrics m WHERE m.name = 'failed_links' AND m.round >= 5 AND m.value <> (
          SELECT CASE e.kind WHEN 'link_fail' THEN 1.0 ELSE 0.0 END FROM events e
          WHERE e.id > 5 AND e.round <= m.round ORDER BY e.id DESC LIMIT 1)
        AND EXISTS (SELECT 1 FROM events e WHERE e.id > 5 AND e.round <= m.round)")
[ "$bad" = 0 ] || fail "rounds whose failed_links disagree with the events: $bad"
# --- 4. The HTTP endpoint: absent unless configured; with http.enabled, served by the running
# deployment (a raw request through bash's /dev/tcp: no client needed).
if grep -q "info  http:" "$work"/run*.log; then fail "an http endpoint without http.enabled"; fi
cp "$work/te.yaml" "$work/web.yaml"
sed -i -e "s|name: te-b4|name: te-b4-web|" -e "s|interval_seconds: 0.05|interval_seconds: 0.3|" "$work/web.yaml"
printf 'http:\n  enabled: true\n  port: 0\n' >> "$work/web.yaml"
# The log exists before the run starts (its redirection happens in the child): the polling
# sed below must not find it missing and end the script under set -e.
: > "$work/web.log"
"$dede" run "$work/web.yaml" --rounds 8 > "$work/web.log" 2>&1 &
runner=$!
port=
for _ in $(seq 1 100); do
  port=$(sed -n 's|.* info  http: serving .* on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/web.log")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { cat "$work/web.log"; fail "no http line in the log"; }
# A client that connects and never sends a byte: it must delay neither rounds nor others.
exec 4<>"/dev/tcp/127.0.0.1/$port"
sleep 0.5
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
reply=$(cat <&3)
exec 3<&-
grep -q "^HTTP/1.1 200 OK" <<< "$reply" || fail "healthz: $reply"
grep -q '"deployment":"te-b4-web"' <<< "$reply" || fail "healthz body: $reply"
wait "$runner" || { cat "$work/web.log"; fail "the http deployment failed"; }
runner=
exec 4<&-
[ "$(grep -c "info  round [0-9]*  converged" "$work/web.log")" = 8 ] || { cat "$work/web.log"; fail "8 rounds expected beside the silent client"; }
echo "te events cli test passed"
