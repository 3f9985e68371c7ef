/* sysfilter.h - the seccomp allowlist every sandboxed program runs under (built with libseccomp) */
#ifndef SANDEVAL_SYSFILTER_H
#define SANDEVAL_SYSFILTER_H

#include "base/error.h"

/* A compiled filter, installed by each sandbox. */
struct sysfilter;

/* The filter compiled into sandeval at build time (by sysfilter_build, run by
 * tools/gen-sysfilter): no libseccomp work at run time. */
const struct sysfilter *sysfilter_prebuilt(void);

/* Build the filter. Calls that only a sandbox escape needs (mount, ptrace,
 * bpf, unshare, ...) kill the process with SIGSYS; anything else not on the
 * allowlist fails with EPERM; clone3 fails with ENOSYS so libc falls back to
 * clone, whose flags are checked. Returns NULL with *err on failure. */
struct sysfilter *sysfilter_build(struct sd_error *err);
/* Free a filter from sysfilter_build (never the prebuilt one). */
void sysfilter_free(struct sysfilter *f);
/* Number of allowed system calls. */
int sysfilter_allowed(const struct sysfilter *f);
/* Install into the calling thread (no_new_privs must be set): one system
 * call, no allocation, so it is safe between fork and execve. */
int sysfilter_install(const struct sysfilter *f, struct sd_error *err);

#endif
