/* rouge.c - ROUGE-L F1 over code tokens (longest common subsequence, two DP rows) */
#include "score/rouge.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tok {
	const char *p;
	size_t len;
};

static bool is_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* Split S into tokens; '#' and '//' comments run to the end of the line. */
static size_t tokenize(const char *s, struct tok *out, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		unsigned char c = (unsigned char)*s;

		if (isspace(c)) {
			s++;
		} else if (c == '#' || (c == '/' && s[1] == '/')) {
			while (*s && *s != '\n')
				s++;
		} else if (is_word(c)) {
			const char *b = s;

			while (*s && is_word((unsigned char)*s))
				s++;
			out[n++] = (struct tok){ b, (size_t)(s - b) };
		} else {
			out[n++] = (struct tok){ s, 1 };
			s++;
		}
	}
	return n;
}

static bool tok_eq(const struct tok *a, const struct tok *b)
{
	return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

double rouge_l(const char *candidate, const char *reference)
{
	struct tok *c = malloc(ROUGE_MAX_TOKENS * sizeof(*c));
	struct tok *r = malloc(ROUGE_MAX_TOKENS * sizeof(*r));
	uint32_t *prev = calloc(ROUGE_MAX_TOKENS + 1, sizeof(*prev));
	uint32_t *cur = calloc(ROUGE_MAX_TOKENS + 1, sizeof(*cur));
	size_t nc, nr;
	double lcs, p, q, f = 0.0;

	if (!c || !r || !prev || !cur || !candidate || !reference)
		goto out;
	nc = tokenize(candidate, c, ROUGE_MAX_TOKENS);
	nr = tokenize(reference, r, ROUGE_MAX_TOKENS);
	if (nc == 0 || nr == 0)
		goto out;
	for (size_t i = 1; i <= nc; i++) {
		uint32_t *t;

		for (size_t j = 1; j <= nr; j++) {
			if (tok_eq(&c[i - 1], &r[j - 1]))
				cur[j] = prev[j - 1] + 1;
			else
				cur[j] = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	lcs = prev[nr];
	if (lcs > 0) {
		p = lcs / (double)nc;
		q = lcs / (double)nr;
		f = 2 * p * q / (p + q);
	}
out:
	free(c);
	free(r);
	free(prev);
	free(cur);
	return f;
}
