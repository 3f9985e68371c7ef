/* test-sandbox.c - unit tests of sandbox.c: configuration defaults and checks, events, result JSON, failure paths
 *
 * Nothing here starts a sandbox: sandbox_run() is only driven down paths that
 * fail before the backend executes anything (bad configuration, an unusable
 * state directory, a fake cgroup tree whose memory limit cannot be set), to
 * check that the result, the events and the cleanup are right. Running real
 * programs is the business of the CLI tests (tests/cli).
 */
#include "fixture.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <time.h>

#include "sandbox/cgroup-internal.h"
#include "sandbox/sandbox-internal.h"
#include "sandbox/sandbox.h"
#include "base/util.h"

#define FFFD "\xef\xbf\xbd"

static char *argv_true[] = { (char *)"/bin/true", NULL };

/* ---- configuration ---- */

static void test_config_defaults(void **state)
{
	struct sandbox_config cfg;

	(void)state;
	memset(&cfg, 0xa5, sizeof(cfg));
	sandbox_config_init(&cfg);
	assert_string_equal(cfg.backend, "native");
	assert_string_equal(cfg.image, "host");
	assert_null(cfg.argv);
	assert_null(cfg.files);
	assert_int_equal(cfg.n_files, 0);
	assert_null(cfg.stdin_path);
	assert_null(cfg.env);
	assert_int_equal(cfg.n_env, 0);
	assert_float_equal(cfg.cpu_time, 2.0, 0);
	assert_float_equal(cfg.wall_time, 5.0, 0);
	assert_int_equal(cfg.memory, 512ULL << 20);
	assert_int_equal(cfg.pids, 64);
	assert_int_equal(cfg.fds, 64);
	assert_int_equal(cfg.file_size, 16ULL << 20);
	assert_int_equal(cfg.tmpfs, 64ULL << 20);
	assert_int_equal(cfg.output, 1ULL << 20);
	assert_null(cfg.log_path);
	assert_string_equal(cfg.cgroup_root, "/sys/fs/cgroup");
	assert_null(cfg.state_dir);
	assert_int_equal(cfg.cancel_fd, -1);	/* 0 would be stdin: polled, it would stop every run */
}

static void check_fails(const struct sandbox_config *cfg, const char *msg)
{
	struct sd_error err = { 0 };

	if (sandbox_config_check(cfg, &err) != -1)
		fail_msg("accepted; expected '%s'", msg);
	assert_contains(err.msg, msg);
}

static void check_ok(const struct sandbox_config *cfg)
{
	struct sd_error err = { 0 };

	if (sandbox_config_check(cfg, &err) != 0)
		fail_msg("rejected: %s", err.msg);
}

static void test_config_check_basics(void **state)
{
	struct sandbox_config cfg;
	char *no_args[] = { NULL };

	(void)state;
	sandbox_config_init(&cfg);
	check_fails(&cfg, "no program given");
	cfg.argv = no_args;
	check_fails(&cfg, "no program given");
	cfg.argv = argv_true;
	check_ok(&cfg);

	cfg.backend = "nosuch";
	check_fails(&cfg, "unknown backend 'nosuch' (available: native, gvisor, firecracker)");
	cfg.backend = "";
	check_fails(&cfg, "unknown backend ''");
	cfg.backend = "firecracker";
	check_fails(&cfg, "backend 'firecracker'");
	cfg.backend = "native";
	cfg.platform = "ptrace";
	check_fails(&cfg, "platform 'ptrace' is for the gvisor backend only");
	cfg.platform = NULL;

	/* image references are checked for form here, resolved when run */
	cfg.image = "rootfs";
	check_ok(&cfg);
	cfg.image = "py@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	check_ok(&cfg);
	cfg.image = "Rootfs";
	check_fails(&cfg, "image: bad image name 'Rootfs'");
	cfg.image = "py@sha256:00";
	check_fails(&cfg, "image: bad image digest");
	cfg.image = "./rootfs";
	check_fails(&cfg, "image must be 'host', an absolute directory path or NAME[@sha256:HEX], not './rootfs'");
	cfg.image = "/srv/images/python";
	check_ok(&cfg);
	cfg.image = "host";
}

static void test_config_check_limits(void **state)
{
	struct sandbox_config cfg;

	(void)state;
	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	/* the smallest accepted values */
	cfg.pids = 1;
	cfg.fds = 4;
	cfg.memory = 1 << 20;
	cfg.tmpfs = 4096;
	cfg.output = 1;
	check_ok(&cfg);

	cfg.pids = 0;
	check_fails(&cfg, "limits too small (need pids >= 1, fds >= 4, memory >= 1M, tmpfs >= 4K, output >= 1)");
	cfg.pids = 1;
	cfg.fds = 3;
	check_fails(&cfg, "limits too small");
	cfg.fds = 4;
	cfg.memory = (1 << 20) - 1;
	check_fails(&cfg, "limits too small");
	cfg.memory = 1 << 20;
	cfg.tmpfs = 4095;
	check_fails(&cfg, "limits too small");
	cfg.tmpfs = 4096;
	cfg.output = 0;
	check_fails(&cfg, "limits too small");
}

static void test_config_check_env(void **state)
{
	struct sandbox_config cfg;
	char *good[] = { (char *)"A=", (char *)"PATH=/usr/bin", (char *)"X=a=b" };
	char *bad1[] = { (char *)"A=1", (char *)"FOO" };
	char *bad2[] = { (char *)"=value" };

	(void)state;
	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	cfg.env = good;
	cfg.n_env = 3;
	check_ok(&cfg);
	cfg.env = bad1;
	cfg.n_env = 2;
	check_fails(&cfg, "environment entry 'FOO' is not NAME=VALUE");
	cfg.env = bad2;
	cfg.n_env = 1;
	check_fails(&cfg, "environment entry '=value' is not NAME=VALUE");
}

static void test_config_check_file_dest(void **state)
{
	static const struct { const char *dest, *msg; } bad[] = {
		{ "/etc/x", "file destination '/etc/x' is not under /work" },
		{ "/work", "is not under /work" },
		{ "/workx/a", "is not under /work" },
		{ "/work/", "file destination '/work/' names no file under /work" },
		{ "", "names no file under /work" },
		{ "../x", "file destination '../x' may not contain empty, '.' or '..' components" },
		{ "a/../../x", "may not contain" },
		{ "/work/../etc/passwd", "may not contain" },
		{ "a//b", "may not contain" },
		{ "/work//a", "may not contain" },
		{ "a/./b", "may not contain" },
		{ ".", "may not contain" },
		{ "..", "may not contain" },
		{ "a/..", "may not contain" },
		{ "dir/", "file destination 'dir/' ends with '/'" },
		{ "/work/a/", "ends with '/'" },
	};
	static const char *const good[] = {
		"a/b.py", "/work/a.py", "main.c", ".hidden", "..a", "a..", "a.b/c.d", "/work/x/y/z",
	};
	struct sandbox_config cfg;
	struct sandbox_file file;
	char *dir = fx_tmpdir(), *src = fx_str("%s/src.py", dir);

	(void)state;
	fx_write(src, "print(1)\n");
	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	cfg.files = &file;
	cfg.n_files = 1;
	file.src = src;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sd_error err = { 0 };

		file.dest = bad[i].dest;
		if (sandbox_config_check(&cfg, &err) != -1)
			fail_msg("destination '%s' accepted", bad[i].dest);
		assert_contains(err.msg, bad[i].msg);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct sd_error err = { 0 };

		file.dest = good[i];
		if (sandbox_config_check(&cfg, &err) != 0)
			fail_msg("destination '%s' rejected: %s", good[i], err.msg);
	}
	{
		/* over 1024 bytes (the message is cut to fit the error object) */
		char *longdest = malloc(1100);

		assert_non_null(longdest);
		memset(longdest, 'a', 1099);
		longdest[1099] = '\0';
		file.dest = longdest;
		check_fails(&cfg, "file destination 'aaaa");
		longdest[1024] = '\0';
		check_ok(&cfg);
		free(longdest);
	}
	fx_rm_rf(dir);
	free(src);
	free(dir);
}

static void test_config_check_sources(void **state)
{
	struct sandbox_config cfg;
	struct sandbox_file files[2];
	char *dir = fx_tmpdir(), *src = fx_str("%s/ok", dir), *missing = fx_str("%s/missing", dir), *want;

	(void)state;
	fx_write(src, "");
	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	files[0] = (struct sandbox_file){ .dest = "a.py", .src = src };
	files[1] = (struct sandbox_file){ .dest = "b.py", .src = missing };
	cfg.files = files;
	cfg.n_files = 2;
	want = fx_str("cannot read file source '%s': No such file or directory", missing);
	check_fails(&cfg, want);
	free(want);
	cfg.n_files = 1;
	check_ok(&cfg);

	cfg.stdin_path = missing;
	want = fx_str("cannot read stdin file '%s': No such file or directory", missing);
	check_fails(&cfg, want);
	free(want);
	cfg.stdin_path = src;
	check_ok(&cfg);
	fx_rm_rf(dir);
	free(src);
	free(missing);
	free(dir);
}

/* ---- names ---- */

static void test_status_names(void **state)
{
	static const char *const want[] = {
		[SB_OK] = "ok",
		[SB_NONZERO_EXIT] = "nonzero_exit",
		[SB_SIGNALED] = "signaled",
		[SB_CPU_LIMIT] = "cpu_limit",
		[SB_WALL_LIMIT] = "wall_limit",
		[SB_MEMORY_LIMIT] = "memory_limit",
		[SB_OUTPUT_LIMIT] = "output_limit",
		[SB_FILE_SIZE_LIMIT] = "file_size_limit",
		[SB_SECCOMP_VIOLATION] = "seccomp_violation",
		[SB_SANDBOX_ERROR] = "sandbox_error",
		[SB_INTERRUPTED] = "interrupted",
	};

	(void)state;
	for (int s = SB_OK; s <= SB_INTERRUPTED; s++)
		assert_string_equal(sandbox_status_name((enum sandbox_status)s), want[s]);
	assert_string_equal(sandbox_status_name((enum sandbox_status)(SB_INTERRUPTED + 1)), "sandbox_error");
	assert_string_equal(sandbox_status_name((enum sandbox_status)-1), "sandbox_error");
}

static void test_backends(void **state)
{
	const char *const *b = sandbox_backends();

	(void)state;
	assert_non_null(b);
	assert_string_equal(b[0], "native");
	assert_string_equal(b[1], "gvisor");
	assert_string_equal(b[2], "firecracker");
	assert_null(b[3]);
}

/* ---- result JSON ---- */

static json_t *parse(const char *text)
{
	json_error_t jerr;
	json_t *j;

	assert_non_null(text);
	j = json_loads(text, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
	if (!j)
		fail_msg("invalid JSON (%s at %d): %s", jerr.text, jerr.position, text);
	assert_true(json_is_object(j));
	return j;
}

static json_t *get(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		fail_msg("no key '%s'", key);
	return v;
}

static void assert_json_string(json_t *o, const char *key, const char *want, size_t len)
{
	json_t *v = get(o, key);

	if (!json_is_string(v))
		fail_msg("'%s' is not a string", key);
	if (json_string_length(v) != len || memcmp(json_string_value(v), want, len) != 0)
		fail_msg("'%s' is '%s' (length %zu), want '%s' (length %zu)", key, json_string_value(v),
			 json_string_length(v), want, len);
}

#define assert_json_str(o, key, lit) assert_json_string((o), (key), (lit), strlen(lit))

static void assert_json_int(json_t *o, const char *key, json_int_t want)
{
	json_t *v = get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) != want)
		fail_msg("'%s' is not the integer %lld", key, (long long)want);
}

static void assert_json_null(json_t *o, const char *key)
{
	if (!json_is_null(get(o, key)))
		fail_msg("'%s' is not null", key);
}

/* A result as a finished run leaves it (limit, note, events). */
static void fill_result(struct sandbox_result *res, struct sandbox_event *ev)
{
	static char out[] = "ok\xff\0z";
	static char err_text[] = "warn\n";

	memset(res, 0, sizeof(*res));
	snprintf(res->id, sizeof(res->id), "0123456789abcdef0123456789abcdef");
	res->backend = "native";
	res->status = SB_MEMORY_LIMIT;
	res->exit_code = -1;
	res->signal = 9;
	res->wall_ms = 1234;
	res->cpu_ms = -1;
	res->peak_memory_bytes = 536870912;
	res->stdout_buf = out;
	res->stdout_len = 5;
	res->stderr_buf = err_text;
	res->stderr_len = 5;
	res->stdout_truncated = true;
	sandbox_add_limit(res, "memory", 536870912.0, "bytes", "cgroup-v2");
	sandbox_add_limit(res, "cpu_time", 2.5, "seconds", "cgroup-v2");
	sandbox_add_limit(res, "pids", 64, "count", "rlimit");
	snprintf(res->limits_note, sizeof(res->limits_note), "pids controller not delegated");
	ev[0] = (struct sandbox_event){ 3, "provision", (char *)"cgroup-v2 cgroup" };
	ev[1] = (struct sandbox_event){ 40, "limit", (char *)"memory \xc3(" };
	res->events = ev;
	res->n_events = 2;
	res->host_uid = 2000123456;
	res->landlock_abi = 3;
	res->seccomp_syscalls = 321;
}

static void test_result_json(void **state)
{
	struct sandbox_result res;
	struct sandbox_event ev[2];
	char *text;
	json_t *j, *limits, *l, *iso, *events, *e;

	(void)state;
	fill_result(&res, ev);
	text = sandbox_result_json(&res);
	j = parse(text);
	assert_json_str(j, "sandbox_id", "0123456789abcdef0123456789abcdef");
	assert_json_str(j, "backend", "native");
	assert_json_str(j, "status", "memory_limit");
	assert_json_null(j, "exit_code");
	assert_json_int(j, "signal", 9);
	assert_json_int(j, "wall_ms", 1234);
	assert_json_null(j, "cpu_ms");
	assert_json_int(j, "peak_memory_bytes", 536870912);
	/* invalid byte replaced, embedded NUL kept (as \u0000) */
	assert_json_string(j, "stdout", "ok" FFFD "\0z", 7);
	assert_contains(text, "\"ok" FFFD "\\u0000z\"");
	assert_json_str(j, "stderr", "warn\n");
	assert_true(json_is_true(get(j, "stdout_truncated")));
	assert_true(json_is_false(get(j, "stderr_truncated")));
	assert_null(json_object_get(j, "error"));

	limits = get(j, "limits");
	assert_int_equal(json_object_size(limits), 3);	/* the limits only */
	l = get(limits, "memory");
	assert_json_int(l, "value", 536870912);
	assert_json_str(l, "unit", "bytes");
	assert_json_str(l, "mechanism", "cgroup-v2");
	l = get(limits, "cpu_time");
	assert_true(json_is_real(get(l, "value")));
	assert_float_equal(json_real_value(get(l, "value")), 2.5, 0);
	assert_json_str(l, "unit", "seconds");
	l = get(limits, "pids");
	assert_json_int(l, "value", 64);
	assert_json_str(l, "mechanism", "rlimit");
	assert_null(json_object_get(limits, "note"));
	assert_json_str(j, "limits_note", "pids controller not delegated");

	iso = get(j, "isolation");
	assert_json_int(iso, "host_uid", 2000123456);
	assert_json_int(iso, "landlock_abi", 3);
	assert_json_int(iso, "seccomp_syscalls", 321);

	events = get(j, "events");
	assert_true(json_is_array(events));
	assert_int_equal(json_array_size(events), 2);
	e = json_array_get(events, 0);
	assert_json_int(e, "t_ms", 3);
	assert_json_str(e, "phase", "provision");
	assert_json_str(e, "detail", "cgroup-v2 cgroup");
	e = json_array_get(events, 1);
	assert_json_str(e, "phase", "limit");
	assert_json_str(e, "detail", "memory " FFFD "(");

	json_decref(j);
	free(text);
}

/* The keys, in their documented order. */
static void test_result_json_key_order(void **state)
{
	static const char *const keys[] = {
		"sandbox_id", "backend", "status", "exit_code", "signal", "wall_ms", "cpu_ms",
		"peak_memory_bytes", "stdout", "stderr", "stdout_truncated", "stderr_truncated",
		"limits", "limits_note", "isolation", "image", "events", "error",
	};
	struct sandbox_result res;
	struct sandbox_event ev[2];
	char *text;
	const char *p;

	(void)state;
	fill_result(&res, ev);
	res.status = SB_SANDBOX_ERROR;
	snprintf(res.error, sizeof(res.error), "boom");
	text = sandbox_result_json(&res);
	assert_non_null(text);
	p = text;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *quoted = fx_str("\"%s\":", keys[i]);
		const char *at = strstr(p, quoted);

		if (!at)
			fail_msg("key '%s' missing or out of order in %s", keys[i], text);
		p = at + strlen(quoted);
		free(quoted);
	}
	free(text);
}

/* sandbox_config.settled's two steps: the object made before run_ms and the
 * last events were known, finished afterwards, is the one-step JSON, byte
 * for byte (run_ms in its place, the later events appended). */
static void test_result_json_in_two_steps(void **state)
{
	struct sandbox_result res;
	struct sandbox_event ev[2];
	json_t *early;
	char *one, *two;

	(void)state;
	fill_result(&res, ev);
	res.n_events = 1;
	res.run_ms = 0;
	early = sandbox_result_object(&res);
	assert_non_null(early);
	res.n_events = 2;
	res.run_ms = 4321;
	two = sandbox_result_finish(early, 1, &res);
	one = sandbox_result_json(&res);
	assert_non_null(two);
	assert_string_equal(two, one);
	assert_contains(two, "\"run_ms\":4321,\"peak_memory_bytes\"");
	free(one);
	free(two);
	assert_null(sandbox_result_finish(NULL, 0, &res));
}

static void test_result_json_ok_and_error(void **state)
{
	struct sandbox_result res;
	char *text;
	json_t *j;

	(void)state;
	memset(&res, 0, sizeof(res));
	res.status = SB_OK;
	res.exit_code = 0;
	res.signal = 0;
	res.cpu_ms = 0;
	res.peak_memory_bytes = -1;
	text = sandbox_result_json(&res);
	j = parse(text);
	assert_json_str(j, "status", "ok");
	assert_json_int(j, "exit_code", 0);	/* 0 is a value, not null */
	assert_json_null(j, "signal");
	assert_json_int(j, "cpu_ms", 0);
	assert_json_null(j, "peak_memory_bytes");
	assert_json_str(j, "backend", "native");	/* NULL backend */
	assert_json_str(j, "stdout", "");		/* NULL buffers */
	assert_json_str(j, "stderr", "");
	assert_int_equal(json_object_size(get(j, "limits")), 0);
	assert_null(json_object_get(j, "limits_note"));	/* only when there is one */
	assert_int_equal(json_array_size(get(j, "events")), 0);
	assert_null(json_object_get(j, "error"));
	json_decref(j);
	free(text);

	res.status = SB_NONZERO_EXIT;
	res.exit_code = 3;
	snprintf(res.error, sizeof(res.error), "not shown");
	text = sandbox_result_json(&res);
	j = parse(text);
	assert_json_int(j, "exit_code", 3);
	assert_null(json_object_get(j, "error"));	/* only for sandbox_error */
	json_decref(j);
	free(text);

	res.status = SB_SANDBOX_ERROR;
	res.exit_code = -1;
	snprintf(res.error, sizeof(res.error), "cannot create 'x': bad \xff");
	text = sandbox_result_json(&res);
	j = parse(text);
	assert_json_str(j, "status", "sandbox_error");
	assert_json_str(j, "error", "cannot create 'x': bad " FFFD);
	json_decref(j);
	free(text);
}

/* limits_note quotes paths (from /proc/self/cgroup): sanitized like the rest. */
static void test_result_json_note_invalid_utf8(void **state)
{
	struct sandbox_result res;
	char *text;
	json_t *j;

	(void)state;
	memset(&res, 0, sizeof(res));
	res.exit_code = -1;
	snprintf(res.limits_note, sizeof(res.limits_note), "cannot create '/sys/fs/cgroup/\xff/x'");
	text = sandbox_result_json(&res);
	j = parse(text);
	assert_json_str(j, "limits_note", "cannot create '/sys/fs/cgroup/" FFFD "/x'");
	json_decref(j);
	free(text);
}

static void test_add_limit_cap(void **state)
{
	struct sandbox_result res;

	(void)state;
	memset(&res, 0, sizeof(res));
	for (int i = 0; i < 20; i++)
		sandbox_add_limit(&res, "x", i, "count", "rlimit");
	assert_int_equal(res.n_limits, sizeof(res.limits) / sizeof(res.limits[0]));
	assert_float_equal(res.limits[11].value, 11, 0);
}

/* ---- events and the --log file ---- */

static void test_event_log(void **state)
{
	struct sandbox_result res;
	struct sandbox_ctx ctx;
	char *dir = fx_tmpdir(), *log = fx_str("%s/events.jsonl", dir), *text, *nl;
	json_t *j;

	(void)state;
	memset(&res, 0, sizeof(res));
	snprintf(res.id, sizeof(res.id), "feedfacefeedfacefeedfacefeedface");
	memset(&ctx, 0, sizeof(ctx));
	ctx.res = &res;
	ctx.t0_ms = now_ms() - 5;
	ctx.log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(ctx.log_fd >= 0);

	sandbox_event(&ctx, "inject", "copied %s", "a\xff" "b");
	sandbox_event(&ctx, "destroy", "done");
	close(ctx.log_fd);
	ctx.log_fd = -1;
	sandbox_event(&ctx, "destroy", "not logged");

	assert_int_equal(res.n_events, 3);
	assert_string_equal(res.events[0].phase, "inject");
	assert_string_equal(res.events[0].detail, "copied a\xff" "b");	/* raw in the result */
	assert_true(res.events[0].t_ms >= 5 && res.events[0].t_ms < 5000);
	assert_string_equal(res.events[2].detail, "not logged");

	text = fx_read(log);
	assert_non_null(text);
	nl = strchr(text, '\n');
	assert_non_null(nl);
	*nl = '\0';
	j = parse(text);
	assert_json_str(j, "sandbox_id", "feedfacefeedfacefeedfacefeedface");
	assert_json_str(j, "phase", "inject");
	assert_json_str(j, "detail", "copied a" FFFD "b");	/* sanitized in the log */
	assert_true(json_integer_value(get(j, "t_ms")) >= 5);
	json_decref(j);
	j = parse(nl + 1);
	assert_json_str(j, "phase", "destroy");
	assert_json_str(j, "detail", "done");
	json_decref(j);
	/* exactly one more line, ending with a newline */
	assert_non_null(strchr(nl + 1, '\n'));
	assert_string_equal(strchr(nl + 1, '\n'), "\n");
	free(text);

	sandbox_result_release(&res);
	assert_null(res.events);
	assert_int_equal(res.n_events, 0);
	fx_rm_rf(dir);
	free(log);
	free(dir);
}

static void test_result_release(void **state)
{
	struct sandbox_result res;

	(void)state;
	memset(&res, 0, sizeof(res));
	res.stdout_buf = strdup("out");
	res.stderr_buf = strdup("err");
	res.events = calloc(2, sizeof(*res.events));
	assert_non_null(res.events);
	res.events[0].detail = strdup("a");
	res.events[1].detail = strdup("b");
	res.n_events = 2;
	res.exit_code = 3;
	sandbox_result_release(&res);	/* ASan checks that all of it is freed once */
	assert_null(res.stdout_buf);
	assert_null(res.stderr_buf);
	assert_int_equal(res.exit_code, 0);
	sandbox_result_release(&res);	/* and again on the zeroed result */
}

/* ---- sandbox_run down its failure paths ---- */

static void test_run_config_error(void **state)
{
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct sd_error err = { 0 };

	(void)state;
	sandbox_config_init(&cfg);
	memset(&res, 0x5a, sizeof(res));
	assert_int_equal(sandbox_run(&cfg, &res, &err), -1);
	assert_contains(err.msg, "no program given");
	assert_int_equal(res.exit_code, -1);
	assert_int_equal(res.cpu_ms, -1);
	assert_int_equal(res.peak_memory_bytes, -1);
	assert_null(res.events);
	assert_null(res.stdout_buf);
	sandbox_result_release(&res);
}

static void test_run_bad_log(void **state)
{
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct sd_error err = { 0 };

	(void)state;
	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	cfg.log_path = "/nonexistent-dir/events.jsonl";
	assert_int_equal(sandbox_run(&cfg, &res, &err), -1);
	assert_string_equal(err.msg, "cannot open log file '/nonexistent-dir/events.jsonl': No such file or directory");
	sandbox_result_release(&res);
}

/* The state directory is unusable: a sandbox_error result, with the destroy
 * event, the log lines, and nothing executed. */
static void test_run_state_dir_error(void **state)
{
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct sd_error err = { 0 };
	char *dir = fx_tmpdir(), *missing = fx_str("%s/no-state", dir), *log = fx_str("%s/log", dir), *want, *text;
	json_t *j;
	int lines = 0;

	(void)state;
	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	cfg.state_dir = missing;
	cfg.log_path = log;
	assert_int_equal(sandbox_run(&cfg, &res, &err), 0);
	assert_int_equal(res.status, SB_SANDBOX_ERROR);
	assert_string_equal(res.backend, "native");
	assert_int_equal(strlen(res.id), 32);
	want = fx_str("cannot create '%s/%s.tmp': No such file or directory", missing, res.id);
	assert_string_equal(res.error, want);
	free(want);
	assert_int_equal(res.exit_code, -1);
	assert_int_equal(res.n_events, 2);
	assert_string_equal(res.events[0].phase, "execute");
	assert_contains(res.events[0].detail, "sandbox error: cannot create '");
	assert_string_equal(res.events[1].phase, "destroy");
	assert_int_equal(res.n_limits, 0);

	text = sandbox_result_json(&res);
	j = parse(text);
	assert_json_str(j, "status", "sandbox_error");
	assert_json_str(j, "error", res.error);
	json_decref(j);
	free(text);

	text = fx_read(log);
	assert_non_null(text);
	for (char *p = text; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 2);
	assert_contains(text, res.id);
	free(text);

	sandbox_result_release(&res);
	fx_rm_rf(dir);
	free(missing);
	free(log);
	free(dir);
}

static int count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* A fake v1 cgroup tree: the run's cgroups are made, setting the memory limit
 * fails (no control files), and everything is removed again: cgroups, record. */
static void test_run_provision_error_cleans_up(void **state)
{
	struct sandbox_config cfg;
	struct sandbox_result res;
	struct sd_error err = { 0 };
	char *dir = fx_tmpdir(), *root = fx_str("%s/cgroot", dir), *st = fx_str("%s/state", dir);
	char *own = cgroup_own_path("/proc/self/cgroup", "memory"), *mem, *want;
	char **parents;

	(void)state;
	if (!own) {	/* no v1 memory controller: provisioning would succeed */
		fx_rm_rf(dir);
		free(dir);
		free(root);
		free(st);
		fx_skip("host: no cgroup v1 memory controller (a pure v2 host)");
	}
	fx_mkdir_p(root);
	fx_mkdir_p(st);
	parents = cgroup_parent_dirs(root, "/proc/self/cgroup");
	assert_non_null(parents);
	for (char **p = parents; *p; p++)
		fx_mkdir_p(*p);
	mem = fx_str("%s/memory%s", root, strcmp(own, "/") == 0 ? "" : own);

	sandbox_config_init(&cfg);
	cfg.argv = argv_true;
	cfg.cgroup_root = root;
	cfg.state_dir = st;
	assert_int_equal(sandbox_run(&cfg, &res, &err), 0);
	assert_int_equal(res.status, SB_SANDBOX_ERROR);
	want = fx_str("memory limit: cannot open '%s/sandeval-%s/memory.limit_in_bytes': No such file or directory",
		      mem, res.id);
	assert_string_equal(res.error, want);
	free(want);
	assert_true(res.n_events >= 2);
	assert_string_equal(res.events[res.n_events - 1].phase, "destroy");
	assert_contains(res.events[res.n_events - 1].detail, "cgroup removed");
	for (char **p = parents; *p; p++)
		if (count_prefixed(*p, "sandeval-") != 0)
			fail_msg("a run cgroup is left in '%s'", *p);
	assert_int_equal(count_prefixed(st, ""), 2);	/* ".", "..": the record is gone */

	sandbox_result_release(&res);
	cgroup_free_list(parents);
	fx_rm_rf(dir);
	free(own);
	free(mem);
	free(root);
	free(st);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_check_basics),
		cmocka_unit_test(test_config_check_limits),
		cmocka_unit_test(test_config_check_env),
		cmocka_unit_test(test_config_check_file_dest),
		cmocka_unit_test(test_config_check_sources),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_backends),
		cmocka_unit_test(test_result_json),
		cmocka_unit_test(test_result_json_key_order),
		cmocka_unit_test(test_result_json_in_two_steps),
		cmocka_unit_test(test_result_json_ok_and_error),
		cmocka_unit_test(test_result_json_note_invalid_utf8),
		cmocka_unit_test(test_add_limit_cap),
		cmocka_unit_test(test_event_log),
		cmocka_unit_test(test_result_release),
		cmocka_unit_test(test_run_config_error),
		cmocka_unit_test(test_run_bad_log),
		cmocka_unit_test(test_run_state_dir_error),
		cmocka_unit_test(test_run_provision_error_cleans_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
