/* report-status.h - a run's progress: how many of its samples are recorded, shard by shard (`sandeval run --status`) */
#ifndef SANDEVAL_REPORT_STATUS_H
#define SANDEVAL_REPORT_STATUS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "store/store.h"

/* Print the progress of RUN_ID in ST: one line for the run, then for a
 * sharded run one line per shard (its slice, recorded, state, starts,
 * host, when its last sample was recorded). *complete: every sample is
 * recorded and the run finished. */
int report_status(FILE *f, struct store *st, const char *run_id, bool *complete, struct sd_error *err);

/* "run ID is incomplete: X of Y samples recorded" (or "is unfinished" when
 * Y is not known) for messages about a run not finished; BUF of N bytes. */
const char *report_incomplete(const struct run_info *run, char *buf, size_t n);

#endif
