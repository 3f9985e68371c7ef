/* cmd-metrics.c - `sandeval metrics`: the store's records as Prometheus text (samples, tests, tripwires, limit hits, the circuit breaker, run durations) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/prometheus.h"
#include "store/store.h"

static const char metrics_usage[] =
	"usage: sandeval metrics [--db PATH|URL]\n"
	"\n"
	"Print the store's records summed up as Prometheus text exposition: runs and\n"
	"their durations, samples by outcome, tests by status, tripwires by kind and\n"
	"denied system calls by name, limit hits, the circuit breaker's state and\n"
	"events (docs/run.md#metrics). For a textfile collector or a pushgateway.\n"
	"\n"
	"  --db PATH|URL  the store: an SQLite file or a postgresql:// URL; default\n"
	"                 $SANDEVAL_DB, else sandeval.db\n";

int cmd_metrics(int argc, char **argv)
{
	const char *db = cmd_default_db();
	struct sd_error err = { 0 };
	struct store *st;
	char *text = NULL;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(metrics_usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
			db = argv[++i];
		} else {
			cmd_error("metrics: unknown option or missing value '%s'", argv[i]);
			fputs(metrics_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!(st = store_open_existing(db, &err)))
		return cmd_fail("metrics", "%s", err.msg);
	if (prometheus_store(st, &text, &err) < 0)
		ret = cmd_fail("metrics", "%s", err.msg);
	else
		fputs(text, stdout);
	free(text);
	store_close(st);
	return ret;
}
