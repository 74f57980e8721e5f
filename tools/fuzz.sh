#!/usr/bin/env bash
# Fuzzes every reader of user input with libFuzzer (clang, ASan + UBSan): the deployment
# loader, the MPS reader and each plugin's data readers (tests/fuzz/fuzz_*.cpp).
#
#   bash tools/fuzz.sh [SECONDS] [HARNESS...]
#
# SECONDS per harness (default 60; a long run is e.g. `bash tools/fuzz.sh 1800`), two harnesses
# at a time. FUZZ_SEED: libFuzzer's seed (0: random); FUZZ_RUNS: stop after that many inputs
# (CI: FUZZ_SEED=1 FUZZ_RUNS=100000, the same inputs on every machine, at most 30 s each).
# The seed corpus of each harness is generated from the shipped data
# (configs/, tests/data/) under build/fuzz/corpus/<harness>/ and grows there across runs. A
# crash stops that harness, leaves its input in build/fuzz/crashes/<harness>/ and fails the
# script; copy the input to tests/fuzz/regressions/<harness>/ once fixed: the test suite
# replays every file there (ctest -R FuzzReplay). Run after tools/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
all=(fuzz_csv fuzz_deployment fuzz_mps fuzz_te_topology fuzz_te_traffic fuzz_cluster_data
     fuzz_gpu_trace fuzz_lb_loads fuzz_events fuzz_convert)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")

# Ninja in a new build directory (one make call builds the harnesses one after another); an
# existing directory keeps the generator it was made with.
generator=()
[ -f build/fuzz/CMakeCache.txt ] || generator=(-G Ninja)
CC=clang CXX=clang++ cmake -S . -B build/fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDEDE_FUZZ=ON -DDEDE_BUILD_TESTS=OFF -DDEDE_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target "${harnesses[@]}"

out=build/fuzz
# seed HARNESS SELECTOR FILE...: each file becomes a corpus entry, prefixed by the selector
# byte (octal escape, or "" for harnesses without one).
seed() {
  local name=$1 selector=$2
  shift 2
  mkdir -p "$out/corpus/$name"
  local f i=0
  for f in "$@"; do
    [ -f "$f" ] || continue
    # At most 64 KB of each file: libFuzzer's default input limit is 4 KB past the seeds.
    { printf "$selector"; head -c 65536 "$f"; } >"$out/corpus/$name/seed-$(printf %02d "$i")-$(basename "$f")"
    i=$((i + 1))
  done
}
# fuzz_csv: byte 0 picks the options; '\014' is ',' with a header and trimming, '\163' blanks,
# ragged, with comments, from a file.
seed fuzz_csv '\014' tests/data/cluster/cluster_spec.csv tests/data/te/B4-paths.csv \
  tests/data/dally/jobs_online_comparison.csv
seed fuzz_csv '\163' tests/data/te/abilene-sndlib.txt
seed fuzz_deployment "" configs/*.yaml tests/fixtures/configs/*.yaml
seed fuzz_mps "" tests/data/netlib/afiro.mps tests/data/netlib/adlittle.mps tests/data/netlib/sc50a.mps
seed fuzz_te_topology '\000' tests/data/te/B4.json
seed fuzz_te_topology '\001' tests/data/te/Uninett2010-edges.csv tests/data/te/abilene-links.csv
seed fuzz_te_topology '\002' tests/data/te/Uninett2010.graphml
seed fuzz_te_topology '\003' tests/data/te/abilene-sndlib.txt
seed fuzz_te_traffic '\000' tests/data/te/matrices/*.csv
seed fuzz_te_traffic '\001' tests/data/te/abilene-sndlib.txt
seed fuzz_te_traffic '\002' tests/data/te/abilene-tm-3rows.csv
seed fuzz_te_traffic '\003' tests/data/te/B4-paths.csv
seed fuzz_cluster_data '\000' tests/data/cluster/throughputs_subset.csv
seed fuzz_cluster_data '\001' tests/data/cluster/cluster_spec.csv
seed fuzz_cluster_data '\002' tests/data/cluster/job_trace_seed0.csv
seed fuzz_cluster_data '\003' tests/data/cluster/philly_seed0_sample.csv
seed fuzz_gpu_trace '\000' tests/data/dally/jobs_online_comparison.csv
seed fuzz_gpu_trace '\001' tests/data/dally/tiresias_jobs_60.csv
# fuzz_convert: byte 0 the shape (0 philly, 1 gavel, 2 dally, 3 cluster-sim JSON, 4 tiresias,
# 5 helios, 6 alibaba; +8 also as the node list), byte 1 the record classes flipped.
seed fuzz_convert '\000\000' tests/data/convert/philly_jobs.csv
seed fuzz_convert '\001\000' tests/data/convert/gavel_jobs.trace
seed fuzz_convert '\002\000' tests/data/convert/dally_jobs.csv tests/data/convert/clustersim_jobs.csv
seed fuzz_convert '\003\000' tests/data/convert/clustersim_jobs.json
seed fuzz_convert '\004\000' tests/data/convert/tiresias_jobs.csv
seed fuzz_convert '\005\377' tests/data/convert/helios_jobs.csv
seed fuzz_convert '\006\000' tests/data/convert/alibaba_pods.csv
seed fuzz_convert '\016\377' tests/data/convert/nodes_alibaba.csv
seed fuzz_lb_loads '\000' tests/data/lb/shard_loads_256.csv
seed fuzz_lb_loads '\001' tests/data/lb/random_nums.csv
# Regression inputs are seeds too.
for h in "${harnesses[@]}"; do
  if [ -d "tests/fuzz/regressions/$h" ]; then
    mkdir -p "$out/corpus/$h"
    cp tests/fuzz/regressions/"$h"/* "$out/corpus/$h/" 2>/dev/null || true
  fi
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Leaks inside Debian's third-party libraries (CoinMpsIO on malformed MPS files) are not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tools/sanitizers/lsan.supp}
run() {
  local h=$1
  mkdir -p "$out/crashes/$h" "$out/corpus/$h"
  # FUZZ_RUNS (with FUZZ_SEED): a fixed number of inputs, the same ones on every machine (CI);
  # SECONDS still caps the run.
  local runs=()
  [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
  if "$out/fuzz/$h" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=8192 \
      -seed="${FUZZ_SEED:-0}" "${runs[@]}" \
      -print_final_stats=1 -artifact_prefix="$out/crashes/$h/" "$out/corpus/$h" \
      >"$out/$h.log" 2>&1; then
    echo "fuzz: $h: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$out/$h.log" |
      grep -o '[0-9]*$') runs, at most ${seconds} s)"
  else
    echo "fuzz: $h: FAILED, see $out/$h.log and $out/crashes/$h/"
    tail -40 "$out/$h.log"
    return 1
  fi
}
status=0
pids=()
names=()
for h in "${harnesses[@]}"; do
  run "$h" &
  pids+=($!)
  names+=("$h")
  if [ ${#pids[@]} -ge 2 ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
