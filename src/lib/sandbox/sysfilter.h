/* sysfilter.h - the seccomp allowlist every sandboxed program runs under (built with libseccomp) */
#ifndef SANDEVAL_SYSFILTER_H
#define SANDEVAL_SYSFILTER_H

#include <stdbool.h>
#include <sys/socket.h>

#include "base/error.h"

/* The flags of the one sendmsg the notifying filter lets through unseen:
 * the child's handing over of its listener (before the program runs, and
 * before anyone reads the listener). MSG_CONFIRM means nothing to the unix
 * socket it goes on. A program that sends with exactly these flags is not
 * looked at (docs/sandbox.md#tripwires). */
#define SYSFILTER_HANDOVER_FLAGS (MSG_NOSIGNAL | MSG_DONTWAIT | MSG_CONFIRM)

/* A compiled filter, installed by each sandbox. */
struct sysfilter;

/* The filter compiled into sandeval at build time (by sysfilter_build, run by
 * tools/gen-sysfilter): no libseccomp work at run time. */
const struct sysfilter *sysfilter_prebuilt(void);
/* Its notifying variant (tripwires, sandbox-tripwire.c): the same calls
 * allowed, but whatever the plain filter refuses, and the calls of
 * sysfilter_path_calls, connect, sendto with an address, sendmsg and sendmmsg, go to the
 * supervisor through a listener (SECCOMP_RET_USER_NOTIF), which counts them
 * and answers as the plain filter would (EPERM; SIGSYS for the fatal calls;
 * the watched allowed calls continue). */
const struct sysfilter *sysfilter_prebuilt_notify(void);
/* The name of system call NR of this architecture, or NULL. */
const char *sysfilter_syscall_name(long nr);

/* The calls only an escape needs (the process dies), NULL-terminated. */
extern const char *const sysfilter_fatal_names[];
/* Refused calls benign runtimes probe (not counted), NULL-terminated. */
extern const char *const sysfilter_quiet_names[];
/* Allowed calls that change the file system by path, NULL-terminated. */
struct sysfilter_path_call {
	const char *name;
	signed char dirfd[2], path[2];	/* argument indexes; -1: none (dirfd: the working directory) */
};
extern const struct sysfilter_path_call sysfilter_path_calls[];

/* Build the filter. Calls that only a sandbox escape needs (mount, ptrace,
 * bpf, unshare, ...) kill the process with SIGSYS; anything else not on the
 * allowlist fails with EPERM; clone3 fails with ENOSYS so libc falls back to
 * clone, whose flags are checked. Returns NULL with *err on failure. */
struct sysfilter *sysfilter_build(bool notify, struct sd_error *err);
/* Free a filter from sysfilter_build (never the prebuilt one). */
void sysfilter_free(struct sysfilter *f);
/* Number of allowed system calls. */
int sysfilter_allowed(const struct sysfilter *f);
/* Install into the calling thread (no_new_privs must be set): one system
 * call, no allocation, so it is safe between fork and execve. */
int sysfilter_install(const struct sysfilter *f, struct sd_error *err);
/* Install the notifying variant and return its listener descriptor (the
 * supervisor's alone: the program must never hold it), or -1 with *err. */
int sysfilter_install_listener(const struct sysfilter *f, struct sd_error *err);

#endif
