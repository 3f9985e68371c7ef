/* test-gc.c - unit tests of runrec.c and gc.c: run records (lock files) and the sweep of what dead runs left
 *
 * Every test works in a temp state directory and a fake cgroup root, so no
 * real cgroup is touched. gc_sweep() reads the real /proc/self/cgroup: the
 * orphan-cgroup tests ask cgroup_parent_dirs() where it will look beneath
 * the fake root and create those directories.
 */
#include "fixture.h"

#include <dirent.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>

#include "sandbox/cgroup.h"
#include "sandbox/gc.h"
#include "sandbox/runrec.h"

struct fx {
	char *tmp;
	char *state;	/* the state directory */
	char *cgroot;	/* a fake cgroup hierarchy root */
	char *dead;	/* directories a dead run left */
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->tmp = fx_tmpdir();
	f->state = fx_str("%s/state", f->tmp);
	f->cgroot = fx_str("%s/cgroot", f->tmp);
	f->dead = fx_str("%s/dead", f->tmp);
	fx_mkdir_p(f->state);
	fx_mkdir_p(f->cgroot);
	fx_mkdir_p(f->dead);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	fx_rm_rf(f->tmp);
	free(f->tmp);
	free(f->state);
	free(f->cgroot);
	free(f->dead);
	free(f);
	return 0;
}

/* Is PATH locked by some other open file description? */
static bool locked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ret;

	assert_true(fd >= 0);
	ret = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return ret;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void set_mtime_ago(const char *path, time_t seconds)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= seconds;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* ---- lock records ---- */

static void test_lock_take(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	char *path = NULL, *want = fx_str("%s/abc123.lock", f->state), *tmp = fx_str("%s/abc123.tmp", f->state);
	struct stat sb;
	int fd = runrec_take(f->state, "abc123", &path, &err);

	if (fd < 0)
		fail_msg("runrec_take: %s", err.msg);
	assert_non_null(path);
	assert_string_equal(path, want);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(sb.st_size, 0);
	assert_false(fx_exists(tmp));	/* published under its final name */
	assert_true(locked(path));
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(count_entries(f->state), 1);

	runrec_drop(fd, path);	/* frees path */
	assert_false(fx_exists(want));
	assert_int_equal(count_entries(f->state), 0);
	errno = 0;
	assert_int_equal(fcntl(fd, F_GETFD), -1);	/* closed */
	assert_int_equal(errno, EBADF);
	free(want);
	free(tmp);
}

static void test_lock_take_errors(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	char *path = (char *)"untouched", *missing = fx_str("%s/nope", f->tmp), *want;

	assert_int_equal(runrec_take(missing, "id1", &path, &err), -1);
	assert_int_equal(err.code, ENOENT);
	want = fx_str("cannot create '%s/id1.tmp': No such file or directory", missing);
	assert_string_equal(err.msg, want);
	assert_string_equal(path, "untouched");
	free(want);
	free(missing);
}

static void test_lock_note(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	char *path = NULL;
	int fd = runrec_take(f->state, "run1", &path, &err);

	assert_true(fd >= 0);
	assert_int_equal(runrec_note(fd, "/sys/fs/cgroup/memory/sandeval-run1", &err), 0);
	assert_int_equal(runrec_note(fd, "/sys/fs/cgroup/pids/sandeval-run1", &err), 0);
	assert_file_equal(f->state, "run1.lock",
			  "/sys/fs/cgroup/memory/sandeval-run1\n/sys/fs/cgroup/pids/sandeval-run1\n");
	assert_true(locked(path));	/* still held */
	runrec_drop(fd, path);

	/* a bad descriptor is reported with the directory */
	assert_int_equal(runrec_note(-1, "/x/y", &err), -1);
	assert_int_equal(err.code, EBADF);
	assert_string_equal(err.msg, "cannot record '/x/y': Bad file descriptor");
}

static void test_lock_drop_null(void **state)
{
	(void)state;
	runrec_drop(-1, NULL);	/* nothing to do, no crash */
}

/* ---- sweeping records ---- */

/* A record still locked by its (live) run is left alone, with its dirs. */
static void test_sweep_live_record_kept(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	char *path = NULL, *cg = fx_str("%s/sandeval-live", f->dead);
	int fd = runrec_take(f->state, "live", &path, &err);

	assert_true(fd >= 0);
	fx_mkdir_p(cg);
	assert_int_equal(runrec_note(fd, cg, &err), 0);
	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(st.cgroups, 0);
	assert_int_equal(st.failed, 0);
	assert_true(fx_exists(path));
	assert_true(fx_is_dir(cg));
	assert_true(locked(path));
	runrec_drop(fd, path);
	free(cg);
}

/* A record whose run died (its descriptor closed): the dirs it lists and the
 * record go; listed dirs that are already gone are not failures. */
static void test_sweep_dead_record(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st = { 7, 7, 7, 7 };
	char *path = NULL, *a = fx_str("%s/sandeval-dead-a", f->dead), *b = fx_str("%s/sandeval-dead-b", f->dead);
	char *gone = fx_str("%s/already-gone", f->dead);
	int fd = runrec_take(f->state, "dead", &path, &err);

	assert_true(fd >= 0);
	fx_mkdir_p(a);
	fx_mkdir_p(b);
	assert_int_equal(runrec_note(fd, a, &err), 0);
	assert_int_equal(runrec_note(fd, gone, &err), 0);
	assert_int_equal(runrec_note(fd, b, &err), 0);
	close(fd);	/* the run dies: its lock is released */

	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 1);
	assert_int_equal(st.cgroups, 2);
	assert_int_equal(st.failed, 0);
	assert_false(fx_exists(a));
	assert_false(fx_exists(b));
	assert_false(fx_exists(path));

	/* a second sweep finds nothing */
	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(st.cgroups, 0);
	free(path);
	free(a);
	free(b);
	free(gone);
}

/* The gVisor backend's line in a run record, as it writes it. */
static int note_runsc(int fd, const char *dir, const char *runsc, const char *container, struct sd_error *err)
{
	return runrec_note_tagged(fd, "runsc", (const char *const[]){ dir, runsc, container }, 3, err);
}

/* A dead gVisor run: its directory (<state>/<32 hex>.gvisor) is removed with
 * what runsc left in it; a runsc line naming any other directory is ignored. */
static void test_sweep_dead_gvisor_run(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	const char *id = "0123456789abcdef0123456789abcdef";
	char *path = NULL, *dir = fx_str("%s/%s.gvisor", f->state, id), *other = fx_str("%s/keep.gvisor", f->state);
	char *outside = fx_str("%s/%s.gvisor", f->dead, id), *file = fx_str("%s/bundle/config.json", dir);
	int fd = runrec_take(f->state, id, &path, &err);

	assert_true(fd >= 0);
	fx_mkdir_p(file);	/* a directory named config.json: any tree goes */
	fx_mkdir_p(other);
	fx_mkdir_p(outside);
	fx_write_in(dir, "runsc.log", "log\n");
	assert_int_equal(note_runsc(fd, dir, "/bin/true", "sandeval-x", &err), 0);
	assert_int_equal(note_runsc(fd, other, "/bin/true", "sandeval-x", &err), 0);
	assert_int_equal(note_runsc(fd, outside, "/bin/true", "sandeval-x", &err), 0);
	assert_int_equal(note_runsc(fd, "a\tb", "/bin/true", "c", &err), -1);
	assert_contains(err.msg, "tab or newline");
	close(fd);

	assert_int_equal(gc_sweep(f->state, NULL, &st, &err), 0);
	assert_int_equal(st.runs, 1);
	assert_int_equal(st.dirs, 1);
	assert_int_equal(st.failed, 0);
	assert_false(fx_exists(dir));
	assert_true(fx_exists(other));
	assert_true(fx_exists(outside));
	assert_false(fx_exists(path));
	free(path);
	free(dir);
	free(other);
	free(outside);
	free(file);
}

/* A dead redteam session's scratch directory (runrec_note_scratch): removed
 * whole; a scratch line naming anything but a sandeval-* directory directly
 * under /tmp or /var/tmp (written into the record by hand) is left alone. */
static void test_sweep_dead_scratch(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	char scratch[] = "/tmp/sandeval-unit-scratch.XXXXXX", *path = NULL, *inner, *rec;
	int fd;

	assert_non_null(mkdtemp(scratch));
	inner = fx_str("%s/sub/secret", scratch);
	fx_mkdir_p(inner);
	fd = runrec_take(f->state, "redteam-1", &path, &err);
	assert_true(fd >= 0);
	assert_int_equal(runrec_note_scratch(fd, scratch, &err), 0);
	for (const char *bad = "/etc\0/tmp/x\0/tmp/sandeval-a/b\0/var/tmp/sandeval-..\0/tmp/../sandeval-x\0"; *bad;
	     bad += strlen(bad) + 1) {
		assert_false(runrec_scratch_ok(bad));
		assert_int_equal(runrec_note_scratch(fd, bad, &err), -1);
		assert_contains(err.msg, "not a sandeval-* directory");
	}
	close(fd);
	rec = fx_str("%s/forged.lock", f->state);	/* lines nobody's runrec_note_scratch wrote */
	{
		char *line = fx_str("scratch\t%s\nscratch\t%s/../%s\n", f->dead, scratch, scratch + 5);

		fx_write(rec, line);
		free(line);
	}

	assert_int_equal(gc_sweep(f->state, NULL, &st, &err), 0);
	assert_int_equal(st.runs, 2);
	assert_int_equal(st.dirs, 1);
	assert_int_equal(st.failed, 0);
	assert_false(fx_exists(scratch));
	assert_true(fx_exists(f->dead));
	assert_false(fx_exists(path));
	free(path);
	free(inner);
	free(rec);
}

/* A listed dir that cannot be removed counts as failed, the kill was
 * attempted (cgroup.kill written), and the record stays for the next sweep. */
static void test_sweep_dead_record_not_removable(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	char *cg = fx_str("%s/sandeval-stuck", f->dead);
	char *rec = fx_str("%s/stuck.lock", f->state);

	fx_mkdir_p(cg);
	fx_write_in(cg, "cgroup.kill", "");
	{
		char *line = fx_str("%s\n", cg);

		fx_write(rec, line);	/* a record nobody holds */
		free(line);
	}
	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(st.cgroups, 0);
	assert_int_equal(st.failed, 1);
	assert_file_equal(cg, "cgroup.kill", "1");
	assert_true(fx_exists(rec));
	free(rec);
	free(cg);
}

/* A record with blank lines and no final newline. */
static void test_sweep_record_format(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	char *a = fx_str("%s/one", f->dead), *b = fx_str("%s/two", f->dead);
	char *text = fx_str("\n%s\n\n%s", a, b);

	fx_mkdir_p(a);
	fx_mkdir_p(b);
	fx_write_in(f->state, "x.lock", text);
	fx_write_in(f->state, "empty.lock", "");
	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 2);
	assert_int_equal(st.cgroups, 2);
	assert_false(fx_exists(a));
	assert_false(fx_exists(b));
	assert_int_equal(count_entries(f->state), 0);
	free(text);
	free(a);
	free(b);
}

/* ---- stale .tmp files and other entries ---- */

static void test_sweep_tmp_files(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	char *old = fx_str("%s/old.tmp", f->state), *fresh = fx_str("%s/fresh.tmp", f->state);
	char *held = fx_str("%s/held.tmp", f->state), *other = fx_str("%s/README", f->state);
	char *lockish = fx_str("%s/.lock", f->state);
	int fd;

	fx_write(old, "");
	set_mtime_ago(old, 120);
	fx_write(fresh, "");
	set_mtime_ago(fresh, 10);
	fx_write(held, "");
	set_mtime_ago(held, 120);
	fx_write(other, "not a record");
	set_mtime_ago(other, 3600);
	fx_write(lockish, "");	/* no id before the suffix: not a record */

	fd = open(held, O_RDONLY | O_CLOEXEC);	/* a run between create and rename */
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);

	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_false(fx_exists(old));
	assert_true(fx_exists(fresh));
	assert_true(fx_exists(held));
	assert_true(fx_exists(other));
	assert_true(fx_exists(lockish));
	assert_int_equal(st.runs, 0);
	close(fd);
	free(old);
	free(fresh);
	free(held);
	free(other);
	free(lockish);
}

static void test_sweep_errors(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st = { 7, 7, 7, 7 };
	char *missing = fx_str("%s/nope", f->tmp), *want;

	assert_int_equal(gc_sweep(missing, f->cgroot, &st, &err), -1);
	want = fx_str("cannot open '%s': No such file or directory", missing);
	assert_string_equal(err.msg, want);
	assert_int_equal(st.runs, 0);	/* stats reset even on failure */
	free(want);
	free(missing);
}

/* ---- orphan cgroups (record already gone) ---- */

/* Make the fake root look like the hierarchy of this process and return the
 * directories gc_sweep() will scan (NULL-terminated), or NULL if none. */
static char **fake_parents(struct fx *f)
{
	char *marker = fx_str("%s/cgroup.controllers", f->cgroot);
	char **list;

	/* v2 first (needs a "0::" line), else the v1 controllers we are in */
	fx_write(marker, "memory pids\n");
	list = cgroup_parent_dirs(f->cgroot, "/proc/self/cgroup");
	if (!list || !list[0]) {
		cgroup_free_list(list);
		unlink(marker);
		list = cgroup_parent_dirs(f->cgroot, "/proc/self/cgroup");
	}
	free(marker);
	if (!list || !list[0]) {
		cgroup_free_list(list);
		return NULL;
	}
	for (char **p = list; *p; p++)
		fx_mkdir_p(*p);
	return list;
}

static void test_sweep_orphan_cgroups(void **state)
{
	struct fx *f = *state;
	struct sd_error err = { 0 };
	struct gc_stats st;
	char **parents = fake_parents(f);
	char *path = NULL;
	int fd, n = 0;

	if (!parents)
		fx_skip("host: no cgroup hierarchy of ours in /proc/self/cgroup to fake");
	fd = runrec_take(f->state, "alive", &path, &err);
	assert_true(fd >= 0);
	for (char **p = parents; *p; p++, n++) {
		char *d;

		d = fx_str("%s/sandeval-orphan", *p);	/* no record at all */
		fx_mkdir_p(d);
		free(d);
		d = fx_str("%s/sandeval-alive", *p);	/* its run holds its record */
		fx_mkdir_p(d);
		free(d);
		d = fx_str("%s/sandeval-supervisor", *p);
		fx_mkdir_p(d);
		free(d);
		d = fx_str("%s/someone-else", *p);
		fx_mkdir_p(d);
		free(d);
	}
	/* the quick sweep before every run leaves orphans to `sandeval gc` */
	assert_int_equal(gc_sweep(f->state, NULL, &st, &err), 0);
	assert_int_equal(st.cgroups, 0);
	for (char **p = parents; *p; p++)
		assert_true(fx_exists_in(*p, "sandeval-orphan"));
	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 0);
	assert_int_equal(st.cgroups, n);
	assert_int_equal(st.failed, 0);
	for (char **p = parents; *p; p++) {
		assert_false(fx_exists_in(*p, "sandeval-orphan"));
		assert_true(fx_exists_in(*p, "sandeval-alive"));
		assert_true(fx_exists_in(*p, "sandeval-supervisor"));
		assert_true(fx_exists_in(*p, "someone-else"));
	}
	/* once the run is over, its cgroups go too */
	close(fd);
	assert_int_equal(gc_sweep(f->state, f->cgroot, &st, &err), 0);
	assert_int_equal(st.runs, 1);
	assert_int_equal(st.cgroups, n);
	for (char **p = parents; *p; p++)
		assert_false(fx_exists_in(*p, "sandeval-alive"));
	free(path);
	cgroup_free_list(parents);
}

/* ---- runrec_state_dir ---- */

/* root: /run/sandeval; anyone else without $XDG_RUNTIME_DIR: /tmp/sandeval-<uid>. */
static void test_state_dir_default(void **state)
{
	char buf[256], small[8], *want;
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char *saved = xdg ? strdup(xdg) : NULL;
	struct sd_error err = { 0 };
	struct stat sb;

	(void)state;
	unsetenv("XDG_RUNTIME_DIR");
	want = geteuid() == 0 ? strdup("/run/sandeval") : fx_str("/tmp/sandeval-%u", (unsigned)geteuid());
	assert_int_equal(runrec_state_dir(buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, want);
	assert_int_equal(stat(buf, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_uid, geteuid());

	assert_int_equal(runrec_state_dir(small, sizeof(small), &err), -1);
	assert_int_equal(err.code, ENAMETOOLONG);
	assert_string_equal(err.msg, "state directory name too long");
	if (saved)
		setenv("XDG_RUNTIME_DIR", saved, 1);
	free(saved);
	free(want);
}

/* An ordinary user gets $XDG_RUNTIME_DIR/sandeval, mode 0700 (run as uid
 * 65534 in a child when the tests run as root). */
static void test_state_dir_user(void **state)
{
	struct fx *f = *state;
	char *xdg = fx_str("%s/xdg", f->tmp), *want = fx_str("%s/sandeval", xdg);
	pid_t pid;
	int ws;

	fx_mkdir_p(xdg);
	assert_int_equal(chmod(f->tmp, 0755), 0);
	assert_int_equal(chmod(xdg, 0777), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[4096];
		struct stat sb;

		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(10);
		if (setenv("XDG_RUNTIME_DIR", xdg, 1) < 0)
			_exit(11);
		if (runrec_state_dir(buf, sizeof(buf), NULL) < 0)
			_exit(12);
		if (strcmp(buf, want) != 0)
			_exit(13);
		if (stat(buf, &sb) < 0 || !S_ISDIR(sb.st_mode) || (sb.st_mode & 0777) != 0700)
			_exit(14);
		/* again: the directory exists already */
		_exit(runrec_state_dir(buf, sizeof(buf), NULL) < 0 ? 15 : 0);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	if (WEXITSTATUS(ws) != 0)
		fail_msg("child failed at step %d", WEXITSTATUS(ws));
	free(xdg);
	free(want);
}

/* The fallback /tmp/sandeval-<uid> is a predictable name in a world-writable
 * directory, and runrec_state_dir() accepts it when it exists (EEXIST) whoever
 * owns it. Another local user who creates it first owns the victim's run
 * records: records planted there make the victim's `sandeval gc` write
 * cgroup.kill and SIGKILL the pids of any directory they name. The state
 * directory returned must belong to the caller and be private (or be refused). */
static void test_state_dir_squatted(void **state)
{
	const uid_t victim_uid = 65533;
	char *squat = fx_str("/tmp/sandeval-%u", (unsigned)victim_uid);
	pid_t pid;
	int ws;

	(void)state;
	if (geteuid() != 0 || fx_exists(squat)) {
		bool root = geteuid() == 0;

		free(squat);
		if (root)
			fx_skip("host: the squatted path exists already");
		fx_skip("root: squatting another uid's state directory needs root");
	}
	/* the "attacker" (root here, any other uid in life) creates it first */
	assert_int_equal(mkdir(squat, 0777), 0);
	assert_int_equal(chmod(squat, 0777), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[256];
		struct stat sb;

		if (setgid(victim_uid) < 0 || setuid(victim_uid) < 0)
			_exit(10);
		unsetenv("XDG_RUNTIME_DIR");
		if (runrec_state_dir(buf, sizeof(buf), NULL) < 0)
			_exit(0);	/* refused: fine */
		if (stat(buf, &sb) < 0)
			_exit(11);
		_exit(sb.st_uid == victim_uid && (sb.st_mode & 077) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	rmdir(squat);
	free(squat);
	assert_true(WIFEXITED(ws));
	if (WEXITSTATUS(ws) == 1)
		fail_msg("runrec_state_dir() accepted '/tmp/sandeval-%u' owned by uid 0, mode 0777", (unsigned)victim_uid);
	assert_int_equal(WEXITSTATUS(ws), 0);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX(test_lock_take),
		FX(test_lock_take_errors),
		FX(test_lock_note),
		FX(test_sweep_dead_gvisor_run),
		FX(test_sweep_dead_scratch),
		cmocka_unit_test(test_lock_drop_null),
		FX(test_sweep_live_record_kept),
		FX(test_sweep_dead_record),
		FX(test_sweep_dead_record_not_removable),
		FX(test_sweep_record_format),
		FX(test_sweep_tmp_files),
		FX(test_sweep_errors),
		FX(test_sweep_orphan_cgroups),
		cmocka_unit_test(test_state_dir_default),
		FX(test_state_dir_user),
		cmocka_unit_test(test_state_dir_squatted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
