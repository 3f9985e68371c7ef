/* test-store-iface.c - the store interface against both implementations (SQLite and PostgreSQL): the same calls, the same answers */
#include "fixture.h"

#include <signal.h>
#include <sys/wait.h>

#include "pg-fixture.h"
#include "store-fixture.h"
#include "eval/breaker.h"
#include "suite/task.h"

struct backend {
	const char *name;
	bool pg;
};

static const struct backend be_sqlite = { "sqlite", false };
static const struct backend be_pg = { "postgresql", true };

struct fx {
	const struct backend *be;
	char *dir;
	char *url;			/* NULL: no PostgreSQL server (the test skips) */
};

static int setup(void **state)
{
	const struct backend *be = *state;
	struct fx *fx = calloc(1, sizeof(*fx));
	const char *base = getenv("SANDEVAL_PG_URL");

	assert_non_null(fx);
	fx->be = be;
	fx->dir = fx_tmpdir();
	if (!be->pg)
		fx->url = fx_str("%s/runs.db", fx->dir);
	else if (base && *base)
		fx->url = pg_newdb(base, "sdt_iface");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->be->pg && fx->url)
		pg_dropdb(getenv("SANDEVAL_PG_URL"), fx->url);
	fx_rm_rf(fx->dir);
	free(fx->dir);
	free(fx->url);
	free(fx);
	return 0;
}

/* The store's URL, or skip: PostgreSQL tests need the cluster tests/run.sh starts. */
static const char *need(const struct fx *fx)
{
	if (!fx->url)
		fx_skip("postgres: no PostgreSQL server (SANDEVAL_PG_URL; tests/run.sh starts one)");
	return fx->url;
}

static void test_runs(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info a, b, got;
	struct sd_error err = { 0 };
	char **ids;
	size_t n;

	new_run(s, &a, "model-\xc3\xa9");
	assert_int_equal(strlen(a.id), 18);
	assert_memory_equal(a.id, "r-", 2);
	/* a name given is the id; a second run of that name is refused */
	memset(&b, 0, sizeof(b));
	snprintf(b.id, sizeof(b.id), "codegen-16b.shards");
	b.started_ms = a.started_ms + 1;
	b.shards = 4;
	b.n_samples = 16400;
	b.config_json = (char *)"{\"k\":[1]}";
	assert_int_equal(store_run_create(s, &b, &err), 0);
	assert_string_equal(b.id, "codegen-16b.shards");
	assert_int_equal(store_run_create(s, &b, &err), -1);
	assert_int_equal(err.code, EEXIST);
	assert_contains(err.msg, "already a run 'codegen-16b.shards'");
	assert_int_equal(store_run_get(s, b.id, &got, &err), 0);
	assert_int_equal(got.shards, 4);
	assert_int_equal(got.n_samples, 16400);
	assert_int_equal(got.n_recorded, 0);
	assert_int_equal(got.finished_ms, 0);
	assert_string_equal(got.config_json, "{\"k\":[1]}");
	run_info_release(&got);
	assert_int_equal(store_run_get(s, a.id, &got, &err), 0);
	assert_string_equal(got.model, "model-\xc3\xa9");
	assert_true(got.seed == 1234567890123LL);
	assert_int_equal(got.shards, 0);
	assert_int_equal(got.n_samples, 0);
	run_info_release(&got);
	/* ids: 1 to 39 characters */
	memset(&got, 0, sizeof(got));
	assert_int_equal(store_run_get(s, "", &got, &err), -1);
	assert_int_equal(err.code, EINVAL);
	assert_int_equal(store_run_get(s, "r-nope", &got, &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_contains(err.msg, "no run 'r-nope'");
	assert_int_equal(store_run_finish(s, "r-nope", 5, &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_int_equal(store_run_finish(s, a.id, 1800000000000LL, &err), 0);
	assert_int_equal(store_run_get(s, a.id, &got, &err), 0);
	assert_int_equal(got.finished_ms, 1800000000000LL);
	run_info_release(&got);
	/* oldest first */
	assert_int_equal(store_runs_list(s, &ids, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], a.id);
	assert_string_equal(ids[1], b.id);
	assert_null(ids[2]);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	store_close(s);
}

static void test_samples(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info run, got;
	struct sample_result in[4], again, *out;
	struct sd_error err = { 0 };
	size_t n;

	new_run(s, &run, "m");
	in[0] = make_result("z/0", "HumanEval/1", 2 * (TS_HARNESS_ERROR + 1));	/* every status, twice */
	in[1] = make_result("a/0", "HumanEval/0", 1);
	in[2] = make_result("m/0", "HumanEval/0", 0);				/* harness error: NAN scores */
	in[3] = make_result("b/\xe2\x82\xac 'quoted' \"x\" \\ $1", "HumanEval/2", 3);
	free(in[3].model);
	in[3].model = NULL;
	in[3].tests[1].weight = NAN;
	in[3].score = 1.0 / 3.0;	/* every digit kept */
	in[1].base_status = strdup("pass");	/* an EvalPlus task's (schema 4) */
	in[1].plus_status = strdup("fail");
	in[3].base_status = strdup("fail");	/* a list with a harness error has no plus status */
	tripwires_network(&in[1].tripwires, "169.254.169.254:80", true);	/* schema 6 */
	tripwires_denied(&in[1].tripwires, "mount");
	in[1].tripwires.limit_hits = TW_LIMIT_PIDS;
	in[3].tripwires.uncounted = TW_NETWORK | TW_LINGERING;		/* gVisor's: null, not zero */
	for (int i = 0; i < 4; i++)
		put_ok(s, run.id, &in[i]);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 4);
	for (int i = 0; i < 4; i++)		/* in the order recorded */
		assert_same_result(&in[i], &out[i]);
	free_results(out, n);
	assert_int_equal(store_sample_done(s, run.id, "a/0", &err), 1);
	assert_int_equal(store_sample_done(s, run.id, "a/1", &err), 0);
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_int_equal(got.n_recorded, 4);
	run_info_release(&got);

	/* recorded once: the second is refused and changes nothing */
	again = make_result("a/0", "HumanEval/0", 5);
	assert_int_equal(store_sample_put(s, run.id, &again, &err), -1);
	assert_int_equal(err.code, EEXIST);
	assert_contains(err.msg, "sample 'a/0' is already recorded in run '");
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 4);
	assert_same_result(&in[1], &out[1]);
	free_results(out, n);
	/* no such run; no sample id */
	assert_int_equal(store_sample_put(s, "r-0000000000000000", &again, &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_contains(err.msg, "no run 'r-0000000000000000'");
	free(again.sample_id);
	again.sample_id = NULL;
	assert_int_equal(store_sample_put(s, run.id, &again, &err), -1);
	assert_contains(err.msg, "without sample id");
	/* the store works on after the failures; after reopening, the same */
	again.sample_id = strdup("a/1");
	put_ok(s, run.id, &again);
	store_close(s);
	s = open_ok(fx->url);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 5);
	for (int i = 0; i < 4; i++)
		assert_same_result(&in[i], &out[i]);
	assert_same_result(&again, &out[4]);
	free_results(out, n);
	/* an empty run loads as nothing */
	new_run(s, &run, NULL);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 0);
	free(out);
	for (int i = 0; i < 4; i++)
		sample_result_release(&in[i]);
	sample_result_release(&again);
	store_close(s);
}

/* Two processes (two copies of one shard) record the same 40 samples at
 * once, in opposite orders: each sample is recorded once, and each copy
 * is told EEXIST for exactly the ones the other recorded. */
static void test_twins(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info run;
	struct sample_result *out;
	int p[2], status, got[2][2];
	size_t n, tests = 0;
	pid_t pid[2];

	new_run(s, &run, "m");
	store_close(s);
	assert_int_equal(pipe(p), 0);
	for (int c = 0; c < 2; c++) {
		pid[c] = fork();
		assert_true(pid[c] >= 0);
		if (pid[c] == 0) {
			struct store *cs = store_open(fx->url, NULL);
			int counts[2] = { 0, 0 };

			if (!cs)
				_exit(1);
			for (int k = 0; k < 40; k++) {
				int i = c ? 39 - k : k;
				char id[32];
				struct sample_result r;
				struct sd_error e = { 0 };

				snprintf(id, sizeof(id), "t/%d", i);
				r = make_result(id, "t", (size_t)(1 + i % 4));
				if (store_sample_put_shard(cs, run.id, 0, &r, &e) == 0)
					counts[0]++;
				else if (e.code == EEXIST)
					counts[1]++;
				else
					_exit(2);
				sample_result_release(&r);
			}
			store_close(cs);
			if (write(p[1], counts, sizeof(counts)) != sizeof(counts))
				_exit(3);
			_exit(0);
		}
	}
	close(p[1]);
	for (int c = 0; c < 2; c++) {
		assert_int_equal(read(p[0], got[c], sizeof(got[c])), sizeof(got[c]));
		assert_int_equal(waitpid(pid[c], &status, 0), pid[c]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(p[0]);
	assert_int_equal(got[0][0] + got[1][0], 40);
	assert_int_equal(got[0][1], 40 - got[0][0]);
	assert_int_equal(got[1][1], 40 - got[1][0]);
	s = open_ok(fx->url);
	load_ok(s, run.id, &out, &n);
	assert_int_equal(n, 40);
	for (size_t i = 0; i < n; i++) {
		int k = atoi(out[i].sample_id + 2);

		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(out[i].sample_id, out[j].sample_id);
		assert_int_equal(out[i].n_tests, 1 + k % 4);	/* whole: every test of the one record */
		tests += out[i].n_tests;
	}
	assert_int_equal(tests, 10 * (1 + 2 + 3 + 4));
	free_results(out, n);
	store_close(s);
}

static struct run_info sharded_run(struct store *s, const char *name, int shards, int64_t n_samples)
{
	struct run_info run;
	struct sd_error err = { 0 };

	memset(&run, 0, sizeof(run));
	snprintf(run.id, sizeof(run.id), "%s", name);
	run.shards = shards;
	run.n_samples = n_samples;
	run.suite_hash = (char *)"h";
	if (store_run_create(s, &run, &err) < 0)
		fail_msg("store_run_create: %s", err.msg);
	return run;
}

static void put_in_shard(struct store *s, const char *run_id, int shard, const char *sample_id)
{
	struct sample_result r = make_result(sample_id, "t", 2);
	struct sd_error err = { 0 };

	if (store_sample_put_shard(s, run_id, shard, &r, &err) < 0)
		fail_msg("store_sample_put_shard: %s", err.msg);
	sample_result_release(&r);
}

static void test_shards(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info run = sharded_run(s, "sh", 3, 7), plain, got;
	struct shard_info *v;
	struct sd_error err = { 0 };
	bool complete = true;
	size_t n;

	/* before any start: every shard, with the slice it will have */
	assert_int_equal(store_shards_get(s, run.id, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(v[i].shard, i);
		assert_false(v[i].started);
		assert_int_equal(v[i].n_samples, sample_shard_size(7, i, 3));
		assert_int_equal(v[i].n_recorded, 0);
	}
	assert_int_equal(v[0].n_samples + v[1].n_samples + v[2].n_samples, 7);
	free(v);
	assert_int_equal(store_shard_start(s, run.id, 0, 3, "node-a", &err), 0);
	assert_int_equal(store_shard_start(s, run.id, 0, 3, "node-b", &err), 0);	/* a retry */
	assert_int_equal(store_shard_start(s, run.id, 1, 2, "node-c", &err), 0);
	put_in_shard(s, run.id, 0, "t/0");
	put_in_shard(s, run.id, 0, "t/3");
	put_in_shard(s, run.id, 1, "t/1");
	assert_int_equal(store_shards_get(s, run.id, &v, &n, &err), 0);
	assert_true(v[0].started && v[1].started && !v[2].started);
	assert_int_equal(v[0].attempts, 2);
	assert_string_equal(v[0].host, "node-b");
	assert_int_equal(v[0].n_recorded, 2);
	assert_int_equal(v[1].n_recorded, 1);
	assert_int_equal(v[1].attempts, 1);
	assert_true(v[0].last_ms > 0 && v[0].started_ms > 0);
	assert_int_equal(v[0].finished_ms, 0);
	free(v);
	/* shards finishing: the run is complete only with every sample */
	put_in_shard(s, run.id, 0, "t/6");
	assert_int_equal(store_shard_finish(s, run.id, 0, 0, &complete, &err), 0);
	assert_false(complete);
	assert_int_equal(store_shard_finish(s, run.id, 2, 0, &complete, &err), -1);	/* never started */
	assert_int_equal(err.code, ENOENT);
	assert_int_equal(store_shard_start(s, run.id, 2, 2, "node-d", &err), 0);
	put_in_shard(s, run.id, 1, "t/4");
	put_in_shard(s, run.id, 2, "t/2");
	put_in_shard(s, run.id, 2, "t/5");
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_int_equal(got.n_recorded, 7);
	assert_int_equal(got.finished_ms, 0);	/* all there, but no shard said it finished */
	run_info_release(&got);
	assert_int_equal(store_shard_finish(s, run.id, 2, 0, &complete, &err), 0);
	assert_true(complete);
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_true(got.finished_ms > 0);
	run_info_release(&got);
	assert_int_equal(store_shard_finish(s, run.id, 1, 0, &complete, &err), 0);
	assert_true(complete);
	assert_int_equal(store_shards_get(s, run.id, &v, &n, &err), 0);
	for (int i = 0; i < 3; i++) {
		assert_true(v[i].finished_ms > 0 || i == 1);
		assert_int_equal(v[i].n_recorded, v[i].n_samples);
	}
	free(v);
	/* an unsharded run has no shards */
	new_run(s, &plain, "m");
	assert_int_equal(store_shards_get(s, plain.id, &v, &n, &err), -1);
	assert_int_equal(err.code, EINVAL);
	store_close(s);
}

/* Four shards finish at the same moment: the run is finished once, and
 * at least one of them (the last to commit) is told so. */
static void test_finish_race(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_info run = sharded_run(s, "race", 4, 8), got;
	struct sd_error err = { 0 };
	int go[2], res[2], status, told = 0;
	pid_t pid[4];

	store_close(s);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(res), 0);
	for (int c = 0; c < 4; c++) {
		pid[c] = fork();
		assert_true(pid[c] >= 0);
		if (pid[c] == 0) {
			struct store *cs = store_open(fx->url, NULL);
			bool complete = false;
			char id[16], b;

			close(go[1]);
			if (!cs || store_shard_start(cs, run.id, c, 2, "h", NULL) < 0)
				_exit(1);
			for (int k = c; k < 8; k += 4) {
				struct sample_result r;

				snprintf(id, sizeof(id), "t/%d", k);
				r = make_result(id, "t", 1);
				if (store_sample_put_shard(cs, run.id, c, &r, NULL) < 0)
					_exit(2);
				sample_result_release(&r);
			}
			if (read(go[0], &b, 1) != 0)	/* all at once: when the parent closes the pipe */
				_exit(3);
			if (store_shard_finish(cs, run.id, c, 0, &complete, NULL) < 0)
				_exit(4);
			b = complete ? 'y' : 'n';
			if (write(res[1], &b, 1) != 1)
				_exit(5);
			store_close(cs);
			_exit(0);
		}
	}
	close(go[0]);
	close(res[1]);
	usleep(300 * 1000);
	close(go[1]);
	for (int c = 0; c < 4; c++) {
		char b;

		assert_int_equal(read(res[0], &b, 1), 1);
		told += b == 'y';
	}
	for (int c = 0; c < 4; c++) {
		assert_int_equal(waitpid(pid[c], &status, 0), pid[c]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(res[0]);
	assert_true(told >= 1);
	s = open_ok(fx->url);
	assert_int_equal(store_run_get(s, run.id, &got, &err), 0);
	assert_true(got.finished_ms > 0);
	assert_int_equal(got.n_recorded, 8);
	run_info_release(&got);
	store_close(s);
}

static void test_open_existing(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };
	struct store *s;

	need(fx);
	if (!fx->be->pg) {
		/* readers never create a database */
		assert_null(store_open_existing(fx->url, &err));
		assert_int_equal(err.code, ENOENT);
		assert_contains(err.msg, "cannot open '");
		assert_contains(err.msg, "No such file or directory");
		assert_false(fx_exists(fx->url));
	}
	store_close(open_ok(fx->url));
	s = store_open_existing(fx->url, &err);
	if (!s)
		fail_msg("store_open_existing: %s", err.msg);
	store_close(s);
}

static void test_agent_steps(void **state)
{
	struct fx *fx = *state;
	struct sd_error err = { 0 };
	struct agent_step *v = NULL;
	size_t n = 99;
	struct store *s;

	need(fx);
	s = open_ok(fx->url);
	/* an agent run of no step is no error: there is nothing to resume */
	assert_int_equal(store_agent_steps_load(s, "a-none", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(v);		/* nothing to free: the same on both stores */
	assert_int_equal(store_agent_step_put(s, "a-1", "start", NULL, 0, "{\"k\": 2}", &err), 0);
	assert_int_equal(store_agent_step_put(s, "a-2", "start", NULL, 0, "{}", &err), 0);
	assert_int_equal(store_agent_step_put(s, "a-1", "answer", "HumanEval/0", 1, "{\"n\": \"\u00e9\"}", &err), 0);
	assert_int_equal(store_agent_step_put(s, "a-1", "run", NULL, 1, NULL, &err), 0);
	assert_int_equal(store_agent_step_put(s, "", "run", NULL, 1, NULL, &err), -1);
	store_close(s);
	/* read back by another connection, in recording order, this run's only */
	s = open_ok(fx->url);
	assert_int_equal(store_agent_steps_load(s, "a-1", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].kind, "start");
	assert_null(v[0].task_id);
	assert_string_equal(v[0].body, "{\"k\": 2}");
	assert_string_equal(v[1].kind, "answer");
	assert_string_equal(v[1].task_id, "HumanEval/0");
	assert_int_equal(v[1].round, 1);
	assert_string_equal(v[2].body, "{}");
	assert_true(v[0].seq < v[1].seq && v[1].seq < v[2].seq);
	assert_true(v[2].at_ms > 0);
	agent_steps_free(v, n);
	store_close(s);
}

static void test_url_display(void **state)
{
	static const char *const cases[][2] = {
		{ "runs.db", "runs.db" },
		{ "/var/lib/x/runs.db", "/var/lib/x/runs.db" },
		{ "postgresql://u:s3cret@db.example:5432/evals", "postgresql://u@db.example:5432/evals" },
		{ "postgres://u:s3cret@db/evals?sslmode=require", "postgres://u@db/evals?sslmode=require" },
		{ "postgresql://u@db/evals?password=s3cret&sslmode=require", "postgresql://u@db/evals?sslmode=require" },
		{ "postgresql://u@db/evals?sslmode=require&password=s3cret", "postgresql://u@db/evals?sslmode=require" },
		{ "postgresql:///evals?host=/run/pg&password=s3cret", "postgresql:///evals?host=/run/pg" },
		{ "postgresql://a:b:c@h/d", "postgresql://a@h/d" },
		{ "postgresql://u:p@ss@h/d", "postgresql://u@h/d" },
		{ "postgresql://h", "postgresql://h" },
	};
	char buf[256], small[8];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(store_url_display(cases[i][0], buf, sizeof(buf)), cases[i][1]);
	/* a buffer too small: cut, never overrun, never the password */
	assert_string_equal(store_url_display("postgresql://u:s3cret@h/d", small, sizeof(small)), "postgre");
}

/* The circuit breaker's history (schema 6): trips and resets in order,
 * what each needs, the state eval/breaker.c reads from it, kept across opens. */
static void test_breaker(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct breaker_event *v, e = { .at_ms = 1000, .trip = true, .reason = "7 escape-class events" };
	struct sd_error err = { 0 };
	struct run_info run;
	size_t n;
	bool tripped;

	assert_int_equal(store_breaker_history(s, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	assert_int_equal(breaker_check(s, &err), 0);
	/* a trip needs its run; a reset who and why */
	assert_int_equal(store_breaker_add(s, &e, &err), -1);
	assert_int_equal(err.code, EINVAL);
	new_run(s, &run, "m");
	snprintf(e.run_id, sizeof(e.run_id), "%s", run.id);
	assert_int_equal(store_breaker_add(s, &e, &err), 0);
	assert_int_equal(breaker_state(s, &tripped, NULL, &err), 0);
	assert_true(tripped);
	assert_int_equal(breaker_check(s, &err), -1);
	assert_int_equal(err.code, BREAKER_ERRNO);
	assert_contains(err.msg, "is tripped: since 1970-01-01 00:00:01 UTC, by run r-");
	assert_contains(err.msg, ": 7 escape-class events; nothing runs on this store until");
	assert_int_equal(breaker_reset(s, "alice", "", &err), -1);
	assert_int_equal(err.code, EINVAL);
	assert_int_equal(breaker_reset(s, NULL, "why", &err), -1);
	assert_int_equal(breaker_check(s, &err), -1);	/* still tripped */
	assert_int_equal(breaker_reset(s, "alice \xe2\x82\xac 'q'", "checked: a fixture", &err), 0);
	assert_int_equal(breaker_check(s, &err), 0);
	assert_int_equal(breaker_reset(s, "bob", "again", &err), -1);
	assert_int_equal(err.code, EALREADY);
	assert_int_equal(breaker_trip(s, run.id, "a second trip", &err), 0);
	store_close(s);
	s = open_ok(fx->url);
	assert_int_equal(store_breaker_history(s, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_true(v[0].trip && !v[1].trip && v[2].trip);
	assert_int_equal(v[0].at_ms, 1000);
	assert_string_equal(v[0].run_id, run.id);
	assert_null(v[0].by);
	assert_string_equal(v[0].reason, "7 escape-class events");
	assert_string_equal(v[1].by, "alice \xe2\x82\xac 'q'");
	assert_string_equal(v[1].reason, "checked: a fixture");
	assert_string_equal(v[1].run_id, "");
	assert_true(v[1].at_ms > 1000);
	assert_string_equal(v[2].reason, "a second trip");
	breaker_events_free(v, n);
	assert_int_equal(breaker_check(s, &err), -1);
	store_close(s);
}

/* Anomaly alerts (schema 6): recorded per run, read back in order, with every field. */
static void test_alerts(void **state)
{
	struct fx *fx = *state;
	struct store *s = open_ok(need(fx));
	struct run_alert a = { .at_ms = 5, .kind = "metadata_probes", .rate = 750.0, .baseline = 1.0 / 3.0,
			       .message = "metadata probes jumped \xe2\x82\xac 'q'" }, *v;
	struct sd_error err = { 0 };
	struct run_info run, other;
	size_t n;

	new_run(s, &run, "m");
	new_run(s, &other, "m");
	assert_int_equal(store_alert_add(s, &a, &err), -1);	/* no run id */
	snprintf(a.run_id, sizeof(a.run_id), "%s", run.id);
	assert_int_equal(store_alert_add(s, &a, &err), 0);
	snprintf(a.kind, sizeof(a.kind), "fork_bombs");
	a.at_ms = 6;
	assert_int_equal(store_alert_add(s, &a, &err), 0);
	assert_int_equal(store_alerts_get(s, other.id, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	store_close(s);
	s = open_ok(fx->url);
	assert_int_equal(store_alerts_get(s, run.id, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].kind, "metadata_probes");
	assert_string_equal(v[1].kind, "fork_bombs");
	assert_string_equal(v[0].run_id, run.id);
	assert_int_equal(v[0].at_ms, 5);
	assert_true(v[0].rate == 750.0 && v[0].baseline == 1.0 / 3.0);
	assert_string_equal(v[0].message, "metadata probes jumped \xe2\x82\xac 'q'");
	run_alerts_free(v, n);
	store_close(s);
}

int main(void)
{
#define BOTH(t) { #t " (sqlite)", t, setup, teardown, (void *)&be_sqlite }, \
		{ #t " (postgresql)", t, setup, teardown, (void *)&be_pg }
	const struct CMUnitTest tests[] = {
		BOTH(test_runs),
		BOTH(test_samples),
		BOTH(test_breaker),
		BOTH(test_alerts),
		BOTH(test_twins),
		BOTH(test_shards),
		BOTH(test_finish_race),
		BOTH(test_open_existing),
		BOTH(test_agent_steps),
		cmocka_unit_test(test_url_display),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
