/* breaker.c - the circuit breaker: a run whose candidates try to escape stops, and no run starts again until a person re-enables it */
#define _GNU_SOURCE
#include "eval/breaker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *breaker_time(int64_t ms, char *buf, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "%lld ms", (long long)ms);
	return buf;
}

int breaker_state(struct store *st, bool *tripped, struct breaker_event *last, struct sd_error *err)
{
	struct breaker_event *v;
	size_t n;

	if (store_breaker_history(st, &v, &n, err) < 0)
		return -1;
	*tripped = n > 0 && v[n - 1].trip;
	if (*tripped && last) {
		*last = v[n - 1];
		v[n - 1].by = v[n - 1].reason = NULL;	/* moved to *last */
	}
	breaker_events_free(v, n);
	return 0;
}

int breaker_check(struct store *st, struct sd_error *err)
{
	struct breaker_event last;
	bool tripped;
	char when[64];

	if (breaker_state(st, &tripped, &last, err) < 0)
		return -1;
	if (!tripped)
		return 0;
	sd_error_set(err, BREAKER_ERRNO, "the circuit breaker of '%s' is tripped: since %s, by run %s: %s; "
		     "nothing runs on this store until 'sandeval breaker reset --by NAME --reason TEXT'",
		     store_name(st), breaker_time(last.at_ms, when, sizeof(when)), last.run_id, last.reason);
	free(last.reason);
	free(last.by);
	return -1;
}

int breaker_trip(struct store *st, const char *run_id, const char *reason, struct sd_error *err)
{
	struct breaker_event e = { .at_ms = epoch_ms(), .trip = true, .reason = (char *)reason };

	snprintf(e.run_id, sizeof(e.run_id), "%s", run_id);
	return store_breaker_add(st, &e, err);
}

int breaker_reset(struct store *st, const char *by, const char *reason, struct sd_error *err)
{
	struct breaker_event e = { .at_ms = epoch_ms(), .trip = false, .by = (char *)by, .reason = (char *)reason };
	bool tripped;

	if (!by || !*by || !reason || !*reason)
		return sd_error_set(err, EINVAL, "a reset of the circuit breaker needs who (--by NAME) and why (--reason TEXT)");
	if (breaker_state(st, &tripped, NULL, err) < 0)
		return -1;
	if (!tripped)
		return sd_error_set(err, EALREADY, "the circuit breaker of '%s' is not tripped: nothing to reset",
				    store_name(st));
	return store_breaker_add(st, &e, err);
}
