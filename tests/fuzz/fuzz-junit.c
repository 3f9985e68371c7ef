/* fuzz-junit.c - fuzz target: report_junit_write() of arbitrary names and details must stay well-formed XML
 *
 * The input is cut into a task id, a sample id, a test name and a detail
 * (each a C string, as the evaluator hands them over). The document must
 * parse with libxml2 (linked into this target only: the Makefile adds
 * `pkg-config --libs libxml-2.0`; with clang add it to the command line),
 * hold one testcase per test, and give back each name and detail exactly as
 * the independent model below says: invalid UTF-8 as U+FFFD, characters
 * XML 1.0 cannot hold dropped, everything else unchanged.
 */
#define _GNU_SOURCE
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "report/report-internal.h"
#include "base/utf8.h"

static char *copy(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	FUZZ_CHECK(s != NULL);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* What a parser must read back for S (the model of the escaping). */
static char *expected(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *out = malloc(3 * len + 1);

	FUZZ_CHECK(out != NULL);
	for (size_t i = 0; i < len;) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t q = utf8_valid_seq(u, len - i);
		unsigned cp;

		if (q == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		cp = q == 1 ? u[0] : q == 2 ? (u[0] & 0x1fu) << 6 | (u[1] & 0x3fu) :
		     q == 3 ? (u[0] & 0x0fu) << 12 | (u[1] & 0x3fu) << 6 | (u[2] & 0x3fu) : 0x10000;
		if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xfffe || cp == 0xffff) {
			i += q;
			continue;
		}
		memcpy(out + o, u, q);
		o += q;
		i += q;
	}
	out[o] = '\0';
	return out;
}

static xmlNode *child(xmlNode *n, const char *name, int nth)
{
	for (xmlNode *c = n ? n->children : NULL; c; c = c->next) {
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0 && nth-- == 0)
			return c;
	}
	return NULL;
}

static xmlNode *first_element(xmlNode *n)
{
	for (xmlNode *c = n ? n->children : NULL; c; c = c->next) {
		if (c->type == XML_ELEMENT_NODE)
			return c;
	}
	return NULL;
}

static void check_attr(xmlNode *n, const char *attr, const char *want)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);

	FUZZ_CHECK(v != NULL);
	FUZZ_CHECK(strcmp((const char *)v, want) == 0);
	xmlFree(v);
}

static void check_text(xmlNode *n, const char *want)
{
	xmlChar *v = xmlNodeGetContent(n);

	FUZZ_CHECK(v != NULL);
	FUZZ_CHECK(strcmp((const char *)v, want) == 0);
	xmlFree(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t q = size / 4, len = 0;
	struct test_result tests[2];
	struct sample_result r[2];
	struct report rep;
	char *task = copy(data, q), *sample = copy(data + q, q), *name = copy(data + 2 * q, q);
	char *detail = copy(data + 3 * q, size - 3 * q), *buf = NULL, *want, *want_name;
	FILE *f = open_memstream(&buf, &len);
	xmlDoc *doc;
	xmlNode *root, *suite, *tc;
	int status = size ? data[0] % (TS_HARNESS_ERROR + 1) : TS_FAILED;

	FUZZ_CHECK(f != NULL);
	memset(tests, 0, sizeof(tests));
	memset(r, 0, sizeof(r));
	tests[0].name = name;
	tests[0].status = (enum test_status)status;
	tests[0].detail = detail;
	tests[1].name = detail;
	tests[1].status = TS_HARNESS_ERROR;
	tests[1].detail = name;
	r[0].task_id = task;
	r[0].sample_id = sample;
	r[0].tests = tests;
	r[0].n_tests = 2;
	r[1].task_id = task;		/* the same task: one suite */
	r[1].sample_id = name;
	r[1].harness_error = true;	/* no tests: a bare testcase with the he_result */
	r[1].he_result = detail;
	rep = (struct report){ .results = r, .n = 2 };
	FUZZ_CHECK(report_junit_write(f, &rep, NULL) == 0);
	FUZZ_CHECK(fclose(f) == 0);

	doc = xmlReadMemory(buf, (int)len, "junit.xml", "UTF-8",
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		fprintf(stderr, "not well-formed:\n%s\n", buf);
	FUZZ_CHECK(doc != NULL);
	root = xmlDocGetRootElement(doc);
	FUZZ_CHECK(root && strcmp((const char *)root->name, "testsuites") == 0);
	suite = child(root, "testsuite", 0);
	FUZZ_CHECK(suite != NULL);
	FUZZ_CHECK(child(root, "testsuite", 1) == NULL);
	want = expected(task);
	check_attr(suite, "name", want);
	free(want);
	FUZZ_CHECK(child(suite, "testcase", 3) == NULL);

	/* test 0: the candidate's verdict */
	tc = child(suite, "testcase", 0);
	FUZZ_CHECK(tc != NULL);
	want = expected(sample);
	want_name = expected(name);
	{
		size_t full_len = strlen(want) + strlen(want_name) + 3;
		char *full = malloc(full_len);

		FUZZ_CHECK(full != NULL);
		snprintf(full, full_len, "%s: %s", want, want_name);
		check_attr(tc, "name", full);
		free(full);
	}
	free(want);
	if (status == TS_PASSED) {
		FUZZ_CHECK(first_element(tc) == NULL);
	} else if (status == TS_NOT_RUN) {
		/* --fail-fast: JUnit's skipped, its message the detail */
		xmlNode *v = first_element(tc);

		FUZZ_CHECK(v != NULL && strcmp((const char *)v->name, "skipped") == 0);
		want = expected(detail);
		check_attr(v, "message", want);
		free(want);
	} else {
		xmlNode *v = first_element(tc);

		FUZZ_CHECK(v != NULL);
		FUZZ_CHECK(strcmp((const char *)v->name, status == TS_HARNESS_ERROR ? "error" : "failure") == 0);
		check_attr(v, "type", test_status_name((enum test_status)status));
		want = expected(detail);
		check_text(v, want);
		free(want);
	}
	/* test 1: sandeval's fault, name and detail swapped */
	tc = child(suite, "testcase", 1);
	FUZZ_CHECK(tc != NULL && first_element(tc) != NULL);
	FUZZ_CHECK(strcmp((const char *)first_element(tc)->name, "error") == 0);
	check_attr(first_element(tc), "type", "harness_error");
	check_text(first_element(tc), want_name);
	free(want_name);
	/* the bare harness-error sample */
	tc = child(suite, "testcase", 2);
	FUZZ_CHECK(tc != NULL && first_element(tc) != NULL);
	FUZZ_CHECK(strcmp((const char *)first_element(tc)->name, "error") == 0);

	xmlFreeDoc(doc);
	free(buf);
	free(task);
	free(sample);
	free(name);
	free(detail);
	return 0;
}
