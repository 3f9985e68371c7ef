/* sandbox-tripwire.h - the supervisor's side of tripwires: answer the seccomp listener, count what the program tried */
#ifndef SANDEVAL_SANDBOX_TRIPWIRE_H
#define SANDEVAL_SANDBOX_TRIPWIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/sandbox-internal.h"

struct seccomp_notif;
struct seccomp_notif_resp;

struct tripwire_watch {
	int fd;				/* the seccomp listener, or -1 */
	struct tripwires *t;		/* the counters (the result's) */
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size, resp_size;
	bool program_killed;		/* the program (pid 2) ended with SIGKILL for a fatal call */
};

/* Take the listener the program's process sent on SOCK (non-blocking: it
 * is there once the program was executed). Returns it, or -1. */
int tripwire_recv_listener(int sock);
/* Watch LISTENER (owned from now on; -1: counters of calls stay uncounted), counting into T. */
int tripwire_watch_init(struct tripwire_watch *w, int listener, struct tripwires *t, struct sd_error *err);
/* Answer one notification: count it, then answer as the plain filter would. */
void tripwire_watch_handle(struct tripwire_watch *w);
void tripwire_watch_release(struct tripwire_watch *w);

/* PATH (N bytes, absolute) with ".", ".." and repeated slashes taken out
 * lexically, into OUT of CAP bytes, NUL-terminated; false when it does not
 * fit. OUT may be PATH itself (the result is never longer than an absolute
 * PATH), and then fits whenever PATH[N] is within CAP. */
bool tripwire_path_normalise(const char *path, size_t n, char *out, size_t cap);
/* Whether a write to PATH (absolute, normalised) goes where a sandbox lets
 * writes go: /work, /tmp (and /dev/shm, a link to it), the harmless
 * character devices of /dev, and descriptors reopened through /dev/fd or
 * /proc/PID/fd. A refused write anywhere else counts as a write outside, on
 * both backends (gvisor-strace.c reads gVisor's). */
bool tripwire_path_writable(const char *path);
/* Whether PATH (absolute, normalised) is DIR or lies beneath it. */
bool tripwire_path_beneath(const char *path, const char *dir);

/* Processes of the run's cgroup but init, counted while init waits after
 * the program's end (lingering_processes); -1 when there is no cgroup. */
int tripwire_lingering(struct sandbox_ctx *ctx);
/* After supervise_finish, with the accounting it read (ST: sv.stats): the
 * limits that fired (status, OOM kills and the pids cgroup's refusals), and
 * the status of a program the watch ended with SIGKILL (W may be NULL) made
 * what the kernel's own kill would say. */
void tripwire_finish(struct sandbox_ctx *ctx, const struct tripwire_watch *w, const struct cgroup_stats *st);

#endif
