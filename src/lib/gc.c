/* gc.c - run records that outlive a killed sandeval, and the sweep that removes their leftovers */
#define _GNU_SOURCE
#include "gc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "sandbox-gvisor.h"
#include "util.h"

#define CGROUP_PREFIX "sandeval-"
#define RUNSC_TAG "runsc\t"

int gc_state_dir(char *buf, size_t size, struct sd_error *err)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat sb;
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, size, "/run/sandeval");
	else if (xdg && *xdg == '/' && access(xdg, W_OK) == 0)
		n = snprintf(buf, size, "%s/sandeval", xdg);
	else
		n = snprintf(buf, size, "/tmp/sandeval-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= size)
		return sd_error_set(err, ENAMETOOLONG, "state directory name too long");
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return sd_error_errno(err, errno, "cannot create '%s'", buf);
	/* Records name cgroups to kill: a directory someone else made (e.g. in
	 * /tmp, before us) must not be trusted. */
	if (lstat(buf, &sb) < 0)
		return sd_error_errno(err, errno, "cannot stat '%s'", buf);
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 077))
		return sd_error_set(err, EPERM, "refusing state directory '%s': not a directory of uid %u with mode 0700",
				    buf, (unsigned)geteuid());
	return 0;
}

int gc_lock_take(const char *state_dir, const char *id, char **path, struct sd_error *err)
{
	cleanup_free char *tmp = xasprintf("%s/%s.tmp", state_dir, id);
	cleanup_free char *final = xasprintf("%s/%s.lock", state_dir, id);
	cleanup_close int fd = -1;

	if (!tmp || !final)
		return sd_error_errno(err, ENOMEM, "gc_lock_take");
	/* Lock under a name the sweep ignores, then publish it: the sweep never
	 * sees an unlocked record of a live run. */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return sd_error_errno(err, errno, "cannot create '%s'", tmp);
	if (flock(fd, LOCK_EX) < 0 || rename(tmp, final) < 0) {
		int e = errno;

		unlink(tmp);
		return sd_error_errno(err, e, "cannot lock '%s'", final);
	}
	*path = steal_pointer(&final);
	return steal_fd(&fd);
}

int gc_lock_note(int fd, const char *dir, struct sd_error *err)
{
	cleanup_free char *line = xasprintf("%s\n", dir);

	if (!line || write_all(fd, line, strlen(line)) < 0)
		return sd_error_errno(err, errno, "cannot record '%s'", dir);
	return 0;
}

int gc_lock_note_runsc(int fd, const char *dir, const char *runsc, const char *container, struct sd_error *err)
{
	cleanup_free char *line = xasprintf(RUNSC_TAG "%s\t%s\t%s\n", dir, runsc, container);

	if (strpbrk(dir, "\t\n") || strpbrk(runsc, "\t\n") || strpbrk(container, "\t\n/"))
		return sd_error_set(err, EINVAL, "cannot record '%s': tab or newline in a name", dir);
	if (!line || write_all(fd, line, strlen(line)) < 0)
		return sd_error_errno(err, errno, "cannot record '%s'", dir);
	return 0;
}

/* "runsc\tDIR\tRUNSC\tCONTAINER": only DIR = STATE_DIR/<32 hex>.gvisor is removed. */
static int sweep_runsc(const char *state_dir, char *line, struct gc_stats *st)
{
	char *dir = line + strlen(RUNSC_TAG), *runsc, *container, *base;
	size_t n = strlen(state_dir);
	struct sd_error e;

	runsc = strchr(dir, '\t');
	if (!runsc)
		return 0;
	*runsc++ = '\0';
	container = strchr(runsc, '\t');
	if (!container)
		return 0;
	*container++ = '\0';
	base = dir + n + 1;
	if (strncmp(dir, state_dir, n) != 0 || dir[n] != '/' || strlen(base) != 32 + 7 ||
	    strspn(base, "0123456789abcdef") != 32 || strcmp(base + 32, ".gvisor") != 0 || runsc[0] != '/')
		return 0;	/* not something a run of ours made: leave it */
	if (gvisor_remove_run(dir, runsc, container, false, &e) < 0) {
		st->failed++;
		return -1;
	}
	st->dirs++;
	return 0;
}

void gc_lock_drop(int fd, char *path)
{
	if (path)
		unlink(path);
	if (fd >= 0)
		close(fd);
	free(path);
}

static bool run_alive(const char *state_dir, const char *id)
{
	cleanup_free char *p = xasprintf("%s/%s.lock", state_dir, id);
	cleanup_close int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK;
	flock(fd, LOCK_UN);
	return false;
}

static int sweep_dir(const char *dir, struct gc_stats *st)
{
	struct stat sb;

	if (stat(dir, &sb) < 0)
		return 0;
	if (cgroup_sweep_dir(dir, NULL) == 0) {
		st->cgroups++;
		return 0;
	}
	st->failed++;
	return -1;
}

/* A record whose run died: remove the cgroups it lists, then the record. */
static void sweep_record(const char *state_dir, const char *path, struct gc_stats *st)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	cleanup_free char *text = NULL;
	char *save = NULL;
	int failed = 0;

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
		return;
	if (read_file(path, 1 << 16, &text, NULL, NULL) == 0)
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			failed |= strncmp(l, RUNSC_TAG, strlen(RUNSC_TAG)) == 0 ? sweep_runsc(state_dir, l, st) :
				   sweep_dir(l, st);
	if (failed)
		return;		/* keep the record: the next sweep tries again */
	unlink(path);
	st->runs++;
}

int gc_sweep(const char *state_dir, const char *cgroup_root, struct gc_stats *st, struct sd_error *err)
{
	DIR *d = opendir(state_dir);
	struct dirent *e;
	char **parents;

	memset(st, 0, sizeof(*st));
	if (!d)
		return sd_error_errno(err, errno, "cannot open '%s'", state_dir);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		cleanup_free char *p = xasprintf("%s/%s", state_dir, e->d_name);
		struct stat sb;

		if (!p)
			continue;
		if (len > 5 && strcmp(e->d_name + len - 5, ".lock") == 0) {
			sweep_record(state_dir, p, st);
		} else if (len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0 &&
			   stat(p, &sb) == 0 && sb.st_mtime < time(NULL) - 60) {
			/* A run killed between creating and publishing its record. */
			cleanup_close int fd = open(p, O_RDONLY | O_CLOEXEC);

			if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
				unlink(p);
		}
	}
	closedir(d);

	/* Cgroups no record names (records removed by hand, another state dir). */
	if (!cgroup_root)
		return 0;
	parents = cgroup_parent_dirs(cgroup_root, "/proc/self/cgroup");
	for (char **pp = parents; pp && *pp; pp++) {
		DIR *cd = opendir(*pp);

		if (!cd)
			continue;
		while ((e = readdir(cd))) {
			cleanup_free char *dir = NULL;
			struct stat sb;

			if (strncmp(e->d_name, CGROUP_PREFIX, strlen(CGROUP_PREFIX)) != 0 ||
			    strcmp(e->d_name, "sandeval-supervisor") == 0 ||
			    run_alive(state_dir, e->d_name + strlen(CGROUP_PREFIX)))
				continue;
			dir = xasprintf("%s/%s", *pp, e->d_name);
			/* Another user's runs keep their records elsewhere: not ours to judge. */
			if (dir && stat(dir, &sb) == 0 && sb.st_uid == geteuid())
				sweep_dir(dir, st);
		}
		closedir(cd);
	}
	cgroup_free_list(parents);
	return 0;
}
