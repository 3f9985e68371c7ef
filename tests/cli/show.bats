#!/usr/bin/env bats
# show.bats - `sandeval show`: a run's failing tests as feedback, in text and JSON (docs/show.md)
#
# A front end on the pipeline, the same whatever sandboxes it: run natively as
# root and under ASan, not repeated in the gVisor and uid 65534 passes, where
# run.bats, exec.bats and tripwires.bats prove the sandbox (tests/README.md).
# bats file_tags=frontend

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
EX=$BATS_TEST_DIRNAME/../../examples
BACKEND_OPTS=()
[[ ${SANDEVAL_BACKEND:-native} == native ]] || BACKEND_OPTS=(--backend "$SANDEVAL_BACKEND")

setup_file() {
	export DB=$BATS_FILE_TMPDIR/runs.db
	local s
	for s in buggy good; do
		"$SANDEVAL" run --db "$DB" --tasks "$EX/tasks" --samples "$EX/samples/$s.jsonl" --jobs 2 --seed 7 --quiet \
			--json "$BATS_FILE_TMPDIR/$s.json" "${BACKEND_OPTS[@]}" >/dev/null 2>"$BATS_FILE_TMPDIR/$s.err" ||
			{ cat "$BATS_FILE_TMPDIR/$s.err" >&2; return 1; }
	done
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	BUGGY=$(jq -r .run.id "$BATS_FILE_TMPDIR/buggy.json")
	GOOD=$(jq -r .run.id "$BATS_FILE_TMPDIR/good.json")
}

flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit $rc; stdout:"
		head -c 4000 stdout.txt
		echo "--- stderr:"
		head -c 2000 stderr.txt
	} >&2
	return 1
}

show() {
	"$SANDEVAL" show --db "$DB" "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
}

@test "the failing test and its expected vs actual of the off-by-one appear; passes are a count" {
	show "$BUGGY"
	((rc == 0)) || flunk "exit $rc"
	[[ $out == *"sample sum-to-off-by-one  task sum_to (loops)  score 0.214  failed"* ]] || flunk "no sample line"
	[[ $out == *"FAIL five [canonical] failed"*"for [5]: expected 15, got 10"* ]] || flunk "no failing test with its detail"
	[[ $out == *"FAIL case [edge] failed"*"for ['Aa']: expected False, got True"* ]] || flunk "palindrome"
	[[ $out == *"tests: 6 passed, 1 failed (of 7)"* ]] || flunk "passing tests not counted"
	[[ $out != *"FAIL small [canonical] passed"* && $out != *"] passed"* ]] || flunk "a passing test was listed"
	# the holdout test is named, its detail withheld unless asked for
	[[ $out == *"FAIL large [canonical, holdout] failed"*"detail withheld"* ]] || flunk "holdout not withheld"
	[[ $out != *"5000050000"* ]] || flunk "the holdout test's expected value leaked"
	show "$BUGGY" sum_to --holdout
	[[ $out == *"expected 5000050000"* ]] || flunk "--holdout does not show it"
	[[ $out != *"fib-exponential"* ]] || flunk "TASK_ID did not restrict to the task"
}

@test "a compiler's diagnostics are cut to the first lines, with a marker" {
	show "$BUGGY" gcd --lines 3
	((rc == 0)) || flunk "exit $rc"
	[[ $out == *"FAIL small [canonical] compile_error"* ]] || flunk "no compile_error"
	[[ $out == *"expected ‘;’ before ‘}’ token"* ]] || flunk "the diagnostic is missing"
	[[ $out == *"[... cut: "*" more line"* ]] || flunk "no cut marker"
	[[ $out == *"(the same detail as 'small')"* ]] || flunk "repeated details are not folded"
	local n
	n=$(awk '/FAIL small/{f=1; next} f && /FAIL|\[\.\.\. cut/{exit} f' stdout.txt | wc -l)
	((n == 3)) || flunk "$n lines of detail shown, want 3"
}

@test "--json parses and has the documented fields" {
	show "$BUGGY" sum_to --json
	((rc == 0)) || flunk "exit $rc"
	jq -e . stdout.txt >/dev/null || flunk "not JSON"
	jq -e --arg id "$BUGGY" '.format == "sandeval-show" and .version == 1 and .run.id == $id and .task == "sum_to"
		and (.run | has("suite_hash") and has("formula_version") and has("model"))
		and (.limits | .detail_lines == 5 and .detail_bytes == 500 and .holdout_details == false)
		and (.samples | length == 1)' stdout.txt >/dev/null || flunk "top-level fields"
	jq -e '.samples[0] | .sample_id == "sum-to-off-by-one" and .task_id == "sum_to" and .task_class == "loops"
		and (.score | type == "number") and .passed == false and .harness_error == false
		and .tests == {total: 6, passed: 1, failed: 5, harness_errors: 0}
		and (.lint | has("status") and has("findings") and has("findings_total"))' stdout.txt >/dev/null ||
		flunk "sample fields"
	jq -e '.samples[0].failures[0] | .name == "five" and .tier == "canonical" and .visibility == "public"
		and .status == "failed" and .detail == "for [5]: expected 15, got 10" and .detail_cut_lines == 0
		and .withheld == false' stdout.txt >/dev/null || flunk "failure fields"
	jq -e '.samples[0].failures[] | select(.name == "large") | .withheld == true and .detail == null' stdout.txt \
		>/dev/null || flunk "the holdout failure is not withheld"
	show "$GOOD" --json
	jq -e '(.samples | length == 5) and ([.samples[].failures | length] | add == 0) and .task == null' stdout.txt \
		>/dev/null || flunk "good run: failures listed"
}

@test "lint findings appear when the run was linted (needs flake8)" {
	command -v flake8 >/dev/null || skip "deps: flake8 is not installed"
	local statuses
	show "$BUGGY" --json
	((rc == 0)) || flunk "exit $rc"
	statuses=$(jq -r '[.samples[].lint.status] | unique | join(",")' stdout.txt) && [[ -n $statuses ]] ||
		flunk "no lint status"
	[[ $statuses != none ]] || flunk "the run was not linted"
	# the buggy samples have findings (flake8 at least): an empty list is no pass
	jq -e '[.samples[].lint | select(.findings_total > 0) | .findings[0] | has("tool") and has("rule") and has("line")
		and has("message")] | length > 0 and all' stdout.txt >/dev/null || flunk "no findings, or finding fields"
}

@test "without SQLite's library a store command says so and exits 2; exec, which opens no store, runs" {
	((EUID == 0)) || skip "needs root: hides the library in a mount namespace of its own"
	local lib
	lib=$(ldconfig -p | awk '$1 == "libsqlite3.so.0" && /x86-64/ {print $NF; exit}')
	[[ -n $lib ]] || flunk "no libsqlite3.so.0 in ld.so's cache"
	lib=$(readlink -f "$lib")
	# /dev/null over the library: dlopen finds a file, not an ELF object
	unshare -m sh -c 'mount --bind /dev/null "$1" && "$2" show --db "$3" "$4"; echo "rc=$?"
		"$2" exec -- /bin/true' sh "$lib" "$SANDEVAL" "$DB" "$BUGGY" >stdout.txt 2>stderr.txt ||
		flunk "unshare: $(cat stderr.txt)"
	grep -q "^rc=2$" stdout.txt || flunk "show: $(cat stdout.txt)"
	grep -q "SQLite's library cannot be loaded (.*apt-get install libsqlite3-0)" stderr.txt ||
		flunk "message: $(cat stderr.txt)"
	tail -n 1 stdout.txt | jq -e '.status == "ok"' >/dev/null || flunk "exec: $(cat stdout.txt)"
}

@test "unknown run, unknown task, missing database and bad usage exit 2 with a message" {
	show r-00000000000000aa
	((rc == 2)) && [[ $err == *"no run 'r-00000000000000aa'"* ]] || flunk "unknown run: exit $rc"
	show "$BUGGY" no_such_task
	((rc == 2)) && [[ $err == *"has no sample of task 'no_such_task'"* ]] || flunk "unknown task: exit $rc"
	"$SANDEVAL" show --db none.db "$BUGGY" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "no database 'none.db'" stderr.txt || flunk "missing database: exit $rc"
	[[ ! -e none.db ]] || flunk "show created a database"
	show
	((rc == 2)) && [[ $err == *"RUN_ID is required"* ]] || flunk "no run id: exit $rc"
	show "$BUGGY" a b
	((rc == 2)) || flunk "three arguments: exit $rc"
	show "$BUGGY" --lines 0
	((rc == 2)) && [[ $err == *"--lines"* ]] || flunk "--lines 0: exit $rc"
}
