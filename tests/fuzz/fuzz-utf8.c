/* fuzz-utf8.c - fuzz target: utf8_sanitize() of untrusted bytes must give valid UTF-8 */
#include <string.h>

#include "fuzz.h"
#include "base/utf8.h"

/* Walk S with utf8_valid_seq(); true if every byte is part of a valid sequence. */
static int all_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = utf8_valid_seq(s + i, n - i);

		if (k < 1 || k > 4 || k > n - i)
			return 0;
		i += k;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = (size_t)-1, n2 = (size_t)-1;
	char *out = utf8_sanitize((const char *)data, size, &n);
	char *again;

	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(n <= 3 * size);
	FUZZ_CHECK(out[n] == '\0');
	FUZZ_CHECK(all_valid((const unsigned char *)out, n));
	/* valid input passes through unchanged */
	if (all_valid(data, size))
		FUZZ_CHECK(n == size && memcmp(out, data, size) == 0);
	/* sanitizing is idempotent */
	again = utf8_sanitize(out, n, &n2);
	FUZZ_CHECK(again != NULL);
	FUZZ_CHECK(n2 == n && memcmp(again, out, n) == 0);
	/* a sequence never reaches past len */
	if (size)
		FUZZ_CHECK(utf8_valid_seq(data, size) <= size);
	free(again);
	free(out);
	return 0;
}
