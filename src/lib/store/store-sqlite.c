/* store-sqlite.c - durable records of runs and evaluated samples in SQLite (schema: docs/scoring.md)
 *
 * One database file holds any number of runs. Four tables (schema version 3,
 * kept in PRAGMA user_version; older databases are migrated on open):
 *
 *   runs     one row per run: id, times, model, suite hash, config, seed,
 *            formula and sandeval versions, the tasks and samples paths
 *   samples  one row per evaluated sample, unique (run_id, sample_id); its
 *            rowid keeps the order the samples were recorded in
 *   tests    one row per test of a sample: (run_id, sample_id, idx) -> verdict
 *   findings one row per lint finding of a sample (version 2, with the
 *            samples' completion, rouge_l, lint, lint_detail, composite)
 *
 * Version 3 adds the samples' base_status and plus_status (EvalPlus tasks).
 *
 * Durability: WAL journal, synchronous=FULL, and each sample (its row and its
 * tests) is one transaction, so a run killed at any point keeps every sample
 * it finished, and --resume asks store_sample_done() which ones. NAN scores
 * are stored as NULL. A busy database is waited for (busy_timeout).
 */
#define _GNU_SOURCE
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

#define STORE_SCHEMA_VERSION 3
#define STORE_APPLICATION_ID 0x53444556	/* "SDEV": this file is a sandeval store */
#define STORE_BUSY_TIMEOUT_MS 10000

/* Migrations: schema[v] takes a database from version v to v + 1. */
static const char *const schema[] = {
	/* 0 -> 1 */
	"CREATE TABLE runs ("
	" id TEXT PRIMARY KEY,"
	" started_ms INTEGER NOT NULL,"
	" finished_ms INTEGER,"			/* NULL while the run is unfinished */
	" model TEXT,"
	" suite_hash TEXT,"
	" config_json TEXT,"
	" seed INTEGER,"
	" formula_version TEXT NOT NULL,"
	" sandeval_version TEXT,"
	" tasks_path TEXT,"
	" samples_path TEXT);"
	"CREATE TABLE samples ("
	" id INTEGER PRIMARY KEY,"		/* recording order */
	" run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" sample_id TEXT NOT NULL,"
	" task_id TEXT NOT NULL,"
	" task_class TEXT,"
	" model TEXT,"
	" sandbox_ids TEXT,"
	" score REAL,"				/* NULL: no score (NAN) */
	" score_public REAL,"
	" score_holdout REAL,"
	" passed INTEGER NOT NULL,"
	" he_result TEXT,"
	" harness_error INTEGER NOT NULL,"
	" latency_ms INTEGER,"
	" cpu_ms INTEGER,"
	" peak_memory_bytes INTEGER,"
	" started_ms INTEGER,"
	" finished_ms INTEGER,"
	" formula_version TEXT NOT NULL,"
	" UNIQUE (run_id, sample_id));"
	"CREATE TABLE tests ("
	" run_id TEXT NOT NULL,"
	" sample_id TEXT NOT NULL,"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" tier TEXT NOT NULL,"			/* canonical, edge, property */
	" weight REAL,"
	" visibility TEXT NOT NULL,"		/* public, holdout */
	" status TEXT NOT NULL,"		/* test_status_name() */
	" detail TEXT,"
	" in_process INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, sample_id, idx),"
	" FOREIGN KEY (run_id, sample_id) REFERENCES samples(run_id, sample_id) ON DELETE CASCADE);",
	/* 1 -> 2: lint results, the composite score, the completion and its ROUGE-L */
	"ALTER TABLE samples ADD COLUMN completion TEXT;"
	"ALTER TABLE samples ADD COLUMN rouge_l REAL;"
	"ALTER TABLE samples ADD COLUMN lint TEXT NOT NULL DEFAULT 'none';"	/* lint_status_name() */
	"ALTER TABLE samples ADD COLUMN lint_detail TEXT;"
	"ALTER TABLE samples ADD COLUMN composite REAL;"
	"CREATE TABLE findings ("
	" run_id TEXT NOT NULL,"
	" sample_id TEXT NOT NULL,"
	" idx INTEGER NOT NULL,"
	" tool TEXT NOT NULL,"
	" rule TEXT,"
	" category TEXT,"
	" severity TEXT NOT NULL,"		/* style, warning, error */
	" line INTEGER,"
	" message TEXT,"
	" PRIMARY KEY (run_id, sample_id, idx),"
	" FOREIGN KEY (run_id, sample_id) REFERENCES samples(run_id, sample_id) ON DELETE CASCADE);"
	"CREATE INDEX runs_started ON runs (started_ms);",
	/* 2 -> 3: EvalPlus's base_status and plus_status ("pass", "fail"; NULL for other tasks) */
	"ALTER TABLE samples ADD COLUMN base_status TEXT;"
	"ALTER TABLE samples ADD COLUMN plus_status TEXT;",
};

enum stmt_id {
	ST_RUN_INSERT,
	ST_RUN_FINISH,
	ST_RUN_GET,
	ST_SAMPLE_INSERT,
	ST_TEST_INSERT,
	ST_SAMPLE_DONE,
	ST_SAMPLES_LOAD,
	ST_TESTS_LOAD,
	ST_FINDING_INSERT,
	ST_FINDINGS_LOAD,
	ST_RUNS_LIST,
	ST_MAX
};

static const char *const stmt_sql[ST_MAX] = {
	[ST_RUN_INSERT] = "INSERT INTO runs (id, started_ms, finished_ms, model, suite_hash, config_json,"
		" seed, formula_version, sandeval_version, tasks_path, samples_path)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[ST_RUN_FINISH] = "UPDATE runs SET finished_ms = ?2 WHERE id = ?1",
	[ST_RUN_GET] = "SELECT started_ms, finished_ms, model, suite_hash, config_json, seed,"
		" formula_version, sandeval_version, tasks_path, samples_path FROM runs WHERE id = ?1",
	[ST_SAMPLE_INSERT] = "INSERT INTO samples (run_id, sample_id, task_id, task_class, model,"
		" sandbox_ids, score, score_public, score_holdout, passed, he_result, harness_error,"
		" latency_ms, cpu_ms, peak_memory_bytes, started_ms, finished_ms, formula_version,"
		" completion, rouge_l, lint, lint_detail, composite, base_status, plus_status)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
		" ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
	[ST_TEST_INSERT] = "INSERT INTO tests (run_id, sample_id, idx, name, tier, weight, visibility,"
		" status, detail, in_process) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[ST_SAMPLE_DONE] = "SELECT 1 FROM samples WHERE run_id = ?1 AND sample_id = ?2",
	[ST_SAMPLES_LOAD] = "SELECT sample_id, task_id, task_class, model, sandbox_ids, score,"
		" score_public, score_holdout, passed, he_result, harness_error, latency_ms, cpu_ms,"
		" peak_memory_bytes, started_ms, finished_ms, completion, rouge_l, lint, lint_detail, composite,"
		" base_status, plus_status FROM samples WHERE run_id = ?1 ORDER BY id",
	[ST_TESTS_LOAD] = "SELECT idx, name, tier, weight, visibility, status, detail, in_process"
		" FROM tests WHERE run_id = ?1 AND sample_id = ?2 ORDER BY idx",
	[ST_FINDING_INSERT] = "INSERT INTO findings (run_id, sample_id, idx, tool, rule, category, severity,"
		" line, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_FINDINGS_LOAD] = "SELECT tool, rule, category, severity, line, message"
		" FROM findings WHERE run_id = ?1 AND sample_id = ?2 ORDER BY idx",
	[ST_RUNS_LIST] = "SELECT id FROM runs ORDER BY started_ms, rowid",
};

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *st[ST_MAX];
};

static const char *const tier_names[] = {
	[TIER_CANONICAL] = "canonical", [TIER_EDGE] = "edge", [TIER_PROPERTY] = "property",
};
static const char *const vis_names[] = { [VIS_PUBLIC] = "public", [VIS_HOLDOUT] = "holdout" };

static const char *name_of(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : "unknown";
}

static int name_parse(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return (int)i;
	}
	return -1;
}

#define TIER_NAME(t) name_of(tier_names, 3, (unsigned)(t))
#define VIS_NAME(v) name_of(vis_names, 2, (unsigned)(v))

/* An errno value for an SQLite result code. */
static int db_errno(sqlite3 *db, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return EBUSY;
	case SQLITE_NOMEM:
		return ENOMEM;
	case SQLITE_FULL:
		return ENOSPC;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return EACCES;
	case SQLITE_CONSTRAINT:
		return EEXIST;
	case SQLITE_CANTOPEN:
		return db && sqlite3_system_errno(db) ? sqlite3_system_errno(db) : ENOENT;
	default:
		return EIO;
	}
}

/* "<what>: <sqlite message>" in *err; returns -1. */
static int __attribute__((format(printf, 4, 5)))
db_fail(struct store *s, int rc, struct sd_error *err, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sd_error_set(err, db_errno(s->db, rc), "%s: %s", what,
			    s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
}

static int64_t epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int exec_sql(struct store *s, const char *sql, struct sd_error *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(s, rc, err, "'%s'", s->path);
}

/* The integer a one-row statement (a PRAGMA) returns. */
static int query_int(struct store *s, const char *sql, long long *out, struct sd_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		*out = 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : db_fail(s, rc, err, "'%s'", s->path);
}

static void rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Bring the schema to STORE_SCHEMA_VERSION, all in one write transaction. */
static int migrate(struct store *s, struct sd_error *err)
{
	long long version, app_id, n_tables;
	char sql[128];

	if (exec_sql(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (query_int(s, "PRAGMA user_version", &version, err) < 0 ||
	    query_int(s, "PRAGMA application_id", &app_id, err) < 0 ||
	    query_int(s, "SELECT count(*) FROM sqlite_master", &n_tables, err) < 0)
		goto fail;
	if (version > STORE_SCHEMA_VERSION) {
		sd_error_set(err, EPROTO, "'%s': schema version %lld is newer than this sandeval's (%d)",
			     s->path, version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if ((version == 0 && n_tables > 0) || (version > 0 && app_id != STORE_APPLICATION_ID)) {
		sd_error_set(err, EINVAL, "'%s': not a sandeval database", s->path);
		goto fail;
	}
	for (; version < STORE_SCHEMA_VERSION; version++) {
		if (exec_sql(s, schema[version], err) < 0)
			goto fail;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld; PRAGMA application_id = %d",
			 version + 1, STORE_APPLICATION_ID);
		if (exec_sql(s, sql, err) < 0)
			goto fail;
	}
	return exec_sql(s, "COMMIT", err) < 0 ? (rollback(s), -1) : 0;
fail:
	rollback(s);
	return -1;
}

struct store *store_open(const char *path, struct sd_error *err)
{
	struct store *s = calloc(1, sizeof(*s));
	int rc;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		sd_error_set(err, ENOMEM, "cannot open '%s': out of memory", path);
		return NULL;
	}
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		int sys = s->db ? sqlite3_system_errno(s->db) : 0;

		if (sys)	/* "No such file or directory" says more than "unable to open database file" */
			sd_error_errno(err, sys, "cannot open '%s'", path);
		else
			db_fail(s, rc, err, "cannot open '%s'", path);
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	/* journal_mode answers with a row (the mode now in force): not exec_sql's job */
	{
		long long ignored;

		if (query_int(s, "PRAGMA journal_mode = WAL", &ignored, err) < 0)
			goto fail_wrap;
	}
	if (exec_sql(s, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", err) < 0 ||
	    migrate(s, err) < 0)
		goto fail_wrap;
	for (int i = 0; i < ST_MAX; i++) {
		rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
		if (rc != SQLITE_OK) {
			db_fail(s, rc, err, "cannot open '%s'", path);
			goto fail;
		}
	}
	return s;
fail_wrap:
	/* "'PATH': why" from exec_sql, query_int and migrate becomes "cannot open 'PATH': why" */
	if (err) {
		char why[sizeof(err->msg)];

		memcpy(why, err->msg, sizeof(why));
		snprintf(err->msg, sizeof(err->msg), "cannot open %s", why);
	}
fail:
	store_close(s);
	return NULL;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_MAX; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

/* A statement from the cache, reset and unbound. */
static sqlite3_stmt *stmt(struct store *s, enum stmt_id id)
{
	sqlite3_stmt *st = s->st[id];

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

static int bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

static int bind_real(sqlite3_stmt *st, int i, double v)
{
	return isnan(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* A malloc'd copy of a text column (NULL stays NULL); *oom set on ENOMEM. */
static char *col_dup(sqlite3_stmt *st, int i, bool *oom)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	char *d;

	if (!v)
		return NULL;
	d = strdup((const char *)v);
	if (!d)
		*oom = true;
	return d;
}

/* Run a statement to completion (no rows expected). */
static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int store_run_create(struct store *s, struct run_info *run, struct sd_error *err)
{
	sqlite3_stmt *st = stmt(s, ST_RUN_INSERT);
	char hex[17], id[sizeof(run->id)];
	int64_t started = run->started_ms ? run->started_ms : epoch_ms();
	int rc;

	if (random_hex(hex, 8, err) < 0)
		return sd_error_wrap(err, "cannot create a run in '%s'", s->path);
	snprintf(id, sizeof(id), "r-%s", hex);
	bind_text(st, 1, id);
	sqlite3_bind_int64(st, 2, started);
	if (run->finished_ms)
		sqlite3_bind_int64(st, 3, run->finished_ms);
	bind_text(st, 4, run->model);
	bind_text(st, 5, run->suite_hash);
	bind_text(st, 6, run->config_json);
	sqlite3_bind_int64(st, 7, run->seed);
	bind_text(st, 8, run->formula_version ? run->formula_version : SCORE_FORMULA_VERSION);
	bind_text(st, 9, run->sandeval_version);
	bind_text(st, 10, run->tasks_path);
	bind_text(st, 11, run->samples_path);
	rc = step_done(st);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, err, "cannot create a run in '%s'", s->path);
	memcpy(run->id, id, sizeof(id));
	run->started_ms = started;
	return 0;
}

int store_run_finish(struct store *s, const char *run_id, int64_t finished_ms, struct sd_error *err)
{
	sqlite3_stmt *st = stmt(s, ST_RUN_FINISH);
	int rc;

	bind_text(st, 1, run_id);
	sqlite3_bind_int64(st, 2, finished_ms ? finished_ms : epoch_ms());
	rc = step_done(st);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, err, "cannot finish run '%s' in '%s'", run_id, s->path);
	if (sqlite3_changes(s->db) == 0)
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", run_id, s->path);
	return 0;
}

void run_info_release(struct run_info *run)
{
	if (!run)
		return;
	free(run->model);
	free(run->tasks_path);
	free(run->samples_path);
	free(run->suite_hash);
	free(run->config_json);
	free(run->formula_version);
	free(run->sandeval_version);
	memset(run, 0, sizeof(*run));
}

int store_run_get(struct store *s, const char *run_id, struct run_info *run, struct sd_error *err)
{
	sqlite3_stmt *st = stmt(s, ST_RUN_GET);
	struct run_info r;
	bool oom = false;
	int rc;

	memset(&r, 0, sizeof(r));
	bind_text(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", run_id, s->path);
	}
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return db_fail(s, rc, err, "cannot read run '%s' from '%s'", run_id, s->path);
	}
	snprintf(r.id, sizeof(r.id), "%s", run_id);
	r.started_ms = sqlite3_column_int64(st, 0);
	r.finished_ms = sqlite3_column_int64(st, 1);	/* NULL reads as 0: unfinished */
	r.model = col_dup(st, 2, &oom);
	r.suite_hash = col_dup(st, 3, &oom);
	r.config_json = col_dup(st, 4, &oom);
	r.seed = sqlite3_column_int64(st, 5);
	r.formula_version = col_dup(st, 6, &oom);
	r.sandeval_version = col_dup(st, 7, &oom);
	r.tasks_path = col_dup(st, 8, &oom);
	r.samples_path = col_dup(st, 9, &oom);
	sqlite3_reset(st);
	if (oom) {
		run_info_release(&r);
		return sd_error_set(err, ENOMEM, "cannot read run '%s' from '%s': out of memory",
				    run_id, s->path);
	}
	*run = r;
	return 0;
}

static int put_tests(struct store *s, const char *run_id, const struct sample_result *r)
{
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct test_result *t = &r->tests[i];
		sqlite3_stmt *st = stmt(s, ST_TEST_INSERT);
		int rc;

		bind_text(st, 1, run_id);
		bind_text(st, 2, r->sample_id);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
		bind_text(st, 4, t->name ? t->name : "");
		bind_text(st, 5, TIER_NAME(t->tier));
		bind_real(st, 6, t->weight);
		bind_text(st, 7, VIS_NAME(t->visibility));
		bind_text(st, 8, test_status_name(t->status));
		bind_text(st, 9, t->detail);
		sqlite3_bind_int(st, 10, t->in_process);
		rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int put_findings(struct store *s, const char *run_id, const struct sample_result *r)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct lint_finding *f = &r->findings[i];
		sqlite3_stmt *st = stmt(s, ST_FINDING_INSERT);
		int rc;

		bind_text(st, 1, run_id);
		bind_text(st, 2, r->sample_id);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
		bind_text(st, 4, f->tool ? f->tool : "");
		bind_text(st, 5, f->rule);
		bind_text(st, 6, f->category);
		bind_text(st, 7, lint_severity_name(f->severity));
		sqlite3_bind_int(st, 8, f->line);
		bind_text(st, 9, f->message);
		rc = step_done(st);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

int store_sample_put(struct store *s, const char *run_id, const struct sample_result *r,
		     struct sd_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (!r->sample_id || !r->task_id)
		return sd_error_set(err, EINVAL, "cannot record a sample without %s in '%s'",
				    r->sample_id ? "task id" : "sample id", s->path);
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	st = stmt(s, ST_SAMPLE_INSERT);
	bind_text(st, 1, run_id);
	bind_text(st, 2, r->sample_id);
	bind_text(st, 3, r->task_id);
	bind_text(st, 4, r->task_class);
	bind_text(st, 5, r->model);
	bind_text(st, 6, r->sandbox_ids);
	bind_real(st, 7, r->score);
	bind_real(st, 8, r->score_public);
	bind_real(st, 9, r->score_holdout);
	sqlite3_bind_int(st, 10, r->passed);
	bind_text(st, 11, r->he_result);
	sqlite3_bind_int(st, 12, r->harness_error);
	sqlite3_bind_int64(st, 13, r->latency_ms);
	sqlite3_bind_int64(st, 14, r->cpu_ms);
	sqlite3_bind_int64(st, 15, r->peak_memory_bytes);
	sqlite3_bind_int64(st, 16, r->started_ms);
	sqlite3_bind_int64(st, 17, r->finished_ms);
	bind_text(st, 18, SCORE_FORMULA_VERSION);
	bind_text(st, 19, r->completion);
	bind_real(st, 20, r->rouge_l);
	bind_text(st, 21, lint_status_name(r->lint));
	bind_text(st, 22, r->lint_detail);
	bind_real(st, 23, r->composite);
	bind_text(st, 24, r->base_status);
	bind_text(st, 25, r->plus_status);
	rc = step_done(st);
	if (rc == SQLITE_OK)
		rc = put_tests(s, run_id, r);
	if (rc == SQLITE_OK)
		rc = put_findings(s, run_id, r);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
fail:
	db_fail(s, rc, err, "cannot record sample '%s' of run '%s' in '%s'", r->sample_id, run_id, s->path);
	rollback(s);
	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		sd_error_set(err, EEXIST, "sample '%s' is already recorded in run '%s' of '%s'",
			     r->sample_id, run_id, s->path);
	else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		sd_error_set(err, ENOENT, "cannot record sample '%s': no run '%s' in '%s'",
			     r->sample_id, run_id, s->path);
	return -1;
}

int store_sample_done(struct store *s, const char *run_id, const char *sample_id, struct sd_error *err)
{
	sqlite3_stmt *st = stmt(s, ST_SAMPLE_DONE);
	int rc;

	bind_text(st, 1, run_id);
	bind_text(st, 2, sample_id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_fail(s, rc, err, "cannot look up sample '%s' of run '%s' in '%s'", sample_id, run_id, s->path);
}

/* The tests of one sample into r->tests; an SQLite code, or -1 for bad data (message in *err). */
static int load_tests(struct store *s, const char *run_id, struct sample_result *r, bool *oom,
		      struct sd_error *err)
{
	sqlite3_stmt *st = stmt(s, ST_TESTS_LOAD);
	size_t cap = 0;
	int rc;

	bind_text(st, 1, run_id);
	bind_text(st, 2, r->sample_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct test_result *t;
		const char *tier = (const char *)sqlite3_column_text(st, 2);
		const char *vis = (const char *)sqlite3_column_text(st, 4);
		const char *status = (const char *)sqlite3_column_text(st, 5);
		int ti = name_parse(tier_names, 3, tier), vi = name_parse(vis_names, 2, vis);
		int si = test_status_parse(status);

		if (ti < 0 || vi < 0 || si < 0) {
			sd_error_set(err, EPROTO, "'%s': run '%s', sample '%s', test %lld: unknown %s '%s'",
				     s->path, run_id, r->sample_id, (long long)sqlite3_column_int64(st, 0),
				     ti < 0 ? "tier" : vi < 0 ? "visibility" : "status",
				     ti < 0 ? (tier ? tier : "") : vi < 0 ? (vis ? vis : "") : (status ? status : ""));
			sqlite3_reset(st);
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
		t->name = col_dup(st, 1, oom);
		t->tier = (enum test_tier)ti;
		t->weight = col_real(st, 3);
		t->visibility = (enum test_visibility)vi;
		t->status = (enum test_status)si;
		t->detail = col_dup(st, 6, oom);
		t->in_process = sqlite3_column_int(st, 7) != 0;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* The lint findings of one sample into r->findings; an SQLite code. */
static int load_findings(struct store *s, const char *run_id, struct sample_result *r, bool *oom)
{
	sqlite3_stmt *st = stmt(s, ST_FINDINGS_LOAD);
	size_t cap = 0;
	int rc;

	bind_text(st, 1, run_id);
	bind_text(st, 2, r->sample_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lint_finding *f;
		int sev = lint_severity_parse((const char *)sqlite3_column_text(st, 3));

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
		f->tool = col_dup(st, 0, oom);
		f->rule = col_dup(st, 1, oom);
		f->category = col_dup(st, 2, oom);
		f->severity = sev < 0 ? LINT_SEV_ERROR : (enum lint_severity)sev;
		f->line = sqlite3_column_int(st, 4);
		f->message = col_dup(st, 5, oom);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static void results_free(struct sample_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
}

int store_samples_load(struct store *s, const char *run_id, struct sample_result **out, size_t *n,
		       struct sd_error *err)
{
	sqlite3_stmt *st;
	struct sample_result *v = NULL;
	size_t len = 0, cap = 0;
	bool oom = false;
	int rc;

	rc = sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL);	/* one snapshot for all reads */
	if (rc != SQLITE_OK)
		goto fail;
	st = stmt(s, ST_SAMPLES_LOAD);
	bind_text(st, 1, run_id);
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
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
		r->sample_id = col_dup(st, 0, &oom);
		r->task_id = col_dup(st, 1, &oom);
		r->task_class = col_dup(st, 2, &oom);
		r->model = col_dup(st, 3, &oom);
		r->sandbox_ids = col_dup(st, 4, &oom);
		r->score = col_real(st, 5);
		r->score_public = col_real(st, 6);
		r->score_holdout = col_real(st, 7);
		r->passed = sqlite3_column_int(st, 8) != 0;
		r->he_result = col_dup(st, 9, &oom);
		r->harness_error = sqlite3_column_int(st, 10) != 0;
		r->latency_ms = sqlite3_column_int64(st, 11);
		r->cpu_ms = sqlite3_column_int64(st, 12);
		r->peak_memory_bytes = sqlite3_column_int64(st, 13);
		r->started_ms = sqlite3_column_int64(st, 14);
		r->finished_ms = sqlite3_column_int64(st, 15);
		r->completion = col_dup(st, 16, &oom);
		r->rouge_l = col_real(st, 17);
		{
			int ls = lint_status_parse((const char *)sqlite3_column_text(st, 18));

			r->lint = ls < 0 ? LINT_NONE : (enum lint_status)ls;
		}
		r->lint_detail = col_dup(st, 19, &oom);
		r->composite = col_real(st, 20);
		r->base_status = col_dup(st, 21, &oom);
		r->plus_status = col_dup(st, 22, &oom);
	}
	sqlite3_reset(st);
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
			rollback(s);
			results_free(v, len);
			return -1;
		}
		if (oom)
			break;
		if (rc != SQLITE_OK)
			goto fail;
	}
	if (oom)
		goto fail_oom;
	rollback(s);	/* read only: nothing to commit */
	*out = v;
	*n = len;
	return 0;
fail_oom:
	rollback(s);
	results_free(v, len);
	return sd_error_set(err, ENOMEM, "cannot load run '%s' from '%s': out of memory", run_id, s->path);
fail:
	db_fail(s, rc, err, "cannot load run '%s' from '%s'", run_id, s->path);
	rollback(s);
	results_free(v, len);
	return -1;
}

int store_runs_list(struct store *s, char ***ids, size_t *n, struct sd_error *err)
{
	sqlite3_stmt *st = stmt(s, ST_RUNS_LIST);
	char **v = NULL;
	size_t len = 0, cap = 0;
	bool oom = false;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len + 1 >= cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				oom = true;
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[len] = col_dup(st, 0, &oom);
		v[++len] = NULL;
		if (oom)
			break;
	}
	sqlite3_reset(st);
	if (oom || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
		for (size_t i = 0; i < len; i++)
			free(v[i]);
		free(v);
		if (oom)
			return sd_error_set(err, ENOMEM, "cannot list the runs of '%s': out of memory", s->path);
		return db_fail(s, rc, err, "cannot list the runs of '%s'", s->path);
	}
	*ids = v;
	*n = len;
	return 0;
}
