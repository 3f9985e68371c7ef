#!/usr/bin/env bats
# gvisor.bats: what is particular to --backend gvisor (platform, runsc's own state and cgroups, how OOM surfaces)
# and the firecracker refusal. The shared isolation and limit suite is exec.bats, run with SANDEVAL_BACKEND=gvisor.
# Each test names its backend, so tests/run.sh runs this file once, in the native passes.
# bats file_tags=backend-specific

# shellcheck disable=SC2030,SC2031,SC2034 # bats runs each test in a subshell
load helpers

setup_file() {
	check_prerequisites
}

# The tests that run runsc are tagged root: gVisor needs cgroups, which only
# root has on this v1 host. Without runsc they skip (tests/run.sh counts that
# as a failure unless SANDEVAL_SKIP names gvisor); a gVisor that is installed
# and does not work fails them.
setup() {
	TAG=$(new_tag)
	bad=()
	[[ $BATS_TEST_DESCRIPTION == firecracker* || $BATS_TEST_DESCRIPTION == *"usage errors"* ||
		$BATS_TEST_DESCRIPTION == *"without cgroups"* ]] && return 0
	is_root || skip "root: gVisor needs cgroups, which only root has here"
	command -v runsc >/dev/null || skip "gvisor: runsc is not installed (apt-get install runsc)"
}

teardown() {
	[[ -n ${SBX_PID-} ]] && kill -9 "$SBX_PID" 2>/dev/null || true
	return 0
}

# gv OPTION... -- PROGRAM...: sbx under gVisor whatever SANDEVAL_BACKEND says
gv() {
	local BACKEND_OPTS=(--backend gvisor)
	sbx "$@"
}

# bats test_tags=root
@test "gvisor: the result says which platform ran, and --platform picks one" {
	gv --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" exit 0
	expect_status ok
	assert_eq "$(j .backend)" gvisor "backend"
	assert_eq "$(j .isolation.platform)" ptrace "platform chosen here (kvm hangs under nested virtualization)"
	gv --platform ptrace --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" exit 0
	expect_status ok
	assert_eq "$(j .isolation.platform)" ptrace "platform asked for"
	assert_eq "$(j .isolation.seccomp_syscalls)" "$(sbx --backend native -- /bin/true; j .isolation.seccomp_syscalls)" \
		"the same seccomp allowlist inside gVisor"
}

@test "gvisor: bad --platform values are usage errors" {
	local line want args
	while IFS='|' read -r want line; do
		eval "args=($line)"
		json=$("$SANDEVAL" exec "${args[@]}" 2>"$BATS_TEST_TMPDIR/err" </dev/null) && rc=0 || rc=$?
		err=$(cat "$BATS_TEST_TMPDIR/err")
		[[ $rc == 2 && $err == *"$want"* ]] || case_fail "exec $line: exit $rc: $err"
		[[ -z $json ]] || case_fail "exec $line printed a result"
	done <<-'EOF'
		systrap|--backend gvisor --platform systrap -- /bin/true
		gvisor backend only|--platform ptrace -- /bin/true
		available: native, gvisor, firecracker|--backend nosuch -- /bin/true
	EOF
	report_cases
}

@test "firecracker: refused at once, naming what is missing" {
	json=$("$SANDEVAL" exec --backend firecracker -- /bin/true 2>"$BATS_TEST_TMPDIR/err" </dev/null) && rc=0 || rc=$?
	err=$(cat "$BATS_TEST_TMPDIR/err")
	assert_eq "$rc" 2 "exit status"
	[[ $err == *"firecracker"* && ($err == *"firecracker binary"* || $err == *"/dev/kvm"* || $err == *"not implemented"*) ]] ||
		flunk "message does not say what is missing: $err"
	[[ -z $json ]] || flunk "a result was printed"
}

# bats test_tags=root
@test "gvisor: an out-of-memory kill of the sandbox is still memory_limit" {
	gv --memory 64M --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" memhog 256
	# the host OOM killer kills gVisor's Sentry: no wait status from inside,
	# the run's memory cgroup counts the kill
	expect_status memory_limit
	assert_eq "$(j .signal)" 9 "signal"
	# (the kernel may charge a page or two past the limit before it kills)
	(($(j .peak_memory_bytes) <= 65 * 1048576)) || flunk "peak $(j .peak_memory_bytes) above the limit"
}

# bats test_tags=unprivileged
@test "gvisor: without cgroups it refuses, naming why (an ordinary user on this v1 host)" {
	is_root && skip "unprivileged: root has cgroups here"
	json=$("$SANDEVAL" exec --backend gvisor -- /bin/true 2>"$BATS_TEST_TMPDIR/err" </dev/null) && rc=0 || rc=$?
	err=$(cat "$BATS_TEST_TMPDIR/err")
	assert_eq "$rc" 2 "exit status"
	[[ $err == *"needs cgroup CPU and memory control"* ]] || flunk "message: $err"
}

# bats test_tags=root
@test "gvisor: SANDEVAL_GVISOR_LOGS=DIR keeps each sandbox's Sentry log, the tripwires' source, as DIR/ID.log" {
	mkdir "$BATS_TEST_TMPDIR/logs"
	SANDEVAL_GVISOR_LOGS=$BATS_TEST_TMPDIR/logs gv --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" connect 169.254.169.254 80
	[[ $(j .tripwires.metadata_probes) == 1 ]] || flunk "the probe was not counted: $(j .tripwires)"
	local log=$BATS_TEST_TMPDIR/logs/$(j .sandbox_id).log
	[[ -f $log ]] || flunk "no $log: $(ls "$BATS_TEST_TMPDIR/logs")"
	[[ $(grep -c 'E connect(.*169\.254\.169\.254, Port: 80' "$log") == 1 ]] ||
		flunk "the log does not hold the one connect: $(grep connect "$log" | head -c 2000)"
	# a directory that cannot take it: the run goes on, an event says so
	SANDEVAL_GVISOR_LOGS=$BATS_TEST_TMPDIR/missing gv --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" exit 0
	expect_status ok
	[[ $(jq -r '.events[].detail' <<<"$json" | grep -c "Sentry's log not kept") == 1 ]] || flunk "no event: $(j .events)"
}

# bats test_tags=root
@test "gvisor: runsc killed at its start while a request larger than a pipe buffer waits: its end is the error" {
	# 1 MiB: the memory cgroup kills runsc as it starts; the request (a 200 KB file) cannot all be
	# written then, and the supervisor must not wait for a reader that will never come
	head -c 200000 /dev/urandom >"$BATS_TEST_TMPDIR/big"
	gv --memory 1M --file "big=$BATS_TEST_TMPDIR/big" -- /bin/true
	expect_status sandbox_error
	[[ $(j .error) == "runsc ended before the program started"* ]] || flunk "the error: $(j .error)"
}

# bats test_tags=root
@test "gvisor: runsc leaves no state directory, no cgroup and no process behind" {
	local before_cg after_cg
	before_cg=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d 2>/dev/null | grep -v sandeval- | sort)
	snapshot_host
	gv --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" exit 0
	expect_status ok
	local id
	id=$(j .sandbox_id)
	gv --wall-time 0.5 --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" sleep 10
	expect_status wall_limit
	after_cg=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d 2>/dev/null | grep -v sandeval- | sort)
	local new
	new=$(comm -13 <(echo "$before_cg") <(echo "$after_cg") | grep -iE 'runsc|gvisor|sandeval' || true)
	[[ -z $new ]] || flunk "cgroups runsc made are left: $new"
	files_naming "$id" | grep -q . && flunk "files of run $id left: $(files_naming "$id")"
	[[ ! -e /var/run/runsc ]] || [[ -z $(ls /var/run/runsc 2>/dev/null) ]] || flunk "runsc's default state dir was used"
	assert_no_residue "$id" "$(j .sandbox_id)"
}

# bats test_tags=root
@test "gvisor: kill -9 of sandeval mid-run, then sandeval gc: runsc processes, state and cgroups gone" {
	"$SANDEVAL" gc >/dev/null 2>&1 || true
	snapshot_host
	# sleep 120: on a loaded machine one look at the process table (run_pids) takes seconds
	"$SANDEVAL" exec --backend gvisor --wall-time 300 --cpu-time 300 --file "$IN_PROBE=$PROBE" -- "$IN_PROBE" sleep 120 "$TAG" \
		</dev/null >/dev/null 2>&1 3>&- &
	SBX_PID=$!
	local BACKEND=gvisor ids pids deadline=$((SECONDS + 60))
	while ((SECONDS < deadline)); do
		ids=$(gvisor_ids "$TAG")
		[[ -n $ids ]] && pids=$(run_pids "$ids") && [[ $pids == *$'\n'* ]] &&
			wait_sentry "$TAG" 1 >/dev/null && break
		sleep 0.1
	done
	[[ -n $ids ]] || flunk "the run never started"
	sleep 0.3
	pids=$(run_pids "$ids")
	kill -9 "$SBX_PID"
	wait "$SBX_PID" || true
	SBX_PID=
	# shellcheck disable=SC2086 # the pids are words
	gc_kills $pids
	[[ ! -e /run/sandeval/$ids.gvisor && ! -e ${XDG_RUNTIME_DIR:-/nonexistent}/sandeval/$ids.gvisor &&
		! -e /tmp/sandeval-$(id -u)/$ids.gvisor ]] || flunk "the run's directory is left"
	assert_no_residue "$ids"
}
