#!/usr/bin/env bats
# tripwires.bats: CLI tests of the tripwires object of `sandeval exec`: each class of attempt moves its counter, a benign program moves none, and counting never changes the verdict
#
# Run: bats tests/cli/tripwires.bats (as root, and as an ordinary user), and
# with SANDEVAL_BACKEND=gvisor (as root): gVisor counts from the Sentry's log
# (docs/sandbox.md#tripwires) what the native backend's listener sees, with
# the differences its design makes (noted where a test expects them). Hostile
# probe modes run only inside `sandeval exec` with limits set.

# shellcheck disable=SC2030,SC2031,SC2034 # bats runs each test in a subshell
load helpers

setup_file() {
	check_prerequisites
}

setup() {
	bad=()
}

# tw FILTER: jq FILTER on the last result's tripwires object.
tw() { jq -c ".tripwires | $1" <<<"$json"; }

# Every counter zero (gVisor: zero or not counted).
assert_clean() {
	local what=$1 want='{"network_attempts":0,"destinations":[],"metadata_probes":0,"denied_syscalls":{},"writes_denied":0,"limit_hits":[],"lingering_processes":0}'
	local got
	got=$(tw '.')
	if [[ $(tw .lingering_processes) == null ]]; then
		# no cgroup (an ordinary user here): nothing to count lingering processes in
		want=${want/\"lingering_processes\":0/\"lingering_processes\":null}
	fi
	[[ $got == "$want" ]] || case_fail "$what: tripwires $got, want $want"
}

# ---------------------------------------------------------------- benign

@test "benign programs leave every counter at zero" {
	sbx -- /bin/true
	expect_status ok
	assert_clean "/bin/true"
	# files in /work and /tmp, a subprocess, a thread, loopback-free sockets
	sbx -- python3 -c '
import os, socket, subprocess, tempfile, threading
open("/tmp/a", "w").write("x"); os.mkdir("/work/d"); os.rename("/tmp/a", "/tmp/b"); os.unlink("/tmp/b")
with tempfile.NamedTemporaryFile("w") as f: f.write("y")
a, b = socket.socketpair(); a.sendall(b"z"); assert b.recv(1) == b"z"
t = threading.Thread(target=print); t.start(); t.join()
subprocess.run(["true"], check=True)
open("/dev/null", "w").write("n"); print("done")'
	expect_status ok
	assert_eq "$(out)" $'\ndone' "python's output"
	assert_clean "python3"
	if command -v node >/dev/null; then
		sbx --memory 1G -- node -e 'require("fs").writeFileSync("/tmp/n", "1"); console.log(1)'
		expect_status ok
		assert_clean "node"
	fi
	report_cases
}

# ---------------------------------------------------------------- denied system calls

@test "each denied system call is named and counted once; the verdict is the filter's" {
	local sc
	for sc in mount ptrace bpf unshare setns keyctl userfaultfd perf_event_open kexec_load init_module chroot; do
		probe -- syscall "$sc"
		[[ $(j .status) == seccomp_violation && $(j .signal) == 31 ]] ||
			case_fail "syscall $sc: status $(j .status), signal $(j .signal): want seccomp_violation, 31"
		[[ $(tw .denied_syscalls) == "{\"$sc\":1}" ]] || case_fail "syscall $sc: denied_syscalls $(tw .denied_syscalls)"
	done
	report_cases
}

@test "a refused call keeps its EPERM and is counted: io_uring_setup, socket(AF_VSOCK)" {
	probe -- syscall io_uring_setup
	expect_status nonzero_exit
	assert_eq "$(kv errno)" EPERM "io_uring_setup errno"
	assert_eq "$(tw .denied_syscalls)" '{"io_uring_setup":1}' "denied_syscalls"
	probe -- socket vsock
	assert_eq "$(kv errno)" EPERM "socket(AF_VSOCK) errno"
	assert_eq "$(tw .denied_syscalls)" '{"socket":1}' "denied_syscalls"
}

@test "a fatal call in a child ends the child with SIGSYS as before; the parent goes on; counted" {
	probe -- child-syscall ptrace
	expect_status ok
	assert_eq "$(kv child_signal)" 31 "the child's end"
	assert_eq "$(tw .denied_syscalls)" '{"ptrace":1}' "denied_syscalls"
}

@test "a SIGSYS handler does not save a fatal call: seccomp_violation as before" {
	probe -- caught-syscall mount
	expect_status seccomp_violation
	assert_eq "$(j .signal)" 31 "signal"
	[[ $(out) != *caught* ]] || flunk "the handler ran"
	assert_eq "$(tw .denied_syscalls)" '{"mount":1}' "denied_syscalls"
}

# gVisor has no seccomp listener: it answers that flag EINVAL itself
# bats test_tags=native
@test "the program cannot take the listener's place: seccomp() with a listener is refused and counted" {
	probe -- seccomp-listener
	expect_status nonzero_exit
	assert_eq "$(kv errno)" EPERM "errno"
	assert_eq "$(tw .denied_syscalls)" '{"seccomp":1}' "denied_syscalls"
}

@test "a fatal call that ended the program is counted and named on every backend" {
	local want='{"mount":1}'
	probe -- syscall mount
	expect_status seccomp_violation
	assert_eq "$(tw .denied_syscalls)" "$want" "denied_syscalls"
}

# ---------------------------------------------------------------- network

@test "network attempts are counted with their destinations; the metadata address is a metadata probe" {
	local line addr port want_dest want_meta
	while read -r addr port want_dest want_meta; do
		probe -- connect "$addr" "$port"
		[[ $(j .status) == nonzero_exit ]] || case_fail "connect $addr: status $(j .status)"
		[[ $(tw .network_attempts) == 1 && $(tw .destinations) == "[\"$want_dest\"]" &&
			$(tw .metadata_probes) == "$want_meta" ]] ||
			case_fail "connect $addr $port: $(tw '{network_attempts, destinations, metadata_probes}')"
	done <<-'EOF'
		169.254.169.254 80 169.254.169.254:80 1
		127.0.0.1 9 127.0.0.1:9 0
		fd00:ec2::254 80 [fd00:ec2::254]:80 1
		::1 9 [::1]:9 0
	EOF
	probe -- udp-send 169.254.169.254 53
	[[ $(tw '[.network_attempts, .metadata_probes]') == '[1,1]' ]] || case_fail "udp sendto: $(tw .)"
	for fam in netlink packet; do
		probe -- socket "$fam"
		if is_gvisor; then
			# gVisor's log names the refused call, not its family
			[[ $(kv errno) == EPERM && $(tw .network_attempts) == 0 && $(tw .denied_syscalls) == '{"socket":1}' ]] ||
				case_fail "socket $fam: errno $(kv errno), $(tw .)"
		else
			[[ $(kv errno) == EPERM && $(tw .network_attempts) == 1 && $(tw .destinations) == "[\"$fam\"]" ]] ||
				case_fail "socket $fam: errno $(kv errno), $(tw .)"
		fi
	done
	report_cases
}

# py_net MODE [NAME]: python sending over UDP: sendmsg-meta (sendmsg to
# 169.254.169.254:80), sendmsg NAME (a DNS query for NAME to 10.0.0.1:53),
# sendto NAME (the query to 127.0.0.1:53), gai NAME (socket.getaddrinfo),
# connect NAME (socket.create_connection to NAME:80, as cloud SDKs do).
py_net() {
	sbx -- python3 -c '
import socket, struct, sys
def q(name):
    h = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
    return h + b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
mode, name = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    if mode == "sendmsg-meta": s.sendmsg([b"x"], [], 0, ("169.254.169.254", 80))
    elif mode == "sendmsg": s.sendmsg([q(name)], [], 0, ("10.0.0.1", 53))
    elif mode == "sendto": s.sendto(q(name), ("127.0.0.1", 53))
    elif mode == "gai": socket.getaddrinfo(name, 80)
    elif mode == "connect": socket.create_connection((name, 80), timeout=2)
except OSError as e: print(e)
print("done")' "$1" "${2:-x}"
	[[ $(j .status) == ok ]] || case_fail "py_net $*: status $(j .status): $(j .stdout) $(j .stderr)"
}

@test "sendmsg with an address is a network attempt; its destination and DNS query where the backend sees them" {
	py_net sendmsg-meta
	if is_gvisor; then
		# runsc's strace prints the header's pointer to the address, not the address
		[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == '[1,[],0]' ]] || case_fail "sendmsg-meta: $(tw .)"
	else
		[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == '[1,["169.254.169.254:80"],1]' ]] ||
			case_fail "sendmsg-meta: $(tw .)"
	fi
	py_net sendmsg example.com
	want='[1,["10.0.0.1:53"],0]'
	is_gvisor && want='[1,[],0]'
	[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == "$want" ]] || case_fail "sendmsg: $(tw .), want $want"
	# a DNS query for a metadata host name: gVisor's strace shows sendmsg's buffers (not sendto's, not sendmmsg's)
	py_net sendmsg metadata.google.internal
	want='[1,["10.0.0.1:53"],1]'
	is_gvisor && want='[1,[],1]'
	[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == "$want" ]] ||
		case_fail "sendmsg DNS query: $(tw .), want $want"
	report_cases
}

# gVisor's log shows neither sendto's nor sendmmsg's buffers (the sendmsg case is above)
# bats test_tags=native
@test "a DNS query for a metadata host name is a metadata probe, by sendto, sendmsg or sendmmsg; other names are not" {
	local name
	for name in metadata.google.internal METADATA.goog metadata instance-data.ec2.internal metadata.azure.com; do
		py_net sendto "$name"
		[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == '[1,["127.0.0.1:53"],1]' ]] ||
			case_fail "sendto query $name: $(tw .)"
	done
	py_net sendmsg metadata.google.internal
	[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == '[1,["10.0.0.1:53"],1]' ]] ||
		case_fail "sendmsg query: $(tw .)"
	for name in example.com metadata.example.com google.internal; do
		py_net sendto "$name"
		[[ $(tw '[.network_attempts, .metadata_probes]') == '[1,0]' ]] || case_fail "sendto query $name: $(tw .)"
	done
	# no resolv.conf in the sandbox: glibc asks 127.0.0.1:53, connected, by sendmmsg
	py_net gai example.com
	[[ $(tw '.metadata_probes == 0 and .network_attempts > 0') == true && $(tw .destinations) == '["127.0.0.1:53"]' ]] ||
		case_fail "getaddrinfo example.com: $(tw .)"
	report_cases
}

@test "a metadata service looked up by name and connected to is a metadata probe, on every backend; the lookup alone sends nothing" {
	local name
	# /etc/hosts answers the names with the services' address, as clouds' images do
	for name in metadata.google.internal metadata instance-data.ec2.internal metadata.azure.com; do
		py_net connect "$name"
		[[ $(tw '[.network_attempts, .destinations, .metadata_probes]') == '[1,["169.254.169.254:80"],1]' ]] ||
			case_fail "connect $name: $(tw .)"
	done
	py_net gai metadata.google.internal
	[[ $(tw '[.network_attempts, .metadata_probes]') == '[0,0]' ]] || case_fail "getaddrinfo alone: $(tw .)"
	py_net connect example.com
	[[ $(tw '.metadata_probes') == 0 ]] || case_fail "connect example.com: $(tw .)"
	report_cases
}

# ---------------------------------------------------------------- writes

@test "writes outside /work and /tmp are counted, whatever the path's form; writes inside are not" {
	local path want
	while read -r path want; do
		probe -- write-file "$path" 10
		[[ $(tw .writes_denied) == "$want" ]] || case_fail "write-file $path: writes_denied $(tw .writes_denied), want $want"
	done <<-'EOF'
		/usr/x 1
		../etc/x 1
		/work/../usr/lib/x 1
		/work/ok 0
		/tmp/ok 0
		sub/../ok 0
		/work/probe 0
	EOF
	# /work/probe: the program's own file, staged read-only: refused, but inside (a tampering
	# attempt the verdict handles, not a write outside), on every backend
	probe -- write-proc-sys
	# gVisor has neither file (ENOENT): it counts only writes it refuses
	want=2
	is_gvisor && want=0
	[[ $(tw .writes_denied) == "$want" ]] || case_fail "write-proc-sys: writes_denied $(tw .writes_denied), want $want"
	probe -- unlink /etc/passwd
	[[ $(tw .writes_denied) == 1 ]] || case_fail "unlink /etc/passwd: writes_denied $(tw .writes_denied)"
	report_cases
}

@test "a link in /work to a host file counts only where the call follows it: not with O_NOFOLLOW or O_CREAT|O_EXCL" {
	sbx -- python3 -c '
import os
os.symlink("/etc/passwd", "/work/l")
for flags in (os.O_WRONLY | os.O_NOFOLLOW, os.O_WRONLY | os.O_CREAT | os.O_EXCL, os.O_WRONLY):
    try:
        os.open("/work/l", flags)
        print("opened")
    except OSError as e:
        print(e.errno)
'
	expect_status ok
	# ELOOP and EEXIST: nothing was written anywhere, nor tried; the last open follows the link and is refused
	[[ $(out | head -n 2 | tr '\n' ' ') == "40 17 " && $(out | sed -n 3p) =~ ^(13|30)$ ]] || flunk "errnos: $(out)"
	[[ $(tw .writes_denied) == 1 ]] || flunk "writes_denied $(tw .writes_denied), want 1 (the followed open only)"
}

@test "what the program names cannot forge a count or hide one: a path holding a log line, a task named like a call" {
	sbx -- python3 -c '
import ctypes, os, socket
libc = ctypes.CDLL(None)
try: open("/usr/zz\n[   2:   2] Syscall 165: killed by seccomp", "w")
except OSError: pass
try: os.mkdir("/tmp/d\", 0o777) = 0 (0x0) errno=13 (permission denied) (1us)")
except OSError: pass
libc.prctl(15, b" X mkdir( E sendto(", 0, 0, 0)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try: s.connect(("10.0.0.1", 443))
except OSError: pass
print("done")'
	expect_status ok
	[[ $(tw '[.network_attempts, .destinations, .metadata_probes, .denied_syscalls, .writes_denied]') == '[1,["10.0.0.1:443"],0,{},1]' ]] ||
		flunk "tripwires $(tw .)"
}

@test "a task named like a path call does not turn a refused read into a write" {
	# gVisor's log: "a X mkdir(" then the real "openat(... O_RDONLY ...) = errno=13" read as a refused mkdir
	sbx -- python3 -c '
import ctypes
ctypes.CDLL(None).prctl(15, b"a X mkdir(", 0, 0, 0)
try: open("/.sandeval/ctl", "r")
except OSError as e: print(e.errno)
print("done")'
	expect_status ok
	[[ $(tw .writes_denied) == 0 ]] || flunk "tripwires $(tw .)"
}

# ---------------------------------------------------------------- limits and what is left

@test "limit_hits names the limit that fired: cpu, memory, output, file size" {
	probe --cpu-time 0.3 --wall-time 10 -- cpuloop
	[[ $(tw .limit_hits) == '["cpu"]' ]] || case_fail "cpuloop: $(j .status) $(tw .limit_hits)"
	probe --memory 64M -- memhog 200
	# under RLIMIT_DATA (no memory cgroup) an allocation just fails: nothing fired
	if [[ $(j .limits.memory.mechanism) == rlimit ]]; then
		[[ $(tw .limit_hits) == '[]' ]] || case_fail "memhog (rlimit): $(j .status) $(tw .limit_hits)"
	else
		[[ $(tw .limit_hits) == '["memory"]' ]] || case_fail "memhog: $(j .status) $(tw .limit_hits)"
	fi
	probe --output 1K -- flood 0
	[[ $(tw .limit_hits) == '["output"]' ]] || case_fail "flood: $(j .status) $(tw .limit_hits)"
	probe --file-size 2M -- write-file /tmp/big 3000000
	[[ $(tw .limit_hits) == '["file_size"]' ]] || case_fail "write-file: $(j .status) $(tw .limit_hits)"
	report_cases
}

# bats test_tags=root,native
@test "a fork bomb under the pids limit is a pids limit hit" {
	probe --pids 16 --wall-time 2 -- forkbomb
	expect_status_in wall_limit cpu_limit ok nonzero_exit signaled
	# the CPU budget may run out too, on an idle machine first
	[[ $(tw '.limit_hits | index("pids") != null') == true ]] || flunk "limit_hits $(tw .limit_hits): no pids"
}

# bats test_tags=root
@test "processes left running when the program ends are lingering processes" {
	probe -- daemon
	expect_status ok
	assert_eq "$(tw .lingering_processes)" 1 "lingering_processes"
	probe -- exit 0
	assert_eq "$(tw .lingering_processes)" 0 "lingering_processes of a program that leaves none"
}
