#!/usr/bin/env bats
# scale.bats - sharded runs on one PostgreSQL store: the verdicts of one process, a killed shard, two copies, a database restart, the same reports
#
# tests/run.sh starts a throwaway PostgreSQL cluster (tests/pg.sh) and
# exports SANDEVAL_PG_URL (its unix socket), SANDEVAL_PG_TCP_URL (127.0.0.1
# with a password) and SANDEVAL_PG_DIR; each test makes a database of its
# own. The real-data tests (heavy) split a slice of CodeGen-16B, the 100
# samples of HumanEval/40 and of HumanEval/55 (200: pass@1, @10 and @100 are
# all defined), and compare with one single-process SQLite run of it;
# tests/heavy/scale.bats does the same with all 16,400.
#
# A front end on the pipeline, the same whatever sandboxes it: run natively as
# root and under ASan, not repeated in the gVisor and uid 65534 passes, where
# run.bats, exec.bats and tripwires.bats prove the sandbox (tests/README.md).
# bats file_tags=frontend

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
STORE_COPY=${STORE_COPY:-$BATS_TEST_DIRNAME/../../build/tests/tools/store-copy}
PG_SH=$BATS_TEST_DIRNAME/../pg.sh
EX=$BATS_TEST_DIRNAME/../../examples
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
CODEGEN=$DATA/samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz
BACKEND_OPTS=()
[[ ${SANDEVAL_BACKEND:-native} == native ]] || BACKEND_OPTS=(--backend "$SANDEVAL_BACKEND")

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
	# a test that stopped the cluster starts it again, whatever happened
	if [[ -n ${PG_STOPPED-} ]]; then
		pg_start
		PG_STOPPED=
	fi
	# shards left running by a failed test
	local p
	for p in ${BG_PIDS-}; do kill -9 "$p" 2>/dev/null || true; done
	return 0
}

flunk() {
	echo "FAIL: $*" >&2
	local f
	for f in *.err; do
		[[ -s $f ]] || continue
		echo "--- $f:" >&2
		tail -c 1500 "$f" >&2
	done
	return 1
}

need_pg() {
	[[ -n ${SANDEVAL_PG_URL-} ]] || skip "postgres: no PostgreSQL server (SANDEVAL_PG_URL; tests/run.sh starts one)"
}

need_data() {
	[[ -r $HE && -r $CODEGEN ]] || skip "data: no HumanEval data or CodeGen-16B samples under '$DATA' (set SANDEVAL_DATA)"
}

# pg_start: start the cluster again. The server must not hold any descriptor
# of bats' (its TAP pipe on fd 3 and others): bats waits for them to close,
# so a server that inherited one would hold the whole suite until it stops.
pg_start() {
	(
		for fd in /proc/$BASHPID/fd/*; do
			fd=${fd##*/}
			((fd > 2)) && eval "exec $fd>&-"
		done
		exec "$PG_SH" start "$SANDEVAL_PG_DIR"
	) </dev/null >/dev/null
}

# url_of URL DB: URL naming database DB instead
url_of() { sed -E "s#^(postgres(ql)?://[^/?]*)/[^?]*#\1/$2#" <<<"$1"; }

# pg_db NAME: a new, empty database on the cluster; sets $PG to its URL
pg_db() {
	psql -X -q -v ON_ERROR_STOP=1 "$SANDEVAL_PG_URL" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" \
		-c "CREATE DATABASE $1" >/dev/null 2>&1 || { echo "cannot create database $1" >&2; return 1; }
	PG=$(url_of "$SANDEVAL_PG_URL" "$1")
}

# sql URL QUERY: one value
sql() { psql -X -qAt "$1" -c "$2"; }

# codegen_slice TASK...: the 100 CodeGen-16B samples of each task, in file order, on stdout
codegen_slice() {
	local sel
	sel=$(printf '"%s",' "$@")
	zcat "$CODEGEN" | jq -c --argjson t "[${sel%,}]" 'select(.task_id as $i | $t | index($i))'
}

# The single-process SQLite run of the 200-sample slice, made once per file:
# $REF (its export with tests), $REF_REPORT (`sandeval report` of it)
reference() {
	REF=$BATS_FILE_TMPDIR/ref.json
	REF_REPORT=$BATS_FILE_TMPDIR/ref-report.txt
	[[ -s $REF ]] && return 0
	codegen_slice HumanEval/40 HumanEval/55 >"$BATS_FILE_TMPDIR/slice.jsonl"
	"$SANDEVAL" run --db "$BATS_FILE_TMPDIR/ref.db" --tasks "$HE" --samples "$BATS_FILE_TMPDIR/slice.jsonl" \
		--partial --no-lint --seed 1 --k 1,10,100 --quiet --json "$BATS_FILE_TMPDIR/ref-summary.json" \
		>/dev/null 2>"$BATS_FILE_TMPDIR/ref.err" || { cat "$BATS_FILE_TMPDIR/ref.err" >&2; return 1; }
	local id
	id=$(jq -r .run.id "$BATS_FILE_TMPDIR/ref-summary.json")
	"$SANDEVAL" report --db "$BATS_FILE_TMPDIR/ref.db" "$id" >"$REF_REPORT"
	"$SANDEVAL" export --db "$BATS_FILE_TMPDIR/ref.db" "$id" --tests -o "$REF"
}

# shard URL NAME I/N SAMPLES [OPTION...]: start a shard in the background; its pid in $!
shard() {
	local url=$1 name=$2 spec=$3 samples=$4
	shift 4
	"$SANDEVAL" run --db "$url" --run-id "$name" --shard "$spec" --tasks "$HE" --samples "$samples" \
		--partial --no-lint --seed 1 --k 1,10,100 --jobs 1 --quiet "$@" >"shard-${spec%/*}-$RANDOM.out" \
		2>>"shard-${spec%/*}.err" &
	BG_PIDS+=" $!"
}

# wait_for URL QUERY N [SECONDS]: until QUERY's value is at least N
wait_for() {
	local deadline=$((SECONDS + ${4:-120})) v
	while ((SECONDS < deadline)); do
		v=$(sql "$1" "$2" 2>/dev/null) || v=0
		((${v:-0} >= $3)) && return 0
		sleep 0.2
	done
	echo "timed out: '$2' is ${v:-?}, not $3" >&2
	return 1
}

# same_samples URL NAME [TASK]: the run's samples (verdicts, scores, every test's status and detail)
# are the reference's, sample for sample (only TASK's when given)
same_samples() {
	"$SANDEVAL" export --db "$1" "$2" --tests -o got.json 2>export.err || { flunk "export: $(cat export.err)"; return 1; }
	local sel='.samples | map(select($t == "" or .task_id == $t)) | sort_by(.sample_id)'
	jq -S --arg t "${3-}" "$sel" got.json >got.samples
	jq -S --arg t "${3-}" "$sel" "$REF" >ref.samples
	[[ $(jq length ref.samples) -ge 100 ]] || { flunk "the reference has $(jq length ref.samples) samples"; return 1; }
	diff ref.samples got.samples >samples.diff || { flunk "verdicts differ from the single-process run: $(head -c 2000 samples.diff)"; return 1; }
}

# no_duplicates URL NAME N: N samples recorded, each once, each with its tests
no_duplicates() {
	local n d t
	n=$(sql "$1" "SELECT count(*) FROM sandeval.samples WHERE run_id = '$2'")
	d=$(sql "$1" "SELECT count(DISTINCT sample_id) FROM sandeval.samples WHERE run_id = '$2'")
	t=$(sql "$1" "SELECT count(*) FROM sandeval.samples s WHERE run_id = '$2' AND NOT EXISTS
		(SELECT 1 FROM sandeval.tests t WHERE t.run_id = s.run_id AND t.sample_id = s.sample_id)")
	[[ $n == "$3" && $d == "$3" && $t == 0 ]] || { flunk "$n rows, $d samples ($3 expected), $t without tests"; return 1; }
}

# pass_at_k K: the unbiased estimator on the {task_id, passed} of the samples array on stdin
pass_at_k() {
	jq --argjson k "$1" 'group_by(.task_id)
		| map(length as $n | (map(select(.passed == true)) | length) as $c
			| if $n - $c < $k then 1 else 1 - ([range($n - $c + 1; $n + 1) | 1 - $k / .] | reduce .[] as $x (1; . * $x)) end)
		| add / length'
}

# bats test_tags=heavy,native
@test "CodeGen-16B slice in 4 shards on PostgreSQL, one killed with SIGKILL and restarted: the verdicts and pass@1/10/100 of one SQLite process, no duplicate" {
	need_pg
	need_data
	reference || flunk "the reference run failed"
	pg_db sd_scale_four
	local i pid1 name=cg4 k
	for i in 0 2 3; do shard "$PG" $name $i/4 "$BATS_FILE_TMPDIR/slice.jsonl"; done
	shard "$PG" $name 1/4 "$BATS_FILE_TMPDIR/slice.jsonl"
	pid1=$!
	# shard 1 (50 samples) killed once it recorded 10
	wait_for "$PG" "SELECT count(*) FROM sandeval.samples WHERE run_id = '$name' AND shard = 1" 10 || flunk "shard 1 recorded nothing"
	kill -9 "$pid1"
	wait "$pid1" 2>/dev/null || true
	BG_PIDS=${BG_PIDS/ $pid1/}
	local n1
	n1=$(sql "$PG" "SELECT count(*) FROM sandeval.samples WHERE run_id = '$name' AND shard = 1")
	((n1 >= 10 && n1 < 50)) || flunk "shard 1 was not killed mid-way: $n1 of 50 recorded"
	"$SANDEVAL" run --db "$PG" --run-id $name --status >status-killed.txt && flunk "complete with shard 1 killed"
	grep -Eq "^1/4 +50 +$n1 +started +1 " status-killed.txt || flunk "status after the kill: $(cat status-killed.txt)"
	# the engine's retry: the same command
	shard "$PG" $name 1/4 "$BATS_FILE_TMPDIR/slice.jsonl"
	for pid1 in $BG_PIDS; do wait "$pid1" || flunk "a shard failed"; done
	BG_PIDS=
	"$SANDEVAL" run --db "$PG" --run-id $name --status >status.txt || flunk "not complete: $(cat status.txt)"
	grep -Eq "^1/4 +50 +50 +finished +2 " status.txt || flunk "shard 1 after its restart: $(cat status.txt)"
	no_duplicates "$PG" $name 200
	same_samples "$PG" $name
	# pass@k: sandeval's report of the two runs, and the estimator on the verdicts
	"$SANDEVAL" report --db "$PG" $name >report.txt || flunk "report"
	for k in 1 10 100; do
		[[ $(grep -m1 " pass@$k " report.txt) == $(grep -m1 " pass@$k " "$REF_REPORT") ]] ||
			flunk "pass@$k: '$(grep -m1 " pass@$k " report.txt)' vs '$(grep -m1 " pass@$k " "$REF_REPORT")'"
		[[ $(jq '.samples' got.json | pass_at_k $k) == $(jq '.samples' "$REF" | pass_at_k $k) ]] || flunk "pass@$k differs"
	done
	grep -q " pass@100 " report.txt || flunk "no pass@100 in the report: $(cat report.txt)"
}

# bats test_tags=heavy,native
@test "two copies of one shard at once: every sample recorded once, the verdicts of one process" {
	need_pg
	need_data
	reference || flunk "the reference run failed"
	pg_db sd_scale_twins
	codegen_slice HumanEval/40 >forty.jsonl
	local p
	shard "$PG" twins 0/2 forty.jsonl
	shard "$PG" twins 0/2 forty.jsonl
	shard "$PG" twins 1/2 forty.jsonl
	for p in $BG_PIDS; do wait "$p" || flunk "a shard failed"; done
	BG_PIDS=
	"$SANDEVAL" run --db "$PG" --run-id twins --status >status.txt || flunk "not complete: $(cat status.txt)"
	grep -Eq "^0/2 +50 +50 +finished +2 " status.txt || flunk "shard 0 was not started twice: $(cat status.txt)"
	no_duplicates "$PG" twins 100
	same_samples "$PG" twins HumanEval/40
	# the copies met: one of them left out, or gave up, samples the other recorded
	grep -q "recorded by another process first" shard-0.err || flunk "the two copies never met"
}

# bats test_tags=heavy,native,root
@test "the database stopped mid-run and started again: the run finishes, nothing lost; stopped for good: the shard gives up naming host and database" {
	need_pg
	need_data
	[[ -n ${SANDEVAL_PG_DIR-} ]] || skip "postgres: SANDEVAL_PG_DIR is not set (tests/run.sh sets it)"
	reference || flunk "the reference run failed"
	pg_db sd_scale_restart
	codegen_slice HumanEval/55 >fiftyfive.jsonl
	local p
	shard "$PG" restart 0/2 fiftyfive.jsonl
	shard "$PG" restart 1/2 fiftyfive.jsonl
	wait_for "$PG" "SELECT count(*) FROM sandeval.samples WHERE run_id = 'restart'" 10 || flunk "nothing recorded"
	PG_STOPPED=1
	"$PG_SH" stop "$SANDEVAL_PG_DIR" || flunk "cannot stop the cluster"
	sleep 3
	pg_start || flunk "cannot start the cluster"
	PG_STOPPED=
	for p in $BG_PIDS; do wait "$p" || flunk "a shard failed across the restart"; done
	BG_PIDS=
	"$SANDEVAL" run --db "$PG" --run-id restart --status >status.txt || flunk "not complete: $(cat status.txt)"
	no_duplicates "$PG" restart 100
	same_samples "$PG" restart HumanEval/55

	# stopped for good: the shard (over TCP, with a password) gives up after SANDEVAL_DB_RETRY seconds
	local tcp
	tcp=$(url_of "$SANDEVAL_PG_TCP_URL" sd_scale_restart)
	SANDEVAL_DB_RETRY=4 "$SANDEVAL" run --db "$tcp" --run-id again --shard 0/1 --tasks "$HE" \
		--samples fiftyfive.jsonl --partial --no-lint --seed 1 --jobs 1 --quiet >/dev/null 2>again.err &
	BG_PIDS=" $!"
	wait_for "$PG" "SELECT count(*) FROM sandeval.samples WHERE run_id = 'again'" 5 || flunk "nothing recorded"
	PG_STOPPED=1
	"$PG_SH" stop "$SANDEVAL_PG_DIR" || flunk "cannot stop the cluster"
	local t0=$SECONDS rc=0
	wait $BG_PIDS || rc=$?
	BG_PIDS=
	((rc == 2)) || flunk "exit $rc with the database gone"
	((SECONDS - t0 < 60)) || flunk "it took $((SECONDS - t0)) s to give up"
	grep -q "gave up reconnecting after 4 s" again.err || flunk "no giving up: $(cat again.err)"
	grep -q "database 'sd_scale_restart' on host '127.0.0.1' port [0-9]" again.err || flunk "host and database not named: $(cat again.err)"
	grep -q "pg-test-s3cret" again.err && flunk "the password is in the message"
	pg_start || flunk "cannot start the cluster"
	PG_STOPPED=
	# started again (the engine's retry): it finishes what is left
	"$SANDEVAL" run --db "$tcp" --run-id again --shard 0/1 --tasks "$HE" --samples fiftyfive.jsonl --partial \
		--no-lint --seed 1 --jobs 2 --quiet >/dev/null 2>again2.err || flunk "the retry failed: $(cat again2.err)"
	no_duplicates "$PG" again 100
}

# ex_shard URL NAME I/N SAMPLES [OPTION...]: a shard of the example suite, in the foreground; $rc, $err
ex_shard() {
	local url=$1 name=$2 spec=$3 samples=$4
	shift 4
	"$SANDEVAL" run --db "$url" --run-id "$name" --shard "$spec" --tasks "$EX/tasks" --samples "$samples" \
		--no-lint --jobs 2 --quiet "${BACKEND_OPTS[@]}" "$@" >stdout.txt 2>stderr.txt && rc=0 || rc=$?
	err=$(cat stderr.txt)
}

# bats test_tags=native
@test "shards from auto/N (Kubernetes, Slurm); --status shard by shard; an incomplete run: report, gate and export say so; other options refused" {
	need_pg
	pg_db sd_scale_status
	local good=$EX/samples/good.jsonl
	JOB_COMPLETION_INDEX=0 ex_shard "$PG" ex auto/2 "$good"
	((rc == 0)) || flunk "shard 0: exit $rc: $err"
	# shard 0 done (3 samples: 0, 2, 4), shard 1 not started
	"$SANDEVAL" run --db "$PG" --run-id ex --status >status.txt && rc=0 || rc=$?
	((rc == 1)) || flunk "--status of an incomplete run: exit $rc"
	grep -q "^run ex is incomplete: 3 of 5 samples recorded" status.txt || flunk "$(cat status.txt)"
	grep -Eq "^0/2 +3 +3 +finished +1 " status.txt || flunk "shard 0: $(cat status.txt)"
	grep -Eq "^1/2 +2 +0 +not started +0 " status.txt || flunk "shard 1: $(cat status.txt)"
	"$SANDEVAL" gate --db "$PG" --baseline ex --candidate ex >gate.txt 2>&1 && rc=0 || rc=$?
	((rc == 2)) && grep -q "is unfinished: 3 of 5 samples recorded" gate.txt || flunk "gate: exit $rc: $(cat gate.txt)"
	"$SANDEVAL" report --db "$PG" ex >report.txt 2>report.err || flunk "report: $(cat report.err)"
	grep -q "unfinished: 3 of 5 samples recorded" report.txt && grep -q "run ex is incomplete: 3 of 5" report.err ||
		flunk "report: $(cat report.txt report.err)"
	"$SANDEVAL" export --db "$PG" ex >/dev/null 2>export.err || flunk "export: $(cat export.err)"
	grep -q "run 'ex' is unfinished: 3 of 5 samples recorded" export.err || flunk "export: $(cat export.err)"
	# a shard that is not the run: refused before anything runs
	ex_shard "$PG" ex 1/2 "$good" --timeout 7
	((rc == 2)) && [[ $err == *"shard 1/2 refused: run 'ex' runs with timeout 3.0, this shard with 7.0"* ]] || flunk "timeout: $rc $err"
	ex_shard "$PG" ex 1/2 "$EX/samples/buggy.jsonl"
	((rc == 2)) && [[ $err == *"refused: run 'ex' evaluates other samples"* ]] || flunk "samples: $rc $err"
	ex_shard "$PG" ex 1/3 "$good"
	((rc == 2)) && [[ $err == *"refused: run 'ex' has 2 shards, not 3"* ]] || flunk "N: $rc $err"
	"$SANDEVAL" run --db "$PG" --run-id ex --shard 1/2 --tasks "$EX/tasks" --samples "$good" --quiet \
		"${BACKEND_OPTS[@]}" >/dev/null 2>stderr.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "runs with lint false, this shard with true" stderr.txt || flunk "lint: $rc $(cat stderr.txt)"
	[[ $(sql "$PG" "SELECT count(*) FROM sandeval.samples") == 3 ]] || flunk "a refused shard recorded samples"
	ex_shard "$PG" ex 1/2 "$good" --resume ex
	((rc == 2)) && [[ $err == *"--shard and --resume"* ]] || flunk "resume: $rc $err"
	# every shard runs its own canaries: on a machine whose sandbox is broken (no runners) it stops, recording nothing
	mkdir -p broken-runners
	SANDEVAL_RUNNERS=$PWD/broken-runners ex_shard "$PG" ex 1/2 "$good"
	((rc == 2)) && [[ $err == *"canary"* ]] || flunk "a shard with broken canaries: exit $rc: $err"
	[[ $(sql "$PG" "SELECT count(*) FROM sandeval.samples") == 3 ]] || flunk "a shard whose canaries failed recorded samples"
	# the last shard (a Slurm array task) completes the run and reports it whole
	SLURM_ARRAY_TASK_ID=1 ex_shard "$PG" ex auto/2 "$good" --json summary.json
	((rc == 0)) || flunk "shard 1: exit $rc: $err"
	[[ $(jq .samples summary.json) == 5 ]] || flunk "the summary is not the whole run's: $(head -c 300 summary.json)"
	# the store from the environment (a Kubernetes Secret), the URL out of argv
	SANDEVAL_DB=$PG "$SANDEVAL" run --run-id ex --status >status.txt || flunk "not complete: $(cat status.txt)"
	grep -q "^run ex: complete: 5 samples recorded" status.txt || flunk "$(cat status.txt)"
	"$SANDEVAL" gate --db "$PG" --baseline ex --candidate ex >gate.txt 2>&1 || flunk "gate of the complete run: $(cat gate.txt)"
	# the same on SQLite: shards of one machine share a file
	ex_shard shards.db exs 1/2 "$good"
	((rc == 0)) || flunk "SQLite shard: $err"
	"$SANDEVAL" run --db shards.db --run-id exs --status >status.txt && flunk "complete with one shard of two"
	ex_shard shards.db exs 0/2 "$good"
	"$SANDEVAL" run --db shards.db --run-id exs --status >status.txt || flunk "SQLite: $(cat status.txt)"
}

# bats test_tags=native
@test "report, gate, show and export print the same on PostgreSQL as on SQLite for the same runs" {
	need_pg
	[[ -x $STORE_COPY ]] || flunk "no '$STORE_COPY' (make units)"
	local good=$EX/samples/good.jsonl buggy=$EX/samples/buggy.jsonl s
	# three finished runs (one with lint: findings, composite) and one unfinished
	for s in good:7 good:8 buggy:7; do
		"$SANDEVAL" run --db runs.db --tasks "$EX/tasks" --samples "$EX/samples/${s%:*}.jsonl" --seed "${s#*:}" \
			--jobs 2 --quiet --json "${s/:/-}.json" $([[ $s == buggy* ]] || echo --no-lint) "${BACKEND_OPTS[@]}" \
			>/dev/null 2>run.err || flunk "run $s: $(cat run.err)"
	done
	ex_shard runs.db half 0/2 "$good"
	((rc == 0)) || flunk "shard: $err"
	local g1 g2 b
	g1=$(jq -r .run.id good-7.json)
	g2=$(jq -r .run.id good-8.json)
	b=$(jq -r .run.id buggy-7.json)
	pg_db sd_scale_same
	"$STORE_COPY" runs.db "$PG" 2>copy.err || flunk "store-copy: $(cat copy.err)"
	local -a cmds=(
		"report" "report $g1" "report $b --against $g1" "report --html -" "report half"
		"show $b" "show $b --json" "show $b fib --holdout" "show $g2 --json"
		"export $b --tests" "export $g1" "export half --tests"
		"gate --baseline $g1 --candidate $b" "gate --baseline $g1 --candidate $g2 --json -"
		"gate --baseline $g1 --candidate $b --metric pass@1 --per-class --junit -"
		"gate --baseline $g1 --candidate half"
	)
	local c n=0 out1 out2 w
	for c in "${cmds[@]}"; do
		n=$((n + 1))
		read -ra w <<<"$c"
		"$SANDEVAL" "${w[0]}" --db runs.db "${w[@]:1}" >sqlite-$n.out 2>&1 && out1=0 || out1=$?
		"$SANDEVAL" "${w[0]}" --db "$PG" "${w[@]:1}" >pg-$n.out 2>&1 && out2=0 || out2=$?
		((out1 == out2)) || flunk "'$c': exit $out1 on SQLite, $out2 on PostgreSQL"
		diff sqlite-$n.out pg-$n.out >diff-$n.txt || flunk "'$c' differs: $(head -c 1500 diff-$n.txt)"
		[[ -s sqlite-$n.out ]] || flunk "'$c' printed nothing"
	done
	# the unfinished run is said so the same way: gate could not judge it
	grep -q "is unfinished: 3 of 5 samples recorded" sqlite-16.out || flunk "$(cat sqlite-16.out)"
	grep -q "unfinished: 3 of 5 samples recorded" sqlite-5.out || flunk "$(cat sqlite-5.out)"
}

@test "agent, breaker and metrics on a postgresql:// URL do what they do on SQLite" {
	need_pg
	pg_db sd_scale_front
	local fx=$BATS_TEST_DIRNAME/fixtures db i rc id
	local verdicts='[.task_id, .passed, .single_shot_passed, .completion, .candidates, .solved_round]'
	for db in runs.db "$PG"; do
		i=$([[ $db == runs.db ]] && echo sqlite || echo pg)
		# the agent loop, replayed: the same answers chosen and scored, its steps recorded
		"$SANDEVAL" agent --tasks "$fx/agent/tasks.jsonl" --db "$db" --no-lint --jobs 2 "${BACKEND_OPTS[@]}" \
			--replay "$fx/agent/replay.jsonl" --k 2 --rounds 1 --seed 3 --out "agent-$i.jsonl" --json "agent-$i.json" \
			>/dev/null 2>"agent-$i.err" || flunk "agent on $i: $(cat "agent-$i.err")"
		jq -c "$verdicts" "agent-$i.jsonl" | sort >"agent-$i.txt"
		# the breaker: tripped mid-run, refusing, reset only with who and why
		"$SANDEVAL" run --db "$db" --tasks "$fx/attack-tasks.jsonl" --samples "$fx/breaker-samples.jsonl" --no-lint \
			--jobs 1 --quiet "${BACKEND_OPTS[@]}" >/dev/null 2>"trip-$i.err" && rc=0 || rc=$?
		((rc == 2)) && grep -q "stopped by the circuit breaker: 6 escape-class events" "trip-$i.err" ||
			flunk "trip on $i: exit $rc"
		"$SANDEVAL" breaker status --db "$db" >/dev/null && rc=0 || rc=$?
		((rc == 1)) || flunk "breaker status on $i: exit $rc, want 1"
		"$SANDEVAL" run --db "$db" --tasks "$fx/attack-tasks.jsonl" --samples "$fx/attack-samples.jsonl" --no-lint \
			--quiet "${BACKEND_OPTS[@]}" >/dev/null 2>"refused-$i.err" && rc=0 || rc=$?
		((rc == 2)) && grep -q "circuit breaker of .* is tripped" "refused-$i.err" || flunk "refusal on $i: exit $rc"
		"$SANDEVAL" breaker reset --db "$db" --by alice 2>/dev/null && rc=0 || rc=$?
		((rc == 2)) || flunk "a reset without --reason on $i: exit $rc"
		"$SANDEVAL" breaker reset --db "$db" --by alice --reason checked >/dev/null || flunk "reset on $i"
		"$SANDEVAL" breaker status --db "$db" --json >"status-$i.json" || flunk "status after the reset on $i"
		jq -c '[.tripped, [.history[].event], .history[1].by, .history[1].reason]' "status-$i.json" >"status-$i.txt"
		# the store's figures, but for the runs' durations
		"$SANDEVAL" metrics --db "$db" | grep -v '^sandeval_run_duration' >"metrics-$i.txt" || flunk "metrics on $i"
	done
	[[ -s agent-sqlite.txt ]] || flunk "the agent wrote nothing"
	diff agent-sqlite.txt agent-pg.txt >diff.txt || flunk "the agent differs: $(cat diff.txt)"
	[[ $(cat status-pg.txt) == '[false,["trip","reset"],"alice","checked"]' ]] || flunk "status on pg: $(cat status-pg.txt)"
	diff status-sqlite.txt status-pg.txt >diff.txt || flunk "breaker status differs: $(cat diff.txt)"
	id=$(jq -r .agent_id agent-pg.json)
	[[ $(sql "$PG" "SELECT count(*) FROM sandeval.agent_steps WHERE agent_id = '$id'") -gt 3 ]] || flunk "no agent steps in PostgreSQL"
	grep -q '^sandeval_breaker_events_total{event="trip"} 1$' metrics-pg.txt || flunk "metrics on pg: $(cat metrics-pg.txt)"
	diff metrics-sqlite.txt metrics-pg.txt >diff.txt || flunk "metrics differ: $(cat diff.txt)"
}

@test "a sample cannot reach the database its run records into: no socket, no port, no descriptor" {
	need_pg
	local sock port tcp=${SANDEVAL_PG_TCP_URL-}
	port=$(sed -nE 's/.*[?&]port=([0-9]+).*/\1/p' <<<"$SANDEVAL_PG_URL")
	sock=$(sed -nE 's/.*[?&]host=([^&]+).*/\1/p' <<<"$SANDEVAL_PG_URL")/.s.PGSQL.$port
	[[ -n $port && -S $sock ]] || flunk "no socket '$sock' from '$SANDEVAL_PG_URL'"
	# the candidate looks for the database every way it could: connects, and descriptors it inherited
	jq -nc --arg sock "$sock" --argjson port "$port" '{task_id: "probe", prompt: "def probe():\n",
		entry_point: "probe", canonical_solution: "    return \"isolated\"\n",
		test: "def check(candidate):\n    assert candidate() == \"isolated\"\n"}' >tasks.jsonl
	cat >probe.py <<-EOF
		    import os, socket
		    seen = []
		    for family, addr in ((socket.AF_UNIX, "$sock"), (socket.AF_INET, ("127.0.0.1", $port))):
		        s = socket.socket(family, socket.SOCK_STREAM)
		        s.settimeout(2)
		        try:
		            s.connect(addr)
		            seen.append("connected to %r" % (addr,))
		        except OSError:
		            pass
		        s.close()
		    for fd in os.listdir("/proc/self/fd"):
		        try:
		            s = socket.socket(fileno=int(fd))
		        except OSError:
		            continue
		        try:
		            peer = s.getpeername()
		            if "PGSQL" in str(peer) or (isinstance(peer, tuple) and peer[1:2] == ($port,)):
		                seen.append("inherited descriptor %s to %r" % (fd, peer))
		        except OSError:
		            pass
		        s.detach()
		    return "; ".join(seen) or "isolated"
	EOF
	jq -nc --rawfile c probe.py '{task_id: "probe", completion: $c}' >samples.jsonl
	# the probe works: outside a sandbox it finds the database
	{ echo "def probe():"; cat probe.py; echo 'print(probe())'; } >host.py
	[[ $(/usr/bin/python3 host.py) == *"connected to"* ]] || flunk "the probe does not find the database from the host"
	pg_db sd_scale_probe
	"$SANDEVAL" run --db "$PG" --run-id probe --tasks tasks.jsonl --samples samples.jsonl --no-lint --jobs 1 \
		--quiet --out out.jsonl "${BACKEND_OPTS[@]}" >/dev/null 2>run.err || flunk "run: $(cat run.err)"
	[[ $(jq -r .passed out.jsonl) == true ]] || flunk "the sample reached the database: $(jq -c '.tests' out.jsonl)"
}
