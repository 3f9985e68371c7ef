/* cmd-lint.c - `sandeval lint`: lint every sample of a sample set in sandboxes, without running tests
 *
 * A lint-only run of the pipeline (eval/run.h, run_options.tests false): each
 * sample in a fresh sandbox of its own, through the same worker pool as
 * `sandeval run`, each result recorded as it arrives. With --db the run is
 * kept (config "command": "lint"; its samples carry lint results and no
 * tests, so that `sandeval gate --metric lint` can use it); without, it is
 * recorded in a database in memory, for the figures printed at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd.h"
#include "eval/run.h"
#include "report/report.h"
#include "score/metrics.h"
#include "store/store.h"
#include "version.h"

static const char lint_usage[] =
	"usage: sandeval lint --tasks FILE|DIR --samples FILE [--db PATH|URL] [--jobs N] [--json FILE]\n"
	"                     [--lint-severity style|warning|error] [--model NAME] [--backend native]\n"
	"                     [--memory SIZE] [--sanitize] [--cold] [--quiet]\n"
	"\n"
	"Lint every sample in a fresh sandbox of its own, without running its tests:\n"
	"Python with flake8 and bandit, C with cppcheck and clang-tidy, JavaScript with\n"
	"eslint (docs/lint.md). A sample passes when no finding is at or above the\n"
	"severity threshold; a linter that is not installed makes it 'unavailable',\n"
	"never a pass.\n"
	"\n"
	"  --db PATH|URL          record a lint-only run in this SQLite database, or\n"
	"                         in PostgreSQL (a postgresql:// URL, docs/scale.md)\n"
	"  --jobs N               samples linted at once (default: the number of CPUs + 1)\n"
	"  --json FILE            the figures and every sample's findings as JSON ('-': stdout)\n"
	"  --lint-severity LEVEL  the lowest severity that fails a sample (default warning)\n"
	"  --memory SIZE          memory of each lint sandbox (default 512M)\n"
	"  --sanitize             lint each sample's code cleaned as 'sandeval run --sanitize'\n"
	"                         cleans it (docs/sanitize.md); --json says which changed\n"
	"  --cold                 lint every sample afresh: python3 and each linter executed\n"
	"                         in its sandbox, no report of an identical program reused\n"
	"\n"
	"Exit status: 0 when every sample was linted (findings are results, not errors);\n"
	"2 on bad input or when sandeval itself failed; 128 + the signal's number after\n"
	"SIGINT, SIGTERM or SIGHUP (the lint sandboxes running stopped and torn down).\n";

enum { OPT_TASKS = 256, OPT_SAMPLES, OPT_DB, OPT_JOBS, OPT_JSON, OPT_SEVERITY, OPT_MODEL, OPT_BACKEND,
       OPT_MEMORY, OPT_COLD, OPT_QUIET, OPT_HELP, OPT_SANITIZE };

static const struct option options[] = {
	{ "tasks", required_argument, NULL, OPT_TASKS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "db", required_argument, NULL, OPT_DB },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "lint-severity", required_argument, NULL, OPT_SEVERITY },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "cold", no_argument, NULL, OPT_COLD },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "sanitize", no_argument, NULL, OPT_SANITIZE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct lint_run {
	struct run_options o;
	const char *db, *json;
	bool quiet, tty;
	const struct sample_set *samples;	/* the run's, once loaded */
	size_t n_tasks, suite_tasks;	/* tasks with a sample, of the suite's */
	struct sample_result *results;		/* in the samples' order */
};

#define fail(...) cmd_fail("lint", __VA_ARGS__)

static int parse_options(int argc, char **argv, struct lint_run *r)
{
	struct evaluator_options *e = &r->o.eval;
	struct sd_error err = { 0 };
	int opt, sev;
	long n;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		const char *v = optarg;

		switch (opt) {
		case OPT_TASKS: r->o.tasks_path = v; break;
		case OPT_SAMPLES: r->o.samples_path = v; break;
		case OPT_DB: r->db = v; break;
		case OPT_JSON: r->json = v; break;
		case OPT_MODEL: r->o.model = v; break;
		case OPT_BACKEND: e->backend = v; break;
		case OPT_QUIET: r->quiet = true; break;
		case OPT_SANITIZE: r->o.sanitize = true; break;
		case OPT_COLD: e->cold = true; e->lint_cache = false; break;
		case OPT_JOBS:
			if (parse_long(v, 1, 64, &n, &err) < 0)
				return fail("--jobs: %s", err.msg);
			r->o.jobs = (size_t)n;
			break;
		case OPT_SEVERITY:
			if ((sev = lint_severity_parse(v)) < 0)
				return fail("--lint-severity '%s': expected style, warning or error", v);
			e->lint_threshold = (enum lint_severity)sev;
			break;
		case OPT_MEMORY:
			if (parse_size(v, &e->lint_memory, &err) < 0 || e->lint_memory < (64u << 20))
				return fail("--memory: %s", err.msg[0] ? err.msg : "at least 64M");
			break;
		case 'h':
		case OPT_HELP:
			fputs(lint_usage, stdout);
			return -1;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval lint --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s' (see 'sandeval lint --help')", argv[optind]);
	if (!r->o.tasks_path || !r->o.samples_path)
		return fail("--tasks and --samples are required (see 'sandeval lint --help')");
	return 0;
}

static void on_event(void *arg, const struct run *run, const struct run_event *ev)
{
	struct lint_run *r = arg;

	switch (ev->kind) {
	case RUN_LOADED:
		if (!r->quiet)
			fprintf(stderr, "sandeval: lint: %zu tasks, %zu samples\n", run_tasks(run)->n,
				run_samples(run)->n);
		break;
	case RUN_STARTED:
		break;
	case RUN_PROGRESS:
		if (!r->quiet && r->tty && ev->done)
			fprintf(stderr, "\rsandeval: lint: %zu/%zu samples", ev->done, ev->total);
		if (!r->quiet && r->tty && ev->done && ev->done == ev->total)
			fputc('\n', stderr);
		break;
	case RUN_WARNING:
		fprintf(stderr, "sandeval: lint: warning: %s\n", ev->text);
		break;
	}
}

static const struct sample_result *sort_base;

static int cmp_by_id(const void *a, const void *b)
{
	return strcmp(sort_base[*(const size_t *)a].sample_id, sort_base[*(const size_t *)b].sample_id);
}

/* The run's results from ST, in the order of the samples file. */
static int load_results(struct lint_run *r, struct store *st, const struct run *run, struct sd_error *err)
{
	struct sample_result *v = NULL;
	size_t n = 0, *idx;
	int ret = 0;

	if (store_samples_load(st, run_info(run)->id, &v, &n, err) < 0)
		return -1;
	r->results = calloc(r->samples->n + 1, sizeof(*r->results));
	idx = calloc(n + 1, sizeof(*idx));
	if (!r->results || !idx)
		ret = sd_error_set(err, ENOMEM, "out of memory");
	else if (n != r->samples->n)
		ret = sd_error_set(err, EIO, "%zu of %zu samples linted", n, r->samples->n);
	/* sample ids are unique within a set: find each sample's result by id */
	for (size_t i = 0; ret == 0 && i < n; i++)
		idx[i] = i;
	sort_base = v;
	if (ret == 0)
		qsort(idx, n, sizeof(*idx), cmp_by_id);
	for (size_t i = 0; ret == 0 && i < r->samples->n; i++) {
		size_t lo = 0, hi = n;
		const char *key = r->samples->samples[i].sample_id;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(v[idx[mid]].sample_id, key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || strcmp(v[idx[lo]].sample_id, key) != 0 || !v[idx[lo]].sample_id)
			ret = sd_error_set(err, EIO, "sample '%s' was not linted", key);
		else
			r->results[i] = v[idx[lo]];
	}
	if (ret < 0)
		for (size_t i = 0; i < n; i++)
			sample_result_release(&v[i]);
	free(v);
	free(idx);
	if (ret < 0) {
		free(r->results);
		r->results = NULL;
	}
	return ret;
}

/* Untrusted S on a terminal: control bytes as '?', at most 300 bytes. */
static void put(FILE *f, const char *s)
{
	for (size_t i = 0; s && s[i] && i < 300; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], f);
}

static void print_table(FILE *f, const struct lint_run *r, const struct lint_summary *sum)
{
	fprintf(f, "%-10s %zu, %zu task%s", "samples", r->samples->n, r->n_tasks, r->n_tasks == 1 ? "" : "s");
	if (r->n_tasks < r->suite_tasks)
		fprintf(f, " of %zu", r->suite_tasks);
	fprintf(f, "; threshold %s (docs/lint.md)\n", lint_severity_name(r->o.eval.lint_threshold));
	for (size_t i = 0; i < r->samples->n; i++) {
		const struct sample_result *res = &r->results[i];
		const struct lint_finding *top = res->n_findings ? &res->findings[0] : NULL;

		if (res->lint == LINT_PASSED)
			continue;
		fputs("  ", f);
		put(f, res->sample_id);
		fprintf(f, ": %s", lint_status_name(res->lint));
		if (res->lint == LINT_FAILED && top) {
			fprintf(f, ": %s ", top->tool);
			put(f, top->rule);
			fprintf(f, " line %d: ", top->line);
			put(f, top->message);
		} else if (res->lint_detail) {
			fputs(": ", f);
			put(f, res->lint_detail);
		}
		fputc('\n', f);
	}
	lint_summary_print(f, sum);
}

static int write_json(const struct lint_run *r, const struct lint_summary *sum, struct sd_error *err)
{
	json_t *doc = lint_summary_json(sum), *samples = json_array();
	FILE *f;
	int ret = 0;

	for (size_t i = 0; doc && samples && i < r->samples->n; i++) {
		json_t *j = sample_result_to_json(&r->results[i]), *keep;

		if (!j)
			continue;
		keep = json_pack("{s:O, s:O, s:O, s:O, s:O}", "sample_id", json_object_get(j, "sample_id"),
				 "task_id", json_object_get(j, "task_id"), "lint", json_object_get(j, "lint"),
				 "lint_detail", json_object_get(j, "lint_detail"), "findings", json_object_get(j, "findings"));
		if (keep && r->samples->sanitized)	/* the code linted is not the code given */
			json_object_set_new(keep, "sanitized", json_boolean(r->samples->samples[i].given != NULL));
		json_array_append_new(samples, keep);
		json_decref(j);
	}
	if (!doc || !samples) {
		json_decref(doc);
		json_decref(samples);
		return sd_error_set(err, ENOMEM, "cannot write '%s': out of memory", r->json);
	}
	json_object_set_new(doc, "lint_severity", json_string(lint_severity_name(r->o.eval.lint_threshold)));
	json_object_set_new(doc, "samples", samples);
	f = strcmp(r->json, "-") == 0 ? stdout : fopen(r->json, "we");
	if (!f) {
		json_decref(doc);
		return sd_error_errno(err, errno, "cannot create '%s'", r->json);
	}
	if (json_dumpf(doc, f, JSON_INDENT(2)) < 0 || fputc('\n', f) == EOF)
		ret = sd_error_set(err, EIO, "cannot write '%s'", r->json);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		ret = sd_error_errno(err, errno, "cannot write '%s'", r->json);
	json_decref(doc);
	return ret;
}

int cmd_lint(int argc, char **argv)
{
	struct lint_run r = { .tty = isatty(2) };
	struct lint_summary sum = { 0 };
	struct sd_error err = { 0 };
	struct store *st = NULL;
	struct run *run = NULL;
	int ret, sfd = -1, late = 0;

	run_options_init(&r.o);
	r.o.tests = false;
	r.o.partial = true;	/* lint judges each sample alone: no figure needs every task */
	r.o.version = SANDEVAL_VERSION;
	r.o.event = on_event;
	r.o.arg = &r;
	ret = parse_options(argc, argv, &r);
	if (ret)
		return ret < 0 ? 0 : ret;
	if ((r.json && check_writable(r.json, false, &err) < 0) ||
	    (r.db && !strstr(r.db, "://") && check_writable(r.db, true, &err) < 0))
		return fail("%s", err.msg);
	/* Ctrl-C, SIGTERM, SIGHUP: the lint sandboxes running are stopped and
	 * torn down (docs/lint.md#interrupting-it) */
	r.o.cancel_fd = sfd = cmd_interrupts();
	if (!(run = run_new(&r.o, &err)) || run_load(run, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	r.samples = run_samples(run);
	r.n_tasks = run_tasks_attempted(run);
	r.suite_tasks = run_tasks(run)->n;
	cmd_auto_gc();
	if (!(st = store_open(r.db ? r.db : ":memory:", &err)) || run_execute(run, st, &err) < 0) {
		int sig = cmd_interrupts_end(sfd);

		sfd = -1;
		if (sig && err.code == EINTR) {
			fail("interrupted by SIG%s: no lint sandbox is left running", sigabbrev_np(sig));
			ret = 128 + sig;
		} else {
			ret = fail("%s", err.msg);
		}
		goto out;
	}
	late = cmd_interrupts_end(sfd);	/* as the last sample ended: the report is written */
	sfd = -1;
	if (load_results(&r, st, run, &err) < 0 || lint_summarize(r.results, NULL, r.samples->n, &sum, &err) < 0 ||
	    (r.json && write_json(&r, &sum, &err) < 0)) {
		ret = fail("%s", err.msg);
		goto out;
	}
	if (r.db && !r.quiet)
		fprintf(stderr, "sandeval: lint: recorded as run %s in '%s'\n", run_info(run)->id, store_name(st));
	if (!r.quiet && !(r.json && strcmp(r.json, "-") == 0))
		print_table(stdout, &r, &sum);
out:
	lint_summary_release(&sum);
	if (r.results)
		for (size_t i = 0; i < r.samples->n; i++)
			sample_result_release(&r.results[i]);
	free(r.results);
	run_free(run);
	store_close(st);
	cmd_interrupts_end(sfd);
	return late ? 128 + late : ret;
}
