/* report-status.c - a run's progress, shard by shard, for `sandeval run --status` and for the shard that ends */
#define _GNU_SOURCE
#include "report/report-status.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *when(int64_t ms, char *buf, size_t n)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	if (!ms || !gmtime_r(&secs, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "-");
	return buf;
}

const char *report_incomplete(const struct run_info *run, char *buf, size_t n)
{
	if (run->n_samples > 0)
		snprintf(buf, n, "run %s is incomplete: %lld of %lld samples recorded", run->id,
			 (long long)run->n_recorded, (long long)run->n_samples);
	else
		snprintf(buf, n, "run %s is unfinished", run->id);
	return buf;
}

int report_status(FILE *f, struct store *st, const char *run_id, bool *complete, struct sd_error *err)
{
	struct run_info run;
	struct shard_info *sh = NULL;
	size_t n = 0;
	char t[40], msg[200];

	if (store_run_get(st, run_id, &run, err) < 0)
		return -1;
	if (run.shards > 0 && store_shards_get(st, run_id, &sh, &n, err) < 0) {
		run_info_release(&run);
		return -1;
	}
	*complete = run.finished_ms != 0;
	if (*complete)
		fprintf(f, "run %s: complete: %lld samples recorded, finished %s (took %.1f s)\n", run.id,
			(long long)run.n_recorded, when(run.finished_ms, t, sizeof(t)),
			(double)(run.finished_ms - run.started_ms) / 1000.0);
	else
		fprintf(f, "%s%s\n", report_incomplete(&run, msg, sizeof(msg)),
			run.n_samples > 0 ? "" : " (recorded by an older sandeval: the number of its samples is not known)");
	if (run.shards > 0) {
		fprintf(f, "%-12s %8s %9s  %-11s %6s  %-24s %s\n", "shard", "slice", "recorded", "state", "starts", "host",
			"last recorded");
		for (size_t i = 0; i < n; i++) {
			char name[24];
			const char *state = sh[i].finished_ms ? "finished" : sh[i].started ? "started" : "not started";

			snprintf(name, sizeof(name), "%d/%d", sh[i].shard, run.shards);
			fprintf(f, "%-12s %8lld %9lld  %-11s %6d  %-24.24s %s\n", name, (long long)sh[i].n_samples,
				(long long)sh[i].n_recorded, state, sh[i].attempts, sh[i].host[0] ? sh[i].host : "-",
				when(sh[i].last_ms, t, sizeof(t)));
		}
	}
	free(sh);
	run_info_release(&run);
	return 0;
}
