#!/usr/bin/env bats
# multilang.bats - `make check-heavy`: HumanEval-X's C++ canonical solutions and MultiPL-E's C++ tasks in full

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HX=$DATA/multilang/humaneval-x
ME=$DATA/multilang/multipl-e

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

flunk() {
	echo "FAIL: $*" >&2
	[[ -n ${rc-} ]] || return 1
	{
		echo "--- sandeval run: exit $rc; stderr:"
		tail -c 3000 stderr.txt
	} >&2
	return 1
}

need() {
	local f
	for f in "$@"; do
		[[ -r $f ]] || flunk "no '$f': the benchmark data is missing (set SANDEVAL_DATA to the directory described in ../shared/data/README.md)"
	done
}

run_eval() {
	local t0=$SECONDS
	"$SANDEVAL" run --db t.db --no-lint "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	secs=$((SECONDS - t0))
}

note() { echo "# $*" >&3; }

@test "HumanEval-X C++: 162 of the 164 canonical solutions pass; 22 and 137 need Boost's headers" {
	need "$HX/humaneval_cpp.jsonl.gz"
	zcat "$HX/humaneval_cpp.jsonl.gz" | jq -c '{task_id, completion: .canonical_solution}' >canonical.jsonl
	run_eval --tasks "$HX/humaneval_cpp.jsonl.gz" --samples canonical.jsonl --out out.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -s 'map(select(.passed)) | length' out.jsonl) == 162 ]] || flunk "not 162 passed"
	[[ $(jq -r 'select(.passed | not) | .task_id' out.jsonl | tr '\n' ' ') == "CPP/22 CPP/137 " ]] ||
		flunk "failed: $(jq -r 'select(.passed | not) | "\(.task_id) \(.result)"' out.jsonl)"
	note "HumanEval-X C++ canonical: 162/164 passed, CPP/22 and CPP/137 compile errors (boost/any.hpp) ($secs s)"
}

@test "MultiPL-E C++: HumanEval-X's canonical bodies as completions, 61 of 161 pass" {
	need "$HX/humaneval_cpp.jsonl.gz" "$ME/humaneval-cpp.jsonl"
	zcat "$HX/humaneval_cpp.jsonl.gz" | jq -c '{n: (.task_id | split("/")[1]), body: (.canonical_solution | sub("}\\s*$"; ""))}' >bodies.jsonl
	jq -c --slurpfile b bodies.jsonl '(.task_id | split("_")[1]) as $n | {task_id, completion: ($b | map(select(.n == $n))[0].body)}' \
		"$ME/humaneval-cpp.jsonl" >samples.jsonl
	run_eval --tasks "$ME/humaneval-cpp.jsonl" --samples samples.jsonl --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	jq -e '.passed == 61 and .tests.compile_error == 94 and .tests.failed == 6' summary.json >/dev/null ||
		flunk "$(jq -c '{passed, tests}' summary.json)"
	note "MultiPL-E C++ with HumanEval-X's bodies: 61/161 passed, 94 compile errors, 6 failed ($secs s)"
}
