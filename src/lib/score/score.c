/* score.c - the versioned scoring formula (docs/scoring.md), aggregates and the unbiased pass@k estimator */
#include "score/score.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

double score_tier_weight(enum test_tier t)
{
	switch (t) {
	case TIER_EDGE:
		return 1.5;
	case TIER_CANONICAL:
	case TIER_PROPERTY:
	default:
		return 1.0;
	}
}

/* Weighted pass rate over a subset of a sample's tests. */
struct acc {
	double num, den;
	size_t n;		/* tests counted (harness errors are not) */
	size_t n_passed;
	bool timed_out;
};

static void acc_add(struct acc *a, const struct test_result *t)
{
	double w = t->weight;

	if (t->status == TS_HARNESS_ERROR)
		return;		/* sandeval's fault: in neither numerator nor denominator */
	if (!isfinite(w) || w <= 0)
		w = score_tier_weight(t->tier);
	a->n++;
	a->den += w;
	if (t->status == TS_PASSED) {
		a->num += w;
		a->n_passed++;
	}
	if (t->status == TS_TIMEOUT)
		a->timed_out = true;
}

static double acc_score(const struct acc *a)
{
	double s;

	if (a->n == 0 || !(a->den > 0))
		return NAN;
	s = a->num / a->den;
	if (s > 1)
		s = 1;		/* rounding of the sums */
	return a->timed_out ? 0.5 * s : s;
}

void score_sample(struct sample_result *r)
{
	struct acc all = { 0 }, pub = { 0 }, hold = { 0 };

	for (size_t i = 0; i < r->n_tests; i++) {
		const struct test_result *t = &r->tests[i];

		acc_add(&all, t);
		acc_add(t->visibility == VIS_HOLDOUT ? &hold : &pub, t);
	}
	r->harness_error = r->harness_error || all.n == 0;
	r->composite = NAN;
	if (r->harness_error) {
		r->score = r->score_public = r->score_holdout = NAN;
		r->passed = false;
		return;
	}
	r->score = acc_score(&all);
	r->score_public = acc_score(&pub);
	r->score_holdout = acc_score(&hold);
	r->passed = all.n_passed == all.n;
	if (r->lint == LINT_PASSED || r->lint == LINT_FAILED)
		r->composite = score_composite(r->score, r->lint == LINT_PASSED ? 1.0 : 0.0);
}

double score_composite(double correctness, double lint_rate)
{
	if (isnan(correctness) || isnan(lint_rate))
		return NAN;
	return SCORE_W_CORRECTNESS * correctness + SCORE_W_LINT * lint_rate;
}

double pass_at_k(int n, int c, int k)
{
	double log_fail = 0;

	if (n < 1 || k < 1 || k > n || c < 0 || c > n)
		return NAN;
	if (n - c < k)
		return 1.0;	/* every draw of k holds a passing sample */
	/* C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i): each factor is in
	 * (0, 1), so no huge binomials; summing log1p and taking -expm1 keeps
	 * the digits of results near 0 that 1 - prod would cancel away. */
	for (int i = n - c + 1; i <= n; i++)
		log_fail += log1p(-(double)k / (double)i);
	return -expm1(log_fail);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The k-th smallest (0-based) of the finite values of v, without allocating:
 * O(n^2), only used when memory for a sorted copy is not there. */
static double kth_noalloc(const double *v, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++) {
		size_t lt = 0, eq = 0;

		if (isnan(v[i]))
			continue;
		for (size_t j = 0; j < n; j++) {
			if (isnan(v[j]))
				continue;
			lt += v[j] < v[i];
			eq += v[j] == v[i];
		}
		if (lt <= k && k < lt + eq)
			return v[i];
	}
	return NAN;
}

void score_summarize(const double *scores, size_t n, struct score_summary *out)
{
	double *sorted = NULL, sum = 0;
	size_t m = 0, rank;

	for (size_t i = 0; i < n; i++) {
		if (!isnan(scores[i])) {
			m++;
			sum += scores[i];
		}
	}
	out->n = m;
	if (m == 0) {
		out->mean = out->median = out->p10 = NAN;
		return;
	}
	out->mean = sum / (double)m;
	rank = (m + 9) / 10;	/* nearest rank: ceil(0.1 m), computed exactly */
	sorted = malloc(m * sizeof(*sorted));
	if (!sorted) {
		double lo = kth_noalloc(scores, n, (m - 1) / 2), hi = kth_noalloc(scores, n, m / 2);

		out->median = m % 2 ? lo : (lo + hi) / 2;
		out->p10 = kth_noalloc(scores, n, rank - 1);
		return;
	}
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isnan(scores[i]))
			sorted[m++] = scores[i];
	}
	qsort(sorted, m, sizeof(*sorted), cmp_double);
	out->median = m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
	out->p10 = sorted[rank - 1];
	free(sorted);
}
