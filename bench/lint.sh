#!/bin/sh
# lint.sh - what lint costs `sandeval run`: the default run (lint on) next to --no-lint, side by side in one hyperfine run
#
# usage: sh bench/lint.sh [SANDEVAL]
#   SANDEVAL   the binary to measure (default ./sandeval)
# Environment: SANDEVAL_DATA (default ../shared/data), RUNS (default 1), BENCH_OUT (default bench/results),
# COLD (default 1: also time `sandeval run --cold`, the path before warm lint: python3, flake8 and bandit
# executed afresh in each sample's lint sandbox, no report reused; 0 leaves it out), SETS (default
# "he-canon mbpp-gpt4": HumanEval's 164 canonical solutions, Reflexion's 397 GPT-4 MBPP samples).
#
# Per set: hyperfine's table, and the ratio of each command's mean to --no-lint's (issue 15's target P5:
# the default within 1.5x of --no-lint on HumanEval canonical). Ratios within one hyperfine run on one
# machine; the machine's load is printed before each set, since other work on it moves every figure.
set -eu

sandeval=$(cd "$(dirname "${1:-./sandeval}")" && pwd)/$(basename "${1:-./sandeval}")
data=${SANDEVAL_DATA:-../shared/data}
runs=${RUNS:-1}
out=${BENCH_OUT:-bench/results}
he=$(cd "$data/humaneval" && pwd)/HumanEval.jsonl.gz
mkdir -p "$out"
command -v hyperfine >/dev/null || { echo "lint.sh: install hyperfine (apt-get install hyperfine)" >&2; exit 2; }

work=$(mktemp -d /tmp/sandeval-bench-lint.XXXXXX)
trap 'rm -rf "$work"' EXIT
zcat "$he" | jq -c '{task_id, completion: .canonical_solution}' >"$work/he-canon.jsonl"
# MultiPL-E's mbpp-py records as HumanEval tasks with an empty prompt (tests/cli/labels.bash)
src=$data/samples/reflexion_gpt4/mbpp-py_simple_1_gpt-4_pass_at_k_1_py.jsonl
jq -c '{task_id: .name, prompt: "", canonical_solution: "", entry_point,
	test: (.test | split("\ndef test_check():\n")[0] + "\n")}' "$src" >"$work/mbpp-tasks.jsonl"
jq -c '{task_id: .name, solution}' "$src" >"$work/mbpp-gpt4.jsonl"

echo "machine: $(nproc) CPUs, $(uname -r)"
echo "sandeval: $sandeval ($("$sandeval" --version)), $(nproc) jobs"
for set in ${SETS:-he-canon mbpp-gpt4}; do
	case $set in
	he-canon) tasks=$he ;;
	mbpp-gpt4) tasks=$work/mbpp-tasks.jsonl ;;
	*) echo "lint.sh: unknown set '$set'" >&2; exit 2 ;;
	esac
	se="$sandeval run --tasks $tasks --samples $work/$set.jsonl --db $work/bench.db --quiet"
	set --
	[ "${COLD:-1}" = 0 ] || set -- -n "lint-cold" "$se --cold"
	echo "== $set ($(wc -l <"$work/$set.jsonl") samples), load $(cut -d' ' -f1-3 /proc/loadavg)"
	hyperfine --runs "$runs" --prepare "rm -f $work/bench.db $work/bench.db-wal $work/bench.db-shm" \
		--export-json "$out/lint-$set.json" --export-markdown "$out/lint-$set.md" \
		-n "no-lint" "$se --no-lint" -n "lint" "$se" "$@"
	jq -r '.results as $r | ($r[] | select(.command == "no-lint") | .mean) as $base
		| [$r[] | "\(.command) \(.mean * 100 | round / 100) s (x\(.mean / $base * 100 | round / 100))"]
		| "'"$set"': " + join(", ") + " (ratio to no-lint: --no-lint)"' "$out/lint-$set.json" | tee "$out/lint-$set-summary.txt"
done
