/* result.c - test status names, adding a test to a sample's result and its release */
#define _GNU_SOURCE
#include "suite/result.h"

#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[TS_PASSED] = "passed",
	[TS_FAILED] = "failed",
	[TS_ERROR] = "error",
	[TS_TIMEOUT] = "timeout",
	[TS_MEMORY] = "memory",
	[TS_CRASH] = "crash",
	[TS_COMPILE_ERROR] = "compile_error",
	[TS_OUTPUT_LIMIT] = "output_limit",
	[TS_NOT_RUN] = "not_run",
	[TS_HARNESS_ERROR] = "harness_error",
};

#define N_STATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *test_status_name(enum test_status s)
{
	if ((unsigned)s >= N_STATUS || !status_names[s])
		return "unknown";
	return status_names[s];
}

static int parse_name(const char *const *names, size_t n, const char *name);

int test_status_parse(const char *name)
{
	return parse_name(status_names, N_STATUS, name);
}

static const char *const lint_names[] = {
	[LINT_NONE] = "none",
	[LINT_PASSED] = "passed",
	[LINT_FAILED] = "failed",
	[LINT_UNAVAILABLE] = "unavailable",
	[LINT_ERROR] = "error",
};

static const char *const severity_names[] = {
	[LINT_SEV_STYLE] = "style",
	[LINT_SEV_WARNING] = "warning",
	[LINT_SEV_ERROR] = "error",
};

static int parse_name(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++) {
		if (names[i] && strcmp(names[i], name) == 0)
			return (int)i;
	}
	return -1;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *lint_status_name(enum lint_status s)
{
	return (unsigned)s < N_OF(lint_names) ? lint_names[s] : "unknown";
}

int lint_status_parse(const char *name)
{
	return parse_name(lint_names, N_OF(lint_names), name);
}

const char *lint_severity_name(enum lint_severity s)
{
	return (unsigned)s < N_OF(severity_names) ? severity_names[s] : "unknown";
}

int lint_severity_parse(const char *name)
{
	return parse_name(severity_names, N_OF(severity_names), name);
}

void lint_finding_release(struct lint_finding *f)
{
	if (!f)
		return;
	free(f->tool);
	free(f->rule);
	free(f->category);
	free(f->message);
	memset(f, 0, sizeof(*f));
}

void sample_result_add_test(struct sample_result *r, const char *name, enum test_status st, const char *detail,
			    bool in_process, const struct task_test *decl)
{
	struct test_result *n = realloc(r->tests, (r->n_tests + 1) * sizeof(*n));

	if (!n)
		return;
	r->tests = n;
	n = &r->tests[r->n_tests++];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name ? name : "?");
	n->status = st;
	n->detail = detail ? strdup(detail) : NULL;
	n->in_process = in_process;
	n->tier = decl ? decl->tier : TIER_CANONICAL;
	n->weight = decl ? decl->weight : 1.0;
	n->visibility = decl ? decl->visibility : VIS_PUBLIC;
}

/* The status of the tests named PREFIX/N: "pass", "fail", or NULL when one
 * is a harness error. A list without tests passes (EvalPlus's loop over no
 * input succeeds: MBPP+ 793 has no plus input). */
static const char *part_status(const struct sample_result *r, const char *prefix)
{
	size_t n = strlen(prefix);
	bool failed = false;

	for (size_t i = 0; i < r->n_tests; i++) {
		const struct test_result *t = &r->tests[i];

		if (!t->name || strncmp(t->name, prefix, n) != 0 || t->name[n] != '/')
			continue;
		if (t->status == TS_HARNESS_ERROR)
			return NULL;
		failed = failed || t->status != TS_PASSED;
	}
	return failed ? "fail" : "pass";
}

int sample_result_evalplus(struct sample_result *r)
{
	const char *base = r->harness_error ? NULL : part_status(r, "base");
	const char *plus = r->harness_error ? NULL : part_status(r, "plus");

	free(r->base_status);
	free(r->plus_status);
	r->base_status = base ? strdup(base) : NULL;
	r->plus_status = plus ? strdup(plus) : NULL;
	return (base && !r->base_status) || (plus && !r->plus_status) ? -1 : 0;
}

void sample_result_release(struct sample_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_tests; i++) {
		free(r->tests[i].name);
		free(r->tests[i].detail);
	}
	free(r->tests);
	free(r->task_id);
	free(r->sample_id);
	free(r->model);
	free(r->task_class);
	free(r->he_result);
	free(r->sandbox_ids);
	free(r->completion);
	free(r->lint_detail);
	free(r->base_status);
	free(r->plus_status);
	for (size_t i = 0; i < r->n_findings; i++)
		lint_finding_release(&r->findings[i]);
	free(r->findings);
	memset(r, 0, sizeof(*r));
}
