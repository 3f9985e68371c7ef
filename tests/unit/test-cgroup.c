/* test-cgroup.c - unit tests of cgroup.c and cgroup-v1.c against fake trees (see cgroup-fixture.h) */

#include "cgroup-fixture.h"

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

/* A controller not wanted gets no directory, and no note: nothing is missing. */
static void test_v1_create_without_freezer(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	char *fz = v1_dir(f, "freezer"), *mem = v1_dir(f, "memory");

	f->cg = cgroup_create(f->root, f->proc, NAME, CG_ALL & ~(1u << CG_FREEZER), 0, &err);
	if (!f->cg)
		fail_msg("cgroup_create failed: %s", err.msg);
	assert_false(cgroup_has(f->cg, CG_FREEZER));
	assert_true(cgroup_has(f->cg, CG_MEMORY) && cgroup_has(f->cg, CG_PIDS) && cgroup_has(f->cg, CG_CPU));
	assert_false(fx_is_dir(fz));
	assert_true(fx_is_dir(mem));
	assert_string_equal(cgroup_note(f->cg), "");
	for (const char *const *d = cgroup_dirs(f->cg); *d; d++)
		assert_not_contains(*d, "/freezer/");
	free(fz);
	free(mem);
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
	cg = cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, &err);
	assert_null(cg);
	assert_int_equal(err.code, EPERM);
	assert_string_equal(err.msg, "no usable cgroup v1 controller (no memory controller; no pids controller; "
				     "no cpuacct controller; no freezer controller)");

	/* all mounts missing: mkdir fails everywhere, nothing is left behind */
	fx_write(f->proc, "11:memory:/nope\n10:pids:/nope\n");
	memset(&err, 0, sizeof(err));
	assert_null(cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, &err));
	{
		char *want = fx_str("no usable cgroup v1 controller (cannot create '%s/memory/nope/" NAME "': "
				    "No such file or directory; no cpuacct controller; no freezer controller; "
				    "and 1 more controller(s))", f->root);

		assert_string_equal(err.msg, want);
		free(want);
	}

	/* the proc file itself missing */
	fx_rm_rf(f->proc);
	assert_null(cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, NULL));
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

/* The CPU file's descriptor lives as long as the cgroup: closed by cgroup_free. */
static void test_v1_cpu_fd_closed(void **state)
{
	struct fx *f = *state;
	int before = fx_open_fds();
	struct cgroup *cg = create_ok(f);
	char *cpu = v1_dir(f, "cpuacct");
	uint64_t ns;

	fx_write_in(cpu, "cpuacct.usage", "42\n");
	for (int i = 0; i < 3; i++)
		assert_int_equal(cgroup_cpu_ns(cg, &ns), 0);
	assert_int_equal(fx_open_fds(), before + 1);
	cgroup_free(cg);
	f->cg = NULL;
	assert_int_equal(fx_open_fds(), before);
	free(cpu);
}

static void test_v1_stats(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *mem = v1_dir(f, "memory"), *cpu = v1_dir(f, "cpuacct");
	struct cgroup_stats st;
	uint64_t ns = 7;

	/* nothing to read yet */
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_false(st.has_cpu);
	assert_false(st.has_peak);
	assert_false(st.has_oom);
	assert_int_equal(cgroup_cpu_ns(cg, &ns), -1);

	fx_write_in(cpu, "cpuacct.usage", "123456789\n");
	/* the supervisor's reading at each wake-up: the CPU time alone */
	assert_int_equal(cgroup_cpu_ns(cg, &ns), 0);
	assert_int_equal(ns, 123456789);
	/* through the descriptor kept open: each reading is the file's content now */
	fx_write_in(cpu, "cpuacct.usage", "987654321\n");
	assert_int_equal(cgroup_cpu_ns(cg, &ns), 0);
	assert_int_equal(ns, 987654321);
	fx_write_in(cpu, "cpuacct.usage", "123456789\n");
	assert_int_equal(cgroup_cpu_ns(cg, &ns), 0);
	assert_int_equal(ns, 123456789);
	fx_write_in(cpu, "cpuacct.usage", "");
	assert_int_equal(cgroup_cpu_ns(cg, &ns), -1);
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

static int kill_cgroup(void *cg)
{
	return cgroup_kill(cg, NULL);
}

static int sweep_dir(void *dir)
{
	return cgroup_sweep_dir(dir, NULL);
}

/* enter writes the pid to every controller; kill freezes, kills, thaws. */
static void test_v1_enter_and_kill(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	char *fz = v1_dir(f, "freezer"), *text;
	struct sd_error err = { 0 };
	pid_t pid;
	char want[32], listed[32];

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

	/* the kill, in this order and nothing else (see play_kill) */
	snprintf(listed, sizeof(listed), "%d\n", (int)pid);
	for (const char *const *d = cgroup_dirs(cg); *d; d++)
		fx_fifo_in(*d, "cgroup.procs");
	fx_fifo_in(fz, "freezer.state");
	{
		const struct fifo_step steps[] = {
			{ cgroup_dirs(cg)[0], "cgroup.procs", 'r', listed, false },	/* anyone left? */
			{ fz, "freezer.state", 'w', "FROZEN", false },
			{ fz, "freezer.state", 'r', "FROZEN\n", false },		/* frozen yet? */
			{ fz, "cgroup.procs", 'r', listed, false },			/* whom to kill */
			{ fz, "freezer.state", 'w', "THAWED", true },
		};

		play_kill(kill_cgroup, cg, false, pid, steps, sizeof(steps) / sizeof(steps[0]));
	}
	remove_procs_files(cg);
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

	/* v1 leftover: frozen, the listed process killed, thawed, in this order
	 * (see play_kill); rmdir then fails on the FIFOs */
	fx_mkdir_p(d);
	fx_fifo_in(d, "freezer.state");
	fx_fifo_in(d, "cgroup.procs");
	pid = victim();
	{
		char listed[32];
		const struct fifo_step steps[] = {
			{ d, "freezer.state", 'w', "FROZEN", false },
			{ d, "cgroup.procs", 'r', listed, false },
			{ d, "freezer.state", 'w', "THAWED", true },
			{ d, "cgroup.procs", 'r', "", true },		/* anyone left? */
		};

		snprintf(listed, sizeof(listed), "%d\n", (int)pid);
		play_kill(sweep_dir, d, true, pid, steps, sizeof(steps) / sizeof(steps[0]));
	}
	free(d);
}

static void test_has_null(void **state)
{
	(void)state;
	assert_false(cgroup_has(NULL, CG_MEMORY));
	cgroup_free(NULL);
}


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
		V1(test_v1_create_without_freezer),
		V1(test_v1_missing_controller),
		V1(test_v1_mkdir_fails),
		V1(test_v1_mkdir_fails_many),
		V1(test_v1_no_controller),
		V1(test_v1_set_memory_memsw),
		V1(test_v1_set_memory_no_memsw),
		V1(test_v1_set_memory_errors),
		V1(test_v1_set_pids),
		V1(test_v1_stats),
		V1(test_v1_cpu_fd_closed),
		V1(test_v1_enter_and_kill),
		V1(test_v1_kill_without_freezer),
		V1(test_v1_open_procs),
		V1(test_v1_kill_empty),
		V1(test_v1_enter_error),
		V1(test_v1_destroy),
		V1(test_v1_destroy_not_empty),
		V1(test_v1_parent_dirs),
		FX(test_sweep_dir),
		cmocka_unit_test(test_has_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
