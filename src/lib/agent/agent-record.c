/* agent-record.c - an agent run's steps in the store, and --resume: the same loop again, taking what was recorded instead of asking
 *
 * The loop is deterministic given the generator's answers and the scores:
 * so a resumed run needs only those. Each answer (the completions as
 * given, tokens, the error) is an "answer" step, recorded before its
 * candidates are scored; each run of the pipeline a "run" step, recorded
 * when it starts. Resuming runs the loop from the start: a request whose
 * answer is recorded is not sent again (a replay moves past its samples),
 * and a run that was started is resumed (run_options.resume), so that no
 * scored candidate is scored again. Selections, feedback, budgets and stop
 * reasons come out as they did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent-internal.h"
#include "agent/generator-internal.h"
#include "base/hash.h"
#include "base/jsonl.h"
#include "base/util.h"

int record_step(struct loop *l, const char *kind, const char *task_id, int round, json_t *body, struct sd_error *err)
{
	char *text;
	int ret;

	if (!body)
		body = json_object();
	text = body ? json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(body);
	if (!text)
		return sd_error_set(err, ENOMEM, "out of memory");
	ret = store_agent_step_put(l->st, l->res->agent_id, kind, task_id, round, text, err);
	free(text);
	return ret;
}

static json_t *settings(const struct agent_options *o)
{
	json_t *classes = json_array(), *s;

	for (const char *const *c = o->checkpoint; c && *c; c++)
		json_array_append_new(classes, json_text(*c));
	s = json_pack("{s:s, s:s, s:s?, s:i, s:i, s:f, s:i, s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:b}",
			 "tasks", o->tasks_path, "generator", generator_kind(o->gen), "model", o->model, "k", o->k,
			 "rounds", o->rounds, "temperature", o->temperature, "max_tokens", o->max_tokens,
			 "seed", (json_int_t)o->seed, "budget_tokens", (json_int_t)o->budget_tokens,
			 "budget_usd", o->budget_usd, "price_in", o->price_in, "price_out", o->price_out,
			 "budget_cpu", o->budget_cpu, "feedback_lines", (json_int_t)o->feedback_lines,
			 "lint", o->eval.lint);
	if (s) {
		json_object_set_new(s, "plan", json_boolean(!o->no_plan));
		json_object_set_new(s, "reflect", json_boolean(!o->no_reflect));
	}
	if (s)
		json_object_set_new(s, "checkpoint", classes);
	else
		json_decref(classes);
	return s;
}

/* The recorded settings into l->opt; what must not differ is refused. */
static int take_settings(struct loop *l, json_t *cfg, struct sd_error *err)
{
	struct agent_options *o = &l->opt;
	const char *id = o->resume;
	const char *tasks = json_string_value(json_object_get(cfg, "tasks"));
	const char *kind = json_string_value(json_object_get(cfg, "generator"));

	if (!tasks || !kind)
		return sd_error_set(err, EPROTO, "cannot resume agent run %s: its first step holds no settings", id);
	if (strcmp(tasks, o->tasks_path) != 0)
		return sd_error_set(err, EINVAL, "cannot resume agent run %s: it ran on '%s', not '%s'", id, tasks,
				    o->tasks_path);
	if (strcmp(kind, generator_kind(o->gen)) != 0)
		return sd_error_set(err, EINVAL, "cannot resume agent run %s: its generator was a %s one, not %s", id,
				    kind, generator_kind(o->gen));
	o->k = (int)json_integer_value(json_object_get(cfg, "k"));
	o->rounds = (int)json_integer_value(json_object_get(cfg, "rounds"));
	o->temperature = json_number_value(json_object_get(cfg, "temperature"));
	o->max_tokens = (int)json_integer_value(json_object_get(cfg, "max_tokens"));
	o->seed = json_integer_value(json_object_get(cfg, "seed"));
	o->budget_tokens = json_integer_value(json_object_get(cfg, "budget_tokens"));
	o->budget_usd = json_number_value(json_object_get(cfg, "budget_usd"));
	o->price_in = json_number_value(json_object_get(cfg, "price_in"));
	o->price_out = json_number_value(json_object_get(cfg, "price_out"));
	o->budget_cpu = json_number_value(json_object_get(cfg, "budget_cpu"));
	o->feedback_lines = (size_t)json_integer_value(json_object_get(cfg, "feedback_lines"));
	o->eval.lint = json_is_true(json_object_get(cfg, "lint"));
	o->no_plan = json_is_false(json_object_get(cfg, "plan"));
	o->no_reflect = json_is_false(json_object_get(cfg, "reflect"));
	/* the classes held for a person: the run's own */
	{
		json_t *classes = json_object_get(cfg, "checkpoint"), *c;
		size_t i, n = json_array_size(classes);

		free(l->classes);
		if (!(l->classes = calloc(n + 1, sizeof(*l->classes))))
			return sd_error_set(err, ENOMEM, "out of memory");
		json_array_foreach(classes, i, c)
			l->classes[i] = json_string_value(c) ? json_string_value(c) : "";
		json_decref(l->class_doc);
		l->class_doc = json_incref(classes);
		o->checkpoint = l->classes;
	}
	if (o->k < 1 || o->rounds < 1)
		return sd_error_set(err, EPROTO, "cannot resume agent run %s: its settings are damaged", id);
	return 0;
}

static char *answer_key(const char *task_id, int round, const char *step)
{
	return xasprintf("%d %s %s", round, step ? step : "act", task_id);
}

static int load(struct loop *l, struct sd_error *err)
{
	struct agent_step *v = NULL;
	size_t n = 0;
	int ret = -1;

	if (store_agent_steps_load(l->st, l->o->resume, &v, &n, err) < 0)
		return -1;
	if (n == 0 || strcmp(v[0].kind, "start") != 0) {
		agent_steps_free(v, n);
		return sd_error_set(err, ENOENT, "no agent run '%s' in '%s'", l->o->resume, store_name(l->st));
	}
	l->answers = json_object();
	l->runs = json_object();
	l->decisions = json_object();
	l->pending = json_object();
	l->selects = json_object();
	for (size_t i = 0; i < n; i++) {
		json_t *body = json_loads(v[i].body, 0, NULL);

		if (!body) {
			sd_error_set(err, EPROTO, "agent run %s: step %lld is not JSON", l->o->resume, (long long)v[i].seq);
			goto out;
		}
		if (i == 0) {
			int r = take_settings(l, body, err);

			json_decref(body);
			if (r < 0)
				goto out;
		} else if (strcmp(v[i].kind, "answer") == 0 && v[i].task_id) {
			char *key = answer_key(v[i].task_id, v[i].round,
					       json_string_value(json_object_get(body, "step")));

			json_object_set_new(l->answers, key ? key : "", body);
			free(key);
		} else if (strcmp(v[i].kind, "select") == 0 && v[i].task_id) {
			char *key = answer_key(v[i].task_id, v[i].round, "select");

			json_object_set_new(l->selects, key ? key : "", json_true());
			free(key);
			json_decref(body);
		} else if (strcmp(v[i].kind, "approval") == 0 && v[i].task_id) {
			json_object_set_new(l->decisions, v[i].task_id, body);
		} else if (strcmp(v[i].kind, "pending") == 0 && v[i].task_id) {
			json_object_set_new(l->pending, v[i].task_id, body);
		} else if (strcmp(v[i].kind, "run") == 0 && json_is_string(json_object_get(body, "label"))) {
			json_object_set(l->runs, json_string_value(json_object_get(body, "label")),
					json_object_get(body, "run_id"));
			json_decref(body);
		} else {
			json_decref(body);
		}
	}
	ret = 0;
out:
	agent_steps_free(v, n);
	return ret;
}

int record_start(struct loop *l, struct sd_error *err)
{
	char hex[17];

	if (l->o->resume) {
		snprintf(l->res->agent_id, sizeof(l->res->agent_id), "%s", l->o->resume);
		if (load(l, err) < 0)
			return -1;
		say(l, "resuming agent run %s: %zu answers and %zu runs recorded", l->res->agent_id,
		    json_object_size(l->answers), json_object_size(l->runs));
		return record_step(l, "resume", NULL, 0, NULL, err);
	}
	if (random_hex(hex, 8, err) < 0)
		return -1;
	snprintf(l->res->agent_id, sizeof(l->res->agent_id), "a-%s", hex);
	if (record_step(l, "start", NULL, 0, settings(l->o), err) < 0)
		return -1;
	say(l, "agent run %s (--resume %s continues it if stopped)", l->res->agent_id, l->res->agent_id);
	return 0;
}

/* sha256 hex of the conversation a request sent */
static void prompt_hash(json_t *messages, char hex[65])
{
	char *text = json_dumps(messages, JSON_COMPACT);
	struct sha256_ctx ctx;

	hex[0] = '\0';
	if (text) {
		sha256_init(&ctx);
		sha256_update(&ctx, strlen(text), (const uint8_t *)text);
		hash_digest_hex(&ctx, hex);
	}
	free(text);
}

/* A recorded answer into *a (or its error into *gerr: 1). */
static int take_answer(json_t *rec, struct generator_answer *a, struct sd_error *gerr)
{
	json_t *c, *u = json_object_get(rec, "usage");
	size_t i;

	memset(a, 0, sizeof(*a));
	if (json_is_string(json_object_get(rec, "error"))) {
		sd_error_set(gerr, EPROTO, "%s", json_string_value(json_object_get(rec, "error")));
		return 1;
	}
	json_array_foreach(json_object_get(rec, "completions"), i, c) {
		if (generator_answer_add(a, json_string_value(c) ? json_string_value(c) : "",
					 json_string_value(c) ? json_string_length(c) : 0) < 0) {
			generator_answer_release(a);
			return sd_error_set(gerr, ENOMEM, "out of memory");
		}
	}
	a->prompt_tokens = json_integer_value(json_object_get(u, "prompt_tokens"));
	a->completion_tokens = json_integer_value(json_object_get(u, "completion_tokens"));
	a->usage = json_is_true(json_object_get(rec, "usage_known"));
	a->requests = (int)json_integer_value(json_object_get(rec, "requests"));
	return 0;
}

int record_ask(struct loop *l, const struct generator_request *rq, struct generator_answer *a, struct sd_error *gerr,
	       struct sd_error *err)
{
	json_t *rec = record_answer(l, rq->task->id, rq->round, rq->step), *completions, *body;
	char hash[65];
	int failed;

	if (rec) {
		failed = take_answer(rec, a, gerr);
		if (failed == 0 && (!rq->step || strcmp(rq->step, "act") == 0))
			generator_skip(l->o->gen, rq->task, a->n);
		return failed < 0 ? -1 : failed;
	}
	failed = generator_generate(l->o->gen, rq, a, gerr) < 0;
	completions = json_array();
	for (size_t i = 0; !failed && i < a->n; i++)
		json_array_append_new(completions, json_text(a->completions[i]));
	prompt_hash(rq->messages, hash);
	body = json_pack("{s:s, s:s, s:o, s:{s:I, s:I}, s:f, s:b, s:i, s:o, s:o}", "step", rq->step ? rq->step : "act",
			 "prompt_sha256", hash, "completions",
			 completions, "usage", "prompt_tokens", (json_int_t)a->prompt_tokens, "completion_tokens",
			 (json_int_t)a->completion_tokens, "cost_usd", (double)a->prompt_tokens / 1000.0 * l->o->price_in +
			 (double)a->completion_tokens / 1000.0 * l->o->price_out, "usage_known", a->usage, "requests", a->requests,
			 "feedback", json_text(rq->feedback), "error", failed ? json_text(gerr->msg) : json_null());
	if (record_step(l, "answer", rq->task->id, rq->round, body, err) < 0) {
		generator_answer_release(a);
		return -1;
	}
	return failed;
}

json_t *record_answer(const struct loop *l, const char *task_id, int round, const char *step)
{
	char *key;
	json_t *a;

	if (!l->answers)
		return NULL;
	key = answer_key(task_id, round, step);
	a = key ? json_object_get(l->answers, key) : NULL;
	free(key);
	return a;
}

int record_select(struct loop *l, const char *task_id, int round, json_t *body, struct sd_error *err)
{
	char *key = answer_key(task_id, round, "select");
	bool have = key && l->selects && json_object_get(l->selects, key);

	free(key);
	if (have) {
		json_decref(body);
		return 0;
	}
	return record_step(l, "select", task_id, round, body, err);
}

const char *record_run(const struct loop *l, const char *label)
{
	return l->runs ? json_string_value(json_object_get(l->runs, label)) : NULL;
}

void record_release(struct loop *l)
{
	json_decref(l->answers);
	json_decref(l->runs);
	json_decref(l->decisions);
	json_decref(l->pending);
	json_decref(l->selects);
	json_decref(l->class_doc);
	free(l->classes);
	l->classes = NULL;
	l->answers = l->runs = l->decisions = l->pending = l->selects = l->class_doc = NULL;
}

/* ---- human checkpoints ---- */

static bool checkpointed(const struct loop *l, const struct task *t)
{
	if (t->high_risk)
		return true;
	for (const char *const *c = l->o->checkpoint; c && *c; c++)
		if (t->class && strcmp(*c, t->class) == 0)
			return true;
	return false;
}

static json_t *decision(const char *what, const char *by, const char *note)
{
	return json_pack("{s:s, s:s, s:o}", "decision", what, "by", by ? by : "", "note", json_text(note));
}

int checkpoints(struct loop *l, struct sd_error *err)
{
	for (size_t ti = 0; ti < l->tasks.n; ti++) {
		struct tstate *t = &l->ts[ti];
		struct agent_task *r = &l->res->tasks[ti];
		json_t *d;
		const char *what;

		if (!t->best_code || !checkpointed(l, t->task))
			continue;
		d = l->decisions ? json_object_get(l->decisions, t->task->id) : NULL;
		if (!d && l->o->approve) {
			struct agent_checkpoint cp = {
				.agent_id = l->res->agent_id, .task_id = t->task->id, .task_class = t->task->class,
				.completion = t->best_code, .previous = t->prev_code, .round = t->best_round,
				.public_passed = t->best_passed, .public_score = t->best_score, .n_public = r->n_public,
			};
			const char *note = NULL;
			int a = l->o->approve(l->o->arg, &cp, &note);

			if (a >= 0) {
				d = decision(a ? "accept" : "reject", l->o->approver, note);
				if (record_step(l, "approval", t->task->id, t->best_round, json_incref(d), err) < 0) {
					json_decref(d);
					return -1;
				}
				if (!l->decisions)
					l->decisions = json_object();
				json_object_set_new(l->decisions, t->task->id, d);
			}
		}
		what = json_string_value(json_object_get(d, "decision"));
		if (!what) {
			r->stop = AGENT_STOP_CHECKPOINT_PENDING;
			l->res->pending++;
			if ((!l->pending || !json_object_get(l->pending, t->task->id)) &&
			    record_step(l, "pending", t->task->id, t->best_round,
					json_pack("{s:o}", "completion", json_text(t->best_code)), err) < 0)
				return -1;
		} else if (strcmp(what, "reject") == 0) {
			r->stop = AGENT_STOP_REJECTED;
			free(t->best_code);
			t->best_code = NULL;
		}
	}
	return 0;
}

int agent_approve(struct store *st, const char *agent_id, const char *task_id, bool accept, const char *by,
		  const char *note, struct sd_error *err)
{
	struct agent_step *v = NULL;
	size_t n = 0;
	bool pending = false, decided = false;
	int round = 0;

	if (!by || !*by)
		return sd_error_set(err, EINVAL, "who decides must be named (--by NAME)");
	if (store_agent_steps_load(st, agent_id, &v, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].task_id || strcmp(v[i].task_id, task_id) != 0)
			continue;
		if (strcmp(v[i].kind, "pending") == 0) {
			pending = true;
			round = v[i].round;
		}
		decided |= strcmp(v[i].kind, "approval") == 0;
	}
	agent_steps_free(v, n);
	if (n == 0)
		return sd_error_set(err, ENOENT, "no agent run '%s' in '%s'", agent_id, store_name(st));
	if (!pending)
		return sd_error_set(err, ENOENT, "agent run %s has no candidate of task '%s' waiting for approval", agent_id,
				    task_id);
	if (decided)
		return sd_error_set(err, EEXIST, "the candidate of task '%s' of agent run %s was decided already", task_id,
				    agent_id);
	{
		json_t *d = decision(accept ? "accept" : "reject", by, note);
		char *text = d ? json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		int ret = text ? store_agent_step_put(st, agent_id, "approval", task_id, round, text, err)
			       : sd_error_set(err, ENOMEM, "out of memory");

		json_decref(d);
		free(text);
		return ret;
	}
}
