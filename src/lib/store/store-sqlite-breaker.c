/* store-sqlite-breaker.c - the circuit breaker's history in SQLite (table breaker, schema version 5) */
#define _GNU_SOURCE
#include "store/store-sqlite-internal.h"

#include <errno.h>
#include <stdlib.h>

int sq_breaker_add(struct store *base, const struct breaker_event *e, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "INSERT INTO breaker (at_ms, event, run_id, by, reason)"
				    " VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, e->at_ms);
		sq_bind_text(st, 2, e->trip ? "trip" : "reset");
		sq_bind_text(st, 3, e->trip ? e->run_id : NULL);
		sq_bind_text(st, 4, e->trip ? NULL : e->by);
		sq_bind_text(st, 5, e->reason);
		rc = sq_step_done(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, err, "cannot record the circuit breaker's %s in '%s'",
			       e->trip ? "trip" : "reset", base->name);
	return 0;
}

int sq_breaker_history(struct store *base, struct breaker_event **v, size_t *n, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	bool oom = false;
	int rc = sqlite3_prepare_v2(s->db, "SELECT at_ms, event, run_id, by, reason FROM breaker ORDER BY id",
				    -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (store_breaker_push(v, n, &cap, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
				       (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3),
				       (const char *)sqlite3_column_text(st, 4)) < 0) {
			oom = true;
			break;
		}
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (oom || (rc != SQLITE_DONE && rc != SQLITE_OK)) {
		breaker_events_free(*v, *n);
		*v = NULL;
		*n = 0;
		if (oom)
			return sd_error_set(err, ENOMEM, "cannot read the circuit breaker of '%s': out of memory", base->name);
		return sq_fail(s, rc, err, "cannot read the circuit breaker of '%s'", base->name);
	}
	return 0;
}
