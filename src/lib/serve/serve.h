/* serve.h - the evaluator as an HTTP service: SandboxFusion's /run_code, /v1/evaluate, /v1/runs, health, metrics
 *
 * A front end on the pipeline, as `sandeval exec` and `sandeval run` are:
 * /run_code runs one program (after a compile step for C and C++) through
 * sandbox_run(), /v1/evaluate a whole run through run_execute(), recorded in
 * the store. serve_run() listens, answers and returns only when it was told
 * to stop (SIGTERM or SIGINT: stop accepting, finish what runs, bounded by
 * drain_timeout). docs/serve.md describes the API; serve-loop.c the
 * processes (one single-threaded HTTP process, forked workers that run the
 * sandboxes).
 */
#ifndef SANDEVAL_SERVE_H
#define SANDEVAL_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define SERVE_MAX_SUITES 32

struct serve_suite {
	const char *name;		/* what a request names in "tasks" */
	const char *path;		/* a task file or native suite directory (task_set_load) */
};

struct serve_options {
	const char *listen;		/* "127.0.0.1:8080" (default), "[::1]:8080", "unix:/path"; port 0: any free one */
	const char *token_file;		/* NULL: no auth; else every request but /healthz needs its bearer token */
	size_t max_concurrency;		/* workers, so sandboxes at once (default: the number of CPUs) */
	size_t queue;			/* requests waiting for a worker before 503 (default 64) */
	const char *db;			/* the store (default "sandeval.db") */
	const char *backend;		/* "native" (default) or "gvisor" */
	uint64_t max_body;		/* bytes of a request body (default 16M); more: 413 */
	const char *log_path;		/* NULL: no access log; else one JSON line per request, appended */
	struct serve_suite suites[SERVE_MAX_SUITES];	/* suites /v1/evaluate may name */
	size_t n_suites;
	uint64_t memory;		/* a program's memory when the request names none (default 512M) */
	uint64_t max_memory;		/* the most a request may ask for (default 2G; more is clamped) */
	double max_time;		/* the longest run_timeout and compile_timeout (default 60 s; clamped) */
	uint64_t output;		/* bytes kept of stdout and of stderr each (default 1M) */
	double drain_timeout;		/* seconds SIGTERM waits for running requests (default 90) */
	double check_interval;		/* seconds between readiness checks (store, canaries; default 300) */
	double store_metrics;		/* seconds /metrics's store figures may be old (default 60; 0: none) */
	const char *version;		/* sandeval's, recorded with evaluation runs */
	/* Told when the server listens (its address, the port chosen for port 0)
	 * and of events worth a line on stderr; may be NULL. */
	void (*note)(void *arg, const char *text);
	void *arg;
};

void serve_options_init(struct serve_options *o);

/* Check the options, listen, answer until SIGTERM or SIGINT (both blocked
 * in this thread meanwhile and read from a signalfd), then drain and return
 * 0. -1 with *err when the server could not start (a bad address, a port in
 * use, no libmicrohttpd, an unreadable token file). The calling process
 * must be single-threaded: it forks the workers. */
int serve_run(const struct serve_options *o, struct sd_error *err);

#endif
