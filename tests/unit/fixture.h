/* fixture.h - helpers shared by the unit tests: temp trees, whole-file I/O, cmocka includes */
#ifndef SANDEVAL_TEST_FIXTURE_H
#define SANDEVAL_TEST_FIXTURE_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

/* Fail with both strings shown unless NEEDLE occurs in HAY. */
#define assert_contains(hay, needle) do { \
	const char *h_ = (hay), *n_ = (needle); \
	if (!h_ || !strstr(h_, n_)) \
		fail_msg("'%s' does not contain '%s'", h_ ? h_ : "(null)", n_); \
} while (0)

#define assert_not_contains(hay, needle) do { \
	const char *h_ = (hay), *n_ = (needle); \
	if (h_ && strstr(h_, n_)) \
		fail_msg("'%s' contains '%s'", h_, n_); \
} while (0)

/* How many descriptors this process has open (/proc/self/fd's entries,
 * the directory's own included): equal before and after means none leaked. */
__attribute__((unused)) static int fx_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Skip the running test, saying why: the reason starts with its category
 * ("data: ...", "root: ..."), which tests/run.sh counts as a skip only when
 * SANDEVAL_SKIP names it (else as a failure). cmocka's TAP line carries no
 * reason, so it goes on a "# skip: " line just before. fx_skip_note()
 * alone, then skip(), to free what the reason names first. */
#define fx_skip_note(...) do { \
	printf("# skip: " __VA_ARGS__); \
	printf("\n"); \
	fflush(stdout); \
} while (0)
#define fx_skip(...) do { \
	fx_skip_note(__VA_ARGS__); \
	skip(); \
} while (0)

/* Formatted path (or any string), malloc'd; aborts the test on ENOMEM. */
static inline __attribute__((format(printf, 1, 2))) char *fx_str(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	assert_true(r >= 0);
	return s;
}

/* A fresh directory under $TMPDIR (or /tmp), malloc'd. */
static inline char *fx_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p = fx_str("%s/sandeval-unit.XXXXXX", base && *base ? base : "/tmp");

	assert_non_null(mkdtemp(p));
	return p;
}

static inline int fx_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* rm -rf PATH (never follows symlinks). */
static inline void fx_rm_rf(const char *path)
{
	if (path)
		nftw(path, fx_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Create or truncate PATH with TEXT. */
static inline void fx_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fail_msg("cannot create '%s': %s", path, strerror(errno));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Create or truncate DIR/FILE with TEXT. */
static inline void fx_write_in(const char *dir, const char *file, const char *text)
{
	char *p = fx_str("%s/%s", dir, file);

	fx_write(p, text);
	free(p);
}

/* Whole contents of PATH (malloc'd, NUL-terminated; *len gets the size if len
 * is not NULL) or NULL if it cannot be read. */
static inline char *fx_read_len(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;
	size_t used = 0, size = 0;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (size - used < 4096) {
			size = size ? 2 * size : 8192;
			buf = realloc(buf, size + 1);
			assert_non_null(buf);
		}
		n = read(fd, buf + used, size - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

static inline char *fx_read(const char *path)
{
	return fx_read_len(path, NULL);
}

/* Contents of DIR/FILE, or NULL. */
static inline char *fx_read_in(const char *dir, const char *file)
{
	char *p = fx_str("%s/%s", dir, file);
	char *text = fx_read(p);

	free(p);
	return text;
}

/* Fail unless DIR/FILE holds exactly TEXT. */
#define assert_file_equal(dir, file, text) do { \
	char *got_ = fx_read_in((dir), (file)); \
	if (!got_) \
		fail_msg("cannot read '%s/%s'", (dir), (file)); \
	if (strcmp(got_, (text)) != 0) { \
		fail_msg("'%s/%s' holds '%s', expected '%s'", (dir), (file), got_, (text)); \
	} \
	free(got_); \
} while (0)

/* Remove DIR/FILE if it is there. */
static inline void fx_unlink_in(const char *dir, const char *file)
{
	char *p = fx_str("%s/%s", dir, file);

	unlink(p);
	free(p);
}

static inline bool fx_exists(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0;
}

static inline bool fx_exists_in(const char *dir, const char *file)
{
	char *p = fx_str("%s/%s", dir, file);
	bool ret = fx_exists(p);

	free(p);
	return ret;
}

static inline bool fx_is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* mkdir -p PATH */
static inline void fx_mkdir_p(const char *path)
{
	char *p = strdup(path);

	assert_non_null(p);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fail_msg("cannot create '%s': %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		fail_msg("cannot create '%s': %s", p, strerror(errno));
	free(p);
}

/* The benchmark data: $SANDEVAL_DATA/REL (default ../shared/data, from the
 * repository root); malloc'd. */
static inline char *fx_data_file(const char *rel)
{
	const char *data = getenv("SANDEVAL_DATA");

	return fx_str("%s/%s", data && *data ? data : "../shared/data", rel);
}

/* char *VAR = fx_data_file(REL), or the test skips (category "data") when it is not there. */
#define FX_REAL(var, rel) \
	char *var = fx_data_file(rel); \
	if (!fx_exists(var)) { \
		fx_skip_note("data: no '%s' (set SANDEVAL_DATA)", var); \
		free(var); \
		skip(); \
	}

#endif
