/* test-pool.c - unit tests of pool.c: every job answered once, more workers than the old fixed 64, failures end every worker, interrupting it */
#include "fixture.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "base/util.h"
#include "eval/pool.h"

struct ctx {
	size_t n;
	unsigned *seen;		/* per job: answers received */
	pid_t *by;		/* per job: the worker that answered */
	size_t fail_work;	/* this job fails in the worker (SIZE_MAX: none) */
	size_t fail_done;	/* this job's answer fails done() (SIZE_MAX: none) */
	size_t crash;		/* this job kills its worker (SIZE_MAX: none) */
	size_t slow_from;	/* jobs from this one wait for the stop (SIZE_MAX: none) */
	int cancel_w;		/* done() writes here after cancel_after answers (-1: never) */
	size_t cancel_after;
	size_t answered;
};

static int work(void *arg, size_t job, int stop_fd, char **line, struct sd_error *err)
{
	struct ctx *c = arg;

	if (job == c->crash)
		raise(SIGKILL);
	/* what a sandbox does with its cancel descriptor: 10 s unless stopped */
	if (job >= c->slow_from && poll(&(struct pollfd){ .fd = stop_fd, .events = POLLIN }, 1, 10000) > 0)
		return sd_error_set(err, EINTR, "interrupted");
	if (job == c->fail_work)
		return sd_error_set(err, EINVAL, "job %zu cannot be done", job);
	/* a line with a newline inside: the pool keeps it one line */
	*line = xasprintf("%zu %d\nend", job * 3, (int)getpid());
	return *line ? 0 : -1;
}

static int done(void *arg, size_t job, const char *line, size_t len, struct sd_error *err)
{
	struct ctx *c = arg;
	size_t got;
	int pid, used = 0;

	assert_true(job < c->n);
	assert_int_equal(strlen(line), len);
	assert_int_equal(sscanf(line, "%zu %d end%n", &got, &pid, &used), 2);
	assert_true(used > 0 && (size_t)used == len);
	assert_int_equal(got, job * 3);
	c->seen[job]++;
	c->by[job] = pid;
	c->answered++;
	if (c->cancel_w >= 0 && c->answered == c->cancel_after)
		assert_int_equal(write(c->cancel_w, "x", 1), 1);
	if (job == c->fail_done)
		return sd_error_set(err, EIO, "cannot record job %zu", job);
	return 0;
}

static const struct pool_ops ops = { .work = work, .done = done };

/* skip(): every third job is left out; job fail_work's check fails (skip_fail) */
static size_t skip_fail = SIZE_MAX;
static size_t skipped;

static int skip_some(void *arg, size_t job, struct sd_error *err)
{
	(void)arg;
	if (job == skip_fail)
		return sd_error_set(err, EIO, "cannot look up job %zu", job);
	if (job % 3 == 0) {
		skipped++;
		return 1;
	}
	return 0;
}

static const struct pool_ops skip_ops = { .work = work, .done = done, .skip = skip_some };

static struct ctx *ctx_new(size_t n)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->n = n;
	c->seen = calloc(n + 1, sizeof(*c->seen));
	c->by = calloc(n + 1, sizeof(*c->by));
	assert_non_null(c->seen);
	assert_non_null(c->by);
	c->fail_work = c->fail_done = c->crash = c->slow_from = SIZE_MAX;
	c->cancel_w = -1;
	return c;
}

static void ctx_free(struct ctx *c)
{
	free(c->seen);
	free(c->by);
	free(c);
}

static size_t *jobs_0_to(size_t n)
{
	size_t *j = calloc(n + 1, sizeof(*j));

	assert_non_null(j);
	for (size_t i = 0; i < n; i++)
		j[i] = i;
	return j;
}

/* No child of this process is left, running or unreaped. */
static void assert_no_children(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_every_job_once(void **state)
{
	struct ctx *c = ctx_new(500);
	size_t *jobs = jobs_0_to(500);
	struct sd_error err = { 0 };
	int fds = fx_open_fds();
	size_t workers_seen = 0;

	(void)state;
	assert_int_equal(pool_run(&ops, c, jobs, 500, 4, -1, &err), 0);
	assert_int_equal(c->answered, 500);
	for (size_t i = 0; i < 500; i++) {
		assert_int_equal(c->seen[i], 1);
		assert_true(c->by[i] != getpid());	/* done in a worker */
	}
	for (size_t i = 0; i < 500; i++) {
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = c->by[j] != c->by[i];
		workers_seen += first;
	}
	assert_true(workers_seen >= 2 && workers_seen <= 4);
	assert_int_equal(fx_open_fds(), fds);
	assert_no_children();
	free(jobs);
	ctx_free(c);
}

/* The jobs are the caller's numbers (a resumed run's samples not yet done). */
static void test_job_numbers_and_fewer_jobs_than_workers(void **state)
{
	struct ctx *c = ctx_new(100);
	size_t jobs[] = { 97, 3, 50 };
	struct sd_error err = { 0 };

	(void)state;
	assert_int_equal(pool_run(&ops, c, jobs, 3, 16, -1, &err), 0);
	assert_int_equal(c->answered, 3);
	assert_int_equal(c->seen[97] + c->seen[3] + c->seen[50], 3);
	assert_int_equal(pool_run(&ops, c, jobs, 0, 16, -1, &err), 0);	/* nothing to do: no worker */
	assert_int_equal(c->answered, 3);
	assert_no_children();
	ctx_free(c);
}

/* More workers than the 64 pollfds the old pool of cmd-run.c had on its
 * stack (its default, one worker a CPU, was not capped). */
static void test_more_than_64_workers(void **state)
{
	struct ctx *c = ctx_new(300);
	size_t *jobs = jobs_0_to(300);
	struct sd_error err = { 0 };
	int fds = fx_open_fds();

	(void)state;
	assert_int_equal(pool_run(&ops, c, jobs, 300, 100, -1, &err), 0);
	assert_int_equal(c->answered, 300);
	for (size_t i = 0; i < 300; i++)
		assert_int_equal(c->seen[i], 1);
	assert_int_equal(fx_open_fds(), fds);
	assert_no_children();
	free(jobs);
	ctx_free(c);
}

/* A job that fails in its worker, a done() that fails, a worker that dies:
 * the pool stops with the reason, and no worker, pipe or buffer is left. */
static void test_failures_end_every_worker(void **state)
{
	struct sd_error err = { 0 };
	size_t *jobs = jobs_0_to(200);
	int fds = fx_open_fds();
	struct ctx *c = ctx_new(200);

	(void)state;
	c->fail_work = 37;
	assert_int_equal(pool_run(&ops, c, jobs, 200, 8, -1, &err), -1);
	assert_string_equal(err.msg, "job 37 cannot be done");
	assert_int_equal(c->seen[37], 0);
	assert_true(c->answered < 200);
	assert_int_equal(fx_open_fds(), fds);
	assert_no_children();
	ctx_free(c);

	c = ctx_new(200);
	c->fail_done = 5;
	assert_int_equal(pool_run(&ops, c, jobs, 200, 8, -1, &err), -1);
	assert_string_equal(err.msg, "cannot record job 5");
	assert_int_equal(fx_open_fds(), fds);
	assert_no_children();
	ctx_free(c);

	c = ctx_new(200);
	c->crash = 120;
	assert_int_equal(pool_run(&ops, c, jobs, 200, 8, -1, &err), -1);
	assert_contains(err.msg, "a worker died");
	assert_int_equal(c->seen[120], 0);
	assert_int_equal(fx_open_fds(), fds);
	assert_no_children();
	ctx_free(c);
	free(jobs);
}

/* Jobs skip() leaves out never reach a worker nor done(); the others do,
 * once; the last jobs left out end the pool too; a failing skip() stops it. */
static void test_skip(void **state)
{
	struct ctx *c = ctx_new(100);
	size_t *jobs = jobs_0_to(100);
	struct sd_error err = { 0 };

	(void)state;
	skipped = 0;
	assert_int_equal(pool_run(&skip_ops, c, jobs, 100, 3, -1, &err), 0);	/* job 99 is the last: left out */
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(c->seen[i], i % 3 ? 1 : 0);
	assert_int_equal(skipped, 34);
	assert_int_equal(c->answered, 66);
	/* every job left out */
	for (size_t i = 0; i < 10; i++)
		jobs[i] = 3 * i;
	memset(c->seen, 0, 100 * sizeof(*c->seen));
	c->answered = 0;
	assert_int_equal(pool_run(&skip_ops, c, jobs, 10, 4, -1, &err), 0);
	assert_int_equal(c->answered, 0);
	/* a skip() that fails stops the pool, every worker reaped */
	skip_fail = 50;
	for (size_t i = 0; i < 100; i++)
		jobs[i] = i;
	assert_int_equal(pool_run(&skip_ops, c, jobs, 100, 3, -1, &err), -1);
	assert_contains(err.msg, "cannot look up job 50");
	skip_fail = SIZE_MAX;
	assert_no_children();
	free(jobs);
	ctx_free(c);
}

/* Interrupted (the cancel descriptor ready after 40 answers): the 40 fast
 * jobs are answered, the slow ones running are stopped through STOP_FD
 * and answer nothing, no further job starts, every worker ends by itself;
 * EINTR. Ready before the start: nothing starts at all. */
static void test_interrupt(void **state)
{
	size_t *jobs = jobs_0_to(200);
	struct sd_error err = { 0 };
	struct ctx *c = ctx_new(200);
	int fds = fx_open_fds(), p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	c->slow_from = 40;
	c->cancel_w = p[1];
	c->cancel_after = 40;
	assert_int_equal(pool_run(&ops, c, jobs, 200, 4, p[0], &err), -1);
	assert_int_equal(err.code, EINTR);
	assert_string_equal(err.msg, "interrupted");
	assert_int_equal(c->answered, 40);	/* a slow job that ran its 10 s would be one more */
	for (size_t i = 0; i < 200; i++)
		assert_int_equal(c->seen[i], i < 40);
	assert_no_children();
	ctx_free(c);

	c = ctx_new(200);
	memset(&err, 0, sizeof(err));
	assert_int_equal(pool_run(&ops, c, jobs, 200, 4, p[0], &err), -1);	/* still ready */
	assert_int_equal(err.code, EINTR);
	assert_int_equal(c->answered, 0);
	assert_no_children();
	/* a cancel descriptor that never becomes ready changes nothing */
	close(p[0]);
	close(p[1]);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pool_run(&ops, c, jobs, 200, 4, p[0], &err), 0);
	assert_int_equal(c->answered, 200);
	close(p[0]);
	close(p[1]);
	assert_int_equal(fx_open_fds(), fds);
	ctx_free(c);
	free(jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_job_once),
		cmocka_unit_test(test_job_numbers_and_fewer_jobs_than_workers),
		cmocka_unit_test(test_more_than_64_workers),
		cmocka_unit_test(test_failures_end_every_worker),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_interrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
