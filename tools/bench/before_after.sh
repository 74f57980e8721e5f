#!/usr/bin/env bash
# An engine change measured against the build before it, alternated in one run so that the
# ratios hold on a noisy machine: Kdl TE (100 iterations) and the cluster at paper scale (300) on
# one thread at fixed iteration counts (the objectives should agree to the printed digits unless
# the change says why not), ASN2k at a few fractions of its pairs (20 iterations, 2 threads, peak
# RSS), and the 1M-entry transport benchmark (ns per entry, bandwidth, peak RSS).
#   OLD=build-dir NEW=build-dir bash tools/bench/before_after.sh [--rounds N] [--asn2k "0.05 0.2"]
# A build dir is a configured and built tree (tools/dede/dede, tools/bench/dede_bench in it).
# ASN2k needs ../shared/data next to the repository; without it that part says so and is skipped.
set -euo pipefail
R=$(cd "$(dirname "$0")/../.." && pwd)
rounds=2
fractions="0.05 0.2"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --asn2k) fractions=$2; shift 2 ;;
    *) echo "usage: OLD=dir NEW=dir before_after.sh [--rounds N] [--asn2k \"F ...\"]" >&2; exit 2 ;;
  esac
done
: "${OLD:?set OLD to the build directory before the change}"
: "${NEW:?set NEW to the build directory with the change}"
OLD=$(cd "$OLD" && pwd)
NEW=$(cd "$NEW" && pwd)
for b in "$OLD" "$NEW"; do
  for exe in tools/dede/dede tools/bench/dede_bench; do
    [ -x "$b/$exe" ] || { echo "before_after: no $b/$exe" >&2; exit 2; }
  done
done
build() { if [ "$1" = old ]; then echo "$OLD"; else echo "$NEW"; fi; }
# One round of a deployment at a fixed iteration count: the summary line, peak RSS (and wall),
# and anything else the pattern keeps.
solve() {  # BUILD CONFIG ITERATIONS THREADS PATTERN [--set KEY=VALUE ...]
  local b=$1 config=$2 iterations=$3 threads=$4 pattern=$5
  shift 5
  { /usr/bin/time -f "RSS %M wall %e" "$b/tools/dede/dede" solve "$config" "$@" \
      --set solver.admm.max_iterations="$iterations" --set solver.admm.num_threads="$threads" \
      --set solver.admm.time_limit_seconds=1000 \
      --set solver.admm.check_termination_every=1000 2>&1; } |
    grep -E "$pattern" | tr '\n' ' ' || true
}
echo "== OLD $OLD, NEW $NEW; uptime: $(uptime)"
cd "$R/tools/bench/convergence"
for i in $(seq "$rounds"); do
  for tag in old new; do
    B=$(build $tag)
    for cfg in "te_kdl_maxflow.yaml 100" "cluster_paper_maxmin.yaml 300"; do
      set -- $cfg
      echo "$tag $1 $(solve "$B" "$1" "$2" 1 "^admm:|^RSS")"
    done
  done
done
cd "$R/tools/bench/te_asn2k"
topology=$(sed -n 's/^ *topology: *//p' asn2k.yaml)
if [ ! -f "$topology" ]; then
  echo "== ASN2k skipped: no $(pwd)/$topology (../shared/data)"
else
  for f in $fractions; do
    for tag in old new; do
      B=$(build $tag)
      echo "$tag asn2k $f $(solve "$B" asn2k.yaml 20 2 "^admm:|^RSS|satisfied" \
        --set plugin.settings.traffic.pair_fraction="$f")"
    done
  done
fi
for i in $(seq "$rounds"); do
  for tag in old new; do
    B=$(build $tag)
    echo "== transport $tag run $i"
    "$B/tools/bench/dede_bench" admm --iterations 100 --threads 2 2>&1 |
      grep -E "^ +[12] |half step|peak RSS|model|engine state" || true
  done
done
echo "== uptime: $(uptime)"
