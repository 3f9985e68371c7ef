/* store-sqlite.c - durable records of runs and evaluated samples in SQLite (schema: docs/scoring.md): open, schema, runs, shards
 *
 * One database file holds any number of runs. Five tables (schema version 3,
 * kept in PRAGMA user_version; older databases are migrated on open):
 *
 *   runs     one row per run: id, times, model, suite hash, config, seed,
 *            formula and sandeval versions, the tasks and samples paths;
 *            (version 3) its number of shards and of samples
 *   samples  one row per evaluated sample, unique (run_id, sample_id); its
 *            rowid keeps the order the samples were recorded in; (version 3)
 *            the shard that recorded it
 *   tests    one row per test of a sample: (run_id, sample_id, idx) -> verdict
 *   findings one row per lint finding of a sample (version 2, with the
 *            samples' completion, rouge_l, lint, lint_detail, composite)
 *   shards   (version 3) one row per started shard of a sharded run
 *
 * Version 4 adds the samples' base_status and plus_status (EvalPlus tasks).
 * Version 5 adds the steps of agent runs (agent_steps); version 6 the samples' tripwires (JSON text, tripwire.h), the
 * circuit breaker's history (breaker: one row per trip or reset) and the
 * runs' anomaly alerts (alerts).
 *
 * Durability: WAL journal, synchronous=FULL, and each sample (its row and its
 * tests) is one transaction, so a run killed at any point keeps every sample
 * it finished, and --resume asks store_sample_done() which ones. NAN scores
 * are stored as NULL. A busy database is waited for (busy_timeout). The
 * samples' half is store-sqlite-sample.c.
 */
#define _GNU_SOURCE
#include "store/store-sqlite-internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

struct sqlite_api sqlite;

int sq_load_lib(struct sd_error *err)
{
	static void *lib;
	void *h;

	if (lib)
		return 0;
	h = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return sd_error_set(err, ELIBACC, "SQLite's library cannot be loaded (%s; apt-get install libsqlite3-0)",
				    dlerror());
#define SQLITE_LOOKUP(ret, name, args) \
	if (!(*(void **)&sqlite.name = dlsym(h, #name))) { \
		dlclose(h); \
		return sd_error_set(err, ENOSYS, "libsqlite3.so.0 has no " #name " (SQLite 3.20 or later is needed)"); \
	}
	SQLITE_FUNCS(SQLITE_LOOKUP)
#undef SQLITE_LOOKUP
	lib = h;
	return 0;
}

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
	/* 2 -> 3: sharded runs (docs/scale.md) */
	"ALTER TABLE runs ADD COLUMN shards INTEGER;"		/* N of a sharded run; NULL: not sharded */
	"ALTER TABLE runs ADD COLUMN n_samples INTEGER;"	/* the samples the run is to record */
	"ALTER TABLE samples ADD COLUMN shard INTEGER;"	/* the shard that recorded it; NULL: none */
	"CREATE TABLE shards ("
	" run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" shard INTEGER NOT NULL,"
	" n_samples INTEGER NOT NULL,"		/* its slice */
	" attempts INTEGER NOT NULL,"		/* processes that started it */
	" host TEXT,"				/* where the last one ran */
	" started_ms INTEGER NOT NULL,"		/* the last start */
	" finished_ms INTEGER,"			/* NULL until its whole slice is recorded */
	" PRIMARY KEY (run_id, shard));",
	/* 3 -> 4: EvalPlus's base_status and plus_status ("pass", "fail"; NULL for other tasks) */
	"ALTER TABLE samples ADD COLUMN base_status TEXT;"
	"ALTER TABLE samples ADD COLUMN plus_status TEXT;",
	/* 4 -> 5: the steps of agent runs (docs/agent.md) */
	"CREATE TABLE agent_steps ("
	" seq INTEGER PRIMARY KEY,"		/* recording order */
	" agent_id TEXT NOT NULL,"
	" kind TEXT NOT NULL,"
	" task_id TEXT,"
	" round INTEGER,"
	" body TEXT NOT NULL,"			/* JSON */
	" at_ms INTEGER NOT NULL);"
	"CREATE INDEX agent_steps_agent ON agent_steps (agent_id, seq);",
	/* 5 -> 6: what each sample's candidate tried (NULL: recorded before
	 * tripwires), and the circuit breaker's trips and resets */
	"ALTER TABLE samples ADD COLUMN tripwires TEXT;"
	"CREATE TABLE breaker ("
	" id INTEGER PRIMARY KEY,"		/* the order of events */
	" at_ms INTEGER NOT NULL,"
	" event TEXT NOT NULL,"			/* "trip" or "reset" */
	" run_id TEXT,"				/* trip: the run that tripped it */
	" by TEXT,"				/* reset: who */
	" reason TEXT NOT NULL);"
	"CREATE TABLE alerts ("			/* anomaly alerts of runs (eval/alert.h) */
	" id INTEGER PRIMARY KEY,"
	" run_id TEXT NOT NULL,"
	" at_ms INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"			/* "metadata_probes", "network_attempts", ... */
	" rate REAL NOT NULL,"			/* per 1,000 samples, this run */
	" baseline REAL NOT NULL,"		/* the same, the earlier runs of the suite */
	" message TEXT NOT NULL);",
};

static const char *const stmt_sql[ST_MAX] = {
	[ST_RUN_INSERT] = "INSERT INTO runs (id, started_ms, finished_ms, model, suite_hash, config_json,"
		" seed, formula_version, sandeval_version, tasks_path, samples_path, shards, n_samples)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_RUN_FINISH] = "UPDATE runs SET finished_ms = ?2 WHERE id = ?1",
	[ST_RUN_GET] = "SELECT started_ms, finished_ms, model, suite_hash, config_json, seed,"
		" formula_version, sandeval_version, tasks_path, samples_path, shards, n_samples,"
		" (SELECT count(*) FROM samples WHERE run_id = ?1) FROM runs WHERE id = ?1",
	[ST_SAMPLE_INSERT] = "INSERT INTO samples (run_id, sample_id, task_id, task_class, model,"
		" sandbox_ids, score, score_public, score_holdout, passed, he_result, harness_error,"
		" latency_ms, cpu_ms, peak_memory_bytes, started_ms, finished_ms, formula_version,"
		" completion, rouge_l, lint, lint_detail, composite, shard, base_status, plus_status, tripwires)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
		" ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)",
	[ST_TEST_INSERT] = "INSERT INTO tests (run_id, sample_id, idx, name, tier, weight, visibility,"
		" status, detail, in_process) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[ST_SAMPLE_DONE] = "SELECT 1 FROM samples WHERE run_id = ?1 AND sample_id = ?2",
	[ST_SAMPLES_LOAD] = "SELECT sample_id, task_id, task_class, model, sandbox_ids, score,"
		" score_public, score_holdout, passed, he_result, harness_error, latency_ms, cpu_ms,"
		" peak_memory_bytes, started_ms, finished_ms, completion, rouge_l, lint, lint_detail, composite,"
		" base_status, plus_status, tripwires FROM samples WHERE run_id = ?1 ORDER BY id",
	[ST_TESTS_LOAD] = "SELECT idx, name, tier, weight, visibility, status, detail, in_process"
		" FROM tests WHERE run_id = ?1 AND sample_id = ?2 ORDER BY idx",
	[ST_FINDING_INSERT] = "INSERT INTO findings (run_id, sample_id, idx, tool, rule, category, severity,"
		" line, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_FINDINGS_LOAD] = "SELECT tool, rule, category, severity, line, message"
		" FROM findings WHERE run_id = ?1 AND sample_id = ?2 ORDER BY idx",
	[ST_RUNS_LIST] = "SELECT id FROM runs ORDER BY started_ms, rowid",
	[ST_SHARD_START] = "INSERT INTO shards (run_id, shard, n_samples, attempts, host, started_ms)"
		" VALUES (?1, ?2, ?3, 1, ?4, ?5) ON CONFLICT (run_id, shard) DO UPDATE SET"
		" attempts = attempts + 1, n_samples = excluded.n_samples, host = excluded.host,"
		" started_ms = excluded.started_ms",
	[ST_SHARD_FINISH] = "UPDATE shards SET finished_ms = coalesce(finished_ms, ?3) WHERE run_id = ?1 AND shard = ?2",
	/* the run is finished once it holds every sample, whichever shard sees it */
	[ST_RUN_COMPLETE] = "UPDATE runs SET finished_ms = ?2 WHERE id = ?1 AND finished_ms IS NULL"
		" AND n_samples IS NOT NULL AND (SELECT count(*) FROM samples WHERE run_id = ?1) >= n_samples",
	[ST_SHARDS_GET] = "SELECT shard, n_samples, attempts, host, started_ms, finished_ms"
		" FROM shards WHERE run_id = ?1",
	[ST_SHARD_COUNTS] = "SELECT shard, count(*), max(finished_ms) FROM samples"
		" WHERE run_id = ?1 AND shard IS NOT NULL GROUP BY shard",
	[ST_AGENT_STEP_INSERT] = "INSERT INTO agent_steps (agent_id, kind, task_id, round, body, at_ms)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_AGENT_STEPS_LOAD] = "SELECT seq, kind, task_id, round, body, at_ms FROM agent_steps"
		" WHERE agent_id = ?1 ORDER BY seq",
};

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
		return db && sqlite.sqlite3_system_errno(db) ? sqlite.sqlite3_system_errno(db) : ENOENT;
	default:
		return EIO;
	}
}

int sq_fail(struct store_sqlite *s, int rc, struct sd_error *err, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sd_error_set(err, db_errno(s->db, rc), "%s: %s", what,
			    s->db ? sqlite.sqlite3_errmsg(s->db) : sqlite.sqlite3_errstr(rc));
}

static int64_t epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int exec_sql(struct store_sqlite *s, const char *sql, struct sd_error *err)
{
	int rc = sqlite.sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, err, "'%s'", s->base.name);
}

/* The integer a one-row statement (a PRAGMA) returns. */
static int query_int(struct store_sqlite *s, const char *sql, long long *out, struct sd_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite.sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite.sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		*out = 0;
		rc = SQLITE_OK;
	}
	sqlite.sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, err, "'%s'", s->base.name);
}

void sq_rollback(struct store_sqlite *s)
{
	if (!sqlite.sqlite3_get_autocommit(s->db))
		sqlite.sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Bring the schema to STORE_SCHEMA_VERSION, all in one write transaction. */
static int migrate(struct store_sqlite *s, struct sd_error *err)
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
			     s->base.name, version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if ((version == 0 && n_tables > 0) || (version > 0 && app_id != STORE_APPLICATION_ID)) {
		sd_error_set(err, EINVAL, "'%s': not a sandeval database", s->base.name);
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
	return exec_sql(s, "COMMIT", err) < 0 ? (sq_rollback(s), -1) : 0;
fail:
	sq_rollback(s);
	return -1;
}

static void sq_close(struct store *base)
{
	struct store_sqlite *s = sq(base);

	for (int i = 0; i < ST_MAX; i++)
		sqlite.sqlite3_finalize(s->st[i]);
	sqlite.sqlite3_close_v2(s->db);
	free(s->base.name);
	free(s);
}

static struct store *sq_open(const char *path, bool must_exist, struct sd_error *err)
{
	struct store_sqlite *s;
	int rc, flags = SQLITE_OPEN_READWRITE | (must_exist ? 0 : SQLITE_OPEN_CREATE);

	if (sq_load_lib(err) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->base.name = strdup(path))) {
		free(s);
		sd_error_set(err, ENOMEM, "cannot open '%s': out of memory", path);
		return NULL;
	}
	s->base.ops = &store_sqlite_ops;
	/* an in-memory or temporary database (lint without --db) is never "missing" */
	if (must_exist && *path && strcmp(path, ":memory:") != 0 && access(path, F_OK) < 0) {
		sd_error_errno(err, errno, "cannot open '%s'", path);
		goto fail;
	}
	rc = sqlite.sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		int sys = s->db ? sqlite.sqlite3_system_errno(s->db) : 0;

		if (sys)	/* "No such file or directory" says more than "unable to open database file" */
			sd_error_errno(err, sys, "cannot open '%s'", path);
		else
			sq_fail(s, rc, err, "cannot open '%s'", path);
		goto fail;
	}
	sqlite.sqlite3_extended_result_codes(s->db, 1);
	sqlite.sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
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
		rc = sqlite.sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
		if (rc != SQLITE_OK) {
			sq_fail(s, rc, err, "cannot open '%s'", path);
			goto fail;
		}
	}
	return &s->base;
fail_wrap:
	/* "'PATH': why" from exec_sql, query_int and migrate becomes "cannot open 'PATH': why" */
	if (err) {
		char why[sizeof(err->msg)];

		memcpy(why, err->msg, sizeof(why));
		snprintf(err->msg, sizeof(err->msg), "cannot open %s", why);
	}
fail:
	sq_close(&s->base);
	return NULL;
}

sqlite3_stmt *sq_stmt(struct store_sqlite *s, enum stmt_id id)
{
	sqlite3_stmt *st = s->st[id];

	sqlite.sqlite3_reset(st);
	sqlite.sqlite3_clear_bindings(st);
	return st;
}

int sq_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite.sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite.sqlite3_bind_null(st, i);
}

int sq_bind_real(sqlite3_stmt *st, int i, double v)
{
	return isnan(v) ? sqlite.sqlite3_bind_null(st, i) : sqlite.sqlite3_bind_double(st, i, v);
}

double sq_col_real(sqlite3_stmt *st, int i)
{
	return sqlite.sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite.sqlite3_column_double(st, i);
}

char *sq_col_dup(sqlite3_stmt *st, int i, bool *oom)
{
	const unsigned char *v = sqlite.sqlite3_column_text(st, i);
	char *d;

	if (!v)
		return NULL;
	d = strdup((const char *)v);
	if (!d)
		*oom = true;
	return d;
}

int sq_step_done(sqlite3_stmt *st)
{
	int rc = sqlite.sqlite3_step(st);

	sqlite.sqlite3_reset(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int sq_run_create(struct store *base, struct run_info *run, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_RUN_INSERT);
	char hex[17], id[sizeof(run->id)];
	int64_t started = run->started_ms ? run->started_ms : epoch_ms();
	int rc;

	if (run->id[0]) {
		snprintf(id, sizeof(id), "%s", run->id);
	} else {
		if (random_hex(hex, 8, err) < 0)
			return sd_error_wrap(err, "cannot create a run in '%s'", base->name);
		snprintf(id, sizeof(id), "r-%s", hex);
	}
	sq_bind_text(st, 1, id);
	sqlite.sqlite3_bind_int64(st, 2, started);
	if (run->finished_ms)
		sqlite.sqlite3_bind_int64(st, 3, run->finished_ms);
	sq_bind_text(st, 4, run->model);
	sq_bind_text(st, 5, run->suite_hash);
	sq_bind_text(st, 6, run->config_json);
	sqlite.sqlite3_bind_int64(st, 7, run->seed);
	sq_bind_text(st, 8, run->formula_version ? run->formula_version : SCORE_FORMULA_VERSION);
	sq_bind_text(st, 9, run->sandeval_version);
	sq_bind_text(st, 10, run->tasks_path);
	sq_bind_text(st, 11, run->samples_path);
	if (run->shards)
		sqlite.sqlite3_bind_int(st, 12, run->shards);
	if (run->n_samples)
		sqlite.sqlite3_bind_int64(st, 13, run->n_samples);
	rc = sq_step_done(st);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
		return sd_error_set(err, EEXIST, "there is already a run '%s' in '%s'", id, base->name);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, err, "cannot create a run in '%s'", base->name);
	memcpy(run->id, id, sizeof(id));
	run->started_ms = started;
	return 0;
}

static int sq_run_finish(struct store *base, const char *run_id, int64_t finished_ms, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_RUN_FINISH);
	int rc;

	sq_bind_text(st, 1, run_id);
	sqlite.sqlite3_bind_int64(st, 2, finished_ms);
	rc = sq_step_done(st);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, err, "cannot finish run '%s' in '%s'", run_id, base->name);
	if (sqlite.sqlite3_changes(s->db) == 0)
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", run_id, base->name);
	return 0;
}

static int sq_run_get(struct store *base, const char *run_id, struct run_info *run, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_RUN_GET);
	struct run_info r;
	bool oom = false;
	int rc;

	memset(&r, 0, sizeof(r));
	sq_bind_text(st, 1, run_id);
	rc = sqlite.sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite.sqlite3_reset(st);
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", run_id, base->name);
	}
	if (rc != SQLITE_ROW) {
		sqlite.sqlite3_reset(st);
		return sq_fail(s, rc, err, "cannot read run '%s' from '%s'", run_id, base->name);
	}
	snprintf(r.id, sizeof(r.id), "%s", run_id);
	r.started_ms = sqlite.sqlite3_column_int64(st, 0);
	r.finished_ms = sqlite.sqlite3_column_int64(st, 1);	/* NULL reads as 0: unfinished */
	r.model = sq_col_dup(st, 2, &oom);
	r.suite_hash = sq_col_dup(st, 3, &oom);
	r.config_json = sq_col_dup(st, 4, &oom);
	r.seed = sqlite.sqlite3_column_int64(st, 5);
	r.formula_version = sq_col_dup(st, 6, &oom);
	r.sandeval_version = sq_col_dup(st, 7, &oom);
	r.tasks_path = sq_col_dup(st, 8, &oom);
	r.samples_path = sq_col_dup(st, 9, &oom);
	r.shards = sqlite.sqlite3_column_int(st, 10);		/* NULL: 0, not sharded */
	r.n_samples = sqlite.sqlite3_column_int64(st, 11);
	r.n_recorded = sqlite.sqlite3_column_int64(st, 12);
	sqlite.sqlite3_reset(st);
	if (oom) {
		run_info_release(&r);
		return sd_error_set(err, ENOMEM, "cannot read run '%s' from '%s': out of memory",
				    run_id, base->name);
	}
	*run = r;
	return 0;
}

static int sq_runs_list(struct store *base, char ***ids, size_t *n, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_RUNS_LIST);
	char **v = NULL;
	size_t len = 0, cap = 0;
	bool oom = false;
	int rc;

	while ((rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
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
		v[len] = sq_col_dup(st, 0, &oom);
		v[++len] = NULL;
		if (oom)
			break;
	}
	sqlite.sqlite3_reset(st);
	if (oom || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
		for (size_t i = 0; i < len; i++)
			free(v[i]);
		free(v);
		if (oom)
			return sd_error_set(err, ENOMEM, "cannot list the runs of '%s': out of memory", base->name);
		return sq_fail(s, rc, err, "cannot list the runs of '%s'", base->name);
	}
	*ids = v;
	*n = len;
	return 0;
}

/* --- shards --- */

static int sq_shard_start(struct store *base, const char *run_id, int shard, int64_t n_samples, const char *host,
			  int64_t now, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_SHARD_START);
	int rc;

	sq_bind_text(st, 1, run_id);
	sqlite.sqlite3_bind_int(st, 2, shard);
	sqlite.sqlite3_bind_int64(st, 3, n_samples);
	sq_bind_text(st, 4, host);
	sqlite.sqlite3_bind_int64(st, 5, now);
	rc = sq_step_done(st);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", run_id, base->name);
	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, err, "cannot start shard %d of run '%s' in '%s'", shard,
					      run_id, base->name);
}

/* The shard's row, then the run's (finished once it holds every sample),
 * in one write transaction: the last two shards to finish see each other. */
static int sq_shard_finish(struct store *base, const char *run_id, int shard, int64_t finished_ms, bool *complete,
			   struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	struct run_info r;
	sqlite3_stmt *st;
	int rc = sqlite.sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		goto fail;
	st = sq_stmt(s, ST_SHARD_FINISH);
	sq_bind_text(st, 1, run_id);
	sqlite.sqlite3_bind_int(st, 2, shard);
	sqlite.sqlite3_bind_int64(st, 3, finished_ms);
	rc = sq_step_done(st);
	if (rc == SQLITE_OK && sqlite.sqlite3_changes(s->db) == 0) {
		sq_rollback(s);
		return sd_error_set(err, ENOENT, "shard %d of run '%s' was never started in '%s'", shard, run_id,
				    base->name);
	}
	if (rc == SQLITE_OK) {
		st = sq_stmt(s, ST_RUN_COMPLETE);
		sq_bind_text(st, 1, run_id);
		sqlite.sqlite3_bind_int64(st, 2, finished_ms);
		rc = sq_step_done(st);
	}
	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	if (sq_run_get(base, run_id, &r, err) < 0)
		return -1;
	*complete = r.finished_ms != 0;
	run_info_release(&r);
	return 0;
fail:
	sq_fail(s, rc, err, "cannot finish shard %d of run '%s' in '%s'", shard, run_id, base->name);
	sq_rollback(s);
	return -1;
}

static int sq_shards_get(struct store *base, const char *run_id, struct shard_info *v, size_t n,
			 struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st;
	int rc = sqlite.sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL);	/* one snapshot for both */

	if (rc != SQLITE_OK)
		goto fail;
	st = sq_stmt(s, ST_SHARDS_GET);
	sq_bind_text(st, 1, run_id);
	while ((rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		int i = sqlite.sqlite3_column_int(st, 0);
		const unsigned char *host = sqlite.sqlite3_column_text(st, 3);

		if (i < 0 || (size_t)i >= n)
			continue;
		v[i].started = true;
		v[i].n_samples = sqlite.sqlite3_column_int64(st, 1);
		v[i].attempts = sqlite.sqlite3_column_int(st, 2);
		snprintf(v[i].host, sizeof(v[i].host), "%s", host ? (const char *)host : "");
		v[i].started_ms = sqlite.sqlite3_column_int64(st, 4);
		v[i].finished_ms = sqlite.sqlite3_column_int64(st, 5);
	}
	sqlite.sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto fail;
	st = sq_stmt(s, ST_SHARD_COUNTS);
	sq_bind_text(st, 1, run_id);
	while ((rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		int i = sqlite.sqlite3_column_int(st, 0);

		if (i < 0 || (size_t)i >= n)
			continue;
		v[i].n_recorded = sqlite.sqlite3_column_int64(st, 1);
		v[i].last_ms = sqlite.sqlite3_column_int64(st, 2);
	}
	sqlite.sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto fail;
	sq_rollback(s);
	return 0;
fail:
	sq_fail(s, rc, err, "cannot read the shards of run '%s' from '%s'", run_id, base->name);
	sq_rollback(s);
	return -1;
}

/* --- agent runs --- */

static int sq_agent_step_put(struct store *base, const char *agent_id, const struct agent_step *step,
			     struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_AGENT_STEP_INSERT);
	int rc;

	sq_bind_text(st, 1, agent_id);
	sq_bind_text(st, 2, step->kind);
	sq_bind_text(st, 3, step->task_id);
	sqlite.sqlite3_bind_int(st, 4, step->round);
	sq_bind_text(st, 5, step->body);
	sqlite.sqlite3_bind_int64(st, 6, step->at_ms);
	rc = sq_step_done(st);
	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, err, "cannot record a step of agent run '%s' in '%s'", agent_id,
					      base->name);
}

static int sq_agent_steps_load(struct store *base, const char *agent_id, struct agent_step **out, size_t *n,
			       struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = sq_stmt(s, ST_AGENT_STEPS_LOAD);
	struct agent_step *v = NULL;
	size_t len = 0, cap = 0;
	bool oom = false;
	int rc;

	sq_bind_text(st, 1, agent_id);
	while ((rc = sqlite.sqlite3_step(st)) == SQLITE_ROW && !oom) {
		struct agent_step *x;

		if (len == cap) {
			struct agent_step *nv = realloc(v, (cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				oom = true;
				break;
			}
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		x = &v[len++];
		x->seq = sqlite.sqlite3_column_int64(st, 0);
		x->kind = sq_col_dup(st, 1, &oom);
		x->task_id = sq_col_dup(st, 2, &oom);
		x->round = sqlite.sqlite3_column_int(st, 3);
		x->body = sq_col_dup(st, 4, &oom);
		x->at_ms = sqlite.sqlite3_column_int64(st, 5);
	}
	sqlite.sqlite3_reset(st);
	if (oom || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
		agent_steps_free(v, len);
		return oom ? sd_error_set(err, ENOMEM, "out of memory")
			   : sq_fail(s, rc, err, "cannot read agent run '%s' from '%s'", agent_id, base->name);
	}
	*out = v;
	*n = len;
	return 0;
}

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.run_create = sq_run_create,
	.run_finish = sq_run_finish,
	.run_get = sq_run_get,
	.runs_list = sq_runs_list,
	.breaker_add = sq_breaker_add,
	.breaker_history = sq_breaker_history,
	.alert_add = sq_alert_add,
	.alerts_get = sq_alerts_get,
	.sample_put = sq_sample_put,
	.sample_done = sq_sample_done,
	.samples_load = sq_samples_load,
	.shard_start = sq_shard_start,
	.shard_finish = sq_shard_finish,
	.shards_get = sq_shards_get,
	.agent_step_put = sq_agent_step_put,
	.agent_steps_load = sq_agent_steps_load,
};
