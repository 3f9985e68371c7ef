/* prometheus.h - a store's records as Prometheus text exposition: samples, tests, tripwires, limit hits, the circuit breaker, run durations */
#ifndef SANDEVAL_PROMETHEUS_H
#define SANDEVAL_PROMETHEUS_H

#include "base/error.h"
#include "store/store.h"

/* Every run of ST summed up as Prometheus text (format 0.0.4), malloc'd
 * into *out; 0, or -1 with *err when the store cannot be read. */
int prometheus_store(struct store *st, char **out, struct sd_error *err);

#endif
