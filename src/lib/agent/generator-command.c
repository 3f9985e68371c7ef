/* generator-command.c - candidates from a program: one JSON object on its stdin per request, one on its stdout back
 *
 * Each request starts `/bin/sh -c CMD` in a process group of its own, with
 * the request on stdin (written while its stdout is read, so that neither
 * side blocks on a full pipe) and its stderr left on ours. Its answer is
 * capped (GENERATOR_ANSWER_MAX); past the timeout the whole group is
 * killed. A program that exits non-zero, prints no JSON, or hangs is a
 * generator error naming the command.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/generator-internal.h"
#include "base/util.h"

struct command {
	struct generator base;
	char *cmd;
	double timeout;
};

/* Start CMD with pipes to its stdin and from its stdout (non-blocking). */
static pid_t start(const char *cmd, int *to, int *from, struct sd_error *err)
{
	int in[2], out[2];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return sd_error_errno(err, errno, "pipe");
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return sd_error_errno(err, errno, "pipe");
	}
	pid = fork();
	if (pid < 0) {
		sd_error_errno(err, errno, "fork");
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	*to = in[1];
	*from = out[0];
	return pid;
}

/* Write IN to TO and read FROM until it closes, the cap, or DEADLINE (ms). */
static int exchange(int to, int from, const char *in, size_t in_len, char **out, size_t *out_len, int64_t deadline,
		    const char *cmd, struct sd_error *err)
{
	size_t cap = 1 << 16, len = 0, sent = 0;
	char *buf = malloc(cap);

	if (!buf)
		return sd_error_set(err, ENOMEM, "out of memory");
	for (;;) {
		struct pollfd p[2] = { { .fd = from, .events = POLLIN }, { .fd = to, .events = POLLOUT } };
		int64_t left = deadline - now_ms();
		int n;

		if (left <= 0) {
			free(buf);
			return sd_error_set(err, ETIMEDOUT, "generator '%s': no answer within the timeout", cmd);
		}
		n = poll(p, to >= 0 ? 2 : 1, (int)(left > 1000000 ? 1000000 : left));
		if (n < 0 && errno != EINTR) {
			free(buf);
			return sd_error_errno(err, errno, "poll");
		}
		if (n <= 0)
			continue;
		if (to >= 0 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = (p[1].revents & POLLOUT) ? write(to, in + sent, in_len - sent) : -1;

			if (w > 0)
				sent += (size_t)w;
			if (w < 0 && errno == EAGAIN)
				w = 0;
			if (w < 0 || sent == in_len) {	/* done, or the program does not read: fine */
				close(to);
				to = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r;

			if (len == cap) {
				char *nb;

				if (cap >= GENERATOR_ANSWER_MAX) {
					free(buf);
					if (to >= 0)
						close(to);
					return sd_error_set(err, EFBIG, "generator '%s': its answer is longer than %u MiB",
							    cmd, GENERATOR_ANSWER_MAX >> 20);
				}
				if (!(nb = realloc(buf, cap * 2))) {
					free(buf);
					return sd_error_set(err, ENOMEM, "out of memory");
				}
				buf = nb;
				cap *= 2;
			}
			r = read(from, buf + len, cap - len);
			if (r > 0) {
				len += (size_t)r;
			} else if (r == 0) {
				break;
			} else if (errno != EAGAIN && errno != EINTR) {
				free(buf);
				return sd_error_errno(err, errno, "generator '%s': read", cmd);
			}
		}
	}
	if (to >= 0)
		close(to);
	*out = buf;
	*out_len = len;
	return 0;
}

static int command_generate(struct generator *g, const struct generator_request *rq, struct generator_answer *a,
			    struct sd_error *err)
{
	struct command *c = (struct command *)g;
	json_t *in = generator_command_input(rq);
	char *text = in ? json_dumps(in, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL, *out = NULL;
	size_t out_len = 0;
	int to = -1, from = -1, status = 0, ret;
	pid_t pid;
	void (*old)(int);

	json_decref(in);
	if (!text)
		return sd_error_set(err, ENOMEM, "out of memory");
	old = signal(SIGPIPE, SIG_IGN);
	pid = start(c->cmd, &to, &from, err);
	if (pid < 0) {
		free(text);
		signal(SIGPIPE, old);
		return -1;
	}
	ret = exchange(to, from, text, strlen(text), &out, &out_len, now_ms() + (int64_t)(c->timeout * 1000), c->cmd,
		       err);
	close(from);
	if (ret < 0)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	signal(SIGPIPE, old);
	free(text);
	a->requests = 1;
	if (ret == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		ret = WIFEXITED(status) ? sd_error_set(err, EPROTO, "generator '%s' exited with status %d", c->cmd,
						       WEXITSTATUS(status))
					: sd_error_set(err, EPROTO, "generator '%s' was killed by signal %d", c->cmd,
						       WTERMSIG(status));
	if (ret == 0 && generator_parse_command(out, out_len, a, err) < 0)
		ret = sd_error_wrap(err, "generator '%s'", c->cmd);
	free(out);
	return ret;
}

static void command_free(struct generator *g)
{
	struct command *c = (struct command *)g;

	free(c->cmd);
	free(c);
}

static const struct generator_ops command_ops = { "command", command_generate, command_free, NULL };

struct generator *generator_command_new(const char *cmd, double timeout, struct sd_error *err)
{
	struct command *c = calloc(1, sizeof(*c));

	if (!c || !(c->cmd = strdup(cmd))) {
		free(c);
		sd_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	c->base.ops = &command_ops;
	c->timeout = timeout > 0 ? timeout : 120;
	return &c->base;
}
