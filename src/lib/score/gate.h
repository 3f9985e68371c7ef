/* gate.h - the CI regression gate: a paired, per-task comparison of two runs with a bootstrap confidence interval
 *
 * gate_compare() is pure computation over runs already loaded (from the
 * store or an export file): no I/O, no exit. "Cannot judge" is a verdict,
 * not an error: the runs were read, but comparing them would mean nothing
 * (different suites or formulas, no shared tasks, k > n, no lint results...).
 * The decision rule is in docs/ci.md.
 */
#ifndef SANDEVAL_GATE_H
#define SANDEVAL_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "suite/result.h"
#include "store/store.h"

enum gate_metric {
	GATE_METRIC_MEAN,	/* mean sample score of the task */
	GATE_METRIC_PASS_K,	/* pass@k of the task (unbiased estimator over its samples) */
	GATE_METRIC_COMPOSITE,	/* 0.7 mean score + 0.3 lint pass rate of the task */
	GATE_METRIC_LINT,	/* lint pass rate of the task's linted samples */
};

enum gate_verdict {
	GATE_PASS = 0,		/* the exit codes of `sandeval gate` */
	GATE_REGRESSION = 1,
	GATE_CANNOT_JUDGE = 2,
};

/* One side of the comparison. */
struct gate_run {
	const char *name;		/* for messages: "run 'r-…'" or "'base.json'" */
	const struct run_info *info;
	const struct sample_result *results;
	size_t n;
};

struct gate_options {
	enum gate_metric metric;
	int k;				/* GATE_METRIC_PASS_K */
	double epsilon;			/* a drop of the mean difference beyond -epsilon can fail */
	bool per_class;			/* a class that regresses fails the gate too */
	uint64_t seed;			/* of the bootstrap */
	size_t resamples;		/* bootstrap resamples (at least 100) */
	double confidence;		/* of the interval, e.g. 0.95 */
};

#define GATE_DEFAULT_SEED 20240601u
#define GATE_DEFAULT_RESAMPLES 10000u
/* Defaults: mean, epsilon 0.01, 10000 resamples, 95 %, the fixed seed. */
void gate_options_init(struct gate_options *o);

/* "mean", "pass@1", "pass@K", "composite", "lint" into o->metric and o->k; -1 with a message. */
int gate_metric_parse(const char *s, struct gate_options *o, struct sd_error *err);
/* "mean", "pass@K", ... into BUF. */
const char *gate_metric_name(const struct gate_options *o, char *buf, size_t len);

/* A paired difference over a set of tasks. */
struct gate_stat {
	size_t n_tasks;
	double base, cand;		/* mean of the metric over the tasks, each run */
	double diff;			/* mean of the per-task differences cand - base */
	double ci_lo, ci_hi;		/* bootstrap percentile interval of diff */
	bool regression;		/* diff < -epsilon and ci_hi < 0 */
};

struct gate_task {
	const char *task_id;		/* point into the runs' results */
	const char *task_class;		/* "" when none */
	double base, cand, diff;
	size_t n_base, n_cand;		/* samples the metric was computed over */
};

struct gate_class {
	const char *name;		/* "" when the tasks name no class */
	struct gate_stat stat;
};

struct gate_result {
	enum gate_verdict verdict;
	char reason[768];		/* the verdict in a sentence (why it cannot judge, what regressed) */
	struct gate_stat all;
	struct gate_task *tasks;	/* shared tasks, by task id */
	size_t n_tasks;
	struct gate_class *classes;	/* by class name */
	size_t n_classes;
	size_t n_base_only, n_cand_only;	/* tasks of one run only: not compared */
	size_t n_left_out;		/* shared tasks without a value in a run (harness errors, no lint) */
};

/* Compare CAND against BASE. Returns 0 with *out filled (verdict and
 * reason included), or -1 on out of memory; gate_result_release() after 0. */
int gate_compare(const struct gate_run *base, const struct gate_run *cand, const struct gate_options *opt,
		 struct gate_result *out, struct sd_error *err);
void gate_result_release(struct gate_result *r);

/* A result whose verdict is cannot judge, for failures before any comparison
 * (a missing run or file): *out needs no release. */
void gate_result_cannot_judge(struct gate_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The mean of D[0..n) and its bootstrap percentile interval at CONFIDENCE
 * over RESAMPLES resamples drawn with replacement (deterministic given SEED). */
int gate_bootstrap(const double *d, size_t n, size_t resamples, double confidence, uint64_t seed,
		   double *mean, double *lo, double *hi, struct sd_error *err);

#endif
