/* test-report-html.c - unit tests of report-trend.c, report-compare.c, report-html.c and report-svg.c: metrics, arrows, the dashboard, escaping */
#include "fixture.h"

#include <ctype.h>
#include <math.h>

#include "report/report-html-internal.h"
#include "report/report-trend.h"
#include "score/score.h"
#include "store/store.h"

#define HOSTILE "<script>alert(1)</script>"

struct fx {
	char *dir, *db;
	struct store *st;
	char ids[4][40];
	size_t n_runs;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct sd_error err = { 0 };

	assert_non_null(fx);
	fx->dir = fx_tmpdir();
	fx->db = fx_str("%s/runs.db", fx->dir);
	fx->st = store_open(fx->db, &err);
	if (!fx->st)
		fail_msg("store_open: %s", err.msg);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	store_close(fx->st);
	fx_rm_rf(fx->dir);
	free(fx->dir);
	free(fx->db);
	free(fx);
	return 0;
}

static const char *new_run(struct fx *fx, const char *model, const char *config)
{
	struct run_info run = { 0 };
	struct sd_error err = { 0 };

	run.model = (char *)model;
	run.tasks_path = (char *)"tasks";
	run.samples_path = (char *)"samples.jsonl";
	run.suite_hash = (char *)"ab12";
	run.config_json = (char *)config;
	run.formula_version = (char *)SCORE_FORMULA_VERSION;
	run.started_ms = 1700000000000LL + (int64_t)fx->n_runs * 60000;	/* listed in this order */
	run.finished_ms = run.started_ms + 5000;
	if (store_run_create(fx->st, &run, &err) < 0)
		fail_msg("store_run_create: %s", err.msg);
	memcpy(fx->ids[fx->n_runs], run.id, sizeof(run.id));
	return fx->ids[fx->n_runs++];
}

struct spec {
	const char *task, *cls;
	double score;			/* NAN: a harness error */
	enum lint_status lint;
	const char *category;		/* of one finding, or NULL */
	double rouge;
	int64_t cpu_ms;
	const char *completion;
};

static void put(struct fx *fx, const char *run_id, const char *sample_id, const struct spec *sp)
{
	struct test_result test = { .name = (char *)"t0", .tier = TIER_CANONICAL, .weight = 1,
				    .status = sp->score == 1 ? TS_PASSED : TS_FAILED,
				    .detail = (char *)"expected 1, got 2" };
	struct lint_finding finding = { .tool = (char *)"flake8", .rule = (char *)"E501",
					.category = (char *)sp->category, .severity = LINT_SEV_WARNING,
					.line = 3, .message = (char *)"line too long " HOSTILE };
	struct sample_result r = {
		.task_id = (char *)sp->task, .sample_id = (char *)sample_id, .task_class = (char *)sp->cls,
		.model = (char *)"m", .tests = &test, .n_tests = 1, .passed = sp->score == 1,
		.he_result = (char *)(sp->score == 1 ? "passed" : "failed: expected 1, got 2"),
		.score = sp->score, .score_public = sp->score, .score_holdout = NAN,
		.harness_error = isnan(sp->score), .latency_ms = sp->cpu_ms * 2, .cpu_ms = sp->cpu_ms,
		.peak_memory_bytes = 10 << 20, .completion = (char *)sp->completion, .rouge_l = sp->rouge,
		.lint = sp->lint, .findings = sp->category ? &finding : NULL, .n_findings = sp->category ? 1 : 0,
	};
	struct sd_error err = { 0 };

	if (sp->lint == LINT_PASSED || sp->lint == LINT_FAILED)
		r.composite = score_composite(sp->score, sp->lint == LINT_PASSED);
	else
		r.composite = NAN;
	if (isnan(sp->score))
		test.status = TS_HARNESS_ERROR;
	if (store_sample_put(fx->st, run_id, &r, &err) < 0)
		fail_msg("store_sample_put: %s", err.msg);
}

/* Two runs of tasks a, b (class "x") and c (class "y"): the second better. */
static void two_runs(struct fx *fx, bool lint)
{
	const char *r1 = new_run(fx, "base", "{\"k\":[1,2]}"), *r2;
	enum lint_status pass = lint ? LINT_PASSED : LINT_NONE, failing = lint ? LINT_FAILED : LINT_NONE;
	const char *cat = lint ? "style" : NULL;

	put(fx, r1, "a/0", &(struct spec){ "a", "x", 0.5, failing, cat, 0.9, 100, "return 1" });
	put(fx, r1, "a/1", &(struct spec){ "a", "x", 1, pass, NULL, 0.8, 100, "return 2" });
	put(fx, r1, "b/0", &(struct spec){ "b", "x", 0, failing, cat, 0.95, 100, "x" });
	put(fx, r1, "b/1", &(struct spec){ "b", "x", 0, failing, lint ? "security" : NULL, 0.2, 100, "y" });
	put(fx, r1, "c/0", &(struct spec){ "c", "y", 1, pass, NULL, 0.1, 100, "z" });
	put(fx, r1, "c/1", &(struct spec){ "c", "y", 1, pass, NULL, 0.3, 100, "w" });
	r2 = new_run(fx, "cand", "{\"k\":[1,2]}");
	put(fx, r2, "a/0", &(struct spec){ "a", "x", 1, pass, NULL, 0.9, 100, "return 1" });
	put(fx, r2, "a/1", &(struct spec){ "a", "x", 1, pass, NULL, 0.8, 100, "return 2" });
	put(fx, r2, "b/0", &(struct spec){ "b", "x", 1, pass, NULL, 0.95, 100, "x" });
	put(fx, r2, "b/1", &(struct spec){ "b", "x", 0, failing, cat, 0.9, 100, "y" });
	put(fx, r2, "c/0", &(struct spec){ "c", "y", 1, pass, NULL, 0.1, 100, "z" });
	put(fx, r2, "c/1", &(struct spec){ "c", "y", 1, pass, NULL, 0.3, 900, "w" });	/* 4x the CPU */
}

static void load(struct fx *fx, const char *run_id, const char *against, struct trend *t)
{
	struct sd_error err = { 0 };

	if (trend_load(fx->st, fx->db, run_id, against, TREND_LAST_DEFAULT, t, &err) < 0)
		fail_msg("trend_load: %s", err.msg);
}

/* Output of FN on a memory stream, malloc'd. */
#define CAPTURE(buf, call) do { \
	size_t len_; \
	FILE *f_ = open_memstream(&(buf), &len_); \
	assert_non_null(f_); \
	call; \
	assert_int_equal(fclose(f_), 0); \
} while (0)

static char *page(const struct trend *t)
{
	char *out = NULL;
	struct sd_error err = { 0 };
	int rc = 0;

	CAPTURE(out, rc = report_html_write(f_, t, &err));
	if (rc < 0)
		fail_msg("report_html_write: %s", err.msg);
	return out;
}

/* The <svg> of chart ID in HTML, malloc'd, or a failure when missing. */
static char *chart(const char *html, const char *id)
{
	char *needle = fx_str("<svg data-chart=\"%s\"", id);
	const char *a = strstr(html, needle), *b;

	if (!a)
		fail_msg("no chart '%s'", id);
	b = strstr(a, "</svg>");
	assert_non_null(b);
	free(needle);
	return strndup(a, (size_t)(b - a) + 6);
}

static void assert_drawn(const char *html, const char *id)
{
	char *svg = chart(html, id);

	assert_contains(svg, "<title");
	assert_contains(svg, "class=\"mark");
	assert_not_contains(svg, "data-empty");
	free(svg);
}

static void assert_empty_chart(const char *html, const char *id, const char *why)
{
	char *svg = chart(html, id);

	assert_contains(svg, "data-empty=\"true\"");
	assert_contains(svg, why);
	assert_not_contains(svg, "class=\"mark");
	free(svg);
}

static const char *const all_charts[] = { "trend-mean", "trend-pass1", "trend-lint", "trend-composite", "trend-cpu",
					  "score-histogram", "lint-categories", "rouge-vs-score" };

/* --- metrics --- */

static void test_metrics(void **state)
{
	struct fx *fx = *state;
	struct trend t;

	two_runs(fx, true);
	load(fx, NULL, NULL, &t);
	assert_int_equal(t.n_runs, 2);
	assert_true(t.has_base);
	assert_string_equal(t.base.info.id, fx->ids[0]);
	assert_string_equal(t.runs[1].info.id, fx->ids[1]);
	assert_int_equal(t.n_ks, 2);	/* 1, then the run's own 2 */
	assert_int_equal(t.ks[1], 2);
	/* base: scores .5 1 0 0 1 1 */
	assert_int_equal(t.base.all.n_scored, 6);
	assert_float_equal(t.base.all.score.mean, 3.5 / 6, 1e-12);
	assert_float_equal(t.base.all.score.median, 0.75, 1e-12);
	assert_float_equal(t.base.all.score.p10, 0, 1e-12);
	/* pass@1 per task: a 1/2, b 0/2, c 2/2 -> 0.5; pass@2: a 1, b 0, c 1 */
	assert_float_equal(t.base.all.pass_k[0], 0.5, 1e-12);
	assert_float_equal(t.base.all.pass_k[1], 2.0 / 3, 1e-12);
	assert_float_equal(t.base.all.lint_rate, 0.5, 1e-12);
	assert_float_equal(t.base.all.composite, (0.7 * 3.5 + 0.3 * 3) / 6, 1e-12);
	assert_float_equal(t.runs[1].all.cpu_s, 1.4, 1e-9);
	assert_float_equal(t.runs[1].all.wall_s, 2.8, 1e-9);
	/* classes, in the order of their first sample */
	assert_int_equal(t.runs[1].n_classes, 2);
	assert_string_equal(t.runs[1].classes[0].name, "x");
	assert_float_equal(t.runs[1].classes[0].m.score.mean, 0.75, 1e-12);
	assert_float_equal(t.runs[1].classes[1].m.pass_k[0], 1, 1e-12);
	assert_int_equal(t.n_samples, 6);
	trend_release(&t);
}

static void test_metrics_no_lint_harness_error(void **state)
{
	struct fx *fx = *state;
	const char *r = new_run(fx, "m", NULL);
	struct trend t;

	put(fx, r, "a/0", &(struct spec){ "a", "x", NAN, LINT_NONE, NULL, NAN, 50, "" });
	put(fx, r, "a/1", &(struct spec){ "a", "x", 1, LINT_UNAVAILABLE, NULL, 0.5, 50, "" });
	load(fx, NULL, NULL, &t);
	assert_false(t.has_base);
	assert_int_equal(t.n_ks, 3);	/* no config: 1, 10, 100 */
	assert_int_equal(t.runs[0].all.n_samples, 2);
	assert_int_equal(t.runs[0].all.n_scored, 1);
	assert_int_equal(t.runs[0].all.min_n, 1);
	assert_true(isnan(t.runs[0].all.pass_k[1]));	/* k = 10 > n = 1: never clamped */
	/* a missing linter is neither a pass nor a fail (as lint_summarize and the
	 * gate count it): no lint rate, no composite without a lint verdict */
	assert_int_equal(t.runs[0].all.n_linted, 0);
	assert_true(isnan(t.runs[0].all.lint_rate));
	assert_true(isnan(t.runs[0].all.composite));
	trend_release(&t);
}

static void test_load_errors(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };
	struct trend t;

	assert_int_equal(trend_load(fx->st, fx->db, NULL, NULL, 20, &t, &err), -1);
	assert_contains(err.msg, "no runs in '");
	new_run(fx, "m", NULL);
	assert_int_equal(trend_load(fx->st, fx->db, "r-nope", NULL, 20, &t, &err), -1);
	assert_contains(err.msg, "no run 'r-nope' in '");
	assert_int_equal(trend_load(fx->st, fx->db, NULL, "r-other", 20, &t, &err), -1);
	assert_contains(err.msg, "no run 'r-other'");
}

static void test_window(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };
	struct trend t;

	for (int i = 0; i < 4; i++)
		put(fx, new_run(fx, "m", NULL), "a/0", &(struct spec){ "a", "x", i / 4.0, LINT_NONE, NULL, 0.5, 10, "" });
	assert_int_equal(trend_load(fx->st, fx->db, NULL, NULL, 2, &t, &err), 0);
	assert_int_equal(t.n_runs, 2);
	assert_string_equal(t.runs[0].info.id, fx->ids[2]);
	assert_string_equal(t.base.info.id, fx->ids[2]);
	trend_release(&t);
	/* an older run, against one after it */
	assert_int_equal(trend_load(fx->st, fx->db, fx->ids[1], fx->ids[3], 20, &t, &err), 0);
	assert_int_equal(t.n_runs, 2);
	assert_string_equal(t.runs[1].info.id, fx->ids[1]);
	assert_string_equal(t.base.info.id, fx->ids[3]);
	trend_release(&t);
	/* the oldest: nothing before it */
	assert_int_equal(trend_load(fx->st, fx->db, fx->ids[0], NULL, 20, &t, &err), 0);
	assert_false(t.has_base);
	assert_int_equal(t.n_db_runs, 4);
	trend_release(&t);
}

/* --- the terminal --- */

static void test_compare_arrows(void **state)
{
	struct fx *fx = *state;
	struct trend t;
	char *out = NULL, *utf = NULL;

	two_runs(fx, true);
	load(fx, NULL, NULL, &t);
	CAPTURE(out, report_compare(f_, &t, false));
	CAPTURE(utf, report_compare(f_, &t, true));
	assert_contains(out, "mean                             0.583               0.833    +0.250 ^");
	assert_contains(out, "p10                              0.000               0.000    +0.000 =");
	assert_contains(out, "pass@2                           0.667               1.000    +0.333 ^");
	assert_contains(out, "lint pass rate                   0.500               0.833    +0.333 ^");
	assert_contains(out, "CPU time                        0.60 s              1.40 s     +133% v");
	assert_contains(out, "class x\n");
	assert_contains(out, "class y\n");
	assert_contains(out, "pass@1                           1.000               1.000    +0.000 =");
	assert_not_contains(out, "\xe2\x86");
	assert_contains(utf, "+0.250 \u2191");
	assert_contains(utf, "+133% \u2193");
	free(out);
	free(utf);
	trend_release(&t);
	/* and the other way round: worse */
	load(fx, fx->ids[0], fx->ids[1], &t);
	CAPTURE(out, report_compare(f_, &t, false));
	assert_contains(out, "-0.250 v");
	free(out);
	trend_release(&t);
}

static void test_compare_alone_no_lint(void **state)
{
	struct fx *fx = *state;
	struct trend t;
	char *out = NULL;
	const char *r = new_run(fx, "m\x1b[31m", NULL);

	put(fx, r, "a/0", &(struct spec){ "a", "x", 1, LINT_NONE, NULL, 0.5, 10, "" });
	load(fx, NULL, NULL, &t);
	CAPTURE(out, report_compare(f_, &t, false));
	assert_contains(out, "nothing to compare with: the database holds only this run");
	assert_contains(out, "lint pass rate     no lint results\n");
	assert_contains(out, "composite          absent: needs lint results\n");
	assert_contains(out, "model m?[31m");	/* no escape sequence reaches the terminal */
	assert_contains(out, "n/a for k = 10, 100: k > n=1");
	free(out);
	trend_release(&t);
}

/* --- the page --- */

static void test_html_escape(void **state)
{
	char *text = NULL, *attr = NULL, *cut = NULL;

	(void)state;
	CAPTURE(text, html_text(f_, HOSTILE " & 'q' \"d\"\n\t\x01\xff\xc3\xa9\xc2\x85", 0));
	assert_string_equal(text, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;q&#39; &quot;d&quot;\n\t"
			    "\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd");
	CAPTURE(attr, html_attr(f_, "a\"\nb<", 0));
	assert_string_equal(attr, "a&quot; b&lt;");
	CAPTURE(cut, html_text(f_, "\xc3\xa9\xc3\xa9\xc3\xa9<<", 3));
	assert_string_equal(cut, "\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x80\xa6");
	free(text);
	free(attr);
	free(cut);
	/* U+FFFE and U+FFFF are no XML characters (inline SVG): replaced; U+FFFD and U+FDD0 are */
	CAPTURE(text, html_text(f_, "a\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd\xef\xb7\x90", 0));
	assert_string_equal(text, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xb7\x90");
	free(text);
}

static void test_html_hostile(void **state)
{
	struct fx *fx = *state;
	struct trend t;
	char *html, *lower;
	const char *r1 = new_run(fx, HOSTILE, NULL), *r2 = new_run(fx, "\"><img src=x onerror=alert(1)>", NULL);

	put(fx, r1, HOSTILE, &(struct spec){ HOSTILE, HOSTILE, 0, LINT_FAILED, HOSTILE, 0.9, 10, HOSTILE });
	put(fx, r2, HOSTILE, &(struct spec){ HOSTILE, HOSTILE, 0, LINT_FAILED, HOSTILE, 0.9, 10, HOSTILE "\n" HOSTILE });
	put(fx, r2, "ok", &(struct spec){ "t\"'&", "c\x01", 1, LINT_PASSED, NULL, 0.1, 10, "</pre></td><b>" });
	load(fx, NULL, NULL, &t);
	html = page(&t);
	lower = strdup(html);
	for (char *p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	assert_not_contains(lower, "<script");
	assert_not_contains(lower, "<img");
	assert_not_contains(html, "</pre></td><b>");
	assert_contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_contains(html, "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
	assert_contains(html, "Content-Security-Policy");
	for (size_t i = 0; i < sizeof(all_charts) / sizeof(all_charts[0]); i++)
		assert_drawn(html, all_charts[i]);
	free(lower);
	free(html);
	trend_release(&t);
}

static void test_html_every_chart(void **state)
{
	struct fx *fx = *state;
	struct trend t;
	char *html, *svg;

	two_runs(fx, true);
	load(fx, NULL, NULL, &t);
	html = page(&t);
	assert_contains(html, "<!DOCTYPE html>");
	assert_not_contains(html, "<script");
	assert_not_contains(html, "http://");	/* nothing to load: the only URL is SVG's namespace */
	for (size_t i = 0; i < sizeof(all_charts) / sizeof(all_charts[0]); i++) {
		char *s = chart(html, all_charts[i]);
		const char *title = strstr(s, ">");

		/* the accessible title is the first child */
		assert_non_null(title);
		assert_true(strncmp(title + 1, "<title", 6) == 0);
		free(s);
		assert_drawn(html, all_charts[i]);
	}
	/* one line per class and one overall, a point per run */
	svg = chart(html, "trend-mean");
	assert_contains(svg, "data-series=\"all classes\"");
	assert_contains(svg, "data-series=\"x\"");
	assert_contains(svg, "data-series=\"y\"");
	free(svg);
	/* the histogram marks the median and p10; lint bars by category */
	svg = chart(html, "score-histogram");
	assert_contains(svg, "data-marker=\"median\"");
	assert_contains(svg, "data-marker=\"p10\"");
	free(svg);
	svg = chart(html, "lint-categories");
	assert_contains(svg, ">style<");
	free(svg);
	/* b/1 scores 0 with ROUGE-L 0.9: the lexical metric's worst miss, first in the table */
	assert_contains(html, "data-table=\"lexical-disagreements\"");
	assert_contains(strstr(html, "data-table=\"lexical-disagreements\""), "<code>b/1</code>");
	assert_contains(html, "data-table=\"failing-tasks\"");
	assert_contains(html, "data-table=\"slowest-tasks\"");
	assert_contains(html, "class=\"delta better\"");	/* mean 0.583 -> 0.833 */
	assert_contains(html, "class=\"delta worse\"");		/* CPU +133% */
	free(html);
	trend_release(&t);
}

static void test_html_no_lint(void **state)
{
	struct fx *fx = *state;
	struct trend t;
	char *html;

	two_runs(fx, false);
	load(fx, NULL, NULL, &t);
	html = page(&t);
	assert_empty_chart(html, "trend-lint", "no lint results");
	assert_empty_chart(html, "trend-composite", "absent: needs lint results");
	assert_empty_chart(html, "lint-categories", "no lint results");
	assert_drawn(html, "trend-mean");
	assert_drawn(html, "rouge-vs-score");
	assert_contains(html, "No lint results in this run");
	free(html);
	trend_release(&t);
}

static void test_html_single_and_empty_run(void **state)
{
	struct fx *fx = *state;
	struct trend t;
	char *html, *svg;
	const char *r = new_run(fx, "m", NULL);

	put(fx, r, "a/0", &(struct spec){ "a", "x", 1, LINT_NONE, NULL, NAN, 10, "" });
	load(fx, NULL, NULL, &t);
	html = page(&t);
	assert_contains(html, "Nothing to compare with: the database holds only this run.");
	svg = chart(html, "trend-mean");
	assert_contains(svg, "<circle class=\"mark point\"");
	free(svg);
	assert_empty_chart(html, "rouge-vs-score", "no sample has a ROUGE-L");
	free(html);
	trend_release(&t);

	new_run(fx, "empty", NULL);	/* a run that recorded nothing (killed at once) */
	load(fx, NULL, NULL, &t);
	assert_int_equal(t.n_samples, 0);
	html = page(&t);
	assert_empty_chart(html, "score-histogram", "no scored samples");
	assert_empty_chart(html, "lint-categories", "no lint results");
	assert_empty_chart(html, "rouge-vs-score", "no sample has a ROUGE-L");
	assert_drawn(html, "trend-mean");	/* the earlier run's point */
	assert_contains(html, "No task failed.");
	free(html);
	trend_release(&t);
}

static void test_html_file(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };
	struct trend t;
	char *path = fx_str("%s/report.html", fx->dir), *bad = fx_str("%s/no/such/dir.html", fx->dir);

	two_runs(fx, false);
	load(fx, NULL, NULL, &t);
	assert_int_equal(report_html(path, &t, &err), 0);
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(report_html(bad, &t, &err), -1);
	assert_contains(err.msg, "cannot create '");
	assert_contains(err.msg, "No such file or directory");
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(report_html("/dev/full", &t, &err), -1);
		assert_contains(err.msg, "cannot write '/dev/full'");
	}
	trend_release(&t);
	free(path);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics_no_lint_harness_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_arrows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_alone_no_lint, setup, teardown),
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test_setup_teardown(test_html_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_every_chart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_no_lint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_single_and_empty_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
