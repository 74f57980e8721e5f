#!/usr/bin/env bash
# Issue 49 through the real binary: `dede query` refuses fts3_tokenizer() (the issue's SIGSEGV)
# and stops randomblob(1e9) at its memory limit; on read-only media it reads a database whose
# file is whole (immutable) and refuses, saying why, one whose -wal it could not read; `dede
# submit` says why it cannot write there, is exactly once with --id, refuses an unknown
# deployment and a non-finite --after.
# Read-only media: a read-only bind mount in a private mount namespace when root (chmod does
# not stop root), a chmod'ed directory otherwise; skipped with a message when neither works.
# Usage: query_submit_guard_test.sh <dede binary> <plugin dir>
set -euo pipefail
dede=$1
plugins=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "query_submit_guard_test: $*"; exit 1; }
export DEDE_PLUGIN_PATH=$plugins

cat > "$work/d.yaml" <<EOF
deployment: {name: guard}
plugin: {name: transport, settings: {resources: 4, demands: 12, entries_per_demand: 2}}
schedule: {interval_seconds: 0.01, simulated_time: true}
storage: {database: d.db}
EOF
"$dede" run "$work/d.yaml" --rounds 1 > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "run"; }

# --- fts3_tokenizer and the memory limit ---------------------------------------------------
python3 - "$work/f.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE VIRTUAL TABLE docs USING fts3(body)")
c.execute("INSERT INTO docs VALUES ('hello world')")
c.commit()
EOF
set +e
"$dede" query "$work/f.db" "SELECT fts3_tokenizer('simple', x'4141414141414141'); SELECT body FROM docs WHERE docs MATCH 'hello'" \
  > "$work/fts.out" 2> "$work/fts.err"; code=$?
set -e
[ $code -eq 2 ] || { cat "$work/fts.err"; fail "two-argument fts3_tokenizer: exit $code (139 is the crash)"; }
grep -q "fts3_tokenizer() is not allowed in queries" "$work/fts.err" || { cat "$work/fts.err"; fail "fts3 message"; }
[ ! -s "$work/fts.out" ] || fail "output from a refused query"
if "$dede" query "$work/f.db" "SELECT hex(fts3_tokenizer('simple'))" > "$work/leak.out" 2>&1; then
  cat "$work/leak.out"; fail "one-argument fts3_tokenizer leaked an address"
fi
[ "$("$dede" query "$work/f.db" "SELECT body FROM docs WHERE docs MATCH 'hello'" --format csv | tail -1 | tr -d '\r')" = "hello world" ] \
  || fail "MATCH no longer works"
set +e
"$dede" query "$work/f.db" "SELECT length(randomblob(1e9))" > /dev/null 2> "$work/mem.err"; code=$?
set -e
[ $code -eq 2 ] && grep -q "needs more than the memory limit of 256 MiB (--max-memory-mib" "$work/mem.err" \
  || { cat "$work/mem.err"; fail "randomblob(1e9) not stopped at the default limit"; }
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "%M" -o "$work/rss" "$dede" query "$work/f.db" "SELECT length(randomblob(1e9))" --max-memory-mib 64 \
    > /dev/null 2>&1 || true
  [ "$(tail -1 "$work/rss")" -lt 200000 ] || fail "randomblob(1e9) still used $(tail -1 "$work/rss") KB"
fi

# --- dede submit: exactly once, unknown deployment, --after --------------------------------
out=$("$dede" submit "$work/d.db" noop 1 --id retry-7)
grep -q "^event [0-9]*  guard  noop  1$" <<< "$out" || fail "first submit: $out"
out=$("$dede" submit "$work/d.db" noop 1 --id retry-7)
grep -q "already submitted with id 'retry-7' (pending); nothing written" <<< "$out" || fail "retry: $out"
[ "$("$dede" query "$work/d.db" "SELECT count(*) FROM events" --format csv | tail -1 | tr -d '\r')" = 1 ] || fail "retry wrote a duplicate"
if "$dede" submit "$work/d.db" noop 2 --id retry-7 2> "$work/key.err"; then fail "same key, other content accepted"; fi
grep -q "idempotency key 'retry-7' of deployment 'guard' is event 1" "$work/key.err" || { cat "$work/key.err"; fail "key message"; }
if "$dede" submit "$work/d.db" noop 1 --deployment gaurd 2> "$work/dep.err"; then fail "unknown deployment accepted"; fi
grep -q "deployment 'gaurd' is not in .*(deployments: guard)" "$work/dep.err" || { cat "$work/dep.err"; fail "unknown deployment message"; }
"$dede" submit "$work/d.db" noop 1 --deployment later --allow-unknown-deployment > /dev/null || fail "--allow-unknown-deployment"
for after in nan inf -inf; do
  if "$dede" submit "$work/d.db" noop 1 --after "$after" 2> "$work/after.err"; then fail "--after $after accepted"; fi
  grep -q "^dede: --after = .*: expected a finite Unix time in seconds" "$work/after.err" || { cat "$work/after.err"; fail "--after $after message"; }
done
[ "$("$dede" query "$work/d.db" "SELECT count(*) FROM events" --format csv | tail -1 | tr -d '\r')" = 2 ] || fail "refused submits wrote events"

# --- read-only media -----------------------------------------------------------------------
mkdir -p "$work/clean" "$work/walled"
cp "$work/d.db" "$work/clean/"
# A copy taken while a writer has committed changes in its WAL: the -wal without the -shm.
python3 - "$work/src.db" "$work/walled/w.db" <<'EOF'
import shutil, sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
c = sqlite3.connect(src)
c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("CREATE TABLE t(x)"); c.execute("INSERT INTO t VALUES (1)"); c.commit()
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("INSERT INTO t VALUES (2)"); c.commit()
shutil.copy(src, dst); shutil.copy(src + "-wal", dst + "-wal")  # the writer still open
EOF
[ -s "$work/walled/w.db-wal" ] && [ ! -e "$work/walled/w.db-shm" ] || fail "fixture: expected a -wal and no -shm"

# Runs the checks with $1 and $2 the read-only views of clean/ and walled/.
cat > "$work/checks.sh" <<'EOF'
set -euo pipefail
dede=$1 clean=$2 walled=$3
fail() { echo "query_submit_guard_test (read-only): $*"; exit 1; }
out=$("$dede" query "$clean/d.db" "SELECT count(*) AS n FROM rounds" --format csv) || fail "query on read-only media: $out"
[ "$(tail -1 <<< "$out" | tr -d '\r')" = 1 ] || fail "query result: $out"
[ ! -e "$clean/d.db-shm" ] || fail "a -shm appeared on read-only media"
if "$dede" query "$walled/w.db" "SELECT count(*) FROM t" > /dev/null 2> "$walled.err"; then
  fail "a -wal with changes was ignored (immutable would show 1 row of 2)"
fi
grep -q "w.db-wal' holds [0-9]* bytes of committed changes" "$walled.err" && grep -q "is not writable" "$walled.err" \
  || { cat "$walled.err"; fail "refusal message"; }
if "$dede" submit "$clean/d.db" noop 1 2> "$clean.err"; then fail "submit wrote to read-only media"; fi
grep -Eq "cannot be written .*(Read-only file system|Permission denied)|is not writable" "$clean.err" \
  || { cat "$clean.err"; fail "submit message on read-only media: $(cat "$clean.err")"; }
echo "read-only media checks passed"
EOF

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$work/ro_clean" "$work/ro_walled"
  if unshare -m true 2> /dev/null; then
    unshare -m bash -c '
      mount --bind "$1/clean" "$1/ro_clean" && mount -o remount,bind,ro "$1/ro_clean" &&
      mount --bind "$1/walled" "$1/ro_walled" && mount -o remount,bind,ro "$1/ro_walled" ||
        { echo "SKIP-MOUNT"; exit 0; }
      bash "$1/checks.sh" "$2" "$1/ro_clean" "$1/ro_walled"' _ "$work" "$dede" > "$work/ro.log" 2>&1 \
      || { cat "$work/ro.log"; fail "read-only media (bind mount)"; }
    cat "$work/ro.log"
    if grep -q SKIP-MOUNT "$work/ro.log"; then
      echo "read-only media: skipped (running as root and a read-only bind mount is not available)"
    fi
  else
    echo "read-only media: skipped (running as root, where chmod does not stop writes, and unshare -m is not available)"
  fi
else
  chmod 555 "$work/clean" "$work/walled"
  bash "$work/checks.sh" "$dede" "$work/clean" "$work/walled" || { chmod 755 "$work/clean" "$work/walled"; fail "read-only media (chmod)"; }
  chmod 755 "$work/clean" "$work/walled"
fi
echo "query/submit guard test passed"
