#!/usr/bin/env bats
# redteam.bats - `sandeval redteam`: the shipped attack catalog contained and detected on both backends, its options, and a judge that can fail
#
# The attacks run only inside sandboxes started by `sandeval redteam` (with
# the catalog's limits); nothing here runs an attack on the host. The full
# runs need root (cgroups: fork bombs and lingering processes are counted
# with them) and name their backend, so tests/run.sh runs this file once, in
# the root native pass (file tag backend-specific), like gvisor.bats.
# bats file_tags=backend-specific

# shellcheck disable=SC2030,SC2031,SC2034 # bats runs each test in a subshell
load helpers

CATALOG=${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}/redteam/catalog.json

setup_file() {
	check_prerequisites
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	bad=()
}

# rt ARG...: sandeval redteam ARG...; $rc, $out (stdout), $err (stderr), $secs (wall clock)
rt() {
	local t0=$SECONDS

	"$SANDEVAL" redteam "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
	secs=$((SECONDS - t0))
}

rflunk() {
	echo "FAIL: $*" >&2
	echo "--- exit $rc; stdout:" >&2
	head -c 6000 stdout.txt >&2
	echo "--- stderr:" >&2
	head -c 3000 stderr.txt >&2
	return 1
}

# a test-only catalog: the shipped limits and the attacks given as JSON objects
catalog_of() {
	jq --argjson attacks "$1" '{version, limits, attacks: $attacks}' "$CATALOG" >test-catalog.json
	cp "${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners}/redteam/attack.py" .
}

need_gvisor() {
	is_root || skip "root: gVisor needs cgroups, which only root has here"
	command -v runsc >/dev/null || skip "gvisor: runsc is not installed (apt-get install runsc)"
}

# ---------------------------------------------------------------- the catalog

@test "the catalog: at least 30 attacks, every class, each with what stops it and what must be seen" {
	rt --list
	((rc == 0)) || rflunk "--list exit $rc"
	(($(wc -l <stdout.txt) >= 30)) || rflunk "only $(wc -l <stdout.txt) attacks"
	local c
	for c in escape exfiltration metadata dos residue tamper reward-hacking symlink benign; do
		grep -q " $c " stdout.txt || case_fail "no attack of class $c"
	done
	jq -e '.attacks | all(.[]; (.stopped_by | type) == "string" and (.expect | type) == "object")' "$CATALOG" >/dev/null ||
		case_fail "an attack without stopped_by or expect"
	jq -e '.attacks | all(.[]; (.gvisor == null) or ((.gvisor.why | type) == "string"))' "$CATALOG" >/dev/null ||
		case_fail "a gVisor difference without its reason"
	report_cases
}

# ---------------------------------------------------------------- full runs

# bats test_tags=root
@test "native: every attack of the catalog is contained and detected (its time printed, never asserted)" {
	rt --junit junit.xml
	((rc == 0)) || rflunk "exit $rc, want 0: not every attack contained and detected"
	[[ $out == *"of "*" attacks contained and detected"* ]] || rflunk "no summary line"
	# the table itself: one row per attack of the catalog, each contained and detected (exit 0 alone
	# would pass a table that left attacks out)
	[[ $(awk '$3 == "yes" && $4 == "yes"' stdout.txt | wc -l) == $(jq '.attacks | length' "$CATALOG") ]] ||
		rflunk "not one 'yes yes' row per attack"
	echo "# native catalog: ${secs}s" >&3
	xmllint --noout junit.xml || rflunk "junit.xml is not well-formed"
	[[ $(xmllint --xpath 'string(/testsuites/testsuite/@failures)' junit.xml) == 0 ]] || rflunk "junit failures"
	[[ $(xmllint --xpath 'count(//testcase)' junit.xml) == $(jq '.attacks | length' "$CATALOG") ]] ||
		rflunk "not one testcase per attack"
}

# bats test_tags=root
@test "gvisor: every attack of the catalog is contained and detected (its time printed, never asserted)" {
	need_gvisor
	rt --backend gvisor --json
	((rc == 0)) || rflunk "exit $rc, want 0: $(jq -r '.[] | select(.contained and .detected | not) | "\(.name): \(.why) (status \(.status), \(.wall_ms) ms)"' stdout.txt)"
	echo "# gvisor catalog: ${secs}s" >&3
	jq -e 'all(.[]; .backend == "gvisor")' stdout.txt >/dev/null || rflunk "backend not gvisor"
}

# ---------------------------------------------------------------- options

@test "--only runs the attacks named; an unknown name is a usage error naming it" {
	rt --only benign,mount
	((rc == 0)) || rflunk "exit $rc"
	[[ $(grep -c 'yes' stdout.txt) == 2 && $out == *"2 of 2 attacks"* ]] || rflunk "not the two attacks"
	rt --only mount,no-such-attack,benign,other-one
	((rc == 2)) || rflunk "exit $rc, want 2"
	[[ $err == *"unknown attack 'no-such-attack', 'other-one'"* ]] || rflunk "the message does not name them: $err"
	rt --bogus
	((rc == 2)) || rflunk "unknown option: exit $rc"
	rt --backend nope --only benign
	((rc == 2)) && [[ $err == *"unknown backend 'nope'"* ]] || rflunk "unknown backend: exit $rc"
	rt --help
	((rc == 0)) && [[ $out == *"--catalog FILE"* && $out == *"--junit FILE"* ]] || rflunk "--help"
}

@test "--json is an array of outcomes with the counters seen and what was expected" {
	rt --json --only mount,metadata-v4,benign,exit-zero-early
	((rc == 0)) || rflunk "exit $rc"
	jq -e 'type == "array" and length == 4 and
		all(.[]; (.name | type) == "string" and .contained == true and .detected == true and
			(.expected | type) == "object" and (.seen | type) == "string" and (.wall_ms | type) == "number")' \
		stdout.txt >/dev/null || rflunk "not the JSON promised"
	[[ $(jq -r '.[] | select(.name == "mount") | .seen' stdout.txt) == "denied_syscalls.mount=1" ]] || rflunk "mount seen"
	[[ $(jq -r '.[] | select(.name == "exit-zero-early") | .status' stdout.txt) == failed ]] || rflunk "verdict"
}

@test "a benign program leaves every counter at zero" {
	rt --json --only benign
	((rc == 0)) || rflunk "exit $rc"
	[[ $(jq -r '.[0].seen' stdout.txt) == none ]] || rflunk "counters moved: $(jq -r '.[0].seen' stdout.txt)"
}

# ---------------------------------------------------------------- the judge can fail

@test "a weakened catalog fails: a counter that cannot move, a benign program called an attack, an honest sample" {
	# mount is denied as mount, never as bpf
	catalog_of '[{"name": "mount", "class": "escape", "description": "x", "program": "attack.py", "stopped_by": "x",
		"expect": {"denied_syscalls": "bpf"}, "gvisor": {"expect": {"denied_syscalls": "bpf"}, "why": "x"}}]'
	rt --catalog test-catalog.json
	((rc == 1)) || rflunk "exit $rc, want 1"
	[[ $out == *"not detected: denied_syscalls.bpf did not move"* ]] || rflunk "no reason given"
	# an honest program moves nothing: an attack expected to be seen is not detected
	catalog_of '[{"name": "benign", "class": "escape", "description": "x", "program": "attack.py", "stopped_by": "x",
		"expect": {"network_attempts": 1}}]'
	rt --catalog test-catalog.json --json
	((rc == 1)) && [[ $(jq '.[0].detected' stdout.txt) == false ]] || rflunk "benign detected as an attack"
	# a sample that really passes is a reward hack that worked: not contained
	catalog_of "$(jq -c '[.attacks[] | select(.name == "eq-always-true") | .eval.sample.completion = "    return a + b\n"]' "$CATALOG")"
	rt --catalog test-catalog.json --json
	((rc == 1)) || rflunk "exit $rc, want 1"
	[[ $(jq -r '.[0].contained' stdout.txt) == false && $(jq -r '.[0].why' stdout.txt) == *"scored as passing"* ]] ||
		rflunk "an honest sample was not judged a successful hack"
	# a catalog that does not say what must be seen is refused
	catalog_of '[{"name": "mount", "class": "escape", "description": "x", "program": "attack.py", "expect": {"denied": 1}}]'
	rt --catalog test-catalog.json
	((rc == 2)) && [[ $err == *"unknown member 'denied'"* ]] || rflunk "a bad expect: exit $rc"
}

# bats test_tags=root
@test "a host process killed during an attack makes it not contained" {
	# an attack that lasts its 6 s of wall clock (no counter moves: detected as clean)
	catalog_of '[{"name": "cpu-spin", "class": "dos", "description": "x", "program": "attack.py", "stopped_by": "x",
		"limits": {"cpu_time": 60, "wall_time": 6}, "expect": {"clean": true}}]'
	"$SANDEVAL" redteam --json --catalog test-catalog.json >stdout.txt 2>stderr.txt &
	local pid=$! child found= i
	# the sentinel: sandeval's child outside any namespace of a sandbox (one NSpid)
	for ((i = 0; i < 50 && !found; i++)); do
		sleep 0.1
		for child in $(pgrep -P "$pid"); do
			[[ $(awk '/^NSpid:/ {print NF}' "/proc/$child/status" 2>/dev/null) == 2 ]] || continue
			grep -q redteam "/proc/$child/cmdline" 2>/dev/null || continue
			kill -9 "$child" && found=$child
		done
	done
	wait "$pid" && rc=0 || rc=$?
	[[ -n $found ]] || rflunk "no sentinel found"
	((rc == 1)) || rflunk "exit $rc, want 1"
	[[ $(jq -r '.[0].contained' stdout.txt) == false && $(jq -r '.[0].why' stdout.txt) == *"sentinel"* ]] ||
		rflunk "the killed sentinel was not noticed"
	[[ $(jq -r '.[0].detected' stdout.txt) == true ]] || rflunk "the attack itself was judged wrongly"
}

# bats test_tags=root
@test "a mount appearing on the host during an attack makes it not contained" {
	# in a mount namespace of this test's own (the machine's mount table is never touched):
	# sandeval redteam judges from there, and the test mounts a tmpfs on /mnt mid-attack
	catalog_of '[{"name": "cpu-spin", "class": "dos", "description": "x", "program": "attack.py", "stopped_by": "x",
		"limits": {"cpu_time": 60, "wall_time": 4}, "expect": {"clean": true}}]'
	SANDEVAL=$SANDEVAL unshare -m --propagation private sh -c '
		"$SANDEVAL" redteam --json --catalog test-catalog.json >stdout.txt 2>stderr.txt &
		sleep 1.5
		mount -t tmpfs redteam-test /mnt
		wait $!' && rc=0 || rc=$?
	((rc == 1)) || rflunk "exit $rc, want 1"
	[[ $(jq -r '.[0].contained' stdout.txt) == false && $(jq -r '.[0].why' stdout.txt) == *"a mount on the host's '/mnt'"* ]] ||
		rflunk "the new mount was not noticed"
}

@test "a session killed mid-attack leaves its host directory to 'sandeval gc', which removes it" {
	catalog_of '[{"name": "cpu-spin", "class": "dos", "description": "x", "program": "attack.py", "stopped_by": "x",
		"limits": {"cpu_time": 300, "wall_time": 300}, "expect": {"clean": true}}]'
	local before dir= i
	before=$(ls -d /var/tmp/sandeval-redteam.* 2>/dev/null || true)
	"$SANDEVAL" redteam --catalog test-catalog.json >stdout.txt 2>stderr.txt &
	local pid=$!
	# the session's own directory: the one that was not there before
	for ((i = 0; i < 100; i++)); do
		[[ -z $dir ]] || break
		sleep 0.1
		for d in /var/tmp/sandeval-redteam.*; do
			[[ -d $d && $before != *"$d"* ]] && dir=$d
		done
	done
	[[ -n $dir ]] || { kill -9 "$pid"; rflunk "no host directory appeared"; }
	[[ -f $dir/secret ]] || sleep 1
	# Only the session holds its run record: a child that kept the locked
	# descriptor (the host sentinel, a sandbox's init) would outlive the
	# kill for a moment, and gc then take the session for alive.
	# (one find, not a readlink process per descriptor: with the gVisor pass
	# beside it the machine has thousands, and that loop once outlasted the
	# attack's 300 s)
	local holders= p
	for ((i = 0; i < 3; i++)); do
		for p in $(find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname "*/redteam-${dir##*.}.lock" 2>/dev/null |
			cut -d/ -f3 | sort -u); do
			[[ $p == "$pid" ]] || holders+=" $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null))"
		done
		sleep 0.2
	done
	[[ -z $holders ]] || { kill -9 "$pid"; rflunk "processes besides the session hold its run record:$holders"; }
	# (the attack spins until killed: its limits are far beyond what the looks
	# above take, which was 20 s and more under load, beside another pass)
	kill -9 "$pid" || rflunk "the session ended before it was killed: $(tail -c 500 stderr.txt)"
	wait "$pid" || true
	[[ -f $dir/secret ]] || rflunk "the killed session's directory should still be there, with its secret"
	run "$SANDEVAL" gc
	((status == 0)) || rflunk "gc: exit $status: $output"
	[[ ! -e $dir ]] || rflunk "gc left '$dir': $output"
	[[ $output == *"director"* ]] || rflunk "gc's output: $output"
}

# bats test_tags=unprivileged
@test "unprivileged: a counter the backend cannot keep (no cgroup: lingering processes) is not detected" {
	is_root && skip "unprivileged: root has cgroups here"
	rt --json --only daemonize
	((rc == 1)) || rflunk "exit $rc, want 1"
	[[ $(jq -r '.[0].detected' stdout.txt) == false && $(jq -r '.[0].why' stdout.txt) == *"not counted"* ]] ||
		rflunk "an uncounted counter passed"
	# what the attack said comes with the miss: its daemon did run
	[[ $(jq -r '.[0].why' stdout.txt) =~ "it said: daemon="[0-9]+ ]] ||
		rflunk "the miss does not say what the attack said: $(jq -r '.[0].why' stdout.txt)"
}
