/* serve-worker.c - a worker process of the service: one job at a time from its socket, the sandboxes run here
 *
 * The HTTP process forks each worker. A worker is single-threaded, as a
 * sandbox's supervisor must be, and keeps nothing of the HTTP process but
 * its socket (every other descriptor is closed at once: a client's
 * connection must not outlive the HTTP process's close of it). Jobs and
 * answers are SOCK_SEQPACKET messages (struct wire_job, struct wire_done),
 * each body in a memfd passed along (SCM_RIGHTS): the HTTP process never
 * copies an answer, libmicrohttpd sends it from the memfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"
#include "sandbox/gc.h"
#include "sandbox/runrec.h"
#include "serve/serve-internal.h"

#define WORKER_SOCK 3

int wire_send(int sock, const void *msg, size_t len, int fd)
{
	ssize_t n;

	do
		n = send_fds(sock, msg, len, &fd, fd >= 0 ? 1 : 0, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

ssize_t wire_recv(int sock, void *msg, size_t len, int *fd)
{
	int n;	/* only one is ever sent: any more are closed */
	ssize_t got = recv_fds(sock, msg, len, fd, 1, &n, 0);

	if (n == 0)
		*fd = -1;
	if (got > 0 && (size_t)got != len) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EPROTO;
		return -1;
	}
	return got;
}

int memfd_of(const char *name, const void *data, size_t len)
{
	int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int memfd_read(int fd, size_t cap, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fstat(fd, &st) < 0)
		return -1;
	if ((uint64_t)st.st_size > cap) {
		errno = EFBIG;
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -1;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			errno = n < 0 ? errno : EIO;
			return -1;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

/* ---- the worker ---- */

static void answer(int sock, struct wire_done *done, char *text)
{
	int fd = text ? memfd_of("sandeval-answer", text, strlen(text)) : -1;

	if (!text || fd < 0) {
		free(text);
		text = error_json("internal", "the worker could not write its answer: %s", strerror(errno ? errno : ENOMEM));
		fd = text ? memfd_of("sandeval-answer", text, strlen(text)) : -1;
		done->http_status = 500;
	}
	free(text);
	if (wire_send(sock, done, sizeof(*done), fd) < 0)
		_exit(3);	/* the HTTP process is gone */
	if (fd >= 0)
		close(fd);
}

static void do_job(const struct worker_ctx *ctx, int sock, const struct wire_job *job, int body_fd)
{
	const struct serve_options *o = ctx->o;
	struct wire_done done = { .id = job->id, .http_status = 500 };
	cleanup_free char *body = NULL;
	char *text = NULL;
	size_t len = 0;

	if (body_fd >= 0 && memfd_read(body_fd, o->max_body, &body, &len) < 0) {
		answer(sock, &done, error_json("internal", "the worker could not read the request: %s", strerror(errno)));
		return;
	}
	switch (job->kind) {
	case JOB_RUN_CODE: {
		struct rc_request rq;
		struct sd_error err = { 0 };

		if (!body || rc_parse(body, len, o, &rq, &err) < 0) {
			done.http_status = 400;
			text = error_json("bad_request", "%s", err.msg);
		} else if (!rq.lang) {
			done.http_status = 200;
			text = rc_unknown_language(&rq);
		} else if (rc_execute(&rq, o, &text, &done) < 0) {
			done.http_status = 500;
			text = error_json("internal", "out of memory running the request");
		}
		rc_release(&rq);
		break;
	}
	case JOB_EVALUATE:
		done.http_status = ev_execute(body ? body : "", len, o, &text, &done);
		break;
	case JOB_RUN_GET: {
		char id[sizeof(job->arg) + 1];

		memcpy(id, job->arg, sizeof(job->arg));
		id[sizeof(job->arg)] = '\0';
		done.http_status = ev_get_run(id, o, &text);
		break;
	}
	case JOB_CHECK:
		done.http_status = ev_check_ready(o, &text, &done);
		break;
	case JOB_STORE_METRICS:
		done.http_status = ev_store_metrics(o, &text);
		break;
	default:
		text = error_json("internal", "unknown job kind %u", job->kind);
		break;
	}
	answer(sock, &done, text);
}

_Noreturn void worker_main(const struct worker_ctx *ctx, int sock)
{
	sigset_t none;

	/* The HTTP process decides when to stop: a SIGTERM sent to the whole
	 * process group (a terminal's ^C, systemd's KillMode=control-group) must
	 * not cut a sandbox short; the end of the socket ends a worker. */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* If the HTTP process dies, nobody can answer: the worker goes too (and
	 * its sandbox's init with it); the next start's gc sweeps the rest. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != ctx->parent)
		_exit(3);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (sock != WORKER_SOCK) {
		if (dup2(sock, WORKER_SOCK) < 0)
			_exit(3);
		sock = WORKER_SOCK;
	}
	/* Nothing of the HTTP process but the socket: its listening socket and
	 * clients' connections in particular. stdin, stdout, stderr stay. */
	if (syscall(SYS_close_range, WORKER_SOCK + 1, ~0U, 0) < 0)
		for (int fd = WORKER_SOCK + 1; fd < 65536; fd++)
			close(fd);
	if (ctx->sweep_first) {
		struct sd_error err = { 0 };
		struct gc_stats st;
		char dir[4096];

		/* what a worker that died mid-sandbox left: its cgroups, processes, records */
		if (runrec_state_dir(dir, sizeof(dir), &err) < 0 || gc_sweep(dir, NULL, &st, &err) < 0)
			fprintf(stderr, "sandeval: serve: worker %d: gc: %s\n", (int)getpid(), err.msg);
	}
	for (;;) {
		struct wire_job job;
		int fd = -1;
		ssize_t n = wire_recv(sock, &job, sizeof(job), &fd);

		if (n <= 0)
			_exit(n == 0 ? 0 : 3);
		do_job(ctx, sock, &job, fd);
		if (fd >= 0)
			close(fd);
	}
}
