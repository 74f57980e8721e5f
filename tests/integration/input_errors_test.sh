#!/usr/bin/env bash
# Issue 49: every bad input is refused when it is loaded (`dede validate`, or `dede run` before
# round 0), with a message naming the file, line or key, and the value; one ctest per CASE.
# Usage: input_errors_test.sh <dede binary> <plugin dir> <source dir> CASE
set -euo pipefail
dede=$1
export DEDE_PLUGIN_PATH=$2
src=$3
case_name=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "input_errors_test $case_name: $*"; exit 1; }

# Runs "$@" and checks its exit code; its output (both streams) is left in $out.
expect_exit() {
  local want=$1
  shift
  set +e
  out=$("$@" 2>&1)
  local code=$?
  set -e
  [ "$code" = "$want" ] || fail "exit $code, expected $want: $out"
}
# Each argument must occur in $out, literally.
expect_text() {
  for text in "$@"; do
    grep -qF -- "$text" <<< "$out" || fail "no '$text' in: $out"
  done
}

# A small traffic-engineering deployment (Abilene, names as node ids) over one matrix file.
te_deployment() {
  cp "$src/tests/data/te/abilene-links.csv" "$work/links.csv"
  cat > "$work/te.yaml" <<EOF
deployment: {name: input-errors}
plugin:
  name: traffic_engineering
  settings:
    topology: links.csv
    topology_directed: false
    traffic_matrices: [tm0.csv]
    scale: ${1:-1}
solver: {kind: admm, admm: {time_limit_seconds: 1}}
schedule: {interval_seconds: 1, simulated_time: true}
storage: {database: te.db}
EOF
}

# The transport deployment of configs/dev.yaml, its database in $work.
dev_deployment() {
  sed -e "s|database: .*|database: $work/dev.db|" "$src/configs/dev.yaml" > "$work/dev.yaml"
}

case "$case_name" in
  te_matrix_demand_above_bound)
    # 1e308 used to pass validate and fail every round ("singular equality system", no file).
    te_deployment
    printf 'src,dst,demand\nATLAng,CHINng,10\nCHINng,ATLAng,1e308\n' > "$work/tm0.csv"
    expect_exit 2 "$dede" validate "$work/te.yaml"
    expect_text "$work/tm0.csv:3:15: column 'demand': expected a number in [0, 1e+15], got '1e308'"
    # 1e16 too: the bound is the `demand` event's, 1e15; 1e15 itself is accepted.
    printf 'src,dst,demand\nATLAng,CHINng,1e16\n' > "$work/tm0.csv"
    expect_exit 2 "$dede" validate "$work/te.yaml"
    expect_text "$work/tm0.csv:2:15: column 'demand'" "got '1e16'"
    printf 'src,dst,demand\nATLAng,CHINng,1e15\n' > "$work/tm0.csv"
    expect_exit 0 "$dede" validate "$work/te.yaml"
    ;;
  te_series_demand_above_bound)
    te_deployment
    sed -i -e 's|traffic_matrices: \[tm0.csv\]|traffic_series: tm.csv|' "$work/te.yaml"
    printf 'timestamp,ATLAng>CHINng,CHINng>ATLAng\nt0,1,2\nt1,3,2e15\n' > "$work/tm.csv"
    expect_exit 2 "$dede" validate "$work/te.yaml"
    expect_text "$work/tm.csv:3:6: column 'CHINng>ATLAng': expected a number in [0, 1e+15], got '2e15'"
    ;;
  te_scaled_demand_above_bound)
    # Within the file's bound, beyond it once scaled: the absolute demand is what an event bounds.
    te_deployment 100
    printf 'src,dst,demand\nATLAng,CHINng,1e14\n' > "$work/tm0.csv"
    expect_exit 2 "$dede" validate "$work/te.yaml"
    expect_text "$work/tm0.csv: a demand of 1e+14 times plugin.settings.scale = 100 is 1e+16" \
      "above 1e15"
    ;;
  te_empty_topology)
    # Used to be blamed on the traffic matrix ("'ATLAng' is not a node id").
    te_deployment
    printf 'src,dst,demand\nATLAng,CHINng,1\n' > "$work/tm0.csv"
    head -1 "$src/tests/data/te/abilene-links.csv" > "$work/links.csv"
    expect_exit 2 "$dede" validate "$work/te.yaml"
    expect_text "$work/links.csv: the topology has no links (0 nodes)"
    grep -qF "tm0.csv" <<< "$out" && fail "the traffic matrix is blamed: $out"
    ;;
  lb_loads_fewer_shards)
    sed -e "s|\.\./tests/data/lb|$src/tests/data/lb|" -e "s|shards: 256|shards: 300|" \
      -e "s|database: .*|database: $work/lb.db|" "$src/configs/lb_small.yaml" > "$work/lb.yaml"
    expect_exit 2 "$dede" validate "$work/lb.yaml"
    expect_text "$src/tests/data/lb/shard_loads_256.csv: loads for 256 shards (0..255)" \
      "fewer than plugin.settings.shards = 300 in $work/lb.yaml"
    ;;
  http_address_not_ip)
    # validate and run agree: both refuse it at load time, naming the file, line, key and value.
    dev_deployment
    printf 'http: {enabled: true, address: localhost, port: 0}\n' >> "$work/dev.yaml"
    line=$(wc -l < "$work/dev.yaml")
    expect_exit 2 "$dede" validate "$work/dev.yaml"
    expect_text "$work/dev.yaml:$line:" "http.address = 'localhost': not an IP address"
    expect_exit 2 "$dede" run "$work/dev.yaml" --rounds 1
    expect_text "http.address = 'localhost': not an IP address"
    [ ! -e "$work/dev.db" ] || fail "run created the database before refusing the address"
    sed -i -e 's|address: localhost|address: "::1"|' "$work/dev.yaml"
    expect_exit 0 "$dede" validate "$work/dev.yaml"
    ;;
  rounds_zero)
    # CLI11's own check printed "Value 0 not in range 0.000000 to 1797..." (309 digits).
    dev_deployment
    expect_exit 1 "$dede" run "$work/dev.yaml" --rounds 0
    expect_text "--rounds: 0 is not > 0"
    grep -q "[0-9]\{20\}" <<< "$out" && fail "a 20-digit bound: $out"
    expect_exit 1 "$dede" solve "$work/dev.yaml" --round=-1
    expect_text "--round: -1 is not >= 0"
    ;;
  database_directory_missing)
    # The database as configured, not its internal .lock file, leads the message.
    dev_deployment
    sed -i -e "s|database: .*|database: $work/no-such-dir/dev.db|" "$work/dev.yaml"
    expect_exit 2 "$dede" run "$work/dev.yaml" --rounds 1
    expect_text "storage.database = '$work/no-such-dir/dev.db': cannot create the database: its directory $work/no-such-dir does not exist"
    grep -q "^[^ ]* error $work/no-such-dir/dev.db.lock" <<< "$out" && fail "the lock file leads: $out"
    ;;
  disk_full_during_setup)
    # A write that fails while the database is created (a full disk; here a file-size limit,
    # which SQLite meets alike) is a run-time failure: exit 3, as in a round, not 2 (bad input).
    dev_deployment
    set +e
    (ulimit -f 8; trap '' XFSZ; exec "$dede" run "$work/dev.yaml" --rounds 1 > "$work/full.log" 2>&1)
    code=$?
    set -e
    out=$(cat "$work/full.log")
    [ "$code" = 3 ] || fail "exit $code, expected 3: $out"
    expect_text "$work/dev.db" "the file-size limit (ulimit -f) is 8192 bytes"
    # Without the limit the same deployment starts from scratch.
    expect_exit 0 "$dede" run "$work/dev.yaml" --rounds 1
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "input_errors_test $case_name: ok"
