/* test-base64.c - unit tests of base64.c: RFC 4648's vectors, round trips, and what is refused where */
#include "fixture.h"

#include "base/base64.h"

static void test_rfc4648_vectors(void **state)
{
	static const char *const vec[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		size_t n = 0, m = 0;
		char *enc = base64_encode(vec[i][0], strlen(vec[i][0]), 0, &n), *dec = NULL;

		assert_non_null(enc);
		assert_string_equal(enc, vec[i][1]);
		assert_int_equal(n, strlen(vec[i][1]));
		assert_int_equal(base64_decode(enc, n, &dec, &m, NULL), 0);
		assert_int_equal(m, strlen(vec[i][0]));
		assert_memory_equal(dec, vec[i][0], m);
		assert_int_equal(dec[m], '\0');
		free(enc);
		free(dec);
	}
}

static void test_round_trip_every_byte(void **state)
{
	unsigned char buf[777];
	size_t n, m;
	char *enc, *dec;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (size_t len = 0; len < sizeof(buf); len += 37) {
		enc = base64_encode(buf, len, 0, &n);
		assert_non_null(enc);
		assert_int_equal(n, (len + 2) / 3 * 4);
		assert_int_equal(base64_decode(enc, n, &dec, &m, NULL), 0);
		assert_int_equal(m, len);
		assert_memory_equal(dec, buf, len);
		free(enc);
		free(dec);
	}
}

static void test_decode_lenient_where_python_is(void **state)
{
	char *dec;
	size_t m;

	(void)state;
	/* MIME line breaks and a missing padding */
	assert_int_equal(base64_decode("Zm9v\r\nYmFy\n", 11, &dec, &m, NULL), 0);
	assert_string_equal(dec, "foobar");
	free(dec);
	assert_int_equal(base64_decode("Zm9vYg", 6, &dec, &m, NULL), 0);
	assert_string_equal(dec, "foob");
	free(dec);
	/* NUL bytes come through */
	assert_int_equal(base64_decode("AAA=", 4, &dec, &m, NULL), 0);
	assert_int_equal(m, 2);
	assert_int_equal(dec[0] | dec[1], 0);
	free(dec);
}

static void test_decode_refuses(void **state)
{
	static const struct { const char *text; size_t at; } bad[] = {
		{ "Zm9v!", 4 },		/* not in the alphabet */
		{ "Zm-v", 2 },		/* base64url is another alphabet */
		{ "Z", 1 },		/* one character cannot make a byte */
		{ "Zm9vY", 5 },
		{ "=Zm9", 0 },		/* padding first */
		{ "Z===", 1 },		/* padding after one character */
		{ "Zg==Zg==", 4 },	/* data after the padding */
		{ "Zm8==", 4 },		/* too much padding */
		{ "Zg=", 3 },		/* padding cut short */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *dec = (char *)"untouched";
		size_t m = 99, at = 99;

		if (base64_decode(bad[i].text, strlen(bad[i].text), &dec, &m, &at) != -1)
			fail_msg("'%s' decoded", bad[i].text);
		if (at != bad[i].at)
			fail_msg("'%s': refused at %zu, expected %zu", bad[i].text, at, bad[i].at);
		assert_string_equal(dec, "untouched");
	}
}

static void test_encode_cap(void **state)
{
	size_t n;
	char *s;

	(void)state;
	assert_null(base64_encode("foobar", 6, 7, &n));
	s = base64_encode("foobar", 6, 8, &n);
	assert_non_null(s);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_round_trip_every_byte),
		cmocka_unit_test(test_decode_lenient_where_python_is),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_encode_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
