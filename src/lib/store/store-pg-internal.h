/* store-pg-internal.h - what the parts of the PostgreSQL store share: libpq's functions, the handle, queries that reconnect */
#ifndef SANDEVAL_STORE_PG_INTERNAL_H
#define SANDEVAL_STORE_PG_INTERNAL_H

#include <libpq-fe.h>

#include "store/store-internal.h"

/* libpq's functions, looked up in libpq.so.5 when a PostgreSQL store is
 * first opened (store-pg.c): a sandeval that never opens one never loads
 * libpq nor the twenty shared objects it needs. */
#define PQ_FUNCS(X) \
	X(PGconn *, PQconnectdbParams, (const char *const *, const char *const *, int)) \
	X(ConnStatusType, PQstatus, (const PGconn *)) \
	X(char *, PQerrorMessage, (const PGconn *)) \
	X(void, PQfinish, (PGconn *)) \
	X(PGresult *, PQexec, (PGconn *, const char *)) \
	X(PGresult *, PQexecParams, (PGconn *, const char *, int, const Oid *, const char *const *, const int *, \
				    const int *, int)) \
	X(ExecStatusType, PQresultStatus, (const PGresult *)) \
	X(char *, PQresultErrorField, (const PGresult *, int)) \
	X(char *, PQresultErrorMessage, (const PGresult *)) \
	X(void, PQclear, (PGresult *)) \
	X(int, PQntuples, (const PGresult *)) \
	X(char *, PQgetvalue, (const PGresult *, int, int)) \
	X(int, PQgetisnull, (const PGresult *, int, int)) \
	X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *, PQnoticeProcessor, void *)) \
	X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *)) \
	X(char *, PQdb, (const PGconn *)) \
	X(char *, PQhost, (const PGconn *)) \
	X(char *, PQport, (const PGconn *)) \
	X(PQconninfoOption *, PQconninfoParse, (const char *, char **)) \
	X(void, PQconninfoFree, (PQconninfoOption *)) \
	X(void, PQfreemem, (void *))

struct pq_api {
#define PQ_MEMBER(ret, name, args) ret(*name) args;
	PQ_FUNCS(PQ_MEMBER)
#undef PQ_MEMBER
};

extern struct pq_api pq;

/* An operation's result when the connection was lost (the operation can be
 * tried again once reconnected); 0 and -1 otherwise, as everywhere. */
#define PG_LOST (-2)

struct store_pg {
	struct store base;		/* base.name: the URL without its password */
	char *url;			/* as given: for connecting only, never in a message */
	char *password;			/* the URL's, kept out of every message; NULL: none */
	PGconn *conn;
	char where[320];		/* "database 'D' on host 'H' port P", for messages */
	int64_t retry_ms;		/* how long to keep reconnecting (SANDEVAL_DB_RETRY) */
	bool retrying;			/* this is the operation's second try, after a lost connection */
	bool lost;			/* the last pg_exec failed with the connection */
	char sqlstate[6];		/* of the last pg_exec that failed */
};

static inline struct store_pg *pgs(struct store *s)
{
	return (struct store_pg *)s;
}

/* Load libpq.so.5 and fill pq, once per process. */
int pg_load_libpq(struct sd_error *err);
/* Connect (again): 0, or -1 with "cannot connect to database 'D' on host
 * 'H' port P: why" in *err. */
int pg_connect(struct store_pg *p, struct sd_error *err);
/* Run OP; while it returns PG_LOST, reconnect with backoff (0.1 s, twice
 * as long each time, up to 5 s) and run it again with p->retrying set,
 * for at most p->retry_ms in all; then -1 with "...; gave up reconnecting". */
int pg_with_retry(struct store_pg *p, int (*op)(struct store_pg *, void *, struct sd_error *), void *arg,
		  struct sd_error *err);
/* Run SQL with N text parameters (a NULL one is SQL NULL). The result
 * (PQclear it) when the command worked; else NULL, with "WHAT: why" in
 * *err, p->sqlstate set, and p->lost when the connection is gone. */
PGresult *pg_exec(struct store_pg *p, const char *sql, int n, const char *const *v, struct sd_error *err,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* What an operation returns after pg_exec failed: PG_LOST or -1. */
int pg_failed(struct store_pg *p);
/* Leave a transaction that failed half-way (no-op without one). */
void pg_rollback(struct store_pg *p);
/* A malloc'd copy of a field (NULL stays NULL); *oom set on ENOMEM. */
char *pg_dup(const PGresult *res, int row, int col, bool *oom);
long long pg_int(const PGresult *res, int row, int col);	/* NULL: 0 */
double pg_real(const PGresult *res, int row, int col);	/* NULL: NAN */
/* A double as text that reads back the same, in BUF; NULL for NAN. */
const char *pg_real_text(double v, char *buf, size_t n);

/* store-pg-sample.c */
int pg_sample_put(struct store_pg *p, const char *run_id, int shard, const struct sample_result *r,
		  struct sd_error *err);
int pg_sample_done(struct store_pg *p, const char *run_id, const char *sample_id, struct sd_error *err);
/* The circuit breaker's half (store-pg-breaker.c). */
int pg_breaker_add(struct store *s, const struct breaker_event *e, struct sd_error *err);
int pg_breaker_history(struct store *s, struct breaker_event **v, size_t *n, struct sd_error *err);
int pg_alert_add(struct store *s, const struct run_alert *a, struct sd_error *err);
int pg_alerts_get(struct store *s, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err);
int pg_samples_load(struct store_pg *p, const char *run_id, struct sample_result **out, size_t *n,
		    struct sd_error *err);

#endif
