/* warm.c - a warm (zygote) sandbox's start against a plain fork+exec of the same python3 (bench/warm.sh)
 *
 *   build/bench/warm [ROUNDS] [PYTHON]     (one line a run on stdout: round, name, start_us, total_us)
 *
 * Each round runs each of these once, in a rotating order (as bench/ab.py),
 * every one running the same Python code CODE, which prints the monotonic
 * clock (not namespaced: sandeval makes no time namespace) at its first
 * statement:
 *   plain     fork + exec of `PYTHON -c CODE`, waited for
 *   plain-IS  the same with -I -S (what the zygote runs: no site, isolated)
 *   warm      sandbox_run() of `python3 -c CODE` warm: cloned from a zygote
 *             (bench/warm-zygote.py: runners/zygote.py's preloads, then CODE)
 *   cold      sandbox_run() of the same, cold: python3 executed in the sandbox
 * and reports, for each, in microseconds from t0 (clock_gettime just before
 * fork, or just before sandbox_run):
 *   start_us  to CODE's first statement: for a sandbox, the whole setup
 *             (cgroup, namespaces, root, constraints) and the clone from the
 *             zygote or the exec of python3; for plain, fork, exec and the
 *             interpreter's start
 *   total_us  to the result: waitpid returned, or sandbox_run returned with
 *             the result filled (teardown, cgroup removal, accounting)
 * The zygote is started once, before the rounds, and is not timed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "sandbox/zygote.h"

#define CODE "import os, time; os.write(1, b'%d' % time.clock_gettime_ns(time.CLOCK_MONOTONIC))"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* fork + exec ARGV, its stdout to a pipe; 0 with *first (its printed clock) and *end */
static int plain(char *const *argv, long long *first, long long *end)
{
	char buf[64] = "";
	ssize_t n, got = 0;
	int p[2], st;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || st != 0)
		return -1;
	*end = now_ns();
	buf[got] = '\0';
	*first = atoll(buf);
	return *first > 0 ? 0 : -1;
}

static int sandboxed(struct zygote *z, long long *first, long long *end)
{
	char *argv[] = { "python3", "-c", CODE, NULL };
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct sd_error err = { 0 };
	int ret = -1;

	sandbox_config_init(&cfg);
	cfg.argv = argv;
	cfg.zygote = z;
	if (sandbox_run(&cfg, &res, &err) < 0) {
		fprintf(stderr, "warm: %s\n", err.msg);
		return -1;
	}
	*end = now_ns();
	if (res.status == SB_OK && res.stdout_buf) {
		*first = atoll(res.stdout_buf);
		ret = *first > 0 ? 0 : -1;
	}
	/* a warm run that fell back to a cold start would measure the wrong thing */
	for (size_t i = 0; z && i < res.n_events; i++)
		if (strcmp(res.events[i].phase, "execute") == 0 && strstr(res.events[i].detail, "cold start"))
			ret = -1;
	if (ret < 0)
		fprintf(stderr, "warm: a %s run failed: %s %s\n", z ? "warm" : "cold",
			sandbox_status_name(res.status), res.error);
	sandbox_result_release(&res);
	return ret;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	char *python = argc > 2 ? argv[2] : "/usr/bin/python3";
	char *plain_argv[] = { python, "-c", CODE, NULL };
	char *plain_is_argv[] = { python, "-I", "-S", "-c", CODE, NULL };
	static const char *const names[] = { "plain", "plain-IS", "warm", "cold" };
	struct sd_error err = { 0 };
	struct zygote *z;

	/* runners/ beside bench/: the zygote script's path is taken relative to it */
	z = zygote_start("runners", "../bench/warm-zygote.py", &err);
	if (!z) {
		fprintf(stderr, "warm: %s\n", err.msg);
		return 1;
	}
	for (int r = -3; r < rounds; r++) {	/* three untimed rounds first */
		for (int k = 0; k < 4; k++) {
			int which = (k + (r < 0 ? 0 : r)) % 4, rc;
			long long t0 = now_ns(), first = 0, end = 0;

			if (which == 0)
				rc = plain(plain_argv, &first, &end);
			else if (which == 1)
				rc = plain(plain_is_argv, &first, &end);
			else
				rc = sandboxed(which == 2 ? z : NULL, &first, &end);
			if (rc < 0) {
				fprintf(stderr, "warm: %s failed\n", names[which]);
				zygote_stop(z);
				return 1;
			}
			if (r >= 0)
				printf("%d\t%s\t%.1f\t%.1f\n", r, names[which], (first - t0) / 1e3, (end - t0) / 1e3);
		}
		fflush(stdout);
	}
	zygote_stop(z);
	return 0;
}
