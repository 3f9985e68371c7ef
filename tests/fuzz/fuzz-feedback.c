/* fuzz-feedback.c - fuzz target: feedback of hostile details and names (feedback.c) stays within its promises
 *
 * The first bytes pick the limits (lines 1-8, bytes 0-765, as `sandeval show
 * --lines/--bytes` allow and a little below), whether holdout details are
 * shown, and four tests' statuses and visibility; the rest, cut at NUL
 * bytes, gives the details (what the candidate's code printed or raised),
 * test names, ids, the task class, lint findings. Properties:
 *   - feedback_excerpt(): valid UTF-8, at most the byte and line limits, a
 *     prefix of the detail as utf8_sanitize() makes it (so never half a
 *     character), no trailing newline; nothing reported cut exactly when the
 *     whole detail is there, and never more lines cut than it has;
 *   - feedback_sample_json(): always an object; one failure per failing
 *     test, its detail the excerpt, or null (and withheld) for a holdout
 *     test unless asked for;
 *   - feedback_sample_text(): valid UTF-8 without control characters but
 *     newline and tab; untrusted text never starts a line of its own (each
 *     line is the header or indented), so the "  FAIL" lines are exactly the
 *     failing tests, each followed by the withheld note when it is a holdout
 *     test.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "report/feedback.h"
#include "fuzz.h"
#include "base/utf8.h"

#define N_FIELDS 12
#define N_TESTS 4

static bool valid_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t q = utf8_valid_seq((const unsigned char *)s + i, len - i);

		if (q == 0)
			return false;
		i += q;
	}
	return true;
}

static size_t count_char(const char *s, size_t len, char c)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == c;
	return n;
}

static void check_excerpt(const char *detail, size_t max_lines, size_t max_bytes)
{
	size_t cut = 99, len, tlen, xlen;
	char *x = feedback_excerpt(detail, max_lines, max_bytes, &cut);
	char *clean = utf8_sanitize(detail, strlen(detail), &len);

	FUZZ_CHECK(x != NULL && clean != NULL);
	tlen = len;	/* the detail as it would be shown whole */
	while (tlen && (clean[tlen - 1] == '\n' || clean[tlen - 1] == '\r'))
		tlen--;
	xlen = strlen(x);
	FUZZ_CHECK(valid_utf8(x, xlen));
	FUZZ_CHECK(xlen <= max_bytes);
	FUZZ_CHECK(count_char(x, xlen, '\n') + 1 <= max_lines);
	FUZZ_CHECK(xlen <= tlen && memcmp(x, clean, xlen) == 0);
	FUZZ_CHECK(xlen == 0 || (x[xlen - 1] != '\n' && x[xlen - 1] != '\r'));
	FUZZ_CHECK((cut == 0) == (xlen == tlen));
	FUZZ_CHECK(cut <= count_char(clean, tlen, '\n') + 1);
	free(clean);
	free(x);
}

/* listed in "failures": neither passed, sandeval's fault, nor not run (--fail-fast) */
static bool failing(const struct test_result *t)
{
	return t->status != TS_PASSED && t->status != TS_HARNESS_ERROR && t->status != TS_NOT_RUN;
}

static bool withheld(const struct test_result *t, const struct feedback_options *o)
{
	return t->visibility == VIS_HOLDOUT && !o->holdout;
}

static void check_json(const struct sample_result *r, const struct feedback_options *o)
{
	json_t *j = feedback_sample_json(r, o), *failures;
	size_t k = 0;

	FUZZ_CHECK(json_is_object(j));
	failures = json_object_get(j, "failures");
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct test_result *t = &r->tests[i];
		json_t *f = json_array_get(failures, k), *d;

		if (!failing(t))
			continue;
		k++;
		FUZZ_CHECK(json_is_object(f));
		d = json_object_get(f, "detail");
		FUZZ_CHECK(json_is_true(json_object_get(f, "withheld")) == withheld(t, o));
		if (withheld(t, o) || !t->detail) {
			FUZZ_CHECK(json_is_null(d));
		} else {
			size_t cut;
			char *x = feedback_excerpt(t->detail, o->max_lines, o->max_bytes, &cut);

			FUZZ_CHECK(x != NULL && json_is_string(d) && strcmp(json_string_value(d), x) == 0);
			FUZZ_CHECK(json_integer_value(json_object_get(f, "detail_cut_lines")) == (json_int_t)cut);
			free(x);
		}
	}
	FUZZ_CHECK(json_array_size(failures) == k);
	/* and it serializes */
	{
		char *text = json_dumps(j, JSON_COMPACT);

		FUZZ_CHECK(text != NULL);
		free(text);
	}
	json_decref(j);
}

static void check_text(const struct sample_result *r, const struct feedback_options *o)
{
	char *buf = NULL, *save = NULL;
	size_t len = 0, k = 0, lineno = 0;
	FILE *f = open_memstream(&buf, &len);
	bool expect_withheld = false;

	FUZZ_CHECK(f != NULL);
	feedback_sample_text(f, r, o);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(valid_utf8(buf, len));
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		FUZZ_CHECK(c >= 0x20 || c == '\n' || c == '\t');
		FUZZ_CHECK(c != 0x7f);
		FUZZ_CHECK(!(c == 0xc2 && i + 1 < len && (unsigned char)buf[i + 1] < 0xa0));	/* C1 */
	}
	FUZZ_CHECK(len > 0 && buf[len - 1] == '\n');
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lineno++) {
		if (lineno == 0) {
			FUZZ_CHECK(strncmp(line, "sample ", 7) == 0);
			continue;
		}
		FUZZ_CHECK(strncmp(line, "  ", 2) == 0);	/* never at the margin */
		if (expect_withheld)
			FUZZ_CHECK(strcmp(line, "    (holdout test: detail withheld; --holdout shows it)") == 0);
		expect_withheld = false;
		if (strncmp(line, "  FAIL ", 7) == 0) {
			/* the next failing test */
			while (k < r->n_tests && !failing(&r->tests[k]))
				k++;
			FUZZ_CHECK(k < r->n_tests);
			expect_withheld = withheld(&r->tests[k++], o);
		}
	}
	FUZZ_CHECK(!expect_withheld);
	while (k < r->n_tests && !failing(&r->tests[k]))
		k++;
	FUZZ_CHECK(k == r->n_tests);	/* every failing test had its line */
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *field[N_FIELDS] = { 0 }, *rest = malloc(size + 1);
	const char *p, *end;
	struct test_result tests[N_TESTS];
	struct lint_finding finding;
	struct sample_result r;
	struct feedback_options o;
	size_t n = 0;

	FUZZ_CHECK(rest != NULL);
	feedback_options_init(&o);
	if (size < 8) {
		free(rest);
		return 0;
	}
	o.max_lines = 1 + data[0] % 8;
	o.max_bytes = (size_t)data[1] * 3;
	o.holdout = data[2] & 1;
	memcpy(rest, data + 8, size - 8);
	rest[size - 8] = '\0';
	/* the fields: the rest cut at NUL bytes (the first is the whole rest's start) */
	end = rest + (size - 8);
	for (p = rest; n < N_FIELDS; n++) {
		field[n] = (char *)p;
		p += strlen(p);
		if (p < end)
			p++;
	}

	check_excerpt(rest, o.max_lines, o.max_bytes);
	for (size_t i = 0; i < N_FIELDS; i++)
		check_excerpt(field[i], o.max_lines, o.max_bytes);

	memset(tests, 0, sizeof(tests));
	for (size_t i = 0; i < N_TESTS; i++) {
		tests[i].status = (enum test_status)(data[3 + i] % (TS_HARNESS_ERROR + 1));
		tests[i].visibility = data[3 + i] & 0x80 ? VIS_HOLDOUT : VIS_PUBLIC;
		tests[i].tier = (enum test_tier)((data[3 + i] >> 4) % 3);
		tests[i].weight = 1;
		tests[i].name = field[2 + i % 2];
	}
	tests[0].detail = field[0];
	tests[1].detail = field[1];
	tests[2].detail = field[0];	/* the same detail twice: said once */
	tests[3].detail = data[7] & 1 ? NULL : rest;
	memset(&finding, 0, sizeof(finding));
	finding.tool = field[8];
	finding.rule = field[9];
	finding.category = field[10];
	finding.message = field[11];
	finding.line = (int)data[7];
	memset(&r, 0, sizeof(r));
	r.sample_id = field[4];
	r.task_id = field[5];
	r.task_class = field[6];
	r.model = field[7];
	r.tests = tests;
	r.n_tests = N_TESTS;
	r.score = (double)data[2] / 255;
	r.passed = data[2] & 2;
	r.harness_error = data[2] & 4;
	r.lint = (enum lint_status)((data[2] >> 3) % (LINT_ERROR + 1));
	r.lint_detail = field[7];
	r.findings = &finding;
	r.n_findings = data[7] % 3 ? 1 : 0;
	o.max_findings = data[7] & 8 ? 0 : 20;

	check_json(&r, &o);
	check_text(&r, &o);
	free(rest);
	return 0;
}
