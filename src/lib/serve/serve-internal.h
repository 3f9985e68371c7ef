/* serve-internal.h - shared by serve*.c: the server, its requests, jobs and workers, the wire between them */
#ifndef SANDEVAL_SERVE_INTERNAL_H
#define SANDEVAL_SERVE_INTERNAL_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "serve/serve.h"

/* ---- libmicrohttpd, loaded at run time (serve-mhd.c) ----
 *
 * dlopen()ed by serve_run() only: linked into sandeval, libmicrohttpd and
 * the GnuTLS stack it pulls in would be mapped and initialized by every
 * `sandeval exec` (about 6 ms a run here, docs/serve.md). */
struct mhd_api {
	void *lib;
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_quiesce_daemon) quiesce_daemon;
	__typeof__(&MHD_run) run;
	__typeof__(&MHD_get_timeout) get_timeout;
	__typeof__(&MHD_get_daemon_info) get_daemon_info;
	__typeof__(&MHD_get_connection_info) get_connection_info;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_create_response_from_fd) create_response_from_fd;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_suspend_connection) suspend_connection;
	__typeof__(&MHD_resume_connection) resume_connection;
};

int mhd_load(struct mhd_api *m, struct sd_error *err);
void mhd_unload(struct mhd_api *m);

/* ---- metrics (serve-metrics.c) ---- */

enum endpoint { EP_RUN_CODE, EP_EVALUATE, EP_RUNS, EP_SUITES, EP_HEALTHZ, EP_READYZ, EP_METRICS, EP_OTHER, EP_COUNT };
enum rejection { REJ_QUEUE_FULL, REJ_DRAINING, REJ_BREAKER, REJ_BODY_TOO_LARGE, REJ_UNAUTHORIZED, REJ_COUNT };

#define METRICS_BUCKETS 14
#define METRICS_CODES 24		/* distinct status codes counted per endpoint */
#define METRICS_STATUSES 10		/* enum sandbox_status */

struct metrics {
	struct { unsigned code; uint64_t n; } requests[EP_COUNT][METRICS_CODES];
	uint64_t latency[EP_COUNT][METRICS_BUCKETS + 1];	/* cumulative at print, +Inf last */
	double latency_sum[EP_COUNT];
	uint64_t latency_n[EP_COUNT];
	uint64_t rejections[REJ_COUNT];
	uint64_t sandbox_status[METRICS_STATUSES];
	uint64_t worker_restarts, clients_gone, jobs_done;
};

const char *endpoint_name(enum endpoint ep);
void metrics_request(struct metrics *m, enum endpoint ep, unsigned code, double seconds);
/* The Prometheus text exposition (format 0.0.4), malloc'd; GAUGES: the
 * server's state now. NULL on ENOMEM. */
struct metrics_gauges {
	size_t in_flight, queue_depth, workers, busy;
	bool ready, breaker_open, draining;
};
char *metrics_text(const struct metrics *m, const struct metrics_gauges *g);

/* ---- jobs and the wire to the workers (serve-loop.c, serve-worker.c) ---- */

/* JOB_CHECK and JOB_STORE_METRICS are the server's own: no request waits for them. */
enum job_kind { JOB_RUN_CODE = 1, JOB_EVALUATE, JOB_RUN_GET, JOB_CHECK, JOB_STORE_METRICS };

/* main -> worker: a job; its body (when it has one) comes as a memfd. */
struct wire_job {
	uint32_t kind;
	uint32_t pad;
	uint64_t id;
	char arg[64];			/* JOB_RUN_GET: the run id */
};

/* worker -> main: the answer; its body (the HTTP response's) comes as a memfd. */
struct wire_done {
	uint64_t id;
	int32_t http_status;
	uint8_t n_statuses;		/* the sandboxes' statuses, for the metrics */
	uint8_t statuses[4];
	uint8_t sandbox_error;		/* sandeval failed (not the program): the breaker counts it */
	uint8_t store_ok, canaries_ok;	/* JOB_CHECK */
	uint8_t pad[5];
};

/* Send or receive one message with at most one descriptor (-1: none). The
 * receive sets *FD to the descriptor (close-on-exec) or -1; 0 on end of file. */
int wire_send(int sock, const void *msg, size_t len, int fd);
ssize_t wire_recv(int sock, void *msg, size_t len, int *fd);
/* A memfd holding LEN bytes of DATA (-1 with errno). */
int memfd_of(const char *name, const void *data, size_t len);
/* The whole of memfd FD, malloc'd and NUL-terminated; -1 past CAP bytes. */
int memfd_read(int fd, size_t cap, char **out, size_t *len);

/* A worker process: reads jobs from SOCK until it closes. Never returns. */
struct worker_ctx {
	const struct serve_options *o;
	pid_t parent;			/* the HTTP process */
	bool sweep_first;		/* a replacement: run gc for what the dead one left */
};
_Noreturn void worker_main(const struct worker_ctx *ctx, int sock);

/* ---- /run_code (serve-runcode.c) ---- */

struct rc_lang;

struct rc_file {
	char *path;			/* as given (relative to /work) */
	char *data;
	size_t len;
};

struct rc_request {
	const struct rc_lang *lang;	/* NULL: a language this server does not run */
	char language[64];		/* as given, for the message */
	const char *code;
	size_t code_len;
	double compile_timeout, run_timeout;	/* seconds, clamped to max_time */
	uint64_t memory;		/* bytes, clamped to max_memory */
	const char *stdin_data;		/* NULL: empty */
	size_t stdin_len;
	struct rc_file *files;
	size_t n_files;
	char **fetch;
	size_t n_fetch;
	json_t *root;			/* owns the strings */
};

/* Parse and check a /run_code body (SandboxFusion's RunCodeRequest). 0; -1
 * with a message naming the field in *err (HTTP 400). An unknown language
 * is no error here: rq->lang is NULL (SandboxFusion answers SandboxError). */
int rc_parse(const char *body, size_t len, const struct serve_options *o, struct rc_request *rq,
	     struct sd_error *err);
void rc_release(struct rc_request *rq);
/* SandboxFusion's answer to an unknown language. */
char *rc_unknown_language(const struct rc_request *rq);
/* Run RQ (compile step, then the program) in fresh sandboxes and write
 * SandboxFusion's RunCodeResponse as JSON into *OUT; DONE gets the statuses. */
int rc_execute(const struct rc_request *rq, const struct serve_options *o, char **out, struct wire_done *done);
/* The names of the languages served, "python, cpp, ..." */
const char *rc_languages(void);

/* ---- /v1/evaluate and /v1/runs (serve-eval.c) ---- */

/* Check the shape of an /v1/evaluate body (in the HTTP process, before it
 * queues): 0, or -1 with a message naming the field. */
int ev_check(const char *body, size_t len, const struct serve_options *o, struct sd_error *err);
/* In a worker: the evaluation, recorded; the answer's JSON in *OUT, its HTTP status returned. */
int ev_execute(const char *body, size_t len, const struct serve_options *o, char **out, struct wire_done *done);
int ev_get_run(const char *run_id, const struct serve_options *o, char **out);
/* In a worker: the readiness check (the store opens, the canaries pass). */
int ev_check_ready(const struct serve_options *o, char **out, struct wire_done *done);
/* In a worker: the store's figures as Prometheus text (report/prometheus.h); 200, else 503 with an error's JSON. */
int ev_store_metrics(const struct serve_options *o, char **out);

/* ---- the HTTP process (serve-http.c, serve-loop.c) ---- */

struct server;
struct job;

struct worker {
	pid_t pid;			/* 0: none running in this slot */
	int sock;
	struct job *job;		/* the job it runs, or NULL when idle */
};

/* One HTTP request, from its headers to the end of its answer (MHD's con_cls). */
struct request {
	struct server *srv;
	struct MHD_Connection *conn;
	enum endpoint ep;
	char method[8];
	char path[160];			/* for the access log */
	char run_id[64];		/* GET /v1/runs/{id} */
	char *body;
	size_t len, cap;
	bool too_big;			/* the body passed max_body: read to its end, dropped, answered 413 */
	uint64_t discarded;
	int64_t t0_ns;
	struct job *job;		/* queued or running for it */
	bool suspended;			/* waiting for its job: its socket is watched for the client leaving */
	bool gone;			/* the client left: close without answering */
	bool answered;
	unsigned status;
	int sock;
	struct MHD_Response *pending;	/* the job's answer, queued when MHD calls again after the resume */
	struct request *prev, *next;	/* the suspended requests */
};

struct job {
	uint64_t id;
	enum job_kind kind;
	struct request *req;		/* NULL: nobody waits for the answer (a check, or the client left) */
	int body_fd;
	char arg[64];
	int64_t queued_ns, started_ns;
	struct job *prev, *next;	/* in the queue */
	struct worker *worker;		/* while running */
};

struct server {
	struct serve_options o;
	struct mhd_api mhd;
	struct MHD_Daemon *daemon;
	int listen_fd, sig_fd;
	char addr[300];			/* what it listens on, for messages */
	char unix_path[108];		/* a unix socket to remove at the end */
	bool auth;
	unsigned char token_sha[32];
	struct worker *workers;
	size_t n_workers;
	struct job *q_head, *q_tail;
	size_t q_len;			/* requests' jobs waiting (checks are not counted) */
	size_t running;			/* jobs in workers */
	struct request *susp;		/* suspended requests */
	size_t n_susp;
	size_t n_requests;		/* between the first call for a request and its end */
	uint64_t next_job;
	bool kick;			/* MHD has work now (a resumed connection): do not sleep */
	bool quiet_close;		/* a gone client's connection is being closed */
	bool draining;
	int64_t drain_deadline_ns;
	/* readiness */
	bool store_ok, canaries_ok, checked, check_pending, breaker_open;
	int failures;			/* sandbox errors and worker deaths in a row */
	int64_t next_check_ns;
	char check_msg[600];
	double job_seconds;		/* a moving average, for Retry-After */
	/* /metrics's store figures: read by a worker at most every
	 * o.store_metrics seconds, when /metrics asks and they are older */
	char *store_text;
	int64_t store_text_ns;
	int64_t store_asked_ns;		/* when a read was last queued (failed ones wait too) */
	bool store_pending;
	char store_err[300];
	struct metrics m;
	FILE *log;
};

/* serve-http.c */
int http_start(struct server *s, struct sd_error *err);
/* A job's answer: BODY_FD (a memfd, taken over) with STATUS goes to its request. */
void http_answer_job(struct server *s, struct job *j, unsigned status, int body_fd);
/* A job that got no answer from a worker: answered here with STATUS. */
void http_fail_job(struct server *s, struct job *j, unsigned status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The client of a suspended request left. */
void http_client_gone(struct server *s, struct request *r);
bool server_ready(const struct server *s);
unsigned retry_after(const struct server *s);

/* serve-loop.c */
/* Queue a job for R (BODY: what the worker reads; may be NULL). 0, or -1
 * when the queue is full (or a memfd could not be made: *full false). */
int job_queue(struct server *s, struct request *r, enum job_kind kind, const char *body, size_t len,
	      const char *arg, bool *full);
/* Drop a job that has not started (its client left). */
void job_unqueue(struct server *s, struct job *j);
/* Have a worker read the store's figures again when they are older than
 * o.store_metrics (and no read is queued): the next /metrics shows them. */
void store_metrics_refresh(struct server *s);
/* A worker's answer to that (FD, a memfd, is closed): the figures kept, or
 * the error returned when it is a new one (to say once). serve-metrics.c */
const char *store_metrics_answer(struct server *s, int status, int fd);

/* {"error": CODE, "message": MESSAGE} as text (malloc'd). */
char *error_json(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* V dumped compactly (V stays the caller's), or NULL. */
char *json_text_of(json_t *v);

#endif
