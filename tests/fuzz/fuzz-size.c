/* fuzz-size.c - fuzz target: the command-line number parsers parse_size, parse_seconds, parse_long */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct sd_error err;
	uint64_t u = 0;
	double d = -1;
	long l = 0;

	FUZZ_CHECK(s != NULL);
	memcpy(s, data, size);
	s[size] = '\0';

	memset(&err, 0, sizeof(err));
	if (parse_size(s, &u, &err) == 0)
		FUZZ_CHECK(u < 9200000000000000000ULL);
	else
		FUZZ_CHECK(err.msg[0] != '\0' && strlen(err.msg) < sizeof(err.msg));

	memset(&err, 0, sizeof(err));
	if (parse_seconds(s, 3600, &d, &err) == 0)
		FUZZ_CHECK(isfinite(d) && d > 0 && d <= 3600);
	else
		FUZZ_CHECK(err.msg[0] != '\0');

	memset(&err, 0, sizeof(err));
	if (parse_long(s, -1000, 1000, &l, &err) == 0)
		FUZZ_CHECK(l >= -1000 && l <= 1000);
	else
		FUZZ_CHECK(err.msg[0] != '\0');

	memset(&err, 0, sizeof(err));
	if (parse_long(s, LONG_MIN, LONG_MAX, &l, &err) != 0)
		FUZZ_CHECK(err.msg[0] != '\0');

	/* NULL error objects are allowed */
	parse_size(s, &u, NULL);
	parse_seconds(s, 1, &d, NULL);
	parse_long(s, 0, 0, &l, NULL);
	free(s);
	return 0;
}
