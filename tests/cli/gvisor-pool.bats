#!/usr/bin/env bats
# gvisor-pool.bats: `sandeval run --backend gvisor` with pre-started sandboxes (--gvisor-pool, sandbox-pool.c):
# each serves one sample, with that sample's limits, files and tripwires, and nothing is left after the run
# or after a kill -9 of it and `sandeval gc`. Each test checks from the run's --log that the sample it
# judges was served by a pre-started sandbox.
# Each test names its backend, so tests/run.sh runs this file once, in the root pass.
# bats file_tags=backend-specific

# shellcheck disable=SC2030,SC2031,SC2034 # bats runs each test in a subshell
load helpers

FIX=$BATS_TEST_DIRNAME/fixtures

setup_file() {
	check_prerequisites
}

setup() {
	is_root || skip "root: gVisor needs cgroups, which only root has here"
	command -v runsc >/dev/null || skip "gvisor: runsc is not installed (apt-get install runsc)"
	cd "$BATS_TEST_TMPDIR" || return 1
	RUN_PID=
}

teardown() {
	if [[ -n ${RUN_PID-} ]]; then kill -9 -- "-$RUN_PID" 2>/dev/null || true; fi
	return 0
}

# pool_run ARG...: one job, one sandbox ahead, events into ev.log; $rc
pool_run() {
	"$SANDEVAL" run --backend gvisor --jobs 1 --gvisor-pool 1 --no-lint --db t.db --out out.jsonl --log ev.log \
		--quiet "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
}

# sample_json ID: SAMPLE's record in --out
sample_json() { jq -c --arg id "$1" 'select(.sample_id == $id)' out.jsonl; }

# all_ids: every sandbox the run made, pre-started ones never used included
all_ids() { jq -r .sandbox_id ev.log | sort -u; }

# assert_pooled SAMPLE: its sandbox was started before it came (the pool's)
assert_pooled() {
	local id
	id=$(sqlite3 t.db "SELECT sandbox_ids FROM samples WHERE sample_id = '$1'")
	[[ -n $id ]] || flunk "no sandbox recorded for sample $1: $(cat stderr.txt)"
	jq -r --arg id "$id" 'select(.sandbox_id == $id) | .detail' ev.log | grep -q 'pre-started' ||
		flunk "sample $1's sandbox $id was not pre-started: $(jq -c --arg id "$id" 'select(.sandbox_id == $id)' ev.log)"
}

# samples TASK_ID SAMPLE_ID=CODE...: a samples file of HumanEval completions
samples() {
	local task=$1 s
	shift
	for s in "$@"; do
		jq -cn --arg t "$task" --arg id "${s%%=*}" --arg c "${s#*=}" '{task_id: $t, sample_id: $id, completion: $c}'
	done >s.jsonl
}

# bats test_tags=root
@test "gvisor pool: a pre-started sandbox serves one sample: what the last one left in /tmp, /work and /proc is gone" {
	snapshot_host
	# the leaver writes files, leaves a process and carries a marker in its source
	local leaver checker
	leaver='    import subprocess
    # LEAVER
    for p in ("/tmp/pool-leak", "/work/pool-leak"):
        open(p, "w").write("x")
    subprocess.Popen(["python3", "-c", "import time; time.sleep(60)", "pool-leftover"], start_new_session=True)
    return a + b
'
	checker='    import glob, os
    mark = ("LEA" + "VER").encode()
    if os.path.exists("/tmp/pool-leak") or os.path.exists("/work/pool-leak"):
        return 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if b"pool-" + b"leftover" in open("/proc/%s/cmdline" % p, "rb").read():
                    return 0
            except OSError:
                pass
    for p in glob.glob("/work/**", recursive=True):
        if os.path.isfile(p) and mark in open(p, "rb").read():
            return 0
    return a + b
'
	samples attack/0 "leaver=$leaver" "checker=$checker" "checker2=$checker"
	pool_run --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --k 1
	[[ $rc == 0 || $rc == 1 ]] || flunk "run failed ($rc): $(cat stderr.txt)"
	[[ $(sample_json leaver | jq .passed) == true ]] || flunk "the leaver failed: $(sample_json leaver)"
	assert_pooled checker
	assert_pooled checker2
	[[ $(sample_json checker | jq .passed) == true ]] || flunk "the checker saw the leaver's files or process: $(sample_json checker)"
	[[ $(sample_json checker2 | jq .passed) == true ]] || flunk "checker2: $(sample_json checker2)"
	# the run had the leaver's result before its sandbox's teardown: destroyed once the checker's program
	# ran (one worker: the log is in time order)
	local leaver_id checker_id lines
	leaver_id=$(sqlite3 t.db "SELECT sandbox_ids FROM samples WHERE sample_id = 'leaver'")
	checker_id=$(sqlite3 t.db "SELECT sandbox_ids FROM samples WHERE sample_id = 'checker'")
	lines=$(jq -r --arg l "$leaver_id" --arg c "$checker_id" '
		if .sandbox_id == $l and .phase == "destroy" and (.detail | startswith("deferred")) then "deferred"
		elif .sandbox_id == $l and .phase == "destroy" and (.detail | startswith("gVisor sandbox")) then "removed"
		elif .sandbox_id == $c and .phase == "execute" and (.detail | startswith("started")) then "checker started"
		else empty end' ev.log | tr '\n' ,)
	[[ $lines == "deferred,checker started,removed," ]] ||
		flunk "the leaver's sandbox was not destroyed after its result, while the checker ran: $lines"
	# nothing left: no runsc process, state directory or cgroup of any sandbox, pre-started or used
	# shellcheck disable=SC2046 # the ids are words
	assert_no_residue $(all_ids)
}

# bats test_tags=root
@test "gvisor pool: a pre-started sandbox gets its sample's memory limit, not the one it was started with" {
	mkdir -p tasks/roomy tasks/tight
	local t
	for t in roomy:1G tight:160M; do
		jq -n --arg id "${t%%:*}" --arg m "${t#*:}" '{id: $id, language: "python", entry_point: "f", prompt: "Write f.",
			limits: {cpu_time: 5, wall_time: 10, memory: $m}, tests: [{name: "t", args: [], expected: 1}]}' \
			>"tasks/${t%%:*}/task.json"
	done
	# four processes of 80M each: under each one's RLIMIT_AS (the runner's), over the tight cgroup together
	local code='import os, time


def f():
    kids = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            b = bytearray(80 << 20)
            for i in range(0, len(b), 4096):
                b[i] = 1
            time.sleep(1)
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)
    return 1
'
	# roomy first: the tight sample's sandbox is started while it runs, from its configuration (1G)
	jq -cn --arg c "$code" '{task_id: "roomy", sample_id: "roomy", solution: $c}, {task_id: "tight", sample_id: "tight", solution: $c}' >s.jsonl
	pool_run --tasks tasks --samples s.jsonl
	assert_pooled tight
	[[ $(sample_json roomy | jq .passed) == true ]] || flunk "the roomy sample failed: $(sample_json roomy)"
	[[ $(sample_json tight | jq -r .result) == "failed: memory_limit" ]] ||
		flunk "the tight sample escaped its memory limit: $(sample_json tight)"
	# tight first: the roomy sample's sandbox is started from the tight one's configuration (160M) and
	# raised to 1G at its assignment (on cgroup v1 memsw before memory: the kernel refuses the other order)
	rm -f t.db out.jsonl ev.log
	jq -cn --arg c "$code" '{task_id: "tight", sample_id: "tight", solution: $c}, {task_id: "roomy", sample_id: "roomy", solution: $c}' >s.jsonl
	pool_run --tasks tasks --samples s.jsonl
	assert_pooled roomy
	[[ $(sample_json roomy | jq .passed) == true ]] || flunk "the roomy sample, raised, failed: $(sample_json roomy)"
}

# bats test_tags=root
@test "gvisor pool: the runner's files put in ahead reach only samples of that runner; another language's sample never sees them" {
	mkdir -p tasks/py tasks/js
	jq -n '{id: "py", language: "python", entry_point: "f", prompt: "Write f.",
		tests: [{name: "t", args: [], expected: []}]}' >tasks/py/task.json
	jq -n '{id: "js", language: "javascript", entry_point: "f", prompt: "Write f.",
		tests: [{name: "t", args: [], expected: []}]}' >tasks/js/task.json
	# each returns the names under /work/.sandeval of the other language's runner (the driver's are shared)
	local py='import os


def f():
    return sorted(n for n in os.listdir("/work/.sandeval") if n.endswith(".js"))
'
	local js='function f() {
	return require("fs").readdirSync("/work/.sandeval").filter((n) => n.startsWith("runner.py")).sort();
}
'
	jq -cn --arg py "$py" --arg js "$js" '{task_id: "py", sample_id: "py1", solution: $py},
		{task_id: "js", sample_id: "js1", solution: $js}, {task_id: "py", sample_id: "py2", solution: $py},
		{task_id: "py", sample_id: "py3", solution: $py}' >s.jsonl
	pool_run --tasks tasks --samples s.jsonl
	local s
	for s in py1 js1 py2 py3; do
		[[ $(sample_json "$s" | jq .passed) == true ]] || flunk "$s saw another runner's files, or failed: $(sample_json "$s")"
	done
	# js1's sandbox, started during py1 with python's files, was not given to it; py3's, started during py2,
	# was (pre-started, though without files put in ahead once a sample's differed)
	assert_pooled py3
	local id
	id=$(sqlite3 t.db "SELECT sandbox_ids FROM samples WHERE sample_id = 'js1'")
	if jq -r --arg id "$id" 'select(.sandbox_id == $id) | .detail' ev.log | grep -q 'pre-started'; then
		flunk "js1 was served by a sandbox that holds python's runner"
	fi
}

# bats test_tags=root
@test "gvisor pool: tripwires are counted for the sample that set them off, not the next in the pool" {
	local attack honest
	attack='    import socket
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(("169.254.169.254", 80))
    except OSError:
        pass
    try:
        open("/etc/sandeval-x", "w")
    except OSError:
        pass
    return a + b
'
	honest='    return a + b
'
	samples attack/0 "attack=$attack" "honest=$honest"
	# the breaker off: the attack's six events would stop the run before the honest sample
	pool_run --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --k 1 --breaker-threshold 0
	assert_pooled honest
	[[ $(sample_json attack | jq '.tripwires.metadata_probes') -ge 1 && $(sample_json attack | jq '.tripwires.writes_denied') -ge 1 ]] ||
		flunk "the attack was not counted: $(sample_json attack | jq -c .tripwires)"
	local want='{"network_attempts":0,"destinations":[],"metadata_probes":0,"denied_syscalls":{},"writes_denied":0,"limit_hits":[],"lingering_processes":0}'
	[[ $(sample_json honest | jq -c .tripwires) == "$want" ]] ||
		flunk "the honest sample carries tripwires: $(sample_json honest | jq -c .tripwires)"
}

# bats test_tags=root
@test "gvisor pool: kill -9 of the run with a sandbox running and one pre-started, then sandeval gc: nothing left" {
	"$SANDEVAL" gc >/dev/null 2>&1 || true
	snapshot_host
	local tag
	tag=$(new_tag)
	samples attack/0 "sleeper=    import time  # $tag
    time.sleep(100)
    return a + b
" "next=    return a + b
"
	# its own process group, so that kill -9 takes the run and its workers at once (runsc's are in theirs)
	setsid "$SANDEVAL" run --backend gvisor --jobs 1 --gvisor-pool 1 --no-lint --db t.db --log ev.log --quiet \
		--timeout 300 --tasks "$FIX/attack-tasks.jsonl" --samples s.jsonl --k 1 </dev/null >stdout.txt 2>stderr.txt 3>&- &
	RUN_PID=$!
	# cheap looks only in the loop: scanning /proc (run_pids) takes seconds on a loaded machine
	local deadline=$((SECONDS + 240)) running='' waiting='' id
	while ((SECONDS < deadline)); do
		# the sleeper's: assigned (its request copy written) with --timeout 300's CPU
		# limit, RLIMIT_CPU (resource 0) of hundreds of seconds (the canaries' are a few)
		running=$(grep -laP '\x000:[0-9]{3,}:[0-9]+\x00' /run/sandeval/*.gvisor/request 2>/dev/null | head -n 1 |
			sed -n 's|.*/\([0-9a-f]\{32\}\)\.gvisor/.*|\1|p')
		waiting=
		for id in $(all_ids 2>/dev/null); do
			# started, not assigned: no request yet
			[[ $id != "$running" && -d /run/sandeval/$id.gvisor/state && ! -e /run/sandeval/$id.gvisor/request ]] &&
				waiting=$id
		done
		# (a canary's process may end with its own pre-started sandbox: only a live one counts)
		[[ -n $running && -n $waiting ]] && [[ -n $(run_pids "$waiting") ]] && break
		sleep 0.2
	done
	[[ -n $running ]] || flunk "the sleeper's sandbox never started: $(cat stderr.txt; tail -n 3 ev.log)"
	[[ -n $waiting ]] || flunk "no sandbox was pre-started beside the sleeper's"
	local pids
	pids=$(run_pids "$running"; run_pids "$waiting")
	kill -9 -- "-$RUN_PID"
	wait "$RUN_PID" || true
	RUN_PID=
	# shellcheck disable=SC2086 # the pids are words
	gc_kills $pids
	# shellcheck disable=SC2046 # the ids are words
	assert_no_residue $(all_ids)
}
