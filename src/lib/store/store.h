/* store.h - durable records of runs and evaluated samples (SQLite, the embedded default store) */
#ifndef SANDEVAL_STORE_H
#define SANDEVAL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "suite/result.h"

struct store;

struct run_info {
	char id[40];			/* "r-" + 16 hex, assigned by store_run_create */
	char *model;			/* may be NULL */
	char *tasks_path;
	char *samples_path;
	char *suite_hash;
	char *config_json;		/* the options, as JSON */
	long long seed;
	char *formula_version;
	char *sandeval_version;
	int64_t started_ms, finished_ms;	/* finished_ms 0 while unfinished */
};

/* Open (creating or migrating the schema of) the database at PATH. WAL mode;
 * every sample is committed on its own, so a killed run loses nothing done. */
struct store *store_open(const char *path, struct sd_error *err);
void store_close(struct store *s);

int store_run_create(struct store *s, struct run_info *run, struct sd_error *err);
int store_run_finish(struct store *s, const char *run_id, int64_t finished_ms, struct sd_error *err);
/* Fill *run (strings malloc'd; run_info_release) from the database. */
int store_run_get(struct store *s, const char *run_id, struct run_info *run, struct sd_error *err);
void run_info_release(struct run_info *run);

/* Record one evaluated sample with all its tests (one transaction). */
int store_sample_put(struct store *s, const char *run_id, const struct sample_result *r,
		     struct sd_error *err);
/* 1 when the run already holds SAMPLE_ID, 0 when not, -1 on error. */
int store_sample_done(struct store *s, const char *run_id, const char *sample_id, struct sd_error *err);
/* Every sample of a run, in insertion order (for summaries after --resume). */
int store_samples_load(struct store *s, const char *run_id, struct sample_result **out, size_t *n,
		       struct sd_error *err);

/* The ids of every run, oldest first (*ids NULL-terminated, each and the
 * array malloc'd; *ids may be NULL when there are none). */
int store_runs_list(struct store *s, char ***ids, size_t *n, struct sd_error *err);

#endif
