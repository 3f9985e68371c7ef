/* test-gate.c - unit tests of gate.c and gate-report.c: paired differences, bootstrap, verdicts, outputs */
#include "fixture.h"

#include <jansson.h>
#include <math.h>

#include "report/gate-report.h"
#include "score/gate.h"
#include "score/score.h"

/* cmocka 1.1 has no assert_double_equal */
#define assert_near(a, b, eps) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (eps))) \
		fail_msg("%.17g is not %.17g (+- %g)", a_, b_, (double)(eps)); \
} while (0)

/* --- hand-built runs --- */

struct fake {
	struct run_info info;
	struct sample_result r[256];
	size_t n;
	struct gate_run run;
};

static void fake_init(struct fake *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->info.id, sizeof(f->info.id), "%s", name);
	f->info.suite_hash = (char *)"suite-aaaa";
	f->info.formula_version = (char *)SCORE_FORMULA_VERSION;
	f->info.started_ms = 1;
	f->info.finished_ms = 2;
	f->run.name = name;
	f->run.info = &f->info;
	f->run.results = f->r;
}

static char *task_name(size_t i)
{
	static char names[64][16];

	assert_true(i < 64);
	snprintf(names[i], sizeof(names[i]), "T%02zu", i);
	return names[i];
}

/* A sample of task T (class CLS) with SCORE; passed when score is 1. */
static struct sample_result *add(struct fake *f, size_t t, const char *cls, double score)
{
	struct sample_result *r = &f->r[f->n++];

	assert_true(f->n <= 256);
	memset(r, 0, sizeof(*r));
	r->task_id = task_name(t);
	r->sample_id = (char *)"s";	/* ids do not matter to the gate */
	r->task_class = (char *)cls;
	r->score = score;
	r->passed = score >= 1.0;
	r->composite = NAN;
	r->lint = LINT_NONE;
	f->run.n = f->n;
	return r;
}

static struct gate_options opts(void)
{
	struct gate_options o;

	gate_options_init(&o);
	o.resamples = 2000;	/* enough for the tests, and fast */
	return o;
}

static void compare(struct fake *b, struct fake *c, const struct gate_options *o, struct gate_result *res)
{
	struct sd_error err = { 0 };

	assert_int_equal(gate_compare(&b->run, &c->run, o, res, &err), 0);
}

/* --- tests --- */

static void test_identical_runs_pass(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 20; t++) {
		add(b, t, t < 10 ? "a" : "b", (double)(t % 7) / 7);
		add(c, t, t < 10 ? "a" : "b", (double)(t % 7) / 7);
	}
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_PASS);
	assert_int_equal(res.n_tasks, 20);
	assert_true(res.all.diff == 0);
	assert_true(res.all.ci_lo <= 0 && res.all.ci_hi >= 0);
	assert_false(res.all.regression);
	assert_int_equal(res.n_classes, 2);
	assert_string_equal(res.classes[0].name, "a");
	assert_int_equal(res.classes[0].stat.n_tasks, 10);
	assert_contains(res.reason, "mean +0.0000 over 20 shared tasks");
	gate_result_release(&res);
	free(b);
	free(c);
}

static void test_worse_candidate_regresses(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 12; t++) {
		double s = 0.5 + (double)(t % 4) / 8;

		add(b, t, "x", s);
		add(c, t, "x", s - 0.1 - (double)(t % 3) / 100);	/* every task worse by 0.10 to 0.12 */
	}
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	assert_true(res.all.regression);
	assert_true(res.all.diff < -0.1 && res.all.diff > -0.12);
	assert_true(res.all.ci_hi < 0 && res.all.ci_lo <= res.all.diff && res.all.diff <= res.all.ci_hi);
	assert_true(res.all.ci_lo >= -0.12 - 1e-12);	/* a mean of resampled diffs stays within them */
	assert_contains(res.reason, "below -0.0100");
	for (size_t i = 0; i < res.n_tasks; i++)
		assert_true(res.tasks[i].diff < 0);
	gate_result_release(&res);

	/* the other way round it is an improvement: pass */
	compare(c, b, &o, &res);
	assert_int_equal(res.verdict, GATE_PASS);
	assert_true(res.all.diff > 0.1);
	gate_result_release(&res);
	free(b);
	free(c);
}

static void test_epsilon_and_noise(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;

	(void)state;
	/* a small, clear drop (0.005 on every task): below 0 for sure, but within epsilon */
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 10; t++) {
		add(b, t, "x", 0.8);
		add(c, t, "x", 0.795);
	}
	compare(b, c, &o, &res);
	assert_true(res.all.ci_hi < 0);
	assert_int_equal(res.verdict, GATE_PASS);
	assert_contains(res.reason, "not below -epsilon");
	gate_result_release(&res);
	o.epsilon = 0.001;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	gate_result_release(&res);

	/* a large mean drop carried by one task of ten, the others a little
	 * better: the interval reaches 0, not a clear regression */
	o = opts();
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 10; t++) {
		add(b, t, "x", t == 0 ? 1.0 : 0.5);
		add(c, t, "x", t == 0 ? 0.0 : 0.52);
	}
	compare(b, c, &o, &res);
	assert_true(res.all.diff < -0.08);
	assert_true(res.all.ci_hi >= 0);
	assert_int_equal(res.verdict, GATE_PASS);
	assert_contains(res.reason, "the CI reaches 0");
	gate_result_release(&res);
	free(b);
	free(c);
}

static void test_bootstrap_deterministic(void **state)
{
	double d[30], m1, lo1, hi1, m2, lo2, hi2, m3, lo3, hi3;
	struct sd_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < 30; i++)
		d[i] = sin((double)i) / 3;
	assert_int_equal(gate_bootstrap(d, 30, 5000, 0.95, 42, &m1, &lo1, &hi1, &err), 0);
	assert_int_equal(gate_bootstrap(d, 30, 5000, 0.95, 42, &m2, &lo2, &hi2, &err), 0);
	assert_int_equal(gate_bootstrap(d, 30, 5000, 0.95, 43, &m3, &lo3, &hi3, &err), 0);
	assert_true(m1 == m2 && lo1 == lo2 && hi1 == hi2);	/* the same seed: the same bits */
	assert_true(m1 == m3);
	assert_true(lo1 != lo3 || hi1 != hi3);			/* another seed: other resamples */
	assert_true(lo1 < m1 && m1 < hi1);
	/* the interval is near the normal approximation mean +- 1.96 sd/sqrt(n) */
	{
		double sum = 0, ss = 0, sd, half;

		for (size_t i = 0; i < 30; i++)
			sum += d[i];
		for (size_t i = 0; i < 30; i++)
			ss += (d[i] - sum / 30) * (d[i] - sum / 30);
		sd = sqrt(ss / 30);
		half = 1.96 * sd / sqrt(30);
		assert_true(fabs((hi1 - lo1) - 2 * half) < 0.25 * 2 * half);
	}
	/* a 50 % interval is narrower than a 95 % one */
	assert_int_equal(gate_bootstrap(d, 30, 5000, 0.5, 42, &m2, &lo2, &hi2, &err), 0);
	assert_true(hi2 - lo2 < hi1 - lo1);
	/* bad arguments are errors, not crashes */
	assert_int_equal(gate_bootstrap(d, 0, 5000, 0.95, 42, &m2, &lo2, &hi2, &err), -1);
	assert_int_equal(gate_bootstrap(d, 3, 5000, 1.0, 42, &m2, &lo2, &hi2, &err), -1);
}

static void test_gate_deterministic_seed(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result r1, r2;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 15; t++) {
		add(b, t, "x", 0.5);
		add(c, t, "x", 0.5 + sin((double)t) / 4);
	}
	compare(b, c, &o, &r1);
	compare(b, c, &o, &r2);
	assert_true(r1.all.ci_lo == r2.all.ci_lo && r1.all.ci_hi == r2.all.ci_hi);
	assert_string_equal(r1.reason, r2.reason);
	gate_result_release(&r2);
	o.seed = 7;
	compare(b, c, &o, &r2);
	assert_true(r1.all.ci_lo != r2.all.ci_lo || r1.all.ci_hi != r2.all.ci_hi);
	assert_true(r1.all.diff == r2.all.diff);
	gate_result_release(&r1);
	gate_result_release(&r2);
	free(b);
	free(c);
}

static void test_pass_at_k(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;
	struct sd_error err = { 0 };

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	/* 4 tasks x 5 samples; baseline passes 3 of 5 per task, candidate 1 of 5 */
	for (size_t t = 0; t < 4; t++) {
		for (int s = 0; s < 5; s++) {
			add(b, t, "x", s < 3 ? 1.0 : 0.5);
			add(c, t, "x", s < 1 ? 1.0 : 0.5);
		}
	}
	assert_int_equal(gate_metric_parse("pass@2", &o, &err), 0);
	assert_int_equal(o.metric, GATE_METRIC_PASS_K);
	assert_int_equal(o.k, 2);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	assert_near(res.tasks[0].base, pass_at_k(5, 3, 2), 1e-12);
	assert_near(res.tasks[0].cand, pass_at_k(5, 1, 2), 1e-12);
	assert_near(res.all.diff, pass_at_k(5, 1, 2) - pass_at_k(5, 3, 2), 1e-12);
	gate_result_release(&res);

	/* k = n is fine, k > n cannot be judged (never clamped) */
	assert_int_equal(gate_metric_parse("pass@5", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_not_equal(res.verdict, GATE_CANNOT_JUDGE);
	gate_result_release(&res);
	assert_int_equal(gate_metric_parse("pass@6", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "pass@6 needs at least 6 scored samples per task");
	assert_contains(res.reason, "n=5");
	gate_result_release(&res);

	/* the candidate alone too short: named as such */
	c->n = c->run.n = 4 * 5 - 1;	/* the last task has 4 samples */
	assert_int_equal(gate_metric_parse("pass@5", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "T03");
	assert_contains(res.reason, "candidate");
	gate_result_release(&res);

	assert_int_equal(gate_metric_parse("pass@0", &o, &err), -1);
	assert_int_equal(gate_metric_parse("pass@x", &o, &err), -1);
	assert_int_equal(gate_metric_parse("pass@1x", &o, &err), -1);
	assert_int_equal(gate_metric_parse("median", &o, &err), -1);
	assert_contains(err.msg, "unknown metric 'median'");
	free(b);
	free(c);
}

static void test_cannot_judge(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 5; t++) {
		add(b, t, "x", 1.0);
		add(c, t, "x", 0.0);
	}
	c->info.suite_hash = (char *)"suite-bbbb";
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "different suites");
	c->info.suite_hash = (char *)"suite-aaaa";

	c->info.formula_version = (char *)"1";
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "different formula versions");
	assert_contains(res.reason, "v1");
	c->info.formula_version = (char *)SCORE_FORMULA_VERSION;

	/* --fail-fast against a full run: scores differ, pass@k does not */
	c->info.config_json = (char *)"{\"fail_fast\":true,\"timeout\":3}";
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "candidate cand ran with --fail-fast and baseline base without");
	o.metric = GATE_METRIC_PASS_K;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	gate_result_release(&res);
	o.metric = GATE_METRIC_MEAN;
	b->info.config_json = (char *)"{\"fail_fast\":true}";
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	gate_result_release(&res);
	b->info.config_json = c->info.config_json = NULL;

	c->info.finished_ms = 0;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "candidate cand is unfinished");
	c->info.finished_ms = 2;

	b->run.n = 0;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "baseline base has no samples");
	b->run.n = b->n;

	for (size_t i = 0; i < c->n; i++) {
		c->r[i].harness_error = true;
		c->r[i].score = NAN;
	}
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "harness errors");
	for (size_t i = 0; i < c->n; i++) {
		c->r[i].harness_error = false;
		c->r[i].score = 0;
	}

	/* no task in common */
	for (size_t i = 0; i < c->n; i++)
		c->r[i].task_id = task_name(10 + i);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "no shared tasks");

	/* the shared tasks are compared, the others counted */
	c->r[0].task_id = task_name(0);
	c->r[1].task_id = task_name(1);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	assert_int_equal(res.n_tasks, 2);
	assert_int_equal(res.n_base_only, 3);
	assert_int_equal(res.n_cand_only, 3);
	gate_result_release(&res);

	/* a shared task that only has harness errors on one side is left out */
	c->r[1].harness_error = true;
	c->r[1].score = NAN;
	compare(b, c, &o, &res);
	assert_int_equal(res.n_tasks, 1);
	assert_int_equal(res.n_left_out, 1);
	gate_result_release(&res);
	free(b);
	free(c);
}

static void test_per_class(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;
	size_t fail_class = (size_t)-1;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	/* class "strings" (4 tasks) drops by 0.3; "math" (16 tasks) gains 0.1 */
	for (size_t t = 0; t < 20; t++) {
		bool s = t < 4;

		add(b, t, s ? "strings" : "math", 0.7);
		add(c, t, s ? "strings" : "math", s ? 0.4 - (double)t / 100 : 0.8);
	}
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_PASS);	/* overall better */
	assert_true(res.all.diff > 0);
	for (size_t i = 0; i < res.n_classes; i++)
		if (strcmp(res.classes[i].name, "strings") == 0)
			fail_class = i;
	assert_true(fail_class != (size_t)-1);
	assert_true(res.classes[fail_class].stat.regression);
	assert_int_equal(res.classes[fail_class].stat.n_tasks, 4);
	assert_contains(res.reason, "would fail with --per-class: 'strings'");
	gate_result_release(&res);

	o.per_class = true;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	assert_false(res.all.regression);
	assert_contains(res.reason, "1 class regressed (--per-class): 'strings'");
	gate_result_release(&res);

	/* the interval of a class does not depend on which other classes exist */
	{
		double lo = 0, hi = 0;

		compare(b, c, &o, &res);
		lo = res.classes[fail_class].stat.ci_lo;
		hi = res.classes[fail_class].stat.ci_hi;
		gate_result_release(&res);
		for (size_t i = 0; i < b->n; i++)
			if (strcmp(b->r[i].task_class, "math") == 0)
				b->r[i].task_class = c->r[i].task_class = (char *)"algebra";
		compare(b, c, &o, &res);
		for (size_t i = 0; i < res.n_classes; i++)
			if (strcmp(res.classes[i].name, "strings") == 0)
				assert_true(res.classes[i].stat.ci_lo == lo && res.classes[i].stat.ci_hi == hi);
		gate_result_release(&res);
	}
	free(b);
	free(c);
}

static void test_lint_and_composite(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;
	struct sd_error err = { 0 };

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	/* 6 tasks x 2 samples, same scores; baseline lints clean, candidate fails lint on one sample of each task */
	for (size_t t = 0; t < 6; t++) {
		for (int s = 0; s < 2; s++) {
			add(b, t, "x", 0.5)->lint = LINT_PASSED;
			add(c, t, "x", 0.5)->lint = s == 0 ? LINT_FAILED : LINT_PASSED;
		}
	}
	/* a sample whose linter was missing counts neither way */
	add(b, 0, "x", 0.5)->lint = LINT_UNAVAILABLE;

	assert_int_equal(gate_metric_parse("mean", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_PASS);
	gate_result_release(&res);

	assert_int_equal(gate_metric_parse("lint", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	assert_near(res.tasks[0].base, 1.0, 1e-12);
	assert_int_equal(res.tasks[0].n_base, 2);	/* the unavailable one is not counted */
	assert_near(res.tasks[0].cand, 0.5, 1e-12);
	assert_near(res.all.diff, -0.5, 1e-12);
	gate_result_release(&res);

	assert_int_equal(gate_metric_parse("composite", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	assert_near(res.tasks[0].base, 0.7 * 0.5 + 0.3 * 1.0, 1e-12);
	assert_near(res.tasks[0].cand, 0.7 * 0.5 + 0.3 * 0.5, 1e-12);
	gate_result_release(&res);

	/* equal lint: composite passes */
	compare(b, b, &o, &res);
	assert_int_equal(res.verdict, GATE_PASS);
	gate_result_release(&res);

	/* a run without lint results (none, unavailable, error only) cannot be judged on lint or composite */
	for (size_t i = 0; i < c->n; i++)
		c->r[i].lint = i % 3 == 0 ? LINT_NONE : i % 3 == 1 ? LINT_UNAVAILABLE : LINT_ERROR;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "candidate cand has no lint results");
	assert_contains(res.reason, "--metric composite");
	assert_int_equal(gate_metric_parse("lint", &o, &err), 0);
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_CANNOT_JUDGE);
	assert_contains(res.reason, "--metric lint");
	free(b);
	free(c);
}

/* --- outputs --- */

static char *capture_junit(const struct gate_result *res, const struct gate_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(gate_junit_write(f, res, o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *capture_print(const struct gate_result *res, const struct gate_options *o, const struct gate_run *b,
			   const struct gate_run *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	gate_print(f, res, o, b, c);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const char *last_line(const char *s)
{
	size_t len = strlen(s);
	const char *p;

	assert_true(len > 1 && s[len - 1] == '\n');
	for (p = s + len - 2; p > s && p[-1] != '\n'; p--)
		;
	return p;
}

static void test_outputs(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;
	char *x;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 6; t++) {
		const char *cls = t < 3 ? "<b>&\"x\"\x01" : "plain";

		add(b, t, cls, 1.0);
		add(c, t, cls, t < 3 ? 0.2 : 1.0);
	}
	o.per_class = true;
	compare(b, c, &o, &res);
	assert_int_equal(res.verdict, GATE_REGRESSION);
	x = capture_junit(&res, &o);
	assert_contains(x, "<testsuites name=\"sandeval gate\" tests=\"3\" failures=\"2\" errors=\"0\">");
	assert_contains(x, "name=\"mean: class &lt;b&gt;&amp;&quot;x&quot;\"");	/* \x01 dropped */
	assert_not_contains(x, "\x01");
	assert_contains(x, "<failure type=\"regression\"");
	assert_not_contains(x, "<error");
	free(x);
	x = capture_print(&res, &o, &b->run, &c->run);
	assert_contains(last_line(x), "gate: REGRESSION: mean -0.4000 over 6 shared tasks");
	assert_contains(x, "class <b>&\"x\"?");	/* a control character shown as '?' */
	assert_contains(x, "tasks that got worse: 3 of 6");
	free(x);
	gate_result_release(&res);

	compare(b, b, &o, &res);
	x = capture_junit(&res, &o);
	assert_contains(x, "failures=\"0\" errors=\"0\"");
	assert_not_contains(x, "<failure");
	free(x);
	x = capture_print(&res, &o, &b->run, &b->run);
	assert_contains(last_line(x), "gate: PASS: ");
	free(x);
	gate_result_release(&res);

	gate_result_cannot_judge(&res, "no run '%s' in '%s'", "r-<1>", "x.db");
	x = capture_junit(&res, &o);
	assert_contains(x, "tests=\"1\" failures=\"0\" errors=\"1\"");
	assert_contains(x, "<error type=\"cannot_judge\" message=\"no run 'r-&lt;1&gt;' in 'x.db'\"");
	free(x);
	x = capture_print(&res, &o, NULL, NULL);
	assert_string_equal(x, "gate: CANNOT JUDGE: no run 'r-<1>' in 'x.db'\n");
	free(x);
	gate_result_release(&res);
	free(b);
	free(c);
}

static void test_json(void **state)
{
	struct fake *b = malloc(sizeof(*b)), *c = malloc(sizeof(*c));
	struct gate_options o = opts();
	struct gate_result res;
	struct sd_error err = { 0 };
	char *dir = fx_tmpdir(), *path = fx_str("%s/gate.json", dir);
	json_t *doc;
	json_error_t jerr;

	(void)state;
	fake_init(b, "base");
	fake_init(c, "cand");
	for (size_t t = 0; t < 4; t++) {
		add(b, t, "k", 0.5);
		add(c, t, "k", 0.25);
	}
	compare(b, c, &o, &res);
	assert_int_equal(gate_write_json(path, &res, &o, &b->run, &c->run, &err), 0);
	doc = json_load_file(path, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "verdict")), "regression");
	assert_int_equal(json_integer_value(json_object_get(doc, "exit_code")), 1);
	assert_string_equal(json_string_value(json_object_get(doc, "metric")), "mean");
	assert_near(json_real_value(json_object_get(json_object_get(doc, "all"), "diff")), -0.25, 1e-12);
	assert_int_equal(json_array_size(json_object_get(doc, "tasks")), 4);
	assert_int_equal(json_array_size(json_object_get(doc, "classes")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "baseline"), "id")), "base");
	json_decref(doc);
	gate_result_release(&res);
	assert_int_equal(gate_write_json("/nonexistent/dir/x.json", &res, &o, NULL, NULL, &err), -1);
	assert_contains(err.msg, "cannot create '/nonexistent/dir/x.json'");
	fx_rm_rf(dir);
	free(dir);
	free(path);
	free(b);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_runs_pass),
		cmocka_unit_test(test_worse_candidate_regresses),
		cmocka_unit_test(test_epsilon_and_noise),
		cmocka_unit_test(test_bootstrap_deterministic),
		cmocka_unit_test(test_gate_deterministic_seed),
		cmocka_unit_test(test_pass_at_k),
		cmocka_unit_test(test_cannot_judge),
		cmocka_unit_test(test_per_class),
		cmocka_unit_test(test_lint_and_composite),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
