/* store-sqlite-sample.c - the samples' half of the SQLite store: a sample and its tests and findings in one transaction, and back */
#define _GNU_SOURCE
#include "store/store-sqlite-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put_tests(struct store_sqlite *s, const char *run_id, const struct sample_result *r)
{
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct test_result *t = &r->tests[i];
		sqlite3_stmt *st = sq_stmt(s, ST_TEST_INSERT);
		int rc;

		sq_bind_text(st, 1, run_id);
		sq_bind_text(st, 2, r->sample_id);
		sqlite.sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
		sq_bind_text(st, 4, t->name ? t->name : "");
		sq_bind_text(st, 5, store_tier_name(t->tier));
		sq_bind_real(st, 6, t->weight);
		sq_bind_text(st, 7, store_vis_name(t->visibility));
		sq_bind_text(st, 8, test_status_name(t->status));
		sq_bind_text(st, 9, t->detail);
		sqlite.sqlite3_bind_int(st, 10, t->in_process);
		rc = sq_step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int put_findings(struct store_sqlite *s, const char *run_id, const struct sample_result *r)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct lint_finding *f = &r->findings[i];
		sqlite3_stmt *st = sq_stmt(s, ST_FINDING_INSERT);
		int rc;

		sq_bind_text(st, 1, run_id);
		sq_bind_text(st, 2, r->sample_id);
		sqlite.sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
		sq_bind_text(st, 4, f->tool ? f->tool : "");
		sq_bind_text(st, 5, f->rule);
		sq_bind_text(st, 6, f->category);
		sq_bind_text(st, 7, lint_severity_name(f->severity));
		sqlite.sqlite3_bind_int(st, 8, f->line);
		sq_bind_text(st, 9, f->message);
		rc = sq_step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

int sq_sample_put(struct store *base, const char *run_id, int shard, const struct sample_result *r,
		  struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st;
	char *tw;
	int rc;

	rc = sqlite.sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	st = sq_stmt(s, ST_SAMPLE_INSERT);
	sq_bind_text(st, 1, run_id);
	sq_bind_text(st, 2, r->sample_id);
	sq_bind_text(st, 3, r->task_id);
	sq_bind_text(st, 4, r->task_class);
	sq_bind_text(st, 5, r->model);
	sq_bind_text(st, 6, r->sandbox_ids);
	sq_bind_real(st, 7, r->score);
	sq_bind_real(st, 8, r->score_public);
	sq_bind_real(st, 9, r->score_holdout);
	sqlite.sqlite3_bind_int(st, 10, r->passed);
	sq_bind_text(st, 11, r->he_result);
	sqlite.sqlite3_bind_int(st, 12, r->harness_error);
	sqlite.sqlite3_bind_int64(st, 13, r->latency_ms);
	sqlite.sqlite3_bind_int64(st, 14, r->cpu_ms);
	sqlite.sqlite3_bind_int64(st, 15, r->peak_memory_bytes);
	sqlite.sqlite3_bind_int64(st, 16, r->started_ms);
	sqlite.sqlite3_bind_int64(st, 17, r->finished_ms);
	sq_bind_text(st, 18, SCORE_FORMULA_VERSION);
	sq_bind_text(st, 19, r->completion);
	sq_bind_real(st, 20, r->rouge_l);
	sq_bind_text(st, 21, lint_status_name(r->lint));
	sq_bind_text(st, 22, r->lint_detail);
	sq_bind_real(st, 23, r->composite);
	if (shard >= 0)
		sqlite.sqlite3_bind_int(st, 24, shard);
	sq_bind_text(st, 25, r->base_status);
	sq_bind_text(st, 26, r->plus_status);
	if (!(tw = tripwires_to_text(&r->tripwires))) {
		sqlite.sqlite3_reset(st);
		rc = SQLITE_NOMEM;
		goto fail;
	}
	sq_bind_text(st, 27, tw);
	rc = sq_step_done(st);
	free(tw);
	if (rc == SQLITE_OK)
		rc = put_tests(s, run_id, r);
	if (rc == SQLITE_OK)
		rc = put_findings(s, run_id, r);
	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
fail:
	sq_fail(s, rc, err, "cannot record sample '%s' of run '%s' in '%s'", r->sample_id, run_id, s->base.name);
	sq_rollback(s);
	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		sd_error_set(err, EEXIST, "sample '%s' is already recorded in run '%s' of '%s'",
			     r->sample_id, run_id, s->base.name);
	else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		sd_error_set(err, ENOENT, "cannot record sample '%s': no run '%s' in '%s'",
			     r->sample_id, run_id, s->base.name);
	return -1;
}

int sq_sample_done(struct store *base, const char *run_id, const char *sample_id, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_SAMPLE_DONE);
	int rc;

	sq_bind_text(st, 1, run_id);
	sq_bind_text(st, 2, sample_id);
	rc = sqlite.sqlite3_step(st);
	sqlite.sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sq_fail(s, rc, err, "cannot look up sample '%s' of run '%s' in '%s'", sample_id, run_id, s->base.name);
}

/* The tests of one sample into r->tests; an SQLite code, or -1 for bad data (message in *err). */
static int load_tests(struct store_sqlite *s, const char *run_id, struct sample_result *r, bool *oom,
		      struct sd_error *err)
{
	sqlite3_stmt *st = sq_stmt(s, ST_TESTS_LOAD);
	size_t cap = 0;
	int rc;

	sq_bind_text(st, 1, run_id);
	sq_bind_text(st, 2, r->sample_id);
	while ((rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		struct test_result *t;
		const char *tier = sq_text(st, 2);
		const char *vis = sq_text(st, 4);
		const char *status = sq_text(st, 5);
		int ti = store_tier_parse(tier), vi = store_vis_parse(vis);
		int si = test_status_parse(status);

		if (ti < 0 || vi < 0 || si < 0) {
			sd_error_set(err, EPROTO, "'%s': run '%s', sample '%s', test %lld: unknown %s '%s'",
				     s->base.name, run_id, r->sample_id, (long long)sqlite.sqlite3_column_int64(st, 0),
				     ti < 0 ? "tier" : vi < 0 ? "visibility" : "status",
				     ti < 0 ? (tier ? tier : "") : vi < 0 ? (vis ? vis : "") : (status ? status : ""));
			sqlite.sqlite3_reset(st);
			return -1;
		}
		if (r->n_tests == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			struct test_result *nt = realloc(r->tests, ncap * sizeof(*nt));

			if (!nt) {
				*oom = true;
				break;
			}
			r->tests = nt;
			cap = ncap;
		}
		t = &r->tests[r->n_tests++];
		memset(t, 0, sizeof(*t));
		t->name = sq_col_dup(st, 1, oom);
		t->tier = (enum test_tier)ti;
		t->weight = sq_col_real(st, 3);
		t->visibility = (enum test_visibility)vi;
		t->status = (enum test_status)si;
		t->detail = sq_col_dup(st, 6, oom);
		t->in_process = sqlite.sqlite3_column_int(st, 7) != 0;
	}
	sqlite.sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* The lint findings of one sample into r->findings; an SQLite code. */
static int load_findings(struct store_sqlite *s, const char *run_id, struct sample_result *r, bool *oom)
{
	sqlite3_stmt *st = sq_stmt(s, ST_FINDINGS_LOAD);
	size_t cap = 0;
	int rc;

	sq_bind_text(st, 1, run_id);
	sq_bind_text(st, 2, r->sample_id);
	while ((rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		struct lint_finding *f;
		int sev = lint_severity_parse(sq_text(st, 3));

		if (r->n_findings == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			struct lint_finding *nf = realloc(r->findings, ncap * sizeof(*nf));

			if (!nf) {
				*oom = true;
				break;
			}
			r->findings = nf;
			cap = ncap;
		}
		f = &r->findings[r->n_findings++];
		memset(f, 0, sizeof(*f));
		f->tool = sq_col_dup(st, 0, oom);
		f->rule = sq_col_dup(st, 1, oom);
		f->category = sq_col_dup(st, 2, oom);
		f->severity = sev < 0 ? LINT_SEV_ERROR : (enum lint_severity)sev;
		f->line = sqlite.sqlite3_column_int(st, 4);
		f->message = sq_col_dup(st, 5, oom);
	}
	sqlite.sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

int sq_samples_load(struct store *base, const char *run_id, struct sample_result **out, size_t *n,
		    struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st;
	struct sample_result *v = NULL;
	size_t len = 0, cap = 0;
	bool oom = false;
	int rc;

	rc = sqlite.sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL);	/* one snapshot for all reads */
	if (rc != SQLITE_OK)
		goto fail;
	st = sq_stmt(s, ST_SAMPLES_LOAD);
	sq_bind_text(st, 1, run_id);
	while (!oom && (rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		struct sample_result *r;

		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct sample_result *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				oom = true;
				break;
			}
			v = nv;
			cap = ncap;
		}
		r = &v[len++];
		memset(r, 0, sizeof(*r));
		r->sample_id = sq_col_dup(st, 0, &oom);
		r->task_id = sq_col_dup(st, 1, &oom);
		r->task_class = sq_col_dup(st, 2, &oom);
		r->model = sq_col_dup(st, 3, &oom);
		r->sandbox_ids = sq_col_dup(st, 4, &oom);
		r->score = sq_col_real(st, 5);
		r->score_public = sq_col_real(st, 6);
		r->score_holdout = sq_col_real(st, 7);
		r->passed = sqlite.sqlite3_column_int(st, 8) != 0;
		r->he_result = sq_col_dup(st, 9, &oom);
		r->harness_error = sqlite.sqlite3_column_int(st, 10) != 0;
		r->latency_ms = sqlite.sqlite3_column_int64(st, 11);
		r->cpu_ms = sqlite.sqlite3_column_int64(st, 12);
		r->peak_memory_bytes = sqlite.sqlite3_column_int64(st, 13);
		r->started_ms = sqlite.sqlite3_column_int64(st, 14);
		r->finished_ms = sqlite.sqlite3_column_int64(st, 15);
		r->completion = sq_col_dup(st, 16, &oom);
		r->rouge_l = sq_col_real(st, 17);
		{
			int ls = lint_status_parse(sq_text(st, 18));

			r->lint = ls < 0 ? LINT_NONE : (enum lint_status)ls;
		}
		r->lint_detail = sq_col_dup(st, 19, &oom);
		r->composite = sq_col_real(st, 20);
		r->base_status = sq_col_dup(st, 21, &oom);
		r->plus_status = sq_col_dup(st, 22, &oom);
		/* unreadable counts load as zero: a record is never refused for them */
		tripwires_from_text(sq_text(st, 23), &r->tripwires);
	}
	sqlite.sqlite3_reset(st);
	if (oom)
		goto fail_oom;
	if (rc != SQLITE_DONE)
		goto fail;
	for (size_t i = 0; i < len; i++) {
		if (!v[i].sample_id) {
			oom = true;
			break;
		}
		rc = load_tests(s, run_id, &v[i], &oom, err);
		if (rc == SQLITE_OK && !oom)
			rc = load_findings(s, run_id, &v[i], &oom);
		if (rc < 0) {
			sq_rollback(s);
			store_results_free(v, len);
			return -1;
		}
		if (oom)
			break;
		if (rc != SQLITE_OK)
			goto fail;
	}
	if (oom)
		goto fail_oom;
	sq_rollback(s);	/* read only: nothing to commit */
	*out = v;
	*n = len;
	return 0;
fail_oom:
	sq_rollback(s);
	store_results_free(v, len);
	return sd_error_set(err, ENOMEM, "cannot load run '%s' from '%s': out of memory", run_id, s->base.name);
fail:
	sq_fail(s, rc, err, "cannot load run '%s' from '%s'", run_id, s->base.name);
	sq_rollback(s);
	store_results_free(v, len);
	return -1;
}

