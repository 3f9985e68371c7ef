/* store-sqlite-breaker.c - the circuit breaker's history and the runs' anomaly alerts in SQLite (tables breaker and alerts, schema version 6) */
#define _GNU_SOURCE
#include "store/store-sqlite-internal.h"

#include <errno.h>
#include <stdlib.h>

int sq_breaker_add(struct store *base, const struct breaker_event *e, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = NULL;
	int rc = sqlite.sqlite3_prepare_v2(s->db, "INSERT INTO breaker (at_ms, event, run_id, by, reason)"
				    " VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite.sqlite3_bind_int64(st, 1, e->at_ms);
		sq_bind_text(st, 2, e->trip ? "trip" : "reset");
		sq_bind_text(st, 3, e->trip ? e->run_id : NULL);
		sq_bind_text(st, 4, e->trip ? NULL : e->by);
		sq_bind_text(st, 5, e->reason);
		rc = sq_step_done(st);
	}
	sqlite.sqlite3_finalize(st);
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
	int rc = sqlite.sqlite3_prepare_v2(s->db, "SELECT at_ms, event, run_id, by, reason FROM breaker ORDER BY id",
				    -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		if (store_breaker_push(v, n, &cap, sqlite.sqlite3_column_int64(st, 0), sq_text(st, 1), sq_text(st, 2),
				       sq_text(st, 3), sq_text(st, 4)) < 0) {
			oom = true;
			break;
		}
		rc = SQLITE_OK;
	}
	sqlite.sqlite3_finalize(st);
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

int sq_alert_add(struct store *base, const struct run_alert *a, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = NULL;
	int rc = sqlite.sqlite3_prepare_v2(s->db, "INSERT INTO alerts (run_id, at_ms, kind, rate, baseline, message)"
				    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sq_bind_text(st, 1, a->run_id);
		sqlite.sqlite3_bind_int64(st, 2, a->at_ms);
		sq_bind_text(st, 3, a->kind);
		sqlite.sqlite3_bind_double(st, 4, a->rate);
		sqlite.sqlite3_bind_double(st, 5, a->baseline);
		sq_bind_text(st, 6, a->message);
		rc = sq_step_done(st);
	}
	sqlite.sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, err, "cannot record an alert of run '%s' in '%s'", a->run_id, base->name);
	return 0;
}

int sq_alerts_get(struct store *base, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err)
{
	struct store_sqlite *s = sq(base);
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	bool oom = false;
	int rc = sqlite.sqlite3_prepare_v2(s->db, "SELECT run_id, at_ms, kind, rate, baseline, message FROM alerts"
				    " WHERE run_id = ?1 ORDER BY id", -1, &st, NULL);

	if (rc == SQLITE_OK)
		sq_bind_text(st, 1, run_id);
	while (rc == SQLITE_OK && (rc = sqlite.sqlite3_step(st)) == SQLITE_ROW) {
		if (store_alert_push(v, n, &cap, sq_text(st, 0), sqlite.sqlite3_column_int64(st, 1),
				     sq_text(st, 2), sqlite.sqlite3_column_double(st, 3),
				     sqlite.sqlite3_column_double(st, 4), sq_text(st, 5)) < 0) {
			oom = true;
			break;
		}
		rc = SQLITE_OK;
	}
	sqlite.sqlite3_finalize(st);
	if (oom || (rc != SQLITE_DONE && rc != SQLITE_OK)) {
		run_alerts_free(*v, *n);
		*v = NULL;
		*n = 0;
		if (oom)
			return sd_error_set(err, ENOMEM, "cannot read the alerts of run '%s': out of memory", run_id);
		return sq_fail(s, rc, err, "cannot read the alerts of run '%s' in '%s'", run_id, base->name);
	}
	return 0;
}
