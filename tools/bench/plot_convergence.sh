#!/usr/bin/env bash
# Draws the gap to Clp's optimum against time for every instance of a `dede_bench convergence
# --trace-csv` file: one panel per instance, one line per variant. A deployment named
# `tmp_TAG_NAME` is variant TAG of instance NAME (convergence_ab.sh writes them); NAME alone is
# the default settings.
#
#   bash tools/bench/plot_convergence.sh trace.csv convergence.png
set -euo pipefail
csv=${1:?trace CSV}
png=${2:?output PNG}
command -v gnuplot >/dev/null || { echo "plot_convergence.sh: gnuplot is not installed (tools/setup.sh installs gnuplot-nox)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One data file per instance label; the gap is max(gap, residual): the level a point reaches.
awk -F, -v dir="$work" 'NR > 1 { f = dir "/" $1 ".dat"; v = ($5 > $6 ? $5 : $6); print $3, v > f }' "$csv"
mapfile -t labels < <(awk -F, 'NR > 1 { print $1 }' "$csv" | awk '!seen[$0]++')
instances=()
for l in "${labels[@]}"; do
  base=$l
  if [[ $l == tmp_* ]]; then base=${l#tmp_}; base=${base#*_}; fi
  [[ " ${instances[*]} " == *" $base "* ]] || instances+=("$base")
done
n=${#instances[@]}
cols=2
rows=$(( (n + cols - 1) / cols ))
{
  echo "set terminal pngcairo size 1100,$((330 * rows)) font ',9' noenhanced"
  echo "set output '$png'"
  echo "set multiplot layout $rows,$cols"
  echo "set logscale y; set format y '1e%T'; set grid"
  echo "set xlabel 'seconds (setup + iterations)'; set ylabel 'max(rel. gap, rel. residual)'"
  for inst in "${instances[@]}"; do
    plots=()
    for l in "${labels[@]}"; do
      if [ "$l" = "$inst" ]; then plots+=("'$work/$l.dat' using 1:2 with lines lw 2 title 'default'"); fi
      if [[ $l == tmp_*_"$inst" ]]; then
        tag=${l#tmp_}; tag=${tag%_"$inst"}
        plots+=("'$work/$l.dat' using 1:2 with lines lw 2 title '$tag'")
      fi
    done
    echo "set title '$inst'"
    (IFS=,; echo "plot ${plots[*]}")
  done
  echo "unset multiplot"
} > "$work/plot.gp"
gnuplot "$work/plot.gp"
echo "plot_convergence.sh: wrote $png"
