/* cgroup-v2.c - the unified hierarchy: one directory, controllers enabled from the parent */
#define _GNU_SOURCE
#include "sandbox/cgroup-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define SUPERVISOR_LEAF "sandeval-supervisor"

/* The directory under which run cgroups go: our own cgroup, or its parent when
 * an earlier call moved us into the supervisor leaf. */
static char *v2_parent(const char *fsroot, const char *proc_cgroup)
{
	cleanup_free char *own = cgroup_own_path(proc_cgroup, "");
	size_t len, leaf = strlen(SUPERVISOR_LEAF);

	if (!own)
		return NULL;
	len = strlen(own);
	if (len > leaf && strcmp(own + len - leaf, SUPERVISOR_LEAF) == 0 && own[len - leaf - 1] == '/')
		own[len - leaf - 1] = '\0';
	return xasprintf("%s%s", fsroot, strcmp(own, "/") == 0 ? "" : own);
}

static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* Enable memory and pids for the children of PARENT. A cgroup that holds
 * processes cannot (no internal processes rule): if we are its only process,
 * move into a leaf of our own and retry. */
static int enable_controllers(struct cgroup *cg, const char *parent, const char *want)
{
	cleanup_free char *procs_path = xasprintf("%s/cgroup.procs", parent);
	cleanup_free char *procs = NULL;
	cleanup_free char *leaf = NULL;
	char self[32];

	if (cgroup_write(parent, "cgroup.subtree_control", want, NULL) == 0)
		return 0;
	if (errno != EBUSY) {
		cgroup_note_add(cg, "cannot enable '%s' in '%s': %s", want, parent, strerror(errno));
		return -1;
	}
	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	if (!procs_path || read_file(procs_path, 1 << 16, &procs, NULL, NULL) < 0 || strcmp(procs, self) != 0) {
		cgroup_note_add(cg, "cgroup '%s' holds other processes; run sandeval in a delegated cgroup of its own (e.g. systemd-run --scope -p Delegate=yes)", parent);
		return -1;
	}
	leaf = xasprintf("%s/" SUPERVISOR_LEAF, parent);
	if (!leaf || (mkdir(leaf, 0755) < 0 && errno != EEXIST) ||
	    cgroup_write(leaf, "cgroup.procs", self, NULL) < 0 ||
	    cgroup_write(parent, "cgroup.subtree_control", want, NULL) < 0) {
		cgroup_note_add(cg, "cannot delegate controllers below '%s': %s", parent, strerror(errno));
		return -1;
	}
	return 0;
}

static int v2_create(struct cgroup *cg, const char *fsroot, const char *proc_cgroup,
		     const char *name, struct sd_error *err)
{
	cleanup_free char *parent = v2_parent(fsroot, proc_cgroup);
	cleanup_free char *avail = NULL;
	cleanup_free char *ctl_path = NULL;
	char want[64] = "";
	char *dir;

	if (!parent)
		return sd_error_set(err, ENOENT, "no cgroup v2 entry in '%s'", proc_cgroup);
	ctl_path = xasprintf("%s/cgroup.controllers", parent);
	if (!ctl_path || read_file(ctl_path, 4096, &avail, NULL, err) < 0)
		return -1;
	if (has_word(avail, "memory"))
		strcat(want, "+memory ");
	else
		cgroup_note_add(cg, "memory controller not delegated to '%s'", parent);
	if (has_word(avail, "pids"))
		strcat(want, "+pids");
	else
		cgroup_note_add(cg, "pids controller not delegated to '%s'", parent);
	if (*want && enable_controllers(cg, parent, want) < 0)
		*want = '\0';
	dir = xasprintf("%s/%s", parent, name);
	if (!dir)
		return sd_error_errno(err, ENOMEM, "cgroup");
	if (mkdir(dir, 0755) < 0) {
		int e = errno;

		free(dir);
		return sd_error_errno(err, e, "cannot create cgroup in '%s'", parent);
	}
	for (int i = 0; i < CG_NCTL; i++)
		cg->dir[i] = i == 0 ? dir : strdup(dir);
	cg->has[CG_CPU] = true;		/* cpu.stat usage is always accounted */
	cg->has[CG_FREEZER] = true;	/* cgroup.kill / cgroup.freeze are core files */
	cg->has[CG_MEMORY] = strstr(want, "memory") && cgroup_file_exists(dir, "memory.max");
	cg->has[CG_PIDS] = strstr(want, "pids") && cgroup_file_exists(dir, "pids.max");
	return 0;
}

static int v2_set_memory(struct cgroup *cg, uint64_t bytes, struct sd_error *err)
{
	const char *dir = cg->dir[CG_MEMORY];
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64, bytes);
	if (cgroup_write(dir, "memory.max", text, err) < 0)
		return -1;
	/* The ceiling includes swap: allow none beyond it. */
	if (cgroup_file_exists(dir, "memory.swap.max") &&
	    cgroup_write(dir, "memory.swap.max", "0", err) < 0)
		return -1;
	if (cgroup_file_exists(dir, "memory.oom.group"))
		cgroup_write(dir, "memory.oom.group", "1", NULL);
	return 0;
}

static int v2_set_pids(struct cgroup *cg, long max, struct sd_error *err)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", max);
	return cgroup_write(cg->dir[CG_PIDS], "pids.max", text, err);
}

static int v2_enter(struct cgroup *cg, pid_t pid, struct sd_error *err)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", (int)pid);
	return cgroup_write(cg->dir[0], "cgroup.procs", text, err);
}

static int v2_stats(struct cgroup *cg, struct cgroup_stats *st)
{
	const char *dir = cg->dir[0];
	uint64_t usec;

	if (cgroup_read_key(dir, "cpu.stat", "usage_usec", &usec) == 0) {
		st->cpu_ns = usec * 1000;
		st->has_cpu = true;
	}
	if (cg->has[CG_MEMORY]) {
		if (cgroup_read_u64(dir, "memory.peak", &st->peak_bytes) == 0)
			st->has_peak = true;
		if (cgroup_read_key(dir, "memory.events", "oom_kill", &st->oom_kills) == 0)
			st->has_oom = true;
	}
	return 0;
}

static int v2_cpu_ns(struct cgroup *cg, uint64_t *ns)
{
	uint64_t usec;
	char buf[1024];

	if (cgroup_read_cpu_file(cg, cg->dir[0], "cpu.stat", buf, sizeof(buf)) < 0 ||
	    cgroup_parse_key(buf, "usage_usec", &usec) < 0)
		return -1;
	*ns = usec * 1000;
	return 0;
}

static int v2_kill(struct cgroup *cg, struct sd_error *err)
{
	const char *dir = cg->dir[0];

	if (!dir || cgroup_dir_empty(dir))
		return 0;
	if (cgroup_file_exists(dir, "cgroup.kill"))
		return cgroup_write(dir, "cgroup.kill", "1", err);
	/* Before 5.14: freeze, kill, thaw. */
	cgroup_write(dir, "cgroup.freeze", "1", NULL);
	cgroup_kill_procs(dir);
	cgroup_write(dir, "cgroup.freeze", "0", NULL);
	return 0;
}

static char **v2_parent_dirs(const char *fsroot, const char *proc_cgroup)
{
	char **list = calloc(2, sizeof(char *));

	if (list)
		list[0] = v2_parent(fsroot, proc_cgroup);
	return list;
}

const struct cgroup_ops cgroup_v2_ops = {
	.self_file = "cgroup.procs",
	.name = "cgroup-v2",
	.create = v2_create,
	.set_memory = v2_set_memory,
	.set_pids = v2_set_pids,
	.enter = v2_enter,
	.stats = v2_stats,
	.cpu_ns = v2_cpu_ns,
	.kill = v2_kill,
	.parent_dirs = v2_parent_dirs,
};
