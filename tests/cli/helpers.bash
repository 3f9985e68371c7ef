# helpers.bash: shared functions of the sandeval CLI tests (run `sandeval exec`, read its JSON, look from the host)

# shellcheck disable=SC2034 # variables set here are read by the tests
SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
PROBE=${PROBE:-$BATS_TEST_DIRNAME/../probe/probe}
# Where the probe is injected inside the sandbox.
IN_PROBE=/work/probe
# The backend under test: SANDEVAL_BACKEND=gvisor runs the same suite under runsc.
BACKEND=${SANDEVAL_BACKEND:-native}
BACKEND_OPTS=()
[[ $BACKEND == native ]] || BACKEND_OPTS=(--backend "$BACKEND")

is_gvisor() { [[ $BACKEND == gvisor ]]; }

# Fail the suite early, with a reason, when something it needs is missing.
check_prerequisites() {
	[[ -x $SANDEVAL ]] || { echo "no sandeval binary at '$SANDEVAL' (run make)" >&2; return 1; }
	[[ -x $PROBE ]] || { echo "no probe at '$PROBE' (cc -std=c11 -O2 -static -o tests/probe/probe tests/probe/probe.c)" >&2; return 1; }
	command -v jq >/dev/null || { echo "jq is missing (apt-get install -y jq)" >&2; return 1; }
}

is_root() { [[ $(id -u) -eq 0 ]]; }

# opted_out CATEGORY: SANDEVAL_SKIP names it (tests/run.sh; tests/README.md)
opted_out() { [[ ,${SANDEVAL_SKIP-}, == *,$1,* ]]; }

# sbx [OPTION...] -- PROGRAM [ARG...]
# Run `sandeval exec OPTION... -- PROGRAM ARG...`; set $json (stdout), $err
# (stderr), $rc (exit status) and $elapsed_ms (host wall clock).
sbx() {
	local t0 t1
	t0=$(date +%s%N)
	json=$("$SANDEVAL" exec "${BACKEND_OPTS[@]}" "$@" 2>"$BATS_TEST_TMPDIR/sbx.err" </dev/null) && rc=0 || rc=$?
	t1=$(date +%s%N)
	elapsed_ms=$(((t1 - t0) / 1000000))
	err=$(cat "$BATS_TEST_TMPDIR/sbx.err")
	# every run this test starts, for assert_no_residue
	jq -r '.sandbox_id // empty' <<<"$json" 2>/dev/null >>"$BATS_TEST_TMPDIR/ids" || true
}

# probe [OPTION...] -- MODE [ARG...]: sbx with the probe injected at $IN_PROBE.
probe() {
	local opts=()
	while (($#)) && [[ $1 != -- ]]; do
		opts+=("$1")
		shift
	done
	[[ ${1-} == -- ]] && shift
	sbx --file "$IN_PROBE=$PROBE" "${opts[@]}" -- "$IN_PROBE" "$@"
}

# What the last run printed and returned, for failure messages.
show() {
	{
		echo "--- sandeval exit status: $rc (${elapsed_ms:-?} ms)"
		echo "--- stdout (JSON, first 3000 bytes):"
		head -c 3000 <<<"$json"
		echo
		echo "--- stderr (first 2000 bytes):"
		head -c 2000 <<<"$err"
		echo
	} >&2
}

flunk() {
	echo "FAIL: $*" >&2
	show
	return 1
}

# j FILTER: jq -r FILTER on the last JSON.
j() { jq -r "$1" <<<"$json"; }

# out: the program's stdout as reported in the JSON, byte for byte.
out() { jq -j '.stdout' <<<"$json"; }

# kv KEY: the value of a `KEY=value` line of the program's stdout.
kv() { out | sed -n "s/^$1=//p" | head -n 1; }

assert_json() {
	jq -e 'type == "object"' <<<"$json" >/dev/null 2>&1 || flunk "stdout is not one JSON object"
}

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
	[[ $1 == "$2" ]] || flunk "$3: expected '$2', got '$1'"
}

# expect_status STATUS [RC]: the JSON status, and the exit status that goes
# with it (RC: interrupted's is 128 + the signal's number).
expect_status() {
	local want_rc=${2:-1}
	assert_json
	[[ $1 == ok ]] && want_rc=0
	[[ $1 == sandbox_error ]] && want_rc=2
	assert_eq "$(j .status)" "$1" "status"
	assert_eq "$rc" "$want_rc" "exit status of sandeval exec for status $1"
}

# expect_status_in STATUS...: the status is one of these (and not sandbox_error).
expect_status_in() {
	local s
	assert_json
	s=$(j .status)
	for want in "$@"; do
		[[ $s == "$want" ]] && return 0
	done
	flunk "status '$s' is none of: $*"
}

# For data-driven tests: record a failed case and go on; report them all at the end.
case_fail() {
	bad+=("$*")
	show 2>&1 | sed 's/^/    /' >&2
}

report_cases() {
	((${#bad[@]} == 0)) && return 0
	printf 'FAILED CASE: %s\n' "${bad[@]}" >&2
	return 1
}

# run_in_background OPTION... -- MODE ARG...: start sandeval exec with the probe
# in the background; SBX_PID is sandeval's pid, its output goes to $BATS_TEST_TMPDIR/bg.
run_in_background() {
	local opts=()
	while (($#)) && [[ $1 != -- ]]; do
		opts+=("$1")
		shift
	done
	shift
	# every signal as default: end_background sends SIGTERM, which a caller may ignore
	env --default-signal "$SANDEVAL" exec "${BACKEND_OPTS[@]}" --file "$IN_PROBE=$PROBE" "${opts[@]}" -- "$IN_PROBE" "$@" \
		</dev/null >"$BATS_TEST_TMPDIR/bg" 2>"$BATS_TEST_TMPDIR/bg.err" 3>&- &
	SBX_PID=$!
}

# end_background PID: end the run_in_background run once the test has looked
# at its program (host pid PID): killed from the host, natively (init reports
# it, sandeval tears the sandbox down as for any end); under gVisor, where the
# host sees only runsc's processes, sandeval is sent SIGTERM (it tears the
# sandbox down: exec.md#interrupting-it). Either way the program may sleep
# long: a loaded machine's look at /proc took longer than an 8 s sleep.
end_background() {
	if is_gvisor; then
		kill -TERM "$SBX_PID" 2>/dev/null || true
	else
		kill -KILL "$1" 2>/dev/null || true
	fi
	wait "$SBX_PID" || true
	SBX_PID=
}

# A tag no other process carries, to find the sandboxed program from the host.
new_tag() { echo "tag-$$-$RANDOM$RANDOM"; }

# gvisor_ids TAG: the ids of live gVisor runs whose program's arguments hold
# TAG (their requests, DIR/request in the state directories, say so).
gvisor_ids() {
	local d
	for d in /run/sandeval ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR/sandeval"} "/tmp/sandeval-$(id -u)"; do
		[[ -d $d ]] || continue
		grep -laF -- "$1" "$d"/*.gvisor/request 2>/dev/null |
			sed -n 's|.*/\([0-9a-f]\{32\}\)\.gvisor/request$|\1|p'
	done
	return 0
}

# run_pids ID: host pids of a gVisor run: runsc's processes naming
# sandeval-ID (runsc run, its gofer, the sandbox), and their descendants
# (the ptrace stubs that run the program's code).
run_pids() {
	local p args ppid want=() all
	for p in /proc/[0-9]*; do
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		[[ " ${args[*]} " == *"/$1.gvisor/"* && ${args[0]-} == *runsc* ]] && want+=("${p#/proc/}")
	done
	((${#want[@]})) || return 0
	all=" ${want[*]} "
	# descendants: a few passes over the process table
	local pass
	for pass in 1 2 3; do
		for p in /proc/[0-9]*; do
			ppid=$(awk '{print $4}' "$p/stat" 2>/dev/null) || continue
			[[ $all == *" $ppid "* && $all != *" ${p#/proc/} "* ]] && all+="${p#/proc/} "
		done
	done
	tr ' ' '\n' <<<"$all" | grep . | sort -n
}

# tagged_pids TAG: host pids of processes whose argv[0] is $IN_PROBE and
# whose command line holds TAG (not sandeval itself, whose argv also has it).
# Under gVisor the program is no host process: the run's runsc processes.
tagged_pids() {
	local p args
	if is_gvisor; then
		for p in $(gvisor_ids "$1"); do run_pids "$p"; done
		return 0
	fi
	for p in /proc/[0-9]*; do
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		[[ ${args[0]-} == "$IN_PROBE" && " ${args[*]} " == *" $1 "* ]] && echo "${p#/proc/}"
	done
	return 0
}

# wait_tagged TAG [SECONDS]: print the first host pid carrying TAG, waiting for it.
wait_tagged() {
	local deadline=$((SECONDS + ${2:-10})) pids
	while ((SECONDS < deadline)); do
		pids=$(tagged_pids "$1")
		[[ -n $pids ]] && { head -n 1 <<<"$pids"; return 0; }
		sleep 0.05
	done
	return 1
}

# wait_gone TAG [SECONDS]: succeed once no process carries TAG.
wait_gone() {
	local deadline=$((SECONDS + ${2:-5}))
	while ((SECONDS < deadline)); do
		[[ -z $(tagged_pids "$1") ]] && return 0
		sleep 0.05
	done
	[[ -z $(tagged_pids "$1") ]]
}

# status_field PID FIELD: a line of /proc/PID/status without its name.
status_field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }

# pids_of_uid UID: host pids whose real, effective, saved or fs uid is UID.
pids_of_uid() {
	local p key r e sv fs
	for p in /proc/[0-9]*; do
		alive "${p#/proc/}" || continue
		while read -r key r e sv fs; do
			[[ $key == Uid: ]] || continue
			[[ " $r $e $sv $fs " == *" $1 "* ]] && echo "${p#/proc/}"
			break
		done 2>/dev/null <"$p/status"
	done
	return 0
}

# Cgroup directories named sandeval-* anywhere under /sys/fs/cgroup that a run
# by this user could have made (root: all of them; a user: the ones it owns),
# but the spares (spare_cgroups).
sandeval_cgroups() {
	if is_root; then
		find /sys/fs/cgroup -mindepth 1 -type d -name 'sandeval-*' ! -name 'sandeval-spare-*' 2>/dev/null
	else
		find /sys/fs/cgroup -mindepth 1 -type d -name 'sandeval-*' ! -name 'sandeval-spare-*' \
			-uid "$(id -u)" 2>/dev/null
	fi | sort
}

# The cgroup directories this shell runs in, one per hierarchy
# (/proc/self/cgroup): the parents of the cgroups its runs make.
own_cgroup_dirs() {
	local ctrls path c
	while IFS=: read -r _ ctrls path; do
		if [[ -z $ctrls ]]; then
			if [[ -e /sys/fs/cgroup/cgroup.controllers ]]; then
				echo "/sys/fs/cgroup$path"
			else
				echo "/sys/fs/cgroup/unified$path"
			fi
			continue
		fi
		for c in ${ctrls//,/ }; do
			[[ -d /sys/fs/cgroup/$c ]] && realpath -m "/sys/fs/cgroup/$c/$path"
		done
	done </proc/self/cgroup | sort -u
}

# The spares of this user that runs from this shell keep and take: emptied
# cgroups kept for the next run (cgroup v1; cgroup_release in
# src/lib/sandbox/cgroup.h), beside the run cgroups, so under the cgroups this
# shell runs in. Spares that runs from another cgroup left (a session gone
# whose cgroup stays) are not these runs' nor `sandeval gc`'s here.
spare_cgroups() {
	local d
	for d in $(own_cgroup_dirs); do
		find "$d" -mindepth 1 -maxdepth 1 -type d -name "sandeval-spare-$(id -u)-*" 2>/dev/null
	done | sort
}

# Every spare under /sys/fs/cgroup, whoever left it: none may hold a process.
all_spare_cgroups() {
	find /sys/fs/cgroup -mindepth 1 -type d -name 'sandeval-spare-*' 2>/dev/null | sort
}

# Mount points of the host mount namespace.
host_mounts() { awk '{print $5}' /proc/self/mountinfo | sort; }

# Files that sandeval may leave behind: what is in its state directories
# (/run/sandeval as root, else $XDG_RUNTIME_DIR/sandeval or /tmp/sandeval-UID).
# (The sandbox's own root and tmpfs live in its mount namespace, not on the host.)
residue_files() {
	local d
	for d in /run/sandeval ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR/sandeval"} "/tmp/sandeval-$(id -u)"; do
		[[ -d $d ]] && find "$d" -mindepth 1 2>/dev/null
	done | sort -u
	return 0
}

# Paths in temporary and run directories that name sandbox ID.
files_naming() {
	find /tmp /var/tmp /dev/shm /run -maxdepth 4 -name "*$1*" 2>/dev/null | grep -v '^/tmp/bats-' || true
}

# snapshot_host: remember the host state that runs must leave as they found it.
snapshot_host() {
	sandeval_cgroups >"$BATS_TEST_TMPDIR/cgroups.before"
	host_mounts >"$BATS_TEST_TMPDIR/mounts.before"
	residue_files >"$BATS_TEST_TMPDIR/files.before"
}

# live_run ID: a sandeval run with this id is still going (it holds the lock
# of its record in a state directory), e.g. someone else's run on this machine.
live_run() {
	local lock
	for lock in /run/sandeval/"$1".lock ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR/sandeval/$1.lock"} \
		/tmp/sandeval-"$(id -u)"/"$1".lock; do
		[[ -e $lock ]] && ! flock -n "$lock" true 2>/dev/null && return 0
	done
	return 1
}

# Keep the cgroup directories of stdin that hold no process and that no run
# record names (a record kept for `sandeval gc`: another run's business; the
# runs under test are checked by id).
not_busy() {
	local d id
	while IFS= read -r d; do
		[[ -s $d/cgroup.procs ]] && continue
		id=${d##*/sandeval-}
		[[ -e /run/sandeval/$id.lock || -e /tmp/sandeval-$(id -u)/$id.lock ||
			-e ${XDG_RUNTIME_DIR:-/nonexistent}/sandeval/$id.lock ]] && continue
		echo "$d"
	done
}

# Keep the lines of stdin that name no sandbox id, or the id of a run this
# test started (sbx records them; IDS are the others it knows of): items of
# runs that other sandevals on this machine started are theirs to clean.
ours() {
	local line id
	while IFS= read -r line; do
		id=$(grep -oE '[0-9a-f]{32}' <<<"$line" | head -n 1) || true
		if [[ -n $id ]] && ! grep -qx "$id" "$BATS_TEST_TMPDIR/ids" 2>/dev/null &&
			[[ " $OUR_IDS " != *" $id "* ]]; then
			continue
		fi
		echo "$line"
	done
}

# Keep the lines of stdin that do not name a live run other than ours.
not_live() {
	local line id
	while IFS= read -r line; do
		id=$(grep -oE '[0-9a-f]{32}' <<<"$line" | head -n 1) || true
		[[ -n $id ]] && live_run "$id" && continue
		echo "$line"
	done
}

# assert_no_residue [ID...]: nothing of the runs since snapshot_host is left:
# no cgroup or file naming one of the given sandbox ids, and no new sandeval-*
# cgroup, host mount or state file at all, except those of runs still live
# (someone else's sandeval running at the same time on this shared machine).
assert_no_residue() {
	local cg mounts files id OUR_IDS="$*"
	# Other sandevals on this machine may be mid-way through removing their
	# cgroups (or sweeping a busy one): only what stays for seconds is residue.
	# A cgroup that holds processes belongs to a run still going (another
	# sandeval whose record lives in a state directory of its own).
	local try
	for try in 1 2 3 4 5 6 7 8; do
		cg=$({
			comm -13 "$BATS_TEST_TMPDIR/cgroups.before" <(sandeval_cgroups) | not_live | not_busy | ours
			for id in "$@"; do sandeval_cgroups | grep -F "sandeval-$id"; done
		} | sort -u)
		[[ -z $cg ]] && break
		sleep 1
	done
	[[ -z $cg ]] || flunk "cgroup directories left (runs under test: $*): $cg"
	local spare
	for spare in $(all_spare_cgroups); do
		[[ -z $(cat "$spare/cgroup.procs" 2>/dev/null) ]] ||
			flunk "a spare cgroup holds processes: $spare: $(cat "$spare/cgroup.procs")"
	done
	local left
	for id in "$@"; do
		left=$(run_pids "$id")
		[[ -z $left ]] || flunk "runsc processes of run $id left: $left"
	done
	mounts=$(comm -13 "$BATS_TEST_TMPDIR/mounts.before" <(host_mounts))
	[[ -z $mounts ]] || flunk "mounts left in the host namespace: $mounts"
	files=$({
		comm -13 "$BATS_TEST_TMPDIR/files.before" <(residue_files) | not_live | ours
		for id in "$@"; do files_naming "$id"; done
	} | sort -u)
	[[ -z $files ]] || flunk "files left: $files"
}

# gc_kills PID...: `sandeval gc` succeeds and none of the host pids (a killed
# run's runsc processes) is alive after it.
gc_kills() {
	"$SANDEVAL" gc >/dev/null || flunk "sandeval gc failed"
	local p
	for p in "$@"; do
		! alive "$p" || flunk "host pid $p of the run survived gc: $(tr '\0' ' ' <"/proc/$p/cmdline")"
	done
}

# alive PID: the process exists and is not a zombie (an orphaned zombie waits
# for the machine's pid 1 to reap it and holds nothing).
alive() {
	local state
	state=$(status_field "$1" State 2>/dev/null) || return 1
	[[ -n $state && $state != Z* ]]
}

# start_tcp_listener: a host listener on 127.0.0.1; sets $LISTEN_PORT and $LISTEN_PID.
start_tcp_listener() {
	local portfile=$BATS_TEST_TMPDIR/port
	/usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".t", "w").write(str(s.getsockname()[1])); os.rename(sys.argv[1] + ".t", sys.argv[1])
s.settimeout(30)
try:
    while True: s.accept()[0].close()
except OSError: pass
' "$portfile" </dev/null >/dev/null 2>&1 3>&- &
	LISTEN_PID=$!
	wait_file "$portfile"
	LISTEN_PORT=$(cat "$portfile")
}

# start_abstract_listener NAME: a host listener on the abstract unix socket @NAME.
start_abstract_listener() {
	local ready=$BATS_TEST_TMPDIR/abstract.ready
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(16)
open(sys.argv[2], "w").close()
s.settimeout(30)
try:
    while True: s.accept()[0].close()
except OSError: pass
' "$1" "$ready" </dev/null >/dev/null 2>&1 3>&- &
	LISTEN_PID=$!
	wait_file "$ready"
}

stop_listener() {
	[[ -n ${LISTEN_PID-} ]] && kill "$LISTEN_PID" 2>/dev/null && wait "$LISTEN_PID" 2>/dev/null
	LISTEN_PID=
	return 0
}

wait_file() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ -s $1 || -e $1 ]] && return 0
		sleep 0.05
	done
	echo "timed out waiting for '$1'" >&2
	return 1
}

# wait_sentry TAG [SECONDS]: the runsc-sandbox process (gVisor's kernel) of
# the gVisor run whose program carries TAG, waiting for it. Found from the
# run's id (its state directory), not from one of the run's pids: runsc's
# short-lived helpers come and go, and their pids are reused quickly.
wait_sentry() {
	local deadline=$((SECONDS + ${2:-60})) id p args
	while ((SECONDS < deadline)); do
		for id in $(gvisor_ids "$1"); do
			for p in /proc/[0-9]*; do
				mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
				[[ ${args[0]-} == runsc-sandbox && " ${args[*]} " == *"/$id.gvisor/"* ]] &&
					{ echo "${p#/proc/}"; return 0; }
			done
		done
		sleep 0.05
	done
	return 1
}
