/* test-lint.c - unit tests of lint.c and lint-parse.c: parsers on real linter output, the threshold, a missing linter, figures */
#include "fixture.h"

#include <dirent.h>
#include <math.h>

#include "eval/evaluator.h"
#include "eval/lint.h"
#include "score/metrics.h"
#include "report/report.h"
#include "score/score.h"
#include "base/utf8.h"
#include "base/util.h"

/* Data-driven cases: tests/unit/lint/<tool>-<case>/ holds "output" (what the
 * real tool printed, captured in the lint sandbox on /work/candidate.*),
 * "exit" (its exit status) and "expect": one "RULE\tSEVERITY\tCATEGORY\tLINE"
 * line per finding in the order the tool printed them, or "FAIL" when the
 * output makes no sense for that exit status. */
#define CASES "tests/unit/lint"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	*len = 0;
	for (;;) {
		buf = realloc(buf, cap = cap * 2 + 4096);
		assert_non_null(buf);
		*len += fread(buf + *len, 1, cap - *len - 1, f);
		if (*len < cap - 1)
			break;
	}
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static const char *tool_of(const char *name)
{
	for (size_t i = 0; lint_tools[i]; i++) {
		size_t n = strlen(lint_tools[i]);

		if (strncmp(name, lint_tools[i], n) == 0 && name[n] == '-')
			return lint_tools[i];
	}
	return NULL;
}

static const char *source_for(const char *tool)
{
	if (!strcmp(tool, "flake8") || !strcmp(tool, "bandit"))
		return "/work/candidate.py";
	if (!strcmp(tool, "eslint"))
		return "/work/candidate.js";
	return "/work/candidate.c";
}

static void run_case(const char *name, int *n_cases)
{
	const char *tool = tool_of(name);
	cleanup_free char *out_path = fx_str(CASES "/%s/output", name);
	cleanup_free char *exit_path = fx_str(CASES "/%s/exit", name);
	cleanup_free char *expect_path = fx_str(CASES "/%s/expect", name);
	size_t out_len, exit_len, expect_len, k = 0;
	char *out = slurp(out_path, &out_len), *ex = slurp(exit_path, &exit_len);
	char *expect = slurp(expect_path, &expect_len), *save = NULL;
	struct lint_findings fs = { 0 };
	struct sd_error err = { 0 };
	int rc;

	if (!tool)
		fail_msg("case '%s': no linter of that name", name);
	rc = lint_parse(tool, out, out_len, atoi(ex), source_for(tool), &fs, &err);
	if (strncmp(expect, "FAIL", 4) == 0) {
		if (rc == 0)
			fail_msg("case '%s': parsed as %zu findings, expected a failure", name, fs.n);
		assert_true(err.msg[0] != '\0');
	} else {
		if (rc < 0)
			fail_msg("case '%s': %s", name, err.msg);
		for (char *line = strtok_r(expect, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
			char rule[128], sev[16], cat[32];
			int ln;

			if (sscanf(line, "%127[^\t]\t%15[^\t]\t%31[^\t]\t%d", rule, sev, cat, &ln) != 4)
				fail_msg("case '%s': bad expect line '%s'", name, line);
			if (k >= fs.n)
				fail_msg("case '%s': %zu findings, expected more (%s)", name, fs.n, rule);
			if (strcmp(fs.v[k].rule, rule) || strcmp(lint_severity_name(fs.v[k].severity), sev) ||
			    strcmp(fs.v[k].category, cat) || fs.v[k].line != ln || strcmp(fs.v[k].tool, tool))
				fail_msg("case '%s' finding %zu: got %s %s %s %s line %d, expected %s %s %s line %d", name, k,
					 fs.v[k].tool, fs.v[k].rule, lint_severity_name(fs.v[k].severity), fs.v[k].category,
					 fs.v[k].line, rule, sev, cat, ln);
			assert_true(fs.v[k].message[0] != '\0');
		}
		if (k != fs.n)
			fail_msg("case '%s': %zu findings, expected %zu", name, fs.n, k);
	}
	lint_findings_release(&fs);
	free(out);
	free(ex);
	free(expect);
	(*n_cases)++;
}

static void test_parsers_on_captured_output(void **state)
{
	DIR *d = opendir(CASES);
	struct dirent *e;
	int n = 0, seen[5] = { 0 };

	(void)state;
	if (!d)
		fail_msg("cannot open '%s' (run the unit tests from the source tree): %s", CASES, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		run_case(e->d_name, &n);
		for (int t = 0; t < 5; t++)
			seen[t] += tool_of(e->d_name) == lint_tools[t];
	}
	closedir(d);
	for (int t = 0; t < 5; t++)
		if (seen[t] < 3)
			fail_msg("only %d cases of %s", seen[t], lint_tools[t]);
	assert_true(n >= 15);
}

static struct lint_findings with(const enum lint_severity *sev, size_t n)
{
	struct lint_findings fs = { 0 };
	char line[128];
	struct sd_error err = { 0 };
	size_t len = 0;
	static char buf[4096];

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		/* cppcheck's template: its severities map one to one */
		static const char *const names[] = { "style", "warning", "error" };

		snprintf(line, sizeof(line), "%zu\t1\t%s\tid%zu\tmessage\n", i + 1, names[sev[i]], i);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s", line);
	}
	assert_int_equal(lint_parse("cppcheck", buf, len, 0, "/work/candidate.c", &fs, &err), 0);
	assert_int_equal(fs.n, n);
	return fs;
}

static void test_threshold(void **state)
{
	static const enum lint_severity style_only[] = { LINT_SEV_STYLE, LINT_SEV_STYLE };
	static const enum lint_severity warn[] = { LINT_SEV_STYLE, LINT_SEV_WARNING };
	static const enum lint_severity err[] = { LINT_SEV_ERROR };
	struct lint_findings fs;

	(void)state;
	fs = with(NULL, 0);
	assert_int_equal(lint_judge(&fs, LINT_SEV_STYLE), LINT_PASSED);
	lint_findings_release(&fs);

	fs = with(style_only, 2);
	assert_int_equal(lint_judge(&fs, LINT_SEV_STYLE), LINT_FAILED);
	assert_int_equal(lint_judge(&fs, LINT_SEV_WARNING), LINT_PASSED);
	assert_int_equal(lint_judge(&fs, LINT_SEV_ERROR), LINT_PASSED);
	lint_findings_release(&fs);

	fs = with(warn, 2);
	assert_int_equal(lint_judge(&fs, LINT_SEV_STYLE), LINT_FAILED);
	assert_int_equal(lint_judge(&fs, LINT_SEV_WARNING), LINT_FAILED);
	assert_int_equal(lint_judge(&fs, LINT_SEV_ERROR), LINT_PASSED);
	lint_findings_release(&fs);

	fs = with(err, 1);
	assert_int_equal(lint_judge(&fs, LINT_SEV_ERROR), LINT_FAILED);
	lint_findings_release(&fs);
}

/* A flood of findings: counted, judged on all of them, kept up to the cap. */
static void test_flood_and_hostile_text(void **state)
{
	size_t n = LINT_MAX_PARSED + 500, len = 0, cap = n * 64 + 256;
	char *buf = malloc(cap);
	struct lint_findings fs = { 0 };
	struct sd_error err = { 0 };

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "/work/candidate.py:%zu:1: E501 line too long\n", i + 1);
	/* the last one, past the cap, is the only error */
	len += (size_t)snprintf(buf + len, cap - len, "/work/candidate.py:99999:1: F821 undefined name 'x'\n");
	assert_int_equal(lint_parse("flake8", buf, len, 1, "/work/candidate.py", &fs, &err), 0);
	assert_int_equal(fs.n, LINT_MAX_PARSED);
	assert_int_equal(fs.dropped, n + 1 - LINT_MAX_PARSED);
	assert_int_equal(fs.n_by_severity[LINT_SEV_ERROR], 1);
	assert_int_equal(lint_judge(&fs, LINT_SEV_ERROR), LINT_FAILED);
	lint_findings_release(&fs);

	/* invalid UTF-8, control bytes and NULs in a message; a line number out of range */
	static const char hostile[] = "/work/candidate.py:1:1: F401 \xff\xfe\x1b[31mred\x07 \xc3\x28 ok\n"
				      "/work/candidate.py:99999999999:1: E501 too big a line\n"
				      "/elsewhere.py:7:1: E501 another file\n"
				      "/work/candidate.py:3:1: F401 with\0nul\n"
				      "garbage without colons\n:1:2: \n/work/candidate.py:x:1: E1 no line\n";
	assert_int_equal(lint_parse("flake8", hostile, sizeof(hostile) - 1, 1, "/work/candidate.py", &fs, &err), 0);
	assert_int_equal(fs.n, 3);
	for (size_t i = 0; i < fs.n; i++) {
		const char *m = fs.v[i].message;

		for (size_t j = 0; m[j]; j++)
			assert_true((unsigned char)m[j] >= 0x20);
		assert_int_equal(utf8_valid_seq((const unsigned char *)m, strlen(m)) > 0 || !m[0], 1);
		{
			size_t cl;
			char *c = utf8_sanitize(m, strlen(m), &cl);

			assert_string_equal(c, m);	/* already valid UTF-8 */
			free(c);
		}
	}
	assert_string_equal(fs.v[0].rule, "F401");
	assert_int_equal(fs.v[0].line, 1);
	assert_int_equal(fs.v[1].line, 0);	/* another file's line is not the candidate's */
	assert_int_equal(fs.v[2].line, 3);
	lint_findings_release(&fs);

	assert_int_equal(lint_parse("pylint", "", 0, 0, "/work/x.py", &fs, &err), -1);
	assert_contains(err.msg, "unknown linter 'pylint'");
	free(buf);
}

static void test_source(void **state)
{
	struct task he = { .id = "HumanEval/0", .format = TASK_HUMANEVAL, .prompt = "def f(x):\n",
			   .test_code = "def check(c):\n    assert c(1) == 2\n" };
	struct task mbpp = { .id = "11", .format = TASK_MBPP, .prompt = "Write a function.",
			     .test_code = "assert f(1) == 2" };
	struct task native = { .id = "gcd", .format = TASK_NATIVE, .language = "c", .prompt = "# gcd\n" };
	struct sample comp = { .code = "    return x + 1\n", .is_completion = true };
	struct sample sol = { .code = "def f(x):\n    return x + 1\n" };
	char *s;

	(void)state;
	s = lint_source(&he, &comp);
	assert_string_equal(s, "def f(x):\n    return x + 1\n");	/* the prompt and completion, not the tests */
	free(s);
	s = lint_source(&mbpp, &sol);
	assert_string_equal(s, sol.code);
	free(s);
	s = lint_source(&native, &sol);
	assert_string_equal(s, sol.code);
	free(s);
}

static bool have(const char *tool)
{
	cleanup_free char *cmd = fx_str("command -v %s >/dev/null 2>&1", tool);

	return system(cmd) == 0;
}

/* Lint CODE as a Python sample with the options O in a handle of its own,
 * into *R; with WARM, the lint zygote must have started. */
static void lint_one(const struct evaluator_options *o, const char *code, bool warm, struct sample_result *r)
{
	struct task t = { .id = "t", .class = "c", .language = "python", .format = TASK_NATIVE };
	struct sample s = { .task_id = "t", .sample_id = "t/0", .code = (char *)code };
	struct sd_error err = { 0 };
	struct evaluator *ev = evaluator_new(o, &err);

	assert_non_null(ev);
	assert_int_equal(evaluator_lint(ev, &t, &s, r, &err), 0);
	if (warm)
		assert_null(evaluator_lint_warm_error(ev));
	evaluator_free(ev);
}

/* Real sandboxes: a linter missing from the sandbox's PATH is 'unavailable',
 * naming it, never a pass; with the linters there, a dirty sample fails. */
static void test_sample_in_sandbox(void **state)
{
	const char *code = "import os\n\n\ndef f(x):\n    return eval(x)\n";
	struct evaluator_options o;
	struct sample_result r;

	(void)state;
	if (geteuid() != 0)
		fx_skip("root: a real lint sandbox here needs root (the CLI tests cover the unprivileged user)");
	evaluator_options_init(&o);
	o.runners_dir = "runners";
	o.lint_tool_path = "/nonexistent";
	lint_one(&o, code, false, &r);
	assert_int_equal(r.lint, LINT_UNAVAILABLE);
	assert_contains(r.lint_detail, "flake8 is not installed");
	assert_contains(r.lint_detail, "bandit is not installed");
	assert_int_equal(r.n_tests, 0);
	r.score = 1.0;
	score_sample(&r);	/* no tests: a harness error, and never a composite */
	assert_true(isnan(r.composite));
	sample_result_release(&r);

	if (!have("flake8") || !have("bandit"))
		fx_skip("deps: flake8 or bandit is not installed (scripts/deps.sh installs them)");
	o.lint_tool_path = NULL;
	lint_one(&o, code, true, &r);
	if (r.lint != LINT_FAILED)
		fail_msg("lint %s: %s", lint_status_name(r.lint), r.lint_detail);
	assert_true(r.n_findings >= 2);
	assert_int_equal(r.findings[0].severity, LINT_SEV_WARNING);	/* the most severe first */
	{
		bool f401 = false, b307 = false;

		for (size_t i = 0; i < r.n_findings; i++) {
			f401 = f401 || (!strcmp(r.findings[i].tool, "flake8") && !strcmp(r.findings[i].rule, "F401"));
			b307 = b307 || (!strcmp(r.findings[i].tool, "bandit") && !strcmp(r.findings[i].rule, "B307") &&
					r.findings[i].line == 5);
		}
		assert_true(f401 && b307);
	}
	sample_result_release(&r);
}

/* A linter held to a timeout it cannot keep is that sample's error, warm
 * (an alarm in the driver, which runs flake8 and bandit itself) as cold
 * (the executed linter killed), never a pass. */
static void test_timeout_in_sandbox(void **state)
{
	struct evaluator_options o;
	struct sample_result r;

	(void)state;
	if (geteuid() != 0)
		fx_skip("root: a real lint sandbox here needs root (the CLI tests cover the unprivileged user)");
	if (!have("flake8") || !have("bandit"))
		fx_skip("deps: flake8 or bandit is not installed (scripts/deps.sh installs them)");
	for (int cold = 0; cold < 2; cold++) {
		evaluator_options_init(&o);
		o.runners_dir = "runners";
		o.cold = cold;
		o.lint_tool_timeout = 0.002;
		lint_one(&o, "def f(x):\n    return x\n", !cold, &r);
		if (r.lint != LINT_ERROR)
			fail_msg("%s: lint %s: %s", cold ? "cold" : "warm", lint_status_name(r.lint), r.lint_detail);
		assert_contains(r.lint_detail, "flake8 timed out");
		assert_contains(r.lint_detail, "bandit timed out");
		sample_result_release(&r);
	}
}

/* evaluator_check_lint with the options O, twice when it works (a no-op then). */
static int check(const struct evaluator_options *o, struct sd_error *err)
{
	struct evaluator *ev = evaluator_new(o, err);
	int ret;

	assert_non_null(ev);
	ret = evaluator_check_lint(ev, err);
	if (ret == 0)
		ret = evaluator_check_lint(ev, err);	/* a second call with it is a no-op */
	evaluator_free(ev);
	return ret;
}

/* A broken runners/lint/lint.json stops before any sample, saying what is wrong. */
static void test_bad_config(void **state)
{
	char *dir = fx_tmpdir();
	char *sub = fx_str("%s/lint", dir), *json = fx_str("%s/lint/lint.json", dir);
	struct evaluator_options o;
	struct sd_error err = { 0 };
	FILE *f;

	(void)state;
	evaluator_options_init(&o);
	o.runners_dir = dir;
	assert_int_equal(check(&o, &err), -1);
	assert_contains(err.msg, "lint.json");
	assert_int_equal(mkdir(sub, 0755), 0);
	f = fopen(json, "w");
	assert_non_null(f);
	fputs("{\"files\": [], \"python\": {\"source\": \"c.py\", \"tools\": [{\"name\": \"pylint\", \"argv\": [\"pylint\"]}]}}", f);
	fclose(f);
	assert_int_equal(check(&o, &err), -1);
	assert_contains(err.msg, "python.tools[0]");
	f = fopen(json, "w");
	assert_non_null(f);
	fputs("{\"files\": [\"missing.py\"]}", f);
	fclose(f);
	assert_int_equal(check(&o, &err), -1);
	assert_contains(err.msg, "missing.py");
	/* the real one loads; without lint, nothing is read */
	o.runners_dir = "runners";
	assert_int_equal(check(&o, &err), 0);
	o.runners_dir = dir;
	o.lint = false;
	assert_int_equal(check(&o, &err), 0);
	fx_rm_rf(dir);
	free(sub);
	free(json);
	free(dir);
}

static void test_summarize(void **state)
{
	struct lint_finding f1[] = { { .category = (char *)"style" }, { .category = (char *)"security" } };
	struct lint_finding f2[] = { { .category = (char *)"style" } };
	struct sample_result rs[] = {
		{ .task_class = (char *)"a", .score = 1.0, .lint = LINT_PASSED, .findings = f2, .n_findings = 1 },
		{ .task_class = (char *)"a", .score = 0.5, .lint = LINT_FAILED, .findings = f1, .n_findings = 2 },
		{ .task_class = (char *)"b", .score = 0.0, .lint = LINT_UNAVAILABLE },
		{ .task_class = (char *)"b", .score = NAN, .harness_error = true, .lint = LINT_ERROR },
	};
	struct lint_summary s;
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(lint_summarize(rs, NULL, 4, &s, &err), 0);
	assert_int_equal(s.n_passed, 1);
	assert_int_equal(s.n_failed, 1);
	assert_int_equal(s.n_unavailable, 1);
	assert_int_equal(s.n_error, 1);
	assert_float_equal(s.pass_rate, 0.5, 1e-12);	/* unavailable and error apart, not passes */
	assert_float_equal(s.composite, 0.7 * 0.5 + 0.3 * 0.5, 1e-12);	/* mean of 1, 0.5, 0 */
	assert_int_equal(s.n_categories, 2);
	assert_string_equal(s.categories[0].name, "style");
	assert_int_equal(s.categories[0].n, 2);
	assert_int_equal(s.n_classes, 2);
	assert_float_equal(s.classes[0].composite, 0.7 * 0.75 + 0.3 * 0.5, 1e-12);
	assert_true(isnan(s.classes[1].pass_rate));	/* nothing passed or failed: no rate */
	assert_true(isnan(s.classes[1].composite));
	lint_summary_release(&s);

	/* --no-lint: no pass rate, no composite */
	for (size_t i = 0; i < 4; i++)
		rs[i].lint = LINT_NONE;
	assert_int_equal(lint_summarize(rs, NULL, 4, &s, &err), 0);
	assert_int_equal(s.n_none, 4);
	assert_true(isnan(s.pass_rate) && isnan(s.composite));
	lint_summary_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers_on_captured_output),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_flood_and_hostile_text),
		cmocka_unit_test(test_source),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_sample_in_sandbox),
		cmocka_unit_test(test_timeout_in_sandbox),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
