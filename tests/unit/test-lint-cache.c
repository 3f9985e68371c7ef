/* test-lint-cache.c - unit tests of lint-cache.c and the cache in lint.c: keys, hits, misses, the verdict judged anew */
#include "fixture.h"

#include "eval/evaluator-internal.h"
#include "eval/lint.h"

static bool have(const char *tool)
{
	char *cmd = fx_str("command -v %s >/dev/null 2>&1", tool);
	bool ok = system(cmd) == 0;

	free(cmd);
	return ok;
}

static void key_of(unsigned char *key, int n)
{
	memset(key, 0, LINT_KEY_LEN);
	memcpy(key, &n, sizeof(n));
	key[LINT_KEY_LEN - 1] = (unsigned char)n;
}

/* The table alone: what is put is got back, byte for byte, past several growths; others miss. */
static void test_table(void **state)
{
	struct lint_cache *c = lint_cache_new();
	unsigned char key[LINT_KEY_LEN];
	size_t len, hits, misses;
	const char *text;

	(void)state;
	assert_non_null(c);
	key_of(key, 1);
	assert_null(lint_cache_get(c, key, &len, NULL));	/* empty: a miss */
	for (int i = 0; i < 1000; i++) {
		char *t = fx_str("{\"lint\":1,\"n\":%d}", i);

		key_of(key, i);
		assert_int_equal(lint_cache_put(c, key, t, strlen(t), NULL), 0);
		free(t);
	}
	assert_non_null(c);
	for (int i = 0; i < 1000; i++) {
		char *t = fx_str("{\"lint\":1,\"n\":%d}", i);

		key_of(key, i);
		text = lint_cache_get(c, key, &len, NULL);
		assert_non_null(text);
		assert_int_equal(len, strlen(t));
		assert_string_equal(text, t);
		free(t);
	}
	/* the same key again keeps the first envelope */
	key_of(key, 7);
	assert_int_equal(lint_cache_put(c, key, "other", 5, NULL), 0);
	assert_string_equal(lint_cache_get(c, key, &len, NULL), "{\"lint\":1,\"n\":7}");
	key_of(key, 5000);
	assert_null(lint_cache_get(c, key, &len, NULL));
	lint_cache_counts(c, &hits, &misses);
	assert_int_equal(hits, 1001);
	assert_int_equal(misses, 2);
	lint_cache_free(c);
}

static char *ids(const struct sample_result *r)
{
	return r->sandbox_ids ? r->sandbox_ids : "";
}

/* Real lint sandboxes: the same program twice is linted once, with the same
 * findings; a threshold changed in between is applied to the kept report;
 * another plan (a linter's timeout) or another program is linted again. */
static void test_hits_and_misses(void **state)
{
	struct task t = { .id = "t", .class = "c", .language = "python", .format = TASK_NATIVE };
	struct sample s1 = { .task_id = "t", .sample_id = "t/0", .code = "import os\n\n\ndef f(x):\n    return eval(x)\n" };
	struct sample s2 = s1, s3 = s1;
	struct sample_result r1, r2, r3, r4, r5;
	struct evaluator_options o;
	struct evaluator *ev;
	struct sd_error err = { 0 };
	size_t hits, misses;

	(void)state;
	if (geteuid() != 0)
		fx_skip("root: a real lint sandbox here needs root (the CLI tests cover the unprivileged user)");
	if (!have("flake8") || !have("bandit"))
		fx_skip("deps: flake8 or bandit is not installed (scripts/deps.sh installs them)");
	s2.sample_id = "t/1";
	s3.sample_id = "t/2";
	s3.code = "import os\n\n\ndef f(x):\n    return eval(x)  \n";	/* one more finding: W291 */
	evaluator_options_init(&o);
	o.runners_dir = "runners";
	ev = evaluator_new(&o, &err);
	assert_non_null(ev);

	assert_int_equal(evaluator_lint(ev, &t, &s1, &r1, &err), 0);
	if (r1.lint != LINT_FAILED)
		fail_msg("lint %s: %s", lint_status_name(r1.lint), r1.lint_detail);
	assert_true(ids(&r1)[0] != '\0');	/* linted in a sandbox */
	assert_not_contains(r1.lint_detail, "identical program");

	/* the same program: the kept report, no sandbox, the same findings */
	assert_int_equal(evaluator_lint(ev, &t, &s2, &r2, &err), 0);
	assert_int_equal(r2.lint, LINT_FAILED);
	assert_string_equal(ids(&r2), "");
	assert_contains(r2.lint_detail, "an identical program's report (linted earlier in this process)");
	assert_int_equal(r2.n_findings, r1.n_findings);
	for (size_t i = 0; i < r1.n_findings; i++) {
		assert_string_equal(r2.findings[i].tool, r1.findings[i].tool);
		assert_string_equal(r2.findings[i].rule, r1.findings[i].rule);
		assert_string_equal(r2.findings[i].message, r1.findings[i].message);
		assert_int_equal(r2.findings[i].line, r1.findings[i].line);
		assert_int_equal(r2.findings[i].severity, r1.findings[i].severity);
	}

	/* the verdict is judged anew: at the threshold "error" the same report passes */
	ev->o.lint_threshold = LINT_SEV_ERROR;
	assert_int_equal(evaluator_lint(ev, &t, &s2, &r3, &err), 0);
	assert_int_equal(r3.lint, LINT_PASSED);
	assert_string_equal(ids(&r3), "");
	ev->o.lint_threshold = LINT_SEV_WARNING;

	/* another plan: linted again */
	ev->o.lint_tool_timeout = 20.0;
	assert_int_equal(evaluator_lint(ev, &t, &s2, &r4, &err), 0);
	assert_int_equal(r4.lint, LINT_FAILED);
	assert_true(ids(&r4)[0] != '\0');
	assert_not_contains(r4.lint_detail, "identical program");

	/* another program (one byte more): linted again, its own findings */
	assert_int_equal(evaluator_lint(ev, &t, &s3, &r5, &err), 0);
	assert_true(ids(&r5)[0] != '\0');
	if (r5.n_findings != r1.n_findings + 1)
		fail_msg("%zu findings, %zu before: %s", r5.n_findings, r1.n_findings, r5.lint_detail);

	lint_cache_counts(ev->lint_cache, &hits, &misses);
	assert_int_equal(hits, 2);
	assert_int_equal(misses, 3);
	evaluator_free(ev);

	/* without the cache (--cold): every sample in a sandbox of its own */
	o.lint_cache = false;
	ev = evaluator_new(&o, &err);
	assert_non_null(ev);
	sample_result_release(&r2);
	assert_int_equal(evaluator_lint(ev, &t, &s1, &r2, &err), 0);
	sample_result_release(&r3);
	assert_int_equal(evaluator_lint(ev, &t, &s2, &r3, &err), 0);
	assert_true(ids(&r2)[0] != '\0' && ids(&r3)[0] != '\0');
	assert_null(ev->lint_cache);	/* none made */
	evaluator_free(ev);
	sample_result_release(&r1);
	sample_result_release(&r2);
	sample_result_release(&r3);
	sample_result_release(&r4);
	sample_result_release(&r5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_hits_and_misses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
