/* runrec.h - a run's record: a lock file held for the sandbox's lifetime, naming what gc must remove should it die
 *
 * Every sandbox takes one (sandbox.c) before it makes anything, and notes in
 * it each thing to remove -- a cgroup directory, or a line of its backend's
 * (tagged with the backend's record tag) -- before that thing exists. A run
 * that ends drops its record; `sandeval gc` (gc.c) sweeps the records whose
 * lock nobody holds any more.
 */
#ifndef SANDEVAL_RUNREC_H
#define SANDEVAL_RUNREC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* Where runs keep their records: /run/sandeval for root, else
 * $XDG_RUNTIME_DIR/sandeval or /tmp/sandeval-<uid>. Created if missing;
 * refused unless it is a directory of this uid with mode 0700. */
int runrec_state_dir(char *buf, size_t size, struct sd_error *err);

/* Take the record of run ID: STATE_DIR/ID.lock, held (flock) until
 * runrec_drop. Returns the fd and the path (malloc'd), or -1. */
int runrec_take(const char *state_dir, const char *id, char **path, struct sd_error *err);
/* Note a directory (a cgroup) to remove should the run die. */
int runrec_note(int fd, const char *dir, struct sd_error *err);
/* Note a backend's line "TAG\tFIELD\tFIELD...": the backend whose record
 * tag is TAG sweeps it (sandbox_backend_sweep). Fields hold no tab or newline. */
int runrec_note_tagged(int fd, const char *tag, const char *const *fields, size_t n, struct sd_error *err);
/* Note a scratch directory of the run's own (redteam's host directory):
 * gc removes it whole, but only a directory named sandeval-* directly under
 * /var/tmp or /tmp (RUNREC_SCRATCH_TAG lines naming anything else are kept). */
#define RUNREC_SCRATCH_TAG "scratch"
int runrec_note_scratch(int fd, const char *dir, struct sd_error *err);
/* True when DIR is a path runrec_note_scratch accepts. */
bool runrec_scratch_ok(const char *dir);
/* Drop the record of a run that cleaned up after itself (frees PATH). */
void runrec_drop(int fd, char *path);
/* True while run ID's record is held by a live run. */
bool runrec_alive(const char *state_dir, const char *id);

#endif
