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
# Four sample sets, each linted by both (`sandeval lint --json`): HumanEval's 164 canonical solutions,
# the 164 GPT-4 HumanEval samples and the 397 GPT-4 MBPP samples of Reflexion (docs/fidelity.md), and
# CodeT's CodeGen-16B samples of HumanEval's first CG_TASKS tasks (default 4: 400 samples, 100 a task,
# with repeats; samples/codet_codegen16b). Per
# sample: the lint status, every finding (tool, rule, category, severity, line, message) and the
# detail with the tools' times masked (and the note that a report was reused or came from a batch of many
# samples to a lint sandbox, which only NEW can say).
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
zcat "$data/samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz" |
	head -n $((${CG_TASKS:-4} * 100)) | jq -c '{task_id, completion}' >"$work/codegen.jsonl"

# by_old ARG...: sandeval ARG... as OLD (NEW with --cold when OLD is "cold")
by_old() {
	if [ "$old" = cold ]; then "$new" "$@" --cold; else "$old" "$@"; fi
}

# same NAME WHAT: diff $work/NAME.old.norm and .new.norm; one line saying WHAT when they agree
status=0
same() {
	if diff "$work/$1.old.norm" "$work/$1.new.norm" >"$work/$1.diff"; then
		echo "$1: $(wc -l <"$work/$1.new.norm") samples identical ($2)"
	else
		echo "$1: DIFFERENT ($(grep -c '^>' "$work/$1.diff") samples of $(wc -l <"$work/$1.new.norm")):"
		head -c 3000 "$work/$1.diff"
		status=1
	fi
}

# the comparable form of the lint detail: the tools' times masked, the note that a report was reused or
# came from a batch cut
detail='(.lint_detail | gsub("[0-9]+\\.[0-9]+ s( \\(its share of one run over [0-9]+ files\\))?"; "T s")
	| sub("; (an identical program.s report \\(linted earlier in this process\\)|linted in a batch \\(lint sandbox [0-9a-f?]+\\))$"; ""))'
counts='group_by(.) | map("\(.[0]) \(length)") | join(", ")'

for set in he-canon:"$he" he-gpt4:"$he" mbpp:"$work/mbpp-tasks.jsonl" codegen:"$he"; do
	name=${set%%:*}
	tasks=${set#*:}
	samples=$work/$name.jsonl
	[ "$name" != mbpp ] || samples=$work/mbpp-samples.jsonl
	for who in old new; do
		if [ $who = old ]; then run=by_old; else run=$new; fi
		$run lint --tasks "$tasks" --samples "$samples" --jobs "$jobs" --quiet --json "$work/$name.$who.json" >/dev/null
		jq -c ".samples[] | {sample_id, task_id, lint, findings, lint_detail: $detail}" "$work/$name.$who.json" |
			sort >"$work/$name.$who.norm"
	done
	same "$name" "$(jq -r "[.samples[].lint] | $counts" "$work/$name.new.json");\
 $(jq '[.samples[].findings | length] | add' "$work/$name.new.json") findings;\
 $(grep -c 'an identical program' "$work/$name.new.json" || true) reports reused,\
 $(grep -c 'linted in a batch' "$work/$name.new.json" || true) linted in batches,\
 $(jq '[.samples[] | select(.lint_detail | test("bandit [0-9.]+ s \\(its share of one run"))] | length' \
	"$work/$name.new.json") of them by one run of each linter over the batch"
done

# sandeval run, tests and lint together: the --out lines
for who in old new; do
	if [ $who = old ]; then run=by_old; else run=$new; fi
	$run run --tasks "$he" --samples "$work/he-canon.jsonl" --jobs "$jobs" --quiet --out "$work/run.$who.jsonl" >/dev/null
	jq -c "{sample_id, task_id, passed, result, score, harness_error, composite, lint, findings,
		tests: [.tests[] | {name, status, detail}], lint_detail: $detail}" "$work/run.$who.jsonl" |
		sort >"$work/he-canon-run.$who.norm"
done
same he-canon-run "passed $(jq -s 'map(select(.passed)) | length' "$work/run.new.jsonl"),\
 lint $(jq -s -r "map(.lint) | $counts" "$work/run.new.jsonl")"
exit $status
