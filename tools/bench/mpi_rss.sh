#!/usr/bin/env bash
# Every process's peak RSS and its engine's state at set-up (the heap the engine's build kept,
# as the engine reports it) under `mpirun -np N dede solve` (BENCHMARKS.md, "Engine: across
# processes"), N = 1, 2, 4, at a fixed 20 iterations, one thread per process.
#
#   tools/bench/mpi_rss.sh [OUT_FILE]     (build: DEDE_BUILD_DIR, default build/perf)
#
# BASELINE_BUILD_DIR=dir (a build of an earlier commit) measures it too, alternated launch by
# launch. Instances as in mpi_scaling.sh: transport 1M, Kdl TE (needs ../shared/data; skipped
# with a message when absent), the paper-scale cluster. Each process writes its own figure
# (/usr/bin/time -o, one file per rank), so a process that mpirun ends early is missing from
# its line rather than mistaken for another.
set -euo pipefail
R=$(cd "$(dirname "$0")/../.." && pwd)
B=${DEDE_BUILD_DIR:-$R/build/perf}
out=${1:-$R/docs/benchmarks/mpi/rss_per_process.txt}
command -v mpirun > /dev/null || { echo "mpi_rss: no mpirun (tools/setup.sh installs Open MPI)"; exit 1; }
[ -x /usr/bin/time ] || { echo "mpi_rss: no /usr/bin/time (tools/setup.sh installs it)"; exit 1; }
builds=("new|$B")
[ -n "${BASELINE_BUILD_DIR:-}" ] && builds+=("old|$BASELINE_BUILD_DIR")
for b in "${builds[@]}"; do
  [ -x "${b#*|}/tools/dede/dede" ] || { echo "mpi_rss: ${b#*|}/tools/dede/dede not built"; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
fixed=(--set solver.admm.max_iterations=20 --set solver.admm.eps_abs=1e-14
       --set solver.admm.eps_rel=1e-14 --set solver.admm.time_limit_seconds=100000
       --set solver.admm.num_threads=1)
instances=("transport-1M|$R/configs/dev.yaml|--set plugin.settings.resources=1000 --set plugin.settings.demands=10000 --set plugin.settings.entries_per_demand=100")
if [ -f "$R/../shared/data/dede-examples/traffic_engineering/topologies/Kdl.json" ]; then
  instances+=("te-kdl|$R/tools/bench/convergence/te_kdl_maxflow.yaml|")
else
  echo "mpi_rss: ../shared/data/dede-examples (Kdl topology) missing: te-kdl skipped"
fi
instances+=("cluster-paper|$R/configs/cluster_paper.yaml|")
# The largest that fits four processes here: ASN2k TE at 20% of its pairs (about 2 GB each).
if [ -f "$R/../shared/data/dede-examples/traffic_engineering/topologies/ASN2k.json" ]; then
  instances+=("te-asn2k-20%|$R/tools/bench/te_asn2k/asn2k.yaml|--set plugin.settings.traffic.pair_fraction=0.2")
else
  echo "mpi_rss: ../shared/data/dede-examples (ASN2k topology) missing: te-asn2k skipped"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each process ends 0 to mpirun whatever its own code (a fixed-iteration solve exits 3), or
# mpirun would end the others before their figure is written.
cat > "$tmp/wrap.sh" <<'W'
#!/usr/bin/env bash
/usr/bin/time -f "%M" -o "$RSS_DIR/rank$OMPI_COMM_WORLD_RANK" "$@" || true
W
chmod +x "$tmp/wrap.sh"
{
  echo "# peak RSS per process (MB, rank order), 20 iterations, $(date -u +%FT%TZ)," \
       "commit $(git -C "$R" rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
  for inst in "${instances[@]}"; do
    IFS='|' read -r name config extra <<< "$inst"
    for np in 1 2 4; do
      for b in "${builds[@]}"; do
        rm -f "$tmp"/rank*
        # shellcheck disable=SC2086
        RSS_DIR=$tmp mpirun -x RSS_DIR -np "$np" "$tmp/wrap.sh" "${b#*|}/tools/dede/dede" solve \
          "$config" "${fixed[@]}" --set solver.admm.verbose=true --log-level debug $extra > "$tmp/out" 2>&1 || true
        line="$name np$np ${b%%|*}:"
        for r in $(seq 0 $((np - 1))); do
          if [ -s "$tmp/rank$r" ]; then
            line+=" $(awk '/^[0-9]+$/ {printf "%.0f", $1 / 1000}' "$tmp/rank$r")"
          else
            line+=" -"
          fi
        done
        # The engine's state at set-up (heap) by process, as the engine reports it (builds
        # from the fourteenth session on; debug lines of the log, after its time and level,
        # from issue 51 on).
        engine=$(sed -nE -e 's/^([^ ]+ debug )?admm memory: engine state at set-up ([0-9.]+) MB.*/\2/p' \
                         -e 's/^([^ ]+ debug )?admm process .* engine state at set-up ([0-9.]+) MB$/\2/p' "$tmp/out" |
                 head -n "$np" | tr '\n' ' ')
        [ -n "$engine" ] && line+="  engine state at set-up (MB): ${engine% }"
        echo "$line"
      done
    done
  done
} | tee "$out"
