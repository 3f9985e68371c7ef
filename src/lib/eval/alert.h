/* alert.h - anomaly alerts: a run whose rate of tripwire events jumps against the earlier runs of its suite
 *
 * Per run, per kind, a rate per 1,000 samples: network attempts, metadata
 * probes, denied system calls (sums of the samples' tripwires), samples that
 * used their whole CPU budget, samples stopped at the pids limit (fork
 * bombs). The baseline is the same rate over the last baseline_runs earlier
 * finished runs of the same suite (suite hash) in the store. An alert fires
 * when the run's rate is at least min_rate and more than factor times the
 * baseline; a run with no earlier run of its suite has no baseline and
 * fires none. Each alert is recorded in the store (store_alert_add), and,
 * with a command, handed to it as one JSON object on its stdin.
 */
#ifndef SANDEVAL_ALERT_H
#define SANDEVAL_ALERT_H

#include <stddef.h>

#include "base/error.h"
#include "store/store.h"

#define ALERT_DEFAULT_FACTOR 3.0
#define ALERT_DEFAULT_MIN_RATE 5.0	/* events per 1,000 samples */
#define ALERT_DEFAULT_BASELINE_RUNS 5

struct alert_options {
	double factor;
	double min_rate;
	size_t baseline_runs;
	const char *command;		/* run with sh -c, the alert's JSON on stdin; NULL: none */
};

void alert_options_init(struct alert_options *o);

/* Check run RUN_ID of ST against its baseline; record each alert and hand
 * it to the command. *v and *n: the alerts fired (run_alerts_free). A
 * command that fails is said in *cmd_err (never an error of this call);
 * -1 with *err when the store failed. */
int alerts_check(struct store *st, const char *run_id, const struct alert_options *o, struct run_alert **v,
		 size_t *n, struct sd_error *cmd_err, struct sd_error *err);
/* The alert as the command gets it (malloc'd compact JSON), or NULL on ENOMEM. */
char *alert_json(const struct run_alert *a);

#endif
