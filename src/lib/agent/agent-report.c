/* agent-report.c - what an agent run writes: one JSON line per task (--out) and the summary beside single-shot (--json) */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "base/jsonl.h"
#include "base/util.h"

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *task_line(const struct agent_result *res, const struct agent_task *r)
{
	if (res->pending) {
		/* nothing was scored on every test yet */
		return json_pack("{s:o, s:o, s:b, s:s, s:n, s:i, s:i, s:I, s:{s:I, s:I}, s:i, s:f, s:I, s:s, s:o, s:n, s:n, s:I, s:o, s:o}",
				 "task_id", json_text(r->task_id), "completion", json_text(r->completion), "passed", false,
				 "result", r->stop == AGENT_STOP_CHECKPOINT_PENDING ? "waits for approval" : "not scored yet",
				 "score", "rounds", r->rounds, "solved_round", r->solved_round,
				 "candidates", (json_int_t)r->candidates, "tokens", "prompt", (json_int_t)r->prompt_tokens,
				 "completion", (json_int_t)r->completion_tokens, "requests", r->requests, "cost_usd", r->cost_usd,
				 "cpu_ms", (json_int_t)r->cpu_ms, "stop_reason", agent_stop_name(r->stop),
				 "public_score", num(r->public_score), "single_shot_passed", "single_shot_score",
				 "public_tests", (json_int_t)r->n_public, "task_class", json_text(r->task_class),
				 "error", json_text(r->error));
	}
	return json_pack("{s:o, s:o, s:b, s:o, s:o, s:i, s:i, s:I, s:{s:I, s:I}, s:i, s:f, s:I, s:s, s:o, s:b, s:o, s:I, s:o, s:o}",
			 "task_id", json_text(r->task_id), "completion", json_text(r->completion), "passed", r->passed,
			 "result", json_text(r->result ? r->result : r->completion ? "failed" : "no candidate"),
			 "score", num(r->completion ? r->score : NAN), "rounds", r->rounds, "solved_round", r->solved_round,
			 "candidates", (json_int_t)r->candidates, "tokens", "prompt", (json_int_t)r->prompt_tokens,
			 "completion", (json_int_t)r->completion_tokens, "requests", r->requests, "cost_usd", r->cost_usd,
			 "cpu_ms", (json_int_t)r->cpu_ms, "stop_reason", agent_stop_name(r->stop),
			 "public_score", num(r->public_score), "single_shot_passed", r->single_passed,
			 "single_shot_score", num(r->single ? r->single_score : NAN), "public_tests", (json_int_t)r->n_public,
			 "task_class", json_text(r->task_class), "error", json_text(r->error));
}

static int write_doc(const char *path, const char *text, struct sd_error *err)
{
	bool out = strcmp(path, "-") == 0;
	FILE *f;
	int bad;

	if (!text)
		return sd_error_set(err, ENOMEM, "out of memory");
	if (!(f = out ? stdout : fopen(path, "we")))
		return sd_error_errno(err, errno, "cannot create '%s'", path);
	errno = 0;
	bad = fputs(text, f) < 0;
	bad |= out ? fflush(f) != 0 : fclose(f) != 0;
	return bad ? sd_error_errno(err, errno ? errno : EIO, "cannot write '%s'", path) : 0;
}

int agent_write_jsonl(const char *path, const struct agent_result *res, struct sd_error *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < res->n; i++) {
		json_t *j = task_line(res, &res->tasks[i]);
		char *line = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

		json_decref(j);
		if (line)
			fprintf(f, "%s\n", line);
		free(line);
	}
	if (fclose(f) != 0) {
		free(text);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	ret = write_doc(path, text, err);
	free(text);
	return ret;
}

struct tally {
	size_t n, passed, single;
};

static json_t *tally_json(const struct tally *t)
{
	return json_pack("{s:I, s:I, s:I, s:o, s:o}", "tasks", (json_int_t)t->n, "agent_passed", (json_int_t)t->passed,
			 "single_shot_passed", (json_int_t)t->single, "agent_pass@1",
			 t->n ? json_real((double)t->passed / (double)t->n) : json_null(), "single_shot_pass@1",
			 t->n ? json_real((double)t->single / (double)t->n) : json_null());
}

int agent_write_summary(const char *path, const struct agent_result *res, struct sd_error *err)
{
	struct tally all = { 0 };
	json_t *classes = json_object(), *stops = json_object(), *rounds = json_array(), *solved = json_array(), *doc;
	char *text;
	int ret;

	for (size_t i = 0; i < res->n; i++) {
		const struct agent_task *r = &res->tasks[i];
		json_t *c = json_object_get(stops, agent_stop_name(r->stop));

		all.n++;
		all.passed += r->passed;
		all.single += r->single_passed;
		json_object_set_new(stops, agent_stop_name(r->stop), json_integer(c ? json_integer_value(c) + 1 : 1));
		if (r->solved_round > 0) {
			while (json_array_size(solved) < (size_t)r->solved_round)
				json_array_append_new(solved, json_integer(0));
			c = json_array_get(solved, (size_t)r->solved_round - 1);
			json_integer_set(c, json_integer_value(c) + 1);
		}
	}
	for (size_t i = 0; i < res->n; i++) {
		const char *cls = res->tasks[i].task_class;
		struct tally t = { 0 };

		if (json_object_get(classes, cls))
			continue;
		for (size_t j = i; j < res->n; j++) {
			if (strcmp(res->tasks[j].task_class, cls) != 0)
				continue;
			t.n++;
			t.passed += res->tasks[j].passed;
			t.single += res->tasks[j].single_passed;
		}
		json_object_set_new(classes, cls, tally_json(&t));
	}
	for (int i = 0; i < res->n_rounds; i++)
		json_array_append_new(rounds, json_text(res->round_runs[i]));
	doc = json_pack("{s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I}, s:f, s:I, s:o, s:o, s:o}",
			"format", "sandeval-agent", "version", 1, "agent_id", res->agent_id,
			"agent_run", json_text(res->agent_run[0] ? res->agent_run : NULL),
			"single_shot_run", json_text(res->single_run[0] ? res->single_run : NULL), "round_runs", rounds,
			"all", tally_json(&all), "per_class", classes,
			"tokens", "prompt", (json_int_t)res->prompt_tokens, "completion", (json_int_t)res->completion_tokens,
			"cost_usd", res->cost_usd, "cpu_ms", (json_int_t)res->cpu_ms,
			"stop_reasons", stops, "solved_by_round", solved,
			"budget_stop", res->budget_hit ? json_string(agent_stop_name(res->budget)) : json_null());
	text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(doc);
	if (text) {
		char *nl = xasprintf("%s\n", text);

		free(text);
		text = nl;
	}
	ret = write_doc(path, text, err);
	free(text);
	return ret;
}

/* ---- a trajectory (`sandeval show AGENT_ID [TASK_ID]`) ---- */

/* Untrusted text on F, each line indented by IND, at most MAX_LINES lines;
 * control characters but tab as '?'. */
static void put_lines(FILE *f, const char *s, const char *ind, size_t max_lines)
{
	size_t lines = 0;

	if (!s || !*s)
		return;
	fputs(ind, f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n') {
			if (!p[1])
				break;
			if (++lines == max_lines) {
				fprintf(f, "\n%s[...]", ind);
				break;
			}
			fputc('\n', f);
			fputs(ind, f);
		} else {
			fputc((*p < 0x20 && *p != '\t') || *p == 0x7f ? '?' : *p, f);
		}
	}
	fputc('\n', f);
}

static void step_text(FILE *f, const struct agent_step *x, json_t *b)
{
	const char *step = json_string_value(json_object_get(b, "step"));
	json_t *u = json_object_get(b, "usage");

	if (strcmp(x->kind, "answer") == 0) {
		const char *error = json_string_value(json_object_get(b, "error"));
		size_t n = json_array_size(json_object_get(b, "completions"));

		fprintf(f, "  round %d %-7s %zu answer%s, tokens %lld + %lld, prompt sha256 %.12s\n", x->round,
			step ? step : "act", n, n == 1 ? "" : "s", (long long)json_integer_value(json_object_get(u, "prompt_tokens")),
			(long long)json_integer_value(json_object_get(u, "completion_tokens")),
			json_string_value(json_object_get(b, "prompt_sha256")) ? json_string_value(json_object_get(b, "prompt_sha256")) : "");
		if (step && strcmp(step, "act") != 0)
			put_lines(f, json_string_value(json_array_get(json_object_get(b, "completions"), 0)), "      | ", 8);
		else if (json_is_string(json_object_get(b, "feedback")) && x->round > 1)
			put_lines(f, json_string_value(json_object_get(b, "feedback")), "      > ", 8);
		if (error)
			put_lines(f, error, "      error: ", 3);
	} else if (strcmp(x->kind, "pending") == 0) {
		fprintf(f, "  round %d checkpoint: the chosen candidate waits for approval\n", x->round);
	} else if (strcmp(x->kind, "approval") == 0) {
		fprintf(f, "  round %d checkpoint: %sed by ", x->round,
			json_string_value(json_object_get(b, "decision")) ? json_string_value(json_object_get(b, "decision")) : "?");
		put_lines(f, json_string_value(json_object_get(b, "by")), "", 1);
		put_lines(f, json_string_value(json_object_get(b, "note")), "      note: ", 3);
	} else if (strcmp(x->kind, "stop") == 0) {
		fprintf(f, "  stop: %s; on every test %s (single-shot %s); solved in round %lld; %lld candidates\n",
			json_string_value(json_object_get(b, "reason")) ? json_string_value(json_object_get(b, "reason")) : "?",
			json_is_true(json_object_get(b, "passed")) ? "passed" : "failed",
			json_is_true(json_object_get(b, "single_shot_passed")) ? "passed" : "failed",
			(long long)json_integer_value(json_object_get(b, "solved_round")),
			(long long)json_integer_value(json_object_get(b, "candidates")));
	}
}

int agent_trajectory(FILE *f, struct store *st, const char *agent_id, const char *task_id, bool as_json,
		     struct sd_error *err)
{
	struct agent_step *v = NULL;
	size_t n = 0;
	json_t *doc = NULL, *steps = NULL;
	const char *last = NULL;
	bool any = false;

	if (store_agent_steps_load(st, agent_id, &v, &n, err) < 0)
		return -1;
	if (n == 0)
		return sd_error_set(err, ENOENT, "no agent run '%s' in '%s'", agent_id, store_name(st));
	for (size_t i = 0; task_id && i < n; i++)
		any |= v[i].task_id && strcmp(v[i].task_id, task_id) == 0;
	if (task_id && !any) {
		agent_steps_free(v, n);
		return sd_error_set(err, ENOENT, "agent run %s has no step of task '%s'", agent_id, task_id);
	}
	if (as_json)
		steps = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *b = json_loads(v[i].body, 0, NULL);

		if (i == 0 && !as_json)
			fprintf(f, "agent run %s: tasks %s, generator %s, k %lld, rounds %lld\n", agent_id,
				json_string_value(json_object_get(b, "tasks")) ? json_string_value(json_object_get(b, "tasks")) : "?",
				json_string_value(json_object_get(b, "generator")) ? json_string_value(json_object_get(b, "generator")) : "?",
				(long long)json_integer_value(json_object_get(b, "k")),
				(long long)json_integer_value(json_object_get(b, "rounds")));
		if (task_id && (!v[i].task_id || strcmp(v[i].task_id, task_id) != 0)) {
			json_decref(b);
			continue;
		}
		if (as_json) {
			json_array_append_new(steps, json_pack("{s:I, s:s, s:o, s:i, s:o, s:I}", "seq", (json_int_t)v[i].seq,
							       "kind", v[i].kind, "task_id", json_text(v[i].task_id),
							       "round", v[i].round, "body", b ? b : json_null(),
							       "at_ms", (json_int_t)v[i].at_ms));
			continue;
		}
		if (v[i].task_id && (!last || strcmp(last, v[i].task_id) != 0)) {
			fprintf(f, "\ntask ");
			put_lines(f, v[i].task_id, "", 1);
		}
		last = v[i].task_id;
		if (b)
			step_text(f, &v[i], b);
		json_decref(b);
	}
	if (as_json) {
		doc = json_pack("{s:s, s:i, s:s, s:o, s:o}", "format", "sandeval-agent-trajectory", "version", 1,
				"agent_id", agent_id, "task", json_text(task_id), "steps", steps);
		if (!doc || json_dumpf(doc, f, JSON_INDENT(2)) < 0 || fputc('\n', f) == EOF) {
			json_decref(doc);
			agent_steps_free(v, n);
			return sd_error_set(err, EIO, "cannot write the trajectory");
		}
		json_decref(doc);
	}
	agent_steps_free(v, n);
	return 0;
}
