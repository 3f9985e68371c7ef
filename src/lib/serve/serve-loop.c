/* serve-loop.c - the service's processes: one single-threaded HTTP process, forked workers, the queue between them
 *
 * Theory of operation
 *
 * Processes. The HTTP process (the caller of serve_run) has one thread:
 * libmicrohttpd runs in it in "external polling" mode and starts no thread
 * of its own. It forks --max-concurrency workers (serve-worker.c) and
 * replaces any that dies. A sandbox's supervisor must be single-threaded
 * and forks and clones: that happens in the workers only, which the
 * single-threaded HTTP process can fork at any time without the hazards of
 * fork() in a threaded process (locks held by other threads).
 *
 * Descriptors. One SOCK_SEQPACKET socket pair per worker: jobs one way,
 * answers the other, each body a memfd passed along. A signalfd for SIGTERM
 * and SIGINT (blocked in this thread while serve_run runs).
 *
 * The loop. poll() on the signalfd, libmicrohttpd's epoll descriptor, the
 * workers' sockets and the sockets of suspended requests (POLLRDHUP: the
 * client left). A request that needs a worker becomes a job in a FIFO queue
 * of at most --queue jobs (beyond it: 503 with Retry-After at once) and its
 * connection is suspended; an idle worker takes the oldest job; its answer
 * resumes the connection. A client that leaves drops its job if it has not
 * started, and its answer if it has (the job runs to its end, bounded by
 * its limits).
 *
 * Who kills whom. The HTTP process kills (SIGKILL) a worker only when the
 * drain's deadline passes; a worker that dies is reaped, its job answered
 * with an error, and its replacement first sweeps what it left (gc.h: its
 * sandbox's cgroups and processes; init died with it, PR_SET_PDEATHSIG).
 * SIGTERM: stop accepting, answer queued jobs 503, let running jobs finish
 * until drain_timeout, stop.
 *
 * Readiness. A check job (the store opens, the canaries pass) runs at start
 * and every check_interval; five sandbox errors or worker deaths in a row
 * open the circuit breaker: sandbox work is turned away with 503 for five
 * seconds, then until a check passes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <nettle/sha2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/gc.h"
#include "sandbox/runrec.h"
#include "serve/serve-internal.h"

#define BREAKER_THRESHOLD 5
#define BREAKER_COOLDOWN_S 5.0		/* open at least this long before the check that may close it */
#define RECHECK_AFTER_FAILURE_S 30.0

void serve_options_init(struct serve_options *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(o, 0, sizeof(*o));
	o->listen = "127.0.0.1:8080";
	o->max_concurrency = ncpu > 0 ? (size_t)ncpu : 1;
	o->queue = 64;
	o->db = "sandeval.db";
	o->backend = "native";
	o->max_body = 16ull << 20;
	o->memory = 512ull << 20;
	o->max_memory = 2ull << 30;
	o->max_time = 60;
	o->output = 1ull << 20;
	o->drain_timeout = 90;
	o->check_interval = 300;
	o->store_metrics = 60;
	o->version = "";
}

static void note(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct server *s, const char *fmt, ...)
{
	char text[1200];
	va_list ap;

	if (!s->o.note)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	s->o.note(s->o.arg, text);
}

/* ---- setting up ---- */

static int read_token(struct server *s, struct sd_error *err)
{
	cleanup_free char *text = NULL;
	size_t len = 0;
	struct sha256_ctx ctx;
	struct stat st;

	if (!s->o.token_file)
		return 0;
	if (read_file(s->o.token_file, 4096, &text, &len, err) < 0)
		return sd_error_wrap(err, "--token-file");
	while (len && strchr(" \t\r\n", text[len - 1]))
		text[--len] = '\0';
	if (len < 16 || strlen(text) != len || strchr(text, '\n'))
		return sd_error_set(err, EINVAL, "--token-file '%s': expected one line of at least 16 characters",
				    s->o.token_file);
	if (stat(s->o.token_file, &st) == 0 && (st.st_mode & 077))
		note(s, "warning: the token file '%s' can be read by others (chmod 600 it)", s->o.token_file);
	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)text);
	sha256_digest(&ctx, sizeof(s->token_sha), s->token_sha);
	explicit_bzero(text, len);
	s->auth = true;
	return 0;
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return sa->sa_family == AF_UNIX;
}

static int listen_unix(struct server *s, const char *path, struct sd_error *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return sd_error_set(err, EINVAL, "--listen 'unix:%s': the path is too long", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);	/* a previous server's */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return sd_error_errno(err, errno, "socket");
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 1024) < 0) {
		int e = errno;

		close(fd);
		return sd_error_errno(err, e, "cannot listen on '%s'", path);
	}
	snprintf(s->unix_path, sizeof(s->unix_path), "%s", path);
	snprintf(s->addr, sizeof(s->addr), "unix:%s", path);
	s->listen_fd = fd;
	return 0;
}

static int listen_tcp(struct server *s, const char *spec, struct sd_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage got;
	socklen_t got_len = sizeof(got);
	char host[256], port[16], name[INET6_ADDRSTRLEN];
	const char *colon = strrchr(spec, ':');
	int fd, one = 1, r;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(host) || strlen(colon + 1) >= sizeof(port))
		return sd_error_set(err, EINVAL, "--listen '%s': expected ADDRESS:PORT, [IPV6]:PORT or unix:PATH", spec);
	snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	snprintf(port, sizeof(port), "%s", colon + 1);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	r = getaddrinfo(host, port, &hints, &ai);
	if (r != 0)
		return sd_error_set(err, EINVAL, "--listen '%s': %s", spec, gai_strerror(r));
	if (!is_loopback(ai->ai_addr) && !s->auth) {
		freeaddrinfo(ai);
		return sd_error_set(err, EPERM, "--listen '%s': not a loopback address, and no --token-file: anyone who "
				    "reaches it could run programs here", spec);
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 1024) < 0 ||
	    getsockname(fd, (struct sockaddr *)&got, &got_len) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return sd_error_errno(err, e, "cannot listen on '%s'", spec);
	}
	freeaddrinfo(ai);
	if (got.ss_family == AF_INET6)
		snprintf(s->addr, sizeof(s->addr), "[%s]:%u",
			 inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&got)->sin6_addr, name, sizeof(name)),
			 ntohs(((struct sockaddr_in6 *)&got)->sin6_port));
	else
		snprintf(s->addr, sizeof(s->addr), "%s:%u",
			 inet_ntop(AF_INET, &((struct sockaddr_in *)&got)->sin_addr, name, sizeof(name)),
			 ntohs(((struct sockaddr_in *)&got)->sin_port));
	s->listen_fd = fd;
	return 0;
}

static int check_options(const struct serve_options *o, struct sd_error *err)
{
	struct stat st;

	if (o->max_concurrency < 1 || o->max_concurrency > 256)
		return sd_error_set(err, EINVAL, "--max-concurrency: expected 1 to 256");
	if (o->queue > 100000)
		return sd_error_set(err, EINVAL, "--queue: expected 0 to 100000");
	if (strcmp(o->backend, "native") != 0 && strcmp(o->backend, "gvisor") != 0)
		return sd_error_set(err, EINVAL, "--backend '%s': expected native or gvisor", o->backend);
	if (o->max_body < 1024)
		return sd_error_set(err, EINVAL, "--max-body: at least 1K");
	for (size_t i = 0; i < o->n_suites; i++)
		if (stat(o->suites[i].path, &st) < 0)
			return sd_error_errno(err, errno, "--suite %s: cannot open '%s'", o->suites[i].name, o->suites[i].path);
	return 0;
}

/* ---- workers ---- */

static int worker_start(struct server *s, struct worker *w, bool sweep_first)
{
	struct worker_ctx ctx = { .o = &s->o, .parent = getpid(), .sweep_first = sweep_first };
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0)
		worker_main(&ctx, sv[1]);
	close(sv[1]);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	w->pid = pid;
	w->sock = sv[0];
	w->job = NULL;
	return 0;
}

static void worker_reap(struct worker *w)
{
	int st;

	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	close(w->sock);
	w->pid = 0;
	w->sock = -1;
}

static void job_free(struct job *j)
{
	if (j->body_fd >= 0)
		close(j->body_fd);
	free(j);
}

/* A sandbox error or a worker's death: the breaker counts them, a clean answer resets it. */
static void count_failure(struct server *s, bool failed, const char *what)
{
	if (!failed) {
		s->failures = 0;
		return;
	}
	s->failures++;
	if (what)
		snprintf(s->check_msg, sizeof(s->check_msg), "%s", what);
	if (s->failures >= BREAKER_THRESHOLD && !s->breaker_open) {
		s->breaker_open = true;
		s->next_check_ns = now_ns() + (int64_t)(BREAKER_COOLDOWN_S * 1e9);
		note(s, "circuit breaker open: %d failures in a row (last: %s)", s->failures, s->check_msg);
	}
}

/* The sandboxes of a worker that was killed: their inits die with it
 * (PR_SET_PDEATHSIG) and, this process being the subreaper, come back to it.
 * Reap those that have exited, not the workers (their sockets say when they
 * end, worker_reap waits for them); with WAIT_NS, wait that long at most for
 * all of them, so that the sweep after finds their records unlocked (the
 * lock is shared by the sandbox's init, a fork of the worker). */
static bool is_worker(const struct server *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_workers; i++)
		if (s->workers[i].pid == pid)
			return true;
	return false;
}

static void reap_orphans(struct server *s, int64_t wait_ns)
{
	int64_t deadline = now_ns() + wait_ns;

	for (;;) {
		siginfo_t si = { 0 };

		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return;		/* ECHILD: none left */
		}
		if (si.si_pid > 0 && !is_worker(s, si.si_pid)) {
			while (waitpid(si.si_pid, NULL, 0) < 0 && errno == EINTR)
				;
			continue;
		}
		if (si.si_pid > 0 || now_ns() >= deadline)
			return;		/* a worker's exit is worker_reap's; or time is up */
		{
			struct timespec ts = { 0, 10 * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
}

static void worker_died(struct server *s, struct worker *w)
{
	struct job *j = w->job;
	int st = 0;
	pid_t pid = w->pid;

	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(w->sock);
	w->pid = 0;
	w->sock = -1;
	w->job = NULL;
	reap_orphans(s, 0);	/* orphans come only from dead workers: the loop need not look for them */
	s->m.worker_restarts++;
	if (j) {
		char what[200];

		snprintf(what, sizeof(what), "the worker running job %llu died (%s %d)", (unsigned long long)j->id,
			 WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		note(s, "%s; a new one sweeps what it left", what);
		s->running--;
		j->worker = NULL;
		if (j->kind == JOB_CHECK)
			s->check_pending = false;
		else if (j->kind == JOB_STORE_METRICS)
			s->store_pending = false;
		else
			count_failure(s, true, what);
		http_fail_job(s, j, 500, "worker_died", "%s", what);
		job_free(j);
	}
	if (!s->draining && worker_start(s, w, true) < 0)
		note(s, "cannot start a worker: %s", strerror(errno));
}

static void job_done(struct server *s, struct worker *w, const struct wire_done *d, int fd)
{
	struct job *j = w->job;
	double secs;

	if (!j || d->id != j->id) {
		if (fd >= 0)
			close(fd);
		note(s, "worker %d answered out of turn: replaced", (int)w->pid);
		worker_died(s, w);
		return;
	}
	w->job = NULL;
	j->worker = NULL;
	s->running--;
	secs = (double)(now_ns() - j->started_ns) / 1e9;
	s->job_seconds = s->job_seconds > 0 ? 0.8 * s->job_seconds + 0.2 * secs : secs;
	for (int i = 0; i < d->n_statuses && i < 4; i++)
		if (d->statuses[i] < METRICS_STATUSES)
			s->m.sandbox_status[d->statuses[i]]++;
	s->m.jobs_done++;
	if (j->kind == JOB_CHECK) {
		s->check_pending = false;
		s->checked = true;
		s->store_ok = d->store_ok;
		s->canaries_ok = d->canaries_ok;
		if (!d->store_ok || !d->canaries_ok) {
			cleanup_free char *text = NULL;
			size_t len;

			if (fd >= 0 && memfd_read(fd, 1 << 20, &text, &len) == 0)
				snprintf(s->check_msg, sizeof(s->check_msg), "the readiness check failed: %s", text);
			note(s, "%s", s->check_msg);
		} else if (s->breaker_open) {
			s->breaker_open = false;
			s->failures = 0;
			s->check_msg[0] = '\0';
			note(s, "circuit breaker closed: the canaries passed");
		}
		s->next_check_ns = now_ns() + (int64_t)((d->store_ok && d->canaries_ok ? s->o.check_interval :
							 RECHECK_AFTER_FAILURE_S) * 1e9);
		if (fd >= 0)
			close(fd);
	} else if (j->kind == JOB_STORE_METRICS) {
		const char *why = store_metrics_answer(s, d->http_status, fd);

		if (why)
			note(s, "/metrics: the store's figures: %s", why);
	} else {
		count_failure(s, d->sandbox_error, "a sandbox failed (sandbox_error)");
		http_answer_job(s, j, (unsigned)d->http_status, fd);
	}
	job_free(j);
}

static void worker_readable(struct server *s, struct worker *w)
{
	struct wire_done d;
	int fd = -1;
	ssize_t n = wire_recv(w->sock, &d, sizeof(d), &fd);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		worker_died(s, w);
		return;
	}
	job_done(s, w, &d, fd);
}

/* ---- the queue ---- */

static struct job *job_new(struct server *s, enum job_kind kind, const char *body, size_t len, const char *arg)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->id = ++s->next_job;
	j->kind = kind;
	j->body_fd = -1;
	j->queued_ns = now_ns();
	if (arg)
		snprintf(j->arg, sizeof(j->arg), "%s", arg);
	if (body && (j->body_fd = memfd_of("sandeval-request", body, len)) < 0) {
		free(j);
		return NULL;
	}
	return j;
}

static void link_job(struct server *s, struct job *j, bool front)
{
	if (front) {
		j->next = s->q_head;
		if (s->q_head)
			s->q_head->prev = j;
		s->q_head = j;
		if (!s->q_tail)
			s->q_tail = j;
	} else {
		j->prev = s->q_tail;
		if (s->q_tail)
			s->q_tail->next = j;
		s->q_tail = j;
		if (!s->q_head)
			s->q_head = j;
	}
	if (j->req)
		s->q_len++;
}

static void unlink_job(struct server *s, struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		s->q_head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		s->q_tail = j->prev;
	j->prev = j->next = NULL;
	if (j->req)
		s->q_len--;
}

int job_queue(struct server *s, struct request *r, enum job_kind kind, const char *body, size_t len,
	      const char *arg, bool *full)
{
	struct job *j;

	*full = s->q_len >= s->o.queue;
	if (*full)
		return -1;
	j = job_new(s, kind, body, len, arg);
	if (!j)
		return -1;
	j->req = r;
	r->job = j;
	link_job(s, j, false);
	return 0;
}

void job_unqueue(struct server *s, struct job *j)
{
	unlink_job(s, j);
	if (j->req)
		j->req->job = NULL;
	j->req = NULL;
	job_free(j);
}

static void queue_check(struct server *s)
{
	struct job *j;

	if (s->check_pending || s->draining)
		return;
	j = job_new(s, JOB_CHECK, NULL, 0, NULL);
	if (!j)
		return;
	s->check_pending = true;
	link_job(s, j, true);
}

void store_metrics_refresh(struct server *s)
{
	struct job *j;

	if (s->store_pending || s->draining || !(s->o.store_metrics > 0))
		return;
	/* at most one read per period, whether the last one succeeded or not */
	if (s->store_asked_ns && now_ns() - s->store_asked_ns < (int64_t)(s->o.store_metrics * 1e9))
		return;
	if (!(j = job_new(s, JOB_STORE_METRICS, NULL, 0, NULL)))
		return;
	s->store_pending = true;
	s->store_asked_ns = now_ns();
	link_job(s, j, true);
}

/* Hand the oldest jobs to idle workers. */
static void dispatch(struct server *s)
{
	for (size_t i = 0; i < s->n_workers && s->q_head; i++) {
		struct worker *w = &s->workers[i];
		struct job *j = s->q_head;
		struct wire_job msg = { .kind = j->kind, .id = j->id };

		if (w->pid <= 0 || w->job)
			continue;
		unlink_job(s, j);
		memcpy(msg.arg, j->arg, sizeof(msg.arg));
		w->job = j;
		j->worker = w;
		j->started_ns = now_ns();
		s->running++;
		if (wire_send(w->sock, &msg, sizeof(msg), j->body_fd) < 0) {
			worker_died(s, w);	/* answers the job */
			continue;
		}
		if (j->body_fd >= 0) {	/* the worker has its own descriptor of it now */
			close(j->body_fd);
			j->body_fd = -1;
		}
	}
}

/* ---- draining and stopping ---- */

static void drain_begin(struct server *s)
{
	struct job *j, *next;

	if (s->draining) {
		s->drain_deadline_ns = now_ns();	/* a second signal: stop now */
		note(s, "second signal: stopping now");
		return;
	}
	s->draining = true;
	s->drain_deadline_ns = now_ns() + (int64_t)(s->o.drain_timeout * 1e9);
	if (s->listen_fd >= 0) {
		int fd = s->mhd.quiesce_daemon(s->daemon);

		if (fd >= 0)
			close(fd);
		s->listen_fd = -1;
	}
	for (j = s->q_head; j; j = next) {
		next = j->next;
		unlink_job(s, j);
		if (j->kind == JOB_CHECK)
			s->check_pending = false;
		else if (j->kind == JOB_STORE_METRICS)
			s->store_pending = false;
		else
			http_fail_job(s, j, 503, "draining", "the server is shutting down before this request started");
		job_free(j);
	}
	note(s, "draining: %zu running request(s) may take up to %g s", s->running, s->o.drain_timeout);
}

/* The deadline passed: whatever still runs is stopped. */
static void drain_force(struct server *s)
{
	for (size_t i = 0; i < s->n_workers; i++) {
		struct worker *w = &s->workers[i];
		struct job *j = w->job;

		if (!j)
			continue;
		worker_reap(w);
		w->job = NULL;
		j->worker = NULL;
		s->running--;
		if (j->kind != JOB_CHECK && j->kind != JOB_STORE_METRICS)
			http_fail_job(s, j, 503, "draining", "the server stopped before this request finished");
		job_free(j);
	}
}

/* ---- the loop ---- */

static int block_signals(sigset_t *old, struct sd_error *err, int *sfd)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return sd_error_errno(err, errno, "sigprocmask");
	*sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (*sfd < 0) {
		int e = errno;

		sigprocmask(SIG_SETMASK, old, NULL);
		return sd_error_errno(err, e, "signalfd");
	}
	return 0;
}

static void read_signals(struct server *s)
{
	struct signalfd_siginfo si;

	while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		note(s, "%s received", si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
		drain_begin(s);
	}
}

static int loop(struct server *s)
{
	const union MHD_DaemonInfo *di = s->mhd.get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	int epfd = di ? di->epoll_fd : -1;
	struct pollfd *pfd = NULL;
	void **owner = NULL;
	size_t cap = 0;
	bool forced = false;

	if (epfd < 0)
		return -1;
	for (;;) {
		MHD_UNSIGNED_LONG_LONG mhd_ms = 0;
		int64_t now, timeout_ms = -1;
		size_t n = 0, n_worker_fds, need;
		int r;

		s->kick = false;
		s->mhd.run(s->daemon);
		dispatch(s);
		now = now_ns();
		if (!s->draining && !s->check_pending && now >= s->next_check_ns) {
			queue_check(s);
			dispatch(s);
		}
		if (s->draining) {
			if (!s->running && !s->q_head && !s->n_requests)
				break;
			if (now >= s->drain_deadline_ns) {
				if (!forced) {
					note(s, "drain deadline: stopping %zu running request(s)", s->running);
					drain_force(s);
					forced = true;
					s->drain_deadline_ns = now + 2000000000LL;	/* their answers go out */
				} else {
					break;
				}
			}
		}
		need = 2 + s->n_workers + s->n_susp;	/* MHD's run above may have suspended more */
		if (need > cap) {
			struct pollfd *p = realloc(pfd, need * sizeof(*pfd));
			void **o = p ? realloc(owner, need * sizeof(*owner)) : NULL;

			if (p)
				pfd = p;
			if (!o)
				continue;	/* retried: nothing is lost meanwhile */
			owner = o;
			cap = need;
		}
		pfd[n] = (struct pollfd){ .fd = s->sig_fd, .events = POLLIN };
		owner[n++] = NULL;
		pfd[n] = (struct pollfd){ .fd = epfd, .events = POLLIN };
		owner[n++] = NULL;
		for (size_t i = 0; i < s->n_workers; i++) {
			if (s->workers[i].pid <= 0)
				continue;
			pfd[n] = (struct pollfd){ .fd = s->workers[i].sock, .events = POLLIN };
			owner[n++] = &s->workers[i];
		}
		n_worker_fds = n;
		for (struct request *q = s->susp; q; q = q->next) {
			if (q->sock < 0)
				continue;
			pfd[n] = (struct pollfd){ .fd = q->sock, .events = POLLRDHUP };
			owner[n++] = q;
		}
		if (s->mhd.get_timeout(s->daemon, &mhd_ms) == MHD_YES)
			timeout_ms = (int64_t)mhd_ms;
		if (!s->draining || now < s->drain_deadline_ns) {
			int64_t t = ((s->draining ? s->drain_deadline_ns : s->next_check_ns) - now) / 1000000 + 1;

			if (t < 0)
				t = 0;
			if (timeout_ms < 0 || t < timeout_ms)
				timeout_ms = t;
		}
		if (s->kick)
			timeout_ms = 0;
		r = poll(pfd, (nfds_t)n, timeout_ms > 60000 ? 60000 : (int)timeout_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (pfd[0].revents)
			read_signals(s);
		for (size_t i = 2; i < n_worker_fds; i++) {
			struct worker *w = owner[i];

			if (pfd[i].revents && w->pid > 0 && w->sock == pfd[i].fd)
				worker_readable(s, w);
		}
		/* an answer above may have resumed a request: it must still be suspended to be gone */
		for (size_t i = n_worker_fds; i < n; i++) {
			struct request *q;

			if (!(pfd[i].revents & (POLLRDHUP | POLLHUP | POLLERR)))
				continue;
			for (q = s->susp; q && q != owner[i]; q = q->next)
				;
			if (q)
				http_client_gone(s, q);
		}
	}
	free(pfd);
	free(owner);
	return 0;
}

static void stop(struct server *s)
{
	while (s->susp)
		http_client_gone(s, s->susp);
	if (s->daemon) {
		s->mhd.run(s->daemon);	/* the resumed connections close */
		s->mhd.stop_daemon(s->daemon);	/* and closes the listening socket, unless quiesced */
		s->listen_fd = -1;
	}
	s->daemon = NULL;
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	for (size_t i = 0; i < s->n_workers; i++) {
		struct worker *w = &s->workers[i];
		int st;

		if (w->pid <= 0)
			continue;
		if (w->job) {		/* only when the loop failed: nobody waits for it any more */
			kill(w->pid, SIGKILL);
			job_free(w->job);
			w->job = NULL;
		}
		close(w->sock);		/* its end of file: the worker exits */
		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
	}
	reap_orphans(s, 10 * 1000000000LL);	/* before serve_run's sweep: their records unlocked */
	while (s->q_head) {
		struct job *j = s->q_head;

		unlink_job(s, j);
		job_free(j);
	}
	if (s->unix_path[0])
		unlink(s->unix_path);
}

int serve_run(const struct serve_options *o, struct sd_error *err)
{
	struct server *s = calloc(1, sizeof(*s));
	sigset_t old;
	struct rlimit rl;
	int ret = -1;

	if (!s)
		return sd_error_set(err, ENOMEM, "out of memory");
	s->o = *o;
	s->listen_fd = s->sig_fd = -1;
	if (check_options(o, err) < 0 || read_token(s, err) < 0)
		goto out_free;
	if (s->o.log_path && !(s->log = fopen(s->o.log_path, "ae"))) {
		sd_error_errno(err, errno, "--log: cannot open '%s'", s->o.log_path);
		goto out_free;
	}
	/* connections are descriptors: as many as the hard limit allows */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 65536) {
		rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (mhd_load(&s->mhd, err) < 0)
		goto out_free;
	if ((strncmp(o->listen, "unix:", 5) == 0 ? listen_unix(s, o->listen + 5, err) : listen_tcp(s, o->listen, err)) < 0)
		goto out_free;
	s->workers = calloc(s->o.max_concurrency, sizeof(*s->workers));
	if (!s->workers) {
		sd_error_set(err, ENOMEM, "out of memory");
		goto out_close;
	}
	if (block_signals(&old, err, &s->sig_fd) < 0)
		goto out_close;
	/* the inits of a killed worker's sandboxes come back here, to be waited for (reap_orphans) */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (size_t i = 0; i < s->o.max_concurrency; i++, s->n_workers++) {
		if (worker_start(s, &s->workers[i], false) < 0) {
			sd_error_errno(err, errno, "cannot start a worker");
			goto out_stop;
		}
	}
	if (http_start(s, err) < 0)
		goto out_stop;
	note(s, "listening on %s (%zu workers, queue %zu, backend %s%s)", s->addr, s->n_workers, s->o.queue,
	     s->o.backend, s->auth ? ", bearer token required" : "");
	ret = loop(s);
	if (ret < 0)
		sd_error_errno(err, errno, "the server's loop failed");
	note(s, "stopped");
out_stop:
	stop(s);
	close(s->sig_fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	{
		struct sd_error e = { 0 };
		struct gc_stats st;
		char dir[4096];

		if (runrec_state_dir(dir, sizeof(dir), &e) == 0)
			gc_sweep(dir, NULL, &st, &e);
	}
out_close:
	if (s->listen_fd >= 0)
		close(s->listen_fd);
out_free:
	if (s->log)
		fclose(s->log);
	mhd_unload(&s->mhd);
	free(s->store_text);
	free(s->workers);
	free(s);
	return ret;
}
