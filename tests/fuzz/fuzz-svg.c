/* fuzz-svg.c - fuzz target: the dashboard's charts (report-svg.c) of hostile titles, labels and names stay well-formed
 *
 * The report's strings come from the database: run ids, models, task
 * classes, lint categories, and through the sample tables the candidate's
 * own text. Here the input is cut at NUL bytes into a chart title, x labels,
 * series names, bar labels and the sentence of an empty chart, and its first
 * bytes give the values (any double: NaN and infinities included) and which
 * charts to draw. Every chart, and html_text() and html_attr() on their own,
 * are written into one document, which must:
 *   - parse with libxml2 as XML (linked into this target only: the Makefile
 *     adds `pkg-config --libs libxml-2.0`), so that inline SVG holds up in
 *     any parser;
 *   - hold only the elements and attributes report-svg.c writes: hostile
 *     text never becomes markup;
 *   - give back each text and attribute value exactly as the model below
 *     says (report-html-internal.h): & < > " ' as themselves, invalid UTF-8,
 *     control characters (C0 but tab and newline in text, C1) and the
 *     non-characters XML cannot hold (U+FFFE, U+FFFF) as U+FFFD, newline and
 *     tab as a space in attributes, at most MAX characters, then "…".
 */
#define _GNU_SOURCE
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "report/report-html-internal.h"
#include "base/utf8.h"

#define N_STR 16
#define FFFD "\xef\xbf\xbd"

/* What a parser must read back for S written by html_text/html_attr. */
static char *model(const char *s, size_t max, bool attr)
{
	size_t len = strlen(s), o = 0, chars = 0, i = 0;
	char *out = malloc(3 * len + 4);

	FUZZ_CHECK(out != NULL);
	while (i < len && (max == 0 || chars < max)) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t q = utf8_valid_seq(u, len - i);
		bool bad;

		chars++;
		if (q == 0) {
			memcpy(out + o, FFFD, 3);
			o += 3;
			i++;
			continue;
		}
		bad = (q == 1 && ((u[0] < 0x20 && u[0] != '\n' && u[0] != '\t') || u[0] == 0x7f)) ||
		      (q == 2 && u[0] == 0xc2 && u[1] < 0xa0) ||
		      (q == 3 && u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf));
		if (bad) {
			memcpy(out + o, FFFD, 3);
			o += 3;
		} else if (attr && q == 1 && (u[0] == '\n' || u[0] == '\t')) {
			out[o++] = ' ';
		} else {
			memcpy(out + o, u, q);
			o += q;
		}
		i += q;
	}
	if (i < len) {
		memcpy(out + o, "\xe2\x80\xa6", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

static bool known(const char *name, const char *const *set)
{
	for (size_t i = 0; set[i]; i++)
		if (strcmp(name, set[i]) == 0)
			return true;
	return false;
}

/* Every element and attribute beneath N is one report-svg.c writes. */
static void check_names(xmlNode *n)
{
	static const char *const elements[] = { "svg", "title", "rect", "text", "line", "g", "path", "circle", "p",
						 NULL };
	static const char *const attrs[] = { "data-chart", "data-empty", "role", "aria-labelledby", "viewBox",
					     "width", "height", "id", "class", "x", "y", "x1", "x2", "y1", "y2",
					     "text-anchor", "data-series", "fill", "stroke", "stroke-width", "d", "cx",
					     "cy", "r", "data-marker", "data-probe", NULL };

	for (xmlNode *c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!known((const char *)c->name, elements))
			fprintf(stderr, "unexpected element <%s>\n", c->name);
		FUZZ_CHECK(known((const char *)c->name, elements));
		for (xmlAttr *a = c->properties; a; a = a->next)
			FUZZ_CHECK(known((const char *)a->name, attrs));
		check_names(c);
	}
}

static xmlNode *next_element(xmlNode *n)
{
	while (n && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

static void check_text(xmlNode *n, const char *want)
{
	xmlChar *v = xmlNodeGetContent(n);

	FUZZ_CHECK(v != NULL);
	if (strcmp((const char *)v, want) != 0)
		fprintf(stderr, "got  '%s'\nwant '%s'\n", v, want);
	FUZZ_CHECK(strcmp((const char *)v, want) == 0);
	xmlFree(v);
}

static double number(const uint8_t **p, const uint8_t *end)
{
	double v = 0;

	if (end - *p >= (long)sizeof(v)) {
		memcpy(&v, *p, sizeof(v));
		*p += sizeof(v);
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	unsigned flags = size ? *p++ : 0;
	double nums[12], scores[6];
	char *rest, *str[N_STR];
	const char *labels[6];
	struct svg_series series[3];
	struct svg_bar bars[4];
	struct svg_point pts[3];
	size_t n_x = flags % 7, n_bars = (flags >> 3) % 5, max = 1 + (flags >> 5) * 7, len = 0, n = 0;
	char *buf = NULL, *want;
	FILE *f = open_memstream(&buf, &len);
	xmlDoc *doc;
	xmlNode *root, *c;

	FUZZ_CHECK(f != NULL);
	for (size_t i = 0; i < 12; i++)
		nums[i] = i < (size_t)(flags & 4 ? 12 : 0) ? number(&p, end) : (double)(i % 5) / 4;
	rest = malloc((size_t)(end - p) + 1);
	FUZZ_CHECK(rest != NULL);
	memcpy(rest, p, (size_t)(end - p));
	rest[end - p] = '\0';
	for (char *s = rest; n < N_STR; n++) {
		str[n] = s;
		s += strlen(s);
		if (s < rest + (end - p))
			s++;
	}

	fputs("<r>", f);
	/* the escaping on its own, as text and as an attribute */
	fputs("<p>", f);
	html_text(f, str[0], max);
	fputs("</p><p data-probe=\"", f);
	html_attr(f, str[0], max);
	fputs("\"/>", f);

	/* a line chart over N_X runs, three series */
	for (size_t i = 0; i < 6; i++)
		labels[i] = str[1 + i];
	for (size_t s = 0; s < 3; s++)
		series[s] = (struct svg_series){ .name = str[7 + s], .y = nums + 2 * s, .color = "#111", .bold = s == 0 };
	{
		double ys[3][6];

		for (size_t s = 0; s < 3; s++) {
			for (size_t i = 0; i < 6; i++)
				ys[s][i] = nums[(2 * s + i) % 12];
			series[s].y = ys[s];
		}
		svg_line_chart(f, &(struct svg_line_chart){ .id = "trend-score", .title = str[10], .x_labels = labels,
							    .n_x = n_x, .series = series, .n_series = 3,
							    .y_max = flags & 2 ? NAN : 1, .decimals = (int)(flags % 4),
							    .empty = str[11] });
	}
	for (size_t i = 0; i < 6; i++)
		scores[i] = nums[6 + i];
	svg_histogram(f, "score-histogram", str[10], scores, flags & 1 ? 6 : 0, nums[0], nums[1]);
	for (size_t i = 0; i < 4; i++)
		bars[i] = (struct svg_bar){ .label = str[12 + i], .value = nums[i] };
	svg_bar_chart(f, "lint-categories", str[10], bars, n_bars, str[11]);
	for (size_t i = 0; i < 3; i++)
		pts[i] = (struct svg_point){ .x = fmin(fmax(nums[i], 0), 1), .y = fmin(fmax(nums[3 + i], 0), 1),
					     .count = 1 + (size_t)(flags >> i) % 5, .passed = (flags >> i) & 1 };
	svg_scatter(f, "rouge-vs-score", str[10], pts, (flags >> 6) % 4, str[11]);
	svg_empty(f, "empty", str[10], str[11]);
	fputs("</r>", f);
	FUZZ_CHECK(fclose(f) == 0);

	doc = xmlReadMemory(buf, (int)len, "report.svg", "UTF-8", XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		fprintf(stderr, "not well-formed:\n%s\n", buf);
	FUZZ_CHECK(doc != NULL);
	root = xmlDocGetRootElement(doc);
	FUZZ_CHECK(root != NULL);
	check_names(root);

	c = next_element(root->children);	/* <p>: html_text */
	FUZZ_CHECK(c && strcmp((const char *)c->name, "p") == 0);
	want = model(str[0], max, false);
	check_text(c, want);
	free(want);
	c = next_element(c->next);		/* <p data-probe>: html_attr */
	FUZZ_CHECK(c && strcmp((const char *)c->name, "p") == 0);
	{
		xmlChar *v = xmlGetProp(c, (const xmlChar *)"data-probe");

		want = model(str[0], max, true);
		FUZZ_CHECK(v && strcmp((const char *)v, want) == 0);
		xmlFree(v);
		free(want);
	}
	/* five charts, each an <svg> whose first child is its <title> */
	want = model(str[10], 300, false);
	for (size_t i = 0; i < 5; i++) {
		xmlNode *t;

		c = next_element(c->next);
		FUZZ_CHECK(c && strcmp((const char *)c->name, "svg") == 0);
		t = next_element(c->children);
		FUZZ_CHECK(t && strcmp((const char *)t->name, "title") == 0);
		check_text(t, want);
		if (i == 2 && !xmlHasProp(c, (const xmlChar *)"data-empty")) {
			/* the bar chart drawn: each label, cut to 24 characters */
			xmlNode *tick = next_element(t->next);

			FUZZ_CHECK(n_bars > 0);
			for (size_t b = 0; b < n_bars; b++) {
				char *wb = model(bars[b].label, 24, false);

				FUZZ_CHECK(tick && strcmp((const char *)tick->name, "text") == 0);
				check_text(tick, wb);
				free(wb);
				tick = next_element(tick->next);	/* the bar */
				tick = next_element(tick ? tick->next : NULL);	/* its value */
				tick = next_element(tick ? tick->next : NULL);
			}
		}
	}
	FUZZ_CHECK(next_element(c->next) == NULL);
	free(want);

	xmlFreeDoc(doc);
	free(buf);
	free(rest);
	return 0;
}
