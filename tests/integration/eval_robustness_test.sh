#!/usr/bin/env bash
# dede_eval robustness at size small (B4, shipped data only): every study has every level and
# every method; exact is the optimum of each instance (no feasible method beats it); DeDe
# converges on B4 (within 1%); the perturbations did what they claim (nested link failures never
# raise the optimum, spatial redistribution keeps the total, temporal noise changes it, fewer
# paths lower the mean edge betweenness); the summary and one plot per study are written.
set -euo pipefail
eval_bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A bad study name is a usage error.
set +e
"$eval_bin" robustness --size small --studies nosuchstudy --out "$out/bad" > "$out/bad.txt" 2>&1
rc=$?
set -e
test "$rc" -eq 2 || { cat "$out/bad.txt"; fail "unknown study: exit $rc, expected 2"; }

"$eval_bin" robustness --size small --threads 1 --out "$out" --check > "$out/log.txt" 2>&1 || {
  cat "$out/log.txt"; fail "dede_eval robustness exited non-zero"; }
csv=$out/robustness.csv
test -s "$csv" || fail "no robustness.csv"
head -1 "$csv" | grep -q '^domain,objective,method,instance,round,threads,value,quality,reference,seconds,feasible,note$' \
  || { head -1 "$csv"; fail "CSV header"; }
rows=$out/rows.txt
tail -n +2 "$csv" > "$rows"

# Levels per study and methods per (study, level): instance = study/level/base/tmNN.
for spec in granularity:5 temporal:5 spatial:5 failures:4; do
  study=${spec%%:*}
  want=${spec##*:}
  n=$(awk -F, -v s="$study" '{ split($4, p, "/"); if (p[1] == s) print p[2] }' "$rows" | sort -u | wc -l)
  test "$n" -eq "$want" || fail "$study has $n levels, expected $want"
  for m in exact dede pop-4 pop-16 pop-64 demand_pinning; do
    missing=$(awk -F, -v s="$study" -v m="$m" '
      { split($4, p, "/"); if (p[1] == s) { levels[p[2]] = 1; if ($3 == m) seen[p[2]] = 1 } }
      END { for (l in levels) if (!(l in seen)) print l }' "$rows")
    test -z "$missing" || fail "$study: no $m rows at level(s) $missing"
  done
done

# Exact is the reference (quality 1) and optimal: no feasible row exceeds it.
awk -F, '$3 == "exact" && ($8 + 0 < 0.999999 || $8 + 0 > 1.000001 || $9 != "exact") { bad = 1; print }
         END { exit bad }' "$rows" || fail "exact rows without quality 1 against exact"
awk -F, '$11 == 1 && $8 != "" && $8 + 0 > 1 + 1e-6 { bad = 1; print }
         END { exit bad }' "$rows" || fail "a feasible row beats the exact optimum"
# DeDe converges on B4: within 1% of exact in every instance and round.
awk -F, '$3 == "dede" && ($8 == "" || $8 + 0 < 0.99) { bad = 1; print }
         END { exit bad }' "$rows" || fail "DeDe below 0.99 of exact"
# A baseline differs from exact somewhere (the comparison is not vacuous).
awk -F, '$3 ~ /^pop-/ && $8 + 0 < 0.99 { found = 1 } END { exit !found }' "$rows" \
  || fail "POP equals exact everywhere: perturbations or baselines not applied"

# Failures: nested failed-link sets never raise the exact optimum (per round).
awk -F, '$3 == "exact" { split($4, p, "/"); if (p[1] == "failures") { sub("links=", "", p[2]); print $5, p[2], $7 } }' "$rows" \
  | sort -k1,1n -k2,2n | awk '
    seen && $1 == round && $3 > last * (1 + 1e-9) + 1e-9 { bad = 1; print "round " $1 ": " $2 " failed links give " $3 " > " last }
    { seen = 1; round = $1; last = $3 }
    END { exit bad }' || fail "more failed links raised the exact optimum"
awk -F, '$3 == "exact" { split($4, p, "/"); if (p[1] == "failures" && p[2] != "links=0") n++ }
         END { exit !(n > 0) }' "$rows" || fail "no failure rows"

# Total demand of an exact row (from the note).
totals() {  # study -> "round level total" lines
  grep "^traffic_engineering,max_flow,exact,$1/" "$rows" | while IFS= read -r line; do
    level=$(echo "$line" | cut -d, -f4 | cut -d/ -f2)
    round=$(echo "$line" | cut -d, -f5)
    total=$(echo "$line" | grep -o 'total demand [0-9.e+-]*' | awk '{ print $3 }')
    echo "$round|$level|$total"
  done
}
# Spatial redistribution keeps each round's total.
totals spatial | awk -F'|' '
  { if ($1 in t) { if ($3 - t[$1] > 1e-6 * t[$1] || t[$1] - $3 > 1e-6 * t[$1]) { bad = 1; print } } else t[$1] = $3 }
  END { exit bad }' || fail "spatial redistribution changed a round's total demand"
# Temporal fluctuation changes the demands (c = 20 vs. c = 0).
t0=$(totals temporal | awk -F'|' '$1 == 0 && $2 == "c=0" { print $3 }')
t20=$(totals temporal | awk -F'|' '$1 == 0 && $2 == "c=20" { print $3 }')
test -n "$t0" && test -n "$t20" && test "$t0" != "$t20" || fail "temporal c=20 left the demands unchanged ($t0 vs $t20)"
# Fewer paths per pair: lower mean edge betweenness.
between() {
  grep "^traffic_engineering,max_flow,exact,granularity/$1/" "$rows" | head -1 \
    | grep -o 'mean edge betweenness [0-9.e+-]*' | awk '{ print $4 }'
}
b4=$(between k=4); b2=$(between k=2); b1=$(between k=1)
awk -v a="$b4" -v b="$b2" -v c="$b1" 'BEGIN { exit !(a > b && b > c && c > 0) }' \
  || fail "mean edge betweenness not decreasing with fewer paths: k=4 $b4, k=2 $b2, k=1 $b1"

test -s "$out/robustness.md" || fail "no robustness.md"
for study in granularity temporal spatial failures; do
  grep -q "^#### robustness: $study" "$out/robustness.md" || fail "robustness.md lacks $study"
done
if command -v gnuplot > /dev/null; then
  for study in granularity temporal spatial failures; do
    test -s "$out/robustness_$study.png" && test -s "$out/robustness_$study.svg" \
      || { ls "$out"; fail "no plot for $study"; }
  done
fi
echo "ok: $(wc -l < "$rows") rows, studies granularity temporal spatial failures"
