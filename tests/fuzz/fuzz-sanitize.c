/* fuzz-sanitize.c - fuzz target: --sanitize (sanitize.c, sanitize-python.c) on hostile model output
 *
 * The first byte picks the task: its language (Python, C++, JavaScript, or
 * one sanitize.c knows nothing of), whether the text is a completion after
 * a HumanEval-like prompt that declares the entry point f, and whether an
 * entry point is known at all. The rest is the model's text, any bytes.
 * What must hold:
 *   - no error (the inputs are small: no ENOMEM), and the answer is
 *     consistent: changed exactly when some rule fired, the text
 *     NUL-terminated at its length;
 *   - the sanitizer writes no code of its own: the lines it returns are
 *     lines of the input, in their order (less leading blanks where a
 *     fenced block was dedented; a whole program after a prompt may start
 *     with an empty line);
 *   - a completion made only of indented lines, without a fence, is left as
 *     given (a HumanEval body);
 *   - the same input gives the same answer.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "suite/sanitize.h"

static const char prompt[] = "from typing import List\n\n\ndef f(x: List[int]) -> int:\n    \"\"\" doc \"\"\"\n";

/* Line K of S[0, N): start and length without its '\n'; false past the last. */
static bool line_at(const char *s, size_t n, size_t *pos, const char **l, size_t *len)
{
	const char *nl;

	if (*pos > n || (*pos == n && n > 0 && s[n - 1] == '\n'))
		return false;
	*l = s + *pos;
	nl = memchr(*l, '\n', n - *pos);
	*len = nl ? (size_t)(nl - *l) : n - *pos;
	*pos += *len + 1;
	return true;
}

/* Is LO line LI, but for leading blanks (a fenced block dedented)? */
static bool same_line(const char *lo, size_t lo_n, const char *li, size_t li_n)
{
	for (size_t k = 0; k + lo_n <= li_n; k++) {
		if (k + lo_n == li_n && memcmp(li + k, lo, lo_n) == 0)
			return true;
		if (li[k] != ' ' && li[k] != '\t')
			break;
	}
	return false;
}

/* Every line of OUT is a line of IN, in order (see same_line). */
static bool lines_of(const char *out, size_t out_n, const char *in, size_t in_n, bool may_start_empty)
{
	size_t po = 0, pi = 0, lo_n, li_n;
	const char *lo, *li;

	if (may_start_empty && out_n && out[0] == '\n')
		po = 1;
	while (line_at(out, out_n, &po, &lo, &lo_n)) {
		bool found = false;

		while (!found && line_at(in, in_n, &pi, &li, &li_n))
			found = same_line(lo, lo_n, li, li_n);
		if (!found)
			return false;
	}
	return true;
}

static bool indented_only(const char *s, size_t n)
{
	size_t pos = 0, len;
	const char *l;

	while (line_at(s, n, &pos, &l, &len)) {
		if (len && l[0] != ' ' && l[0] != '\t')
			return false;
		for (size_t i = 0; i < len; i++)
			if (l[i] == '`' || l[i] == '~')
				return false;	/* might be a fence */
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const langs[] = { "python", "cpp", "javascript", "go" };
	struct sanitize_spec spec;
	struct sanitize_out a, b;
	struct sd_error err = { 0 };
	const char *text;
	size_t n;
	int ra, rb;

	if (size < 1)
		return 0;
	spec = (struct sanitize_spec){
		.language = langs[data[0] & 3],
		.entry_point = data[0] & 8 ? NULL : "f",
		.prompt = data[0] & 4 ? prompt : NULL,
	};
	text = (const char *)data + 1;
	n = size - 1;
	ra = sanitize_text(text, n, &spec, &a, &err);
	FUZZ_CHECK(ra == 0 || ra == 1);
	FUZZ_CHECK((ra == 1) == (a.text != NULL));
	FUZZ_CHECK((ra == 1) == (a.rules != 0));
	if (ra == 1) {
		FUZZ_CHECK(a.text[a.len] == '\0');
		FUZZ_CHECK(lines_of(a.text, a.len, text, n, spec.prompt != NULL));
	}
	if (strcmp(spec.language, "python") == 0 && spec.prompt && spec.entry_point && indented_only(text, n))
		FUZZ_CHECK(ra == 0);
	rb = sanitize_text(text, n, &spec, &b, &err);
	FUZZ_CHECK(rb == ra);
	FUZZ_CHECK(ra == 0 || (a.len == b.len && memcmp(a.text, b.text, a.len) == 0 && a.rules == b.rules));
	sanitize_out_release(&a);
	sanitize_out_release(&b);
	return 0;
}
