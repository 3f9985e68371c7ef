/* store.c - the store interface: the implementation chosen by the URL, the checks they share */
#define _GNU_SOURCE
#include "store/store-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "suite/task.h"

static int64_t epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_pg_url(const char *url)
{
	return strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0;
}

static const struct store_ops *ops_for(const char *url)
{
	return is_pg_url(url) ? &store_pg_ops : &store_sqlite_ops;
}

/* "NAME=" opens the query parameter P (after '?' or '&')? */
static bool param_is(const char *p, const char *name)
{
	size_t n = strlen(name);

	return strncmp(p, name, n) == 0 && p[n] == '=';
}

const char *store_url_display(const char *url, char *buf, size_t n)
{
	const char *auth, *end, *at, *colon, *q;
	size_t len = 0;

	if (!n)
		return buf;
	buf[0] = '\0';
	if (!url)
		return buf;
	if (!is_pg_url(url)) {
		snprintf(buf, n, "%s", url);
		return buf;
	}
	/* scheme://[user[:password]@]hosts[/database][?k=v&...]: the password
	 * and any password= parameter are left out */
	auth = strstr(url, "://") + 3;
	end = auth + strcspn(auth, "/?");
	at = memrchr(auth, '@', (size_t)(end - auth));
	colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	q = strchr(end, '?');
#define ADD(p, k) do { len += (size_t)snprintf(buf + (len < n ? len : n - 1), len < n ? n - len : 1, "%.*s", \
						(int)(k), (p)); } while (0)
	ADD(url, (colon ? colon : auth) - url);
	if (colon)
		ADD(at, end - at);
	else
		ADD(auth, end - auth);
	ADD(end, (q ? q : end + strlen(end)) - end);
	if (q) {
		char sep = '?';

		for (const char *p = q + 1; *p;) {
			size_t k = strcspn(p, "&");

			if (!param_is(p, "password")) {
				ADD(&sep, 1);
				ADD(p, k);
				sep = '&';
			}
			p += k;
			if (*p == '&')
				p++;
		}
	}
#undef ADD
	return buf;
}

static struct store *open_as(const char *url, bool must_exist, struct sd_error *err)
{
	if (!url || !*url) {
		sd_error_set(err, EINVAL, "no database given (--db)");
		return NULL;
	}
	return ops_for(url)->open(url, must_exist, err);
}

struct store *store_open(const char *url, struct sd_error *err)
{
	return open_as(url, false, err);
}

struct store *store_open_existing(const char *url, struct sd_error *err)
{
	return open_as(url, true, err);
}

void store_close(struct store *s)
{
	if (s)
		s->ops->close(s);
}

const char *store_name(const struct store *s)
{
	return s->name;
}

static int check_id(struct store *s, const char *run_id, struct sd_error *err)
{
	if (!run_id || !*run_id || strlen(run_id) > STORE_RUN_ID_MAX)
		return sd_error_set(err, EINVAL, "'%s': a run id of 1 to %d characters is needed, not '%.80s'", s->name,
				    STORE_RUN_ID_MAX, run_id ? run_id : "");
	return 0;
}

int store_run_create(struct store *s, struct run_info *run, struct sd_error *err)
{
	if (run->shards < 0 || run->n_samples < 0)
		return sd_error_set(err, EINVAL, "cannot create a run in '%s': %d shards, %lld samples", s->name,
				    run->shards, (long long)run->n_samples);
	return s->ops->run_create(s, run, err);
}

int store_run_finish(struct store *s, const char *run_id, int64_t finished_ms, struct sd_error *err)
{
	if (check_id(s, run_id, err) < 0)
		return -1;
	return s->ops->run_finish(s, run_id, finished_ms ? finished_ms : epoch_ms(), err);
}

int store_run_get(struct store *s, const char *run_id, struct run_info *run, struct sd_error *err)
{
	if (check_id(s, run_id, err) < 0)
		return -1;
	return s->ops->run_get(s, run_id, run, err);
}

void run_info_release(struct run_info *run)
{
	if (!run)
		return;
	free(run->model);
	free(run->tasks_path);
	free(run->samples_path);
	free(run->suite_hash);
	free(run->config_json);
	free(run->formula_version);
	free(run->sandeval_version);
	memset(run, 0, sizeof(*run));
}

int store_runs_list(struct store *s, char ***ids, size_t *n, struct sd_error *err)
{
	return s->ops->runs_list(s, ids, n, err);
}

int store_sample_put_shard(struct store *s, const char *run_id, int shard, const struct sample_result *r,
			   struct sd_error *err)
{
	if (!r->sample_id || !r->task_id)
		return sd_error_set(err, EINVAL, "cannot record a sample without %s in '%s'",
				    r->sample_id ? "task id" : "sample id", s->name);
	if (check_id(s, run_id, err) < 0)
		return -1;
	return s->ops->sample_put(s, run_id, shard < 0 ? -1 : shard, r, err);
}

int store_sample_put(struct store *s, const char *run_id, const struct sample_result *r, struct sd_error *err)
{
	return store_sample_put_shard(s, run_id, -1, r, err);
}

int store_sample_done(struct store *s, const char *run_id, const char *sample_id, struct sd_error *err)
{
	if (check_id(s, run_id, err) < 0)
		return -1;
	return s->ops->sample_done(s, run_id, sample_id, err);
}

static const char *const tier_names[] = {
	[TIER_CANONICAL] = "canonical", [TIER_EDGE] = "edge", [TIER_PROPERTY] = "property",
};
static const char *const vis_names[] = { [VIS_PUBLIC] = "public", [VIS_HOLDOUT] = "holdout" };

static int name_parse(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

const char *store_tier_name(enum test_tier t)
{
	return (unsigned)t < 3 ? tier_names[t] : "unknown";
}

const char *store_vis_name(enum test_visibility v)
{
	return (unsigned)v < 2 ? vis_names[v] : "unknown";
}

int store_tier_parse(const char *s)
{
	return name_parse(tier_names, 3, s);
}

int store_vis_parse(const char *s)
{
	return name_parse(vis_names, 2, s);
}

void store_results_free(struct sample_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sample_result_release(&v[i]);
	free(v);
}

int store_samples_load(struct store *s, const char *run_id, struct sample_result **out, size_t *n,
		       struct sd_error *err)
{
	if (check_id(s, run_id, err) < 0)
		return -1;
	return s->ops->samples_load(s, run_id, out, n, err);
}

int store_shard_start(struct store *s, const char *run_id, int shard, int64_t n_samples, const char *host,
		      struct sd_error *err)
{
	if (check_id(s, run_id, err) < 0)
		return -1;
	if (shard < 0 || n_samples < 0)
		return sd_error_set(err, EINVAL, "'%s': run '%s': no shard %d", s->name, run_id, shard);
	return s->ops->shard_start(s, run_id, shard, n_samples, host ? host : "", epoch_ms(), err);
}

int store_shard_finish(struct store *s, const char *run_id, int shard, int64_t finished_ms, bool *complete,
		       struct sd_error *err)
{
	bool c = false;

	if (check_id(s, run_id, err) < 0)
		return -1;
	if (s->ops->shard_finish(s, run_id, shard, finished_ms ? finished_ms : epoch_ms(), &c, err) < 0)
		return -1;
	if (complete)
		*complete = c;
	return 0;
}

int store_shards_get(struct store *s, const char *run_id, struct shard_info **v, size_t *n, struct sd_error *err)
{
	struct run_info run = { 0 };
	struct shard_info *sh;
	size_t count;

	if (store_run_get(s, run_id, &run, err) < 0)
		return -1;
	count = (size_t)run.shards;
	if (run.shards <= 0) {
		run_info_release(&run);
		return sd_error_set(err, EINVAL, "run '%s' in '%s' is not a sharded run", run_id, s->name);
	}
	sh = calloc(count, sizeof(*sh));
	if (!sh) {
		run_info_release(&run);
		return sd_error_set(err, ENOMEM, "cannot read the shards of run '%s': out of memory", run_id);
	}
	for (size_t i = 0; i < count; i++)
		sh[i].shard = (int)i;
	if (s->ops->shards_get(s, run_id, sh, count, err) < 0) {
		free(sh);
		run_info_release(&run);
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (!sh[i].started)	/* the slice it will have (suite/task.h) */
			sh[i].n_samples = sample_shard_size(run.n_samples, (int)i, run.shards);
	run_info_release(&run);
	*v = sh;
	*n = count;
	return 0;
}

int store_agent_step_put(struct store *s, const char *agent_id, const char *kind, const char *task_id, int round,
			 const char *body, struct sd_error *err)
{
	struct agent_step step = { .kind = (char *)kind, .task_id = (char *)task_id, .round = round,
				   .body = (char *)(body ? body : "{}") };

	if (!agent_id || !*agent_id || !kind)
		return sd_error_set(err, EINVAL, "cannot record an agent step without its run and kind in '%s'", s->name);
	step.at_ms = now_ms();
	return s->ops->agent_step_put(s, agent_id, &step, err);
}

int store_agent_steps_load(struct store *s, const char *agent_id, struct agent_step **v, size_t *n,
			   struct sd_error *err)
{
	*v = NULL;
	*n = 0;
	return s->ops->agent_steps_load(s, agent_id, v, n, err);
}

void agent_steps_free(struct agent_step *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].kind);
		free(v[i].task_id);
		free(v[i].body);
	}
	free(v);
}

/* --- the circuit breaker --- */

int store_breaker_add(struct store *s, const struct breaker_event *e, struct sd_error *err)
{
	if (e->trip && (!e->run_id[0] || !e->reason || !*e->reason))
		return sd_error_set(err, EINVAL, "a trip of the circuit breaker needs its run and reason");
	if (!e->trip && (!e->by || !*e->by || !e->reason || !*e->reason))
		return sd_error_set(err, EINVAL, "a reset of the circuit breaker needs who (--by) and why (--reason)");
	return s->ops->breaker_add(s, e, err);
}

int store_breaker_history(struct store *s, struct breaker_event **v, size_t *n, struct sd_error *err)
{
	*v = NULL;
	*n = 0;
	return s->ops->breaker_history(s, v, n, err);
}

int store_breaker_push(struct breaker_event **v, size_t *n, size_t *cap, int64_t at_ms, const char *event,
		       const char *run_id, const char *by, const char *reason)
{
	struct breaker_event *e;

	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct breaker_event *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	e = &(*v)[*n];
	memset(e, 0, sizeof(*e));
	e->at_ms = at_ms;
	e->trip = event && strcmp(event, "trip") == 0;
	snprintf(e->run_id, sizeof(e->run_id), "%s", run_id ? run_id : "");
	e->by = by ? strdup(by) : NULL;
	e->reason = strdup(reason ? reason : "");
	(*n)++;
	return (by && !e->by) || !e->reason ? -1 : 0;
}

void breaker_events_free(struct breaker_event *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].by);
		free(v[i].reason);
	}
	free(v);
}

/* --- anomaly alerts --- */

int store_alert_add(struct store *s, const struct run_alert *a, struct sd_error *err)
{
	if (check_id(s, a->run_id, err) < 0)
		return -1;
	if (!a->kind[0] || !a->message)
		return sd_error_set(err, EINVAL, "an alert needs its kind and message");
	return s->ops->alert_add(s, a, err);
}

int store_alerts_get(struct store *s, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err)
{
	*v = NULL;
	*n = 0;
	if (check_id(s, run_id, err) < 0)
		return -1;
	return s->ops->alerts_get(s, run_id, v, n, err);
}

int store_alert_push(struct run_alert **v, size_t *n, size_t *cap, const char *run_id, int64_t at_ms,
		     const char *kind, double rate, double baseline, const char *message)
{
	struct run_alert *a;

	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct run_alert *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	a = &(*v)[*n];
	memset(a, 0, sizeof(*a));
	snprintf(a->run_id, sizeof(a->run_id), "%s", run_id ? run_id : "");
	snprintf(a->kind, sizeof(a->kind), "%s", kind ? kind : "");
	a->at_ms = at_ms;
	a->rate = rate;
	a->baseline = baseline;
	a->message = strdup(message ? message : "");
	(*n)++;
	return a->message ? 0 : -1;
}

void run_alerts_free(struct run_alert *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].message);
	free(v);
}
