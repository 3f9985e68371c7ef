/* serve-metrics.c - the service's counters and the Prometheus text exposition of /metrics */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "base/util.h"
#include "sandbox/sandbox.h"
#include "serve/serve-internal.h"

/* Upper bounds of the latency buckets, seconds: from a cached answer to a long evaluation. */
static const double buckets[METRICS_BUCKETS] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300 };

static const char *const endpoints[EP_COUNT] = {
	"/run_code", "/v1/evaluate", "/v1/runs", "/v1/suites", "/healthz", "/readyz", "/metrics", "other",
};

static const char *const rejections[REJ_COUNT] = {
	"queue_full", "draining", "breaker_open", "body_too_large", "unauthorized",
};

const char *endpoint_name(enum endpoint ep)
{
	return (unsigned)ep < EP_COUNT ? endpoints[ep] : "other";
}

void metrics_request(struct metrics *m, enum endpoint ep, unsigned code, double seconds)
{
	size_t i, b;

	if ((unsigned)ep >= EP_COUNT)
		ep = EP_OTHER;
	for (i = 0; i < METRICS_CODES; i++) {
		if (m->requests[ep][i].code == code || m->requests[ep][i].code == 0) {
			m->requests[ep][i].code = code;
			m->requests[ep][i].n++;
			break;
		}
	}
	for (b = 0; b < METRICS_BUCKETS && seconds > buckets[b]; b++)
		;
	m->latency[ep][b]++;
	m->latency_sum[ep] += seconds;
	m->latency_n[ep]++;
}

/* A growing text buffer; on ENOMEM it stays NULL and swallows the rest. */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = (t->cap + (size_t)n + 1) * 2;
		char *p = realloc(t->s, cap);

		if (!p) {
			t->failed = true;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
}

static void header(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

char *metrics_text(const struct metrics *m, const struct metrics_gauges *g)
{
	struct text t = { 0 };

	header(&t, "sandeval_serve_requests_total", "counter", "HTTP requests answered, by endpoint and status code (499: the client left first).");
	for (int ep = 0; ep < EP_COUNT; ep++)
		for (int i = 0; i < METRICS_CODES && m->requests[ep][i].code; i++)
			put(&t, "sandeval_serve_requests_total{endpoint=\"%s\",code=\"%u\"} %llu\n", endpoints[ep],
			    m->requests[ep][i].code, (unsigned long long)m->requests[ep][i].n);
	header(&t, "sandeval_serve_request_duration_seconds", "histogram",
	       "Time from a request's headers to its answer, by endpoint.");
	for (int ep = 0; ep < EP_COUNT; ep++) {
		uint64_t cum = 0;

		if (!m->latency_n[ep])
			continue;
		for (int b = 0; b < METRICS_BUCKETS; b++) {
			cum += m->latency[ep][b];
			put(&t, "sandeval_serve_request_duration_seconds_bucket{endpoint=\"%s\",le=\"%g\"} %llu\n",
			    endpoints[ep], buckets[b], (unsigned long long)cum);
		}
		put(&t, "sandeval_serve_request_duration_seconds_bucket{endpoint=\"%s\",le=\"+Inf\"} %llu\n",
		    endpoints[ep], (unsigned long long)m->latency_n[ep]);
		put(&t, "sandeval_serve_request_duration_seconds_sum{endpoint=\"%s\"} %.6f\n", endpoints[ep],
		    m->latency_sum[ep]);
		put(&t, "sandeval_serve_request_duration_seconds_count{endpoint=\"%s\"} %llu\n", endpoints[ep],
		    (unsigned long long)m->latency_n[ep]);
	}
	header(&t, "sandeval_serve_sandboxes_in_flight", "gauge", "Jobs running in a worker now (each runs its sandboxes one at a time).");
	put(&t, "sandeval_serve_sandboxes_in_flight %zu\n", g->in_flight);
	header(&t, "sandeval_serve_queue_depth", "gauge", "Requests waiting for a worker.");
	put(&t, "sandeval_serve_queue_depth %zu\n", g->queue_depth);
	header(&t, "sandeval_serve_workers", "gauge", "Worker processes alive.");
	put(&t, "sandeval_serve_workers %zu\n", g->workers);
	header(&t, "sandeval_serve_rejections_total", "counter", "Requests turned away before any work, by reason.");
	for (int r = 0; r < REJ_COUNT; r++)
		put(&t, "sandeval_serve_rejections_total{reason=\"%s\"} %llu\n", rejections[r],
		    (unsigned long long)m->rejections[r]);
	header(&t, "sandeval_serve_sandbox_status_total", "counter", "Sandboxes of /run_code ended, by status (docs/exec.md).");
	for (int s = 0; s < METRICS_STATUSES; s++)
		put(&t, "sandeval_serve_sandbox_status_total{status=\"%s\"} %llu\n",
		    sandbox_status_name((enum sandbox_status)s), (unsigned long long)m->sandbox_status[s]);
	header(&t, "sandeval_serve_worker_restarts_total", "counter", "Workers that died and were replaced.");
	put(&t, "sandeval_serve_worker_restarts_total %llu\n", (unsigned long long)m->worker_restarts);
	header(&t, "sandeval_serve_clients_gone_total", "counter", "Requests whose client left before the answer.");
	put(&t, "sandeval_serve_clients_gone_total %llu\n", (unsigned long long)m->clients_gone);
	header(&t, "sandeval_serve_ready", "gauge", "1 when /readyz answers 200.");
	put(&t, "sandeval_serve_ready %d\n", g->ready ? 1 : 0);
	header(&t, "sandeval_serve_breaker_open", "gauge", "1 while the circuit breaker turns sandbox work away.");
	put(&t, "sandeval_serve_breaker_open %d\n", g->breaker_open ? 1 : 0);
	header(&t, "sandeval_serve_draining", "gauge", "1 after SIGTERM, while running requests finish.");
	put(&t, "sandeval_serve_draining %d\n", g->draining ? 1 : 0);
	if (t.failed) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

const char *store_metrics_answer(struct server *s, int status, int fd)
{
	char *text = NULL;
	size_t len;
	bool same = false;

	s->store_pending = false;
	if (fd < 0 || memfd_read(fd, 64u << 20, &text, &len) < 0) {
		same = strcmp(s->store_err, "the store's figures could not be read back") == 0;
		snprintf(s->store_err, sizeof(s->store_err), "the store's figures could not be read back");
	} else if (status == 200) {
		free(s->store_text);
		s->store_text = text;
		s->store_text_ns = now_ns();
		s->store_err[0] = '\0';
		text = NULL;
		same = true;
	} else {
		same = strncmp(s->store_err, text, sizeof(s->store_err) - 1) == 0;
		snprintf(s->store_err, sizeof(s->store_err), "%s", text);
	}
	free(text);
	if (fd >= 0)
		close(fd);
	return same ? NULL : s->store_err;
}
