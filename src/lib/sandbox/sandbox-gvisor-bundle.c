/* sandbox-gvisor-bundle.c - the gvisor backend's OCI bundle: config.json, the root directory, the init and its FIFOs
 *
 * One per sandbox, in <state dir>/<id>.gvisor (see sandbox-gvisor.c for the
 * whole picture). The bundle holds nothing of a sample: it is built when the
 * sandbox is started, maybe before its sample is known (a pre-started
 * sandbox, sandbox-pool.c); the sample's program, environment, limits and
 * files reach init only in its request (gvisor_request); a pre-started
 * sandbox may get the run's shared files (its runner's) before, in a
 * request of files only (gvisor_preinject). The root is always a directory of the run's own: runsc's
 * gofer creates missing mount points in the root directory on the host, so
 * an image's directory is never the root itself; its top-level entries are
 * bound read-only into the run's root instead.
 */
#define _GNU_SOURCE
#include "sandbox/sandbox-gvisor-internal.h"
#include "sandbox/sandbox-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

/* The init, built static from src/gvinit/gvinit.c (sandbox-gvisor-init.c). */
extern const unsigned char gvinit_start[], gvinit_end[];

/* What init needs inside the sandbox (the program's process drops them
 * all): files and mounts for /work, the uid change, and CAP_KILL for what
 * the program left running (uid 1000's) at its end. */
static const char *const init_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP",
	"CAP_SYS_ADMIN",
};

static int mkdir_in(const char *dir, const char *name, mode_t mode, struct sd_error *err)
{
	cleanup_free char *p = xasprintf("%s/%s", dir, name);

	if (!p || mkdir(p, mode) < 0)
		return sd_error_errno(err, p ? errno : ENOMEM, "cannot create '%s/%s'", dir, name);
	return 0;
}

static int write_new(const char *path, const void *data, size_t len, mode_t mode, struct sd_error *err)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0 || write_all(fd, data, len) < 0 || fchmod(fd, mode) < 0)
		return sd_error_errno(err, errno, "cannot write '%s'", path);
	return 0;
}

int gvisor_copy_fd(int in, const char *path, mode_t mode, struct sd_error *err)
{
	cleanup_close int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	char buf[65536];

	if (out < 0)
		return sd_error_errno(err, errno, "cannot create '%s'", path);
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sd_error_errno(err, errno, "cannot read the source of '%s'", path);
		if (n == 0)
			break;
		if (write_all(out, buf, (size_t)n) < 0)
			return sd_error_errno(err, errno, "cannot write '%s'", path);
	}
	if (fchmod(out, mode) < 0)
		return sd_error_errno(err, errno, "cannot chmod '%s'", path);
	return 0;
}

static json_t *mount_json(const char *dst, const char *type, const char *src, const char *opts)
{
	json_t *m = json_pack("{s:s, s:s, s:s}", "destination", dst, "type", type, "source", src);
	json_t *o = json_array();
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", opts ? opts : "");
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_array_append_new(o, json_string(t));
	json_object_set_new(m, "options", o);
	return m;
}

/* Mirror the host entry SRC into the bundle's root as PATH: a symlink as a
 * symlink, a small regular file as a copy, a directory as a read-only bind.
 * (gVisor's gofer creates missing mount points in the root directory on the
 * host: the root is always this per-run directory, never an image's.) */
static int mirror_entry(const char *root, const char *src, const char *path, json_t *mounts, struct sd_error *err)
{
	cleanup_free char *dst = xasprintf("%s%s", root, path);
	struct stat sb;

	if (!dst)
		return sd_error_errno(err, ENOMEM, "bundle");
	if (lstat(src, &sb) < 0)
		return 0;
	if (S_ISLNK(sb.st_mode)) {
		char target[4096];
		ssize_t n = readlink(src, target, sizeof(target) - 1);

		if (n < 0)
			return sd_error_errno(err, errno, "cannot read link '%s'", src);
		target[n] = '\0';
		if (symlink(target, dst) < 0)
			return sd_error_errno(err, errno, "cannot create link '%s'", dst);
	} else if (S_ISDIR(sb.st_mode)) {
		if (mkdir(dst, 0755) < 0)
			return sd_error_errno(err, errno, "cannot create '%s'", dst);
		json_array_append_new(mounts, mount_json(path, "bind", src, "rbind,ro,nosuid,nodev"));
	} else if (S_ISREG(sb.st_mode)) {
		cleanup_close int fd = open(src, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return 0;	/* not readable by the caller: not in the sandbox either */
		return gvisor_copy_fd(fd, dst, 0444, err);
	}
	return 0;
}

static int mirror_host(const char *root, const char *path, json_t *mounts, struct sd_error *err)
{
	return mirror_entry(root, path, path, mounts, err);
}

/* An image directory: every top-level entry but what the sandbox provides. */
static int image_root(const char *root, const char *image, json_t *mounts, struct sd_error *err)
{
	static const char *const skip[] = { ".", "..", "proc", "dev", "work", "tmp", "sys", "run", ".sandeval",
					    ".sandeval-scratch" };
	DIR *d = opendir(image);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return sd_error_errno(err, errno, "cannot read image '%s'", image);
	while (ret == 0 && (e = readdir(d))) {
		cleanup_free char *src = NULL, *path = NULL;
		bool skipped = false;

		for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
			skipped |= strcmp(e->d_name, skip[i]) == 0;
		if (skipped)
			continue;
		src = xasprintf("%s/%s", image, e->d_name);
		path = xasprintf("/%s", e->d_name);
		ret = src && path ? mirror_entry(root, src, path, mounts, err) : sd_error_errno(err, ENOMEM, "bundle");
	}
	closedir(d);
	return ret;
}

/* The host image: /usr and friends bound read-only, a few /etc files, generated accounts. */
static int host_root(const char *root, json_t *mounts, struct sd_error *err)
{
	static const char *const top[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };
	static const char *const etc[] = {
		"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
		"/etc/nsswitch.conf", "/etc/os-release", "/etc/mime.types",
	};
	static const struct { const char *name, *text; } gen[] = {
		{ "passwd", SANDBOX_ETC_PASSWD },
		{ "group", SANDBOX_ETC_GROUP },
		{ "hostname", SANDBOX_ETC_HOSTNAME },
		{ "hosts", SANDBOX_ETC_HOSTS },
	};
	glob_t g;

	if (mkdir_in(root, "etc", 0755, err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (mirror_host(root, top[i], mounts, err) < 0)
			return -1;
	for (size_t i = 0; i < sizeof(etc) / sizeof(etc[0]); i++)
		if (mirror_host(root, etc[i], mounts, err) < 0)
			return -1;
	if (glob("/etc/python3*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (mirror_host(root, g.gl_pathv[i], mounts, err) < 0) {
				globfree(&g);
				return -1;
			}
		globfree(&g);
	}
	for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++) {
		cleanup_free char *p = xasprintf("%s/etc/%s", root, gen[i].name);

		if (!p || write_new(p, gen[i].text, strlen(gen[i].text), 0444, err) < 0)
			return -1;
	}
	return 0;
}

static json_t *rlimit_json(const char *type, uint64_t soft, uint64_t hard)
{
	return json_pack("{s:s, s:I, s:I}", "type", type, "soft", (json_int_t)soft, "hard", (json_int_t)hard);
}

static json_t *string_array(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* config.json: init as root of the sandbox with the few capabilities it
 * needs. Nothing in it is a sample's: the program, its environment, its
 * rlimits and the tmpfs's size come with the request (gvisor_request). */
static int write_config(struct sandbox_ctx *ctx, const char *bundle, const char *root_path,
			json_t *mounts, struct sd_error *err)
{
	struct gvisor *gv = ctx->backend_data;
	static const char *const base_env[] = { "PATH=/usr/bin:/bin" };
	json_t *args = json_array(), *env, *rl = json_array(), *caps, *c;
	cleanup_free char *path = xasprintf("%s/config.json", bundle);
	cleanup_free char *ctl = xasprintf("%s/ctl", gv->dir);
	int r;

	json_array_append_new(args, json_string("/.sandeval/init"));
	env = string_array(base_env, 1);
	json_array_append_new(rl, rlimit_json("RLIMIT_CORE", 0, 0));
	caps = string_array(init_caps, sizeof(init_caps) / sizeof(init_caps[0]));
	c = json_pack("{s:s, s:{s:{s:i, s:i}, s:o, s:o, s:s, s:{s:O, s:O, s:O}, s:o, s:b}}",
		      "ociVersion", "1.0.0",
		      "process", "user", "uid", 0, "gid", 0, "args", args, "env", env, "cwd", "/",
		      "capabilities", "bounding", caps, "effective", caps, "permitted", caps,
		      "rlimits", rl, "noNewPrivileges", 0);
	json_decref(caps);
	if (!c || !path || !ctl) {
		json_decref(c);
		json_decref(mounts);
		return sd_error_errno(err, ENOMEM, "config.json");
	}
	json_object_set_new(c, "root", json_pack("{s:s, s:b}", "path", root_path, "readonly", 1));
	json_object_set_new(c, "hostname", json_string("sandbox"));
	json_array_insert_new(mounts, 0, mount_json("/proc", "proc", "proc", "nosuid,nodev,noexec"));
	json_array_insert_new(mounts, 1, mount_json("/dev", "tmpfs", "tmpfs", "nosuid,noexec,mode=755"));
	json_array_insert_new(mounts, 2, mount_json("/sys", "tmpfs", "tmpfs", "ro,nosuid,nodev,noexec,size=4k"));
	json_array_append_new(mounts, mount_json("/work", "tmpfs", "tmpfs", "nosuid,nodev,size=4k"));
	json_array_append_new(mounts, mount_json("/tmp", "tmpfs", "tmpfs", "nosuid,nodev,size=4k"));
	json_array_append_new(mounts, mount_json("/.sandeval", "bind", ctl, "rbind,rw,nosuid,nodev"));
	json_object_set_new(c, "mounts", mounts);
	json_object_set_new(c, "linux", json_pack("{s:[{s:s},{s:s},{s:s},{s:s},{s:s}]}", "namespaces",
		"type", "pid", "type", "network", "type", "ipc", "type", "uts", "type", "mount"));
	r = json_dump_file(c, path, JSON_COMPACT);
	json_decref(c);
	if (r < 0)
		return sd_error_errno(err, errno ? errno : EIO, "cannot write '%s'", path);
	return 0;
}

/* A file of the request: its contents in memory (the sample's, or read
 * whole from a source that is no regular file: a pipe has no size to
 * announce) or an open --file source (opened with the caller's rights). */
struct req_file {
	bool pre;		/* in the sandbox before the sample: not in its request */
	int fd;			/* -1: from memory */
	const char *data;	/* from memory: the sample's, or buf */
	char *buf;
	uint64_t size;
	mode_t mode;
};

static int open_file(const struct sandbox_file *f, uint64_t cap, struct req_file *rf, struct sd_error *err)
{
	struct stat sb;

	rf->fd = -1;
	if (f->data) {
		rf->data = f->data;
		rf->size = f->len;
		rf->mode = f->executable ? 0555 : 0444;
		return 0;
	}
	rf->fd = open(f->src, O_RDONLY | O_CLOEXEC);
	if (rf->fd < 0 || fstat(rf->fd, &sb) < 0)
		return sd_error_errno(err, errno, "cannot open --file source '%s'", f->src);
	rf->mode = (sb.st_mode & 0111) ? 0555 : 0444;
	if (!S_ISREG(sb.st_mode)) {
		/* more would not fit in the tmpfs */
		size_t len = 0;
		int r = read_fd(rf->fd, f->src, cap, &rf->buf, &len, err);

		close(rf->fd);
		rf->fd = -1;
		rf->data = rf->buf;
		rf->size = len;
		return r < 0 ? sd_error_wrap(err, "--file source (at most --tmpfs bytes)") : 0;
	}
	rf->size = (uint64_t)sb.st_size;
	return 0;
}

int gvisor_build_bundle(struct sandbox_ctx *ctx, const char *image_dir, struct sd_error *err)
{
	struct gvisor *gv = ctx->backend_data;
	cleanup_free char *bundle = xasprintf("%s/bundle", gv->dir);
	cleanup_free char *root = xasprintf("%s/bundle/rootfs", gv->dir);
	cleanup_free char *init = xasprintf("%s/ctl/init", gv->dir);
	json_t *mounts = json_array();

	if (!bundle || !root || !init || !mounts) {
		json_decref(mounts);
		return sd_error_errno(err, ENOMEM, "bundle");
	}
	if (mkdir_in(gv->dir, "state", 0700, err) < 0 || mkdir_in(gv->dir, "bundle", 0700, err) < 0 ||
	    mkdir_in(gv->dir, "ctl", 0700, err) < 0)
		goto fail;
	if (write_new(init, gvinit_start, (size_t)(gvinit_end - gvinit_start), 0555, err) < 0)
		goto fail;
	for (const char *const *f = (const char *const[]){ "ctl", "req", "in", "out", "err", NULL }; *f; f++) {
		cleanup_free char *p = xasprintf("%s/ctl/%s", gv->dir, *f);

		if (!p || mkfifo(p, 0600) < 0) {
			sd_error_errno(err, p ? errno : ENOMEM, "cannot create the FIFO '%s'", p ? p : *f);
			goto fail;
		}
	}
	if (mkdir(root, 0755) < 0) {
		sd_error_errno(err, errno, "cannot create '%s'", root);
		goto fail;
	}
	/* where init mounts the tmpfs of the request's size */
	if (mkdir_in(root, ".sandeval-scratch", 0755, err) < 0)
		goto fail;
	if ((image_dir ? image_root(root, image_dir, mounts, err) : host_root(root, mounts, err)) < 0)
		goto fail;
	return write_config(ctx, bundle, root, mounts, err);
fail:
	json_decref(mounts);
	return -1;
}

/* The request's arguments, each with its NUL, appended to *BUF. */
struct request {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void add(struct request *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct request *r, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0 || r->failed) {
		r->failed = true;
		if (n >= 0)
			free(s);
		return;
	}
	if (r->len + (size_t)n + 1 > r->cap) {
		size_t cap = (r->len + (size_t)n + 1) * 2;
		char *b = realloc(r->buf, cap);

		if (!b) {
			r->failed = true;
			free(s);
			return;
		}
		r->buf = b;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, s, (size_t)n + 1);
	r->len += (size_t)n + 1;
	free(s);
}

/* The program's environment: the base, --env overriding a variable of the same name. */
static void add_env(struct request *r, const struct sandbox_config *cfg)
{
	static const char *const base_env[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/work", "LANG=C.UTF-8", "TMPDIR=/tmp",
	};

	for (size_t i = 0; i < sizeof(base_env) / sizeof(base_env[0]); i++) {
		size_t klen = strcspn(base_env[i], "=") + 1;
		bool overridden = false;

		for (size_t j = 0; j < cfg->n_env; j++)
			overridden |= strncmp(cfg->env[j], base_env[i], klen) == 0;
		if (!overridden) {
			add(r, "-e");
			add(r, "%s", base_env[i]);
		}
	}
	for (size_t j = 0; j < cfg->n_env; j++) {
		size_t klen = strcspn(cfg->env[j], "=") + 1;
		bool later = false;

		for (size_t k = j + 1; k < cfg->n_env; k++)
			later |= strncmp(cfg->env[k], cfg->env[j], klen) == 0;
		if (!later) {
			add(r, "-e");
			add(r, "%s", cfg->env[j]);
		}
	}
}

/* Where the request goes: the FIFO, init's ctl FIFO and runsc, either of
 * which says that nobody will read the rest. */
struct req_out {
	int fd, ctl_fd;
	pid_t helper;
	int64_t deadline;	/* monotonic ms */
};

/* Whether runsc has ended (not reaped: wait_for_exec reports how). */
static bool helper_gone(pid_t helper)
{
	siginfo_t si = { 0 };

	return helper > 0 && waitid(P_PID, (id_t)helper, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == helper;
}

/* Write all of DATA to the non-blocking O->fd before O->deadline. 1 when
 * init spoke on ctl first (it stopped reading; its line says why) or runsc
 * ended: wait_for_exec reads and reports either. */
static int write_by(const struct req_out *o, const char *data, size_t len, struct sd_error *err)
{
	while (len > 0) {
		struct pollfd pfd[2] = { { .fd = o->fd, .events = POLLOUT }, { .fd = o->ctl_fd, .events = POLLIN } };
		ssize_t n = write(o->fd, data, len);

		if (n > 0) {
			data += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return sd_error_errno(err, errno, "cannot write the request");
		if (now_ms() >= o->deadline)
			return sd_error_set(err, ETIMEDOUT, "gVisor's init took no request");
		if ((poll(pfd, 2, 50) > 0 && (pfd[1].revents & (POLLIN | POLLHUP))) || helper_gone(o->helper))
			return 1;
	}
	return 0;
}

/* The contents of file RF (of F) after the request's arguments: exactly its size. */
static int write_contents(const struct req_out *o, const struct sandbox_file *f, const struct req_file *rf,
			  struct sd_error *err)
{
	char buf[65536];
	uint64_t left = rf->size;

	if (rf->fd < 0)
		return write_by(o, rf->data, (size_t)rf->size, err);
	while (left > 0) {
		ssize_t n = read(rf->fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sd_error_errno(err, errno, "cannot read --file source '%s'", f->src);
		if (n == 0)
			return sd_error_set(err, EIO, "--file source '%s' shrank while it was read", f->src);
		if ((r = write_by(o, buf, (size_t)n, err)) != 0)
			return r;
		left -= (uint64_t)n;
	}
	return 0;
}

/* DEST under /work, as init takes it */
static const char *rel_dest(const char *dest)
{
	return strncmp(dest, "/work/", 6) == 0 ? dest + 6 : dest;
}

static bool same_file(const struct sandbox_file *a, const struct sandbox_file *b)
{
	return a->data && b->data && strcmp(rel_dest(a->dest), rel_dest(b->dest)) == 0 &&
	       a->executable == b->executable && a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* Whether F is in the sandbox already (put in before its sample). */
static bool preinjected(const struct gvisor *gv, const struct sandbox_file *f)
{
	for (size_t i = 0; i < gv->n_pre; i++)
		if (same_file(&gv->pre[i], f))
			return true;
	return false;
}

bool gvisor_pre_matches(const struct gvisor *gv, const struct sandbox_config *cfg)
{
	if (gv->n_pre && cfg->tmpfs != gv->pre_tmpfs)
		return false;
	for (size_t i = 0; i < gv->n_pre; i++) {
		bool found = false;

		for (size_t j = 0; j < cfg->n_files && !found; j++)
			found = same_file(&gv->pre[i], &cfg->files[j]);
		if (!found)
			return false;
	}
	return true;
}

void gvisor_pre_free(struct gvisor *gv)
{
	for (size_t i = 0; i < gv->n_pre; i++) {
		free((char *)gv->pre[i].dest);
		free((char *)gv->pre[i].data);
	}
	free(gv->pre);
	gv->pre = NULL;
	gv->n_pre = 0;
}

int gvisor_preinject(struct sandbox_ctx *ctx, const struct sandbox_config *tmpl, struct sd_error *err)
{
	struct gvisor *gv = ctx->backend_data;
	struct request r = { 0 };
	cleanup_free char *all = NULL, *copy = NULL;
	size_t n = 0, bytes = 0, len;
	char head[32];
	int cap;
	ssize_t w;

	for (size_t i = 0; i < tmpl->n_files; i++)
		if (tmpl->files[i].shared && tmpl->files[i].data) {
			n++;
			bytes += tmpl->files[i].len;
		}
	if (!n)
		return 0;
	if (!(gv->pre = calloc(n, sizeof(*gv->pre))))
		return sd_error_errno(err, ENOMEM, "pre-inject");
	/* no program: init injects these and waits for the sample's request */
	add(&r, "-t");
	add(&r, "%llu", (unsigned long long)tmpl->tmpfs);
	for (size_t i = 0; i < tmpl->n_files; i++) {
		const struct sandbox_file *f = &tmpl->files[i];
		struct sandbox_file *p = &gv->pre[gv->n_pre];

		if (!f->shared || !f->data)
			continue;
		*p = (struct sandbox_file){ .dest = strdup(f->dest), .len = f->len,
					    .executable = f->executable, .shared = true };
		p->data = malloc(f->len ? f->len : 1);
		gv->n_pre++;
		if (!p->dest || !p->data) {
			r.failed = true;
			break;
		}
		memcpy((char *)p->data, f->data, f->len);
		add(&r, "-f");
		add(&r, "%zu:%o:%s", f->len, f->executable ? 0555u : 0444u, f->dest);
	}
	if (!r.failed) {
		snprintf(head, sizeof(head), "%zu\n", r.len);
		len = strlen(head) + r.len + bytes;
		all = malloc(len);
		copy = xasprintf("%s/prerequest", gv->dir);
	}
	if (r.failed || !all || !copy || write_new(copy, r.buf, r.len, 0400, err) < 0) {
		free(r.buf);
		gvisor_pre_free(gv);
		return r.failed || !all || !copy ? sd_error_errno(err, ENOMEM, "pre-inject") : -1;
	}
	memcpy(all, head, strlen(head));
	memcpy(all + strlen(head), r.buf, r.len);
	free(r.buf);
	n = strlen(head) + r.len;
	for (size_t i = 0; i < gv->n_pre; i++) {
		memcpy(all + n, gv->pre[i].data, gv->pre[i].len);
		n += gv->pre[i].len;
	}
	/* all of it in the FIFO's buffer at once: nothing here waits for init */
	cap = fcntl(gv->req_w, F_SETPIPE_SZ, len > INT_MAX ? INT_MAX : (int)len);
	if (cap < 0 || (size_t)cap < len) {
		sandbox_event(ctx, "inject", "nothing put in before the sample: the request FIFO cannot hold "
			      "%zu bytes (%s)", len, cap < 0 ? strerror(errno) : "too small");
		gvisor_pre_free(gv);
		return 0;
	}
	w = write(gv->req_w, all, len);
	if (w < 0 || (size_t)w != len) {
		gvisor_pre_free(gv);
		return sd_error_errno(err, w < 0 ? errno : EIO, "cannot write the files before the sample");
	}
	gv->pre_tmpfs = tmpl->tmpfs;
	sandbox_event(ctx, "inject", "before the sample: %zu shared file(s) of the run's runner, %zu bytes, "
		      "sent to init for /work (nothing of a sample)", gv->n_pre, bytes);
	return 0;
}

int gvisor_request(struct sandbox_ctx *ctx, int req_fd, int64_t deadline, struct sd_error *err)
{
	const struct sandbox_config *cfg = ctx->cfg;
	struct gvisor *gv = ctx->backend_data;
	uint64_t cpu_soft = (uint64_t)ceil(cfg->cpu_time) + (gv->cg_cpu ? 1 : 0);
	struct req_file *rf = calloc(cfg->n_files + 1, sizeof(*rf));
	const struct req_out o = { req_fd, gv->ctl_r, gv->helper, deadline };
	struct request r = { 0 };
	char head[32];
	int ret = -1;

	if (!rf)
		return sd_error_errno(err, ENOMEM, "request");
	for (size_t i = 0; i < cfg->n_files; i++)
		rf[i].fd = -1;
	for (size_t i = 0; i < cfg->n_files; i++)
		if (!(rf[i].pre = preinjected(gv, &cfg->files[i])) && open_file(&cfg->files[i], cfg->tmpfs, &rf[i], err) < 0)
			goto out;
	/* gVisor counts the program's own task under uid 0 (it was forked before
	 * setuid): N - 1 more tasks of uid 1000 make N */
	add(&r, "-p");
	add(&r, "%ld", cfg->pids - 1);
	add(&r, "-t");
	add(&r, "%llu", (unsigned long long)cfg->tmpfs);
	add(&r, "-r");
	add(&r, "%d:%ld:%ld", RLIMIT_NOFILE, cfg->fds, cfg->fds);
	add(&r, "-r");
	add(&r, "%d:%llu:%llu", RLIMIT_FSIZE, (unsigned long long)cfg->file_size, (unsigned long long)cfg->file_size);
	add(&r, "-r");
	add(&r, "%d:%llu:%llu", RLIMIT_CPU, (unsigned long long)cpu_soft, (unsigned long long)cpu_soft + 1);
	if (!gv->cg_memory) {
		add(&r, "-r");
		add(&r, "%d:%llu:%llu", RLIMIT_AS, (unsigned long long)cfg->memory, (unsigned long long)cfg->memory);
	}
	add_env(&r, cfg);
	for (size_t i = 0; i < cfg->n_files; i++) {
		if (rf[i].pre)
			continue;
		add(&r, "-f");
		add(&r, "%llu:%o:%s", (unsigned long long)rf[i].size, (unsigned)rf[i].mode, cfg->files[i].dest);
	}
	add(&r, "--");
	for (char *const *a = cfg->argv; *a; a++)
		add(&r, "%s", *a);
	if (r.failed) {
		sd_error_errno(err, ENOMEM, "request");
		goto out;
	}
	/* a copy on the host, outside what init sees: what this sandbox ran (the files' contents are the sample's own) */
	{
		cleanup_free char *copy = xasprintf("%s/request", gv->dir);

		if (!copy) {
			sd_error_errno(err, ENOMEM, "request");
			goto out;
		}
		if (write_new(copy, r.buf, r.len, 0400, err) < 0)
			goto out;
	}
	/* the arguments, then each file's contents in -f order, on the one FIFO:
	 * init opens nothing of the host's for them */
	snprintf(head, sizeof(head), "%zu\n", r.len);
	ret = write_by(&o, head, strlen(head), err);
	if (ret == 0)
		ret = write_by(&o, r.buf, r.len, err);
	for (size_t i = 0; ret == 0 && i < cfg->n_files; i++)
		if (!rf[i].pre)
			ret = write_contents(&o, &cfg->files[i], &rf[i], err);
	if (ret > 0)
		ret = 0;	/* init stopped reading or runsc ended: wait_for_exec says which */
out:
	for (size_t i = 0; i < cfg->n_files; i++) {
		if (rf[i].fd >= 0)
			close(rf[i].fd);
		free(rf[i].buf);
	}
	free(rf);
	free(r.buf);
	return ret;
}
