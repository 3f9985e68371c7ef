/* sandbox.c - the five phases of a run, backend-independent: configuration, events, result JSON
 *
 * sandbox_run() provisions a fresh sandbox through a backend (see
 * sandbox-native.c for the theory of operation of the native one), lets it
 * inject the files, constrain and execute the program, and always destroys it,
 * whatever failed on the way. Nothing is reused between runs.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/runrec.h"
#include "sandbox/image.h"
#include "base/utf8.h"
#include "base/util.h"

static const struct sandbox_backend *const backends[] = {
	&sandbox_native_backend,
	&sandbox_gvisor_backend,
	&sandbox_firecracker_backend,
};

const char *const *sandbox_backends(void)
{
	static const char *names[sizeof(backends) / sizeof(backends[0]) + 1];

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		names[i] = backends[i]->name;
	return names;
}

#define SPARES_MAX 64

static int spares_from_env(void)
{
	const char *v = getenv("SANDEVAL_CGROUP_SPARES");
	char *end;
	long n;

	if (!v)
		return 8;
	errno = 0;
	n = strtol(v, &end, 10);
	return errno || end == v || *end || n < 0 || n > SPARES_MAX ? -1 : (int)n;
}

int sandbox_env_check(struct sd_error *err)
{
	const char *v = getenv("SANDEVAL_CGROUP_SPARES");

	if (spares_from_env() < 0)
		return sd_error_set(err, EINVAL, "SANDEVAL_CGROUP_SPARES: '%s' is not a whole number from 0 to %d",
				    v, SPARES_MAX);
	return 0;
}

void sandbox_config_init(struct sandbox_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = "native";
	cfg->image = "host";
	cfg->cpu_time = 2.0;
	cfg->wall_time = 5.0;
	cfg->memory = 512ull << 20;
	cfg->pids = 64;
	cfg->fds = 64;
	cfg->file_size = 16ull << 20;
	cfg->tmpfs = 64ull << 20;
	cfg->output = 1ull << 20;
	cfg->cgroup_root = "/sys/fs/cgroup";
	cfg->cgroup_spares = spares_from_env();
	cfg->cancel_fd = -1;
}

int sandbox_backend_sweep(const char *state_dir, char *line, bool *removed, struct sd_error *err)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const struct sandbox_backend *be = backends[i];
		size_t n = be->record_tag ? strlen(be->record_tag) : 0;
		int r;

		if (!n || !be->sweep || strncmp(line, be->record_tag, n) != 0 || line[n] != '\t')
			continue;
		r = be->sweep(state_dir, line + n + 1, err);
		if (r < 0)
			return -1;
		*removed = r > 0;
		return 1;
	}
	return 0;
}

static const struct sandbox_backend *find_backend(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

/* DEST must name a file beneath /work without "..", "." or empty components. */
static int check_dest(const char *dest, struct sd_error *err)
{
	const char *p = dest;

	if (strncmp(p, "/work/", 6) == 0)
		p += 6;
	else if (*p == '/')
		return sd_error_set(err, EINVAL, "file destination '%s' is not under /work", dest);
	if (!*p || strlen(p) > 1024)
		return sd_error_set(err, EINVAL, "file destination '%s' names no file under /work", dest);
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return sd_error_set(err, EINVAL, "file destination '%s' may not contain empty, '.' or '..' components", dest);
		c += n;
		if (*c == '/') {
			c++;
			if (!*c)
				return sd_error_set(err, EINVAL, "file destination '%s' ends with '/'", dest);
		}
	}
	return 0;
}

int sandbox_config_check(const struct sandbox_config *cfg, struct sd_error *err)
{
	const struct sandbox_backend *be;

	if (!cfg->argv || !cfg->argv[0])
		return sd_error_set(err, EINVAL, "no program given");
	if (cfg->cgroup_spares < 0 || cfg->cgroup_spares > SPARES_MAX)
		return sandbox_env_check(err) < 0 ? -1 :
		       sd_error_set(err, EINVAL, "cgroup_spares %d is not from 0 to %d", cfg->cgroup_spares, SPARES_MAX);
	be = find_backend(cfg->backend);
	if (!be) {
		char names[256] = "";

		for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 backends[i]->name);
		return sd_error_set(err, EINVAL, "unknown backend '%s' (available: %s)", cfg->backend, names);
	}
	if (be->check && be->check(cfg, err) < 0)
		return -1;
	if (cfg->platform && strcmp(cfg->backend, "gvisor") != 0)
		return sd_error_set(err, EINVAL, "platform '%s' is for the gvisor backend only", cfg->platform);
	if (strcmp(cfg->image, "host") != 0 && cfg->image[0] != '/') {
		struct image_ref ref;

		if (!image_ref_like(cfg->image))
			return sd_error_set(err, EINVAL, "image must be 'host', an absolute directory path or "
					    "NAME[@sha256:HEX], not '%s'", cfg->image);
		if (image_ref_parse(cfg->image, &ref, err) < 0)
			return sd_error_wrap(err, "image");
	}
	if (cfg->pids < 1 || cfg->fds < 4 || cfg->memory < (1u << 20) || cfg->tmpfs < 4096 || cfg->output < 1)
		return sd_error_set(err, EINVAL, "limits too small (need pids >= 1, fds >= 4, memory >= 1M, tmpfs >= 4K, output >= 1)");
	for (size_t i = 0; i < cfg->n_env; i++) {
		const char *eq = strchr(cfg->env[i], '=');

		if (!eq || eq == cfg->env[i])
			return sd_error_set(err, EINVAL, "environment entry '%s' is not NAME=VALUE", cfg->env[i]);
	}
	for (size_t i = 0; i < cfg->n_files; i++) {
		if (check_dest(cfg->files[i].dest, err) < 0)
			return -1;
		if (!cfg->files[i].data && access(cfg->files[i].src, R_OK) < 0)
			return sd_error_errno(err, errno, "cannot read file source '%s'", cfg->files[i].src);
	}
	if (cfg->stdin_path && access(cfg->stdin_path, R_OK) < 0)
		return sd_error_errno(err, errno, "cannot read stdin file '%s'", cfg->stdin_path);
	return 0;
}

void sandbox_add_limit(struct sandbox_result *res, const char *name, double value,
		       const char *unit, const char *mechanism)
{
	if (res->n_limits < sizeof(res->limits) / sizeof(res->limits[0]))
		res->limits[res->n_limits++] = (struct sandbox_limit){ name, value, unit, mechanism };
}

int sandbox_provision_cgroup(struct sandbox_ctx *ctx, long pids_max, unsigned want, int spares,
			     struct sandbox_cg *has, struct sd_error *why, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	char name[64];

	memset(has, 0, sizeof(*has));
	snprintf(name, sizeof(name), "sandeval-%s", ctx->res->id);
	ctx->cg = cgroup_create(cfg->cgroup_root, "/proc/self/cgroup", name, want, spares, why);
	if (!ctx->cg)
		return 0;
	for (const char *const *d = cgroup_dirs(ctx->cg); *d; d++)
		if (runrec_note(ctx->lock_fd, *d, err) < 0)
			return -1;
	has->memory = cgroup_has(ctx->cg, CG_MEMORY);
	has->pids = cgroup_has(ctx->cg, CG_PIDS);
	has->cpu = cgroup_has(ctx->cg, CG_CPU);
	if (has->memory && cgroup_set_memory(ctx->cg, cfg->memory, err) < 0)
		return sd_error_wrap(err, "memory limit");
	if (has->pids && cgroup_set_pids(ctx->cg, pids_max, err) < 0)
		return sd_error_wrap(err, "pids limit");
	snprintf(ctx->res->limits_note, sizeof(ctx->res->limits_note), "%s", cgroup_note(ctx->cg));
	return 0;
}

void sandbox_add_limits(struct sandbox_ctx *ctx, const struct sandbox_cg *has)
{
	const struct sandbox_config *cfg = ctx->cfg;
	struct sandbox_result *res = ctx->res;
	const char *mech = ctx->cg ? cgroup_mechanism(ctx->cg) : "rlimit";

	sandbox_add_limit(res, "cpu_time", cfg->cpu_time, "seconds", has->cpu ? mech : "rlimit");
	sandbox_add_limit(res, "wall_time", cfg->wall_time, "seconds", "supervisor");
	sandbox_add_limit(res, "memory", (double)cfg->memory, "bytes", has->memory ? mech : "rlimit");
	sandbox_add_limit(res, "pids", (double)cfg->pids, "count", has->pids ? mech : "rlimit");
	sandbox_add_limit(res, "fds", (double)cfg->fds, "count", "rlimit");
	sandbox_add_limit(res, "file_size", (double)cfg->file_size, "bytes", "rlimit");
	sandbox_add_limit(res, "core", 0, "bytes", "rlimit");
	sandbox_add_limit(res, "tmpfs", (double)cfg->tmpfs, "bytes", "tmpfs");
	sandbox_add_limit(res, "output", (double)cfg->output, "bytes", "supervisor");
}

void sandbox_event(struct sandbox_ctx *ctx, const char *phase, const char *fmt, ...)
{
	struct sandbox_result *res = ctx->res;
	struct sandbox_event *ev;
	va_list ap;
	char *detail;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&detail, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	ev = realloc(res->events, (res->n_events + 1) * sizeof(*ev));
	if (!ev) {
		free(detail);
		return;
	}
	res->events = ev;
	ev = &res->events[res->n_events++];
	ev->t_ms = now_ms() - ctx->t0_ms;
	ev->phase = phase;
	ev->detail = detail;
	if (ctx->log_fd >= 0) {
		json_t *o = json_pack("{s:s, s:I, s:s, s:s}", "sandbox_id", res->id,
				      "t_ms", (json_int_t)ev->t_ms, "phase", phase, "detail", "");
		cleanup_free char *clean = utf8_sanitize(detail, strlen(detail), NULL);
		cleanup_free char *line = NULL;

		if (o && clean)
			json_object_set_new(o, "detail", json_string(clean));
		line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		if (line) {
			size_t n = strlen(line);

			line[n] = '\n';	/* replaces the NUL; written with its length */
			write_all(ctx->log_fd, line, n + 1);
		}
		json_decref(o);
	}
}

/* Image references: NAME[@sha256:HEX] becomes the stored build's rootfs; the
 * result names what ran (the host image's digest from its cache, if fresh). */
/* noinline: its 8 KiB of paths leave the stack before the sandbox is made
 * (sandbox-child.c, ENTRY_PATH: each page is a fault) */
static __attribute__((noinline)) int resolve_image(const struct sandbox_config *cfg, struct sandbox_config *local,
						   char *rootfs, size_t size, struct sandbox_result *res,
						   struct sd_error *err)
{
	struct image_ref ref;
	struct image_info info;
	char store[4096];

	*local = *cfg;
	snprintf(res->image_name, sizeof(res->image_name), "%s", cfg->image);
	if (strcmp(cfg->image, "host") == 0) {
		char cache[4200];

		if (image_store_dir(store, sizeof(store), false, NULL) == 0) {
			snprintf(cache, sizeof(cache), "%s/host.digest", store);
			image_host_digest(cache, false, res->image_digest, NULL);
		}
		return 0;
	}
	if (cfg->image[0] == '/')
		return 0;
	if (image_ref_parse(cfg->image, &ref, err) < 0 || image_store_dir(store, sizeof(store), false, err) < 0 ||
	    image_resolve(store, &ref, &info, err) < 0)
		return -1;
	snprintf(rootfs, size, "%s", info.rootfs);
	snprintf(res->image_name, sizeof(res->image_name), "%s", info.name);
	snprintf(res->image_digest, sizeof(res->image_digest), "%s", info.digest);
	image_info_release(&info);
	local->image = rootfs;
	return 0;
}

int sandbox_ctx_begin(struct sandbox_ctx *ctx, struct sd_error *err)
{
	if (random_hex(ctx->res->id, 16, err) < 0)
		return -1;
	if (ctx->cfg->log_path) {
		ctx->log_fd = open(ctx->cfg->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (ctx->log_fd < 0)
			return sd_error_errno(err, errno, "cannot open log file '%s'", ctx->cfg->log_path);
	}
	return 0;
}

int sandbox_ctx_provision(struct sandbox_ctx *ctx, const struct sandbox_backend *be, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	char state_dir[4096];

	if (cfg->state_dir)
		snprintf(state_dir, sizeof(state_dir), "%s", cfg->state_dir);
	if ((!cfg->state_dir && runrec_state_dir(state_dir, sizeof(state_dir), err) < 0) ||
	    (ctx->lock_fd = runrec_take(state_dir, ctx->res->id, &ctx->lock_path, err)) < 0)
		return -1;
	return be->provision(ctx, err);
}

void sandbox_ctx_end(struct sandbox_ctx *ctx, const struct sandbox_backend *be)
{
	be->destroy(ctx);
	if (ctx->lock_fd >= 0)
		runrec_drop(ctx->lock_fd, ctx->lock_path);
	else
		free(ctx->lock_path);
	ctx->lock_fd = -1;
	ctx->lock_path = NULL;
	if (ctx->log_fd >= 0)
		close(ctx->log_fd);
	ctx->log_fd = -1;
}

int sandbox_run(const struct sandbox_config *cfg, struct sandbox_result *res, struct sd_error *err)
{
	const struct sandbox_backend *be;
	struct sandbox_ctx ctx = { .cfg = cfg, .res = res, .log_fd = -1, .lock_fd = -1 };
	struct sd_error e = { 0 };
	char image_dir[4096];
	struct sandbox_config local;
	int r;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	res->cpu_ms = -1;
	res->peak_memory_bytes = -1;
	res->prestart_cpu_ms = res->sandbox_cpu_ms = -1;
	if (sandbox_config_check(cfg, err) < 0)
		return -1;
	if (resolve_image(cfg, &local, image_dir, sizeof(image_dir), res, err) < 0)
		return -1;
	cfg = &local;
	ctx.cfg = cfg;
	be = find_backend(cfg->backend);
	res->backend = be->name;
	ctx.t0_ms = now_ms();
	if (cfg->pool && be == &sandbox_gvisor_backend)
		r = sandbox_pool_take(cfg->pool, &ctx, &e);
	else if (sandbox_ctx_begin(&ctx, err) < 0)
		return -1;
	else
		r = sandbox_ctx_provision(&ctx, be, &e);
	if (r < 0 || be->execute(&ctx, &e) < 0) {
		res->status = SB_SANDBOX_ERROR;
		snprintf(res->error, sizeof(res->error), "%s", e.msg);
		sandbox_event(&ctx, "execute", "sandbox error: %s", e.msg);
	}
	if (!cfg->pool || be != &sandbox_gvisor_backend || !sandbox_pool_retire(cfg->pool, &ctx))
		sandbox_ctx_end(&ctx, be);
	res->run_ms = now_ms() - ctx.t0_ms;
	return 0;
}

void sandbox_result_release(struct sandbox_result *res)
{
	free(res->stdout_buf);
	free(res->stderr_buf);
	for (size_t i = 0; i < res->n_events; i++)
		free(res->events[i].detail);
	free(res->events);
	memset(res, 0, sizeof(*res));
}

const char *sandbox_status_name(enum sandbox_status status)
{
	static const char *const names[] = {
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

	return (unsigned)status < sizeof(names) / sizeof(names[0]) ? names[status] : "sandbox_error";
}

static json_t *text_value(const char *buf, size_t len)
{
	size_t n;
	cleanup_free char *clean = utf8_sanitize(buf ? buf : "", buf ? len : 0, &n);

	return clean ? json_stringn(clean, n) : json_null();
}

static void add_events(json_t *events, const struct sandbox_result *res, size_t from)
{
	for (size_t i = from; i < res->n_events; i++) {
		const struct sandbox_event *ev = &res->events[i];

		json_array_append_new(events, json_pack("{s:I, s:s, s:o}", "t_ms", (json_int_t)ev->t_ms,
							"phase", ev->phase,
							"detail", text_value(ev->detail, strlen(ev->detail))));
	}
}

json_t *sandbox_result_object(const struct sandbox_result *res)
{
	json_t *o = json_object(), *limits = json_object(), *events = json_array();

	if (!o || !limits || !events) {
		json_decref(o);
		json_decref(limits);
		json_decref(events);
		return NULL;
	}
	json_object_set_new(o, "sandbox_id", json_string(res->id));
	json_object_set_new(o, "backend", json_string(res->backend ? res->backend : "native"));
	json_object_set_new(o, "status", json_string(sandbox_status_name(res->status)));
	json_object_set_new(o, "exit_code", res->exit_code >= 0 ? json_integer(res->exit_code) : json_null());
	json_object_set_new(o, "signal", res->signal > 0 ? json_integer(res->signal) : json_null());
	json_object_set_new(o, "wall_ms", json_integer(res->wall_ms));
	json_object_set_new(o, "cpu_ms", res->cpu_ms >= 0 ? json_integer(res->cpu_ms) : json_null());
	json_object_set_new(o, "run_ms", json_integer(res->run_ms));
	if (res->platform)	/* gvisor: its start, before and after the sample came */
		json_object_set_new(o, "start", json_pack("{s:b, s:I, s:o, s:o}", "pooled", res->pooled,
			"prestart_ms", (json_int_t)res->prestart_ms,
			"prestart_cpu_ms", res->prestart_cpu_ms >= 0 ? json_integer(res->prestart_cpu_ms) : json_null(),
			"sandbox_cpu_ms", res->sandbox_cpu_ms >= 0 ? json_integer(res->sandbox_cpu_ms) : json_null()));
	json_object_set_new(o, "peak_memory_bytes",
			    res->peak_memory_bytes >= 0 ? json_integer(res->peak_memory_bytes) : json_null());
	json_object_set_new(o, "stdout", text_value(res->stdout_buf, res->stdout_len));
	json_object_set_new(o, "stderr", text_value(res->stderr_buf, res->stderr_len));
	json_object_set_new(o, "stdout_truncated", json_boolean(res->stdout_truncated));
	json_object_set_new(o, "stderr_truncated", json_boolean(res->stderr_truncated));
	for (size_t i = 0; i < res->n_limits; i++) {
		const struct sandbox_limit *l = &res->limits[i];

		json_t *v = strcmp(l->unit, "seconds") == 0 ? json_real(l->value) : json_integer((json_int_t)l->value);

		json_object_set_new(limits, l->name, json_pack("{s:o, s:s, s:s}", "value", v,
							       "unit", l->unit, "mechanism", l->mechanism));
	}
	json_object_set_new(o, "limits", limits);
	if (res->limits_note[0])
		json_object_set_new(o, "limits_note", text_value(res->limits_note, strlen(res->limits_note)));
	json_object_set_new(o, "isolation", json_pack("{s:I, s:I, s:I}",
		"host_uid", (json_int_t)res->host_uid, "landlock_abi", (json_int_t)res->landlock_abi,
		"seccomp_syscalls", (json_int_t)res->seccomp_syscalls));
	if (res->platform)
		json_object_set_new(json_object_get(o, "isolation"), "platform", json_string(res->platform));
	json_object_set_new(o, "image", json_pack("{s:o, s:o}",
		"name", text_value(res->image_name, strlen(res->image_name)),
		"digest", res->image_digest[0] ? json_string(res->image_digest) : json_null()));
	add_events(events, res, 0);
	json_object_set_new(o, "tripwires", tripwires_to_json(&res->tripwires));
	json_object_set_new(o, "events", events);
	return o;
}

char *sandbox_result_finish(json_t *o, size_t n_events, const struct sandbox_result *res)
{
	char *text;

	if (!o)
		return NULL;
	/* run_ms keeps its place: jansson replaces a value where its key is */
	json_object_set_new(o, "run_ms", json_integer(res->run_ms));
	add_events(json_object_get(o, "events"), res, n_events);
	if (res->status == SB_SANDBOX_ERROR)
		json_object_set_new(o, "error", text_value(res->error, strlen(res->error)));
	text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
	json_decref(o);
	return text;
}

char *sandbox_result_json(const struct sandbox_result *res)
{
	return sandbox_result_finish(sandbox_result_object(res), res->n_events, res);
}
