/* fuzz-export.c - fuzz target: export_parse() of arbitrary bytes (a baseline file is untrusted input)
 *
 * A document is either refused with a message that names the file, or
 * accepted with every field in range: scores and composites NAN or in
 * [0, 1], a harness error without a score and not passed, a scored sample
 * with one, sample ids unique. An accepted document written out again by
 * export_write() parses back to the same run and samples.
 */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "store/export.h"
#include "fuzz.h"

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void check_sample(const struct sample_result *r)
{
	FUZZ_CHECK(r->task_id && r->sample_id && r->task_class);
	FUZZ_CHECK(isnan(r->score) || (r->score >= 0 && r->score <= 1));
	FUZZ_CHECK(isnan(r->composite) || (r->composite >= 0 && r->composite <= 1));
	FUZZ_CHECK(r->harness_error ? isnan(r->score) && !r->passed : !isnan(r->score));
	FUZZ_CHECK((unsigned)r->lint <= LINT_ERROR);
	for (size_t t = 0; t < r->n_tests; t++)
		FUZZ_CHECK(r->tests[t].name && (unsigned)r->tests[t].status <= TS_HARNESS_ERROR);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sd_error err = { 0 };
	struct run_info run, run2;
	struct sample_result *v = NULL, *v2 = NULL;
	size_t n = 0, n2 = 0, len = 0;
	char *buf = NULL;
	FILE *f;

	if (export_parse((const char *)data, size, "fuzz.json", &run, &v, &n, &err) < 0) {
		FUZZ_CHECK(strncmp(err.msg, "'fuzz.json'", 11) == 0);
		return 0;
	}
	FUZZ_CHECK(run.suite_hash && run.formula_version && run.id[0]);
	for (size_t i = 0; i < n; i++) {
		check_sample(&v[i]);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(v[i].sample_id, v[j].sample_id) != 0);
	}
	/* round trip */
	f = open_memstream(&buf, &len);
	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(export_write(f, "fuzz.json", &run, v, n, true, &err) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	if (export_parse(buf, len, "again.json", &run2, &v2, &n2, &err) < 0) {
		fprintf(stderr, "written back, refused: %s\n%s\n", err.msg, buf);
		FUZZ_CHECK(0);
	}
	FUZZ_CHECK(n2 == n);
	FUZZ_CHECK(strcmp(run.id, run2.id) == 0 && same_str(run.suite_hash, run2.suite_hash) &&
		   same_str(run.formula_version, run2.formula_version) && run.finished_ms == run2.finished_ms);
	for (size_t i = 0; i < n2; i++) {
		const struct sample_result *b = &v2[i], *a = NULL;

		for (size_t j = 0; j < n && !a; j++)	/* the export sorts the samples */
			if (strcmp(v[j].sample_id, b->sample_id) == 0)
				a = &v[j];
		FUZZ_CHECK(a != NULL);
		FUZZ_CHECK(same_str(a->task_id, b->task_id) && same_str(a->task_class, b->task_class));
		FUZZ_CHECK(same_num(a->score, b->score) && same_num(a->composite, b->composite));
		FUZZ_CHECK(a->passed == b->passed && a->harness_error == b->harness_error && a->lint == b->lint);
		FUZZ_CHECK(a->n_tests == b->n_tests && a->n_findings == b->n_findings);
	}
	free(buf);
	export_results_free(v, n);
	export_results_free(v2, n2);
	run_info_release(&run);
	run_info_release(&run2);
	return 0;
}
