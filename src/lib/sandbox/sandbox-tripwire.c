/* sandbox-tripwire.c - the supervisor's side of tripwires: answer the seccomp listener, count what the program tried
 *
 * The program runs under the notifying variant of the seccomp filter
 * (sysfilter.h): the calls the plain filter allows pass at kernel speed and
 * are never seen here. What reaches the listener is (1) every call the plain
 * filter refuses, answered EPERM as it would, and named in denied_syscalls;
 * (2) the fatal calls (mount, ptrace, bpf, unshare, clone with namespace
 * flags, ...), after which the caller is ended with SIGSYS, as the plain
 * filter's SECCOMP_RET_KILL_PROCESS would (SIGKILL when the caller catches,
 * blocks or ignores SIGSYS); (3) socket() of families the filter refuses
 * (netlink and packet count as network attempts), connect() and sendto()
 * with an address, sendmsg() and sendmmsg() (the filter cannot see whether
 * their headers name an address), which continue after their destination,
 * and whether they carry a DNS query for a metadata host name, are noted; (4)
 * calls that create or change a file by path, which continue after the
 * path is checked against the writable directories (the mounts and Landlock
 * refuse the others: writes_denied). Continued calls are never decided here:
 * the kernel's layers decide, the listener only looks (the pointers are read
 * before the kernel reads them again, which is fine for counting and would
 * not be for a decision).
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-tripwire.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/cgroup.h"
#include "sandbox/sysfilter.h"

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)
#define PATH_CAP 4096

int tripwire_recv_listener(int sock)
{
	char one;
	int fd, n;

	if (recv_fds(sock, &one, 1, &fd, 1, &n, MSG_DONTWAIT) != 1 || n != 1)
		return -1;
	return fd;
}

int tripwire_watch_init(struct tripwire_watch *w, int listener, struct tripwires *t, struct sd_error *err)
{
	struct seccomp_notif_sizes sz;

	*w = (struct tripwire_watch){ .fd = listener, .t = t };
	if (listener < 0) {
		t->uncounted |= TW_NETWORK | TW_SYSCALLS | TW_WRITES;
		return 0;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		return sd_error_errno(err, errno, "seccomp listener sizes");
	w->req_size = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif : sizeof(struct seccomp_notif);
	w->resp_size = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sz.seccomp_notif_resp
										   : sizeof(struct seccomp_notif_resp);
	w->req = calloc(1, w->req_size);
	w->resp = calloc(1, w->resp_size);
	if (!w->req || !w->resp)
		return sd_error_errno(err, ENOMEM, "seccomp listener");
	return 0;
}

void tripwire_watch_release(struct tripwire_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->req);
	free(w->resp);
	w->req = NULL;
	w->resp = NULL;
}

/* LEN bytes of the caller's memory at ADDR; false when it cannot be read.
 * EPERM: the caller is not dumpable and its memory was made outside the
 * sandbox's user namespace (a warm start's driver, supervised by an
 * ordinary user): what needed the memory is then not counted (null). */
static bool peek(struct tripwire_watch *w, unsigned what, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	if (!addr)
		return false;
	if (process_vm_readv((pid_t)w->req->pid, &local, 1, &remote, 1, 0) == (ssize_t)len)
		return true;
	if (errno == EPERM)
		w->t->uncounted |= what;
	return false;
}

/* A NUL-terminated string of the caller's at ADDR, read page by page. */
static bool peek_string(struct tripwire_watch *w, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	while (addr && got < cap - 1) {
		size_t chunk = 4096 - (size_t)((addr + got) % 4096);

		if (chunk > cap - 1 - got)
			chunk = cap - 1 - got;
		if (!peek(w, TW_WRITES, addr + got, buf + got, chunk))
			return false;
		if (memchr(buf + got, '\0', chunk))
			return true;
		got += chunk;
	}
	return false;
}

static bool listed(const char *const *names, const char *name);

bool tripwire_path_normalise(const char *path, size_t n, char *out, size_t cap)
{
	size_t len = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && path[j] != '/')
			j++;
		if (j - i == 2 && path[i] == '.' && path[i + 1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;	/* the slash before the component taken out */
		} else if (j > i && !(j - i == 1 && path[i] == '.')) {
			if (len + 1 + (j - i) + 1 > cap)
				return false;
			out[len++] = '/';
			memmove(out + len, path + i, j - i);	/* OUT may be PATH: never ahead of it */
			len += j - i;
		}
		i = j + 1;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return true;
}

bool tripwire_path_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool tripwire_path_writable(const char *path)
{
	static const char *const devs[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
					    "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty" };

	if (tripwire_path_beneath(path, "/work") || tripwire_path_beneath(path, "/tmp") ||
	    tripwire_path_beneath(path, "/dev/shm") || tripwire_path_beneath(path, "/dev/fd"))
		return true;
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (strcmp(path, devs[i]) == 0)
			return true;
	if (strncmp(path, "/proc/", 6) == 0) {
		const char *p = path + 6 + strcspn(path + 6, "/");

		return strncmp(p, "/fd/", 4) == 0;
	}
	return false;
}

/* Resolve the symbolic links in FULL (absolute, normalised) as the caller
 * PID sees its files (through /proc/PID/root, one component at a time, so
 * that no link is followed on the host), all but the last component unless
 * FOLLOW_LAST; at most 8 links. A link in /work pointing at a host file (the
 * symlink tricks of Judge0's CVE-2024-28185/28189) is then counted where
 * the write would land. For counting only: the caller may change the links
 * meanwhile, and the kernel decides. */
static void resolve_links(pid_t pid, char *full, size_t cap, bool follow_last)
{
	char root[64], probe[2 * PATH_CAP + 80], target[PATH_CAP], next[2 * PATH_CAP + 2];
	int hops = 0;
	size_t end = 1;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	while (hops < 8 && full[end - 1]) {
		struct stat st;
		ssize_t n;
		size_t cut;

		end += strcspn(full + end, "/");
		if (!full[end] && !follow_last)
			return;
		snprintf(probe, sizeof(probe), "%s%.*s", root, (int)end, full);
		if (lstat(probe, &st) < 0)
			return;		/* not there (yet): nothing further to resolve */
		if (!S_ISLNK(st.st_mode)) {
			if (!full[end])
				return;
			end++;
			continue;
		}
		n = readlink(probe, target, sizeof(target) - 1);
		if (n <= 0)
			return;
		target[n] = '\0';
		for (cut = end; cut > 0 && full[cut - 1] != '/'; cut--)
			;
		if (target[0] == '/')
			snprintf(next, sizeof(next), "%s%s", target, full + end);
		else
			snprintf(next, sizeof(next), "%.*s%s%s", (int)cut, full, target, full + end);
		(void)tripwire_path_normalise(next, strlen(next), next, sizeof(next));	/* in place: never longer */
		snprintf(full, cap, "%s", next);
		hops++;
		end = 1;
	}
}

/* Whether the path argument PATH_ARG (relative to DIRFD_ARG, -1: the cwd)
 * of the caller's call lies outside the writable directories, its links
 * resolved (the last one only when the call follows it: FOLLOW_LAST);
 * false when it cannot be told. */
static bool outside(struct tripwire_watch *w, int dirfd_arg, int path_arg, bool follow_last)
{
	char path[PATH_CAP], base[PATH_CAP], link[64], full[2 * PATH_CAP + 2];
	const struct seccomp_notif *req = w->req;
	pid_t pid = (pid_t)req->pid;
	ssize_t n;

	if (!peek_string(w, req->data.args[path_arg], path, sizeof(path)) || !path[0])
		return false;
	if (path[0] == '/') {
		snprintf(full, sizeof(full), "%s", path);
	} else {
		int dirfd = dirfd_arg < 0 ? AT_FDCWD : (int)req->data.args[dirfd_arg];

		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
		else
			snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, dirfd);
		n = readlink(link, base, sizeof(base) - 1);
		if (n <= 0 || base[0] != '/')
			return false;
		base[n] = '\0';
		snprintf(full, sizeof(full), "%s/%s", base, path);
	}
	(void)tripwire_path_normalise(full, strlen(full), full, sizeof(full));	/* in place: never longer */
	if (!tripwire_path_writable(full))
		return true;
	resolve_links(pid, full, sizeof(full), follow_last);
	return !tripwire_path_writable(full);
}

/* Whether the call follows a link in its last component: by its name, and
 * for the opens and fchownat by FLAGS (O_NOFOLLOW, or O_CREAT with O_EXCL,
 * which fails on a link; AT_SYMLINK_NOFOLLOW), as the kernel would. */
static bool follows_last(const char *name, uint64_t flags)
{
	static const char *const follow[] = { "creat", "truncate", "chmod", "fchmodat", "chown", NULL };
	static const char *const opens[] = { "open", "openat", "openat2", NULL };

	if (listed(opens, name))
		return !(flags & O_NOFOLLOW) && (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
	if (strcmp(name, "fchownat") == 0)
		return !(flags & AT_SYMLINK_NOFOLLOW);
	return listed(follow, name);
}

static void check_paths(struct tripwire_watch *w, const struct sysfilter_path_call *pc, uint64_t flags)
{
	bool out = false, follow_last = follows_last(pc->name, flags);

	for (int i = 0; i < 2 && pc->path[i] >= 0; i++)
		out |= outside(w, pc->dirfd[i], pc->path[i], follow_last);
	if (out)
		w->t->writes_denied++;
}

/* The destination of a connect, sendto, sendmsg or sendmmsg: inet and inet6
 * count; DNS: the message is a DNS query for a metadata host name. */
static void note_destination(struct tripwire_watch *w, uint64_t addr, uint64_t len, bool dns)
{
	struct sockaddr_storage ss = { 0 };
	char ip[INET6_ADDRSTRLEN], dest[TRIPWIRE_DEST_LEN];

	if (len > sizeof(ss))
		len = sizeof(ss);
	if (len < sizeof(sa_family_t) || !peek(w, TW_NETWORK, addr, &ss, (size_t)len))
		return;
	if (ss.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(dest, sizeof(dest), "%s:%u", ip, ntohs(in->sin_port));
		tripwires_network(w->t, dest, dns || strcmp(ip, "169.254.169.254") == 0);
	} else if (ss.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(dest, sizeof(dest), "[%s]:%u", ip, ntohs(in6->sin6_port));
		tripwires_network(w->t, dest, dns || strcmp(ip, "fd00:ec2::254") == 0 ||
					      strcmp(ip, "::ffff:169.254.169.254") == 0);
	}
}

/* Whether the LEN bytes the caller sends from BUF are a DNS query for a
 * metadata host name (the first DNS_PEEK bytes: a question fits). */
#define DNS_PEEK 512
static bool dns_metadata(struct tripwire_watch *w, uint64_t buf, uint64_t len)
{
	unsigned char q[DNS_PEEK];
	size_t n = len < sizeof(q) ? (size_t)len : sizeof(q);

	return n >= 17 && peek(w, TW_NETWORK, buf, q, n) && tripwires_dns_metadata(q, n);
}

/* One message sent: to ADDR (ADDRLEN bytes; none: a connected socket, whose
 * connect was counted), its first bytes at BUF (BUFLEN). A DNS query for a
 * metadata host name on a connected socket is one more attempt, a probe. */
static void note_message(struct tripwire_watch *w, uint64_t addr, uint64_t addrlen, uint64_t buf, uint64_t buflen)
{
	bool dns = dns_metadata(w, buf, buflen);

	if (addr && addrlen)
		note_destination(w, addr, addrlen, dns);
	else if (dns)
		tripwires_network(w->t, NULL, true);
}

/* A struct msghdr of the caller's at ADDR: its destination and first buffer. */
static void note_msghdr(struct tripwire_watch *w, uint64_t addr)
{
	struct msghdr mh;
	struct iovec iov = { 0 };

	if (!peek(w, TW_NETWORK, addr, &mh, sizeof(mh)))
		return;
	if (mh.msg_iovlen > 0 && !peek(w, TW_NETWORK, (uint64_t)(uintptr_t)mh.msg_iov, &iov, sizeof(iov)))
		iov = (struct iovec){ 0 };
	note_message(w, (uint64_t)(uintptr_t)mh.msg_name, mh.msg_namelen, (uint64_t)(uintptr_t)iov.iov_base,
		     iov.iov_len);
}

/* sendmmsg: the first SENDMMSG_MAX messages of the vector. */
#define SENDMMSG_MAX 8
static void note_mmsghdrs(struct tripwire_watch *w, uint64_t vec, uint64_t vlen)
{
	for (uint64_t i = 0; i < vlen && i < SENDMMSG_MAX; i++)
		note_msghdr(w, vec + i * sizeof(struct mmsghdr));
}

/* The fields of /proc/TID/status the end of a caller needs. */
struct task_status {
	pid_t tgid;
	long ns_pid;		/* in the innermost pid namespace */
	unsigned long long blocked, ignored, caught;
};

static bool task_status(pid_t tid, struct task_status *ts)
{
	char path[64], *text = NULL;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_file(path, 1 << 16, &text, NULL, NULL) < 0)
		return false;
	*ts = (struct task_status){ 0 };
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, "Tgid:", 5) == 0)
			ts->tgid = (pid_t)strtol(line + 5, NULL, 10);
		else if (strncmp(line, "NSpid:", 6) == 0) {
			char *p = line + 6, *end;

			for (long v = strtol(p, &end, 10); end != p; v = strtol(p, &end, 10)) {
				ts->ns_pid = v;
				p = end;
			}
		} else if (strncmp(line, "SigBlk:", 7) == 0)
			ts->blocked = strtoull(line + 7, NULL, 16);
		else if (strncmp(line, "SigIgn:", 7) == 0)
			ts->ignored = strtoull(line + 7, NULL, 16);
		else if (strncmp(line, "SigCgt:", 7) == 0)
			ts->caught = strtoull(line + 7, NULL, 16);
	}
	ok = ts->tgid > 0;
	free(text);
	return ok;
}

/* End the caller of a fatal call as SECCOMP_RET_KILL_PROCESS would: its
 * whole thread group, by SIGSYS when that kills (default action, not
 * blocked), else by SIGKILL. Unanswered, the call never runs. */
static void end_caller(struct tripwire_watch *w)
{
	const unsigned long long sys = 1ULL << (SIGSYS - 1);
	pid_t tid = (pid_t)w->req->pid;
	struct task_status ts;
	uint64_t id = w->req->id;

	if (!task_status(tid, &ts) || ioctl(w->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
		return;		/* gone already */
	if (!((ts.blocked | ts.ignored | ts.caught) & sys)) {
		syscall(SYS_tgkill, ts.tgid, tid, SIGSYS);
		return;
	}
	kill(ts.tgid, SIGKILL);
	if (ts.ns_pid == 2)
		w->program_killed = true;
}

static bool listed(const char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static bool is_fatal(const char *name, long nr)
{
	/* clone comes only with namespace flags: the filter allows the rest */
	return nr == SYS_clone || listed(sysfilter_fatal_names, name);
}

static const struct sysfilter_path_call *path_call(const char *name)
{
	for (size_t i = 0; name && sysfilter_path_calls[i].name; i++)
		if (strcmp(name, sysfilter_path_calls[i].name) == 0)
			return &sysfilter_path_calls[i];
	return NULL;
}

void tripwire_watch_handle(struct tripwire_watch *w)
{
	struct seccomp_notif *req = w->req;
	struct seccomp_notif_resp *resp = w->resp;
	const struct sysfilter_path_call *pc;
	const char *name;
	char unknown[TRIPWIRE_NAME_LEN];
	long nr;

	memset(req, 0, w->req_size);
	if (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return;		/* EINTR, or the caller died (ENOENT) */
	nr = req->data.nr;
	name = sysfilter_syscall_name(nr);
	if (!name) {
		snprintf(unknown, sizeof(unknown), "syscall_%ld", nr);
		name = unknown;
	}
	memset(resp, 0, w->resp_size);
	resp->id = req->id;
	if (is_fatal(name, nr)) {
		tripwires_denied(w->t, name);
		end_caller(w);
		return;
	}
	if (nr == SYS_connect) {
		note_destination(w, req->data.args[1], req->data.args[2], false);
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else if (nr == SYS_sendto) {
		note_message(w, req->data.args[4], req->data.args[5], req->data.args[1], req->data.args[2]);
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else if (nr == SYS_sendmsg || nr == SYS_sendmmsg) {
		if (nr == SYS_sendmsg)
			note_msghdr(w, req->data.args[1]);
		else
			note_mmsghdrs(w, req->data.args[1], req->data.args[2]);
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else if (nr == SYS_socket) {
		int family = (int)req->data.args[0];

		if (family == AF_INET || family == AF_INET6) {
			/* raw (or SCTP): counted, and the kernel decides (no CAP_NET_RAW) */
			tripwires_network(w->t, family == AF_INET ? "raw" : "raw6", false);
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		} else {
			if (family == AF_NETLINK || family == AF_PACKET)
				tripwires_network(w->t, family == AF_NETLINK ? "netlink" : "packet", false);
			else
				tripwires_denied(w->t, name);
			resp->error = -EPERM;
		}
	} else if ((pc = path_call(name))) {
		uint64_t flags = 0;

		/* open, openat and creat come only when they write; openat2's flags are in memory */
		if (nr == SYS_openat)
			flags = req->data.args[2];
#ifdef SYS_open
		else if (nr == SYS_open)
			flags = req->data.args[1];
#endif
		else if (nr == SYS_fchownat)
			flags = req->data.args[4];
		if (nr != SYS_openat2 || (peek(w, TW_WRITES, req->data.args[2], &flags, sizeof(flags)) &&
					  (flags & WRITE_FLAGS)))
			check_paths(w, pc, flags);
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else {
		if (!listed(sysfilter_quiet_names, name))
			tripwires_denied(w->t, name);
		resp->error = -EPERM;
	}
	/* ENOENT: the caller died meanwhile; nothing to answer */
	ioctl(w->fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

int tripwire_lingering(struct sandbox_ctx *ctx)
{
	int n = ctx->cg ? cgroup_count_procs(ctx->cg) : -1;

	return n < 0 ? -1 : (n > 0 ? n - 1 : 0);	/* init is one of them */
}

void tripwire_finish(struct sandbox_ctx *ctx, const struct tripwire_watch *w, const struct cgroup_stats *st)
{
	struct sandbox_result *res = ctx->res;
	struct tripwires *t = &res->tripwires;
	uint64_t refused = 0;

	if (w && w->program_killed && res->status == SB_SIGNALED && res->signal == SIGKILL) {
		res->status = SB_SECCOMP_VIOLATION;
		res->signal = SIGSYS;
	}
	if (res->status == SB_CPU_LIMIT)
		t->limit_hits |= TW_LIMIT_CPU;
	if (res->status == SB_MEMORY_LIMIT || st->oom_kills > 0)
		t->limit_hits |= TW_LIMIT_MEMORY;
	if (res->status == SB_OUTPUT_LIMIT)
		t->limit_hits |= TW_LIMIT_OUTPUT;
	if (res->status == SB_FILE_SIZE_LIMIT)
		t->limit_hits |= TW_LIMIT_FILE_SIZE;
	if (ctx->cg && cgroup_pids_refused(ctx->cg, &refused) == 0 && refused > 0)
		t->limit_hits |= TW_LIMIT_PIDS;
}
