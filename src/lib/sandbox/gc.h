/* gc.h - the sweep that removes what killed runs left behind, from their records (runrec.h) */
#ifndef SANDEVAL_GC_H
#define SANDEVAL_GC_H

#include <stddef.h>

#include "base/error.h"

struct gc_stats {
	int runs;	/* dead runs swept */
	int cgroups;	/* cgroup directories removed */
	int failed;	/* what could not be removed */
	int dirs;	/* backends' run directories removed (gVisor's) */
};

/* Sweep what dead runs left: their cgroups (killing any process still in
 * them) and their records. Runs still alive are not touched. With a
 * CGROUP_ROOT, also remove sandeval-* cgroups of ours that no record names;
 * NULL skips that scan (it reads whole cgroup directories: done by
 * `sandeval gc`, not before every run). */
int gc_sweep(const char *state_dir, const char *cgroup_root, struct gc_stats *st, struct sd_error *err);

#endif
