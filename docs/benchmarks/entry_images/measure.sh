#!/bin/bash
# Entry images and the pair-block memory cuts (issue 18, eighth session): the build of the
# session's start (OLD: main 3841334) against this one (NEW), alternated in one run. Kdl and the
# cluster at fixed iteration counts on one thread (the objective must not change), ASN2k at 5% and
# 20% of the pairs (peak RSS, the slope per pair), the 1M-entry transport benchmark.
OLD=${OLD:-/tmp/ci-clone/build/ci}
NEW=${NEW:-/work/main/build/ci}
R=$(cd "$(dirname "$0")/../../.." && pwd)
echo "== uptime"; uptime
cd "$R/tools/bench/convergence"
for i in 1 2 3; do
  for tag in old new; do
    B=$OLD; [ $tag = new ] && B=$NEW
    for cfg in "te_kdl_maxflow.yaml 100" "cluster_paper_maxmin.yaml 300"; do
      set -- $cfg
      out=$( { /usr/bin/time -f "RSS %M" $B/tools/dede/dede solve $1 --set solver.admm.max_iterations=$2 --set solver.admm.num_threads=1 --set solver.admm.time_limit_seconds=1000 --set solver.admm.check_termination_every=1000 2>&1; } | grep -E "^admm:|^RSS" | tr '\n' ' ')
      echo "$tag $1 $out"
    done
  done
done
cd "$R/tools/bench/te_asn2k"
for f in 0.05 0.2; do
  for tag in old new; do
    B=$OLD; [ $tag = new ] && B=$NEW
    out=$( { /usr/bin/time -f "RSS %M wall %e" $B/tools/dede/dede solve asn2k.yaml --set plugin.settings.traffic.pair_fraction=$f --set solver.admm.max_iterations=20 --set solver.admm.num_threads=2 --set solver.admm.time_limit_seconds=1000 --set solver.admm.check_termination_every=1000 2>&1; } | grep -E "^admm:|^RSS|satisfied" | tr '\n' ' ')
    echo "$tag asn2k $f $out"
  done
done
for i in 1 2; do
  for tag in old new; do
    B=$OLD; [ $tag = new ] && B=$NEW
    echo "== transport $tag run $i"
    $B/tools/bench/dede_bench admm --iterations 100 --threads 2 2>&1 | grep -E "^\s+[12] |peak RSS|model|engine state"
  done
done
echo "== uptime"; uptime
