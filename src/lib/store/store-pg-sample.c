/* store-pg-sample.c - the samples' half of the PostgreSQL store: a sample with its tests and findings in one statement, and back
 *
 * A sample is recorded by one INSERT whose common table expressions insert
 * its tests and findings (given as one JSON array each) only when the
 * sample's row went in: one statement is one transaction, one round trip,
 * and a sample already recorded (ON CONFLICT DO NOTHING) adds nothing.
 * Loading a run is three queries in one snapshot (REPEATABLE READ): the
 * samples in recording order, then all their tests, then all their findings,
 * each in the samples' order, matched up as they come.
 */
#define _GNU_SOURCE
#include "store/store-pg-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

/* A JSON string, or null; text that is not UTF-8 (never, from a worker's
 * JSON line) is made so rather than refused. */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *clean;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	clean = utf8_sanitize(s, strlen(s), NULL);
	j = clean ? json_string(clean) : NULL;
	free(clean);
	return j;
}

static json_t *jreal(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* The tests and the findings of R as JSON arrays (text, malloc'd). */
static int put_json(const struct sample_result *r, char **tests, char **findings)
{
	json_t *t = json_array(), *f = json_array();
	bool ok = t && f;

	for (size_t i = 0; ok && i < r->n_tests; i++) {
		const struct test_result *x = &r->tests[i];

		ok = json_array_append_new(t, json_pack("{s:I, s:o, s:s, s:o, s:s, s:s, s:o, s:i}",
				"idx", (json_int_t)i, "name", jstr(x->name ? x->name : ""),
				"tier", store_tier_name(x->tier), "weight", jreal(x->weight),
				"visibility", store_vis_name(x->visibility), "status", test_status_name(x->status),
				"detail", jstr(x->detail), "in_process", (int)x->in_process)) == 0;
	}
	for (size_t i = 0; ok && i < r->n_findings; i++) {
		const struct lint_finding *x = &r->findings[i];

		ok = json_array_append_new(f, json_pack("{s:I, s:o, s:o, s:o, s:s, s:i, s:o}",
				"idx", (json_int_t)i, "tool", jstr(x->tool ? x->tool : ""), "rule", jstr(x->rule),
				"category", jstr(x->category), "severity", lint_severity_name(x->severity),
				"line", x->line, "message", jstr(x->message))) == 0;
	}
	*tests = ok ? json_dumps(t, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	*findings = ok ? json_dumps(f, JSON_COMPACT) : NULL;
	json_decref(t);
	json_decref(f);
	if (*tests && *findings)
		return 0;
	free(*tests);
	free(*findings);
	return -1;
}

/* A text parameter that PostgreSQL takes: valid UTF-8 (see jstr). */
static const char *text_param(const char *s, char **owned)
{
	size_t len, i = 0;

	if (!s)
		return NULL;
	len = strlen(s);
	while (i < len) {
		size_t n = utf8_valid_seq((const unsigned char *)s + i, len - i);

		if (!n)
			break;
		i += n;
	}
	if (i == len)
		return s;
	*owned = utf8_sanitize(s, len, NULL);
	return *owned ? *owned : "";
}

int pg_sample_put(struct store_pg *p, const char *run_id, int shard, const struct sample_result *r,
		  struct sd_error *err)
{
	char num[8][32], sc[3][32], rl[32], co[32], *tests = NULL, *findings = NULL, *owned[8] = { 0 };
	cleanup_free char *tw = tripwires_to_text(&r->tripwires);
	const char *v[29];
	PGresult *res;
	int ret = -1;

	if (!tw || put_json(r, &tests, &findings) < 0)
		return sd_error_set(err, ENOMEM, "cannot record sample '%s' of run '%s' in '%s': out of memory",
				    r->sample_id, run_id, p->base.name);
	snprintf(num[0], sizeof(num[0]), "%d", r->passed ? 1 : 0);
	snprintf(num[1], sizeof(num[1]), "%d", r->harness_error ? 1 : 0);
	snprintf(num[2], sizeof(num[2]), "%lld", (long long)r->latency_ms);
	snprintf(num[3], sizeof(num[3]), "%lld", (long long)r->cpu_ms);
	snprintf(num[4], sizeof(num[4]), "%lld", (long long)r->peak_memory_bytes);
	snprintf(num[5], sizeof(num[5]), "%lld", (long long)r->started_ms);
	snprintf(num[6], sizeof(num[6]), "%lld", (long long)r->finished_ms);
	snprintf(num[7], sizeof(num[7]), "%d", shard);
	v[0] = run_id;
	v[1] = text_param(r->sample_id, &owned[0]);
	v[2] = text_param(r->task_id, &owned[1]);
	v[3] = text_param(r->task_class, &owned[2]);
	v[4] = text_param(r->model, &owned[3]);
	v[5] = text_param(r->sandbox_ids, &owned[4]);
	v[6] = pg_real_text(r->score, sc[0], sizeof(sc[0]));
	v[7] = pg_real_text(r->score_public, sc[1], sizeof(sc[1]));
	v[8] = pg_real_text(r->score_holdout, sc[2], sizeof(sc[2]));
	v[9] = num[0];
	v[10] = text_param(r->he_result, &owned[5]);
	v[11] = num[1];
	v[12] = num[2];
	v[13] = num[3];
	v[14] = num[4];
	v[15] = num[5];
	v[16] = num[6];
	v[17] = SCORE_FORMULA_VERSION;
	v[18] = text_param(r->completion, &owned[6]);
	v[19] = pg_real_text(r->rouge_l, rl, sizeof(rl));
	v[20] = lint_status_name(r->lint);
	v[21] = text_param(r->lint_detail, &owned[7]);
	v[22] = pg_real_text(r->composite, co, sizeof(co));
	v[23] = shard >= 0 ? num[7] : NULL;
	v[24] = tests;
	v[25] = findings;
	v[26] = r->base_status;		/* "pass", "fail" or NULL: nothing to convert */
	v[27] = r->plus_status;
	v[28] = tw;
	res = pg_exec(p,
		"WITH s AS (INSERT INTO sandeval.samples (run_id, sample_id, task_id, task_class, model, sandbox_ids,"
		"  score, score_public, score_holdout, passed, he_result, harness_error, latency_ms, cpu_ms,"
		"  peak_memory_bytes, started_ms, finished_ms, formula_version, completion, rouge_l, lint, lint_detail,"
		"  composite, shard, base_status, plus_status, tripwires)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,"
		"  $21, $22, $23, $24, $27, $28, $29)"
		" ON CONFLICT (run_id, sample_id) DO NOTHING RETURNING run_id, sample_id),"
		" t AS (INSERT INTO sandeval.tests (run_id, sample_id, idx, name, tier, weight, visibility, status,"
		"  detail, in_process)"
		"  SELECT s.run_id, s.sample_id, x.idx, x.name, x.tier, x.weight, x.visibility, x.status, x.detail,"
		"   x.in_process FROM s, jsonb_to_recordset($25::jsonb) AS x(idx integer, name text, tier text,"
		"   weight double precision, visibility text, status text, detail text, in_process integer)),"
		" f AS (INSERT INTO sandeval.findings (run_id, sample_id, idx, tool, rule, category, severity, line,"
		"  message)"
		"  SELECT s.run_id, s.sample_id, x.idx, x.tool, x.rule, x.category, x.severity, x.line, x.message"
		"   FROM s, jsonb_to_recordset($26::jsonb) AS x(idx integer, tool text, rule text, category text,"
		"   severity text, line integer, message text))"
		" SELECT count(*) FROM s", 29, v, err, "cannot record sample '%s' of run '%s' in '%s'", r->sample_id,
		run_id, p->base.name);
	if (!res) {
		ret = pg_failed(p);
		if (ret != PG_LOST && strcmp(p->sqlstate, "23503") == 0)
			sd_error_set(err, ENOENT, "cannot record sample '%s': no run '%s' in '%s'", r->sample_id,
				     run_id, p->base.name);
	} else if (pg_int(res, 0, 0) == 0) {
		ret = sd_error_set(err, EEXIST, "sample '%s' is already recorded in run '%s' of '%s'", r->sample_id,
				   run_id, p->base.name);
	} else {
		ret = 0;
	}
	if (res)
		pq.PQclear(res);
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
		free(owned[i]);
	free(tests);
	free(findings);
	return ret;
}

int pg_sample_done(struct store_pg *p, const char *run_id, const char *sample_id, struct sd_error *err)
{
	const char *v[2] = { run_id, sample_id };
	PGresult *res = pg_exec(p, "SELECT 1 FROM sandeval.samples WHERE run_id = $1 AND sample_id = $2", 2, v, err,
				"cannot look up sample '%s' of run '%s' in '%s'", sample_id, run_id, p->base.name);
	int rows;

	if (!res)
		return pg_failed(p);
	rows = pq.PQntuples(res);
	pq.PQclear(res);
	return rows > 0;
}

/* Grow *v (of *cap) to hold one more; false on ENOMEM. */
static bool grow(void **v, size_t *cap, size_t len, size_t size)
{
	size_t ncap;
	void *nv;

	if (len < *cap)
		return true;
	ncap = *cap ? 2 * *cap : 8;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return false;
	*v = nv;
	*cap = ncap;
	return true;
}

/* Rows of (sample_id, ...) in the samples' order, walked beside V: the index
 * of ROW's sample, from *at on; -1 when no sample has that id (never). */
static long match(struct sample_result *v, size_t n, size_t *at, const char *id)
{
	while (*at < n && strcmp(v[*at].sample_id, id) != 0)
		(*at)++;
	return *at < n ? (long)*at : -1;
}

static int load_tests(struct store_pg *p, const char *run_id, struct sample_result *v, size_t n, bool *oom,
		      struct sd_error *err)
{
	const char *params[1] = { run_id };
	PGresult *res = pg_exec(p, "SELECT t.sample_id, t.idx, t.name, t.tier, t.weight, t.visibility, t.status,"
				" t.detail, t.in_process FROM sandeval.tests t JOIN sandeval.samples s"
				" ON s.run_id = t.run_id AND s.sample_id = t.sample_id WHERE t.run_id = $1"
				" ORDER BY s.id, t.idx", 1, params, err, "cannot load run '%s' from '%s'", run_id,
				p->base.name);
	size_t at = 0, cap = 0;
	long prev = -1;
	int ret = 0;

	if (!res)
		return pg_failed(p);
	for (int row = 0; row < pq.PQntuples(res) && !*oom; row++) {
		long i = match(v, n, &at, pq.PQgetvalue(res, row, 0));
		const char *tier = pq.PQgetvalue(res, row, 3), *vis = pq.PQgetvalue(res, row, 5);
		const char *status = pq.PQgetvalue(res, row, 6);
		int ti = store_tier_parse(tier), vi = store_vis_parse(vis), si = test_status_parse(status);
		struct sample_result *r;
		struct test_result *t;

		if (i < 0)
			break;
		r = &v[i];
		if (ti < 0 || vi < 0 || si < 0) {
			ret = sd_error_set(err, EPROTO, "'%s': run '%s', sample '%s', test %lld: unknown %s '%s'",
					   p->base.name, run_id, r->sample_id, pg_int(res, row, 1),
					   ti < 0 ? "tier" : vi < 0 ? "visibility" : "status",
					   ti < 0 ? tier : vi < 0 ? vis : status);
			break;
		}
		if (i != prev)
			cap = 0;	/* a new sample: its array starts empty */
		prev = i;
		if (!grow((void **)&r->tests, &cap, r->n_tests, sizeof(*r->tests))) {
			*oom = true;
			break;
		}
		t = &r->tests[r->n_tests++];
		memset(t, 0, sizeof(*t));
		t->name = pg_dup(res, row, 2, oom);
		t->tier = (enum test_tier)ti;
		t->weight = pg_real(res, row, 4);
		t->visibility = (enum test_visibility)vi;
		t->status = (enum test_status)si;
		t->detail = pg_dup(res, row, 7, oom);
		t->in_process = pg_int(res, row, 8) != 0;
	}
	pq.PQclear(res);
	return ret;
}

static int load_findings(struct store_pg *p, const char *run_id, struct sample_result *v, size_t n, bool *oom,
			 struct sd_error *err)
{
	const char *params[1] = { run_id };
	PGresult *res = pg_exec(p, "SELECT f.sample_id, f.tool, f.rule, f.category, f.severity, f.line, f.message"
				" FROM sandeval.findings f JOIN sandeval.samples s"
				" ON s.run_id = f.run_id AND s.sample_id = f.sample_id WHERE f.run_id = $1"
				" ORDER BY s.id, f.idx", 1, params, err, "cannot load run '%s' from '%s'", run_id,
				p->base.name);
	size_t at = 0, cap = 0;
	long prev = -1;

	if (!res)
		return pg_failed(p);
	for (int row = 0; row < pq.PQntuples(res) && !*oom; row++) {
		long i = match(v, n, &at, pq.PQgetvalue(res, row, 0));
		int sev = lint_severity_parse(pq.PQgetvalue(res, row, 4));
		struct sample_result *r;
		struct lint_finding *f;

		if (i < 0)
			break;
		r = &v[i];
		if (i != prev)
			cap = 0;
		prev = i;
		if (!grow((void **)&r->findings, &cap, r->n_findings, sizeof(*r->findings))) {
			*oom = true;
			break;
		}
		f = &r->findings[r->n_findings++];
		memset(f, 0, sizeof(*f));
		f->tool = pg_dup(res, row, 1, oom);
		f->rule = pg_dup(res, row, 2, oom);
		f->category = pg_dup(res, row, 3, oom);
		f->severity = sev < 0 ? LINT_SEV_ERROR : (enum lint_severity)sev;
		f->line = (int)pg_int(res, row, 5);
		f->message = pg_dup(res, row, 6, oom);
	}
	pq.PQclear(res);
	return 0;
}

int pg_samples_load(struct store_pg *p, const char *run_id, struct sample_result **out, size_t *n,
		    struct sd_error *err)
{
	const char *params[1] = { run_id };
	struct sample_result *v = NULL;
	PGresult *res;
	size_t len = 0;
	bool oom = false;
	int ret;

	res = pg_exec(p, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", 0, NULL, err,
		      "cannot load run '%s' from '%s'", run_id, p->base.name);
	if (!res)
		return pg_failed(p);
	pq.PQclear(res);
	res = pg_exec(p, "SELECT sample_id, task_id, task_class, model, sandbox_ids, score, score_public,"
		      " score_holdout, passed, he_result, harness_error, latency_ms, cpu_ms, peak_memory_bytes,"
		      " started_ms, finished_ms, completion, rouge_l, lint, lint_detail, composite,"
		      " base_status, plus_status, tripwires FROM sandeval.samples WHERE run_id = $1 ORDER BY id", 1,
		      params, err,
		      "cannot load run '%s' from '%s'", run_id, p->base.name);
	if (!res) {
		ret = pg_failed(p);
		goto out;
	}
	len = (size_t)pq.PQntuples(res);
	v = calloc(len + 1, sizeof(*v));
	for (size_t i = 0; v && i < len && !oom; i++) {
		struct sample_result *r = &v[i];
		int row = (int)i, ls;

		r->sample_id = pg_dup(res, row, 0, &oom);
		r->task_id = pg_dup(res, row, 1, &oom);
		r->task_class = pg_dup(res, row, 2, &oom);
		r->model = pg_dup(res, row, 3, &oom);
		r->sandbox_ids = pg_dup(res, row, 4, &oom);
		r->score = pg_real(res, row, 5);
		r->score_public = pg_real(res, row, 6);
		r->score_holdout = pg_real(res, row, 7);
		r->passed = pg_int(res, row, 8) != 0;
		r->he_result = pg_dup(res, row, 9, &oom);
		r->harness_error = pg_int(res, row, 10) != 0;
		r->latency_ms = pg_int(res, row, 11);
		r->cpu_ms = pg_int(res, row, 12);
		r->peak_memory_bytes = pg_int(res, row, 13);
		r->started_ms = pg_int(res, row, 14);
		r->finished_ms = pg_int(res, row, 15);
		r->completion = pg_dup(res, row, 16, &oom);
		r->rouge_l = pg_real(res, row, 17);
		ls = lint_status_parse(pq.PQgetvalue(res, row, 18));
		r->lint = ls < 0 ? LINT_NONE : (enum lint_status)ls;
		r->lint_detail = pg_dup(res, row, 19, &oom);
		r->composite = pg_real(res, row, 20);
		r->base_status = pg_dup(res, row, 21, &oom);
		r->plus_status = pg_dup(res, row, 22, &oom);
		/* unreadable counts load as zero: a record is never refused for them */
		tripwires_from_text(pq.PQgetisnull(res, row, 23) ? NULL : pq.PQgetvalue(res, row, 23), &r->tripwires);
		if (!r->sample_id)
			oom = true;
	}
	pq.PQclear(res);
	if (!v || oom) {
		ret = sd_error_set(err, ENOMEM, "cannot load run '%s' from '%s': out of memory", run_id, p->base.name);
		goto out;
	}
	ret = load_tests(p, run_id, v, len, &oom, err);
	if (ret == 0)
		ret = load_findings(p, run_id, v, len, &oom, err);
	if (ret == 0 && oom)
		ret = sd_error_set(err, ENOMEM, "cannot load run '%s' from '%s': out of memory", run_id, p->base.name);
out:
	pg_rollback(p);		/* read only: nothing to commit */
	if (ret < 0) {
		store_results_free(v, len);
		return ret;
	}
	*out = v;
	*n = len;
	return 0;
}
