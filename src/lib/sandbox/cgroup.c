/* cgroup.c - detect the cgroup version at run time and dispatch to cgroup-v1.c or cgroup-v2.c */
#define _GNU_SOURCE
#include "sandbox/cgroup-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

bool cgroup_file_exists(const char *dir, const char *file)
{
	cleanup_free char *p = xasprintf("%s/%s", dir, file);

	return p && access(p, F_OK) == 0;
}

static const struct cgroup_ops *detect(const char *fsroot)
{
	/* The root of a unified hierarchy has cgroup.controllers; a hybrid or
	 * legacy layout is a tmpfs of per-controller v1 mounts. */
	if (cgroup_file_exists(fsroot, "cgroup.controllers"))
		return &cgroup_v2_ops;
	return &cgroup_v1_ops;
}

char *cgroup_own_path(const char *proc_cgroup, const char *controller)
{
	cleanup_free char *text = NULL;
	char *save = NULL;

	if (read_file(proc_cgroup, 1 << 16, &text, NULL, NULL) < 0)
		return NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctls = strchr(line, ':'), *path;

		if (!ctls)
			continue;
		ctls++;
		path = strchr(ctls, ':');
		if (!path)
			continue;
		*path++ = '\0';
		if (*controller == '\0') {
			if (*ctls == '\0')
				return strdup(path);
			continue;
		}
		for (char *s2 = NULL, *c = strtok_r(ctls, ",", &s2); c; c = strtok_r(NULL, ",", &s2))
			if (strcmp(c, controller) == 0)
				return strdup(path);
	}
	return NULL;
}

int cgroup_write(const char *dir, const char *file, const char *text, struct sd_error *err)
{
	cleanup_free char *p = xasprintf("%s/%s", dir, file);

	if (!p)
		return sd_error_errno(err, ENOMEM, "cgroup_write");
	return write_file(p, text, err);
}

int cgroup_read_u64(const char *dir, const char *file, uint64_t *out)
{
	cleanup_free char *p = xasprintf("%s/%s", dir, file);

	return p ? read_u64_file(p, out, NULL) : -1;
}

int cgroup_read_key(const char *dir, const char *file, const char *key, uint64_t *out)
{
	cleanup_free char *p = xasprintf("%s/%s", dir, file);
	cleanup_free char *text = NULL;

	if (!p || read_file(p, 1 << 16, &text, NULL, NULL) < 0)
		return -1;
	return cgroup_parse_key(text, key, out);
}

int cgroup_read_cpu_file(struct cgroup *cg, const char *dir, const char *file, char *buf, size_t size)
{
	ssize_t n;

	if (cg->cpu_fd < 0) {
		cleanup_free char *p = xasprintf("%s/%s", dir, file);

		cg->cpu_fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
		if (cg->cpu_fd < 0)
			return -1;
	}
	/* at offset 0 cgroupfs (a seq_file) shows the value anew */
	n = pread(cg->cpu_fd, buf, size - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int cgroup_parse_key(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
			*out = strtoull(line + klen + 1, NULL, 10);
			return 0;
		}
	}
	return -1;
}

bool cgroup_dir_empty(const char *dir)
{
	cleanup_free char *p = xasprintf("%s/cgroup.procs", dir);
	cleanup_close int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	char c;

	return fd < 0 || read(fd, &c, 1) <= 0;
}

int cgroup_kill_procs(const char *dir)
{
	cleanup_free char *p = xasprintf("%s/cgroup.procs", dir);
	cleanup_free char *text = NULL;
	int n = 0;

	if (!p || read_file(p, 1 << 20, &text, NULL, NULL) < 0)
		return 0;
	for (char *s = text, *end; *s; s = end) {
		long pid = strtol(s, &end, 10);

		if (end == s)
			break;
		if (pid > 0) {
			kill((pid_t)pid, SIGKILL);
			n++;
		}
		while (*end == '\n')
			end++;
	}
	return n;
}

void cgroup_note_add(struct cgroup *cg, const char *fmt, ...)
{
	size_t len = strlen(cg->note);
	va_list ap;

	if (len && len < sizeof(cg->note) - 2) {
		memcpy(cg->note + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(cg->note + len, sizeof(cg->note) - len, fmt, ap);
	va_end(ap);
}

/* cg->list: the distinct directories of dir[]. */
static void set_list(struct cgroup *cg)
{
	size_t n = 0;

	for (int i = 0; i < CG_NCTL; i++) {
		bool seen = false;

		if (!cg->dir[i])
			continue;
		for (size_t j = 0; j < n; j++)
			seen |= strcmp(cg->list[j], cg->dir[i]) == 0;
		if (!seen)
			cg->list[n++] = cg->dir[i];
	}
	cg->list[n] = NULL;
}

struct cgroup *cgroup_create(const char *fsroot, const char *proc_cgroup,
			     const char *name, unsigned want, int spares, struct sd_error *err)
{
	struct cgroup *cg = calloc(1, sizeof(*cg));

	if (!cg) {
		sd_error_errno(err, ENOMEM, "cgroup_create");
		return NULL;
	}
	cg->ops = detect(fsroot);
	cg->want = want;
	cg->cpu_fd = -1;
	cg->spares = cg->ops->park && spares > 0 ? spares : 0;
	if (cg->ops->create(cg, fsroot, proc_cgroup, name, err) < 0) {
		cgroup_destroy(cg, NULL);
		cgroup_free(cg);
		return NULL;
	}
	set_list(cg);
	return cg;
}

void cgroup_free(struct cgroup *cg)
{
	if (!cg)
		return;
	if (cg->cpu_fd >= 0)
		close(cg->cpu_fd);
	for (int i = 0; i < CG_NCTL; i++)
		free(cg->dir[i]);
	free(cg);
}

const char *cgroup_mechanism(const struct cgroup *cg)
{
	return cg->ops->name;
}

bool cgroup_has(const struct cgroup *cg, enum cgroup_ctl ctl)
{
	return cg && cg->has[ctl];
}

const char *cgroup_note(const struct cgroup *cg)
{
	return cg->note;
}

const char *const *cgroup_dirs(const struct cgroup *cg)
{
	return cg->list;
}

int cgroup_set_memory(struct cgroup *cg, uint64_t bytes, struct sd_error *err)
{
	return cg->ops->set_memory(cg, bytes, err);
}

int cgroup_set_pids(struct cgroup *cg, long max, struct sd_error *err)
{
	return cg->ops->set_pids(cg, max, err);
}

int cgroup_enter(struct cgroup *cg, pid_t pid, struct sd_error *err)
{
	return cg->ops->enter(cg, pid, err);
}

int cgroup_open_procs(struct cgroup *cg, int *fds, int max, struct sd_error *err)
{
	int n = 0;

	for (const char *const *d = cg->list; *d; d++) {
		cleanup_free char *p = xasprintf("%s/%s", *d, cg->ops->self_file);

		if (n == max)
			break;
		fds[n] = p ? open(p, O_WRONLY | O_CLOEXEC) : -1;
		if (fds[n] < 0) {
			int e = errno;

			while (n > 0)
				close(fds[--n]);
			return sd_error_errno(err, e, "cannot open '%s'", p ? p : *d);
		}
		n++;
	}
	return n;
}

int cgroup_stats(struct cgroup *cg, struct cgroup_stats *st)
{
	memset(st, 0, sizeof(*st));
	return cg->ops->stats(cg, st);
}

int cgroup_cpu_ns(struct cgroup *cg, uint64_t *ns)
{
	return cg->ops->cpu_ns(cg, ns);
}

int cgroup_count_procs(struct cgroup *cg)
{
	cleanup_free char *p = cg->list[0] ? xasprintf("%s/cgroup.procs", cg->list[0]) : NULL;
	cleanup_free char *text = NULL;
	int n = 0;

	if (!p || read_file(p, 1 << 20, &text, NULL, NULL) < 0)
		return -1;
	for (const char *s = text; *s; s++)
		n += *s == '\n';
	return n;
}

int cgroup_pids_refused(struct cgroup *cg, uint64_t *n)
{
	if (!cg->has[CG_PIDS])
		return -1;
	return cgroup_read_key(cg->dir[CG_PIDS], "pids.events", "max", n);
}

int cgroup_kill(struct cgroup *cg, struct sd_error *err)
{
	return cg->ops->kill(cg, err);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* rmdir, retrying while the last tasks drain (up to about 10 s: under load the
 * killed tasks of a dead run can take seconds to be reaped). */
static int rmdir_retry(const char *dir, struct sd_error *err)
{
	for (int i = 0; i < 2000; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		cgroup_kill_procs(dir);
		sleep_ms(5);
	}
	return sd_error_errno(err, errno, "cannot remove cgroup '%s'", dir);
}

int cgroup_destroy(struct cgroup *cg, struct sd_error *err)
{
	int ret = 0;

	if (!cg)
		return 0;
	if (cg->ops)
		cg->ops->kill(cg, NULL);
	/* Children before parents is not needed: each dir is a leaf. */
	for (int i = 0; i < CG_NCTL; i++) {
		bool dup = false;

		if (!cg->dir[i])
			continue;
		for (int j = 0; j < i; j++)
			dup |= cg->dir[j] && strcmp(cg->dir[j], cg->dir[i]) == 0;
		if (!dup && rmdir_retry(cg->dir[i], err) < 0)
			ret = -1;
	}
	return ret;
}

int cgroup_release(struct cgroup *cg, struct sd_error *err)
{
	int parked;

	if (!cg)
		return 0;
	if (!cg->spares)
		return cgroup_destroy(cg, err);
	parked = cg->ops->park(cg);
	set_list(cg);
	if (cgroup_destroy(cg, err) < 0)
		return -1;
	return parked > 0;
}

bool cgroup_reused(const struct cgroup *cg)
{
	for (int i = 0; cg && i < CG_NCTL; i++)
		if (cg->reused[i])
			return true;
	return false;
}

int cgroup_sweep_dir(const char *dir, struct sd_error *err)
{
	if (cgroup_file_exists(dir, "cgroup.kill")) {
		cgroup_write(dir, "cgroup.kill", "1", NULL);
	} else if (cgroup_file_exists(dir, "freezer.state")) {
		cgroup_write(dir, "freezer.state", "FROZEN", NULL);
		cgroup_kill_procs(dir);
		cgroup_write(dir, "freezer.state", "THAWED", NULL);
	}
	cgroup_kill_procs(dir);
	return rmdir_retry(dir, err);
}

char **cgroup_parent_dirs(const char *fsroot, const char *proc_cgroup)
{
	return detect(fsroot)->parent_dirs(fsroot, proc_cgroup);
}

void cgroup_free_list(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}
