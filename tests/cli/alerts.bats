#!/usr/bin/env bats
# alerts.bats - anomaly alerts: a run whose rate of tripwire events jumps against the suite's earlier runs is recorded, said on stderr, in sandeval report, and handed to --alert-command as JSON

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
FIX=$BATS_TEST_DIRNAME/fixtures
TASKS=$FIX/attack-tasks.jsonl

load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	# the honest sample alone: a clean baseline
	head -n 1 "$FIX/tripwire-samples.jsonl" >clean.jsonl
}

# evalrun SAMPLES ARG...: sandeval run on the attack task into t.db; $rc, $err.
# As an ordinary user, cold: its supervisor cannot read a warm driver's
# memory, so addresses would not be counted (docs/sandbox.md#tripwires).
evalrun() {
	local samples=$1 cold=()
	shift
	[[ $(id -u) == 0 ]] || cold=(--cold)
	"$SANDEVAL" run "${cold[@]}" --db t.db --tasks "$TASKS" --samples "$samples" --no-lint --quiet --breaker-threshold 0 "$@" \
		>stdout.txt 2>stderr.txt && rc=0 || rc=$?
	err=$(cat stderr.txt)
}

# bats test_tags=native
@test "a jump of the metadata-probe rate against clean runs is an alert: stderr, the store, report, and JSON for --alert-command" {
	evalrun clean.jsonl
	evalrun clean.jsonl
	[[ $err != *ALERT* ]] || flunk "a clean run against a clean run alerted"
	# 4 samples, one of which probes the metadata address in each of its 3 tests
	evalrun "$FIX/tripwire-samples.jsonl" --alert-command 'cat >>alerts.jsonl'
	((rc == 0)) || flunk "exit $rc: an alert is not an error"
	[[ $err == *"ALERT metadata_probes: run r-"*": metadata probes jumped to 750.0 per 1,000 samples (3 in 4 samples), against 0.0 in the 2 earlier runs of its suite"* ]] ||
		flunk "no metadata_probes alert on stderr"
	# one JSON object per alert on the command's stdin
	jq -e -s 'length >= 1 and all(.alert == "sandeval" and (.run_id | startswith("r-")) and (.at_ms | type == "number"))' alerts.jsonl >/dev/null ||
		flunk "not valid alert JSON: $(cat alerts.jsonl)"
	[[ $(jq -c 'select(.kind == "metadata_probes") | [.rate_per_1000, .baseline_per_1000]' alerts.jsonl) == '[750,0]' ]] ||
		flunk "the metadata_probes alert's rates: $(cat alerts.jsonl)"
	local id
	id=$(jq -r 'select(.kind == "metadata_probes") | .run_id' alerts.jsonl)
	[[ $(sqlite3 t.db "SELECT kind FROM alerts WHERE run_id = '$id' ORDER BY id" | tr '\n' ' ') == *metadata_probes* ]] ||
		flunk "not recorded: $(sqlite3 t.db 'SELECT run_id, kind FROM alerts')"
	"$SANDEVAL" report --db t.db --html report.html >report.txt 2>&1 || flunk "report: $(cat report.txt)"
	grep -q '^ALERTS .*metadata_probes: 750.0 per 1,000 samples against 0.0 before' report.txt ||
		grep -q '^  *metadata_probes: 750.0 per 1,000 samples against 0.0 before' report.txt || flunk "report: $(head -8 report.txt)"
	grep -q '<section id="alerts"><h2>Alerts</h2>' report.html || flunk "no alerts section in the HTML report"
}

# bats test_tags=native
@test "no baseline, no alert; a clean run after clean runs, none either" {
	evalrun "$FIX/tripwire-samples.jsonl" --alert-command 'cat >>alerts.jsonl'
	((rc == 0)) || flunk "exit $rc"
	[[ $err != *ALERT* && ! -s alerts.jsonl ]] || flunk "an alert without earlier runs"
	rm -f t.db
	evalrun clean.jsonl
	evalrun clean.jsonl --alert-command 'cat >>alerts.jsonl'
	[[ $err != *ALERT* && ! -s alerts.jsonl ]] || flunk "a clean run alerted"
	[[ $(sqlite3 t.db "SELECT count(*) FROM alerts") == 0 ]] || flunk "alerts recorded"
	# a higher factor or rate floor than the jump: none
	evalrun "$FIX/tripwire-samples.jsonl" --alert-min-rate 1000
	[[ $err != *ALERT* ]] || flunk "--alert-min-rate 1000 still alerted"
}

# bats test_tags=native
@test "a failing --alert-command is reported, never fatal" {
	evalrun clean.jsonl
	evalrun "$FIX/tripwire-samples.jsonl" --alert-command 'cat >/dev/null; exit 3'
	((rc == 0)) || flunk "exit $rc: the command's failure stopped the run"
	[[ $err == *ALERT* && $err == *"warning: alert command 'cat >/dev/null; exit 3' failed: exit 3"* ]] ||
		flunk "the failure is not said"
	evalrun "$FIX/tripwire-samples.jsonl" --alert-factor x
	((rc == 2)) && [[ $err == *"--alert-factor 'x'"* ]] || flunk "a bad --alert-factor: exit $rc"
}
