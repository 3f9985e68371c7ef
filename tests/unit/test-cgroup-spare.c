/* test-cgroup-spare.c - cgroup v1 spares (cgroup_release, cgroup_create's SPARES) against fake trees
 *
 * The fake tree is a plain file system: rename(2) there replaces an empty
 * directory where cgroupfs answers EEXIST, so every spare made here has a
 * file in it (as a real cgroup's control files), which a plain rename
 * refuses to replace as well (ENOTEMPTY).
 */

#include "cgroup-fixture.h"

#include <unistd.h>

static const char *const ctl3[] = { "memory", "pids", "cpuacct" };

#define WANT3 (CG_ALL & ~(1u << CG_FREEZER))

static char *spare_dir(const struct fx *f, const char *ctl, int slot)
{
	return fx_str("%s/%s/sub/" CGROUP_SPARE_PREFIX "%u-%d", f->root, ctl, (unsigned)geteuid(), slot);
}

/* The control files a clean, emptied run cgroup shows. */
static void clean_files(const struct fx *f)
{
	char *mem = v1_dir(f, "memory"), *pids = v1_dir(f, "pids"), *cpu = v1_dir(f, "cpuacct");

	fx_write_in(mem, "cgroup.procs", "");
	fx_write_in(mem, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	fx_write_in(mem, "memory.usage_in_bytes", "8192\n");
	fx_write_in(mem, "memory.max_usage_in_bytes", "");
	fx_write_in(pids, "cgroup.procs", "");
	fx_write_in(pids, "pids.events", "max 0\n");
	fx_write_in(cpu, "cgroup.procs", "");
	fx_write_in(cpu, "cpuacct.usage", "123456789\n");
	free(mem);
	free(pids);
	free(cpu);
}

/* A parked spare of CTL in SLOT, with the control files a claim touches and a
 * file named MARK; its path. */
static char *make_spare(const struct fx *f, const char *ctl, int slot, const char *mark)
{
	char *d = spare_dir(f, ctl, slot);

	fx_mkdir_p(d);
	fx_write_in(d, mark, "");
	if (strcmp(ctl, "memory") == 0) {
		fx_write_in(d, "memory.max_usage_in_bytes", "");
		fx_write_in(d, "memory.usage_in_bytes", "0\n");
	}
	return d;
}

static struct cgroup *create_spares(struct fx *f, int spares)
{
	struct sd_error err = { 0 };

	f->cg = cgroup_create(f->root, f->proc, NAME, WANT3, spares, &err);
	if (!f->cg)
		fail_msg("cgroup_create failed: %s", err.msg);
	return f->cg;
}

static void release_and_free(struct fx *f, int want)
{
	struct sd_error err = { 0 };
	int r = cgroup_release(f->cg, &err);

	if (r != want)
		fail_msg("cgroup_release returned %d, want %d (%s)", r, want, err.msg);
	cgroup_free(f->cg);
	f->cg = NULL;
}

/* A clean cgroup is parked in slot 0 of each hierarchy; the next create
 * takes it back, restarts its memory peak and reports the peak above what was
 * charged when it was taken. */
static void test_park_and_claim(void **state)
{
	struct fx *f = *state;
	char *mem = v1_dir(f, "memory"), *cpu = v1_dir(f, "cpuacct");
	char *s_mem = spare_dir(f, "memory", 0);
	struct cgroup_stats st;
	char *text;

	create_spares(f, 4);
	assert_false(cgroup_reused(f->cg));
	clean_files(f);
	release_and_free(f, 1);
	for (size_t i = 0; i < 3; i++) {
		char *d = v1_dir(f, ctl3[i]), *s = spare_dir(f, ctl3[i], 0);

		if (fx_exists(d) || !fx_is_dir(s))
			fail_msg("%s: the run's directory was not parked in slot 0", ctl3[i]);
		free(d);
		free(s);
	}
	text = fx_read_in(s_mem, "memory.max_usage_in_bytes");
	assert_string_equal(text, "");		/* not yet: when it is taken */
	free(text);

	create_spares(f, 4);
	assert_true(cgroup_reused(f->cg));
	assert_true(cgroup_has(f->cg, CG_MEMORY) && cgroup_has(f->cg, CG_PIDS) && cgroup_has(f->cg, CG_CPU));
	assert_true(fx_exists_in(mem, "memory.oom_control"));	/* the very directory */
	assert_true(fx_exists_in(cpu, "cpuacct.usage"));
	assert_false(fx_exists(s_mem));
	assert_string_equal(cgroup_dirs(f->cg)[0], mem);
	text = fx_read_in(mem, "memory.max_usage_in_bytes");
	assert_string_equal(text, "0");		/* the peak restarted */
	free(text);
	/* the run's own peak: 1 MiB above the 8 KiB charged when it was taken */
	fx_unlink_in(mem, "memory.max_usage_in_bytes");
	fx_write_in(mem, "memory.max_usage_in_bytes", "1056768\n");
	cgroup_stats(f->cg, &st);
	assert_true(st.has_peak);
	assert_int_equal(st.peak_bytes, 1048576);
	free(mem);
	free(cpu);
	free(s_mem);
}

/* Without spares nothing is parked and nothing is taken. */
static void test_no_spares(void **state)
{
	struct fx *f = *state;
	char *s_mem = spare_dir(f, "memory", 0);

	fx_mkdir_p(s_mem);
	fx_write_in(s_mem, "memory.max_usage_in_bytes", "");
	create_spares(f, 0);
	assert_false(cgroup_reused(f->cg));
	assert_true(fx_is_dir(s_mem));
	release_and_free(f, 0);
	for (size_t i = 0; i < 3; i++) {
		char *d = v1_dir(f, ctl3[i]);

		assert_false(fx_exists(d));
		free(d);
	}
	free(s_mem);
}

/* A spare in any slot is found; a hierarchy without one gets a new directory. */
static void test_claim_any_slot(void **state)
{
	struct fx *f = *state;
	char *s_mem = make_spare(f, "memory", 3, "marker"), *pids = v1_dir(f, "pids");

	create_spares(f, 4);
	assert_true(cgroup_reused(f->cg));
	assert_false(fx_exists(s_mem));
	assert_true(fx_exists_in(cgroup_dirs(f->cg)[0], "marker"));
	assert_true(fx_is_dir(pids));
	assert_false(fx_exists_in(pids, "marker"));
	free(s_mem);
	free(pids);
}

/* A memory spare that still has more than CGROUP_SPARE_LEFT charged is not
 * used: it is removed and a new directory made (here the fake control files
 * keep the rmdir from succeeding, so the mkdir finds it there). */
static void test_claim_too_much_left(void **state)
{
	struct fx *f = *state;
	char *s_mem = spare_dir(f, "memory", 0), *s_pids = spare_dir(f, "pids", 0);
	char *over = fx_str("%u\n", CGROUP_SPARE_LEFT + 4096);
	struct sd_error err = { 0 };

	fx_mkdir_p(s_mem);
	fx_write_in(s_mem, "memory.max_usage_in_bytes", "");
	fx_write_in(s_mem, "memory.usage_in_bytes", over);
	fx_mkdir_p(s_pids);
	fx_write_in(s_pids, "pids.max", "");
	f->cg = cgroup_create(f->root, f->proc, NAME, WANT3, 2, &err);
	assert_non_null(f->cg);
	assert_false(cgroup_has(f->cg, CG_MEMORY));
	assert_contains(cgroup_note(f->cg), "File exists");
	assert_true(cgroup_reused(f->cg));		/* pids' spare is fine */
	assert_true(cgroup_has(f->cg, CG_PIDS));
	free(s_mem);
	free(s_pids);
	free(over);
}

/* Slots beyond SPARES are not looked at; another uid's slots are not ours. */
static void test_claim_bounds(void **state)
{
	struct fx *f = *state;
	char *s4 = spare_dir(f, "memory", 4);
	char *other = fx_str("%s/memory/sub/" CGROUP_SPARE_PREFIX "%u-0", f->root, (unsigned)geteuid() + 1);

	fx_mkdir_p(s4);
	fx_mkdir_p(other);
	create_spares(f, 4);
	assert_false(cgroup_reused(f->cg));
	assert_true(fx_is_dir(s4));
	assert_true(fx_is_dir(other));
	free(s4);
	free(other);
}

/* Each thing that a new cgroup would not have keeps the cgroup from being
 * parked: it is removed instead (here rmdir fails on the fake control files,
 * which shows it was tried) and no slot is filled. */
static void test_dirty_not_parked(void **state)
{
	static const struct { const char *ctl, *file, *text; } dirt[] = {
		{ "memory", "cgroup.procs", "" },				/* a process left */
		{ "pids", "pids.events", "max 3\n" },				/* forks refused */
		{ "memory", "memory.oom_control", "under_oom 0\noom_kill 1\n" },	/* an OOM kill */
		{ "memory", "memory.oom_control", "under_oom 0\n" },		/* unreadable counter */
		{ "pids", "pids.events", NULL },				/* no counter at all */
	};
	struct fx *f = *state;

	for (size_t k = 0; k < sizeof(dirt) / sizeof(dirt[0]); k++) {
		char *d = v1_dir(f, dirt[k].ctl), listed[32];
		struct sd_error err = { 0 };
		pid_t pid = k == 0 ? victim() : -1;

		create_spares(f, 2);
		clean_files(f);
		fx_unlink_in(d, dirt[k].file);
		if (pid > 0) {
			/* a child made to be killed: the release kills what it finds */
			snprintf(listed, sizeof(listed), "%d\n", (int)pid);
			fx_write_in(d, dirt[k].file, listed);
		} else if (dirt[k].text) {
			fx_write_in(d, dirt[k].file, dirt[k].text);
		}
		assert_int_equal(cgroup_release(f->cg, &err), -1);
		if (pid > 0)
			assert_killed(pid);
		assert_contains(err.msg, "cannot remove cgroup");
		for (size_t i = 0; i < 3; i++) {
			char *s = spare_dir(f, ctl3[i], 0);

			if (fx_exists(s))
				fail_msg("case %zu (%s): %s was parked", k, dirt[k].file, s);
			free(s);
		}
		cgroup_free(f->cg);
		f->cg = NULL;
		for (size_t i = 0; i < 3; i++) {
			char *rd = v1_dir(f, ctl3[i]);

			fx_rm_rf(rd);
			free(rd);
		}
		free(d);
	}
}

/* All slots taken: the directory is removed; a free slot further on is used. */
static void test_park_slots_full(void **state)
{
	struct fx *f = *state;
	char *s0 = make_spare(f, "memory", 0, "taken"), *s1 = spare_dir(f, "memory", 1);
	char *p0 = make_spare(f, "pids", 0, "taken"), *mem = v1_dir(f, "memory");
	struct sd_error err = { 0 };

	create_spares(f, 2);		/* takes pids' and memory's slot 0 */
	assert_true(cgroup_reused(f->cg));
	clean_files(f);
	release_and_free(f, 1);
	assert_true(fx_is_dir(s0));	/* back where they came from */
	assert_true(fx_is_dir(p0));

	fx_mkdir_p(s1);
	fx_write_in(s1, "taken", "");
	fx_rm_rf(p0);
	create_spares(f, 2);		/* memory from slot 0, pids new */
	clean_files(f);
	fx_mkdir_p(s0);
	fx_write_in(s0, "taken", "");	/* someone parked in the meantime */
	assert_int_equal(cgroup_release(f->cg, &err), -1);	/* memory: no slot, rmdir tried */
	assert_contains(err.msg, mem);
	assert_true(fx_is_dir(p0));	/* pids parked */
	free(s0);
	free(s1);
	free(p0);
	free(mem);
}

/* The name a claim would rename onto exists: no spare is taken. */
static void test_claim_name_taken(void **state)
{
	struct fx *f = *state;
	char *s0 = spare_dir(f, "memory", 0), *mem = v1_dir(f, "memory");
	struct sd_error err = { 0 };

	fx_mkdir_p(s0);
	fx_write_in(s0, "spare", "");
	fx_mkdir_p(mem);
	fx_write_in(mem, "other", "");
	f->cg = cgroup_create(f->root, f->proc, NAME, WANT3, 2, &err);
	assert_non_null(f->cg);
	assert_false(cgroup_has(f->cg, CG_MEMORY));
	assert_contains(cgroup_note(f->cg), "File exists");
	assert_true(fx_is_dir(s0));
	free(s0);
	free(mem);
}

/* v2 has no spares: SPARES is ignored and release removes. */
static void test_v2_ignores_spares(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	char *dir = fx_str("%s/a/b/" NAME, f->root);

	f->cg = cgroup_create(f->root, f->proc, NAME, CG_ALL, 8, &err);
	if (!f->cg)
		fail_msg("cgroup_create failed: %s", err.msg);
	assert_false(cgroup_reused(f->cg));
	assert_int_equal(cgroup_release(f->cg, &err), 0);
	assert_false(fx_exists(dir));
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		V1(test_park_and_claim),
		V1(test_no_spares),
		V1(test_claim_any_slot),
		V1(test_claim_bounds),
		V1(test_claim_too_much_left),
		V1(test_dirty_not_parked),
		V1(test_park_slots_full),
		V1(test_claim_name_taken),
		cmocka_unit_test_setup_teardown(test_v2_ignores_spares, v2_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
