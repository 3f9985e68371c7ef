/* gate.c - the regression gate's computation: per-task metric values, paired differences, bootstrap, verdict
 *
 * Each run's samples are grouped by task; a task's value is its mean score,
 * its pass@k (unbiased estimator over its scored samples), its lint pass
 * rate or its composite. Tasks both runs hold are paired and differenced
 * (candidate - baseline); the mean difference gets a percentile bootstrap
 * interval from resampling the tasks with replacement. Everything that would
 * make the comparison meaningless is checked first and gives "cannot judge".
 */
#define _GNU_SOURCE
#include "score/gate.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "score/metrics.h"
#include "score/score.h"

void gate_options_init(struct gate_options *o)
{
	memset(o, 0, sizeof(*o));
	o->metric = GATE_METRIC_MEAN;
	o->k = 1;
	o->epsilon = 0.01;
	o->seed = GATE_DEFAULT_SEED;
	o->resamples = GATE_DEFAULT_RESAMPLES;
	o->confidence = 0.95;
}

int gate_metric_parse(const char *s, struct gate_options *o, struct sd_error *err)
{
	if (strcmp(s, "mean") == 0) {
		o->metric = GATE_METRIC_MEAN;
		return 0;
	}
	if (strcmp(s, "composite") == 0) {
		o->metric = GATE_METRIC_COMPOSITE;
		return 0;
	}
	if (strcmp(s, "lint") == 0) {
		o->metric = GATE_METRIC_LINT;
		return 0;
	}
	if (strncmp(s, "pass@", 5) == 0 && s[5] >= '1' && s[5] <= '9') {
		char *end;
		long k;

		errno = 0;
		k = strtol(s + 5, &end, 10);
		if (!*end && errno == 0 && k >= 1 && k <= 100000) {
			o->metric = GATE_METRIC_PASS_K;
			o->k = (int)k;
			return 0;
		}
	}
	return sd_error_set(err, EINVAL, "unknown metric '%s' (expected mean, pass@K with 1 <= K <= 100000, "
			    "composite or lint)", s);
}

const char *gate_metric_name(const struct gate_options *o, char *buf, size_t len)
{
	switch (o->metric) {
	case GATE_METRIC_PASS_K:
		snprintf(buf, len, "pass@%d", o->k);
		break;
	case GATE_METRIC_COMPOSITE:
		snprintf(buf, len, "composite");
		break;
	case GATE_METRIC_LINT:
		snprintf(buf, len, "lint");
		break;
	case GATE_METRIC_MEAN:
	default:
		snprintf(buf, len, "mean");
		break;
	}
	return buf;
}

void gate_result_cannot_judge(struct gate_result *out, const char *fmt, ...)
{
	va_list ap;

	memset(out, 0, sizeof(*out));
	out->verdict = GATE_CANNOT_JUDGE;
	out->all.base = out->all.cand = out->all.diff = out->all.ci_lo = out->all.ci_hi = NAN;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

void gate_result_release(struct gate_result *r)
{
	free(r->tasks);
	free(r->classes);
	r->tasks = NULL;
	r->classes = NULL;
	r->n_tasks = r->n_classes = 0;
}

/* --- the bootstrap --- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), without modulo bias. */
static size_t uniform(uint64_t *state, size_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = splitmix64(state);
	while (x >= limit);
	return (size_t)(x % n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int gate_bootstrap(const double *d, size_t n, size_t resamples, double confidence, uint64_t seed,
		   double *mean, double *lo, double *hi, struct sd_error *err)
{
	double sum = 0, alpha = 1 - confidence, *means;
	uint64_t state = seed;
	size_t ilo, ihi;

	if (n == 0 || resamples < 2 || !(confidence > 0 && confidence < 1))
		return sd_error_set(err, EINVAL, "bootstrap: needs tasks, at least 2 resamples and 0 < confidence < 1");
	for (size_t i = 0; i < n; i++)
		sum += d[i];
	means = malloc(resamples * sizeof(*means));
	if (!means)
		return sd_error_set(err, ENOMEM, "bootstrap: out of memory");
	for (size_t b = 0; b < resamples; b++) {
		double s = 0;

		for (size_t i = 0; i < n; i++)
			s += d[uniform(&state, n)];
		means[b] = s / (double)n;
	}
	qsort(means, resamples, sizeof(*means), cmp_double);
	/* percentile interval, nearest rank at each end */
	ilo = (size_t)floor(alpha / 2 * (double)resamples);
	ihi = (size_t)ceil((1 - alpha / 2) * (double)resamples);
	ihi = ihi ? ihi - 1 : 0;
	if (ilo >= resamples)
		ilo = resamples - 1;
	if (ihi >= resamples)
		ihi = resamples - 1;
	*mean = sum / (double)n;
	*lo = means[ilo];
	*hi = means[ihi];
	/* an interval that does not hold its own point estimate (rounding of
	 * identical values) is widened to hold it */
	if (*lo > *mean)
		*lo = *mean;
	if (*hi < *mean)
		*hi = *mean;
	free(means);
	return 0;
}

/* --- per-task values --- */

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* The task's value of the metric into *value (NAN when none) and the
 * number of samples it is computed over into *n. */
static void compute_value(const struct metrics_task *a, const struct gate_options *opt, double *value, size_t *n)
{
	double mean = a->n_scored ? a->sum_score / (double)a->n_scored : NAN;
	double lint = metrics_rate(a->n_lint_passed, a->n_linted - a->n_lint_passed);

	switch (opt->metric) {
	case GATE_METRIC_PASS_K:
		*value = metrics_task_pass_at_k(a, opt->k);
		*n = a->n_scored;
		break;
	case GATE_METRIC_LINT:
		*value = lint;
		*n = a->n_linted;
		break;
	case GATE_METRIC_COMPOSITE:
		*value = score_composite(mean, lint);
		*n = a->n_scored < a->n_linted ? a->n_scored : a->n_linted;
		break;
	case GATE_METRIC_MEAN:
	default:
		*value = mean;
		*n = a->n_scored;
		break;
	}
}

/* --- checks before comparing --- */

static bool all_harness_errors(const struct gate_run *run)
{
	for (size_t i = 0; i < run->n; i++)
		if (!run->results[i].harness_error)
			return false;
	return true;
}

static bool has_lint(const struct gate_run *run)
{
	for (size_t i = 0; i < run->n; i++)
		if (run->results[i].lint == LINT_PASSED || run->results[i].lint == LINT_FAILED)
			return true;
	return false;
}

/* Whether the run stopped each sample's tests at its first failure (run --fail-fast). */
static bool fail_fast(const struct gate_run *r)
{
	json_t *cfg = r->info->config_json ? json_loads(r->info->config_json, 0, NULL) : NULL;
	bool on = json_is_true(json_object_get(cfg, "fail_fast"));

	json_decref(cfg);
	return on;
}

/* A reason not to compare the runs at all, into *out; false when there is none. */
static bool precheck(const struct gate_run *base, const struct gate_run *cand, const struct gate_options *opt,
		     struct gate_result *out)
{
	const struct gate_run *runs[2] = { base, cand };
	const char *role[2] = { "baseline", "candidate" };
	const char *fb, *fc;

	for (int i = 0; i < 2; i++) {
		const struct gate_run *r = runs[i];

		if (!r->info) {
			gate_result_cannot_judge(out, "%s %s: no run information", role[i], r->name);
			return true;
		}
		if (r->info->finished_ms == 0) {
			char count[96] = "";

			if (r->info->n_samples > 0)
				snprintf(count, sizeof(count), ": %lld of %lld samples recorded",
					 (long long)r->info->n_recorded, (long long)r->info->n_samples);
			if (r->info->shards > 0)
				gate_result_cannot_judge(out, "%s %s is unfinished%s (its shards go on when started "
							 "again: 'sandeval run --run-id %s --status')", role[i], r->name,
							 count, r->info->id);
			else
				gate_result_cannot_judge(out, "%s %s is unfinished%s (finish it with 'sandeval run "
							 "--resume %s')", role[i], r->name, count, r->info->id);
			return true;
		}
		if (r->n == 0) {
			gate_result_cannot_judge(out, "%s %s has no samples", role[i], r->name);
			return true;
		}
		if (all_harness_errors(r)) {
			gate_result_cannot_judge(out, "%s %s: all %zu samples are harness errors (sandeval failed, "
						 "nothing was scored)", role[i], r->name, r->n);
			return true;
		}
	}
	fb = str_or_empty(base->info->formula_version);
	fc = str_or_empty(cand->info->formula_version);
	if (strcmp(fb, fc) != 0) {
		gate_result_cannot_judge(out, "different formula versions: baseline %s has v%s, candidate %s has v%s "
					 "(scores of different formulas are not comparable; docs/scoring.md)",
					 base->name, fb, cand->name, fc);
		return true;
	}
	if (strcmp(str_or_empty(base->info->suite_hash), str_or_empty(cand->info->suite_hash)) != 0) {
		gate_result_cannot_judge(out, "different suites: baseline %s has suite %.12s, candidate %s has %.12s "
					 "(the tasks or their tests changed)", base->name,
					 str_or_empty(base->info->suite_hash), cand->name,
					 str_or_empty(cand->info->suite_hash));
		return true;
	}
	if ((opt->metric == GATE_METRIC_MEAN || opt->metric == GATE_METRIC_COMPOSITE) &&
	    fail_fast(base) != fail_fast(cand)) {
		int ff = fail_fast(cand);	/* the run with --fail-fast: 1 the candidate, 0 the baseline */

		gate_result_cannot_judge(out, "%s %s ran with --fail-fast and %s %s without: a failing sample's score "
					 "counts the tests it did not run (--metric pass@K compares them)",
					 role[ff], runs[ff]->name, role[!ff], runs[!ff]->name);
		return true;
	}
	if (opt->metric == GATE_METRIC_LINT || opt->metric == GATE_METRIC_COMPOSITE) {
		for (int i = 0; i < 2; i++) {
			if (!has_lint(runs[i])) {
				gate_result_cannot_judge(out, "%s %s has no lint results (every sample's lint status is "
							 "none, unavailable or error): --metric %s needs linted runs",
							 role[i], runs[i]->name,
							 opt->metric == GATE_METRIC_LINT ? "lint" : "composite");
				return true;
			}
		}
	}
	return false;
}

/* --- comparing --- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int stat_of(const struct gate_task *t, const size_t *idx, size_t n, const struct gate_options *opt,
		   uint64_t seed, struct gate_stat *st, struct sd_error *err)
{
	double *d = malloc((n ? n : 1) * sizeof(*d)), sb = 0, sc = 0;
	int ret;

	if (!d)
		return sd_error_set(err, ENOMEM, "gate: out of memory");
	for (size_t i = 0; i < n; i++) {
		d[i] = t[idx[i]].diff;
		sb += t[idx[i]].base;
		sc += t[idx[i]].cand;
	}
	st->n_tasks = n;
	st->base = sb / (double)n;
	st->cand = sc / (double)n;
	ret = gate_bootstrap(d, n, opt->resamples, opt->confidence, seed, &st->diff, &st->ci_lo, &st->ci_hi, err);
	free(d);
	st->regression = ret == 0 && st->diff < -opt->epsilon && st->ci_hi < 0;
	return ret;
}

static int cmp_task_class(const void *a, const void *b)
{
	const struct gate_task *x = a, *y = b;
	int c = strcmp(x->task_class, y->task_class);

	return c ? c : strcmp(x->task_id, y->task_id);
}

static int compare_classes(struct gate_result *out, const struct gate_options *opt, struct sd_error *err)
{
	struct gate_task *by_class = malloc(out->n_tasks * sizeof(*by_class));
	size_t *idx = malloc(out->n_tasks * sizeof(*idx));
	struct gate_class *cl = calloc(out->n_tasks, sizeof(*cl));
	size_t nc = 0;

	if (!by_class || !idx || !cl) {
		free(by_class);
		free(idx);
		free(cl);
		return sd_error_set(err, ENOMEM, "gate: out of memory");
	}
	memcpy(by_class, out->tasks, out->n_tasks * sizeof(*by_class));
	qsort(by_class, out->n_tasks, sizeof(*by_class), cmp_task_class);
	for (size_t i = 0; i < out->n_tasks;) {
		size_t j = i;

		while (j < out->n_tasks && strcmp(by_class[j].task_class, by_class[i].task_class) == 0) {
			idx[j - i] = j;
			j++;
		}
		cl[nc].name = by_class[i].task_class;
		/* the seed of a class depends on its name only: the same class gets
		 * the same interval whatever other classes there are */
		if (stat_of(by_class, idx, j - i, opt, opt->seed ^ fnv1a(cl[nc].name), &cl[nc].stat, err) < 0) {
			free(by_class);
			free(idx);
			free(cl);
			return -1;
		}
		nc++;
		i = j;
	}
	free(by_class);
	free(idx);
	out->classes = cl;
	out->n_classes = nc;
	return 0;
}

static void set_verdict(struct gate_result *out, const struct gate_options *opt)
{
	char metric[32], classes[400] = "";
	size_t used = 0, n_bad = 0;
	const struct gate_stat *a = &out->all;
	int pct = (int)lround(opt->confidence * 100);

	gate_metric_name(opt, metric, sizeof(metric));
	for (size_t c = 0; c < out->n_classes; c++) {
		const struct gate_class *g = &out->classes[c];
		int w;

		if (!g->stat.regression)
			continue;
		n_bad++;
		if (used < sizeof(classes)) {
			w = snprintf(classes + used, sizeof(classes) - used, "%s'%s' %+.3f", n_bad > 1 ? ", " : "",
				     g->name[0] ? g->name : "(none)", g->stat.diff);
			used += w > 0 ? (size_t)w : 0;
		}
	}
	if (used >= sizeof(classes))
		memcpy(classes + sizeof(classes) - 4, "...", 4);
	if (a->regression) {
		out->verdict = GATE_REGRESSION;
		snprintf(out->reason, sizeof(out->reason),
			 "%s %+.4f over %zu shared tasks (%.4f -> %.4f), below -%.4f, and the %d%% CI [%+.4f, %+.4f] "
			 "lies below 0%s%s", metric, a->diff, a->n_tasks, a->base, a->cand, opt->epsilon, pct,
			 a->ci_lo, a->ci_hi, n_bad ? "; classes that regressed: " : "", classes);
	} else if (opt->per_class && n_bad) {
		out->verdict = GATE_REGRESSION;
		snprintf(out->reason, sizeof(out->reason),
			 "%zu class%s regressed (--per-class): %s; overall %s %+.4f, %d%% CI [%+.4f, %+.4f]",
			 n_bad, n_bad == 1 ? "" : "es", classes, metric, a->diff, pct, a->ci_lo, a->ci_hi);
	} else {
		out->verdict = GATE_PASS;
		snprintf(out->reason, sizeof(out->reason),
			 "%s %+.4f over %zu shared tasks (%.4f -> %.4f), %d%% CI [%+.4f, %+.4f]: %s%s%s",
			 metric, a->diff, a->n_tasks, a->base, a->cand, pct, a->ci_lo, a->ci_hi,
			 a->diff >= -opt->epsilon ? "not below -epsilon" : "the CI reaches 0 (not a clear drop)",
			 n_bad ? "; classes that would fail with --per-class: " : "", classes);
	}
}

int gate_compare(const struct gate_run *base, const struct gate_run *cand, const struct gate_options *opt,
		 struct gate_result *out, struct sd_error *err)
{
	struct metrics_task *tb = NULL, *tc = NULL;
	size_t nb = 0, nc = 0, i = 0, j = 0, *idx = NULL;
	const struct metrics_task *short_task = NULL;
	const char *short_role = NULL;
	size_t n_shared = 0;

	memset(out, 0, sizeof(*out));
	if (precheck(base, cand, opt, out))
		return 0;
	if (metrics_tasks(base->results, NULL, base->n, NULL, METRICS_BY_TASK_ID, &tb, &nb, err) < 0 ||
	    metrics_tasks(cand->results, NULL, cand->n, NULL, METRICS_BY_TASK_ID, &tc, &nc, err) < 0) {
		free(tb);
		return -1;
	}
	out->tasks = calloc(nb < nc ? (nb ? nb : 1) : (nc ? nc : 1), sizeof(*out->tasks));
	if (!out->tasks)
		goto oom;
	/* merge join on the task ids */
	while (i < nb || j < nc) {
		int c = i == nb ? 1 : j == nc ? -1 : strcmp(tb[i].task_id, tc[j].task_id);
		struct gate_task *t;
		double vb, vc;
		size_t n_vb, n_vc;

		if (c < 0) {
			out->n_base_only++;
			i++;
			continue;
		}
		if (c > 0) {
			out->n_cand_only++;
			j++;
			continue;
		}
		n_shared++;
		compute_value(&tb[i], opt, &vb, &n_vb);
		compute_value(&tc[j], opt, &vc, &n_vc);
		if (opt->metric == GATE_METRIC_PASS_K && !short_task) {
			if (tb[i].n_scored && (size_t)opt->k > tb[i].n_scored) {
				short_task = &tb[i];
				short_role = "baseline";
			} else if (tc[j].n_scored && (size_t)opt->k > tc[j].n_scored) {
				short_task = &tc[j];
				short_role = "candidate";
			}
		}
		if (isnan(vb) || isnan(vc)) {
			out->n_left_out++;
		} else {
			t = &out->tasks[out->n_tasks++];
			t->task_id = tb[i].task_id;
			t->task_class = tb[i].task_class;
			t->base = vb;
			t->cand = vc;
			t->diff = t->cand - t->base;
			t->n_base = n_vb;
			t->n_cand = n_vc;
		}
		i++;
		j++;
	}
	if (n_shared == 0) {
		gate_result_release(out);
		gate_result_cannot_judge(out, "no shared tasks: baseline %s has %zu task%s, candidate %s has %zu, "
					 "none in common", base->name, nb, nb == 1 ? "" : "s", cand->name, nc);
		goto done;
	}
	if (short_task) {
		gate_result_release(out);
		gate_result_cannot_judge(out, "pass@%d needs at least %d scored samples per task, but task '%s' has "
					 "n=%zu in the %s %s (k > n: the estimator is undefined; generate more "
					 "samples or use a smaller k)", opt->k, opt->k, short_task->task_id,
					 short_task->n_scored, short_role,
					 strcmp(short_role, "baseline") == 0 ? base->name : cand->name);
		goto done;
	}
	if (out->n_tasks == 0) {
		size_t left = out->n_left_out;

		gate_result_release(out);
		gate_result_cannot_judge(out, "none of the %zu shared tasks has a value in both runs (harness errors "
					 "only%s)", left, opt->metric == GATE_METRIC_LINT ||
					 opt->metric == GATE_METRIC_COMPOSITE ? ", or no lint results" : "");
		goto done;
	}
	idx = malloc(out->n_tasks * sizeof(*idx));
	if (!idx)
		goto oom;
	for (size_t k = 0; k < out->n_tasks; k++)
		idx[k] = k;
	if (stat_of(out->tasks, idx, out->n_tasks, opt, opt->seed, &out->all, err) < 0 ||
	    compare_classes(out, opt, err) < 0) {
		free(idx);
		free(tb);
		free(tc);
		gate_result_release(out);
		return -1;
	}
	free(idx);
	set_verdict(out, opt);
done:
	free(tb);
	free(tc);
	return 0;
oom:
	free(tb);
	free(tc);
	gate_result_release(out);
	return sd_error_set(err, ENOMEM, "gate: out of memory");
}
