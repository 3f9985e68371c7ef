#!/bin/sh
# bench/limits.sh - how soon each limit stops a program and sandeval returns: the times the tests do not bound
#
#   sh bench/limits.sh [SANDEVAL]
#
# SANDEVAL defaults to ./sandeval. Environment:
#   PROBE=tests/probe/probe  the helper that misbehaves on purpose (make builds it); it runs
#                            only inside the sandbox, always under the limits of its case
#   BACKEND=native           or gvisor
#   RUNS=10                  runs per case
#   BENCH_OUT=bench/results  where each run's JSON (limits/) and the table (limits.md) go
#
# The cases are the runs of tests/cli/exec-limits.bats whose time the tests no
# longer bound (a loaded machine made those bounds fail):
#   cpu        --cpu-time 0.5 --wall-time 5 cpuloop            (cpu_limit)
#   wall       --wall-time 1 sleep 30                          (wall_limit)
#   wall-spin  --cpu-time 30 --wall-time 1 sigblock-spin       (wall_limit, every signal blocked)
#   flood      --output 64K --wall-time 5 flood 0              (output_limit)
#   forkbomb   --pids 16 --cpu-time 1 --wall-time 3 forkbomb   (a limit)
#   orphan     --wall-time 30 orphan 1000                      (ok: a child keeps stdout open)
#   sleep      sleep 0.5                                       (ok: the times measured)
# Per case, the median and the largest of RUNS runs: the host's wall time
# around sandeval exec, the result's wall_ms and cpu_ms, and the time from
# its "limit" event to its "destroy" event (the kill and the teardown). The
# statuses are counted. It reports; it asserts nothing.
set -eu

SANDEVAL=${1:-./sandeval}
PROBE=${PROBE:-tests/probe/probe}
BACKEND=${BACKEND:-native}
RUNS=${RUNS:-10}
OUT=${BENCH_OUT:-bench/results}

die() { echo "bench: $*" >&2; exit 1; }

command -v jq >/dev/null 2>&1 || die "missing: jq (Debian: apt-get install jq)"
[ -x "$SANDEVAL" ] || die "no sandeval binary at '$SANDEVAL' (make sandeval, or pass its path)"
[ -x "$PROBE" ] || die "no probe at '$PROBE' (make tests/probe/probe)"
PROBE=$(cd "$(dirname "$PROBE")" && pwd)/$(basename "$PROBE")
case "$SANDEVAL$PROBE" in
*[[:space:]\'\"\\]*) die "paths with blanks or quotes are not supported" ;;
esac
mkdir -p "$OUT/limits"

{
	echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "host:      $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
	echo "kernel:    $(uname -r)"
	echo "sandeval:  $("$SANDEVAL" --version 2>/dev/null | sed 's/^sandeval //' || echo '?'), --backend $BACKEND, uid $(id -u)"
	echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the runs"
	echo "runs:      $RUNS per case"
} | tee "$OUT/limits-machine.txt"
echo

# case NAME OPTIONS -- MODE ARG...: RUNS runs, one TSV line each in $OUT/limits/NAME.tsv:
# status, host ms, wall_ms, cpu_ms, limit-to-destroy ms (- without a limit event)
run_case() {
	name=$1
	shift
	: >"$OUT/limits/$name.tsv"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		json=$OUT/limits/$name.$i.json
		t0=$(date +%s%N)
		# shellcheck disable=SC2068 # the case's options and mode, word by word
		"$SANDEVAL" exec --backend "$BACKEND" --file "/work/probe=$PROBE" $@ >"$json" 2>/dev/null </dev/null || true
		t1=$(date +%s%N)
		jq -r --arg host "$(((t1 - t0) / 1000000))" '[.status, $host, .wall_ms, .cpu_ms,
			([.events[] | select(.phase == "limit") | .t_ms] | first) as $l
			| ([.events[] | select(.phase == "destroy") | .t_ms] | last) as $d
			| if $l != null and $d != null then $d - $l else "-" end] | @tsv' "$json" \
			>>"$OUT/limits/$name.tsv" 2>/dev/null || printf 'no-json\t%s\t-\t-\t-\n' "$(((t1 - t0) / 1000000))" \
			>>"$OUT/limits/$name.tsv"
	done
}

# summary NAME: one table row: statuses, then median / max of each figure
summary() {
	statuses=$(cut -f1 "$OUT/limits/$1.tsv" | sort | uniq -c | awk '{printf "%s%s %s", n++ ? ", " : "", $1, $2}')
	row="| $1 | $statuses |"
	for col in 2 3 4 5; do
		row="$row $(cut -f"$col" "$OUT/limits/$1.tsv" | grep -E '^[0-9]+$' | sort -n |
			awk '{v[NR] = $1} END { if (NR == 0) print "-"; else printf "%d / %d", v[int((NR + 1) / 2)], v[NR] }') |"
	done
	echo "$row"
}

cases="cpu wall wall-spin flood forkbomb orphan sleep"
for c in $cases; do
	echo "== $c" >&2
	case $c in
	cpu) run_case cpu --cpu-time 0.5 --wall-time 5 -- /work/probe cpuloop ;;
	wall) run_case wall --wall-time 1 -- /work/probe sleep 30 ;;
	wall-spin) run_case wall-spin --cpu-time 30 --wall-time 1 -- /work/probe sigblock-spin ;;
	flood) run_case flood --output 64K --wall-time 5 -- /work/probe flood 0 ;;
	forkbomb) run_case forkbomb --pids 16 --cpu-time 1 --wall-time 3 -- /work/probe forkbomb ;;
	orphan) run_case orphan --wall-time 30 -- /work/probe orphan 1000 ;;
	sleep) run_case sleep -- /work/probe sleep 0.5 ;;
	esac
done

{
	echo "| case | statuses | host [ms] | wall_ms | cpu_ms | limit to destroy [ms] |"
	echo "|:---|:---|---:|---:|---:|---:|"
	for c in $cases; do summary "$c"; done
	echo
	echo "median / largest of $RUNS runs; host = wall time around sandeval exec, as the tests' elapsed_ms."
	echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/limits.md"
echo
echo "results in $OUT/limits/ and $OUT/limits.md"
