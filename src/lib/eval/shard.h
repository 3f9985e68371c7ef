/* shard.h - sharded runs: shard I of N of a named run, its slice of the samples, the record all its shards share
 *
 * A sharded run is one run (one id, NAME) that N processes evaluate
 * together, each its own slice (suite/task.h, sample_in_shard: the samples
 * at positions I, I + N, ... of the samples file), all recording into one
 * store; run.c calls these (docs/scale.md). The first shard to start
 * creates the run's record, the others check theirs against it and join:
 * the same tasks (suite hash), the same samples (their hash), the same
 * options but --jobs and the paths, the same N. A shard that is started
 * again (the engine's retry) or twice at once evaluates only what is not
 * recorded yet; the store's unique key (run, sample) keeps every sample
 * recorded once, whichever copy finishes it first.
 */
#ifndef SANDEVAL_SHARD_H
#define SANDEVAL_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "store/store.h"
#include "suite/task.h"

struct run_shard {
	int index;			/* I, from 0 */
	int count;			/* N; 0: the run is not sharded */
};

#define SHARD_MAX 100000

/* "I/N", or "auto/N": I from JOB_COMPLETION_INDEX (a Kubernetes Indexed
 * Job), else SLURM_ARRAY_TASK_ID (a Slurm array, --array=0-(N-1)). */
int shard_parse(const char *spec, struct run_shard *out, struct sd_error *err);
/* A run name (--run-id): 1 to 39 letters, digits, '.', '_' or '-', not starting with '-'. */
int shard_check_name(const char *name, struct sd_error *err);
/* The seed of a sharded run's property inputs when none is given: from
 * its name, so that every shard draws the same inputs. */
long long shard_seed(const char *name);
/* sha256 hex over the samples as loaded (id, task, code, kind, in order):
 * the same in every shard, or their slices would not add up to the run. */
int shard_samples_hash(const struct sample_set *set, char hex[65], struct sd_error *err);

/* Create the run WANT (want->id its name, shards and n_samples set), or
 * check the one already there against it: on success *HAVE is the record
 * (malloc'd: run_info_release) and *CREATED says whether this shard made
 * it. A different run is refused (EINVAL), naming what differs. */
int shard_join(struct store *st, const struct run_info *want, int shard, struct run_info *have, bool *created,
	       struct sd_error *err);

/* Shuffle the N jobs in place (a random order of the process's own): two
 * copies of one shard, each skipping what the other recorded, then share
 * the slice instead of doing it in step. */
void shard_shuffle(size_t *jobs, size_t n);

#endif
