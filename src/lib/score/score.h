/* score.h - the versioned scoring formula, aggregates and the unbiased pass@k estimator */
#ifndef SANDEVAL_SCORE_H
#define SANDEVAL_SCORE_H

#include <stddef.h>

#include "suite/result.h"

/* SCORE_FORMULA_VERSION (suite/result.h) is bumped whenever a formula below
 * changes; it is stored with every run and sample (docs/scoring.md). */

/* Composite = 0.7 correctness + 0.3 linter pass rate (formula 2). */
#define SCORE_W_CORRECTNESS 0.7
#define SCORE_W_LINT 0.3

/* Fill r->score, r->score_public, r->score_holdout, r->passed and
 * r->composite from its tests and r->lint: weighted pass rate (harness errors
 * excluded from numerator and denominator), times 0.5 when any test timed
 * out; composite only when the sample was linted (passed or failed). */
void score_sample(struct sample_result *r);

/* 0.7 CORRECTNESS + 0.3 LINT_RATE; NAN when either is NAN (no lint results:
 * absent, never estimated). Per sample LINT_RATE is 1 or 0 (lint passed). */
double score_composite(double correctness, double lint_rate);

/* The weight of a test of tier T when its task gives none (a weight that is
 * not a positive finite number): canonical 1.0, edge 1.5, property 1.0. */
double score_tier_weight(enum test_tier t);

/* 1 - C(n-c, k) / C(n, k), computed as 1 - prod_{i=n-c+1}^{n} (1 - k/i);
 * NAN when k > n or k < 1 (never silently clamped). */
double pass_at_k(int n, int c, int k);

struct score_summary {
	size_t n;		/* samples scored (harness errors excluded) */
	double mean, median, p10;
};
/* Mean, median and 10th percentile (nearest-rank) of SCORES; NAN when n = 0. */
void score_summarize(const double *scores, size_t n, struct score_summary *out);

#endif
