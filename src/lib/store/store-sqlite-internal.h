/* store-sqlite-internal.h - what the two halves of the SQLite store share: the handle, its statements, helpers */
#ifndef SANDEVAL_STORE_SQLITE_INTERNAL_H
#define SANDEVAL_STORE_SQLITE_INTERNAL_H

#include <sqlite3.h>

#include "store/store-internal.h"

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
