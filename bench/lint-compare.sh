#!/bin/sh
# lint-compare.sh - every lint verdict and finding of two sandeval builds (or of warm and --cold), diffed sample by sample
#
# usage: sh bench/lint-compare.sh OLD NEW
#   OLD, NEW   sandeval binaries, each with its runners/ beside it (or its build directory's parent);
#              OLD may be "cold": NEW run with --cold (python3 and each linter executed afresh per sample,
#              no report reused), the path that was the only one before warm lint
# Environment: SANDEVAL_DATA (default ../shared/data), JOBS (default: the number of CPUs), KEEP (a directory
# to keep the outputs in; default a temporary one, removed).
#
# Three sample sets, each linted by both (`sandeval lint --json`): HumanEval's 164 canonical solutions,
# the 164 GPT-4 HumanEval samples and the 397 GPT-4 MBPP samples of Reflexion (docs/fidelity.md). Per
# sample: the lint status, every finding (tool, rule, category, severity, line, message) and the
# detail with the tools' times masked (and the note that a report was reused, which only NEW can say).
# Then `sandeval run --out` on HumanEval's canonical solutions, tests and lint together: per sample
# everything but the ids and times (verdict, score, each test's status and detail, lint, findings,
# composite, the detail as above). Prints one line per comparison; exit 1 when any sample differs, with
# the first differences.
set -eu

old=${1:?usage: sh bench/lint-compare.sh OLD|cold NEW}
new=${2:?usage: sh bench/lint-compare.sh OLD|cold NEW}
data=${SANDEVAL_DATA:-../shared/data}
jobs=${JOBS:-$(nproc)}
work=${KEEP:-$(mktemp -d /tmp/sandeval-lint-compare.XXXXXX)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
unset SANDEVAL_RUNNERS	# each binary's own runners
he=$data/humaneval/HumanEval.jsonl.gz
gpt4=$data/samples/reflexion_gpt4
zcat "$he" | jq -c '{task_id, completion: .canonical_solution}' >"$work/he-canon.jsonl"
cp "$gpt4/humaneval_simple_gpt4_samples.jsonl" "$work/he-gpt4.jsonl"
# MultiPL-E's mbpp-py records as HumanEval tasks with an empty prompt (tests/cli/labels.bash)
src=$gpt4/mbpp-py_simple_1_gpt-4_pass_at_k_1_py.jsonl
jq -c '{task_id: .name, prompt: "", canonical_solution: "", entry_point,
	test: (.test | split("\ndef test_check():\n")[0] + "\n")}' "$src" >"$work/mbpp-tasks.jsonl"
jq -c '{task_id: .name, solution}' "$src" >"$work/mbpp-samples.jsonl"

# the comparable form of a lint --json: one line per sample, sorted
norm() {
	jq -c '.samples[] | {sample_id, task_id, lint, findings,
		lint_detail: (.lint_detail | gsub("[0-9]+\\.[0-9]+ s"; "T s")
			| sub("; an identical program.s report \\(linted earlier in this process\\)$"; ""))}' "$1" | sort
}

status=0
for set in he-canon:"$he" he-gpt4:"$he" mbpp:"$work/mbpp-tasks.jsonl"; do
	name=${set%%:*}
	tasks=${set#*:}
	samples=$work/$name.jsonl
	[ "$name" != mbpp ] || samples=$work/mbpp-samples.jsonl
	if [ "$old" = cold ]; then
		"$new" lint --tasks "$tasks" --samples "$samples" --jobs "$jobs" --quiet --cold --json "$work/$name.old.json" >/dev/null
	else
		"$old" lint --tasks "$tasks" --samples "$samples" --jobs "$jobs" --quiet --json "$work/$name.old.json" >/dev/null
	fi
	"$new" lint --tasks "$tasks" --samples "$samples" --jobs "$jobs" --quiet --json "$work/$name.new.json" >/dev/null
	norm "$work/$name.old.json" >"$work/$name.old.norm"
	norm "$work/$name.new.json" >"$work/$name.new.norm"
	n=$(wc -l <"$work/$name.new.norm")
	findings=$(jq '[.samples[].findings | length] | add' "$work/$name.new.json")
	counts=$(jq -r '[.samples[].lint] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$work/$name.new.json")
	reused=$(grep -c 'an identical program' "$work/$name.new.json" || true)
	if diff "$work/$name.old.norm" "$work/$name.new.norm" >"$work/$name.diff"; then
		echo "$name: $n samples identical ($counts; $findings findings; $reused reports reused)"
	else
		echo "$name: DIFFERENT ($(grep -c '^>' "$work/$name.diff") samples of $n):"
		head -c 3000 "$work/$name.diff"
		status=1
	fi
done

# sandeval run, tests and lint together: the --out lines
outnorm() {
	jq -c '{sample_id, task_id, passed, result, score, harness_error, composite, lint, findings,
		tests: [.tests[] | {name, status, detail}],
		lint_detail: (.lint_detail | gsub("[0-9]+\\.[0-9]+ s"; "T s")
			| sub("; an identical program.s report \\(linted earlier in this process\\)$"; ""))}' "$1" | sort
}
if [ "$old" = cold ]; then
	"$new" run --tasks "$he" --samples "$work/he-canon.jsonl" --jobs "$jobs" --quiet --cold --out "$work/run.old.jsonl" >/dev/null
else
	"$old" run --tasks "$he" --samples "$work/he-canon.jsonl" --jobs "$jobs" --quiet --out "$work/run.old.jsonl" >/dev/null
fi
"$new" run --tasks "$he" --samples "$work/he-canon.jsonl" --jobs "$jobs" --quiet --out "$work/run.new.jsonl" >/dev/null
outnorm "$work/run.old.jsonl" >"$work/run.old.norm"
outnorm "$work/run.new.jsonl" >"$work/run.new.norm"
if diff "$work/run.old.norm" "$work/run.new.norm" >"$work/run.diff"; then
	echo "he-canon run --out: $(wc -l <"$work/run.new.norm") samples identical (passed $(jq -s 'map(select(.passed)) | length' "$work/run.new.jsonl"), lint $(jq -s -r 'map(.lint) | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$work/run.new.jsonl"))"
else
	echo "he-canon run --out: DIFFERENT ($(grep -c '^>' "$work/run.diff") samples):"
	head -c 3000 "$work/run.diff"
	status=1
fi
exit $status
