/* store-fixture.h - what the store tests share: a result with every field set, comparing results, put and load that must work */
#ifndef SANDEVAL_TEST_STORE_FIXTURE_H
#define SANDEVAL_TEST_STORE_FIXTURE_H

#include <math.h>

#include "score/score.h"
#include "store/store.h"

/* A result with every field set, owned (sample_result_release frees it). */
static inline struct sample_result make_result(const char *sample_id, const char *task_id, size_t n_tests)
{
	struct sample_result r;

	memset(&r, 0, sizeof(r));
	r.task_id = strdup(task_id);
	r.sample_id = strdup(sample_id);
	r.model = strdup("model-\xc3\xa9");
	r.task_class = strdup("humaneval");
	r.he_result = strdup("failed: AssertionError");
	r.sandbox_ids = strdup("sb-1,sb-2");
	r.n_tests = n_tests;
	r.tests = calloc(n_tests ? n_tests : 1, sizeof(*r.tests));
	assert_non_null(r.tests);
	for (size_t i = 0; i < n_tests; i++) {
		struct test_result *t = &r.tests[i];

		t->name = fx_str("test_%zu", i);
		t->tier = (enum test_tier)(i % 3);
		t->weight = t->tier == TIER_EDGE ? 1.5 : 1.0;
		t->visibility = i % 2 ? VIS_HOLDOUT : VIS_PUBLIC;
		t->status = (enum test_status)(i % (TS_HARNESS_ERROR + 1));
		t->detail = i % 4 == 3 ? NULL : fx_str("expected %zu, got '%zu' \"<&>\" \xe2\x82\xac\n\tline 2", i, i + 1);
		t->in_process = i % 2 == 0;
	}
	r.completion = fx_str("    return a + b  # '%s' \"\xe2\x82\xac\"\n", sample_id);
	r.rouge_l = n_tests % 2 ? 0.625 : NAN;
	r.lint = (enum lint_status)((n_tests + 1) % 5);	/* every lint status across the samples */
	r.lint_detail = r.lint >= LINT_UNAVAILABLE ? strdup("bandit: not installed") : NULL;
	r.n_findings = r.lint == LINT_FAILED ? 3 : 0;
	r.findings = calloc(r.n_findings + 1, sizeof(*r.findings));
	assert_non_null(r.findings);
	for (size_t i = 0; i < r.n_findings; i++) {
		struct lint_finding *f = &r.findings[i];

		f->tool = strdup(i ? "bandit" : "flake8");
		f->rule = i == 2 ? NULL : fx_str("E%zu01", i);
		f->category = strdup(i ? "security" : "style");
		f->severity = (enum lint_severity)i;
		f->line = (int)i * 7;
		f->message = fx_str("finding <%zu> \"\xc3\xa9\"", i);
	}
	score_sample(&r);
	r.latency_ms = 1234;
	r.cpu_ms = 567;
	r.peak_memory_bytes = 64LL << 20;
	r.started_ms = 1700000000000LL;
	r.finished_ms = 1700000001234LL;
	return r;
}

static inline void assert_same_double(double a, double b, const char *what)
{
	if (isnan(a) != isnan(b) || (!isnan(a) && a != b))
		fail_msg("%s: %.17g != %.17g", what, a, b);
}

static inline void assert_same_str(const char *a, const char *b, const char *what)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		fail_msg("%s: '%s' != '%s'", what, a ? a : "(null)", b ? b : "(null)");
}

static inline void assert_same_result(const struct sample_result *a, const struct sample_result *b)
{
	assert_same_str(a->task_id, b->task_id, "task_id");
	assert_same_str(a->sample_id, b->sample_id, "sample_id");
	assert_same_str(a->model, b->model, "model");
	assert_same_str(a->task_class, b->task_class, "task_class");
	assert_same_str(a->he_result, b->he_result, "he_result");
	assert_same_str(a->sandbox_ids, b->sandbox_ids, "sandbox_ids");
	assert_int_equal(a->passed, b->passed);
	assert_int_equal(a->harness_error, b->harness_error);
	assert_same_double(a->score, b->score, "score");
	assert_same_double(a->score_public, b->score_public, "score_public");
	assert_same_double(a->score_holdout, b->score_holdout, "score_holdout");
	assert_int_equal(a->latency_ms, b->latency_ms);
	assert_int_equal(a->cpu_ms, b->cpu_ms);
	assert_int_equal(a->peak_memory_bytes, b->peak_memory_bytes);
	assert_int_equal(a->started_ms, b->started_ms);
	assert_int_equal(a->finished_ms, b->finished_ms);
	assert_same_str(a->completion, b->completion, "completion");
	assert_same_double(a->rouge_l, b->rouge_l, "rouge_l");
	assert_int_equal(a->lint, b->lint);
	assert_same_str(a->lint_detail, b->lint_detail, "lint_detail");
	assert_same_double(a->composite, b->composite, "composite");
	assert_same_str(a->base_status, b->base_status, "base_status");
	assert_same_str(a->plus_status, b->plus_status, "plus_status");
	{
		char *ta = tripwires_to_text(&a->tripwires), *tb = tripwires_to_text(&b->tripwires);

		assert_same_str(ta, tb, "tripwires");
		free(ta);
		free(tb);
	}
	assert_int_equal(a->n_findings, b->n_findings);
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct lint_finding *x = &a->findings[i], *y = &b->findings[i];

		assert_same_str(x->tool, y->tool, "finding tool");
		assert_same_str(x->rule, y->rule, "finding rule");
		assert_same_str(x->category, y->category, "finding category");
		assert_int_equal(x->severity, y->severity);
		assert_int_equal(x->line, y->line);
		assert_same_str(x->message, y->message, "finding message");
	}
	assert_int_equal(a->n_tests, b->n_tests);
	for (size_t i = 0; i < a->n_tests; i++) {
		const struct test_result *x = &a->tests[i], *y = &b->tests[i];

		assert_same_str(x->name, y->name, "test name");
		assert_int_equal(x->tier, y->tier);
		assert_same_double(x->weight, y->weight, "weight");
		assert_int_equal(x->visibility, y->visibility);
		assert_int_equal(x->status, y->status);
		assert_same_str(x->detail, y->detail, "detail");
		assert_int_equal(x->in_process, y->in_process);
	}
}

static inline void put_ok(struct store *s, const char *run_id, const struct sample_result *r)
{
	struct sd_error err = { 0 };

	if (store_sample_put(s, run_id, r, &err) < 0)
		fail_msg("store_sample_put: %s", err.msg);
}

static inline void load_ok(struct store *s, const char *run_id, struct sample_result **v, size_t *n)
{
	struct sd_error err = { 0 };

	if (store_samples_load(s, run_id, v, n, &err) < 0)
		fail_msg("store_samples_load: %s", err.msg);
}

static inline void free_results(struct sample_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
}

static inline struct store *open_ok(const char *path)
{
	struct sd_error err = { 0 };
	struct store *s = store_open(path, &err);

	if (!s)
		fail_msg("store_open: %s", err.msg);
	return s;
}

static inline void new_run(struct store *s, struct run_info *run, const char *model)
{
	struct sd_error err = { 0 };

	memset(run, 0, sizeof(*run));
	run->model = (char *)model;
	run->tasks_path = (char *)"data/HumanEval.jsonl.gz";
	run->samples_path = (char *)"samples.jsonl";
	run->suite_hash = (char *)"ab12";
	run->config_json = (char *)"{\"jobs\":4}";
	run->seed = 1234567890123LL;
	run->sandeval_version = (char *)"v0-test";
	if (store_run_create(s, run, &err) < 0)
		fail_msg("store_run_create: %s", err.msg);
}

#endif
