/* result-json.c - a sample's result as JSON and back, between evaluation workers and the run */
#define _GNU_SOURCE
#include "suite/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static double get_num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static char *get_str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? strdup(s) : NULL;
}

json_t *sample_result_to_json(const struct sample_result *r)
{
	json_t *tests = json_array();
	json_t *o;

	for (size_t i = 0; i < r->n_tests; i++) {
		const struct test_result *t = &r->tests[i];

		json_array_append_new(tests, json_pack("{s:s, s:i, s:f, s:i, s:i, s:s?, s:b}",
			"name", t->name, "tier", (int)t->tier, "weight", t->weight, "visibility", (int)t->visibility,
			"status", (int)t->status, "detail", t->detail, "in_process", t->in_process));
	}
	o = json_pack("{s:s, s:s, s:s?, s:s, s:o, s:b, s:s?, s:o, s:o, s:o, s:b, s:s?, s:I, s:I, s:I, s:I, s:I}",
		"task_id", r->task_id, "sample_id", r->sample_id, "model", r->model, "task_class", r->task_class,
		"tests", tests, "passed", r->passed, "he_result", r->he_result,
		"score", num(r->score), "score_public", num(r->score_public), "score_holdout", num(r->score_holdout),
		"harness_error", r->harness_error, "sandbox_ids", r->sandbox_ids,
		"latency_ms", (json_int_t)r->latency_ms, "cpu_ms", (json_int_t)r->cpu_ms,
		"peak_memory_bytes", (json_int_t)r->peak_memory_bytes,
		"started_ms", (json_int_t)r->started_ms, "finished_ms", (json_int_t)r->finished_ms);
	if (o) {
		json_t *f = json_array();

		for (size_t i = 0; i < r->n_findings; i++) {
			const struct lint_finding *x = &r->findings[i];

			json_array_append_new(f, json_pack("{s:s?, s:s?, s:s?, s:s, s:i, s:s?}",
				"tool", x->tool, "rule", x->rule, "category", x->category,
				"severity", lint_severity_name(x->severity), "line", x->line, "message", x->message));
		}
		if (r->sandbox_ms > 0)
			json_object_set_new(o, "sandbox_ms", json_integer(r->sandbox_ms));
		if (r->sandbox_cpu_ms > 0) {
			json_object_set_new(o, "sandbox_cpu_ms", json_integer(r->sandbox_cpu_ms));
			json_object_set_new(o, "prestart_cpu_ms", json_integer(r->prestart_cpu_ms));
		}
		json_object_set_new(o, "completion", r->completion ? json_string(r->completion) : json_null());
		json_object_set_new(o, "rouge_l", num(r->rouge_l));
		json_object_set_new(o, "lint", json_string(lint_status_name(r->lint)));
		json_object_set_new(o, "lint_detail", r->lint_detail ? json_string(r->lint_detail) : json_null());
		json_object_set_new(o, "findings", f);
		json_object_set_new(o, "composite", num(r->composite));
		json_object_set_new(o, "tripwires", tripwires_to_json(&r->tripwires));
		if (r->base_status)
			json_object_set_new(o, "base_status", json_string(r->base_status));
		if (r->plus_status)
			json_object_set_new(o, "plus_status", json_string(r->plus_status));
	}
	return o;
}

int sample_result_from_json(json_t *o, struct sample_result *r)
{
	json_t *tests = json_object_get(o, "tests"), *t;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(o) || !json_is_array(tests))
		return -1;
	r->task_id = get_str(o, "task_id");
	r->sample_id = get_str(o, "sample_id");
	r->model = get_str(o, "model");
	r->task_class = get_str(o, "task_class");
	r->he_result = get_str(o, "he_result");
	r->sandbox_ids = get_str(o, "sandbox_ids");
	r->passed = json_is_true(json_object_get(o, "passed"));
	r->harness_error = json_is_true(json_object_get(o, "harness_error"));
	r->score = get_num(o, "score");
	r->score_public = get_num(o, "score_public");
	r->score_holdout = get_num(o, "score_holdout");
	r->latency_ms = json_integer_value(json_object_get(o, "latency_ms"));
	r->cpu_ms = json_integer_value(json_object_get(o, "cpu_ms"));
	r->sandbox_ms = json_integer_value(json_object_get(o, "sandbox_ms"));
	r->sandbox_cpu_ms = json_integer_value(json_object_get(o, "sandbox_cpu_ms"));
	r->prestart_cpu_ms = json_integer_value(json_object_get(o, "prestart_cpu_ms"));
	r->peak_memory_bytes = json_integer_value(json_object_get(o, "peak_memory_bytes"));
	r->started_ms = json_integer_value(json_object_get(o, "started_ms"));
	r->finished_ms = json_integer_value(json_object_get(o, "finished_ms"));
	r->completion = get_str(o, "completion");
	r->rouge_l = get_num(o, "rouge_l");
	r->composite = get_num(o, "composite");
	r->lint_detail = get_str(o, "lint_detail");
	r->base_status = get_str(o, "base_status");
	r->plus_status = get_str(o, "plus_status");
	if (tripwires_from_json(json_object_get(o, "tripwires"), &r->tripwires) < 0)
		return -1;
	{
		int ls = lint_status_parse(json_string_value(json_object_get(o, "lint")));
		json_t *fs = json_object_get(o, "findings"), *f;

		r->lint = ls < 0 ? LINT_NONE : (enum lint_status)ls;
		r->findings = calloc(json_array_size(fs) + 1, sizeof(*r->findings));
		if (!r->findings)
			return -1;
		json_array_foreach(fs, i, f) {
			struct lint_finding *x = &r->findings[r->n_findings++];
			int sev = lint_severity_parse(json_string_value(json_object_get(f, "severity")));

			x->tool = get_str(f, "tool");
			x->rule = get_str(f, "rule");
			x->category = get_str(f, "category");
			x->message = get_str(f, "message");
			x->severity = sev < 0 ? LINT_SEV_ERROR : (enum lint_severity)sev;
			x->line = (int)json_integer_value(json_object_get(f, "line"));
		}
	}
	r->tests = calloc(json_array_size(tests) + 1, sizeof(*r->tests));
	if (!r->tests || !r->task_id || !r->sample_id)
		return -1;
	json_array_foreach(tests, i, t) {
		struct test_result *x = &r->tests[r->n_tests++];

		x->name = get_str(t, "name");
		x->detail = get_str(t, "detail");
		x->tier = (enum test_tier)json_integer_value(json_object_get(t, "tier"));
		x->weight = get_num(t, "weight");
		x->visibility = (enum test_visibility)json_integer_value(json_object_get(t, "visibility"));
		x->status = (enum test_status)json_integer_value(json_object_get(t, "status"));
		x->in_process = json_is_true(json_object_get(t, "in_process"));
	}
	return 0;
}
