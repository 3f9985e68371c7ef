#!/usr/bin/env bats
# breaker.bats - the circuit breaker: escape attempts stop a run (exit 2, nothing recorded lost), the store then refuses runs and gates until a person resets it with who and why

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
FIX=$BATS_TEST_DIRNAME/fixtures
# 4 honest samples, 3 that call mount in each of their 3 tests (3 escape-class
# events each), 6 honest ones after them
SAMPLES=$FIX/breaker-samples.jsonl
TASKS=$FIX/attack-tasks.jsonl

load run-helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# sbe ARG...: sandeval ARG...; $rc, $out (stdout), $err (stderr)
sbe() {
	"$SANDEVAL" "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
}

# trip: the default threshold (5) is reached by the second mount sample; one job, so the order is the file's
trip() {
	sbe run --db t.db --tasks "$TASKS" --samples "$SAMPLES" --no-lint --jobs 1 --quiet
}

# bats test_tags=native
@test "escape attempts trip the breaker mid-run: exit 2 saying why, the samples done are kept, no more are evaluated" {
	trip
	((rc == 2)) || flunk "exit $rc, want 2"
	[[ $err == *"stopped by the circuit breaker: 6 escape-class events (denied system calls 6"*"--breaker-threshold 5"* ]] ||
		flunk "the message does not say why"
	local id
	id=$(grep -o 'r-[0-9a-f]\{16\}' stderr.txt | head -1)
	[[ -n $id ]] || flunk "no run id in the message"
	[[ $(sqlite3 t.db "SELECT group_concat(sample_id, ' ') FROM (SELECT sample_id FROM samples ORDER BY id)") == \
		"honest-0 honest-1 honest-2 honest-3 mount-0 mount-1" ]] ||
		flunk "recorded: $(sqlite3 t.db "SELECT sample_id FROM samples ORDER BY id" | tr '\n' ' ')"
	# what was recorded is whole: each with its tests and tripwires
	[[ $(sqlite3 t.db "SELECT tripwires FROM samples WHERE sample_id = 'mount-1'") == *'"denied_syscalls":{"mount":3}'* ]] ||
		flunk "mount-1's tripwires: $(sqlite3 t.db "SELECT tripwires FROM samples WHERE sample_id = 'mount-1'")"
	[[ $(sqlite3 t.db "SELECT count(*) FROM tests WHERE sample_id = 'honest-3'") == 3 ]] || flunk "honest-3's tests"
}

# bats test_tags=native
@test "a tripped store refuses the next run and a gate, naming when, why and the run" {
	trip
	local id
	id=$(grep -o 'r-[0-9a-f]\{16\}' stderr.txt | head -1)
	sbe run --db t.db --tasks "$TASKS" --samples "$FIX/attack-samples.jsonl" --no-lint --quiet
	((rc == 2)) || flunk "run on a tripped store: exit $rc, want 2"
	[[ $err == *"circuit breaker of 't.db' is tripped: since 20"*" UTC, by run $id: 6 escape-class events"*"sandeval breaker reset --by NAME --reason TEXT"* ]] ||
		flunk "the refusal does not name when, the run, why and how"
	[[ $(sqlite3 t.db "SELECT count(*) FROM runs") == 1 ]] || flunk "a refused run was recorded"
	# the agent loop too, before it asks anything or records an agent run
	sbe agent --db t.db --tasks "$FIX/agent/tasks.jsonl" --replay "$FIX/agent/replay.jsonl" --k 2 --rounds 1 --no-lint --quiet
	((rc == 2)) || flunk "agent on a tripped store: exit $rc, want 2"
	[[ $err == *"circuit breaker of 't.db' is tripped: since 20"*"by run $id"* ]] || flunk "agent: the refusal does not say why"
	[[ $(sqlite3 t.db "SELECT count(*) FROM agent_steps") == 0 && $(sqlite3 t.db "SELECT count(*) FROM runs") == 1 ]] ||
		flunk "a refused agent recorded something"
	sbe gate --db t.db --baseline "$id" --candidate "$id"
	((rc == 2)) || flunk "gate on a tripped store: exit $rc, want 2"
	[[ $out == *"CANNOT JUDGE: the circuit breaker of 't.db' is tripped"* ]] || flunk "gate does not say why"
	sbe breaker status --db t.db
	((rc == 1)) || flunk "status of a tripped breaker: exit $rc, want 1"
	[[ $out == *TRIPPED* && $out == *"trip   run $id: 6 escape-class events"* ]] || flunk "status"
}

# bats test_tags=native
@test "a reset needs both --by and --reason; nothing else re-enables" {
	trip
	local args
	for args in "" "--by alice" "--reason checked" "--by alice --reason" "--by '' --reason checked"; do
		eval "sbe breaker reset --db t.db $args"
		((rc == 2)) || flunk "breaker reset $args: exit $rc, want 2"
		[[ $err == *"--by NAME"*"--reason TEXT"* ]] || flunk "breaker reset $args: the refusal does not say what is needed"
	done
	sbe breaker status --db t.db
	((rc == 1)) || flunk "still tripped after refused resets: status exit $rc"
	# a higher threshold on the next run does not get round it either
	sbe run --db t.db --tasks "$TASKS" --samples "$FIX/attack-samples.jsonl" --no-lint --quiet --breaker-threshold 0
	((rc == 2)) || flunk "--breaker-threshold 0 on a tripped store: exit $rc"
}

# bats test_tags=native
@test "after a reset runs work again, and status shows who reset it, when and why" {
	trip
	sbe breaker reset --db t.db --by alice --reason "probes were a test fixture"
	((rc == 0)) || flunk "reset: exit $rc"
	sbe breaker status --db t.db --json
	((rc == 0)) || flunk "status after the reset: exit $rc"
	[[ $(jq -c '[.tripped, [.history[].event], .history[1].by, .history[1].reason]' <<<"$out") == \
		'[false,["trip","reset"],"alice","probes were a test fixture"]' ]] || flunk "status JSON: $out"
	[[ $(jq -r '.history[0].run_id' <<<"$out") == r-* && $(jq -r '.history[1].at' <<<"$out") == *UTC ]] || flunk "status JSON: $out"
	sbe run --db t.db --tasks "$TASKS" --samples "$FIX/attack-samples.jsonl" --no-lint --quiet
	((rc == 0)) || flunk "a run after the reset: exit $rc"
	# a second reset has nothing to reset
	sbe breaker reset --db t.db --by bob --reason again
	((rc == 2)) && [[ $err == *"not tripped"* ]] || flunk "a reset of a closed breaker: exit $rc"
}

# bats test_tags=native
@test "--breaker-threshold 0 never trips; a threshold above the run's events neither" {
	local t
	for t in 0 100; do
		rm -f t.db
		sbe run --db t.db --tasks "$TASKS" --samples "$SAMPLES" --no-lint --quiet --breaker-threshold "$t"
		((rc == 0)) || flunk "--breaker-threshold $t: exit $rc"
		[[ $(sqlite3 t.db "SELECT count(*) FROM samples") == 13 ]] || flunk "--breaker-threshold $t: not every sample recorded"
		sbe breaker status --db t.db
		((rc == 0)) || flunk "--breaker-threshold $t: status exit $rc"
	done
}

# bats test_tags=native
@test "--breaker-rate N/M trips on N events within the last M samples, not on the run's total" {
	# each mount sample has 3 events, 9 in all: no single sample holds 4, the 3 in a row hold 9
	sbe run --db t.db --tasks "$TASKS" --samples "$SAMPLES" --no-lint --jobs 1 --quiet --breaker-threshold 0 --breaker-rate 4/1
	((rc == 0)) || flunk "--breaker-rate 4/1: exit $rc, want 0 (no sample has 4 events)"
	[[ $(sqlite3 t.db "SELECT count(*) FROM samples") == 13 ]] || flunk "--breaker-rate 4/1: not every sample recorded"
	rm -f t.db
	sbe run --db t.db --tasks "$TASKS" --samples "$SAMPLES" --no-lint --jobs 1 --quiet --breaker-threshold 0 --breaker-rate 7/3
	((rc == 2)) || flunk "--breaker-rate 7/3: exit $rc, want 2"
	[[ $err == *"9 escape-class events"*"in 7 samples 9 of them in the last 3 samples reached --breaker-rate 7/3"* ]] ||
		flunk "the message does not say the rate"
	[[ $(sqlite3 t.db "SELECT count(*) FROM samples") == 7 ]] || flunk "recorded: $(sqlite3 t.db "SELECT count(*) FROM samples")"
	sbe breaker status --db t.db
	((rc == 1)) || flunk "status after a trip by rate: exit $rc"
	local v
	for v in 3 0/5 3/0 a/b 3/ /3 3/5x; do
		sbe run --db u.db --tasks "$TASKS" --samples "$SAMPLES" --no-lint --breaker-rate "$v"
		((rc == 2)) && [[ $err == *"--breaker-rate '$v'"* ]] || flunk "--breaker-rate $v: exit $rc, $err"
	done
}

# bats test_tags=native
@test "sandeval metrics: the store as Prometheus text, with the tripwires by kind and the breaker" {
	trip
	sbe metrics --db t.db
	((rc == 0)) || flunk "metrics: exit $rc"
	local bad
	bad=$(grep -v '^#' stdout.txt | grep -Ev '^[a-z_]+(\{[a-z_]+="[^"]*"\})? [0-9]+(\.[0-9]+)?$' || true)
	[[ -z $bad ]] || flunk "not Prometheus text: $bad"
	local want
	for want in 'sandeval_runs{state="unfinished"} 1' 'sandeval_samples_total{outcome="passed"} 4' \
		'sandeval_samples_total{outcome="failed"} 2' 'sandeval_tests_total{status="crash"} 6' \
		'sandeval_tripwires_total{kind="denied_syscalls"} 6' 'sandeval_denied_syscalls_total{syscall="mount"} 6' \
		'sandeval_tripwires_total{kind="metadata_probes"} 0' 'sandeval_samples_with_escapes_total 2' \
		'sandeval_breaker_tripped 1' 'sandeval_breaker_events_total{event="trip"} 1'; do
		grep -qxF "$want" stdout.txt || flunk "no line '$want'"
	done
	grep -q '^# TYPE sandeval_tripwires_total counter$' stdout.txt || flunk "no TYPE line"
	"$SANDEVAL" breaker reset --db t.db --by alice --reason test >/dev/null
	sbe metrics --db t.db
	grep -qxF 'sandeval_breaker_tripped 0' stdout.txt && grep -qxF 'sandeval_breaker_events_total{event="reset"} 1' stdout.txt ||
		flunk "after the reset"
	sbe metrics --db nonexistent.db
	((rc == 2)) || flunk "metrics of no store: exit $rc"
}

# bats test_tags=native
@test "a shard stops when another process trips the store's breaker while it runs" {
	local i
	for ((i = 0; i < 30; i++)); do
		echo '{"task_id": "attack/0", "sample_id": "slow-'$i'", "completion": "    import time\n    time.sleep(0.1)\n    return a + b\n"}'
	done >slow.jsonl
	"$SANDEVAL" run --db t.db --run-id shared --shard 0/1 --tasks "$TASKS" --samples slow.jsonl --no-lint --jobs 1 \
		--quiet >stdout.txt 2>stderr.txt &
	local pid=$!
	for ((i = 0; i < 600; i++)); do
		[[ $(sqlite3 t.db "SELECT count(*) FROM samples" 2>/dev/null) -ge 2 ]] && break
		sleep 0.05
	done
	sqlite3 t.db "INSERT INTO breaker (at_ms, event, run_id, reason) VALUES (1, 'trip', 'r-0123456789abcdef', 'elsewhere')"
	wait "$pid" && rc=0 || rc=$?
	((rc == 2)) || flunk "exit $rc, want 2"
	[[ $(<stderr.txt) == *"stopped by the circuit breaker: the store's circuit breaker was tripped by another process meanwhile"* ]] ||
		flunk "the message"
	(($(sqlite3 t.db "SELECT count(*) FROM samples") < 30)) || flunk "every sample was evaluated"
}

@test "breaker: --help, and usage errors" {
	sbe breaker --help
	((rc == 0)) && [[ $out == *"sandeval breaker reset --by NAME --reason TEXT"* ]] || flunk "--help: exit $rc"
	sbe breaker
	((rc == 2)) || flunk "no action: exit $rc"
	sbe breaker frob
	((rc == 2)) || flunk "unknown action: exit $rc"
	sbe breaker status --db nonexistent.db
	((rc == 2)) && [[ $err == *"nonexistent.db"* ]] || flunk "status of no store: exit $rc"
	sbe run --breaker-threshold -1 --tasks "$TASKS" --samples "$SAMPLES"
	((rc == 2)) && [[ $err == *"--breaker-threshold"* ]] || flunk "a negative threshold: exit $rc"
}
