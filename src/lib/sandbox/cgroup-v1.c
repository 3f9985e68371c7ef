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
#include <unistd.h>

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

/* Spares: an emptied cgroup kept, renamed, for the next run, instead of
 * removed and made anew. On v1 each run needs a directory in three
 * hierarchies; a memory cgroup's mkdir and rmdir (its per-CPU statistics, the
 * offlining an RCU grace period later) are most of what a cold run spends on
 * cgroups. A rename in the same parent is atomic and cgroupfs never replaces
 * an existing directory (EEXIST), so a slot name is a lock: whoever renames a
 * spare away owns it, and parking into a taken slot fails. The slots carry
 * the owner's uid: another user's spare has files this one cannot write. */
static char *spare_path(const char *parent, int slot)
{
	return xasprintf("%s/" CGROUP_SPARE_PREFIX "%u-%d", parent, (unsigned)geteuid(), slot);
}

/* Take a spare from PARENT's slots as DIR, starting at *HINT (the slot the
 * previous controller's spare came from: runs park in the same slot of each
 * hierarchy when they can). True when one was taken. */
static bool claim_spare(struct cgroup *cg, const char *parent, const char *dir, int *hint)
{
	for (int k = 0; k < cg->spares; k++) {
		int slot = (*hint + k) % cg->spares;
		cleanup_free char *p = spare_path(parent, slot);

		if (!p)
			return false;
		if (rename(p, dir) == 0) {
			*hint = slot;
			return true;
		}
		if (errno != ENOENT)
			return false;	/* DIR exists, or the parent is not ours */
	}
	return false;
}

/* A memory spare still holds charges of the runs before: kernel objects in
 * use elsewhere (dentries, inodes), page tables and stacks the kernel frees an
 * RCU grace period later, and page cache of files first read there (reclaimed
 * under the limit like any). memory.force_empty would reclaim what it can, but
 * costs ~1 ms (it drains every CPU's page lists): more than a new cgroup.
 * Instead the peak restarts from what is charged now, which becomes the
 * baseline cgroup_stats subtracts; a spare holding more than
 * CGROUP_SPARE_LEFT is removed, and a new directory made. False then. */
static bool memory_baseline(struct cgroup *cg, const char *dir)
{
	if (cgroup_write(dir, "memory.max_usage_in_bytes", "0", NULL) == 0 &&
	    (!cgroup_file_exists(dir, "memory.memsw.max_usage_in_bytes") ||
	     cgroup_write(dir, "memory.memsw.max_usage_in_bytes", "0", NULL) == 0) &&
	    cgroup_read_u64(dir, "memory.usage_in_bytes", &cg->mem_base) == 0 &&
	    cg->mem_base <= CGROUP_SPARE_LEFT)
		return true;
	cg->mem_base = 0;
	rmdir(dir);
	return false;
}

static int v1_create(struct cgroup *cg, const char *fsroot, const char *proc_cgroup,
		     const char *name, struct sd_error *err)
{
	int made = 0, failed = 0, hint = 0;

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
		if (cg->spares > 0 && claim_spare(cg, parent, dir, &hint))
			cg->reused[i] = i != CG_MEMORY || memory_baseline(cg, dir);
		if (!cg->reused[i] && mkdir(dir, 0755) < 0) {
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
		st->peak_bytes -= st->peak_bytes < cg->mem_base ? st->peak_bytes : cg->mem_base;
		if (cgroup_read_key(cg->dir[CG_MEMORY], "memory.oom_control", "oom_kill", &st->oom_kills) == 0)
			st->has_oom = true;
	}
	return 0;
}

static int v1_cpu_ns(struct cgroup *cg, uint64_t *ns)
{
	char buf[32], *end;

	if (!cg->dir[CG_CPU] || cgroup_read_cpu_file(cg, cg->dir[CG_CPU], "cpuacct.usage", buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*ns = strtoull(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
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

/* May the emptied cgroup serve another run? Nothing may run in it, and the
 * counters that cannot be reset must be zero: a run that hit its pids limit or
 * was OOM-killed leaves its cgroup to rmdir. The memory peak restarts when the
 * spare is taken (memory_baseline); CPU time is always counted from what the
 * cgroup showed at the program's start (sandbox-supervise.c). False (keep
 * nothing) on any doubt. */
static bool v1_clean(struct cgroup *cg)
{
	const char *mem = cg->dir[CG_MEMORY], *any = cg->list[0];
	uint64_t v;

	if (!any || !cgroup_dir_empty(any))
		return false;
	if (cg->dir[CG_PIDS] && (cgroup_read_key(cg->dir[CG_PIDS], "pids.events", "max", &v) < 0 || v))
		return false;
	if (cg->dir[CG_FREEZER])
		return false;	/* gVisor's: runsc's own state, never parked */
	return !mem || (cgroup_read_key(mem, "memory.oom_control", "oom_kill", &v) == 0 && v == 0);
}

static int v1_park(struct cgroup *cg)
{
	int parked = 0, hint = 0;

	if (!v1_clean(cg))
		return 0;
	for (int i = 0; i < CG_NCTL; i++) {
		cleanup_free char *parent = NULL;
		char *slash;

		if (!cg->dir[i])
			continue;
		parent = strdup(cg->dir[i]);
		slash = parent ? strrchr(parent, '/') : NULL;
		if (!slash)
			continue;
		*slash = '\0';
		for (int k = 0; k < cg->spares; k++) {
			int slot = (hint + k) % cg->spares;
			cleanup_free char *p = spare_path(parent, slot);

			if (p && rename(cg->dir[i], p) == 0) {
				free(cg->dir[i]);
				cg->dir[i] = NULL;
				hint = slot;
				parked++;
				break;
			}
		}
	}
	return parked;
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
	.park = v1_park,
	.parent_dirs = v1_parent_dirs,
};
