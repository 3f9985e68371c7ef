/* redteam-output.c - the outcomes of `sandeval redteam` as a table, a JSON array and JUnit XML */
#define _GNU_SOURCE
#include "redteam/redteam.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/xml.h"

void redteam_print_table(FILE *f, const struct redteam_result *rs, size_t n)
{
	size_t ok = 0;

	fprintf(f, "%-22s %-15s %-9s %-9s %s\n", "ATTACK", "CLASS", "CONTAINED", "DETECTED", "COUNTERS SEEN");
	for (size_t i = 0; i < n; i++) {
		const struct redteam_result *r = &rs[i];

		fprintf(f, "%-22s %-15s %-9s %-9s %s\n", r->name, r->klass, r->contained ? "yes" : "NO",
			r->detected ? "yes" : "NO", r->seen);
		if (r->why[0])
			fprintf(f, "    %s (expected %s)\n", r->why, r->expected);
		ok += r->contained && r->detected;
	}
	fprintf(f, "%zu of %zu attacks contained and detected\n", ok, n);
}

char *redteam_json(const struct redteam_result *rs, size_t n, const char *backend)
{
	json_t *a = json_array();
	char *text;

	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct redteam_result *r = &rs[i];
		json_t *expected = json_loads(r->expected, 0, NULL);

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:o, s:s, s:s?, s:I}",
						   "name", r->name, "class", r->klass, "backend", backend,
						   "description", r->description, "contained", r->contained,
						   "detected", r->detected, "seen", r->seen,
						   "expected", expected ? expected : json_null(), "why", r->why,
						   "status", r->status, "wall_ms", (json_int_t)r->wall_ms));
	}
	text = json_dumps(a, JSON_INDENT(2));
	json_decref(a);
	return text;
}

int redteam_junit(const char *path, const struct redteam_result *rs, size_t n, const char *backend,
		  struct sd_error *err)
{
	FILE *f = fopen(path, "w");
	size_t failed = 0;
	long long ms = 0;
	char name[64];

	if (!f)
		return sd_error_errno(err, errno, "cannot write '%s'", path);
	for (size_t i = 0; i < n; i++) {
		failed += !(rs[i].contained && rs[i].detected);
		ms += rs[i].wall_ms;
	}
	snprintf(name, sizeof(name), "sandeval redteam (%s)", backend);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite", f);
	xml_attr(f, "name", name);
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\">\n", n, failed, ms / 1000.0);
	for (size_t i = 0; i < n; i++) {
		const struct redteam_result *r = &rs[i];

		fputs("<testcase", f);
		xml_attr(f, "classname", r->klass);
		xml_attr(f, "name", r->name);
		fprintf(f, " time=\"%.3f\">", r->wall_ms / 1000.0);
		if (!(r->contained && r->detected)) {
			fputs("<failure", f);
			xml_attr(f, "message", !r->contained ? "not contained" : "not detected");
			fputc('>', f);
			xml_text(f, r->why);
			fputs("</failure>", f);
		}
		fputs("<system-out>", f);
		xml_text(f, r->seen);
		fputs("</system-out></testcase>\n", f);
	}
	fputs("</testsuite>\n</testsuites>\n", f);
	if (fclose(f) != 0)
		return sd_error_errno(err, errno, "cannot write '%s'", path);
	return 0;
}
