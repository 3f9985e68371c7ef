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
