#!/bin/sh
# demo.sh - the main job on the bundled example suite: score two sample sets, then show the sandbox alone
set -eu
cd "$(dirname "$0")/.."
S=${SANDEVAL:-./sandeval}
db=$(mktemp -d /tmp/sandeval-demo.XXXXXX)
trap 'rm -rf "$db"' EXIT
fails=0

expect() {	# expect FILE SAMPLE_ID true|false: the whole-problem verdict must be as stated
	got=$(jq -r --arg id "$2" 'select(.sample_id == $id) | .passed' "$1")
	if [ "$got" = "$3" ]; then
		printf '  ok   %-24s passed=%s\n' "$2" "$got"
	else
		printf '  FAIL %-24s passed=%s, expected %s\n' "$2" "$got" "$3"
		fails=$((fails + 1))
	fi
}

for set in good buggy; do
	echo "== sandeval run --tasks examples/tasks --samples examples/samples/$set.jsonl"
	"$S" run --tasks examples/tasks --samples "examples/samples/$set.jsonl" --db "$db/demo.db" \
		--out "$db/$set.jsonl" --k 1 --seed 1
	echo
done
echo "== what the seed asks of the verdicts"
expect "$db/good.jsonl" fib-memoized true
expect "$db/buggy.jsonl" sum-to-off-by-one false
expect "$db/buggy.jsonl" gcd-missing-semicolon false
for id in sum-to-loop palindrome-slice gcd-euclid reverse-words-filter; do
	expect "$db/good.jsonl" "$id" true
done
echo
good=$(sqlite3 "$db/demo.db" "select id from runs order by started_ms limit 1")
buggy=$(sqlite3 "$db/demo.db" "select id from runs order by started_ms desc limit 1")
echo "== the failing tests, as an agent reads them: sandeval show $buggy sum_to"
"$S" show "$buggy" sum_to --db "$db/demo.db"
echo
echo "== the CI gate: the buggy set against the good one must fail (exit 1)"
rc=0
"$S" gate --db "$db/demo.db" --baseline "$good" --candidate "$buggy" --metric composite || rc=$?
if [ "$rc" = 1 ]; then echo "  ok   the gate caught the regression (exit 1)"; else
	echo "  FAIL the gate exited $rc, expected 1"; fails=$((fails + 1)); fi
echo
echo "== the trend report: sandeval report (and --html, one self-contained page)"
"$S" report --db "$db/demo.db"
mkdir -p demo-out
"$S" report --db "$db/demo.db" --html demo-out/report.html && echo "  wrote demo-out/report.html"
echo
echo "== the sandbox on its own: sandeval exec"
sh examples/exec-demo.sh || fails=$((fails + 1))
[ "$fails" = 0 ] && echo "demo: every verdict as expected" || { echo "demo: $fails unexpected verdict(s)"; exit 1; }
