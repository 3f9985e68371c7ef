/* test-gvisor-staged.c - unit tests of tripwire_path_normalise and of gvisor-strace.c's staged files: a write refused at a file the sandbox staged (or in a directory made for it) is no write outside */
#include "fixture.h"

#include "sandbox/gvisor-strace.h"
#include "sandbox/sandbox-tripwire.h"

static void test_normalise(void **state)
{
	static const char *const cases[][2] = {
		{ "/", "/" }, { "//", "/" }, { "/.", "/" }, { "/..", "/" }, { "/../..", "/" },
		{ "/work", "/work" }, { "/work/", "/work" }, { "//work//x//", "/work/x" },
		{ "/work/./x/.", "/work/x" }, { "/work/x/../y", "/work/y" }, { "/work/../../etc/passwd", "/etc/passwd" },
		{ "/a/b/c/../../d", "/a/d" }, { "/a/..b/.c/...", "/a/..b/.c/..." }, { "/a/b/..", "/a" },
	};
	char out[64], in_place[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i][0];

		assert_true(tripwire_path_normalise(p, strlen(p), out, sizeof(out)));
		assert_string_equal(out, cases[i][1]);
		snprintf(in_place, sizeof(in_place), "%s", p);
		assert_true(tripwire_path_normalise(in_place, strlen(in_place), in_place, sizeof(in_place)));
		assert_string_equal(in_place, cases[i][1]);
	}
	/* only N bytes are read; the result must fit CAP with its NUL */
	assert_true(tripwire_path_normalise("/work/xyz", 7, out, sizeof(out)));
	assert_string_equal(out, "/work/x");
	assert_true(tripwire_path_normalise("/work/x", 7, out, 8));
	assert_string_equal(out, "/work/x");
	assert_false(tripwire_path_normalise("/work/x", 7, out, 7));
	assert_false(tripwire_path_normalise("/work/x/..", 10, out, 6));	/* "/work/x" on the way */
}

/* writes_denied of a log whose program made one refused call, CALL[0] PATH
 * CALL[1], with STAGED */
static unsigned denied(const char *dir, const char *const *staged, const char *const call[2], const char *path)
{
	char *log = fx_str("%s/sentry.log", dir), *line = fx_str("%s%s%s", call[0], path, call[1]);
	char *text = fx_str("{\"msg\":\"[   2:   2] Allocating stack with size of 8388608 bytes\"}\n"
			    "{\"msg\":\"%s\"}\n", line);
	struct tripwires t;
	struct sd_error err = { 0 };

	fx_write(log, text);
	tripwires_init(&t);
	assert_int_equal(gvstrace_read_staged(log, staged, &t, &err), 0);
	free(log);
	free(line);
	free(text);
	return t.writes_denied;
}

static const char *const OPENAT[2] = { "[   3:   3] p X openat(AT_FDCWD /work, 0x7f ",
					", O_WRONLY|O_CREAT, 0o644) = 0 (0x0) errno=13 (permission denied) (1us)" };
static const char *const MKDIR[2] = { "[   3:   3] p X mkdir(0x7f ", ", 0o777) = 0 (0x0) errno=30 (read-only file system) (1us)" };

static void test_staged(void **state)
{
	static char too_long[9000];
	/* as sandbox-gvisor.c passes them: absolute, not normalised, "" for a file without a path */
	const char *const staged[] = { "/work/./sub/../tests/t.py", "", "/work/dir/a/b.json", "/tmp//st/f", NULL };
	const char *const only_long[] = { too_long, NULL };
	const struct { const char *const *call; const char *path; unsigned want, want_unstaged; } cases[] = {
		{ OPENAT, "/work/tests/t.py", 0, 1 },		/* the staged file itself */
		{ OPENAT, "tests/./t.py", 0, 1 },		/* relative to the line's directory */
		{ OPENAT, "/work/tests", 0, 1 },		/* the directory made for it */
		{ OPENAT, "/work/tests/new", 0, 1 },		/* in that directory */
		{ OPENAT, "/work/dir/a/c", 0, 1 },
		{ MKDIR, "/work/dir/a", 0, 1 },
		{ MKDIR, "/tmp/st/g", 0, 1 },
		{ OPENAT, "/work/dir", 1, 1 },			/* above it: not made for a file */
		{ OPENAT, "/work", 1, 1 },			/* /work itself is not */
		{ OPENAT, "/work/other", 1, 1 },
		{ OPENAT, "/work/task.py", 1, 1 },
		{ OPENAT, "/work/dir/ab", 1, 1 },
		{ OPENAT, "/usr/x", 1, 1 },			/* outside */
		{ MKDIR, "/work/../usr/x", 1, 1 },
		{ OPENAT, "/dev/null", 0, 0 },			/* where writes may go natively */
	};
	char *dir = fx_tmpdir();

	(void)state;
	memset(too_long, 'x', sizeof(too_long) - 1);
	memcpy(too_long, "/work/", 6);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned got = denied(dir, staged, cases[i].call, cases[i].path);

		if (got != cases[i].want)
			fail_msg("%s: %u writes_denied, want %u", cases[i].path, got, cases[i].want);
		got = denied(dir, NULL, cases[i].call, cases[i].path);
		if (got != cases[i].want_unstaged)
			fail_msg("%s, nothing staged: %u writes_denied, want %u", cases[i].path, got, cases[i].want_unstaged);
		/* a staged path too long to normalise is passed over */
		assert_int_equal(denied(dir, only_long, cases[i].call, cases[i].path), cases[i].want_unstaged);
	}
	fx_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_staged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
