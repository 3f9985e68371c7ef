#!/bin/sh
# lint.sh - what lint costs `sandeval run`: the default run (lint on) next to --no-lint, side by side in one hyperfine run
#
# usage: sh bench/lint.sh [SANDEVAL]
#   SANDEVAL   the binary to measure (default ./sandeval)
# Environment: SANDEVAL_DATA (default ../shared/data), RUNS (default 1), BENCH_OUT (default bench/results),
# COLD (default 1: also time `sandeval run --cold`, the path before warm lint: python3, flake8 and bandit
# executed afresh in each sample's lint sandbox, no report reused; 0 leaves it out), SETS (default
# "he-canon mbpp-gpt4": HumanEval's 164 canonical solutions, Reflexion's 397 GPT-4 MBPP samples), AB (a
# number of rounds: time the commands with bench/ab.py instead, in alternation, each round every command
# once, so that a load that drifts meets them all alike; hyperfine runs all of one, then all of the next),
# OLD (another sandeval binary, with its runners beside it: its default run is timed too, as "lint-old").
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
echo "sandeval: $sandeval ($("$sandeval" --version)), default --jobs (the CPUs + 1 since 13128a0)"
for set in ${SETS:-he-canon mbpp-gpt4}; do
	case $set in
	he-canon) tasks=$he ;;
	mbpp-gpt4) tasks=$work/mbpp-tasks.jsonl ;;
	*) echo "lint.sh: unknown set '$set'" >&2; exit 2 ;;
	esac
	args="run --tasks $tasks --samples $work/$set.jsonl --quiet"
	se="$sandeval $args --db $work/bench.db"
	set --
	[ "${COLD:-1}" = 0 ] || set -- -n "lint-cold" "$se --cold"
	echo "== $set ($(wc -l <"$work/$set.jsonl") samples), load $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ -n "${AB:-}" ]; then
		# ab.py: no shell, no --prepare: a database per command (each run adds its own record)
		rm -f "$work"/ab-*.db*
		ab() { echo "$1=$2 $args --db $work/ab-$1.db${3:+ $3}"; }
		set -- "$(ab no-lint "$sandeval" --no-lint)" "$(ab lint "$sandeval")"
		[ -z "${OLD:-}" ] || set -- "$@" "$(ab lint-old "$(cd "$(dirname "$OLD")" && pwd)/$(basename "$OLD")")"
		[ "${COLD:-1}" = 0 ] || set -- "$@" "$(ab lint-cold "$sandeval" --cold)"
		python3 "$(dirname "$0")/ab.py" --rounds "$AB" "$@" | tee "$out/lint-$set-ab.md"
		# the medians' ratios to no-lint's (wall; p10 wall)
		awk -F'|' -v set="$set" '$3 ~ /^ *[0-9.]+ *$/ { n[++k] = $2; m[k] = $3; p[k] = $4 }
			END { for (i = 1; i <= k; i++) line = line sprintf("%s%s x%.2f (p10 x%.2f)", i > 1 ? ", " : "",
				n[i], m[i] / m[1], p[i] / p[1]); print set ": " line " (median wall, ratio to no-lint)" }' \
			"$out/lint-$set-ab.md" | tr -s ' ' | tee "$out/lint-$set-summary.txt"
		continue
	fi
	hyperfine --runs "$runs" --prepare "rm -f $work/bench.db $work/bench.db-wal $work/bench.db-shm" \
		--export-json "$out/lint-$set.json" --export-markdown "$out/lint-$set.md" \
		-n "no-lint" "$se --no-lint" -n "lint" "$se" "$@"
	jq -r '.results as $r | ($r[] | select(.command == "no-lint") | .mean) as $base
		| [$r[] | "\(.command) \(.mean * 100 | round / 100) s (x\(.mean / $base * 100 | round / 100))"]
		| "'"$set"': " + join(", ") + " (ratio to no-lint: --no-lint)"' "$out/lint-$set.json" | tee "$out/lint-$set-summary.txt"
done
