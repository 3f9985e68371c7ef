/* report-junit.c - a run's results as JUnit XML: a testsuite per task, a testcase per (sample, test)
 *
 * Every byte from a candidate or a task (names, details) is escaped, and what
 * XML 1.0 cannot hold at all is dropped (C0 controls other than tab, newline
 * and carriage return; U+FFFE, U+FFFF); invalid UTF-8 becomes U+FFFD. No
 * CDATA sections, so "]]>" in a detail is just text. The candidate's faults
 * are <failure type="STATUS">; sandeval's own are <error type="harness_error">.
 */
#include "report/report-internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/xml.h"

#define MESSAGE_MAX 200		/* bytes of a detail's first line in the message attribute */

/* <failure|error type=".." message="first line of detail">detail</failure|error> */
static void put_verdict(FILE *f, const char *elem, const char *type, const char *detail)
{
	const char *msg = detail && *detail ? detail : type;

	fprintf(f, "      <%s", elem);
	xml_attr(f, "type", type);
	fputs(" message=\"", f);
	if (xml_put(f, msg, strcspn(msg, "\n"), MESSAGE_MAX, true) || msg[strcspn(msg, "\n")])
		fputs("...", f);
	fputs("\">", f);
	xml_text(f, detail);
	fprintf(f, "</%s>\n", elem);
}

static void put_case_open(FILE *f, const struct sample_result *r, const char *test)
{
	fputs("    <testcase", f);
	xml_attr(f, "classname", r->task_id);
	fputs(" name=\"", f);
	if (r->sample_id)
		xml_put(f, r->sample_id, strlen(r->sample_id), SIZE_MAX, true);
	if (test) {
		fputs(": ", f);
		xml_put(f, test, strlen(test), SIZE_MAX, true);
	}
	fputc('"', f);
}

/* 'f'ailure, 'e'rror, 's'kipped or 'p'assed for one test. */
static char verdict_of(enum test_status s)
{
	return s == TS_PASSED ? 'p' : s == TS_HARNESS_ERROR ? 'e' : s == TS_NOT_RUN ? 's' : 'f';
}

/* The verdict of a sample without tests (it never reached them). */
static char bare_verdict(const struct sample_result *r)
{
	return r->harness_error ? 'e' : r->passed ? 'p' : 'f';
}

struct counts {
	size_t tests, failures, errors, skipped;
	double seconds;
};

static void count_sample(const struct sample_result *r, struct counts *c)
{
	c->seconds += (double)r->latency_ms / 1000.0;
	if (r->n_tests == 0) {
		char v = bare_verdict(r);

		c->tests++;
		c->failures += v == 'f';
		c->errors += v == 'e';
		return;
	}
	for (size_t t = 0; t < r->n_tests; t++) {
		char v = verdict_of(r->tests[t].status);

		c->tests++;
		c->failures += v == 'f';
		c->errors += v == 'e';
		c->skipped += v == 's';
	}
}

static void put_sample(FILE *f, const struct sample_result *r)
{
	if (r->n_tests == 0) {
		char v = bare_verdict(r);

		put_case_open(f, r, NULL);
		if (v == 'p') {
			fputs("/>\n", f);
			return;
		}
		fputs(">\n", f);
		put_verdict(f, v == 'e' ? "error" : "failure", v == 'e' ? "harness_error" : "failed",
			    r->he_result ? r->he_result : v == 'e' ? "no test ran" : NULL);
		fputs("    </testcase>\n", f);
		return;
	}
	for (size_t t = 0; t < r->n_tests; t++) {
		const struct test_result *tr = &r->tests[t];
		char v = verdict_of(tr->status);

		put_case_open(f, r, tr->name ? tr->name : "");
		if (v == 'p') {
			fputs("/>\n", f);
			continue;
		}
		if (v == 's') {
			fputs(">\n      <skipped", f);
			if (tr->detail)
				xml_attr(f, "message", tr->detail);
			fputs("/>\n    </testcase>\n", f);
			continue;
		}
		fputs(">\n", f);
		put_verdict(f, v == 'e' ? "error" : "failure", test_status_name(tr->status), tr->detail);
		fputs("    </testcase>\n", f);
	}
}

int report_junit_write(FILE *f, const struct report *rep, struct sd_error *err)
{
	struct report_groups gs;
	struct counts all = { 0 };

	if (report_group(rep, REPORT_BY_TASK, &gs, err) < 0)
		return -1;
	for (size_t i = 0; i < rep->n; i++)
		count_sample(&rep->results[i], &all);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
	xml_attr(f, "name", rep->run && rep->run->id[0] ? rep->run->id : "sandeval");
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
		all.tests, all.failures, all.errors, all.skipped, all.seconds);
	for (size_t j = 0; j < gs.n; j++) {
		struct counts c = { 0 };

		for (size_t m = 0; m < gs.g[j].len; m++)
			count_sample(&rep->results[gs.idx[gs.g[j].start + m]], &c);
		fputs("  <testsuite", f);
		xml_attr(f, "name", gs.g[j].key);
		fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
			c.tests, c.failures, c.errors, c.skipped, c.seconds);
		for (size_t m = 0; m < gs.g[j].len; m++)
			put_sample(f, &rep->results[gs.idx[gs.g[j].start + m]]);
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	report_groups_release(&gs);
	return 0;
}

int report_junit(const char *path, const struct report *rep, struct sd_error *err)
{
	FILE *f = report_open(path, err);
	int ret;

	if (!f)
		return -1;
	ret = report_junit_write(f, rep, err);
	if (ret < 0)
		sd_error_wrap(err, "cannot write '%s'", path);
	if (report_close(f, path, ret ? NULL : err) < 0)
		return -1;
	return ret;
}
