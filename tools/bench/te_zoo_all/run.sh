#!/usr/bin/env bash
# reproduce.sh te-zoo-all: max total flow on every Topology Zoo network of the shared data with
# >= 60 nodes (topology-zoo-full and topology-zoo), two seeded gravity matrices each, at a load
# where the exact optimum routes 30-70% of the demand. Per instance: the exact round time, DeDe
# at a tenth of it with the shipped defaults (the deployments' solver block is `kind: admm`
# alone; dede_eval sets the time limit), its whole-round time / budget, and POP-4 at the same
# budget (solver.exact.time_limit_seconds, shared by its groups).
#
#   bash run.sh OUT [PART] [dede_eval options ...]
#     PART: all (default), choose or report: the halves of the networks (alternating by size;
#     defaults are chosen on `choose` and reported on `report`, which the choice never saw).
# Needs $B (the build directory), $S (the shared data) and python3; writes OUT/deployments,
# OUT/calibration.csv (once: delete it to calibrate again), OUT/eval-PART/, OUT/te_zoo_all-PART.md
# and OUT/te_zoo_all-PART.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?output directory}
part=${2:-all}
shift $(( $# >= 2 ? 2 : 1 ))
: "${B:?the build directory}" "${S:?the shared data directory}"
export DEDE_PLUGIN_PATH=${DEDE_PLUGIN_PATH:-$B/plugins}
mkdir -p "$out"
if [ ! -s "$out/calibration.csv" ]; then
  python3 "$here/te_zoo_all.py" generate --dede "$B/tools/dede/dede" --out "$out" --shared "$S"
fi
python3 "$here/te_zoo_all.py" split "$out" > /dev/null
files=()
for f in "$out"/deployments/*.yaml; do
  net=$(basename "$f" .yaml); net=${net%-s[0-9]}
  if [ "$part" = all ] || grep -qx "$net" "$out/$part.txt"; then files+=("$f"); fi
done
"$B/tools/eval/dede_eval" deployments "${files[@]}" --rounds 1 --threads 2 \
  --methods exact,admm,pop-4 --budget-fraction 0.1 --value satisfied_demand --no-plots \
  --out "$out/eval-$part" "$@"
split=()
[ "$part" = all ] || split=(--split "$out/$part.txt")
python3 "$here/te_zoo_all.py" summarize "$out/eval-$part/results.csv" --calibration "$out/calibration.csv" \
  "${split[@]}" --markdown "$out/te_zoo_all-$part.md" --points "$out/points-$part.dat"
gnuplot <<PLOT
set terminal pngcairo size 900,500 font ',10' noenhanced
set output '$out/te_zoo_all-$part.png'
set title 'Max total flow at a tenth of the exact round time: quality vs network size'
set xlabel 'nodes'; set ylabel 'fraction of the exact optimum'; set logscale x; set grid
set key bottom right
plot '$out/points-$part.dat' using 1:2 with points pt 7 title 'DeDe (defaults)', \
     '' using 1:3 with points pt 2 title 'POP-4 (same budget)', 0.99 with lines dt 2 title '0.99'
PLOT
