#!/usr/bin/env bash
# Issue 49: the status page (/ of `http: {enabled: true}`) in a real browser. Headless Chromium
# (Debian's `chromium`, installed by `tools/setup.sh --test`) loads it from a running deployment
# and the test checks what the page shows against the database: the last round and its
# termination, the objective and round-time plots of the last rounds with their ranges, the
# page's auto-refresh (the browser reloads it by itself, showing a later round), and no console
# message (errors, uncaught exceptions, failed resource loads). Without chromium the test is skipped (exit 77), unless
# DEDE_REQUIRE_BROWSER=1 (tools/test.sh, CI), where a missing browser fails it.
# Usage: status_page_browser_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
export DEDE_PLUGIN_PATH=$2
src=$3
fail() { echo "status_page_browser_test: $*"; exit 1; }

browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$browser" ]; then
  [ "${DEDE_REQUIRE_BROWSER:-0}" = 1 ] && fail "chromium not found (bash tools/setup.sh --test)"
  echo "status_page_browser_test: skipped: chromium not installed (bash tools/setup.sh --test)"
  exit 77
fi

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The browser is driven over the DevTools protocol by browse_page.py (Python's standard library):
# DOM after each load, every console message, uncaught exception and browser error.
here=$(cd "$(dirname "$0")" && pwd)
browse() {  # URL SECONDS DIR
  mkdir -p "$3"
  loads=$(timeout 180 python3 "$here/browse_page.py" "$browser" "$1" "$2" "$3") \
    || { grep -v dbus "$3/browser.log" | tail -20; fail "could not drive chromium on $1"; }
}

# The detector itself: a page with a console error and an uncaught exception is caught.
printf '<!doctype html><p>x</p><script>console.error("probe-error"); no_such_function();</script>' \
  > "$work/broken.html"
browse "file://$work/broken.html" 3 "$work/broken"
grep -q 'console.error: probe-error' "$work/broken/console.txt" \
  || fail "the console detector missed console.error: $(cat "$work/broken/console.txt")"
grep -q 'exception: ReferenceError' "$work/broken/console.txt" \
  || fail "the console detector missed an uncaught exception: $(cat "$work/broken/console.txt")"
[ "$loads" = 1 ] || fail "the probe page loaded $loads times"

# A running deployment: the transport demo, a round every 0.3 s, the endpoint on a free port.
sed -e "s|database: .*|database: $work/dev.db|" -e "s|interval_seconds: .*|interval_seconds: 0.3|" \
  -e "s|max_rounds: .*|max_rounds: 0|" "$src/configs/dev.yaml" > "$work/dev.yaml"
printf 'http: {enabled: true, port: 0}\n' >> "$work/dev.yaml"
"$dede" run "$work/dev.yaml" --rounds 600 > "$work/run.log" 2>&1 &
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

# The page, kept open 14 s (its refresh is 10 s): what it shows after the first load, and
# whether the browser reloads it by itself.
browse "$url" 14 "$work/page"
dom=$(cat "$work/page/load-1.html")
grep -q '<title>dede: dev-transport</title>' <<< "$dom" || fail "title: $dom"
grep -q '<h1>deployment dev-transport</h1>' <<< "$dom" || fail "heading: $dom"
last=$(grep -o '<p>last round [0-9]*: [a-z_]*</p>' <<< "$dom" | head -1 || true)
[ -n "$last" ] || fail "no last round line: $dom"
round=$(sed -e 's/<p>last round \([0-9]*\):.*/\1/' <<< "$last")
termination=$(sed -e 's/.*: \([a-z_]*\)<\/p>/\1/' <<< "$last")
[ "$round" -ge 2 ] || fail "last round $round, expected >= 2"
q() { sqlite3 "$work/dev.db" "$1"; }
[ "$(q "SELECT termination FROM round_summary WHERE round = $round")" = "$termination" ] \
  || fail "round $round's termination: page '$termination', database '$(q "SELECT termination FROM round_summary WHERE round = $round")'"
# Each plot: a heading, an SVG polyline with a point per round, and "rounds A..B, from X to Y".
for title in 'objective' 'round time (s)'; do
  grep -qF "<h2>$title</h2>" <<< "$dom" || fail "no '$title' plot: $dom"
done
[ "$(grep -c '<polyline' <<< "$dom")" = 2 ] || fail "expected two plots: $dom"
ranges=$(grep -o '<p>rounds [0-9]*\.\.[0-9]*, from [-0-9.e+]* to [-0-9.e+]*</p>' <<< "$dom")
[ "$(wc -l <<< "$ranges")" = 2 ] || fail "plot ranges: $ranges"
# Within 1e-5 relative (the page prints 6 significant digits).
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
                                         exit !(d <= 1e-5 * m + 1e-9) }'; }
check_range() {  # $1: range line, $2: SQL column
  local first to from upto
  first=$(sed -e 's/<p>rounds \([0-9]*\)\.\..*/\1/' <<< "$1")
  upto=$(sed -e 's/.*\.\.\([0-9]*\),.*/\1/' <<< "$1")
  from=$(sed -e 's/.*, from \([-0-9.e+]*\) to.*/\1/' <<< "$1")
  to=$(sed -e 's/.* to \([-0-9.e+]*\)<\/p>/\1/' <<< "$1")
  [ "$first" = 0 ] && [ "$upto" = "$round" ] || fail "plot rounds $first..$upto, expected 0..$round"
  local row
  row=$(q "SELECT min($2), max($2) FROM round_summary WHERE round <= $round")
  close "$from" "${row%|*}" && close "$to" "${row#*|}" \
    || fail "plot of $2: page from $from to $to, database $row"
}
check_range "$(sed -n 1p <<< "$ranges")" objective
check_range "$(sed -n 2p <<< "$ranges")" "COALESCE(round_seconds, total_seconds)"
# The page asks the browser to reload it (no script on the page) ...
grep -q '<meta http-equiv="refresh" content="[1-9][0-9]*">' <<< "$dom" \
  || fail "no auto-refresh: $dom"
# ... and it did: a second load, of a later round.
[ "$loads" -ge 2 ] || fail "the browser did not reload the page in 14 s ($loads load)"
later=$(grep -o '<p>last round [0-9]*' "$work/page/load-2.html" | head -1 | sed -e 's/.* //' || true)
[ -n "$later" ] && [ "$later" -gt "$round" ] || fail "reloaded page: round '$later' after $round"
# No console message, exception or browser error (a missing resource, say) on any load.
[ ! -s "$work/page/console.txt" ] || fail "console: $(cat "$work/page/console.txt")"
kill -0 "$pid" 2> /dev/null || { cat "$work/run.log"; fail "dede run ended while browsed"; }
echo "status_page_browser_test: ok (round $round, then $later after the page's own reload)"
