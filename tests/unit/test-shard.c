/* test-shard.c - unit tests of shard.c: I/N and auto/N, run names, the seed from the name, the samples' hash, the slices, joining a run */
#include "fixture.h"

#include "eval/shard.h"
#include "store-fixture.h"

static void test_parse(void **state)
{
	static const struct { const char *spec; int i, n; } good[] = {
		{ "0/1", 0, 1 }, { "3/4", 3, 4 }, { "0/100000", 0, 100000 }, { "99999/100000", 99999, 100000 },
	};
	static const char *const bad[] = {
		"", "4/4", "1/0", "0/", "/4", "-1/4", "1/-4", "a/4", "1/4x", "1/100001", "0", "1 /4", "0/1/2",
	};
	struct run_shard sh;
	struct sd_error err = { 0 };

	(void)state;
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
		assert_int_equal(shard_parse(good[k].spec, &sh, &err), 0);
		assert_int_equal(sh.index, good[k].i);
		assert_int_equal(sh.count, good[k].n);
	}
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		if (shard_parse(bad[k], &sh, &err) == 0)
			fail_msg("'%s' parsed as %d/%d", bad[k], sh.index, sh.count);
		assert_contains(err.msg, "--shard");
	}
	/* auto: Kubernetes first, then Slurm */
	unsetenv("JOB_COMPLETION_INDEX");
	unsetenv("SLURM_ARRAY_TASK_ID");
	assert_int_equal(shard_parse("auto/4", &sh, &err), -1);
	assert_contains(err.msg, "neither JOB_COMPLETION_INDEX");
	setenv("SLURM_ARRAY_TASK_ID", "2", 1);
	assert_int_equal(shard_parse("auto/4", &sh, &err), 0);
	assert_int_equal(sh.index, 2);
	setenv("JOB_COMPLETION_INDEX", "3", 1);
	assert_int_equal(shard_parse("auto/4", &sh, &err), 0);
	assert_int_equal(sh.index, 3);
	setenv("JOB_COMPLETION_INDEX", "4", 1);
	assert_int_equal(shard_parse("auto/4", &sh, &err), -1);
	assert_contains(err.msg, "JOB_COMPLETION_INDEX is '4', not an index from 0 to 3");
	unsetenv("JOB_COMPLETION_INDEX");
	setenv("SLURM_ARRAY_TASK_ID", "4", 1);
	assert_int_equal(shard_parse("auto/4", &sh, &err), -1);
	assert_contains(err.msg, "--array=0-N-1");
	unsetenv("SLURM_ARRAY_TASK_ID");
}

static void test_names_and_seed(void **state)
{
	static const char *const good[] = { "a", "codegen-16b_v2.run", "r-0123456789abcdef",
					    "x23456789012345678901234567890123456789" };
	static const char *const bad[] = { "", "-a", "a b", "a/b", "a'b", "\xc3\xa9",
					   "x234567890123456789012345678901234567890" };
	struct sd_error err = { 0 };

	(void)state;
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++)
		assert_int_equal(shard_check_name(good[k], &err), 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_int_equal(shard_check_name(bad[k], &err), -1);
	/* the same name, the same seed, in every process; another name, another seed; 48 bits */
	assert_true(shard_seed("run-a") == shard_seed("run-a"));
	assert_true(shard_seed("run-a") != shard_seed("run-b"));
	assert_true(shard_seed("run-a") >= 0 && shard_seed("run-a") < (1LL << 48));
}

static void test_slices(void **state)
{
	(void)state;
	/* every sample in exactly one shard; slices differ by one at most */
	for (int n = 1; n <= 9; n++) {
		for (size_t total = 0; total < 40; total++) {
			int64_t sum = 0, lo = INT64_MAX, hi = 0;

			for (size_t i = 0; i < total; i++) {
				int in = 0;

				for (int k = 0; k < n; k++)
					in += sample_in_shard(i, k, n);
				assert_int_equal(in, 1);
			}
			for (int k = 0; k < n; k++) {
				int64_t size = sample_shard_size((int64_t)total, k, n), counted = 0;

				for (size_t i = 0; i < total; i++)
					counted += sample_in_shard(i, k, n);
				assert_int_equal(size, counted);
				sum += size;
				lo = size < lo ? size : lo;
				hi = size > hi ? size : hi;
			}
			assert_int_equal(sum, (int64_t)total);
			assert_true(hi - lo <= 1);
		}
	}
	assert_false(sample_in_shard(0, 0, 0));
}

static void test_samples_hash(void **state)
{
	struct sample s[3] = {
		{ .task_id = (char *)"t", .sample_id = (char *)"t/0", .code = (char *)"x", .is_completion = true },
		{ .task_id = (char *)"t", .sample_id = (char *)"t/1", .code = (char *)"y", .is_completion = true },
		{ .task_id = (char *)"u", .sample_id = (char *)"u/0", .code = (char *)"", .is_completion = false },
	};
	struct sample_set a = { .samples = s, .n = 3 };
	char h1[65], h2[65];
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(shard_samples_hash(&a, h1, &err), 0);
	assert_int_equal(strlen(h1), 64);
	assert_int_equal(shard_samples_hash(&a, h2, &err), 0);
	assert_string_equal(h1, h2);
	s[1].code = (char *)"y ";		/* other code */
	assert_int_equal(shard_samples_hash(&a, h2, &err), 0);
	assert_string_not_equal(h1, h2);
	s[1].code = (char *)"y";
	s[2].is_completion = true;		/* completion vs solution */
	assert_int_equal(shard_samples_hash(&a, h2, &err), 0);
	assert_string_not_equal(h1, h2);
	s[2].is_completion = false;
	a.n = 2;				/* one less */
	assert_int_equal(shard_samples_hash(&a, h2, &err), 0);
	assert_string_not_equal(h1, h2);
}

/* The first shard creates the run, the others join it; a shard with
 * another N, other tasks, other samples or other options is refused, naming it. */
static void test_join(void **state)
{
	char *dir = fx_tmpdir(), *db = fx_str("%s/runs.db", dir);
	struct store *s = open_ok(db);
	struct run_info want, have, other;
	struct sd_error err = { 0 };
	bool created;

	(void)state;
	memset(&want, 0, sizeof(want));
	snprintf(want.id, sizeof(want.id), "cg");
	want.shards = 4;
	want.n_samples = 16400;
	want.suite_hash = (char *)"abc";
	want.formula_version = (char *)SCORE_FORMULA_VERSION;
	want.tasks_path = (char *)"/data/HumanEval.jsonl.gz";
	want.config_json = (char *)"{\"jobs\":2,\"tasks\":\"/data/HumanEval.jsonl.gz\",\"samples\":\"/a\","
				   "\"timeout\":3,\"samples_hash\":\"0123456789abcdef\",\"seed\":7}";
	assert_int_equal(shard_join(s, &want, 0, &have, &created, &err), 0);
	assert_true(created);
	assert_string_equal(have.id, "cg");
	assert_int_equal(have.shards, 4);
	run_info_release(&have);
	/* another machine: other paths and --jobs are fine */
	other = want;
	other.config_json = (char *)"{\"jobs\":64,\"tasks\":\"/mnt/he.jsonl.gz\",\"samples\":\"/b\","
				    "\"timeout\":3,\"samples_hash\":\"0123456789abcdef\",\"seed\":7}";
	assert_int_equal(shard_join(s, &other, 2, &have, &created, &err), 0);
	assert_false(created);
	run_info_release(&have);
#define REFUSED(what, text) do { \
		assert_int_equal(shard_join(s, &other, 1, &have, &created, &err), -1); \
		assert_int_equal(err.code, EINVAL); \
		assert_contains(err.msg, "shard 1/"); \
		assert_contains(err.msg, text); \
		other = want; \
	} while (0)
	other.shards = 3;
	REFUSED("N", "has 4 shards, not 3");
	other.suite_hash = (char *)"abd";
	REFUSED("tasks", "evaluates other tasks");
	other.n_samples = 16399;
	REFUSED("samples", "has 16400 samples");
	other.config_json = (char *)"{\"timeout\":3,\"samples_hash\":\"fedcba9876543210\",\"seed\":7}";
	REFUSED("samples hash", "evaluates other samples (hash 0123456789ab, these fedcba987654)");
	other.config_json = (char *)"{\"timeout\":5,\"samples_hash\":\"0123456789abcdef\",\"seed\":7}";
	REFUSED("option", "runs with timeout 3, this shard with 5");
	other.config_json = (char *)"{\"timeout\":3,\"samples_hash\":\"0123456789abcdef\",\"seed\":7,\"lint\":true}";
	REFUSED("an option more", "runs with lint none, this shard with true");
	other.config_json = (char *)"{\"timeout\":3,\"samples_hash\":\"0123456789abcdef\"}";
	REFUSED("an option less", "runs with seed 7, this shard with none");
#undef REFUSED
	/* a run that is not sharded */
	memset(&other, 0, sizeof(other));
	snprintf(other.id, sizeof(other.id), "plain");
	other.suite_hash = (char *)"abc";
	assert_int_equal(store_run_create(s, &other, &err), 0);
	other.shards = 2;
	assert_int_equal(shard_join(s, &other, 0, &have, &created, &err), -1);
	assert_contains(err.msg, "is not a sharded run");
	store_close(s);
	fx_rm_rf(dir);
	free(dir);
	free(db);
}

static void test_shuffle(void **state)
{
	size_t a[200], b[200], seen[200] = { 0 };
	bool differ = false;

	(void)state;
	for (size_t i = 0; i < 200; i++)
		a[i] = b[i] = i;
	shard_shuffle(a, 200);
	shard_shuffle(b, 200);
	for (size_t i = 0; i < 200; i++) {
		seen[a[i]]++;
		differ |= a[i] != b[i];
	}
	for (size_t i = 0; i < 200; i++)
		assert_int_equal(seen[i], 1);	/* a permutation */
	assert_true(differ);			/* two processes' orders differ */
	shard_shuffle(a, 0);
	shard_shuffle(a, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_names_and_seed),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_samples_hash),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_shuffle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
