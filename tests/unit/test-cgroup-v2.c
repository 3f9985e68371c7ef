/* test-cgroup-v2.c - the cgroup v2 (unified) code against fake v2 trees */

#include "cgroup-fixture.h"

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
	assert_null(cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, &err));
	assert_int_equal(err.code, ENOENT);
	want = fx_str("no cgroup v2 entry in '%s'", f->proc);
	assert_string_equal(err.msg, want);
	free(want);

	fx_write(f->proc, "0::/nope\n");
	assert_null(cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, &err));
	want = fx_str("cannot open '%s/nope/cgroup.controllers': No such file or directory", f->root);
	assert_string_equal(err.msg, want);
	free(want);

	fx_write(f->proc, "0::/a/b\n");
	fx_mkdir_p(dir);
	assert_null(cgroup_create(f->root, f->proc, NAME, CG_ALL, 0, &err));
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
	uint64_t ns = 7;

	assert_int_equal(cgroup_stats(cg, &st), 0);
	assert_false(st.has_cpu);
	assert_false(st.has_peak);
	assert_false(st.has_oom);
	assert_int_equal(cgroup_cpu_ns(cg, &ns), -1);

	fx_write_in(dir, "cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
	assert_int_equal(cgroup_cpu_ns(cg, &ns), 0);
	assert_int_equal(ns, 1500000);
	fx_write_in(dir, "cpu.stat", "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n");
	assert_int_equal(cgroup_cpu_ns(cg, &ns), 0);	/* read anew through the same descriptor */
	assert_int_equal(ns, 2500000);
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

static int kill_cgroup(void *cg)
{
	return cgroup_kill(cg, NULL);
}

/* Before cgroup.kill (Linux < 5.14): freeze, kill the listed pids, thaw, in
 * this order and nothing else (see play_kill). */
static void test_v2_kill_by_freezing(void **state)
{
	struct fx *f = *state;
	struct cgroup *cg = create_ok(f);
	const char *dir = cgroup_dirs(cg)[0];
	struct sd_error err = { 0 };
	pid_t pid;
	char listed[32];

	fx_write_in(dir, "cgroup.procs", "");
	pid = victim();
	if (cgroup_enter(cg, pid, &err) < 0) {
		kill(pid, SIGKILL);
		fail_msg("cgroup_enter: %s", err.msg);
	}
	snprintf(listed, sizeof(listed), "%d\n", (int)pid);
	fx_fifo_in(dir, "cgroup.procs");
	fx_fifo_in(dir, "cgroup.freeze");
	{
		const struct fifo_step steps[] = {
			{ dir, "cgroup.procs", 'r', listed, false },	/* anyone left? */
			{ dir, "cgroup.freeze", 'w', "1", false },
			{ dir, "cgroup.procs", 'r', listed, false },	/* whom to kill */
			{ dir, "cgroup.freeze", 'w', "0", true },
		};

		play_kill(kill_cgroup, cg, false, pid, steps, sizeof(steps) / sizeof(steps[0]));
	}
	remove_procs_files(cg);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
