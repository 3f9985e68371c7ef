/* test-cgroup.c - unit tests of cgroup*.c against fake v1 and v2 hierarchies in a temp directory
 *
 * cgroup_create() takes the hierarchy root and the /proc/self/cgroup file as
 * parameters: the tests point both at a temp tree. mkdir(2) there makes plain
 * directories without control files, so each test creates the control files a
 * step needs after cgroup_create() returns, and reads back what was written.
 * write_file() never creates or truncates (sysfs semantics): control files are
 * created empty. A pid is only ever written to a fake cgroup.procs for a child
 * made to be killed, and those files are removed before the child is reaped.
 */
#include "fixture.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "cgroup-internal.h"
#include "cgroup.h"

#define NAME "sandeval-t"

struct fx {
	char *tmp;	/* everything lives here */
	char *root;	/* the fake /sys/fs/cgroup */
	char *proc;	/* the fake /proc/self/cgroup */
	struct cgroup *cg;
};

static const char *const v1_ctl[] = { "memory", "pids", "cpuacct", "freezer" };

static int fx_setup(void **state)
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

static int fx_teardown(void **state)
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
static int v1_setup(void **state)
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
static int v2_setup(void **state)
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

static char *v1_dir(const struct fx *f, const char *ctl)
{
	return fx_str("%s/%s/sub/" NAME, f->root, ctl);
}

static struct cgroup *create_ok(struct fx *f)
{
	struct sd_error err = { 0 };

	f->cg = cgroup_create(f->root, f->proc, NAME, &err);
	if (!f->cg)
		fail_msg("cgroup_create failed: %s", err.msg);
	return f->cg;
}

/* A child that waits to be killed (and dies of SIGALRM if nobody does). */
static pid_t victim(void)
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

static void assert_killed(pid_t pid)
{
	int ws;

	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL)
		fail_msg("child %d was not killed by SIGKILL (wait status 0x%x)", (int)pid, ws);
}

/* ---- cgroup_own_path: parsing /proc/self/cgroup ---- */

static void test_own_path(void **state)
{
	struct fx *f = *state;
	static const struct { const char *ctl, *want; } cases[] = {
		{ "cpu", "/x" },
		{ "cpuacct", "/x" },
		{ "memory", "/m:with:colons" },
		{ "pids", "/" },
		{ "name=systemd", "/user.slice" },
		{ "", "/unified/path" },
		{ "cpuset", NULL },	/* no line names it */
		{ "cpuac", NULL },	/* a prefix is not a match */
		{ "freezer", NULL },	/* only on a malformed line */
		{ "blkio", "/first" },	/* the first matching line wins */
	};

	fx_write(f->proc,
		 "garbage without colons\n"
		 "7:freezer\n"
		 "\n"
		 "4:cpu,cpuacct:/x\n"
		 "3:memory:/m:with:colons\n"
		 "2:blkio:/first\n"
		 "2:blkio:/second\n"
		 "1:name=systemd:/user.slice\n"
		 "5:pids:/\n"
		 "0::/unified/path");	/* no final newline */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = cgroup_own_path(f->proc, cases[i].ctl);

		if (!cases[i].want && got)
			fail_msg("controller '%s': got '%s', want none", cases[i].ctl, got);
		if (cases[i].want && (!got || strcmp(got, cases[i].want) != 0))
			fail_msg("controller '%s': got '%s', want '%s'", cases[i].ctl, got ? got : "(null)", cases[i].want);
		free(got);
	}
}

static void test_own_path_v1_only_and_missing(void **state)
{
	struct fx *f = *state;
	char *missing = fx_str("%s/absent", f->tmp);

	fx_write(f->proc, "4:memory:/m\n");
	assert_null(cgroup_own_path(f->proc, ""));	/* no v2 line */
	fx_write(f->proc, "0::/only-v2\n");
	assert_null(cgroup_own_path(f->proc, "memory"));
	assert_null(cgroup_own_path(missing, "memory"));
	assert_null(cgroup_own_path(missing, ""));
	fx_write(f->proc, "");
	assert_null(cgroup_own_path(f->proc, ""));
	free(missing);
}

/* ---- cgroup_read_key, cgroup_read_u64, cgroup_note_add ---- */

static void test_read_key(void **state)
{
	struct fx *f = *state;
	uint64_t v = 0;

	fx_write_in(f->tmp, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	assert_int_equal(cgroup_read_key(f->tmp, "memory.oom_control", "oom_kill", &v), 0);
	assert_int_equal(v, 3);	/* not oom_kill_disable */
	assert_int_equal(cgroup_read_key(f->tmp, "memory.oom_control", "under_oom", &v), 0);
	assert_int_equal(v, 0);

	fx_write_in(f->tmp, "cpu.stat", "usage_usec 123456\nuser_usec 100000\nsystem_usec 23456");
	assert_int_equal(cgroup_read_key(f->tmp, "cpu.stat", "usage_usec", &v), 0);
	assert_int_equal(v, 123456);
	assert_int_equal(cgroup_read_key(f->tmp, "cpu.stat", "system_usec", &v), 0);	/* last line, no newline */
	assert_int_equal(v, 23456);
	v = 42;
	assert_int_equal(cgroup_read_key(f->tmp, "cpu.stat", "usage", &v), -1);	/* prefix of a key */
	assert_int_equal(cgroup_read_key(f->tmp, "cpu.stat", "sec", &v), -1);	/* suffix of a key */
	assert_int_equal(cgroup_read_key(f->tmp, "cpu.stat", "nr_throttled", &v), -1);
	assert_int_equal(cgroup_read_key(f->tmp, "absent", "usage_usec", &v), -1);
	assert_int_equal(v, 42);

	fx_write_in(f->tmp, "memory.events", "low 0\nhigh 0\nmax 17\noom 2\noom_kill 1\n");
	assert_int_equal(cgroup_read_key(f->tmp, "memory.events", "oom", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(cgroup_read_key(f->tmp, "memory.events", "oom_kill", &v), 0);
	assert_int_equal(v, 1);
}

static void test_read_u64(void **state)
{
	struct fx *f = *state;
	uint64_t v = 0;

	fx_write_in(f->tmp, "pids.max", "max\n");
	assert_int_equal(cgroup_read_u64(f->tmp, "pids.max", &v), 0);
	assert_true(v == UINT64_MAX);
	fx_write_in(f->tmp, "cpuacct.usage", "987654321\n");
	assert_int_equal(cgroup_read_u64(f->tmp, "cpuacct.usage", &v), 0);
	assert_int_equal(v, 987654321);
	assert_int_equal(cgroup_read_u64(f->tmp, "absent", &v), -1);
}

static void test_note_add(void **state)
{
	struct cgroup *cg = calloc(1, sizeof(*cg));

	(void)state;
	assert_non_null(cg);
	cgroup_note_add(cg, "no %s controller", "pids");
	assert_string_equal(cg->note, "no pids controller");
	cgroup_note_add(cg, "no %s controller", "freezer");
	assert_string_equal(cg->note, "no pids controller; no freezer controller");
	/* many notes: truncated, always terminated */
	for (int i = 0; i < 100; i++)
		cgroup_note_add(cg, "note number %d", i);
	assert_true(strlen(cg->note) < sizeof(cg->note));
	assert_true(strncmp(cg->note, "no pids controller; ", 20) == 0);
	free(cg);
}

/* ---- v1 ---- */

static void test_v1_create(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *const *dirs;

	assert_string_equal(cgroup_mechanism(cg), "cgroup-v1");
	assert_string_equal(cgroup_note(cg), "");
	assert_true(cgroup_has(cg, CG_MEMORY));
	assert_true(cgroup_has(cg, CG_PIDS));
	assert_true(cgroup_has(cg, CG_CPU));
	assert_true(cgroup_has(cg, CG_FREEZER));
	dirs = cgroup_dirs(cg);
	for (size_t i = 0; i < 4; i++) {
		char *want = v1_dir(f, v1_ctl[i]);

		assert_non_null(dirs[i]);
		assert_string_equal(dirs[i], want);
		assert_true(fx_is_dir(want));
		free(want);
	}
	assert_null(dirs[4]);
}

/* Own cgroup "/" puts the run directly beneath the controller's mount. */
static void test_v1_create_at_root(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg;
	char *want = fx_str("%s/memory/" NAME, f->root);

	fx_write(f->proc, "11:memory:/\n10:pids:/\n9:cpu,cpuacct:/\n12:freezer:/\n");
	cg = create_ok(f);
	assert_string_equal(cgroup_dirs(cg)[0], want);
	assert_true(fx_is_dir(want));
	free(want);
}

static void test_v1_missing_controller(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg;
	const char *const *dirs;

	fx_write(f->proc, "11:memory:/sub\n9:cpu,cpuacct:/sub\n12:freezer:/sub\n0::/sub\n");
	cg = create_ok(f);
	assert_string_equal(cgroup_note(cg), "no pids controller");
	assert_false(cgroup_has(cg, CG_PIDS));
	assert_true(cgroup_has(cg, CG_MEMORY));
	dirs = cgroup_dirs(cg);
	assert_non_null(dirs[2]);
	assert_null(dirs[3]);
	for (size_t i = 0; dirs[i]; i++)
		assert_not_contains(dirs[i], "/pids/");
}

/* A controller whose directory cannot be made is noted and left out. */
static void test_v1_mkdir_fails(void **state)
{
	struct fx *f = *state;
	char *mem = v1_dir(f, "memory"), *want;
	struct cgroup *cg;

	fx_mkdir_p(mem);	/* EEXIST */
	cg = create_ok(f);
	want = fx_str("cannot create '%s': File exists", mem);
	assert_string_equal(cgroup_note(cg), want);
	assert_false(cgroup_has(cg, CG_MEMORY));
	assert_true(cgroup_has(cg, CG_PIDS));
	free(want);
	free(mem);
}

/* Several failures: the first is quoted, the others counted. */
static void test_v1_mkdir_fails_many(void **state)
{
	struct fx *f = *state;
	char *mem = v1_dir(f, "memory"), *pids = v1_dir(f, "pids"), *fz = v1_dir(f, "freezer"), *want;
	struct cgroup *cg;

	fx_mkdir_p(mem);
	fx_mkdir_p(pids);
	fx_mkdir_p(fz);
	cg = create_ok(f);
	want = fx_str("cannot create '%s': File exists; and 2 more controller(s)", mem);
	assert_string_equal(cgroup_note(cg), want);
	assert_true(cgroup_has(cg, CG_CPU));
	assert_false(cgroup_has(cg, CG_PIDS));
	assert_false(cgroup_has(cg, CG_FREEZER));
	assert_non_null(cgroup_dirs(cg)[0]);
	assert_null(cgroup_dirs(cg)[1]);
	free(want);
	free(mem);
	free(pids);
	free(fz);
}

static void test_v1_no_controller(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct cgroup *cg;

	fx_write(f->proc, "0::/\n1:name=systemd:/\n");
	cg = cgroup_create(f->root, f->proc, NAME, &err);
	assert_null(cg);
	assert_int_equal(err.code, EPERM);
	assert_string_equal(err.msg, "no usable cgroup v1 controller (no memory controller; no pids controller; "
				     "no cpuacct controller; no freezer controller)");

	/* all mounts missing: mkdir fails everywhere, nothing is left behind */
	fx_write(f->proc, "11:memory:/nope\n10:pids:/nope\n");
	memset(&err, 0, sizeof(err));
	assert_null(cgroup_create(f->root, f->proc, NAME, &err));
	{
		char *want = fx_str("no usable cgroup v1 controller (cannot create '%s/memory/nope/" NAME "': "
				    "No such file or directory; no cpuacct controller; no freezer controller; "
				    "and 1 more controller(s))", f->root);

		assert_string_equal(err.msg, want);
		free(want);
	}

	/* the proc file itself missing */
	fx_rm_rf(f->proc);
	assert_null(cgroup_create(f->root, f->proc, NAME, NULL));
}

static void test_v1_set_memory_memsw(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *mem = v1_dir(f, "memory");
	struct sd_error err = { 0 };

	fx_write_in(mem, "memory.limit_in_bytes", "");
	fx_write_in(mem, "memory.memsw.limit_in_bytes", "");
	fx_write_in(mem, "memory.swappiness", "");
	assert_int_equal(cgroup_set_memory(cg, 512ULL << 20, &err), 0);
	assert_file_equal(mem, "memory.limit_in_bytes", "536870912");
	assert_file_equal(mem, "memory.memsw.limit_in_bytes", "536870912");
	assert_file_equal(mem, "memory.swappiness", "");	/* memsw does the job */
	free(mem);
}

/* Without swap accounting (no memsw file), swapping is turned off instead. */
static void test_v1_set_memory_no_memsw(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *mem = v1_dir(f, "memory");
	struct sd_error err = { 0 };

	fx_write_in(mem, "memory.limit_in_bytes", "");
	fx_write_in(mem, "memory.swappiness", "");
	assert_int_equal(cgroup_set_memory(cg, 1048576, &err), 0);
	assert_file_equal(mem, "memory.limit_in_bytes", "1048576");
	assert_file_equal(mem, "memory.swappiness", "0");
	assert_false(fx_exists_in(mem, "memory.memsw.limit_in_bytes"));
	free(mem);
}

static void test_v1_set_memory_errors(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *mem = v1_dir(f, "memory"), *want;
	struct sd_error err = { 0 };

	assert_int_equal(cgroup_set_memory(cg, 1048576, &err), -1);
	want = fx_str("cannot open '%s/memory.limit_in_bytes': No such file or directory", mem);
	assert_string_equal(err.msg, want);
	free(want);

	/* limit written, but neither memsw nor swappiness exists */
	fx_write_in(mem, "memory.limit_in_bytes", "");
	assert_int_equal(cgroup_set_memory(cg, 1048576, &err), -1);
	assert_contains(err.msg, "memory.swappiness");
	free(mem);
}

static void test_v1_set_pids(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *pids = v1_dir(f, "pids");
	struct sd_error err = { 0 };

	fx_write_in(pids, "pids.max", "");
	assert_int_equal(cgroup_set_pids(cg, 65, &err), 0);
	assert_file_equal(pids, "pids.max", "65");
	free(pids);
}

static void test_v1_stats(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *mem = v1_dir(f, "memory"), *cpu = v1_dir(f, "cpuacct");
	struct cgroup_stats st;

	/* nothing to read yet */
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_false(st.has_cpu);
	assert_false(st.has_peak);
	assert_false(st.has_oom);

	fx_write_in(cpu, "cpuacct.usage", "123456789\n");
	fx_write_in(mem, "memory.max_usage_in_bytes", "1000\n");
	fx_write_in(mem, "memory.memsw.max_usage_in_bytes", "2000\n");
	fx_write_in(mem, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_true(st.has_cpu);
	assert_int_equal(st.cpu_ns, 123456789);
	assert_true(st.has_peak);
	assert_int_equal(st.peak_bytes, 2000);	/* the larger of memory and memory+swap */
	assert_true(st.has_oom);
	assert_int_equal(st.oom_kills, 3);

	fx_write_in(mem, "memory.memsw.max_usage_in_bytes", "500\n");
	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_int_equal(st.peak_bytes, 1000);
	free(mem);
	free(cpu);
}

/* Create an empty cgroup.procs in each of the cgroup's directories. */
static void make_procs_files(struct cgroup *cg)
{
	for (const char *const *d = cgroup_dirs(cg); *d; d++)
		fx_write_in(*d, "cgroup.procs", "");
}

static void remove_procs_files(struct cgroup *cg)
{
	for (const char *const *d = cgroup_dirs(cg); *d; d++) {
		char *p = fx_str("%s/cgroup.procs", *d);

		unlink(p);
		free(p);
	}
}

/* enter writes the pid to every controller; kill freezes, kills, thaws. */
static void test_v1_enter_and_kill(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *fz = v1_dir(f, "freezer"), *text;
	struct sd_error err = { 0 };
	pid_t pid;
	char want[32];

	make_procs_files(cg);
	fx_write_in(fz, "freezer.state", "");
	pid = victim();
	snprintf(want, sizeof(want), "%d", (int)pid);
	if (cgroup_enter(cg, pid, &err) < 0) {
		kill(pid, SIGKILL);
		fail_msg("cgroup_enter: %s", err.msg);
	}
	for (const char *const *d = cgroup_dirs(cg); *d; d++) {
		text = fx_read_in(*d, "cgroup.procs");
		assert_non_null(text);
		if (strcmp(text, want) != 0) {
			kill(pid, SIGKILL);
			fail_msg("'%s/cgroup.procs' holds '%s', want '%s'", *d, text, want);
		}
		free(text);
	}
	assert_int_equal(cgroup_kill(cg, &err), 0);
	remove_procs_files(cg);
	assert_killed(pid);
	assert_file_equal(fz, "freezer.state", "THAWED");
	free(fz);
}

/* Without a freezer the processes listed are killed directly. */
static void test_v1_kill_without_freezer(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg;
	struct sd_error err = { 0 };
	pid_t pid;

	fx_write(f->proc, "11:memory:/sub\n10:pids:/sub\n");
	cg = create_ok(f);
	assert_false(cgroup_has(cg, CG_FREEZER));
	make_procs_files(cg);
	pid = victim();
	if (cgroup_enter(cg, pid, &err) < 0) {
		kill(pid, SIGKILL);
		fail_msg("cgroup_enter: %s", err.msg);
	}
	assert_int_equal(cgroup_kill(cg, &err), 0);
	remove_procs_files(cg);
	assert_killed(pid);
}

static int count_fds(void)
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

/* cgroup_open_procs(): one writable FILE per directory, in cgroup_dirs() order. */
static void check_open_procs(struct cgroup *cg, const char *file, int want_n)
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

/* v1: a task moves itself in through "tasks" (no threadgroup lock). */
static void test_v1_open_procs(void **state)
{
	struct fx *f = *state;

	check_open_procs(create_ok(f), "tasks", 4);
}

/* Nothing listed in cgroup.procs: kill has nothing to do and writes nothing. */
static void test_v1_kill_empty(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *fz = v1_dir(f, "freezer");
	struct sd_error err = { 0 };

	make_procs_files(cg);
	fx_write_in(fz, "freezer.state", "");
	assert_true(cgroup_dir_empty(cgroup_dirs(cg)[0]));
	assert_int_equal(cgroup_kill(cg, &err), 0);
	assert_file_equal(fz, "freezer.state", "");
	fx_write_in(cgroup_dirs(cg)[0], "cgroup.procs", "1\n");
	assert_false(cgroup_dir_empty(cgroup_dirs(cg)[0]));
	fx_unlink_in(cgroup_dirs(cg)[0], "cgroup.procs");
	assert_true(cgroup_dir_empty(cgroup_dirs(cg)[0]));	/* unreadable counts as empty */
	free(fz);
}

static void test_v1_enter_error(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	struct sd_error err = { 0 };

	/* no cgroup.procs in the fake dirs */
	assert_int_equal(cgroup_enter(cg, 1, &err), -1);
	assert_contains(err.msg, "cannot open '");
	assert_contains(err.msg, "/cgroup.procs': No such file or directory");
}

static void test_v1_destroy(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	struct sd_error err = { 0 };

	assert_int_equal(cgroup_destroy(cg, &err), 0);
	for (size_t i = 0; i < 4; i++) {
		char *d = v1_dir(f, v1_ctl[i]);

		if (fx_exists(d))
			fail_msg("'%s' still exists", d);
		free(d);
	}
	/* twice is harmless (ENOENT) */
	assert_int_equal(cgroup_destroy(cg, &err), 0);
	assert_int_equal(cgroup_destroy(NULL, &err), 0);
}

/* A directory that cannot be removed is reported; the others still go. */
static void test_v1_destroy_not_empty(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *mem = v1_dir(f, "memory"), *pids = v1_dir(f, "pids"), *want;
	struct sd_error err = { 0 };

	fx_write_in(mem, "leftover", "");
	assert_int_equal(cgroup_destroy(cg, &err), -1);
	want = fx_str("cannot remove cgroup '%s': Directory not empty", mem);
	assert_string_equal(err.msg, want);
	assert_true(fx_is_dir(mem));
	assert_false(fx_exists(pids));
	free(want);
	free(mem);
	free(pids);
}

static void test_v1_parent_dirs(void **state)
{
	struct fx *f = *state;
	char **list = cgroup_parent_dirs(f->root, f->proc);

	assert_non_null(list);
	for (size_t i = 0; i < 4; i++) {
		char *want = fx_str("%s/%s/sub", f->root, v1_ctl[i]);

		assert_non_null(list[i]);
		assert_string_equal(list[i], want);
		free(want);
	}
	assert_null(list[4]);
	cgroup_free_list(list);

	fx_write(f->proc, "10:pids:/\n");
	list = cgroup_parent_dirs(f->root, f->proc);
	assert_non_null(list);
	{
		char *want = fx_str("%s/pids", f->root);

		assert_string_equal(list[0], want);
		free(want);
	}
	assert_null(list[1]);
	cgroup_free_list(list);
	cgroup_free_list(NULL);
}

/* ---- v2 ---- */

static void test_v2_create(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *parent = fx_str("%s/a/b", f->root), *dir = fx_str("%s/a/b/" NAME, f->root);
	const char *const *dirs = cgroup_dirs(cg);

	assert_string_equal(cgroup_mechanism(cg), "cgroup-v2");
	assert_string_equal(cgroup_note(cg), "");
	assert_file_equal(parent, "cgroup.subtree_control", "+memory +pids");
	assert_non_null(dirs[0]);
	assert_string_equal(dirs[0], dir);
	assert_null(dirs[1]);	/* one directory for every controller */
	assert_true(fx_is_dir(dir));
	assert_true(cgroup_has(cg, CG_CPU));
	assert_true(cgroup_has(cg, CG_FREEZER));
	/* enabled, but the fake directory has no memory.max / pids.max: not usable */
	assert_false(cgroup_has(cg, CG_MEMORY));
	assert_false(cgroup_has(cg, CG_PIDS));
	free(parent);
	free(dir);
}

/* cgroup.controllers at the root decides v2 even if the proc file has v1 lines. */
static void test_v2_detect_hybrid_proc(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg;

	fx_write(f->proc, "11:memory:/elsewhere\n0::/a/b\n");
	cg = create_ok(f);
	assert_string_equal(cgroup_mechanism(cg), "cgroup-v2");
}

static void test_v2_controllers_not_delegated(void **state)
{
	struct fx *f = *state;
	char *parent = fx_str("%s/a/b", f->root), *want;
	struct cgroup *cg;

	/* "memoryx" and "xpids" are not "memory" and "pids" */
	fx_write_in(parent, "cgroup.controllers", "cpu io memoryx xpids\n");
	cg = create_ok(f);
	want = fx_str("memory controller not delegated to '%s'; pids controller not delegated to '%s'", parent, parent);
	assert_string_equal(cgroup_note(cg), want);
	assert_file_equal(parent, "cgroup.subtree_control", "");
	assert_false(cgroup_has(cg, CG_MEMORY));
	assert_true(cgroup_has(cg, CG_CPU));
	free(want);
	free(parent);
}

static void test_v2_only_pids(void **state)
{
	struct fx *f = *state;
	char *parent = fx_str("%s/a/b", f->root), *want;
	struct cgroup *cg;

	fx_write_in(parent, "cgroup.controllers", "pids");
	cg = create_ok(f);
	assert_file_equal(parent, "cgroup.subtree_control", "+pids");
	want = fx_str("memory controller not delegated to '%s'", parent);
	assert_string_equal(cgroup_note(cg), want);
	free(want);
	free(parent);
}

static void test_v2_subtree_control_fails(void **state)
{
	struct fx *f = *state;
	char *parent = fx_str("%s/a/b", f->root), *ctl = fx_str("%s/cgroup.subtree_control", parent), *want;
	struct cgroup *cg;

	unlink(ctl);
	cg = create_ok(f);
	want = fx_str("cannot enable '+memory +pids' in '%s': No such file or directory", parent);
	assert_string_equal(cgroup_note(cg), want);
	assert_false(cgroup_has(cg, CG_MEMORY));
	assert_false(cgroup_has(cg, CG_PIDS));
	free(want);
	free(ctl);
	free(parent);
}

/* Once moved into the supervisor leaf, runs still go beside it. */
static void test_v2_supervisor_leaf(void **state)
{
	struct fx *f = *state;
	char *dir = fx_str("%s/a/b/" NAME, f->root), *parent = fx_str("%s/a/b", f->root);
	struct cgroup *cg;
	char **list;

	fx_write(f->proc, "0::/a/b/sandeval-supervisor\n");
	cg = create_ok(f);
	assert_string_equal(cgroup_dirs(cg)[0], dir);
	list = cgroup_parent_dirs(f->root, f->proc);
	assert_non_null(list);
	assert_string_equal(list[0], parent);
	assert_null(list[1]);
	cgroup_free_list(list);
	free(dir);
	free(parent);
}

static void test_v2_at_root(void **state)
{
	struct fx *f = *state;
	char *dir = fx_str("%s/" NAME, f->root);
	struct cgroup *cg;

	fx_write_in(f->root, "cgroup.subtree_control", "");
	fx_write(f->proc, "0::/\n");
	cg = create_ok(f);
	assert_string_equal(cgroup_dirs(cg)[0], dir);
	assert_file_equal(f->root, "cgroup.subtree_control", "+memory +pids");
	free(dir);
}

static void test_v2_create_errors(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	char *want, *dir = fx_str("%s/a/b/" NAME, f->root);

	fx_write(f->proc, "4:memory:/a/b\n");
	assert_null(cgroup_create(f->root, f->proc, NAME, &err));
	assert_int_equal(err.code, ENOENT);
	want = fx_str("no cgroup v2 entry in '%s'", f->proc);
	assert_string_equal(err.msg, want);
	free(want);

	fx_write(f->proc, "0::/nope\n");
	assert_null(cgroup_create(f->root, f->proc, NAME, &err));
	want = fx_str("cannot open '%s/nope/cgroup.controllers': No such file or directory", f->root);
	assert_string_equal(err.msg, want);
	free(want);

	fx_write(f->proc, "0::/a/b\n");
	fx_mkdir_p(dir);
	assert_null(cgroup_create(f->root, f->proc, NAME, &err));
	assert_int_equal(err.code, EEXIST);
	want = fx_str("cannot create cgroup in '%s/a/b': File exists", f->root);
	assert_string_equal(err.msg, want);
	free(want);
	assert_true(fx_is_dir(dir));	/* somebody else's: not removed */
	free(dir);
}

static void test_v2_set_memory(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };

	fx_write_in(dir, "memory.max", "");
	fx_write_in(dir, "memory.swap.max", "");
	fx_write_in(dir, "memory.oom.group", "");
	assert_int_equal(cgroup_set_memory(cg, 512ULL << 20, &err), 0);
	assert_file_equal(dir, "memory.max", "536870912");
	assert_file_equal(dir, "memory.swap.max", "0");
	assert_file_equal(dir, "memory.oom.group", "1");
}

/* No swap controller, no oom.group (old kernels): memory.max alone. */
static void test_v2_set_memory_minimal(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };
	char *want;

	assert_int_equal(cgroup_set_memory(cg, 4096, &err), -1);
	want = fx_str("cannot open '%s/memory.max': No such file or directory", dir);
	assert_string_equal(err.msg, want);
	free(want);

	fx_write_in(dir, "memory.max", "");
	assert_int_equal(cgroup_set_memory(cg, 4096, &err), 0);
	assert_file_equal(dir, "memory.max", "4096");
	assert_false(fx_exists_in(dir, "memory.swap.max"));
	assert_false(fx_exists_in(dir, "memory.oom.group"));
}

static void test_v2_set_pids(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };

	fx_write_in(dir, "pids.max", "");
	assert_int_equal(cgroup_set_pids(cg, 65, &err), 0);
	assert_file_equal(dir, "pids.max", "65");
}

static void test_v2_stats(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct cgroup_stats st;

	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_false(st.has_cpu);
	assert_false(st.has_peak);
	assert_false(st.has_oom);

	fx_write_in(dir, "cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
	fx_write_in(dir, "memory.peak", "4194304\n");
	fx_write_in(dir, "memory.events", "low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\noom_group_kill 0\n");
	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_true(st.has_cpu);
	assert_int_equal(st.cpu_ns, 1500000);
	/* memory figures are only read where the memory controller is usable */
	assert_false(st.has_peak);
	assert_false(st.has_oom);

	cg->has[CG_MEMORY] = true;	/* as if memory.max had existed at creation */
	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_true(st.has_peak);
	assert_int_equal(st.peak_bytes, 4194304);
	assert_true(st.has_oom);
	assert_int_equal(st.oom_kills, 1);
}

static void test_v2_enter_and_cgroup_kill(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };
	pid_t pid;
	char want[32];
	int ret;

	fx_write_in(dir, "cgroup.procs", "");
	fx_write_in(dir, "cgroup.kill", "");
	pid = victim();
	snprintf(want, sizeof(want), "%d", (int)pid);
	ret = cgroup_enter(cg, pid, &err);
	if (ret == 0) {
		char *text = fx_read_in(dir, "cgroup.procs");

		ret = text && strcmp(text, want) == 0 ? 0 : -1;
		free(text);
	}
	if (ret == 0)
		ret = cgroup_kill(cg, &err);
	fx_unlink_in(dir, "cgroup.procs");
	/* the kernel kills on "1" to cgroup.kill; the fake file only records it */
	kill(pid, SIGKILL);
	assert_killed(pid);
	assert_int_equal(ret, 0);
	assert_file_equal(dir, "cgroup.kill", "1");
}

/* Before cgroup.kill (Linux < 5.14): freeze, kill the listed pids, thaw. */
static void test_v2_kill_by_freezing(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };
	pid_t pid;

	fx_write_in(dir, "cgroup.procs", "");
	fx_write_in(dir, "cgroup.freeze", "");
	pid = victim();
	if (cgroup_enter(cg, pid, &err) < 0) {
		kill(pid, SIGKILL);
		fail_msg("cgroup_enter: %s", err.msg);
	}
	assert_int_equal(cgroup_kill(cg, &err), 0);
	remove_procs_files(cg);
	assert_killed(pid);
	assert_file_equal(dir, "cgroup.freeze", "0");
}

static void test_v2_open_procs(void **state)
{
	struct fx *f = *state;

	check_open_procs(create_ok(f), "cgroup.procs", 1);
}

static void test_v2_kill_empty(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };

	fx_write_in(dir, "cgroup.procs", "");
	fx_write_in(dir, "cgroup.kill", "");
	assert_int_equal(cgroup_kill(cg, &err), 0);
	assert_file_equal(dir, "cgroup.kill", "");
}

static void test_v2_destroy(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *dir = strdup(cgroup_dirs(cg)[0]), *want;
	struct sd_error err = { 0 };

	fx_write_in(dir, "memory.max", "");
	assert_int_equal(cgroup_destroy(cg, &err), -1);
	want = fx_str("cannot remove cgroup '%s': Directory not empty", dir);
	assert_string_equal(err.msg, want);
	free(want);
	fx_unlink_in(dir, "memory.max");
	assert_int_equal(cgroup_destroy(cg, &err), 0);
	assert_false(fx_exists(dir));
	free(dir);
}

static void test_v2_parent_dirs(void **state)
{
	struct fx *f = *state;
	char **list = cgroup_parent_dirs(f->root, f->proc);
	char *want = fx_str("%s/a/b", f->root);

	assert_non_null(list);
	assert_string_equal(list[0], want);
	assert_null(list[1]);
	cgroup_free_list(list);

	fx_write(f->proc, "1:memory:/\n");	/* no v2 line: an empty list */
	list = cgroup_parent_dirs(f->root, f->proc);
	assert_non_null(list);
	assert_null(list[0]);
	cgroup_free_list(list);
	free(want);
}

/* ---- cgroup_sweep_dir (gc of a leftover directory) ---- */

static void test_sweep_dir(void **state)
{
	struct fx *f = *state;
	char *d = fx_str("%s/sandeval-old", f->tmp), *want;
	struct sd_error err = { 0 };
	pid_t pid;

	/* empty: removed; absent: fine */
	fx_mkdir_p(d);
	assert_int_equal(cgroup_sweep_dir(d, &err), 0);
	assert_false(fx_exists(d));
	assert_int_equal(cgroup_sweep_dir(d, &err), 0);

	/* v2 leftover: cgroup.kill is written (rmdir then fails on the fake files) */
	fx_mkdir_p(d);
	fx_write_in(d, "cgroup.kill", "");
	assert_int_equal(cgroup_sweep_dir(d, &err), -1);
	want = fx_str("cannot remove cgroup '%s': Directory not empty", d);
	assert_string_equal(err.msg, want);
	free(want);
	assert_file_equal(d, "cgroup.kill", "1");
	fx_rm_rf(d);

	/* v1 leftover: frozen, the listed process killed, thawed */
	fx_mkdir_p(d);
	fx_write_in(d, "freezer.state", "");
	pid = victim();
	{
		char text[32];

		snprintf(text, sizeof(text), "%d\n", (int)pid);
		fx_write_in(d, "cgroup.procs", text);
	}
	assert_int_equal(cgroup_sweep_dir(d, NULL), -1);
	fx_unlink_in(d, "cgroup.procs");
	assert_killed(pid);
	assert_file_equal(d, "freezer.state", "THAWED");
	free(d);
}

static void test_has_null(void **state)
{
	(void)state;
	assert_false(cgroup_has(NULL, CG_MEMORY));
	cgroup_free(NULL);
}

#define V1(t) cmocka_unit_test_setup_teardown(t, v1_setup, fx_teardown)
#define V2(t) cmocka_unit_test_setup_teardown(t, v2_setup, fx_teardown)
#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX(test_own_path),
		FX(test_own_path_v1_only_and_missing),
		FX(test_read_key),
		FX(test_read_u64),
		cmocka_unit_test(test_note_add),
		V1(test_v1_create),
		V1(test_v1_create_at_root),
		V1(test_v1_missing_controller),
		V1(test_v1_mkdir_fails),
		V1(test_v1_mkdir_fails_many),
		V1(test_v1_no_controller),
		V1(test_v1_set_memory_memsw),
		V1(test_v1_set_memory_no_memsw),
		V1(test_v1_set_memory_errors),
		V1(test_v1_set_pids),
		V1(test_v1_stats),
		V1(test_v1_enter_and_kill),
		V1(test_v1_kill_without_freezer),
		V1(test_v1_open_procs),
		V1(test_v1_kill_empty),
		V1(test_v1_enter_error),
		V1(test_v1_destroy),
		V1(test_v1_destroy_not_empty),
		V1(test_v1_parent_dirs),
		V2(test_v2_create),
		V2(test_v2_detect_hybrid_proc),
		V2(test_v2_controllers_not_delegated),
		V2(test_v2_only_pids),
		V2(test_v2_subtree_control_fails),
		V2(test_v2_supervisor_leaf),
		V2(test_v2_at_root),
		V2(test_v2_create_errors),
		V2(test_v2_set_memory),
		V2(test_v2_set_memory_minimal),
		V2(test_v2_set_pids),
		V2(test_v2_stats),
		V2(test_v2_enter_and_cgroup_kill),
		V2(test_v2_kill_by_freezing),
		V2(test_v2_open_procs),
		V2(test_v2_kill_empty),
		V2(test_v2_destroy),
		V2(test_v2_parent_dirs),
		FX(test_sweep_dir),
		cmocka_unit_test(test_has_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
