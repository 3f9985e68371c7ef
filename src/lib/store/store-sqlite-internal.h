/* store-sqlite-internal.h - what the two halves of the SQLite store share: the handle, its statements, helpers */
#ifndef SANDEVAL_STORE_SQLITE_INTERNAL_H
#define SANDEVAL_STORE_SQLITE_INTERNAL_H

#include <sqlite3.h>

#include "store/store-internal.h"

/* libsqlite3 is loaded with dlopen when the first SQLite store is opened
 * (sq_load_lib): linked in, its relocations cost every start of sandeval,
 * `sandeval exec` too, which never opens a store (docs/benchmarks-exec.md,
 * 2026-12-04, night). Only these functions are used; <sqlite3.h> gives the types. */
#define SQLITE_FUNCS(X) \
	X(int, sqlite3_open_v2, (const char *, sqlite3 **, int, const char *)) \
	X(int, sqlite3_close_v2, (sqlite3 *)) \
	X(int, sqlite3_busy_timeout, (sqlite3 *, int)) \
	X(int, sqlite3_extended_result_codes, (sqlite3 *, int)) \
	X(int, sqlite3_exec, (sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **)) \
	X(int, sqlite3_prepare_v2, (sqlite3 *, const char *, int, sqlite3_stmt **, const char **)) \
	X(int, sqlite3_prepare_v3, (sqlite3 *, const char *, int, unsigned int, sqlite3_stmt **, const char **)) \
	X(int, sqlite3_step, (sqlite3_stmt *)) \
	X(int, sqlite3_reset, (sqlite3_stmt *)) \
	X(int, sqlite3_clear_bindings, (sqlite3_stmt *)) \
	X(int, sqlite3_finalize, (sqlite3_stmt *)) \
	X(int, sqlite3_bind_int, (sqlite3_stmt *, int, int)) \
	X(int, sqlite3_bind_int64, (sqlite3_stmt *, int, sqlite3_int64)) \
	X(int, sqlite3_bind_double, (sqlite3_stmt *, int, double)) \
	X(int, sqlite3_bind_null, (sqlite3_stmt *, int)) \
	X(int, sqlite3_bind_text, (sqlite3_stmt *, int, const char *, int, void (*)(void *))) \
	X(int, sqlite3_column_type, (sqlite3_stmt *, int)) \
	X(int, sqlite3_column_int, (sqlite3_stmt *, int)) \
	X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *, int)) \
	X(double, sqlite3_column_double, (sqlite3_stmt *, int)) \
	X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *, int)) \
	X(int, sqlite3_changes, (sqlite3 *)) \
	X(int, sqlite3_get_autocommit, (sqlite3 *)) \
	X(const char *, sqlite3_errmsg, (sqlite3 *)) \
	X(const char *, sqlite3_errstr, (int)) \
	X(int, sqlite3_system_errno, (sqlite3 *))

struct sqlite_api {
#define SQLITE_MEMBER(ret, name, args) ret(*name) args;
	SQLITE_FUNCS(SQLITE_MEMBER)
#undef SQLITE_MEMBER
};

extern struct sqlite_api sqlite;

/* Load libsqlite3.so.0 and fill sqlite, once per process. */
int sq_load_lib(struct sd_error *err);

static inline const char *sq_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite.sqlite3_column_text(st, i);
}

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
	ST_SHARD_START,
	ST_SHARD_FINISH,
	ST_RUN_COMPLETE,
	ST_SHARDS_GET,
	ST_SHARD_COUNTS,
	ST_AGENT_STEP_INSERT,
	ST_AGENT_STEPS_LOAD,
	ST_MAX
};

struct store_sqlite {
	struct store base;		/* base.name: the path */
	sqlite3 *db;
	sqlite3_stmt *st[ST_MAX];
};

static inline struct store_sqlite *sq(struct store *s)
{
	return (struct store_sqlite *)s;
}

/* "<what>: <sqlite message>" in *err, with an errno for the code; returns -1. */
int sq_fail(struct store_sqlite *s, int rc, struct sd_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A statement from the cache, reset and unbound. */
sqlite3_stmt *sq_stmt(struct store_sqlite *s, enum stmt_id id);
int sq_bind_text(sqlite3_stmt *st, int i, const char *v);
int sq_bind_real(sqlite3_stmt *st, int i, double v);
double sq_col_real(sqlite3_stmt *st, int i);
/* A malloc'd copy of a text column (NULL stays NULL); *oom set on ENOMEM. */
char *sq_col_dup(sqlite3_stmt *st, int i, bool *oom);
/* Run a statement to completion (no rows expected). */
int sq_step_done(sqlite3_stmt *st);
void sq_rollback(struct store_sqlite *s);

/* store-sqlite-sample.c */
int sq_sample_put(struct store *s, const char *run_id, int shard, const struct sample_result *r,
		  struct sd_error *err);
int sq_sample_done(struct store *s, const char *run_id, const char *sample_id, struct sd_error *err);
/* The circuit breaker's half (store-sqlite-breaker.c). */
int sq_breaker_add(struct store *s, const struct breaker_event *e, struct sd_error *err);
int sq_breaker_history(struct store *s, struct breaker_event **v, size_t *n, struct sd_error *err);
int sq_alert_add(struct store *s, const struct run_alert *a, struct sd_error *err);
int sq_alerts_get(struct store *s, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err);
int sq_samples_load(struct store *s, const char *run_id, struct sample_result **out, size_t *n,
		    struct sd_error *err);

#endif
