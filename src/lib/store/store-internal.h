/* store-internal.h - what store.c shares with the implementations: the table of functions each fills */
#ifndef SANDEVAL_STORE_INTERNAL_H
#define SANDEVAL_STORE_INTERNAL_H

#include "store/store.h"

/* One implementation of store.h (SQLite's VFS, crun's cgroup managers).
 * store.c checks the arguments every implementation would check, and
 * calls these; each returns as store.h says. */
struct store_ops {
	const char *name;		/* "sqlite", "postgresql" */
	/* Open URL; MUST_EXIST: a store that is not there is not created. */
	struct store *(*open)(const char *url, bool must_exist, struct sd_error *err);
	void (*close)(struct store *s);
	int (*run_create)(struct store *s, struct run_info *run, struct sd_error *err);
	int (*run_finish)(struct store *s, const char *run_id, int64_t finished_ms, struct sd_error *err);
	int (*run_get)(struct store *s, const char *run_id, struct run_info *run, struct sd_error *err);
	int (*runs_list)(struct store *s, char ***ids, size_t *n, struct sd_error *err);
	int (*sample_put)(struct store *s, const char *run_id, int shard, const struct sample_result *r,
			  struct sd_error *err);
	int (*sample_done)(struct store *s, const char *run_id, const char *sample_id, struct sd_error *err);
	int (*samples_load)(struct store *s, const char *run_id, struct sample_result **out, size_t *n,
			    struct sd_error *err);
	int (*shard_start)(struct store *s, const char *run_id, int shard, int64_t n_samples, const char *host,
			   int64_t now, struct sd_error *err);
	int (*shard_finish)(struct store *s, const char *run_id, int shard, int64_t finished_ms, bool *complete,
			    struct sd_error *err);
	/* Fill the started shards' rows of V (N of them, zeroed, v[i].shard = i)
	 * and the recorded counts of all. */
	int (*shards_get)(struct store *s, const char *run_id, struct shard_info *v, size_t n, struct sd_error *err);
	int (*agent_step_put)(struct store *s, const char *agent_id, const struct agent_step *step,
			      struct sd_error *err);
	int (*agent_steps_load)(struct store *s, const char *agent_id, struct agent_step **v, size_t *n,
				struct sd_error *err);
	int (*breaker_add)(struct store *s, const struct breaker_event *e, struct sd_error *err);
	int (*breaker_history)(struct store *s, struct breaker_event **v, size_t *n, struct sd_error *err);
	int (*alert_add)(struct store *s, const struct run_alert *a, struct sd_error *err);
	int (*alerts_get)(struct store *s, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err);
};

/* The head of every implementation's handle. */
struct store {
	const struct store_ops *ops;
	char *name;			/* store_name() */
};

extern const struct store_ops store_sqlite_ops;
extern const struct store_ops store_pg_ops;

/* The schema version both implementations keep (docs/scoring.md, "Records"). */
#define STORE_SCHEMA_VERSION 6

/* The names the records give tiers and visibilities, and back (-1: unknown). */
const char *store_tier_name(enum test_tier t);
const char *store_vis_name(enum test_visibility v);
int store_tier_parse(const char *s);
int store_vis_parse(const char *s);

/* Add one event read back to *V (of *N, capacity *CAP); -1 on ENOMEM. */
int store_breaker_push(struct breaker_event **v, size_t *n, size_t *cap, int64_t at_ms, const char *event,
		       const char *run_id, const char *by, const char *reason);

/* Add one alert read back to *V (of *N, capacity *CAP); -1 on ENOMEM. */
int store_alert_push(struct run_alert **v, size_t *n, size_t *cap, const char *run_id, int64_t at_ms,
		     const char *kind, double rate, double baseline, const char *message);

/* Release what load functions built when they fail half-way. */
void store_results_free(struct sample_result *v, size_t n);

#endif
