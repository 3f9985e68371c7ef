/* cgroup-fixture.h - fake cgroup v1 and v2 trees shared by the cgroup unit tests
 *
 * cgroup_create() takes the hierarchy root and the /proc/self/cgroup file as
 * parameters: the tests point both at a temp tree. mkdir(2) there makes plain
 * directories without control files, so each test creates the control files a
 * step needs after cgroup_create() returns, and reads back what was written.
 * write_file() never creates or truncates (sysfs semantics): control files are
 * created empty. A pid is only ever written to a fake cgroup.procs for a child
 * made to be killed, and those files are removed before the child is reaped.
 * Where the order of writes matters (freeze, kill, thaw), the control files
 * are FIFOs instead and play_kill() answers for the kernel, step by step.
 */
#ifndef SANDEVAL_CGROUP_FIXTURE_H
#define SANDEVAL_CGROUP_FIXTURE_H

#include "fixture.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "sandbox/cgroup-internal.h"
#include "sandbox/cgroup.h"

#define NAME "sandeval-t"

struct fx {
	char *tmp;	/* everything lives here */
	char *root;	/* the fake /sys/fs/cgroup */
	char *proc;	/* the fake /proc/self/cgroup */
	struct cgroup *cg;
};

static const char *const v1_ctl[] = { "memory", "pids", "cpuacct", "freezer" };

__attribute__((unused)) static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->tmp = fx_tmpdir();
	f->root = fx_str("%s/root", f->tmp);
	f->proc = fx_str("%s/proc-self-cgroup", f->tmp);
	fx_mkdir_p(f->root);
	*state = f;
	return 0;
}

__attribute__((unused)) static int fx_teardown(void **state)
{
	struct fx *f = *state;

	cgroup_free(f->cg);
	fx_rm_rf(f->tmp);
	free(f->tmp);
	free(f->root);
	free(f->proc);
	free(f);
	return 0;
}

/* A v1 (legacy) layout: every controller mounted at root/<ctl>, and this
 * process in /sub in each. */
__attribute__((unused)) static int v1_setup(void **state)
{
	struct fx *f;

	fx_setup(state);
	f = *state;
	for (size_t i = 0; i < 4; i++) {
		char *d = fx_str("%s/%s/sub", f->root, v1_ctl[i]);

		fx_mkdir_p(d);
		free(d);
	}
	fx_write(f->proc,
		 "12:freezer:/sub\n"
		 "11:memory:/sub\n"
		 "10:pids:/sub\n"
		 "9:cpu,cpuacct:/sub\n"
		 "1:name=systemd:/sub\n"
		 "0::/sub\n");
	return 0;
}

/* A v2 (unified) layout: this process in /a/b, which may delegate cpu, memory
 * and pids. */
__attribute__((unused)) static int v2_setup(void **state)
{
	struct fx *f;
	char *parent;

	fx_setup(state);
	f = *state;
	fx_write_in(f->root, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
	parent = fx_str("%s/a/b", f->root);
	fx_mkdir_p(parent);
	fx_write_in(parent, "cgroup.controllers", "cpu memory pids\n");
	fx_write_in(parent, "cgroup.subtree_control", "");
	free(parent);
	fx_write(f->proc, "0::/a/b\n");
	return 0;
}

__attribute__((unused)) static char *v1_dir(const struct fx *f, const char *ctl)
{
	return fx_str("%s/%s/sub/" NAME, f->root, ctl);
}

__attribute__((unused)) static struct cgroup *create_ok(struct fx *f)
{
	struct sd_error err = { 0 };

	f->cg = cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, &err);
	if (!f->cg)
		fail_msg("cgroup_create failed: %s", err.msg);
	return f->cg;
}

/* A child that waits to be killed (and dies of SIGALRM if nobody does). */
__attribute__((unused)) static pid_t victim(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(10);
		for (;;)
			pause();
	}
	return pid;
}

__attribute__((unused)) static void assert_killed(pid_t pid)
{
	int ws;

	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL)
		fail_msg("child %d was not killed by SIGKILL (wait status 0x%x)", (int)pid, ws);
}

/* ---- the order of a kill: control files as FIFOs ----
 *
 * A plain fake file keeps only the last write: it says "THAWED" whether or
 * not anything was frozen first, and whether the thaw came before the kill or
 * after it. To see the order, the kill runs in a child (the killer) while
 * this process answers for the kernel: each control file the kill may touch
 * is a FIFO, whose open waits until the other end is opened too, and this
 * side opens only the file of the step it expects next. A step out of order,
 * a missing one or an extra one is left waiting and fails the test (after
 * FIFO_WAIT_S seconds; two writes with no step between them run together,
 * "FROZENTHAWED"). The victim must be alive at every step before the first
 * one marked `killed`, and that step waits for its death, which must be by
 * SIGKILL: if the kill has not come, the victim dies of its alarm (10 s).
 */
#define FIFO_WAIT_S 10

struct fifo_step {
	const char *dir, *file;
	char op;		/* 'w': the killer writes TEXT there; 'r': it reads and gets TEXT */
	const char *text;
	bool killed;		/* the victim died of SIGKILL before this step */
};

/* Replace DIR/FILE by an empty FIFO. */
__attribute__((unused)) static void fx_fifo_in(const char *dir, const char *file)
{
	char *p = fx_str("%s/%s", dir, file);

	if ((unlink(p) < 0 && errno != ENOENT) || mkfifo(p, 0600) < 0)
		fail_msg("cannot make the FIFO '%s': %s", p, strerror(errno));
	free(p);
}

__attribute__((unused)) static long fifo_ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* What one writer (the killer) writes to the FIFO PATH, malloc'd; NULL if no
 * writer came and went before DEADLINE. */
__attribute__((unused)) static char *fifo_take(const char *path, const struct timespec *deadline)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char buf[256];
	size_t used = 0;
	bool came = false;

	if (fd < 0)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long ms = fifo_ms_left(deadline);
		ssize_t n;

		if (ms <= 0) {
			close(fd);
			return NULL;
		}
		if (poll(&p, 1, (int)ms) <= 0)
			continue;
		/* POLLHUP only once a writer has come and gone: a fresh FIFO without
		 * a writer reads as EOF too, so read only after poll said so */
		came |= (p.revents & POLLHUP) != 0;
		n = read(fd, buf + used, sizeof(buf) - 1 - used);
		if (n > 0) {
			used += (size_t)n;
			came = true;
		} else if (n == 0 && came) {
			break;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			fail_msg("cannot read '%s': %s", path, strerror(errno));
		}
		if (used == sizeof(buf) - 1)
			break;
	}
	close(fd);
	buf[used] = '\0';
	return fx_str("%s", buf);
}

/* Give TEXT to one reader (the killer) of the FIFO PATH; false if none came
 * before DEADLINE. */
__attribute__((unused)) static bool fifo_give(const char *path, const char *text, const struct timespec *deadline)
{
	int fd;

	/* without a reader waiting, a non-blocking open for writing fails (ENXIO) */
	while ((fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		struct timespec ms = { 0, 1000000 };

		if (errno != ENXIO)
			fail_msg("cannot open '%s': %s", path, strerror(errno));
		if (fifo_ms_left(deadline) <= 0)
			return false;
		nanosleep(&ms, NULL);
	}
	/* EPIPE (SIGPIPE is ignored) only if the reader went before reading a byte */
	if (write(fd, text, strlen(text)) < 0 && errno != EPIPE)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	close(fd);
	return true;
}

__attribute__((unused)) static bool fifo_victim_gone(pid_t pid)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Run KILL(ARG) in a child while playing STEPS (N of them) on the control
 * FIFOs; then VICTIM must have died of SIGKILL and KILL must have returned 0
 * (WANT_FAIL false) or a negative value (WANT_FAIL true). */
__attribute__((unused)) static void play_kill(int (*kill_fn)(void *), void *arg, bool want_fail, pid_t victim_pid,
					      const struct fifo_step *steps, size_t n)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct timespec deadline;
	bool reaped = false;
	char why[512] = "";
	pid_t killer;
	int ws;

	sigaction(SIGPIPE, &ign, &old);
	killer = fork();
	assert_true(killer >= 0);
	if (killer == 0) {
		alarm(3 * FIFO_WAIT_S);	/* stuck in an open nobody answers */
		_exit(kill_fn(arg) < 0 ? 1 : 0);
	}
	for (size_t i = 0; i < n && !*why; i++) {
		const struct fifo_step *s = &steps[i];
		char *path = fx_str("%s/%s", s->dir, s->file);
		char step[300];

		snprintf(step, sizeof(step), "step %zu (%s '%.*s' %s '%s')", i + 1, s->op == 'w' ? "write" : "read",
			 (int)strcspn(s->text, "\n"), s->text, s->op == 'w' ? "to" : "from", path);
		if (s->killed && !reaped) {
			assert_int_equal(waitpid(victim_pid, &ws, 0), victim_pid);
			reaped = true;
			if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL)
				snprintf(why, sizeof(why), "%s: the victim was not killed before it (wait status 0x%x)",
					 step, ws);
		} else if (!reaped && fifo_victim_gone(victim_pid)) {
			snprintf(why, sizeof(why), "%s: the victim is dead already", step);
		}
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += FIFO_WAIT_S;
		if (!*why && s->op == 'w') {
			char *got = fifo_take(path, &deadline);

			if (!got)
				snprintf(why, sizeof(why), "%s: nothing written within %d s", step, FIFO_WAIT_S);
			else if (strcmp(got, s->text) != 0)
				snprintf(why, sizeof(why), "%s: '%s' written instead", step, got);
			free(got);
		} else if (!*why && !fifo_give(path, s->text, &deadline)) {
			snprintf(why, sizeof(why), "%s: nothing read within %d s", step, FIFO_WAIT_S);
		}
		free(path);
	}
	sigaction(SIGPIPE, &old, NULL);
	if (*why) {
		kill(killer, SIGKILL);
		waitpid(killer, NULL, 0);
		if (!reaped) {
			kill(victim_pid, SIGKILL);
			waitpid(victim_pid, NULL, 0);
		}
		fail_msg("%s", why);
	}
	assert_int_equal(waitpid(killer, &ws, 0), killer);
	if (!reaped)
		assert_killed(victim_pid);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != (want_fail ? 1 : 0))
		fail_msg("the killer ended with wait status 0x%x, expected the kill to %s", ws,
			 want_fail ? "fail" : "succeed");
}

/* ---- cgroup_own_path: parsing /proc/self/cgroup ---- */


__attribute__((unused)) static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

__attribute__((unused)) static void remove_procs_files(struct cgroup *cg)
{
	for (const char *const *d = cgroup_dirs(cg); *d; d++) {
		char *p = fx_str("%s/cgroup.procs", *d);

		unlink(p);
		free(p);
	}
}

/* cgroup_open_procs(): one writable FILE per directory, in cgroup_dirs() order. */
__attribute__((unused)) static void check_open_procs(struct cgroup *cg, const char *file, int want_n)
{
	struct sd_error err = { 0 };
	const char *const *dirs = cgroup_dirs(cg);
	int fds[8], n, before;

	for (const char *const *d = dirs; *d; d++)
		fx_write_in(*d, file, "");
	n = cgroup_open_procs(cg, fds, 8, &err);
	if (n < 0)
		fail_msg("cgroup_open_procs: %s", err.msg);
	assert_int_equal(n, want_n);
	for (int i = 0; i < n; i++) {
		char text[8];

		snprintf(text, sizeof(text), "%d", i);
		assert_int_equal(write(fds[i], text, strlen(text)), (ssize_t)strlen(text));
		assert_true(fcntl(fds[i], F_GETFD) & FD_CLOEXEC);
		close(fds[i]);
		assert_file_equal(dirs[i], file, text);
	}

	/* at most MAX */
	assert_int_equal(cgroup_open_procs(cg, fds, 1, &err), 1);
	close(fds[0]);

	/* one missing: an error naming it, and nothing left open */
	fx_unlink_in(dirs[n - 1], file);
	before = count_fds();
	assert_int_equal(cgroup_open_procs(cg, fds, 8, &err), -1);
	assert_int_equal(count_fds(), before);
	{
		char *want = fx_str("cannot open '%s/%s': No such file or directory", dirs[n - 1], file);

		assert_string_equal(err.msg, want);
		free(want);
	}
}

#define V1(t) cmocka_unit_test_setup_teardown(t, v1_setup, fx_teardown)
#define V2(t) cmocka_unit_test_setup_teardown(t, v2_setup, fx_teardown)
#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

#endif
