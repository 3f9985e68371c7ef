/* report-trend.c - the metrics of runs, overall and per task class, loaded from the store for `sandeval report` */
#define _GNU_SOURCE
#include "report/report-trend.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* The classes of RESULTS in the order of their first sample, with their metrics. */
static int run_classes(const struct sample_result *results, size_t n, const int *ks, size_t n_ks,
		       struct trend_run *run, struct sd_error *err)
{
	run->classes = calloc(n ? n : 1, sizeof(*run->classes));
	if (!run->classes)
		return sd_error_set(err, ENOMEM, "cannot compute the metrics: out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *name = str_or_empty(results[i].task_class);
		bool seen = false;

		for (size_t j = 0; j < run->n_classes && !seen; j++)
			seen = strcmp(run->classes[j].name, name) == 0;
		if (seen)
			continue;
		run->classes[run->n_classes].name = strdup(name);
		if (!run->classes[run->n_classes].name)
			return sd_error_set(err, ENOMEM, "cannot compute the metrics: out of memory");
		run->n_classes++;
		if (run_metrics_compute(results, n, name, ks, n_ks, &run->classes[run->n_classes - 1].m, err) < 0)
			return -1;
	}
	return 0;
}

static void results_free(struct sample_result *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		sample_result_release(&v[i]);
	free(v);
}

static void trend_run_release(struct trend_run *run)
{
	run_info_release(&run->info);
	for (size_t j = 0; run->classes && j < run->n_classes; j++)
		free(run->classes[j].name);
	free(run->classes);
	memset(run, 0, sizeof(*run));
}

/* Load run ID with its metrics; keep its samples in *samples when asked. */
static int load_run(struct store *st, const char *id, const struct trend *t, struct trend_run *run,
		    struct sample_result **samples, size_t *n_samples, struct sd_error *err)
{
	struct sample_result *v = NULL;
	size_t n = 0;

	memset(run, 0, sizeof(*run));
	if (store_run_get(st, id, &run->info, err) < 0)
		return -1;
	if (store_samples_load(st, id, &v, &n, err) < 0) {
		trend_run_release(run);
		return -1;
	}
	if (!run->info.model && n && v[0].model) {	/* no --model: the samples' own, when they agree */
		bool same = true;

		for (size_t i = 1; i < n && same; i++)
			same = v[i].model && strcmp(v[i].model, v[0].model) == 0;
		if (same && !(run->info.model = strdup(v[0].model))) {
			results_free(v, n);
			trend_run_release(run);
			return sd_error_set(err, ENOMEM, "cannot load run '%s': out of memory", id);
		}
	}
	if (run_metrics_compute(v, n, NULL, t->ks, t->n_ks, &run->all, err) < 0 ||
	    run_classes(v, n, t->ks, t->n_ks, run, err) < 0) {
		results_free(v, n);
		trend_run_release(run);
		return -1;
	}
	if (samples) {
		*samples = v;
		*n_samples = n;
	} else {
		results_free(v, n);
	}
	return 0;
}

/* pass@1 (the trend lines' metric), then the other values the run asked
 * for (its config's "k"), or 10 and 100. */
static void run_ks(const struct run_info *info, struct trend *t)
{
	json_t *config = info->config_json ? json_loads(info->config_json, 0, NULL) : NULL;
	json_t *ks = json_object_get(config, "k"), *v;
	size_t i;

	t->ks[0] = 1;
	t->n_ks = 1;
	json_array_foreach(ks, i, v) {
		json_int_t k = json_integer_value(v);

		if (json_is_integer(v) && k > 1 && k <= 100000 && t->n_ks < METRICS_MAX_KS)
			t->ks[t->n_ks++] = (int)k;
	}
	if (!json_is_array(ks)) {
		t->ks[t->n_ks++] = 10;
		t->ks[t->n_ks++] = 100;
	}
	json_decref(config);
}

/* `sandeval lint --db` records runs of lint results only (no tests, no
 * scores): they are no point on a trend line, so they are left out unless
 * named (RUN_ID, AGAINST). */
static void drop_lint_only(struct store *st, char **ids, size_t *n, const char *run_id, const char *against)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		struct run_info info;
		json_t *config = NULL;
		bool lint_only = false;

		if (store_run_get(st, ids[i], &info, NULL) == 0) {
			config = info.config_json ? json_loads(info.config_json, 0, NULL) : NULL;
			lint_only = json_is_string(json_object_get(config, "command")) &&
				    strcmp(json_string_value(json_object_get(config, "command")), "lint") == 0;
			json_decref(config);
			run_info_release(&info);
		}
		if (lint_only && !(run_id && strcmp(ids[i], run_id) == 0) && !(against && strcmp(ids[i], against) == 0))
			free(ids[i]);
		else
			ids[k++] = ids[i];
	}
	*n = k;
}

static size_t find_id(char **ids, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return i;
	return (size_t)-1;
}

int trend_load(struct store *st, const char *db_path, const char *run_id, const char *against, size_t last,
	       struct trend *out, struct sd_error *err)
{
	struct trend t = { .db_path = db_path };
	char **ids = NULL;
	size_t n_ids = 0, sel, base = (size_t)-1, first;
	struct run_info info;
	int ret = -1;

	if (store_runs_list(st, &ids, &n_ids, err) < 0)
		return -1;
	drop_lint_only(st, ids, &n_ids, run_id, against);
	t.n_db_runs = n_ids;
	if (n_ids == 0) {
		sd_error_set(err, ENOENT, "no runs in '%s'", db_path);
		goto out;
	}
	sel = run_id ? find_id(ids, n_ids, run_id) : n_ids - 1;
	if (sel == (size_t)-1) {
		sd_error_set(err, ENOENT, "no run '%s' in '%s'", run_id, db_path);
		goto out;
	}
	if (against) {
		base = find_id(ids, n_ids, against);
		if (base == (size_t)-1) {
			sd_error_set(err, ENOENT, "no run '%s' in '%s'", against, db_path);
			goto out;
		}
	} else if (sel > 0) {
		base = sel - 1;
	}
	if (store_run_get(st, ids[sel], &info, err) < 0)
		goto out;
	run_ks(&info, &t);
	run_info_release(&info);
	if (last < 1)
		last = 1;
	first = sel + 1 > last ? sel + 1 - last : 0;
	t.runs = calloc(sel + 1 - first, sizeof(*t.runs));
	if (!t.runs) {
		sd_error_set(err, ENOMEM, "cannot load the runs of '%s': out of memory", db_path);
		goto out;
	}
	for (size_t i = first; i <= sel; i++) {
		bool selected = i == sel;

		if (load_run(st, ids[i], &t, &t.runs[t.n_runs], selected ? &t.samples : NULL,
			     selected ? &t.n_samples : NULL, err) < 0)
			goto out;
		t.n_runs++;
	}
	if (base != (size_t)-1) {
		if (load_run(st, ids[base], &t, &t.base, NULL, NULL, err) < 0)
			goto out;
		t.has_base = true;
	}
	if (store_alerts_get(st, t.runs[t.n_runs - 1].info.id, &t.alerts, &t.n_alerts, err) < 0)
		goto out;
	*out = t;
	memset(&t, 0, sizeof(t));
	ret = 0;
out:
	for (size_t i = 0; i < n_ids; i++)
		free(ids[i]);
	free(ids);
	trend_release(&t);
	return ret;
}

void trend_release(struct trend *t)
{
	for (size_t i = 0; t->runs && i < t->n_runs; i++)
		trend_run_release(&t->runs[i]);
	free(t->runs);
	if (t->has_base)
		trend_run_release(&t->base);
	results_free(t->samples, t->n_samples);
	run_alerts_free(t->alerts, t->n_alerts);
	memset(t, 0, sizeof(*t));
}
