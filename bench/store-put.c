/* store-put.c - how many samples per second one store records from P writer processes (the database's side of docs/scale.md's projected limit)
 *
 *   build/bench/store-put URL PROCESSES SECONDS [TESTS]
 *
 * Creates one sharded run in URL (an SQLite path or a postgresql:// URL)
 * and starts PROCESSES writers, each a shard recording made-up samples as
 * fast as it can for SECONDS: TESTS tests each (default 9, about a HumanEval
 * task's), a 300-byte completion, every field filled, each sample its own
 * transaction through store_sample_put_shard(), exactly as a shard does.
 * Prints one line: processes, samples recorded, seconds, samples/s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "store/store.h"

static struct sample_result sample(int shard, long n, int tests)
{
	struct sample_result r;

	memset(&r, 0, sizeof(r));
	r.sample_id = xasprintf("HumanEval/%ld/%d-%ld", n % 164, shard, n);
	r.task_id = xasprintf("HumanEval/%ld", n % 164);
	r.task_class = strdup("humaneval");
	r.sandbox_ids = strdup("0123456789abcdef0123456789abcdef");
	r.he_result = strdup(n % 3 ? "passed" : "failed: AssertionError");
	r.completion = calloc(301, 1);
	memset(r.completion, 'x', 300);
	r.n_tests = (size_t)tests;
	r.tests = calloc((size_t)tests + 1, sizeof(*r.tests));
	for (int i = 0; i < tests; i++) {
		r.tests[i].name = xasprintf("L%d: assert candidate([1, 2, 3], %d) == %d", 10 + i, i, i * 2);
		r.tests[i].weight = 1.0;
		r.tests[i].status = n % 3 || i ? TS_PASSED : TS_FAILED;
		r.tests[i].detail = r.tests[i].status == TS_FAILED ? strdup("expected 2, got 3") : NULL;
	}
	r.score = n % 3 ? 1.0 : 1.0 - 1.0 / tests;
	r.score_public = r.score;
	r.score_holdout = NAN;
	r.rouge_l = NAN;
	r.composite = NAN;
	r.passed = n % 3 != 0;
	r.latency_ms = 180;
	r.cpu_ms = 90;
	r.peak_memory_bytes = 30 << 20;
	r.started_ms = 1700000000000LL + n;
	r.finished_ms = r.started_ms + 180;
	return r;
}

int main(int argc, char **argv)
{
	struct sd_error err = { 0 };
	struct run_info run;
	struct store *st;
	int procs, secs, tests = argc > 4 ? atoi(argv[4]) : 9, fd[2];
	long total = 0;
	struct timespec t0, t1;

	if (argc < 4 || (procs = atoi(argv[2])) < 1 || (secs = atoi(argv[3])) < 1 || tests < 1) {
		fprintf(stderr, "usage: store-put URL PROCESSES SECONDS [TESTS]\n");
		return 2;
	}
	if (!(st = store_open(argv[1], &err))) {
		fprintf(stderr, "store-put: %s\n", err.msg);
		return 1;
	}
	memset(&run, 0, sizeof(run));
	snprintf(run.id, sizeof(run.id), "bench-%d-%ld", (int)getpid(), (long)time(NULL));
	run.shards = procs;
	run.n_samples = 1L << 40;
	if (store_run_create(st, &run, &err) < 0) {
		fprintf(stderr, "store-put: %s\n", err.msg);
		return 1;
	}
	store_close(st);
	if (pipe(fd) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int p = 0; p < procs; p++) {
		if (fork() == 0) {
			struct store *s = store_open(argv[1], &err);
			long n = 0;

			if (!s) {
				fprintf(stderr, "store-put: %s\n", err.msg);
				_exit(1);
			}
			while (now_ms() - (int64_t)t0.tv_sec * 1000 - t0.tv_nsec / 1000000 < (int64_t)secs * 1000) {
				struct sample_result r = sample(p, n, tests);

				if (store_sample_put_shard(s, run.id, p, &r, &err) < 0) {
					fprintf(stderr, "store-put: %s\n", err.msg);
					_exit(1);
				}
				sample_result_release(&r);
				n++;
			}
			store_close(s);
			if (write(fd[1], &n, sizeof(n)) != sizeof(n))
				_exit(1);
			_exit(0);
		}
	}
	close(fd[1]);
	for (int p = 0; p < procs; p++) {
		long n;
		int status;

		if (read(fd[0], &n, sizeof(n)) == sizeof(n))
			total += n;
		wait(&status);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	{
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		printf("%d processes: %ld samples in %.1f s: %.0f samples/s\n", procs, total, s, (double)total / s);
	}
	return 0;
}
