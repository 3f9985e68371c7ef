/* evaluator-internal.h - what evaluator.c, eval.c and lint.c share: the handle's insides */
#ifndef SANDEVAL_EVALUATOR_INTERNAL_H
#define SANDEVAL_EVALUATOR_INTERNAL_H

#include <jansson.h>
#include <sys/types.h>

#include "eval/evaluator.h"
#include "sandbox/zygote.h"

/* A file injected into the sandbox's harness directory. */
struct harness_file {
	char *name;
	char *text;
	size_t len;
};

/* A language: runners/<lang>/runner.json plus the files it lists. */
struct runner {
	char *lang;
	json_t *def;			/* source, files, run, compile */
	struct harness_file files[16];	/* start.py, driver.py, plain.py, the language's own, their .pycs */
	size_t n_files;
};

#define EVAL_MAX_RUNNERS 8

/* runners/lint/lint.json and the files it injects (lint.c). */
struct lint_conf;

struct evaluator {
	struct evaluator_options o;
	const char *runners_dir;		/* o.runners_dir, or evaluator_runners_dir() */
	struct runner runners[EVAL_MAX_RUNNERS];	/* each read on first use */
	size_t n_runners;
	struct lint_conf *lint;			/* read on first use (or evaluator_check_lint) */
	/* Warm starts (zygote.h): this process's zygote, started on first use;
	 * a forked process starts its own, as only the starter may use one. */
	struct zygote *zygote;
	pid_t zygote_owner;
	char warm_why[1024];			/* why the owner could not start one */
};

/* The runner of LANG, read from runners/<lang>/runner.json on first use. */
const struct runner *evaluator_runner(struct evaluator *ev, const char *lang, struct sd_error *err);
/* The zygote to start TASK's driver from, or NULL for a cold start: asked
 * for, another backend or image, or the zygote would not start (then
 * ev->warm_why says why). */
struct zygote *evaluator_zygote(struct evaluator *ev, const struct task *task);
/* A result for SAMPLE of TASK with its ids, class, completion and start time
 * set and no score yet (NAN). -1 on ENOMEM (OUT released). */
int evaluator_result_start(struct sample_result *out, const struct task *task, const struct sample *sample);
int64_t evaluator_now_ms(void);

/* eval.c: the tests of one sample, a task's oracle, the test code split. */
int eval_tests(struct evaluator *ev, const struct task *task, const struct sample *sample,
	       const json_t *expected, struct sample_result *out, struct sd_error *err);
int eval_oracle(struct evaluator *ev, const struct task *task, json_t **expected, struct sd_error *err);
json_t *eval_oracle_failure(const char *why);
int eval_prepare(struct evaluator *ev, struct task *tasks, size_t n, struct sd_error *err);

/* lint.c: read lint.json once; lint one sample into R (its lint, lint_detail,
 * findings; not the composite); free what was read. */
int lint_load(struct evaluator *ev, struct sd_error *err);
int lint_sample(struct evaluator *ev, const struct task *task, const struct sample *sample,
		struct sample_result *r, struct sd_error *err);
void lint_conf_free(struct lint_conf *c);

#endif
