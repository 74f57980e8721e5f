#!/usr/bin/env bash
# The full ASN2k (asn2k.yaml here) through `dede solve`, one process per method, so that each
# method's peak RSS is its own: satisfied demand, whole-process wall time, the round's solve time
# and peak RSS, as a markdown table (asn2k.md) and the logs (asn2k-METHOD.log) in the current
# directory.
#   bash run.sh [--fraction F] [--set KEY=VALUE ...] METHOD [METHOD ...]
# METHOD: admm (DeDe) or a plugin method: exact (the compact path LP, Clp), pop-4, pop-16, pop-64,
# demand_pinning.
# Needs DEDE (the dede binary; default build/release/tools/dede/dede).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dede=${DEDE:-$here/../../../build/release/tools/dede/dede}
config=$here/asn2k.yaml
sets=()
methods=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fraction) sets+=(--set "plugin.settings.traffic.pair_fraction=$2"); shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) methods+=("$1"); shift ;;
  esac
done
[ ${#methods[@]} -gt 0 ] || { echo "usage: run.sh [--fraction F] [--set K=V] METHOD ..." >&2; exit 2; }
topology=$(sed -n 's/^ *topology: *//p' "$config")
[ -f "$here/$topology" ] || { echo "run.sh: missing $here/$topology (../shared/data)" >&2; exit 2; }
[ -x "$dede" ] || { echo "run.sh: no dede binary at $dede (set DEDE)" >&2; exit 2; }
echo "uptime: $(uptime)"
{
  echo "| method | satisfied demand | round: solve s (set-up s) | whole process s | peak RSS GiB | termination |"
  echo "|---|---:|---:|---:|---:|---|"
} > asn2k.md
for m in "${methods[@]}"; do
  case "$m" in
    admm) kind=(--set solver.kind=admm) ;;
    *) kind=(--set solver.kind=plugin --set "solver.method=$m") ;;
  esac
  log=asn2k-$m.log
  (cd "$here" && /usr/bin/time -v "$dede" solve "$config" "${sets[@]}" "${kind[@]}") > "$log" 2>&1 || true
  satisfied=$(sed -n 's/^ *satisfied_demand = //p' "$log")
  summary=$(grep -E '^(admm|clp|cbc|exact|pop|demand|plugin)[^ ]*: ' "$log" | head -1 || true)
  solve=$(sed -n 's/.*(setup \([0-9.]*\), solve \([0-9.]*\).*/\2 (\1)/p' <<<"$summary")
  [ -n "$solve" ] || solve=$(sed -n 's/.*time \([0-9.]*\) s.*/\1/p' <<<"$summary")
  term=$(sed -n 's/^[^:]*: \([a-z_]*\),.*/\1/p' <<<"$summary")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
         awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.0f", s }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log" | awk '{ printf "%.2f", $1 / 1048576 }')
  echo "| $m | ${satisfied:-?} | ${solve:-?} | ${wall:-?} | ${rss:-?} | ${term:-see $log} |" | tee -a asn2k.md
done
echo "uptime: $(uptime)"
# The satisfied demand per method as bars (asn2k.png), when gnuplot is there.
if command -v gnuplot > /dev/null; then
  awk -F'|' 'NR > 2 && $3 + 0 > 0 { gsub(/ /, "", $2); print $2, $3 + 0 }' asn2k.md > asn2k.dat
  gnuplot <<'GP'
set terminal pngcairo size 800,420 noenhanced
set output "asn2k.png"
set title "Full ASN2k, 4x demand: satisfied demand in a 60 s round (2 cores)"
set ylabel "satisfied demand"
set yrange [0:1]
set style fill solid 0.6
set boxwidth 0.6
set grid ytics
plot "asn2k.dat" using 0:2:xtic(1) with boxes notitle, \
     "" using 0:($2 + 0.03):(sprintf("%.3f", $2)) with labels notitle
GP
  rm -f asn2k.dat
else
  echo "run.sh: gnuplot is not installed: no asn2k.png (tools/setup.sh installs gnuplot-nox)"
fi
