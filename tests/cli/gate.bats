#!/usr/bin/env bats
# gate.bats - `sandeval gate` and `sandeval export` on real runs: regressions caught, equal runs pass, fails closed
#
# A front end on the pipeline, the same whatever sandboxes it: run natively as
# root and under ASan, not repeated in the gVisor and uid 65534 passes, where
# run.bats, exec.bats and tripwires.bats prove the sandbox (tests/README.md).
# bats file_tags=frontend

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
EX=$BATS_TEST_DIRNAME/../../examples
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
BACKEND_OPTS=()
[[ ${SANDEVAL_BACKEND:-native} == native ]] || BACKEND_OPTS=(--backend "$SANDEVAL_BACKEND")

# evaluate ID_FILE TASKS SAMPLES [OPTION...]: a run into $DB, its id written to ID_FILE
evaluate() {
	local idf=$1 tasks=$2 samples=$3
	shift 3
	"$SANDEVAL" run --db "$DB" --tasks "$tasks" --samples "$samples" --jobs 2 --seed 7 --quiet \
		--json "$idf.summary.json" "${BACKEND_OPTS[@]}" "$@" >"$idf.out" 2>"$idf.err" ||
		{ cat "$idf.err" >&2; return 1; }
	jq -r .run.id "$idf.summary.json" >"$idf"
}

setup_file() {
	export DB=$BATS_FILE_TMPDIR/runs.db
	local d=$BATS_FILE_TMPDIR
	# the example suite: the good samples twice, the deliberately worse ones once
	evaluate "$d/good1" "$EX/tasks" "$EX/samples/good.jsonl" --no-lint
	evaluate "$d/good2" "$EX/tasks" "$EX/samples/good.jsonl" --no-lint
	evaluate "$d/buggy" "$EX/tasks" "$EX/samples/buggy.jsonl" --no-lint
	# another suite: two of the five tasks
	mkdir -p "$d/subset-tasks"
	cp -r "$EX/tasks/sum_to" "$EX/tasks/is_palindrome" "$d/subset-tasks/"
	grep -E '"task_id": "(sum_to|is_palindrome)"' "$EX/samples/good.jsonl" >"$d/subset.jsonl"
	evaluate "$d/subset" "$d/subset-tasks" "$d/subset.jsonl" --no-lint
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	GOOD1=$(cat "$BATS_FILE_TMPDIR/good1")
	GOOD2=$(cat "$BATS_FILE_TMPDIR/good2")
	BUGGY=$(cat "$BATS_FILE_TMPDIR/buggy")
	SUBSET=$(cat "$BATS_FILE_TMPDIR/subset")
	cp "$DB" t.db
}

flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit $rc; stdout:"
		tail -c 3000 stdout.txt
		echo "--- stderr:"
		tail -c 2000 stderr.txt
	} >&2
	return 1
}

# gate ARG...: sandeval gate --db t.db ARG...; sets $rc, $out, $err, $verdict (the last line of
# stdout) and checks that the verdict printed is the one the exit status says
gate() {
	"$SANDEVAL" gate --db t.db "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
	verdict=$(tail -n 1 stdout.txt)
	case $rc in
	0) [[ $verdict == "gate: PASS: "* ]] || flunk "exit 0 but the verdict line is '$verdict'" ;;
	1) [[ $verdict == "gate: REGRESSION: "* ]] || flunk "exit 1 but the verdict line is '$verdict'" ;;
	2) [[ $verdict == "gate: CANNOT JUDGE: "* ]] || flunk "exit 2 but the verdict line is '$verdict'" ;;
	*) flunk "exit status $rc" ;;
	esac
}

# cannot_judge WHAT PATTERN ARG...: the gate exits 2 and its verdict matches *PATTERN*
cannot_judge() {
	local what=$1 pattern=$2
	shift 2
	gate "$@" || return 1
	((rc == 2)) || flunk "$what: exit $rc, want 2"
	[[ $verdict == *"$pattern"* ]] || flunk "$what: the verdict does not say '$pattern': $verdict"
}

@test "the gate catches the deliberately worse sample set (exit 1) and passes an equal one (exit 0)" {
	gate --baseline "$GOOD1" --candidate "$BUGGY" --json g.json
	((rc == 1)) || flunk "good -> buggy: exit $rc, want 1"
	[[ $verdict == *"mean -0."*"over 5 shared tasks"* ]] || flunk "verdict: $verdict"
	[[ $out == *"tasks that got worse: 5 of 5"* && $out == *"sum_to"* ]] || flunk "the worse tasks are not listed"
	[[ $(jq -r .verdict g.json) == regression && $(jq -r .exit_code g.json) == 1 ]] || flunk "g.json: $(cat g.json)"
	jq -e '.all.diff < -0.3 and .all.ci[1] < 0 and (.tasks | length) == 5' g.json >/dev/null || flunk "g.json numbers"
	gate --baseline "$GOOD1" --candidate "$GOOD2"
	((rc == 0)) || flunk "good -> good again: exit $rc, want 0"
	[[ $verdict == *"mean +0.0000 over 5 shared tasks"* ]] || flunk "verdict: $verdict"
	# the other way round the buggy run is the baseline: an improvement passes
	gate --baseline "$BUGGY" --candidate "$GOOD2" --metric pass@1
	((rc == 0)) || flunk "buggy -> good: exit $rc, want 0"
	gate --baseline "$GOOD2" --candidate "$BUGGY" --metric pass@1
	((rc == 1)) || flunk "pass@1 good -> buggy: exit $rc, want 1"
	[[ $verdict == *"pass@1 -1.0000"* ]] || flunk "pass@1 verdict: $verdict"
}

@test "--per-class fails on a class that regressed; the same seed gives the same interval" {
	gate --baseline "$GOOD1" --candidate "$BUGGY" --per-class --json a.json
	((rc == 1)) || flunk "exit $rc"
	[[ $out == *"class strings"*regression* && $out == *"class loops"* ]] || flunk "classes not listed"
	gate --baseline "$GOOD1" --candidate "$BUGGY" --per-class --json b.json
	[[ $(jq -c .all a.json) == "$(jq -c .all b.json)" ]] || flunk "two runs of the gate differ"
	gate --baseline "$GOOD1" --candidate "$BUGGY" --per-class --json c.json --seed 99
	[[ $(jq -c .all.diff a.json) == "$(jq -c .all.diff c.json)" ]] || flunk "the seed changed the mean difference"
	# a big epsilon lets the drop through
	gate --baseline "$GOOD1" --candidate "$BUGGY" --epsilon 0.9
	((rc == 0)) || flunk "--epsilon 0.9: exit $rc"
}

@test "a baseline exported to a JSON file gives the verdict of the run it came from" {
	"$SANDEVAL" export "$GOOD1" --db t.db -o base.json || flunk "export failed"
	[[ $(jq -r .format base.json) == sandeval-run && $(jq -r .version base.json) == 1 ]] || flunk "format"
	[[ $(jq -r .run.suite_hash base.json) == "$(sqlite3 t.db "select suite_hash from runs where id = '$GOOD1'")" ]] ||
		flunk "suite hash"
	[[ $(jq '.samples | length' base.json) == 5 ]] || flunk "not 5 samples"
	jq -e '.samples[] | has("task_id") and has("task_class") and has("sample_id") and has("score") and
		has("passed") and has("lint") and has("composite") and has("harness_error")' base.json >/dev/null ||
		flunk "a sample lacks a field"
	gate --baseline base.json --candidate "$BUGGY" --json file.json
	((rc == 1)) || flunk "file -> buggy: exit $rc"
	gate --baseline "$GOOD1" --candidate "$BUGGY" --json db.json
	[[ $(jq -c '[.all, .tasks]' file.json) == "$(jq -c '[.all, .tasks]' db.json)" ]] || flunk "file and database disagree"
	gate --baseline base.json --candidate "$GOOD2"
	((rc == 0)) || flunk "file -> good: exit $rc"
	# both sides from files, tests included
	"$SANDEVAL" export "$BUGGY" --db t.db --tests >cand.json || flunk "export to stdout failed"
	jq -e '.samples[0].tests | length > 0' cand.json >/dev/null || flunk "--tests has no tests"
	gate --baseline base.json --candidate cand.json
	((rc == 1)) || flunk "file -> file: exit $rc"
}

@test "--junit is well-formed XML with a failure on a regression and an error when it cannot judge" {
	command -v xmllint >/dev/null || skip "deps: xmllint (libxml2-utils) is not installed"
	gate --baseline "$GOOD1" --candidate "$BUGGY" --per-class --junit r.xml
	xmllint --noout r.xml || flunk "r.xml is not well-formed"
	[[ $(xmllint --xpath 'count(//testcase)' r.xml) == 5 ]] || flunk "want 5 test cases (all + 4 classes)"
	[[ $(xmllint --xpath 'count(//failure)' r.xml) -ge 1 ]] || flunk "no failure on a regression"
	gate --baseline "$GOOD1" --candidate "$GOOD2" --junit p.xml
	xmllint --noout p.xml || flunk "p.xml is not well-formed"
	[[ $(xmllint --xpath 'count(//failure)' p.xml) == 0 && $(xmllint --xpath 'count(//error)' p.xml) == 0 ]] ||
		flunk "failures on a pass"
	gate --baseline "$GOOD1" --candidate nope.json --junit e.xml
	((rc == 2)) || flunk "exit $rc"
	xmllint --noout e.xml || flunk "e.xml is not well-formed"
	[[ $(xmllint --xpath 'string(//error/@type)' e.xml) == cannot_judge ]] || flunk "no error element"
}

@test "the gate fails closed (exit 2) and says why" {
	cannot_judge "unknown run" "no run 'r-00000000000000aa'" --baseline r-00000000000000aa --candidate "$BUGGY"
	cannot_judge "missing file" "cannot open 'nope.json': No such file or directory" \
		--baseline nope.json --candidate "$BUGGY"
	# a results JSONL (run --out, human-eval's) for a baseline: what the gate wants instead
	printf '%s\n' '{"task_id": "sum_to", "completion": "x", "passed": true, "result": "passed"}' \
		'{"task_id": "fib", "completion": "y", "passed": false, "result": "failed: x"}' >results.jsonl
	cannot_judge "results JSONL" "'results.jsonl' holds results, one sample a line (as 'sandeval run --out' or human-eval write them), not a run: give a run id, or a file written by 'sandeval export RUN_ID -o FILE'" \
		--baseline results.jsonl --candidate "$BUGGY"
	cannot_judge "missing database" "no database 'none.db'" --db none.db --baseline "$GOOD1" --candidate "$BUGGY"
	[[ ! -e none.db ]] || flunk "the gate created a database"
	cannot_judge "different suites" "different suites" --baseline "$GOOD1" --candidate "$SUBSET"
	cannot_judge "pass@K, K > n" "pass@2 needs at least 2 scored samples per task" \
		--baseline "$GOOD1" --candidate "$BUGGY" --metric pass@2
	cannot_judge "lint without lint results" "has no lint results" --baseline "$GOOD1" --candidate "$GOOD2" --metric lint
	cannot_judge "composite without lint results" "--metric composite needs linted runs" \
		--baseline "$GOOD1" --candidate "$BUGGY" --metric composite

	# runs changed in a copy of the database
	sqlite3 t.db "CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = '$GOOD2';
		UPDATE r SET id = 'r-00000000000000e1'; INSERT INTO runs SELECT * FROM r;
		UPDATE r SET id = 'r-00000000000000e2', finished_ms = NULL; INSERT INTO runs SELECT * FROM r;
		UPDATE runs SET formula_version = '1' WHERE id = '$GOOD2';
		UPDATE samples SET harness_error = 1, score = NULL, passed = 0 WHERE run_id = '$SUBSET';
		UPDATE runs SET suite_hash = (SELECT suite_hash FROM runs WHERE id = '$GOOD1') WHERE id = '$SUBSET'"
	cannot_judge "no samples" "has no samples" --baseline "$GOOD1" --candidate r-00000000000000e1
	cannot_judge "unfinished" "is unfinished" --baseline "$GOOD1" --candidate r-00000000000000e2
	cannot_judge "formula versions" "different formula versions" --baseline "$GOOD1" --candidate "$GOOD2"
	cannot_judge "harness errors only" "harness errors" --baseline "$GOOD1" --candidate "$SUBSET"

	# exported files changed with jq
	"$SANDEVAL" export "$GOOD1" --db t.db -o base.json
	jq '.samples[].task_id |= "other-" + .' base.json >other.json
	cannot_judge "no shared tasks" "no shared tasks" --baseline other.json --candidate "$BUGGY"
	jq '.samples[3].score = "high"' base.json >bad.json
	cannot_judge "malformed file" "'bad.json': samples[3].score: expected a number or null, got a string" \
		--baseline bad.json --candidate "$BUGGY"
	jq '.run.finished_ms = null' base.json >unfinished.json
	cannot_judge "unfinished file" "is unfinished" --baseline unfinished.json --candidate "$BUGGY"
	jq '.version = 9' base.json >newer.json
	cannot_judge "newer format" "version: 9 is newer" --baseline newer.json --candidate "$BUGGY"
	printf '{"format": "sandeval-run",' >truncated.json
	cannot_judge "truncated file" "'truncated.json':1:" --baseline truncated.json --candidate "$BUGGY"

	# usage
	cannot_judge "no candidate" "--baseline and --candidate are required" --baseline "$GOOD1"
	cannot_judge "bad metric" "unknown metric 'best'" --baseline "$GOOD1" --candidate "$BUGGY" --metric best
	cannot_judge "bad epsilon" "--epsilon" --baseline "$GOOD1" --candidate "$BUGGY" --epsilon -1
	cannot_judge "unknown option" "--bogus" --baseline "$GOOD1" --candidate "$BUGGY" --bogus
}

@test "export: unknown run or database, bad usage exit 2; -o leaves no partial file" {
	"$SANDEVAL" export r-00000000000000aa --db t.db -o x.json 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "no run 'r-00000000000000aa'" err.txt || flunk "unknown run: exit $rc: $(cat err.txt)"
	[[ ! -e x.json && ! -e x.json.tmp ]] || flunk "a file was left"
	"$SANDEVAL" export "$GOOD1" --db none.db 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "no database 'none.db'" err.txt || flunk "missing db: exit $rc"
	"$SANDEVAL" export --db t.db 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "RUN_ID is required" err.txt || flunk "no run id: exit $rc"
	"$SANDEVAL" export "$GOOD1" --db t.db -o /nonexistent/dir/x.json 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "cannot create" err.txt || flunk "unwritable: exit $rc: $(cat err.txt)"
}

@test "HumanEval: empty completions regress against the canonical solutions on 10 real tasks" {
	[[ -r $HE ]] || skip "data: no HumanEval data at '$HE' (set SANDEVAL_DATA)"
	zcat "$HE" | head -n 10 >he10.jsonl
	jq -c '{task_id, completion: .canonical_solution}' he10.jsonl >canonical.jsonl
	jq -c '{task_id, completion: "    pass\n"}' he10.jsonl >empty.jsonl
	rm -f t.db
	DB=$PWD/t.db
	evaluate c1 he10.jsonl canonical.jsonl --no-lint || flunk "canonical run failed"
	evaluate c2 he10.jsonl canonical.jsonl --no-lint || flunk "second canonical run failed"
	evaluate e1 he10.jsonl empty.jsonl --no-lint || flunk "empty run failed"
	gate --baseline "$(cat c1)" --candidate "$(cat e1)" --metric pass@1 --junit he.xml
	((rc == 1)) || flunk "canonical -> empty: exit $rc, want 1"
	[[ $verdict == *"pass@1 -1.0000 over 10 shared tasks"* ]] || flunk "verdict: $verdict"
	gate --baseline "$(cat c1)" --candidate "$(cat c2)"
	((rc == 0)) || flunk "canonical -> canonical: exit $rc, want 0"
	"$SANDEVAL" export "$(cat c1)" --db t.db -o he-base.json
	gate --baseline he-base.json --candidate "$(cat e1)"
	((rc == 1)) || flunk "exported canonical -> empty: exit $rc, want 1"
}

@test "lint and composite: linted runs are judged (needs flake8)" {
	command -v flake8 >/dev/null || skip "deps: flake8 is not installed"
	rm -f t.db
	DB=$PWD/t.db
	evaluate l1 "$EX/tasks" "$EX/samples/good.jsonl" || flunk "linted good run failed"
	evaluate l2 "$EX/tasks" "$EX/samples/good.jsonl" || flunk "second linted good run failed"
	evaluate l3 "$EX/tasks" "$EX/samples/buggy.jsonl" || flunk "linted buggy run failed"
	gate --baseline "$(cat l1)" --candidate "$(cat l2)" --metric lint
	((rc == 0)) || flunk "lint, good -> good: exit $rc, want 0"
	gate --baseline "$(cat l1)" --candidate "$(cat l2)" --metric composite
	((rc == 0)) || flunk "composite, good -> good: exit $rc, want 0"
	gate --baseline "$(cat l1)" --candidate "$(cat l3)" --metric composite
	((rc == 1)) || flunk "composite, good -> buggy: exit $rc, want 1"
}
