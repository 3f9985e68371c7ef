/* fuzz-lint-envelope.c - fuzz target: lint_read_envelope() of what the lint sandbox printed (untrusted: a subverted linter can write it)
 *
 * The envelope names all five linters, so every parser is reached through it.
 * Whatever the input: a status that is never "none", a detail and findings
 * that are valid UTF-8, and a result that survives its JSON round trip.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <string.h>

#include "fuzz-lint.h"
#include "suite/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *lang;
	struct sample_result r, back;
	struct sd_error err = { 0 };
	json_t *j;

	if (!lang)
		lang = json_loads("{\"source\": \"candidate.py\", \"tools\": [{\"name\": \"flake8\", \"package\": \"flake8\"},"
				  " {\"name\": \"bandit\"}, {\"name\": \"cppcheck\"}, {\"name\": \"clang-tidy\"},"
				  " {\"name\": \"eslint\"}]}", 0, NULL);
	FUZZ_CHECK(lang != NULL);
	for (int t = LINT_SEV_STYLE; t <= LINT_SEV_ERROR; t++) {
		memset(&r, 0, sizeof(r));
		r.task_id = strdup("t");
		r.sample_id = strdup("t/0");
		r.task_class = strdup("c");
		int first = size > 2 ? data[1] % 8 : 1;	/* findings on lines before it are the task's */

		FUZZ_CHECK(lint_read_envelope((const char *)data, size, size & 1 ? "ok" : NULL, lang,
					      (enum lint_severity)t, first, &r, &err) == 0);
		for (size_t i = 0; i < r.n_findings; i++)
			FUZZ_CHECK(r.findings[i].line == 0 || r.findings[i].line >= first);
		FUZZ_CHECK(r.lint == LINT_PASSED || r.lint == LINT_FAILED || r.lint == LINT_UNAVAILABLE ||
			   r.lint == LINT_ERROR);
		FUZZ_CHECK(r.lint_detail != NULL);
		fuzz_lint_string(r.lint_detail, 1 << 20);
		FUZZ_CHECK(r.n_findings <= LINT_MAX_KEPT);
		for (size_t i = 1; i < r.n_findings; i++)
			FUZZ_CHECK(r.findings[i].severity <= r.findings[i - 1].severity);	/* most severe first */
		if (r.lint == LINT_FAILED)
			FUZZ_CHECK(r.n_findings > 0 && (int)r.findings[0].severity >= t);
		if (r.lint == LINT_PASSED)
			FUZZ_CHECK(r.n_findings == 0 || (int)r.findings[0].severity < t);
		j = sample_result_to_json(&r);
		FUZZ_CHECK(j != NULL);
		FUZZ_CHECK(json_is_string(json_object_get(j, "lint_detail")));
		FUZZ_CHECK(json_array_size(json_object_get(j, "findings")) == r.n_findings);
		FUZZ_CHECK(sample_result_from_json(j, &back) == 0);
		FUZZ_CHECK(back.lint == r.lint && back.n_findings == r.n_findings);
		sample_result_release(&back);
		json_decref(j);
		sample_result_release(&r);
	}
	return 0;
}
