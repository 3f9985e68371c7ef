/* prometheus.c - a store's records as Prometheus text exposition: samples, tests, tripwires, limit hits, the circuit breaker, run durations
 *
 * Counters over every run the store holds (they only grow as runs are
 * recorded), a gauge for the breaker's state. Names and labels: docs/run.md
 * (sandeval metrics).
 */
#define _GNU_SOURCE
#include "report/prometheus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tripwire.h"

#define N_LIMITS 5

struct totals {
	uint64_t runs_finished, runs_unfinished;
	uint64_t passed, failed, harness_error;
	uint64_t tests[TS_HARNESS_ERROR + 1];
	struct tripwires tw;		/* every sample's merged (names: the first 16, the rest "other") */
	uint64_t samples_escapes;
	uint64_t limit_hits[N_LIMITS];	/* samples in which each fired */
	double duration_sum;		/* finished runs, seconds */
	uint64_t duration_count;
	uint64_t trips, resets;
	bool tripped;
};

static void add_sample(struct totals *t, const struct sample_result *r)
{
	if (r->harness_error)
		t->harness_error++;
	else if (r->passed)
		t->passed++;
	else
		t->failed++;
	for (size_t i = 0; i < r->n_tests; i++)
		if ((unsigned)r->tests[i].status <= TS_HARNESS_ERROR)
			t->tests[r->tests[i].status]++;
	tripwires_merge(&t->tw, &r->tripwires);
	t->samples_escapes += tripwires_escapes(&r->tripwires) > 0;
	for (unsigned b = 0; b < N_LIMITS; b++)
		t->limit_hits[b] += (r->tripwires.limit_hits >> b) & 1;
}

static int gather(struct store *st, struct totals *t, struct sd_error *err)
{
	char **ids = NULL;
	size_t n = 0;
	struct breaker_event *ev;
	size_t n_ev;
	int ret = 0;

	if (store_runs_list(st, &ids, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n && ret == 0; i++) {
		struct run_info info;
		struct sample_result *v;
		size_t m;

		if (store_run_get(st, ids[i], &info, err) < 0 || store_samples_load(st, ids[i], &v, &m, err) < 0) {
			ret = -1;
			break;
		}
		if (info.finished_ms) {
			t->runs_finished++;
			t->duration_sum += (double)(info.finished_ms - info.started_ms) / 1000.0;
			t->duration_count++;
		} else {
			t->runs_unfinished++;
		}
		for (size_t k = 0; k < m; k++) {
			add_sample(t, &v[k]);
			sample_result_release(&v[k]);
		}
		free(v);
		run_info_release(&info);
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	if (ret < 0 || store_breaker_history(st, &ev, &n_ev, err) < 0)
		return -1;
	for (size_t i = 0; i < n_ev; i++)
		*(ev[i].trip ? &t->trips : &t->resets) += 1;
	t->tripped = n_ev > 0 && ev[n_ev - 1].trip;
	breaker_events_free(ev, n_ev);
	return 0;
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

int prometheus_store(struct store *st, char **out, struct sd_error *err)
{
	struct totals t = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	tripwires_init(&t.tw);
	if (gather(st, &t, err) < 0)
		return -1;
	f = open_memstream(&text, &len);
	if (!f)
		return sd_error_errno(err, errno, "metrics");
	head(f, "sandeval_runs", "gauge", "Runs recorded in the store, finished or not.");
	fprintf(f, "sandeval_runs{state=\"finished\"} %llu\n", (unsigned long long)t.runs_finished);
	fprintf(f, "sandeval_runs{state=\"unfinished\"} %llu\n", (unsigned long long)t.runs_unfinished);
	head(f, "sandeval_run_duration_seconds", "summary", "Wall time of the finished runs, start to finish.");
	fprintf(f, "sandeval_run_duration_seconds_sum %.3f\n", t.duration_sum);
	fprintf(f, "sandeval_run_duration_seconds_count %llu\n", (unsigned long long)t.duration_count);
	head(f, "sandeval_samples_total", "counter", "Samples recorded (one sandbox each), by outcome.");
	fprintf(f, "sandeval_samples_total{outcome=\"passed\"} %llu\n", (unsigned long long)t.passed);
	fprintf(f, "sandeval_samples_total{outcome=\"failed\"} %llu\n", (unsigned long long)t.failed);
	fprintf(f, "sandeval_samples_total{outcome=\"harness_error\"} %llu\n", (unsigned long long)t.harness_error);
	head(f, "sandeval_tests_total", "counter", "Tests of the recorded samples, by status.");
	for (int s = 0; s <= TS_HARNESS_ERROR; s++)
		fprintf(f, "sandeval_tests_total{status=\"%s\"} %llu\n", test_status_name((enum test_status)s),
			(unsigned long long)t.tests[s]);
	head(f, "sandeval_tripwires_total", "counter",
	     "Tripwire events of the recorded samples, by kind (docs/sandbox.md#tripwires).");
	fprintf(f, "sandeval_tripwires_total{kind=\"network_attempts\"} %u\n", t.tw.network_attempts);
	fprintf(f, "sandeval_tripwires_total{kind=\"metadata_probes\"} %u\n", t.tw.metadata_probes);
	fprintf(f, "sandeval_tripwires_total{kind=\"denied_syscalls\"} %llu\n",
		(unsigned long long)(tripwires_escapes(&t.tw) - t.tw.metadata_probes - t.tw.writes_denied));
	fprintf(f, "sandeval_tripwires_total{kind=\"writes_denied\"} %u\n", t.tw.writes_denied);
	fprintf(f, "sandeval_tripwires_total{kind=\"lingering_processes\"} %u\n", t.tw.lingering_processes);
	head(f, "sandeval_denied_syscalls_total", "counter",
	     "System calls the seccomp filter refused or killed for, by name (the first 16 names; the rest \"other\").");
	for (uint32_t i = 0; i < t.tw.n_denied; i++)
		fprintf(f, "sandeval_denied_syscalls_total{syscall=\"%s\"} %u\n", t.tw.denied[i].name, t.tw.denied[i].count);
	head(f, "sandeval_samples_with_escapes_total", "counter",
	     "Samples with at least one escape-class event (denied call, metadata probe, write outside).");
	fprintf(f, "sandeval_samples_with_escapes_total %llu\n", (unsigned long long)t.samples_escapes);
	head(f, "sandeval_limit_hits_total", "counter", "Samples in which each limit fired.");
	for (unsigned b = 0; b < N_LIMITS; b++)
		fprintf(f, "sandeval_limit_hits_total{limit=\"%s\"} %llu\n", tripwire_limit_name(1u << b),
			(unsigned long long)t.limit_hits[b]);
	head(f, "sandeval_breaker_tripped", "gauge", "1 while the store's circuit breaker is tripped (runs refused).");
	fprintf(f, "sandeval_breaker_tripped %d\n", t.tripped ? 1 : 0);
	head(f, "sandeval_breaker_events_total", "counter", "Trips and resets of the circuit breaker.");
	fprintf(f, "sandeval_breaker_events_total{event=\"trip\"} %llu\n", (unsigned long long)t.trips);
	fprintf(f, "sandeval_breaker_events_total{event=\"reset\"} %llu\n", (unsigned long long)t.resets);
	if (fclose(f) != 0 || !text) {
		free(text);
		return sd_error_set(err, ENOMEM, "metrics: out of memory");
	}
	*out = text;
	return 0;
}
