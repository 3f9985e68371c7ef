/* sandbox-ctl.h - the control lines init sends the supervisor from inside the sandbox, read alike by every backend */
#ifndef SANDEVAL_SANDBOX_CTL_H
#define SANDEVAL_SANDBOX_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sandbox/sandbox-internal.h"

/* One line each, a type byte and text (sandbox-child.c's and gvinit.c's msg()):
 *   I phase<TAB>detail   a setup event (only the phases the backend names count)
 *   L abi syscalls       the Landlock ABI and the seccomp filter's size
 *   X [ns]               the program is executed now: native init's line
 *                        carries its CLOCK_MONOTONIC in ns (no time
 *                        namespace: the host's clock), taken just before
 *                        execve; gVisor's carries the program's name,
 *                        not read (its sentry's clock is its own)
 *   E message            setup failed
 *   F                    a file the program wrote reached --file-size
 *                        (gVisor's init, just before "S")
 *   S wstatus            the program ended (gVisor's init; natively the
 *                        status has a pipe of its own) */
#define CTL_EVENT 'I'
#define CTL_INFO 'L'
#define CTL_EXEC 'X'
#define CTL_ERROR 'E'
#define CTL_STATUS 'S'
#define CTL_FILE_SIZE 'F'

/* Longer lines are dropped (init writes at most 2,048 bytes a line). */
#define CTL_LINE_MAX 4096

struct sandbox_ctl {
	struct sandbox_ctx *ctx;	/* events and "L" go to ctx->res */
	const char *const *phases;	/* the event phases init may report, NULL-terminated */
	bool exec_seen;			/* "X" came */
	int64_t exec_ns;		/* its time, > 0 when it had one */
	bool failed;			/* "E" came */
	bool file_size;			/* "F" came */
	int lingering;			/* "S STATUS N": N processes the program left, killed by init; -1: not said */
	bool dropping;			/* within an overlong line: dropped to its newline */
	size_t len;			/* bytes in line */
	char line[CTL_LINE_MAX];	/* what was read and not yet handled */
};

/* What sandbox_ctl_lines() stopped at. */
enum sandbox_ctl_stop {
	CTL_ALL_READ,			/* every complete line is handled */
	CTL_GOT_STATUS,			/* an "S" line: *wstatus is set */
	CTL_GOT_EXEC,			/* an "X" line: what follows is the program's life */
};

void sandbox_ctl_init(struct sandbox_ctl *c, struct sandbox_ctx *ctx, const char *const *phases);
/* Read what FD has after what is buffered: read()'s result (0 at EOF; -1
 * with errno). sandbox_ctl_lines() always leaves room to read into. */
ssize_t sandbox_ctl_read(struct sandbox_ctl *c, int fd);
/* Buffer up to N bytes of DATA (as a read would); returns how many. */
size_t sandbox_ctl_feed(struct sandbox_ctl *c, const void *data, size_t n);
/* Handle the complete lines buffered, in order: events of the known phases
 * into ctx->res's events, "L" (two integers) into its landlock_abi and
 * seccomp_syscalls, "E" into c->failed and (the first) into *ERR, "X" into
 * c->exec_seen (and its time into c->exec_ns), "F" into c->file_size. Stops after an "X" line, and after an "S" line (one integer)
 * when WSTATUS is given (without it "S" is ignored); the rest stays
 * buffered for the next call. Dropped: a line longer than the buffer, all of
 * it; a line holding a NUL byte; "L" and "S" lines that are not exactly
 * their numbers ("X" counts without its time when that is not a positive
 * number). */
enum sandbox_ctl_stop sandbox_ctl_lines(struct sandbox_ctl *c, int *wstatus, struct sd_error *err);

#endif
