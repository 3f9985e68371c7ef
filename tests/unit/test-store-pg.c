/* test-store-pg.c - what only the PostgreSQL store has: its schema and migrations, messages without the password, reconnection, concurrent openers */
#include "fixture.h"

#include <signal.h>
#include <sys/wait.h>

#include "pg-fixture.h"
#include "store-fixture.h"

struct fx {
	const char *base;		/* the cluster (SANDEVAL_PG_URL) */
	char *url;			/* this test's own database */
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	const char *base = getenv("SANDEVAL_PG_URL");

	assert_non_null(fx);
	if (base && *base) {
		fx->base = base;
		fx->url = pg_newdb(base, "sdt_pg");
	}
	unsetenv("SANDEVAL_DB_RETRY");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->url)
		pg_dropdb(fx->base, fx->url);
	free(fx->url);
	free(fx);
	unsetenv("SANDEVAL_DB_RETRY");
	return 0;
}

static const char *need(const struct fx *fx)
{
	if (!fx->url)
		fx_skip("postgres: no PostgreSQL server (SANDEVAL_PG_URL; tests/run.sh starts one)");
	return fx->url;
}

static void test_schema(void **state)
{
	struct fx *fx = *state;

	store_close(open_ok(need(fx)));
	assert_int_equal(pg_int_of(fx->url, "SELECT value::int FROM sandeval.meta WHERE key = 'schema_version'"), 6);
	assert_int_equal(pg_int_of(fx->url, "SELECT count(*) FROM sandeval.meta WHERE key = 'application'"
				   " AND value = 'sandeval'"), 1);
	assert_int_equal(pg_int_of(fx->url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'sandeval' AND"
				   " tablename IN ('meta', 'runs', 'samples', 'tests', 'findings', 'shards')"), 6);
	/* nothing outside its schema */
	assert_int_equal(pg_int_of(fx->url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 0);
	/* reopening migrates nothing and works */
	store_close(open_ok(fx->url));
	assert_int_equal(pg_int_of(fx->url, "SELECT value::int FROM sandeval.meta WHERE key = 'schema_version'"), 6);
}

static void test_refusals(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };

	/* a store from a newer sandeval */
	store_close(open_ok(need(fx)));
	pg_sql(fx->url, "UPDATE sandeval.meta SET value = '99' WHERE key = 'schema_version'");
	assert_null(store_open(fx->url, &err));
	assert_contains(err.msg, "schema version 99 is newer");
	assert_int_equal(err.code, EPROTO);
	/* a schema "sandeval" of some other application's */
	pg_sql(fx->url, "DROP SCHEMA sandeval CASCADE; CREATE SCHEMA sandeval; CREATE TABLE sandeval.t (x int)");
	assert_null(store_open(fx->url, &err));
	assert_contains(err.msg, "not a sandeval database");
	pg_sql(fx->url, "DROP SCHEMA sandeval CASCADE; CREATE SCHEMA sandeval;"
		       " CREATE TABLE sandeval.meta (key text PRIMARY KEY, value text NOT NULL);"
		       " INSERT INTO sandeval.meta VALUES ('application', 'other')");
	assert_null(store_open(fx->url, &err));
	assert_contains(err.msg, "not a sandeval database");
	/* an empty schema of that name is taken */
	pg_sql(fx->url, "DROP SCHEMA sandeval CASCADE; CREATE SCHEMA sandeval");
	store_close(open_ok(fx->url));
}

/* A version 1 store (before lint) opens, migrates to 3, loads its samples unlinted. */
static void test_migrate_v1(void **state)
{
	struct fx *fx = *state;
	struct sample_result *out;
	struct run_info got;
	struct sd_error err = { 0 };
	struct store *s;
	size_t n;

	pg_sql(need(fx),
	       "CREATE SCHEMA sandeval;"
	       "CREATE TABLE sandeval.meta (key text PRIMARY KEY, value text NOT NULL);"
	       "INSERT INTO sandeval.meta VALUES ('application', 'sandeval'), ('schema_version', '1');"
	       "CREATE TABLE sandeval.runs (id text PRIMARY KEY, seq bigserial, started_ms bigint NOT NULL,"
	       " finished_ms bigint, model text, suite_hash text, config_json text, seed bigint,"
	       " formula_version text NOT NULL, sandeval_version text, tasks_path text, samples_path text);"
	       "CREATE TABLE sandeval.samples (id bigserial PRIMARY KEY, run_id text NOT NULL REFERENCES"
	       " sandeval.runs(id) ON DELETE CASCADE, sample_id text NOT NULL, task_id text NOT NULL,"
	       " task_class text, model text, sandbox_ids text, score double precision, score_public double precision,"
	       " score_holdout double precision, passed integer NOT NULL, he_result text, harness_error integer NOT NULL,"
	       " latency_ms bigint, cpu_ms bigint, peak_memory_bytes bigint, started_ms bigint, finished_ms bigint,"
	       " formula_version text NOT NULL, UNIQUE (run_id, sample_id));"
	       "CREATE TABLE sandeval.tests (run_id text NOT NULL, sample_id text NOT NULL, idx integer NOT NULL,"
	       " name text NOT NULL, tier text NOT NULL, weight double precision, visibility text NOT NULL,"
	       " status text NOT NULL, detail text, in_process integer NOT NULL, PRIMARY KEY (run_id, sample_id, idx),"
	       " FOREIGN KEY (run_id, sample_id) REFERENCES sandeval.samples(run_id, sample_id) ON DELETE CASCADE);"
	       "INSERT INTO sandeval.runs (id, started_ms, finished_ms, model, suite_hash, config_json, seed,"
	       " formula_version, sandeval_version, tasks_path, samples_path)"
	       " VALUES ('r-old', 1, 2, 'm', 'h', '{}', 7, '1', 'v0', 't', 's');"
	       "INSERT INTO sandeval.samples (run_id, sample_id, task_id, task_class, score, passed, harness_error,"
	       " formula_version) VALUES ('r-old', 'x/0', 'x', 'c', 0.5, 0, 0, '1');"
	       "INSERT INTO sandeval.tests VALUES ('r-old', 'x/0', 0, 't', 'canonical', 1.0, 'public', 'passed', NULL, 0)");
	s = open_ok(fx->url);
	assert_int_equal(pg_int_of(fx->url, "SELECT value::int FROM sandeval.meta WHERE key = 'schema_version'"), 6);
	load_ok(s, "r-old", &out, &n);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].lint, LINT_NONE);
	assert_true(isnan(out[0].composite) && isnan(out[0].rouge_l));
	assert_null(out[0].completion);
	assert_null(out[0].base_status);	/* version 4's columns: NULL for samples of before */
	assert_null(out[0].plus_status);
	assert_int_equal(tripwires_total(&out[0].tripwires), 0);	/* version 6's: none recorded before */
	assert_int_equal(out[0].n_tests, 1);
	assert_true(out[0].score == 0.5);
	free_results(out, n);
	assert_int_equal(store_run_get(s, "r-old", &got, &err), 0);
	assert_int_equal(got.shards, 0);
	assert_int_equal(got.n_samples, 0);
	assert_int_equal(got.n_recorded, 1);
	run_info_release(&got);
	store_close(s);
}

/* Errors name the host and the database, never the password. */
static void test_messages(void **state)
{
	struct fx *fx = *state;
	const char *tcp = getenv("SANDEVAL_PG_TCP_URL");
	struct sd_error err = { 0 };
	char *url;
	struct store *s;

	need(fx);
	/* nothing listens there */
	assert_null(store_open("postgresql://alice:Pa55-w0rd-x@127.0.0.1:1/evals?connect_timeout=5", &err));
	assert_not_contains(err.msg, "Pa55-w0rd-x");
	assert_contains(err.msg, "'postgresql://alice@127.0.0.1:1/evals?connect_timeout=5'");
	assert_contains(err.msg, "database 'evals' on host '127.0.0.1' port 1");
	/* a database that is not there, the password as a parameter */
	url = pg_url_with_db(fx->base, "no_such_db");
	{
		char *with_pw = fx_str("%s&password=Pa55-w0rd-x", url);

		assert_null(store_open(with_pw, &err));
		assert_not_contains(err.msg, "Pa55-w0rd-x");
		assert_contains(err.msg, "no_such_db");
		free(with_pw);
	}
	free(url);
	if (!tcp || !*tcp)
		fx_skip("postgres: no TCP URL with a password (SANDEVAL_PG_TCP_URL; tests/run.sh sets it)");
	/* through TCP with the password: works, and store_name() hides it */
	s = store_open(tcp, &err);
	if (!s)
		fail_msg("store_open(TCP): %s", err.msg);
	assert_not_contains(store_name(s), "s3cret");
	assert_contains(store_name(s), "127.0.0.1");
	store_close(s);
	/* a wrong password: refused, and said without either password */
	{
		char *wrong = strdup(tcp), *at = strstr(wrong, "s3cret");

		assert_non_null(at);
		memcpy(at, "XXXXXX", 6);
		assert_null(store_open(wrong, &err));
		assert_contains(err.msg, "password authentication failed");
		assert_contains(err.msg, "127.0.0.1");
		assert_contains(err.msg, "sandeval_test");
		assert_not_contains(err.msg, "s3cret");
		assert_not_contains(err.msg, "XXXXXX");
		free(wrong);
	}
}

/* Our session is cut (a restart or failover looks the same to a client):
 * the next call reconnects and works, nothing half-written. */
static void test_reconnect(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info run, got;
	struct sample_result r = make_result("t/0", "t", 3), r2 = make_result("t/1", "t", 2), *out;
	struct sd_error err = { 0 };
	char *kill_sql;
	size_t n;

	new_run(s, &run, "m");
	put_ok(s, run.id, &r);
	kill_sql = fx_str("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
			  " WHERE application_name = 'sandeval' AND datname = current_database()");
	assert_int_equal(pg_int_of(fx->url, kill_sql), 1);
	put_ok(s, run.id, &r2);		/* after reconnecting */
	assert_int_equal(pg_int_of(fx->url, kill_sql), 1);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 2);
	assert_same_result(&r, &out[0]);
	assert_same_result(&r2, &out[1]);
	free_results(out, n);
	/* with no time to reconnect (SANDEVAL_DB_RETRY=0): an error naming the host and database */
	store_close(s);
	setenv("SANDEVAL_DB_RETRY", "0", 1);
	s = open_ok(fx->url);
	assert_int_equal(pg_int_of(fx->url, kill_sql), 1);
	memset(&got, 0, sizeof(got));
	assert_int_equal(store_run_get(s, run.id, &got, &err), -1);
	assert_int_equal(err.code, ECONNRESET);
	assert_contains(err.msg, "the connection to database 'sdt_pg_");
	assert_contains(err.msg, "on host '");
	assert_contains(err.msg, "gave up reconnecting after 0 s");
	store_close(s);
	setenv("SANDEVAL_DB_RETRY", "x", 1);
	assert_null(store_open(fx->url, &err));
	assert_contains(err.msg, "SANDEVAL_DB_RETRY");
	free(kill_sql);
	sample_result_release(&r);
	sample_result_release(&r2);
}

/* A process killed in the middle of a transaction leaves nothing of it:
 * a child records 3 samples, then inserts a 4th sample's row in a
 * transaction it never commits, and is killed. */
static void test_durable_after_kill(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info run;
	struct sample_result *out, r;
	struct sd_error err = { 0 };
	int ready[2], status;
	char c;
	size_t n;
	pid_t pid;

	new_run(s, &run, "m");
	store_close(s);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *cs = store_open(fx->url, NULL);
		PGconn *h;
		PGresult *res;
		char *sql;

		close(ready[0]);
		if (!cs)
			_exit(1);
		for (int i = 0; i < 3; i++) {
			char id[32];

			snprintf(id, sizeof(id), "t/%d", i);
			r = make_result(id, "t", 4);
			if (store_sample_put(cs, run.id, &r, NULL) < 0)
				_exit(2);
			sample_result_release(&r);
		}
		h = PQconnectdb(fx->url);
		sql = fx_str("BEGIN; INSERT INTO sandeval.samples (run_id, sample_id, task_id, passed, harness_error,"
			     " formula_version) VALUES ('%s', 't/3', 't', 0, 0, '2')", run.id);
		res = PQexec(h, sql);
		if (PQresultStatus(res) != PGRES_COMMAND_OK || write(ready[1], "r", 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	s = open_ok(fx->url);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 3);		/* 4 if the uncommitted row survived */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(out[i].n_tests, 4);
	free_results(out, n);
	assert_int_equal(store_sample_done(s, run.id, "t/3", &err), 0);
	/* and the run goes on where it stopped */
	r = make_result("t/3", "t", 1);
	put_ok(s, run.id, &r);
	sample_result_release(&r);
	assert_int_equal(store_sample_done(s, run.id, "t/3", &err), 1);
	store_close(s);
}

/* Eight processes open a new database at once (the shards of a run
 * starting together): the schema is made once, every one of them works. */
static void test_concurrent_open(void **state)
{
	struct fx *fx = *state;
	int status;
	pid_t pid[8];

	need(fx);
	for (int c = 0; c < 8; c++) {
		pid[c] = fork();
		assert_true(pid[c] >= 0);
		if (pid[c] == 0) {
			struct sd_error e = { 0 };
			struct store *cs = store_open(fx->url, &e);
			struct run_info run;

			if (!cs) {
				fprintf(stderr, "child %d: %s\n", c, e.msg);
				_exit(1);
			}
			memset(&run, 0, sizeof(run));
			if (store_run_create(cs, &run, &e) < 0)
				_exit(2);
			store_close(cs);
			_exit(0);
		}
	}
	for (int c = 0; c < 8; c++) {
		assert_int_equal(waitpid(pid[c], &status, 0), pid[c]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(pg_int_of(fx->url, "SELECT count(*) FROM sandeval.runs"), 8);
	assert_int_equal(pg_int_of(fx->url, "SELECT value::int FROM sandeval.meta WHERE key = 'schema_version'"), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_durable_after_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_open, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
