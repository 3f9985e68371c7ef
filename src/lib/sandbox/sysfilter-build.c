/* sysfilter-build.c - the seccomp allowlist, compiled with libseccomp (at build time, see tools/) */
#define _GNU_SOURCE
#include "sandbox/sysfilter-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"

/* What an ordinary Python, C or JavaScript program needs, and nothing that
 * reaches kernel state outside its own processes and files. */
static const char *const allowed[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
	"preadv2", "pwritev2", "open", "openat", "openat2", "creat", "close", "close_range",
	"stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs",
	"lseek", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
	"getdents", "getdents64", "getcwd", "chdir", "fchdir",
	"mkdir", "mkdirat", "rmdir", "rename", "renameat", "renameat2",
	"link", "linkat", "unlink", "unlinkat", "symlink", "symlinkat",
	"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "umask",
	"truncate", "ftruncate", "fallocate", "fsync", "fdatasync", "sync_file_range",
	"flock", "fcntl", "dup", "dup2", "dup3", "pipe", "pipe2", "mknod", "mknodat",
	"utime", "utimes", "utimensat", "futimesat", "readahead", "fadvise64",
	"sendfile", "copy_file_range", "splice", "tee", "vmsplice",
	"getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
	"signalfd", "signalfd4", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	"inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
	"mmap", "mprotect", "munmap", "mremap", "msync", "mincore", "madvise", "brk",
	"mlock", "mlock2", "munlock", "mlockall", "munlockall", "membarrier",
	"get_mempolicy", "set_mempolicy", "mbind", "memfd_create",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending",
	"rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack",
	"kill", "tkill", "tgkill", "pause", "alarm", "getitimer", "setitimer",
	"nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time",
	"timer_create", "timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete",
	"fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid",
	"set_tid_address", "set_robust_list", "get_robust_list", "futex", "futex_waitv", "rseq",
	"arch_prctl", "prctl", "seccomp", "sched_yield", "sched_getaffinity", "sched_setaffinity",
	"sched_getparam", "sched_setparam", "sched_getscheduler", "sched_setscheduler",
	"sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval",
	"sched_getattr", "sched_setattr", "getcpu", "getpriority", "setpriority",
	"ioprio_get", "getrlimit", "setrlimit", "prlimit64", "getrusage", "sysinfo", "times", "uname",
	"getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"getresuid", "getresgid", "getgroups", "setuid", "setgid", "setreuid", "setregid",
	"setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid", "capget",
	"getpgrp", "getpgid", "setpgid", "getsid", "setsid",
	"connect", "accept", "accept4", "bind", "listen", "shutdown", "getsockname", "getpeername",
	"socketpair", "setsockopt", "getsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg",
	"sendmmsg", "recvmmsg", "getrandom", "pidfd_open", "pidfd_send_signal",
	"shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
	"msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend",
	"mq_timedreceive", "mq_notify", "mq_getsetattr",
};

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
		  CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */)

/* Whether NAME is one of the calls the notifying filter leaves to the supervisor. */
static bool watched(const char *name)
{
	for (size_t i = 0; sysfilter_path_calls[i].name; i++)
		if (strcmp(name, sysfilter_path_calls[i].name) == 0)
			return true;
	return strcmp(name, "connect") == 0 || strcmp(name, "sendto") == 0 || strcmp(name, "sendmsg") == 0 ||
	       strcmp(name, "sendmmsg") == 0 || strcmp(name, "seccomp") == 0 ||
	       strcmp(name, "open") == 0 || strcmp(name, "openat") == 0 || strcmp(name, "creat") == 0;
}

static int add_names(scmp_filter_ctx ctx, const char *const *names, size_t n,
		     uint32_t action, bool notify, int *count)
{
	for (size_t i = 0; i < n && names[i]; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);

		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		if (notify && watched(names[i])) {
			if (count)
				(*count)++;	/* allowed, after a look */
			continue;
		}
		if (seccomp_rule_add(ctx, action, nr, 0) < 0)
			return -1;
		if (count)
			(*count)++;
	}
	return 0;
}

/* The notifying variant's conditional rules: what stays allowed without the
 * supervisor's look (opening without writing, sending on a connected socket),
 * and the flag that would let the program take the listener's place. */
static int add_notify_rules(scmp_filter_ctx ctx)
{
	const scmp_datum_t write_flags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
	int r = 0;

	if (seccomp_syscall_resolve_name("open") != __NR_SCMP_ERROR)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, write_flags, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, write_flags, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_EQ, 0));
	/* the child hands its listener over by sendmsg, which nobody could answer yet */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendmsg), 1,
				     SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)SYSFILTER_HANDOVER_FLAGS));
	/* A filter of the program's own with a listener could answer "continue"
	 * to calls this filter watches: seccomp() asking for one goes to the
	 * supervisor, which refuses it (EPERM) and counts it. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(seccomp), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0));
	return r;
}

static int add_rules(scmp_filter_ctx ctx, bool notify, int *count)
{
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);

	/* A binary tree of syscall numbers instead of a linear scan. */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r == 0)
		r = add_names(ctx, allowed, sizeof(allowed) / sizeof(allowed[0]), SCMP_ACT_ALLOW, notify, count);
	/* Notifying: the fatal calls reach the supervisor, which ends the caller with SIGSYS. */
	if (r == 0 && !notify)
		r = add_names(ctx, sysfilter_fatal_names, SIZE_MAX, SCMP_ACT_KILL_PROCESS, false, NULL);
	if (r == 0 && notify)
		r = add_notify_rules(ctx);
	/* clone: threads and processes, never new namespaces. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, NS_FLAGS, 0));
	for (unsigned long bit = 1; r == 0 && !notify && bit; bit <<= 1)
		if (bit & NS_FLAGS)
			r = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
					     SCMP_A0(SCMP_CMP_MASKED_EQ, bit, bit));
	/* clone3 hides its flags in memory the filter cannot read. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* io_uring_setup is deliberately absent: io_uring would bypass this
	 * filter, so it gets the default EPERM (libseccomp refuses a rule whose
	 * action equals the default). */
	/* Local and internet sockets only (the network namespace has just loopback).
	 * Notifying: internet sockets of other types than stream and datagram
	 * (raw, SCTP's seqpacket) go to the supervisor, which counts them and
	 * lets the kernel decide (no CAP_NET_RAW: EPERM). */
	for (int fam = 0; r == 0 && fam < 3; fam++) {
		static const int ok[] = { AF_UNIX, AF_INET, AF_INET6 };

		if (notify && ok[fam] != AF_UNIX) {
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2,
					     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)ok[fam]),
					     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_STREAM));
			if (r == 0)
				r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2,
						     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)ok[fam]),
						     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM));
			continue;
		}
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
				     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)ok[fam]));
	}
	/* There is no terminal in the sandbox (stdio are pipes), so ioctl is harmless. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 0);
	if (r == 0)
		*count += 3;	/* clone, socket, ioctl */
	return r;
}

struct sysfilter *sysfilter_build(bool notify, struct sd_error *err)
{
	/* Notifying, every refused call reaches the supervisor, which answers
	 * EPERM as the plain filter's default does (sandbox-tripwire.c). */
	scmp_filter_ctx ctx = seccomp_init(notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM));
	struct sysfilter *f = calloc(1, sizeof(*f));
	cleanup_close int fd = memfd_create("sandeval-seccomp", MFD_CLOEXEC);
	off_t size;
	int r;

	if (!ctx || !f || fd < 0) {
		sd_error_errno(err, fd < 0 ? errno : ENOMEM, "cannot build the seccomp filter");
		goto fail;
	}
	r = add_rules(ctx, notify, &f->allowed);
	if (r == 0)
		r = seccomp_export_bpf(ctx, fd);
	if (r < 0) {
		sd_error_errno(err, -r, "cannot build the seccomp filter");
		goto fail;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) ||
	    !(f->prog.filter = malloc((size_t)size)) || pread(fd, f->prog.filter, (size_t)size, 0) != size) {
		sd_error_set(err, EIO, "cannot read back the seccomp filter");
		goto fail;
	}
	f->prog.len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	f->owned = 1;
	seccomp_release(ctx);
	return f;
fail:
	if (ctx)
		seccomp_release(ctx);
	sysfilter_free(f);
	return NULL;
}

void sysfilter_free(struct sysfilter *f)
{
	if (!f)
		return;
	if (f->owned)
		free(f->prog.filter);
	free(f);
}
