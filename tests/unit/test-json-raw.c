/* test-json-raw.c - unit tests of json-raw.c: Python's JSON grammar (big integers, NaN, Infinity) checked, values located, text never changed */
#include "fixture.h"

#include "base/json-raw.h"

static bool ok(const char *text)
{
	return json_raw_parse(text, strlen(text), NULL, NULL, NULL);
}

/* What Python's json.loads accepts (each case checked with Python 3.11 when written). */
static void test_accepts(void **state)
{
	static const char *const good[] = {
		"0", "-0", "1", "-1", "1.5", "-0.25", "1e5", "1E+5", "1e-05", "2.5e-3",
		"99999999999999999999999999999", "-99999999999999999999999999999",
		"123456789012345678901234567890123456789012345678901234567890.5e400",
		"NaN", "Infinity", "-Infinity", "[-Infinity, Infinity, NaN]",
		"true", "false", "null", "\"\"", "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\ude00\"",
		"\"\xc3\xa9 \xe2\x82\xac\"", "[]", "{}", " [ 1 , [ ] , { } ] ", "\t\r\n{\"a\": {\"b\": [1, {\"c\": null}]}}\n",
		"{\"a\": 1, \"a\": 2}",	/* Python takes the last: json_raw_count says 2 */
		"[[[[[[[[[[1]]]]]]]]]]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!ok(good[i]))
			fail_msg("rejected: %s", good[i]);
}

static void test_rejects(void **state)
{
	static const struct {
		const char *text;
		size_t off;
		const char *why;
	} bad[] = {
		{ "", 0, "a value expected" },
		{ "   ", 3, "a value expected" },
		{ "01", 1, "extra data after the value" },
		{ "1.", 2, "digit expected" },
		{ ".5", 0, "a value expected" },
		{ "+1", 0, "a value expected" },
		{ "1e", 2, "digit expected" },
		{ "-", 1, "digit expected" },
		{ "-NaN", 1, "digit expected" },
		{ "nan", 0, "unknown word (true, false, null, NaN, Infinity)" },
		{ "inf", 0, "a value expected" },
		{ "-Inf", 1, "unknown word (true, false, null, NaN, Infinity)" },
		{ "tru", 0, "unknown word (true, false, null, NaN, Infinity)" },
		{ "[1,]", 3, "a value expected" },
		{ "[1 2]", 3, "',' or ']' expected" },
		{ "{\"a\" 1}", 5, "':' expected" },
		{ "{\"a\": 1,}", 8, "a member name (a string) expected" },
		{ "{1: 2}", 1, "a member name (a string) expected" },
		{ "{'a': 1}", 1, "a member name (a string) expected" },
		{ "\"abc", 4, "unterminated string" },
		{ "\"a\tb\"", 2, "control character in a string" },
		{ "\"\\x41\"", 2, "invalid escape in a string" },
		{ "\"\\u12G4\"", 2, "\\u must be followed by four hex digits" },
		{ "[1] [2]", 4, "extra data after the value" },
		{ "[", 1, "a value expected" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t off = 999;
		const char *why = NULL;

		if (json_raw_parse(bad[i].text, strlen(bad[i].text), NULL, &off, &why))
			fail_msg("accepted: '%s'", bad[i].text);
		if (off != bad[i].off || !why || strcmp(why, bad[i].why) != 0)
			fail_msg("'%s': offset %zu '%s', expected %zu '%s'", bad[i].text, off, why ? why : "(null)",
				 bad[i].off, bad[i].why);
	}
	/* a NUL byte is no white space, and a string cannot hold one raw */
	assert_false(json_raw_parse("1\0", 2, NULL, NULL, NULL));
	assert_false(json_raw_parse("\"a\0\"", 4, NULL, NULL, NULL));
}

static void test_depth(void **state)
{
	size_t n = JSON_RAW_MAX_DEPTH;
	char *deep = malloc(2 * n + 3);
	const char *why = NULL;

	(void)state;
	assert_non_null(deep);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	assert_true(ok(deep));				/* 500 levels */
	memset(deep, '[', n + 1);
	memset(deep + n + 1, ']', n + 1);
	deep[2 * n + 2] = '\0';
	assert_false(json_raw_parse(deep, 2 * n + 2, NULL, NULL, &why));
	assert_string_equal(why, "nested too deeply");
	free(deep);
}

/* Values are found as the exact text they are written as. */
static void test_locate(void **state)
{
	const char *text = " {\"task_id\": \"HumanEval/22\", \"base_input\": [[1.0, \"x\"], [0.12345678901234568]],"
			   " \"plus_input\": [[[99999999999999999999999, -99999999999999999999999]], [-Infinity, Infinity] ,"
			   "[NaN]], \"atol\": 0, \"a\\\"q\": {}} ";
	struct json_raw top, v, e;
	size_t pos = 0, n = 0;
	const char *want[] = { "[[99999999999999999999999, -99999999999999999999999]]", "[-Infinity, Infinity]", "[NaN]" };

	(void)state;
	assert_true(json_raw_parse(text, strlen(text), &top, NULL, NULL));
	assert_int_equal(json_raw_kind(top), '{');
	assert_int_equal(top.p - text, 1);
	assert_int_equal(top.len, strlen(text) - 2);
	assert_true(json_raw_member(top, "task_id", &v));
	assert_int_equal(json_raw_kind(v), '"');
	assert_true(v.len == 14 && memcmp(v.p, "\"HumanEval/22\"", 14) == 0);
	assert_true(json_raw_member(top, "atol", &v));
	assert_true(v.len == 1 && v.p[0] == '0');
	assert_string_equal(json_raw_kind_name(v), "a number");
	assert_false(json_raw_member(top, "missing", &v));
	assert_false(json_raw_member(top, "a\"q", &v));	/* names as written: a\"q */
	assert_true(json_raw_member(top, "a\\\"q", &v));
	assert_string_equal(json_raw_kind_name(v), "an object");
	assert_int_equal(json_raw_count(top, "atol"), 1);
	assert_true(json_raw_member(top, "base_input", &v));
	assert_true(json_raw_next(v, &pos, &e));
	assert_true(e.len == 10 && memcmp(e.p, "[1.0, \"x\"]", 10) == 0);
	assert_true(json_raw_next(v, &pos, &e));
	assert_true(e.len == 21 && memcmp(e.p, "[0.12345678901234568]", 21) == 0);
	assert_false(json_raw_next(v, &pos, &e));
	assert_true(json_raw_member(top, "plus_input", &v));
	pos = 0;
	while (json_raw_next(v, &pos, &e)) {
		assert_true(n < 3);
		assert_int_equal(e.len, strlen(want[n]));
		assert_memory_equal(e.p, want[n], e.len);
		n++;
	}
	assert_int_equal(n, 3);
	/* an empty array has no element; a non-array none either */
	assert_true(json_raw_parse("[ ]", 3, &v, NULL, NULL));
	pos = 0;
	assert_false(json_raw_next(v, &pos, &e));
	assert_true(json_raw_parse("{\"a\": 1, \"a\": 2}", 16, &v, NULL, NULL));
	assert_int_equal(json_raw_count(v, "a"), 2);
	assert_true(json_raw_member(v, "a", &e));
	assert_true(e.len == 1 && e.p[0] == '1');	/* the first */
	pos = 0;
	assert_false(json_raw_next(v, &pos, &e));
	assert_string_equal(json_raw_kind_name((struct json_raw){ "true", 4 }), "a boolean");
	assert_string_equal(json_raw_kind_name((struct json_raw){ "null", 4 }), "null");
	assert_string_equal(json_raw_kind_name((struct json_raw){ "-Infinity", 9 }), "a number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_locate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
