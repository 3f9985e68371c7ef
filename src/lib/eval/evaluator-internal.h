/* evaluator-internal.h - what evaluator.c, eval.c and lint.c share: the handle's insides */
#ifndef SANDEVAL_EVALUATOR_INTERNAL_H
#define SANDEVAL_EVALUATOR_INTERNAL_H

#include <jansson.h>
#include <sys/types.h>

#include "eval/evaluator.h"
#include "sandbox/sandbox.h"
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
struct lint_cache;

/* One kind of zygote of this process. */
struct warm {
	struct zygote *zygote;
	pid_t owner;
	char why[1024];				/* why the owner could not start one */
};

struct evaluator {
	struct evaluator_options o;
	const char *runners_dir;		/* o.runners_dir, or evaluator_runners_dir() */
	struct runner runners[EVAL_MAX_RUNNERS];	/* each read on first use */
	size_t n_runners;
	struct lint_conf *lint;			/* read on first use (or evaluator_check_lint) */
	/* Warm starts (zygote.h): this process's zygotes, each started on first
	 * use; a forked process starts its own, as only the starter may use one. */
	struct warm tests_warm;			/* runners/zygote.py: the driver */
	struct warm lint_warm;			/* runners/lint/zygote.py: the Python linters */
	struct lint_cache *lint_cache;		/* envelopes by content (lint-cache.c), this process's */
	struct sandbox_pool *pool;		/* gvisor: sandboxes started ahead (sandbox-pool.h), or NULL */
	int cancel_fd;				/* evaluator_set_cancel_fd, -1: none */
};

/* The pool of pre-started gVisor sandboxes every sandbox of a sample is
 * taken from (sandbox-pool.h), or NULL (another backend, --gvisor-pool 0). */
struct sandbox_pool *evaluator_pool(struct evaluator *ev);
/* Add what SR's sandbox cost (its wait, its host CPU with its start) to OUT's. */
void evaluator_add_costs(struct sample_result *out, const struct sandbox_result *sr);
/* The runner of LANG, read from runners/<lang>/runner.json on first use. */
const struct runner *evaluator_runner(struct evaluator *ev, const char *lang, struct sd_error *err);
/* The zygote to start TASK's driver from, or NULL for a cold start: asked
 * for, another backend or image, or the zygote would not start (then
 * ev->warm_why says why). */
struct zygote *evaluator_zygote(struct evaluator *ev, const struct task *task);
/* The zygote to start the lint driver from (runners/lint/zygote.py: flake8
 * and bandit loaded), or NULL for a cold start: asked for (--cold), another
 * backend, or it would not start (then lint_warm.why says why). */
struct zygote *evaluator_lint_zygote(struct evaluator *ev);
/* A result for SAMPLE of TASK with its ids, class, completion and start time
 * set and no score yet (NAN). -1 on ENOMEM (OUT released). */
int evaluator_result_start(struct sample_result *out, const struct task *task, const struct sample *sample);
int64_t evaluator_now_ms(void);
/* sandbox_run, where a sandbox stopped through its cancel_fd is no result:
 * -1 with EINTR "interrupted" (SR released). */
int eval_sandbox_run(const struct sandbox_config *cfg, struct sandbox_result *sr, struct sd_error *err);

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
/* lint.c, for lint-batch.c: LANGUAGE's object of lint.json (NULL when it has
 * no linter); the plan of a sample of LANG as text (malloc'd; NULL on
 * ENOMEM) or, BATCH not NULL, with the texts BATCH to lint one by one in
 * one sandbox; a program's cache key (0, or -1: none); one lint sandbox
 * with the plan on stdin (CODE: the candidate's file, or NULL for a batch)
 * held to WALL seconds. */
const json_t *lint_lang(const struct evaluator *ev, const char *language);
char *lint_plan(const struct evaluator *ev, const json_t *lang, json_t *batch);
int lint_key(const struct evaluator *ev, const json_t *lang, const char *plan, const char *code,
	     unsigned char *key);
struct sandbox_result;
int lint_run_sandbox(struct evaluator *ev, const json_t *lang, const char *code, const char *plan, double wall,
		     struct sandbox_result *sr, struct sd_error *err);
/* lint-batch.c: a batch sandbox's stdout, OUT of LEN bytes (untrusted:
 * what a subverted linter may print), into ENV, an array of one null per
 * file: "INDEX ENVELOPE\n" sets entry INDEX to ENVELOPE when INDEX is in
 * range, decimal, and still null (the first line for an index wins); lines
 * of any other shape, an unfinished last line and envelopes that are not
 * UTF-8 leave entries null (those files are linted alone). */
void lint_batch_split(const char *out, size_t len, json_t *env);

/* lint-cache.c: envelopes by key (SHA-256 of the plan, the injected files,
 * the linters' identity and the program: lint.c), in memory, this process's.
 * new: NULL on ENOMEM. get: the envelope (NUL-terminated, owned by the
 * cache) or NULL, and (ORIGIN not NULL) the id of the batch's lint sandbox
 * that printed it or NULL. put: keeps a copy (ORIGIN: the batch's sandbox
 * id, or NULL); 0 (also when full or already there), -ENOMEM. */
#define LINT_KEY_LEN 32
struct lint_cache *lint_cache_new(void);
const char *lint_cache_get(struct lint_cache *c, const unsigned char *key, size_t *len, const char **origin);
int lint_cache_put(struct lint_cache *c, const unsigned char *key, const char *text, size_t len,
		   const char *origin);
void lint_cache_counts(const struct lint_cache *c, size_t *hits, size_t *misses);
void lint_cache_free(struct lint_cache *c);

#endif
