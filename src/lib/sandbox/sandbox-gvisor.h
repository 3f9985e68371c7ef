/* sandbox-gvisor.h - what the gvisor backend shares: finding runsc, choosing a platform, removing a run's leftovers (gc) */
#ifndef SANDEVAL_SANDBOX_GVISOR_H
#define SANDEVAL_SANDBOX_GVISOR_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/sandbox-internal.h"

/* The runsc binary on PATH (or in /usr/bin, /usr/sbin, /usr/local/...). 0 or -1. */
int gvisor_find_runsc(char *buf, size_t size);
/* "kvm" where /dev/kvm opens and a kvm run already succeeded (its mark is
 * in STATE_DIR), else "ptrace" (Debian's runsc has no systrap). */
const char *gvisor_best_platform(const char *state_dir);
/* Usage errors of a gvisor configuration: runsc missing, unknown platform, kvm without /dev/kvm. */
int gvisor_check(const struct sandbox_config *cfg, struct sd_error *err);
/* Remove a run's directory (<state dir>/<id>.gvisor): `runsc delete --force`
 * while runsc still knows the container (unless ALL_DEAD: its processes are
 * known to be gone, e.g. with its cgroups), then the tree. 0 or -1. */
int gvisor_remove_run(const char *dir, const char *runsc, const char *container, bool all_dead,
		      struct sd_error *err);

#endif
