/* cmd-lint.c - `sandeval lint`: lint every sample of a sample set in sandboxes, without running tests
 *
 * Processes: this one loads and checks all input and forks --jobs workers;
 * worker k lints the samples k, k + jobs, k + 2 jobs, ... through
 * lint_sample() and answers with each result as one JSON line on its pipe.
 * With --db, a run is recorded (config "command": "lint") whose samples carry
 * lint results and no tests, so that `sandeval gate --metric lint` can use it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "eval/lint.h"
#include "score/metrics.h"
#include "report/report.h"
#include "score/score.h"
#include "store/store.h"
#include "suite/task.h"
#include "base/util.h"
#include "version.h"

static const char lint_usage[] =
	"usage: sandeval lint --tasks FILE|DIR --samples FILE [--db PATH] [--jobs N] [--json FILE]\n"
	"                     [--lint-severity style|warning|error] [--model NAME] [--backend native]\n"
	"                     [--memory SIZE] [--quiet]\n"
	"\n"
	"Lint every sample in a fresh sandbox of its own, without running its tests:\n"
	"Python with flake8 and bandit, C with cppcheck and clang-tidy, JavaScript with\n"
	"eslint (docs/lint.md). A sample passes when no finding is at or above the\n"
	"severity threshold; a linter that is not installed makes it 'unavailable',\n"
	"never a pass.\n"
	"\n"
	"  --db PATH              record a lint-only run in this SQLite database\n"
	"  --jobs N               samples linted at once (default: the number of CPUs)\n"
	"  --json FILE            the figures and every sample's findings as JSON ('-': stdout)\n"
	"  --lint-severity LEVEL  the lowest severity that fails a sample (default warning)\n"
	"  --memory SIZE          memory of each lint sandbox (default 512M)\n"
	"\n"
	"Exit status: 0 when every sample was linted (findings are results, not errors);\n"
	"2 on bad input or when sandeval itself failed.\n";

enum { OPT_TASKS = 256, OPT_SAMPLES, OPT_DB, OPT_JOBS, OPT_JSON, OPT_SEVERITY, OPT_MODEL, OPT_BACKEND,
       OPT_MEMORY, OPT_QUIET, OPT_HELP };

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
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct lint_run {
	const char *tasks_path, *samples_path, *db, *json, *model;
	long jobs;
	bool quiet;
	struct lint_options lint;
	struct task_set tasks;
	struct sample_set samples;
	struct sample_result *results;
};

#define fail(...) cmd_fail("lint", __VA_ARGS__)

static int64_t epoch_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static int parse_options(int argc, char **argv, struct lint_run *r)
{
	struct sd_error err = { 0 };
	int opt, sev;
	long n;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
		const char *v = optarg;

		switch (opt) {
		case OPT_TASKS: r->tasks_path = v; break;
		case OPT_SAMPLES: r->samples_path = v; break;
		case OPT_DB: r->db = v; break;
		case OPT_JSON: r->json = v; break;
		case OPT_MODEL: r->model = v; break;
		case OPT_BACKEND: r->lint.backend = v; break;
		case OPT_QUIET: r->quiet = true; break;
		case OPT_JOBS:
			if (parse_long(v, 1, 64, &n, &err) < 0)
				return fail("--jobs: %s", err.msg);
			r->jobs = n;
			break;
		case OPT_SEVERITY:
			if ((sev = lint_severity_parse(v)) < 0)
				return fail("--lint-severity '%s': expected style, warning or error", v);
			r->lint.threshold = (enum lint_severity)sev;
			break;
		case OPT_MEMORY:
			if (parse_size(v, &r->lint.memory, &err) < 0 || r->lint.memory < (64u << 20))
				return fail("--memory: %s", err.msg[0] ? err.msg : "at least 64M");
			break;
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
	if (!r->tasks_path || !r->samples_path)
		return fail("--tasks and --samples are required (see 'sandeval lint --help')");
	return 0;
}

/* One sample's lint result, as sandeval run records it (no tests, no score). */
static int lint_one(const struct lint_run *r, size_t i, struct sample_result *res, struct sd_error *err)
{
	const struct sample *s = &r->samples.samples[i];
	const struct task *t = task_set_find(&r->tasks, s->task_id);

	memset(res, 0, sizeof(*res));
	res->task_id = strdup(s->task_id);
	res->sample_id = strdup(s->sample_id);
	res->model = s->model ? strdup(s->model) : r->model ? strdup(r->model) : NULL;
	res->task_class = strdup(t && t->class ? t->class : "default");
	res->completion = strdup(s->code ? s->code : "");
	res->score = res->score_public = res->score_holdout = NAN;
	res->rouge_l = NAN;
	res->composite = NAN;
	res->started_ms = epoch_ms();
	if (!t || !res->task_id || !res->sample_id || !res->task_class || !res->completion)
		return sd_error_set(err, ENOMEM, "out of memory");
	if (lint_sample(t, s, &r->lint, res, err) < 0)
		return -1;
	res->finished_ms = epoch_ms();
	res->latency_ms = res->finished_ms - res->started_ms;
	return 0;
}

static _Noreturn void worker_main(const struct lint_run *r, long k, int out)
{
	signal(SIGINT, SIG_IGN);
	for (size_t i = (size_t)k; i < r->samples.n; i += (size_t)r->jobs) {
		struct sample_result res;
		struct sd_error err = { 0 };
		json_t *j;
		char *text;

		if (lint_one(r, i, &res, &err) < 0) {
			fprintf(stderr, "sandeval: lint: %s\n", err.msg);
			_exit(3);
		}
		j = sample_result_to_json(&res);
		if (j)
			json_object_set_new(j, "index", json_integer((json_int_t)i));
		text = j ? json_dumps(j, JSON_COMPACT) : NULL;
		if (!text || write_all(out, text, strlen(text)) < 0 || write_all(out, "\n", 1) < 0)
			_exit(3);
		free(text);
		json_decref(j);
		sample_result_release(&res);
	}
	_exit(0);
}

/* Lint every sample with --jobs workers; results land in r->results. */
static int lint_all(struct lint_run *r)
{
	size_t n = r->samples.n, done = 0;
	struct pollfd *pfd = calloc((size_t)r->jobs, sizeof(*pfd));
	pid_t *pids = calloc((size_t)r->jobs, sizeof(*pids));
	char **buf = calloc((size_t)r->jobs, sizeof(*buf));
	size_t *len = calloc((size_t)r->jobs, sizeof(*len));
	int ret = 0, open_fds = 0;

	r->results = calloc(n + 1, sizeof(*r->results));
	if (!pfd || !pids || !buf || !len || !r->results) {
		ret = fail("out of memory");
		goto out;
	}
	fflush(NULL);
	for (long k = 0; k < r->jobs; k++) {
		int p[2];

		pfd[k].fd = -1;
		if (pipe2(p, O_CLOEXEC) < 0 || (pids[k] = fork()) < 0) {
			ret = fail("cannot start a worker: %s", strerror(errno));
			goto out;
		}
		if (pids[k] == 0) {
			close(p[0]);
			for (long q = 0; q < k; q++)
				if (pfd[q].fd >= 0)
					close(pfd[q].fd);
			worker_main(r, k, p[1]);
		}
		close(p[1]);
		pfd[k] = (struct pollfd){ .fd = p[0], .events = POLLIN };
		open_fds++;
	}
	while (open_fds > 0) {
		if (poll(pfd, (nfds_t)r->jobs, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = fail("poll: %s", strerror(errno));
			goto out;
		}
		for (long k = 0; k < r->jobs; k++) {
			char chunk[65536], *nl;
			ssize_t got;

			if (pfd[k].fd < 0 || !pfd[k].revents)
				continue;
			got = read(pfd[k].fd, chunk, sizeof(chunk));
			if (got <= 0) {
				close(pfd[k].fd);
				pfd[k].fd = -1;
				open_fds--;
				continue;
			}
			{
				char *nb = realloc(buf[k], len[k] + (size_t)got + 1);

				if (!nb) {
					ret = fail("out of memory");
					goto out;
				}
				buf[k] = nb;
			}
			memcpy(buf[k] + len[k], chunk, (size_t)got);
			len[k] += (size_t)got;
			while ((nl = memchr(buf[k], '\n', len[k]))) {
				json_t *o = json_loadb(buf[k], (size_t)(nl - buf[k]), 0, NULL);
				json_int_t i = json_integer_value(json_object_get(o, "index"));
				struct sample_result res;

				if (!o || i < 0 || (size_t)i >= n || r->results[i].sample_id ||
				    sample_result_from_json(o, &res) < 0) {
					json_decref(o);
					ret = fail("a worker sent a malformed result");
					goto out;
				}
				json_decref(o);
				r->results[i] = res;
				len[k] -= (size_t)(nl + 1 - buf[k]);
				memmove(buf[k], nl + 1, len[k]);
				if (!r->quiet && isatty(2))
					fprintf(stderr, "\rsandeval: lint: %zu/%zu samples", ++done, n);
				else
					done++;
			}
		}
	}
	if (!r->quiet && isatty(2))
		fputc('\n', stderr);
	if (done != n)
		ret = fail("a worker died: %zu of %zu samples linted", done, n);
out:
	for (long k = 0; pids && k < r->jobs; k++) {
		if (pfd && pfd[k].fd >= 0)
			close(pfd[k].fd);
		if (pids[k] > 0) {
			if (ret)
				kill(pids[k], SIGKILL);
			waitpid(pids[k], NULL, 0);
		}
		if (buf)
			free(buf[k]);
	}
	free(pfd);
	free(pids);
	free(buf);
	free(len);
	return ret;
}

static int record(const struct lint_run *r, struct sd_error *err)
{
	struct run_info info = { 0 };
	struct store *st = store_open(r->db, err);
	char *config;
	int ret = 0;

	if (!st)
		return -1;
	json_t *conf = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "command", "lint", "tasks", r->tasks_path,
				 "samples", r->samples_path, "lint_severity", lint_severity_name(r->lint.threshold),
				 "backend", r->lint.backend, "memory", (json_int_t)r->lint.memory);

	config = conf ? json_dumps(conf, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(conf);
	info.model = (char *)r->model;
	info.tasks_path = (char *)r->tasks_path;
	info.samples_path = (char *)r->samples_path;
	info.suite_hash = (char *)r->tasks.hash;
	info.config_json = config;
	info.formula_version = SCORE_FORMULA_VERSION;
	info.sandeval_version = SANDEVAL_VERSION;
	if (!config || store_run_create(st, &info, err) < 0)
		ret = config ? -1 : sd_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; ret == 0 && i < r->samples.n; i++)
		ret = store_sample_put(st, info.id, &r->results[i], err);
	if (ret == 0)
		ret = store_run_finish(st, info.id, epoch_ms(), err);
	if (ret == 0 && !r->quiet)
		fprintf(stderr, "sandeval: lint: recorded as run %s in '%s'\n", info.id, r->db);
	free(config);
	store_close(st);
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
	fprintf(f, "%-10s %zu, %zu task%s; threshold %s (docs/lint.md)\n", "samples", r->samples.n, r->tasks.n,
		r->tasks.n == 1 ? "" : "s", lint_severity_name(r->lint.threshold));
	for (size_t i = 0; i < r->samples.n; i++) {
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

	for (size_t i = 0; doc && samples && i < r->samples.n; i++) {
		json_t *j = sample_result_to_json(&r->results[i]), *keep;

		if (!j)
			continue;
		keep = json_pack("{s:O, s:O, s:O, s:O, s:O}", "sample_id", json_object_get(j, "sample_id"),
				 "task_id", json_object_get(j, "task_id"), "lint", json_object_get(j, "lint"),
				 "lint_detail", json_object_get(j, "lint_detail"), "findings", json_object_get(j, "findings"));
		json_array_append_new(samples, keep);
		json_decref(j);
	}
	if (!doc || !samples) {
		json_decref(doc);
		json_decref(samples);
		return sd_error_set(err, ENOMEM, "cannot write '%s': out of memory", r->json);
	}
	json_object_set_new(doc, "lint_severity", json_string(lint_severity_name(r->lint.threshold)));
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
	struct lint_run r = { 0 };
	struct lint_summary sum = { 0 };
	struct sd_error err = { 0 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	lint_options_init(&r.lint);
	r.jobs = ncpu > 0 ? ncpu : 1;
	ret = parse_options(argc, argv, &r);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (task_set_load(r.tasks_path, &r.tasks, &err) < 0 ||
	    sample_set_load(r.samples_path, &r.tasks, &r.samples, &err) < 0 || lint_check(&r.lint, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	cmd_auto_gc();
	if (!r.quiet)
		fprintf(stderr, "sandeval: lint: %zu tasks, %zu samples\n", r.tasks.n, r.samples.n);
	ret = lint_all(&r);
	if (ret)
		goto out;
	if (lint_summarize(r.results, r.samples.n, &sum, &err) < 0 || (r.db && record(&r, &err) < 0) ||
	    (r.json && write_json(&r, &sum, &err) < 0)) {
		ret = fail("%s", err.msg);
		goto out;
	}
	if (!r.quiet && !(r.json && strcmp(r.json, "-") == 0))
		print_table(stdout, &r, &sum);
out:
	lint_summary_release(&sum);
	if (r.results)
		for (size_t i = 0; i < r.samples.n; i++)
			sample_result_release(&r.results[i]);
	free(r.results);
	sample_set_release(&r.samples);
	task_set_release(&r.tasks);
	return ret;
}
