/* report-lint.c - a run's lint figures (metrics.h) on a terminal and as JSON */
#include "report/report.h"

#include <math.h>

/* S for a terminal: control bytes as '?', at most MAX bytes. */
static void put_plain(FILE *f, const char *s, size_t max)
{
	for (size_t i = 0; s && s[i] && i < max; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], f);
}

static void put_rate(FILE *f, double rate_v, size_t passed, size_t failed)
{
	if (isnan(rate_v))
		fprintf(f, "-");
	else
		fprintf(f, "%.3f (%zu/%zu)", rate_v, passed, passed + failed);
}

void lint_summary_print(FILE *f, const struct lint_summary *s)
{
	fprintf(f, "%-10s pass rate ", "lint");
	put_rate(f, s->pass_rate, s->n_passed, s->n_failed);
	fprintf(f, "; apart: %zu unavailable, %zu error, %zu not linted\n", s->n_unavailable, s->n_error, s->n_none);
	for (size_t c = 0; c < s->n_classes; c++) {
		const struct lint_class *k = &s->classes[c];

		fprintf(f, "  class ");
		put_plain(f, k->name[0] ? k->name : "(none)", 32);
		fprintf(f, ": ");
		put_rate(f, k->pass_rate, k->n_passed, k->n_failed);
		if (k->n_unavailable || k->n_error)
			fprintf(f, "; %zu unavailable, %zu error", k->n_unavailable, k->n_error);
		fputc('\n', f);
	}
	fprintf(f, "%-10s", "findings");	/* by category, every severity */
	if (!s->n_categories)
		fprintf(f, " none");
	for (size_t i = 0; i < s->n_categories; i++) {
		fprintf(f, "%s ", i ? "," : "");
		put_plain(f, s->categories[i].name, 32);
		fprintf(f, ": %zu", s->categories[i].n);
	}
	fputc('\n', f);
}

static json_t *jrate(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *lint_summary_json(const struct lint_summary *s)
{
	json_t *cats = json_object(), *classes = json_object();

	for (size_t i = 0; cats && i < s->n_categories; i++)
		json_object_set_new(cats, s->categories[i].name, json_integer((json_int_t)s->categories[i].n));
	for (size_t c = 0; classes && c < s->n_classes; c++) {
		const struct lint_class *k = &s->classes[c];

		json_object_set_new(classes, k->name,
				    json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o}", "pass_rate", jrate(k->pass_rate),
					      "passed", (json_int_t)k->n_passed, "failed", (json_int_t)k->n_failed,
					      "unavailable", (json_int_t)k->n_unavailable, "error", (json_int_t)k->n_error,
					      "not_linted", (json_int_t)k->n_none, "composite", jrate(k->composite)));
	}
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "pass_rate", jrate(s->pass_rate),
			 "passed", (json_int_t)s->n_passed, "failed", (json_int_t)s->n_failed,
			 "unavailable", (json_int_t)s->n_unavailable, "error", (json_int_t)s->n_error,
			 "not_linted", (json_int_t)s->n_none, "categories", cats, "classes", classes);
}
