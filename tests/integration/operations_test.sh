#!/usr/bin/env bash
# Issue 49: docs/operations.md and the files it names. The systemd unit, the Prometheus
# configuration and rules, the Grafana dashboard exist and parse; every metric the rules and the
# dashboard read is one a running deployment's /metrics serves; and the online backup commands
# of the guide (sqlite3 .backup, VACUUM INTO) give whole, readable copies of a database that
# `dede run` is writing.
# Usage: operations_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
export DEDE_PLUGIN_PATH=$2
src=$3
fail() { echo "operations_test: $*"; exit 1; }
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

doc=$src/docs/operations.md
unit=$src/deploy/systemd/dede@.service
rules=$src/deploy/prometheus/dede.rules.yml
scrape=$src/deploy/prometheus/prometheus.yml
dashboard=$src/deploy/grafana/dede.json
for f in "$doc" "$unit" "$rules" "$scrape" "$dashboard"; do
  [ -s "$f" ] || fail "missing $f"
  grep -qF "${f#"$src/"}" "$doc" || [ "$f" = "$doc" ] || fail "docs/operations.md does not name ${f#"$src/"}"
done

# The unit: the keys the guide promises.
for key in 'ExecStart=/opt/dede/bin/dede run /etc/dede/%i.yaml' 'Restart=on-failure' \
  'RestartPreventExitStatus=1 2' 'ProtectSystem=strict' 'ReadWritePaths=/var/lib/dede/%i' \
  'StateDirectory=dede/%i' 'NoNewPrivileges=yes'; do
  grep -qxF "$key" "$unit" || fail "the unit lacks '$key'"
done
if command -v systemd-analyze > /dev/null; then
  # Only the binary, not installed here, may be missing.
  cp "$unit" "$work/dede@test.service"
  out=$(systemd-analyze verify "$work/dede@test.service" 2>&1 || true)
  other=$(grep -v "/opt/dede/bin/dede is not executable" <<< "$out" | grep . || true)
  [ -z "$other" ] || fail "systemd-analyze verify: $other"
fi

# The dashboard is JSON; the rules and the scrape configuration YAML (with PyYAML, if present).
python3 -m json.tool "$dashboard" > /dev/null || fail "$dashboard is not JSON"
if python3 -c "import yaml" 2> /dev/null; then
  python3 - "$rules" "$scrape" <<'EOF' || fail "YAML"
import sys, yaml
rules = yaml.safe_load(open(sys.argv[1]))
names = [r["alert"] for g in rules["groups"] for r in g["rules"]]
for want in ["DedeDown", "DedeRoundsFailing", "DedeNoRoundCommitted", "DedeRoundOverrun",
             "DedeGapAboveThreshold", "DedeInboxBacklog"]:
    assert want in names, want
for g in rules["groups"]:
    for r in g["rules"]:
        assert r["expr"] and r["annotations"]["summary"], r
scrape = yaml.safe_load(open(sys.argv[2]))
assert scrape["scrape_configs"][0]["metrics_path"] == "/metrics"
assert "dede.rules.yml" in scrape["rule_files"]
EOF
else
  echo "operations_test: PyYAML missing: the YAML files are not parsed"
fi

# A running deployment with the endpoint on: its /metrics names every metric used.
sed -e "s|database: .*|database: $work/dev.db|" -e "s|interval_seconds: .*|interval_seconds: 0.2|" \
  -e "s|max_rounds: .*|max_rounds: 0|" "$src/configs/dev.yaml" > "$work/dev.yaml"
printf 'http: {enabled: true, port: 0}\n' >> "$work/dev.yaml"
"$dede" run "$work/dev.yaml" --rounds 400 > "$work/run.log" 2>&1 &
pid=$!
url=
for _ in $(seq 1 300); do
  url=$(grep -a -o 'http://127\.0\.0\.1:[0-9]*/' "$work/run.log" | head -1 || true)
  rounds=$(sqlite3 "$work/dev.db" "SELECT count(*) FROM round_summary" 2> /dev/null || echo 0)
  [ -n "$url" ] && [ "${rounds:-0}" -ge 3 ] && break
  kill -0 "$pid" 2> /dev/null || { cat "$work/run.log"; fail "dede run ended early"; }
  sleep 0.2
done
[ -n "$url" ] && [ "${rounds:-0}" -ge 3 ] || { cat "$work/run.log"; fail "no endpoint or rounds"; }
python3 -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
  "${url}metrics" > "$work/metrics.txt"
served=$(grep -o '^dede_[a-z_]*' "$work/metrics.txt" | sort -u)
used=$(cat "$rules" "$dashboard" | grep -o 'dede_[a-z_]*' | sort -u)
[ -n "$used" ] || fail "no metric in the rules and the dashboard"
for m in $used; do
  grep -qx "$m" <<< "$served" || fail "$m is used by the rules or the dashboard, /metrics has: $served"
done
for m in $served; do
  grep -qF "\`$m" "$doc" || fail "docs/operations.md does not list $m"
done

# Online backup, as the guide gives it, while rounds are written.
db=$work/dev.db
sqlite3 "$db" ".timeout 10000" ".backup $work/backup.db" || fail ".backup"
sqlite3 "$db" ".timeout 10000" "VACUUM INTO '$work/vacuum.db'" || fail "VACUUM INTO"
kill -0 "$pid" 2> /dev/null || fail "dede run stopped during the backups"
for copy in backup vacuum; do
  [ "$(sqlite3 "$work/$copy.db" "PRAGMA integrity_check")" = ok ] || fail "$copy: integrity"
  n=$("$dede" query "$work/$copy.db" "SELECT count(*) AS n FROM round_summary" --format csv | tail -1 | tr -d '\r')
  [ "$n" -ge 3 ] || fail "$copy: $n rounds"
done
# The restored copy resumes: a run on it continues after its last round.
kill "$pid"
wait "$pid" 2> /dev/null || true
pid=
last=$(sqlite3 "$work/backup.db" "SELECT max(round) FROM rounds")
rm -f "$db" "$db-wal" "$db-shm"
cp "$work/backup.db" "$db"
"$dede" run "$work/dev.yaml" --rounds 1 > "$work/resume.log" 2>&1 || { cat "$work/resume.log"; fail "resume from the backup"; }
[ "$(sqlite3 "$db" "SELECT max(round) FROM rounds")" = $((last + 1)) ] || fail "resume: not round $((last + 1))"
echo "operations_test: ok"
