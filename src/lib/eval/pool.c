/* pool.c - the one worker pool of the pipeline: forked workers, one job at a time each, one line back per job
 *
 * Pipes: the pool writes "JOB\n" to a worker's job pipe; the worker answers
 * on its answer pipe with "=ANSWER\n", or "!MESSAGE\n" when work() failed
 * (and then exits). A worker exits when its job pipe closes. Both ends are
 * close-on-exec, and each worker closes the pool's ends of the workers forked
 * before it, so that a worker's death is seen as the end of its answer pipe.
 */
#define _GNU_SOURCE
#include "eval/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

struct worker {
	pid_t pid;
	int to, from;		/* the job pipe's write end, the answer pipe's read end */
	char *buf;		/* what came from it and is not a whole line yet */
	size_t len, cap;
	bool busy;
	size_t job;		/* the job it is doing, while busy */
};

static _Noreturn void worker_main(const struct pool_ops *ops, void *arg, int in, int out)
{
	char line[32];
	size_t len = 0;
	ssize_t n;

	/* the pool's process decides when to stop (it may block these and read
	 * them from a signalfd, which a worker must not) */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	for (;;) {
		char *nl = memchr(line, '\n', len);

		if (!nl) {
			if (len == sizeof(line))
				_exit(3);	/* not a job number: not from the pool */
			n = read(in, line + len, sizeof(line) - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
			continue;
		}
		*nl = '\0';
		{
			struct sd_error err = { 0 };
			char *answer = NULL;
			size_t job = strtoul(line, NULL, 10);
			int r = ops->work(arg, job, in, &answer, &err);
			char *text = r == 0 ? xasprintf("=%s\n", answer ? answer : "")
				     : err.code == EINTR ? strdup("~\n")	/* interrupted: no answer */
				     : xasprintf("!%s\n", err.msg[0] ? err.msg : "the worker failed");

			for (char *p = text ? text + 1 : NULL; p && *p && p[1]; p++)
				if (*p == '\n')
					*p = ' ';	/* one line, whatever work() returned */
			/* interrupted: the job pipe's end comes next, then worker_exit */
			if (!text || write_all(out, text, strlen(text)) < 0 || (r < 0 && err.code != EINTR))
				_exit(3);
			free(text);
			free(answer);
		}
		len -= (size_t)(nl + 1 - line);
		memmove(line, nl + 1, len);
	}
	if (ops->worker_exit)
		ops->worker_exit(arg);
	_exit(0);
}

/* Take the whole lines of W's buffer: answers to done(), a failure to *err;
 * "~", an interrupted job, only once the pool is (CANCELLED). */
static int take_lines(struct worker *w, const struct pool_ops *ops, void *arg, size_t *n_done, bool cancelled,
		      struct sd_error *err)
{
	char *nl;

	while ((nl = memchr(w->buf, '\n', w->len))) {
		size_t len = (size_t)(nl - w->buf);
		int r;

		*nl = '\0';
		if (!w->busy || len == 0 || !strchr("=!~", w->buf[0]) || (w->buf[0] == '~' && !cancelled))
			return sd_error_set(err, EPROTO, "worker %d answered out of turn", (int)w->pid);
		if (w->buf[0] == '!')
			return sd_error_set(err, EIO, "%s", w->buf + 1);
		if (w->buf[0] == '=') {
			r = ops->done(arg, w->job, w->buf + 1, len - 1, err);
			if (r < 0)
				return -1;
			(*n_done)++;
		}
		w->busy = false;
		w->len -= len + 1;
		memmove(w->buf, nl + 1, w->len);
	}
	return 0;
}

/* Read what W sent. -1 with *err when it died or answered wrongly. */
static int read_worker(struct worker *w, const struct pool_ops *ops, void *arg, size_t *n_done, bool cancelled,
		       struct sd_error *err)
{
	char chunk[65536];
	ssize_t got = read(w->from, chunk, sizeof(chunk));

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (got <= 0)
		return sd_error_set(err, EIO, "a worker died (%s)", got < 0 ? strerror(errno) : "end of output");
	if (w->len + (size_t)got + 1 > w->cap) {
		size_t cap = (w->len + (size_t)got + 1) * 2;
		char *nb = realloc(w->buf, cap);

		if (!nb)
			return sd_error_set(err, ENOMEM, "out of memory");
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, chunk, (size_t)got);
	w->len += (size_t)got;
	return take_lines(w, ops, arg, n_done, cancelled, err);
}

static int start_workers(struct worker *w, size_t nw, const struct pool_ops *ops, void *arg, struct sd_error *err)
{
	fflush(NULL);
	for (size_t j = 0; j < nw; j++) {
		int a[2], b[2];

		if (pipe2(a, O_CLOEXEC) < 0)
			return sd_error_errno(err, errno, "cannot start a worker: pipe");
		if (pipe2(b, O_CLOEXEC) < 0) {
			close(a[0]);
			close(a[1]);
			return sd_error_errno(err, errno, "cannot start a worker: pipe");
		}
		w[j].pid = fork();
		if (w[j].pid < 0) {
			int e = errno;

			close(a[0]);
			close(a[1]);
			close(b[0]);
			close(b[1]);
			return sd_error_errno(err, e, "cannot start a worker: fork");
		}
		if (w[j].pid == 0) {
			close(a[1]);
			close(b[0]);
			for (size_t k = 0; k < j; k++) {
				close(w[k].to);
				close(w[k].from);
			}
			worker_main(ops, arg, a[0], b[1]);
		}
		close(a[0]);
		close(b[1]);
		w[j].to = a[1];
		w[j].from = b[0];
	}
	return 0;
}

/* Interrupted: no more jobs; the job pipes' end stops what runs (each
 * busy worker's STOP_FD) and ends the idle workers. */
static void cancel(struct worker *w, size_t nw)
{
	for (size_t j = 0; j < nw; j++)
		if (w[j].to >= 0) {
			close(w[j].to);
			w[j].to = -1;
		}
}

int pool_run(const struct pool_ops *ops, void *arg, const size_t *jobs, size_t n, size_t workers,
	     int cancel_fd, struct sd_error *err)
{
	size_t nw = workers < 1 ? 1 : workers > n ? n : workers, next = 0, n_done = 0;
	struct worker *w;
	struct pollfd *pfd;
	bool cancelled = false;
	int ret = 0;

	if (n == 0)
		return 0;
	if (cancel_fd >= 0 && poll(&(struct pollfd){ .fd = cancel_fd, .events = POLLIN }, 1, 0) > 0)
		return sd_error_set(err, EINTR, "interrupted");
	w = calloc(nw, sizeof(*w));
	pfd = calloc(nw + 1, sizeof(*pfd));
	if (!w || !pfd) {
		free(w);
		free(pfd);
		return sd_error_set(err, ENOMEM, "out of memory");
	}
	for (size_t j = 0; j < nw; j++)
		w[j].to = w[j].from = -1;
	ret = start_workers(w, nw, ops, arg, err);
	while (ret == 0 && n_done < n) {
		size_t busy = 0, np = 0;

		for (size_t j = 0; j < nw && ret == 0 && !cancelled; j++) {
			char line[32];
			int skip = 0;

			if (w[j].busy)
				continue;
			while (next < n && ops->skip && (skip = ops->skip(arg, jobs[next], err)) == 1) {
				next++;
				n_done++;
			}
			if (skip < 0) {
				ret = -1;
				break;
			}
			if (next >= n)
				continue;
			snprintf(line, sizeof(line), "%zu\n", jobs[next]);
			if (write_all(w[j].to, line, strlen(line)) < 0)
				ret = sd_error_errno(err, errno, "worker %d", (int)w[j].pid);
			w[j].busy = true;
			w[j].job = jobs[next++];
		}
		if (ret < 0 || n_done >= n)	/* skip() may have left out the last jobs */
			break;
		/* once interrupted, only the busy workers are heard: the idle ones end */
		for (size_t j = 0; j < nw; j++) {
			busy += w[j].busy;
			pfd[j] = (struct pollfd){ .fd = cancelled && !w[j].busy ? -1 : w[j].from, .events = POLLIN };
		}
		if (cancelled && !busy)
			break;
		np = nw;
		if (!cancelled && cancel_fd >= 0)
			pfd[np++] = (struct pollfd){ .fd = cancel_fd, .events = POLLIN };
		if (poll(pfd, (nfds_t)np, -1) < 0 && errno != EINTR)
			ret = sd_error_errno(err, errno, "poll");
		if (ret == 0 && np > nw && pfd[nw].revents) {
			cancelled = true;
			cancel(w, nw);
		}
		for (size_t j = 0; j < nw && ret == 0; j++)
			if (pfd[j].revents)
				ret = read_worker(&w[j], ops, arg, &n_done, cancelled, err);
	}
	/* Closing the job pipes ends the workers; after a failure they are killed. */
	for (size_t j = 0; j < nw; j++) {
		int st = 0;

		if (w[j].to >= 0)
			close(w[j].to);
		if (w[j].from >= 0)
			close(w[j].from);
		if (w[j].pid > 0) {
			if (ret < 0)
				kill(w[j].pid, SIGKILL);
			while (waitpid(w[j].pid, &st, 0) < 0 && errno == EINTR)
				;
			if (ret == 0 && !cancelled && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
				ret = sd_error_set(err, EIO, "a worker ended with %s %d after its last job",
						   WIFSIGNALED(st) ? "signal" : "status",
						   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
		free(w[j].buf);
	}
	free(w);
	free(pfd);
	if (ret == 0 && cancelled && n_done < n)
		ret = sd_error_set(err, EINTR, "interrupted");
	return ret;
}
