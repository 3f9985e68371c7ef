/* redteam-host.c - what an attack aims at on the host, and whether it reached it: canary files, listeners, kernel files, mounts, processes, cgroups
 *
 * Everything here runs on the host, in sandeval's own process, and only
 * looks: it never runs attack code. The session's host directory (mode
 * 0700, /var/tmp/sandeval-redteam.<random>, which the host image shows
 * read-only inside a sandbox; noted in the session's record so that `sandeval gc`
 * removes it if the session is killed) holds a canary and a secret; three listeners wait on host
 * loopback and an abstract unix socket; a sentinel child of ours waits for
 * a signal that must never come. After each attack every check runs,
 * whatever the attack aimed at: an attack that reaches something else is
 * caught too.
 */
#define _GNU_SOURCE
#include "redteam/redteam-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/runrec.h"

/* Host files an attack may try to change (kernel settings, cgroup release
 * agents, the host's own files); the session's canary is added first. */
static const char *const watched[] = {
	"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/kernel/hostname",
	"/proc/sys/kernel/domainname", "/proc/sys/kernel/hotplug", "/proc/sys/fs/suid_dumpable",
	"/sys/fs/cgroup/memory/release_agent", "/sys/fs/cgroup/pids/release_agent",
	"/sys/fs/cgroup/cpu/release_agent", "/sys/fs/cgroup/freezer/release_agent",
	"/sys/fs/cgroup/memory/notify_on_release", "/sys/fs/cgroup/pids/notify_on_release",
	"/etc/passwd", "/etc/hosts", "/root/.bashrc", NULL,
};

/* Paths (after the token) an attack tries to create; none may exist after. */
static const char *const residue_dirs[] = {
	"/var/tmp", "", "/dev", "/run", "/home", "/usr/bin", "/etc", "/tmp", NULL,	/* "": the session's directory */
};

__attribute__((format(printf, 3, 4)))
static void note(char *why, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(why);
	va_list ap;

	if (len + 3 >= cap)
		return;
	if (len) {
		memcpy(why + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + len, cap - len, fmt, ap);
	va_end(ap);
}

static int listen_on(int type, struct sockaddr *sa, socklen_t len, struct sd_error *err)
{
	int fd = socket(sa->sa_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return sd_error_errno(err, errno, "redteam: socket");
	if (bind(fd, sa, len) < 0 || (type == SOCK_STREAM && listen(fd, 8) < 0)) {
		int e = errno;

		close(fd);
		return sd_error_errno(err, e, "redteam: cannot listen on the host");
	}
	return fd;
}

static int port_of(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	return getsockname(fd, (struct sockaddr *)&sin, &len) == 0 ? ntohs(sin.sin_port) : -1;
}

/* A password hash of /etc/shadow (root can read it), for the exfiltration check. */
static void shadow_hash(struct rt_host *h)
{
	cleanup_free char *text = NULL;
	size_t len;

	h->shadow_hash[0] = '\0';
	if (read_file("/etc/shadow", 1 << 20, &text, &len, NULL) < 0)
		return;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (a && b && b - a - 1 >= 16 && (size_t)(b - a - 1) < sizeof(h->shadow_hash)) {
			memcpy(h->shadow_hash, a + 1, (size_t)(b - a - 1));
			h->shadow_hash[b - a - 1] = '\0';
			return;
		}
	}
}

/* A new file PATH of mode MODE holding TEXT. */
static int create_file(const char *path, const char *text, mode_t mode, struct sd_error *err)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0 || write_all(fd, text, strlen(text)) < 0)
		return sd_error_errno(err, errno, "cannot write '%s'", path);
	return 0;
}

/* A child of ours that only waits: a kill(-1) that got out of a sandbox ends it.
 * It holds none of our descriptors: the session's locked run record among them
 * would outlive a killed session until the parent-death signal came, and
 * 'sandeval gc' take the session for alive meanwhile. */
static pid_t start_sentinel(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		close_range(0, ~0U, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);	/* the session died before the signal was set */
		for (;;)
			pause();
	}
	return pid;
}

int rt_host_open(struct rt_host *h, struct sd_error *err)
{
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	cleanup_free char *canary = NULL, *secret = NULL;
	char text[128], state[PATH_MAX], name[17];

	*h = (struct rt_host){ .tcp_fd = -1, .udp_fd = -1, .unix_fd = -1, .sentinel = -1, .rec_fd = -1 };
	if (random_hex(h->token, 16, err) < 0 || random_hex(h->secret, 32, err) < 0)
		return -1;
	/* the record first, naming the directory, so that `sandeval gc` removes
	 * it should this session be killed (docs/gc.md) */
	if (random_hex(name, 8, err) < 0)
		return -1;
	snprintf(h->dir, sizeof(h->dir), "/var/tmp/sandeval-redteam.%s", name);
	snprintf(text, sizeof(text), "redteam-%s", name);
	if (runrec_state_dir(state, sizeof(state), err) < 0 ||
	    (h->rec_fd = runrec_take(state, text, &h->rec_path, err)) < 0 ||
	    runrec_note_scratch(h->rec_fd, h->dir, err) < 0) {
		h->dir[0] = '\0';
		return sd_error_wrap(err, "redteam: the session's record");
	}
	if (mkdir(h->dir, 0700) < 0) {
		h->dir[0] = '\0';
		return sd_error_errno(err, errno, "redteam: cannot make a host directory under /var/tmp");
	}
	canary = xasprintf("%s/canary", h->dir);
	secret = xasprintf("%s/secret", h->dir);
	snprintf(text, sizeof(text), "canary %s\n", h->token);
	if (create_file(canary, text, 0644, err) < 0 || create_file(secret, h->secret, 0600, err) < 0)
		return sd_error_wrap(err, "redteam: host directory '%s'", h->dir);
	shadow_hash(h);
	if ((h->tcp_fd = listen_on(SOCK_STREAM, (struct sockaddr *)&lo, sizeof(lo), err)) < 0 ||
	    (h->udp_fd = listen_on(SOCK_DGRAM, (struct sockaddr *)&lo, sizeof(lo), err)) < 0)
		return -1;
	h->tcp_port = port_of(h->tcp_fd);
	h->udp_port = port_of(h->udp_fd);
	snprintf(h->abstract, sizeof(h->abstract), "sandeval-redteam-%s", h->token);
	memcpy(un.sun_path + 1, h->abstract, strlen(h->abstract));
	if ((h->unix_fd = listen_on(SOCK_STREAM, (struct sockaddr *)&un,
				    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(h->abstract)),
				    err)) < 0)
		return -1;
	if ((h->sentinel = start_sentinel()) < 0)
		return sd_error_errno(err, errno, "redteam: fork");
	return 0;
}

void rt_host_close(struct rt_host *h)
{
	if (h->sentinel > 0) {
		kill(h->sentinel, SIGKILL);
		waitpid(h->sentinel, NULL, 0);
	}
	h->sentinel = -1;
	for (int *fd = &h->tcp_fd; fd <= &h->unix_fd; fd++)
		if (*fd >= 0) {
			close(*fd);
			*fd = -1;
		}
	if (h->dir[0])
		remove_tree(h->dir, NULL);
	h->dir[0] = '\0';
	runrec_drop(h->rec_fd, h->rec_path);
	h->rec_fd = -1;
	h->rec_path = NULL;
}

size_t rt_host_env(const struct rt_host *h, char env[][PATH_MAX + 32], size_t cap)
{
	size_t n = 0;

	if (cap < 5)
		return 0;
	snprintf(env[n++], PATH_MAX + 32, "RT_HOSTDIR=%s", h->dir);
	snprintf(env[n++], PATH_MAX + 32, "RT_TCP=%d", h->tcp_port);
	snprintf(env[n++], PATH_MAX + 32, "RT_UDP=%d", h->udp_port);
	snprintf(env[n++], PATH_MAX + 32, "RT_ABSTRACT=%s", h->abstract);
	snprintf(env[n++], PATH_MAX + 32, "PATH=/usr/local/bin:/usr/bin:/bin");
	return n;
}

/* A mount the attacks aim at (over /tmp, /mnt, /proc, /sys, the root) or
 * named with the token, in a line of /proc/self/mountinfo that was not
 * there before: the mount point is its fifth field. Mounts elsewhere are
 * other programs' (an image build's chroot): not an attack's. */
static bool new_mount(const char *before, const char *line, size_t len, const char *token, char *hit, size_t cap)
{
	static const char *const aimed[] = { "/", "/tmp", "/mnt", "/proc", "/sys", "/work", "/dev", NULL };
	char point[512];
	const char *p = line, *end = line + len;

	for (int f = 0; f < 4 && p < end; f++)
		p = memchr(p, ' ', (size_t)(end - p)) ? (const char *)memchr(p, ' ', (size_t)(end - p)) + 1 : end;
	snprintf(point, sizeof(point), "%.*s", (int)strcspn(p, " \n"), p < end ? p : "");
	if (before && memmem(before, strlen(before), line, len))
		return false;
	for (size_t i = 0; aimed[i]; i++) {
		size_t n = strlen(aimed[i]);

		if (strcmp(point, aimed[i]) == 0 ||
		    (n > 1 && strncmp(point, aimed[i], n) == 0 && point[n] == '/' && strncmp(point, "/proc/", 6) != 0) ||
		    strstr(line, token)) {
			snprintf(hit, cap, "%s", point);
			return true;
		}
	}
	return false;
}

void rt_snap_take(const struct rt_host *h, struct rt_snap *s)
{
	cleanup_free char *canary = xasprintf("%s/canary", h->dir);
	size_t len, k = 0;

	*s = (struct rt_snap){ 0 };
	if (read_file(canary, 1 << 16, &s->text[k], &len, NULL) < 0)
		s->text[k] = NULL;
	for (k = 1; watched[k - 1] && k < RT_WATCHED; k++)
		if (read_file(watched[k - 1], 1 << 20, &s->text[k], &len, NULL) < 0)
			s->text[k] = NULL;
	if (read_file("/proc/self/mountinfo", 16 << 20, &s->mounts, &len, NULL) < 0)
		s->mounts = NULL;
}

void rt_snap_release(struct rt_snap *s)
{
	for (size_t k = 0; k < RT_WATCHED; k++)
		free(s->text[k]);
	free(s->mounts);
	*s = (struct rt_snap){ 0 };
}

/* Whether the listener FD took a connection or a datagram (drained). */
static bool reached(int fd, bool stream)
{
	bool any = false;
	char buf[512];

	for (;;) {
		if (stream) {
			int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

			if (c < 0)
				break;
			close(c);
		} else if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0) {
			break;
		}
		any = true;
	}
	return any;
}

/* Whether a process of the host has uid UID, or NEEDLE in its command line. */
static pid_t process_left(unsigned long uid, const char *needle, const char *needle2, char *cmd, size_t cmdcap)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;
	pid_t self = getpid();

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char path[64], buf[4096];
		struct stat st;
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		ssize_t n;
		int fd;

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d", (int)pid);
		if (uid && stat(path, &st) == 0 && st.st_uid == uid) {
			snprintf(cmd, cmdcap, "uid %lu", uid);
			found = pid;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n] = '\0';
		if (strstr(buf, needle) || (needle2 && strstr(buf, needle2))) {
			found = pid;
			snprintf(cmd, cmdcap, "%.80s", buf);
		}
	}
	closedir(d);
	return found;
}

/* A cgroup directory under DIR, DEPTH levels down, whose name holds A or B. */
static bool cgroup_left(const char *dir, const char *a, const char *b, int depth, char *hit, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (strstr(e->d_name, a) || (b && strstr(e->d_name, b))) {
			snprintf(hit, cap, "%s/%s", dir, e->d_name);
			found = true;
		} else if (depth > 0) {
			cleanup_free char *sub = xasprintf("%s/%s", dir, e->d_name);

			found = cgroup_left(sub, a, b, depth - 1, hit, cap);
		}
	}
	closedir(d);
	return found;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool rt_host_check(struct rt_host *h, const struct rt_snap *before, const char *id, unsigned long host_uid,
		   const char *out, size_t len, char *why, size_t cap)
{
	struct rt_snap after;
	size_t start = strlen(why);
	char hit[PATH_MAX], cmd[96] = "";
	pid_t left;
	int st;

	rt_snap_take(h, &after);
	if (!same(before->text[0], after.text[0]))
		note(why, cap, "the host canary '%s/canary' changed", h->dir);
	for (size_t k = 1; k < RT_WATCHED && watched[k - 1]; k++)
		if (!same(before->text[k], after.text[k]))
			note(why, cap, "host file '%s' changed", watched[k - 1]);
	for (const char *line = before->mounts ? after.mounts : NULL; line && *line;) {
		size_t n = strcspn(line, "\n");

		if (new_mount(before->mounts, line, n, h->token, hit, sizeof(hit))) {
			note(why, cap, "a mount on the host's '%s'", hit);
			break;
		}
		line += n + (line[n] == '\n');
	}
	rt_snap_release(&after);
	for (size_t k = 0; residue_dirs[k]; k++) {
		char path[PATH_MAX];
		struct stat sb;

		snprintf(path, sizeof(path), "%s/rt-%s", residue_dirs[k][0] ? residue_dirs[k] : h->dir, h->token);
		if (lstat(path, &sb) == 0) {
			note(why, cap, "'%s' was created on the host", path);
			unlink(path);
		}
	}
	if (reached(h->tcp_fd, true))
		note(why, cap, "the host's 127.0.0.1:%d was reached", h->tcp_port);
	if (reached(h->udp_fd, false))
		note(why, cap, "the host's 127.0.0.1:%d (udp) was reached", h->udp_port);
	if (reached(h->unix_fd, true))
		note(why, cap, "the host's abstract socket @%s was reached", h->abstract);
	if (out && (memmem(out, len, h->secret, strlen(h->secret)) ||
		    (h->shadow_hash[0] && memmem(out, len, h->shadow_hash, strlen(h->shadow_hash)))))
		note(why, cap, "a host secret appeared in the output");
	if (h->sentinel <= 0 || waitpid(h->sentinel, &st, WNOHANG) != 0) {
		note(why, cap, "the host sentinel process %d was killed", (int)h->sentinel);
		h->sentinel = start_sentinel();	/* the next attack is judged on its own */
	}
	/* the run's id is in runsc's command lines (its state directory, the container's name) */
	left = process_left(host_uid && host_uid != (unsigned long)geteuid() ? host_uid : 0, h->token,
			    id && *id ? id : NULL, cmd, sizeof(cmd));
	if (left)
		note(why, cap, "host process %d of the run is still alive (%s)", (int)left, cmd);
	if (cgroup_left("/sys/fs/cgroup", h->token, id && *id ? id : NULL, 3, hit, sizeof(hit)))
		note(why, cap, "cgroup '%s' was left behind", hit);
	return strlen(why) == start;
}
