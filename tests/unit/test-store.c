/* test-store.c - unit tests of store-sqlite.c: schema, runs, sample round trips, resume, durability after a kill */
#include "fixture.h"

#include <math.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include "score/score.h"
#include "store/store.h"
#include "store-fixture.h"

struct fx {
	char *dir;
	char *db;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = fx_tmpdir();
	fx->db = fx_str("%s/runs.db", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fx_rm_rf(fx->dir);
	free(fx->dir);
	free(fx->db);
	free(fx);
	return 0;
}

static long long sql_int(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long long v = -1;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

static void test_open_schema(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	sqlite3 *h;
	sqlite3_stmt *st;

	store_close(s);
	assert_int_equal(sql_int(fx->db, "PRAGMA user_version"), 6);
	assert_int_equal(sql_int(fx->db, "PRAGMA application_id"), 0x53444556);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
				 " AND name IN ('runs', 'samples', 'tests', 'findings', 'shards')"), 5);
	assert_int_equal(sqlite3_open(fx->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(h);
	/* reopening an existing store migrates nothing and works */
	s = open_ok(fx->db);
	store_close(s);
	store_close(NULL);
}

static void test_open_errors(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };
	char *other = fx_str("%s/other.db", fx->dir), *junk = fx_str("%s/junk.db", fx->dir);
	char *missing = fx_str("%s/no/such/dir/x.db", fx->dir);
	sqlite3 *h;

	assert_null(store_open(missing, &err));
	assert_contains(err.msg, "cannot open '");
	assert_contains(err.msg, missing);

	/* some other application's database */
	assert_int_equal(sqlite3_open(other, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_null(store_open(other, &err));
	assert_contains(err.msg, "not a sandeval database");
	assert_contains(err.msg, other);

	/* a store from a newer sandeval */
	store_close(open_ok(fx->db));
	assert_int_equal(sqlite3_open(fx->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_null(store_open(fx->db, &err));
	assert_contains(err.msg, "schema version 99 is newer");

	/* not a database at all */
	fx_write(junk, "this is not an SQLite file, just some text that is long enough to have a header\n");
	assert_null(store_open(junk, &err));
	assert_contains(err.msg, junk);
	free(other);
	free(junk);
	free(missing);
}

static void test_run_round_trip(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	struct run_info run, got;
	struct sd_error err = { 0 };

	new_run(s, &run, "gpt-\xc3\xa9");
	assert_int_equal(strlen(run.id), 18);
	assert_memory_equal(run.id, "r-", 2);
	assert_true(run.started_ms > 1600000000000LL);	/* filled with the time when 0 */
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_string_equal(got.id, run.id);
	assert_string_equal(got.model, "gpt-\xc3\xa9");
	assert_string_equal(got.tasks_path, "data/HumanEval.jsonl.gz");
	assert_string_equal(got.samples_path, "samples.jsonl");
	assert_string_equal(got.suite_hash, "ab12");
	assert_string_equal(got.config_json, "{\"jobs\":4}");
	assert_true(got.seed == 1234567890123LL);
	assert_string_equal(got.formula_version, SCORE_FORMULA_VERSION);
	assert_string_equal(got.sandeval_version, "v0-test");
	assert_int_equal(got.started_ms, run.started_ms);
	assert_int_equal(got.finished_ms, 0);
	run_info_release(&got);

	assert_int_equal(store_run_finish(s, run.id, 1800000000000LL, &err), 0);
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_int_equal(got.finished_ms, 1800000000000LL);
	run_info_release(&got);
	run_info_release(NULL);

	/* NULL fields stay NULL */
	memset(&run, 0, sizeof(run));
	run.started_ms = 5;
	run.formula_version = (char *)"0-test";
	assert_int_equal(store_run_create(s, &run, &err), 0);
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_null(got.model);
	assert_null(got.config_json);
	assert_int_equal(got.started_ms, 5);
	assert_string_equal(got.formula_version, "0-test");
	run_info_release(&got);

	assert_int_equal(store_run_get(s, "r-nope", &got, &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_contains(err.msg, "no run 'r-nope'");
	assert_contains(err.msg, fx->db);
	assert_int_equal(store_run_finish(s, "r-nope", 1, &err), -1);
	assert_contains(err.msg, "no run 'r-nope'");
	store_close(s);
}

static void test_sample_round_trip(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	struct run_info run;
	struct sample_result in[4], *out;
	size_t n;

	new_run(s, &run, "m");
	/* ids out of alphabetical order: loading keeps the recording order */
	in[0] = make_result("z/0", "HumanEval/1", 2 * (TS_HARNESS_ERROR + 1));	/* every status, twice */
	in[1] = make_result("a/0", "HumanEval/0", 1);
	in[2] = make_result("m/0", "HumanEval/0", 0);				/* harness error: NAN scores */
	in[3] = make_result("b/\xe2\x82\xac 'quoted' \"x\"", "HumanEval/2", 3);
	assert_true(in[2].harness_error);
	assert_true(isnan(in[2].score));
	free(in[3].model);
	in[3].model = NULL;
	free(in[3].he_result);
	in[3].he_result = NULL;
	in[3].tests[1].weight = NAN;
	assert_true(isnan(in[0].score_holdout) == false);
	for (int i = 0; i < 4; i++)
		put_ok(s, run.id, &in[i]);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 4);
	for (int i = 0; i < 4; i++)
		assert_same_result(&in[i], &out[i]);
	free_results(out, n);

	/* after closing and reopening, the same */
	store_close(s);
	s = open_ok(fx->db);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 4);
	for (int i = 0; i < 4; i++)
		assert_same_result(&in[i], &out[i]);
	free_results(out, n);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM tests"), 2 * (TS_HARNESS_ERROR + 1) + 1 + 3);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM samples WHERE score IS NULL"), 1);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM samples WHERE formula_version = '2'"), 4);
	/* in[2] is a harness error: no composite; the others were linted or not as make_result says */
	for (int i = 0; i < 4; i++)
		assert_int_equal(isnan(in[i].composite),
				 in[i].harness_error || (in[i].lint != LINT_PASSED && in[i].lint != LINT_FAILED));
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM findings"), 3);

	/* an empty run loads as nothing */
	new_run(s, &run, NULL);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 0);
	free(out);
	for (int i = 0; i < 4; i++)
		sample_result_release(&in[i]);
	store_close(s);
}

static void test_sample_errors(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	struct run_info run;
	struct sample_result r = make_result("HumanEval/0/0", "HumanEval/0", 3), r2, *out;
	struct sd_error err = { 0 };
	size_t n;

	new_run(s, &run, "m");
	put_ok(s, run.id, &r);
	/* the same sample again: refused, and the first record is intact */
	r2 = make_result("HumanEval/0/0", "HumanEval/0", 5);
	assert_int_equal(store_sample_put(s, run.id, &r2, &err), -1);
	assert_int_equal(err.code, EEXIST);
	assert_contains(err.msg, "sample 'HumanEval/0/0' is already recorded in run '");
	assert_contains(err.msg, fx->db);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 1);
	assert_same_result(&r, &out[0]);
	free_results(out, n);
	assert_int_equal(sql_int(fx->db, "SELECT count(*) FROM tests"), 3);

	/* a run that does not exist */
	assert_int_equal(store_sample_put(s, "r-0000000000000000", &r, &err), -1);
	assert_contains(err.msg, "no run 'r-0000000000000000'");
	/* missing ids */
	free(r2.sample_id);
	r2.sample_id = NULL;
	assert_int_equal(store_sample_put(s, run.id, &r2, &err), -1);
	assert_contains(err.msg, "without sample id");
	/* the store still works after the failures */
	free(r2.sample_id);
	r2.sample_id = strdup("HumanEval/0/1");
	put_ok(s, run.id, &r2);
	sample_result_release(&r);
	sample_result_release(&r2);
	store_close(s);
}

static void test_resume_and_two_runs(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	struct run_info a, b;
	struct sample_result ra = make_result("t/0", "t", 2), rb = make_result("t/0", "t", 3), *out;
	struct sd_error err = { 0 };
	size_t n;

	new_run(s, &a, "model-a");
	new_run(s, &b, "model-b");
	assert_string_not_equal(a.id, b.id);
	assert_int_equal(store_sample_done(s, a.id, "t/0", &err), 0);
	put_ok(s, a.id, &ra);
	assert_int_equal(store_sample_done(s, a.id, "t/0", &err), 1);
	assert_int_equal(store_sample_done(s, b.id, "t/0", &err), 0);	/* per run */
	assert_int_equal(store_sample_done(s, a.id, "t/1", &err), 0);
	put_ok(s, b.id, &rb);		/* the same sample id in another run */
	assert_int_equal(store_sample_done(s, b.id, "t/0", &err), 1);

	load_ok(s, a.id, &out, &n);
	assert_int_equal(n, 1);
	assert_same_result(&ra, &out[0]);
	free_results(out, n);
	load_ok(s, b.id, &out, &n);
	assert_int_equal(n, 1);
	assert_same_result(&rb, &out[0]);
	free_results(out, n);

	/* a second handle on the same file (another sandeval process) sees both */
	{
		struct store *s2 = open_ok(fx->db);

		assert_int_equal(store_sample_done(s2, a.id, "t/0", &err), 1);
		store_close(s2);
	}
	sample_result_release(&ra);
	sample_result_release(&rb);
	store_close(s);
}

/* A run killed mid-way keeps every sample it finished: a child records 3
 * samples, starts a 4th transaction by hand, inserts the 4th sample's row of
 * the same run in it and dies without committing. The row must be gone. */
static void test_durable_after_kill(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	struct run_info run;
	struct sample_result *out;
	struct sd_error err = { 0 };
	size_t n;
	int status;
	pid_t pid;

	new_run(s, &run, "m");
	store_close(s);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *cs = store_open(fx->db, NULL);
		sqlite3 *h;
		char *sql;

		if (!cs)
			_exit(1);
		for (int i = 0; i < 3; i++) {
			char id[32];
			struct sample_result r;

			snprintf(id, sizeof(id), "t/%d", i);
			r = make_result(id, "t", 4);
			if (store_sample_put(cs, run.id, &r, NULL) < 0)
				_exit(2);
			sample_result_release(&r);
		}
		/* the 4th sample, half written: its row is in the open transaction */
		if (sqlite3_open(fx->db, &h) != SQLITE_OK ||
		    sqlite3_exec(h, "PRAGMA foreign_keys = ON; BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(3);
		sql = sqlite3_mprintf("INSERT INTO samples (run_id, sample_id, task_id, passed, harness_error,"
				      " formula_version) VALUES (%Q, 't/3', 't', 0, 0, '1')", run.id);
		if (!sql || sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_changes(h) != 1)
			_exit(4);
		_exit(9);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 9);	/* 4: the half-written row was not inserted */

	s = open_ok(fx->db);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 3);		/* 4 if the uncommitted row survived */
	for (size_t i = 0; i < n; i++) {
		char id[32];

		snprintf(id, sizeof(id), "t/%zu", i);
		assert_string_equal(out[i].sample_id, id);
		assert_int_equal(out[i].n_tests, 4);
	}
	free_results(out, n);
	assert_int_equal(store_sample_done(s, run.id, "t/2", &err), 1);
	assert_int_equal(store_sample_done(s, run.id, "t/3", &err), 0);
	/* and the run goes on where it stopped */
	{
		struct sample_result r = make_result("t/3", "t", 1);

		put_ok(s, run.id, &r);
		sample_result_release(&r);
	}
	assert_int_equal(store_sample_done(s, run.id, "t/3", &err), 1);
	store_close(s);
}


/* A database written by schema version 1 (before lint) opens, migrates to
 * the current version and loads its samples as not linted, without a composite or EvalPlus statuses. */
static void test_migrate_v1(void **state)
{
	struct fx *fx = *state;
	struct store *s;
	struct sample_result *out;
	char **ids;
	size_t n;
	sqlite3 *h;
	struct sd_error err = { 0 };

	assert_int_equal(sqlite3_open(fx->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"CREATE TABLE runs (id TEXT PRIMARY KEY, started_ms INTEGER NOT NULL, finished_ms INTEGER,"
		" model TEXT, suite_hash TEXT, config_json TEXT, seed INTEGER, formula_version TEXT NOT NULL,"
		" sandeval_version TEXT, tasks_path TEXT, samples_path TEXT);"
		"CREATE TABLE samples (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs(id)"
		" ON DELETE CASCADE, sample_id TEXT NOT NULL, task_id TEXT NOT NULL, task_class TEXT,"
		" model TEXT, sandbox_ids TEXT, score REAL, score_public REAL, score_holdout REAL,"
		" passed INTEGER NOT NULL, he_result TEXT, harness_error INTEGER NOT NULL, latency_ms INTEGER,"
		" cpu_ms INTEGER, peak_memory_bytes INTEGER, started_ms INTEGER, finished_ms INTEGER,"
		" formula_version TEXT NOT NULL, UNIQUE (run_id, sample_id));"
		"CREATE TABLE tests (run_id TEXT NOT NULL, sample_id TEXT NOT NULL, idx INTEGER NOT NULL,"
		" name TEXT NOT NULL, tier TEXT NOT NULL, weight REAL, visibility TEXT NOT NULL,"
		" status TEXT NOT NULL, detail TEXT, in_process INTEGER NOT NULL,"
		" PRIMARY KEY (run_id, sample_id, idx));"
		"INSERT INTO runs VALUES ('r-old', 1, 2, 'm', 'h', '{}', 7, '1', 'v0', 't', 's');"
		"INSERT INTO samples (run_id, sample_id, task_id, task_class, score, passed, harness_error,"
		" formula_version) VALUES ('r-old', 'x/0', 'x', 'c', 0.5, 0, 0, '1');"
		"INSERT INTO tests VALUES ('r-old', 'x/0', 0, 't', 'canonical', 1.0, 'public', 'passed', NULL, 0);"
		"PRAGMA user_version = 1; PRAGMA application_id = 1396983126;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	s = open_ok(fx->db);
	assert_int_equal(sql_int(fx->db, "PRAGMA user_version"), 6);
	load_ok(s, "r-old", &out, &n);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].lint, LINT_NONE);
	assert_true(isnan(out[0].composite));
	assert_true(isnan(out[0].rouge_l));
	assert_null(out[0].completion);
	assert_null(out[0].base_status);	/* version 4's columns: NULL for samples of before */
	assert_null(out[0].plus_status);
	assert_int_equal(tripwires_total(&out[0].tripwires), 0);	/* version 6's: none recorded before */
	assert_int_equal(out[0].n_findings, 0);
	assert_int_equal(out[0].n_tests, 1);
	assert_true(out[0].score == 0.5);
	free_results(out, n);
	assert_int_equal(store_runs_list(s, &ids, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ids[0], "r-old");
	assert_null(ids[1]);
	free(ids[0]);
	free(ids);
	store_close(s);
}

/* Runs list oldest first, whatever their ids. */
static void test_runs_list(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(fx->db);
	struct run_info a, b;
	struct sd_error err = { 0 };
	char **ids = NULL;
	size_t n = 99;

	assert_int_equal(store_runs_list(s, &ids, &n, &err), 0);
	assert_int_equal(n, 0);
	free(ids);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.started_ms = 2000;
	b.started_ms = 1000;
	assert_int_equal(store_run_create(s, &a, &err), 0);
	assert_int_equal(store_run_create(s, &b, &err), 0);
	assert_int_equal(store_runs_list(s, &ids, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], b.id);
	assert_string_equal(ids[1], a.id);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_and_two_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_durable_after_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_list, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
