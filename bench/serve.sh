#!/bin/sh
# bench/serve.sh - `sandeval serve` under load from loopback clients, next to `sandeval exec`'s cost per run
#
#   sh bench/serve.sh [SANDEVAL]
#
# SANDEVAL defaults to ./sandeval. Environment:
#   REQUESTS=2000 CLIENTS=64   the load: requests in all, from this many concurrent clients
#   WORKERS=2                  --max-concurrency of the server (the machine's CPUs here)
#   RUNS=100                   hyperfine runs of each `sandeval exec`
#
# What runs, all against one server on 127.0.0.1 (port chosen by the kernel):
#   1. hyperfine: `sandeval exec -- /bin/bash -c 'echo x'` and `... python3 -c 'print(1)'`,
#      back to back: the cost of one sandbox run from the command line;
#   2. one client, sequential: /run_code with bash, then python (200 requests each):
#      the latency the service adds to a sandbox when nothing waits;
#   3. CLIENTS clients, REQUESTS requests, a queue deep enough for all (--queue 256):
#      bash, then python; every request served: p50/p99 latency and throughput;
#   4. the same load against --queue 16: what backpressure answers (503 at once)
#      and the latency of what it serves.
# Each load prints tests/cli/serve-load.py's JSON line; docs/benchmarks.md has the figures.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
SANDEVAL=${1:-./sandeval}
REQUESTS=${REQUESTS:-2000}
CLIENTS=${CLIENTS:-64}
WORKERS=${WORKERS:-2}
RUNS=${RUNS:-100}
LOAD=$here/../tests/cli/serve-load.py
PY=/usr/bin/python3
tmp=$(mktemp -d /tmp/sandeval-bench-serve.XXXXXX)
pid=

cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

start() {
	"$SANDEVAL" serve --listen 127.0.0.1:0 --db "$tmp/bench.db" --max-concurrency "$WORKERS" "$@" \
		</dev/null >/dev/null 2>"$tmp/err" &
	pid=$!
	i=0
	while ! grep -q listening "$tmp/err" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 200 ] || { cat "$tmp/err" >&2; exit 1; }
		sleep 0.05
	done
	url=http://$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$tmp/err")
	i=0
	until [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" = 200 ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "bench: the server did not become ready: $(curl -s "$url/readyz")" >&2; cat "$tmp/err" >&2; exit 1; }
		sleep 0.1
	done
}

stop() {
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
}

peak_rss() { sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$pid/status"; }

echo "== machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
echo "== 1. sandeval exec, back to back ($RUNS runs each)"
hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$tmp/exec.json" \
	"$SANDEVAL exec -- /bin/bash -c 'echo x'" "$SANDEVAL exec -- /usr/bin/python3 -c 'print(1)'" >/dev/null 2>&1
"$PY" -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = sorted(r["times"])
    cmd, mean, med, p99 = r["command"], r["mean"] * 1000, r["median"] * 1000, t[min(len(t) - 1, int(0.99 * len(t)))] * 1000
    print(f"{cmd}: mean {mean:.1f} ms, median {med:.1f} ms, p99 {p99:.1f} ms")' "$tmp/exec.json"

start --queue 256
echo "== 2. one client, sequential (200 requests)"
for lang in bash python; do
	"$PY" "$LOAD" "$url" --requests 200 --clients 1 --language $lang
done
echo "== 3. $CLIENTS clients, $REQUESTS requests, queue 256 (all served)"
for lang in bash python; do
	"$PY" "$LOAD" "$url" --requests "$REQUESTS" --clients "$CLIENTS" --language $lang
done
echo "server peak RSS: $(peak_rss)"
stop

start --queue 16
echo "== 4. $CLIENTS clients, $REQUESTS requests, queue 16 (backpressure; a client turned away waits 50 ms)"
for lang in bash python; do
	"$PY" "$LOAD" "$url" --requests "$REQUESTS" --clients "$CLIENTS" --language $lang --backoff 0.05
done
echo "server peak RSS: $(peak_rss)"
stop
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
