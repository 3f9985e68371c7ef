/* evaluator.c - the pipeline's context: how a sample is evaluated (sandbox settings, tests, lint) and what is kept between samples
 *
 * The handle keeps, per process that uses it: the runners read from the
 * runners directory (runner.json and the harness files of each language,
 * read on first use), lint's configuration (lint.c), and the warm-start
 * zygote. A forked worker has a copy of the handle: it reads nothing again,
 * but starts a zygote of its own, since only a zygote's starter may use it.
 */
#define _GNU_SOURCE
#include "eval/evaluator-internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/sandbox-pool.h"
#include "score/score.h"

/* The cache tag of the sandbox's Python (sys.implementation.cache_tag): the
 * host image's interpreter, as the Makefile found it when it compiled the
 * pycs (Debian 12's python3.11). Pycs of another tag are simply not used. */
#ifndef PYC_TAG
#define PYC_TAG "cpython-311"
#endif

void evaluator_options_init(struct evaluator_options *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = "native";
	o->timeout = 3.0;
	o->memory = 512ull << 20;
	o->lint = true;
	o->lint_threshold = LINT_SEV_WARNING;
	o->lint_memory = 512ull << 20;
	o->lint_tool_timeout = 30.0;
	o->lint_cache = true;
	o->gvisor_pool = 1;
}

const char *evaluator_runners_dir(void)
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
			/* installed: PREFIX/bin/sandeval, PREFIX/share/sandeval/runners */
			snprintf(dir, sizeof(dir), "%s/../share/sandeval/runners", exe);
			if (access(dir, R_OK) == 0)
				return dir;
		}
	}
	snprintf(dir, sizeof(dir), "/usr/share/sandeval/runners");
	return dir;
}

int64_t evaluator_now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* --- the runners: runners/<lang>/runner.json and the files it names --- */

static void runner_release(struct runner *r)
{
	free(r->lang);
	json_decref(r->def);
	for (size_t i = 0; i < r->n_files; i++) {
		free(r->files[i].name);
		free(r->files[i].text);
	}
	memset(r, 0, sizeof(*r));
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

/* Read the runner of LANG from DIR into R. 0, or -1 (R half filled). */
static int runner_load(struct runner *r, const char *dir, const char *lang, struct sd_error *err)
{
	json_t *files, *f;
	size_t i;

	r->lang = strdup(lang);
	if (!r->lang)
		return sd_error_set(err, ENOMEM, "out of memory");
	{
		cleanup_free char *path = xasprintf("%s/%s/runner.json", dir, lang);
		json_error_t je;

		r->def = path ? json_load_file(path, JSON_REJECT_DUPLICATES, &je) : NULL;
		if (!r->def) {
			return sd_error_set(err, ENOENT, "no runner for language '%s': %s:%d: %s (set SANDEVAL_RUNNERS)",
					    lang, path ? path : dir, je.line, je.text);
		}
	}
	if (!json_is_string(json_object_get(r->def, "source")) || !json_is_array(json_object_get(r->def, "run"))) {
		return sd_error_set(err, EINVAL, "%s/%s/runner.json: needs \"source\" and \"run\"", dir, lang);
	}
	if (add_file(r, dir, "start.py", "start.py", err) < 0 || add_file(r, dir, "driver.py", "driver.py", err) < 0 ||
	    add_file(r, dir, "python/plain.py", "plain.py", err) < 0 ||
	    add_file(r, dir, "evalplus_rules.py", "evalplus_rules.py", err) < 0 ||
	    add_file(r, dir, "program.py", "program.py", err) < 0 || add_file(r, dir, "watch.py", "watch.py", err) < 0 ||
	    add_pyc(r, dir, "driver", err) < 0 || add_pyc(r, dir, "python/plain", err) < 0 ||
	    add_pyc(r, dir, "evalplus_rules", err) < 0 || add_pyc(r, dir, "program", err) < 0 ||
	    add_pyc(r, dir, "watch", err) < 0)
		return -1;
	files = json_object_get(r->def, "files");
	json_array_foreach(files, i, f) {
		const char *name = json_string_value(f);
		cleanup_free char *rel = name ? xasprintf("%s/%s", lang, name) : NULL;

		if (!name || strchr(name, '/') || !rel) {
			return sd_error_set(err, EINVAL, "%s/%s/runner.json: files[%zu] must be a file name", dir, lang, i);
		}
		if (strcmp(name, "plain.py") == 0)
			continue;
		if (add_file(r, dir, rel, name, err) < 0)
			return -1;
		if (strlen(rel) > 3 && strcmp(rel + strlen(rel) - 3, ".py") == 0) {
			rel[strlen(rel) - 3] = '\0';
			if (add_pyc(r, dir, rel, err) < 0)
				return -1;
		}
	}
	return 0;
}

const struct runner *evaluator_runner(struct evaluator *ev, const char *lang, struct sd_error *err)
{
	struct runner *r;

	for (size_t i = 0; i < ev->n_runners; i++)
		if (strcmp(ev->runners[i].lang, lang) == 0)
			return &ev->runners[i];
	if (ev->n_runners == EVAL_MAX_RUNNERS || strchr(lang, '/') || !*lang) {
		sd_error_set(err, EINVAL, "no runner for language '%s'", lang);
		return NULL;
	}
	r = &ev->runners[ev->n_runners];
	if (runner_load(r, ev->runners_dir, lang, err) < 0) {
		runner_release(r);
		return NULL;
	}
	ev->n_runners++;
	return r;
}

/* --- warm starts --- */

/* W's zygote on RUNNERS_DIR/SCRIPT, started in this process on first use. */
static struct zygote *warm_get(struct warm *w, const char *runners_dir, const char *script)
{
	struct sd_error e = { 0 };

	if (w->owner != getpid()) {
		zygote_stop(w->zygote);	/* the parent's: only closes our copy */
		w->owner = getpid();
		w->why[0] = '\0';
		w->zygote = zygote_start(runners_dir, script, &e);
		if (!w->zygote)
			snprintf(w->why, sizeof(w->why), "%s", e.msg);
	}
	return w->zygote;
}

static void warm_release(struct warm *w)
{
	if (w->owner == getpid())
		zygote_stop(w->zygote);
	memset(w, 0, sizeof(*w));
}

/* --- the handle --- */

struct evaluator *evaluator_new(const struct evaluator_options *o, struct sd_error *err)
{
	struct evaluator *ev;

	if (sandbox_env_check(err) < 0)
		return NULL;
	ev = calloc(1, sizeof(*ev));
	if (!ev) {
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	ev->o = *o;
	ev->cancel_fd = -1;
	ev->runners_dir = o->runners_dir ? o->runners_dir : evaluator_runners_dir();
	if (o->backend && strcmp(o->backend, "gvisor") == 0 && o->gvisor_pool > 0 &&
	    !(ev->pool = sandbox_pool_new((size_t)o->gvisor_pool))) {
		free(ev);
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	return ev;
}

void evaluator_free(struct evaluator *ev)
{
	if (!ev)
		return;
	warm_release(&ev->tests_warm);
	warm_release(&ev->lint_warm);
	sandbox_pool_free(ev->pool);	/* this process's pre-started sandboxes destroyed */
	lint_cache_free(ev->lint_cache);
	for (size_t i = 0; i < ev->n_runners; i++)
		runner_release(&ev->runners[i]);
	lint_conf_free(ev->lint);
	free(ev);
}

const struct evaluator_options *evaluator_options(const struct evaluator *ev)
{
	return &ev->o;
}

void evaluator_set_limits(struct evaluator *ev, double timeout, uint64_t memory)
{
	ev->o.timeout = timeout;
	ev->o.memory = memory;
}

int eval_sandbox_run(const struct sandbox_config *cfg, struct sandbox_result *sr, struct sd_error *err)
{
	if (sandbox_run(cfg, sr, err) < 0)
		return -1;
	if (sr->status != SB_INTERRUPTED)
		return 0;
	sandbox_result_release(sr);
	return sd_error_set(err, EINTR, "interrupted");
}

void evaluator_set_cancel_fd(struct evaluator *ev, int fd)
{
	ev->cancel_fd = fd;
}

int evaluator_check_lint(struct evaluator *ev, struct sd_error *err)
{
	return ev->o.lint ? lint_load(ev, err) : 0;
}

struct zygote *evaluator_zygote(struct evaluator *ev, const struct task *task)
{
	const char *image = task->image ? task->image : ev->o.image;

	if (ev->o.cold || (ev->o.backend && strcmp(ev->o.backend, "native") != 0) ||
	    (image && strcmp(image, "host") != 0))
		return NULL;
	return warm_get(&ev->tests_warm, ev->runners_dir, "zygote.py");
}

struct zygote *evaluator_lint_zygote(struct evaluator *ev)
{
	if (ev->o.cold || (ev->o.backend && strcmp(ev->o.backend, "native") != 0))
		return NULL;
	return warm_get(&ev->lint_warm, ev->runners_dir, "lint/zygote.py");
}

void evaluator_add_costs(struct sample_result *out, const struct sandbox_result *sr)
{
	out->sandbox_ms += sr->run_ms;
	if (sr->sandbox_cpu_ms >= 0) {
		out->sandbox_cpu_ms += sr->sandbox_cpu_ms;
		out->prestart_cpu_ms += sr->prestart_cpu_ms > 0 ? sr->prestart_cpu_ms : 0;
	}
}

struct sandbox_pool *evaluator_pool(struct evaluator *ev)
{
	return ev->pool;
}

void evaluator_settle(struct evaluator *ev)
{
	sandbox_pool_settle(ev->pool);
}

const char *evaluator_warm_error(const struct evaluator *ev)
{
	const struct warm *w = &ev->tests_warm;

	return w->owner == getpid() && !w->zygote && w->why[0] ? w->why : NULL;
}

const char *evaluator_lint_warm_error(const struct evaluator *ev)
{
	const struct warm *w = &ev->lint_warm;

	return w->owner == getpid() && !w->zygote && w->why[0] ? w->why : NULL;
}

/* --- samples --- */

int evaluator_result_start(struct sample_result *out, const struct task *task, const struct sample *sample)
{
	memset(out, 0, sizeof(*out));
	out->task_id = strdup(task->id);
	out->sample_id = strdup(sample->sample_id);
	out->model = sample->model ? strdup(sample->model) : NULL;
	out->task_class = strdup(task->class ? task->class : "default");
	out->completion = strdup(sample->code ? sample->code : "");
	out->score = out->score_public = out->score_holdout = NAN;
	out->rouge_l = NAN;
	out->composite = NAN;
	out->started_ms = evaluator_now_ms();
	if (!out->task_id || !out->sample_id || !out->task_class || !out->completion ||
	    (sample->model && !out->model)) {
		sample_result_release(out);
		return -1;
	}
	return 0;
}

int evaluator_tests(struct evaluator *ev, const struct task *task, const struct sample *sample,
		    const json_t *expected, struct sample_result *out, struct sd_error *err)
{
	return eval_tests(ev, task, sample, expected, out, err);
}

int evaluator_sample(struct evaluator *ev, const struct task *task, const struct sample *sample,
		     const json_t *expected, struct sample_result *out, struct sd_error *err)
{
	struct sd_error e = { 0 };

	if (eval_tests(ev, task, sample, expected, out, err) < 0)
		return -1;
	if (!ev->o.lint)
		return 0;
	if (lint_sample(ev, task, sample, out, &e) < 0) {
		if (e.code == EINTR) {
			sample_result_release(out);
			return sd_error_set(err, EINTR, "%s", e.msg);
		}
		out->lint = LINT_ERROR;
		free(out->lint_detail);
		out->lint_detail = strdup(e.msg);
	}
	score_sample(out);	/* the composite, now that lint is known */
	return 0;
}

int evaluator_lint(struct evaluator *ev, const struct task *task, const struct sample *sample,
		   struct sample_result *out, struct sd_error *err)
{
	if (evaluator_result_start(out, task, sample) < 0)
		return sd_error_set(err, ENOMEM, "out of memory");
	if (lint_sample(ev, task, sample, out, err) < 0) {
		sample_result_release(out);
		return -1;
	}
	out->finished_ms = evaluator_now_ms();
	out->latency_ms = out->finished_ms - out->started_ms;
	return 0;
}

int evaluator_oracle(struct evaluator *ev, const struct task *task, json_t **expected, struct sd_error *err)
{
	return eval_oracle(ev, task, expected, err);
}

json_t *evaluator_oracle_failure(const char *why)
{
	return eval_oracle_failure(why);
}

int evaluator_prepare(struct evaluator *ev, struct task *tasks, size_t n, struct sd_error *err)
{
	return eval_prepare(ev, tasks, n, err);
}
