/* test-util.c - unit tests of util.c and error.c: number parsing, whole-file I/O, random ids, error objects */
#include "fixture.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "base/error.h"
#include "base/utf8.h"
#include "base/util.h"

#define SENTINEL 0x5a5a5a5aULL

/* ---- parse_size ---- */

static void test_parse_size_valid(void **state)
{
	static const struct { const char *in; uint64_t want; } cases[] = {
		{ "0", 0 },
		{ "4096", 4096 },
		{ "1B", 1 },
		{ "64K", 64ULL << 10 },
		{ "64KB", 64ULL << 10 },
		{ "64KiB", 64ULL << 10 },
		{ "512M", 512ULL << 20 },
		{ "512MB", 512ULL << 20 },
		{ "512MiB", 512ULL << 20 },
		{ "1G", 1ULL << 30 },
		{ "1GB", 1ULL << 30 },
		{ "1GiB", 1ULL << 30 },
		{ "1.5G", 3ULL << 29 },
		{ "0.5K", 512 },
		{ "2T", 2ULL << 40 },
		{ "2TB", 2ULL << 40 },
		{ "2TiB", 2ULL << 40 },
		{ "0M", 0 },
		/* just below the 9.2e18 ceiling */
		{ "8000000T", 8000000ULL << 40 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_error err = { 0 };
		uint64_t v = SENTINEL;

		if (parse_size(cases[i].in, &v, &err) != 0)
			fail_msg("parse_size('%s') failed: %s", cases[i].in, err.msg);
		if (v != cases[i].want)
			fail_msg("parse_size('%s') = %" PRIu64 ", want %" PRIu64, cases[i].in, v, cases[i].want);
	}
}

static void test_parse_size_errors(void **state)
{
	static const struct { const char *in; int code; const char *msg; } cases[] = {
		{ "", EINVAL, "invalid size ''" },
		{ "M", EINVAL, "invalid size 'M'" },
		{ "-1", EINVAL, "invalid size '-1'" },
		{ "+1", EINVAL, "invalid size '+1'" },
		{ " 1", EINVAL, "invalid size ' 1'" },
		{ ".5M", EINVAL, "invalid size '.5M'" },
		{ "12X", EINVAL, "invalid size '12X': unknown suffix 'X'" },
		{ "1 M", EINVAL, "unknown suffix ' M'" },
		{ "1MM", EINVAL, "unknown suffix 'MM'" },
		{ "1Mi", EINVAL, "unknown suffix 'Mi'" },
		{ "1M ", EINVAL, "unknown suffix 'M '" },
		{ "1e30", ERANGE, "size '1e30' is too large" },
		{ "9000000T", ERANGE, "size '9000000T' is too large" },
		{ "99999999999999999999", ERANGE, "is too large" },
		{ "1e400", EINVAL, "invalid size '1e400'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_error err = { 0 };
		uint64_t v = SENTINEL;

		if (parse_size(cases[i].in, &v, &err) != -1)
			fail_msg("parse_size('%s') accepted it as %" PRIu64, cases[i].in, v);
		assert_int_equal(v, SENTINEL);	/* out-param untouched on failure */
		if (err.code != cases[i].code)
			fail_msg("parse_size('%s'): code %d, want %d", cases[i].in, err.code, cases[i].code);
		assert_contains(err.msg, cases[i].msg);
	}
}

static void test_parse_size_null_and_no_err(void **state)
{
	struct sd_error err = { 0 };
	uint64_t v = SENTINEL;

	(void)state;
	assert_int_equal(parse_size(NULL, &v, &err), -1);
	assert_int_equal(err.code, EINVAL);
	assert_contains(err.msg, "invalid size ''");
	assert_int_equal(v, SENTINEL);
	/* err may be NULL */
	assert_int_equal(parse_size("12X", &v, NULL), -1);
	assert_int_equal(parse_size("1K", &v, NULL), 0);
	assert_int_equal(v, 1024);
}

/* ---- parse_seconds ---- */

static void test_parse_seconds_valid(void **state)
{
	static const struct { const char *in; double max, want; } cases[] = {
		{ "2", 60, 2.0 },
		{ "0.5", 60, 0.5 },
		{ ".5", 60, 0.5 },
		{ "1.25", 60, 1.25 },
		{ "0.001", 60, 0.001 },
		{ "60", 60, 60.0 },		/* max is inclusive */
		{ "1e1", 60, 10.0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_error err = { 0 };
		double v = -1;

		if (parse_seconds(cases[i].in, cases[i].max, &v, &err) != 0)
			fail_msg("parse_seconds('%s') failed: %s", cases[i].in, err.msg);
		assert_float_equal(v, cases[i].want, 1e-12);
	}
}

static void test_parse_seconds_errors(void **state)
{
	static const struct { const char *in; int code; const char *msg; } cases[] = {
		{ "", EINVAL, "invalid duration ''" },
		{ "abc", EINVAL, "invalid duration 'abc': expected seconds, e.g. 2 or 0.5" },
		{ "1s", EINVAL, "invalid duration '1s'" },
		{ "1 ", EINVAL, "invalid duration '1 '" },
		{ " 1", EINVAL, "invalid duration ' 1'" },
		{ "-1", EINVAL, "invalid duration '-1'" },
		{ "inf", EINVAL, "invalid duration 'inf'" },
		{ "nan", EINVAL, "invalid duration 'nan'" },
		{ ".", EINVAL, "invalid duration '.'" },
		{ "1e400", EINVAL, "invalid duration '1e400'" },
		{ "0", ERANGE, "duration '0' out of range (0, 60]" },
		{ "0.0", ERANGE, "duration '0.0' out of range" },
		{ "60.001", ERANGE, "duration '60.001' out of range (0, 60]" },
		{ "1e9", ERANGE, "out of range" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_error err = { 0 };
		double v = -7;

		if (parse_seconds(cases[i].in, 60, &v, &err) != -1)
			fail_msg("parse_seconds('%s') accepted it as %g", cases[i].in, v);
		assert_float_equal(v, -7, 0);
		if (err.code != cases[i].code)
			fail_msg("parse_seconds('%s'): code %d, want %d", cases[i].in, err.code, cases[i].code);
		assert_contains(err.msg, cases[i].msg);
	}
}

static void test_parse_seconds_null(void **state)
{
	struct sd_error err = { 0 };
	double v = -7;

	(void)state;
	assert_int_equal(parse_seconds(NULL, 10, &v, &err), -1);
	assert_contains(err.msg, "invalid duration ''");
	assert_int_equal(parse_seconds("2", 1.5, &v, NULL), -1);
	assert_float_equal(v, -7, 0);
}

/* ---- parse_long ---- */

static void test_parse_long_valid(void **state)
{
	struct sd_error err = { 0 };
	long v = 0;

	(void)state;
	assert_int_equal(parse_long("42", 0, 100, &v, &err), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_long("0", 0, 100, &v, &err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_long("100", 0, 100, &v, &err), 0);	/* bounds inclusive */
	assert_int_equal(v, 100);
	assert_int_equal(parse_long("-5", -10, 10, &v, &err), 0);
	assert_int_equal(v, -5);
	assert_int_equal(parse_long("9223372036854775807", 0, LONG_MAX, &v, &err), 0);
	assert_true(v == LONG_MAX);
}

static void test_parse_long_errors(void **state)
{
	static const struct { const char *in; int code; const char *msg; } cases[] = {
		{ "", EINVAL, "invalid number ''" },
		{ "a", EINVAL, "invalid number 'a'" },
		{ "12a", EINVAL, "invalid number '12a'" },
		{ "1.5", EINVAL, "invalid number '1.5'" },
		{ "-", EINVAL, "invalid number '-'" },
		{ "12 ", EINVAL, "invalid number '12 '" },
		{ "99999999999999999999", EINVAL, "invalid number '99999999999999999999'" },
		{ "101", ERANGE, "number '101' out of range [0, 100]" },
		{ "-1", ERANGE, "number '-1' out of range [0, 100]" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_error err = { 0 };
		long v = 777;

		if (parse_long(cases[i].in, 0, 100, &v, &err) != -1)
			fail_msg("parse_long('%s') accepted it as %ld", cases[i].in, v);
		assert_int_equal(v, 777);
		if (err.code != cases[i].code)
			fail_msg("parse_long('%s'): code %d, want %d", cases[i].in, err.code, cases[i].code);
		assert_contains(err.msg, cases[i].msg);
	}
	{
		struct sd_error err = { 0 };
		long v = 777;

		assert_int_equal(parse_long(NULL, 0, 1, &v, &err), -1);
		assert_contains(err.msg, "invalid number ''");
		assert_int_equal(v, 777);
	}
}

/* ---- write_all ---- */

static void test_write_all_file(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/out", dir);
	size_t n = 3 * 1024 * 1024 + 17;
	unsigned char *buf = malloc(n);
	char *back;
	int fd;
	struct stat sb;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, buf, n), 0);
	assert_int_equal(write_all(fd, buf, 0), 0);
	close(fd);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal((size_t)sb.st_size, n);
	back = fx_read(path);
	assert_non_null(back);
	assert_memory_equal(back, buf, n);
	free(back);
	free(buf);
	fx_rm_rf(dir);
	free(path);
	free(dir);
}

/* Through a pipe whose reader drains slowly: short writes must be resumed. */
static void test_write_all_pipe(void **state)
{
	int p[2];
	size_t n = 1 << 20;
	char *buf = malloc(n);
	pid_t pid;
	int ws;

	(void)state;
	assert_non_null(buf);
	memset(buf, 'x', n);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char chunk[1000];
		size_t total = 0;
		ssize_t r;

		close(p[1]);
		while ((r = read(p[0], chunk, sizeof(chunk))) > 0) {
			for (ssize_t i = 0; i < r; i++)
				if (chunk[i] != 'x')
					_exit(2);
			total += (size_t)r;
		}
		_exit(total == n ? 0 : 1);
	}
	close(p[0]);
	assert_int_equal(write_all(p[1], buf, n), 0);
	close(p[1]);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	free(buf);
}

static void test_write_all_errors(void **state)
{
	int p[2];
	void (*old)(int);

	(void)state;
	errno = 0;
	assert_int_equal(write_all(-1, "x", 1), -1);
	assert_int_equal(errno, EBADF);
	/* A pipe without a reader: EPIPE, not a loop. */
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	old = signal(SIGPIPE, SIG_IGN);
	errno = 0;
	assert_int_equal(write_all(p[1], "abc", 3), -1);
	assert_int_equal(errno, EPIPE);
	signal(SIGPIPE, old);
	close(p[1]);
}

/* ---- read_file ---- */

static void test_read_file_contents(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/f", dir);
	char *text = NULL;
	size_t len = 99;
	struct sd_error err = { 0 };
	int fd;

	(void)state;
	fx_write(path, "hello\n");
	assert_int_equal(read_file(path, 100, &text, &len, &err), 0);
	assert_string_equal(text, "hello\n");
	assert_int_equal(len, 6);
	free(text);

	/* embedded NUL: len counts every byte, buffer is NUL-terminated */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a\0b", 3), 3);
	close(fd);
	text = NULL;
	assert_int_equal(read_file(path, 3, &text, &len, &err), 0);	/* cap == size is fine */
	assert_int_equal(len, 3);
	assert_memory_equal(text, "a\0b\0", 4);
	free(text);

	/* empty file; len may be NULL */
	fx_write(path, "");
	text = NULL;
	assert_int_equal(read_file(path, 0, &text, NULL, &err), 0);
	assert_string_equal(text, "");
	free(text);

	fx_rm_rf(dir);
	free(path);
	free(dir);
}

/* A file larger than the first buffer (8 KiB) grows the buffer correctly. */
static void test_read_file_large(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/big", dir);
	size_t n = 100000;
	char *data = malloc(n + 1), *text = NULL;
	size_t len = 0;
	struct sd_error err = { 0 };

	(void)state;
	assert_non_null(data);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	data[n] = '\0';
	fx_write(path, data);
	assert_int_equal(read_file(path, n, &text, &len, &err), 0);
	assert_int_equal(len, n);
	assert_string_equal(text, data);
	free(text);
	free(data);
	fx_rm_rf(dir);
	free(path);
	free(dir);
}

static void test_read_file_cap(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/f", dir);
	char *text = (char *)"untouched", *want;
	struct sd_error err = { 0 };

	(void)state;
	fx_write(path, "0123456789");
	assert_int_equal(read_file(path, 9, &text, NULL, &err), -1);
	assert_string_equal(text, "untouched");
	assert_int_equal(err.code, EFBIG);
	want = fx_str("'%s' is larger than 9 bytes", path);
	assert_string_equal(err.msg, want);
	free(want);
	/* err may be NULL */
	assert_int_equal(read_file(path, 0, &text, NULL, NULL), -1);
	fx_rm_rf(dir);
	free(path);
	free(dir);
}

static void test_read_file_errors(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/missing", dir), *want;
	char *text = (char *)"untouched";
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(read_file(path, 100, &text, NULL, &err), -1);
	assert_int_equal(err.code, ENOENT);
	want = fx_str("cannot open '%s': No such file or directory", path);
	assert_string_equal(err.msg, want);
	free(want);
	assert_string_equal(text, "untouched");

	/* a directory opens but cannot be read */
	assert_int_equal(read_file(dir, 100, &text, NULL, &err), -1);
	assert_int_equal(err.code, EISDIR);
	want = fx_str("cannot read '%s': Is a directory", dir);
	assert_string_equal(err.msg, want);
	free(want);
	fx_rm_rf(dir);
	free(path);
	free(dir);
}

/* ---- write_file ---- */

static void test_write_file(void **state)
{
	char *dir = fx_tmpdir(), *path = fx_str("%s/f", dir), *want;
	struct sd_error err = { 0 };

	(void)state;
	fx_write(path, "");
	assert_int_equal(write_file(path, "536870912", &err), 0);
	assert_file_equal(dir, "f", "536870912");

	/* it never creates files (sysfs semantics) */
	free(path);
	path = fx_str("%s/absent", dir);
	assert_int_equal(write_file(path, "1", &err), -1);
	assert_int_equal(err.code, ENOENT);
	want = fx_str("cannot open '%s': No such file or directory", path);
	assert_string_equal(err.msg, want);
	free(want);
	assert_false(fx_exists(path));

	fx_rm_rf(dir);
	free(path);
	free(dir);
}

static void test_check_writable(void **state)
{
	char *dir = fx_tmpdir(), *file = fx_str("%s/f", dir), *sub = fx_str("%s/ro", dir), *in_ro = fx_str("%s/ro/x", dir);
	char *gone = fx_str("%s/nope/x", dir), *want;
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(check_writable("-", true, &err), 0);
	assert_int_equal(check_writable(file, false, &err), 0);	/* not there yet, directory writable */
	fx_write(file, "x");
	assert_int_equal(check_writable(file, true, &err), 0);
	assert_int_equal(check_writable(dir, false, &err), -1);
	want = fx_str("cannot write '%s': Is a directory", dir);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(check_writable(gone, false, &err), -1);
	want = fx_str("cannot write '%s': directory '%s/nope': No such file or directory", gone, dir);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(err.code, ENOENT);
	fx_mkdir_p(sub);
	assert_int_equal(chmod(sub, 0555), 0);
	if (geteuid() != 0) {	/* root may write anywhere */
		assert_int_equal(check_writable(in_ro, false, &err), -1);
		assert_int_equal(err.code, EACCES);
	}
	assert_int_equal(chmod(file, 0444), 0);
	if (geteuid() != 0) {
		assert_int_equal(check_writable(file, false, &err), -1);
		assert_int_equal(err.code, EACCES);
	}
	assert_int_equal(chmod(sub, 0755), 0);
	fx_rm_rf(dir);
	free(dir);
	free(file);
	free(sub);
	free(in_ro);
	free(gone);
}

static void test_write_file_write_error(void **state)
{
	struct sd_error err = { 0 };

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		fx_skip("host: no writable /dev/full");
	assert_int_equal(write_file("/dev/full", "FROZEN", &err), -1);
	assert_int_equal(err.code, ENOSPC);
	assert_string_equal(err.msg, "cannot write 'FROZEN' to '/dev/full': No space left on device");
}

/* ---- read_u64_file ---- */

static void test_read_u64_file(void **state)
{
	static const struct { const char *text; uint64_t want; } ok[] = {
		{ "12345\n", 12345 },
		{ "0\n", 0 },
		{ "max\n", UINT64_MAX },
		{ "max", UINT64_MAX },
		{ "18446744073709551615\n", UINT64_MAX },
		{ "9223372036854771712\n", 9223372036854771712ULL },	/* v1 "unlimited" */
	};
	static const struct { const char *text; int code; const char *msg; } bad[] = {
		{ "", EIO, "cannot read" },
		{ "abc\n", EINVAL, "does not hold a number" },
		{ "\n", EINVAL, "does not hold a number" },
		{ "18446744073709551616\n", EINVAL, "does not hold a number" },
	};
	char *dir = fx_tmpdir(), *path = fx_str("%s/v", dir), *missing = fx_str("%s/missing", dir), *want;
	struct sd_error err = { 0 };
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		fx_write(path, ok[i].text);
		v = 1;
		if (read_u64_file(path, &v, &err) != 0)
			fail_msg("read_u64_file('%s') failed: %s", ok[i].text, err.msg);
		if (v != ok[i].want)
			fail_msg("read_u64_file('%s') = %" PRIu64 ", want %" PRIu64, ok[i].text, v, ok[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_write(path, bad[i].text);
		memset(&err, 0, sizeof(err));
		if (read_u64_file(path, &v, &err) != -1)
			fail_msg("read_u64_file('%s') accepted it as %" PRIu64, bad[i].text, v);
		if (err.code != bad[i].code)
			fail_msg("read_u64_file('%s'): code %d, want %d", bad[i].text, err.code, bad[i].code);
		assert_contains(err.msg, bad[i].msg);
		assert_contains(err.msg, path);
	}
	assert_int_equal(read_u64_file(missing, &v, &err), -1);
	want = fx_str("cannot open '%s': No such file or directory", missing);
	assert_string_equal(err.msg, want);
	free(want);
	fx_rm_rf(dir);
	free(missing);
	free(path);
	free(dir);
}

/* ---- random_hex ---- */

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void test_random_hex(void **state)
{
	char a[33], b[33], big[129];
	struct sd_error err = { 0 };

	(void)state;
	memset(a, '#', sizeof(a));
	assert_int_equal(random_hex(a, 16, &err), 0);
	assert_int_equal(strlen(a), 32);
	assert_true(all_hex(a, 32));
	assert_int_equal(random_hex(b, 16, &err), 0);
	assert_true(all_hex(b, 32));
	assert_string_not_equal(a, b);	/* 128 random bits */

	assert_int_equal(random_hex(big, 64, &err), 0);
	assert_int_equal(strlen(big), 128);
	assert_true(all_hex(big, 128));
}

static void test_random_hex_too_many(void **state)
{
	char buf[200];
	struct sd_error err = { 0 };

	(void)state;
	memset(buf, '#', sizeof(buf));
	assert_int_equal(random_hex(buf, 65, &err), -1);
	assert_int_equal(err.code, EINVAL);
	assert_string_equal(err.msg, "random_hex: 65 bytes is too many");
	assert_int_equal(buf[0], '#');
}

/* random_hex(hex, 0) leaves hex unterminated: the contract is "fill 2*n+1 bytes". */
static void test_random_hex_zero(void **state)
{
	char buf[1] = { '#' };

	(void)state;
	assert_int_equal(random_hex(buf, 0, NULL), 0);
	assert_int_equal(buf[0], '\0');
}

/* ---- clocks, xasprintf ---- */

static void test_clocks(void **state)
{
	int64_t ns0 = now_ns(), ms0 = now_ms();
	struct timespec ts = { 0, 20 * 1000000L };
	int64_t ns1, ms1;

	(void)state;
	nanosleep(&ts, NULL);
	ns1 = now_ns();
	ms1 = now_ms();
	assert_true(ns1 - ns0 >= 20 * 1000000LL);
	assert_true(ms1 - ms0 >= 19);
	assert_true(ms1 - ms0 < 5000);
	assert_true(ms1 >= ns1 / 1000000 - 1 && ms1 <= ns1 / 1000000 + 1000);
}

static void test_xasprintf(void **state)
{
	char *s = xasprintf("%s/%d", "dir", 42);

	(void)state;
	assert_string_equal(s, "dir/42");
	free(s);
}

/* ---- error.c ---- */

static void test_error_objects(void **state)
{
	struct sd_error err = { 0 };
	char long_arg[2000];

	(void)state;
	assert_int_equal(sd_error_set(&err, EINVAL, "bad '%s'", "x"), -1);
	assert_int_equal(err.code, EINVAL);
	assert_string_equal(err.msg, "bad 'x'");

	assert_int_equal(sd_error_errno(&err, ENOENT, "cannot open '%s'", "f"), -1);
	assert_int_equal(err.code, ENOENT);
	assert_string_equal(err.msg, "cannot open 'f': No such file or directory");

	assert_int_equal(sd_error_wrap(&err, "memory %s", "limit"), -1);
	assert_int_equal(err.code, ENOENT);	/* code kept */
	assert_string_equal(err.msg, "memory limit: cannot open 'f': No such file or directory");

	/* NULL error objects are allowed everywhere */
	assert_int_equal(sd_error_set(NULL, 1, "x"), -1);
	assert_int_equal(sd_error_errno(NULL, 1, "x"), -1);
	assert_int_equal(sd_error_wrap(NULL, "x"), -1);

	/* overlong messages are truncated, never overflow */
	memset(long_arg, 'a', sizeof(long_arg) - 1);
	long_arg[sizeof(long_arg) - 1] = '\0';
	sd_error_errno(&err, EIO, "%s", long_arg);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	sd_error_wrap(&err, "%s", long_arg);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);

	/* a long chain of context keeps its outermost context and its root cause */
	sd_error_errno(&err, ENOENT, "cannot open '%s'", "tasks.jsonl");
	for (int i = 0; i < 60; i++)
		sd_error_wrap(&err, "context number %d of a deep chain", i);
	assert_true(strlen(err.msg) <= sizeof(err.msg) - 1);
	assert_int_equal(strncmp(err.msg, "context number 59 of a deep chain: context number 58", 52), 0);
	assert_contains(err.msg, " ... ");
	assert_non_null(strstr(err.msg, "cannot open 'tasks.jsonl': No such file or directory"));
	assert_string_equal(err.msg + strlen(err.msg) - 25, "No such file or directory");
	assert_int_equal(err.code, ENOENT);
	/* and never half a UTF-8 character where it cuts */
	sd_error_set(&err, EIO, "%s", "root");
	for (int i = 0; i < 40; i++)
		sd_error_wrap(&err, "\xc3\xa9\xc3\xa9\xc3\xa9 level %d \xe2\x82\xac", i);
	for (size_t i = 0, n; err.msg[i]; i += n)
		assert_true((n = utf8_valid_seq((const unsigned char *)err.msg + i, strlen(err.msg + i))) > 0);
	assert_string_equal(err.msg + strlen(err.msg) - 6, ": root");
}

/* send_fds and recv_fds: descriptors arrive close-on-exec, at most MAX
 * kept and the rest closed, none for a plain message; a message cut short
 * is EPROTO with its descriptors closed. */
static void test_send_recv_fds(void **state)
{
	int sv[2], p[2], fds[4], got[4], n;
	char buf[8];
	int before;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	assert_int_equal(pipe(p), 0);
	fds[0] = fds[1] = fds[2] = p[0];
	before = fx_open_fds();

	assert_int_equal(send_fds(sv[0], "abc", 3, fds, 3, 0), 3);
	assert_int_equal(recv_fds(sv[1], buf, sizeof(buf), got, 2, &n, 0), 3);
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "abc", 3);
	for (int i = 0; i < n; i++) {
		assert_true(fcntl(got[i], F_GETFD) & FD_CLOEXEC);
		close(got[i]);
	}
	/* the third was closed: as many open as before the message */
	assert_int_equal(fx_open_fds(), before);

	assert_int_equal(send_fds(sv[0], "x", 1, NULL, 0, 0), 1);
	assert_int_equal(recv_fds(sv[1], buf, sizeof(buf), got, 4, &n, 0), 1);
	assert_int_equal(n, 0);

	assert_int_equal(send_fds(sv[0], "toolong", 7, fds, 1, 0), 7);
	assert_int_equal(recv_fds(sv[1], buf, 3, got, 4, &n, 0), -1);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(n, 0);
	assert_int_equal(fx_open_fds(), before);

	errno = 0;
	assert_int_equal(send_fds(sv[0], "x", 1, fds, SEND_FDS_MAX + 1, 0), -1);
	assert_int_equal(errno, EINVAL);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size_valid),
		cmocka_unit_test(test_parse_size_errors),
		cmocka_unit_test(test_parse_size_null_and_no_err),
		cmocka_unit_test(test_parse_seconds_valid),
		cmocka_unit_test(test_parse_seconds_errors),
		cmocka_unit_test(test_parse_seconds_null),
		cmocka_unit_test(test_parse_long_valid),
		cmocka_unit_test(test_parse_long_errors),
		cmocka_unit_test(test_write_all_file),
		cmocka_unit_test(test_write_all_pipe),
		cmocka_unit_test(test_write_all_errors),
		cmocka_unit_test(test_read_file_contents),
		cmocka_unit_test(test_read_file_large),
		cmocka_unit_test(test_read_file_cap),
		cmocka_unit_test(test_read_file_errors),
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_write_file_write_error),
		cmocka_unit_test(test_check_writable),
		cmocka_unit_test(test_read_u64_file),
		cmocka_unit_test(test_random_hex),
		cmocka_unit_test(test_random_hex_too_many),
		cmocka_unit_test(test_random_hex_zero),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_xasprintf),
		cmocka_unit_test(test_error_objects),
		cmocka_unit_test(test_send_recv_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
