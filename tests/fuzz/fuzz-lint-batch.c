/* fuzz-lint-batch.c - fuzz target: lint_batch_split() of a batch lint sandbox's stdout (untrusted: a file that
 * subverts the linter can print anything there)
 *
 * Checked against a model written differently (the index read by strtoull):
 * an entry is set only from a whole line "INDEX ENVELOPE" whose
 * INDEX is plain decimal and below the batch's size, to that line's text
 * after the first blank, from the first such line for the index; every
 * other entry stays null, and the array keeps its size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evaluator-internal.h"
#include "fuzz-lint.h"

#define N 5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	json_t *env = json_array();
	const char *want[N] = { 0 };
	size_t want_len[N] = { 0 };
	size_t start = 0;

	FUZZ_CHECK(env != NULL);
	for (int i = 0; i < N; i++)
		json_array_append_new(env, json_null());
	/* the model */
	for (size_t i = 0; i < size; i++) {
		size_t k, idx = 0;
		bool digits = true;

		if (in[i] != '\n')
			continue;
		/* the line is in[start, i) */
		for (k = start; k < i && in[k] != ' '; k++)
			if (in[k] < '0' || in[k] > '9')
				digits = false;
		if (k < i && k > start && digits) {
			char *num = strndup(in + start, k - start);
			unsigned long long v;

			FUZZ_CHECK(num != NULL);
			errno = 0;
			v = strtoull(num, NULL, 10);
			idx = errno == ERANGE || v >= N ? N : (size_t)v;
			free(num);
			if (idx < N && !want[idx]) {
				json_t *s = json_stringn(in + k + 1, i - k - 1);

				if (s) {
					want[idx] = in + k + 1;
					want_len[idx] = i - k - 1;
				}
				json_decref(s);
			}
		}
		start = i + 1;
	}
	lint_batch_split(in, size, env);
	FUZZ_CHECK(json_array_size(env) == N);
	for (int i = 0; i < N; i++) {
		json_t *e = json_array_get(env, i);

		if (!want[i]) {
			FUZZ_CHECK(json_is_null(e));
		} else {
			FUZZ_CHECK(json_is_string(e));
			FUZZ_CHECK(json_string_length(e) == want_len[i]);
			FUZZ_CHECK(memcmp(json_string_value(e), want[i], want_len[i]) == 0);
		}
	}
	json_decref(env);
	return 0;
}
