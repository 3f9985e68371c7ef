/* sandbox-supervise.h - what every backend does outside the sandbox: capped capture, stdin feed, clock and CPU polling, the verdict */
#ifndef SANDEVAL_SANDBOX_SUPERVISE_H
#define SANDEVAL_SANDBOX_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "sandbox/sandbox-internal.h"

struct capture {
	int fd;
	char *buf;
	size_t len, cap;
	bool truncated;
};

struct supervise {
	/* Set by the backend before supervise_loop; the descriptors become the loop's. */
	struct sandbox_ctx *ctx;
	int out_fd, err_fd;	/* the program's stdout and stderr, read ends */
	int in_w, in_src;	/* its stdin, write end (non-blocking), and the --stdin file; -1: none */
	int status_fd;		/* where the backend learns that the program ended */
	bool cg_cpu;		/* the cgroup accounts CPU time: poll it against the limit */
	/* Read what is ready on status_fd. Return 1 with *wstatus once the
	 * program's wait status came, 0 while more is to come, -1 at EOF without
	 * a status. The loop closes status_fd after 1 or -1. */
	int (*read_status)(struct supervise *sv, int *wstatus);
	/* Kill everything in the sandbox (at a limit); may be called twice. */
	void (*kill)(struct sandbox_ctx *ctx);
	void *data;		/* the backend's, for read_status */
	/* Optional: a descriptor polled with the others (the seccomp listener,
	 * -1: none) and what to do when it is ready; watch may set watch_fd to
	 * -1 to stop. The backend owns the descriptor. */
	int watch_fd;
	void (*watch)(struct supervise *sv, short revents);

	/* The program's start (monotonic ms): the backend may set it before
	 * supervise_loop when it knows when the exec happened (native: init's
	 * own clock, which sees it before the supervisor can); else (-1) the
	 * loop's start. Wall time and the wall-time deadline count from it. */
	int64_t t_exec;

	/* Filled by supervise_loop. */
	uint64_t cpu0_ns;	/* cgroup CPU time when the program started */
	int64_t t_end;		/* monotonic ms */
	enum sandbox_status fired;	/* the limit the supervisor enforced, or SB_OK */
	bool have_status;
	int wstatus;
	bool file_size_reached;	/* set by read_status: a file the program wrote reached --file-size */
	/* Without a cgroup: the CPU the backend saw in the sandbox's processes
	 * just before it killed them (supervise_tree_cpu_ms); -1: not seen.
	 * Killed processes are never reaped by the sandbox's init, so the
	 * rusage of init alone misses them. */
	int64_t cpu_seen_ms;
	/* Filled by supervise_account (or supervise_finish): the cgroup's
	 * accounting at the end, read once, for tripwire_finish too (zero
	 * without a cgroup). */
	struct cgroup_stats stats;
	bool accounted;
	struct capture out, err;
	char *in_buf;		/* read from in_src, not yet taken by the pipe (allocated at the first read) */
	size_t in_off, in_len;
};

/* Initialise the descriptors to -1 and the rest to zero. */
void supervise_init(struct supervise *sv, struct sandbox_ctx *ctx);
/* Poll the program's output, stdin and status against the wall-clock
 * deadline, the cgroup's CPU time and the output caps, killing the sandbox
 * at the first limit, until the status came and the output ended (or the
 * drain after a kill timed out). 0, or -1 when sandeval itself failed. */
int supervise_loop(struct supervise *sv, struct sd_error *err);
/* Read the cgroup's accounting now rather than in supervise_finish: for a
 * backend that knows nothing in the sandbox can run or grow any more (the
 * program ended and only its init is left), while that init dies. */
void supervise_account(struct supervise *sv);
/* After the backend reaped what it started: CPU and memory accounting (the
 * cgroup's, read here unless supervise_account did, else RU of the reaped
 * processes), the kept output, the status and the final events, into ctx->res.
 * RU may be NULL when the accounting has the CPU time and the peak memory. */
void supervise_finish(struct supervise *sv, const struct rusage *ru);
/* The CPU time, in ms, of every process in INIT's pid namespace (INIT, a
 * host pid, included), with what each has reaped: read from /proc, at
 * most 65536 processes looked at. -1 when INIT's namespace cannot be read. */
int64_t supervise_tree_cpu_ms(pid_t init);
/* Close what is still open and free buffers not handed to the result. */
void supervise_release(struct supervise *sv);

void close_fd(int *fd);

#endif
