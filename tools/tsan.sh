#!/usr/bin/env bash
# ThreadSanitizer over the test suite (preset `tsan`, RelWithDebInfo), for the code that runs on
# threads of its own: the runtime (Asio loop, worker, signals), the HTTP endpoint, the store,
# the plugin loader. Debian's libtbb is not instrumented, so TSan cannot see TBB's own
# synchronisation: every parallel_for join looks like a race (hundreds of reports per test).
# Those reports (a libtbb frame in a stack) are counted and set aside; any other report fails.
#   bash tools/tsan.sh                 # the default test selection
#   bash tools/tsan.sh 'Runner|Http'   # a ctest -R regex
set -euo pipefail
cd "$(dirname "$0")/.."
select=${1:-'Runner|RoundPipeline|HttpServer|Store|Events|Submit|PluginLoader|WriterLock'}
cmake --preset tsan > /dev/null
cmake --build --preset tsan
log=$(mktemp)
trap 'rm -f "$log"' EXIT
TSAN_OPTIONS="halt_on_error=0 exitcode=0 ${TSAN_OPTIONS:-}" \
  ctest --preset tsan -j 1 -R "$select" -E 'Integration|Fuzz' -V > "$log" 2>&1 || {
    tail -40 "$log"; echo "tsan: tests failed"; exit 1; }
python3 - "$log" <<'PY'
import sys
text = open(sys.argv[1], errors="replace").read()
reports = [r for r in text.split("==================") if "WARNING: ThreadSanitizer" in r]
tbb = [r for r in reports if "libtbb" in r]
other = [r for r in reports if "libtbb" not in r]
print(f"tsan: {len(reports)} reports, {len(tbb)} inside TBB (uninstrumented: set aside), "
      f"{len(other)} others")
for r in other[:5]:
    print(r[:3000])
sys.exit(1 if other else 0)
PY
