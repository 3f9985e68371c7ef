/* cgroup-fixture.h - fake cgroup v1 and v2 trees shared by the cgroup unit tests
 *
 * cgroup_create() takes the hierarchy root and the /proc/self/cgroup file as
 * parameters: the tests point both at a temp tree. mkdir(2) there makes plain
 * directories without control files, so each test creates the control files a
 * step needs after cgroup_create() returns, and reads back what was written.
 * write_file() never creates or truncates (sysfs semantics): control files are
 * created empty. A pid is only ever written to a fake cgroup.procs for a child
 * made to be killed, and those files are removed before the child is reaped.
 */
#ifndef SANDEVAL_CGROUP_FIXTURE_H
#define SANDEVAL_CGROUP_FIXTURE_H

#include "fixture.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

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

	f->cg = cgroup_create(f->root, f->proc, NAME, &err);
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
