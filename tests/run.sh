#!/bin/sh
# run.sh - the whole test suite: unit tests, CLI tests as root and as an ordinary
# user, the sanitizer build, fuzz smoke runs; ends with "N passed, N failed"
set -u
cd "$(dirname "$0")/.."

B=${B:-build}
log=$(mktemp -d /tmp/sandeval-check.XXXXXX)
chmod 755 "$log"
pass=0
fail=0

# Count TAP lines ("ok N", "not ok N") of a finished step.
tally() {
	p=$(grep -c '^ok ' "$1" || true)
	f=$(grep '^not ok ' "$1" | grep -vc '# SKIP' || true)
	pass=$((pass + p))
	fail=$((fail + f))
	printf '%-44s %4d passed, %d failed\n' "$2" "$p" "$f"
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
		tally "$log/unit.tap" "$label $(basename "$t")"
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

echo "== unit tests"
unit "$B" unit

echo "== CLI tests (root)"
bats --tap tests/cli >"$log/cli-root.tap" 2>&1
tally "$log/cli-root.tap" "cli as root"

echo "== CLI tests (unprivileged uid 65534, no delegated cgroup)"
if [ "$(id -u)" = 0 ]; then
	# A copy the unprivileged user can surely read, wherever the clone lives.
	mkdir -p "$log/tree/tests/probe"
	cp -r tests/cli "$log/tree/tests/"
	cp -r examples "$log/tree/"
	cp -r runners "$log/tree/"
	cp sandeval "$log/tree/"
	cp tests/probe/probe "$log/tree/tests/probe/"
	chmod -R a+rX "$log/tree"
	data=${SANDEVAL_DATA:-../shared/data}
	[ -d "$data" ] && data=$(cd "$data" && pwd)
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp TMPDIR=/tmp \
		SANDEVAL="$log/tree/sandeval" PROBE="$log/tree/tests/probe/probe" \
		SANDEVAL_RUNNERS="$log/tree/runners" SANDEVAL_DATA="$data" SANDEVAL_HEAVY=0 \
		bats --tap "$log/tree/tests/cli" >"$log/cli-user.tap" 2>&1
	tally "$log/cli-user.tap" "cli as uid 65534"
else
	echo "(already unprivileged: the run above covered it)"
fi

echo "== CLI tests (root, --backend gvisor)"
if [ "$(id -u)" = 0 ] && command -v runsc >/dev/null 2>&1; then
	SANDEVAL_BACKEND=gvisor bats --tap tests/cli >"$log/cli-gvisor.tap" 2>&1
	tally "$log/cli-gvisor.tap" "cli as root, gvisor"
else
	echo "(skipped: needs root and runsc)"
fi

echo "== fuzz smoke runs"
fuzz "$B"

echo "== sanitizer build (SANITIZE=address,undefined)"
if make -s B=build-asan SANITIZE=address,undefined build-asan/sandeval units >"$log/asan-build.out" 2>&1; then
	unit build-asan "asan unit"
	fuzz build-asan
	SANDEVAL=$PWD/build-asan/sandeval SANDEVAL_HEAVY=0 bats --tap tests/cli >"$log/cli-asan.tap" 2>&1
	tally "$log/cli-asan.tap" "asan cli as root"
else
	fail=$((fail + 1))
	echo "sanitizer build FAILED"
	tail -30 "$log/asan-build.out"
fi

rm -rf "$log"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
