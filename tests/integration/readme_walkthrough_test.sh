#!/usr/bin/env bash
# The README's "Your own network and traffic" walkthrough, run as written: the commands between
# `mkdir -p my-wan` and the text after the code block, with build/release/ mapped to this build.
# Then the comparison it promises: summary.md lists ADMM, the exact LP and POP-4, every round
# feasible, and ADMM within 1e-3 of the exact LP on these three rounds.
# Usage: readme_walkthrough_test.sh <source dir> <build dir> [<sanitizers><build type>]
# The README's ADMM budget (2 s a round) is a Release figure: in a sanitizer or Debug build,
# ten times slower, the walkthrough runs with 20 s so that the quality check still means
# something there (the solve stops at convergence, well before).
set -euo pipefail
src=$1
build=$2
flavour=${3:-Release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "readme_walkthrough_test: $*"; exit 1; }

python3 - "$src/README.md" "$work/walk.sh" <<'PY'
import sys
text = open(sys.argv[1]).read()
start = text.index("    mkdir -p my-wan")
end = text.index("\n\n", text.index("dede_eval deployments my-wan/"))
lines = [l[4:] for l in text[start:end].splitlines()]
open(sys.argv[2], "w").write("set -euo pipefail\n" + "\n".join(lines) + "\n")
PY
case "$flavour" in
  Release | RelWithDebInfo | MinSizeRel) ;;
  *) sed -i 's/time_limit_seconds: 2}/time_limit_seconds: 20}/' "$work/walk.sh"
     grep -q "time_limit_seconds: 20}" "$work/walk.sh" || fail "the README's ADMM budget moved" ;;
esac
ln -s "$src/tests" "$work/tests"
mkdir -p "$work/build/release/tools/dede" "$work/build/release/tools/eval"
ln -s "$build/tools/dede/dede" "$work/build/release/tools/dede/dede"
ln -s "$build/tools/eval/dede_eval" "$work/build/release/tools/eval/dede_eval"
export DEDE_PLUGIN_PATH=$build/plugins
(cd "$work" && bash walk.sh > walk.log 2>&1) || { cat "$work/walk.log"; fail "the walkthrough's commands failed"; }
summary=$work/my-wan/cmp/summary.md
[ -f "$summary" ] || fail "no summary.md"
[ "$(sqlite3 "$work/my-wan/my-wan.db" "SELECT count(*) FROM rounds")" = 3 ] || fail "3 stored rounds expected"
for m in admm exact pop-4 pop-64 demand_pinning; do
  grep -q "^| $m | [0-9]* | 3 | .* | 3/3 | [^|]* | exact |$" "$summary" || { cat "$summary"; fail "row of $m"; }
done
q=$(grep -m1 "^| admm | 1 | 3 |" "$summary" | awk -F'|' '{print $7}')
awk -v q="$q" 'BEGIN { exit !(q >= 0.999) }' || fail "ADMM's worst quality $q < 0.999"
echo "readme walkthrough test passed"
