#!/bin/sh
# bench/warm.sh - a warm (zygote) sandbox's start against plain fork+exec of the same python3
#
#   sh bench/warm.sh [ROUNDS]        (make bench-warm; ROUNDS defaults to 200)
#
# Runs build/bench/warm (bench/warm.c: what is timed, exactly) from the
# checkout's top, as root for the cgroup limits as `sandeval exec` has them,
# and summarizes its rounds: per command the median and 10th percentile of
# start (t0 -> the program's first Python statement) and total (t0 -> the
# result), and warm's per-round differences to plain and plain-IS, median
# with a bootstrap 95% interval (bench/ab.py's method). Issue 15's target P1:
# warm start <= 1 ms above plain fork+exec of the same interpreter.
# Environment: PYTHON=/usr/bin/python3, B=build, BENCH_OUT=bench/results.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
B=${B:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${BENCH_OUT:-$here/results}
rounds=${1:-200}

cd "$top"
[ -x "$B/bench/warm" ] || { echo "bench: no $B/bench/warm (make $B/bench/warm)" >&2; exit 1; }
[ -f runners/sandeval-zygote.so ] || { echo "bench: no runners/sandeval-zygote.so (make)" >&2; exit 1; }
mkdir -p "$OUT"
echo "date:   $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "commit: $(git describe --always --dirty 2>/dev/null || echo '?')"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) before"
echo "memory cgroups: $(awk '$1 == "memory" { print $3 }' /proc/cgroups) (live and dying) before"
"$B/bench/warm" "$rounds" "$PYTHON" >"$OUT/warm.tsv"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "memory cgroups: $(awk '$1 == "memory" { print $3 }' /proc/cgroups) after"
"$PYTHON" - "$OUT/warm.tsv" <<'EOF'
import random, statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
names = ["plain", "plain-IS", "warm", "cold"]
by = {n: {} for n in names}
for r, name, start, total in rows:
    by[name][int(r)] = (float(start) / 1000, float(total) / 1000)
rounds = sorted(set(by["plain"]) & set(by["warm"]) & set(by["plain-IS"]))
def q(v, f):
    v = sorted(v)
    return v[int(len(v) * f)]
def ci(d, rng):
    m = sorted(statistics.median(rng.choices(d, k=len(d))) for _ in range(2000))
    return m[50], m[1950]
print(f"{len(rounds)} rounds")
print("| command | start median ms | start p10 ms | total median ms | total p10 ms |")
print("|---|---:|---:|---:|---:|")
for n in names:
    s = [v[0] for v in by[n].values()]
    t = [v[1] for v in by[n].values()]
    print(f"| {n} | {statistics.median(s):.2f} | {q(s, .1):.2f} | {statistics.median(t):.2f} | {q(t, .1):.2f} |")
rng = random.Random(1)
print()
print("| warm minus | start: median (95% CI) ms | total: median (95% CI) ms |")
print("|---|---:|---:|")
for base in ("plain", "plain-IS"):
    cells = []
    for k in (0, 1):
        d = [by["warm"][r][k] - by[base][r][k] for r in rounds]
        lo, hi = ci(d, rng)
        cells.append(f"{statistics.median(d):+.2f} ({lo:+.2f} .. {hi:+.2f})")
    print(f"| {base} | {cells[0]} | {cells[1]} |")
EOF
