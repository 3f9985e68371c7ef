/* report-internal.h - what report.c and report-junit.c share: grouping, the summary, output files */
#ifndef SANDEVAL_REPORT_INTERNAL_H
#define SANDEVAL_REPORT_INTERNAL_H

#include <stdio.h>

#include "report/report.h"
#include "score/score.h"

/* The order results are reported in: that of rep->samples (the samples
 * file), then results whose sample is not there, in result order. *out is
 * malloc'd: out[k] is an index into rep->results. */
int report_order(const struct report *rep, size_t **out, struct sd_error *err);

/* Results grouped by a key, groups in the order their first member appears
 * in report_order(), members in that order: idx[g[i].start .. g[i].start + g[i].len). */
struct report_group {
	const char *key;
	size_t start, len;
};
struct report_groups {
	size_t *idx;
	struct report_group *g;
	size_t n;
};
enum report_key { REPORT_BY_TASK, REPORT_BY_CLASS };

int report_group(const struct report *rep, enum report_key key, struct report_groups *out,
		 struct sd_error *err);
void report_groups_release(struct report_groups *gs);

struct report_class {
	const char *name;		/* "" when the tasks name no class */
	size_t n_samples;		/* harness errors included */
	size_t n_passed;
	struct score_summary score;
};

/* What report_table and report_json show. */
struct report_summary {
	size_t n_samples, n_scored, n_harness_errors, n_tasks, n_passed;
	struct score_summary all, pub, holdout;
	struct report_class *classes;
	size_t n_classes;
	double *pass_k;			/* one per rep->ks; NAN when k > min_n */
	size_t min_n;			/* fewest scored samples of a task (0 without any) */
	size_t n_tests;
	size_t status[TS_HARNESS_ERROR + 1];
};

int report_summarize(const struct report *rep, struct report_summary *sum, struct sd_error *err);
void report_summary_release(struct report_summary *sum);

/* EvalPlus's figures (report-evalplus.c): over the samples with a
 * base_status or plus_status (EvalPlus tasks, not harness errors). */
struct report_evalplus {
	size_t n_samples;		/* 0: no EvalPlus result, nothing to report */
	size_t n_base_passed;		/* base_status "pass" */
	size_t n_plus_passed;		/* base_status and plus_status "pass" */
	double *base_k, *plus_k;	/* pass@k of each, one per rep->ks; NAN when k > n */
};
int report_evalplus(const struct report *rep, struct report_evalplus *ep, struct sd_error *err);
void report_evalplus_release(struct report_evalplus *ep);
/* Two lines of the terminal table ("base", "base+plus"); nothing without EvalPlus results. */
void report_evalplus_print(FILE *f, const struct report *rep, const struct report_evalplus *ep);
/* {"samples", "base": {"passed", "pass_at_k"}, "plus": {...}}; NULL on ENOMEM. */
json_t *report_evalplus_json(const struct report *rep, const struct report_evalplus *ep);

/* The JUnit document on F (report_junit without the file). 0, or -1 on ENOMEM. */
int report_junit_write(FILE *f, const struct report *rep, struct sd_error *err);

/* Open PATH for writing ("-": standard output), and close it reporting any write error. */
FILE *report_open(const char *path, struct sd_error *err);
int report_close(FILE *f, const char *path, struct sd_error *err);

#endif
