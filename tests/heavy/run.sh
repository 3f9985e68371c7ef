#!/bin/sh
# run.sh - `make check-heavy`: the full fidelity comparisons (tests/heavy/*.bats, about 20 minutes here);
# ends with "N passed, N failed, N skipped" and fails on any failure or skip
set -u
cd "$(dirname "$0")/../.." || exit 1

log=$(mktemp -d /tmp/sandeval-check-heavy.XXXXXX) || exit 1
trap 'rm -rf "$log"' EXIT
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
