/* pg-fixture.h - a fresh PostgreSQL database per test, on the cluster tests/run.sh starts (SANDEVAL_PG_URL), and SQL on it */
#ifndef SANDEVAL_TEST_PG_FIXTURE_H
#define SANDEVAL_TEST_PG_FIXTURE_H

#include <libpq-fe.h>

/* The cluster's URL, or skip the test ("postgres: ..."). */
#define pg_url_or_skip() ({ \
	const char *u_ = getenv("SANDEVAL_PG_URL"); \
	if (!u_ || !*u_) \
		fx_skip("postgres: no PostgreSQL server (SANDEVAL_PG_URL; tests/run.sh starts one)"); \
	u_; \
})

/* URL with its database (the path after the host) replaced by DB. */
static inline char *pg_url_with_db(const char *url, const char *db)
{
	const char *auth = strstr(url, "://"), *path, *q;

	assert_non_null(auth);
	path = auth + 3 + strcspn(auth + 3, "/?");
	q = strchr(path, '?');
	return fx_str("%.*s/%s%s", (int)(path - url), url, db, q ? q : "");
}

static inline void pg_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;	/* "does not exist, skipping" */
}

static inline PGconn *pg_admin(const char *url)
{
	PGconn *c = PQconnectdb(url);

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("cannot connect to '%s': %s", url, PQerrorMessage(c));
	PQsetNoticeProcessor(c, pg_quiet, NULL);
	return c;
}

/* Run SQL (no parameters) on URL; fail the test on error. */
static inline void pg_sql(const char *url, const char *sql)
{
	PGconn *c = pg_admin(url);
	PGresult *r = PQexec(c, sql);

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("'%s': %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

/* The integer in the first column of the first row (-1: no row). */
static inline long long pg_int_of(const char *url, const char *sql)
{
	PGconn *c = pg_admin(url);
	PGresult *r = PQexec(c, sql);
	long long v = -1;

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("'%s': %s", sql, PQresultErrorMessage(r));
	if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	PQfinish(c);
	return v;
}

/* A new, empty database on the cluster; its URL (malloc'd). */
static inline char *pg_newdb(const char *base_url, const char *prefix)
{
	static unsigned n;
	char *db = fx_str("%s_%d_%u", prefix, (int)getpid(), n++), *sql = fx_str("DROP DATABASE IF EXISTS %s", db);
	char *url = pg_url_with_db(base_url, db);

	pg_sql(base_url, sql);
	free(sql);
	sql = fx_str("CREATE DATABASE %s", db);
	pg_sql(base_url, sql);
	free(sql);
	free(db);
	return url;
}

/* Drop the database URL names (connections to it are cut). */
static inline void pg_dropdb(const char *base_url, const char *url)
{
	const char *auth = strstr(url, "://"), *path = auth + 3 + strcspn(auth + 3, "/?");
	size_t n = strcspn(path + 1, "?");
	char *sql = fx_str("DROP DATABASE IF EXISTS %.*s WITH (FORCE)", (int)n, path + 1);

	pg_sql(base_url, sql);
	free(sql);
}

#endif
