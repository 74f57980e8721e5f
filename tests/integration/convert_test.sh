#!/usr/bin/env bash
# `dede convert`: every shape on the small files of tests/data/convert (README.md there), the
# converted files checked line by line, every counted adjustment checked, the JSON report, one
# test per class of malformed input (exit 2, file:line:column and the value), and end to end:
# convert -> deployment YAML -> `dede run` for 2 rounds -> rows in SQLite, for both plugins.
# Usage: convert_test.sh <dede binary> <plugin dir> <source dir> [dally_bench binary]
set -euo pipefail
dede=$1
plugins=$2
src=$3
dally_bench=${4:-}
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
expect "$out" dropped_rows.missing_field 1
grep -q "8 rows read, 4 jobs written" <<< "$out" || fail "philly rows: $out"
grep -q "philly_jobs.csv:9: empty column 'num_gpus'" <<< "$out" || fail "philly missing field: $out"
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
# --drop fractional_gpu: the 0.5-GPU job is dropped, not rounded up.
out2=$("$dede" convert philly "$data/philly_jobs.csv" -o "$work/philly_frac" \
  --throughputs "$data/philly_throughputs.csv" --drop fractional_gpu) || fail "philly --drop: $out2"
expect "$out2" dropped_rows.fractional_gpu 1
grep -q "3 jobs written" <<< "$out2" || fail "philly --drop rows: $out2"
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
expect "$out" dropped_rows.missing_field 1
expect "$out" dropped_rows.no_gpu 1
expect "$out" rounded_gpus 1
expect "$out" defaulted.slowdowns 1
expect "$out" clipped.slowdown 1
expect "$out" reordered_rows 2
expect "$out" mapped_ids 0
grep -q "8 rows read, 4 jobs written" <<< "$out" || fail "dally rows: $out"
grep -q "dally_jobs.csv:8: empty column 'num_gpus'" <<< "$out" || fail "missing field example: $out"
same "$work/dally/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
4,5,1,100,0.02,,1,1,0.5
1,10,2,500,0.02,ResNet50,1,0.8,0.7
3,20,4,1000,0.02,,1,0.72,0.52
5,50,2,200,0.02,,1,0.72,0.52"
# --drop fractional_gpu: the 1.5-GPU job is dropped and counted instead of rounded.
out=$("$dede" convert dally "$data/dally_jobs.csv" -o "$work/dally_drop" --drop fractional_gpu) \
  || fail "dally --drop: $out"
expect "$out" dropped_rows.fractional_gpu 1
[ -z "$(count "$out" rounded_gpus)" ] || fail "rounded_gpus listed although dropped: $out"
grep -q "3 jobs written" <<< "$out" || fail "dally --drop rows: $out"

# ---- cluster-sim: its JSON job lists and its hyphenated CSV ---------------------------------
out=$("$dede" convert dally "$data/clustersim_jobs.json" -o "$work/csim") || fail "cluster-sim json: $out"
expect "$out" dropped_rows.no_gpu 1
expect "$out" dropped_rows.missing_field 1
expect "$out" rounded_gpus 1
expect "$out" reordered_rows 1
expect "$out" defaulted.slowdowns 1
# Examples name the line where the job's object starts in the JSON file.
grep -q "clustersim_jobs.json:31: empty column 'time_per_iteration'" <<< "$out" || fail "json line: $out"
same "$work/csim/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
1,0,4,2000,0.5,VGG,0.8,0.7,0.6
5,5,1,100,1.5,,1,0.8,0.7
2,10,3,400,0.25,,0.8,0.7,0.6"
grep -q '"version": "cluster-sim JSON job list"' "$work/csim/jobs.csv.meta.json" || fail "json version"
out=$("$dede" convert dally "$data/clustersim_jobs.csv" -o "$work/csim_csv") || fail "cluster-sim csv: $out"
expect "$out" rounded_gpus 1
same "$work/csim_csv/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
7,0,8,1000,0.1,,1,0.9,0.8
8,15,1,100,0.1,,1,0.9,0.8"

# ---- tiresias: run times written for the work model ----------------------------------------
out=$("$dede" convert tiresias "$data/tiresias_jobs.csv" -o "$work/tiresias" \
  --slowdowns 1,0.9,0.8) || fail "tiresias: $out"
expect "$out" dropped_rows.no_work 1
expect "$out" dropped_rows.missing_field 1
expect "$out" rounded_gpus 1
expect "$out" defaulted.slowdowns 4
same "$work/tiresias/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,1,606,0.2706270627062706,vgg19,1,0.9,0.8
1,30,8,133,8.842105263157896,vgg11,1,0.9,0.8
3,80,4,100,8,resnet50,1,0.9,0.8
4,90,1,10,2,alexnet,1,0.9,0.8"
out=$("$dede" convert tiresias "$data/tiresias_jobs.csv" -o "$work/tiresias_rt" \
  --work-model trace_runtime) || fail "tiresias trace_runtime: $out"
grep -q "^1,30,8,133,1.105263157894737,vgg11," "$work/tiresias_rt/jobs.csv" || fail "trace_runtime tpi"
grep -q '"work_model": "trace_runtime"' "$work/tiresias_rt/jobs.csv.meta.json" || fail "sidecar work model"

# ---- helios: date-times, string ids, CPU-only jobs, job states ------------------------------
out=$("$dede" convert helios "$data/helios_jobs.csv" -o "$work/helios") || fail "helios: $out"
expect "$out" dropped_rows.no_gpu 1
expect "$out" dropped_rows.no_work 1
expect "$out" dropped_rows.missing_field 1
expect "$out" dropped_rows.never_scheduled 1
expect "$out" kept.failed 1
expect "$out" kept.cancelled 1
expect "$out" mapped_ids 4
expect "$out" shifted_arrivals 4
expect "$out" defaulted.total_iterations 4
expect "$out" reordered_rows 0
grep -q "helios_jobs.csv:8: empty column 'start_time'" <<< "$out" || fail "never scheduled example: $out"
same "$work/helios/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,8,3600,8,,1,0.8,0.7
1,10,2,60,2,,1,0.8,0.7
2,110,4,600,4,,1,0.8,0.7
3,170,1,60,1,,1,0.8,0.7"
same "$work/helios/job_ids.csv" "job_id,source_job_id
0,9d2f1a
1,e0a4d7
2,f11111
3,c22222"
out=$("$dede" convert helios "$data/helios_jobs.csv" -o "$work/helios_drop" --drop failed \
  --drop cancelled) || fail "helios --drop: $out"
expect "$out" dropped_rows.failed 2
expect "$out" dropped_rows.cancelled 1
grep -q "2 jobs written" <<< "$out" || fail "helios --drop rows: $out"

# ---- alibaba: every class of pod, each counted, each a choice where it can be ----------------
out=$("$dede" convert alibaba "$data/alibaba_pods.csv" -o "$work/alibaba" --nodes "$data/nodes.csv") \
  || fail "alibaba: $out"
expect "$out" rounded_gpus 2
expect "$out" dropped_rows.no_gpu 1
expect "$out" dropped_rows.no_end_time 1
expect "$out" dropped_rows.never_scheduled 1
expect "$out" dropped_rows.missing_field 1
expect "$out" dropped_rows.duplicate_id 1
expect "$out" dropped_rows.no_work 1
expect "$out" kept.failed 1
expect "$out" kept.running_at_end 1
expect "$out" ignored.gpu_type_constraint 1
expect "$out" mapped_ids 5
expect "$out" shifted_arrivals 5
expect "$out" dropped_nodes.no_gpu 1
expect "$out" split_gpu_types 0
grep -q "11 rows read, 5 jobs written" <<< "$out" || fail "alibaba rows: $out"
grep -q "alibaba_pods.csv:2: 0.5 GPU -> 1" <<< "$out" || fail "rounded example: $out"
grep -q "alibaba_pods.csv:7: column 'pod_phase' Pending" <<< "$out" || fail "pending example: $out"
same "$work/alibaba/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,1,95,1,,1,0.8,0.7
1,10,1,990,1,,1,0.8,0.7
2,110,4,4000,4,,1,0.8,0.7
3,310,1,290,1,,1,0.8,0.7
4,910,2,3200,2,,1,0.8,0.7"
same "$work/alibaba/cluster.yaml" "# plugin.settings of gpu_placement, from $data/nodes.csv
gpu_types:
  - {name: V100, racks: 2, machines_per_rack: 2, gpus_per_machine: 8}
  - {name: T4, racks: 1, machines_per_rack: 1, gpus_per_machine: 4}"
# The sidecar: source, version, options, counts and the work model.
meta=$work/alibaba/jobs.csv.meta.json
grep -q '"version": "v2023 pod list"' "$meta" || fail "sidecar version: $(cat "$meta")"
grep -q '"work_model": "artist_linear"' "$meta" || fail "sidecar work model"
grep -q '"never_scheduled": "drop"' "$meta" || fail "sidecar record classes"
[ "$(sed -n 's/.*"jobs_written": \([0-9]*\).*/\1/p' "$meta")" = 5 ] || fail "sidecar jobs_written"
# The other choice for every class: kept pending pods run for their wait, a pod without an end
# runs until the latest time in the file (4200: 4200 - 160 = 4040 s on 2 GPUs), the rest
# (failed, fractional, cut by the trace's end) dropped.
out=$("$dede" convert alibaba "$data/alibaba_pods.csv" -o "$work/alibaba_other" \
  --keep never_scheduled --keep no_end_time --drop failed --drop fractional_gpu \
  --drop running_at_end) \
  || fail "alibaba other choices: $out"
expect "$out" kept.never_scheduled 1
expect "$out" kept.no_end_time 1
expect "$out" clipped.run_time_at_trace_end 1
expect "$out" dropped_rows.failed 1
expect "$out" dropped_rows.fractional_gpu 2
expect "$out" dropped_rows.running_at_end 1
expect "$out" dropped_rows.duplicate_id 0
same "$work/alibaba_other/jobs.csv" "job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,model,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown
0,0,2,4040,2,,1,0.8,0.7
1,50,4,4000,4,,1,0.8,0.7
2,150,1,60,1,,1,0.8,0.7
3,300,1,340,1,,1,0.8,0.7"
out=$("$dede" convert alibaba "$data/alibaba_pods.csv" -o "$work/alibaba_spec" \
  --drop gpu_type_constraint) || fail "alibaba --drop gpu_type_constraint: $out"
expect "$out" dropped_rows.gpu_type_constraint 1

# ---- node lists as published (Alibaba v2023: sn,...,gpu,model), machine sizes mixed ----------
out=$("$dede" convert alibaba "$data/alibaba_pods.csv" -o "$work/alibaba_nodes" \
  --nodes "$data/nodes_alibaba.csv") || fail "alibaba nodes: $out"
expect "$out" split_gpu_types 5
expect "$out" dropped_nodes.no_gpu 1
same "$work/alibaba_nodes/cluster.yaml" "# plugin.settings of gpu_placement, from $data/nodes_alibaba.csv
gpu_types:
  - {name: V100M16_8gpu, racks: 1, machines_per_rack: 2, gpus_per_machine: 8}
  - {name: V100M16_4gpu, racks: 1, machines_per_rack: 2, gpus_per_machine: 4}
  - {name: V100M16_1gpu, racks: 1, machines_per_rack: 1, gpus_per_machine: 1}
  - {name: T4, racks: 1, machines_per_rack: 2, gpus_per_machine: 2}"
# Racks of unequal size within a type: one pool per rack size.
printf 'node,rack,num_gpu,gpu_type\na,r1,8,A100\nb,r1,8,A100\nc,r2,8,A100\nd,r3,8,A100\ne,r3,8,A100\n' \
  > "$work/nodes_racks.csv"
out=$("$dede" convert dally "$data/dally_jobs.csv" -o "$work/racks" --nodes "$work/nodes_racks.csv") \
  || fail "unequal racks: $out"
expect "$out" split_gpu_types 5
same "$work/racks/cluster.yaml" "# plugin.settings of gpu_placement, from $work/nodes_racks.csv
gpu_types:
  - {name: A100_2per_rack, racks: 2, machines_per_rack: 2, gpus_per_machine: 8}
  - {name: A100_1per_rack, racks: 1, machines_per_rack: 1, gpus_per_machine: 8}"

# ---- gavel: Gavel's own .trace (tab-separated, no header) -> cluster_scheduling ---------------
out=$("$dede" convert gavel "$data/gavel_jobs.trace" -o "$work/gavel" \
  --throughputs "$data/philly_throughputs.csv" --gpus-per-type v100=16,p100=8,k80=8) \
  || fail "gavel: $out"
expect "$out" dropped_rows.missing_field 1
expect "$out" dropped_rows.no_throughput 1
expect "$out" ignored.slo 1
expect "$out" rounded_scale_factors 1
expect "$out" defaulted.job_id 4
expect "$out" reordered_rows 1
grep -q "6 rows read, 4 jobs written" <<< "$out" || fail "gavel rows: $out"
same "$work/gavel/trace.csv" "job_id,kind,arrival_time_s,job_type,scale_factor,duration_s,total_steps,priority_weight
0,arrival,0,0,1,100,1000,1
1,arrival,10,0,1,200,2000,2
2,arrival,30.5,1,8,125,5000,1
3,arrival,50,1,8,75,3000,1"
same "$work/gavel/job_types.csv" "job_type,name
0,ResNet-50 (batch size 64)
1,Transformer (batch size 128)"
out=$("$dede" convert gavel "$data/gavel_jobs.trace" -o "$work/gavel_slo" \
  --throughputs "$data/philly_throughputs.csv" --drop slo) || fail "gavel --drop slo: $out"
expect "$out" dropped_rows.slo 1
# The nine-field lines of Gavel's earlier traces (no working_directory).
printf 'ResNet-50 (batch size 64)\tpython3 main.py\t--num_steps\t1\t500\t1\t1\t-1\t5\n' > "$work/old.trace"
out=$("$dede" convert gavel "$work/old.trace" -o "$work/gavel_old" \
  --throughputs "$data/philly_throughputs.csv") || fail "gavel 9 fields: $out"
same "$work/gavel_old/trace.csv" "job_id,kind,arrival_time_s,job_type,scale_factor,duration_s,total_steps,priority_weight
0,arrival,5,0,1,50,500,1"

# ---- a converted trace records its work model: another one is refused ------------------------
cat > "$work/wm.yaml" <<EOF
deployment: {name: wm, seed: 1}
plugin:
  name: gpu_placement
  settings:
    cluster: {racks: 2, machines_per_rack: 2, gpus_per_machine: 8}
    workload: {source: dally_csv, trace: alibaba/jobs.csv, work_model: trace_runtime}
solver: {kind: plugin, method: dally}
storage: {database: $work/wm.db}
EOF
set +e
"$dede" validate "$work/wm.yaml" > "$work/wm.out" 2>&1
code=$?
set -e
[ $code -eq 2 ] || { cat "$work/wm.out"; fail "work model mismatch: exit $code"; }
grep -q "wm.yaml:6:.*workload.work_model is trace_runtime, but .*alibaba/jobs.csv was written for work model artist_linear" \
  "$work/wm.out" || { cat "$work/wm.out"; fail "work model mismatch message"; }
[ ! -e "$work/wm.db" ] || fail "a refused deployment wrote its database"
sed -i 's/, work_model: trace_runtime//' "$work/wm.yaml"
"$dede" validate "$work/wm.yaml" > "$work/wm.out" 2>&1 || { cat "$work/wm.out"; fail "work model from the trace"; }
if [ -n "$dally_bench" ]; then
  set +e
  "$dally_bench" --trace "$work/tiresias_rt/jobs.csv" --work-model artist_linear --racks 1 > "$work/db.out" 2>&1
  code=$?
  set -e
  [ $code -eq 2 ] && grep -q -- "--work-model is artist_linear, but .*tiresias_rt/jobs.csv was written for work model trace_runtime" \
    "$work/db.out" || { cat "$work/db.out"; fail "dally_bench work model mismatch: exit $code"; }
  "$dally_bench" --trace "$work/tiresias_rt/jobs.csv" --racks 1 > "$work/db.out" 2>&1 || fail "dally_bench trace model"
  grep -q "^work model trace_runtime," "$work/db.out" || { cat "$work/db.out"; fail "dally_bench took another model"; }
fi

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
bad missing_column "missing_column.csv:1: missing column 'num_gpus' \(or 'num_gpu', 'gpu_num', 'max_parallelism'\); the header is 'job_id,arrival_s'" \
  $'job_id,arrival_s\n1,0' dally
bad not_a_number "not_a_number.csv:3:5: column 'num_gpus': expected a number in .*, got 'four'" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s\n1,0,2,10,1\n2,0,four,10,1' dally
bad negative_gpus "negative_gpus.csv:2:4: column 'num_gpu': expected a number in .*, got '-1'" \
  $'name,num_gpu,creation_time,deletion_time\np1,-1,0,10' alibaba
bad bad_time "bad_time.csv:2:5: column 'submit_time': expected seconds or a date-time 'YYYY-MM-DD HH:MM:SS', got '2020-13-01 00:00:00'" \
  $'job_id,gpu_num,submit_time,duration\na,1,2020-13-01 00:00:00,10' helios
bad clustersim_number "clustersim_number.csv:2:.*column 'time-per-iteration': expected a number >= 0, got 'four'" \
  $'job-id,start-time,max-parallelism,total-iterations,time-per-iteration\n9,15,2,100,four' dally
bad gavel_fields "gavel_fields.csv:1: 3 tab-separated fields; a Gavel .trace line has 10" \
  $'A\tb\tc' gavel --throughputs "$data/philly_throughputs.csv"
bad gavel_throughputs "gavel_throughputs.csv: a Gavel .trace needs --throughputs" \
  $'A\tb\tc\td\t1\t10\t1\t1\t-1\t0' gavel
bad keep_no_gpu "--keep no_gpu: these records are always dropped" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s\n1,0,1,10,1' dally --keep no_gpu
bad keep_and_drop "--keep failed and --drop failed: choose one" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s\n1,0,1,10,1' dally --keep failed --drop failed
bad unknown_class "--drop pending: not a record class; the classes are: never_scheduled, failed" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s\n1,0,1,10,1' dally --drop pending
bad bad_slowdown "bad_slowdown.csv:2:.*column 'cross_rack_slowdown': expected a number >= 1e-09, got '0'" \
  $'job_id,arrival_s,num_gpus,total_iterations,time_per_iteration_s,cross_slot_slowdown,cross_machine_slowdown,cross_rack_slowdown\n1,0,1,10,1,1,1,0' dally
bad all_missing "all_missing.csv: no job left to write" \
  $'job_id,arrival_s,num_gpus,job_type,total_steps,v100_steps_per_s\n0,0,1,,10,1' philly
bad no_throughputs "no_throughputs.csv: no <gpu>_steps_per_s columns and no --throughputs table" \
  $'job_id,arrival_s,num_gpus,job_type,total_steps\n0,0,1,A,10' philly
bad unknown_gpu_type "--gpus-per-type: GPU type 'a100' is in neither the trace nor the throughput table \(they have: v100\)" \
  $'job_id,arrival_s,num_gpus,job_type,total_steps,v100_steps_per_s\n0,0,1,A,10,1' philly --gpus-per-type a100=8
bad nothing_left "nothing_left.csv: no job left to write" \
  $'job_id,gpu_num,submit_time,duration\na,0,0,10' helios

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
