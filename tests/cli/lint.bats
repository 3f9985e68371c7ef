#!/usr/bin/env bats
# lint.bats - `sandeval lint` and linting in `sandeval run`: real linters in the sandbox, findings, a missing linter, composite

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
EX=$BATS_TEST_DIRNAME/../../examples
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
# The backend under test (run-helpers.bash): SANDEVAL_BACKEND=gvisor lints under runsc too.
load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# lint ARG...: sandeval lint ARG... --json lint.json; $rc, $out, $err
lint() {
	"$SANDEVAL" lint "${BACKEND_OPTS[@]}" --json lint.json "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
}

flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit ${rc-}; stderr:"
		tail -c 3000 stderr.txt
		echo "--- stdout:"
		tail -c 3000 stdout.txt
		[[ -e lint.json ]] && { echo "--- lint.json:"; head -c 3000 lint.json; }
	} >&2
	return 1
}

need_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || skip "deps: $t is not installed (scripts/deps.sh installs it)"
	done
}

# sample ID TASK SOLUTION: one JSONL line
sample() { jq -nc --arg id "$1" --arg t "$2" --arg s "$3" '{sample_id: $id, task_id: $t, solution: $s}'; }

# field SAMPLE_ID JQ: a jq expression on that sample of lint.json
field() { jq -r --arg id "$1" ".samples[] | select(.sample_id == \$id) | $2" lint.json; }

@test "a clean Python sample passes; unused import and eval(input()) fail it, with flake8 and bandit findings" {
	need_tools flake8 bandit
	{
		sample clean sum_to $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n'
		sample dirty sum_to $'import os\n\n\ndef sum_to(n: int) -> int:\n    return eval(input())\n'
		sample style sum_to $'def sum_to(n):\n    total=0 \n    for i in range(n + 1):\n        total += i\n    return total\n'
	} >s.jsonl
	lint --tasks "$EX/tasks" --samples s.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $(field clean .lint) == passed ]] || flunk "the clean sample did not pass"
	[[ $(field dirty .lint) == failed ]] || flunk "the dirty sample did not fail"
	[[ $(field dirty '.findings[] | select(.tool == "flake8" and .rule == "F401") | "\(.line) \(.severity) \(.category)"') == "1 warning unused" ]] ||
		flunk "no F401 finding on line 1"
	[[ $(field dirty '.findings[] | select(.tool == "bandit" and .rule == "B307") | "\(.line) \(.category)"') == "5 security" ]] ||
		flunk "no bandit B307 (eval) finding on line 5"
	# layout findings are style: below the default threshold, above --lint-severity style
	[[ $(field style .lint) == passed && -n $(field style '.findings[] | select(.rule == "E225")') ]] ||
		flunk "the style-only sample: $(field style '[.lint, .lint_detail] | join(": ")')"
	[[ $out == *"dirty: failed"* && $out == *"pass rate 0.667 (2/3)"* && $out == *"security"* ]] ||
		flunk "the table lacks the figures"
	lint --tasks "$EX/tasks" --samples s.jsonl --lint-severity style
	[[ $(field style .lint) == failed && $(field clean .lint) == passed ]] || flunk "--lint-severity style"
	lint --tasks "$EX/tasks" --samples s.jsonl --lint-severity error
	[[ $(field dirty .lint) == passed ]] || flunk "--lint-severity error: warnings should not fail"
}

@test "a C sample with an out-of-bounds write has a cppcheck finding; a syntax error a clang-tidy one" {
	need_tools cppcheck clang-tidy
	{
		sample oob gcd $'long gcd(long a, long b)\n{\n\tlong t[2];\n\n\tt[2] = a;\n\treturn b == 0 ? a : gcd(b, a % b);\n}\n'
		sample syntax gcd $'long gcd(long a, long b)\n{\n\treturn b == 0 ? a : gcd(b, a % b)\n}\n'
		sample clean gcd $'long gcd(long a, long b)\n{\n\treturn b == 0 ? a : gcd(b, a % b);\n}\n'
	} >s.jsonl
	lint --tasks "$EX/tasks" --samples s.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $(field oob .lint) == failed ]] || flunk "the out-of-bounds write passed"
	[[ $(field oob '.findings[] | select(.tool == "cppcheck") | "\(.rule) \(.line) \(.severity)"') == *"arrayIndexOutOfBounds 5 error"* ]] ||
		flunk "no cppcheck arrayIndexOutOfBounds on line 5"
	[[ $(field syntax '.findings[] | select(.tool == "clang-tidy") | "\(.rule) \(.line) \(.category)"') == "clang-diagnostic-error 3 error" ]] ||
		flunk "no clang-tidy error on line 3"
	[[ $(field clean .lint) == passed ]] || flunk "the clean C sample: $(field clean .lint_detail)"
}

@test "a JavaScript sample with an undefined name and eval has eslint findings; the example's does not" {
	need_tools eslint
	{
		sample dirty reverse_words $'function reverse_words(s) {\n\tvar unused = 1;\n\treturn eval("s").split(" ").reverse().join(" ") + missing;\n}\n'
		sample clean reverse_words $'function reverse_words(s) {\n\treturn s.split(" ").filter((w) => w !== "").reverse().join(" ");\n}\n'
	} >s.jsonl
	lint --tasks "$EX/tasks" --samples s.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $(field dirty .lint) == failed ]] || flunk "the dirty JS sample: $(field dirty '[.lint, .lint_detail] | join(": ")')"
	[[ $(field dirty '[.findings[] | select(.tool == "eslint") | .rule] | sort | join(",")') == "no-eval,no-undef,no-unused-vars,no-var" ]] ||
		flunk "eslint findings: $(field dirty '[.findings[].rule] | join(",")')"
	[[ $(field dirty '.findings[] | select(.rule == "no-undef") | "\(.line) \(.severity)"') == "3 error" ]] || flunk "no-undef"
	[[ $(field clean .lint) == passed ]] || flunk "the clean JS sample: $(field clean .lint_detail)"
}

@test "a linter missing from the sandbox is 'unavailable', naming it, never a pass" {
	need_tools clang-tidy
	sample clean gcd $'long gcd(long a, long b)\n{\n\treturn b == 0 ? a : gcd(b, a % b);\n}\n' >c.jsonl
	sample clean sum_to $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n' >py.jsonl
	# only clang-tidy is on this PATH (LLVM's own bin directory, as Debian
	# lays it out: /usr/lib/llvm-14/bin): cppcheck is missing
	local llvm
	llvm=$(dirname "$(readlink -f "$(command -v clang-tidy)")")
	[[ -x $llvm/clang-tidy && ! -e $llvm/cppcheck ]] ||
		skip "host: clang-tidy's directory '$llvm' is not an LLVM bin directory without cppcheck (Debian's layout)"
	SANDEVAL_LINT_PATH=$llvm lint --tasks "$EX/tasks" --samples c.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $(field clean .lint) == unavailable ]] || flunk "lint is '$(field clean .lint)'"
	[[ $(field clean .lint_detail) == *"cppcheck is not installed"* && $(field clean .lint_detail) != *clang-tidy* ]] ||
		flunk "detail: $(field clean .lint_detail)"
	[[ $(jq -r .pass_rate lint.json) == null && $(jq -r .unavailable lint.json) == 1 ]] || flunk "counted as a pass"
	[[ $out == *"1 unavailable"* ]] || flunk "table: $out"
	# nothing at all on the PATH, in sandeval run: no composite
	SANDEVAL_LINT_PATH=/nonexistent run_eval --tasks "$EX/tasks" --samples py.jsonl --partial --json sum.json --out o.jsonl --seed 1
	((rc == 0)) || flunk "run: exit $rc"
	[[ $(jq -r .lint o.jsonl) == unavailable && $(jq -r .lint_detail o.jsonl) == *"flake8 is not installed"*"bandit is not installed"* ]] ||
		flunk "run: $(jq -c '{lint, lint_detail}' o.jsonl)"
	[[ $(jq -r .composite o.jsonl) == null && $(jq 'has("composite")' sum.json) == false ]] || flunk "a composite without lint results"
	[[ $(jq -r .lint.unavailable sum.json) == 1 && $out == *"composite  absent"* ]] || flunk "summary: $out"
}

@test "sandeval run on the example suite shows lint figures and the composite; --no-lint leaves them out" {
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --json sum.json --out o.jsonl --seed 7
	((rc == 0)) || flunk "exit $rc"
	local mean rate comp
	mean=$(jq .score.mean sum.json)
	rate=$(jq .lint.pass_rate sum.json)
	comp=$(jq .composite sum.json)
	[[ $rate != null && $comp != null ]] || flunk "no lint pass rate or composite in the JSON summary"
	jq -en --argjson m "$mean" --argjson r "$rate" --argjson c "$comp" '($c - (0.7 * $m + 0.3 * $r)) | fabs < 1e-9' >/dev/null ||
		flunk "composite $comp is not 0.7 x $mean + 0.3 x $rate"
	[[ $(jq -r '.lint.passed + .lint.failed + .lint.unavailable + .lint.error' sum.json) == 5 ]] || flunk "not every sample was linted"
	[[ $(jq -r '.lint.classes | keys | sort | join(",")' sum.json) == "loops,math,recursion,strings" ]] || flunk "per-class lint figures"
	[[ $out == *"lint       pass rate"* ]] && [[ $out == *"composite  "[01].[0-9][0-9][0-9]" = 0.7 x mean"* ]] || flunk "table: $out"
	[[ $(jq -r 'select(.lint == "passed" or .lint == "failed") | .composite' o.jsonl | grep -c null) == 0 ]] || flunk "a linted sample without a composite"
	[[ $(sqlite3 t.db "select count(*) from samples where lint in ('passed', 'failed') and composite is not null") == 5 ]] ||
		flunk "the records lack lint results"
	rm -f t.db
	run_eval --tasks "$EX/tasks" --samples "$EX/samples/good.jsonl" --json sum.json --out o.jsonl --seed 7 --no-lint
	((rc == 0)) || flunk "--no-lint: exit $rc"
	[[ $(jq 'has("composite") or has("lint")' sum.json) == false ]] || flunk "--no-lint: composite or lint in the summary"
	[[ $out == *"composite  absent: no lint results (--no-lint)"* && $out != *"pass rate"* ]] || flunk "--no-lint table: $out"
	[[ $(jq -r 'has("lint")' o.jsonl | sort -u) == false ]] || flunk "--no-lint: per-sample lint fields"
}

@test "a HumanEval run shows lint figures (prompt + completion linted, not the tests)" {
	[[ -r $HE ]] || skip "data: no HumanEval data at '$HE' (set SANDEVAL_DATA)"
	# five tasks; HumanEval/11's prompt imports List and its canonical solution does not use it: flake8
	# reports F401 on line 1, the prompt's
	zcat "$HE" | jq -c 'select(.task_id == "HumanEval/0" or .task_id == "HumanEval/2" or .task_id == "HumanEval/11"
		or .task_id == "HumanEval/53" or .task_id == "HumanEval/160")' | gzip >he5.jsonl.gz
	zcat he5.jsonl.gz | jq -c '{task_id, completion: .canonical_solution}' >canon.jsonl
	run_eval --tasks he5.jsonl.gz --samples canon.jsonl --json sum.json --out o.jsonl
	((rc == 0)) || flunk "exit $rc"
	[[ $(jq -r .lint.classes.humaneval.pass_rate sum.json) != null && $(jq -r .composite sum.json) != null ]] ||
		flunk "no lint figures: $(jq -c .lint sum.json)"
	# ... but the prompt is the task's, not the candidate's: its finding is left out and counted apart
	[[ -z $(jq -r 'select(.task_id == "HumanEval/11") | .findings[] | select(.line == 1)' o.jsonl) &&
		$(jq -r 'select(.task_id == "HumanEval/11") | .lint' o.jsonl) == passed ]] ||
		flunk "HumanEval/11: the prompt's unused import is charged: $(jq -c 'select(.task_id == "HumanEval/11")
			| {lint, findings}' o.jsonl)"
	# (the detail ends there, but for the note that the report came from a batch: docs/lint.md)
	[[ $(jq -r 'select(.task_id == "HumanEval/11") | .lint_detail' o.jsonl |
		sed -E 's/; linted in a batch \(lint sandbox [0-9a-f]+\)$//') == *"; 1 more on the task's own lines (its prompt), not counted" ]] ||
		flunk "HumanEval/11: the detail does not count the prompt's finding: $(jq -r 'select(.task_id == "HumanEval/11") | .lint_detail' o.jsonl)"
	# no finding left on a prompt line of any task
	[[ -z $(jq -r --slurpfile t <(zcat he5.jsonl.gz | jq -s 'map({key: .task_id, value: (.prompt | split("\n") | length - 1)}) | from_entries') \
		'.task_id as $id | .findings[] | select(.line > 0 and .line <= $t[0][$id]) | "\($id): \(.rule) line \(.line)"' o.jsonl) ]] ||
		flunk "findings on prompt lines are charged"
	[[ $(jq -r 'select(.task_id == "HumanEval/160") | .findings[] | select(.tool == "bandit") | .rule' o.jsonl) == B307 ]] ||
		flunk "HumanEval/160: eval() is not reported"
	# the test code (check(candidate)) is not linted: no finding names 'check'
	[[ -z $(jq -r '.findings[].message | select(test("check"))' o.jsonl) ]] || flunk "the tests were linted"
	[[ $out == *"class humaneval: 0.800 (4/5)"* ]] || flunk "table: $out"
}

@test "SIGTERM to sandeval lint: the lint sandboxes running stopped, the samples linted until then recorded" {
	need_tools flake8 bandit
	local i n
	for i in $(seq 30); do
		sample "s$i" sum_to $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2  # '"$i"$'\n'
	done >s.jsonl
	# --cold: a sandbox a sample, linters executed afresh: slow enough to be caught mid-way
	env --default-signal "$SANDEVAL" lint "${BACKEND_OPTS[@]}" --tasks "$EX/tasks" --samples s.jsonl --db l.db --cold --jobs 2 \
		>stdout.txt 2>stderr.txt &
	local pid=$!
	for ((i = 0; i < 600; i++)); do
		n=$(sqlite3 l.db 'select count(*) from samples' 2>/dev/null) || n=0
		((n >= 2)) && break
		sleep 0.1
	done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	((rc == 143)) || flunk "exit $rc"
	[[ $(tail -n 1 stderr.txt) == "sandeval: lint: interrupted by SIGTERM: no lint sandbox is left running" ]] ||
		flunk "the last line of stderr"
	n=$(sqlite3 l.db 'select count(*) from samples')
	((n >= 2 && n < 30)) || flunk "$n samples recorded"
	[[ $(sqlite3 l.db "select count(*) from samples where lint not in ('passed', 'failed')") == 0 ]] ||
		flunk "an interrupted sample was recorded: $(sqlite3 l.db 'select sample_id, lint from samples')"
}

@test "--db records a lint-only run; bad options exit 2" {
	sample clean sum_to $'def sum_to(n: int) -> int:\n    return n * (n + 1) // 2\n' >s.jsonl
	lint --tasks "$EX/tasks" --samples s.jsonl --db l.db
	((rc == 0)) || flunk "exit $rc"
	[[ $(sqlite3 l.db "select json_extract(config_json, '\$.command') from runs") == lint ]] || flunk "no lint run recorded"
	[[ $(sqlite3 l.db "select lint from samples") =~ ^(passed|failed|unavailable)$ ]] || flunk "no lint result recorded"
	lint --tasks "$EX/tasks" --samples s.jsonl --lint-severity fatal
	((rc == 2)) && [[ $err == *"--lint-severity 'fatal'"* ]] || flunk "--lint-severity fatal: exit $rc"
	run_eval --tasks "$EX/tasks" --samples s.jsonl --lint-severity none
	((rc == 2)) && [[ $err == *"--lint-severity 'none'"* ]] || flunk "run --lint-severity none: exit $rc"
	lint --samples s.jsonl
	((rc == 2)) && [[ $err == *"--tasks"* ]] || flunk "missing --tasks: exit $rc"
}
