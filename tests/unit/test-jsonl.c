/* test-jsonl.c - unit tests of jsonl.c: JSON Lines (plain, gzip) with file:line:column errors, whole files, field helpers */
#include "fixture.h"

#include <zlib.h>

#include "base/jsonl.h"

struct dir {
	char *path;
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->path = fx_tmpdir();
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	fx_rm_rf(d->path);
	free(d->path);
	free(d);
	return 0;
}

/* DIR/NAME holding LEN bytes of DATA; the path, malloc'd. */
static char *write_bytes(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = fx_str("%s/%s", dir, name);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* DIR/NAME, gzip-compressed TEXT. */
static char *write_gz(const char *dir, const char *name, const char *text, size_t len)
{
	char *p = fx_str("%s/%s", dir, name);
	gzFile gz = gzopen(p, "wb");

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, text, (unsigned)len), (int)len);
	assert_int_equal(gzclose(gz), Z_OK);
	return p;
}

/* Read every line: the line numbers of the objects in *lines, error messages in errs. */
static size_t read_all(const char *path, size_t *lines, size_t max, char errs[][1024], size_t *n_errs)
{
	struct sd_error err = { 0 };
	struct jsonl *r = jsonl_open(path, &err);
	size_t n = 0;
	json_t *obj;
	int ret;

	if (!r)
		fail_msg("jsonl_open: %s", err.msg);
	*n_errs = 0;
	while ((ret = jsonl_next(r, &obj, &err)) != 0) {
		if (ret < 0) {
			assert_true(*n_errs < 8);
			memcpy(errs[(*n_errs)++], err.msg, sizeof(err.msg));
			continue;
		}
		assert_true(json_is_object(obj));
		if (n < max)
			lines[n] = jsonl_line(r);
		n++;
		json_decref(obj);
	}
	assert_string_equal(jsonl_path(r), path);
	jsonl_close(r);
	return n;
}

static void test_plain_lines(void **state)
{
	struct dir *d = *state;
	static const char text[] = "\xef\xbb\xbf{\"a\": 1}\n\n{\"b\": [1, 2]}\r\n   \t\n{\"c\": \"x\"}";
	char *p = write_bytes(d->path, "t.jsonl", text, sizeof(text) - 1);
	size_t lines[8], n_errs;
	char errs[8][1024];

	assert_int_equal(read_all(p, lines, 8, errs, &n_errs), 3);
	assert_int_equal(n_errs, 0);
	assert_int_equal(lines[0], 1);
	assert_int_equal(lines[1], 3);
	assert_int_equal(lines[2], 5);	/* the last line has no newline */
	free(p);
}

static void test_gzip_lines(void **state)
{
	struct dir *d = *state;
	static const char text[] = "{\"a\": 1}\n{\"b\": 2}\n\n{\"c\": 3}\n";
	/* the name does not matter: zlib looks at the magic bytes */
	char *p = write_gz(d->path, "t.jsonl", text, sizeof(text) - 1);
	size_t lines[8], n_errs;
	char errs[8][1024];

	assert_int_equal(read_all(p, lines, 8, errs, &n_errs), 3);
	assert_int_equal(n_errs, 0);
	assert_int_equal(lines[2], 4);
	free(p);
}

static void test_errors_name_file_line_column(void **state)
{
	struct dir *d = *state;
	static const char text[] =
		"{\"a\": 1}\n"
		"{\"a\": 1,}\n"			/* 2: malformed */
		"[1, 2]\n"			/* 3: not an object */
		"{\"a\": \"\xff\"}\n"		/* 4: invalid UTF-8 */
		"{\"a\": 1, \"a\": 2}\n"	/* 5: duplicate key */
		"{\"a\": \"x\0y\"}\n"		/* 6: a NUL byte */
		"{\"a\": 1} {\"b\": 2}\n"	/* 7: two values */
		"{\"ok\": true}\n";		/* 8 */
	char *p = write_bytes(d->path, "samples.jsonl", text, sizeof(text) - 1);
	size_t lines[8], n_errs;
	char errs[8][1024], *want;

	assert_int_equal(read_all(p, lines, 8, errs, &n_errs), 2);
	assert_int_equal(lines[0], 1);
	assert_int_equal(lines[1], 8);
	assert_int_equal(n_errs, 6);
	want = fx_str("%s:2:9: invalid JSON: string or '}' expected near '}'", p);
	assert_string_equal(errs[0], want);
	free(want);
	want = fx_str("%s:3: expected a JSON object, got an array", p);
	assert_string_equal(errs[1], want);
	free(want);
	want = fx_str("%s:4:", p);
	assert_contains(errs[2], want);
	assert_contains(errs[2], ": invalid UTF-8");
	free(want);
	want = fx_str("%s:5:", p);
	assert_contains(errs[3], want);
	assert_contains(errs[3], "invalid JSON: duplicate object key");
	free(want);
	want = fx_str("%s:6:", p);
	assert_contains(errs[4], want);
	free(want);
	want = fx_str("%s:7:", p);
	assert_contains(errs[5], want);
	assert_contains(errs[5], "end of file expected");
	free(want);
	free(p);
}

static void test_invalid_utf8_code(void **state)
{
	struct dir *d = *state;
	static const char text[] = "{\"prompt\": \"caf\xc3\"}\n";
	char *p = write_bytes(d->path, "t.jsonl", text, sizeof(text) - 1);
	struct sd_error err = { 0 };
	struct jsonl *r = jsonl_open(p, &err);
	json_t *obj = (json_t *)0x1;
	char *want = fx_str("%s:1:", p);

	assert_non_null(r);
	assert_int_equal(jsonl_next(r, &obj, &err), -1);
	assert_ptr_equal(obj, (json_t *)0x1);	/* out-param untouched */
	assert_int_equal(err.code, EILSEQ);
	assert_contains(err.msg, want);
	assert_contains(err.msg, "invalid UTF-8");
	assert_int_equal(jsonl_line(r), 1);
	assert_int_equal(jsonl_next(r, &obj, &err), 0);
	jsonl_close(r);
	free(want);
	free(p);
}

static void test_huge_line_skipped(void **state)
{
	struct dir *d = *state;
	size_t big = JSONL_MAX_LINE + 100, n = big + 64;
	char *text = malloc(n), *want;
	size_t len = 0, lines[4], n_errs;
	char errs[8][1024], *p;

	assert_non_null(text);
	len += (size_t)sprintf(text + len, "{\"a\": \"");
	memset(text + len, 'x', big);
	len += big;
	len += (size_t)sprintf(text + len, "\"}\n{\"b\": 1}\n");
	p = write_bytes(d->path, "big.jsonl", text, len);
	assert_int_equal(read_all(p, lines, 4, errs, &n_errs), 1);
	assert_int_equal(lines[0], 2);
	assert_int_equal(n_errs, 1);
	want = fx_str("%s:1: line longer than %u bytes", p, JSONL_MAX_LINE);
	assert_string_equal(errs[0], want);
	free(want);
	free(p);

	/* exactly at the cap is fine (a line of spaces is blank, then skipped) */
	memset(text, ' ', JSONL_MAX_LINE);
	text[JSONL_MAX_LINE] = '\n';
	memcpy(text + JSONL_MAX_LINE + 1, "{}", 2);
	p = write_bytes(d->path, "cap.jsonl", text, JSONL_MAX_LINE + 3);
	assert_int_equal(read_all(p, lines, 4, errs, &n_errs), 1);
	assert_int_equal(n_errs, 0);
	assert_int_equal(lines[0], 2);
	free(p);
	free(text);
}

/* Many lines, gzip'd, cut in the middle: an error naming file and line, then end of file. */
static void test_truncated_gzip(void **state)
{
	struct dir *d = *state;
	size_t n = 20000, len = 0, size = 0;
	char *text = malloc(n * 64), *p, *data, *cut, *want;
	struct sd_error err = { 0 };
	struct jsonl *r;
	json_t *obj;
	int ret, got = 0;

	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "{\"task_id\": \"T/%zu\", \"n\": %zu}\n", i, i * 7919 % 10007);
	p = write_gz(d->path, "full.jsonl.gz", text, len);
	data = fx_read_len(p, &size);
	assert_non_null(data);
	cut = write_bytes(d->path, "cut.jsonl.gz", data, size / 2);
	r = jsonl_open(cut, &err);
	assert_non_null(r);
	while ((ret = jsonl_next(r, &obj, &err)) > 0) {
		json_decref(obj);
		got++;
	}
	assert_int_equal(ret, -1);
	assert_true(got > 0 && (size_t)got < n);
	want = fx_str("%s:%d: truncated gzip data (unexpected end of file)", cut, got + 1);
	assert_string_equal(err.msg, want);
	assert_int_equal(jsonl_next(r, &obj, &err), 0);	/* then end of file */
	jsonl_close(r);
	free(want);

	/* json_load_path and jsonl_read_all say the same */
	assert_null(json_load_path(cut, &err));
	want = fx_str("%s: truncated gzip data", cut);
	assert_contains(err.msg, want);
	free(want);
	free(cut);

	/* corrupt: bytes in the middle of the deflate stream flipped */
	for (size_t i = size / 3; i < size / 3 + 64; i++)
		data[i] ^= 0x5a;
	cut = write_bytes(d->path, "bad.jsonl.gz", data, size);
	r = jsonl_open(cut, &err);
	assert_non_null(r);
	got = 0;
	while ((ret = jsonl_next(r, &obj, &err)) != 0) {
		if (ret > 0)
			json_decref(obj);
		else
			got++;	/* garbled lines, then zlib notices */
	}
	assert_true(got > 0);
	assert_contains(err.msg, "corrupt gzip data (");
	jsonl_close(r);
	free(cut);
	free(data);
	free(p);
	free(text);
}

static void test_empty_missing_directory(void **state)
{
	struct dir *d = *state;
	char *p = write_bytes(d->path, "empty.jsonl", "", 0), *want;
	struct sd_error err = { 0 };
	struct jsonl *r = jsonl_open(p, &err);
	json_t *obj;

	assert_non_null(r);
	assert_int_equal(jsonl_next(r, &obj, &err), 0);
	assert_int_equal(jsonl_next(r, &obj, &err), 0);
	jsonl_close(r);
	free(p);

	p = fx_str("%s/nope.jsonl", d->path);
	assert_null(jsonl_open(p, &err));
	want = fx_str("cannot open '%s': No such file or directory", p);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, ENOENT);
	free(want);
	free(p);

	r = jsonl_open(d->path, &err);		/* a directory opens, then fails to read */
	assert_non_null(r);
	assert_int_equal(jsonl_next(r, &obj, &err), -1);
	want = fx_str("%s:1: cannot read: Is a directory", d->path);
	assert_string_equal(err.msg, want);
	free(want);
	jsonl_close(r);
	jsonl_close(NULL);
}

static void test_load_path(void **state)
{
	struct dir *d = *state;
	static const char doc[] = "[\n  {\"a\": 1},\n  {\"b\": [true, null]}\n]\n";
	char *p = write_bytes(d->path, "doc.json", doc, sizeof(doc) - 1), *want;
	char *gz = write_gz(d->path, "doc.json.gz", doc, sizeof(doc) - 1);
	struct sd_error err = { 0 };
	json_t *v = json_load_path(p, &err), *w;

	assert_non_null(v);
	w = json_load_path(gz, &err);
	assert_non_null(w);
	assert_true(json_equal(v, w));
	assert_int_equal(json_array_size(v), 2);
	json_decref(v);
	json_decref(w);
	free(p);
	free(gz);

	p = write_bytes(d->path, "bad.json", "[\n  {\"a\": 1},\n  {\"b\": tru}\n]\n", 28);
	assert_null(json_load_path(p, &err));
	want = fx_str("%s:3:", p);
	assert_contains(err.msg, want);
	assert_contains(err.msg, "invalid JSON: invalid token");
	free(want);
	free(p);

	p = write_bytes(d->path, "empty.json", "", 0);
	assert_null(json_load_path(p, &err));
	want = fx_str("%s:1:1: invalid JSON: ", p);
	assert_contains(err.msg, want);
	free(want);
	free(p);
}

static void test_read_all_cap(void **state)
{
	struct dir *d = *state;
	char *p = write_gz(d->path, "x.gz", "0123456789", 10), *out = NULL, *want;
	struct sd_error err = { 0 };
	size_t len = 0;

	assert_int_equal(jsonl_read_all(p, 10, &out, &len, &err), 0);
	assert_string_equal(out, "0123456789");
	assert_int_equal(len, 10);
	free(out);
	out = NULL;
	assert_int_equal(jsonl_read_all(p, 9, &out, &len, &err), -1);
	assert_null(out);
	want = fx_str("'%s' is larger than 9 bytes", p);
	assert_string_equal(err.msg, want);
	free(want);
	free(p);
}

static void test_text_line(void **state)
{
	static const char text[] =
		"{\n"
		"  \"id\": \"fib\",\n"
		"  \"s\": \"a \\\" [tricky] {string}\",\n"
		"  \"tests\": [\n"
		"    {\"name\": \"a\", \"args\": [1]},\n"
		"    {\"name\": \"b\",\n"
		"     \"tier\": \"edge\"},\n"
		"    {\n"
		"      \"name\": \"c\"}\n"
		"  ]\n"
		"}\n";
	size_t len = sizeof(text) - 1, lines[4];

	(void)state;
	assert_int_equal(json_text_line(text, len, ""), 1);
	assert_int_equal(json_text_line(text, len, NULL), 1);
	assert_int_equal(json_text_line(text, len, "id"), 2);
	assert_int_equal(json_text_line(text, len, "tests"), 4);
	assert_int_equal(json_text_line(text, len, "tests[0]"), 5);
	assert_int_equal(json_text_line(text, len, "tests[1].tier"), 7);
	assert_int_equal(json_text_line(text, len, "tests[2]"), 8);
	assert_int_equal(json_text_line(text, len, "tests[2].name"), 9);
	/* missing: the deepest ancestor found */
	assert_int_equal(json_text_line(text, len, "tests[1].nope"), 6);
	assert_int_equal(json_text_line(text, len, "tests[7].name"), 4);
	assert_int_equal(json_text_line(text, len, "nope.x"), 1);
	assert_int_equal(json_text_line(text, len, "tests[x"), 4);	/* up to the bad segment */
	/* not JSON at all: still an answer, never a crash */
	assert_int_equal(json_text_line("\n\n{\"a\": [", 9, "a[3].b"), 3);
	assert_int_equal(json_text_line("", 0, "a"), 1);

	json_text_array_lines("[{\"a\": 1},\n {\"b\": [1,\n 2]},\n\n 7]", 31, lines, 4);
	assert_int_equal(lines[0], 1);
	assert_int_equal(lines[1], 2);
	assert_int_equal(lines[2], 5);
	assert_int_equal(lines[3], 0);
}

/* The real HumanEval file: 164 records, one a line. */
static void test_real_humaneval(void **state)
{
	const char *data = getenv("SANDEVAL_DATA");
	char *p = fx_str("%s/humaneval/HumanEval.jsonl.gz", data && *data ? data : "../shared/data");
	size_t lines[200], n_errs;
	char errs[8][1024];

	(void)state;
	if (!fx_exists(p)) {
		fx_skip_note("data: no '%s' (set SANDEVAL_DATA)", p);
		free(p);
		skip();
	}
	assert_int_equal(read_all(p, lines, 200, errs, &n_errs), 164);
	assert_int_equal(n_errs, 0);
	assert_int_equal(lines[163], 164);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gzip_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_name_file_line_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_utf8_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_line_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_all_cap, setup, teardown),
		cmocka_unit_test(test_text_line),
		cmocka_unit_test(test_real_humaneval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
