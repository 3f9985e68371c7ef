/* serve-eval.c - /v1/evaluate and /v1/runs/{id}: a whole run through run_execute(), answered as `sandeval run` reports it
 *
 * The request's tasks (a suite the server was given by name, or tasks
 * inline) and samples are loaded with the suite layer's JSON loaders, so
 * that a bad field is named as a file's would be; the run is the pipeline's
 * own (eval/run.h: canaries, oracle, every sample in a fresh sandbox,
 * recorded in the store as it finishes). The answer is the --json summary
 * and the --out records of `sandeval run`, built by the report layer from
 * the store, so that GET /v1/runs/{id} answers the same document later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonl.h"
#include "base/util.h"
#include "eval/breaker.h"
#include "report/prometheus.h"
#include "eval/canary.h"
#include "eval/evaluator.h"
#include "eval/run.h"
#include "report/report.h"
#include "serve/serve-internal.h"
#include "store/store.h"
#include "suite/task.h"

#define EV_MAX_KS 16

struct ev_request {
	json_t *root;
	json_t *tasks, *samples;
	const char *suite_path;		/* tasks named a suite */
	int ks[EV_MAX_KS];
	size_t n_ks;
	const char *model;
	bool lint;
	bool sanitize;			/* --sanitize (docs/sanitize.md) */
	bool fail_fast;			/* --fail-fast (docs/run.md) */
	double timeout;			/* 0: the default */
	uint64_t memory;
	long long seed;
	bool seed_given;
	enum run_holdout holdout;
	unsigned given;
};


/* The request's fields; the tasks and samples themselves are loaded later. */
static int ev_parse(const char *body, size_t len, const struct serve_options *o, struct ev_request *rq,
		    struct sd_error *err)
{
	json_error_t jerr;
	json_t *root, *v;

	memset(rq, 0, sizeof(*rq));
	rq->lint = true;
	root = rq->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return sd_error_set(err, EINVAL, "the body is not JSON: %s (line %d, column %d)", jerr.text, jerr.line,
				    jerr.column);
	if (!json_is_object(root))
		return sd_error_set(err, EINVAL, "the body: expected a JSON object, got %s", json_type_phrase(root));
	rq->tasks = json_object_get(root, "tasks");
	if (!rq->tasks || json_is_null(rq->tasks))
		return sd_error_set(err, EINVAL, "field 'tasks': missing (a suite's name, a task, or an array of tasks)");
	if (json_is_string(rq->tasks)) {
		const char *name = json_string_value(rq->tasks);

		for (size_t i = 0; i < o->n_suites && !rq->suite_path; i++)
			if (strcmp(o->suites[i].name, name) == 0)
				rq->suite_path = o->suites[i].path;
		if (!rq->suite_path)
			return sd_error_set(err, ENOENT, "field 'tasks': no suite '%.100s' on this server (%s)", name,
					    o->n_suites ? "GET /v1/suites lists them" : "it was started without --suite");
	} else if (!json_is_object(rq->tasks) && !json_is_array(rq->tasks)) {
		return sd_error_set(err, EINVAL, "field 'tasks': expected a suite's name, a task or an array of tasks, got %s",
				    json_type_phrase(rq->tasks));
	}
	rq->samples = json_object_get(root, "samples");
	if (!rq->samples || json_is_null(rq->samples))
		return sd_error_set(err, EINVAL, "field 'samples': missing");
	if (!json_is_array(rq->samples) || json_array_size(rq->samples) == 0)
		return sd_error_set(err, EINVAL, "field 'samples': expected a non-empty array of samples, got %s%s",
				    json_is_array(rq->samples) ? "an empty one" : json_type_phrase(rq->samples), "");
	v = json_object_get(root, "k");
	if (v && !json_is_null(v)) {
		size_t i;
		json_t *k;

		if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > EV_MAX_KS)
			return sd_error_set(err, EINVAL, "field 'k': expected an array of 1 to %d integers", EV_MAX_KS);
		json_array_foreach(v, i, k) {
			if (!json_is_integer(k) || json_integer_value(k) < 1 || json_integer_value(k) > 100000)
				return sd_error_set(err, EINVAL, "field 'k[%zu]': expected an integer from 1 to 100000", i);
			rq->ks[rq->n_ks++] = (int)json_integer_value(k);
		}
	} else {
		rq->ks[0] = 1;
		rq->ks[1] = 10;
		rq->ks[2] = 100;
		rq->n_ks = 3;
	}
	if ((v = json_object_get(root, "model")) && !json_is_null(v)) {
		if (!json_is_string(v))
			return sd_error_set(err, EINVAL, "field 'model': expected a string, got %s", json_type_phrase(v));
		rq->model = json_string_value(v);
	}
	if ((v = json_object_get(root, "lint")) && !json_is_null(v)) {
		if (!json_is_boolean(v))
			return sd_error_set(err, EINVAL, "field 'lint': expected true or false, got %s", json_type_phrase(v));
		rq->lint = json_is_true(v);
		rq->given |= RUN_GIVEN_LINT;
	}
	if ((v = json_object_get(root, "sanitize")) && !json_is_null(v)) {
		if (!json_is_boolean(v))
			return sd_error_set(err, EINVAL, "field 'sanitize': expected true or false, got %s", json_type_phrase(v));
		rq->sanitize = json_is_true(v);
	}
	if ((v = json_object_get(root, "fail_fast")) && !json_is_null(v)) {
		if (!json_is_boolean(v))
			return sd_error_set(err, EINVAL, "field 'fail_fast': expected true or false, got %s",
					    json_type_phrase(v));
		rq->fail_fast = json_is_true(v);
	}
	if ((v = json_object_get(root, "timeout")) && !json_is_null(v)) {
		if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > o->max_time)
			return sd_error_set(err, EINVAL, "field 'timeout': expected seconds a test, above 0 and at most %g",
					    o->max_time);
		rq->timeout = json_number_value(v);
	}
	if ((v = json_object_get(root, "memory")) && !json_is_null(v)) {
		struct sd_error e = { 0 };

		if (json_is_string(v)) {
			if (parse_size(json_string_value(v), &rq->memory, &e) < 0)
				return sd_error_set(err, EINVAL, "field 'memory': %s", e.msg);
		} else if (json_is_integer(v) && json_integer_value(v) > 0) {
			rq->memory = (uint64_t)json_integer_value(v);
		} else {
			return sd_error_set(err, EINVAL, "field 'memory': expected bytes or a size (\"512M\"), got %s",
					    json_type_phrase(v));
		}
		if (rq->memory < (16u << 20) || rq->memory > o->max_memory)
			return sd_error_set(err, EINVAL, "field 'memory': expected 16M to %llu bytes",
					    (unsigned long long)o->max_memory);
	}
	if ((v = json_object_get(root, "seed")) && !json_is_null(v)) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return sd_error_set(err, EINVAL, "field 'seed': expected a non-negative integer, got %s",
					    json_type_phrase(v));
		rq->seed = json_integer_value(v);
		rq->seed_given = true;
	}
	if ((v = json_object_get(root, "holdout")) && !json_is_null(v)) {
		if (!json_is_string(v) || run_holdout_parse(json_string_value(v), &rq->holdout) < 0)
			return sd_error_set(err, EINVAL, "field 'holdout': expected \"include\", \"exclude\" or \"only\"");
	}
	return 0;
}

int ev_check(const char *body, size_t len, const struct serve_options *o, struct sd_error *err)
{
	struct ev_request rq;
	int r = ev_parse(body, len, o, &rq, err);

	json_decref(rq.root);
	return r;
}

/* ---- the answer: the run as `sandeval run --json --out` reports it ---- */

/* The run's document from the store: {run_id, finished, summary, results}
 * and EXTRA's fields (taken over; may be NULL). SAMPLES gives the
 * completions (NULL: from the results themselves); KS the pass@k asked for
 * (NULL: the run's own config). HTTP status returned. */
static int run_document(struct store *st, const char *run_id, const struct sample_set *samples, const int *ks,
			size_t n_ks, json_t *extra, char **out)
{
	struct sd_error err = { 0 };
	struct run_info info;
	struct sample_result *results = NULL;
	struct sample_set view = { 0 };
	int cks[EV_MAX_KS];
	size_t n = 0;
	json_t *doc = NULL, *summary = NULL, *records = NULL;
	int status = 500;
	bool partial = false;

	if (store_run_get(st, run_id, &info, &err) < 0) {
		*out = err.code == ENOENT ? error_json("not_found", "no run '%s'", run_id)
					  : error_json("store", "%s", err.msg);
		json_decref(extra);
		return err.code == ENOENT ? 404 : 503;
	}
	if (store_samples_load(st, run_id, &results, &n, &err) < 0) {
		*out = error_json("store", "%s", err.msg);
		run_info_release(&info);
		json_decref(extra);
		return 503;
	}
	{
		json_t *cfg = info.config_json ? json_loads(info.config_json, 0, NULL) : NULL, *k;
		size_t i;

		partial = json_is_true(json_object_get(cfg, "partial"));
		json_array_foreach(json_object_get(cfg, "k"), i, k)
			if (!ks && n_ks < EV_MAX_KS && json_is_integer(k))
				cks[n_ks++] = (int)json_integer_value(k);
		json_decref(cfg);
		ks = ks ? ks : cks;
	}
	if (!samples && n && (view.samples = calloc(n, sizeof(*view.samples)))) {
		for (size_t i = 0; i < n; i++) {
			view.samples[i].sample_id = results[i].sample_id;
			view.samples[i].code = results[i].completion;
		}
		view.n = n;
		samples = &view;
	}
	{
		struct report rep = { .run = &info, .results = results, .n = n, .ks = ks, .n_ks = n_ks, .samples = samples,
				      .partial = partial };

		summary = report_summary_doc(&rep, &err);
		records = summary ? report_results_array(&rep, &err) : NULL;
	}
	if (summary && records)
		doc = json_pack("{s:s, s:b, s:o, s:o}", "run_id", run_id, "finished", info.finished_ms != 0,
				"summary", summary, "results", records);
	else {
		json_decref(summary);
		json_decref(records);
	}
	if (doc && extra)
		json_object_update(doc, extra);
	json_decref(extra);
	*out = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(REPORT_REAL_DIGITS)) : NULL;
	if (!*out)
		*out = error_json("internal", "cannot build the run's document: %s", err.msg[0] ? err.msg : "out of memory");
	else
		status = 200;
	json_decref(doc);
	free(view.samples);
	for (size_t i = 0; i < n; i++)
		sample_result_release(&results[i]);
	free(results);
	run_info_release(&info);
	return status;
}

struct ev_events {
	json_t *warnings;
	bool started;
};

static void on_event(void *arg, const struct run *run, const struct run_event *ev)
{
	struct ev_events *e = arg;

	(void)run;
	if (ev->kind == RUN_WARNING)
		json_array_append_new(e->warnings, json_text(ev->text));
	else if (ev->kind == RUN_STARTED)
		e->started = true;
}

int ev_execute(const char *body, size_t len, const struct serve_options *o, char **out, struct wire_done *done)
{
	struct ev_request rq;
	struct sd_error err = { 0 };
	struct task_set ts = { 0 };
	struct sample_set ss = { 0 };
	struct ev_events events = { .warnings = json_array() };
	struct run_options ro;
	struct run *run = NULL;
	struct store *st = NULL;
	int status = 400;

	(void)done;
	*out = NULL;
	if (ev_parse(body, len, o, &rq, &err) < 0)
		goto fail;
	if (rq.suite_path ? task_set_load(rq.suite_path, &ts, &err) < 0 : task_set_from_json(rq.tasks, "tasks", &ts, &err) < 0) {
		status = rq.suite_path ? 500 : 400;
		goto fail;
	}
	if (sample_set_from_json(rq.samples, "samples", &ts, &ss, &err) < 0)
		goto fail;
	run_options_init(&ro);
	ro.tasks_path = rq.suite_path ? rq.suite_path : "inline";
	ro.samples_path = "inline";
	ro.tasks = &ts;
	ro.samples = &ss;
	ro.partial = true;	/* a request's samples are what it wants judged, of a named suite too */
	ro.model = rq.model;
	ro.holdout = rq.holdout;
	ro.jobs = 1;		/* one worker, one sandbox at a time: --max-concurrency holds */
	ro.seed = rq.seed;
	ro.seed_given = rq.seed_given;
	ro.ks = rq.ks;
	ro.n_ks = rq.n_ks;
	ro.version = o->version;
	ro.event = on_event;
	ro.arg = &events;
	ro.eval.backend = o->backend;
	ro.eval.lint = rq.lint;
	ro.sanitize = rq.sanitize;
	ro.eval.fail_fast = rq.fail_fast;
	if (rq.timeout > 0)
		ro.eval.timeout = rq.timeout;
	if (rq.memory)
		ro.eval.memory = rq.memory;
	if (!(run = run_new(&ro, &err)) || run_load(run, &err) < 0)
		goto fail;
	if (!(st = store_open(o->db, &err))) {
		status = 503;
		goto fail;
	}
	if (run_execute(run, st, &err) < 0) {
		status = err.code == BREAKER_ERRNO ? 503 : 500;
		if (events.started)
			sd_error_wrap(&err, "run %s", run_info(run)->id);
		goto fail;
	}
	status = run_document(st, run_info(run)->id, run_samples(run), rq.ks, rq.n_ks,
			      json_pack("{s:O}", "warnings", events.warnings), out);
	goto out;
fail:
	*out = error_json(status == 400 ? "bad_request" : err.code == BREAKER_ERRNO ? "breaker_tripped" :
			  status == 503 ? "store" : "evaluation_failed", "%s", err.msg);
out:
	json_decref(events.warnings);
	run_free(run);
	store_close(st);
	task_set_release(&ts);
	sample_set_release(&ss);
	json_decref(rq.root);
	return status;
}

int ev_get_run(const char *run_id, const struct serve_options *o, char **out)
{
	struct sd_error err = { 0 };
	struct store *st = store_open(o->db, &err);
	int status;

	if (!st) {
		*out = error_json("store", "%s", err.msg);
		return 503;
	}
	status = run_document(st, run_id, NULL, NULL, 0, NULL, out);
	store_close(st);
	return status;
}

int ev_store_metrics(const struct serve_options *o, char **out)
{
	struct sd_error err = { 0 };
	struct store *st = store_open_existing(o->db, &err);
	int ret;

	if (!st) {
		*out = error_json("store", "%s", err.msg);
		return 503;
	}
	ret = prometheus_store(st, out, &err);
	store_close(st);
	if (ret < 0) {
		*out = error_json("store", "%s", err.msg);
		return 503;
	}
	return 200;
}

int ev_check_ready(const struct serve_options *o, char **out, struct wire_done *done)
{
	struct sd_error err = { 0 }, cerr = { 0 };
	struct store *st = store_open(o->db, &err);
	struct evaluator_options eo;
	struct evaluator *ev;
	json_t *doc;

	done->store_ok = st != NULL;
	store_close(st);
	evaluator_options_init(&eo);
	eo.backend = o->backend;
	ev = evaluator_new(&eo, &cerr);
	done->canaries_ok = ev && canary_check(ev, &cerr) == 0;
	evaluator_free(ev);
	doc = json_pack("{s:s, s:s}", "store", done->store_ok ? "ok" : err.msg,
			"canaries", done->canaries_ok ? "ok" : cerr.msg);
	*out = json_text_of(doc);
	json_decref(doc);
	return 200;
}
