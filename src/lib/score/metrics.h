/* metrics.h - a run's figures from its sample results: per-task groups, pass@k, score summaries, lint rate, composite, cost
 *
 * Pure computation over results already loaded (from the store or an export
 * file), shared by the run summary (report.c), `sandeval report`
 * (report-trend.c) and the gate (gate.c). A sample is *scored* when it is
 * not a harness error and has a score (docs/scoring.md); a sample is
 * *linted* when lint passed or failed (a missing or failing linter is
 * counted apart, neither pass nor fail). Every figure that cannot be had is
 * NAN (or 0 with its count 0), never estimated.
 */
#ifndef SANDEVAL_METRICS_H
#define SANDEVAL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "suite/result.h"
#include "score/score.h"

/* True when R counts towards scores and pass@k. */
bool metrics_scored(const struct sample_result *r);

/* The samples of one task. */
struct metrics_task {
	const char *task_id;		/* "" when none; points into the results */
	const char *task_class;		/* its first sample's; "" when none */
	size_t n_samples;		/* harness errors included */
	size_t n_scored, n_passed;	/* scored samples, and those that passed */
	double sum_score;		/* over the scored samples */
	size_t n_linted, n_lint_passed;
};

enum metrics_order {
	METRICS_BY_TASK_ID,		/* tasks in task id order */
	METRICS_BY_FIRST,		/* in the order of their first sample */
};

/* Group N results by task: *out (malloc'd) gets one entry per task, in
 * ORDER, counting the results of class CLS only when CLS is not NULL.
 * Results are visited in the order INDEX gives (INDEX[i] for i < N: an index
 * into RESULTS), or as they are when INDEX is NULL. 0, or -1 on ENOMEM. */
int metrics_tasks(const struct sample_result *results, const size_t *index, size_t n, const char *cls,
		  enum metrics_order order, struct metrics_task **out, size_t *n_out, struct sd_error *err);

/* pass@k of one task over its scored samples: NAN when it has none or k > n_scored. */
double metrics_task_pass_at_k(const struct metrics_task *t, int k);
/* The fewest scored samples of a task that has any (0: no task has any). */
size_t metrics_min_scored(const struct metrics_task *tasks, size_t n);
/* pass@k of a run: the mean of the tasks' pass@k over the tasks with scored
 * samples, summed in the tasks' order; NAN when there are none, k < 1 or k
 * exceeds metrics_min_scored() (never clamped). */
double metrics_pass_at_k(const struct metrics_task *tasks, size_t n, int k);

/* passed / (passed + failed): the lint pass rate; NAN when both are 0. */
double metrics_rate(size_t passed, size_t failed);

/* --- a run's lint figures (the run summary, `sandeval lint`) --- */

struct lint_category_count {
	char *name;
	size_t n;		/* recorded findings of every severity in this category */
};
struct lint_class {
	char *name;
	size_t n_passed, n_failed, n_unavailable, n_error, n_none;
	double pass_rate;	/* n_passed / (n_passed + n_failed); NAN when none */
	double composite;	/* score_composite(mean score, pass_rate) over this class; NAN without lint */
};
struct lint_summary {
	size_t n_passed, n_failed, n_unavailable, n_error, n_none;
	double pass_rate;	/* NAN when no sample passed or failed lint */
	double composite;	/* score_composite(mean correctness, pass_rate); NAN without lint results */
	struct lint_category_count *categories;	/* by count, then name */
	size_t n_categories;
	struct lint_class *classes;	/* in order of first appearance */
	size_t n_classes;
};

/* Summarize N RESULTS, visited in the order INDEX gives (NULL: as they
 * are; the classes come in the order of their first result): counts by lint
 * status, pass rate over passed + failed, categories of the recorded
 * findings, per task class, the composite of the mean score and the pass
 * rate. 0, or -1 on ENOMEM. */
int lint_summarize(const struct sample_result *results, const size_t *index, size_t n, struct lint_summary *out,
		   struct sd_error *err);
void lint_summary_release(struct lint_summary *s);

/* --- what `sandeval report` shows of a run --- */

#define METRICS_MAX_KS 8

struct run_metrics {
	size_t n_samples;		/* harness errors included */
	size_t n_scored, n_tasks, n_passed;
	struct score_summary score;	/* mean, median, p10 of the scored samples */
	size_t min_n;			/* fewest scored samples of a task (0: none) */
	double pass_k[METRICS_MAX_KS];	/* one per k asked for; NAN when k > min_n */
	size_t n_linted;
	size_t n_lint_passed;
	double lint_rate;		/* n_lint_passed / n_linted; NAN when nothing was linted */
	size_t n_composite;
	double composite;		/* mean of the samples' own composites; NAN when none has one */
	double cpu_s;			/* CPU seconds of every sandbox of the samples */
	double wall_s;			/* wall seconds of the samples' sandboxes, summed */
	int64_t peak_memory_bytes;	/* the largest of the samples' peaks */
};

/* The metrics of N results (all of them, or only those of class CLS when
 * not NULL) for the pass@k values KS (at most METRICS_MAX_KS). 0, or -1 on ENOMEM. */
int run_metrics_compute(const struct sample_result *results, size_t n, const char *cls, const int *ks,
			size_t n_ks, struct run_metrics *m, struct sd_error *err);

#endif
