/* canary.c - programs with known outcomes, run before any score is reported
 *
 * The four canaries run in two child processes, two each, one after the
 * other; each canary is evaluated in its own sandbox, like any sample (a
 * child starts one warm interpreter for its two: a process each would start
 * four), and a child writes one line back through a pipe: nothing when its
 * canaries came out as they must, else what came out wrong. The infinite
 * loop is held to 0.02 s of CPU, the memory hog to 64 MB: the canaries are on
 * the path before the first sample. canary_start() and
 * canary_finish() let the caller do other work (load and prepare the tasks)
 * while they run.
 */
#define _GNU_SOURCE
#include "eval/canary.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

#define CANARY_MEMORY (64u << 20)	/* the hog gets two 16 MB chunks (python3 maps ~16 MB), fails on the third */

static const struct {
	const char *name;
	const char *body;
	enum test_status want;
	double timeout;		/* seconds of CPU time: the infinite loop spends all of its own */
} canaries[] = {
	{ "known-good", "    return x + 1\n", TS_PASSED, 2.0 },
	{ "known-bad", "    return x\n", TS_FAILED, 2.0 },
	{ "infinite loop", "    while True:\n        pass\n", TS_TIMEOUT, 0.02 },
	{ "memory hog", "    a = []\n    while True:\n        a.append(bytearray(1 << 24))\n", TS_MEMORY, 2.0 },
};

#define N_CANARIES (sizeof(canaries) / sizeof(canaries[0]))
_Static_assert(N_CANARIES == 2 * CANARY_PROCS, "two canaries a process");

/* Evaluate canary I; "" when it came out as it must, else why not, in MSG. */
static void canary_one(size_t i, struct evaluator *ev, char *msg, size_t size)
{
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
	evaluator_set_limits(ev, canaries[i].timeout, CANARY_MEMORY);	/* in this child only */
	if (evaluator_tests(ev, &t, &s, NULL, &r, &err) < 0) {
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

int canary_start(struct canaries *c, struct evaluator *ev, struct sd_error *err)
{
	int ret = 0;

	for (size_t k = 0; k < CANARY_PROCS; k++)
		c->pids[k] = c->fds[k] = -1;
	fflush(NULL);
	for (size_t k = 0; k < CANARY_PROCS; k++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			ret = sd_error_errno(err, errno, "canaries: pipe");
			break;
		}
		c->pids[k] = fork();
		if (c->pids[k] < 0) {
			ret = sd_error_errno(err, errno, "canaries: fork");
			close(p[0]);
			close(p[1]);
			break;
		}
		if (c->pids[k] == 0) {
			char msg[1024] = "";

			close(p[0]);
			/* A signalfd inherited as the cancel descriptor would read this
			 * child's own signals: its caller decides when to stop, once
			 * these few canaries are done. */
			evaluator_set_cancel_fd(ev, -1);
			for (size_t i = k; i < N_CANARIES && !msg[0]; i += CANARY_PROCS)
				canary_one(i, ev, msg, sizeof(msg));
			evaluator_free(ev);	/* this child's copy, and the zygote it started */
			_exit(write_all(p[1], msg, strlen(msg)) < 0 ? 3 : 0);
		}
		close(p[1]);
		c->fds[k] = p[0];
	}
	if (ret < 0)
		canary_finish(c, NULL);
	return ret;
}

int canary_finish(struct canaries *c, struct sd_error *err)
{
	int ret = 0;

	/* Collect every child (also after a failure), reporting the first wrong canary. */
	for (size_t k = 0; k < CANARY_PROCS; k++) {
		char msg[1024];
		ssize_t got = 0, n;
		int st = 0;

		if (c->pids[k] <= 0)
			continue;
		while (c->fds[k] >= 0 && got < (ssize_t)sizeof(msg) - 1 &&
		       ((n = read(c->fds[k], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0 || (n < 0 && errno == EINTR)))
			got += n > 0 ? n : 0;
		msg[got] = '\0';
		if (c->fds[k] >= 0)
			close(c->fds[k]);
		while (waitpid(c->pids[k], &st, 0) < 0 && errno == EINTR)
			;
		c->pids[k] = c->fds[k] = -1;
		if (ret < 0)
			continue;
		if (got > 0)
			ret = sd_error_set(err, EIO, "%s", msg);
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ret = sd_error_set(err, EIO, "canaries '%s' and '%s': their evaluation died (%s %d)",
					   canaries[k].name, canaries[k + CANARY_PROCS].name,
					   WIFSIGNALED(st) ? "signal" : "status",
					   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	return ret;
}

int canary_check(struct evaluator *ev, struct sd_error *err)
{
	struct canaries c;

	if (canary_start(&c, ev, err) < 0)
		return -1;
	return canary_finish(&c, err);
}
