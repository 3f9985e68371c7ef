/* canary.h - programs with known outcomes, run before any score is reported */
#ifndef SANDEVAL_CANARY_H
#define SANDEVAL_CANARY_H

#include <sys/types.h>

#include "base/error.h"
#include "eval/evaluator.h"

/* Run a known-good program (must pass), a known-bad one (must fail), an
 * infinite loop (must time out) and a memory hog (must hit the memory limit)
 * through the same evaluation path as the samples. Returns 0 when each came
 * out as it must, else -1 with what came out wrong. */
int canary_check(struct evaluator *ev, struct sd_error *err);

/* The same in two halves, so that other work overlaps the canaries: start
 * them (in CANARY_PROCS child processes), then collect the verdict.
 * canary_finish() must follow every canary_start() that returned 0. */
#define CANARY_PROCS 2
struct canaries {
	pid_t pids[CANARY_PROCS];
	int fds[CANARY_PROCS];
};
int canary_start(struct canaries *c, struct evaluator *ev, struct sd_error *err);
int canary_finish(struct canaries *c, struct sd_error *err);

#endif
