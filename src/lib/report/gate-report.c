/* gate-report.c - the gate's verdict for people and tools: the terminal table, JSON, JUnit XML */
#define _GNU_SOURCE
#include "report/gate-report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonl.h"
#include "base/utf8.h"
#include "base/xml.h"

#define WORSE_MAX 10		/* tasks listed as having got worse */
#define NAME_MAX_CHARS 40	/* of a task or class name on the terminal */

static const char *verdict_word(enum gate_verdict v)
{
	return v == GATE_PASS ? "PASS" : v == GATE_REGRESSION ? "REGRESSION" : "CANNOT JUDGE";
}

static const char *verdict_key(enum gate_verdict v)
{
	return v == GATE_PASS ? "pass" : v == GATE_REGRESSION ? "regression" : "cannot_judge";
}

static void put_stat_row(FILE *f, const char *prefix, const char *name, const struct gate_stat *s,
			 const char *mark)
{
	int used = (int)strlen(prefix);

	fputs(prefix, f);
	used += (int)utf8_put_term(f, name, NAME_MAX_CHARS);
	fprintf(f, "%*s %5zu  %8.4f  %8.4f  %+8.4f  [%+.4f, %+.4f]%s%s\n", used < 32 ? 32 - used : 0, "",
		s->n_tasks, s->base, s->cand, s->diff, s->ci_lo, s->ci_hi, mark[0] ? "  " : "", mark);
}

static int cmp_diff(const void *a, const void *b)
{
	const struct gate_task *x = *(const struct gate_task *const *)a, *y = *(const struct gate_task *const *)b;

	if (x->diff != y->diff)
		return (x->diff > y->diff) - (x->diff < y->diff);
	return strcmp(x->task_id, y->task_id);
}

static void put_worse(FILE *f, const struct gate_result *r)
{
	const struct gate_task **w = malloc((r->n_tasks ? r->n_tasks : 1) * sizeof(*w));
	size_t n = 0;

	if (!w)
		return;
	for (size_t i = 0; i < r->n_tasks; i++)
		if (r->tasks[i].diff < 0)
			w[n++] = &r->tasks[i];
	qsort(w, n, sizeof(*w), cmp_diff);
	if (n)
		fprintf(f, "\ntasks that got worse: %zu of %zu%s\n", n, r->n_tasks,
			n > WORSE_MAX ? " (the worst 10)" : "");
	for (size_t i = 0; i < n && i < WORSE_MAX; i++) {
		int used;

		fputs("  ", f);
		used = (int)utf8_put_term(f, w[i]->task_id, NAME_MAX_CHARS);
		fprintf(f, "%*s %8.4f -> %8.4f  %+8.4f", used < 30 ? 30 - used : 0, "", w[i]->base, w[i]->cand,
			w[i]->diff);
		if (w[i]->task_class[0]) {
			fputs("  (", f);
			utf8_put_term(f, w[i]->task_class, NAME_MAX_CHARS);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	free(w);
}

void gate_print(FILE *f, const struct gate_result *r, const struct gate_options *opt,
		const struct gate_run *base, const struct gate_run *cand)
{
	char metric[32];

	gate_metric_name(opt, metric, sizeof(metric));
	if (r->verdict != GATE_CANNOT_JUDGE) {
		fprintf(f, "gate: %s of baseline ", metric);
		utf8_put_term(f, base ? base->name : "?", 80);
		fputs(" and candidate ", f);
		utf8_put_term(f, cand ? cand->name : "?", 80);
		fprintf(f, "\ngate: %zu shared tasks compared (%zu baseline only, %zu candidate only, %zu left out "
			"without a value); bootstrap %zu resamples, seed %llu; epsilon %.4f%s\n\n",
			r->n_tasks, r->n_base_only, r->n_cand_only, r->n_left_out, opt->resamples,
			(unsigned long long)opt->seed, opt->epsilon, opt->per_class ? "; --per-class" : "");
		fprintf(f, "%-32s %5s  %8s  %8s  %8s  %d%% CI\n", metric, "tasks", "baseline", "candidate", "diff",
			(int)lround(opt->confidence * 100));
		put_stat_row(f, "  ", "all", &r->all, r->all.regression ? "regression" : "");
		for (size_t c = 0; c < r->n_classes; c++) {
			const struct gate_class *g = &r->classes[c];

			put_stat_row(f, "  class ", g->name[0] ? g->name : "(none)", &g->stat,
				     !g->stat.regression ? "" : opt->per_class ? "regression" :
				     "regression (fails with --per-class)");
		}
		put_worse(f, r);
		fputc('\n', f);
	}
	fprintf(f, "gate: %s: ", verdict_word(r->verdict));
	utf8_put_term(f, r->reason, sizeof(r->reason));
	fputc('\n', f);
}

/* --- JSON --- */

static json_t *jstat(const struct gate_stat *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:[o, o], s:b}", "tasks", (json_int_t)s->n_tasks,
			 "baseline", json_number_or_null(s->base), "candidate", json_number_or_null(s->cand), "diff", json_number_or_null(s->diff),
			 "ci", json_number_or_null(s->ci_lo), json_number_or_null(s->ci_hi), "regression", s->regression);
}

static json_t *jrun(const struct gate_run *run)
{
	const struct run_info *i = run ? run->info : NULL;

	if (!run)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I}", "name", json_text(run->name),
			 "id", json_text(i ? i->id : NULL), "suite_hash", json_text(i ? i->suite_hash : NULL),
			 "formula_version", json_text(i ? i->formula_version : NULL),
			 "model", json_text(i ? i->model : NULL), "samples", (json_int_t)run->n);
}

static json_t *gate_json(const struct gate_result *r, const struct gate_options *opt,
			 const struct gate_run *base, const struct gate_run *cand)
{
	char metric[32];
	json_t *classes = json_array(), *tasks = json_array(), *doc;

	for (size_t c = 0; classes && c < r->n_classes; c++) {
		json_t *jc = jstat(&r->classes[c].stat);

		if (!jc || json_object_set_new(jc, "name", json_text(r->classes[c].name)) < 0 ||
		    json_array_append_new(classes, jc) < 0) {
			json_decref(classes);
			classes = NULL;
		}
	}
	for (size_t t = 0; tasks && t < r->n_tasks; t++) {
		const struct gate_task *g = &r->tasks[t];
		json_t *jt = json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:I}", "task_id", json_text(g->task_id),
				       "class", json_text(g->task_class), "baseline", json_number_or_null(g->base),
				       "candidate", json_number_or_null(g->cand), "diff", json_number_or_null(g->diff),
				       "baseline_samples", (json_int_t)g->n_base,
				       "candidate_samples", (json_int_t)g->n_cand);

		if (json_array_append_new(tasks, jt) < 0) {
			json_decref(tasks);
			tasks = NULL;
		}
	}
	doc = json_pack("{s:s, s:i, s:s, s:i, s:o, s:s, s:o, s:f, s:f, s:I, s:I, s:b, s:o, s:o, "
			"s:I, s:I, s:I, s:o, s:o, s:o}",
			"format", "sandeval-gate", "version", 1,
			"verdict", verdict_key(r->verdict), "exit_code", (int)r->verdict, "reason", json_text(r->reason),
			"metric", gate_metric_name(opt, metric, sizeof(metric)),
			"k", opt->metric == GATE_METRIC_PASS_K ? json_integer(opt->k) : json_null(),
			"epsilon", opt->epsilon, "confidence", opt->confidence,
			"resamples", (json_int_t)opt->resamples, "seed", (json_int_t)(opt->seed & INT64_MAX),
			"per_class", opt->per_class, "baseline", jrun(base), "candidate", jrun(cand),
			"baseline_only_tasks", (json_int_t)r->n_base_only,
			"candidate_only_tasks", (json_int_t)r->n_cand_only,
			"left_out_tasks", (json_int_t)r->n_left_out,
			"all", r->verdict == GATE_CANNOT_JUDGE ? json_null() : jstat(&r->all),
			"classes", classes, "tasks", tasks);
	return doc;
}

static FILE *open_out(const char *path, struct sd_error *err)
{
	FILE *f;

	if (strcmp(path, "-") == 0)
		return stdout;
	f = fopen(path, "we");
	if (!f)
		sd_error_errno(err, errno, "cannot create '%s'", path);
	return f;
}

static int close_out(FILE *f, const char *path, int ret, struct sd_error *err)
{
	int failed = ferror(f), saved = 0;

	errno = 0;
	if (f == stdout ? fflush(f) != 0 : fclose(f) != 0)
		saved = errno ? errno : EIO;
	if (ret == 0 && (failed || saved))
		return sd_error_errno(err, saved ? saved : EIO, "cannot write '%s'", path);
	return ret;
}

int gate_write_json(const char *path, const struct gate_result *r, const struct gate_options *opt,
		    const struct gate_run *base, const struct gate_run *cand, struct sd_error *err)
{
	json_t *doc = gate_json(r, opt, base, cand);
	FILE *f;
	int ret = 0;

	if (!doc)
		return sd_error_set(err, ENOMEM, "cannot write '%s': out of memory", path);
	f = open_out(path, err);
	if (!f) {
		json_decref(doc);
		return -1;
	}
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 || fputc('\n', f) == EOF)
		ret = sd_error_set(err, EIO, "cannot write '%s': write error", path);
	json_decref(doc);
	return close_out(f, path, ret, err);
}

/* --- JUnit --- */

static void junit_case(FILE *f, const char *metric, const char *label, const struct gate_stat *s,
		       const char *failure, const char *error, const char *note)
{
	fputs("    <testcase classname=\"sandeval.gate\" name=\"", f);
	xml_put(f, metric, strlen(metric), SIZE_MAX, true);
	fputs(": ", f);
	xml_put(f, label, strlen(label), SIZE_MAX, true);
	fputc('"', f);
	if (!failure && !error && !s) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (failure || error) {
		const char *msg = failure ? failure : error;

		fprintf(f, "      <%s type=\"%s\"", failure ? "failure" : "error", failure ? "regression" : "cannot_judge");
		xml_attr(f, "message", msg);
		fputc('>', f);
		xml_text(f, msg);
		fprintf(f, "</%s>\n", failure ? "failure" : "error");
	}
	if (s) {
		fprintf(f, "      <system-out>tasks %zu, baseline %.4f, candidate %.4f, diff %+.4f, CI [%+.4f, %+.4f]",
			s->n_tasks, s->base, s->cand, s->diff, s->ci_lo, s->ci_hi);
		if (note) {
			fputs("; ", f);
			xml_text(f, note);
		}
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

int gate_junit_write(FILE *f, const struct gate_result *r, const struct gate_options *opt)
{
	char metric[32];
	size_t tests = 1 + (r->verdict == GATE_CANNOT_JUDGE ? 0 : r->n_classes), failures = 0, errors = 0;

	gate_metric_name(opt, metric, sizeof(metric));
	if (r->verdict == GATE_CANNOT_JUDGE)
		errors = 1;
	else {
		failures = r->all.regression;
		for (size_t c = 0; c < r->n_classes; c++)
			failures += opt->per_class && r->classes[c].stat.regression;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"sandeval gate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		tests, failures, errors);
	fputs("  <testsuite name=\"sandeval gate: ", f);
	xml_put(f, metric, strlen(metric), SIZE_MAX, true);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", tests, failures, errors);
	if (r->verdict == GATE_CANNOT_JUDGE) {
		junit_case(f, metric, "all tasks", NULL, NULL, r->reason, NULL);
	} else {
		junit_case(f, metric, "all tasks", &r->all, r->all.regression ? r->reason : NULL, NULL, NULL);
		for (size_t c = 0; c < r->n_classes; c++) {
			const struct gate_class *g = &r->classes[c];
			char *label = NULL, *msg = NULL;
			bool fails = opt->per_class && g->stat.regression;

			if (asprintf(&label, "class %s", g->name[0] ? g->name : "(none)") < 0)
				return -1;
			if (fails && asprintf(&msg, "class %s regressed: %s %+.4f, CI [%+.4f, %+.4f] below 0",
					      g->name[0] ? g->name : "(none)", metric, g->stat.diff,
					      g->stat.ci_lo, g->stat.ci_hi) < 0) {
				free(label);
				return -1;
			}
			junit_case(f, metric, label, &g->stat, msg, NULL,
				   g->stat.regression && !opt->per_class ? "regressed; fails the gate with --per-class" :
				   NULL);
			free(label);
			free(msg);
		}
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return 0;
}

int gate_write_junit(const char *path, const struct gate_result *r, const struct gate_options *opt,
		     struct sd_error *err)
{
	FILE *f = open_out(path, err);
	int ret;

	if (!f)
		return -1;
	ret = gate_junit_write(f, r, opt);
	if (ret < 0)
		sd_error_set(err, ENOMEM, "cannot write '%s': out of memory", path);
	return close_out(f, path, ret, err);
}
