/* sandbox-child.c - the native backend's in-sandbox half: init (pid 1) and the program's setup
 *
 * Runs in the child of clone(CLONE_NEWUSER | CLONE_NEWPID | ...), which is pid 1
 * of the new pid namespace. Nothing here returns: errors go to the message pipe
 * and the process _exits (isolate's die()). Order matters:
 *   close what is not ours -> wait for the uid map ->
 *   become uid 1000 (caps kept, in the new user namespace only) ->
 *   parent-death signal -> a new session -> hostname -> build the root
 *   (read-only binds, /proc, /dev, tmpfs /work and /tmp, the injected
 *   files) -> pivot_root -> loopback up -> wait for the cgroup grant and
 *   join the cgroup -> cgroup namespace -> vfork the program (fork, warm).
 * The program's process then drops every capability, sets no_new_privs, enters
 * the Landlock domain, loads the seccomp filter and executes. Pid 1 stays
 * behind, reaps, reports the program's wait status and exits as soon as the
 * program ends, which makes the kernel kill everything else in the namespace.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/filesize.h"
#include "sandbox/landlock.h"
#include "sandbox/sandbox-ctl.h"
#include "sandbox/sandbox-internal.h"
#include "sandbox/sysfilter.h"

#define BASE "/tmp"			/* private tmpfs in the new mount namespace */
#define ROOT BASE "/root"		/* the future / */
#define SCRATCH BASE "/scratch"		/* the size-bounded tmpfs behind /work and /tmp */

extern char **environ;

static struct child_args *args;

/* Event lines wait here and go out together: each write to the message pipe
 * wakes the supervisor, which costs the writer ~10 us where an interrupt
 * between CPUs is dear (a PVM guest, docs/benchmarks-exec.md). An error or
 * the exec line goes at once with what waited; so does what init has
 * written before it waits for the grant. (The vforked program shares this
 * buffer with init, which leaves it empty.) */
static char pending[CTL_LINE_MAX];
static size_t npending;

static void msg_flush(void)
{
	if (npending)
		write_all(args->msg_fd, pending, npending);
	npending = 0;
}

static void msg(char type, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	line[0] = type;
	va_start(ap, fmt);
	n = vsnprintf(line + 1, sizeof(line) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = n + 1 > (int)sizeof(line) - 2 ? (int)sizeof(line) - 2 : n + 1;
	for (int i = 1; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	if (npending + (size_t)n > sizeof(pending))
		msg_flush();
	memcpy(pending + npending, line, (size_t)n);
	npending += (size_t)n;
	if (type != CTL_EVENT && type != CTL_INFO)
		msg_flush();
}

/* Report a setup failure with errno's text and end the process. */
__attribute__((format(printf, 1, 2)))
static _Noreturn void die(const char *fmt, ...)
{
	char text[1536];
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	msg(CTL_ERROR, "%s: %s", text, strerror(e));
	_exit(127);
}

static _Noreturn void die_err(const struct sd_error *err)
{
	msg(CTL_ERROR, "%s", err->msg);
	_exit(127);
}

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x1
#define MOUNT_ATTR_NOSUID 0x2
#define MOUNT_ATTR_NODEV 0x4
#define MOUNT_ATTR_NOEXEC 0x8
struct mount_attr { __u64 attr_set, attr_clr, propagation, userns_fd; };
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* Add mount flags (never remove the host's): recursively when asked. */
static void set_attr(const char *path, unsigned long long attrs, bool recursive)
{
	struct mount_attr ma = { .attr_set = attrs };

	if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &ma, sizeof(ma)) < 0)
		die("cannot restrict mount '%s'", path);
}

static void bind_mount(const char *src, const char *dst, unsigned long long attrs)
{
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		die("cannot bind '%s' to '%s'", src, dst);
	set_attr(dst, attrs, true);
}

/* The paths of the root's entries: "/proc/self/fd/N/" or ROOT "/etc/" and
 * one name of at most NAME_MAX bytes always fit. Not PATH_MAX: a stack frame
 * of 4 KiB or more is probed page by page (-fstack-clash-protection), and
 * each page init touches for the first time is a fault, 10-20 us in a guest
 * with shadow page tables (docs/benchmarks-exec.md, 2026-12-04, night). */
#define ENTRY_PATH 512

/* noinline: its buffer on the stack only while a link is copied */
static __attribute__((noinline)) void mirror_link(const char *src, const char *dst)
{
	char target[4096];
	ssize_t n = readlink(src, target, sizeof(target) - 1);

	if (n < 0)
		die("cannot read link '%s'", src);
	target[n] = '\0';
	if (symlink(target, dst) < 0)
		die("cannot create link '%s'", dst);
}

/* Mirror one entry of an image (symlink, directory or file) read-only. */
static void mirror(const char *src, const char *dst)
{
	struct stat sb;

	if (lstat(src, &sb) < 0)
		return;
	if (S_ISLNK(sb.st_mode)) {
		mirror_link(src, dst);
		return;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (mkdir(dst, 0755) < 0)
			die("cannot create '%s'", dst);
	} else if (S_ISREG(sb.st_mode)) {
		int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);

		if (fd < 0)
			die("cannot create '%s'", dst);
		close(fd);
	} else {
		return;
	}
	bind_mount(src, dst, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);

	if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
		die("cannot write '%s'", path);
	close(fd);
}

static void host_etc(void)
{
	static const char *const keep[] = {
		"alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
		"nsswitch.conf", "os-release", "mime.types",
	};
	char src[ENTRY_PATH], dst[ENTRY_PATH];
	glob_t g;

	if (mkdir(ROOT "/etc", 0755) < 0)
		die("cannot create '/etc'");
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		snprintf(src, sizeof(src), "/etc/%s", keep[i]);
		snprintf(dst, sizeof(dst), ROOT "/etc/%s", keep[i]);
		mirror(src, dst);
	}
	if (glob("/etc/python3*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			snprintf(dst, sizeof(dst), ROOT "%s", g.gl_pathv[i]);
			mirror(g.gl_pathv[i], dst);
		}
		globfree(&g);
	}
	write_text(ROOT "/etc/passwd", SANDBOX_ETC_PASSWD);
	write_text(ROOT "/etc/group", SANDBOX_ETC_GROUP);
	write_text(ROOT "/etc/hostname", SANDBOX_ETC_HOSTNAME);
	write_text(ROOT "/etc/hosts", SANDBOX_ETC_HOSTS);
}

static void image_root(void)
{
	static const char *const host_top[] = { "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
	char src[ENTRY_PATH], dst[ENTRY_PATH];

	if (args->image_fd < 0) {
		for (size_t i = 0; i < sizeof(host_top) / sizeof(host_top[0]); i++) {
			snprintf(src, sizeof(src), "/%s", host_top[i]);
			snprintf(dst, sizeof(dst), ROOT "/%s", host_top[i]);
			mirror(src, dst);
		}
		host_etc();
		return;
	}
	/* --image DIR: every top-level entry but the ones the sandbox provides. */
	snprintf(src, sizeof(src), "/proc/self/fd/%d", args->image_fd);
	DIR *d = opendir(src);
	struct dirent *e;

	if (!d)
		die("cannot read image '%s'", args->cfg->image);
	while ((e = readdir(d))) {
		static const char *const skip[] = { ".", "..", "proc", "dev", "work", "tmp", "sys", "run" };
		bool skipped = false;

		for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
			skipped |= strcmp(e->d_name, skip[i]) == 0;
		if (skipped)
			continue;
		snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", args->image_fd, e->d_name);
		snprintf(dst, sizeof(dst), ROOT "/%s", e->d_name);
		mirror(src, dst);
	}
	closedir(d);
}

static void make_dev(void)
{
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" }, { "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" }, { "/tmp", "shm" },
	};
	char src[64], dst[64];

	if (mkdir(ROOT "/dev", 0755) < 0 ||
	    mount("tmpfs", ROOT "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64") < 0)
		die("cannot mount /dev");
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		int fd;

		snprintf(src, sizeof(src), "/dev/%s", nodes[i]);
		snprintf(dst, sizeof(dst), ROOT "/dev/%s", nodes[i]);
		fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			die("cannot create '%s'", dst);
		close(fd);
		bind_mount(src, dst, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(dst, sizeof(dst), ROOT "/dev/%s", links[i][1]);
		if (symlink(links[i][0], dst) < 0)
			die("cannot create '%s'", dst);
	}
	set_attr(ROOT "/dev", MOUNT_ATTR_RDONLY, false);
}

static void make_proc(void)
{
	if (mkdir(ROOT "/proc", 0555) < 0 ||
	    mount("proc", ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die("cannot mount /proc");
	/* Belt and braces over the uid mapping: kernel tunables read-only. */
	bind_mount(ROOT "/proc/sys", ROOT "/proc/sys", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (access(ROOT "/proc/sysrq-trigger", F_OK) == 0)
		bind_mount(ROOT "/proc/sysrq-trigger", ROOT "/proc/sysrq-trigger",
			   MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

static void mkdirs(char *path)
{
	for (char *p = strchr(path + strlen(ROOT "/work/"), '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("cannot create '%s'", path + strlen(ROOT));
		*p = '/';
	}
}

/* Copy IN to OUT in the kernel (sendfile: no buffer of ours, whose stack
 * frame alone would cost a fresh init 16 page faults); a source sendfile
 * cannot read (a pipe) goes through a page-sized buffer. */
static void copy_in(int in, int out, const char *src, const char *rel, unsigned long long *bytes)
{
	bool by_hand = false;

	for (;;) {
		char buf[4096];
		ssize_t n = by_hand ? read(in, buf, sizeof(buf)) : sendfile(out, in, NULL, 1 << 30);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !by_hand && (errno == EINVAL || errno == ENOSYS)) {
			by_hand = true;
			continue;
		}
		if (n < 0 && by_hand)
			die("cannot read '%s'", src);
		if (n < 0)
			die("cannot copy '%s' into '/work/%s' (does it fit in --tmpfs?)", src, rel);
		if (n == 0)
			return;
		if (by_hand && write_all(out, buf, (size_t)n) < 0)
			die("cannot copy '%s' into '/work/%s' (does it fit in --tmpfs?)", src, rel);
		*bytes += (unsigned long long)n;
	}
}

/* Copy file I the parent opened into /work, behind a read-only bind.
 * noinline, as mirror_link: no files, no 4 KiB path on the stack. */
static __attribute__((noinline)) void inject_file(size_t i, unsigned long long *bytes)
{
	const struct sandbox_config *cfg = args->cfg;
	const char *rel = cfg->files[i].dest;
	char path[4096];
	struct stat sb;
	int out;

	if (strncmp(rel, "/work/", 6) == 0)
		rel += 6;
	snprintf(path, sizeof(path), ROOT "/work/%s", rel);
	mkdirs(path);
	if (fstat(args->file_fds[i], &sb) < 0)
		die("cannot stat '%s'", cfg->files[i].src);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (sb.st_mode & 0111) ? 0555 : 0444);
	if (out < 0)
		die("cannot create '/work/%s' (given twice, or its parent is a file?)", rel);
	copy_in(args->file_fds[i], out, cfg->files[i].src, rel, bytes);
	close(out);
	close(args->file_fds[i]);
	bind_mount(path, path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
}

static void inject(void)
{
	unsigned long long bytes = 0;

	for (size_t i = 0; i < args->cfg->n_files; i++)
		inject_file(i, &bytes);
	msg(CTL_EVENT, "inject\t%zu file(s), %llu bytes, read-only under /work", args->cfg->n_files, bytes);
}

static void build_root(void)
{
	char opts[128];

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("cannot make mounts private");

	if (mount("tmpfs", BASE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0 ||
	    mkdir(ROOT, 0755) < 0 || mkdir(SCRATCH, 0755) < 0 ||
	    mount("tmpfs", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") < 0)
		die("cannot mount the sandbox root");
	snprintf(opts, sizeof(opts), "mode=0755,size=%llu", (unsigned long long)args->cfg->tmpfs);
	if (mount("tmpfs", SCRATCH, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0 ||
	    mkdir(SCRATCH "/work", 0755) < 0 || mkdir(SCRATCH "/tmp", 01777) < 0 ||
	    chmod(SCRATCH "/tmp", 01777) < 0)
		die("cannot mount the /work and /tmp tmpfs");
	image_root();
	make_proc();
	make_dev();
	if (mkdir(ROOT "/work", 0755) < 0 || mkdir(ROOT "/tmp", 01777) < 0)
		die("cannot create /work and /tmp");
	bind_mount(SCRATCH "/work", ROOT "/work", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	bind_mount(SCRATCH "/tmp", ROOT "/tmp", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	inject();
	set_attr(ROOT, MOUNT_ATTR_RDONLY, false);
	if (chdir(ROOT) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
	    chdir("/") < 0)
		die("cannot pivot into the sandbox root");
	msg(CTL_EVENT, "inject\troot '%s' read-only; /proc, /dev; /work and /tmp share a %llu-byte tmpfs",
	    args->cfg->image, (unsigned long long)args->cfg->tmpfs);
}

static void loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("cannot find the loopback interface");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die("cannot bring the loopback interface up");
	close(s);
}

static void set_caps(bool keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (keep) {
		if (syscall(SYS_capget, &h, d) < 0)
			die("capget");
		d[0].effective = d[0].permitted;
		d[1].effective = d[1].permitted;
	}
	if (syscall(SYS_capset, &h, d) < 0)
		die("capset");
}

static void become_sandbox_user(void)
{
	gid_t gid = SANDBOX_GID;
	uid_t uid = SANDBOX_UID;

	if (setresgid(gid, gid, gid) < 0)
		die("setresgid");
	if (args->as_root && setgroups(0, NULL) < 0)
		die("setgroups");
	if (prctl(PR_SET_KEEPCAPS, 1) < 0 || setresuid(uid, uid, uid) < 0)
		die("setresuid");
	set_caps(true);		/* still all capabilities, in the new user namespace only */
}

static void set_rlimit(int res, rlim_t soft, rlim_t hard, const char *name)
{
	struct rlimit rl = { soft, hard };

	if (setrlimit(res, &rl) < 0)
		die("cannot set %s", name);
}

static void drop_privileges(void)
{
	/* Capabilities are numbered without gaps: the first the kernel calls
	 * invalid is one past its last (libcap's cap_max_bits() probes so). */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap) < 0) {
			if (errno == EINVAL)
				break;
			die("cannot drop capability %d from the bounding set", cap);
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		die("cannot clear ambient capabilities");
	set_caps(false);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("cannot set no_new_privs");
}

char *const child_base_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/work", "LANG=C.UTF-8", "TMPDIR=/tmp", NULL,
};

static char **build_env(void)
{
	const struct sandbox_config *cfg = args->cfg;
	size_t nbase = 0, n = 0;
	char **env;

	while (child_base_env[nbase])
		nbase++;
	env = calloc(nbase + cfg->n_env + 1, sizeof(char *));

	if (!env)
		die("out of memory");
	for (size_t i = 0; i < nbase; i++)
		env[n++] = child_base_env[i];
	/* --env overrides a base variable of the same name. */
	for (size_t i = 0; i < cfg->n_env; i++) {
		size_t klen = strcspn(cfg->env[i], "=") + 1;
		size_t j;

		for (j = 0; j < n; j++)
			if (strncmp(env[j], cfg->env[i], klen) == 0)
				break;
		env[j] = cfg->env[i];
		if (j == n)
			n++;
	}
	return env;
}

/* Hand the seccomp listener to the supervisor and keep no copy: whoever
 * holds it answers the watched calls, and could let them through. */
static void send_listener(int fd)
{
	char one = 1;

	if (fd < 0)
		die("cannot load the seccomp filter with a listener");
	if (send_fds(args->notify_sock, &one, 1, &fd, 1, SYSFILTER_HANDOVER_FLAGS) != 1)
		die("cannot hand the seccomp listener to the supervisor");
	close(fd);
	close(args->notify_sock);
	args->notify_sock = -1;
}

/* glibc refuses its own two (32 and 33, below SIGRTMIN) with EINVAL, but
 * a caller may have left them ignored (the kernel lets it), and an ignored
 * signal survives execve: the kernel's own call, with the kernel's struct
 * as x86-64 lays it out (handler, flags, restorer, mask). */
static void default_signal_raw(int sig)
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} act = { SIG_DFL, 0, NULL, 0 };

	syscall(SYS_rt_sigaction, sig, &act, NULL, sizeof(act.mask));
}

/* Every signal back to SIG_DFL. Only those ignored or caught need a call,
 * and /proc/self/status names them in one read where asking each signal is
 * 64 calls (~70 us where a call costs 1 us: docs/benchmarks-exec.md);
 * without the file, all of them. (Not read_file and the tripwires' parser:
 * no malloc here, in a vforked child that borrows init's heap.) */
void child_default_signals(void)
{
	unsigned long long ign, cgt, set = ~0ULL;
	char buf[4096], *p;
	ssize_t n = -1;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0) {
		buf[n] = '\0';
		if ((p = strstr(buf, "\nSigIgn:\t")) && sscanf(p, "\nSigIgn:\t%llx", &ign) == 1 &&
		    (p = strstr(p, "\nSigCgt:\t")) && sscanf(p, "\nSigCgt:\t%llx", &cgt) == 1)
			set = ign | cgt;
	}
	for (int sig = 1; sig <= 64; sig++)
		if ((set & (1ULL << (sig - 1))) && signal(sig, SIG_DFL) == SIG_ERR && errno == EINVAL)
			default_signal_raw(sig);
}

/* Constrain the program's process, then execute it (or, warm, return). */
static void run_program(void)
{
	const struct sandbox_config *cfg = args->cfg;
	const char *const writable[] = { "/work", "/tmp", NULL };
	const char *const devices[] = { "/dev", NULL };
	struct sd_error err = { 0 };
	double cpu_soft = ceil(cfg->cpu_time);
	sigset_t all;
	int abi, nsys = 0;

	/* Default signal handling, nothing blocked: the program starts clean.
	 * A warm interpreter keeps what python3 set at its start (SIGPIPE and
	 * SIGXFSZ ignored, SIGINT its handler), as it would after an exec. */
	if (!args->warm)
		child_default_signals();
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int i = 0; i < 3; i++)
		if (dup2(args->stdio[i], i) < 0)
			die("dup2");
	/* out of the way of 3 and 4 first; close_range drops the copy */
	if (args->notify_sock >= 0 && (args->notify_sock = fcntl(args->notify_sock, F_DUPFD_CLOEXEC, 5)) < 0)
		die("fcntl");
	if (args->msg_fd != 3 && dup3(args->msg_fd, 3, O_CLOEXEC) < 0)
		die("dup3");
	args->msg_fd = 3;
	if (fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
		die("fcntl");
	if (args->notify_sock >= 0) {
		if (dup3(args->notify_sock, 4, O_CLOEXEC) < 0)
			die("dup3");
		args->notify_sock = 4;
		if (fcntl(4, F_SETFD, FD_CLOEXEC) < 0)
			die("fcntl");
	}
	close_range(args->notify_sock >= 0 ? 5 : 4, ~0U, 0);
	if (chdir("/work") < 0)
		die("chdir /work");
	set_rlimit(RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
	set_rlimit(RLIMIT_NOFILE, (rlim_t)cfg->fds, (rlim_t)cfg->fds, "RLIMIT_NOFILE");
	set_rlimit(RLIMIT_FSIZE, (rlim_t)cfg->file_size, (rlim_t)cfg->file_size, "RLIMIT_FSIZE");
	/* With cgroup accounting the supervisor stops the whole sandbox at the
	 * limit; RLIMIT_CPU is then a per-process backstop one second later. */
	if (!args->rlimit_cpu_only)
		cpu_soft += 1;
	set_rlimit(RLIMIT_CPU, (rlim_t)cpu_soft, (rlim_t)cpu_soft + 1, "RLIMIT_CPU");
	if (args->rlimit_memory)
		/* DATA, not AS: it counts what is written (heap, private mappings)
		 * but not address space merely reserved, which V8 (node) needs. */
		set_rlimit(RLIMIT_DATA, (rlim_t)cfg->memory, (rlim_t)cfg->memory, "RLIMIT_DATA");
	if (args->rlimit_pids)
		set_rlimit(RLIMIT_NPROC, (rlim_t)cfg->pids, (rlim_t)cfg->pids, "RLIMIT_NPROC");
	drop_privileges();
	abi = landlock_restrict(writable, devices, &err);
	if (abi < 0)
		die_err(&err);
	nsys = sysfilter_allowed(args->filter);
	if (args->notify_sock >= 0) {
		/* Not executed, a warm program stays undumpable (from init), and
		 * the supervisor could not read the addresses and paths of the
		 * calls it is shown: dumpable, as after a cold execve. */
		if (args->warm && prctl(PR_SET_DUMPABLE, 1) < 0)
			die("cannot make the program dumpable");
		send_listener(sysfilter_install_listener(args->filter, &err));
	} else if (sysfilter_install(args->filter, &err) < 0) {
		die_err(&err);
	}
	msg(CTL_EVENT, "constrain\tcapabilities dropped (bounding set too), no_new_privs, "
	    "seccomp allowlist of %d calls, Landlock %s, rlimits", nsys,
	    abi ? "writes only in /work and /tmp" : "unavailable (kernel)");
	msg(CTL_INFO, "%d %d", abi, nsys);
	environ = build_env();
	/* The program's start on the host's clock (no time namespace): its wall
	 * time counts from here, however late the supervisor reads this line */
	msg(CTL_EXEC, "%lld", (long long)now_ns());
	if (args->warm) {
		close(3);	/* EOF: the supervisor's sign that the program started */
		return;
	}
	execvp(cfg->argv[0], cfg->argv);
	die("cannot execute '%s'", cfg->argv[0]);
}

/* pid 1: reap everything, report the program's wait status and whether it
 * reached --file-size, then exit, which kills whatever else still runs in
 * the namespace. */
static _Noreturn void init_loop(pid_t program, const struct child_args *own, uint64_t file_size)
{
	int status_fd = own->status_fd;

	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < 3; i++)
		close(own->stdio[i]);
	close(own->msg_fd);
	if (own->notify_sock >= 0)
		close(own->notify_sock);
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, __WALL);

		if (pid == program) {
			int report[2] = { st, file_size_reached(file_size) };
			char c;

			write_all(status_fd, report, sizeof(report));
			/* The supervisor counts what still runs (lingering processes),
			 * then kills us; our exit would kill them first. It closing
			 * the sync pipe (it died) ends the wait too. */
			while (read(own->sync_fd, &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (pid < 0 && errno != EINTR)
			_exit(1);
	}
}

/* The least of A's own descriptors at or above FROM, or -1. */
static int next_kept(const struct child_args *a, int from)
{
	int best = -1;
	const int fixed[] = { a->sync_fd, a->msg_fd, a->status_fd, a->stdio[0], a->stdio[1], a->stdio[2],
			      a->notify_sock };

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i] >= from && (best < 0 || fixed[i] < best))
			best = fixed[i];
	for (size_t i = 0; i < a->cfg->n_files; i++)
		if (a->file_fds[i] >= from && (best < 0 || a->file_fds[i] < best))
			best = a->file_fds[i];
	return best;
}

/* Close every descriptor but A's own: init is a clone of the caller (a
 * sandeval command, or the zygote), and what it inherited -- the
 * supervisor's ends of our pipes (the program would never see EOF), store
 * files, locked run records, listening sockets -- would stay open for as
 * long as the sandbox lives, and a moment longer after the caller is killed. */
static void close_others(const struct child_args *a)
{
	int from = 0, kept;

	while ((kept = next_kept(a, from)) >= 0) {
		if (kept > from)
			close_range((unsigned)from, (unsigned)kept - 1, 0);
		from = kept + 1;
	}
	close_range((unsigned)from, ~0U, 0);
}

/* Wait for the cgroup grant (sandbox-child.h), join what it holds and take
 * its flags: the supervisor made the cgroup while we built the root. */
static void join_cgroup(struct child_args *a)
{
	struct cgroup_grant g;
	int fds[CG_NCTL], n;

	msg_flush();	/* before we wait: the supervisor may be waiting for them */
	if (recv_fds(a->notify_sock, &g, sizeof(g), fds, CG_NCTL, &n, 0) != (ssize_t)sizeof(g) ||
	    g.magic != CGROUP_GRANT_MAGIC) {
		errno = EPROTO;
		die("no cgroup grant from the supervisor");
	}
	for (int i = 0; i < n; i++) {
		if (write(fds[i], "0", 1) != 1)
			die("cannot join the sandbox cgroup");
		close(fds[i]);
	}
	a->rlimit_memory = g.rlimit_memory;
	a->rlimit_pids = g.rlimit_pids;
	a->rlimit_cpu_only = g.rlimit_cpu_only;
}

void child_main(struct child_args *a)
{
	struct child_args own;
	uint64_t file_size;
	struct pollfd pfd;
	int image_errno;
	char c;
	pid_t pid;

	args = a;
	close_others(a);
	/* The image is opened here: in our own mount namespace (a bind needs a
	 * source mount of the caller's namespace), with the caller's credentials
	 * (before the uid change), and before BASE may hide it. */
	if (strcmp(a->cfg->image, "host") != 0)
		a->image_fd = open(a->cfg->image, O_PATH | O_DIRECTORY | O_CLOEXEC);
	image_errno = errno;
	if (read(a->sync_fd, &c, 1) != 1)
		_exit(1);	/* the parent gave up */
	if (a->cpus)
		sched_setaffinity(0, sizeof(cpu_set_t), a->cpus);	/* a hint: failing changes nothing */
	if (strcmp(a->cfg->image, "host") != 0 && a->image_fd < 0) {
		errno = image_errno;
		die("cannot open --image '%s'", a->cfg->image);
	}
	become_sandbox_user();
	/* setresuid cleared it; and the parent may have died meanwhile. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die("cannot set the parent-death signal");
	pfd = (struct pollfd){ .fd = a->sync_fd, .events = POLLIN };
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
		_exit(1);
	/* A session of its own: no controlling terminal, so the caller's
	 * terminal neither signals the sandbox (Ctrl-C is sandeval's to act
	 * on) nor takes input from it (TIOCSTI). */
	if (setsid() < 0 && getsid(0) != getpid())
		die("cannot start a session");
	if (sethostname("sandbox", 7) < 0)
		die("cannot set the hostname");
	msg(CTL_EVENT, "provision\tnamespaces user, pid, mount, network, ipc, uts, cgroup; uid %d", SANDBOX_UID);
	build_root();
	loopback_up();
	/* Joined only now: the program is the first thing charged to the
	 * cgroup, and the supervisor made it while we built the root. */
	join_cgroup(a);
	/* rooted at the sandbox's cgroup, which we are in from now on */
	if (unshare(CLONE_NEWCGROUP) < 0)
		die("cannot create the cgroup namespace");
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		die("cannot make init non-dumpable");
	/* A cold program executes at once: it borrows init's memory until then
	 * (vfork), and init waits. run_program() changes args (its descriptors'
	 * numbers), so init keeps its own copy. A warm one returns into the
	 * interpreter: it needs memory of its own. From here on init reads
	 * only its copy. */
	own = *a;
	own.cfg = NULL;
	file_size = a->cfg->file_size;
	pid = a->warm ? fork() : vfork();
	if (pid < 0)
		die("cannot fork the program");
	if (pid == 0) {
		run_program();
		return;
	}
	init_loop(pid, &own, file_size);
}
