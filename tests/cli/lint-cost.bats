#!/usr/bin/env bats
# lint-cost.bats - cheap lint: warm linters forked per sample, reports of identical programs reused, --cold the old path

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
EX=$BATS_TEST_DIRNAME/../../examples
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
BACKEND=${SANDEVAL_BACKEND:-native}
BACKEND_OPTS=()
[[ $BACKEND == native ]] || BACKEND_OPTS=(--backend "$BACKEND")

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	for t in flake8 bandit; do
		command -v "$t" >/dev/null || skip "deps: $t is not installed (scripts/deps.sh installs it)"
	done
}

# lint OUT ARG...: sandeval lint ARG... --json OUT; $rc, $err
lint() {
	local json=$1
	shift
	"$SANDEVAL" lint "${BACKEND_OPTS[@]}" --quiet --json "$json" "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	err=$(cat stderr.txt)
}

flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit ${rc-}; stderr:"
		tail -c 3000 stderr.txt
	} >&2
	return 1
}

# sample ID SOLUTION: one JSONL line for the example suite's sum_to
sample() { jq -nc --arg id "$1" --arg s "$2" '{sample_id: $id, task_id: "sum_to", solution: $s}'; }

# verdicts JSON: per sample its status, findings and detail, the tools' times masked and the note that the
# report was reused or came from a batch cut
verdicts() {
	jq -c '.samples[] | [.sample_id, .lint, .findings, (.lint_detail | gsub("[0-9]+\\.[0-9]+ s( \\(its share of one run over [0-9]+ files\\))?"; "T s")
		| sub("; (an identical program.s report \\(linted earlier in this process\\)|linted in a batch \\(lint sandbox [0-9a-f?]+\\))$"; ""))]' "$1" | sort
}

# batch_vs_cold TASKS JOBS: s.jsonl linted in batches (batch.json) and with --cold, each sample alone
# (cold.json); fails unless every verdict, finding and detail is the same
batch_vs_cold() {
	lint batch.json --tasks "$1" --samples s.jsonl --jobs "$2"
	((rc == 0)) || flunk "batches: exit $rc"
	lint cold.json --tasks "$1" --samples s.jsonl --jobs "$2" --cold
	((rc == 0)) || flunk "--cold: exit $rc"
	diff <(verdicts cold.json) <(verdicts batch.json) >diff.txt ||
		flunk "batches and --cold differ: $(head -c 3000 diff.txt)"
}

# Samples that exercise every kind of outcome of the Python linters.
mixed_samples() {
	sample clean $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n'
	sample dirty $'import os\n\n\ndef sum_to(n: int) -> int:\n    return eval(input())\n'
	sample style $'def sum_to(n):\n    total=0 \n    for i in range(n + 1):\n        total += i\n    return total\n'
	sample syntax $'def sum_to(n)\n    return n\n'
	sample empty ''
	sample noqa $'import os  # noqa\nimport subprocess  # nosec\n\n\ndef sum_to(n):\n    return subprocess.call(n, shell=True)\n'
	sample unicode $'def sum_to(n):\n    \xc3\xa9t\xc3\xa9 = "\xe2\x82\xac"\n    return n\n'
	sample deep "def sum_to(n):
    return $(printf '(%.0s' $(seq 150))n$(printf ')%.0s' $(seq 150))
"
}

# bats test_tags=native
@test "warm lint: every verdict, finding and detail as --cold gives them (python3 and each linter executed afresh)" {
	[[ $BACKEND == native ]] || skip "native: warm lint is the native backend's"
	mixed_samples >s.jsonl
	lint warm.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1
	((rc == 0)) || flunk "warm: exit $rc"
	[[ $err != *"no warm lint"* ]] || flunk "the lint zygote did not start: $err"
	lint cold.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1 --cold
	((rc == 0)) || flunk "cold: exit $rc"
	diff <(verdicts cold.json) <(verdicts warm.json) >diff.txt || flunk "warm and cold differ: $(head -c 3000 diff.txt)"
	# the samples say something: every status the linters can give a file, and both linters' findings
	[[ $(jq -r '[.samples[].lint] | unique | join(" ")' warm.json) == "failed passed" ]] ||
		flunk "statuses: $(jq -c '[.samples[] | [.sample_id, .lint, .lint_detail]]' warm.json)"
	[[ $(jq -r '[.samples[].findings[].tool] | unique | join(" ")' warm.json) == "bandit flake8" ]] ||
		flunk "tools: $(jq -c '[.samples[].findings[].tool] | unique' warm.json)"
	[[ $(jq -r '.samples[] | select(.sample_id == "syntax") | .findings[0].rule' warm.json) == E999 ]] ||
		flunk "the syntax error: $(jq -c '.samples[] | select(.sample_id == "syntax")' warm.json)"
}

# bats test_tags=native
@test "warm lint: each sample's findings are those it has when linted alone (nothing one leaves reaches the next)" {
	[[ $BACKEND == native ]] || skip "native: warm lint is the native backend's"
	mixed_samples >all.jsonl
	# together: one worker, one lint zygote, the samples one after the other in both orders
	lint together.json --tasks "$EX/tasks" --samples all.jsonl --jobs 1
	((rc == 0)) || flunk "together: exit $rc"
	tac all.jsonl >rev.jsonl
	lint reversed.json --tasks "$EX/tasks" --samples rev.jsonl --jobs 1
	((rc == 0)) || flunk "reversed: exit $rc"
	# alone: each sample in a process of its own
	while read -r line; do
		id=$(jq -r .sample_id <<<"$line")
		printf '%s\n' "$line" >"one-$id.jsonl"
		lint "one-$id.json" --tasks "$EX/tasks" --samples "one-$id.jsonl"
		((rc == 0)) || flunk "$id alone: exit $rc"
		verdicts "one-$id.json"
	done <all.jsonl | sort >alone.txt
	diff alone.txt <(verdicts together.json) >diff.txt || flunk "together differs from alone: $(head -c 3000 diff.txt)"
	diff alone.txt <(verdicts reversed.json) >diff.txt || flunk "reversed differs from alone: $(head -c 3000 diff.txt)"
}

# bats test_tags=native
@test "warm lint: without the zygote's library the run says so once and lints every sample cold, the same" {
	[[ $BACKEND == native ]] || skip "native: warm lint is the native backend's"
	runners=${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}
	cp -r "$runners" runners
	rm runners/sandeval-zygote.so
	mixed_samples >s.jsonl
	SANDEVAL_RUNNERS=$PWD/runners lint fallback.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1
	((rc == 0)) || flunk "exit $rc"
	[[ $(grep -c "no warm lint (zygote: cannot load the linters: OSError" stderr.txt) == 1 ]] || flunk "warning: $err"
	lint warm.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1
	diff <(verdicts warm.json) <(verdicts fallback.json) >diff.txt || flunk "cold fallback differs: $(head -c 3000 diff.txt)"
}

@test "the same program twice is linted once, with the same findings; --cold lints each in a sandbox of its own" {
	dirty=$'import os\n\n\ndef sum_to(n: int) -> int:\n    return eval(input())\n'
	{
		sample a "$dirty"
		sample b "$dirty"
		sample c "${dirty}# another program"$'\n'
	} >s.jsonl
	"$SANDEVAL" run "${BACKEND_OPTS[@]}" --tasks "$EX/tasks" --samples s.jsonl --out o.jsonl --db t.db --jobs 1 \
		--partial --quiet >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	((rc == 0)) || flunk "exit $rc"
	# one sandbox for the tests of each, one more for the lint of a and c, linted ahead in batches (one
	# file each here: one worker, two programs); b's report is a's, from the same lint sandbox
	sandboxes() { sqlite3 "$1" "select sample_id || ' ' || (length(sandbox_ids) - length(replace(sandbox_ids, ',', '')) + 1)
		from samples order by sample_id" | tr '\n' ' '; }
	[[ $(sandboxes t.db) == "a 2 b 2 c 2 " ]] || flunk "sandboxes: $(sqlite3 t.db 'select sample_id, sandbox_ids from samples')"
	lint_box() { sqlite3 t.db "select substr(sandbox_ids, instr(sandbox_ids, ',') + 1) from samples where sample_id = '$1'"; }
	[[ $(lint_box a) == "$(lint_box b)" && $(lint_box a) != "$(lint_box c)" ]] ||
		flunk "lint sandboxes: $(sqlite3 t.db 'select sample_id, sandbox_ids from samples')"
	[[ $(jq -r 'select(.sample_id == "b") | .lint_detail' o.jsonl) == *"; linted in a batch (lint sandbox $(lint_box a))" ]] ||
		flunk "b's detail: $(jq -r 'select(.sample_id == "b") | .lint_detail' o.jsonl)"
	[[ $(jq -c 'select(.sample_id == "a") | [.lint, .findings]' o.jsonl) == "$(jq -c 'select(.sample_id == "b") | [.lint, .findings]' o.jsonl)" ]] ||
		flunk "a and b differ: $(jq -c '[.sample_id, .lint, .findings]' o.jsonl)"
	[[ $(jq -r 'select(.sample_id == "a") | .lint' o.jsonl) == failed ]] || flunk "a: $(jq -c 'select(.sample_id == "a")' o.jsonl)"
	# another threshold in another run: the report judged anew
	"$SANDEVAL" run "${BACKEND_OPTS[@]}" --tasks "$EX/tasks" --samples s.jsonl --out e.jsonl --jobs 1 --partial --quiet \
		--lint-severity error >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	[[ $(jq -r '.lint' e.jsonl | sort -u) == passed ]] || flunk "--lint-severity error: $(jq -c '[.sample_id, .lint]' e.jsonl)"
	# --cold: the old path, every sample linted in a sandbox of its own
	"$SANDEVAL" run "${BACKEND_OPTS[@]}" --tasks "$EX/tasks" --samples s.jsonl --out cold.jsonl --db cold.db --jobs 1 \
		--partial --quiet --cold >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	((rc == 0)) || flunk "--cold: exit $rc"
	[[ $(sandboxes cold.db) == "a 2 b 2 c 2 " ]] || flunk "--cold sandboxes: $(sqlite3 cold.db 'select sample_id, sandbox_ids from samples')"
	[[ -z $(jq -r '.lint_detail | select(contains("identical program") or contains("in a batch"))' cold.jsonl) ]] ||
		flunk "--cold reused a report or linted in a batch"
}

# bats test_tags=native
@test "a linter that fails on one sample makes that sample 'error' and no other; its report is not reused" {
	# a file so large that the linters cannot lint it in 100M: the lint sandbox's memory limit
	{
		sample small1 $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n'
		python3 -c 'import json
big = "def sum_to(n):\n    return n\n\n\nx = [" + "[1, 2, 3], " * 400000 + "]\n"
for i in ("big", "big2"):
    print(json.dumps({"sample_id": i, "task_id": "sum_to", "solution": big}))'
		sample small2 $'import os\n\n\ndef sum_to(n: int) -> int:\n    return n\n'
	} >s.jsonl
	lint l.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1 --memory 100M
	((rc == 0)) || flunk "exit $rc"
	st() { jq -r --arg id "$1" '.samples[] | select(.sample_id == $id) | .lint' l.json; }
	[[ $(st big) == error && $(st big2) == error ]] ||
		flunk "big: $(jq -c '[.samples[] | [.sample_id, .lint, .lint_detail]]' l.json)"
	[[ $(jq -r '.samples[] | select(.sample_id == "big2") | .lint_detail' l.json) != *"identical program"* ]] ||
		flunk "the failed report was reused"
	[[ $(st small1) == passed && $(st small2) == failed ]] ||
		flunk "the others: $(jq -c '[.samples[] | [.sample_id, .lint, .lint_detail]]' l.json)"
}

# bats test_tags=native
@test "lint in batches: real samples, linted many to a sandbox, have exactly the findings --cold gives each alone" {
	[[ $BACKEND == native ]] || skip "native: the gVisor pass lints cold samples at ~3 s each; run.bats covers it"
	[[ -f $HE ]] || skip "data: no HumanEval data at $HE"
	cg=$DATA/samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz
	[[ -f $cg ]] || skip "data: no CodeGen-16B samples at $cg"
	# every 8th canonical solution (21), and from CodeGen-16B's 100 samples of each task, the first 3 of 15
	# tasks (45, repeats among them): real findings of both linters on most files
	{
		zcat "$HE" | jq -c '{task_id, completion: .canonical_solution}' | sed -n '1~8p'
		zcat "$cg" | head -n 1500 | jq -c 'select(.sample_index < 3) | {task_id, completion}'
	} >s.jsonl
	n=$(wc -l <s.jsonl)
	batch_vs_cold "$HE" 2
	# it was batches that were compared: every sample's report from one, several batches of several files
	[[ $(grep -c 'linted in a batch (lint sandbox ' <(jq -r '.samples[].lint_detail' batch.json)) == "$n" ]] ||
		flunk "not every sample from a batch: $(jq -r '.samples[].lint_detail' batch.json | grep -v 'in a batch' | head -3)"
	boxes=$(jq -r '.samples[].lint_detail | capture("lint sandbox (?<b>[0-9a-f]+)").b' batch.json | sort | uniq -c)
	(($(wc -l <<<"$boxes") >= 2)) && ! grep -q '^ *1 ' <<<"$boxes" || flunk "batches: $boxes"
	# and what is compared tells files apart: most samples' findings are their own (a report attributed
	# one file off in its batch shows; tried by printing each envelope under the next file's index)
	distinct=$(jq -c '.samples[] | [.task_id, .findings]' batch.json | sort -u | wc -l)
	((distinct > n / 2)) || flunk "only $distinct distinct (task, findings) of $n"
	[[ $(jq -r '[.samples[].findings[].tool] | unique | join(" ")' batch.json) == "bandit flake8" ]] ||
		flunk "tools: $(jq -c '[.samples[].findings[].tool] | unique' batch.json)"
}

# bats test_tags=native
@test "lint in batches: one flake8 and one bandit run over a batch, cut back per file: every finding where it belongs, once" {
	[[ $BACKEND == native ]] || skip "native: warm lint is the native backend's"
	# neighbours with findings on their first and last lines, each file a count and rules of its own (a
	# finding moved to the next file, lost or repeated at a boundary shows), a file whose flake8 report
	# is over the 256 KiB a tool's output may have (alone it is cut: it is linted alone) in the middle
	{
		sample a1 $'import os\n\n\ndef sum_to(n):\n    return eval(str(n))  '
		sample b2 $'import subprocess\nimport sys\n\n\ndef sum_to(n):\n    return subprocess.call(n, shell=True) '
		sample c0 $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n'
		python3 -c 'import json
big = "def sum_to(n):\n    return n\n\n\n" + "x = 1 \n" * 7000
print(json.dumps({"sample_id": "big", "task_id": "sum_to", "solution": big}))'
		sample d3 $'import pickle\n\n\ndef sum_to(n):\n    return pickle.loads(n)\n\n\n'
		sample e4 $'def sum_to(n)\n    return n\n'
		sample f5 $'import hashlib\n\n\ndef sum_to(n):\n    total=0\n    return hashlib.md5(n).hexdigest()\n'
		sample g6 $'def sum_to(n):\n    l = 1\n    return eval(input())\n\n'
	} >s.jsonl
	# one worker, so two batches of four
	batch_vs_cold "$EX/tasks" 1
	det() { jq -r --arg id "$1" '.samples[] | select(.sample_id == $id) | .lint_detail' batch.json; }
	for id in a1 b2 c0 d3 e4 f5 g6; do
		[[ $(det $id) == "flake8 "*" s (its share of one run over "*" files); bandit "*" s (its share of one run over "*" files);"*"linted in a batch"* ]] ||
			flunk "$id: not from one run over its batch: $(det $id)"
	done
	[[ $(det big) == *"linted in a batch"* && $(det big) != *"one run"* ]] || flunk "big: $(det big)"
	# what is compared says something: the counts differ from file to file, and both linters found
	[[ $(jq -r '[.samples[] | .findings | length] | map(tostring) | join(" ")' batch.json) == "4 5 0 100 3 2 3 4" ]] ||
		flunk "counts: $(jq -c '[.samples[] | [.sample_id, (.findings | map(.rule))]]' batch.json)"
}

# The driver is killed by the memory cgroup's OOM killer, so as root: as an
# ordinary user the limit is RLIMIT_DATA, python3 raises MemoryError instead,
# the driver reports big's linters as failed and goes on (big 'error', the
# others in their batch: also right, but not the fallback this test is about).
# bats test_tags=native,root
@test "lint in batches: a file that kills its batch's linter makes that batch's samples be linted alone, with their own findings" {
	[[ $BACKEND == native ]] || skip "native: warm lint is the native backend's"
	# under 1 MiB, so in a batch, and too large to lint in 100M: the batch's driver is killed
	{
		sample small1 $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n'
		python3 -c 'import json
big = "def sum_to(n):\n    return n\n\n\nx = [" + "[1, 2, 3], " * 90000 + "]\n"
print(json.dumps({"sample_id": "big", "task_id": "sum_to", "solution": big}))'
		sample small2 $'import os\n\n\ndef sum_to(n: int) -> int:\n    return n\n'
		sample small3 $'def sum_to(n):\n    total=0 \n    return eval(str(n))\n'
	} >s.jsonl
	lint l.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1 --memory 100M
	((rc == 0)) || flunk "exit $rc"
	lint cold.json --tasks "$EX/tasks" --samples s.jsonl --jobs 1 --memory 100M --cold
	((rc == 0)) || flunk "--cold: exit $rc"
	# big's detail says who was killed, the driver (warm) or each linter (cold): the others are compared whole
	diff <(verdicts cold.json | grep -v '^\["big"') <(verdicts l.json | grep -v '^\["big"') >diff.txt ||
		flunk "batches and --cold differ: $(head -c 3000 diff.txt)"
	st() { jq -r --arg id "$1" '.samples[] | select(.sample_id == $id) | [.lint, .lint_detail] | join(": ")' l.json; }
	[[ $(st big) == error:* ]] || flunk "big: $(st big)"
	# two batches of two (one worker, four programs): big's partner was linted alone, the other two in theirs
	[[ $(st small1) == "passed: "* && $(st small1) != *"in a batch"* ]] || flunk "small1: $(st small1)"
	[[ $(st small2) == "failed: "*"in a batch"* && $(st small3) == "failed: "*"in a batch"* ]] ||
		flunk "small2, small3: $(st small2) / $(st small3)"
}
