/* gc.c - the sweep that removes what killed runs left behind, from their records (runrec.h) */
#define _GNU_SOURCE
#include "sandbox/gc.h"

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

#include "sandbox/cgroup.h"
#include "sandbox/runrec.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

#define CGROUP_PREFIX "sandeval-"

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

/* A scratch directory of a dead run ("scratch\tDIR", runrec_note_scratch):
 * removed whole when it is one runrec accepts. True when LINE was one. */
static bool sweep_scratch(const char *line, struct gc_stats *st, int *failed)
{
	size_t n = strlen(RUNREC_SCRATCH_TAG);
	const char *dir = line + n + 1;
	struct stat sb;

	if (strncmp(line, RUNREC_SCRATCH_TAG, n) != 0 || line[n] != '\t')
		return false;
	if (!runrec_scratch_ok(dir) || lstat(dir, &sb) < 0)
		return true;	/* never there, gone, or not ours to remove */
	if (!S_ISDIR(sb.st_mode) || remove_tree(dir, NULL) < 0) {
		st->failed++;
		*failed = -1;
	} else {
		st->dirs++;
	}
	return true;
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
	if (read_file(path, 1 << 16, &text, NULL, NULL) == 0) {
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			bool removed = false;
			int r;

			if (sweep_scratch(l, st, &failed))
				continue;
			r = sandbox_backend_sweep(state_dir, l, &removed, NULL);

			if (r == 0) {
				failed |= sweep_dir(l, st);	/* a cgroup directory */
			} else if (r < 0) {
				st->failed++;
				failed = -1;
			} else if (removed) {
				st->dirs++;
			}
		}
	}
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
			    runrec_alive(state_dir, e->d_name + strlen(CGROUP_PREFIX)))
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
