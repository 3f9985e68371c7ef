#!/bin/sh
# humaneval.sh - wall time to score HumanEval's 164 canonical solutions: sandeval (each sample in its own
# fresh sandbox) against openai/human-eval's own unsandboxed harness, side by side in one hyperfine run.
#
# usage: sh bench/humaneval.sh HUMAN_EVAL_CHECKOUT [SANDEVAL]
#   HUMAN_EVAL_CHECKOUT  a directory holding openai/human-eval's human_eval/ package (not part of this
#                        repository: fetch it yourself; nothing of it is installed or copied)
#   SANDEVAL             the binary to measure (default ./sandeval)
# Environment: SANDEVAL_DATA (default ../shared/data), RUNS (default 3), HE_WORKERS (default 4, human-eval's
# own default), BENCH_OUT (default bench/results), COLD (default 1: also time `sandeval run --cold`, every
# sandbox's python3 executed afresh instead of forked from a warm one; 0 leaves it out), AB (a number of
# rounds: time the commands with bench/ab.py instead, in alternation, each round every command once; hyperfine
# runs all of one command, then all of the next, and its ratio moves with the drift of the machine's load and
# of human-eval's own time: 0.88 to 0.96 within minutes in docs/benchmarks-humaneval.md).
set -eu

peer=${1:?usage: sh bench/humaneval.sh HUMAN_EVAL_CHECKOUT [SANDEVAL]}
sandeval=$(cd "$(dirname "${2:-./sandeval}")" && pwd)/$(basename "${2:-./sandeval}")
data=${SANDEVAL_DATA:-../shared/data}
problems=$(cd "$data/humaneval" && pwd)/HumanEval.jsonl.gz
runs=${RUNS:-3}
workers=${HE_WORKERS:-4}
out=${BENCH_OUT:-bench/results}
peer=$(cd "$peer" && pwd)

[ -f "$peer/human_eval/evaluate_functional_correctness.py" ] || {
	echo "humaneval.sh: '$peer' holds no human_eval/evaluate_functional_correctness.py" >&2
	exit 2
}
# human-eval needs tqdm, fire and numpy: Debian's packages, for Debian's /usr/bin/python3.
need=""
for p in hyperfine jq python3-tqdm python3-fire python3-numpy; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || { echo "humaneval.sh: install$need first" >&2; exit 2; }
	apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

work=$(mktemp -d /tmp/sandeval-bench-he.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 1777 "$work"	# human-eval (as nobody) writes its results beside the samples
zcat "$problems" | jq -c '{task_id, completion: .canonical_solution}' >"$work/samples.jsonl"
chmod 666 "$work/samples.jsonl"
mkdir -p "$out"

# human-eval executes candidates unsandboxed: run it as nobody, in the scratch directory.
he="cd $work && runuser -u nobody -- env HOME=$work PYTHONPATH=$peer /usr/bin/python3 -m human_eval.evaluate_functional_correctness $work/samples.jsonl --problem_file=$problems --n_workers=$workers"
se="$sandeval run --tasks $problems --samples $work/samples.jsonl --db $work/bench.db --quiet --no-lint"
# The arguments are all read: "$@" holds the optional third command.
set --
[ "${COLD:-1}" = 0 ] || set -- -n "sandeval --cold" "$se --cold"

# Both must have scored 164/164: a fast wrong answer is no answer.
verify() {
	sh -c "$he" >/dev/null 2>&1
	passed_he=$(jq -s 'map(select(.passed)) | length' "$work/samples.jsonl_results.jsonl")
	$se --out "$work/sandeval.jsonl" >/dev/null 2>&1 || true
	passed_se=$(jq -s 'map(select(.passed)) | length' "$work/sandeval.jsonl")
	echo "passed: human-eval $passed_he/164, sandeval $passed_se/164"
}

echo "machine: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "human-eval: $peer ($(git -C "$peer" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')), $workers workers"
echo "sandeval:   $sandeval ($("$sandeval" --version)), default --jobs (the CPUs + 1 since 13128a0)"
if [ -n "${AB:-}" ]; then
	# ab.py runs no shell and no --prepare: human-eval through sh -c, sandeval adds each run to its database
	set -- "human-eval=sh -c '$he'" "sandeval=$se"
	[ "${COLD:-1}" = 0 ] || set -- "$@" "sandeval-cold=$se --cold"
	python3 "$(dirname "$0")/ab.py" --rounds "$AB" --warmup 1 "$@" | tee "$out/humaneval-ab.md"
	awk -F'|' '$3 ~ /^ *[0-9.]+ *$/ { n[++k] = $2; gsub(/^ +| +$/, "", n[k]); m[k] = $3; c[k] = $5; r[k] = $8 }
		END { for (i = 2; i <= k; i++) line = line sprintf("%s%s/human-eval %.2f (median of rounds %.2f, CPU %.2f)",
			i > 2 ? "; " : "", n[i], m[i] / m[1], r[i], c[i] / c[1]); print "median wall time: " line }' \
		"$out/humaneval-ab.md" | tr -s ' ' | tee "$out/humaneval-summary.txt"
	verify
	exit 0
fi
hyperfine --runs "$runs" --warmup 1 \
	--prepare "rm -f $work/bench.db $work/bench.db-wal $work/bench.db-shm $work/samples.jsonl_results.jsonl" \
	--export-json "$out/humaneval.json" --export-markdown "$out/humaneval.md" \
	-n human-eval "$he" -n sandeval "$se" "$@"
verify
jq -r '.results as $r | ($r[] | select(.command == "human-eval") | .mean) as $he
	| ($r[] | select(.command == "sandeval") | .mean) as $se
	| ([$r[] | select(.command == "sandeval --cold") | .mean] | first) as $cold
	| "mean wall time: human-eval \($he * 100 | round / 100) s, sandeval \($se * 100 | round / 100) s; sandeval/human-eval = \($se / $he * 100 | round / 100)"
	+ (if $cold then "; sandeval --cold \($cold * 100 | round / 100) s (cold/warm = \($cold / $se * 100 | round / 100))" else "" end)' \
	"$out/humaneval.json" | tee "$out/humaneval-summary.txt"
