/* cgroup-v1.c - legacy and hybrid hierarchies: one directory per controller */
#define _GNU_SOURCE
#include "sandbox/cgroup-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/util.h"

static const char *const v1_names[CG_NCTL] = {
	[CG_MEMORY] = "memory",
	[CG_PIDS] = "pids",
	[CG_CPU] = "cpuacct",
	[CG_FREEZER] = "freezer",
};

static char *v1_parent(const char *fsroot, const char *proc_cgroup, int ctl)
{
	cleanup_free char *own = cgroup_own_path(proc_cgroup, v1_names[ctl]);

	if (!own)
		return NULL;
	return xasprintf("%s/%s%s", fsroot, v1_names[ctl], strcmp(own, "/") == 0 ? "" : own);
}

static int v1_create(struct cgroup *cg, const char *fsroot, const char *proc_cgroup,
		     const char *name, struct sd_error *err)
{
	int made = 0, failed = 0;

	for (int i = 0; i < CG_NCTL; i++) {
		cleanup_free char *parent = NULL;
		char *dir;

		if (!(cg->want & (1u << i)))
			continue;
		parent = v1_parent(fsroot, proc_cgroup, i);
		if (!parent) {
			cgroup_note_add(cg, "no %s controller", v1_names[i]);
			continue;
		}
		dir = xasprintf("%s/%s", parent, name);
		if (!dir)
			return sd_error_errno(err, ENOMEM, "cgroup");
		if (mkdir(dir, 0755) < 0) {
			if (!failed++)
				cgroup_note_add(cg, "cannot create '%s': %s", dir, strerror(errno));
			free(dir);
			continue;
		}
		cg->dir[i] = dir;
		cg->has[i] = true;
		made++;
	}
	if (failed > 1)
		cgroup_note_add(cg, "and %d more controller(s)", failed - 1);
	if (!made)
		return sd_error_set(err, EPERM, "no usable cgroup v1 controller (%s)", cg->note);
	return 0;
}

static int v1_set_memory(struct cgroup *cg, uint64_t bytes, struct sd_error *err)
{
	const char *dir = cg->dir[CG_MEMORY];
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64, bytes);
	/* memsw = memory + swap; without swap accounting forbid swapping at all. */
	if (!cgroup_file_exists(dir, "memory.memsw.limit_in_bytes"))
		return cgroup_write(dir, "memory.limit_in_bytes", text, err) < 0 ? -1 :
		       cgroup_write(dir, "memory.swappiness", "0", err);
	/* The kernel keeps memory.limit <= memsw.limit at every write (EINVAL
	 * otherwise): a limit lowered (a fresh cgroup, every sandbox) moves
	 * memory first; one raised above memsw (a pre-started gVisor sandbox
	 * given a larger sample) is refused so, and moves memsw first. */
	if (cgroup_write(dir, "memory.limit_in_bytes", text, err) == 0)
		return cgroup_write(dir, "memory.memsw.limit_in_bytes", text, err);
	return cgroup_write(dir, "memory.memsw.limit_in_bytes", text, err) < 0 ? -1 :
	       cgroup_write(dir, "memory.limit_in_bytes", text, err);
}

static int v1_set_pids(struct cgroup *cg, long max, struct sd_error *err)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", max);
	return cgroup_write(cg->dir[CG_PIDS], "pids.max", text, err);
}

static int v1_enter(struct cgroup *cg, pid_t pid, struct sd_error *err)
{
	char text[32];

	snprintf(text, sizeof(text), "%d", (int)pid);
	for (int i = 0; i < CG_NCTL; i++)
		if (cg->dir[i] && cgroup_write(cg->dir[i], "cgroup.procs", text, err) < 0)
			return -1;
	return 0;
}

static int v1_stats(struct cgroup *cg, struct cgroup_stats *st)
{
	uint64_t v;

	if (cg->dir[CG_CPU] && cgroup_read_u64(cg->dir[CG_CPU], "cpuacct.usage", &st->cpu_ns) == 0)
		st->has_cpu = true;
	if (cg->dir[CG_MEMORY]) {
		if (cgroup_read_u64(cg->dir[CG_MEMORY], "memory.max_usage_in_bytes", &st->peak_bytes) == 0)
			st->has_peak = true;
		if (cgroup_read_u64(cg->dir[CG_MEMORY], "memory.memsw.max_usage_in_bytes", &v) == 0 &&
		    v > st->peak_bytes)
			st->peak_bytes = v;
		if (cgroup_read_key(cg->dir[CG_MEMORY], "memory.oom_control", "oom_kill", &st->oom_kills) == 0)
			st->has_oom = true;
	}
	return 0;
}

static int v1_cpu_ns(struct cgroup *cg, uint64_t *ns)
{
	return cg->dir[CG_CPU] ? cgroup_read_u64(cg->dir[CG_CPU], "cpuacct.usage", ns) : -1;
}

static int v1_kill(struct cgroup *cg, struct sd_error *err)
{
	const char *fz = cg->dir[CG_FREEZER];
	const char *any = NULL;

	for (int i = 0; i < CG_NCTL && !any; i++)
		any = cg->dir[i];
	if (!any || cgroup_dir_empty(any))
		return 0;	/* the usual case: init took everything with it */
	if (fz && cgroup_write(fz, "freezer.state", "FROZEN", err) == 0) {
		/* Frozen tasks cannot fork away from the kill; wait briefly for it. */
		for (int i = 0; i < 200; i++) {
			cleanup_free char *p = xasprintf("%s/freezer.state", fz);
			cleanup_free char *state = NULL;
			struct timespec ts = { 0, 1000000 };

			if (!p || read_file(p, 64, &state, NULL, NULL) < 0 || strncmp(state, "FROZEN", 6) == 0)
				break;
			nanosleep(&ts, NULL);
		}
		cgroup_kill_procs(fz);
		cgroup_write(fz, "freezer.state", "THAWED", NULL);
		return 0;
	}
	/* No freezer: kill until nothing is left (bounded). */
	for (int i = 0; i < 100 && cgroup_kill_procs(any) > 0; i++)
		;
	return 0;
}

static char **v1_parent_dirs(const char *fsroot, const char *proc_cgroup)
{
	char **list = calloc(CG_NCTL + 1, sizeof(char *));
	size_t n = 0;

	if (!list)
		return NULL;
	for (int i = 0; i < CG_NCTL; i++) {
		char *p = v1_parent(fsroot, proc_cgroup, i);

		if (p)
			list[n++] = p;
	}
	return list;
}

const struct cgroup_ops cgroup_v1_ops = {
	/* "tasks" moves the writing thread alone, without the threadgroup
	 * lock whose RCU grace period makes a cgroup.procs write take ~10 ms. */
	.self_file = "tasks",
	.name = "cgroup-v1",
	.create = v1_create,
	.set_memory = v1_set_memory,
	.set_pids = v1_set_pids,
	.enter = v1_enter,
	.stats = v1_stats,
	.cpu_ns = v1_cpu_ns,
	.kill = v1_kill,
	.parent_dirs = v1_parent_dirs,
};
