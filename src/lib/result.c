/* result.c - test status names and the release of a sample's result */
#include "result.h"

#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[TS_PASSED] = "passed",
	[TS_FAILED] = "failed",
	[TS_ERROR] = "error",
	[TS_TIMEOUT] = "timeout",
	[TS_MEMORY] = "memory",
	[TS_CRASH] = "crash",
	[TS_COMPILE_ERROR] = "compile_error",
	[TS_OUTPUT_LIMIT] = "output_limit",
	[TS_HARNESS_ERROR] = "harness_error",
};

#define N_STATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *test_status_name(enum test_status s)
{
	if ((unsigned)s >= N_STATUS || !status_names[s])
		return "unknown";
	return status_names[s];
}

int test_status_parse(const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < N_STATUS; i++) {
		if (status_names[i] && strcmp(status_names[i], name) == 0)
			return (int)i;
	}
	return -1;
}

void sample_result_release(struct sample_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_tests; i++) {
		free(r->tests[i].name);
		free(r->tests[i].detail);
	}
	free(r->tests);
	free(r->task_id);
	free(r->sample_id);
	free(r->model);
	free(r->task_class);
	free(r->he_result);
	free(r->sandbox_ids);
	memset(r, 0, sizeof(*r));
}
