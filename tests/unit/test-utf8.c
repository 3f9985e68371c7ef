/* test-utf8.c - unit tests of utf8.c: sequence validation and sanitizing untrusted bytes for JSON */
#include "fixture.h"

#include "base/utf8.h"

#define FFFD "\xef\xbf\xbd"

struct seq_case {
	const char *bytes;
	size_t len;
	size_t want;
	const char *what;
};

#define SEQ(b, want, what) { b, sizeof(b) - 1, want, what }

static void test_valid_seq_accepts(void **state)
{
	static const struct seq_case cases[] = {
		SEQ("A", 1, "ASCII"),
		SEQ("\x7f", 1, "DEL"),
		{ "\0", 1, 1, "NUL" },
		SEQ("\xc2\x80", 2, "U+0080, smallest 2-byte"),
		SEQ("\xc3\xa9", 2, "U+00E9"),
		SEQ("\xdf\xbf", 2, "U+07FF, largest 2-byte"),
		SEQ("\xe0\xa0\x80", 3, "U+0800, smallest 3-byte"),
		SEQ("\xe2\x82\xac", 3, "U+20AC euro"),
		SEQ("\xed\x9f\xbf", 3, "U+D7FF, just below the surrogates"),
		SEQ("\xee\x80\x80", 3, "U+E000, just above the surrogates"),
		SEQ(FFFD, 3, "U+FFFD"),
		SEQ("\xef\xbf\xbf", 3, "U+FFFF"),
		SEQ("\xf0\x90\x80\x80", 4, "U+10000, smallest 4-byte"),
		SEQ("\xf0\x9f\x98\x80", 4, "U+1F600"),
		SEQ("\xf4\x8f\xbf\xbf", 4, "U+10FFFF, the last code point"),
		SEQ("A\xff", 1, "only the first sequence counts"),
		SEQ("\xc3\xa9\xff", 2, "trailing garbage after a valid sequence"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t got = utf8_valid_seq((const unsigned char *)cases[i].bytes, cases[i].len);

		if (got != cases[i].want)
			fail_msg("%s: utf8_valid_seq = %zu, want %zu", cases[i].what, got, cases[i].want);
	}
}

static void test_valid_seq_rejects(void **state)
{
	static const struct seq_case cases[] = {
		SEQ("\x80", 0, "lone continuation 80"),
		SEQ("\xbf", 0, "lone continuation BF"),
		SEQ("\xc0\x80", 0, "overlong NUL (C0 80)"),
		SEQ("\xc1\xbf", 0, "overlong 2-byte (C1 BF)"),
		SEQ("\xe0\x80\x80", 0, "overlong 3-byte (E0 80 80)"),
		SEQ("\xe0\x9f\xbf", 0, "overlong 3-byte (E0 9F BF)"),
		SEQ("\xf0\x80\x80\x80", 0, "overlong 4-byte (F0 80 80 80)"),
		SEQ("\xf0\x8f\xbf\xbf", 0, "overlong 4-byte (F0 8F BF BF)"),
		SEQ("\xed\xa0\x80", 0, "surrogate U+D800 (ED A0 80)"),
		SEQ("\xed\xbf\xbf", 0, "surrogate U+DFFF (ED BF BF)"),
		SEQ("\xf4\x90\x80\x80", 0, "U+110000 (F4 90 80 80)"),
		SEQ("\xf5\x80\x80\x80", 0, "F5 lead byte"),
		SEQ("\xf7\xbf\xbf\xbf", 0, "F7 lead byte"),
		SEQ("\xf8\x88\x80\x80\x80", 0, "5-byte form"),
		SEQ("\xfc\x84\x80\x80\x80\x80", 0, "6-byte form"),
		SEQ("\xfe", 0, "FE"),
		SEQ("\xff", 0, "FF"),
		SEQ("\xc2", 0, "truncated 2-byte"),
		SEQ("\xe2\x82", 0, "truncated 3-byte"),
		SEQ("\xe2", 0, "truncated 3-byte, lead only"),
		SEQ("\xf0\x9f\x98", 0, "truncated 4-byte"),
		SEQ("\xc2\x41", 0, "ASCII where a continuation belongs"),
		SEQ("\xe2\x28\xa1", 0, "bad second byte of 3"),
		SEQ("\xe2\x82\x28", 0, "bad third byte of 3"),
		SEQ("\xf0\x9f\x98\x28", 0, "bad fourth byte of 4"),
		SEQ("\xc2\xc3", 0, "lead where a continuation belongs"),
		/* len, not the bytes in memory, bounds the sequence */
		{ "\xe2\x82\xac", 2, 0, "euro with len 2" },
		{ "\xf0\x9f\x98\x80", 3, 0, "U+1F600 with len 3" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t got = utf8_valid_seq((const unsigned char *)cases[i].bytes, cases[i].len);

		if (got != cases[i].want)
			fail_msg("%s: utf8_valid_seq = %zu, want %zu", cases[i].what, got, cases[i].want);
	}
}

/* Every code point from U+0000 to U+10FFFF except the surrogates, encoded by
 * hand, is accepted with its exact length. */
static void test_valid_seq_every_code_point(void **state)
{
	(void)state;
	for (unsigned cp = 0; cp <= 0x10ffff; cp++) {
		unsigned char b[4];
		size_t n, got;

		if (cp < 0x80) {
			b[0] = (unsigned char)cp, n = 1;
		} else if (cp < 0x800) {
			b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f)), n = 2;
		} else if (cp < 0x10000) {
			b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
			b[2] = (unsigned char)(0x80 | (cp & 0x3f)), n = 3;
		} else {
			b[0] = (unsigned char)(0xf0 | cp >> 18), b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
			b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)), b[3] = (unsigned char)(0x80 | (cp & 0x3f)), n = 4;
		}
		got = utf8_valid_seq(b, n);
		if (cp >= 0xd800 && cp <= 0xdfff) {
			if (got != 0)
				fail_msg("surrogate U+%04X accepted", cp);
		} else if (got != n) {
			fail_msg("U+%04X: utf8_valid_seq = %zu, want %zu", cp, got, n);
		}
	}
}

struct san_case {
	const char *in;
	size_t in_len;
	const char *out;
	size_t out_len;
	const char *what;
};

#define SAN(in, out, what) { in, sizeof(in) - 1, out, sizeof(out) - 1, what }

static void check_sanitize(const struct san_case *c)
{
	size_t n = 12345;
	char *out = utf8_sanitize(c->in, c->in_len, &n);

	assert_non_null(out);
	if (n != c->out_len || memcmp(out, c->out, n) != 0) {
		free(out);
		fail_msg("%s: wrong output (length %zu, want %zu)", c->what, n, c->out_len);
	}
	assert_int_equal(out[n], '\0');
	free(out);
}

static void test_sanitize(void **state)
{
	static const struct san_case cases[] = {
		SAN("", "", "empty"),
		SAN("hello, world\n", "hello, world\n", "ASCII unchanged"),
		SAN("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		    "valid 2-, 3- and 4-byte sequences unchanged"),
		SAN(FFFD, FFFD, "U+FFFD itself unchanged"),
		SAN("a\xff" "b", "a" FFFD "b", "one invalid byte"),
		SAN("\xfe\xff", FFFD FFFD, "two invalid bytes, two replacements"),
		SAN("\xc0\x80", FFFD FFFD, "overlong C0 80: each byte replaced"),
		SAN("\xe0\x80\x80", FFFD FFFD FFFD, "overlong E0 80 80"),
		SAN("\xed\xa0\x80", FFFD FFFD FFFD, "surrogate ED A0 80"),
		SAN("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD, "above U+10FFFF"),
		SAN("\x80\xbf", FFFD FFFD, "lone continuation bytes"),
		SAN("ok\xc3", "ok" FFFD, "truncated 2-byte at the end"),
		SAN("ab\xe2\x82", "ab" FFFD FFFD, "truncated 3-byte at the end"),
		SAN("x\xf0\x9f\x98", "x" FFFD FFFD FFFD, "truncated 4-byte at the end"),
		SAN("\xe2\x82" "A\xe2\x82\xac", FFFD FFFD "A\xe2\x82\xac", "resynchronises after a broken sequence"),
		SAN("\xc3(", FFFD "(", "ASCII after a lead byte is kept"),
		{ "a\0b", 3, "a\0b", 3, "embedded NUL kept" },
		{ "\0\xff\0", 3, "\0" FFFD "\0", 5, "NULs around an invalid byte" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sanitize(&cases[i]);
}

/* Each of the 256 byte values alone: ASCII passes, everything else is U+FFFD. */
static void test_sanitize_single_bytes(void **state)
{
	(void)state;
	for (int b = 0; b < 256; b++) {
		char in = (char)b;
		size_t n;
		char *out = utf8_sanitize(&in, 1, &n);

		assert_non_null(out);
		if (b < 0x80) {
			assert_int_equal(n, 1);
			assert_int_equal((unsigned char)out[0], b);
		} else {
			if (n != 3 || memcmp(out, FFFD, 3) != 0)
				fail_msg("byte %02X not replaced by U+FFFD", b);
		}
		free(out);
	}
}

static void test_sanitize_out_len_optional(void **state)
{
	char *out = utf8_sanitize("a\xff", 2, NULL);

	(void)state;
	assert_non_null(out);
	assert_string_equal(out, "a" FFFD);
	free(out);
}

/* The worst case: every byte invalid triples the size. */
static void test_sanitize_worst_case(void **state)
{
	size_t len = 1 << 20, n;
	char *in = malloc(len), *out;

	(void)state;
	assert_non_null(in);
	memset(in, 0xff, len);
	out = utf8_sanitize(in, len, &n);
	assert_non_null(out);
	assert_int_equal(n, 3 * len);
	for (size_t i = 0; i < n; i += 3)
		if (memcmp(out + i, FFFD, 3) != 0)
			fail_msg("offset %zu is not U+FFFD", i);
	assert_int_equal(out[n], '\0');
	free(out);
	free(in);
}

static bool all_valid(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = utf8_valid_seq((const unsigned char *)s + i, n - i);

		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* Pseudo-random bytes: the output is always valid UTF-8, at most 3x the input,
 * and sanitizing it again changes nothing. */
static void test_sanitize_random_properties(void **state)
{
	uint32_t x = 2463534242u;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		unsigned char in[64];
		size_t len = round % 64, n1, n2;
		char *o1, *o2;

		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			/* bias towards lead and continuation bytes */
			in[i] = (unsigned char)(x % 3 == 0 ? x >> 8 : 0x80 | ((x >> 8) & 0x7f));
		}
		o1 = utf8_sanitize((const char *)in, len, &n1);
		assert_non_null(o1);
		assert_true(n1 <= 3 * len);
		if (!all_valid(o1, n1))
			fail_msg("round %d: output is not valid UTF-8", round);
		if (all_valid((const char *)in, len))
			assert_memory_equal(o1, in, len);
		o2 = utf8_sanitize(o1, n1, &n2);
		assert_non_null(o2);
		assert_int_equal(n2, n1);
		assert_memory_equal(o2, o1, n1);
		free(o2);
		free(o1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_seq_accepts),
		cmocka_unit_test(test_valid_seq_rejects),
		cmocka_unit_test(test_valid_seq_every_code_point),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_sanitize_single_bytes),
		cmocka_unit_test(test_sanitize_out_len_optional),
		cmocka_unit_test(test_sanitize_worst_case),
		cmocka_unit_test(test_sanitize_random_properties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
