/* fuzz-rouge.c - fuzz target: ROUGE-L (rouge.c) of hostile candidate text against a reference
 *
 * The first byte says where the rest is cut into the candidate (a completion
 * as the model wrote it: any bytes) and the reference. ROUGE-L is an F1 over
 * code tokens, and what it must satisfy can be checked without a second
 * tokenizer:
 *   - a number in [0, 1] (never NAN: eval.c stores NAN only when a task has
 *     no reference), 0 when either side is NULL;
 *   - symmetric: F1 with beta = 1 does not care which side is which;
 *   - a text against itself: 1, or 0 when it has no token at all (and then
 *     against anything 0);
 *   - blind to layout and comments: more whitespace, or a '#' comment added
 *     at the end, changes nothing;
 *   - a text A against A twice: precision 1/2, recall 1, so 2/3.
 * Inputs over 1 KiB get the range check only, with A twice against the
 * reference (past ROUGE_MAX_TOKENS when A has over 2,048 tokens: ASan sees
 * any write past the cap). Inputs are bounded (libFuzzer's -max_len,
 * replay.c's 4 KiB), so each call is at most the 4096 x 4096 table; a slow
 * one shows as a timeout.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "score/rouge.h"

static char *copy(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	FUZZ_CHECK(s != NULL);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* S with more whitespace: each space a tab and a space, each newline two. */
static char *spread(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *out = malloc(2 * len + 1);

	FUZZ_CHECK(out != NULL);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ' ') {
			out[o++] = '\t';
			out[o++] = ' ';
		} else if (s[i] == '\n') {
			out[o++] = '\n';
			out[o++] = '\n';
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* S, then a comment line holding JUNK (its newlines dropped). */
static char *commented(const char *s, const char *junk)
{
	size_t len = strlen(s), o = len;
	char *out = malloc(len + strlen(junk) + 3);

	FUZZ_CHECK(out != NULL);
	memcpy(out, s, len);
	out[o++] = '\n';
	out[o++] = '#';
	for (const char *j = junk; *j; j++)
		if (*j != '\n')
			out[o++] = *j;
	out[o] = '\0';
	return out;
}

static bool in_range(double f)
{
	return !isnan(f) && f >= 0.0 && f <= 1.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = size ? 1 + (size - 1) * data[0] / 256 : 0;
	char *a = copy(data + (size ? 1 : 0), size ? cut - 1 : 0), *b = copy(data + cut, size - cut);
	char *a2, *aa = malloc(2 * strlen(a) + 2);
	double f = rouge_l(a, b), self, g;

	FUZZ_CHECK(in_range(f));
	FUZZ_CHECK(rouge_l(b, a) == f);
	FUZZ_CHECK(rouge_l(NULL, b) == 0.0 && rouge_l(a, NULL) == 0.0);
	FUZZ_CHECK(aa != NULL);
	sprintf(aa, "%s\n%s", a, a);
	if (size > 1024) {
		/* long: past the token cap on one side, and no time for more */
		FUZZ_CHECK(in_range(rouge_l(aa, b)));
		goto out;
	}
	self = rouge_l(a, a);
	FUZZ_CHECK(self == 0.0 || self == 1.0);
	if (self == 0.0)
		FUZZ_CHECK(f == 0.0);
	a2 = spread(a);
	FUZZ_CHECK(rouge_l(a2, b) == f);
	free(a2);
	a2 = commented(a, b);
	FUZZ_CHECK(rouge_l(a2, b) == f);
	free(a2);
	g = rouge_l(aa, a);
	FUZZ_CHECK(in_range(g));
	FUZZ_CHECK(self == 0.0 ? g == 0.0 : fabs(g - 2.0 / 3.0) < 1e-12);	/* a is at most 1 KiB: under the cap */
out:
	free(aa);
	free(a);
	free(b);
	return 0;
}
