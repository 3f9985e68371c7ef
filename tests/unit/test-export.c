/* test-export.c - unit tests of export.c: the round trip of a run, and every kind of bad document with its message */
#include "fixture.h"

#include <math.h>

#include "store/export.h"
#include "score/score.h"

static struct test_result tests0[] = {
	{ .name = (char *)"t0", .tier = TIER_EDGE, .weight = 1.5, .visibility = VIS_HOLDOUT, .status = TS_FAILED,
	  .detail = (char *)"expected 1, got \"2\"\n\xff\x01" },
};
static struct lint_finding findings0[] = {
	{ .tool = (char *)"flake8", .rule = (char *)"F401", .category = (char *)"error", .severity = LINT_SEV_ERROR,
	  .line = 3, .message = (char *)"'os' imported but unused" },
};

static void test_round_trip(void **state)
{
	struct run_info run = { .id = "r-0123456789abcdef", .model = (char *)"m", .suite_hash = (char *)"abc",
				.formula_version = (char *)SCORE_FORMULA_VERSION, .config_json = (char *)"{\"jobs\":2}",
				.seed = 7, .started_ms = 10, .finished_ms = 20 };
	struct sample_result in[3] = {
		{ .task_id = (char *)"B", .sample_id = (char *)"B/0", .task_class = (char *)"c", .score = 0.25,
		  .score_public = 0.5, .score_holdout = NAN, .lint = LINT_FAILED, .composite = 0.175,
		  .tests = tests0, .n_tests = 1, .findings = findings0, .n_findings = 1 },
		{ .task_id = (char *)"A", .sample_id = (char *)"A/0", .task_class = (char *)"c", .score = 1.0 / 3,
		  .score_public = NAN, .score_holdout = NAN, .passed = false, .lint = LINT_NONE, .composite = NAN },
		{ .task_id = (char *)"A", .sample_id = (char *)"A/1", .score = NAN, .score_public = NAN,
		  .score_holdout = NAN, .harness_error = true, .lint = LINT_ERROR, .composite = NAN },
	};
	struct run_info back;
	struct sample_result *v;
	struct sd_error err = { 0 };
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(export_write(f, "x.json", &run, in, 3, true, &err), 0);
	assert_int_equal(fclose(f), 0);
	assert_contains(buf, "\"format\": \"sandeval-run\"");
	assert_contains(buf, "\"version\": 1");
	if (export_parse(buf, len, "x.json", &back, &v, &n, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(n, 3);
	assert_string_equal(back.id, run.id);
	assert_string_equal(back.suite_hash, "abc");
	assert_string_equal(back.formula_version, SCORE_FORMULA_VERSION);
	assert_int_equal(back.finished_ms, 20);
	assert_int_equal(back.seed, 7);
	assert_string_equal(back.config_json, "{\"jobs\":2}");
	/* sorted by task, then sample */
	assert_string_equal(v[0].sample_id, "A/0");
	assert_string_equal(v[1].sample_id, "A/1");
	assert_string_equal(v[2].sample_id, "B/0");
	assert_true(v[0].score == 1.0 / 3);	/* every bit kept: the gate gives the same verdict */
	assert_true(v[1].harness_error && isnan(v[1].score) && v[1].lint == LINT_ERROR);
	assert_string_equal(v[1].task_class, "");
	assert_true(v[2].lint == LINT_FAILED && v[2].composite == 0.175 && v[2].score_public == 0.5);
	assert_true(isnan(v[2].score_holdout));
	assert_int_equal(v[2].n_tests, 1);
	assert_int_equal(v[2].tests[0].tier, TIER_EDGE);
	assert_int_equal(v[2].tests[0].visibility, VIS_HOLDOUT);
	assert_int_equal(v[2].tests[0].status, TS_FAILED);
	assert_string_equal(v[2].tests[0].detail, "expected 1, got \"2\"\n\xef\xbf\xbd\x01");
	assert_int_equal(v[2].n_findings, 1);
	assert_string_equal(v[2].findings[0].rule, "F401");
	assert_int_equal(v[2].findings[0].line, 3);
	export_results_free(v, n);
	run_info_release(&back);
	free(buf);
}

#define HEAD "{\"format\": \"sandeval-run\", \"version\": 1, "
#define RUN "\"run\": {\"id\": \"r-1\", \"suite_hash\": \"h\", \"formula_version\": \"2\", \"finished_ms\": 1}, "
#define S0 "{\"sample_id\": \"a\", \"task_id\": \"a\", \"score\": 1, \"passed\": true, \"harness_error\": false, " \
	   "\"lint\": \"none\", \"composite\": null}"

static const struct {
	const char *doc, *want;
} bad[] = {
	{ "", "'b.json':1:0: " },
	{ "{\"format\": \"sandeval-run\",", "'b.json':1:" },
	{ "[]", "'b.json': expected an object, got an array" },
	{ "{}", "'b.json': format: missing" },
	{ "{\"format\": \"other\"}", "'b.json': format: 'other' is not a sandeval export" },
	{ "{\"format\": \"sandeval-run\"}", "'b.json': version: missing" },
	{ "{\"format\": \"sandeval-run\", \"version\": \"1\"}", "'b.json': version: expected an integer, got a string" },
	{ "{\"format\": \"sandeval-run\", \"version\": 0}", "'b.json': version: 0 is less than 1" },
	{ "{\"format\": \"sandeval-run\", \"version\": 2}", "'b.json': version: 2 is newer than this sandeval reads (1)" },
	{ HEAD "\"samples\": []}", "'b.json': run: missing" },
	{ HEAD "\"run\": 3, \"samples\": []}", "'b.json': run: expected an object, got a number" },
	{ HEAD "\"run\": {\"id\": \"r-1\"}, \"samples\": []}", "'b.json': run.suite_hash: missing" },
	{ HEAD "\"run\": {\"id\": \"\", \"suite_hash\": \"h\"}, \"samples\": []}", "'b.json': run.id: expected 1 to 39" },
	{ HEAD "\"run\": {\"id\": \"r\", \"suite_hash\": \"h\", \"formula_version\": 2}, \"samples\": []}",
	  "'b.json': run.formula_version: expected a string, got a number" },
	{ HEAD "\"run\": {\"id\": \"r\", \"suite_hash\": \"h\", \"formula_version\": \"2\"}, \"samples\": []}",
	  "'b.json': run.finished_ms: missing (null for an unfinished run)" },
	{ HEAD "\"run\": {\"id\": \"r\", \"suite_hash\": \"h\", \"formula_version\": \"2\", \"finished_ms\": -1}, \"samples\": []}",
	  "'b.json': run.finished_ms: -1 is less than 0" },
	{ HEAD RUN "\"samples\": {}}", "'b.json': samples: expected an array, got an object" },
	{ HEAD RUN "\"x\": 1}", "'b.json': samples: missing" },
	{ HEAD RUN "\"samples\": [" S0 ", 5]}", "'b.json': samples[1]: expected an object, got a number" },
	{ HEAD RUN "\"samples\": [" S0 ", " S0 "]}", "'b.json': samples[1].sample_id: duplicate 'a' (also samples[0])" },
	{ HEAD RUN "\"samples\": [" S0 ", {\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": \"1\", \"passed\": true, "
	  "\"harness_error\": false, \"lint\": \"none\", \"composite\": null}]}",
	  "'b.json': samples[1].score: expected a number or null, got a string" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 1.5, \"passed\": true, "
	  "\"harness_error\": false, \"lint\": \"none\", \"composite\": null}]}", "'b.json': samples[0].score: 1.5 is not between 0 and 1" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": null, \"passed\": false, "
	  "\"harness_error\": false, \"lint\": \"none\", \"composite\": null}]}",
	  "'b.json': samples[0].score: expected a number (only a harness error has no score)" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 0, \"passed\": false, "
	  "\"harness_error\": true, \"lint\": \"none\", \"composite\": null}]}",
	  "'b.json': samples[0].score: a harness error has no score (expected null)" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": null, \"passed\": true, "
	  "\"harness_error\": true, \"lint\": \"none\", \"composite\": null}]}",
	  "'b.json': samples[0].passed: a harness error cannot have passed" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 1, \"passed\": 1, "
	  "\"harness_error\": false, \"lint\": \"none\", \"composite\": null}]}",
	  "'b.json': samples[0].passed: expected true or false, got a number" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 1, \"passed\": true, "
	  "\"harness_error\": false, \"lint\": \"maybe\", \"composite\": null}]}",
	  "'b.json': samples[0].lint: unknown value 'maybe' (expected one of: none, passed, failed, unavailable, error)" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 1, \"passed\": true, "
	  "\"harness_error\": false, \"lint\": \"none\"}]}", "'b.json': samples[0].composite: missing" },
	{ HEAD RUN "\"samples\": [{\"task_id\": \"a\"}]}", "'b.json': samples[0].sample_id: missing" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 1, \"passed\": true, "
	  "\"harness_error\": false, \"lint\": \"none\", \"composite\": null, \"tests\": [{\"name\": \"t\", \"status\": \"won\"}]}]}",
	  "'b.json': samples[0].tests[0].status: unknown value 'won'" },
	{ HEAD RUN "\"samples\": [{\"sample_id\": \"b\", \"task_id\": \"a\", \"score\": 1, \"passed\": true, "
	  "\"harness_error\": false, \"lint\": \"none\", \"composite\": null, \"findings\": [{\"line\": 1.5}]}]}",
	  "'b.json': samples[0].findings[0].line: expected an integer, got a number" },
	{ HEAD RUN "\"samples\": [" S0 "], \"samples\": []}", "'b.json':1:" },	/* duplicate key */
	{ "{\"format\": \"sandeval-run\\u0000\"}", "'b.json':1:" },	/* NUL in a string */
};

static void test_bad_documents(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run_info run;
		struct sample_result *v = NULL;
		size_t n = 0;
		struct sd_error err = { 0 };

		if (export_parse(bad[i].doc, strlen(bad[i].doc), "b.json", &run, &v, &n, &err) == 0)
			fail_msg("case %zu accepted: %s", i, bad[i].doc);
		if (!strstr(err.msg, bad[i].want))
			fail_msg("case %zu: '%s' does not contain '%s'", i, err.msg, bad[i].want);
	}
}

static void test_load(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/base.json", dir);
	struct run_info run;
	struct sample_result *v = NULL;
	size_t n = 0;
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(export_load(path, &run, &v, &n, &err), -1);
	assert_contains(err.msg, "cannot open");
	assert_contains(err.msg, "No such file or directory");
	fx_write(path, HEAD RUN "\"samples\": [" S0 "]}");
	assert_int_equal(export_load(path, &run, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_true(v[0].passed && v[0].score == 1);
	export_results_free(v, n);
	run_info_release(&run);
	assert_int_equal(export_load(dir, &run, &v, &n, &err), -1);	/* a directory */
	fx_rm_rf(dir);
	free(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
