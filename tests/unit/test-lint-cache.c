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

/* Real lint sandboxes: lint ahead in batches (lint-batch.c). Each program
 * once, Python only; every sample then finds its report, from the batch's
 * sandbox, with the findings a sample linted alone (--cold) has; a second
 * pass finds nothing left to lint. */
static void test_batches(void **state)
{
	struct task t = { .id = "t", .class = "c", .language = "python", .format = TASK_NATIVE };
	struct task tc = { .id = "tc", .class = "c", .language = "c", .format = TASK_NATIVE };
	/* five programs with findings of their own, a repeat, one C program */
	struct sample s[7] = {
		{ .task_id = "t", .sample_id = "t/0", .code = "import os\n\n\ndef f(x):\n    return eval(x)\n" },
		{ .task_id = "t", .sample_id = "t/1", .code = "def f(x):\n    return x  \n" },
		{ .task_id = "t", .sample_id = "t/2", .code = "def f(x):\n    return x\n" },
		{ .task_id = "t", .sample_id = "t/3", .code = "def f(x)\n    return x\n" },
		{ .task_id = "t", .sample_id = "t/4", .code = "import sys\nimport subprocess\n\n\ndef f(x):\n"
			"    return subprocess.call(x, shell=True)\n" },
		{ .task_id = "t", .sample_id = "t/5", .code = "import os\n\n\ndef f(x):\n    return eval(x)\n" },
		{ .task_id = "tc", .sample_id = "tc/0", .code = "int f(void) { return 0; }\n" },
	};
	struct evaluator_item items[7];
	struct evaluator_batch_info info;
	struct sample_result r[6], alone[6];
	struct evaluator_options o;
	struct evaluator *ev, *cold;
	struct sd_error err = { 0 };

	(void)state;
	if (geteuid() != 0)
		fx_skip("root: a real lint sandbox here needs root (the CLI tests cover the unprivileged user)");
	if (!have("flake8") || !have("bandit"))
		fx_skip("deps: flake8 or bandit is not installed (scripts/deps.sh installs them)");
	for (int i = 0; i < 7; i++)
		items[i] = (struct evaluator_item){ i < 6 ? &t : &tc, &s[i] };
	evaluator_options_init(&o);
	o.runners_dir = "runners";
	ev = evaluator_new(&o, &err);
	assert_non_null(ev);
	/* one worker: batches of 3 and 2 (at least two batches a worker) */
	assert_int_equal(evaluator_lint_batches(ev, items, 7, 1, &info, &err), 0);
	if (info.programs != 5 || info.kept != 5 || info.batches != 2 || info.failed[0])
		fail_msg("programs %zu, batches %zu, kept %zu, failed '%s'", info.programs, info.batches, info.kept,
			 info.failed);

	o.lint_cache = false;
	o.cold = true;
	cold = evaluator_new(&o, &err);
	assert_non_null(cold);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(evaluator_lint(ev, &t, &s[i], &r[i], &err), 0);
		assert_int_equal(evaluator_lint(cold, &t, &s[i], &alone[i], &err), 0);
		assert_contains(r[i].lint_detail, "; linted in a batch (lint sandbox ");
		assert_contains(r[i].lint_detail, ids(&r[i]));	/* the batch's sandbox is the sample's */
		/* from ONE flake8 and ONE bandit run over its batch, cut back per file (lint.py together());
		 * warm only: without the lint zygote (info.warm_why) each file is linted cold, one at a time */
		if (!info.warm_why[0] && !strstr(r[i].lint_detail, " s (its share of one run over 2 files); bandit ") &&
		    !strstr(r[i].lint_detail, " s (its share of one run over 3 files); bandit "))
			fail_msg("%s: not from one run over its batch: %s", s[i].sample_id, r[i].lint_detail);
		if (r[i].lint != alone[i].lint || r[i].n_findings != alone[i].n_findings)
			fail_msg("%s: %s with %zu findings, alone %s with %zu", s[i].sample_id, lint_status_name(r[i].lint),
				 r[i].n_findings, lint_status_name(alone[i].lint), alone[i].n_findings);
		for (size_t k = 0; k < r[i].n_findings; k++) {
			assert_string_equal(r[i].findings[k].rule, alone[i].findings[k].rule);
			assert_string_equal(r[i].findings[k].message, alone[i].findings[k].message);
			assert_int_equal(r[i].findings[k].line, alone[i].findings[k].line);
		}
	}
	assert_int_equal(r[0].lint, LINT_FAILED);		/* bandit B307, flake8 F401 */
	assert_int_equal(r[1].lint, LINT_PASSED);		/* W291 only: style */
	assert_int_equal(r[2].n_findings, 0);
	assert_int_equal(r[3].lint, LINT_FAILED);		/* E999 */
	assert_string_equal(ids(&r[0]), ids(&r[5]));		/* one program, one report */

	/* nothing left to lint */
	assert_int_equal(evaluator_lint_batches(ev, items, 7, 1, &info, &err), 0);
	assert_int_equal(info.programs, 0);
	assert_int_equal(info.batches, 0);
	evaluator_free(ev);
	evaluator_free(cold);
	for (int i = 0; i < 6; i++) {
		sample_result_release(&r[i]);
		sample_result_release(&alone[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_hits_and_misses),
		cmocka_unit_test(test_batches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
