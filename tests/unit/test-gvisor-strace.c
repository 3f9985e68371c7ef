/* test-gvisor-strace.c - unit tests of gvisor-strace.c: tripwires from the Sentry's debug log, on captured real logs and on lines made to forge or hide a count
 *
 * tests/unit/gvisor-strace/NAME.log are the task lines of real runs under
 * runsc 0.0~20221219 (--strace --debug --debug-log-format=json):
 *   forge   python: open("/usr/zz\n[ 2: 2] Syscall 165: killed by seccomp"),
 *           mkdir of a name that ends like an X line, prctl(PR_SET_NAME,
 *           " E connect("), connect 10.0.0.1:443, sendmsg to 127.0.0.1:53
 *           with a buffer that spells a sockaddr, unlink /etc/hostname,
 *           io_uring_setup
 *   mount   probe child-syscall mount (the child dies of SIGSYS)
 *   daemon  probe daemon (a grandchild left running)
 *   sm      python: sendmsg to 169.254.169.254:53, sendto [fd00:ec2::254]:80,
 *           connect AF_UNIX to a path that spells a sockaddr, open of a
 *           path with a newline
 */
#include "fixture.h"

#include "sandbox/gvisor-strace.h"

#define CASES "tests/unit/gvisor-strace"

static char *counted(const char *file)
{
	char *path = fx_str("%s/%s", CASES, file);
	struct tripwires t;
	struct sd_error err = { 0 };
	char *text;

	tripwires_init(&t);
	assert_int_equal(gvstrace_read(path, &t, &err), 0);
	text = tripwires_to_text(&t);
	assert_non_null(text);
	free(path);
	return text;
}

#define CLEAN_BUT(...) "{\"network_attempts\":0,\"destinations\":[],\"metadata_probes\":0," __VA_ARGS__

static void test_captured_logs(void **state)
{
	static const struct { const char *file, *want; } cases[] = {
		/* the newline path is one refused write, not a seccomp kill; the
		 * name " E connect(" does not count the connect twice; the
		 * buffer's sockaddr is not a destination */
		{ "forge.log", "{\"network_attempts\":2,\"destinations\":[\"10.0.0.1:443\"],\"metadata_probes\":0,"
			       "\"denied_syscalls\":{\"io_uring_setup\":1},\"writes_denied\":2,\"limit_hits\":[],"
			       "\"lingering_processes\":0}" },
		{ "mount.log", CLEAN_BUT("\"denied_syscalls\":{\"mount\":1},\"writes_denied\":0,\"limit_hits\":[],"
					 "\"lingering_processes\":0}") },
		{ "daemon.log", CLEAN_BUT("\"denied_syscalls\":{},\"writes_denied\":0,\"limit_hits\":[],"
					  "\"lingering_processes\":1}") },
		/* sendmsg: counted, no destination; the AF_UNIX path is no destination */
		{ "sm.log", "{\"network_attempts\":2,\"destinations\":[\"[fd00:ec2::254]:80\"],\"metadata_probes\":1,"
			    "\"denied_syscalls\":{},\"writes_denied\":1,\"limit_hits\":[],\"lingering_processes\":0}" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = counted(cases[i].file);

		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", cases[i].file, got, cases[i].want);
		free(got);
	}
}

/* Messages fed one by one after the program started. */
static void feed(struct tripwires *t, const char *const *msgs)
{
	struct gvstrace g;

	tripwires_init(t);
	gvstrace_init(&g, t);
	gvstrace_msg(&g, "[   2:   2] Allocating stack with size of 8388608 bytes",
		     strlen("[   2:   2] Allocating stack with size of 8388608 bytes"));
	for (size_t i = 0; msgs[i]; i++)
		gvstrace_msg(&g, msgs[i], strlen(msgs[i]));
}

static void test_messages(void **state)
{
	struct tripwires t;

	(void)state;
	feed(&t, (const char *const[]){
		"[   3:   3] probe E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 169.254.169.254, Port: 80}, 0x10)",
		/* the X line of the same call: not a second attempt */
		"[   3:   3] probe X connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 169.254.169.254, Port: 80}, 0x10) = 0 (0x0) errno=113 (no route to host) (1µs)",
		"[   3:   3] probe E sendto(0x3 socket:[1], 0x49, 0x1, 0x0, 0x7f {Family: AF_INET6, Addr: ::ffff:169.254.169.254, Port: 53}, 0x1c)",
		"[   3:   3] probe E sendmsg(0x3 socket:[1], 0x7f {name=0x0, namelen=0, iovecs=0x7f {base=0x1, len=1, \"x\"}, control={0x0 }, flags=0}, 0x0)",
		/* a DNS query for metadata.google.internal, as Go quotes it: to an address, and on a connected socket */
		"[   3:   3] probe E sendmsg(0x3 socket:[1], 0x7f {name=0x7f, namelen=16, iovecs=0x7f {base=0x1, len=42, "
		"\"\\x124\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\bmetadata\\x06google\\binternal\\x00\\x00\\x01\\x00\\x01\"}, "
		"control={0x0 }, flags=0}, 0x0)",
		"[   3:   3] probe E sendmsg(0x3 socket:[1], 0x7f {name=0x0, namelen=0, iovecs=0x7f {base=0x1, len=42, "
		"\"\\x124\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\bMETADATA\\x06google\\binternal\\x00\\x00\\x01\\x00\\x01\"}, "
		"control={0x0 }, flags=0}, 0x0)",
		/* the same cut short (no closing quote), and with a bad escape: no probe, no count without an address */
		"[   3:   3] probe E sendmsg(0x3 socket:[1], 0x7f {name=0x0, namelen=0, iovecs=0x7f {base=0x1, len=42, "
		"\"\\x124\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\bmetadata\\x06google\\binternal\\x00\\x00\\x01\\x00\\x01",
		"[   3:   3] probe E sendmsg(0x3 socket:[1], 0x7f {name=0x0, namelen=0, iovecs=0x7f {base=0x1, len=42, "
		"\"\\x124\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\bmetadata\\x06google\\binternal\\q\\x00\\x01\\x00\\x01\"}, "
		"control={0x0 }, flags=0}, 0x0)",
		"[   3:   4] probe Syscall 165: killed by seccomp",		/* not the message, whole */
		"[   3:   4] Syscall 165: killed by seccomp",
		"[   3:   4] Syscall 330: denied by seccomp",			/* pkey_alloc: quiet */
		"[   3:   4] Syscall 435: denied by seccomp",			/* clone3: ENOSYS, libc falls back */
		"[   3:   4] Syscall 99999: denied by seccomp",
		"[   3:   4] Syscall 41: denied by seccomp, and more",
		/* a read open refused, a write open refused, a write open that worked */
		"[   3:   3] p X openat(AT_FDCWD /, 0x1 /etc/shadow, O_RDONLY|O_CLOEXEC, 0o0) = 0 (0x0) errno=13 (permission denied) (1µs)",
		"[   3:   3] p X open(0x1 /etc/x, O_RDWR, 0o0) = 0 (0x0) errno=30 (read-only file system) (1µs)",
		"[   3:   3] p X openat(AT_FDCWD /, 0x1 /tmp/x, O_WRONLY|O_CREAT, 0o600) = 3 (0x3) (1µs)",
		"[   3:   3] p X mkdir(0x1 /usr/d, 0o777) = 0 (0x0) errno=2 (no such file or directory) (1µs)",
		"[   3:   3] p X rename(0x1 /tmp/a, 0x2 /usr/b) = 0 (0x0) errno=18 (invalid cross-device link) (1µs)",
		"[   3:   3] p X unlinkat(AT_FDCWD /, 0x1 /etc/passwd, 0x0) = 0 (0x0) errno=1 (operation not permitted) (1µs)",
		/* refused, but where natively a write may go: a descriptor of the driver
		 * reopened through /proc (run.bats' verdict forger), a device */
		"[   3:   3] p X openat(AT_FDCWD /, 0x1 /proc/2/fd/5, O_WRONLY|O_CLOEXEC, 0o0) = 0 (0x0) errno=13 (permission denied) (1µs)",
		"[   3:   3] p X openat(AT_FDCWD /proc/2, 0x1 fd/6, O_WRONLY, 0o0) = 0 (0x0) errno=13 (permission denied) (1µs)",
		"[   3:   3] p X open(0x1 /dev/null, O_WRONLY, 0o0) = 0 (0x0) errno=13 (permission denied) (1µs)",
		/* but not the driver's memory */
		"[   3:   3] p X openat(AT_FDCWD /, 0x1 /proc/2/mem, O_RDWR, 0o0) = 0 (0x0) errno=13 (permission denied) (1µs)",
		/* init's lines never count */
		"[   1:   1] init E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 10.1.1.1, Port: 1}, 0x10)",
		/* no lingering before init ends */
		"[   5:   5] Transitioning from exit state TaskExitNone to TaskExitInitiated",
		NULL,
	});
	assert_int_equal(t.network_attempts, 4);
	assert_int_equal(t.metadata_probes, 4);
	assert_int_equal(t.n_destinations, 2);
	assert_string_equal(t.destinations[0], "169.254.169.254:80");
	assert_string_equal(t.destinations[1], "[::ffff:169.254.169.254]:53");
	assert_int_equal(t.n_denied, 2);
	assert_string_equal(t.denied[0].name, "mount");
	assert_string_equal(t.denied[1].name, "syscall_99999");
	assert_int_equal(t.writes_denied, 3);
	assert_int_equal(t.lingering_processes, 0);
}

static void test_before_start_and_lingering(void **state)
{
	struct tripwires t;
	struct gvstrace g;
	static const char *const msgs[] = {
		/* pid 2 is init's until the program is executed */
		"[   2:   2] init X mkdir(0x1 /usr/x, 0o755) = 0 (0x0) errno=13 (permission denied) (1µs)",
		"[   2:   2] Syscall 165: killed by seccomp",
		"[   3:   3] Allocating stack with size of 8388608 bytes",	/* not pid 2 */
		"[   2:   2] Syscall 165: killed by seccomp",
		"[   2:   2] Allocating stack with size of 8388608 bytes",
		"[   2:   2] Syscall 165: killed by seccomp",
		"[   1:   1] Init process terminating, killing namespace",
		"[   4:   4] Transitioning from exit state TaskExitNone to TaskExitInitiated",
		"[   4:   5] Transitioning from exit state TaskExitNone to TaskExitInitiated",	/* a thread */
		"[   6:   6] Transitioning from exit state TaskExitInitiated to TaskExitZombie",
		"[   7:   7] Transitioning from exit state TaskExitNone to TaskExitInitiated",
		NULL,
	};

	(void)state;
	tripwires_init(&t);
	gvstrace_init(&g, &t);
	for (size_t i = 0; msgs[i]; i++)
		gvstrace_msg(&g, msgs[i], strlen(msgs[i]));
	assert_int_equal(t.n_denied, 1);
	assert_int_equal(t.denied[0].count, 1);
	assert_int_equal(t.writes_denied, 0);
	assert_int_equal(t.lingering_processes, 2);
}

/* A process whose exit starts after init's did was running when the
 * program had ended, even if it was killed (the container's kill) before
 * init's "killing namespace" line; one that ended before init's exit was
 * not left running. */
static void test_lingering_from_init_exit(void **state)
{
	struct tripwires t;

	(void)state;
	feed(&t, (const char *const[]){
		"[   3:   3] Transitioning from exit state TaskExitNone to TaskExitInitiated",	/* before: not left */
		"[   2:   2] Transitioning from exit state TaskExitNone to TaskExitInitiated",
		"[   1:   1] Transitioning from exit state TaskExitNone to TaskExitInitiated",
		"[   4:   4] Signal 9: terminating thread group",
		"[   4:   4] Transitioning from exit state TaskExitNone to TaskExitInitiated",
		"[   1:   1] Init process terminating, killing namespace",
		"[   4:   4] Transitioning from exit state TaskExitInitiated to TaskExitZombie",	/* once */
		NULL,
	});
	assert_int_equal(t.lingering_processes, 1);
}

/* A made-up task name or path never adds a count or hides one. */
static void test_forged(void **state)
{
	struct tripwires t;

	(void)state;
	feed(&t, (const char *const[]){
		/* the name spells a write's X line; the call is a connect's E line */
		"[   3:   3]  X mkdir( E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 10.0.0.1, Port: 443}, 0x10)",
		/* a path that ends like a refused call, in a call that worked */
		"[   3:   3] p X mkdir(0x1 /tmp/d, 0o777) = 0 (0x0) errno=13 (permission denied) (1us), 0o777) = 0 (0x0) (1µs)",
		/* a tail that is not runsc's: an errno with more after it */
		"[   3:   3] p X mkdir(0x1 /usr/d, 0o777) = 0 (0x0) errno=13x (permission denied) (1µs)",
		/* an AF_UNIX path that spells an inet address */
		"[   3:   3] p E connect(0x5 socket:[3], 0x7f {Family: AF_UNIX, Addr: \"/tmp/x{Family: AF_INET, Addr: 1.2.3.4, Port: 5}\"}, 0x33)",
		"[   3:   3] p E connect(0x5 socket:[3], 0x7f {Family: AF_UNIX, Addr: \"{Family: AF_INET, Addr: 1.2.3.4, Port: 5\"}, 0x33)",
		/* a sendto whose buffer pointer is followed by nothing of gVisor's */
		"[   3:   3] p E sendto(0x3 socket:[1], 0x49, 0x1, 0x0, 0x0, 0x0)",
		/* not hex, and a port too big */
		"[   3:   3] p E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 1.2.3.4, Port: 5}, 16)",
		"[   3:   3] p E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 1.2.3.4, Port: 65536}, 0x10)",
		"[   3:   3] p E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 1.2.3, Port: 5}, 0x10)",
		/* prefixes that are not a task's */
		"[   3:3]x p E connect(0x3 socket:[1], 0x7f {Family: AF_INET, Addr: 1.2.3.4, Port: 5}, 0x10)",
		"EXEC: [   3:   3] Syscall 165: killed by seccomp",
		"[ 1234567890:   3] Syscall 165: killed by seccomp",
		NULL,
	});
	assert_int_equal(t.network_attempts, 1);
	assert_string_equal(t.destinations[0], "10.0.0.1:443");
	assert_int_equal(t.n_denied, 0);
	assert_int_equal(t.writes_denied, 0);
}

/* JSON records: a newline in a path stays in its record; text lines, bad
 * JSON, a line past GVSTRACE_LINE_MAX and an unterminated last line are
 * skipped whole. */
static void test_records(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/sentry.log", dir), *big = malloc(GVSTRACE_LINE_MAX + 200);
	struct tripwires t;
	struct sd_error err = { 0 };
	FILE *f;
	int n;

	(void)state;
	assert_non_null(big);
	n = snprintf(big, 200, "{\"msg\":\"[   2:   2] Syscall 101: killed by seccomp\",\"pad\":\"");
	memset(big + n, 'x', GVSTRACE_LINE_MAX);
	strcpy(big + n + GVSTRACE_LINE_MAX, "\"}");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"msg\":\"[   2:   2] Allocating stack with size of 8388608 bytes\",\"level\":\"debug\"}\n", f);
	fputs("{\"msg\":\"[   2:   2] p X open(0x1 /etc/a\\n[   2:   2] Syscall 165: killed by seccomp, O_RDONLY, 0o0) = 0 (0x0) errno=2 (no such file or directory) (1µs)\",\"level\":\"info\"}\n", f);
	fputs("I1201 22:04:53.919418   28296 task_syscall.go:240] [   2:   2] Syscall 165: killed by seccomp\n", f);
	fputs("[   2:   2] Syscall 165: killed by seccomp\n", f);
	fputs("{\"msg\":\"[   2:   2] Syscall 165: killed by seccomp\"\n", f);
	fprintf(f, "%s\n", big);
	fputs("{\"msg\":\"[   2:   2] Syscall 425: denied by seccomp\",\"level\":\"debug\"}\n", f);
	fputs("{\"msg\":\"[   2:   2] Syscall 101: killed by seccomp\",\"level\":\"debug\"}", f);
	fclose(f);
	tripwires_init(&t);
	assert_int_equal(gvstrace_read(path, &t, &err), 0);
	assert_int_equal(t.n_denied, 1);
	assert_string_equal(t.denied[0].name, "io_uring_setup");
	assert_int_equal(t.denied[0].count, 1);
	assert_int_equal(gvstrace_read("/nonexistent/sentry.log", &t, &err), -1);
	assert_contains(err.msg, "cannot open");
	free(big);
	free(path);
	fx_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured_logs),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_before_start_and_lingering),
		cmocka_unit_test(test_lingering_from_init_exit),
		cmocka_unit_test(test_forged),
		cmocka_unit_test(test_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
