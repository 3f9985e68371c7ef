#!/bin/sh
# gvisor-pool.sh - sandeval run --backend gvisor with pre-started sandboxes (--gvisor-pool 1) against without
# (--gvisor-pool 0), alternating in one session; per-sample latency and CPU read from each run's --log events.
#
# usage: sh bench/gvisor-pool.sh [SANDEVAL]
#   SANDEVAL   the binary to measure (default ./sandeval)
# Environment: SANDEVAL_DATA (default ../shared/data), N (samples: HumanEval's first N canonical solutions,
# default 20), ROUNDS (runs of each, alternating, default 3), JOBS (default 1), POOL (the pool's size when on,
# default 1). As root (gVisor needs cgroups).
#
# Per sample (every sandbox that ran a program: the samples and the run's canaries):
#   latency   the run's wait for the sample: from its assignment (sandbox_run) to its result (the t_ms
#             of its destroy event: events count from the assignment); with the pool, a used sandbox's
#             destruction is deferred to the next sample's run ("deferred" event): the result is then
#             that event's time, and the destruction's own is reported apart (destroyed after)
#   overhead  latency less the program's own wall time (exec to exit, the "ok: ... ms wall" event): what
#             the sandbox adds around the program
#   pre-started  the overhead of the sandboxes that were started before their sample came (the pool's; a
#             process's first sandbox and every sandbox with the pool off were started for their sample)
#   cpu       host CPU of the sandbox's cgroup, its start included (runsc, gofer, Sentry, the program) and
#             its teardown where the destroy reports it ("in all"), and prestart: the part spent before
#             the sample was assigned
# Pre-started sandboxes never used (the last of each worker) are counted apart: their CPU is spent too.
set -eu

sandeval=$(cd "$(dirname "${1:-./sandeval}")" && pwd)/$(basename "${1:-./sandeval}")
data=${SANDEVAL_DATA:-../shared/data}
n=${N:-20}
rounds=${ROUNDS:-3}
jobs=${JOBS:-1}
pool=${POOL:-1}
problems=$(cd "$data/humaneval" && pwd)/HumanEval.jsonl.gz

work=$(mktemp -d /tmp/sandeval-bench-gvpool.XXXXXX)
trap 'rm -rf "$work"' EXIT
zcat "$problems" | jq -c '{task_id, completion: .canonical_solution}' | head -n "$n" >"$work/samples.jsonl"

echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "host:    $(nproc) CPUs; runsc $(runsc --version 2>/dev/null | head -n 1)"
echo "command: $sandeval run --backend gvisor --gvisor-pool P --jobs $jobs --no-lint --log EV (P = $pool, 0)"
echo "samples: HumanEval's first $n canonical solutions; $rounds rounds, pool on and off alternating"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the runs"
r=1
while [ "$r" -le "$rounds" ]; do
	for p in "$pool" 0; do
		[ $((r % 2)) = 0 ] && p=$((pool - p))	# every other round, off first
		t0=$(date +%s%N)
		"$sandeval" run --backend gvisor --gvisor-pool "$p" --jobs "$jobs" --no-lint --quiet --partial \
			--tasks "$problems" --samples "$work/samples.jsonl" --db "$work/r$r-p$p.db" \
			--log "$work/r$r-p$p.log" >/dev/null 2>"$work/r$r-p$p.err" || {
			[ $? = 1 ] || { echo "gvisor-pool.sh: run failed: $(cat "$work/r$r-p$p.err")" >&2; exit 1; }
		}
		echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$work/r$r-p$p.wall"
	done
	r=$((r + 1))
done
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) after the runs"

python3 - "$work" "$pool" <<'EOF'
import glob, json, os, re, statistics, sys

work, pool = sys.argv[1], sys.argv[2]
rows = {}
for log in sorted(glob.glob(os.path.join(work, "*.log"))):
    p = re.search(r"-p(\d+)\.log$", log).group(1)
    ev = {}
    for line in open(log):
        e = json.loads(line)
        ev.setdefault(e["sandbox_id"], []).append(e)
    r = rows.setdefault(p, {"lat": [], "over": [], "cpu": [], "pre": [], "unused": 0, "wall": [], "n": 0,
                            "pooled": [], "later": []})
    r["wall"].append(int(open(log[:-4] + ".wall").read()))
    for sid, es in ev.items():
        cpu = [e for e in es if e["phase"] == "execute" and e["detail"].startswith("sandbox host CPU")]
        if not cpu:
            r["unused"] += 1
            continue
        m = re.match(r"sandbox host CPU (-?\d+) ms, (-?\d+) ms", cpu[0]["detail"])
        wall = [int(re.search(r"(\d+) ms wall", e["detail"]).group(1)) for e in es
                if e["phase"] == "execute" and " ms wall" in e["detail"]]
        end = [e["t_ms"] for e in es if e["phase"] == "destroy"]
        deferred = [e["t_ms"] for e in es if e["phase"] == "destroy" and e["detail"].startswith("deferred")]
        if not wall or not end:
            continue
        stop = deferred[0] if deferred else end[-1]
        if deferred:
            r["later"].append(end[-1] - stop)
        r["n"] += 1
        r["lat"].append(stop)
        r["over"].append(stop - wall[0])
        if "(pre-started," in cpu[0]["detail"]:
            r["pooled"].append(stop - wall[0])
        # the sandbox's CPU in all, runsc's teardown after the result included, where the destroy said it
        total = [int(re.match(r"sandbox host CPU (\d+) ms in all", e["detail"]).group(1)) for e in es
                 if e["phase"] == "destroy" and re.match(r"sandbox host CPU \d+ ms in all", e["detail"])]
        r["cpu"].append(total[-1] if total else int(m.group(1)))
        r["pre"].append(int(m.group(2)))

def med(x):
    return statistics.median(x) if x else float("nan")

def mean(x):
    return statistics.fmean(x) if x else float("nan")

print()
print("| --gvisor-pool | sandboxes | run wall [ms] (median) | latency [ms] median / p90 | overhead [ms] median / p90 | of them pre-started: n, overhead median / p90 | CPU per sample [ms] mean (of it pre-start) | pre-started, unused | destroyed after the result [ms] median (deferred) |")
print("|---|---|---|---|---|---|---|---|---|")
for p in (pool, "0"):
    r = rows.get(p)
    if not r:
        continue
    q = lambda x: sorted(x)[int(0.9 * (len(x) - 1))] if x else float("nan")
    print(f"| {p} | {r['n']} | {med(r['wall']):.0f} | {med(r['lat']):.0f} / {q(r['lat']):.0f} | "
          f"{med(r['over']):.0f} / {q(r['over']):.0f} | {len(r['pooled'])}, {med(r['pooled']):.0f} / {q(r['pooled']):.0f} | "
          f"{mean(r['cpu']):.0f} ({mean(r['pre']):.0f}) | {r['unused']} | "
          f"{med(r['later']):.0f} ({len(r['later'])}) |")
on, off = rows.get(pool), rows.get("0")
if on and off:
    print()
    print(f"off/on: run wall {med(off['wall']) / med(on['wall']):.2f}, latency {med(off['lat']) / med(on['lat']):.2f}, "
          f"overhead {med(off['over']) / max(med(on['over']), 1):.2f}, CPU per sample {mean(off['cpu']) / mean(on['cpu']):.2f}")
EOF
