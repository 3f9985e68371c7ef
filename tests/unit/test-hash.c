/* test-hash.c - unit tests of hash.c: SHA-256 hex of known vectors, length-prefixed fields against the same bytes hashed by hand */
#include "fixture.h"

#include "base/hash.h"

/* SHA-256 of the N bytes of P, one update, as lowercase hex */
static void sha256_of(const void *p, size_t n, char hex[65])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, n, p);
	hash_digest_hex(&ctx, hex);
}

static void test_hex_known_vectors(void **state)
{
	char hex[65];

	(void)state;
	sha256_of("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_of("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_hex_bytes(void **state)
{
	static const uint8_t d[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
	char out[2 * sizeof(d) + 1];

	(void)state;
	memset(out, 'x', sizeof(out));
	hash_hex(d, sizeof(d), out);
	assert_string_equal(out, "00017f80abff");
	hash_hex(d, 0, out);
	assert_string_equal(out, "");
}

static void test_lp_by_hand(void **state)
{
	static const uint8_t by_hand[] = { 0, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c' };
	struct sha256_ctx ctx;
	char hex[65], want[65];

	(void)state;
	sha256_init(&ctx);
	hash_update_lp(&ctx, "abc", 3);
	hash_digest_hex(&ctx, hex);
	sha256_of(by_hand, sizeof(by_hand), want);
	assert_string_equal(hex, want);
	/* python3: hashlib.sha256(b'\0' * 7 + b'\x03abc').hexdigest() */
	assert_string_equal(hex, "c3494ca1a2cf8eeb8a11ded316fb55b83c3bbbedb6313cd50415251e5d09e12f");

	/* an empty field is its length alone; P is not read */
	sha256_init(&ctx);
	hash_update_lp(&ctx, NULL, 0);
	hash_digest_hex(&ctx, hex);
	assert_string_equal(hex, "af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc");
}

static void test_lp_long_length(void **state)
{
	static uint8_t buf[300];
	uint8_t by_hand[8 + sizeof(buf)] = { 0, 0, 0, 0, 0, 0, 0x01, 0x2c };	/* 300, big-endian */
	struct sha256_ctx ctx;
	char hex[65], want[65];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	memcpy(by_hand + 8, buf, sizeof(buf));
	sha256_init(&ctx);
	hash_update_lp(&ctx, buf, sizeof(buf));
	hash_digest_hex(&ctx, hex);
	sha256_of(by_hand, sizeof(by_hand), want);
	assert_string_equal(hex, want);
}

static void test_str_tags(void **state)
{
	static const uint8_t by_hand[] = { 's', 0, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c',
					   'n', 0, 0, 0, 0, 0, 0, 0, 0,
					   's', 0, 0, 0, 0, 0, 0, 0, 0 };
	struct sha256_ctx ctx;
	char hex[65], want[65];

	(void)state;
	sha256_init(&ctx);
	hash_update_str(&ctx, "abc");
	hash_update_str(&ctx, NULL);
	hash_update_str(&ctx, "");
	hash_digest_hex(&ctx, hex);
	sha256_of(by_hand, sizeof(by_hand), want);
	assert_string_equal(hex, want);
	assert_string_equal(hex, "d36b903fc2dda476f9926427c31fb2c4da7df085b6f98323dccdc7b9ab2141ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_known_vectors),
		cmocka_unit_test(test_hex_bytes),
		cmocka_unit_test(test_lp_by_hand),
		cmocka_unit_test(test_lp_long_length),
		cmocka_unit_test(test_str_tags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
