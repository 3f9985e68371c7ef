/* report-html-internal.h - what report-compare.c, report-html.c and report-svg.c share: verdicts, escaping, charts */
#ifndef SANDEVAL_REPORT_HTML_INTERNAL_H
#define SANDEVAL_REPORT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report-trend.h"

/* --- better or worse (report-compare.c) --- */

enum trend_kind { K_SCORE, K_SECONDS, K_BYTES };	/* scores: higher is better; costs: lower */
enum trend_verdict { V_NONE, V_BETTER, V_WORSE, V_SAME };

/* Costs within this share of each other are the same (timings are noisy). */
#define TREND_COST_TOLERANCE 0.05

/* Scores compare as printed (three decimals); V_NONE when either is NAN. */
enum trend_verdict trend_judge(enum trend_kind kind, double old, double now);
/* The metrics of class NAME in RUN, or NULL. */
const struct run_metrics *trend_class_of(const struct trend_run *run, const char *name);

/* --- HTML text (report-svg.c) --- */

/* Untrusted S as HTML text or attribute value: & < > " ' escaped, invalid
 * UTF-8, control characters and U+FFFE, U+FFFF (which XML cannot hold: the
 * charts are inline SVG) as U+FFFD (newlines and tabs kept in text, spaces
 * in attributes); at most MAX characters (0: all), then "…". */
void html_text(FILE *f, const char *s, size_t max);
void html_attr(FILE *f, const char *s, size_t max);

/* --- charts (report-svg.c) --- */

/* Every chart is an <svg data-chart="ID" role="img"> whose first child is a
 * <title>; what it draws of the data carries class="mark". A chart with
 * nothing to draw has data-empty="true" and says why in a <text>. */

#define SVG_W 560
#define SVG_H 240

struct svg_series {
	const char *name;		/* untrusted */
	const double *y;		/* one per x label; NAN: no value (a gap) */
	const char *color;
	bool bold;
};

struct svg_line_chart {
	const char *id, *title;		/* id: a trusted [a-z0-9-] name; title: untrusted */
	const char *const *x_labels;	/* untrusted */
	size_t n_x;
	const struct svg_series *series;
	size_t n_series;
	double y_max;			/* NAN: from the data */
	int decimals;			/* of the values shown */
	const char *empty;		/* what to say when there is no value at all */
};
void svg_line_chart(FILE *f, const struct svg_line_chart *c);

/* Histogram of the finite SCORES in [0, 1] (10 bins), median and p10 marked. */
void svg_histogram(FILE *f, const char *id, const char *title, const double *scores, size_t n,
		   double median, double p10);

struct svg_bar {
	const char *label;		/* untrusted */
	double value;
};
void svg_bar_chart(FILE *f, const char *id, const char *title, const struct svg_bar *bars, size_t n,
		   const char *empty);

struct svg_point {
	double x, y;			/* in [0, 1] */
	size_t count;			/* samples at this point */
	bool passed;
};
/* ROUGE-L (x) against the functional score (y); where the lexical metric
 * misleads is shaded: high ROUGE-L (>= 0.5) but failing (score < 1), and
 * low ROUGE-L but passing (the band at score 1). */
void svg_scatter(FILE *f, const char *id, const char *title, const struct svg_point *pts, size_t n,
		 const char *empty);

/* An empty chart: a title and a sentence. */
void svg_empty(FILE *f, const char *id, const char *title, const char *why);

#endif
