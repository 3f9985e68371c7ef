/* canary.c - programs with known outcomes, run before any score is reported
 *
 * The four canaries run at once, each in a child process of its own that
 * evaluates it (in its own sandbox, like any sample) and writes one line back
 * through a pipe: nothing when it came out as it must, else what came out
 * wrong. The wall time of the check is then that of the slowest canary, not
 * of the four in a row; the infinite loop is held to a tenth of a second of
 * CPU. canary_start() and canary_finish() let the caller do other work (load
 * and prepare the tasks) while they run.
 */
#define _GNU_SOURCE
#include "canary.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define CANARY_MEMORY (128u << 20)

static const struct {
	const char *name;
	const char *body;
	enum test_status want;
	double timeout;		/* seconds of CPU time: the infinite loop spends all of its own */
} canaries[] = {
	{ "known-good", "    return x + 1\n", TS_PASSED, 2.0 },
	{ "known-bad", "    return x\n", TS_FAILED, 2.0 },
	{ "infinite loop", "    while True:\n        pass\n", TS_TIMEOUT, 0.1 },
	{ "memory hog", "    a = []\n    while True:\n        a.append(bytearray(1 << 24))\n", TS_MEMORY, 2.0 },
};

#define N_CANARIES (sizeof(canaries) / sizeof(canaries[0]))
_Static_assert(N_CANARIES == CANARY_COUNT, "canary.h's CANARY_COUNT");

/* Evaluate canary I; "" when it came out as it must, else why not, in MSG. */
static void canary_one(size_t i, const struct eval_options *o, char *msg, size_t size)
{
	struct eval_options co = *o;
	struct task t = {
		.id = "canary", .class = "canary", .language = "python", .format = TASK_HUMANEVAL,
		.prompt = "def f(x):\n    \"\"\"Return x plus one.\"\"\"\n", .entry_point = "f",
		.test_code = "def check(candidate):\n    assert candidate(1) == 2\n",
	};
	struct sample s = { .task_id = "canary", .sample_id = (char *)canaries[i].name,
			    .code = (char *)canaries[i].body, .is_completion = true };
	struct sample_result r;
	struct sd_error err = { 0 };
	enum test_status got;

	msg[0] = '\0';
	co.timeout = canaries[i].timeout;
	co.memory = CANARY_MEMORY;
	if (eval_sample(&t, &s, NULL, &co, &r, &err) < 0) {
		snprintf(msg, size, "canary '%s': %s", canaries[i].name, err.msg);
		return;
	}
	got = r.n_tests == 1 ? r.tests[0].status : TS_HARNESS_ERROR;
	if (got != canaries[i].want)
		snprintf(msg, size, "canary '%s' came out '%s' instead of '%s'%s%s: the evaluator "
			 "cannot be trusted on this machine, no scores reported",
			 canaries[i].name, r.n_tests == 1 ? test_status_name(got) : "no single test",
			 test_status_name(canaries[i].want),
			 r.n_tests == 1 && r.tests[0].detail ? " -- " : "",
			 r.n_tests == 1 && r.tests[0].detail ? r.tests[0].detail : "");
	sample_result_release(&r);
}

int canary_start(struct canaries *c, const struct eval_options *o, struct sd_error *err)
{
	int ret = 0;

	for (size_t i = 0; i < N_CANARIES; i++)
		c->pids[i] = c->fds[i] = -1;
	fflush(NULL);
	for (size_t i = 0; i < N_CANARIES; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			ret = sd_error_errno(err, errno, "canaries: pipe");
			break;
		}
		c->pids[i] = fork();
		if (c->pids[i] < 0) {
			ret = sd_error_errno(err, errno, "canaries: fork");
			close(p[0]);
			close(p[1]);
			break;
		}
		if (c->pids[i] == 0) {
			char msg[1024];

			close(p[0]);
			canary_one(i, o, msg, sizeof(msg));
			eval_release();
			_exit(write_all(p[1], msg, strlen(msg)) < 0 ? 3 : 0);
		}
		close(p[1]);
		c->fds[i] = p[0];
	}
	if (ret < 0)
		canary_finish(c, NULL);
	return ret;
}

int canary_finish(struct canaries *c, struct sd_error *err)
{
	int ret = 0;

	/* Collect every child (also after a failure), reporting the first wrong canary. */
	for (size_t i = 0; i < N_CANARIES; i++) {
		char msg[1024];
		ssize_t got = 0, n;
		int st = 0;

		if (c->pids[i] <= 0)
			continue;
		while (c->fds[i] >= 0 && got < (ssize_t)sizeof(msg) - 1 &&
		       ((n = read(c->fds[i], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0 || (n < 0 && errno == EINTR)))
			got += n > 0 ? n : 0;
		msg[got] = '\0';
		if (c->fds[i] >= 0)
			close(c->fds[i]);
		while (waitpid(c->pids[i], &st, 0) < 0 && errno == EINTR)
			;
		c->pids[i] = c->fds[i] = -1;
		if (ret < 0)
			continue;
		if (got > 0)
			ret = sd_error_set(err, EIO, "%s", msg);
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ret = sd_error_set(err, EIO, "canary '%s': its evaluation died (%s %d)", canaries[i].name,
					   WIFSIGNALED(st) ? "signal" : "status",
					   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	return ret;
}

int canary_check(const struct eval_options *o, struct sd_error *err)
{
	struct canaries c;

	if (canary_start(&c, o, err) < 0)
		return -1;
	return canary_finish(&c, err);
}
