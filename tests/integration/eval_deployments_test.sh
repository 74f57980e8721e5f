#!/usr/bin/env bash
# dede_eval deployments: the harness over shipped deployment files, through the product's round
# path. Every requested method gives a row per round; ADMM and exact are feasible (--check) and
# ADMM matches the exact optimum on these small instances; --set overlays reach the runs;
# --value takes a reported metric and names the metrics when it is not one.
set -euo pipefail
eval_bin=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$eval_bin" deployments "$src/configs/te_b4.yaml" "$src/configs/cluster_small.yaml" \
  --rounds 2 --threads 1,2 --methods exact,admm,pop-4 --out "$out/a" --check --no-plots \
  > "$out/a.log" 2>&1 || { cat "$out/a.log"; echo "FAIL: dede_eval deployments exited non-zero"; exit 1; }
csv=$out/a/results.csv
head -1 "$csv" | grep -q '^domain,objective,method,instance,round,threads,value,quality,reference,seconds,feasible,gap,note$' \
  || { echo "FAIL: CSV header"; head -1 "$csv"; exit 1; }
for d in traffic_engineering cluster_scheduling; do
  for m in exact pop-4; do
    n=$(awk -F, -v d="$d" -v m="$m" '$1 == d && $3 == m' "$csv" | wc -l)
    test "$n" -eq 2 || { echo "FAIL: $d $m: $n rows, expected 2"; cat "$csv"; exit 1; }
  done
  for t in 1 2; do
    n=$(awk -F, -v d="$d" -v t="$t" '$1 == d && $3 == "admm" && $6 == t' "$csv" | wc -l)
    test "$n" -eq 2 || { echo "FAIL: $d admm with $t threads: $n rows"; cat "$csv"; exit 1; }
  done
  # ADMM against exact in the same rounds: quality within 1e-3 either way. (cluster_small's
  # second stage, fill_after_max_min, may lower either method's minimum by its fill_slack,
  # 1e-3 of it: from the plugin's seed ADMM ends at 0.99945 in round 0 and 1.001001 in round 1.)
  awk -F, -v d="$d" '$1 == d && $3 == "admm" && ($8 < 0.999 * (1 - 1e-6) || $8 > (1 + 1e-6) / 0.999) { bad = 1 } END { exit bad }' "$csv" \
    || { echo "FAIL: $d admm quality"; cat "$csv"; exit 1; }
done
test -s "$out/a/summary.md" || { echo "FAIL: no summary.md"; exit 1; }

# An overlay reaches every run: one iteration only.
"$eval_bin" deployments "$src/configs/te_b4.yaml" --methods admm --threads 1 \
  --set solver.admm.max_iterations=1 --set solver.admm.check_termination_every=1 \
  --reference '' --out "$out/b" --no-plots > "$out/b.log" 2>&1 || true
grep -q ', 1 iterations' "$out/b/results.csv" \
  || { cat "$out/b.log"; echo "FAIL: --set did not reach the ADMM run"; exit 1; }

# A metric the plugin does not report is an error naming the ones it does.
if "$eval_bin" deployments "$src/configs/te_b4.yaml" --methods exact --value no_such \
     --out "$out/c" --no-plots > "$out/c.log" 2>&1; then
  echo "FAIL: an unknown --value was accepted"; exit 1
fi
grep -q 'no such metric (it reports: total_flow' "$out/c.log" \
  || { cat "$out/c.log"; echo "FAIL: the error does not list the metrics"; exit 1; }

# --sweep runs every value (rows grouped per value, the value reaches the plugin: twice the
# scale, twice the demand); --budget-fraction gives ADMM a fraction of exact's median round
# time (said in the note); --rounds 0 runs until the plugin has no more rounds (the GPU
# simulation: until every job finished) and --last-round-only keeps the final round's row.
"$eval_bin" deployments "$src/configs/te_b4.yaml" --methods exact,admm --threads 1 --rounds 1 \
  --sweep plugin.settings.scale=1,2 --budget-fraction 0.5 --value total_demand \
  --out "$out/d" --no-plots > "$out/d.log" 2>&1 || { cat "$out/d.log"; echo "FAIL: sweep run"; exit 1; }
d1=$(awk -F, '$2 == "te-b4 plugin.settings.scale=1" && $3 == "exact" { print $7 }' "$out/d/results.csv")
d2=$(awk -F, '$2 == "te-b4 plugin.settings.scale=2" && $3 == "exact" { print $7 }' "$out/d/results.csv")
awk -v a="$d1" -v b="$d2" 'BEGIN { exit !(a > 0 && b > 1.999 * a && b < 2.001 * a) }' \
  || { cat "$out/d/results.csv"; echo "FAIL: the sweep's scale did not reach the plugin ($d1, $d2)"; exit 1; }
grep -q 'admm,.*budget [0-9.e-]* s' "$out/d/results.csv" || { cat "$out/d/results.csv"; echo "FAIL: no budget note"; exit 1; }
if "$eval_bin" deployments "$src/configs/te_b4.yaml" --sweep plugin.settings.scale \
     --out "$out/e" --no-plots > "$out/e.log" 2>&1; then
  echo "FAIL: a sweep without values was accepted"; exit 1
fi
grep -q -- '--sweep plugin.settings.scale: expected KEY=V1,V2' "$out/e.log" || { cat "$out/e.log"; echo "FAIL: sweep error"; exit 1; }
"$eval_bin" deployments "$src/configs/gpu_dally.yaml" --methods dally --rounds 0 --reference '' \
  --set plugin.settings.workload.jobs=10 --value finished_jobs --last-round-only --out "$out/f" --no-plots \
  > "$out/f.log" 2>&1 || { cat "$out/f.log"; echo "FAIL: --rounds 0"; exit 1; }
[ "$(tail -n +2 "$out/f/results.csv" | wc -l)" = 1 ] || { cat "$out/f/results.csv"; echo "FAIL: --last-round-only: one row expected"; exit 1; }
last=$(tail -1 "$out/f/results.csv" | awk -F, '{ print $7 }')
[ "$last" = 10 ] || { cat "$out/f/results.csv"; echo "FAIL: --rounds 0 should run until every job finished ($last)"; exit 1; }
echo "ok: $(tail -n +2 "$csv" | wc -l) rows"
