/* metrics.c - a run's figures from its sample results: per-task groups, pass@k, score summaries, lint rate, composite, cost */
#define _GNU_SOURCE
#include "score/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

bool metrics_scored(const struct sample_result *r)
{
	return !r->harness_error && isfinite(r->score);
}

double metrics_rate(size_t passed, size_t failed)
{
	return passed + failed ? (double)passed / (double)(passed + failed) : NAN;
}

/* --- per-task groups and pass@k --- */

struct visit {
	const struct sample_result *r;
	size_t pos;			/* its place in the order visited */
};

static int cmp_visit(const void *a, const void *b)
{
	const struct visit *x = a, *y = b;
	int c = strcmp(str_or_empty(x->r->task_id), str_or_empty(y->r->task_id));

	return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

struct first {
	size_t pos;
	struct metrics_task t;
};

static int cmp_first(const void *a, const void *b)
{
	const struct first *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int metrics_tasks(const struct sample_result *results, const size_t *index, size_t n, const char *cls,
		  enum metrics_order order, struct metrics_task **out, size_t *n_out, struct sd_error *err)
{
	struct visit *v = malloc((n ? n : 1) * sizeof(*v));
	struct first *g = calloc(n ? n : 1, sizeof(*g));
	struct metrics_task *t = NULL;
	size_t nv = 0, nt = 0;

	if (!v || !g)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct sample_result *r = &results[index ? index[i] : i];

		if (!cls || strcmp(str_or_empty(r->task_class), cls) == 0)
			v[nv++] = (struct visit){ .r = r, .pos = i };
	}
	/* sorted by task id, each task's samples in the order visited */
	qsort(v, nv, sizeof(*v), cmp_visit);
	for (size_t i = 0; i < nv; i++) {
		const struct sample_result *r = v[i].r;
		struct metrics_task *a;

		if (nt == 0 || strcmp(g[nt - 1].t.task_id, str_or_empty(r->task_id)) != 0) {
			g[nt].pos = v[i].pos;
			g[nt].t.task_id = str_or_empty(r->task_id);
			g[nt].t.task_class = str_or_empty(r->task_class);
			nt++;
		}
		a = &g[nt - 1].t;
		a->n_samples++;
		if (metrics_scored(r)) {
			a->n_scored++;
			a->n_passed += r->passed;
			a->sum_score += r->score;
		}
		if (r->lint == LINT_PASSED || r->lint == LINT_FAILED) {
			a->n_linted++;
			a->n_lint_passed += r->lint == LINT_PASSED;
		}
	}
	if (order == METRICS_BY_FIRST)
		qsort(g, nt, sizeof(*g), cmp_first);
	t = malloc((nt ? nt : 1) * sizeof(*t));
	if (!t)
		goto oom;
	for (size_t i = 0; i < nt; i++)
		t[i] = g[i].t;
	free(v);
	free(g);
	*out = t;
	*n_out = nt;
	return 0;
oom:
	free(v);
	free(g);
	return sd_error_set(err, ENOMEM, "cannot group the results by task: out of memory");
}

static int clamp_int(size_t n)
{
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

double metrics_task_pass_at_k(const struct metrics_task *t, int k)
{
	if (!t->n_scored || k < 1 || (size_t)k > t->n_scored)
		return NAN;
	return pass_at_k(clamp_int(t->n_scored), clamp_int(t->n_passed), k);
}

size_t metrics_min_scored(const struct metrics_task *tasks, size_t n)
{
	size_t min = 0;

	for (size_t i = 0; i < n; i++)
		if (tasks[i].n_scored && (min == 0 || tasks[i].n_scored < min))
			min = tasks[i].n_scored;
	return min;
}

double metrics_pass_at_k(const struct metrics_task *tasks, size_t n, int k)
{
	size_t min = metrics_min_scored(tasks, n), n_scored_tasks = 0;
	double total = 0;

	if (min == 0 || k < 1 || (size_t)k > min)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!tasks[i].n_scored)
			continue;
		total += metrics_task_pass_at_k(&tasks[i], k);
		n_scored_tasks++;
	}
	return total / (double)n_scored_tasks;
}

/* --- lint figures --- */

static int count_category(struct lint_summary *s, const char *name)
{
	struct lint_category_count *c;

	for (size_t i = 0; i < s->n_categories; i++) {
		if (strcmp(s->categories[i].name, name) == 0) {
			s->categories[i].n++;
			return 0;
		}
	}
	c = realloc(s->categories, (s->n_categories + 1) * sizeof(*c));
	if (!c)
		return -1;
	s->categories = c;
	c = &c[s->n_categories];
	c->name = strdup(name);
	c->n = 1;
	if (!c->name)
		return -1;
	s->n_categories++;
	return 0;
}

static int cmp_category(const void *a, const void *b)
{
	const struct lint_category_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void tally(size_t *passed, size_t *failed, size_t *unavailable, size_t *error, size_t *none,
		  enum lint_status st)
{
	switch (st) {
	case LINT_PASSED: (*passed)++; break;
	case LINT_FAILED: (*failed)++; break;
	case LINT_UNAVAILABLE: (*unavailable)++; break;
	case LINT_ERROR: (*error)++; break;
	default: (*none)++; break;
	}
}

int lint_summarize(const struct sample_result *results, const size_t *index, size_t n, struct lint_summary *out,
		   struct sd_error *err)
{
	struct lint_summary s = { 0 };
	double *sum = calloc(n + 1, sizeof(double)), total = 0;
	size_t *scored = calloc(n + 1, sizeof(size_t)), n_scored = 0;

	if (!sum || !scored)
		goto oom;
	s.classes = calloc(n + 1, sizeof(*s.classes));
	if (!s.classes)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const struct sample_result *r = &results[index ? index[i] : i];
		const char *cls = str_or_empty(r->task_class);
		size_t c;

		for (c = 0; c < s.n_classes && strcmp(s.classes[c].name, cls) != 0; c++)
			;
		if (c == s.n_classes) {
			s.classes[c].name = strdup(cls);
			if (!s.classes[c].name)
				goto oom;
			s.n_classes++;
		}
		tally(&s.n_passed, &s.n_failed, &s.n_unavailable, &s.n_error, &s.n_none, r->lint);
		tally(&s.classes[c].n_passed, &s.classes[c].n_failed, &s.classes[c].n_unavailable,
		      &s.classes[c].n_error, &s.classes[c].n_none, r->lint);
		if (metrics_scored(r)) {
			sum[c] += r->score;
			scored[c]++;
			total += r->score;
			n_scored++;
		}
		for (size_t f = 0; f < r->n_findings; f++)
			if (count_category(&s, r->findings[f].category ? r->findings[f].category : "other") < 0)
				goto oom;
	}
	if (s.n_categories)
		qsort(s.categories, s.n_categories, sizeof(*s.categories), cmp_category);
	s.pass_rate = metrics_rate(s.n_passed, s.n_failed);
	s.composite = score_composite(n_scored ? total / (double)n_scored : NAN, s.pass_rate);
	for (size_t c = 0; c < s.n_classes; c++) {
		struct lint_class *k = &s.classes[c];

		k->pass_rate = metrics_rate(k->n_passed, k->n_failed);
		k->composite = score_composite(scored[c] ? sum[c] / (double)scored[c] : NAN, k->pass_rate);
	}
	free(sum);
	free(scored);
	*out = s;
	return 0;
oom:
	free(sum);
	free(scored);
	lint_summary_release(&s);
	return sd_error_set(err, ENOMEM, "cannot summarize lint results: out of memory");
}

void lint_summary_release(struct lint_summary *s)
{
	for (size_t i = 0; i < s->n_categories; i++)
		free(s->categories[i].name);
	for (size_t i = 0; i < s->n_classes; i++)
		free(s->classes[i].name);
	free(s->categories);
	free(s->classes);
	memset(s, 0, sizeof(*s));
}

/* --- what `sandeval report` shows --- */

int run_metrics_compute(const struct sample_result *results, size_t n, const char *cls, const int *ks,
			size_t n_ks, struct run_metrics *m, struct sd_error *err)
{
	double *scores = malloc((n ? n : 1) * sizeof(*scores)), composite_sum = 0;
	struct metrics_task *tasks = NULL;
	size_t len = 0, n_tasks = 0;

	memset(m, 0, sizeof(*m));
	if (!scores)
		return sd_error_set(err, ENOMEM, "cannot compute the metrics: out of memory");
	if (metrics_tasks(results, NULL, n, cls, METRICS_BY_TASK_ID, &tasks, &n_tasks, err) < 0) {
		free(scores);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sample_result *r = &results[i];
		bool scored = metrics_scored(r);

		if (cls && strcmp(str_or_empty(r->task_class), cls) != 0)
			continue;
		m->n_samples++;
		scores[len++] = scored ? r->score : NAN;
		m->n_scored += scored;
		m->n_passed += scored && r->passed;
		if (r->lint == LINT_PASSED || r->lint == LINT_FAILED) {
			m->n_linted++;
			m->n_lint_passed += r->lint == LINT_PASSED;
		}
		if (!r->harness_error && isfinite(r->composite)) {
			m->n_composite++;
			composite_sum += r->composite;
		}
		m->cpu_s += (double)(r->cpu_ms > 0 ? r->cpu_ms : 0) / 1000.0;
		m->wall_s += (double)(r->latency_ms > 0 ? r->latency_ms : 0) / 1000.0;
		if (r->peak_memory_bytes > m->peak_memory_bytes)
			m->peak_memory_bytes = r->peak_memory_bytes;
	}
	score_summarize(scores, len, &m->score);
	m->lint_rate = m->n_linted ? (double)m->n_lint_passed / (double)m->n_linted : NAN;
	m->composite = m->n_composite ? composite_sum / (double)m->n_composite : NAN;
	m->n_tasks = n_tasks;
	m->min_n = metrics_min_scored(tasks, n_tasks);
	for (size_t q = 0; q < n_ks && q < METRICS_MAX_KS; q++)
		m->pass_k[q] = metrics_pass_at_k(tasks, n_tasks, ks[q]);
	free(scores);
	free(tasks);
	return 0;
}
