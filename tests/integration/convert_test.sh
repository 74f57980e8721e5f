#!/usr/bin/env bash
# `dede convert`: every shape on the small files of tests/data/convert (README.md there), the
# converted files checked line by line, every counted adjustment checked, the JSON report, one
# test per class of malformed input (exit 2, file:line:column and the value), and end to end:
# convert -> deployment YAML -> `dede run` for 2 rounds -> rows in SQLite, for both plugins.
# Usage: convert_test.sh <dede binary> <plugin dir> <source dir>
set -euo pipefail
dede=$1
plugins=$2
src=$3
data=$src/tests/data/convert
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export DEDE_PLUGIN_PATH=$plugins
fail() { echo "convert_test: $*"; exit 1; }
# count OUTPUT KIND: the count of an adjustment in a printed summary.
count() { awk -v k="$2" '$1 == k { print $2 }' <<< "$1"; }
expect() {  # expect OUTPUT KIND N
  [ "$(count "$1" "$2")" = "$3" ] || { echo "$1"; fail "$2: expected $3, got '$(count "$1" "$2")'"; }
}
same() {  # same FILE EXPECTED-TEXT
  diff <(cat "$1") <(printf '%s\n' "$2") || fail "$1 differs"
}

# ---- philly -> cluster_scheduling ---------------------------------------------------------
out=$("$dede" convert philly "$data/philly_jobs.csv" -o "$work/philly" \
  --throughputs "$data/philly_throughputs.csv" --gpus-per-type v100=16 --report "$work/philly.json") \
  || fail "philly: $out"
expect "$out" rounded_gpus 1
expect "$out" rounded_scale_factors 1
expect "$out" mapped_ids 4
expect "$out" dropped_rows.duplicate_id 1
expect "$out" dropped_rows.over_max_scale_factor 1
expect "$out" dropped_rows.no_throughput 1
expect "$out" reordered_rows 1
expect "$out" defaulted.priority_weight 4
expect "$out" defaulted.duration_s 4
expect "$out" defaulted.throughput_from_table 2
expect "$out" defaulted.cluster_gpus 2
expect "$out" clipped.arrival_s 0
grep -q "7 rows read, 4 jobs written" <<< "$out" || fail "philly rows: $out"
grep -q "philly_jobs.csv:3: num_gpus 7 -> scale factor 8" <<< "$out" || fail "philly example: $out"
# --max-jobs: the adjustments count the written jobs only (2 of the 4).
out2=$("$dede" convert philly "$data/philly_jobs.csv" -o "$work/philly2" \
  --throughputs "$data/philly_throughputs.csv" --gpus-per-type v100=16 --max-jobs 2) \
  || fail "philly --max-jobs: $out2"
expect "$out2" dropped_rows.over_max_jobs 2
expect "$out2" defaulted.priority_weight 2
expect "$out2" defaulted.duration_s 2
same "$work/philly/trace.csv" "job_id,kind,arrival_time_s,job_type,scale_factor,duration_s,total_steps,priority_weight
0,arrival,0,0,1,100,1000,1
1,arrival,10,0,2,111.11111111111111,2000,1
2,arrival,30,1,8,125,5000,1
3,arrival,60,0,1,10,100,1"
same "$work/philly/throughputs.csv" "worker_type,job_type,scale_factor,throughput
0,0,1,10
0,0,2,18
0,1,8,40
1,1,8,20
2,0,1,2
2,0,2,3
2,1,8,8"
same "$work/philly/cluster_spec.csv" "worker_type_index,worker_type,num_gpus
0,v100,16
1,p100,64
2,k80,64"
same "$work/philly/job_types.csv" "job_type,name
0,ResNet-50 (batch size 64)
1,Transformer (batch size 128)"
same "$work/philly/job_ids.csv" "job_id,source_job_id,vc
0,app_1,vcA
1,app_3,vcA
2,app_2,vcB
3,app_6,vcB"
grep -q '"rounded_gpus": {' "$work/philly.json" || fail "JSON report: $(cat "$work/philly.json")"
[ "$(sed -n 's/.*"jobs_written": \([0-9]*\).*/\1/p' "$work/philly.json")" = 4 ] || fail "JSON jobs_written"
# --vc keeps one virtual cluster, the others counted as dropped; --time-origin first shifts.
out=$("$dede" convert philly "$data/philly_jobs.csv" -o "$work/philly_vc" \
  --throughputs "$data/philly_throughputs.csv" --vc vcB --time-origin first) || fail "vc: $out"
expect "$out" dropped_rows.not_in_vc 4
expect "$out" shifted_arrivals 2
same "$work/philly_vc/job_ids.csv" "job_id,source_job_id,vc
0,app_2,vcB
1,app_6,vcB"

# ---- dally -> gpu_placement -----------------------------------------------------------------
out=$("$dede" convert dally "$data/dally_jobs.csv" -o "$work/dally") || fail "dally: $out"
expect "$out" dropped_rows.no_work 1
expect "$out" dropped_rows.duplicate_id 1
expect "$out" defaulted.slowdowns 1
expect "$out" clipped.slowdown 1
expect "$out" reordered_rows 2
expect "$out" mapped_ids 0
same "$work/dally/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
4,5,1,100,0.02,,1,1,0.5
1,10,2,500,0.02,ResNet50,1,0.8,0.7
3,20,4,1000,0.02,,1,0.72,0.52"

# ---- tiresias: run times written for the work model ----------------------------------------
out=$("$dede" convert tiresias "$data/tiresias_jobs.csv" -o "$work/tiresias" \
  --slowdowns 1,0.9,0.8) || fail "tiresias: $out"
expect "$out" dropped_rows.no_work 1
expect "$out" defaulted.slowdowns 3
same "$work/tiresias/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,1,606,0.2706270627062706,vgg19,1,0.9,0.8
1,30,8,133,8.842105263157896,vgg11,1,0.9,0.8
3,80,4,100,8,resnet50,1,0.9,0.8"
out=$("$dede" convert tiresias "$data/tiresias_jobs.csv" -o "$work/tiresias_rt" \
  --work-model trace_runtime) || fail "tiresias trace_runtime: $out"
grep -q "^1,30,8,133,1.105263157894737,vgg11," "$work/tiresias_rt/jobs.csv" || fail "trace_runtime tpi"

# ---- helios: date-times, string ids, CPU-only jobs ------------------------------------------
out=$("$dede" convert helios "$data/helios_jobs.csv" -o "$work/helios") || fail "helios: $out"
expect "$out" dropped_rows.no_gpu 1
expect "$out" dropped_rows.no_work 1
expect "$out" mapped_ids 2
expect "$out" shifted_arrivals 2
expect "$out" defaulted.total_iterations 2
expect "$out" reordered_rows 0
same "$work/helios/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,8,3600,8,,1,0.8,0.7
1,10,2,60,2,,1,0.8,0.7"
same "$work/helios/job_ids.csv" "job_id,source_job_id
0,9d2f1a
1,e0a4d7"

# ---- alibaba: fractional GPUs rounded up, pods without an end dropped -----------------------
out=$("$dede" convert alibaba "$data/alibaba_pods.csv" -o "$work/alibaba" --nodes "$data/nodes.csv") \
  || fail "alibaba: $out"
expect "$out" rounded_gpus 2
expect "$out" dropped_rows.no_gpu 1
expect "$out" dropped_rows.no_end_time 1
expect "$out" ignored.gpu_type_constraint 1
expect "$out" mapped_ids 3
expect "$out" shifted_arrivals 3
expect "$out" dropped_nodes.no_gpu 1
grep -q "alibaba_pods.csv:2: 0.5 GPU -> 1" <<< "$out" || fail "rounded example: $out"
same "$work/alibaba/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,1,95,1,,1,0.8,0.7
1,10,1,990,1,,1,0.8,0.7
2,110,4,4000,4,,1,0.8,0.7"
same "$work/alibaba/cluster.yaml" "# plugin.settings of gpu_placement, from $data/nodes.csv
gpu_types:
  - {name: V100, racks: 2, machines_per_rack: 2, gpus_per_machine: 8}
  - {name: T4, racks: 1, machines_per_rack: 1, gpus_per_machine: 4}"

# ---- malformed input: exit 2, the file, line, column and value ------------------------------
bad() {  # bad NAME EXPECTED-MESSAGE-PATTERN CONTENT [ARGS...]
  local name=$1 pattern=$2 content=$3
  shift 3
  printf '%s\n' "$content" > "$work/$name.csv"
  set +e
  "$dede" convert "$@" "$work/$name.csv" -o "$work/bad_$name" > "$work/bad.out" 2> "$work/bad.err"
  local code=$?
  set -e
  [ $code -eq 2 ] || { cat "$work/bad.err"; fail "$name: exit $code"; }
  grep -Eq -- "$pattern" "$work/bad.err" || { cat "$work/bad.err"; fail "$name: message"; }
}
bad missing_column "missing_column.csv:1: missing column 'num_gpus' \(or 'num_gpu', 'gpu_num'\); the header is 'job_id,arrival_s'" \
  $'job_id,arrival_s\n1,0' dally
bad not_a_number "not_a_number.csv:3:5: column 'num_gpus': expected a number in .*, got 'four'" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s\n1,0,2,10,1\n2,0,four,10,1' dally
bad negative_gpus "negative_gpus.csv:2:4: column 'num_gpu': expected a number in .*, got '-1'" \
  $'name,num_gpu,creation_time,deletion_time\np1,-1,0,10' alibaba
bad bad_time "bad_time.csv:2:5: column 'submit_time': expected seconds or a date-time 'YYYY-MM-DD HH:MM:SS', got '2020-13-01 00:00:00'" \
  $'job_id,gpu_num,submit_time,duration\na,1,2020-13-01 00:00:00,10' helios
bad empty_id "empty_id.csv:3:1: column 'job_id': expected a job id, got ''" \
  $'job_id,num_gpu,submit_time,iterations,duration\n1,1,0,10,10\n,1,0,10,10' tiresias
bad bad_slowdown "bad_slowdown.csv:2:.*column 'cross_rack_slowdown': expected a number >= 1e-09, got '0'" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown\n1,0,1,10,1,1,1,0' dally
bad empty_job_type "empty_job_type.csv:2:.*column 'job_type': expected a job type name, got ''" \
  $'job_id,arrival_s,num_gpus,job_type,total_steps,v100_steps_per_s\n0,0,1,,10,1' philly
bad no_throughputs "no_throughputs.csv: no <gpu>_steps_per_s columns and no --throughputs table" \
  $'job_id,arrival_s,num_gpus,job_type,total_steps\n0,0,1,A,10' philly
bad unknown_gpu_type "--gpus-per-type: GPU type 'a100' is in neither the trace nor the throughput table \(they have: v100\)" \
  $'job_id,arrival_s,num_gpus,job_type,total_steps,v100_steps_per_s\n0,0,1,A,10,1' philly --gpus-per-type a100=8
bad nothing_left "nothing_left.csv: no job left to write" \
  $'job_id,gpu_num,submit_time,duration\na,0,0,10' helios
bad mixed_nodes "nodes_mixed.csv:3:.*column 'num_gpu': node 'n2' has 4 GPUs of type 'V100', the node on line 2 has 8" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s\n1,0,1,10,1' dally --nodes "$data/nodes_mixed.csv"

# ---- end to end: converted files -> deployment -> 2 rounds -> SQLite ------------------------
cat > "$work/cluster.yaml" <<EOF
deployment: {name: converted-philly, seed: 1}
plugin:
  name: cluster_scheduling
  settings:
    fairness: max_min
    source: trace
    trace: philly/trace.csv
    throughputs: philly/throughputs.csv
    cluster_spec: philly/cluster_spec.csv
    round_seconds: 20
    rounds: 10
solver: {kind: admm}
schedule: {interval_seconds: 1, simulated_time: true}
storage: {database: $work/cluster.db}
EOF
"$dede" run "$work/cluster.yaml" --rounds 2 > "$work/cluster.log" 2>&1 || { cat "$work/cluster.log"; fail "cluster run"; }
[ "$(sqlite3 "$work/cluster.db" "SELECT count(*) FROM rounds")" = 2 ] || fail "cluster: 2 rounds expected"
[ "$(sqlite3 "$work/cluster.db" "SELECT count(*) FROM metrics")" -gt 0 ] || fail "cluster: no metrics"
cat > "$work/gpu.yaml" <<EOF
deployment: {name: converted-alibaba, seed: 1}
plugin:
  name: gpu_placement
  settings:
    tick_s: 60
    cluster: {racks: 2, machines_per_rack: 2, gpus_per_machine: 8}
    workload: {source: dally_csv, trace: alibaba/jobs.csv, arrivals: trace}
solver: {kind: plugin, method: dally}
schedule: {interval_seconds: 1, simulated_time: true}
storage: {database: $work/gpu.db}
EOF
"$dede" run "$work/gpu.yaml" --rounds 2 > "$work/gpu.log" 2>&1 || { cat "$work/gpu.log"; fail "gpu run"; }
[ "$(sqlite3 "$work/gpu.db" "SELECT count(*) FROM rounds")" = 2 ] || fail "gpu: 2 rounds expected"
[ "$(sqlite3 "$work/gpu.db" "SELECT count(*) FROM metrics")" -gt 0 ] || fail "gpu: no metrics"
echo "convert_test: ok"
