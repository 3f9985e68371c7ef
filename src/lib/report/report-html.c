/* report-html.c - the dashboard: one self-contained HTML page (inline CSS and SVG, no script, no network)
 *
 * It answers "is the system getting better or worse, for which task classes,
 * at what cost": the selected run against its base (tiles and a per-class
 * table), trend lines over the window of runs, the selected run's score
 * distribution, lint findings by category, the most failing and the slowest
 * tasks, and ROUGE-L beside the functional score of every sample. Every
 * string from the database is hostile: it goes through html_text/html_attr.
 * A Content-Security-Policy forbids scripts and every load, should escaping
 * ever miss something. docs/report.md describes each part.
 */
#define _GNU_SOURCE
#include "report/report-html-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report-internal.h"

#define TOP_ROWS 10		/* rows of the task and disagreement tables */
#define MAX_CLASS_LINES 12	/* classes drawn on the trend charts */
#define MAX_CATEGORIES 200	/* distinct lint categories counted; the rest are "other" */
#define EXCERPT_CHARS 240	/* of a completion in the disagreement table */
#define ROUGE_SPLIT 0.5		/* "high" ROUGE-L: where a lexical metric would call a sample right */

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f" };
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1220px;"
	"padding:16px 24px;color:#1b1b1b;background:#fff}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;"
	"padding-bottom:4px}h3{font-size:14px;margin:8px 0 4px}"
	"code,pre{font:12px/1.35 ui-monospace,'DejaVu Sans Mono',monospace}"
	"pre{white-space:pre-wrap;word-break:break-all;margin:0;max-width:520px;max-height:9em;overflow:hidden}"
	".meta{color:#555;margin:2px 0}.note{background:#fff4d6;border:1px solid #e8c66a;padding:4px 8px;"
	"margin:6px 0}"
	".tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px}"
	".tile{border:1px solid #ddd;border-radius:6px;padding:8px 10px}.tile .name{color:#555;font-size:12px}"
	".tile .value{font-size:22px;font-weight:600}.absent{color:#888;font-style:italic}"
	".tile .value.absent{font-size:14px;font-weight:400}figcaption.meta{font-weight:400}th{white-space:nowrap}"
	".better{color:#1a7f37}.worse{color:#c62828}.same{color:#666}"
	"table{border-collapse:collapse;margin:6px 0}th,td{border-bottom:1px solid #e5e5e5;padding:3px 10px;"
	"text-align:left;vertical-align:top}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
	".delta{font-size:12px;margin-left:4px}"
	".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(570px,1fr));gap:12px}"
	"figure{margin:0}figcaption{font-weight:600;margin:4px 0}"
	"svg{max-width:100%;height:auto;background:#fff}svg text{font:11px system-ui,sans-serif;fill:#333}"
	"svg .grid{stroke:#eee}svg .axis{stroke:#888}svg .frame{fill:#fafafa;stroke:#ddd}"
	"svg .empty{font-size:14px;fill:#888}svg .bar{fill:#4c78a8}svg .marker{stroke:#c62828;"
	"stroke-width:2;stroke-dasharray:5 3}svg .marker-label{fill:#c62828;font-weight:600}"
	"svg .point.pass{fill:#1a7f37;fill-opacity:.7}svg .point.fail{fill:#c62828;fill-opacity:.7}"
	"svg .quadrant{fill:#fff1d0}svg .quadrant-label{fill:#a06b00;font-weight:600}"
	"svg .axis-label{fill:#555}"
	".legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0 8px}.legend span{display:inline-flex;"
	"align-items:center;gap:5px}.swatch{display:inline-block;width:18px;height:4px;border-radius:2px}";

/* --- formatting --- */

static void put_value(FILE *f, enum trend_kind kind, double v)
{
	if (kind == K_SCORE)
		fprintf(f, "%.3f", v);
	else if (kind == K_SECONDS)
		fprintf(f, "%.2f s", v);
	else
		fprintf(f, "%.1f MiB", v / 1048576.0);
}

/* The change from OLD to NOW with its arrow: ▲ better, ▼ worse, = same. */
static void put_delta(FILE *f, enum trend_kind kind, double old, double now)
{
	enum trend_verdict v = trend_judge(kind, old, now);
	static const char *const cls[] = { [V_BETTER] = "better", [V_WORSE] = "worse", [V_SAME] = "same" };
	static const char *const sym[] = { [V_BETTER] = "\u25b2", [V_WORSE] = "\u25bc", [V_SAME] = "=" };

	if (v == V_NONE)
		return;
	fprintf(f, "<span class=\"delta %s\" title=\"%s\">%s ", cls[v], cls[v], sym[v]);
	if (kind == K_SCORE)
		fprintf(f, "%+.3f", now - old);
	else if (old > 0 && fabs(now - old) < 0.005 * old)
		fputs("0%", f);
	else if (old > 0)
		fprintf(f, "%+.0f%%", 100.0 * (now - old) / old);
	fputs("</span>", f);
}

static void put_time(FILE *f, int64_t ms)
{
	char when[40] = "?";
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fputs(when, f);
}

static const char *class_label(const char *name)
{
	return name && name[0] ? name : "(none)";
}

/* --- header --- */

static void put_run_meta(FILE *f, const char *what, const struct trend_run *run)
{
	fprintf(f, "<p class=\"meta\">%s <code>", what);
	html_text(f, run->info.id, 40);
	fputs("</code>", f);
	if (run->info.model) {
		fputs(" · model <b>", f);
		html_text(f, run->info.model, 80);
		fputs("</b>", f);
	}
	fputs(" · started ", f);
	put_time(f, run->info.started_ms);
	if (run->info.finished_ms)
		fprintf(f, " · took %.1f s", (double)(run->info.finished_ms - run->info.started_ms) / 1000.0);
	else if (run->info.n_samples > 0)
		fprintf(f, " · <b>unfinished: %lld of %lld samples recorded</b>", (long long)run->info.n_recorded,
			(long long)run->info.n_samples);
	else
		fputs(" · <b>unfinished</b>", f);
	fprintf(f, " · %zu samples (%zu scored) · %zu tasks · formula v", run->all.n_samples, run->all.n_scored,
		run->all.n_tasks);
	html_text(f, run->info.formula_version, 16);
	fputs("</p>\n", f);
}

static const char *str_or(const char *s)
{
	return s ? s : "";
}

static void put_header(FILE *f, const struct trend *t)
{
	const struct trend_run *sel = &t->runs[t->n_runs - 1];

	fputs("<header><h1>sandeval report</h1>\n", f);
	put_run_meta(f, "run", sel);
	if (t->has_base) {
		put_run_meta(f, "against", &t->base);
		if (strcmp(str_or(t->base.info.suite_hash), str_or(sel->info.suite_hash)) != 0)
			fputs("<p class=\"note\">The two runs scored different task suites: their figures may not compare.</p>\n", f);
		if (strcmp(str_or(t->base.info.formula_version), str_or(sel->info.formula_version)) != 0)
			fputs("<p class=\"note\">The two runs used different scoring formula versions.</p>\n", f);
	} else {
		fprintf(f, "<p class=\"meta\">Nothing to compare with: %s.</p>\n",
			t->n_db_runs > 1 ? "no run before this one" : "the database holds only this run");
	}
	fputs("</header>\n", f);
}

/* --- at a glance: tiles and the per-class table --- */

struct metric {
	const char *name, *id;
	enum trend_kind kind;
	double (*get)(const struct run_metrics *m);
	const char *absent;		/* why a NAN value is missing */
};

static double m_mean(const struct run_metrics *m) { return m->score.mean; }
static double m_median(const struct run_metrics *m) { return m->score.median; }
static double m_p10(const struct run_metrics *m) { return m->score.p10; }
static double m_pass1(const struct run_metrics *m) { return m->pass_k[0]; }	/* ks[0] is 1 */
static double m_lint(const struct run_metrics *m) { return m->lint_rate; }
static double m_composite(const struct run_metrics *m) { return m->composite; }
static double m_cpu(const struct run_metrics *m) { return m->cpu_s; }
static double m_wall(const struct run_metrics *m) { return m->wall_s; }
static double m_peak(const struct run_metrics *m) { return (double)m->peak_memory_bytes; }

static const struct metric metrics[] = {
	{ "mean score", "mean", K_SCORE, m_mean, "no scored samples" },
	{ "median", "median", K_SCORE, m_median, "no scored samples" },
	{ "p10", "p10", K_SCORE, m_p10, "no scored samples" },
	{ "pass@1", "pass1", K_SCORE, m_pass1, "no scored samples" },
	{ "lint pass rate", "lint", K_SCORE, m_lint, "no lint results" },
	{ "composite", "composite", K_SCORE, m_composite, "absent: needs lint results" },
	{ "CPU seconds", "cpu", K_SECONDS, m_cpu, "-" },
	{ "wall seconds (sandboxes)", "wall", K_SECONDS, m_wall, "-" },
	{ "peak memory", "memory", K_BYTES, m_peak, "-" },
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* The metrics drawn as trend lines and shown per class: mean, pass@1, lint, composite, CPU. */
static const size_t trend_metrics_idx[] = { 0, 3, 4, 5, 6 };
#define N_TREND (sizeof(trend_metrics_idx) / sizeof(trend_metrics_idx[0]))

static void put_cell(FILE *f, const struct metric *mt, const struct run_metrics *old,
		     const struct run_metrics *now)
{
	double v = now ? mt->get(now) : NAN;

	fputs("<td class=\"num\">", f);
	if (!isfinite(v)) {
		fprintf(f, "<span class=\"absent\">%s</span>", now ? (mt->kind == K_SCORE ? "—" : "-") : "not in run");
	} else {
		put_value(f, mt->kind, v);
		if (old)
			put_delta(f, mt->kind, mt->get(old), v);
	}
	fputs("</td>", f);
}

static void put_glance(FILE *f, const struct trend *t)
{
	const struct trend_run *sel = &t->runs[t->n_runs - 1], *base = t->has_base ? &t->base : NULL;

	fputs("<section id=\"glance\"><h2>At a glance</h2>\n<div class=\"tiles\">\n", f);
	for (size_t i = 0; i < N_METRICS; i++) {
		const struct metric *mt = &metrics[i];
		double v = mt->get(&sel->all);

		fprintf(f, "<div class=\"tile\" data-metric=\"%s\"><div class=\"name\">%s</div>", mt->id, mt->name);
		if (!isfinite(v)) {
			fprintf(f, "<div class=\"value absent\">%s</div></div>\n", mt->absent);
			continue;
		}
		fputs("<div class=\"value\">", f);
		put_value(f, mt->kind, v);
		fputs("</div>", f);
		if (base && isfinite(mt->get(&base->all))) {
			fputs("<div>", f);
			put_delta(f, mt->kind, mt->get(&base->all), v);
			fputs(" <span class=\"meta\">from ", f);
			put_value(f, mt->kind, mt->get(&base->all));
			fputs("</span></div>", f);
		}
		fputs("</div>\n", f);
	}
	fputs("</div>\n", f);
	if (!sel->all.n_linted)
		fputs("<p class=\"meta\">No lint results in this run (linted with <code>sandeval run</code> unless"
		      " <code>--no-lint</code>): lint pass rate and composite are absent, not estimated.</p>\n", f);
	fputs("<h3>By task class</h3>\n<table class=\"classes\"><tr><th>class</th><th class=\"num\">samples</th>", f);
	for (size_t k = 0; k < N_TREND; k++)
		fprintf(f, "<th class=\"num\">%s</th>", metrics[trend_metrics_idx[k]].name);
	fputs("</tr>\n", f);
	for (size_t j = 0; j < sel->n_classes + (base ? base->n_classes : 0); j++) {
		bool from_sel = j < sel->n_classes;
		const char *name = from_sel ? sel->classes[j].name : base->classes[j - sel->n_classes].name;
		const struct run_metrics *now = trend_class_of(sel, name), *old = base ? trend_class_of(base, name) : NULL;

		if (!from_sel && now)
			continue;	/* shown already */
		fputs("<tr><td>", f);
		html_text(f, class_label(name), 60);
		fprintf(f, "</td><td class=\"num\">%zu</td>", now ? now->n_samples : 0);
		for (size_t k = 0; k < N_TREND; k++)
			put_cell(f, &metrics[trend_metrics_idx[k]], old, now);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

/* --- trends --- */

/* The classes of the window's runs, the selected run's first; *n capped. */
static const char **window_classes(const struct trend *t, size_t *n, size_t *all)
{
	size_t cap = 0, len = 0;
	const char **v;

	for (size_t r = 0; r < t->n_runs; r++)
		cap += t->runs[r].n_classes;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t r = t->n_runs; r-- > 0;) {
		for (size_t j = 0; j < t->runs[r].n_classes; j++) {
			const char *name = t->runs[r].classes[j].name;
			bool seen = false;

			for (size_t i = 0; i < len && !seen; i++)
				seen = strcmp(v[i], name) == 0;
			if (!seen)
				v[len++] = name;
		}
	}
	*all = len;
	*n = len > MAX_CLASS_LINES ? MAX_CLASS_LINES : len;
	return v;
}

static int put_trends(FILE *f, const struct trend *t, struct sd_error *err)
{
	size_t n_cls = 0, all_cls = 0, nx = t->n_runs;
	const char **cls = window_classes(t, &n_cls, &all_cls);
	char **labels = calloc(nx, sizeof(*labels));
	double *ys = calloc((n_cls + 1) * nx, sizeof(*ys));
	struct svg_series *series = calloc(n_cls + 1, sizeof(*series));
	int ret = 0;

	if (!cls || !labels || !ys || !series) {
		ret = sd_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nx; i++) {
		labels[i] = strndup(t->runs[i].info.id, 8);	/* "r-" and 6 hex: enough to tell runs apart */
		if (!labels[i]) {
			ret = sd_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	fprintf(f, "<section id=\"trends\"><h2>Trends over the last %zu run%s</h2>\n<div class=\"legend\">"
		"<span><i class=\"swatch\" style=\"background:#111\"></i>all classes</span>", nx, nx == 1 ? "" : "s");
	for (size_t c = 0; c < n_cls; c++) {
		fprintf(f, "<span><i class=\"swatch\" style=\"background:%s\"></i>", palette[c % N_PALETTE]);
		html_text(f, class_label(cls[c]), 40);
		fputs("</span>", f);
	}
	fputs("</div>\n", f);
	if (all_cls > n_cls)
		fprintf(f, "<p class=\"meta\">%zu more classes are left off the lines; the table above has them all.</p>\n",
			all_cls - n_cls);
	fputs("<div class=\"charts\">\n", f);
	for (size_t k = 0; k < N_TREND; k++) {
		const struct metric *mt = &metrics[trend_metrics_idx[k]];
		char id[32], title[128];
		struct svg_line_chart chart = {
			.id = id, .title = title, .x_labels = (const char *const *)labels, .n_x = nx,
			.series = series, .n_series = n_cls + 1, .y_max = mt->kind == K_SCORE ? 1 : NAN,
			.decimals = mt->kind == K_SCORE ? 3 : 2, .empty = mt->absent,
		};

		snprintf(id, sizeof(id), "trend-%s", mt->id);
		snprintf(title, sizeof(title), "%s over the runs, overall and per task class", mt->name);
		for (size_t c = 0; c <= n_cls; c++) {
			double *y = ys + c * nx;

			for (size_t i = 0; i < nx; i++) {
				const struct run_metrics *m = c == 0 ? &t->runs[i].all :
					trend_class_of(&t->runs[i], cls[c - 1]);

				y[i] = m ? mt->get(m) : NAN;
			}
			series[c] = (struct svg_series){ .name = c == 0 ? "all classes" : class_label(cls[c - 1]),
							 .y = y, .color = c == 0 ? "#111" : palette[(c - 1) % N_PALETTE],
							 .bold = c == 0 };
		}
		fprintf(f, "<figure><figcaption>%s</figcaption>\n", mt->name);
		svg_line_chart(f, &chart);
		fputs("</figure>\n", f);
	}
	fputs("</div>\n</section>\n", f);
out:
	for (size_t i = 0; labels && i < nx; i++)
		free(labels[i]);
	free(labels);
	free(ys);
	free(series);
	free(cls);
	return ret;
}

/* --- distribution --- */

static int put_distribution(FILE *f, const struct trend *t, struct sd_error *err)
{
	const struct run_metrics *m = &t->runs[t->n_runs - 1].all;
	double *scores = malloc((t->n_samples ? t->n_samples : 1) * sizeof(*scores));
	size_t zero = 0, one = 0;

	if (!scores)
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct sample_result *r = &t->samples[i];

		scores[i] = r->harness_error ? NAN : r->score;
		zero += !r->harness_error && r->score == 0;
		one += !r->harness_error && r->score == 1;
	}
	fputs("<section id=\"distribution\"><h2>Score distribution of this run</h2>\n<figure>\n", f);
	svg_histogram(f, "score-histogram", "Histogram of the samples' scores with the median and p10 marked",
		      scores, t->n_samples, m->score.median, m->score.p10);
	fputs("<figcaption class=\"meta\">", f);
	if (m->n_scored)
		fprintf(f, "%zu scored samples: mean %.3f, median %.3f, p10 %.3f; %zu score 0, %zu score 1.",
			m->n_scored, m->score.mean, m->score.median, m->score.p10, zero, one);
	else
		fputs("No scored samples.", f);
	if (m->n_samples > m->n_scored)
		fprintf(f, " %zu harness errors are left out.", m->n_samples - m->n_scored);
	fputs("</figcaption></figure>\n</section>\n", f);
	free(scores);
	return 0;
}

/* --- lint categories --- */

static int cmp_bar(const void *a, const void *b)
{
	const struct svg_bar *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(x->label, y->label);
}

static int put_lint(FILE *f, const struct trend *t, struct sd_error *err)
{
	const struct run_metrics *m = &t->runs[t->n_runs - 1].all;
	struct svg_bar *bars = calloc(MAX_CATEGORIES + 1, sizeof(*bars));
	size_t n = 0, status[LINT_ERROR + 1] = { 0 }, findings = 0;

	if (!bars)
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct sample_result *r = &t->samples[i];

		status[(unsigned)r->lint <= LINT_ERROR ? r->lint : LINT_ERROR]++;
		for (size_t k = 0; k < r->n_findings; k++) {
			const char *cat = r->findings[k].category && r->findings[k].category[0] ?
					  r->findings[k].category : "uncategorized";
			size_t j = 0;

			while (j < n && strcmp(bars[j].label, cat) != 0)
				j++;
			if (j == n) {
				if (n == MAX_CATEGORIES) {
					j = MAX_CATEGORIES;
					bars[j].label = "other";
				} else {
					bars[n++].label = cat;
				}
			}
			bars[j].value++;
			findings++;
		}
	}
	if (bars[MAX_CATEGORIES].value > 0)
		bars[n++] = bars[MAX_CATEGORIES];
	qsort(bars, n, sizeof(*bars), cmp_bar);
	fputs("<section id=\"lint\"><h2>Lint findings by category</h2>\n<figure>\n", f);
	svg_bar_chart(f, "lint-categories", "Lint findings of this run by category", bars, n > 15 ? 15 : n,
		      m->n_linted ? "no findings: every linted sample was clean" : "no lint results");
	fputs("<figcaption class=\"meta\">", f);
	if (m->n_linted)
		fprintf(f, "%zu finding%s in %zu linted samples: %zu passed, %zu failed, %zu with a linter missing,"
			" %zu where a linter failed (the last two count as not passed).", findings, findings == 1 ? "" : "s",
			m->n_linted,
			status[LINT_PASSED], status[LINT_FAILED], status[LINT_UNAVAILABLE], status[LINT_ERROR]);
	else
		fputs("No lint results: this run was not linted.", f);
	fputs("</figcaption></figure>\n</section>\n", f);
	free(bars);
	return 0;
}

/* --- tasks: the most failing and the slowest --- */

struct task_stat {
	const char *task, *cls;
	size_t n, n_scored, n_passed;
	double score_sum, wall_ms, cpu_ms;
	int64_t peak;
	const char *failure;		/* the first failing sample's result */
};

static int cmp_result_task(const void *a, const void *b)
{
	const struct sample_result *x = *(const struct sample_result *const *)a;
	const struct sample_result *y = *(const struct sample_result *const *)b;

	return strcmp(str_or(x->task_id), str_or(y->task_id));
}

static double fail_rate(const struct task_stat *s)
{
	return s->n_scored ? 1.0 - (double)s->n_passed / (double)s->n_scored : 0;
}

static int cmp_failing(const void *a, const void *b)
{
	const struct task_stat *x = a, *y = b;
	double fx = fail_rate(x), fy = fail_rate(y);
	double mx = x->n_scored ? x->score_sum / (double)x->n_scored : 1;
	double my = y->n_scored ? y->score_sum / (double)y->n_scored : 1;

	if (fx != fy)
		return fx < fy ? 1 : -1;
	if (mx != my)
		return mx > my ? 1 : -1;
	return strcmp(x->task, y->task);
}

static int cmp_slow(const void *a, const void *b)
{
	const struct task_stat *x = a, *y = b;
	double wx = x->wall_ms / (double)x->n, wy = y->wall_ms / (double)y->n;

	if (wx != wy)
		return wx < wy ? 1 : -1;
	return strcmp(x->task, y->task);
}

static void put_task_cell(FILE *f, const struct task_stat *s)
{
	fputs("<tr><td><code>", f);
	html_text(f, s->task, 80);
	fputs("</code></td><td>", f);
	html_text(f, class_label(s->cls), 40);
	fputs("</td>", f);
}

static int put_tasks(FILE *f, const struct trend *t, struct sd_error *err)
{
	size_t n = t->n_samples, nt = 0, shown = 0;
	const struct sample_result **by = malloc((n ? n : 1) * sizeof(*by));
	struct task_stat *st = calloc(n ? n : 1, sizeof(*st));

	if (!by || !st) {
		free(by);
		free(st);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		by[i] = &t->samples[i];
	qsort(by, n, sizeof(*by), cmp_result_task);
	for (size_t i = 0; i < n; i++) {
		const struct sample_result *r = by[i];
		struct task_stat *s;

		if (i == 0 || strcmp(str_or(r->task_id), str_or(by[i - 1]->task_id)) != 0)
			st[nt++] = (struct task_stat){ .task = str_or(r->task_id), .cls = r->task_class };
		s = &st[nt - 1];
		s->n++;
		s->wall_ms += (double)r->latency_ms;
		s->cpu_ms += (double)r->cpu_ms;
		s->peak = r->peak_memory_bytes > s->peak ? r->peak_memory_bytes : s->peak;
		if (r->harness_error)
			continue;
		s->n_scored++;
		s->n_passed += r->passed;
		s->score_sum += r->score;
		if (!r->passed && !s->failure)
			s->failure = r->he_result ? r->he_result : "failed";
	}
	fputs("<section id=\"tasks\"><h2>Most failing tasks</h2>\n", f);
	qsort(st, nt, sizeof(*st), cmp_failing);
	fputs("<table data-table=\"failing-tasks\"><tr><th>task</th><th>class</th><th class=\"num\">passed</th>"
	      "<th class=\"num\">mean score</th><th>first failure</th></tr>\n", f);
	for (size_t i = 0; i < nt && shown < TOP_ROWS; i++) {
		if (fail_rate(&st[i]) == 0)
			break;
		put_task_cell(f, &st[i]);
		fprintf(f, "<td class=\"num\">%zu/%zu</td><td class=\"num\">%.3f</td><td><code>", st[i].n_passed,
			st[i].n_scored, st[i].score_sum / (double)st[i].n_scored);
		html_text(f, st[i].failure, 160);
		fputs("</code></td></tr>\n", f);
		shown++;
	}
	fputs("</table>\n", f);
	if (!shown)
		fputs("<p class=\"meta\">No task failed.</p>\n", f);
	fputs("<h2>Slowest tasks</h2>\n<table data-table=\"slowest-tasks\"><tr><th>task</th><th>class</th>"
	      "<th class=\"num\">samples</th><th class=\"num\">mean wall</th><th class=\"num\">mean CPU</th>"
	      "<th class=\"num\">peak memory</th></tr>\n", f);
	qsort(st, nt, sizeof(*st), cmp_slow);
	for (size_t i = 0; i < nt && i < TOP_ROWS; i++) {
		put_task_cell(f, &st[i]);
		fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%.3f s</td><td class=\"num\">%.3f s</td>"
			"<td class=\"num\">%.1f MiB</td></tr>\n", st[i].n, st[i].wall_ms / 1000.0 / (double)st[i].n,
			st[i].cpu_ms / 1000.0 / (double)st[i].n, (double)st[i].peak / 1048576.0);
	}
	fputs("</table>\n</section>\n", f);
	free(by);
	free(st);
	return 0;
}

/* --- ROUGE-L against the functional score --- */

struct pt_key {
	int x, y;			/* percent */
	bool passed;
};

static int cmp_pt_key(const void *a, const void *b)
{
	const struct pt_key *p = a, *q = b;

	if (p->x != q->x)
		return p->x - q->x;
	if (p->y != q->y)
		return p->y - q->y;
	return (int)p->passed - (int)q->passed;
}

static bool lexical_usable(const struct sample_result *r)
{
	return !r->harness_error && isfinite(r->rouge_l) && isfinite(r->score);
}

/* A sample the lexical metric misjudges: high ROUGE-L but failing, or low but passing. */
static bool misjudged(const struct sample_result *r)
{
	return (r->rouge_l >= ROUGE_SPLIT && !r->passed) || (r->rouge_l < ROUGE_SPLIT && r->passed);
}

static double gap(const struct sample_result *r)
{
	return fabs(r->rouge_l - (r->passed ? 1.0 : r->score));
}

static int cmp_gap(const void *a, const void *b)
{
	const struct sample_result *x = *(const struct sample_result *const *)a;
	const struct sample_result *y = *(const struct sample_result *const *)b;
	double gx = gap(x), gy = gap(y);

	if (gx != gy)
		return gx < gy ? 1 : -1;
	return strcmp(str_or(x->sample_id), str_or(y->sample_id));
}

static void put_disagreements(FILE *f, const struct sample_result **mis, size_t n_mis)
{
	qsort(mis, n_mis, sizeof(*mis), cmp_gap);
	fputs("<table data-table=\"lexical-disagreements\"><tr><th>sample</th><th>task</th>"
	      "<th class=\"num\">ROUGE-L</th><th class=\"num\">score</th><th>verdict</th><th>completion</th></tr>\n", f);
	for (size_t i = 0; i < n_mis && i < TOP_ROWS; i++) {
		const struct sample_result *r = mis[i];

		fputs("<tr><td><code>", f);
		html_text(f, r->sample_id, 60);
		fputs("</code></td><td><code>", f);
		html_text(f, r->task_id, 60);
		fprintf(f, "</code></td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td><td class=\"%s\">%s: ",
			r->rouge_l, r->score, r->passed ? "better" : "worse",
			r->passed ? "passes, low ROUGE-L" : "fails, high ROUGE-L");
		html_text(f, r->he_result ? r->he_result : r->passed ? "passed" : "failed", 100);
		fputs("</td><td><pre>", f);
		html_text(f, r->completion ? r->completion : "(no completion recorded)", EXCERPT_CHARS);
		fputs("</pre></td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static int put_lexical(FILE *f, const struct trend *t, struct sd_error *err)
{
	size_t n = t->n_samples, np = 0, usable = 0, n_mis = 0, over = 0;
	struct pt_key *keys = malloc((n ? n : 1) * sizeof(*keys));
	struct svg_point *pts = malloc((n ? n : 1) * sizeof(*pts));
	const struct sample_result **mis = malloc((n ? n : 1) * sizeof(*mis));
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, r_corr = NAN;

	if (!keys || !pts || !mis) {
		free(keys);
		free(pts);
		free(mis);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const struct sample_result *r = &t->samples[i];
		double x = fmin(fmax(r->rouge_l, 0), 1), y = fmin(fmax(r->score, 0), 1);

		if (!lexical_usable(r))
			continue;
		keys[usable++] = (struct pt_key){ .x = (int)lround(x * 100), .y = (int)lround(y * 100),
						  .passed = r->passed };
		sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
		if (misjudged(r)) {
			mis[n_mis++] = r;
			over += !r->passed;
		}
	}
	qsort(keys, usable, sizeof(*keys), cmp_pt_key);
	for (size_t i = 0; i < usable; i++) {	/* samples at the same spot: one circle, sized by their number */
		if (np && cmp_pt_key(&keys[i], &keys[i - 1]) == 0) {
			pts[np - 1].count++;
			continue;
		}
		pts[np++] = (struct svg_point){ .x = keys[i].x / 100.0, .y = keys[i].y / 100.0, .count = 1,
						.passed = keys[i].passed };
	}
	if (usable > 1) {
		double cov = sxy - sx * sy / (double)usable, vx = sxx - sx * sx / (double)usable;
		double vy = syy - sy * sy / (double)usable;

		if (vx > 1e-12 && vy > 1e-12)
			r_corr = cov / sqrt(vx * vy);
	}
	fputs("<section id=\"lexical\"><h2>Lexical against behavioural: ROUGE-L beside the functional score</h2>\n"
	      "<p>ROUGE-L measures how much a completion looks like the reference solution as text; the score"
	      " says whether it works (green: passed, red: failed). The shaded areas are where a lexical metric"
	      " would have misled: a near copy that fails (ROUGE-L &ge; 0.5, right), or a different text that"
	      " passes (ROUGE-L &lt; 0.5, the band at score 1, top left).</p>\n"
	      "<figure>\n", f);
	svg_scatter(f, "rouge-vs-score", "ROUGE-L of each sample against its functional score", pts, np,
		    "no sample has a ROUGE-L (no reference solutions)");
	fputs("<figcaption class=\"meta\">", f);
	if (usable) {
		fprintf(f, "%zu samples. Taking ROUGE-L &ge; %.1f as \"right\" misjudges %zu of them (%.0f%%): %zu fail"
			" despite high ROUGE-L, %zu pass despite low ROUGE-L.", usable, ROUGE_SPLIT, n_mis,
			100.0 * (double)n_mis / (double)usable, over, n_mis - over);
		if (isfinite(r_corr))
			fprintf(f, " Correlation of ROUGE-L with the score: %.2f.", r_corr);
	}
	if (n > usable)
		fprintf(f, " %zu samples have no ROUGE-L (no reference) or no score and are left out.", n - usable);
	fputs("</figcaption></figure>\n<h3>Where they disagree most</h3>\n", f);
	if (n_mis)
		put_disagreements(f, mis, n_mis);
	else
		fputs("<p class=\"meta\">No sample where ROUGE-L and the tests disagree.</p>\n", f);
	fputs("</section>\n", f);
	free(keys);
	free(pts);
	free(mis);
	return 0;
}

/* --- the page --- */

/* The selected run's anomaly alerts, above everything else (none: no section). */
static void put_alerts(FILE *f, const struct trend *t)
{
	if (!t->n_alerts)
		return;
	fputs("<section id=\"alerts\"><h2>Alerts</h2>\n<table data-table=\"alerts\"><tr><th>kind</th>"
	      "<th>per 1,000 samples</th><th>before</th><th>what</th></tr>\n", f);
	for (size_t i = 0; i < t->n_alerts; i++) {
		fputs("<tr><td>", f);
		html_text(f, t->alerts[i].kind, 40);
		fprintf(f, "</td><td>%.1f</td><td>%.1f</td><td>", t->alerts[i].rate, t->alerts[i].baseline);
		html_text(f, t->alerts[i].message, 600);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

int report_html_write(FILE *f, const struct trend *t, struct sd_error *err)
{
	const struct trend_run *sel;

	if (t->n_runs == 0)
		return sd_error_set(err, EINVAL, "no run to report");
	sel = &t->runs[t->n_runs - 1];
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>sandeval report ", f);
	html_text(f, sel->info.id, 40);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n", css);
	put_header(f, t);
	put_alerts(f, t);
	put_glance(f, t);
	if (put_trends(f, t, err) < 0 || put_distribution(f, t, err) < 0 || put_lint(f, t, err) < 0 ||
	    put_tasks(f, t, err) < 0 || put_lexical(f, t, err) < 0)
		return -1;
	fputs("<footer><p class=\"meta\">Written by <code>sandeval report</code>; docs/report.md explains every"
	      " chart. Arrows: ▲ better, ▼ worse, = same (for costs, lower is better).</p></footer>\n"
	      "</body></html>\n", f);
	return 0;
}

int report_html(const char *path, const struct trend *t, struct sd_error *err)
{
	FILE *f = report_open(path, err);
	int ret;

	if (!f)
		return -1;
	ret = report_html_write(f, t, err);
	if (ret < 0) {
		sd_error_wrap(err, "cannot write '%s'", path);
		report_close(f, path, NULL);
		return -1;
	}
	return report_close(f, path, err);
}
