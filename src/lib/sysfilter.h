/* sysfilter.h - the seccomp allowlist every sandboxed program runs under (libseccomp) */
#ifndef SANDEVAL_SYSFILTER_H
#define SANDEVAL_SYSFILTER_H

#include "error.h"

/* Load the filter into the calling thread (no_new_privs must be set). Calls
 * that only a sandbox escape needs (mount, ptrace, bpf, unshare, …) kill the
 * process with SIGSYS; anything else not on the allowlist fails with EPERM;
 * clone3 fails with ENOSYS so libc falls back to clone, whose flags are checked.
 * On success *n_allowed gets the number of allowed system calls. */
int sysfilter_load(int *n_allowed, struct sd_error *err);

#endif
