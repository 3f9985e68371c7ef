/* evaluator.c - the pipeline's context: how a sample is evaluated (sandbox settings, tests, lint) and what is kept between samples */
#define _GNU_SOURCE
#include "eval/evaluator.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "eval/eval.h"
#include "eval/lint.h"
#include "score/score.h"

struct evaluator {
	struct evaluator_options o;
	struct eval_options eval;	/* the tests' half of O */
	struct lint_options lint;	/* lint's half of O */
};

void evaluator_options_init(struct evaluator_options *o)
{
	struct eval_options e;
	struct lint_options l;

	eval_options_init(&e);
	lint_options_init(&l);
	memset(o, 0, sizeof(*o));
	o->backend = e.backend;
	o->timeout = e.timeout;
	o->memory = e.memory;
	o->lint = true;
	o->lint_threshold = l.threshold;
	o->lint_memory = l.memory;
	o->lint_tool_timeout = l.tool_timeout;
}

const char *evaluator_runners_dir(void)
{
	return eval_runners_dir();
}

struct evaluator *evaluator_new(const struct evaluator_options *o, struct sd_error *err)
{
	struct evaluator *ev = calloc(1, sizeof(*ev));

	if (!ev) {
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	ev->o = *o;
	eval_options_init(&ev->eval);
	ev->eval.timeout = o->timeout;
	ev->eval.memory = o->memory;
	ev->eval.backend = o->backend;
	ev->eval.runners_dir = o->runners_dir;
	ev->eval.seed = o->seed;
	ev->eval.image = o->image;
	ev->eval.cold = o->cold;
	lint_options_init(&ev->lint);
	ev->lint.threshold = o->lint_threshold;
	ev->lint.backend = o->backend;
	ev->lint.runners_dir = o->runners_dir;
	ev->lint.tool_path = o->lint_tool_path;
	ev->lint.memory = o->lint_memory;
	ev->lint.tool_timeout = o->lint_tool_timeout;
	return ev;
}

int evaluator_check_lint(struct evaluator *ev, struct sd_error *err)
{
	return ev->o.lint ? lint_check(&ev->lint, err) : 0;
}

void evaluator_free(struct evaluator *ev)
{
	eval_release();
	free(ev);
}

const struct evaluator_options *evaluator_options(const struct evaluator *ev)
{
	return &ev->o;
}

void evaluator_set_limits(struct evaluator *ev, double timeout, uint64_t memory)
{
	ev->o.timeout = ev->eval.timeout = timeout;
	ev->o.memory = ev->eval.memory = memory;
}

const char *evaluator_warm_error(const struct evaluator *ev)
{
	(void)ev;
	return eval_warm_error();
}

int evaluator_tests(struct evaluator *ev, const struct task *task, const struct sample *sample,
		    const json_t *expected, struct sample_result *out, struct sd_error *err)
{
	return eval_sample(task, sample, expected, &ev->eval, out, err);
}

int evaluator_sample(struct evaluator *ev, const struct task *task, const struct sample *sample,
		     const json_t *expected, struct sample_result *out, struct sd_error *err)
{
	struct sd_error e = { 0 };

	if (eval_sample(task, sample, expected, &ev->eval, out, err) < 0)
		return -1;
	if (!ev->o.lint)
		return 0;
	if (lint_sample(task, sample, &ev->lint, out, &e) < 0) {
		out->lint = LINT_ERROR;
		free(out->lint_detail);
		out->lint_detail = strdup(e.msg);
	}
	score_sample(out);	/* the composite, now that lint is known */
	return 0;
}

static int64_t epoch_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int evaluator_lint(struct evaluator *ev, const struct task *task, const struct sample *sample,
		   struct sample_result *out, struct sd_error *err)
{
	memset(out, 0, sizeof(*out));
	out->task_id = strdup(sample->task_id);
	out->sample_id = strdup(sample->sample_id);
	out->model = sample->model ? strdup(sample->model) : NULL;
	out->task_class = strdup(task->class ? task->class : "default");
	out->completion = strdup(sample->code ? sample->code : "");
	out->score = out->score_public = out->score_holdout = NAN;
	out->rouge_l = NAN;
	out->composite = NAN;
	out->started_ms = epoch_ms();
	if (!out->task_id || !out->sample_id || !out->task_class || !out->completion) {
		sample_result_release(out);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	if (lint_sample(task, sample, &ev->lint, out, err) < 0) {
		sample_result_release(out);
		return -1;
	}
	out->finished_ms = epoch_ms();
	out->latency_ms = out->finished_ms - out->started_ms;
	return 0;
}

int evaluator_oracle(struct evaluator *ev, const struct task *task, json_t **expected, struct sd_error *err)
{
	return eval_oracle(task, &ev->eval, expected, err);
}

int evaluator_prepare(struct evaluator *ev, struct task *tasks, size_t n, struct sd_error *err)
{
	return eval_prepare(tasks, n, &ev->eval, err);
}
