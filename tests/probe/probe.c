/* probe: a static helper that misbehaves on purpose, run inside sandeval by the CLI tests.
 *
 * Build:  cc -std=c11 -O2 -static -Wall -Wextra -o tests/probe/probe tests/probe/probe.c
 * Usage:  probe MODE [ARG...]      (`probe help` lists the modes)
 *
 * Each mode is one small function. Results go to stdout as `key=value` lines,
 * a failure as `errno=ENAME`. Exit status: 0 when the action succeeded as
 * attempted, 1 when it failed, 2 on a usage error, 125 when a hostile mode
 * refuses to run. Arguments past those a mode takes are ignored, so a test can
 * add a unique tag to find the process from the host (`probe sleep 30 tag-1234`).
 *
 * SAFETY: `forkbomb` and `killall` refuse to run with uid 0 or a pid above 100
 * (that is, outside the fresh pid namespace of a sandbox). Run them, and the
 * other hostile modes (big memhog, flood 0, cpuloop, the syscalls), only inside
 * `sandeval exec` with limits set. `write-proc-sys` only opens the files for
 * writing and closes them: it never writes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024L * 1024L)
#define UNUSED __attribute__((unused))
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *errname(int err)
{
	const char *name = strerrorname_np(err);
	return name ? name : "EUNKNOWN";
}

/* Print `errno=ENAME` and return the failure exit status. */
static int fail(int err)
{
	printf("errno=%s\n", errname(err));
	return 1;
}

/* Print `key=ok` or `key=ENAME`; return 1 when ok. */
static int report(const char *key, long rc, int err)
{
	printf("%s=%s\n", key, rc >= 0 ? "ok" : errname(err));
	return rc >= 0;
}

static long parse_long(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "probe: invalid number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n, len -= (size_t)n;
	}
	return 0;
}

static int copy_fd(int in, int out)
{
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, buf, (size_t)n) < 0)
			return -1;
	}
	return 0;
}

static _Noreturn void spin(void)
{
	for (volatile unsigned long x = 0;; x++)
		;
}

static void sleep_secs(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Refuse hostile modes outside a sandbox: as root, kill(-1) ends the machine. */
static void require_sandbox(const char *mode)
{
	if (geteuid() == 0 || getuid() == 0 || getpid() > 100) {
		fprintf(stderr, "probe: refusing hostile mode '%s' outside a sandbox "
			"(uid 0 or pid %ld > 100)\n", mode, (long)getpid());
		exit(125);
	}
}

/* ---- identity and environment ---- */

static int mode_ids(char **argv UNUSED)
{
	char host[256] = "", cwd[4096] = "?";
	gethostname(host, sizeof host - 1);
	if (!getcwd(cwd, sizeof cwd))
		strcpy(cwd, "?");
	printf("uid=%ld\ngid=%ld\neuid=%ld\negid=%ld\npid=%ld\nppid=%ld\nsid=%ld\npgid=%ld\nhostname=%s\ncwd=%s\n",
	       (long)getuid(), (long)getgid(), (long)geteuid(), (long)getegid(),
	       (long)getpid(), (long)getppid(), (long)getsid(0), (long)getpgrp(), host, cwd);
	return 0;
}

static int mode_env(char **argv UNUSED)
{
	extern char **environ;
	for (char **e = environ; *e; e++)
		printf("%s\n", *e);
	return 0;
}

static int mode_fds(char **argv UNUSED)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return fail(errno);
	long fds[1024];
	int self = dirfd(d), n = 0;
	for (struct dirent *de; (de = readdir(d)) && n < 1024;)
		if (de->d_name[0] != '.' && atoi(de->d_name) != self)
			fds[n++] = atol(de->d_name);
	closedir(d);
	for (int i = 1; i < n; i++)		/* insertion sort: n is tiny */
		for (int j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			long t = fds[j];
			fds[j] = fds[j - 1], fds[j - 1] = t;
		}
	printf("fds=");
	for (int i = 0; i < n; i++)
		printf(i ? ",%ld" : "%ld", fds[i]);
	printf("\n");
	return 0;
}

static int mode_caps(char **argv UNUSED)
{
	static const char *keys[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
				      "NoNewPrivs", "Seccomp" };
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return fail(errno);
	char line[512];
	while (fgets(line, sizeof line, f))
		for (size_t i = 0; i < COUNT(keys); i++) {
			size_t k = strlen(keys[i]);
			if (strncmp(line, keys[i], k) == 0 && line[k] == ':')
				printf("%s=%s", keys[i], line + k + 1 + strspn(line + k + 1, " \t"));
		}
	fclose(f);
	return 0;
}

static int mode_setuid0(char **argv UNUSED) { return setuid(0) < 0 ? fail(errno) : (printf("setuid=ok\n"), 0); }

/* ---- CPU, time, memory, processes ---- */

static int mode_cpuloop(char **argv UNUSED) { spin(); }

static int mode_sleep(char **argv)
{
	sleep_secs(strtod(argv[0], NULL));
	printf("slept=%s\n", argv[0]);
	return 0;
}

static int mode_sigblock_spin(char **argv UNUSED)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	spin();
}

static int mode_memhog(char **argv)
{
	long mb = parse_long(argv[0]), done = 0;
	for (; done < mb; done++) {
		char *p = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			int err = errno;
			printf("allocated_mb=%ld\n", done);
			return fail(err);
		}
		memset(p, 0xa5, MIB);	/* touch every page */
	}
	printf("allocated_mb=%ld\n", done);
	return 0;
}

static int mode_forkbomb(char **argv UNUSED)
{
	require_sandbox("forkbomb");
	for (;;)
		fork();
	return 0;
}

static void *thread_main(void *arg UNUSED) { pause(); return NULL; }

static int mode_threads(char **argv)
{
	long n = parse_long(argv[0]), made = 0;
	int err = 0;
	for (pthread_t t; made < n; made++)
		if ((err = pthread_create(&t, NULL, thread_main, NULL)))
			break;
	printf("threads=%ld\n", made);
	if (err)
		fail(err);
	fflush(stdout);
	_exit(err ? 1 : 0);	/* ends the sleeping threads too */
}

static int mode_killall(char **argv UNUSED)
{
	require_sandbox("killall");
	long rc = kill(-1, SIGKILL);
	return report("killall", rc, errno) ? 0 : 1;
}

/* Detach a grandchild (setsid, stdio on /dev/null) that sleeps; print its pid. */
static int mode_daemon(char **argv)
{
	double secs = argv[0] ? strtod(argv[0], NULL) : 1000;
	int p[2];
	if (pipe(p) < 0)
		return fail(errno);
	pid_t child = fork();
	if (child < 0)
		return fail(errno);
	if (child == 0) {
		setsid();
		pid_t g = fork();
		if (g != 0)
			_exit(g < 0);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0), dup2(null, 1), dup2(null, 2);
		if (null > 2)
			close(null);
		dprintf(p[1], "%ld\n", (long)getpid());
		close(p[0]), close(p[1]);
		sleep_secs(secs);
		_exit(0);
	}
	close(p[1]);
	char buf[32] = "";
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	printf("daemon_pid=%s", n > 0 ? buf : "?\n");
	return n > 0 ? 0 : 1;
}

/* Leave a sleeping child that holds stdout and stderr open; exit at once. */
static int mode_orphan(char **argv)
{
	double secs = argv[0] ? strtod(argv[0], NULL) : 1000;
	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		return fail(errno);
	if (child == 0) {
		sleep_secs(secs);
		_exit(0);
	}
	printf("orphan_pid=%ld\n", (long)child);
	return 0;
}

/* ---- files ---- */

static int mode_write_file(char **argv)
{
	static char buf[65536];
	long total = parse_long(argv[1]), written = 0;
	memset(buf, 'w', sizeof buf);
	int fd = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err = 0;
	if (fd < 0)
		return fail(errno);
	while (written < total && !err) {
		long chunk = total - written < (long)sizeof buf ? total - written : (long)sizeof buf;
		ssize_t n = write(fd, buf, (size_t)chunk);
		if (n < 0)
			err = errno;
		else
			written += n;
	}
	if (close(fd) < 0 && !err)
		err = errno;
	printf("written=%ld\n", written);
	return err ? fail(err) : 0;
}

static int mode_read_file(char **argv)
{
	int fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || copy_fd(fd, 1) < 0)
		return fail(errno);
	close(fd);
	return 0;
}

static int mode_cat(char **argv UNUSED) { return copy_fd(0, 1) < 0 ? fail(errno) : 0; }

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int mode_ls(char **argv)
{
	struct dirent **list;
	int n = scandir(argv[0], &list, NULL, by_name);
	if (n < 0)
		return fail(errno);
	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, ".."))
			printf("%s\n", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return 0;
}

static int mode_chmod(char **argv)
{
	mode_t mode = argv[1] ? (mode_t)strtol(argv[1], NULL, 8) : 0666;
	return chmod(argv[0], mode) < 0 ? fail(errno) : (printf("chmod=ok\n"), 0);
}

static int mode_unlink(char **argv) { return unlink(argv[0]) < 0 ? fail(errno) : (printf("unlink=ok\n"), 0); }

/* Opens for writing and closes again: never writes anything. */
static int mode_write_proc_sys(char **argv UNUSED)
{
	static const char *const t[][2] = {
		{ "core_pattern", "/proc/sys/kernel/core_pattern" },
		{ "sysrq_trigger", "/proc/sysrq-trigger" },
	};
	int all = 1;
	for (size_t i = 0; i < COUNT(t); i++) {
		int fd = open(t[i][1], O_WRONLY | O_CLOEXEC);
		all &= report(t[i][0], fd, errno);
		if (fd >= 0)
			close(fd);
	}
	return all ? 0 : 1;
}

/* ---- output ---- */

static int flood(int fd, long total)
{
	static char buf[65536];
	memset(buf, 'x', sizeof buf);
	for (long done = 0; total == 0 || done < total;) {
		long chunk = total == 0 || total - done >= (long)sizeof buf ? (long)sizeof buf : total - done;
		if (write_all(fd, buf, (size_t)chunk) < 0)
			return fail(errno);
		done += chunk;
	}
	return 0;
}

static int mode_flood(char **argv) { return flood(1, parse_long(argv[0])); }

static int mode_stderr_flood(char **argv) { return flood(2, argv[0] ? parse_long(argv[0]) : 0); }

/* ---- network ---- */

static int connect_to(int family, const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno);
	struct timeval tv = { 3, 0 };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(fd, sa, len) < 0)
		return fail(errno);
	printf("connect=ok\n");
	close(fd);
	return 0;
}

static int mode_connect(char **argv)
{
	struct sockaddr_in in4 = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	uint16_t port = htons((uint16_t)parse_long(argv[1]));
	if (inet_pton(AF_INET, argv[0], &in4.sin_addr) == 1) {
		in4.sin_port = port;
		return connect_to(AF_INET, (struct sockaddr *)&in4, sizeof in4);
	}
	if (inet_pton(AF_INET6, argv[0], &in6.sin6_addr) == 1) {
		in6.sin6_port = port;
		return connect_to(AF_INET6, (struct sockaddr *)&in6, sizeof in6);
	}
	fprintf(stderr, "probe: not a numeric address '%s'\n", argv[0]);
	return 2;
}

static int mode_connect_unix_abstract(char **argv)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t n = strlen(argv[0]);
	if (n > sizeof un.sun_path - 1) {
		fprintf(stderr, "probe: name too long '%s'\n", argv[0]);
		return 2;
	}
	memcpy(un.sun_path + 1, argv[0], n);	/* sun_path[0] == 0: abstract */
	return connect_to(AF_UNIX, (struct sockaddr *)&un,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
}

/* ---- forbidden system calls, each with harmless arguments ---- */

static long sys_mount(void)
{
	char dir[] = "probe-mnt-XXXXXX";	/* an empty dir of our own in cwd */
	if (!mkdtemp(dir))
		return -1;
	long rc = mount("none", dir, "tmpfs", 0, "size=1m");
	int err = errno;
	if (rc == 0)
		umount(dir);
	rmdir(dir);
	errno = err;
	return rc;
}

static long sys_bpf(void)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.map_type = BPF_MAP_TYPE_ARRAY, a.key_size = 4, a.value_size = 4, a.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof a);
}

static long sys_setns(void)
{
	/* gVisor has no /proc/self/ns: the call is made with -1 then, and the
	 * filter decides before the descriptor is looked at */
	int fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	return setns(fd, CLONE_NEWUTS);
}

static long sys_perf_event_open(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE, a.size = sizeof a, a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.disabled = 1, a.exclude_kernel = 1, a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long sys_io_uring_setup(void)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	return syscall(SYS_io_uring_setup, 4, &p);
}

static long sys_ptrace(void) { return ptrace(PTRACE_TRACEME, 0, NULL, NULL); }
static long sys_unshare(void) { return unshare(CLONE_NEWUSER); }
/* KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3), without creating it */
static long sys_keyctl(void) { return syscall(SYS_keyctl, 0, -3, 0); }
static long sys_userfaultfd(void) { return syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK); }
/* 1000 segments > KEXEC_SEGMENT_MAX: EINVAL right after the permission check */
static long sys_kexec_load(void) { return syscall(SYS_kexec_load, 0UL, 1000UL, NULL, 0UL); }
/* an empty image: EPERM without CAP_SYS_MODULE, else a parse error */
static long sys_init_module(void) { return syscall(SYS_init_module, NULL, 0UL, ""); }
static long sys_chroot(void) { return chroot("."); }

static const struct { const char *name; long (*fn)(void); } syscalls[] = {
	{ "mount", sys_mount }, { "ptrace", sys_ptrace }, { "bpf", sys_bpf },
	{ "unshare", sys_unshare }, { "setns", sys_setns }, { "keyctl", sys_keyctl },
	{ "userfaultfd", sys_userfaultfd }, { "perf_event_open", sys_perf_event_open },
	{ "io_uring_setup", sys_io_uring_setup }, { "kexec_load", sys_kexec_load },
	{ "init_module", sys_init_module }, { "chroot", sys_chroot },
};

static int mode_syscall(char **argv)
{
	for (size_t i = 0; i < COUNT(syscalls); i++)
		if (strcmp(argv[0], syscalls[i].name) == 0)
			return syscalls[i].fn() < 0 ? fail(errno) : (printf("syscall=ok\n"), 0);
	fprintf(stderr, "probe: unknown syscall '%s'\n", argv[0]);
	return 2;
}

/* The same, with a SIGSYS handler installed first: a fatal call still ends the process. */
static void on_sigsys(int sig UNUSED) { static const char m[] = "caught=SIGSYS\n"; write(1, m, sizeof m - 1); }

static int mode_caught_syscall(char **argv)
{
	signal(SIGSYS, on_sigsys);
	return mode_syscall(argv);
}

/* The call in a child; the parent reports how the child ended (and itself exits 0). */
static int mode_child_syscall(char **argv)
{
	int st;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return fail(errno);
	if (pid == 0)
		_exit(mode_syscall(argv));
	if (waitpid(pid, &st, 0) < 0)
		return fail(errno);
	if (WIFSIGNALED(st))
		printf("child_signal=%d\n", WTERMSIG(st));
	else
		printf("child_exit=%d\n", WEXITSTATUS(st));
	return 0;
}

/* A seccomp filter of our own with a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER). */
static int mode_seccomp_listener(char **argv UNUSED)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return fd < 0 ? fail(errno) : (printf("listener=%ld\n", fd), 0);
}

/* socket(FAMILY): netlink, packet, vsock, alg. */
static int mode_socket(char **argv)
{
	static const struct { const char *name; int family, type; } fams[] = {
		{ "netlink", AF_NETLINK, SOCK_RAW }, { "packet", AF_PACKET, SOCK_RAW },
		{ "vsock", AF_VSOCK, SOCK_STREAM }, { "alg", AF_ALG, SOCK_SEQPACKET },
	};
	for (size_t i = 0; i < COUNT(fams); i++) {
		if (strcmp(argv[0], fams[i].name))
			continue;
		int fd = socket(fams[i].family, fams[i].type | SOCK_CLOEXEC, 0);
		return fd < 0 ? fail(errno) : (printf("socket=ok\n"), 0);
	}
	fprintf(stderr, "probe: unknown family '%s'\n", argv[0]);
	return 2;
}

/* One UDP datagram to a numeric IPv4 address, without connect. */
static int mode_udp_send(char **argv)
{
	struct sockaddr_in in4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)parse_long(argv[1])) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || inet_pton(AF_INET, argv[0], &in4.sin_addr) != 1)
		return fail(fd < 0 ? errno : EINVAL);
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&in4, sizeof in4) < 0)
		return fail(errno);
	printf("sent=1\n");
	return 0;
}

/* ---- descriptors, exit, signals ---- */

static int mode_open_fds(char **argv)
{
	long max = argv[0] ? parse_long(argv[0]) : 0, opened = 0;
	int err = 0;
	for (; max == 0 || opened < max; opened++)
		if (open("/dev/null", O_RDONLY) < 0) {
			err = errno;
			break;
		}
	printf("opened=%ld\n", opened);
	if (err)
		fail(err);
	return 0;
}

static int mode_exit(char **argv)
{
	fflush(stdout);
	_exit((int)parse_long(argv[0]));
}

static const struct { const char *name; int sig; } signals[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
	{ "ABRT", SIGABRT }, { "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL },
	{ "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 }, { "PIPE", SIGPIPE },
	{ "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
	{ "SYS", SIGSYS },
};

static int mode_signal(char **argv)
{
	const char *s = strncmp(argv[0], "SIG", 3) ? argv[0] : argv[0] + 3;
	int sig = 0;
	for (size_t i = 0; i < COUNT(signals); i++)
		if (strcmp(s, signals[i].name) == 0)
			sig = signals[i].sig;
	if (!sig)
		sig = (int)parse_long(s);
	fflush(stdout);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	printf("survived=%d\n", sig);	/* a signal whose default action is to ignore */
	return 1;
}

/* ---- the mode table ---- */

static const struct mode {
	const char *name;
	int nargs;		/* required arguments */
	int (*fn)(char **argv);	/* argv: the mode's arguments, NULL-terminated */
	const char *usage;
} modes[] = {
	{ "ids", 0, mode_ids, "uid gid euid egid pid ppid sid pgid hostname cwd" },
	{ "env", 0, mode_env, "the environment, one NAME=VALUE a line" },
	{ "fds", 0, mode_fds, "fds=0,1,2: the open descriptors" },
	{ "caps", 0, mode_caps, "Cap*, NoNewPrivs, Seccomp from /proc/self/status" },
	{ "setuid0", 0, mode_setuid0, "try setuid(0)" },
	{ "cpuloop", 0, mode_cpuloop, "spin forever" },
	{ "sleep", 1, mode_sleep, "SECS: sleep (fractions allowed)" },
	{ "sigblock-spin", 0, mode_sigblock_spin, "block every signal and spin" },
	{ "memhog", 1, mode_memhog, "MB: allocate and touch MB MiB" },
	{ "forkbomb", 0, mode_forkbomb, "fork forever (sandbox only)" },
	{ "threads", 1, mode_threads, "N: start N sleeping threads" },
	{ "killall", 0, mode_killall, "kill(-1, SIGKILL) (sandbox only)" },
	{ "daemon", 0, mode_daemon, "[SECS]: detach a sleeping grandchild, exit 0" },
	{ "orphan", 0, mode_orphan, "[SECS]: leave a sleeping child holding stdout, exit 0" },
	{ "write-file", 2, mode_write_file, "PATH BYTES: write BYTES bytes to PATH" },
	{ "read-file", 1, mode_read_file, "PATH: copy PATH to stdout" },
	{ "cat", 0, mode_cat, "copy stdin to stdout" },
	{ "ls", 1, mode_ls, "PATH: list a directory, sorted" },
	{ "chmod", 1, mode_chmod, "PATH [MODE]: chmod (default 0666)" },
	{ "unlink", 1, mode_unlink, "PATH: unlink" },
	{ "write-proc-sys", 0, mode_write_proc_sys, "open core_pattern, sysrq-trigger for writing" },
	{ "flood", 1, mode_flood, "BYTES: write BYTES to stdout (0 = forever)" },
	{ "stderr-flood", 0, mode_stderr_flood, "[BYTES]: the same on stderr" },
	{ "connect", 2, mode_connect, "HOST PORT: tcp connect to a numeric address" },
	{ "connect-unix-abstract", 1, mode_connect_unix_abstract, "NAME: connect to @NAME" },
	{ "syscall", 1, mode_syscall, "NAME: mount ptrace bpf unshare setns keyctl userfaultfd "
		"perf_event_open io_uring_setup kexec_load init_module chroot" },
	{ "caught-syscall", 1, mode_caught_syscall, "NAME: the same with a SIGSYS handler installed" },
	{ "child-syscall", 1, mode_child_syscall, "NAME: the same in a child: child_signal=N" },
	{ "seccomp-listener", 0, mode_seccomp_listener, "install a seccomp filter with a listener" },
	{ "socket", 1, mode_socket, "FAMILY: socket() of netlink, packet, vsock, alg" },
	{ "udp-send", 2, mode_udp_send, "HOST PORT: one UDP datagram by sendto, no connect" },
	{ "open-fds", 0, mode_open_fds, "[N]: open /dev/null until failure (or N): opened=K" },
	{ "exit", 1, mode_exit, "CODE: exit with CODE" },
	{ "signal", 1, mode_signal, "SIG: raise SIG (TERM, SIGSEGV, 9...)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: probe MODE [ARG...]\n");
	for (size_t i = 0; i < COUNT(modes); i++)
		fprintf(out, "  %-22s %s\n", modes[i].name, modes[i].usage);
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < COUNT(modes); i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		if (argc - 2 < modes[i].nargs) {
			fprintf(stderr, "probe: '%s' needs %d argument(s): %s\n",
				modes[i].name, modes[i].nargs, modes[i].usage);
			return 2;
		}
		setvbuf(stdout, NULL, _IOLBF, 0);
		int rc = modes[i].fn(argv + 2);
		fflush(stdout);
		return rc;
	}
	fprintf(stderr, "probe: unknown mode '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
