/* store.h - durable records of runs and evaluated samples: one interface, SQLite (the default) or PostgreSQL by URL
 *
 * store_open() chooses the implementation from its argument: a
 * "postgresql://" or "postgres://" URL opens a PostgreSQL database
 * (store-pg.c, libpq loaded when first needed), anything else is the path of
 * an SQLite file (store-sqlite.c). Both keep the same records with the same
 * semantics (docs/scoring.md, "Records"; docs/scale.md): a schema version
 * with migrations on open, one transaction per sample, a sample recorded at
 * most once per run. Callers never know which one they hold.
 */
#ifndef SANDEVAL_STORE_H
#define SANDEVAL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "suite/result.h"

struct store;

/* The longest run id, a name given with --run-id included. */
#define STORE_RUN_ID_MAX 39

struct run_info {
	char id[STORE_RUN_ID_MAX + 1];	/* "r-" + 16 hex, assigned by store_run_create, or a name given */
	char *model;			/* may be NULL */
	char *tasks_path;
	char *samples_path;
	char *suite_hash;
	char *config_json;		/* the options, as JSON */
	long long seed;
	char *formula_version;
	char *sandeval_version;
	int64_t started_ms, finished_ms;	/* finished_ms 0 while unfinished */
	int shards;			/* N of a sharded run; 0: not sharded */
	int64_t n_samples;		/* the samples the run is to record; 0: not known (older records) */
	int64_t n_recorded;		/* store_run_get: the samples recorded so far */
};

/* Open (creating or migrating the schema of) the store at URL: an SQLite
 * path (WAL mode) or a postgresql:// URL. Every sample is committed on its
 * own, so a killed run loses nothing done. */
struct store *store_open(const char *url, struct sd_error *err);
/* The same, for readers: an SQLite file that does not exist is not created
 * (-1 with code ENOENT and "cannot open 'PATH': No such file or directory"). */
struct store *store_open_existing(const char *url, struct sd_error *err);
void store_close(struct store *s);
/* What messages call the store: the path, or the URL without its password
 * (postgresql://USER@HOST:PORT/DATABASE). Valid while S is open. */
const char *store_name(const struct store *s);
/* The same for a URL not opened (BUF of N bytes; returns BUF). */
const char *store_url_display(const char *url, char *buf, size_t n);

/* Record a new run. With run->id empty an id is made ("r-" + 16 hex);
 * else run->id is used, and a run of that id already there is -1 with code
 * EEXIST (a sharded run's shards all create it; all but one then read it). */
int store_run_create(struct store *s, struct run_info *run, struct sd_error *err);
int store_run_finish(struct store *s, const char *run_id, int64_t finished_ms, struct sd_error *err);
/* Fill *run (strings malloc'd; run_info_release) from the database. */
int store_run_get(struct store *s, const char *run_id, struct run_info *run, struct sd_error *err);
void run_info_release(struct run_info *run);

/* Record one evaluated sample with all its tests (one transaction). A
 * sample the run already holds is -1 with code EEXIST and changes nothing:
 * of two workers that evaluated it, the first to commit is the record. */
int store_sample_put(struct store *s, const char *run_id, const struct sample_result *r,
		     struct sd_error *err);
/* The same, for shard SHARD of a sharded run (-1: none). */
int store_sample_put_shard(struct store *s, const char *run_id, int shard, const struct sample_result *r,
			   struct sd_error *err);
/* 1 when the run already holds SAMPLE_ID, 0 when not, -1 on error. */
int store_sample_done(struct store *s, const char *run_id, const char *sample_id, struct sd_error *err);
/* Every sample of a run, in insertion order (for summaries after --resume). */
int store_samples_load(struct store *s, const char *run_id, struct sample_result **out, size_t *n,
		       struct sd_error *err);

/* The ids of every run, oldest first (*ids NULL-terminated, each and the
 * array malloc'd; *ids may be NULL when there are none). */
int store_runs_list(struct store *s, char ***ids, size_t *n, struct sd_error *err);

/* One step of an agent run (docs/agent.md, "What is recorded"): what the
 * loop asked a model, what it got, and which runs scored it, in order. */
struct agent_step {
	int64_t seq;			/* its order among all steps of the store */
	char *kind;			/* "start", "answer", "run", "stop", ... */
	char *task_id;			/* NULL: a step of the whole agent run */
	int round;			/* 0: none */
	char *body;			/* a JSON document */
	int64_t at_ms;
};

/* Record a step of agent run AGENT_ID (its own transaction). */
int store_agent_step_put(struct store *s, const char *agent_id, const char *kind, const char *task_id, int round,
			 const char *body, struct sd_error *err);
/* Every step of AGENT_ID in recording order (*v malloc'd; agent_steps_free);
 * none: 0 with *n 0. */
int store_agent_steps_load(struct store *s, const char *agent_id, struct agent_step **v, size_t *n,
			   struct sd_error *err);
void agent_steps_free(struct agent_step *v, size_t n);

/* The circuit breaker's history (docs/run.md#circuit-breaker): a trip
 * (a run's escape-class events crossed --breaker-threshold) or a reset (a
 * person re-enabled evaluation). Tripped while the last event is a trip. */
struct breaker_event {
	int64_t at_ms;
	bool trip;				/* a trip; else a reset */
	char run_id[STORE_RUN_ID_MAX + 1];	/* a trip: the run that tripped it */
	char *by;				/* a reset: who (NULL for a trip) */
	char *reason;				/* why */
};

/* Append E (a trip needs its run and reason, a reset who and why). */
int store_breaker_add(struct store *s, const struct breaker_event *e, struct sd_error *err);
/* Every event, oldest first (*v malloc'd; breaker_events_free). */
int store_breaker_history(struct store *s, struct breaker_event **v, size_t *n, struct sd_error *err);
void breaker_events_free(struct breaker_event *v, size_t n);

/* An anomaly alert of a run (eval/alert.h): a rate of tripwire events per
 * 1,000 samples far above the same rate in the suite's earlier runs. */
struct run_alert {
	char run_id[STORE_RUN_ID_MAX + 1];
	int64_t at_ms;
	char kind[32];			/* "metadata_probes", "network_attempts", "denied_syscalls", ... */
	double rate, baseline;		/* per 1,000 samples: this run, the earlier runs */
	char *message;
};

int store_alert_add(struct store *s, const struct run_alert *a, struct sd_error *err);
/* The alerts of RUN_ID in the order recorded (*v malloc'd; run_alerts_free). */
int store_alerts_get(struct store *s, const char *run_id, struct run_alert **v, size_t *n, struct sd_error *err);
void run_alerts_free(struct run_alert *v, size_t n);

/* One shard of a sharded run (docs/scale.md). */
struct shard_info {
	int shard;			/* I of N */
	bool started;			/* a process started it (else the fields below are 0) */
	int64_t n_samples;		/* its slice */
	int64_t n_recorded;		/* of them recorded (store_shards_get) */
	int attempts;			/* processes that started it: 2 or more after a retry */
	char host[64];			/* the host the last one ran on */
	int64_t started_ms;		/* the last start */
	int64_t finished_ms;		/* 0 until its whole slice was recorded */
	int64_t last_ms;		/* when its last recorded sample finished; 0: none yet */
};

/* A process starts shard SHARD (its slice N_SAMPLES samples) on HOST. */
int store_shard_start(struct store *s, const char *run_id, int shard, int64_t n_samples, const char *host,
		      struct sd_error *err);
/* Shard SHARD recorded its whole slice. When the run then holds all its
 * samples it is marked finished (by whichever shard is last, once) and
 * *complete is true. */
int store_shard_finish(struct store *s, const char *run_id, int shard, int64_t finished_ms, bool *complete,
		       struct sd_error *err);
/* Every shard of a sharded run, 0..N-1 (*v malloc'd, *n = N), started or not. */
int store_shards_get(struct store *s, const char *run_id, struct shard_info **v, size_t *n, struct sd_error *err);

#endif
