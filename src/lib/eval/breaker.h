/* breaker.h - the circuit breaker: a run whose candidates try to escape stops, and no run starts again until a person re-enables it
 *
 * Each sample's tripwires (base/tripwire.h) carry its escape-class events:
 * denied system calls (mount, ptrace, unshare, bpf, ...), metadata probes,
 * writes outside the writable directories. run.c adds them up as samples
 * are recorded; when a run's total reaches its threshold the breaker trips:
 * the trip is recorded in the store (who tripped it, when, why), no further
 * sample is sent, those in flight end and are recorded, and the run fails
 * with BREAKER_ERRNO. While the store's last breaker event is a trip, every
 * run, gate and service request on that store is refused, until
 * breaker_reset() (`sandeval breaker reset --by NAME --reason TEXT`).
 */
#ifndef SANDEVAL_BREAKER_H
#define SANDEVAL_BREAKER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "store/store.h"

/* Escape-class events in one run that trip the breaker (0: never). */
#define BREAKER_DEFAULT_THRESHOLD 5
/* The code of the errors that say the breaker tripped or refuses. */
#define BREAKER_ERRNO ECANCELED

/* Whether ST's breaker is tripped; when it is, *last is a copy of the
 * trip (its strings malloc'd: breaker_events_free(last, 1)). */
int breaker_state(struct store *st, bool *tripped, struct breaker_event *last, struct sd_error *err);
/* 0 when runs may go on; -1 with BREAKER_ERRNO and the trip (when, run,
 * why) and how to re-enable in *err when tripped; -1 when the store failed. */
int breaker_check(struct store *st, struct sd_error *err);
/* Trip it for run RUN_ID, REASON saying why. */
int breaker_trip(struct store *st, const char *run_id, const char *reason, struct sd_error *err);
/* Re-enable: BY (who) and REASON are both needed, and it must be tripped. */
int breaker_reset(struct store *st, const char *by, const char *reason, struct sd_error *err);
/* "2026-12-01 18:59:48 UTC" for MS (Unix epoch milliseconds), into BUF of N bytes. */
const char *breaker_time(int64_t ms, char *buf, size_t n);

#endif
