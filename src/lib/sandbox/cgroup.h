/* cgroup.h - one sandbox's cgroup: limits, accounting and kill, on cgroup v1 or v2 */
#ifndef SANDEVAL_CGROUP_H
#define SANDEVAL_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct cgroup;

enum cgroup_ctl {
	CG_MEMORY,	/* memory limit (with swap), peak usage, OOM kill count */
	CG_PIDS,	/* process and thread count */
	CG_CPU,		/* CPU time accounting */
	CG_FREEZER,	/* freeze before kill (v1); v2 has cgroup.kill */
	CG_NCTL
};

struct cgroup_stats {
	bool has_cpu, has_peak, has_oom;
	uint64_t cpu_ns;
	uint64_t peak_bytes;
	uint64_t oom_kills;
};

/* The controllers a caller wants, as bits (1u << enum cgroup_ctl). */
#define CG_ALL ((1u << CG_NCTL) - 1)

/* Create the cgroup NAME beneath sandeval's own cgroup (as /proc/self/cgroup
 * names it), in the hierarchy mounted at FSROOT ("/sys/fs/cgroup"). Detects v2
 * (unified) or v1 (legacy/hybrid) at run time. WANT: on v1, the controllers
 * whose directory is made (one directory each: the native backend leaves out
 * the freezer, which its pid namespace makes useless); v2 makes one directory
 * whatever WANT says. SPARES > 0 (v1 only; ignored on v2): a directory is
 * first taken from the SPARES slots beside it where cgroup_release parked an
 * emptied one, and made only when none is there. Returns NULL and explains why
 * in *err when no controller could be used; callers then fall back to rlimits. */
struct cgroup *cgroup_create(const char *fsroot, const char *proc_cgroup,
			     const char *name, unsigned want, int spares, struct sd_error *err);
void cgroup_free(struct cgroup *cg);

/* "cgroup-v1" or "cgroup-v2" */
const char *cgroup_mechanism(const struct cgroup *cg);
bool cgroup_has(const struct cgroup *cg, enum cgroup_ctl ctl);
/* Why some controllers are missing (empty when all are there). */
const char *cgroup_note(const struct cgroup *cg);
/* The directories made for this cgroup, NULL-terminated (for gc records). */
const char *const *cgroup_dirs(const struct cgroup *cg);

/* Memory ceiling including swap. */
int cgroup_set_memory(struct cgroup *cg, uint64_t bytes, struct sd_error *err);
int cgroup_set_pids(struct cgroup *cg, long max, struct sd_error *err);
int cgroup_enter(struct cgroup *cg, pid_t pid, struct sd_error *err);
/* Open, for writing, the file of each directory through which a task moves
 * itself in (v1: tasks, v2: cgroup.procs), at most MAX. A single-threaded
 * child that writes "0" to them joins the cgroup; on v1 this skips the
 * threadgroup lock (an RCU grace period, ~10 ms). Returns how many. */
int cgroup_open_procs(struct cgroup *cg, int *fds, int max, struct sd_error *err);
int cgroup_stats(struct cgroup *cg, struct cgroup_stats *st);
/* The CPU time alone (one file, where cgroup_stats reads four on v1): 0, or
 * -1 without CPU accounting. The supervisor reads it at every wake-up. */
int cgroup_cpu_ns(struct cgroup *cg, uint64_t *ns);
/* Processes in the cgroup now (cgroup.procs), or -1 when it cannot be read. */
int cgroup_count_procs(struct cgroup *cg);
/* How many forks and clones the pids limit refused (pids.events "max");
 * -1 without a pids controller. */
int cgroup_pids_refused(struct cgroup *cg, uint64_t *n);
/* Kill every process in the cgroup (cgroup.kill on v2; freeze, kill, thaw on v1). */
int cgroup_kill(struct cgroup *cg, struct sd_error *err);
/* Kill and remove the directories, retrying while they drain. */
int cgroup_destroy(struct cgroup *cg, struct sd_error *err);

/* cgroup_destroy, except that with spares (cgroup_create's SPARES) a cgroup
 * found empty and as a new one would be once reset is parked for the next
 * run: no process (a run's pid namespace ended them all), no fork the pids
 * limit refused, no OOM kill. The memory peak restarts when a
 * spare is taken, from what it still has charged (at most CGROUP_SPARE_LEFT,
 * else it is removed), which cgroup_stats subtracts. Directories with no free
 * slot, and the whole cgroup when any check fails, are removed.
 * Returns 1 when it parked something, 0 when it removed everything, -1 when a
 * directory could not be removed. */
int cgroup_release(struct cgroup *cg, struct sd_error *err);
/* Parked cgroups' names: CGROUP_SPARE_PREFIX "<uid>-<slot>". */
#define CGROUP_SPARE_PREFIX "sandeval-spare-"
/* What a memory spare may still have charged when taken (cgroup-v1.c). */
#define CGROUP_SPARE_LEFT (1u << 20)
/* Whether some directory of CG was a spare. */
bool cgroup_reused(const struct cgroup *cg);
/* Kill whatever runs in a leftover cgroup directory and remove it (gc). */
int cgroup_sweep_dir(const char *dir, struct sd_error *err);
/* Directories under which this process creates run cgroups (for gc scans),
 * NULL-terminated, malloc'd; free with cgroup_free_list. */
char **cgroup_parent_dirs(const char *fsroot, const char *proc_cgroup);
void cgroup_free_list(char **list);

#endif
