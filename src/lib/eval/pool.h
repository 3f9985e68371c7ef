/* pool.h - the one worker pool of the pipeline: forked workers, one job at a time each, one line back per job
 *
 * After git's run_processes_parallel(): the caller gives the jobs and the
 * callbacks, the pool does the processes. Each worker is a child process,
 * forked once and single-threaded (a sandbox's supervisor must be), that
 * reads job numbers from a pipe, runs ops->work() for each and sends back
 * its answer as one line. The pool's process hands jobs to workers as they
 * become free and passes every answer to ops->done() as it arrives, so that
 * the caller can record it at once. A worker that fails or dies, or a done()
 * that fails, stops the pool: every worker is killed and reaped before
 * pool_run() returns, and nothing is left open.
 *
 * Interrupting it (a cancel descriptor that reads as ready: the caller's
 * signalfd) is not a failure: no job is sent any more, the job pipes are
 * closed, which each busy worker's work() sees on STOP_FD (end of file) and
 * passes on to its sandbox (sandbox.h, cancel_fd), and the pool waits for
 * every worker to end on its own: answers that still come go through
 * done(), interrupted jobs answer nothing. Workers ignore SIGINT, SIGTERM
 * and SIGHUP: the pool's process decides.
 */
#ifndef SANDEVAL_POOL_H
#define SANDEVAL_POOL_H

#include <stddef.h>

#include "base/error.h"

struct pool_ops {
	/* In a worker: do job JOB and set *line to its answer (malloc'd, one
	 * line without '\n'). 0, or -1 with *err: the pool stops with that
	 * message -- unless the pool was interrupted: STOP_FD (never read from)
	 * reads as ready then, and work() should stop and fail with EINTR. */
	int (*work)(void *arg, size_t job, int stop_fd, char **line, struct sd_error *err);
	/* In the pool's process: the answer LINE (LEN bytes, NUL-terminated) of
	 * job JOB. 0, or -1 with *err to stop the pool. */
	int (*done)(void *arg, size_t job, const char *line, size_t len, struct sd_error *err);
	/* In a worker before it exits (may be NULL): release what work() kept
	 * across jobs (a warm-start zygote). */
	void (*worker_exit)(void *arg);
	/* In the pool's process just before job JOB is sent (may be NULL): 1
	 * to leave it out (it counts as done, without done()), 0 to send it,
	 * -1 with *err to stop the pool (another process may have done it
	 * meanwhile: a second copy of a shard, eval/shard.h). */
	int (*skip)(void *arg, size_t job, struct sd_error *err);
};

/* Run the N jobs JOBS[0..n) on at most WORKERS workers (no more than N; at
 * least 1). 0 when every job's answer went through done() (or skip() left
 * it out), else -1 with *err (the jobs answered until then went through
 * done()): EINTR "interrupted" once CANCEL_FD (-1: none; polled, never
 * read) read as ready and every worker has ended. */
int pool_run(const struct pool_ops *ops, void *arg, const size_t *jobs, size_t n, size_t workers,
	     int cancel_fd, struct sd_error *err);

#endif
