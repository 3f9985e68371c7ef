/* gc.h - run records that outlive a killed sandeval, and the sweep that removes their leftovers */
#ifndef SANDEVAL_GC_H
#define SANDEVAL_GC_H

#include <stddef.h>

#include "error.h"

/* Where runs keep their lock files: /run/sandeval for root, else
 * $XDG_RUNTIME_DIR/sandeval or /tmp/sandeval-<uid>. Created if missing. */
int gc_state_dir(char *buf, size_t size, struct sd_error *err);

/* Take the record of run ID: a lock file held (flock) for the run's lifetime.
 * Returns the fd and the path (malloc'd), or -1. */
int gc_lock_take(const char *state_dir, const char *id, char **path, struct sd_error *err);
/* Note a directory to remove should the run die (appends to the lock file). */
int gc_lock_note(int fd, const char *dir, struct sd_error *err);
/* Note a gVisor run's directory (bundle, runsc state), with the runsc binary
 * and container id that `runsc delete --force` needs should the run die. */
int gc_lock_note_runsc(int fd, const char *dir, const char *runsc, const char *container, struct sd_error *err);
/* Drop the record of a run that cleaned up after itself. */
void gc_lock_drop(int fd, char *path);

struct gc_stats {
	int runs;	/* dead runs swept */
	int cgroups;	/* cgroup directories removed */
	int failed;	/* what could not be removed */
	int dirs;	/* gVisor run directories removed */
};

/* Sweep what dead runs left: their cgroups (killing any process still in
 * them) and their records. Runs still alive are not touched. With a
 * CGROUP_ROOT, also remove sandeval-* cgroups of ours that no record names;
 * NULL skips that scan (it reads whole cgroup directories: done by
 * `sandeval gc`, not before every run). */
int gc_sweep(const char *state_dir, const char *cgroup_root, struct gc_stats *st, struct sd_error *err);

#endif
