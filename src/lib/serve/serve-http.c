/* serve-http.c - the HTTP side of the service: libmicrohttpd's callbacks, routing, auth, limits, answers
 *
 * libmicrohttpd runs in "external polling" mode inside serve-loop.c's one
 * thread: it creates no thread of its own, and calls on_request() for each
 * piece of a request (headers, body chunks, the end). Everything here is
 * quick: routing, the bearer token, the body's size, the JSON's shape.
 * Work that runs sandboxes or reads the store becomes a job for a worker
 * (serve-loop.c); the connection is suspended meanwhile, its socket watched
 * for the client leaving, and resumed with the worker's answer, which
 * libmicrohttpd sends straight from the worker's memfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/jsonl.h"
#include "base/util.h"
#include "serve/serve-internal.h"

#define CONNECTION_LIMIT 512		/* more connections than this are refused at once */
#define CONNECTION_TIMEOUT 60		/* seconds an idle connection is kept */

char *error_json(const char *code, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	json_t *o;
	char *text;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o = json_pack("{s:s, s:o}", "error", code, "message", json_text(msg));
	text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	return text;
}

char *json_text_of(json_t *v)
{
	return v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
}

bool server_ready(const struct server *s)
{
	return s->checked && s->store_ok && s->canaries_ok && !s->breaker_open && !s->draining;
}

/* Seconds a client turned away should wait: the queue's work spread over the workers. */
unsigned retry_after(const struct server *s)
{
	double t = (double)(s->q_len + 1) * (s->job_seconds > 0 ? s->job_seconds : 1.0) /
		   (double)(s->n_workers ? s->n_workers : 1);

	return t < 1 ? 1 : t > 300 ? 300 : (unsigned)(t + 0.999);
}

/* ---- answering ---- */

static void add_headers(struct server *s, struct MHD_Response *resp, bool json)
{
	s->mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				   json ? "application/json" : "text/plain; version=0.0.4; charset=utf-8");
	if (s->draining)
		s->mhd.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* Queue TEXT (taken over; NULL: out of memory) as R's answer with STATUS. */
static enum MHD_Result respond(struct request *r, unsigned status, char *text, bool json,
			       const char *header, const char *value)
{
	struct server *s = r->srv;
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (!text) {
		status = 500;
		text = strdup("{\"error\":\"internal\",\"message\":\"out of memory\"}");
		if (!text)
			return MHD_NO;
	}
	resp = s->mhd.create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(text);
		return MHD_NO;
	}
	add_headers(s, resp, json);
	if (header)
		s->mhd.add_response_header(resp, header, value);
	ret = s->mhd.queue_response(r->conn, status, resp);
	s->mhd.destroy_response(resp);
	r->answered = true;
	r->status = status;
	return ret;
}

__attribute__((format(printf, 4, 5)))
static enum MHD_Result fail(struct request *r, unsigned status, const char *code, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return respond(r, status, error_json(code, "%s", msg), true, NULL, NULL);
}

static enum MHD_Result unavailable(struct request *r, enum rejection why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum MHD_Result unavailable(struct request *r, enum rejection why, const char *fmt, ...)
{
	char msg[1200], secs[16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->srv->m.rejections[why]++;
	if (why == REJ_BREAKER) {	/* until the check that may close it is over */
		int64_t left = (r->srv->next_check_ns - now_ns()) / 1000000000 + 3;

		snprintf(secs, sizeof(secs), "%lld", (long long)(left < 3 ? 3 : left));
	} else {
		snprintf(secs, sizeof(secs), "%u", retry_after(r->srv));
	}
	return respond(r, 503, error_json(why == REJ_DRAINING ? "draining" : why == REJ_BREAKER ? "breaker_open" :
					  "overloaded", "%s", msg), true, MHD_HTTP_HEADER_RETRY_AFTER, secs);
}

static void unlink_suspended(struct server *s, struct request *r)
{
	if (!r->suspended)
		return;
	if (r->prev)
		r->prev->next = r->next;
	else
		s->susp = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->prev = r->next = NULL;
	s->n_susp--;
	r->suspended = false;
}

static void resume(struct server *s, struct request *r)
{
	unlink_suspended(s, r);
	s->mhd.resume_connection(r->conn);
	s->kick = true;		/* MHD calls on_request again at its next run */
}

void http_answer_job(struct server *s, struct job *j, unsigned status, int body_fd)
{
	struct request *r = j->req;
	struct MHD_Response *resp = NULL;
	struct stat st;

	j->req = NULL;
	if (!r) {
		if (body_fd >= 0)
			close(body_fd);
		return;
	}
	r->job = NULL;
	if (body_fd >= 0 && fstat(body_fd, &st) == 0)
		resp = s->mhd.create_response_from_fd((size_t)st.st_size, body_fd);	/* takes the fd */
	else if (body_fd >= 0)
		close(body_fd);
	if (!resp) {
		char *text = error_json("internal", "the worker's answer was lost");

		status = 500;
		resp = text ? s->mhd.create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE) : NULL;
		if (!resp)
			free(text);
	}
	if (resp)
		add_headers(s, resp, true);
	r->pending = resp;
	r->status = status;
	r->gone = !resp;	/* nothing to send: close */
	resume(s, r);
}

void http_fail_job(struct server *s, struct job *j, unsigned status, const char *code, const char *fmt, ...)
{
	char msg[1200], *text;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (j->kind == JOB_RUN_CODE && status >= 500 && status != 503) {
		/* SandboxFusion's clients expect its shape for a failure of the sandbox */
		json_t *o = json_pack("{s:s, s:o, s:n, s:n, s:n, s:{}}", "status", "SandboxError", "message",
				      json_text(msg), "compile_result", "run_result", "executor_pod_name", "files");

		text = json_text_of(o);
		json_decref(o);
		status = 200;
	} else {
		text = error_json(code, "%s", msg);
	}
	fd = text ? memfd_of("sandeval-answer", text, strlen(text)) : -1;
	free(text);
	http_answer_job(s, j, status, fd);
}

void http_client_gone(struct server *s, struct request *r)
{
	if (!r->suspended)
		return;
	r->gone = true;
	s->m.clients_gone++;
	if (r->job) {
		if (r->job->worker)
			r->job->req = NULL;	/* it runs to its end (its limits bound it); the answer is dropped */
		else
			job_unqueue(s, r->job);
		r->job = NULL;
	}
	resume(s, r);		/* MHD calls on_request, which closes the connection */
}

static void suspend(struct server *s, struct request *r)
{
	const union MHD_ConnectionInfo *ci = s->mhd.get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	r->sock = ci ? ci->connect_fd : -1;
	s->mhd.suspend_connection(r->conn);
	r->suspended = true;
	r->next = s->susp;
	if (s->susp)
		s->susp->prev = r;
	s->susp = r;
	s->n_susp++;
}

/* ---- routing and checks ---- */

/* How much of a body too large is read and dropped before the answer. */
static uint64_t discard_limit(const struct server *s)
{
	return s->o.max_body * 4 > (256ull << 20) ? s->o.max_body * 4 : (256ull << 20);
}

static enum MHD_Result too_big(struct request *r)
{
	r->srv->m.rejections[REJ_BODY_TOO_LARGE]++;
	return fail(r, 413, "body_too_large", "the body is larger than %llu bytes, the most this server takes",
		    (unsigned long long)r->srv->o.max_body);
}

static bool run_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n >= sizeof(((struct request *)0)->run_id))
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		      *p == '_'))
			return false;
	return true;
}

static void route(struct request *r, const char *url)
{
	static const struct { const char *path; enum endpoint ep; } routes[] = {
		{ "/run_code", EP_RUN_CODE }, { "/v1/evaluate", EP_EVALUATE }, { "/v1/suites", EP_SUITES },
		{ "/healthz", EP_HEALTHZ }, { "/readyz", EP_READYZ }, { "/metrics", EP_METRICS },
	};

	r->ep = EP_OTHER;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (strcmp(url, routes[i].path) == 0)
			r->ep = routes[i].ep;
	if (strncmp(url, "/v1/runs/", 9) == 0 && run_id_ok(url + 9)) {
		r->ep = EP_RUNS;
		snprintf(r->run_id, sizeof(r->run_id), "%s", url + 9);
	}
}

static bool wants_post(enum endpoint ep)
{
	return ep == EP_RUN_CODE || ep == EP_EVALUATE;
}

/* The bearer token, compared in constant time: both sides hashed first, so
 * that neither the length nor any prefix of the token shows in the timing. */
static bool authorized(struct request *r)
{
	struct server *s = r->srv;
	const char *h = s->mhd.lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	unsigned char md[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	if (!s->auth || r->ep == EP_HEALTHZ)
		return true;
	if (!h || strncasecmp(h, "Bearer ", 7) != 0)
		return false;
	for (h += 7; *h == ' '; h++)
		;
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(h), (const uint8_t *)h);
	sha256_digest(&ctx, sizeof(md), md);
	return memeql_sec(md, s->token_sha, sizeof(s->token_sha));
}

/* The first call for a request: its headers. An answer queued here is final. */
static enum MHD_Result on_headers(struct request *r, const char *url, const char *method)
{
	struct server *s = r->srv;
	const char *cl, *expect;
	bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;

	route(r, url);
	if (r->ep == EP_OTHER)
		return fail(r, 404, "not_found", "no endpoint '%.100s' (see docs/serve.md)", url);
	if (wants_post(r->ep) ? strcmp(method, MHD_HTTP_METHOD_POST) != 0 : !get) {
		char *text = error_json("method_not_allowed", "'%.16s' is not allowed on '%s': use %s", method, url,
					wants_post(r->ep) ? "POST" : "GET");

		return respond(r, 405, text, true, MHD_HTTP_HEADER_ALLOW, wants_post(r->ep) ? "POST" : "GET, HEAD");
	}
	if (!authorized(r)) {
		s->m.rejections[REJ_UNAUTHORIZED]++;
		return respond(r, 401, error_json("unauthorized", "this server needs 'Authorization: Bearer <token>'"),
			       true, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	}
	if (s->draining && r->ep != EP_HEALTHZ && r->ep != EP_READYZ && r->ep != EP_METRICS)
		return unavailable(r, REJ_DRAINING, "the server is shutting down");
	cl = s->mhd.lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	expect = s->mhd.lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
	if (cl && strtoull(cl, NULL, 10) > s->o.max_body) {
		/* A client that waits for "100 Continue" hears 413 instead and sends nothing; one that
		 * sends at once is read to the end first (when not absurdly long): closing on a body
		 * still arriving resets the connection, and a reset can lose the answer on the way. */
		if ((expect && strcasecmp(expect, "100-continue") == 0) || strtoull(cl, NULL, 10) > discard_limit(s))
			return too_big(r);
		r->too_big = true;
	}
	return MHD_YES;
}

static enum MHD_Result answer_readyz(struct request *r)
{
	struct server *s = r->srv;
	bool ready = server_ready(s);
	json_t *o = json_pack("{s:b, s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "ready", ready,
			      "store", !s->checked ? "not checked yet" : s->store_ok ? "ok" : "failed",
			      "canaries", !s->checked ? "not run yet" : s->canaries_ok ? "ok" : "failed",
			      "breaker", s->breaker_open ? "open" : "closed", "state", s->draining ? "draining" : "serving",
			      "workers", (json_int_t)s->n_workers, "busy", (json_int_t)s->running,
			      "queued", (json_int_t)s->q_len);

	if (o && !ready) {
		json_object_set_new(o, "error", json_string("not_ready"));
		json_object_set_new(o, "message", json_text(s->draining ? "the server is shutting down" :
							    s->check_msg[0] ? s->check_msg : "the first check has not finished"));
	}
	{
		char *text = json_text_of(o);

		json_decref(o);
		return respond(r, ready ? 200 : 503, text, true, NULL, NULL);
	}
}

/* The server's own figures, then the store's as a worker last read them
 * (store_metrics_refresh: at most every --store-metrics seconds, so a
 * scrape never waits for a worker nor reads the whole store itself). */
static enum MHD_Result answer_metrics(struct request *r)
{
	struct server *s = r->srv;
	struct metrics_gauges g = { .in_flight = s->running, .queue_depth = s->q_len, .workers = 0,
				    .busy = s->running, .ready = server_ready(s), .breaker_open = s->breaker_open,
				    .draining = s->draining };
	char *own, *text = NULL;
	double age = s->store_text ? (double)(now_ns() - s->store_text_ns) / 1e9 : -1;

	for (size_t i = 0; i < s->n_workers; i++)
		g.workers += s->workers[i].pid > 0;
	store_metrics_refresh(s);
	if (!(own = metrics_text(&s->m, &g)))
		return respond(r, 500, error_json("internal", "out of memory"), true, NULL, NULL);
	if (asprintf(&text, "%s# HELP sandeval_serve_store_metrics_age_seconds How old the store's figures below are "
		     "(-1: not read yet; --store-metrics).\n# TYPE sandeval_serve_store_metrics_age_seconds gauge\n"
		     "sandeval_serve_store_metrics_age_seconds %.3f\n%s", own, age, s->store_text ? s->store_text : "") < 0)
		text = NULL;
	free(own);
	if (!text)
		return respond(r, 500, error_json("internal", "out of memory"), true, NULL, NULL);
	return respond(r, 200, text, false, NULL, NULL);
}

static enum MHD_Result answer_suites(struct request *r)
{
	json_t *a = json_array(), *o;
	char *text;

	for (size_t i = 0; i < r->srv->o.n_suites; i++)
		json_array_append_new(a, json_string(r->srv->o.suites[i].name));
	o = json_pack("{s:o}", "suites", a);
	text = json_text_of(o);
	json_decref(o);
	return respond(r, 200, text, true, NULL, NULL);
}

/* Queue R's job and suspend R until its answer, or turn it away. */
static enum MHD_Result enqueue(struct request *r, enum job_kind kind, const char *arg)
{
	struct server *s = r->srv;
	bool full = false;

	if (kind != JOB_RUN_GET && s->breaker_open)
		return unavailable(r, REJ_BREAKER, "%d sandboxes in a row failed (%s); a canary check runs before "
				   "any more are started", s->failures, s->check_msg[0] ? s->check_msg : "sandbox_error");
	if (job_queue(s, r, kind, r->body, r->len, arg, &full) < 0) {
		if (full)
			return unavailable(r, REJ_QUEUE_FULL, "%zu requests are running and %zu waiting, the most this "
					   "server takes; retry later", s->running, s->q_len);
		return fail(r, 500, "internal", "cannot queue the request: %s", strerror(errno));
	}
	free(r->body);		/* the worker reads its own copy */
	r->body = NULL;
	suspend(s, r);
	return MHD_YES;
}

/* The last call for a request: its body is all there. */
static enum MHD_Result on_complete(struct request *r)
{
	struct server *s = r->srv;
	struct sd_error err = { 0 };

	if (r->too_big)
		return too_big(r);

	switch (r->ep) {
	case EP_HEALTHZ:
		return respond(r, 200, strdup("{\"status\":\"ok\"}"), true, NULL, NULL);
	case EP_READYZ:
		return answer_readyz(r);
	case EP_METRICS:
		return answer_metrics(r);
	case EP_SUITES:
		return answer_suites(r);
	case EP_RUNS:
		return enqueue(r, JOB_RUN_GET, r->run_id);
	case EP_RUN_CODE: {
		struct rc_request rq;
		enum MHD_Result ret;

		if (rc_parse(r->body ? r->body : "", r->len, &s->o, &rq, &err) < 0)
			ret = fail(r, 400, "bad_request", "%s", err.msg);
		else if (!rq.lang)
			ret = respond(r, 200, rc_unknown_language(&rq), true, NULL, NULL);
		else
			ret = enqueue(r, JOB_RUN_CODE, NULL);
		rc_release(&rq);
		return ret;
	}
	case EP_EVALUATE:
		if (ev_check(r->body ? r->body : "", r->len, &s->o, &err) < 0)
			return fail(r, 400, "bad_request", "%s", err.msg);
		return enqueue(r, JOB_EVALUATE, NULL);
	default:
		return fail(r, 404, "not_found", "no such endpoint");
	}
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *data, size_t *size, void **ctx)
{
	struct server *s = cls;
	struct request *r = *ctx;

	(void)version;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return MHD_NO;
		r->srv = s;
		r->conn = conn;
		r->sock = -1;
		r->t0_ns = now_ns();
		snprintf(r->method, sizeof(r->method), "%s", method);
		snprintf(r->path, sizeof(r->path), "%s", url);
		*ctx = r;
		s->n_requests++;
		return on_headers(r, url, method);
	}
	if (r->pending) {	/* resumed with the job's answer */
		struct MHD_Response *resp = r->pending;
		enum MHD_Result ret = s->mhd.queue_response(conn, r->status, resp);

		s->mhd.destroy_response(resp);
		r->pending = NULL;
		r->answered = true;
		return ret;
	}
	if (r->gone) {
		s->quiet_close = true;	/* MHD logs an "internal error" for this close: it is none */
		return MHD_NO;
	}
	if (r->answered) {	/* answered early (413, 401, ...): the rest of the body is dropped */
		*size = 0;
		return MHD_YES;
	}
	if (*size) {
		if (r->too_big || r->len + *size > s->o.max_body) {
			r->too_big = true;
			free(r->body);
			r->body = NULL;
			r->discarded += r->len + *size;
			r->len = 0;
			*size = 0;
			return r->discarded > discard_limit(s) ? too_big(r) : MHD_YES;
		}
		if (r->len + *size + 1 > r->cap) {
			size_t cap = (r->len + *size + 1) * 2;
			char *p;

			if (cap > s->o.max_body + 1)
				cap = s->o.max_body + 1;
			if (!(p = realloc(r->body, cap)))
				return MHD_NO;
			r->body = p;
			r->cap = cap;
		}
		memcpy(r->body + r->len, data, *size);
		r->len += *size;
		r->body[r->len] = '\0';
		*size = 0;
		return MHD_YES;
	}
	return on_complete(r);
}

static void access_log(struct server *s, const struct request *r, unsigned code, double secs)
{
	struct timespec ts;
	json_t *o;
	char *text;

	if (!s->log)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	o = json_pack("{s:I, s:o, s:o, s:s, s:i, s:f}", "time_ms", (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
		      "method", json_text(r->method), "path", json_text(r->path), "endpoint", endpoint_name(r->ep),
		      "status", (int)code, "seconds", secs);
	text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
	json_decref(o);
	if (text) {
		fprintf(s->log, "%s\n", text);
		fflush(s->log);
	}
	free(text);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **ctx, enum MHD_RequestTerminationCode toe)
{
	struct server *s = cls;
	struct request *r = *ctx;
	unsigned code;
	double secs;

	(void)conn;
	if (!r)
		return;
	code = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK && r->answered ? r->status : 499;
	secs = (double)(now_ns() - r->t0_ns) / 1e9;
	metrics_request(&s->m, r->ep, code, secs);
	access_log(s, r, code, secs);
	unlink_suspended(s, r);	/* only when the daemon stops (the loop resumed every request before) */
	if (r->job) {
		if (r->job->worker)
			r->job->req = NULL;
		else
			job_unqueue(s, r->job);
	}
	if (r->pending)
		s->mhd.destroy_response(r->pending);
	free(r->body);
	free(r);
	*ctx = NULL;
	s->n_requests--;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct server *s = cls;

	if (s->quiet_close && strstr(fmt, "internal error")) {
		s->quiet_close = false;
		return;
	}
	fputs("sandeval: serve: libmicrohttpd: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (!*fmt || fmt[strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
}

int http_start(struct server *s, struct sd_error *err)
{
	s->daemon = s->mhd.start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, NULL, NULL,
					on_request, s,
					MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
					MHD_OPTION_LISTEN_SOCKET, s->listen_fd,
					MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CONNECTION_LIMIT,
					MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONNECTION_TIMEOUT,
					MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
					MHD_OPTION_END);
	if (!s->daemon)
		return sd_error_set(err, EIO, "libmicrohttpd did not start on %s", s->addr);
	return 0;
}
