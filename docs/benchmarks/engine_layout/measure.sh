#!/bin/bash
# Engine before (the session's start: /work/wt-csv build = main 1fa5cce + plugin readers) and
# after (build/ci), alternated in one run.
OLD=/work/wt-csv/build/ci
NEW=/work/main/build/ci
echo "== uptime"; uptime
for i in 1 2 3; do
  for tag in old new; do
    B=$OLD; [ $tag = new ] && B=$NEW
    echo "== transport $tag run $i"
    $B/tools/bench/dede_bench admm --iterations 100 --threads 2 2>&1 | grep -E "^\s+[12] |half step|peak RSS|model|engine state"
  done
done
cd /work/main/tools/bench/convergence
for i in 1 2; do
  for tag in old new; do
    B=$OLD; [ $tag = new ] && B=$NEW
    for cfg in "te_kdl_maxflow.yaml 100" "cluster_paper_maxmin.yaml 300"; do
      set -- $cfg
      out=$( { /usr/bin/time -f "RSS %M" $B/tools/dede/dede solve $1 --set solver.admm.max_iterations=$2 --set solver.admm.num_threads=1 --set solver.admm.time_limit_seconds=1000 --set solver.admm.check_termination_every=1000 2>&1; } | grep -E "^admm:|^RSS" | tr '\n' ' ')
      echo "$tag $1 $out"
    done
  done
done
cd /work/main/tools/bench/te_zoo
for i in 1 2 3; do
  for tag in old new; do
    B=$OLD; [ $tag = new ] && B=$NEW
    out=$( { /usr/bin/time -f "RSS %M" $B/tools/dede/dede solve deltacom.yaml --set solver.admm.max_iterations=200 --set solver.admm.num_threads=1 --set solver.admm.time_limit_seconds=100 2>&1; } | grep -E "^admm:|^RSS" | tr '\n' ' ')
    echo "$tag deltacom $out"
  done
done
echo "== uptime"; uptime
