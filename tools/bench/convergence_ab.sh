#!/usr/bin/env bash
# A/B on the convergence suite: each instance with its own settings and with a variant that
# adds SETTINGS to its solver.admm map, alternated in one run of `dede_bench convergence`;
# then the table (OUT/convergence.md), every trace point (OUT/convergence_trace.csv) and the
# plot (OUT/convergence.png).
#
#   bash tools/bench/convergence_ab.sh BUILD_DIR OUT_DIR TAG 'SETTINGS' [INSTANCE ...]
#   e.g. ... build/release out aa 'anderson_memory: 5, anderson_type: type2, anderson_interval: 1'
#
# INSTANCE: names of tools/bench/convergence/*.yaml without .yaml (default: all of them).
# ADMM's budget is capped at $DEDE_CONVERGENCE_MAX_SECONDS (default 120) per instance.
set -euo pipefail
build=$(realpath "${1:?build dir}")
out=$(realpath -m "${2:?output dir}")
tag=${3:?variant tag}
settings=${4:?variant settings}
shift 4
suite=$(cd "$(dirname "$0")/convergence" && pwd)
mkdir -p "$out"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$suite"/*.yaml; do
    name=$(basename "$f" .yaml)
    case "$name" in tmp_*) continue ;; esac
    names+=("$name")
  done
fi
cleanup() { rm -f "$suite"/tmp_"$tag"_*.yaml; }
trap cleanup EXIT
# The variants sit beside the originals so their relative data paths resolve the same way.
files=()
for name in "${names[@]}"; do
  f="$suite/$name.yaml"
  [ -f "$f" ] || { echo "convergence_ab.sh: no instance $f" >&2; exit 2; }
  # The variant's keys replace the instance's own (a duplicate key is an error).
  drop=()
  IFS=',' read -ra pairs <<< "$settings"
  for kv in "${pairs[@]}"; do
    key=$(echo "${kv%%:*}" | tr -d ' ')
    drop+=(-e "/admm: {/ s/$key: [^,}]*//")
  done
  sed "${drop[@]}" -e '/admm: {/ { s/, *,/,/g; s/{ *, */{/; s/, *}/}/ }' \
      -e "s/admm: {/admm: {$settings, /" -e '/admm: {/ s/, }/}/' "$f" > "$suite/tmp_${tag}_$name.yaml"
  files+=("$f" "$suite/tmp_${tag}_$name.yaml")
done
status=0
"$build/tools/bench/dede_bench" convergence "${files[@]}" \
  --max-seconds "${DEDE_CONVERGENCE_MAX_SECONDS:-120}" \
  --trace-csv "$out/convergence_trace.csv" --markdown "$out/convergence.md" || status=$?
bash "$(dirname "$0")/plot_convergence.sh" "$out/convergence_trace.csv" "$out/convergence.png" || true
exit $status
