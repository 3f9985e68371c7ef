/* store-pg.c - durable records of runs and evaluated samples in PostgreSQL: how it works, the schema, runs, shards
 *
 * The same records as store-sqlite.c (docs/scoring.md, "Records"), in the
 * schema "sandeval" of the database the URL names, so that the tables live
 * beside any others: sandeval.meta (the application and the schema
 * version, 3), runs, samples, tests, findings and shards. Opening a store
 * takes a transaction-level advisory lock and migrates, so that the many
 * shards of a run starting at once create the schema once.
 *
 * libpq is not linked: its functions are looked up in libpq.so.5 the first
 * time a PostgreSQL store is opened (store-pg-conn.c), so that `sandeval
 * exec`, and every run on SQLite, load none of the twenty shared objects it
 * needs (docs/scale.md has the cost measured). store-pg-conn.c also holds
 * the queries, the messages and the reconnection; store-pg-sample.c the
 * samples' half.
 *
 * Every operation is one statement or one transaction; a sample is one
 * statement (store-pg-sample.c), so it is recorded whole or not at all. When
 * the connection is lost (the server restarts, a failover, a network cut)
 * the operation is tried again once reconnected: reconnection waits 0.1 s,
 * then twice as long each time up to 5 s, for at most SANDEVAL_DB_RETRY
 * seconds (default 120; 0: fail at once). A sample whose transaction may or
 * may not have committed when the connection broke is written again, and
 * finding it already there then means it was: it is recorded once either
 * way (the unique key (run_id, sample_id)). When reconnection gives up the
 * run stops with an error naming the host and the database, and what was not
 * committed is evaluated again when it is resumed or its shard restarted.
 * The first connection is not retried: a wrong URL or password fails at once.
 *
 * Messages name the store by its URL without the password, and the database,
 * host and port libpq used; the password is struck out of whatever libpq
 * says (it never says it, but a message is no place to find out).
 */
#define _GNU_SOURCE
#include "store/store-pg-internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

#define PG_LOCK_KEY 0x53444556		/* "SDEV": serializes the migrations of concurrent openers */
#define PG_RETRY_DEFAULT_S 120

/* --- schema --- */

/* Migrations: schema[v] takes the schema from version v to v + 1 (the
 * same versions as store-sqlite.c's; runs.seq is SQLite's rowid). */
static const char *const schema[] = {
	/* 0 -> 1 */
	"CREATE TABLE sandeval.runs ("
	" id text PRIMARY KEY,"
	" seq bigserial,"			/* creation order, for runs started in the same ms */
	" started_ms bigint NOT NULL,"
	" finished_ms bigint,"
	" model text,"
	" suite_hash text,"
	" config_json text,"
	" seed bigint,"
	" formula_version text NOT NULL,"
	" sandeval_version text,"
	" tasks_path text,"
	" samples_path text);"
	"CREATE TABLE sandeval.samples ("
	" id bigserial PRIMARY KEY,"		/* recording order */
	" run_id text NOT NULL REFERENCES sandeval.runs(id) ON DELETE CASCADE,"
	" sample_id text NOT NULL,"
	" task_id text NOT NULL,"
	" task_class text,"
	" model text,"
	" sandbox_ids text,"
	" score double precision,"		/* NULL: no score (NAN) */
	" score_public double precision,"
	" score_holdout double precision,"
	" passed integer NOT NULL,"
	" he_result text,"
	" harness_error integer NOT NULL,"
	" latency_ms bigint,"
	" cpu_ms bigint,"
	" peak_memory_bytes bigint,"
	" started_ms bigint,"
	" finished_ms bigint,"
	" formula_version text NOT NULL,"
	" UNIQUE (run_id, sample_id));"
	"CREATE TABLE sandeval.tests ("
	" run_id text NOT NULL,"
	" sample_id text NOT NULL,"
	" idx integer NOT NULL,"
	" name text NOT NULL,"
	" tier text NOT NULL,"
	" weight double precision,"
	" visibility text NOT NULL,"
	" status text NOT NULL,"
	" detail text,"
	" in_process integer NOT NULL,"
	" PRIMARY KEY (run_id, sample_id, idx),"
	" FOREIGN KEY (run_id, sample_id) REFERENCES sandeval.samples(run_id, sample_id) ON DELETE CASCADE);",
	/* 1 -> 2: lint results, the composite score, the completion and its ROUGE-L */
	"ALTER TABLE sandeval.samples ADD COLUMN completion text, ADD COLUMN rouge_l double precision,"
	" ADD COLUMN lint text NOT NULL DEFAULT 'none', ADD COLUMN lint_detail text, ADD COLUMN composite double precision;"
	"CREATE TABLE sandeval.findings ("
	" run_id text NOT NULL,"
	" sample_id text NOT NULL,"
	" idx integer NOT NULL,"
	" tool text NOT NULL,"
	" rule text,"
	" category text,"
	" severity text NOT NULL,"
	" line integer,"
	" message text,"
	" PRIMARY KEY (run_id, sample_id, idx),"
	" FOREIGN KEY (run_id, sample_id) REFERENCES sandeval.samples(run_id, sample_id) ON DELETE CASCADE);"
	"CREATE INDEX runs_started ON sandeval.runs (started_ms);",
	/* 2 -> 3: sharded runs (docs/scale.md) */
	"ALTER TABLE sandeval.runs ADD COLUMN shards integer, ADD COLUMN n_samples bigint;"
	"ALTER TABLE sandeval.samples ADD COLUMN shard integer;"
	"CREATE TABLE sandeval.shards ("
	" run_id text NOT NULL REFERENCES sandeval.runs(id) ON DELETE CASCADE,"
	" shard integer NOT NULL,"
	" n_samples bigint NOT NULL,"
	" attempts integer NOT NULL,"
	" host text,"
	" started_ms bigint NOT NULL,"
	" finished_ms bigint,"
	" PRIMARY KEY (run_id, shard));",
	/* 3 -> 4: EvalPlus's base_status and plus_status ("pass", "fail"; NULL for other tasks) */
	"ALTER TABLE sandeval.samples ADD COLUMN base_status text, ADD COLUMN plus_status text;",
	/* 4 -> 5: the steps of agent runs (docs/agent.md) */
	"CREATE TABLE sandeval.agent_steps ("
	" seq bigserial PRIMARY KEY,"		/* recording order */
	" agent_id text NOT NULL,"
	" kind text NOT NULL,"
	" task_id text,"
	" round integer,"
	" body text NOT NULL,"
	" at_ms bigint NOT NULL);"
	"CREATE INDEX agent_steps_agent ON sandeval.agent_steps (agent_id, seq);",
	/* 5 -> 6: what each sample's candidate tried (NULL: recorded before
	 * tripwires), and the circuit breaker's trips and resets */
	"ALTER TABLE sandeval.samples ADD COLUMN tripwires text;"
	"CREATE TABLE sandeval.breaker ("
	" id bigserial PRIMARY KEY,"
	" at_ms bigint NOT NULL,"
	" event text NOT NULL,"
	" run_id text,"
	" by_name text,"
	" reason text NOT NULL);"
	"CREATE TABLE sandeval.alerts ("
	" id bigserial PRIMARY KEY,"
	" run_id text NOT NULL,"
	" at_ms bigint NOT NULL,"
	" kind text NOT NULL,"
	" rate double precision NOT NULL,"
	" baseline double precision NOT NULL,"
	" message text NOT NULL);",
};

/* Bring the schema to STORE_SCHEMA_VERSION in one transaction, under the lock. */
static int migrate(struct store_pg *p, struct sd_error *err)
{
	PGresult *res;
	long long version = 0;
	bool has_schema, has_meta, has_tables;
	char sql[160];
	const char *app = NULL;

#define Q(sql) do { \
		if (!(res = pg_exec(p, (sql), 0, NULL, err, "'%s'", p->base.name))) \
			goto fail; \
	} while (0)
	Q("BEGIN");
	pq.PQclear(res);
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock(%d)", PG_LOCK_KEY);
	Q(sql);
	pq.PQclear(res);
	Q("SELECT to_regnamespace('sandeval') IS NOT NULL, to_regclass('sandeval.meta') IS NOT NULL,"
	  " EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = 'sandeval')");
	has_schema = pq.PQgetvalue(res, 0, 0)[0] == 't';
	has_meta = pq.PQgetvalue(res, 0, 1)[0] == 't';
	has_tables = pq.PQgetvalue(res, 0, 2)[0] == 't';
	pq.PQclear(res);
	if (has_meta) {
		Q("SELECT (SELECT value FROM sandeval.meta WHERE key = 'application'),"
		  " (SELECT value FROM sandeval.meta WHERE key = 'schema_version')");
		app = pq.PQgetisnull(res, 0, 0) ? NULL : pq.PQgetvalue(res, 0, 0);
		version = pg_int(res, 0, 1);
		if (!app || strcmp(app, "sandeval") != 0) {
			pq.PQclear(res);
			sd_error_set(err, EINVAL, "'%s': not a sandeval database (schema 'sandeval')", p->base.name);
			goto fail_tx;
		}
		pq.PQclear(res);
	} else if (has_tables) {
		sd_error_set(err, EINVAL, "'%s': not a sandeval database (schema 'sandeval' holds other tables)",
			     p->base.name);
		goto fail_tx;
	}
	if (version > STORE_SCHEMA_VERSION) {
		sd_error_set(err, EPROTO, "'%s': schema version %lld is newer than this sandeval's (%d)",
			     p->base.name, version, STORE_SCHEMA_VERSION);
		goto fail_tx;
	}
	if (!has_schema) {
		Q("CREATE SCHEMA sandeval");
		pq.PQclear(res);
	}
	if (!has_meta) {
		Q("CREATE TABLE sandeval.meta (key text PRIMARY KEY, value text NOT NULL);"
		  "INSERT INTO sandeval.meta VALUES ('application', 'sandeval'), ('schema_version', '0')");
		pq.PQclear(res);
	}
	for (; version < STORE_SCHEMA_VERSION; version++) {
		Q(schema[version]);
		pq.PQclear(res);
		snprintf(sql, sizeof(sql), "UPDATE sandeval.meta SET value = '%lld' WHERE key = 'schema_version'",
			 version + 1);
		Q(sql);
		pq.PQclear(res);
	}
	Q("COMMIT");
	pq.PQclear(res);
#undef Q
	return 0;
fail_tx:
	pg_rollback(p);
	return -1;
fail:
	pg_rollback(p);
	return pg_failed(p);
}

static int retry_budget_ms(struct sd_error *err, int64_t *out)
{
	const char *v = getenv("SANDEVAL_DB_RETRY");
	long s = PG_RETRY_DEFAULT_S;

	if (v && *v && parse_long(v, 0, 86400, &s, err) < 0)
		return sd_error_wrap(err, "SANDEVAL_DB_RETRY");
	*out = (int64_t)s * 1000;
	return 0;
}

static void pg_close(struct store *base)
{
	struct store_pg *p = pgs(base);

	if (p->conn)
		pq.PQfinish(p->conn);
	free(p->url);
	free(p->password);
	free(p->base.name);
	free(p);
}

static int open_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	(void)arg;
	return migrate(p, err);
}

static struct store *pg_open(const char *url, bool must_exist, struct sd_error *err)
{
	struct store_pg *p = calloc(1, sizeof(*p));
	char name[1024];
	PQconninfoOption *opts;

	(void)must_exist;	/* a database is never created by connecting to it */
	store_url_display(url, name, sizeof(name));
	if (!p || !(p->url = strdup(url)) || !(p->base.name = strdup(name))) {
		if (p) {
			free(p->url);
			free(p);
		}
		sd_error_set(err, ENOMEM, "cannot open '%s': out of memory", name);
		return NULL;
	}
	p->base.ops = &store_pg_ops;
	if (retry_budget_ms(err, &p->retry_ms) < 0 || pg_load_libpq(err) < 0)
		goto fail;
	opts = pq.PQconninfoParse(url, NULL);
	if (!opts) {
		sd_error_set(err, EINVAL, "'%s' is not a PostgreSQL URL libpq understands", name);
		goto fail;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, "password") == 0 && o->val && *o->val)
			p->password = strdup(o->val);
	pq.PQconninfoFree(opts);
	if (pg_connect(p, err) < 0 || pg_with_retry(p, open_op, NULL, err) < 0)
		goto fail;
	return &p->base;
fail:
	sd_error_wrap(err, "cannot open '%s'", name);
	pg_close(&p->base);
	return NULL;
}

/* --- runs --- */

struct run_args {
	const char *run_id;
	struct run_info *run;
	int64_t ms;
	char ***ids;
	size_t *n;
	bool generated;
};

static int run_create_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct run_args *a = arg;
	const struct run_info *run = a->run;
	char started[24], finished[24], seed[24], shards[16], n_samples[24];
	const char *v[13] = { run->id, started, run->finished_ms ? finished : NULL, run->model, run->suite_hash,
			      run->config_json, seed,
			      run->formula_version ? run->formula_version : SCORE_FORMULA_VERSION,
			      run->sandeval_version, run->tasks_path, run->samples_path,
			      run->shards ? shards : NULL, run->n_samples ? n_samples : NULL };
	PGresult *res;
	int rows;

	snprintf(started, sizeof(started), "%lld", (long long)a->ms);
	snprintf(finished, sizeof(finished), "%lld", (long long)run->finished_ms);
	snprintf(seed, sizeof(seed), "%lld", run->seed);
	snprintf(shards, sizeof(shards), "%d", run->shards);
	snprintf(n_samples, sizeof(n_samples), "%lld", (long long)run->n_samples);
	res = pg_exec(p, "INSERT INTO sandeval.runs (id, started_ms, finished_ms, model, suite_hash, config_json,"
		      " seed, formula_version, sandeval_version, tasks_path, samples_path, shards, n_samples)"
		      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
		      " ON CONFLICT (id) DO NOTHING RETURNING 1", 13, v, err, "cannot create a run in '%s'",
		      p->base.name);
	if (!res)
		return pg_failed(p);
	rows = pq.PQntuples(res);
	pq.PQclear(res);
	/* after a lost connection, a made-up id already there is our own insert */
	if (rows == 0 && !(p->retrying && a->generated))
		return sd_error_set(err, EEXIST, "there is already a run '%s' in '%s'", run->id, p->base.name);
	return 0;
}

static int pg_run_create(struct store *base, struct run_info *run, struct sd_error *err)
{
	struct run_args a = { .run = run, .ms = run->started_ms, .generated = !run->id[0] };
	char hex[17];

	if (!a.ms) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		a.ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	}
	if (a.generated) {
		if (random_hex(hex, 8, err) < 0)
			return sd_error_wrap(err, "cannot create a run in '%s'", base->name);
		snprintf(run->id, sizeof(run->id), "r-%s", hex);
	}
	if (pg_with_retry(pgs(base), run_create_op, &a, err) < 0) {
		if (a.generated)
			run->id[0] = '\0';
		return -1;
	}
	run->started_ms = a.ms;
	return 0;
}

static int run_finish_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct run_args *a = arg;
	char ms[24];
	const char *v[2] = { a->run_id, ms };
	PGresult *res;
	int rows;

	snprintf(ms, sizeof(ms), "%lld", (long long)a->ms);
	res = pg_exec(p, "UPDATE sandeval.runs SET finished_ms = $2 WHERE id = $1 RETURNING 1", 2, v, err,
		      "cannot finish run '%s' in '%s'", a->run_id, p->base.name);
	if (!res)
		return pg_failed(p);
	rows = pq.PQntuples(res);
	pq.PQclear(res);
	return rows ? 0 : sd_error_set(err, ENOENT, "no run '%s' in '%s'", a->run_id, p->base.name);
}

static int pg_run_finish(struct store *base, const char *run_id, int64_t finished_ms, struct sd_error *err)
{
	struct run_args a = { .run_id = run_id, .ms = finished_ms };

	return pg_with_retry(pgs(base), run_finish_op, &a, err);
}

static int run_get_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct run_args *a = arg;
	const char *v[1] = { a->run_id };
	struct run_info r;
	PGresult *res;
	bool oom = false;

	res = pg_exec(p, "SELECT started_ms, finished_ms, model, suite_hash, config_json, seed, formula_version,"
		      " sandeval_version, tasks_path, samples_path, shards, n_samples,"
		      " (SELECT count(*) FROM sandeval.samples WHERE run_id = $1) FROM sandeval.runs WHERE id = $1",
		      1, v, err, "cannot read run '%s' from '%s'", a->run_id, p->base.name);
	if (!res)
		return pg_failed(p);
	if (pq.PQntuples(res) == 0) {
		pq.PQclear(res);
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", a->run_id, p->base.name);
	}
	memset(&r, 0, sizeof(r));
	snprintf(r.id, sizeof(r.id), "%s", a->run_id);
	r.started_ms = pg_int(res, 0, 0);
	r.finished_ms = pg_int(res, 0, 1);
	r.model = pg_dup(res, 0, 2, &oom);
	r.suite_hash = pg_dup(res, 0, 3, &oom);
	r.config_json = pg_dup(res, 0, 4, &oom);
	r.seed = pg_int(res, 0, 5);
	r.formula_version = pg_dup(res, 0, 6, &oom);
	r.sandeval_version = pg_dup(res, 0, 7, &oom);
	r.tasks_path = pg_dup(res, 0, 8, &oom);
	r.samples_path = pg_dup(res, 0, 9, &oom);
	r.shards = (int)pg_int(res, 0, 10);
	r.n_samples = pg_int(res, 0, 11);
	r.n_recorded = pg_int(res, 0, 12);
	pq.PQclear(res);
	if (oom) {
		run_info_release(&r);
		return sd_error_set(err, ENOMEM, "cannot read run '%s' from '%s': out of memory", a->run_id,
				    p->base.name);
	}
	*a->run = r;
	return 0;
}

static int pg_run_get(struct store *base, const char *run_id, struct run_info *run, struct sd_error *err)
{
	struct run_args a = { .run_id = run_id, .run = run };

	return pg_with_retry(pgs(base), run_get_op, &a, err);
}

static int runs_list_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct run_args *a = arg;
	PGresult *res = pg_exec(p, "SELECT id FROM sandeval.runs ORDER BY started_ms, seq", 0, NULL, err,
				"cannot list the runs of '%s'", p->base.name);
	int rows;
	char **v;
	bool oom = false;

	if (!res)
		return pg_failed(p);
	rows = pq.PQntuples(res);
	v = rows ? calloc((size_t)rows + 1, sizeof(*v)) : NULL;
	for (int i = 0; v && i < rows; i++)
		v[i] = pg_dup(res, i, 0, &oom);
	pq.PQclear(res);
	if ((rows && !v) || oom) {
		for (int i = 0; v && i < rows; i++)
			free(v[i]);
		free(v);
		return sd_error_set(err, ENOMEM, "cannot list the runs of '%s': out of memory", p->base.name);
	}
	*a->ids = v;
	*a->n = (size_t)rows;
	return 0;
}

static int pg_runs_list(struct store *base, char ***ids, size_t *n, struct sd_error *err)
{
	struct run_args a = { .ids = ids, .n = n };

	return pg_with_retry(pgs(base), runs_list_op, &a, err);
}

/* --- samples (store-pg-sample.c), retried --- */

struct sample_args {
	const char *run_id, *sample_id;
	int shard;
	const struct sample_result *r;
	struct sample_result **out;
	size_t *n;
};

static int sample_put_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct sample_args *a = arg;
	int ret = pg_sample_put(p, a->run_id, a->shard, a->r, err);

	/* written again after the connection broke: already there is our commit, or a twin's */
	if (ret < 0 && ret != PG_LOST && p->retrying && err && err->code == EEXIST)
		return 0;
	return ret;
}

static int pg_put(struct store *base, const char *run_id, int shard, const struct sample_result *r,
		  struct sd_error *err)
{
	struct sample_args a = { .run_id = run_id, .shard = shard, .r = r };

	return pg_with_retry(pgs(base), sample_put_op, &a, err);
}

static int sample_done_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct sample_args *a = arg;

	return pg_sample_done(p, a->run_id, a->sample_id, err);
}

static int pg_done(struct store *base, const char *run_id, const char *sample_id, struct sd_error *err)
{
	struct sample_args a = { .run_id = run_id, .sample_id = sample_id };

	return pg_with_retry(pgs(base), sample_done_op, &a, err);
}

static int samples_load_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct sample_args *a = arg;

	return pg_samples_load(p, a->run_id, a->out, a->n, err);
}

static int pg_load(struct store *base, const char *run_id, struct sample_result **out, size_t *n,
		   struct sd_error *err)
{
	struct sample_args a = { .run_id = run_id, .out = out, .n = n };

	return pg_with_retry(pgs(base), samples_load_op, &a, err);
}

/* --- shards --- */

struct shard_args {
	const char *run_id, *host;
	int shard;
	int64_t n_samples, ms;
	bool *complete;
	struct shard_info *v;
	size_t n;
};

static int shard_start_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct shard_args *a = arg;
	char shard[16], n[24], ms[24];
	const char *v[5] = { a->run_id, shard, n, a->host, ms };
	PGresult *res;

	snprintf(shard, sizeof(shard), "%d", a->shard);
	snprintf(n, sizeof(n), "%lld", (long long)a->n_samples);
	snprintf(ms, sizeof(ms), "%lld", (long long)a->ms);
	/* a start counted twice after a lost connection is the price of not losing one */
	res = pg_exec(p, "INSERT INTO sandeval.shards (run_id, shard, n_samples, attempts, host, started_ms)"
		      " VALUES ($1, $2, $3, 1, $4, $5) ON CONFLICT (run_id, shard) DO UPDATE SET"
		      " attempts = shards.attempts + 1, n_samples = excluded.n_samples, host = excluded.host,"
		      " started_ms = excluded.started_ms", 5, v, err, "cannot start shard %d of run '%s' in '%s'",
		      a->shard, a->run_id, p->base.name);
	if (!res) {
		if (!p->lost && strcmp(p->sqlstate, "23503") == 0)
			return sd_error_set(err, ENOENT, "no run '%s' in '%s'", a->run_id, p->base.name);
		return pg_failed(p);
	}
	pq.PQclear(res);
	return 0;
}

static int pg_shard_start(struct store *base, const char *run_id, int shard, int64_t n_samples, const char *host,
			  int64_t now, struct sd_error *err)
{
	struct shard_args a = { .run_id = run_id, .shard = shard, .n_samples = n_samples, .host = host, .ms = now };

	return pg_with_retry(pgs(base), shard_start_op, &a, err);
}

/* The run's row locked first: two shards finishing at once are taken one
 * after the other, and the second counts the first's samples. */
static int shard_finish_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct shard_args *a = arg;
	char shard[16], ms[24];
	const char *v[3] = { a->run_id, shard, ms };
	PGresult *res;
	int rows;

	snprintf(shard, sizeof(shard), "%d", a->shard);
	snprintf(ms, sizeof(ms), "%lld", (long long)a->ms);
#define Q(sql, n) do { \
		if (!(res = pg_exec(p, (sql), (n), v, err, "cannot finish shard %d of run '%s' in '%s'", a->shard, \
				    a->run_id, p->base.name))) \
			goto fail; \
	} while (0)
	Q("BEGIN", 0);
	pq.PQclear(res);
	Q("SELECT 1 FROM sandeval.runs WHERE id = $1 FOR UPDATE", 1);
	rows = pq.PQntuples(res);
	pq.PQclear(res);
	if (!rows) {
		pg_rollback(p);
		return sd_error_set(err, ENOENT, "no run '%s' in '%s'", a->run_id, p->base.name);
	}
	Q("UPDATE sandeval.shards SET finished_ms = coalesce(finished_ms, $3::bigint)"
	  " WHERE run_id = $1 AND shard = $2 RETURNING 1", 3);
	rows = pq.PQntuples(res);
	pq.PQclear(res);
	if (!rows) {
		pg_rollback(p);
		return sd_error_set(err, ENOENT, "shard %d of run '%s' was never started in '%s'", a->shard, a->run_id,
				    p->base.name);
	}
	v[1] = ms;
	Q("UPDATE sandeval.runs SET finished_ms = $2 WHERE id = $1 AND finished_ms IS NULL AND n_samples IS NOT NULL"
	  " AND (SELECT count(*) FROM sandeval.samples WHERE run_id = $1) >= n_samples", 2);
	pq.PQclear(res);
	Q("SELECT finished_ms IS NOT NULL FROM sandeval.runs WHERE id = $1", 1);
	*a->complete = pq.PQgetvalue(res, 0, 0)[0] == 't';
	pq.PQclear(res);
	Q("COMMIT", 0);
	pq.PQclear(res);
#undef Q
	return 0;
fail:
	pg_rollback(p);
	return pg_failed(p);
}

static int pg_shard_finish(struct store *base, const char *run_id, int shard, int64_t finished_ms, bool *complete,
			   struct sd_error *err)
{
	struct shard_args a = { .run_id = run_id, .shard = shard, .ms = finished_ms, .complete = complete };

	return pg_with_retry(pgs(base), shard_finish_op, &a, err);
}

static int shards_get_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct shard_args *a = arg;
	const char *v[1] = { a->run_id };
	PGresult *res;

	/* one statement: one snapshot for the shards and their counts */
	res = pg_exec(p, "SELECT coalesce(h.shard, c.shard), h.shard IS NOT NULL, h.n_samples, h.attempts, h.host,"
		      " h.started_ms, h.finished_ms, coalesce(c.n, 0), c.last_ms"
		      " FROM (SELECT * FROM sandeval.shards WHERE run_id = $1) h FULL JOIN"
		      " (SELECT shard, count(*) AS n, max(finished_ms) AS last_ms FROM sandeval.samples"
		      "  WHERE run_id = $1 AND shard IS NOT NULL GROUP BY shard) c ON c.shard = h.shard",
		      1, v, err, "cannot read the shards of run '%s' from '%s'", a->run_id, p->base.name);
	if (!res)
		return pg_failed(p);
	for (int row = 0; row < pq.PQntuples(res); row++) {
		long long i = pg_int(res, row, 0);
		struct shard_info *s;

		if (i < 0 || (size_t)i >= a->n)
			continue;
		s = &a->v[i];
		if (pq.PQgetvalue(res, row, 1)[0] == 't') {
			s->started = true;
			s->n_samples = pg_int(res, row, 2);
			s->attempts = (int)pg_int(res, row, 3);
			snprintf(s->host, sizeof(s->host), "%s", pq.PQgetvalue(res, row, 4));
			s->started_ms = pg_int(res, row, 5);
			s->finished_ms = pg_int(res, row, 6);
		}
		s->n_recorded = pg_int(res, row, 7);
		s->last_ms = pg_int(res, row, 8);
	}
	pq.PQclear(res);
	return 0;
}

static int pg_shards_get(struct store *base, const char *run_id, struct shard_info *v, size_t n,
			 struct sd_error *err)
{
	struct shard_args a = { .run_id = run_id, .v = v, .n = n };

	return pg_with_retry(pgs(base), shards_get_op, &a, err);
}

/* --- agent runs --- */

struct agent_args {
	const char *agent_id;
	const struct agent_step *step;
	struct agent_step **out;
	size_t *n;
};

static int agent_step_put_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct agent_args *a = arg;
	char round[16], ms[24];
	const char *v[6] = { a->agent_id, a->step->kind, a->step->task_id, round, a->step->body, ms };
	PGresult *res;

	snprintf(round, sizeof(round), "%d", a->step->round);
	snprintf(ms, sizeof(ms), "%lld", (long long)a->step->at_ms);
	res = pg_exec(p, "INSERT INTO sandeval.agent_steps (agent_id, kind, task_id, round, body, at_ms)"
		      " VALUES ($1, $2, $3, $4, $5, $6)", 6, v, err, "cannot record a step of agent run '%s' in '%s'",
		      a->agent_id, p->base.name);
	if (!res)
		return pg_failed(p);
	pq.PQclear(res);
	return 0;
}

static int pg_agent_step_put(struct store *base, const char *agent_id, const struct agent_step *step,
			     struct sd_error *err)
{
	struct agent_args a = { .agent_id = agent_id, .step = step };

	return pg_with_retry(pgs(base), agent_step_put_op, &a, err);
}

static int agent_steps_load_op(struct store_pg *p, void *arg, struct sd_error *err)
{
	struct agent_args *a = arg;
	const char *v[1] = { a->agent_id };
	PGresult *res = pg_exec(p, "SELECT seq, kind, task_id, round, body, at_ms FROM sandeval.agent_steps"
				" WHERE agent_id = $1 ORDER BY seq", 1, v, err, "cannot read agent run '%s' from '%s'",
				a->agent_id, p->base.name);
	struct agent_step *s;
	bool oom = false;
	int rows;

	if (!res)
		return pg_failed(p);
	rows = pq.PQntuples(res);
	if (rows == 0) {	/* none: NULL, as store.h says (and SQLite gives) */
		pq.PQclear(res);
		*a->out = NULL;
		*a->n = 0;
		return 0;
	}
	s = calloc((size_t)rows + 1, sizeof(*s));
	for (int i = 0; s && i < rows; i++) {
		s[i].seq = pg_int(res, i, 0);
		s[i].kind = pg_dup(res, i, 1, &oom);
		s[i].task_id = pg_dup(res, i, 2, &oom);
		s[i].round = (int)pg_int(res, i, 3);
		s[i].body = pg_dup(res, i, 4, &oom);
		s[i].at_ms = pg_int(res, i, 5);
	}
	pq.PQclear(res);
	if (!s || oom) {
		agent_steps_free(s, s ? (size_t)rows : 0);
		return sd_error_set(err, ENOMEM, "cannot read agent run '%s': out of memory", a->agent_id);
	}
	*a->out = s;
	*a->n = (size_t)rows;
	return 0;
}

static int pg_agent_steps_load(struct store *base, const char *agent_id, struct agent_step **v, size_t *n,
			       struct sd_error *err)
{
	struct agent_args a = { .agent_id = agent_id, .out = v, .n = n };

	return pg_with_retry(pgs(base), agent_steps_load_op, &a, err);
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.run_create = pg_run_create,
	.run_finish = pg_run_finish,
	.run_get = pg_run_get,
	.runs_list = pg_runs_list,
	.breaker_add = pg_breaker_add,
	.breaker_history = pg_breaker_history,
	.alert_add = pg_alert_add,
	.alerts_get = pg_alerts_get,
	.sample_put = pg_put,
	.sample_done = pg_done,
	.samples_load = pg_load,
	.shard_start = pg_shard_start,
	.shard_finish = pg_shard_finish,
	.shards_get = pg_shards_get,
	.agent_step_put = pg_agent_step_put,
	.agent_steps_load = pg_agent_steps_load,
};
