/* report-trend.h - reports across runs: each run's metrics, the terminal comparison of two runs, the HTML dashboard */
#ifndef SANDEVAL_REPORT_TREND_H
#define SANDEVAL_REPORT_TREND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "suite/result.h"
#include "score/metrics.h"
#include "score/score.h"
#include "store/store.h"

struct trend_class {
	char *name;			/* "" when the tasks name no class */
	struct run_metrics m;
};

struct trend_run {
	struct run_info info;
	struct run_metrics all;
	struct trend_class *classes;	/* in the order their first sample was recorded */
	size_t n_classes;
};

/* The selected run, the one it is compared with, and the trend window. */
struct trend {
	const char *db_path;		/* for messages; not owned */
	size_t n_db_runs;		/* runs in the database */
	int ks[METRICS_MAX_KS];		/* pass@k values: 1, then the selected run's other --k (default 10, 100) */
	size_t n_ks;
	struct trend_run *runs;		/* the window: up to --last runs, oldest first, ending with the selected one */
	size_t n_runs;
	struct trend_run base;		/* the run compared against (valid when has_base) */
	bool has_base;
	struct sample_result *samples;	/* every sample of the selected run */
	size_t n_samples;
	struct run_alert *alerts;	/* the selected run's anomaly alerts (eval/alert.h) */
	size_t n_alerts;
};

#define TREND_LAST_DEFAULT 20

/* Load from ST the run RUN_ID (NULL: the newest), the run AGAINST (NULL: the
 * one before it, if any), and the window of at most LAST runs ending with the
 * selected one. 0, or -1 with *err (an unknown run id, an empty database). */
int trend_load(struct store *st, const char *db_path, const char *run_id, const char *against, size_t last,
	       struct trend *out, struct sd_error *err);
void trend_release(struct trend *t);

/* The selected run against the base on F: mean, median, p10, pass@k, lint
 * pass rate, composite and cost, overall and per class, each with the change
 * and an arrow (UTF8: ↑ ↓ =; else ^ v =). A lone run is shown alone. */
void report_compare(FILE *f, const struct trend *t, bool utf8);

/* The dashboard: one self-contained HTML page (inline CSS and SVG, no script,
 * nothing loaded from anywhere). report_html_write writes it on F. */
int report_html_write(FILE *f, const struct trend *t, struct sd_error *err);
int report_html(const char *path, const struct trend *t, struct sd_error *err);

#endif
