#!/bin/sh
# bench/exec.sh - per-run wall time of `sandeval exec` (native and gVisor) next to plain exec and bubblewrap
#
#   sh bench/exec.sh [SANDEVAL]          (make bench)
#
# SANDEVAL defaults to ./sandeval. Environment:
#   BWRAP=/usr/bin/bwrap    the peer; BWRAP=none leaves it out
#   GVISOR=auto             also time `sandeval exec --backend gvisor` when runsc is
#                           installed; GVISOR=none leaves it out
#   PYTHON=/usr/bin/python3 the interpreter of the second program
#   RUNS_TRUE=100 RUNS_PYTHON=50 RUNS_IDLE=30 WARMUP=5
#                           timed runs per command; RUNS_IDLE=0 skips the third group
#   IDLE_SLEEP=0.3          seconds of idle time before each run of the third group
#   BENCH_OUT=bench/results where hyperfine's JSON and markdown go
#
# Three hyperfine runs, each timing plain exec, bwrap, sandeval and sandeval --backend gvisor side by side:
#   true    /bin/true, back to back
#   python  $PYTHON -c pass, back to back
#   idle    /bin/true with IDLE_SLEEP of idle time before every run (untimed,
#           hyperfine --prepare): how a lone run costs, when kernel state that
#           back-to-back runs keep warm (RCU sync of cgroup migration) has gone idle
# Reported: hyperfine's tables, and per group the overhead of each sandbox over
# plain exec (mean difference in ms, with its standard error) and the ratio
# sandeval overhead / bwrap overhead. Ratios on one machine, not absolute claims;
# docs/benchmarks.md has the method and the figures measured so far.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
SANDEVAL=${1:-./sandeval}
BWRAP=${BWRAP:-/usr/bin/bwrap}
GVISOR=${GVISOR:-auto}
PYTHON=${PYTHON:-/usr/bin/python3}
RUNS_TRUE=${RUNS_TRUE:-100}
RUNS_PYTHON=${RUNS_PYTHON:-50}
RUNS_IDLE=${RUNS_IDLE:-30}
IDLE_SLEEP=${IDLE_SLEEP:-0.3}
WARMUP=${WARMUP:-5}
OUT=${BENCH_OUT:-$here/results}

die() { echo "bench: $*" >&2; exit 1; }

# --- tools: install what is missing when we can, else say what to install ---
need=""
command -v hyperfine >/dev/null 2>&1 || need="$need hyperfine"
command -v jq >/dev/null 2>&1 || need="$need jq"
if [ "$BWRAP" != none ] && ! [ -x "$BWRAP" ]; then
	if [ "$BWRAP" = /usr/bin/bwrap ]; then
		need="$need bubblewrap"
	else
		die "BWRAP=$BWRAP is not an executable (BWRAP=none leaves the peer out)"
	fi
fi
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "bench: installing$need" >&2
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null; } ||
			die "could not install:$need"
	else
		die "missing:$need (Debian: apt-get install$need)"
	fi
fi
[ -x "$SANDEVAL" ] || die "no sandeval binary at '$SANDEVAL' (make sandeval, or pass its path)"
[ -x "$PYTHON" ] || die "no python at '$PYTHON' (set PYTHON=...)"
case "$SANDEVAL$BWRAP$PYTHON" in
*[[:space:]\'\"\\]*) die "paths with blanks or quotes are not supported" ;;
esac

# --- the bwrap invocation: the same view sandeval gives a program ---
# --unshare-all: user, pid, net, ipc, uts, cgroup namespaces (as sandeval);
# /usr and the top-level library and binary directories read-only (symlinks on
# merged-/usr hosts, as sandeval mirrors them); /etc read-only; fresh /proc and
# /dev; tmpfs /tmp and /work, started in /work; empty environment but for the
# four variables sandeval sets; no capabilities (as root bwrap keeps them
# unless told); killed with its parent, own session.
bwrap_cmd() {
	printf '%s --unshare-all --die-with-parent --new-session --cap-drop ALL' "$BWRAP"
	for d in usr bin sbin lib lib32 lib64 libx32; do
		if [ -L "/$d" ]; then
			printf ' --symlink %s /%s' "$(readlink "/$d")" "$d"
		elif [ -d "/$d" ]; then
			printf ' --ro-bind /%s /%s' "$d" "$d"
		fi
	done
	printf ' --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp --tmpfs /work --chdir /work'
	printf ' --clearenv --setenv PATH /usr/local/bin:/usr/bin:/bin --setenv HOME /work'
	printf ' --setenv LANG C.UTF-8 --setenv TMPDIR /tmp --'
}

BW=""
[ "$BWRAP" = none ] || BW=$(bwrap_cmd)
GV=""
if [ "$GVISOR" != none ] && command -v runsc >/dev/null 2>&1; then
	GV="$SANDEVAL exec --backend gvisor --"
fi

# --- smoke runs: a failure here is clearer than hyperfine's ---
if ! out=$("$SANDEVAL" exec -- /bin/true 2>&1) || ! printf '%s' "$out" | jq -e '.status == "ok"' >/dev/null 2>&1; then
	printf '%s\n' "$out" >&2
	die "'$SANDEVAL exec -- /bin/true' did not run cleanly"
fi
if [ -n "$BW" ]; then
	# shellcheck disable=SC2086
	$BW /bin/true || die "bwrap cannot run here: $BW /bin/true"
fi
if [ -n "$GV" ] && ! out=$($GV /bin/true 2>&1); then
	printf '%s\n' "$out" >&2
	die "'$GV /bin/true' did not run cleanly (GVISOR=none leaves gVisor out)"
fi

mkdir -p "$OUT"
{
	echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "host:      $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
	echo "kernel:    $(uname -r)"
	echo "debian:    $(cat /etc/debian_version 2>/dev/null || echo '?')"
	echo "sandeval:  $("$SANDEVAL" --version 2>/dev/null | sed 's/^sandeval //' || echo '?')"
	echo "hyperfine: $(hyperfine --version)"
	[ -z "$BW" ] || echo "bwrap:     $("$BWRAP" --version)"
	[ -z "$GV" ] || echo "runsc:     $(runsc --version | head -1), platform $($GV /bin/true | jq -r .isolation.platform)"
	echo "python:    $("$PYTHON" --version 2>&1)"
	echo "load:      $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the runs"
} | tee "$OUT/machine.txt"
echo

# group NAME RUNS PREPARE PROGRAM...: one hyperfine run, plain / bwrap / sandeval
group() {
	name=$1 runs=$2 prep=$3
	shift 3
	prog="$*"
	note=""
	[ -z "$prep" ] || note=", untimed '$prep' before each"
	echo "== $name: $prog ($runs runs$note)"
	echo "   plain:    $prog"
	[ -z "$BW" ] || echo "   bwrap:    $BW $prog"
	echo "   sandeval: $SANDEVAL exec -- $prog"
	[ -z "$GV" ] || echo "   gvisor:   $GV $prog"
	set -- -N --warmup "$WARMUP" --runs "$runs" --style basic \
		--export-json "$OUT/$name.json" --export-markdown "$OUT/$name.md"
	[ -z "$prep" ] || set -- "$@" --prepare "$prep"
	set -- "$@" -n plain "$prog"
	[ -z "$BW" ] || set -- "$@" -n bwrap "$BW $prog"
	set -- "$@" -n sandeval "$SANDEVAL exec -- $prog"
	[ -z "$GV" ] || set -- "$@" -n gvisor "$GV $prog"
	hyperfine "$@" >"$OUT/$name.log" 2>&1 || { cat "$OUT/$name.log" >&2; die "hyperfine failed ($name)"; }
	echo
	cat "$OUT/$name.md"
	echo
}

group true "$RUNS_TRUE" "" /bin/true
group python "$RUNS_PYTHON" "" "$PYTHON" -c pass
[ "$RUNS_IDLE" -eq 0 ] || group idle "$RUNS_IDLE" "sleep $IDLE_SLEEP" /bin/true

# --- overhead over plain exec, and sandeval's overhead relative to bwrap's ---
# overhead = mean(x) - mean(plain); ± its standard error, sqrt(sd_x^2/n_x + sd_p^2/n_p)
summary() {
	jq -r --arg group "$1" '
		def ms: . * 1000 * 100 | round / 100;
		def r(name): .results[] | select(.command == name);
		def ovh(name): (r(name)) as $x | r("plain") as $p
			| { d: ($x.mean - $p.mean), se: ((($x.stddev // 0) | . * .) / ($x.times | length)
				+ (($p.stddev // 0) | . * .) / ($p.times | length) | sqrt),
			    md: ($x.median - $p.median) };
		(r("plain").mean | ms) as $plain
		| ovh("sandeval") as $s
		| ([.results[] | select(.command == "bwrap")] | length > 0) as $hasb
		| (if $hasb then ovh("bwrap") else null end) as $b
		| ([.results[] | select(.command == "gvisor")] | length > 0) as $hasg
		| (if $hasg then ovh("gvisor") else null end) as $g
		| "| \($group) | \($plain) | "
		  + (if $hasb then "\($b.d | ms) ± \($b.se | ms) | " else "- | " end)
		  + "\($s.d | ms) ± \($s.se | ms) | "
		  + (if $hasg then "\($g.d | ms) ± \($g.se | ms) | " else "- | " end)
		  + (if $hasb then "\($s.d / $b.d * 100 | round / 100) | \($s.md / $b.md * 100 | round / 100) |" else "- | - |" end)
		  + (if $hasg then " \($g.d / $s.d * 10 | round / 10) |" else " - |" end)
	' "$OUT/$1.json"
}
{
	echo "| group | plain mean [ms] | bwrap overhead [ms] | sandeval overhead [ms] | gvisor overhead [ms] | sandeval/bwrap (means) | sandeval/bwrap (medians) | gvisor/sandeval (means) |"
	echo "|:---|---:|---:|---:|---:|---:|---:|---:|"
	summary true
	summary python
	[ "$RUNS_IDLE" -eq 0 ] || summary idle
	echo
	echo "overhead = mean(x) - mean(plain), ± standard error; ratio < 1: sandeval adds less than bwrap."
	echo "gvisor = sandeval exec --backend gvisor (runsc: a user-space kernel; its start dominates)."
	echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/summary.md"
echo
echo "results in $OUT/"
