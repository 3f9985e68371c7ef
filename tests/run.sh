#!/bin/sh
# run.sh - the whole test suite: unit tests, CLI tests as root, as an ordinary
# user and under gVisor, the sanitizer build, fuzz smoke runs; ends with
# "N passed, N failed, N skipped"
#
# What counts (tests/README.md, "What a green make check means"):
# - every TAP step must print its plan and as many results as it plans, and
#   exit 0 when none failed: a binary that crashes or leaks mid-way fails;
# - a skip is never a pass. Each skip names its category first ("data: no
#   HumanEval data at ..."); it counts as skipped only when the caller opted
#   out of that category in SANDEVAL_SKIP (comma-separated), else as a failure:
#     data         no benchmark data at $SANDEVAL_DATA (default ../shared/data)
#     gvisor       no runsc: the gVisor pass and gvisor.bats
#     debootstrap  the test image debootstrapped from a Debian mirror
#     root         make check run as an ordinary user: what needs root
#     postgres     no PostgreSQL server (Debian's postgresql): the PostgreSQL store's tests
# - tests that belong to one pass only are not run in the others (bats tags:
#   root, unprivileged, native, heavy, backend-specific, frontend), so they
#   are neither passes nor skips.
set -u
cd "$(dirname "$0")/.."

B=${B:-build}
SANDEVAL_SKIP=${SANDEVAL_SKIP-}
export SANDEVAL_SKIP
log=$(mktemp -d /tmp/sandeval-check.XXXXXX)
chmod 755 "$log"
: >"$log/failed"
: >"$log/skipped"
pass=0
fail=0
skipped=0

opted_out() {
	case ",$SANDEVAL_SKIP," in *",$1,"*) return 0 ;; esac
	return 1
}

# The whole run stops at once, with what to do, when something it needs
# is missing and the caller did not opt out of it.
stop() {
	echo "make check: $*" >&2
	rm -rf "$log"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

data=${SANDEVAL_DATA:-../shared/data}
if [ -d "$data/humaneval" ]; then
	SANDEVAL_DATA=$(cd "$data" && pwd)
	export SANDEVAL_DATA
elif ! opted_out data; then
	stop "no benchmark data at '$data' (HumanEval, MBPP, model samples and their labels):" \
		"put ../shared/data beside the clone or set SANDEVAL_DATA=DIR, or opt out with" \
		"'make check SANDEVAL_SKIP=data' (the real-data tests are then listed as skipped)"
fi
if [ "$(id -u)" != 0 ] && ! opted_out root; then
	stop "the sandbox tests need root for cgroups and the uid 65534 pass: run as root," \
		"or opt out with 'make check SANDEVAL_SKIP=root,gvisor'"
fi
if ! command -v runsc >/dev/null 2>&1 && ! opted_out gvisor; then
	stop "runsc is not installed (apt-get install runsc; scripts/deps.sh does it):" \
		"install it, or opt out with 'make check SANDEVAL_SKIP=gvisor'"
fi

# PostgreSQL: a throwaway cluster of Debian's postgresql package for the
# store's tests (tests/pg.sh: its data and unix socket in a temporary
# directory, 127.0.0.1 on a random port, run as the postgres user), stopped
# and removed when this script exits, however it exits.
pgdir=
user_pid=	# the uid 65534 pass, while it runs in the background
on_exit() {
	[ -z "$user_pid" ] || pkill -TERM -P "$user_pid" 2>/dev/null
	[ -z "$pgdir" ] || { sh tests/pg.sh stop "$pgdir" >/dev/null 2>&1; rm -rf "$pgdir"; }
}
trap on_exit EXIT
trap 'exit 130' INT TERM
if ! opted_out postgres; then
	if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
		stop "no PostgreSQL server (apt-get install postgresql; scripts/deps.sh does it):" \
			"install it, or opt out with 'make check SANDEVAL_SKIP=postgres'"
	fi
	pgdir=$(mktemp -d /tmp/sandeval-pg.XXXXXX)
	if ! pgenv=$(sh tests/pg.sh start "$pgdir" 2>"$log/pg.err"); then
		cat "$log/pg.err" >&2
		stop "cannot start a PostgreSQL cluster in '$pgdir' (tests/pg.sh; opt out with SANDEVAL_SKIP=postgres)"
	fi
	eval "$pgenv"
	echo "== PostgreSQL for the store's tests: $SANDEVAL_PG_URL"
fi

# tally TAP STATUS LABEL: count a finished TAP step. STATUS is its exit status.
tally() {
	awk -v label="$3" -v status="$2" -v optout=",$SANDEVAL_SKIP," \
		-v failed="$log/failed" -v skipped="$log/skipped" -v counts="$log/counts" -v times="$log/times" '
	function skip(name, why,   cat) {
		if (why == "") why = "(no reason given)"
		cat = why; sub(/:.*/, "", cat)
		if (why ~ /^[a-z0-9-]+: / && index(optout, "," cat ","))
			{ s++; print label ": " name " -- " why >>skipped }
		else
			{ f++; print label ": " name " -- skipped without an opt-out: " why >>failed }
	}
	/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; planned = 1; next }
	/^# skip: / { reason = substr($0, 9); next }
	# bats --timing: " in 12ms" after the name; kept apart, for the slowest list
	# (the last " in Nms" before the end or a directive: a name may hold one)
	/^(not )?ok [0-9]+/ && match($0, /^.* in [0-9]+ms/) &&
	    (substr($0, RLENGTH + 1) == "" || substr($0, RLENGTH + 1, 3) == " # ") {
		end = RLENGTH; match(substr($0, 1, end), / in [0-9]+ms$/)
		ms = substr($0, RSTART + 4, RLENGTH - 6)
		$0 = substr($0, 1, RSTART - 1) substr($0, end + 1)
		t = $0; sub(/^(not )?ok [0-9]+ (- )?/, "", t); sub(/ # .*/, "", t)
		print ms, t >>times
	}
	/^ok [0-9]+/ {
		n++
		if (match($0, / # [sS][kK][iI][pP]( |$)/)) {
			name = substr($0, 1, RSTART - 1); sub(/^ok [0-9]+ /, "", name)
			why = substr($0, RSTART + RLENGTH); skip(name, why)
		} else p++
		next
	}
	/^not ok [0-9]+/ {
		n++
		if (match($0, / # SKIP /)) {	# cmocka: the reason came on a "# skip: " line before
			skip(substr($0, RSTART + RLENGTH), reason != "" ? reason : "(no reason given)")
			reason = ""
		} else { f++; nf++; name = $0; sub(/^not ok [0-9]+ (- )?/, "", name); print label ": " name >>failed }
		next
	}
	END {
		if (!planned) { f++; print label ": no TAP plan (the step did not start, or crashed at once)" >>failed }
		else if (n != plan) { f++; print label ": planned " plan " tests, saw " n " (crashed mid-way?)" >>failed }
		if (status != 0 && nf == 0) { f++; print label ": exited with status " status " though no test failed" >>failed }
		printf "%-44s %4d passed, %d failed, %d skipped\n", label, p, f, s
		print p + 0, f + 0, s + 0 >counts
	}' "$1"
	read -r p f s <"$log/counts"
	pass=$((pass + p))
	fail=$((fail + f))
	skipped=$((skipped + s))
	[ "$f" = 0 ] || grep -B2 -A12 '^not ok ' "$1" | grep -v '# SKIP' | head -80
}

# A step that produces no TAP counts as one test of its own.
single() {
	name=$1
	shift
	if "$@" >"$log/single.out" 2>&1; then
		pass=$((pass + 1))
		printf '%-44s    ok\n' "$name"
	else
		fail=$((fail + 1))
		echo "$name" >>"$log/failed"
		printf '%-44s    FAILED\n' "$name"
		tail -30 "$log/single.out"
	fi
}

unit() {
	dir=$1
	label=$2
	for t in "$dir"/tests/unit/test-*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log/unit.tap" 2>&1
		tally "$log/unit.tap" $? "$label $(basename "$t")"
	done
}

fuzz() {
	dir=$1
	for f in "$dir"/tests/fuzz/fuzz-*; do
		[ -x "$f" ] || continue
		name=$(basename "$f")
		single "fuzz smoke $name" "$f" "tests/fuzz/corpus/${name#fuzz-}"
	done
}

# cli LABEL TAGS [ENV...]: the bats suite, without the tests tagged for other passes
cli() {
	label=$1
	tags=$2
	shift 2
	t0=$(date +%s)
	env "$@" bats --tap --timing ${tags:+--filter-tags "$tags"} tests/cli >"$log/cli.tap" 2>&1
	cli_done "$log/cli.tap" $? "$label" $(($(date +%s) - t0))
}

# cli_done TAP STATUS LABEL SECONDS: tally a finished CLI pass, then print
# its time and its five slowest tests (bats --timing), so that a log shows
# where make check's time goes
cli_done() {
	tally "$1" "$2" "$3"
	echo "  ($3: $4 s)"
	[ -s "$log/times" ] || return 0
	sort -rn "$log/times" | head -5 | awk '{ ms = $1; $1 = ""; printf "  %6.1f s %s\n", ms / 1000, substr($0, 2, 100) }'
	: >"$log/times"
}

echo "== layers of src/lib (docs/internals.md)"
single "layer check" sh scripts/check-layers.sh

echo "== unit tests"
t0=$(date +%s)
unit "$B" unit
echo "  (unit: $(($(date +%s) - t0)) s)"

if [ "$(id -u)" = 0 ]; then
	echo "== CLI tests (root)"
	cli "cli as root" '!unprivileged'
else
	echo "== CLI tests (uid $(id -u): the tests that need root skip, SANDEVAL_SKIP=root)"
	cli "cli as uid $(id -u)" ''
fi

# The uid 65534 pass runs beside the gVisor pass: the two share nothing
# (another user, its own state directory and copy of the tree, no cgroups;
# the tests expect other sandevals on the machine, tests/README.md) and each
# leaves a CPU idle much of its time. Its results come after the gVisor pass's.
if [ "$(id -u)" = 0 ]; then
	# A copy the unprivileged user can surely read, wherever the clone lives.
	mkdir -p "$log/tree/tests/probe"
	cp -r tests/cli "$log/tree/tests/"
	cp -r examples "$log/tree/"
	cp -r runners "$log/tree/"
	cp sandeval "$log/tree/"
	cp tests/probe/probe "$log/tree/tests/probe/"
	mkdir -p "$log/tree/build/tests/tools"
	cp "$B/tests/tools/store-copy" "$log/tree/build/tests/tools/"
	chmod -R a+rX "$log/tree"
	user_t0=$(date +%s)
	{
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp TMPDIR=/tmp \
			SANDEVAL="$log/tree/sandeval" PROBE="$log/tree/tests/probe/probe" \
			SANDEVAL_RUNNERS="$log/tree/runners" SANDEVAL_DATA="${SANDEVAL_DATA-}" SANDEVAL_SKIP="$SANDEVAL_SKIP" \
			SANDEVAL_PG_URL="${SANDEVAL_PG_URL-}" SANDEVAL_PG_TCP_URL="${SANDEVAL_PG_TCP_URL-}" \
			bats --tap --timing --filter-tags '!root,!heavy,!frontend' "$log/tree/tests/cli" >"$log/cli-user.tap" 2>&1
		echo $? >"$log/cli-user.rc"
		date +%s >"$log/cli-user.end"
	} &
	user_pid=$!
fi

echo "== CLI tests (root, --backend gvisor; the uid 65534 pass runs beside it)"
if opted_out gvisor; then
	echo "gvisor pass: all of it -- gvisor: opted out (SANDEVAL_SKIP)" >>"$log/skipped"
	skipped=$((skipped + 1))
	echo "(skipped: SANDEVAL_SKIP names gvisor)"
else
	# gvisor.bats ran in the root pass (it names its backend itself)
	cli "cli as root, gvisor" '!unprivileged,!native,!backend-specific,!frontend' SANDEVAL_BACKEND=gvisor
fi

echo "== CLI tests (unprivileged uid 65534, no delegated cgroup)"
if [ -n "$user_pid" ]; then
	wait "$user_pid"
	user_pid=
	cli_done "$log/cli-user.tap" "$(cat "$log/cli-user.rc" 2>/dev/null || echo 1)" "cli as uid 65534" \
		$(($(cat "$log/cli-user.end" 2>/dev/null || date +%s) - user_t0))
else
	echo "(already unprivileged: the run above covered it)"
fi

echo "== fuzz smoke runs"
fuzz "$B"

echo "== sanitizer build (SANITIZE=address,undefined)"
if make -s B=build-asan SANITIZE=address,undefined build-asan/sandeval units >"$log/asan-build.out" 2>&1; then
	unit build-asan "asan unit"
	fuzz build-asan
	cli "asan cli as root" '!unprivileged,!heavy' SANDEVAL="$PWD/build-asan/sandeval"
else
	fail=$((fail + 1))
	echo "sanitizer build" >>"$log/failed"
	echo "sanitizer build FAILED"
	tail -30 "$log/asan-build.out"
fi

if [ -s "$log/skipped" ]; then
	echo "== skipped (SANDEVAL_SKIP=$SANDEVAL_SKIP)"
	sed 's/^/  /' "$log/skipped"
fi
if [ -s "$log/failed" ]; then
	echo "== failed"
	sed 's/^/  /' "$log/failed"
fi
rm -rf "$log"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
