#!/usr/bin/env bash
# dede_eval at size small: each built domain emits rows for DeDe (1 and 2 threads), exact and
# its baselines; DeDe and exact rows are feasible (--check); the summary and plots are written.
set -euo pipefail
eval_bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$eval_bin" run --size small --threads 1,2 --out "$out" --check > "$out/log.txt" 2>&1 || {
  cat "$out/log.txt"; echo "FAIL: dede_eval run exited non-zero"; exit 1; }
csv=$out/results.csv
test -s "$csv" || { echo "FAIL: no results.csv"; exit 1; }
head -1 "$csv" | grep -q '^domain,objective,method,instance,round,threads,value,quality,reference,seconds,feasible,note$' \
  || { echo "FAIL: CSV header"; head -1 "$csv"; exit 1; }
domains=$(tail -n +2 "$csv" | cut -d, -f1 | sort -u)
test -n "$domains" || { echo "FAIL: no rows"; exit 1; }
for d in $domains; do
  for m in dede exact; do
    grep -q "^$d,[^,]*,$m," "$csv" || { echo "FAIL: $d has no $m rows"; exit 1; }
  done
  # DeDe ran with 1 and 2 threads.
  for t in 1 2; do
    awk -F, -v d="$d" -v t="$t" '$1 == d && $3 == "dede" && $6 == t { found = 1 } END { exit !found }' "$csv" \
      || { echo "FAIL: $d has no dede rows with $t threads"; exit 1; }
  done
  # At least one baseline besides dede and exact.
  others=$(awk -F, -v d="$d" '$1 == d && $3 != "dede" && $3 != "exact" { print $3 }' "$csv" | sort -u | wc -l)
  test "$others" -ge 1 || { echo "FAIL: $d has no baseline rows"; exit 1; }
done
test -s "$out/summary.md" || { echo "FAIL: no summary.md"; exit 1; }
if command -v gnuplot > /dev/null; then
  n=$(find "$out" -name '*.png' -size +1k | wc -l)
  test "$n" -ge 1 || { echo "FAIL: no plot written"; ls "$out"; exit 1; }
fi
echo "ok: $(tail -n +2 "$csv" | wc -l) rows for: $(echo $domains)"
