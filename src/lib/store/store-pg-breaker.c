/* store-pg-breaker.c - the circuit breaker's history and the runs' anomaly alerts in PostgreSQL (sandeval.breaker, sandeval.alerts, schema version 6) */
#define _GNU_SOURCE
#include "store/store-pg-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int add_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	const struct breaker_event *e = arg;
	char at[32];
	const char *v[5] = { at, e->trip ? "trip" : "reset", e->trip ? e->run_id : NULL, e->trip ? NULL : e->by,
			     e->reason };
	PGresult *res;

	snprintf(at, sizeof(at), "%lld", (long long)e->at_ms);
	res = pg_exec(p, "INSERT INTO sandeval.breaker (at_ms, event, run_id, by_name, reason)"
		      " VALUES ($1, $2, $3, $4, $5)", 5, v, err,
		      "cannot record the circuit breaker's %s in '%s'", e->trip ? "trip" : "reset", p->base.name);
	if (!res)
		return pg_failed(p);
	pq.PQclear(res);
	return 0;
}

int pg_breaker_add(struct store *base, const struct breaker_event *e, struct sd_error *err)
{
	return pg_with_retry(pgs(base), add_op, (void *)e, err);
}

struct history_args {
	struct breaker_event **v;
	size_t *n;
};

static const char *text_or_null(const PGresult *res, int row, int col)
{
	return pq.PQgetisnull(res, row, col) ? NULL : pq.PQgetvalue(res, row, col);
}

static int history_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct history_args *a = arg;
	PGresult *res = pg_exec(p, "SELECT at_ms, event, run_id, by_name, reason FROM sandeval.breaker ORDER BY id",
				0, NULL, err, "cannot read the circuit breaker of '%s'", p->base.name);
	size_t cap = 0;
	int rows;

	if (!res)
		return pg_failed(p);
	breaker_events_free(*a->v, *a->n);	/* of an attempt before a reconnection */
	*a->v = NULL;
	*a->n = 0;
	rows = pq.PQntuples(res);
	for (int i = 0; i < rows; i++) {
		if (store_breaker_push(a->v, a->n, &cap, pg_int(res, i, 0), text_or_null(res, i, 1),
				       text_or_null(res, i, 2), text_or_null(res, i, 3), text_or_null(res, i, 4)) < 0) {
			pq.PQclear(res);
			breaker_events_free(*a->v, *a->n);
			*a->v = NULL;
			*a->n = 0;
			return sd_error_set(err, ENOMEM, "cannot read the circuit breaker of '%s': out of memory",
					    p->base.name);
		}
	}
	pq.PQclear(res);
	return 0;
}

int pg_breaker_history(struct store *base, struct breaker_event **v, size_t *n, struct sd_error *err)
{
	struct history_args a = { .v = v, .n = n };

	return pg_with_retry(pgs(base), history_op, &a, err);
}

static int alert_add_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	const struct run_alert *a = arg;
	char at[32], rate[40], base[40];
	const char *v[6] = { a->run_id, at, a->kind, rate, base, a->message };
	PGresult *res;

	snprintf(at, sizeof(at), "%lld", (long long)a->at_ms);
	snprintf(rate, sizeof(rate), "%.17g", a->rate);
	snprintf(base, sizeof(base), "%.17g", a->baseline);
	res = pg_exec(p, "INSERT INTO sandeval.alerts (run_id, at_ms, kind, rate, baseline, message)"
		      " VALUES ($1, $2, $3, $4, $5, $6)", 6, v, err, "cannot record an alert of run '%s' in '%s'",
		      a->run_id, p->base.name);
	if (!res)
		return pg_failed(p);
	pq.PQclear(res);
	return 0;
}

int pg_alert_add(struct store *base, const struct run_alert *a, struct sd_error *err)
{
	return pg_with_retry(pgs(base), alert_add_op, (void *)a, err);
}

struct alerts_args {
	const char *run_id;
	struct run_alert **v;
	size_t *n;
};

static int alerts_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct alerts_args *a = arg;
	const char *params[1] = { a->run_id };
	PGresult *res = pg_exec(p, "SELECT run_id, at_ms, kind, rate, baseline, message FROM sandeval.alerts"
				" WHERE run_id = $1 ORDER BY id", 1, params, err,
				"cannot read the alerts of run '%s' in '%s'", a->run_id, p->base.name);
	size_t cap = 0;
	int rows;

	if (!res)
		return pg_failed(p);
	run_alerts_free(*a->v, *a->n);
	*a->v = NULL;
	*a->n = 0;
	rows = pq.PQntuples(res);
	for (int i = 0; i < rows; i++) {
		if (store_alert_push(a->v, a->n, &cap, pq.PQgetvalue(res, i, 0), pg_int(res, i, 1),
				     pq.PQgetvalue(res, i, 2), pg_real(res, i, 3), pg_real(res, i, 4),
				     pq.PQgetvalue(res, i, 5)) < 0) {
			pq.PQclear(res);
			run_alerts_free(*a->v, *a->n);
			*a->v = NULL;
			*a->n = 0;
			return sd_error_set(err, ENOMEM, "cannot read the alerts of run '%s': out of memory", a->run_id);
		}
	}
	pq.PQclear(res);
	return 0;
}

int pg_alerts_get(struct store *base, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err)
{
	struct alerts_args a = { .run_id = run_id, .v = v, .n = n };

	return pg_with_retry(pgs(base), alerts_op, &a, err);
}
