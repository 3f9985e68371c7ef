# labels.bash: comparing sandeval's verdicts with reference labels, shared by run.bats and tests/heavy/fidelity.bats
# (each defines flunk)

LABELS_DIR=$(cd "${BASH_SOURCE[0]%/*}" && pwd)

# mbpp_gpt4_files SRC: mbpp-tasks.jsonl and mbpp-samples.jsonl from the MultiPL-E
# mbpp-py records of SRC (the GPT-4 solutions and their tests), one per line in order
mbpp_gpt4_files() {
	jq -c '{task_id: .name, prompt: "", canonical_solution: "", entry_point,
		test: (.test | split("\ndef test_check():\n")[0] + "\n")}' "$1" >mbpp-tasks.jsonl
	jq -c '{task_id: .name, solution}' "$1" >mbpp-samples.jsonl
}

# slice_codegen: of the 16,400 CodeGen-16B lines on stdin, line 100 i + i mod 100
# (the i-th task's sample i mod 100); a label's `line` becomes its line in the slice
slice_codegen() {
	jq -c -n '[inputs] | to_entries | map(select(.key % 100 == ((.key / 100 | floor) % 100)))
		| to_entries[] | .key as $now | .value.key as $was | .value.value
		| if has("line") then (if .line == $was then .line = $now else error("line \(.line) at \($was)") end) else . end'
}

# compare_labels SAMPLES LABELS RESULTS WHAT: compare-labels.sh (sample n, label
# n and the result for sample n's id, counts asserted); its figures in compare.txt
compare_labels() {
	"$LABELS_DIR/compare-labels.sh" "${@:1:3}" >compare.txt 2>compare.err && return 0
	{
		echo "FAIL: $4: sandeval's verdicts do not match the labels, sample by sample"
		head -c 4000 compare.err
		head -c 4000 compare.txt
	} >&2
	return 1
}
