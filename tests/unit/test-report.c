/* test-report.c - unit tests of report.c and report-junit.c: summary table, human-eval JSONL, JUnit XML, JSON */
#include "fixture.h"

#include <jansson.h>
#include <math.h>
#include <sys/wait.h>

#include "report/report-internal.h"
#include "report/report.h"
#include "score/score.h"

#define T(name_, st_, detail_) { .name = (char *)(name_), .tier = TIER_CANONICAL, .weight = 1.0, \
				  .visibility = VIS_PUBLIC, .status = (st_), .detail = (char *)(detail_) }
#define TH(name_, st_) { .name = (char *)(name_), .tier = TIER_EDGE, .weight = 1.5, \
			  .visibility = VIS_HOLDOUT, .status = (st_) }

static struct test_result a0[] = { T("t0", TS_PASSED, NULL), T("t1", TS_FAILED, "expected 1, got 2"),
				   TH("h0", TS_PASSED) };
static struct test_result a1[] = { T("t0", TS_PASSED, NULL), T("t1", TS_PASSED, NULL), TH("h0", TS_PASSED) };
static struct test_result b0[] = { T("t0", TS_PASSED, NULL) };
static struct test_result b1[] = { T("t0", TS_PASSED, NULL), T("t1", TS_HARNESS_ERROR, "runner lost") };
static struct test_result b2[] = { T("t0", TS_PASSED, NULL) };
static struct test_result c0[] = { T("t0", TS_HARNESS_ERROR, "sandbox_error: clone: EAGAIN") };

#define R(task, sample, cls, tv) { .task_id = (char *)(task), .sample_id = (char *)(sample), \
	.task_class = (char *)(cls), .tests = (tv), .n_tests = sizeof(tv) / sizeof((tv)[0]), \
	.latency_ms = 250 }

/* Tasks A (2 samples, 1 passed), B (3 samples, all passed), C (only a harness
 * error), in the order parallel workers finished them. */
static struct sample_result results[] = {
	R("A", "A/0", "humaneval", a0),
	R("B", "B/2", "mbpp", b2),
	R("A", "A/1", "humaneval", a1),
	R("C", "C/0", "mbpp", c0),
	R("B", "B/1", "mbpp", b1),
	R("B", "B/0", "mbpp", b0),
};
#define N_RESULTS (sizeof(results) / sizeof(results[0]))

/* The samples file: the order of the reports; C/0 is not there (it follows). */
static struct sample samples[] = {
	{ .task_id = (char *)"A", .sample_id = (char *)"A/0", .code = (char *)"    return \"\xc3\xa9\"\n" },
	{ .task_id = (char *)"A", .sample_id = (char *)"A/1", .code = (char *)"    return x\n" },
	{ .task_id = (char *)"A", .sample_id = (char *)"A/2", .code = (char *)"not evaluated" },
	{ .task_id = (char *)"B", .sample_id = (char *)"B/0", .code = (char *)"pass" },
	{ .task_id = (char *)"B", .sample_id = (char *)"B/1", .code = (char *)"x = 1" },
	{ .task_id = (char *)"B", .sample_id = (char *)"B/2", .code = (char *)"    return 2\n" },
};
static const char *const report_order_ids[] = { "A/0", "A/1", "B/0", "B/1", "B/2", "C/0" };

static const struct sample_result *result_of(const char *sample_id)
{
	for (size_t i = 0; i < N_RESULTS; i++)
		if (strcmp(results[i].sample_id, sample_id) == 0)
			return &results[i];
	fail_msg("no result '%s'", sample_id);
	return NULL;
}
static const struct sample_set sample_set = { .samples = samples, .n = sizeof(samples) / sizeof(samples[0]) };

static const int ks[] = { 1, 2, 3, 100 };

static struct run_info run = {
	.id = "r-0123456789abcdef", .model = (char *)"model-x", .formula_version = (char *)"1",
	.config_json = (char *)"{\"jobs\": 2}", .started_ms = 1700000000000LL,
};

static int score_all(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_RESULTS; i++)
		score_sample(&results[i]);
	results[0].he_result = (char *)"failed: AssertionError";
	return 0;
}

static int setup(void **state)
{
	*state = fx_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	fx_rm_rf(*state);
	free(*state);
	return 0;
}

static struct report the_report(void)
{
	struct report rep = {
		.run = &run, .results = results, .n = N_RESULTS, .ks = ks, .n_ks = 4, .samples = &sample_set,
	};

	return rep;
}

/* The table as a string. */
static char *table_of(const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_table(f, rep);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_summary(void **state)
{
	struct report rep = the_report();
	struct report_summary sum;
	struct sd_error err = { 0 };

	(void)state;
	assert_true(results[3].harness_error);
	assert_false(results[4].harness_error);		/* one test of two was sandeval's fault */
	assert_true(results[4].passed);
	assert_int_equal(report_summarize(&rep, &sum, &err), 0);
	assert_int_equal(sum.n_samples, 6);
	assert_int_equal(sum.n_scored, 5);
	assert_int_equal(sum.n_harness_errors, 1);
	assert_int_equal(sum.n_tasks, 3);
	assert_int_equal(sum.n_passed, 4);
	assert_int_equal(sum.min_n, 2);
	assert_int_equal(sum.n_classes, 2);
	assert_string_equal(sum.classes[0].name, "humaneval");	/* order of first appearance */
	assert_string_equal(sum.classes[1].name, "mbpp");
	assert_int_equal(sum.classes[1].n_samples, 4);
	assert_int_equal(sum.classes[1].score.n, 3);
	assert_int_equal(sum.classes[1].n_passed, 3);
	/* A/0 scores 2.5/3.5 (t1 failed, h0 is edge 1.5), the others 1 */
	assert_float_equal(sum.classes[0].score.mean, (2.5 / 3.5 + 1) / 2, 1e-12);
	assert_float_equal(sum.all.mean, (2.5 / 3.5 + 4) / 5, 1e-12);
	assert_true(sum.all.median == 1.0);
	assert_float_equal(sum.all.p10, 2.5 / 3.5, 1e-12);
	assert_int_equal(sum.holdout.n, 2);
	assert_int_equal(sum.pub.n, 5);
	assert_float_equal(sum.pub.mean, (0.5 + 4) / 5, 1e-12);
	/* pass@k over tasks A (n=2, c=1) and B (n=3, c=3); C has no scored sample */
	assert_float_equal(sum.pass_k[0], (0.5 + 1.0) / 2, 1e-12);
	assert_float_equal(sum.pass_k[1], 1.0, 1e-12);
	assert_true(isnan(sum.pass_k[2]));	/* k = 3 > n = 2 for task A */
	assert_true(isnan(sum.pass_k[3]));
	assert_int_equal(sum.status[TS_PASSED], 8);
	assert_int_equal(sum.status[TS_FAILED], 1);
	assert_int_equal(sum.status[TS_HARNESS_ERROR], 2);
	assert_int_equal(sum.n_tests, 11);
	report_summary_release(&sum);
}

static void test_table(void **state)
{
	struct report rep = the_report();
	char *t = table_of(&rep), *line, *save = NULL;
	size_t row_len = 0;
	int rows = 0;

	(void)state;
	assert_contains(t, "r-0123456789abcdef");
	assert_contains(t, "model-x");
	assert_contains(t, "6 (5 scored, 1 harness error), 3 tasks");
	assert_contains(t, "class humaneval");
	assert_contains(t, "class mbpp");
	assert_contains(t, "public");
	assert_contains(t, "holdout");
	assert_contains(t, "passed     4/5 (80.0%)");
	assert_contains(t, "pass@1     0.750\n");
	assert_contains(t, "pass@2     1.000\n");
	assert_contains(t, "pass@3     n/a (k > n=2)\n");
	assert_contains(t, "pass@100   n/a (k > n=2)\n");
	assert_contains(t, "8 passed, 1 failed, 2 harness_error");
	assert_contains(t, "composite  absent: no lint results");
	/* the score rows line up: same length, numbers in the same columns */
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "score ", 6) != 0 && strncmp(line, "  ", 2) != 0)
			continue;
		if (!row_len)
			row_len = strlen(line);
		if (strlen(line) != row_len)
			fail_msg("row '%s' is %zu wide, the header %zu", line, strlen(line), row_len);
		rows++;
	}
	assert_int_equal(rows, 1 + 1 + 2 + 2);
	free(t);
}

static void test_table_edges(void **state)
{
	struct report rep = the_report();
	struct sample_result hostile = results[1];
	const int bad_k[] = { 0, 1 };
	char *t;

	(void)state;
	/* no results at all */
	rep.n = 0;
	rep.run = NULL;
	t = table_of(&rep);
	assert_contains(t, "0 (0 scored, 0 harness errors), 0 tasks");
	assert_contains(t, "pass@1     n/a (no scored samples)");
	free(t);

	/* a class name with terminal escapes and a k below 1 */
	hostile.task_class = (char *)"evil\x1b[2J\x07name\xff";
	rep = the_report();
	rep.results = &hostile;
	rep.n = 1;
	rep.ks = bad_k;
	rep.n_ks = 2;
	t = table_of(&rep);
	assert_not_contains(t, "\x1b");
	assert_not_contains(t, "\x07");
	assert_contains(t, "class evil?[2J?name?");
	assert_contains(t, "pass@0     n/a (k < 1)");
	assert_contains(t, "pass@1     1.000");
	free(t);

	/* a long class name is cut, and the columns still line up (in characters) */
	hostile.task_class = (char *)"caf\xc3\xa9-a-class-name-far-longer-than-thirty-two-characters";
	t = table_of(&rep);
	assert_contains(t, "class caf\xc3\xa9-a-class-name-far-longer-tha...");
	{
		char *line, *save = NULL;
		size_t width = 0;

		for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			size_t chars = 0;

			if (strncmp(line, "score ", 6) != 0 && strncmp(line, "  ", 2) != 0)
				continue;
			for (const char *p = line; *p; p++)
				chars += ((unsigned char)*p & 0xc0) != 0x80;
			if (!width)
				width = chars;
			if (chars != width)
				fail_msg("row '%s' is %zu characters wide, the header %zu", line, chars, width);
		}
	}
	free(t);
}

static json_t *load_line(const char *line)
{
	json_error_t jerr;
	json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);

	if (!j)
		fail_msg("line '%s' is not JSON: %s", line, jerr.text);
	return j;
}

static void test_results_jsonl(void **state)
{
	struct report rep = the_report();
	struct sd_error err = { 0 };
	char *path = fx_str("%s/samples.jsonl_results.jsonl", (char *)*state), *text, *line, *save = NULL;
	size_t i = 0;

	assert_int_equal(report_results_jsonl(path, &rep, &err), 0);
	text = fx_read(path);
	assert_non_null(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		json_t *j, *tests;
		const struct sample_result *r;

		assert_true(i < N_RESULTS);
		j = load_line(line);
		r = result_of(report_order_ids[i]);	/* in the samples file's order */
		/* human-eval's fields */
		assert_string_equal(json_string_value(json_object_get(j, "task_id")), r->task_id);
		/* C/0 is not in the sample set */
		assert_true(strcmp(r->sample_id, "C/0") == 0 ? json_is_null(json_object_get(j, "completion"))
							       : json_is_string(json_object_get(j, "completion")));
		assert_true(json_is_boolean(json_object_get(j, "passed")));
		assert_int_equal(json_is_true(json_object_get(j, "passed")), r->passed);
		assert_true(json_is_string(json_object_get(j, "result")));
		/* ours */
		assert_string_equal(json_string_value(json_object_get(j, "sample_id")), r->sample_id);
		if (r->harness_error)
			assert_true(json_is_null(json_object_get(j, "score")));
		else
			assert_float_equal(json_number_value(json_object_get(j, "score")), r->score, 1e-12);
		tests = json_object_get(j, "tests");
		assert_int_equal(json_array_size(tests), r->n_tests);
		for (size_t t = 0; t < r->n_tests; t++) {
			json_t *jt = json_array_get(tests, t);

			assert_string_equal(json_string_value(json_object_get(jt, "name")), r->tests[t].name);
			assert_string_equal(json_string_value(json_object_get(jt, "status")),
					    test_status_name(r->tests[t].status));
			assert_non_null(json_object_get(jt, "detail"));
		}
		json_decref(j);
	}
	assert_int_equal(i, N_RESULTS);
	free(text);

	/* completions matched by sample_id; C/0 is not in the sample set: null */
	text = fx_read(path);
	assert_contains(text, "\"task_id\":\"A\",\"completion\":\"    return \\\"\xc3\xa9\\\"\\n\",\"passed\":false,"
			"\"result\":\"failed: AssertionError\"");
	assert_contains(text, "\"sample_id\":\"B/2\"");
	assert_contains(text, "\"task_id\":\"C\",\"completion\":null,\"passed\":false,\"result\":\"harness_error\"");
	assert_contains(text, "\"sample_id\":\"A/0\",\"score\":0.714285714285714,");
	assert_contains(text, "\"detail\":\"expected 1, got 2\"");
	free(text);
	free(path);
}

static void test_results_jsonl_hostile(void **state)
{
	struct test_result tr[] = { T("bad\xff name", TS_ERROR, "ValueError: \xc3\x28 \x01 \"q\"") };
	struct sample_result r = R("T\xfe", "T/0", "x", tr);
	struct report rep = { .results = &r, .n = 1 };	/* no sample set, no run */
	struct sd_error err = { 0 };
	char *path = fx_str("%s/out.jsonl", (char *)*state), *text;
	json_t *j;

	score_sample(&r);
	assert_int_equal(report_results_jsonl(path, &rep, &err), 0);
	text = fx_read(path);
	j = load_line(text);
	assert_true(json_is_null(json_object_get(j, "completion")));
	assert_string_equal(json_string_value(json_object_get(j, "task_id")), "T\xef\xbf\xbd");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "tests"), 0),
							    "detail")), "ValueError: \xef\xbf\xbd( \x01 \"q\"");
	json_decref(j);
	free(text);

	/* write failures name the file */
	free(path);
	path = fx_str("%s/no/such/dir/out.jsonl", (char *)*state);
	assert_int_equal(report_results_jsonl(path, &rep, &err), -1);
	assert_contains(err.msg, "cannot create '");
	assert_contains(err.msg, "out.jsonl': No such file or directory");
	assert_int_equal(report_results_jsonl("/dev/full", &rep, &err), -1);
	assert_contains(err.msg, "cannot write '/dev/full'");
	free(path);
}

/* xmllint --noout PATH: 0 when well-formed. */
static int xmllint(const char *path, const char *xpath, char *out, size_t out_size)
{
	int fds[2], status;
	pid_t pid;
	size_t used = 0;
	ssize_t n;

	if (system("command -v xmllint >/dev/null") != 0)
		fx_skip("deps: xmllint is not installed (scripts/deps.sh installs libxml2-utils)");
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (xpath)
			execlp("xmllint", "xmllint", "--nonet", "--xpath", xpath, path, (char *)NULL);
		else
			execlp("xmllint", "xmllint", "--nonet", "--noout", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (out && used + 1 < out_size && (n = read(fds[0], out + used, out_size - 1 - used)) > 0)
		used += (size_t)n;
	if (out) {
		out[used] = '\0';
		if (xpath && used && out[used - 1] == '\n')
			out[used - 1] = '\0';	/* xmllint ends the value with a newline */
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* REP's JUnit XML written to PATH, checked well-formed, and read back */
static char *junit_of(const struct report *rep, const char *path)
{
	struct sd_error err = { 0 };
	char out[4096];

	assert_int_equal(report_junit(path, rep, &err), 0);
	if (xmllint(path, NULL, out, sizeof(out)) != 0)
		fail_msg("not well-formed: %s", out);
	return fx_read(path);
}

static void test_junit(void **state)
{
	struct report rep = the_report();
	struct sd_error err = { 0 };
	char *path = fx_str("%s/junit.xml", (char *)*state), *xml, out[4096];

	xml = junit_of(&rep, path);
	assert_contains(xml, "<testsuites name=\"r-0123456789abcdef\" tests=\"11\" failures=\"1\" errors=\"2\"");
	/* suites in the order tasks first appear */
	assert_true(strstr(xml, "<testsuite name=\"A\"") < strstr(xml, "<testsuite name=\"B\""));
	assert_true(strstr(xml, "<testsuite name=\"B\"") < strstr(xml, "<testsuite name=\"C\""));
	assert_contains(xml, "<testsuite name=\"A\" tests=\"6\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.500\">");
	assert_contains(xml, "<testcase classname=\"A\" name=\"A/0: t1\">\n"
			"      <failure type=\"failed\" message=\"expected 1, got 2\">expected 1, got 2</failure>");
	assert_contains(xml, "<error type=\"harness_error\" message=\"runner lost\">runner lost</error>");
	assert_contains(xml, "<testcase classname=\"A\" name=\"A/0: t0\"/>");
	/* testcases in the samples file's order, not the order they finished in */
	assert_true(strstr(xml, "name=\"B/0: t0\"") < strstr(xml, "name=\"B/1: t0\""));
	assert_true(strstr(xml, "name=\"B/1: t0\"") < strstr(xml, "name=\"B/2: t0\""));
	free(xml);
	/* without the samples file: the order of the results */
	rep.samples = NULL;
	assert_int_equal(report_junit(path, &rep, &err), 0);
	xml = fx_read(path);
	assert_true(strstr(xml, "name=\"B/2: t0\"") < strstr(xml, "name=\"B/0: t0\""));
	rep.samples = &sample_set;
	xmllint(path, "count(//testcase)", out, sizeof(out));
	assert_string_equal(out, "11");
	xmllint(path, "count(//testsuite)", out, sizeof(out));
	assert_string_equal(out, "3");
	free(xml);
	free(path);
}

/* --fail-fast: the tests not run are JUnit's skipped, counted as such */
static void test_junit_not_run(void **state)
{
	static struct test_result ff[] = { T("t0", TS_PASSED, NULL), T("t1", TS_FAILED, "expected 1, got 2"),
					   T("t2", TS_NOT_RUN, "not run (--fail-fast): t1 did not pass"),
					   T("t3", TS_NOT_RUN, NULL) };
	struct sample_result r = R("A", "A/9", "humaneval", ff);
	struct report rep = { .run = &run, .results = &r, .n = 1, .ks = ks, .n_ks = 4 };
	char *path = fx_str("%s/junit.xml", (char *)*state), *xml, out[4096];

	xml = junit_of(&rep, path);
	assert_contains(xml, "tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"2\"");
	assert_contains(xml, "<testsuite name=\"A\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"2\"");
	assert_contains(xml, "<testcase classname=\"A\" name=\"A/9: t2\">\n"
			"      <skipped message=\"not run (--fail-fast): t1 did not pass\"/>\n    </testcase>");
	assert_contains(xml, "<testcase classname=\"A\" name=\"A/9: t3\">\n      <skipped/>");
	xmllint(path, "count(//testcase/skipped)", out, sizeof(out));
	assert_string_equal(out, "2");
	free(xml);
	free(path);
}

static void test_junit_hostile(void **state)
{
	static const char *const hostile[] = {
		"]]>", "<![CDATA[ x ]]>", "<tag attr=\"v\">&amp;&", "a\0hidden after NUL",
		"\xff\xfe invalid UTF-8 \xc3\x28 \xe2\x82 \xf0\x9f\x98", "\x01\x02\x1b[31mred\x7f\x0b\x0c",
		"cr\r\nlf\n tab\t end", "\xef\xbf\xbe U+FFFE \xef\xbf\xbf U+FFFF", "\xed\xa0\x80 surrogate",
		"\xc0\x80 overlong NUL", "quotes \" ' &quot;", "\xf0\x9f\x98\x80 emoji \xe2\x82\xac", "",
		"-->", "<?xml version=\"1.0\"?>", "&#0; &#xD800;",
	};
	enum { N = sizeof(hostile) / sizeof(hostile[0]) };
	struct test_result tr[N];
	struct sample_result r[2];
	struct report rep;
	struct sd_error err = { 0 };
	char *path = fx_str("%s/hostile.xml", (char *)*state), *xml, out[8192];
	char longline[600];

	for (size_t i = 0; i < N; i++) {
		tr[i] = (struct test_result)T(hostile[i], (enum test_status)(i % (TS_HARNESS_ERROR + 1)), hostile[i]);
		if (tr[i].status == TS_PASSED)
			tr[i].status = TS_FAILED;
	}
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline + 198, "\xe2\x82\xac", 3);	/* a character across the message limit */
	tr[N - 1].detail = longline;
	memset(r, 0, sizeof(r));
	r[0] = (struct sample_result)R("task \x01<&>\"]]>\xff", "s\x02<0>", "c", tr);
	r[1] = (struct sample_result){ .task_id = (char *)"empty", .sample_id = (char *)"e/0",
				       .he_result = (char *)"sandbox_error: <&>\x01" };
	score_sample(&r[0]);
	score_sample(&r[1]);
	assert_true(r[1].harness_error);
	rep = (struct report){ .results = r, .n = 2 };
	assert_int_equal(report_junit(path, &rep, &err), 0);
	if (xmllint(path, NULL, out, sizeof(out)) != 0)
		fail_msg("not well-formed: %s", out);
	xml = fx_read(path);
	assert_not_contains(xml, "\x01");
	assert_not_contains(xml, "\x1b");
	assert_not_contains(xml, "\xff");
	assert_not_contains(xml, "]]>");
	assert_not_contains(xml, "hidden after NUL");
	assert_contains(xml, "]]&gt;");
	assert_contains(xml, "cr&#13;\nlf\n tab\t end");
	assert_contains(xml, "\xf0\x9f\x98\x80 emoji \xe2\x82\xac");
	assert_contains(xml, "<error type=\"harness_error\" message=\"sandbox_error: &lt;&amp;&gt;\">");
	assert_contains(xml, "name=\"task &lt;&amp;&gt;&quot;]]&gt;\xef\xbf\xbd\"");
	/* the message stops before the character that would pass 200 bytes, then "..." */
	{
		char want[256];

		memset(want, 'x', 198);
		memcpy(want + 198, "...\"", 5);
		assert_contains(xml, want);
	}
	/* what the parser reads back is the detail, minus what XML cannot hold */
	xmllint(path, "string(//testcase[7]/*)", out, sizeof(out));
	assert_string_equal(out, "cr\r\nlf\n tab\t end");
	xmllint(path, "string(//testcase[1]/*)", out, sizeof(out));
	assert_string_equal(out, "]]>");
	xmllint(path, "string(//testcase[6]/*/@message)", out, sizeof(out));
	assert_string_equal(out, "[31mred\x7f");
	free(xml);
	free(path);
}

static void test_json_summary(void **state)
{
	struct report rep = the_report();
	struct sd_error err = { 0 };
	char *path = fx_str("%s/summary.json", (char *)*state);
	json_error_t jerr;
	json_t *j, *pk;

	assert_int_equal(report_json(path, &rep, &err), 0);
	j = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!j)
		fail_msg("%s: %s", path, jerr.text);
	assert_string_equal(json_string_value(json_object_get(j, "formula_version")), SCORE_FORMULA_VERSION);
	assert_int_equal(json_integer_value(json_object_get(j, "samples")), 6);
	assert_int_equal(json_integer_value(json_object_get(j, "scored")), 5);
	assert_int_equal(json_integer_value(json_object_get(j, "harness_errors")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "tasks")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "passed")), 4);
	assert_int_equal(json_integer_value(json_object_get(j, "min_samples_per_task")), 2);
	assert_null(json_object_get(j, "composite"));		/* absent, not faked */
	assert_true(json_object_get(json_object_get(j, "score"), "mean") != NULL);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(j, "classes"),
									     "mbpp"), "samples")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "holdout"), "n")), 2);
	pk = json_object_get(j, "pass_at_k");
	assert_int_equal(json_array_size(pk), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pk, 0), "k")), 1);
	assert_float_equal(json_number_value(json_object_get(json_array_get(pk, 0), "value")), 0.75, 1e-12);
	assert_true(json_is_null(json_object_get(json_array_get(pk, 2), "value")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(pk, 2), "note")), "k > n=2");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tests"), "harness_error")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "run"), "id")), run.id);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(j, "run"),
									     "config"), "jobs")), 2);
	assert_true(json_is_null(json_object_get(json_object_get(j, "run"), "finished_ms")));
	json_decref(j);

	/* without a run, no results */
	rep.run = NULL;
	rep.n = 0;
	assert_int_equal(report_json(path, &rep, &err), 0);
	j = json_load_file(path, 0, &jerr);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "run")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "score"), "mean")));
	json_decref(j);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_edges),
		cmocka_unit_test_setup_teardown(test_results_jsonl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_results_jsonl_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit_not_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_summary, setup, teardown),
	};

	return cmocka_run_group_tests(tests, score_all, NULL);
}
