/* report-evalplus.c - EvalPlus's two figures of a run (HumanEval+, MBPP+): the base tests alone, and base and plus together
 *
 * EvalPlus reports pass@k twice: over the samples whose base_status is
 * "pass" (the original benchmark's inputs: "humaneval (base tests)"), and
 * over those whose base_status and plus_status both are ("humaneval+
 * (base + extra tests)"). The second is sandeval's own `passed` for such a
 * task (every test passed); the first is computed here, with the same
 * estimator, over the same scored samples (metrics.h).
 */
#define _GNU_SOURCE
#include "report/report-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "score/metrics.h"

static bool is_pass(const char *status)
{
	return status && strcmp(status, "pass") == 0;
}

/* pass@k of REP's EvalPlus results (in report order), a sample passing when
 * its base_status is "pass" (and, with PLUS, its plus_status too): into
 * OUT[q] for each of rep->ks; *N_PASSED the count. */
static int pass_k(const struct report *rep, const size_t *order, bool plus, double *out, size_t *n_passed,
		  struct sd_error *err)
{
	struct sample_result *v = malloc((rep->n ? rep->n : 1) * sizeof(*v));
	struct metrics_task *tasks = NULL;
	size_t m = 0, n_tasks = 0;

	if (!v)
		return sd_error_set(err, ENOMEM, "cannot summarize: out of memory");
	*n_passed = 0;
	for (size_t k = 0; k < rep->n; k++) {
		const struct sample_result *r = &rep->results[order[k]];

		if (!r->base_status && !r->plus_status)
			continue;	/* another task's, or a harness error (never scored) */
		v[m] = *r;	/* shallow: only passed differs */
		v[m].passed = is_pass(r->base_status) && (!plus || is_pass(r->plus_status));
		*n_passed += metrics_scored(&v[m]) && v[m].passed;
		m++;
	}
	if (metrics_tasks(v, NULL, m, NULL, METRICS_BY_FIRST, &tasks, &n_tasks, err) < 0) {
		free(v);
		return -1;
	}
	for (size_t q = 0; q < rep->n_ks; q++)
		out[q] = metrics_pass_at_k(tasks, n_tasks, rep->ks[q]);
	free(tasks);
	free(v);
	return 0;
}

int report_evalplus(const struct report *rep, struct report_evalplus *ep, struct sd_error *err)
{
	size_t *order = NULL;

	memset(ep, 0, sizeof(*ep));
	for (size_t i = 0; i < rep->n; i++)
		ep->n_samples += rep->results[i].base_status || rep->results[i].plus_status;
	if (!ep->n_samples)
		return 0;
	ep->base_k = calloc(rep->n_ks + 1, sizeof(*ep->base_k));
	ep->plus_k = calloc(rep->n_ks + 1, sizeof(*ep->plus_k));
	if (!ep->base_k || !ep->plus_k) {
		report_evalplus_release(ep);
		return sd_error_set(err, ENOMEM, "cannot summarize: out of memory");
	}
	if (report_order(rep, &order, err) < 0 ||
	    pass_k(rep, order, false, ep->base_k, &ep->n_base_passed, err) < 0 ||
	    pass_k(rep, order, true, ep->plus_k, &ep->n_plus_passed, err) < 0) {
		free(order);
		report_evalplus_release(ep);
		return -1;
	}
	free(order);
	return 0;
}

void report_evalplus_release(struct report_evalplus *ep)
{
	free(ep->base_k);
	free(ep->plus_k);
	memset(ep, 0, sizeof(*ep));
}

static void print_k(FILE *f, const struct report *rep, const double *k)
{
	for (size_t q = 0; q < rep->n_ks; q++) {
		if (isnan(k[q]))
			fprintf(f, ", pass@%d n/a", rep->ks[q]);
		else
			fprintf(f, ", pass@%d %.3f", rep->ks[q], k[q]);
	}
}

void report_evalplus_print(FILE *f, const struct report *rep, const struct report_evalplus *ep)
{
	if (!ep->n_samples)
		return;
	fprintf(f, "%-10s %zu/%zu", "base", ep->n_base_passed, ep->n_samples);
	print_k(f, rep, ep->base_k);
	fprintf(f, " (EvalPlus base_status: the original inputs)\n");
	fprintf(f, "%-10s %zu/%zu", "base+plus", ep->n_plus_passed, ep->n_samples);
	print_k(f, rep, ep->plus_k);
	fprintf(f, " (base_status and plus_status: EvalPlus's \"+\")\n");
}

static json_t *jks(const struct report *rep, const double *k)
{
	json_t *a = json_array();

	for (size_t q = 0; a && q < rep->n_ks; q++) {
		if (json_array_append_new(a, json_pack("{s:i, s:o}", "k", rep->ks[q], "value",
						       isnan(k[q]) ? json_null() : json_real(k[q]))) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *report_evalplus_json(const struct report *rep, const struct report_evalplus *ep)
{
	return json_pack("{s:I, s:{s:I, s:o}, s:{s:I, s:o}}", "samples", (json_int_t)ep->n_samples,
			 "base", "passed", (json_int_t)ep->n_base_passed, "pass_at_k", jks(rep, ep->base_k),
			 "plus", "passed", (json_int_t)ep->n_plus_passed, "pass_at_k", jks(rep, ep->plus_k));
}
