#!/bin/sh
# run.sh - `make check-heavy`: the full fidelity comparisons and the 4-shard PostgreSQL run (tests/heavy/*.bats,
# about 40 minutes here); ends with "N passed, N failed, N skipped" and fails on any failure or skip
set -u
cd "$(dirname "$0")/../.." || exit 1

log=$(mktemp -d /tmp/sandeval-check-heavy.XXXXXX) || exit 1
pgdir=$(mktemp -d /tmp/sandeval-pg.XXXXXX) || exit 1
trap 'sh tests/pg.sh stop "$pgdir" >/dev/null 2>&1; rm -rf "$log" "$pgdir"' EXIT
trap 'exit 130' INT TERM
# scale.bats's store: a throwaway PostgreSQL cluster (tests/pg.sh); no opt-out here
if ! pgenv=$(sh tests/pg.sh start "$pgdir"); then
	echo "check-heavy: cannot start a PostgreSQL cluster (tests/pg.sh; apt-get install postgresql)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
eval "$pgenv"
# TAP as it comes (the figures are "# " lines), with each test's time
{
	bats --tap --timing tests/heavy
	echo $? >"$log/status"
} | tee "$log/tap"
status=$(cat "$log/status")

pass=$(grep '^ok ' "$log/tap" | grep -vc '# skip' || true)
skip=$(grep -c '^ok .*# skip' "$log/tap" || true)
fail=$(grep -c '^not ok ' "$log/tap" || true)
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log/tap" | head -n 1)
echo "$pass passed, $fail failed, $skip skipped"
if [ "$skip" != 0 ]; then
	echo "check-heavy: a skipped test is a failure here (the data must be present: SANDEVAL_DATA)"
	exit 1
fi
if [ -z "$plan" ] || [ $((pass + fail)) != "$plan" ]; then
	echo "check-heavy: $((pass + fail)) results for a plan of '${plan:-none}' tests"
	exit 1
fi
[ "$status" = 0 ] && [ "$fail" = 0 ]
