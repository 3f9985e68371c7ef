/* shard.c - sharded runs: parse I/N, the samples' hash, the seed from the name, create or join the shared record */
#define _GNU_SOURCE
#include "eval/shard.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/hash.h"
#include "base/util.h"

static int parse_int(const char *s, size_t len, long max, long *out)
{
	long v = 0;

	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int shard_parse(const char *spec, struct run_shard *out, struct sd_error *err)
{
	const char *slash = spec ? strchr(spec, '/') : NULL, *env = NULL, *var = NULL;
	long i, n;

	if (!slash || parse_int(slash + 1, strlen(slash + 1), SHARD_MAX, &n) < 0 || n < 1)
		return sd_error_set(err, EINVAL, "--shard '%s': expected I/N or auto/N, N from 1 to %d", spec ? spec : "",
				    SHARD_MAX);
	if ((size_t)(slash - spec) == 4 && strncmp(spec, "auto", 4) == 0) {
		if ((env = getenv("JOB_COMPLETION_INDEX")) && *env)
			var = "JOB_COMPLETION_INDEX";
		else if ((env = getenv("SLURM_ARRAY_TASK_ID")) && *env)
			var = "SLURM_ARRAY_TASK_ID";
		else
			return sd_error_set(err, EINVAL, "--shard %s: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed "
					    "Job) nor SLURM_ARRAY_TASK_ID (a Slurm array) is set", spec);
		if (parse_int(env, strlen(env), SHARD_MAX, &i) < 0 || i >= n)
			return sd_error_set(err, EINVAL, "--shard %s: %s is '%.20s', not an index from 0 to %ld%s", spec,
					    var, env, n - 1,
					    strcmp(var, "SLURM_ARRAY_TASK_ID") == 0 ? " (submit with --array=0-N-1)" : "");
	} else if (parse_int(spec, (size_t)(slash - spec), SHARD_MAX, &i) < 0 || i >= n) {
		return sd_error_set(err, EINVAL, "--shard '%s': I must be from 0 to N-1", spec);
	}
	out->index = (int)i;
	out->count = (int)n;
	return 0;
}

int shard_check_name(const char *name, struct sd_error *err)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > STORE_RUN_ID_MAX || name[0] == '-' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return sd_error_set(err, EINVAL, "--run-id '%.60s': expected 1 to %d letters, digits, '.', '_' or '-', "
				    "not starting with '-'", name ? name : "", STORE_RUN_ID_MAX);
	return 0;
}

long long shard_seed(const char *name)
{
	struct sha256_ctx ctx;
	char hex[65];
	long long seed;

	sha256_init(&ctx);
	hash_update_str(&ctx, "sandeval-shard-seed-v1");
	hash_update_str(&ctx, name);
	hash_digest_hex(&ctx, hex);
	hex[12] = '\0';		/* 48 bits, as a random seed has */
	seed = strtoll(hex, NULL, 16);
	return seed;
}

int shard_samples_hash(const struct sample_set *set, char hex[65], struct sd_error *err)
{
	struct sha256_ctx sha, *ctx = &sha;

	sha256_init(ctx);
	hash_update_str(ctx, "sandeval-samples-v1");
	for (size_t i = 0; i < set->n; i++) {
		const struct sample *s = &set->samples[i];

		hash_update_str(ctx, s->sample_id);
		hash_update_str(ctx, s->task_id);
		hash_update_str(ctx, s->model);
		hash_update_str(ctx, s->code);
		hash_update_str(ctx, s->is_completion ? "completion" : "solution");
	}
	hash_digest_hex(ctx, hex);
	return 0;
}

/* The options a run's shards must share: its config without what may
 * differ from machine to machine (--jobs, where the files are). */
static json_t *shared_options(const char *config_json)
{
	json_t *o = config_json ? json_loads(config_json, 0, NULL) : NULL;

	if (!json_is_object(o)) {
		json_decref(o);
		return json_object();
	}
	json_object_del(o, "jobs");
	json_object_del(o, "tasks");
	json_object_del(o, "samples");
	return o;
}

static void value_text(json_t *v, char *buf, size_t n)
{
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

	snprintf(buf, n, "%.60s%s", s ? s : "none", s && strlen(s) > 60 ? "..." : "");
	free(s);
}

/* 0 when the record HAVE is the run WANT; else -1 naming the difference. */
static int same_run(const struct run_info *want, const struct run_info *have, int shard, struct sd_error *err)
{
	json_t *a, *b, *v;
	const char *key;
	char x[80], y[80];
	int ret = 0;

#define REFUSE(...) sd_error_set(err, EINVAL, "shard %d/%d refused: run '%s' " __VA_ARGS__)
	if (have->shards == 0)
		return REFUSE("is not a sharded run (finish it with --resume)", shard, want->shards, have->id);
	if (have->shards != want->shards)
		return REFUSE("has %d shards, not %d", shard, want->shards, have->id, have->shards, want->shards);
	if (!have->suite_hash || strcmp(have->suite_hash, want->suite_hash) != 0)
		return REFUSE("evaluates other tasks (suite hash %.12s, these %.12s)", shard, want->shards, have->id,
			      have->suite_hash ? have->suite_hash : "none", want->suite_hash);
	if (have->n_samples != want->n_samples)
		return REFUSE("has %lld samples, these samples are %lld", shard, want->shards, have->id,
			      (long long)have->n_samples, (long long)want->n_samples);
	if (!have->formula_version || strcmp(have->formula_version, want->formula_version) != 0)
		return REFUSE("scores with formula version %s, this sandeval with %s", shard, want->shards, have->id,
			      have->formula_version ? have->formula_version : "none", want->formula_version);
	a = shared_options(want->config_json);
	b = shared_options(have->config_json);
	if (!json_equal(a, b)) {
		/* the first option that differs, either way */
		json_t *objs[2] = { a, b };

		for (int side = 0; side < 2 && ret == 0; side++) {
			json_object_foreach(objs[side], key, v) {
				if (json_equal(json_object_get(a, key), json_object_get(b, key)))
					continue;
				value_text(json_object_get(a, key), x, sizeof(x));
				value_text(json_object_get(b, key), y, sizeof(y));
				if (strcmp(key, "samples_hash") == 0)
					ret = REFUSE("evaluates other samples (hash %.12s, these %.12s)", shard,
						     want->shards, have->id,
						     json_string_value(json_object_get(b, key)) ?: "none",
						     json_string_value(json_object_get(a, key)) ?: "none");
				else
					ret = REFUSE("runs with %s %s, this shard with %s", shard, want->shards,
						     have->id, key, y, x);
				break;
			}
		}
		if (ret == 0)
			ret = REFUSE("has other options", shard, want->shards, have->id);
	}
#undef REFUSE
	json_decref(a);
	json_decref(b);
	return ret;
}

int shard_join(struct store *st, const struct run_info *want, int shard, struct run_info *have, bool *created,
	       struct sd_error *err)
{
	struct run_info mine = *want;
	struct sd_error e = { 0 };

	*created = false;
	memset(have, 0, sizeof(*have));
	if (store_run_create(st, &mine, &e) == 0)
		*created = true;
	else if (e.code != EEXIST)	/* EEXIST: another shard made it, to be checked */
		return err ? (*err = e, -1) : -1;
	if (store_run_get(st, want->id, have, err) < 0)
		return -1;
	if (!*created && same_run(want, have, shard, err) < 0) {
		run_info_release(have);
		return -1;
	}
	return 0;
}

void shard_shuffle(size_t *jobs, size_t n)
{
	uint64_t x = 0;

	if (n < 2)
		return;
	if (getrandom(&x, sizeof(x), 0) != sizeof(x))
		x = (uint64_t)now_ns();
	x |= 1;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j, t;

		/* xorshift64*: a process's own order, not a secret */
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		j = (size_t)((x * 0x2545F4914F6CDD1DULL) % (i + 1));
		t = jobs[i];
		jobs[i] = jobs[j];
		jobs[j] = t;
	}
}
