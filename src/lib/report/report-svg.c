/* report-svg.c - HTML escaping of untrusted text, and the dashboard's inline SVG charts (no script) */
#define _GNU_SOURCE
#include "report/report-html-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

static void put_escaped(FILE *f, const char *s, size_t max, bool attr)
{
	size_t len = s ? strlen(s) : 0, i = 0, chars = 0;

	while (i < len && (max == 0 || chars < max)) {
		const unsigned char *p = (const unsigned char *)s + i;
		size_t q = utf8_valid_seq(p, len - i);

		chars++;
		if (q == 0) {
			fputs(REPLACEMENT, f);
			i++;
			continue;
		}
		i += q;
		if ((q == 2 && p[0] == 0xc2 && p[1] < 0xa0) ||	/* C1 controls */
		    (q == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)) {	/* U+FFFE, U+FFFF: not XML */
			fputs(REPLACEMENT, f);
			continue;
		}
		if (q > 1) {
			fwrite(p, 1, q, f);
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\n':
		case '\t':
			fputc(attr ? ' ' : *p, f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fputs(REPLACEMENT, f);
			else
				fputc(*p, f);
		}
	}
	if (i < len)
		fputs("\xe2\x80\xa6", f);	/* … */
}

void html_text(FILE *f, const char *s, size_t max)
{
	put_escaped(f, s, max, false);
}

void html_attr(FILE *f, const char *s, size_t max)
{
	put_escaped(f, s, max, true);
}

/* --- frames --- */

#define M_LEFT 48
#define M_RIGHT 16
#define M_TOP 16
#define M_BOTTOM 44
#define PLOT_W (SVG_W - M_LEFT - M_RIGHT)
#define PLOT_H (SVG_H - M_TOP - M_BOTTOM)

static void svg_open_h(FILE *f, const char *id, const char *title, bool empty, int height)
{
	fprintf(f, "<svg data-chart=\"%s\"%s role=\"img\" aria-labelledby=\"t-%s\" viewBox=\"0 0 %d %d\""
		" width=\"%d\" height=\"%d\"><title id=\"t-%s\">",
		id, empty ? " data-empty=\"true\"" : "", id, SVG_W, height, SVG_W, height, id);
	html_text(f, title, 300);
	fputs("</title>\n", f);
}

static void svg_open(FILE *f, const char *id, const char *title, bool empty)
{
	svg_open_h(f, id, title, empty, SVG_H);
}

void svg_empty(FILE *f, const char *id, const char *title, const char *why)
{
	svg_open(f, id, title, true);
	fprintf(f, "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"%d\" height=\"%d\"/>"
		"<text class=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", SVG_W - 1, SVG_H - 1,
		SVG_W / 2, SVG_H / 2);
	html_text(f, why, 200);
	fputs("</text></svg>\n", f);
}

static double px_x(double v, double lo, double hi)
{
	return M_LEFT + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * PLOT_W;
}

static double px_y(double v, double lo, double hi)
{
	return M_TOP + PLOT_H - (hi > lo ? (v - lo) / (hi - lo) : 0) * PLOT_H;
}

/* Axes, horizontal grid lines and their labels from 0 to Y_MAX. */
static void y_axis(FILE *f, double y_max, int decimals, int ticks)
{
	char label[64];

	for (int i = 0; i <= ticks; i++) {
		double v = y_max * i / ticks, y = px_y(v, 0, y_max);

		snprintf(label, sizeof(label), "%.*f", decimals, v);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			M_LEFT, SVG_W - M_RIGHT, y, y, M_LEFT - 6, y + 4, label);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>"
		"<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
		M_LEFT, M_LEFT, M_TOP, M_TOP + PLOT_H, M_LEFT, SVG_W - M_RIGHT, M_TOP + PLOT_H, M_TOP + PLOT_H);
}

/* A y range that holds every value with a little room, for unbounded metrics. */
static double nice_max(double v)
{
	double p, m;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* --- line chart: one line per series over the runs --- */

void svg_line_chart(FILE *f, const struct svg_line_chart *c)
{
	double y_max = c->y_max, data_max = 0;
	size_t finite = 0, step;

	for (size_t s = 0; s < c->n_series; s++)
		for (size_t i = 0; i < c->n_x; i++)
			if (isfinite(c->series[s].y[i])) {
				finite++;
				data_max = fmax(data_max, c->series[s].y[i]);
			}
	if (finite == 0) {
		svg_empty(f, c->id, c->title, c->empty);
		return;
	}
	if (!isfinite(y_max))
		y_max = nice_max(data_max);
	svg_open(f, c->id, c->title, false);
	y_axis(f, y_max, c->decimals > 2 ? 2 : c->decimals, 4);
	step = c->n_x > 12 ? (c->n_x + 11) / 12 : 1;
	for (size_t i = 0; i < c->n_x; i++) {
		if (i % step && i != c->n_x - 1)
			continue;
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
			px_x((double)i, 0, (double)(c->n_x - 1)), M_TOP + PLOT_H + 16);
		html_text(f, c->x_labels[i], 10);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">runs, oldest to newest</text>\n",
		M_LEFT + PLOT_W / 2, SVG_H - 6);
	/* the overall series last, on top */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t s = 0; s < c->n_series; s++) {
			const struct svg_series *se = &c->series[s];
			bool pen = false;

			if (se->bold != (pass == 1))
				continue;
			fprintf(f, "<g class=\"series\" data-series=\"");
			html_attr(f, se->name, 64);
			fprintf(f, "\"><path class=\"mark line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" d=\"",
				se->color, se->bold ? "3" : "1.5");
			for (size_t i = 0; i < c->n_x; i++) {
				if (!isfinite(se->y[i])) {
					pen = false;
					continue;
				}
				fprintf(f, "%s%.1f %.1f ", pen ? "L" : "M", px_x((double)i, 0, (double)(c->n_x - 1)),
					px_y(se->y[i], 0, y_max));
				pen = true;
			}
			fputs("\"/>\n", f);
			for (size_t i = 0; i < c->n_x; i++) {
				char value[64];

				if (!isfinite(se->y[i]))
					continue;
				snprintf(value, sizeof(value), "%.*f", c->decimals, se->y[i]);
				fprintf(f, "<circle class=\"mark point\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>",
					px_x((double)i, 0, (double)(c->n_x - 1)), px_y(se->y[i], 0, y_max),
					se->bold ? "4" : "2.5", se->color);
				html_text(f, se->name, 64);
				fputs(", ", f);
				html_text(f, c->x_labels[i], 40);
				fprintf(f, ": %s</title></circle>\n", value);
			}
			fputs("</g>\n", f);
		}
	}
	fputs("</svg>\n", f);
}

/* --- histogram --- */

#define BINS 10

static void marker(FILE *f, const char *name, double v, int dy)
{
	double x = px_x(v, 0, 1);

	fprintf(f, "<line class=\"mark marker\" data-marker=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
		"<text class=\"marker-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s %.3f</text>\n",
		name, x, x, M_TOP, M_TOP + PLOT_H, x + (v > 0.8 ? -4 : 4), M_TOP + 12 + dy,
		v > 0.8 ? "end" : "start", name, v);
}

void svg_histogram(FILE *f, const char *id, const char *title, const double *scores, size_t n,
		   double median, double p10)
{
	size_t bins[BINS] = { 0 }, total = 0, top = 0;
	double bw = (double)PLOT_W / BINS, y_max;

	for (size_t i = 0; i < n; i++) {
		double v = scores[i];
		int b;

		if (!isfinite(v))
			continue;
		b = (int)floor(fmin(fmax(v, 0), 1) * BINS);
		bins[b >= BINS ? BINS - 1 : b]++;
		total++;
	}
	if (total == 0) {
		svg_empty(f, id, title, "no scored samples");
		return;
	}
	for (int b = 0; b < BINS; b++)
		top = bins[b] > top ? bins[b] : top;
	y_max = top <= 4 ? 4 : nice_max((double)top);
	svg_open(f, id, title, false);
	y_axis(f, y_max, 0, 4);
	for (int b = 0; b < BINS; b++) {
		double y = px_y((double)bins[b], 0, y_max);

		if (bins[b])
			fprintf(f, "<rect class=\"mark bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
				"<title>%.1f to %.1f%s: %zu sample%s</title></rect>\n",
				M_LEFT + b * bw + 1, y, bw - 2, M_TOP + PLOT_H - y, b / (double)BINS,
				(b + 1) / (double)BINS, b == BINS - 1 ? " (inclusive)" : "", bins[b],
				bins[b] == 1 ? "" : "s");
	}
	for (int b = 0; b <= BINS; b += 2)
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f</text>\n",
			M_LEFT + b * bw, M_TOP + PLOT_H + 16, b / (double)BINS);
	fprintf(f, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">score (samples per bin)</text>\n",
		M_LEFT + PLOT_W / 2, SVG_H - 6);
	if (isfinite(p10))
		marker(f, "p10", p10, 0);
	if (isfinite(median))
		marker(f, "median", median, fabs(median - p10) < 0.15 ? 16 : 0);
	fputs("</svg>\n", f);
}

/* --- horizontal bars --- */

void svg_bar_chart(FILE *f, const char *id, const char *title, const struct svg_bar *bars, size_t n,
		   const char *empty)
{
	double top = 0, row;
	const int left = 170, right = 60;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, bars[i].value);
	if (n == 0 || !(top > 0)) {
		svg_empty(f, id, title, empty);
		return;
	}
	row = fmin(28.0, (double)(SVG_H - 16) / (double)n);
	svg_open_h(f, id, title, false, 16 + (int)ceil(row * (double)n));
	for (size_t i = 0; i < n; i++) {
		double y = 8 + row * (double)i, w = (SVG_W - left - right) * bars[i].value / top;

		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", left - 6, y + row * 0.65);
		html_text(f, bars[i].label, 24);
		fprintf(f, "</text><rect class=\"mark bar\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
			left, y + 2, fmax(w, 1), row - 4);
		html_text(f, bars[i].label, 100);
		fprintf(f, ": %.0f</title></rect><text class=\"value\" x=\"%.1f\" y=\"%.1f\">%.0f</text>\n",
			bars[i].value, left + fmax(w, 1) + 4, y + row * 0.65, bars[i].value);
	}
	fputs("</svg>\n", f);
}

/* --- ROUGE-L against the functional score --- */

void svg_scatter(FILE *f, const char *id, const char *title, const struct svg_point *pts, size_t n,
		 const char *empty)
{
	double mx = px_x(0.5, 0, 1);

	if (n == 0) {
		svg_empty(f, id, title, empty);
		return;
	}
	svg_open(f, id, title, false);
	/* ROUGE-L says right, the tests say no (every failing sample scores
	 * below 1); and the reverse: a passing sample scores 1 */
	fprintf(f, "<rect class=\"quadrant over\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>"
		"<rect class=\"quadrant under\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\"/>\n",
		mx, M_TOP + 8, SVG_W - M_RIGHT - mx, PLOT_H - 8, M_LEFT, M_TOP - 8, mx - M_LEFT);
	fprintf(f, "<text class=\"quadrant-label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">high ROUGE-L, fails</text>"
		"<text class=\"quadrant-label\" x=\"%d\" y=\"%d\">&#8593; low ROUGE-L, passes</text>\n",
		SVG_W - M_RIGHT - 4, M_TOP + PLOT_H - 6, M_LEFT + 4, M_TOP + 22);
	y_axis(f, 1, 2, 4);
	for (int i = 0; i <= 4; i++)
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.2f</text>\n",
			px_x(i / 4.0, 0, 1), M_TOP + PLOT_H + 16, i / 4.0);
	fprintf(f, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">ROUGE-L against the reference"
		" (y: functional score)</text>\n", M_LEFT + PLOT_W / 2, SVG_H - 6);
	for (size_t i = 0; i < n; i++) {
		const struct svg_point *p = &pts[i];

		fprintf(f, "<circle class=\"mark point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"><title>%zu sample%s %s:"
			" ROUGE-L %.2f, score %.2f</title></circle>\n", p->passed ? "pass" : "fail",
			px_x(p->x, 0, 1), px_y(p->y, 0, 1), fmin(3.5 + 2 * sqrt((double)p->count - 1), 14.0),
			p->count, p->count == 1 ? "" : "s", p->passed ? "passed" : "failed", p->x, p->y);
	}
	fputs("</svg>\n", f);
}
