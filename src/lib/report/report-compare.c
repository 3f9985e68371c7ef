/* report-compare.c - `sandeval report` on a terminal: the selected run against the one before it, with arrows */
#define _GNU_SOURCE
#include "report/report-html-internal.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "base/utf8.h"

static const char *str_or(const char *s)
{
	return s ? s : "";
}

enum trend_verdict trend_judge(enum trend_kind kind, double old, double now)
{
	if (!isfinite(old) || !isfinite(now))
		return V_NONE;
	if (kind == K_SCORE) {	/* as printed: three decimals */
		double d = round(now * 1000) - round(old * 1000);

		return d > 0 ? V_BETTER : d < 0 ? V_WORSE : V_SAME;
	}
	if (fabs(now - old) <= TREND_COST_TOLERANCE * fmax(fabs(old), fabs(now)) ||
	    (kind == K_SECONDS && fabs(now - old) < 0.005))
		return V_SAME;
	return now < old ? V_BETTER : V_WORSE;	/* costs: lower is better */
}

static const char *arrow(enum trend_verdict v, bool utf8)
{
	switch (v) {
	case V_BETTER: return utf8 ? "\u2191" : "^";
	case V_WORSE: return utf8 ? "\u2193" : "v";
	case V_SAME: return "=";
	default: return "";
	}
}

static void fmt(char *buf, size_t size, enum trend_kind kind, double v, const char *missing)
{
	if (!isfinite(v))
		snprintf(buf, size, "%s", missing);
	else if (kind == K_SCORE)
		snprintf(buf, size, "%.3f", v);
	else if (kind == K_SECONDS)
		snprintf(buf, size, "%.2f s", v);
	else
		snprintf(buf, size, "%.1f MiB", v / 1048576.0);
}

static void fmt_change(char *buf, size_t size, enum trend_kind kind, double old, double now)
{
	if (!isfinite(old) || !isfinite(now))
		snprintf(buf, size, "%s", "");
	else if (kind == K_SCORE)
		snprintf(buf, size, "%+.3f", now - old);
	else if (old > 0 && fabs(now - old) < 0.005 * old)
		snprintf(buf, size, "%s", "0%");
	else if (old > 0)
		snprintf(buf, size, "%+.0f%%", 100.0 * (now - old) / old);
	else
		snprintf(buf, size, "%s", now > 0 ? "new" : "+0%");
}

#define W_LABEL 18
#define W_VALUE 19

/* A column header: " " and the run id, right-aligned. */
static void put_header(FILE *f, const char *id)
{
	size_t n = utf8_put_term(NULL, id, W_VALUE - 1);

	fprintf(f, " %*s", n < W_VALUE ? (int)(W_VALUE - n) : 0, "");
	utf8_put_term(f, id, W_VALUE - 1);
}

struct cmp {
	FILE *f;
	bool utf8, base;	/* base: there is a run to compare with */
};

/* One row: LABEL, the base's value (when there is a base), the selected
 * run's, the change and its arrow. MISSING is shown for a NAN value. */
static void row(const struct cmp *c, const char *label, enum trend_kind kind, double old, double now, const char *missing)
{
	char a[64], b[64], d[64];

	fmt(b, sizeof(b), kind, now, missing);
	if (!c->base) {
		fprintf(c->f, "  %-*s %*s\n", W_LABEL, label, W_VALUE, b);
		return;
	}
	fmt(a, sizeof(a), kind, old, missing);
	fmt_change(d, sizeof(d), kind, old, now);
	fprintf(c->f, "  %-*s %*s %*s %9s %s\n", W_LABEL, label, W_VALUE, a, W_VALUE, b, d,
		arrow(trend_judge(kind, old, now), c->utf8));
}

/* A row whose value neither run has: one explanation instead of numbers. */
static void row_absent(const struct cmp *c, const char *label, const char *why)
{
	fprintf(c->f, "  %-*s %s\n", W_LABEL, label, why);
}

static const struct run_metrics empty_metrics = {
	.score = { .mean = NAN, .median = NAN, .p10 = NAN }, .lint_rate = NAN, .composite = NAN,
	.pass_k = { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
};

/* TERSE (class blocks): leave out the explanations the overall block gave. */
static void block(const struct cmp *c, const struct trend *t, const struct run_metrics *old,
		  const struct run_metrics *now, bool terse)
{
	char label[64], skipped[128] = "";
	size_t n_skipped = 0;

	if (!old)
		old = &empty_metrics;
	row(c, "mean", K_SCORE, old->score.mean, now->score.mean, "-");
	row(c, "median", K_SCORE, old->score.median, now->score.median, "-");
	row(c, "p10", K_SCORE, old->score.p10, now->score.p10, "-");
	for (size_t q = 0; q < t->n_ks; q++) {
		size_t k = (size_t)t->ks[q];

		if (k > now->min_n && (!c->base || k > old->min_n)) {	/* fits neither run */
			size_t used = strlen(skipped);

			snprintf(skipped + used, sizeof(skipped) - used, "%s%d", n_skipped++ ? ", " : "", t->ks[q]);
			continue;
		}
		snprintf(label, sizeof(label), "pass@%d", t->ks[q]);
		row(c, label, K_SCORE, old->pass_k[q], now->pass_k[q], "n/a (k > n)");
	}
	if (n_skipped && !terse) {
		snprintf(label, sizeof(label), "n=%zu", c->base && old->min_n > now->min_n ? old->min_n : now->min_n);
		fprintf(c->f, "  %-*s n/a for k = %s: k > %s samples per task\n", W_LABEL, "pass@k", skipped,
			label);
	}
	if (!now->n_linted && (!c->base || !old->n_linted)) {
		if (!terse) {
			row_absent(c, "lint pass rate", c->base ? "no lint results in either run" : "no lint results");
			row_absent(c, "composite", "absent: needs lint results");
		}
	} else {
		row(c, "lint pass rate", K_SCORE, old->lint_rate, now->lint_rate, "no lint results");
		row(c, "composite", K_SCORE, old->composite, now->composite, "absent");
	}
	row(c, "CPU time", K_SECONDS, old->cpu_s, now->cpu_s, "-");
	row(c, "wall time", K_SECONDS, old->wall_s, now->wall_s, "-");
	row(c, "peak memory", K_BYTES, (double)old->peak_memory_bytes, (double)now->peak_memory_bytes, "-");
}

static void put_run(FILE *f, const char *what, const struct trend_run *run)
{
	char when[32] = "?";
	time_t secs = (time_t)(run->info.started_ms / 1000);
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	fprintf(f, "%-10s ", what);
	utf8_put_term(f, run->info.id, 40);
	fprintf(f, " (%s, ", when);
	if (run->info.model) {
		fputs("model ", f);
		utf8_put_term(f, run->info.model, 40);
		fputs(", ", f);
	}
	fprintf(f, "%zu sample%s, %zu task%s", run->all.n_samples, run->all.n_samples == 1 ? "" : "s",
		run->all.n_tasks, run->all.n_tasks == 1 ? "" : "s");
	if (run->info.finished_ms)
		fprintf(f, ", took %.1f s", (double)(run->info.finished_ms - run->info.started_ms) / 1000.0);
	else if (run->info.n_samples > 0)
		fprintf(f, ", unfinished: %lld of %lld samples recorded", (long long)run->info.n_recorded,
			(long long)run->info.n_samples);
	else
		fputs(", unfinished", f);
	fputs(")\n", f);
}

const struct run_metrics *trend_class_of(const struct trend_run *run, const char *name)
{
	for (size_t j = 0; j < run->n_classes; j++)
		if (strcmp(run->classes[j].name, name) == 0)
			return &run->classes[j].m;
	return NULL;
}

static void class_block(const struct cmp *c, const struct trend *t, const char *name,
			const struct run_metrics *old, const struct run_metrics *now)
{
	fputs("class ", c->f);
	utf8_put_term(c->f, name[0] ? name : "(none)", 40);
	if (!now)
		fputs(": not in this run\n", c->f);
	else if (c->base && !old)
		fputs(": new in this run\n", c->f);
	else
		fputc('\n', c->f);
	if (now)
		block(c, t, old, now, true);
}

void report_compare(FILE *f, const struct trend *t, bool utf8)
{
	const struct trend_run *sel = &t->runs[t->n_runs - 1], *base = t->has_base ? &t->base : NULL;
	struct cmp c = { .f = f, .utf8 = utf8, .base = base != NULL };

	put_run(f, "report", sel);
	/* anomaly alerts first: they are why someone should look (eval/alert.h) */
	for (size_t i = 0; i < t->n_alerts; i++)
		fprintf(f, "%-10s %s: %.1f per 1,000 samples against %.1f before: %s\n", i ? "" : "ALERTS",
			t->alerts[i].kind, t->alerts[i].rate, t->alerts[i].baseline, t->alerts[i].message);
	if (base) {
		put_run(f, "against", base);
		if (strcmp(str_or(base->info.suite_hash), str_or(sel->info.suite_hash)) != 0)
			fputs("note       the runs scored different task suites: figures may not compare\n", f);
		if (strcmp(str_or(base->info.formula_version), str_or(sel->info.formula_version)) != 0)
			fputs("note       the runs used different scoring formula versions (docs/scoring.md)\n", f);
		fprintf(f, "%-10s %s better, %s worse, = same (costs: lower is better)\n\n", "arrows",
			arrow(V_BETTER, utf8), arrow(V_WORSE, utf8));
		fprintf(f, "  %-*s", W_LABEL, "");
		put_header(f, base->info.id);
		put_header(f, sel->info.id);
		fprintf(f, " %9s\n", "change");
	} else {
		fprintf(f, "%-10s nothing to compare with: %s\n\n", "against",
			t->n_db_runs > 1 ? "no run before this one (see --against)" : "the database holds only this run");
	}
	fputs("all\n", f);
	block(&c, t, base ? &base->all : NULL, &sel->all, false);
	for (size_t j = 0; j < sel->n_classes; j++)
		class_block(&c, t, sel->classes[j].name, base ? trend_class_of(base, sel->classes[j].name) : NULL,
			    &sel->classes[j].m);
	for (size_t j = 0; base && j < base->n_classes; j++)
		if (!trend_class_of(sel, base->classes[j].name))
			class_block(&c, t, base->classes[j].name, &base->classes[j].m, NULL);
}
