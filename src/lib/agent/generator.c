/* generator.c - the generators' one call, the wire formats (chat completions, a program's JSON) and the replay of a sample file */
#define _GNU_SOURCE
#include "agent/generator.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/generator-internal.h"
#include "base/jsonl.h"

void generator_answer_release(struct generator_answer *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->completions[i]);
	free(a->completions);
	memset(a, 0, sizeof(*a));
}

int generator_answer_add(struct generator_answer *a, const char *text, size_t len)
{
	char **v = realloc(a->completions, (a->n + 1) * sizeof(*v));
	char *copy;

	if (!v)
		return -1;
	a->completions = v;
	if (!(copy = malloc(len + 1)))
		return -1;
	/* NUL bytes (JSON's \u0000) dropped: the completion is one C string */
	for (size_t i = 0, j = 0; i <= len; i++)
		if (i == len || text[i])
			copy[j++] = i == len ? '\0' : text[i];
	v[a->n++] = copy;
	return 0;
}

void generator_free(struct generator *g)
{
	if (g)
		g->ops->free(g);
}

void generator_skip(struct generator *g, const struct task *t, size_t n)
{
	if (g->ops->skip)
		g->ops->skip(g, t, n);
}

const char *generator_kind(const struct generator *g)
{
	return g->ops->kind;
}

int generator_generate(struct generator *g, const struct generator_request *rq, struct generator_answer *a,
		       struct sd_error *err)
{
	memset(a, 0, sizeof(*a));
	if (g->ops->generate(g, rq, a, err) < 0) {
		generator_answer_release(a);
		return -1;
	}
	return 0;
}

/* ---- the wire ---- */

json_t *generator_chat_body(const struct generator_request *rq, const char *model, long long seed)
{
	json_t *body = json_object();

	if (!body || json_object_set_new(body, "model", json_string(model ? model : "")) < 0 ||
	    json_object_set(body, "messages", rq->messages) < 0 ||
	    json_object_set_new(body, "temperature", json_real(rq->temperature)) < 0 ||
	    json_object_set_new(body, "max_tokens", json_integer(rq->max_tokens)) < 0 ||
	    json_object_set_new(body, "seed", json_integer(seed)) < 0) {
		json_decref(body);
		return NULL;
	}
	return body;
}

json_t *generator_command_input(const struct generator_request *rq)
{
	return json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:O, s:i, s:i, s:s?, s:I, s:f, s:i}", "step",
			 rq->step ? rq->step : "act", "task_id", rq->task->id,
			 "prompt", rq->prompt ? rq->prompt : "", "entry_point", rq->task->entry_point,
			 "language", rq->task->language, "messages", rq->messages, "k", rq->k, "round", rq->round,
			 "feedback", rq->feedback, "seed", (json_int_t)rq->seed, "temperature", rq->temperature,
			 "max_tokens", rq->max_tokens);
}

static json_t *parse_object(const char *body, size_t len, const char *what, struct sd_error *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);

	if (!root) {
		sd_error_set(err, EPROTO, "%s is not JSON: %s (line %d, column %d)", what, jerr.text, jerr.line,
			     jerr.column);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		sd_error_set(err, EPROTO, "%s: expected a JSON object", what);
		return NULL;
	}
	return root;
}

/* usage.prompt_tokens and .completion_tokens, when there */
static int parse_usage(json_t *root, const char *what, struct generator_answer *a, struct sd_error *err)
{
	json_t *u = json_object_get(root, "usage"), *p, *c;

	if (!u || json_is_null(u))
		return 0;
	p = json_object_get(u, "prompt_tokens");
	c = json_object_get(u, "completion_tokens");
	if (!json_is_object(u) || (p && !json_is_integer(p)) || (c && !json_is_integer(c)) ||
	    json_integer_value(p) < 0 || json_integer_value(c) < 0 || json_integer_value(p) > (1LL << 40) ||
	    json_integer_value(c) > (1LL << 40))
		return sd_error_set(err, EPROTO, "%s: field 'usage': expected {prompt_tokens, completion_tokens} "
				    "as non-negative integers", what);
	a->prompt_tokens += json_integer_value(p);
	a->completion_tokens += json_integer_value(c);
	a->usage = true;
	return 0;
}

int generator_parse_chat(const char *body, size_t len, struct generator_answer *a, struct sd_error *err)
{
	json_t *root = parse_object(body, len, "the answer", err), *choices, *c;
	size_t i;
	int ret = -1;

	if (!root)
		return -1;
	choices = json_object_get(root, "choices");
	if (!json_is_array(choices) || json_array_size(choices) == 0) {
		json_t *e = json_object_get(root, "error");
		const char *m = json_string_value(json_object_get(e, "message"));

		sd_error_set(err, EPROTO, "the answer has no 'choices'%s%.300s", m ? ": " : "", m ? m : "");
		goto out;
	}
	json_array_foreach(choices, i, c) {
		json_t *content = json_object_get(json_object_get(c, "message"), "content");

		if (!json_is_object(c) || !json_is_object(json_object_get(c, "message")) ||
		    !(json_is_string(content) || json_is_null(content) || !content)) {
			sd_error_set(err, EPROTO, "the answer: field 'choices[%zu].message.content': expected a string", i);
			goto out;
		}
		if (generator_answer_add(a, json_is_string(content) ? json_string_value(content) : "",
					 json_is_string(content) ? json_string_length(content) : 0) < 0) {
			sd_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	ret = parse_usage(root, "the answer", a, err);
out:
	json_decref(root);
	return ret;
}

int generator_parse_command(const char *body, size_t len, struct generator_answer *a, struct sd_error *err)
{
	json_t *root = parse_object(body, len, "the generator's output", err), *v, *c;
	size_t i;
	int ret = -1;

	if (!root)
		return -1;
	v = json_object_get(root, "completions");
	if (!json_is_array(v)) {
		sd_error_set(err, EPROTO, "the generator's output: field 'completions': expected an array of strings");
		goto out;
	}
	json_array_foreach(v, i, c) {
		if (!json_is_string(c)) {
			sd_error_set(err, EPROTO, "the generator's output: field 'completions[%zu]': expected a string", i);
			goto out;
		}
		if (generator_answer_add(a, json_string_value(c), json_string_length(c)) < 0) {
			sd_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	ret = parse_usage(root, "the generator's output", a, err);
out:
	json_decref(root);
	return ret;
}

/* ---- replay ---- */

struct replay {
	struct generator base;
	struct sample_set samples;
	size_t *next;			/* per sample: the next sample of its task, or SIZE_MAX */
	size_t *head;			/* per task of the set: its first unused sample, or SIZE_MAX */
	const struct task_set *tasks;
};

static int replay_generate(struct generator *g, const struct generator_request *rq, struct generator_answer *a,
			   struct sd_error *err)
{
	struct replay *r = (struct replay *)g;
	const struct task *t = task_set_find(r->tasks, rq->task->id);
	size_t ti;

	if (!t)
		return sd_error_set(err, ENOENT, "replay: no task '%s'", rq->task->id);
	ti = (size_t)(t - r->tasks->tasks);
	for (int j = 0; j < rq->k && r->head[ti] != SIZE_MAX; j++) {
		const struct sample *s = &r->samples.samples[r->head[ti]];

		if (generator_answer_add(a, s->code, strlen(s->code)) < 0)
			return sd_error_set(err, ENOMEM, "out of memory");
		r->head[ti] = r->next[r->head[ti]];
	}
	a->requests = 1;
	return 0;
}

static void replay_skip(struct generator *g, const struct task *t, size_t n)
{
	struct replay *r = (struct replay *)g;
	const struct task *x = task_set_find(r->tasks, t->id);
	size_t ti;

	if (!x)
		return;
	ti = (size_t)(x - r->tasks->tasks);
	for (; n && r->head[ti] != SIZE_MAX; n--)
		r->head[ti] = r->next[r->head[ti]];
}

static void replay_free(struct generator *g)
{
	struct replay *r = (struct replay *)g;

	sample_set_release(&r->samples);
	free(r->next);
	free(r->head);
	free(r);
}

static const struct generator_ops replay_ops = { "replay", replay_generate, replay_free, replay_skip };

struct generator *generator_replay_new(const char *path, const struct task_set *tasks, struct sd_error *err)
{
	struct replay *r = calloc(1, sizeof(*r));
	size_t *tail = NULL;

	if (!r) {
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	r->base.ops = &replay_ops;
	r->tasks = tasks;
	if (sample_set_load(path, tasks, &r->samples, err) < 0) {
		replay_free(&r->base);
		return NULL;
	}
	r->next = malloc((r->samples.n + 1) * sizeof(*r->next));
	r->head = malloc((tasks->n + 1) * sizeof(*r->head));
	tail = malloc((tasks->n + 1) * sizeof(*tail));
	if (!r->next || !r->head || !tail) {
		free(tail);
		replay_free(&r->base);
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < tasks->n; i++)
		r->head[i] = tail[i] = SIZE_MAX;
	/* each task's samples chained in file order */
	for (size_t i = 0; i < r->samples.n; i++) {
		const struct task *t = task_set_find(tasks, r->samples.samples[i].task_id);
		size_t ti = (size_t)(t - tasks->tasks);

		r->next[i] = SIZE_MAX;
		if (tail[ti] == SIZE_MAX)
			r->head[ti] = i;
		else
			r->next[tail[ti]] = i;
		tail[ti] = i;
	}
	free(tail);
	return &r->base;
}
