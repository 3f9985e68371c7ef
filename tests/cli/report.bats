#!/usr/bin/env bats
# report.bats - `sandeval report`: two real runs of the example suite compared on the terminal; the HTML dashboard rendered in headless Chromium

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
EX=$BATS_TEST_DIRNAME/../../examples
CHECK=$BATS_TEST_DIRNAME/report-check.py
CHARTS=(trend-mean trend-pass1 trend-lint trend-composite trend-cpu score-histogram lint-categories rouge-vs-score)
HOSTILE='<script>alert(1)</script>'

# Backend-independent (report only reads the database): the native passes only.
# bats file_tags=native


# Two runs into one database, once for the file: the good samples, then the buggy ones.
setup() {
	[[ ${SANDEVAL_BACKEND:-native} == native ]] || skip "native: report reads the database; covered in the native pass"
	cd "$BATS_TEST_TMPDIR" || return 1
	DB=$BATS_FILE_TMPDIR/t.db
	if [[ -e $BATS_FILE_TMPDIR/failed ]]; then	# once is enough
		cat "$BATS_FILE_TMPDIR/failed" >&2
		return 1
	fi
	if [[ ! -e $BATS_FILE_TMPDIR/ids ]]; then
		for set in good buggy; do
			"$SANDEVAL" run --db "$DB" --tasks "$EX/tasks" --samples "$EX/samples/$set.jsonl" --jobs 2 \
				--seed 1 --k 1 --quiet --json "$BATS_FILE_TMPDIR/$set.json" 2>"$BATS_FILE_TMPDIR/$set.err" || {
				{ echo "sandeval run of the $set samples failed:"; tail -20 "$BATS_FILE_TMPDIR/$set.err"; } |
					tee "$BATS_FILE_TMPDIR/failed" >&2
				return 1
			}
			jq -r .run.id "$BATS_FILE_TMPDIR/$set.json" >>"$BATS_FILE_TMPDIR/ids"
		done
	fi
	GOOD=$(sed -n 1p "$BATS_FILE_TMPDIR/ids")
	BUGGY=$(sed -n 2p "$BATS_FILE_TMPDIR/ids")
	# linting may be on in `sandeval run` (then the runs have lint results) or not
	LINTED=$(sqlite3 "$DB" "SELECT count(*) FROM samples WHERE lint != 'none'")
}

# report ARG...: sandeval report ARG...; $rc, $out (stdout), $err
report() {
	"$SANDEVAL" report "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
}

flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit ${rc-}; stderr:"
		tail -c 3000 stderr.txt 2>/dev/null
		echo "--- stdout:"
		head -c 6000 stdout.txt 2>/dev/null
	} >&2
	return 1
}

# has REGEX: a line of the terminal report matches
has() { grep -qE -- "$1" <<<"$out" || flunk "no line matching '$1'"; }

need_chromium() {
	CHROMIUM=$(command -v chromium) || skip "deps: chromium is not installed (scripts/deps.sh installs Debian's chromium)"
}

# browse URL_FILE ARG...: headless Chromium on a file with a throwaway profile and
# HOME (as root it needs --no-sandbox); console and log on chrome.err, the
# network log in net.json
browse() {
	local file=$1
	shift
	rm -rf chrome-profile net.json
	HOME=$BATS_TEST_TMPDIR XDG_CONFIG_HOME=$BATS_TEST_TMPDIR XDG_CACHE_HOME=$BATS_TEST_TMPDIR \
		timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--disable-extensions --disable-background-networking --disable-component-update \
		--user-data-dir="$BATS_TEST_TMPDIR/chrome-profile" --enable-logging=stderr --v=0 \
		--log-net-log="$BATS_TEST_TMPDIR/net.json" --window-size=1280,2000 "$@" "file://$file" \
		</dev/null 2>chrome.err
}

# caught WHAT ARG...: report-check.py ARG... finds the defect of a broken
# input: exit 1 with a "report-check: WHAT" line (a regex) and no traceback.
# A crash of the checker also exits 1, and is no catch.
caught() {
	local want=$1 st
	shift
	python3 "$CHECK" "$@" 2>check.err && st=0 || st=$?
	((st == 1)) && grep -qE -- "^report-check: $want" check.err && ! grep -q Traceback check.err ||
		flunk "report-check $* did not report '$want' (exit $st): $(cat check.err)"
}

# The page's console said nothing: no script error, no blocked or failed load.
console_clean() {
	local bad
	bad=$(grep -E ':CONSOLE|Uncaught|Failed to load resource|Refused to' chrome.err || true)
	[[ -z $bad ]] || { echo "the page's console: $bad" >&2; return 1; }
}

@test "report compares the newest run with the one before it, overall and per class, with arrows" {
	report --db "$DB"
	((rc == 0)) || flunk "exit $rc"
	has "^report +$BUGGY \(.*model buggy, 5 samples, 5 tasks"
	has "^against +$GOOD \(.*model good, 5 samples, 5 tasks"
	has "^arrows +\^ better, v worse, = same"
	# the good set passes everything; the buggy one nothing: every score worse
	has "^  mean +1\.000 +0\.[0-9]{3} +-0\.[0-9]{3} v$"
	has "^  median +1\.000 +0\.[0-9]{3} +-0\.[0-9]{3} v$"
	has "^  p10 +1\.000 +0\.000 +-1\.000 v$"
	has "^  pass@1 +1\.000 +0\.000 +-1\.000 v$"
	has "^  CPU time +[0-9.]+ s +[0-9.]+ s +[-+0-9]+% [v^=]$"
	has "^  wall time +[0-9.]+ s +[0-9.]+ s +[-+0-9]+% [v^=]$"
	has "^  peak memory +[0-9.]+ MiB +[0-9.]+ MiB +[-+0-9]*%? ?[v^=]$"
	for cls in recursion loops strings math; do has "^class $cls$"; done
	if ((LINTED == 0)); then
		has "^  lint pass rate +no lint results in either run$"
		has "^  composite +absent: needs lint results$"
	else
		has "^  lint pass rate +[01]\.[0-9]{3} +[01]\.[0-9]{3} "
		has "^  composite +[0-9.]+ +[0-9.]+ "
	fi
	[[ $out != *$'\e'* ]] || flunk "escape sequences in the report"
}

# class_cpu GOOD_MS BUGGY_MS: $line, the recursion class's CPU time row, reported
# from a copy of the database whose recursion samples took GOOD_MS and BUGGY_MS
class_cpu() {
	rm -f cpu.db
	sqlite3 "$DB" ".backup cpu.db" &&
		sqlite3 cpu.db "UPDATE samples SET cpu_ms = CASE run_id WHEN '$GOOD' THEN $1 ELSE $2 END
			WHERE task_class = 'recursion'" || flunk "cannot set the CPU times in a copy"
	report --db cpu.db
	((rc == 0)) || flunk "exit $rc"
	line=$(sed -n '/^class recursion$/,/^class /p' <<<"$out" | grep -E '^  CPU time') || flunk "no CPU time row"
}

@test "a class's CPU time is marked worse, better or the same as its numbers say" {
	# set by hand: measured CPU times vary with the machine's load (the
	# exponential fib's timeout is 3 s of CPU, or 12 s of wall time)
	local line
	class_cpu 100 3000
	[[ $line =~ ^\ \ CPU\ time\ +0\.10\ s\ +3\.00\ s\ +\+2900%\ v$ ]] || flunk "more CPU: '$line'"
	class_cpu 3000 100
	[[ $line =~ ^\ \ CPU\ time\ +3\.00\ s\ +0\.10\ s\ +-97%\ \^$ ]] || flunk "less CPU: '$line'"
	class_cpu 1000 1000
	[[ $line =~ ^\ \ CPU\ time\ +1\.00\ s\ +1\.00\ s\ +0%\ =$ ]] || flunk "the same CPU: '$line'"
}

@test "report RUN_ID --against RUN_ID turns the comparison around" {
	report "$GOOD" --db "$DB" --against "$BUGGY"
	((rc == 0)) || flunk "exit $rc"
	has "^report +$GOOD "
	has "^against +$BUGGY "
	has "^  mean +0\.[0-9]{3} +1\.000 +\+0\.[0-9]{3} \^$"
	has "^  pass@1 +0\.000 +1\.000 +\+1\.000 \^$"
}

@test "a run with nothing before it is shown alone, and says so" {
	report --db "$DB" "$GOOD"
	((rc == 0)) || flunk "exit $rc"
	has "^against +nothing to compare with: no run before this one \(see --against\)$"
	has "^  mean +1\.000$"
	sqlite3 "$DB" ".backup one.db" || flunk "cannot copy the database"
	sqlite3 one.db "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = '$BUGGY'" || flunk "cannot drop a run"
	report --db one.db
	((rc == 0)) || flunk "exit $rc"
	has "^report +$GOOD "
	has "^against +nothing to compare with: the database holds only this run$"
	[[ $out != *"$BUGGY"* ]] || flunk "the dropped run is still reported"
}

@test "report fails cleanly on an unknown run, a missing database and bad options" {
	report --db "$DB" r-0000000000000000
	((rc == 2)) || flunk "unknown run: exit $rc"
	[[ $err == "sandeval: report: no run 'r-0000000000000000' in '$DB'" ]] || flunk "message: $err"
	report --db "$DB" --against r-nope
	((rc == 2)) && [[ $err == *"no run 'r-nope'"* ]] || flunk "unknown --against: exit $rc, $err"
	report --db nowhere.db
	((rc == 2)) && [[ $err == "sandeval: report: cannot open 'nowhere.db': No such file or directory" ]] ||
		flunk "missing database: exit $rc, $err"
	[[ ! -e nowhere.db ]] || flunk "report created the database it was asked to read"
	report --db "$DB" --last 0
	((rc == 2)) && [[ $err == *"--last"* ]] || flunk "--last 0: exit $rc, $err"
	report --db "$DB" --bogus
	((rc == 2)) && [[ $err == *"unknown option '--bogus'"* ]] || flunk "--bogus: exit $rc, $err"
	report --db "$DB" "$GOOD" "$BUGGY"
	((rc == 2)) && [[ $err == *"unexpected argument '$BUGGY'"* ]] || flunk "two run ids: exit $rc, $err"
	report --db "$DB" --html /nonexistent-dir/r.html
	((rc == 2)) && [[ $err == *"cannot create '/nonexistent-dir/r.html'"* ]] || flunk "unwritable --html: exit $rc, $err"
	report --help
	((rc == 0)) && [[ $out == *"usage: sandeval report"* ]] || flunk "--help: exit $rc"
}

@test "--html writes one self-contained page with every chart" {
	report --db "$DB" --html r.html
	((rc == 0)) || flunk "exit $rc"
	[[ -s r.html ]] || flunk "no page"
	local c
	for c in "${CHARTS[@]}"; do
		grep -q "<svg data-chart=\"$c\"" r.html || flunk "no chart '$c' in the page"
	done
	# nothing to run, nothing to load: no script, no external URL, no src, no @import or url()
	! grep -qiE '<script|<link|<iframe|<img|src=|https?://|@import|url\(' r.html || flunk "the page is not self-contained: $(grep -oiE '<script|<link|<iframe|<img|src=|https?://|@import|url\(' r.html | sort -u)"
	grep -q 'Content-Security-Policy' r.html || flunk "no Content-Security-Policy"
	grep -q "Trends over the last 2 runs" r.html || flunk "not both runs on the trend lines"
	# the off-by-one looks like the reference and fails: the lexical metric's miss is listed
	grep -q '<code>sum-to-off-by-one</code>' r.html || flunk "the off-by-one is not among the disagreements"
	report --db "$DB" --html r1.html --last 1
	((rc == 0)) && grep -q "Trends over the last 1 run<" r1.html || flunk "--last 1 not honoured"
	report --db "$DB" --html - "$GOOD"
	((rc == 0)) && [[ $out == "<!DOCTYPE html>"* ]] || flunk "--html - does not write the page alone on stdout"
}

@test "the page renders in headless Chromium: every chart drawn, a quiet console, no request, a real screenshot" {
	need_chromium
	report --db "$DB" --html "$BATS_TEST_TMPDIR/r.html"
	((rc == 0)) || flunk "exit $rc"
	browse "$BATS_TEST_TMPDIR/r.html" --dump-dom >dom.html || { cat chrome.err >&2; flunk "chromium --dump-dom failed"; }
	python3 "$CHECK" dom dom.html "${CHARTS[@]}" || flunk "charts missing from the rendered DOM"
	# what has data is drawn; what is missing says so instead of faking it
	local c
	for c in trend-mean trend-pass1 trend-cpu score-histogram rouge-vs-score; do
		caught "chart '$c' is not empty \([1-9][0-9]* marks\)" empty dom.html "$c"
	done
	if ((LINTED == 0)); then
		for c in trend-lint trend-composite lint-categories; do
			python3 "$CHECK" empty dom.html "$c" || flunk "chart '$c' is drawn without lint results"
		done
		grep -q 'no lint results' dom.html || flunk "the page does not say there are no lint results"
	fi
	console_clean || flunk "console errors"
	python3 "$CHECK" net net.json || flunk "the page made requests"
	browse "$BATS_TEST_TMPDIR/r.html" --screenshot="$BATS_TEST_TMPDIR/r.png" >/dev/null ||
		{ cat chrome.err >&2; flunk "chromium --screenshot failed"; }
	[[ -s r.png ]] || flunk "no screenshot"
	python3 "$CHECK" png r.png 1280 2000 || flunk "the screenshot is not a drawn page"
	console_clean || flunk "console errors"
}

@test "a hostile task id and completion render as text, never as elements" {
	need_chromium
	jq -nc --arg id "$HOSTILE" '{task_id: $id, prompt: "def add(a, b):\n", entry_point: "add",
		canonical_solution: "    return a + b\n",
		test: "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(0, 0) == 0\n"}' >tasks.jsonl
	# the failing one looks like the reference: the disagreement table shows its completion
	jq -nc --arg id "$HOSTILE" --arg h "$HOSTILE" '{task_id: $id, completion: ("    # </pre></td>" + $h + "<img src=x onerror=alert(2)>\n    return a - b\n")},
		{task_id: $id, completion: ("    return a + b  # " + $h + "\n")}' >samples.jsonl
	"$SANDEVAL" run --db h.db --tasks tasks.jsonl --samples samples.jsonl --jobs 2 --k 1 --quiet 2>run.err ||
		{ cat run.err >&2; flunk "the hostile run failed"; }
	report --db h.db --html "$BATS_TEST_TMPDIR/h.html"
	((rc == 0)) || flunk "exit $rc"
	! grep -qiE '<script|<img' h.html || flunk "hostile markup in the page: $(grep -oiE '.{20}<(script|img).{20}' h.html | head -3)"
	browse "$BATS_TEST_TMPDIR/h.html" --dump-dom >dom.html || { cat chrome.err >&2; flunk "chromium failed"; }
	python3 "$CHECK" dom dom.html "${CHARTS[@]}" || flunk "the rendered DOM holds a script or misses a chart"
	! grep -qiE '<script|<img' dom.html || flunk "hostile markup became an element"
	grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' dom.html || flunk "the task id is not shown as text"
	grep -qF '&lt;img src=x onerror=alert(2)&gt;' dom.html || flunk "the completion is not shown as text"
	console_clean || flunk "console errors"
}

@test "the browser checks catch a broken page (so the ones above can fail)" {
	need_chromium
	cat >bad.html <<-'EOF'
	<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
	<script>no_such_function();</script><img src="http://127.0.0.1:9/x.png">
	<svg data-chart="trend-mean"><title>t</title><rect class="frame" width="10" height="10"></rect></svg>
	<svg data-chart="score-histogram"><rect class="mark bar" width="0" height="10"></rect></svg>
	</body></html>
	EOF
	browse "$BATS_TEST_TMPDIR/bad.html" --dump-dom >dom.html || flunk "chromium failed"
	! console_clean 2>/dev/null && grep -q no_such_function chrome.err ||
		flunk "a script error went unnoticed: $(cat chrome.err)"
	caught "the page requested 'http://127\.0\.0\.1:9/x\.png'" net net.json
	caught "1 <script> element" dom dom.html trend-mean score-histogram lint-categories
	grep -q "'trend-mean' draws nothing" check.err &&
		grep -q "'score-histogram' does not start with a <title>" check.err &&
		grep -q "'lint-categories' is missing" check.err || flunk "not every fault was found: $(cat check.err)"
	printf '<!DOCTYPE html><html><body></body></html>' >blank.html
	browse "$BATS_TEST_TMPDIR/blank.html" --screenshot="$BATS_TEST_TMPDIR/blank.png" >/dev/null || flunk "chromium failed"
	caught "'blank\.png' is blank" png blank.png 1280 2000
	echo "not a png" >fake.png
	caught "'fake\.png' is not a PNG" png fake.png 1280 2000
}
