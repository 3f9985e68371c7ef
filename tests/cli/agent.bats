#!/usr/bin/env bats
# agent.bats - `sandeval agent`: the loop with a replayed sample file, a generator program and an OpenAI-compatible server on loopback (docs/agent.md)
#
# A front end on the pipeline, the same whatever sandboxes it: run natively as
# root and under ASan, not repeated in the gVisor and uid 65534 passes, where
# run.bats, exec.bats and tripwires.bats prove the sandbox (tests/README.md).
# bats file_tags=frontend

SANDEVAL=${SANDEVAL:-$BATS_TEST_DIRNAME/../../sandeval}
FX=$BATS_TEST_DIRNAME/fixtures/agent
GEN=$BATS_TEST_DIRNAME/agent-generator.py
SERVER=$BATS_TEST_DIRNAME/agent-server.py
BACKEND_OPTS=()
[[ ${SANDEVAL_BACKEND:-native} == native ]] || BACKEND_OPTS=(--backend "$SANDEVAL_BACKEND")
# the hidden tests' inputs and expected values (tasks.jsonl): never shown a model
HIDDEN='654321|777777|31337|62674'

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	server_pid=
}

teardown() {
	[[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true
}

flunk() {
	{
		echo "FAIL: $*"
		echo "--- exit $rc; stdout:"
		head -c 4000 stdout.txt
		echo "--- stderr:"
		head -c 3000 stderr.txt
	} >&2
	return 1
}

agent() {
	"$SANDEVAL" agent --tasks "$FX/tasks.jsonl" --db runs.db --no-lint --jobs 2 "${BACKEND_OPTS[@]}" "$@" \
		>stdout.txt 2>stderr.txt && rc=0 || rc=$?
	out=$(cat stdout.txt)
	err=$(cat stderr.txt)
}

# line TASK_ID FIELD: FIELD of TASK_ID's --out line (out.jsonl)
line() { jq -r --arg t "$1" "select(.task_id == \$t) | $2" out.jsonl; }

# start_server ARG...: the loopback chat completions server; $port, $server_pid
start_server() {
	python3 "$SERVER" --answers "$FX/answers.json" --log server.log --port-file port --lifetime 120 "$@" &
	server_pid=$!
	for _ in $(seq 100); do
		[[ -s port ]] && break
		sleep 0.1
	done
	[[ -s port ]] || { echo "the test server did not start" >&2; return 1; }
	port=$(cat port)
}

@test "replay: best-of-k on the public tests beats the first sample, scored on every test, reproducibly" {
	agent --replay "$FX/replay.jsonl" --k 2 --rounds 1 --seed 3 --out out.jsonl --json sum.json
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	# Agent/0: 'a - b' then a fenced 'a + b' (cleaned); Agent/1: 'x * 3' then 'x + x'
	[[ $(line Agent/0 .passed) == true && $(line Agent/0 .single_shot_passed) == false ]] || flunk "Agent/0"
	[[ $(line Agent/0 .completion) == $'def add(a, b):\n    return a + b' ]] || flunk "the chosen one, cleaned"
	[[ $(line Agent/1 .passed) == true && $(line Agent/1 .stop_reason) == solved ]] || flunk "Agent/1"
	[[ $(line Agent/0 .candidates) == 2 && $(line Agent/0 .result) == passed ]] || flunk "candidates, result"
	[[ $(jq -r '.all."agent_pass@1"' sum.json) == 1 && $(jq -r '.all."single_shot_pass@1"' sum.json) == 0 ]] ||
		flunk "$(cat sum.json)"
	[[ $(jq -r '.stop_reasons.solved' sum.json) == 2 ]] || flunk "stop reasons"
	# every candidate is in the store: the round's run holds 4, each final run 2
	round=$(jq -r '.round_runs[0]' sum.json)
	[[ $(sqlite3 runs.db "select count(*) from samples where run_id = '$round'") == 4 ]] || flunk "round run"
	[[ $(sqlite3 runs.db "select count(*) from samples where run_id = '$(jq -r .agent_run sum.json)'") == 2 ]] ||
		flunk "agent run"
	# the same file, the same choices
	cp out.jsonl first.jsonl
	agent --replay "$FX/replay.jsonl" --k 2 --rounds 1 --seed 3 --out out.jsonl
	diff <(jq -c '[.task_id, .completion, .passed]' first.jsonl) <(jq -c '[.task_id, .completion, .passed]' out.jsonl) ||
		flunk "not reproducible"
}

@test "replay: later rounds draw the next unused samples of their task, in file order" {
	agent --replay "$FX/replay.jsonl" --k 1 --rounds 3 --out out.jsonl
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	[[ $(line Agent/0 .solved_round) == 2 && $(line Agent/0 .rounds) == 2 ]] || flunk "Agent/0 solved in round 2"
	[[ $(line Agent/1 .solved_round) == 2 && $(line Agent/1 .single_shot_passed) == false ]] || flunk "Agent/1"
	[[ $(line Agent/0 .passed) == true ]] || flunk "passed"
}

@test "generator: the loop self-corrects from the feedback, and no request shows a hidden test" {
	AGENT_GEN_LOG=$PWD/gen.log agent --generator "python3 $GEN ok $FX/answers.json" --k 2 --rounds 3 --out out.jsonl \
		--json sum.json --no-plan --no-reflect
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	[[ $(line Agent/0 .solved_round) == 2 && $(line Agent/0 .passed) == true ]] || flunk "self-corrected"
	[[ $(line Agent/0 .single_shot_passed) == false ]] || flunk "single-shot"
	# the second request carries the failing public test: expected vs got
	jq -se 'map(select(.round == 2 and .task_id == "Agent/0") | .feedback | test("expected 5, got -1")) | length > 0 and all' gen.log >/dev/null ||
		flunk "no feedback: $(cat gen.log)"
	jq -se 'map(select(.round == 2) | .messages[-1].content | test("expected 5, got -1")) | length > 0 and all' gen.log >/dev/null || flunk "messages"
	# tokens add up: 7 + 3 a candidate, 2 candidates a request, 3 requests
	[[ $(jq -r '.tokens.prompt + .tokens.completion' sum.json) == 60 ]] || flunk "tokens $(jq -c .tokens sum.json)"
	! grep -Eq "$HIDDEN" gen.log || flunk "a hidden test reached the generator"
}

@test "generator: garbage, a hang, an empty or a 50 MB completion: a clear error or a failed candidate, the run goes on" {
	agent --generator "python3 $GEN garbage" --out out.jsonl
	[[ $rc -eq 2 && $err == *"generator 'python3 $GEN garbage'"*"not JSON"* ]] || flunk "garbage"
	[[ $(line Agent/0 .stop_reason) == generator_error && $(line Agent/1 .stop_reason) == generator_error ]] ||
		flunk "both tasks went on to their own error"
	t0=$(date +%s)
	agent --generator "python3 $GEN hang" --request-timeout 1
	[[ $rc -eq 2 && $err == *"no answer within the timeout"* ]] || flunk "hang"
	(($(date +%s) - t0 < 30)) || flunk "the timeout did not bound the hang"
	[[ -z $(pgrep -f "$GEN hang") ]] || flunk "the hung generator was left running"
	agent --generator "python3 $GEN fail"
	[[ $rc -eq 2 && $err == *"exited with status 3"* ]] || flunk "fail"
	agent --generator "./no-such-generator --flag"
	[[ $rc -eq 2 && $err == *"generator './no-such-generator --flag' exited with status 127"* ]] || flunk "no such program"
	agent --generator "python3 $GEN empty" --out out.jsonl
	[[ $rc -eq 0 && $(line Agent/0 .candidates) == 1 && $(line Agent/0 .passed) == false ]] || flunk "empty"
	agent --generator "python3 $GEN huge" --out out.jsonl --no-plan
	[[ $rc -eq 0 && $err == *"more than the 4 MiB a candidate may hold"* ]] || flunk "huge"
	[[ $(line Agent/0 .candidates) == 0 && $(line Agent/0 .stop_reason) == rounds ]] || flunk "huge: recorded"
}

@test "usage: one generator, and what is wrong is named" {
	agent --k 2
	[[ $rc -eq 2 && $err == *"give one generator"* ]] || flunk "none"
	agent --replay "$FX/replay.jsonl" --generator true
	[[ $rc -eq 2 && $err == *"give one generator"* ]] || flunk "two"
	agent --model-url http://127.0.0.1:1
	[[ $rc -eq 2 && $err == *"--model-url needs --model"* ]] || flunk "no model"
	agent --model-url ftp://x --model m
	[[ $rc -eq 2 && $err == *"expected an http:// or https:// URL"* ]] || flunk "scheme"
	agent --replay "$FX/replay.jsonl" --budget-usd 1
	[[ $rc -eq 2 && $err == *"--price-in"* ]] || flunk "prices"
	agent --replay "$FX/replay.jsonl" --k 0
	[[ $rc -eq 2 && $err == *"--k"* ]] || flunk "k"
	agent --replay nowhere.jsonl
	[[ $rc -eq 2 && $err == *"nowhere.jsonl"* ]] || flunk "replay file"
}

@test "http: a 429 is retried, the bearer token is sent and never shown or stored, usage adds up, the loop self-corrects" {
	start_server --key sk-test-SECRET-42 --fail-first 1 --status 429
	SANDEVAL_API_KEY=sk-test-SECRET-42 agent --model-url "http://127.0.0.1:$port/v1" --model m1 --k 1 --rounds 3 \
		--backoff 0.1 --out out.jsonl --json sum.json --no-plan --no-reflect
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	[[ $(jq -s 'length' server.log) == 4 ]] || flunk "requests: $(cat server.log)"
	[[ $(jq -s 'map(.auth_ok) | all' server.log) == true ]] || flunk "bearer token"
	[[ $(line Agent/0 .solved_round) == 2 && $(line Agent/0 .passed) == true ]] || flunk "self-corrected"
	# 3 answers of 10 + 5 tokens (the 429 spent none)
	[[ $(jq -r '.tokens.prompt' sum.json) == 30 && $(jq -r '.tokens.completion' sum.json) == 15 ]] || flunk "tokens"
	[[ $(line Agent/0 .requests) == 3 ]] || flunk "attempts counted"
	! grep -q SECRET stdout.txt stderr.txt out.jsonl sum.json runs.db* || flunk "the key leaked"
	! jq -r .body server.log | grep -Eq "$HIDDEN" || flunk "a hidden test reached the model"
	jq -e '.model == "m1" and .seed != null and .max_tokens == 512' <(jq -r 'select(.n == 2) | .body' server.log) \
		>/dev/null || flunk "the request body"
}

@test "http: 500 forever ends with the URL, the status and the attempts; the server's echo of the key is masked" {
	start_server --status-always 500
	OPENAI_API_KEY=sk-other-SECRET agent --model-url "http://127.0.0.1:$port/v1/" --model m1 --retries 2 --backoff 0.05
	[[ $rc -eq 2 ]] || flunk "exit $rc"
	[[ $err == *"POST http://127.0.0.1:$port/v1/chat/completions: HTTP 500"*"(3 attempts)"* ]] || flunk "message"
	[[ $(jq -s 'length' server.log) == 6 ]] || flunk "2 tasks x 3 attempts: $(jq -s length server.log)"
	[[ $err == *"scripted failure for Bearer *****"* ]] || flunk "the echo is not masked"
	! grep -q SECRET stdout.txt stderr.txt || flunk "the key leaked"
}

@test "http: a slow server is a timeout, an unreachable one a connection error, each naming the URL" {
	start_server --slow 5
	t0=$(date +%s)
	agent --model-url "http://127.0.0.1:$port/v1" --model m1 --request-timeout 0.5 --retries 1 --backoff 0.05
	[[ $rc -eq 2 && $err == *"POST http://127.0.0.1:$port/v1/chat/completions: "*"imeout"*"(2 attempts)"* ]] ||
		flunk "timeout"
	(($(date +%s) - t0 < 15)) || flunk "not bounded"
	kill "$server_pid"
	wait "$server_pid" 2>/dev/null || true
	server_pid=
	agent --model-url "http://127.0.0.1:$port/v1" --model m1 --retries 0
	[[ $rc -eq 2 && $err == *"POST http://127.0.0.1:$port/v1/chat/completions: Could"*"connect"* ]] || flunk "unreachable"
}

@test "budgets: a request that could pass the token budget is not sent; CPU and dollars stop the loop with their reason" {
	start_server
	agent --model-url "http://127.0.0.1:$port/v1" --model m1 --budget-tokens 1 --out out.jsonl --json sum.json
	[[ $rc -eq 0 && ! -s server.log ]] || flunk "a request was sent"
	[[ $(jq -r .budget_stop sum.json) == budget_tokens && $(line Agent/0 .stop_reason) == budget_tokens ]] ||
		flunk "stop reason"
	# a budget that lets some requests through: each sent one fitted in its bound (prompt bytes / 4 + max_tokens)
	agent --model-url "http://127.0.0.1:$port/v1" --model m1 --max-tokens 20 --rounds 3 --budget-tokens 200 \
		--out out.jsonl --json sum.json
	[[ $rc -eq 0 && $(jq -r .budget_stop sum.json) == budget_tokens ]] || flunk "$(cat sum.json)"
	python3 - server.log <<-'EOF' || flunk "a request went past the budget"
		import json, math, sys
		used = 0
		for line in open(sys.argv[1]):
		    body = json.loads(json.loads(line)["body"])
		    bound = math.ceil(len(json.dumps(body["messages"], separators=(",", ":"))) / 4) + body["max_tokens"]
		    assert used + bound <= 200, (used, bound)
		    used += 15
	EOF
	[[ $(jq -r '.tokens.prompt + .tokens.completion' sum.json) -le 200 && $(jq -s length server.log) -ge 2 ]] || flunk "spent"
	# dollars: 15 tokens cost 10 x 0.1 + 5 x 0.2 / 1000; the bound of one request is more than 0.00001
	agent --model-url "http://127.0.0.1:$port/v1" --model m1 --budget-usd 0.00001 --price-in 0.1 --price-out 0.2 \
		--out out.jsonl
	[[ $rc -eq 0 && $(line Agent/0 .stop_reason) == budget_usd ]] || flunk "usd"
	# CPU: round 1 is scored, then the budget is spent before round 2
	AGENT_GEN_LOG=$PWD/gen.log agent --generator "python3 $GEN ok $FX/answers.json" --rounds 3 --budget-cpu 0.001 \
		--out out.jsonl
	[[ $rc -eq 0 && $(line Agent/0 .stop_reason) == budget_cpu && $(line Agent/1 .stop_reason) == solved ]] ||
		flunk "cpu"
	[[ $(jq -s 'map(select(.round > 1)) | length' gen.log) == 0 ]] || flunk "a request after the CPU budget"
}

@test "records and --resume: after kill -9 the run goes on, asks nothing again and scores nothing twice" {
	local gen="python3 $GEN ok $FX/answers.json" id pid
	AGENT_GEN_LOG=$PWD/gen1.log AGENT_GEN_SLEEP_ROUND=2 AGENT_GEN_PIDFILE=$PWD/gen.pid \
		"$SANDEVAL" agent --tasks "$FX/tasks.jsonl" --db runs.db --no-lint --jobs 2 "${BACKEND_OPTS[@]}" \
		--generator "$gen" --k 2 --rounds 3 --no-plan --no-reflect >stdout.txt 2>stderr.txt &
	pid=$!
	for _ in $(seq 300); do
		[[ -s gen.pid ]] && break
		sleep 0.1
	done
	[[ -s gen.pid ]] || flunk "round 2 never started"
	kill -9 "$pid"
	kill "$(cat gen.pid)"
	wait "$pid" || true
	id=$(sed -n 's/.*agent run \(a-[0-9a-f]*\) (--resume.*/\1/p' stderr.txt)
	[[ -n $id ]] || flunk "no agent run id"
	# the other settings are the run's own: --k and --rounds are not given again
	AGENT_GEN_LOG=$PWD/gen2.log agent --generator "$gen" --resume "$id" --out out.jsonl --json sum.json
	[[ $rc -eq 0 && $err == *"resuming agent run $id: 2 answers and 1 runs recorded"* ]] || flunk "resume"
	[[ $(jq -s 'map(select(.round == 1)) | length' gen2.log) == 0 ]] || flunk "round 1 asked again"
	[[ $(jq -s 'map(select(.round == 2)) | length' gen2.log) == 1 ]] || flunk "round 2"
	[[ $(sqlite3 runs.db "select count(*) from runs where samples_path = 'agent round 1'") == 1 ]] ||
		flunk "round 1 scored twice"
	[[ $(line Agent/0 .solved_round) == 2 && $(line Agent/0 .candidates) == 4 && $(jq -r .agent_id sum.json) == "$id" ]] ||
		flunk "the outcome"
	# every request and decision is in the store, and no hidden test in any of it
	steps=$(sqlite3 runs.db "select group_concat(kind) from agent_steps where agent_id = '$id'")
	[[ $steps == start,answer,answer,run,select,select,resume,answer,run,select,run,run,stop,stop,done ]] ||
		flunk "steps: $steps"
	sqlite3 runs.db "select body from agent_steps where kind = 'answer' and round = 2" | jq -e \
		'(.feedback | test("expected 5, got -1")) and (.prompt_sha256 | length == 64) and .usage.prompt_tokens == 14' \
		>/dev/null || flunk "the answer step"
	! sqlite3 runs.db "select body from agent_steps" | grep -Eq "$HIDDEN" || flunk "a hidden test in the record"
	agent --generator "$gen" --resume a-0000000000000000
	[[ $rc -eq 2 && $err == *"no agent run 'a-0000000000000000'"* ]] || flunk "unknown id"
	agent --replay "$FX/replay.jsonl" --resume "$id"
	[[ $rc -eq 2 && $err == *"its generator was a command one, not replay"* ]] || flunk "another generator"
}

@test "checkpoint: without a terminal the chosen candidates wait (exit 3); approve and reject are recorded; --resume goes on with them" {
	agent --replay "$FX/replay.jsonl" --k 2 --checkpoint humaneval,other --out out.jsonl </dev/null
	[[ $rc -eq 3 ]] || flunk "exit $rc"
	[[ $(line Agent/0 .stop_reason) == checkpoint_pending && $(line Agent/0 .result) == "waits for approval" ]] ||
		flunk "pending"
	[[ $out == *"waits for approval: Agent/1 ('sandeval approve a-"* ]] || flunk "not listed"
	id=$(sed -n 's/^agent run \(a-[0-9a-f]*\)$/\1/p' stdout.txt)
	[[ $(sqlite3 runs.db "select count(*) from runs where samples_path like 'agent %'") == 1 ]] ||
		flunk "scored on every test before a decision"
	"$SANDEVAL" approve "$id" Agent/0 --accept --by alice --note "checked by hand" --db runs.db >approve.txt 2>&1 ||
		flunk "approve: $(cat approve.txt)"
	"$SANDEVAL" approve "$id" Agent/1 --reject --by bob --db runs.db >/dev/null 2>&1 || flunk "reject"
	"$SANDEVAL" approve "$id" Agent/1 --accept --by carol --db runs.db 2>approve.txt && flunk "decided twice"
	[[ $(cat approve.txt) == *"was decided already"* ]] || flunk "$(cat approve.txt)"
	"$SANDEVAL" approve "$id" Agent/0 --accept --db runs.db 2>approve.txt && flunk "no --by"
	"$SANDEVAL" approve "$id" Nope --accept --by x --db runs.db 2>approve.txt && flunk "no such task"
	[[ $(cat approve.txt) == *"has no candidate of task 'Nope' waiting"* ]] || flunk "$(cat approve.txt)"
	sqlite3 runs.db "select body from agent_steps where kind = 'approval' and task_id = 'Agent/0'" |
		jq -e '.by == "alice" and .decision == "accept" and .note == "checked by hand"' >/dev/null || flunk "recorded"
	agent --replay "$FX/replay.jsonl" --resume "$id" --out out.jsonl </dev/null
	[[ $rc -eq 0 ]] || flunk "resume: exit $rc"
	[[ $(line Agent/0 .passed) == true && $(line Agent/1 .stop_reason) == rejected && $(line Agent/1 .passed) == false ]] ||
		flunk "decisions not applied"
}

@test "checkpoint: on a terminal agent shows the candidate and its diff and takes y/n; a native task of high risk is held too" {
	command -v script >/dev/null || skip "host: no script(1) to give agent a terminal"
	printf 'n\ny\n' | script -qec "'$SANDEVAL' agent --tasks '$FX/tasks.jsonl' --replay '$FX/replay.jsonl' --k 1 --rounds 3 \
		--db runs.db --no-lint --checkpoint humaneval --out out.jsonl ${BACKEND_OPTS[*]}" /dev/null >tty.txt 2>&1 &&
		rc=0 || rc=$?
	cp tty.txt stdout.txt
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	grep -aq -- "-    return a - b" tty.txt && grep -aq "accept this candidate? \[y/n\]" tty.txt || flunk "no diff, no question"
	[[ $(line Agent/0 .stop_reason) == rejected && $(line Agent/1 .passed) == true ]] || flunk "answers not taken"
	# "risk": "high" in task.json, no --checkpoint; its holdout test never reaches the generator
	AGENT_GEN_LOG=$PWD/gen.log agent --tasks "$FX/native" --generator "python3 $GEN ok $FX/answers.json" --out out.jsonl \
		</dev/null
	[[ $rc -eq 3 && $(line triple .stop_reason) == checkpoint_pending && $(line triple .public_tests) == 2 ]] ||
		flunk "risk high"
	! grep -Eq 'secret_big|424242|1272726' gen.log || flunk "the holdout test reached the generator"
}

@test "plan and reflect: each its own request, kept in the conversation and recorded; --no-plan and --no-reflect switch them off" {
	AGENT_GEN_LOG=$PWD/gen.log agent --generator "python3 $GEN ok $FX/answers.json" --rounds 3 --out out.jsonl \
		--json sum.json
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	[[ $(jq -sc 'map(select(.task_id == "Agent/0") | "\(.step)\(.round)")' gen.log) == '["plan1","act1","reflect2","act2"]' ]] ||
		flunk "Agent/0's steps: $(jq -sc 'map("\(.step)\(.round)")' gen.log)"
	[[ $(jq -sc 'map(select(.task_id == "Agent/1") | .step)' gen.log) == '["plan","act"]' ]] || flunk "Agent/1: solved at once"
	# the plan is in the context of the code request, the diagnosis in that of the correction
	[[ $(jq -c 'select(.step == "act" and .round == 1 and .task_id == "Agent/0") | .messages[2]' gen.log) == \
		'{"role":"assistant","content":"plan for Agent/0, round 1"}' ]] || flunk "plan kept"
	jq -se 'map(select(.step == "act" and .round == 2) | .messages | map(.content) | index("reflect for Agent/0, round 2")) == [6]'\
		gen.log >/dev/null || flunk "diagnosis kept"
	jq -se 'map(select(.step == "reflect") | .messages[-1].content | test("expected 5, got -1")) == [true]' gen.log >/dev/null ||
		flunk "the reflect step is shown the feedback"
	[[ $(line Agent/0 .solved_round) == 2 ]] || flunk "solved"
	# 1 + 1 a thought, 7 + 3 a candidate: Agent/0 two of each, Agent/1 one of each
	[[ $(jq -r '.tokens.prompt + .tokens.completion' sum.json) == 36 ]] || flunk "tokens $(jq -c .tokens sum.json)"
	[[ $(sqlite3 runs.db "select count(*) from agent_steps where kind = 'answer' and body like '%\"step\":\"reflect\"%'") == 1 ]] ||
		flunk "the reflect step is not recorded"
	# the trajectory: sandeval show AGENT_ID TASK_ID
	id=$(jq -r .agent_id sum.json)
	"$SANDEVAL" show --db runs.db "$id" Agent/0 >show.txt 2>&1 || flunk "show: $(cat show.txt)"
	grep -q "round 2 reflect 1 answer, tokens 1 + 1" show.txt && grep -q "expected 5, got -1" show.txt &&
		grep -q "stop: solved; on every test passed (single-shot failed); solved in round 2" show.txt ||
		flunk "show: $(cat show.txt)"
	! grep -q Agent/1 show.txt || flunk "another task shown"
	[[ $("$SANDEVAL" show --db runs.db "$id" --json | jq '[.steps[] | select(.kind == "answer")] | length') == 6 ]] ||
		flunk "show --json"
	rm gen.log
	AGENT_GEN_LOG=$PWD/gen.log agent --generator "python3 $GEN ok $FX/answers.json" --rounds 3 --no-plan --no-reflect
	[[ $rc -eq 0 && $(jq -sc 'map(.step) | unique' gen.log) == '["act"]' ]] || flunk "switched off"
	# a replay has neither
	agent --replay "$FX/replay.jsonl" --rounds 3 --json sum.json
	[[ $rc -eq 0 && $(sqlite3 runs.db "select count(*) from agent_steps where agent_id = '$(jq -r .agent_id sum.json)'
		and kind = 'answer' and body not like '%\"step\":\"act\"%'") == 0 ]] || flunk "replay steps"
}

@test "templates: the files shipped in the runners directory; --templates DIR replaces one; a missing shipped one is named" {
	local r=${SANDEVAL_RUNNERS:-$BATS_TEST_DIRNAME/../../runners} want
	[[ -r $r/agent/system.txt && -r $r/agent/act.txt ]] || flunk "no templates in '$r/agent'"
	AGENT_GEN_LOG=$PWD/gen.log agent --generator "python3 $GEN ok $FX/answers.json" --k 1 --rounds 1 --no-plan --no-reflect
	[[ $rc -eq 0 ]] || flunk "exit $rc"
	# the first request of Agent/0: the shipped system and act texts, placeholders filled
	want=$(sed 's/{{language}}/python/g' "$r/agent/system.txt")
	jq -se --arg w "$want" 'map(select(.task_id == "Agent/0" and .round == 1))[0].messages[0].content == $w' gen.log >/dev/null ||
		flunk "the system message is not system.txt's: $(jq -sc 'map(select(.task_id == "Agent/0"))[0].messages[0]' gen.log)"
	jq -se 'map(select(.task_id == "Agent/0" and .round == 1))[0].messages[-1].content | startswith("Complete the following python code") and contains("def add(a, b):")' gen.log >/dev/null ||
		flunk "the act message: $(jq -sc 'map(select(.task_id == "Agent/0"))[0].messages[-1]' gen.log)"
	# one template replaced, the others shipped
	mkdir tmpl
	printf 'Write {{entry_point}} in {{language}}, please.' >tmpl/act.txt
	rm -f gen.log
	AGENT_GEN_LOG=$PWD/gen.log agent --generator "python3 $GEN ok $FX/answers.json" --k 1 --rounds 1 --no-plan --no-reflect --templates tmpl
	[[ $rc -eq 0 ]] || flunk "exit $rc with --templates"
	jq -se 'map(select(.task_id == "Agent/0" and .round == 1))[0].messages[-1].content == "Write add in python, please."' gen.log >/dev/null ||
		flunk "--templates: $(jq -sc 'map(select(.task_id == "Agent/0"))[0].messages[-1]' gen.log)"
	jq -se --arg w "$want" 'map(select(.task_id == "Agent/0" and .round == 1))[0].messages[0].content == $w' gen.log >/dev/null ||
		flunk "--templates without system.txt changed the system message"
	# a runners directory without one: refused, naming it
	cp -r "$r" runners-copy
	rm runners-copy/agent/retry.txt
	SANDEVAL_RUNNERS=$PWD/runners-copy agent --generator "python3 $GEN ok $FX/answers.json" --k 1 --rounds 1
	[[ $rc -eq 2 && $err == *"shipped template 'retry'"*"runners-copy/agent/retry.txt"* ]] || flunk "a missing template: exit $rc: $err"
}
