/* store-pg-conn.c - the PostgreSQL store's connection: libpq loaded at run time, queries, messages without the password, reconnection with backoff */
#define _GNU_SOURCE
#include "store/store-pg-internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

#define PG_BACKOFF_FIRST_MS 100
#define PG_BACKOFF_MAX_MS 5000

struct pq_api pq;

int pg_load_libpq(struct sd_error *err)
{
	static void *lib;
	void *h;

	if (lib)
		return 0;
	h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return sd_error_set(err, ENOENT, "PostgreSQL's client library cannot be loaded (%s; apt-get install libpq5)",
				    dlerror());
#define PQ_LOOKUP(ret, name, args) \
	if (!(*(void **)&pq.name = dlsym(h, #name))) { \
		dlclose(h); \
		return sd_error_set(err, ENOSYS, "libpq.so.5 has no " #name " (PostgreSQL 12 or later is needed)"); \
	}
	PQ_FUNCS(PQ_LOOKUP)
#undef PQ_LOOKUP
	lib = h;
	return 0;
}

/* --- messages --- */

/* Strike the password out of TEXT (in place). */
static void scrub(const struct store_pg *p, char *text)
{
	size_t n = p->password ? strlen(p->password) : 0;
	char *at;

	if (!n)
		return;
	while ((at = strstr(text, p->password))) {
		size_t stars = n < 3 ? n : 3;

		memset(at, '*', stars);
		memmove(at + stars, at + n, strlen(at + n) + 1);
	}
}

/* libpq's message on one line, without its trailing newline, scrubbed. */
static void pg_message(const struct store_pg *p, const char *msg, char *buf, size_t n)
{
	const char *m = msg && *msg ? msg : "unknown error";
	size_t o = 0, len;

	/* one line: each run of white space becomes one space */
	for (; *m && o + 1 < n; m++) {
		bool space = *m == '\n' || *m == '\t' || *m == ' ';

		if (space && (o == 0 || buf[o - 1] == ' '))
			continue;
		buf[o++] = space ? ' ' : *m;
	}
	buf[o] = '\0';
	len = o;
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
	scrub(p, buf);
}

static int errno_of(const char *state)
{
	if (!state || !*state)
		return EIO;
	if (strcmp(state, "23505") == 0)
		return EEXIST;
	if (strcmp(state, "23503") == 0)
		return ENOENT;
	if (strncmp(state, "28", 2) == 0 || strcmp(state, "42501") == 0)
		return EACCES;
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
		return ECONNRESET;
	if (strncmp(state, "53", 2) == 0)
		return ENOSPC;
	return EIO;
}

/* The connection is gone, or the server said it is going (shutdown,
 * starting up, a connection exception): worth reconnecting. */
static bool is_lost(const struct store_pg *p, const char *state)
{
	if (!p->conn || pq.PQstatus(p->conn) == CONNECTION_BAD)
		return true;
	return state && (strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
			 strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0);
}

PGresult *pg_exec(struct store_pg *p, const char *sql, int n, const char *const *v, struct sd_error *err,
		  const char *fmt, ...)
{
	PGresult *res = NULL;
	ExecStatusType st;
	const char *state = NULL;
	char what[512], why[640];
	va_list ap;

	p->lost = false;
	p->sqlstate[0] = '\0';
	if (p->conn && pq.PQstatus(p->conn) == CONNECTION_OK) {
		res = n ? pq.PQexecParams(p->conn, sql, n, NULL, v, NULL, NULL, 0) : pq.PQexec(p->conn, sql);
		st = res ? pq.PQresultStatus(res) : PGRES_FATAL_ERROR;
		if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
			return res;
		state = res ? pq.PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	}
	snprintf(p->sqlstate, sizeof(p->sqlstate), "%s", state ? state : "");
	p->lost = is_lost(p, state);
	pg_message(p, res && pq.PQresultErrorMessage(res)[0] ? pq.PQresultErrorMessage(res)
			       : p->conn ? pq.PQerrorMessage(p->conn) : "not connected", why, sizeof(why));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->lost)
		sd_error_set(err, ECONNRESET, "%s: the connection to %s was lost: %s", what, p->where, why);
	else
		sd_error_set(err, errno_of(state), "%s: %s", what, why);
	pq.PQclear(res);
	return NULL;
}

int pg_failed(struct store_pg *p)
{
	return p->lost ? PG_LOST : -1;
}

void pg_rollback(struct store_pg *p)
{
	if (p->conn && pq.PQstatus(p->conn) == CONNECTION_OK && pq.PQtransactionStatus(p->conn) != PQTRANS_IDLE)
		pq.PQclear(pq.PQexec(p->conn, "ROLLBACK"));
}

char *pg_dup(const PGresult *res, int row, int col, bool *oom)
{
	char *d;

	if (pq.PQgetisnull(res, row, col))
		return NULL;
	d = strdup(pq.PQgetvalue(res, row, col));
	if (!d)
		*oom = true;
	return d;
}

long long pg_int(const PGresult *res, int row, int col)
{
	return pq.PQgetisnull(res, row, col) ? 0 : strtoll(pq.PQgetvalue(res, row, col), NULL, 10);
}

double pg_real(const PGresult *res, int row, int col)
{
	return pq.PQgetisnull(res, row, col) ? NAN : strtod(pq.PQgetvalue(res, row, col), NULL);
}

const char *pg_real_text(double v, char *buf, size_t n)
{
	if (isnan(v))
		return NULL;
	snprintf(buf, n, "%.17g", v);
	return buf;
}

/* --- connecting --- */

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;	/* NOTICEs ("already exists, skipping") are not for the user */
}

int pg_connect(struct store_pg *p, struct sd_error *err)
{
	/* defaults first, then the URL (expanded: its values override them),
	 * then what sandeval needs whatever the URL says */
	const char *const keys[] = { "connect_timeout", "keepalives_idle", "keepalives_interval", "keepalives_count",
				     "application_name", "dbname", "client_encoding", NULL };
	const char *const vals[] = { "10", "30", "10", "3", "sandeval", p->url, "UTF8", NULL };
	char why[640];
	PGresult *res;

	if (p->conn)
		pq.PQfinish(p->conn);
	p->conn = pq.PQconnectdbParams(keys, vals, 1);
	if (!p->conn)
		return sd_error_set(err, ENOMEM, "cannot connect to '%s': out of memory", p->base.name);
	snprintf(p->where, sizeof(p->where), "database '%s' on host '%s' port %s", pq.PQdb(p->conn),
		 pq.PQhost(p->conn) ? pq.PQhost(p->conn) : "", pq.PQport(p->conn) ? pq.PQport(p->conn) : "");
	scrub(p, p->where);
	if (pq.PQstatus(p->conn) != CONNECTION_OK) {
		pg_message(p, pq.PQerrorMessage(p->conn), why, sizeof(why));
		return sd_error_set(err, ECONNREFUSED, "cannot connect to %s: %s", p->where, why);
	}
	pq.PQsetNoticeProcessor(p->conn, quiet, NULL);
	/* the durability SQLite has with synchronous=FULL, whatever the server's default */
	res = pg_exec(p, "SET synchronous_commit = on", 0, NULL, err, "cannot set up the connection to %s", p->where);
	if (!res)
		return -1;
	pq.PQclear(res);
	return 0;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int pg_with_retry(struct store_pg *p, int (*op)(struct store_pg *, void *, struct sd_error *), void *arg,
		  struct sd_error *err)
{
	int64_t start = 0, delay = PG_BACKOFF_FIRST_MS;
	struct sd_error last = { 0 };
	int ret;

	p->retrying = false;
	while ((ret = op(p, arg, err)) == PG_LOST) {
		if (!start)
			start = now_ms();
		last = err ? *err : last;
		for (;;) {
			if (now_ms() - start + delay > p->retry_ms) {
				sd_error_set(err, ECONNRESET, "%s; gave up reconnecting after %lld s (SANDEVAL_DB_RETRY)",
					     last.msg, (long long)(p->retry_ms / 1000));
				p->retrying = false;
				return -1;
			}
			sleep_ms(delay);
			delay = delay * 2 > PG_BACKOFF_MAX_MS ? PG_BACKOFF_MAX_MS : delay * 2;
			if (pg_connect(p, NULL) == 0)
				break;
		}
		p->retrying = true;
	}
	p->retrying = false;
	return ret;
}
