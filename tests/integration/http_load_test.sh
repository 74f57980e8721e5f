#!/usr/bin/env bash
# Issue 49: the HTTP endpoint stays off the rounds' path. A running deployment (0.2 s rounds)
# takes eight bursts of 2,000 requests each (/, /metrics, /rounds, /healthz; one sequential
# client on a socket, the real network), alternating with quiet periods of the same run. The
# rounds that overlap a burst must not be slower (median) than the quiet ones by more than
# $DEDE_HTTP_LOAD_MAX_SLOWDOWN (default 0.5: generous, because 2 shared cores are noisy; ten
# runs measured -2% to +28%, median +16%; the same client against a trivial Python server
# instead, -2% to +11%; before issue 49, +29% with bursts 10x longer, +105% with four clients),
# nor skip more ticks, and the serving thread must spend under 300 us of CPU a request (before:
# 2-4 ms, on the rounds' event loop; now about 50 us).
# Usage: http_load_test.sh <dede binary> <plugin dir> [build kind]
# The timings are judged in a Release build only; under the sanitizers (build kind other than
# "Release") they are printed and every request must still be answered.
set -euo pipefail
dede=$1
plugins=$2
build=${3:-Release}
max_slowdown=${DEDE_HTTP_LOAD_MAX_SLOWDOWN:-0.5}
max_cpu_us=300
burst=2000
if [ "$build" != Release ]; then
  # Under the sanitizers a request costs ~10x: smaller bursts keep the test within the
  # deployment's 45 s (2,000 a burst took 4-5 s, and the eighth outlived the deployment).
  max_slowdown=1000
  max_cpu_us=1000000
  burst=250
  echo "build '$build': bursts of $burst, timings printed, not judged"
fi
work=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# Every request of the burst is served (a rate limit far above the burst): the worst case
# for the rounds; the default limit would answer most of them 429 (cheaper still).
cat > "$work/deploy.yaml" <<YAML
deployment: {name: http-load, seed: 5}
plugin:
  name: transport
  paths: [$plugins]
  settings: {resources: 40, demands: 400, entries_per_demand: 8}
solver:
  kind: admm
  admm: {num_threads: 2, eps_abs: 1.0e-5, eps_rel: 1.0e-4}
schedule: {interval_seconds: 0.2, overrun: skip}
storage: {database: state.db}
stop: {max_wall_seconds: 45}
http: {enabled: true, port: 0, rate_limit_per_second: 100000, rate_limit_burst: 100000}
YAML

"$dede" run "$work/deploy.yaml" > "$work/run.log" 2>&1 &
pid=$!
port=
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*http: serving deployment .* on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/run.log")
  [ -n "$port" ] && break
  kill -0 $pid 2>/dev/null || { cat "$work/run.log"; echo "dede exited early"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/run.log"; echo "no http port in the log"; exit 1; }

# Eight times: 1.5 s quiet, then a burst of 2,000 requests from one sequential client (as fast
# as it goes: about a quarter of a second); then 1.5 s quiet. Alternating spreads the noise of
# a shared machine over both kinds of rounds, and repeating gives enough rounds to compare. The client runs at nice 19: on 2 shared cores a Python client at full speed
# takes a core the rounds would want, which a remote client would not; what is measured is
# the server's cost.
nice -n 19 python3 - "$port" "$work/windows" "$pid" "$max_cpu_us" "$burst" <<'PY'
import glob, os, socket, sys, time
port, out, pid, max_cpu_us = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
def server_cpu():  # seconds of CPU of the serving thread(s), "dede-http"
    ticks = 0
    for task in glob.glob(f"/proc/{pid}/task/*"):
        if open(f"{task}/comm").read().strip() == "dede-http":
            ticks += sum(int(x) for x in open(f"{task}/stat").read().rsplit(")", 1)[1].split()[11:13])
    return ticks / os.sysconf("SC_CLK_TCK")
targets = ["/", "/metrics", "/rounds?last=10", "/healthz", "/rounds?last=100"]
# Plain HTTP/1.1 on a socket: the cheapest real client Python has (http.client costs the
# machine several times the server's work per request).
requests = [f"GET {t} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
            for t in targets]
total = int(sys.argv[5])
windows = []
time.sleep(1)
cpu = 0.0
for cycle in range(8):
    quiet = time.time()
    time.sleep(1.5)
    burst = time.time()
    cpu -= server_cpu()
    statuses = {}
    for i in range(total):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(requests[i % len(requests)])
            answer = b""
            while chunk := conn.recv(1 << 16):
                answer += chunk
        status = int(answer[9:12])
        statuses[status] = statuses.get(status, 0) + 1
    end = time.time()
    cpu += server_cpu()
    windows += [("quiet", quiet, burst), ("burst", burst, end)]
    print(f"burst {cycle + 1}: {total} requests in {end - burst:.2f} s, statuses {statuses}")
    if statuses.get(200, 0) != total:
        sys.exit(f"expected {total} answers 200, got {statuses}")
quiet = time.time()
time.sleep(1.5)
windows.append(("quiet", quiet, time.time()))
per_request = cpu / (8 * total)
print(f"serving thread: {cpu:.2f} s of CPU for {8 * total} requests, "
      f"{per_request * 1e6:.0f} us a request (the limit is {max_cpu_us:.0f})")
if per_request > max_cpu_us * 1e-6:  # before issue 49: 2-4 ms, and on the rounds' loop
    sys.exit("requests cost too much CPU")
with open(out, "w") as f:
    for kind, a, b in windows:
        f.write(f"{kind} {a} {b}\n")
PY
kill -TERM $pid
wait $pid || { cat "$work/run.log"; echo "dede failed"; exit 1; }

python3 - "$work/state.db" "$work/run.log" "$work/windows" "$max_slowdown" <<'PY'
import re, sqlite3, statistics, sys
db, log, windows, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
windows = [(kind, float(a), float(b)) for kind, a, b in (l.split() for l in open(windows))]
skipped = {int(r): int(k) for r, k in re.findall(r"round (\d+) took .* skipping (\d+) tick", open(log).read())}
rounds = {"quiet": [], "burst": []}
ticks = {"quiet": 0, "burst": 0}
for r, t, s in sqlite3.connect(db).execute("SELECT round, started_at, round_seconds FROM rounds"):
    for kind, a, b in windows:
        # A round inside a quiet window is quiet; one that overlaps a burst at all is a burst's.
        if (kind == "quiet" and a <= t and t + s <= b) or (kind == "burst" and t < b and t + s > a):
            rounds[kind].append(s)
            ticks[kind] += skipped.get(r, 0)
            break
def p95(xs): return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)]
for kind in ("quiet", "burst"):
    xs = rounds[kind]
    if len(xs) < 8:
        sys.exit(f"too few {kind} rounds to compare: {len(xs)}")
    print(f"{kind}: {len(xs)} rounds, median {statistics.median(xs) * 1e3:.1f} ms, "
          f"p95 {p95(xs) * 1e3:.1f} ms, ticks skipped {ticks[kind]}")
slowdown = statistics.median(rounds["burst"]) / statistics.median(rounds["quiet"]) - 1
print(f"slow-down of the median round under the bursts: {slowdown * 100:+.1f}% "
      f"(limit {limit * 100:.0f}%)")
if slowdown > limit:
    sys.exit("rounds under the bursts are too slow")
if limit < 1000 and ticks["burst"] > ticks["quiet"] + 2:  # judged in Release only
    sys.exit("the bursts made rounds skip ticks")
PY
echo "http load test passed"
