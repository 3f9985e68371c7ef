/* image-build.c - building an image: debootstrap a minimal Debian, or copy host programs with their shared libraries
 *
 * A build happens in STORE/NAME/.build-<random>/rootfs. When the tree is
 * complete it is made read-only (a-w), digested, and renamed to
 * STORE/NAME/<hex of the digest>/, with image.json beside the rootfs. A
 * build that fails leaves nothing (its directory is removed); one whose
 * digest already exists is dropped in favour of the stored one.
 */
#define _GNU_SOURCE
#include "sandbox/image-internal.h"
#include "sandbox/sandbox-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

#define MAX_LINKS 40

static int mkdir_p(const char *path, mode_t mode, struct sd_error *err)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return sd_error_set(err, ENAMETOOLONG, "path too long: '%s'", path);
	for (char *p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
		if (p)
			*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return sd_error_errno(err, errno, "cannot create '%s'", buf);
		if (!p)
			return 0;
		*p = '/';
	}
}

static int copy_file(const char *src, const char *dst, mode_t mode, struct sd_error *err)
{
	cleanup_close int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	cleanup_close int out = -1;
	char buf[65536];

	if (in < 0)
		return sd_error_errno(err, errno, "cannot read '%s'", src);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		return errno == EEXIST ? 0 : sd_error_errno(err, errno, "cannot create '%s'", dst);
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sd_error_errno(err, errno, "cannot read '%s'", src);
		if (n == 0)
			break;
		if (write_all(out, buf, (size_t)n) < 0)
			return sd_error_errno(err, errno, "cannot write '%s'", dst);
	}
	if (fchmod(out, mode & 0755) < 0)
		return sd_error_errno(err, errno, "cannot chmod '%s'", dst);
	return 0;
}

/* The current tree walk's roots (nftw has no user pointer). */
static const char *tree_src, *tree_dst;
static struct sd_error *tree_err;

static int copy_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	char dst[PATH_MAX];

	(void)ftw;
	if ((size_t)snprintf(dst, sizeof(dst), "%s%s", tree_dst, path + strlen(tree_src)) >= sizeof(dst))
		return sd_error_set(tree_err, ENAMETOOLONG, "path too long: '%s'", path);
	if (type == FTW_D)
		return mkdir(dst, sb->st_mode & 0755) < 0 && errno != EEXIST ?
		       sd_error_errno(tree_err, errno, "cannot create '%s'", dst) : 0;
	if (type == FTW_SL) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		if (n < 0)
			return sd_error_errno(tree_err, errno, "cannot read link '%s'", path);
		target[n] = '\0';
		return symlink(target, dst) < 0 && errno != EEXIST ?
		       sd_error_errno(tree_err, errno, "cannot create link '%s'", dst) : 0;
	}
	if (type == FTW_F && S_ISREG(sb->st_mode))
		return copy_file(path, dst, sb->st_mode, tree_err);
	return 0;	/* devices, sockets, FIFOs and unreadable directories: left out */
}

static int copy_deps(const char *root, const char *file, int depth, struct sd_error *err);

/* Copy host PATH into ROOT at the same place: symlinks on the way are
 * recreated and followed, a directory is copied whole, a dynamically linked
 * program brings its shared libraries. */
static int copy_path(const char *root, const char *path, int depth, struct sd_error *err)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX];
	const char *p = path;

	if (depth > MAX_LINKS)
		return sd_error_set(err, ELOOP, "too many symlinks resolving '%s'", path);
	if (path[0] != '/')
		return sd_error_set(err, EINVAL, "host path '%s' is not absolute", path);
	while (*p) {
		size_t n;
		char next[PATH_MAX], dst[PATH_MAX];
		struct stat sb;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			p += n;
			continue;
		}
		if ((size_t)snprintf(next, sizeof(next), "%s/%.*s", cur, (int)n, p) >= sizeof(next) ||
		    (size_t)snprintf(dst, sizeof(dst), "%s%s", root, next) >= sizeof(dst))
			return sd_error_set(err, ENAMETOOLONG, "path too long: '%s'", path);
		p += n;
		if (lstat(next, &sb) < 0)
			return sd_error_errno(err, errno, "cannot copy '%s' from the host", next);
		if (S_ISLNK(sb.st_mode)) {
			char target[PATH_MAX], resolved[PATH_MAX];
			ssize_t len = readlink(next, target, sizeof(target) - 1);

			if (len < 0)
				return sd_error_errno(err, errno, "cannot read link '%s'", next);
			target[len] = '\0';
			if (symlink(target, dst) < 0 && errno != EEXIST)
				return sd_error_errno(err, errno, "cannot create link '%s'", dst);
			snprintf(rest, sizeof(rest), "%s", p);
			if ((size_t)snprintf(resolved, sizeof(resolved), "%s%s%s", target[0] == '/' ? "" : cur,
					     target[0] == '/' ? "" : "/", target) >= sizeof(resolved) ||
			    (size_t)snprintf(next, sizeof(next), "%s%s", resolved, rest) >= sizeof(next))
				return sd_error_set(err, ENAMETOOLONG, "path too long: '%s'", path);
			return copy_path(root, next, depth + 1, err);
		}
		if (S_ISDIR(sb.st_mode)) {
			if (mkdir(dst, 0755) < 0 && errno != EEXIST)
				return sd_error_errno(err, errno, "cannot create '%s'", dst);
			if (*p == '\0' || strspn(p, "/") == strlen(p)) {
				/* the last component: the whole directory */
				tree_src = next;
				tree_dst = dst;
				tree_err = err;
				return nftw(next, copy_entry, 32, FTW_PHYS) != 0 ? -1 : 0;
			}
			snprintf(cur, sizeof(cur), "%s", next);
			continue;
		}
		if (!S_ISREG(sb.st_mode) || (*p && strspn(p, "/") != strlen(p)))
			return sd_error_set(err, ENOTDIR, "cannot copy '%s' from the host: not a file or directory", next);
		if (copy_file(next, dst, sb.st_mode, err) < 0)
			return -1;
		return copy_deps(root, next, depth, err);
	}
	return 0;
}

/* A dynamically linked ELF file: copy what `ldd` lists. */
static int copy_deps(const char *root, const char *file, int depth, struct sd_error *err)
{
	char magic[4];
	int p[2], ws;
	pid_t pid;
	FILE *f;
	char line[PATH_MAX + 64];
	int ret = 0;
	cleanup_close int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4) != 0)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return sd_error_errno(err, errno, "pipe");
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return sd_error_errno(err, errno, "fork");
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(p[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		execl("/usr/bin/ldd", "ldd", file, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *arrow = strstr(line, "=> "), *lib = arrow ? arrow + 3 : line + strspn(line, " \t");

		lib[strcspn(lib, " \t\n(")] = '\0';
		if (ret == 0 && lib[0] == '/')
			ret = copy_path(root, lib, depth + 1, err);
	}
	if (f)
		fclose(f);
	else
		close(p[0]);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	return ret;
}

static int run_debootstrap(const char *rootfs, const struct image_build_opts *o, struct sd_error *err)
{
	cleanup_free char *include = NULL;
	const char *argv[8];
	size_t n = 0, len = 0;
	pid_t pid;
	int ws;

	if (geteuid() != 0)
		return sd_error_set(err, EPERM, "debootstrap needs root (as a user, build from host files)");
	if (access("/usr/sbin/debootstrap", X_OK) < 0)
		return sd_error_set(err, ENOENT, "debootstrap is not installed (Debian: apt-get install debootstrap)");
	for (size_t i = 0; i < o->n_packages; i++) {
		if (!o->packages[i][0] || strspn(o->packages[i], "abcdefghijklmnopqrstuvwxyz0123456789+-.") !=
		    strlen(o->packages[i]))
			return sd_error_set(err, EINVAL, "bad Debian package name '%s'", o->packages[i]);
		len += strlen(o->packages[i]) + 1;
	}
	argv[n++] = "/usr/sbin/debootstrap";
	argv[n++] = "--variant=minbase";
	if (o->n_packages) {
		include = calloc(len + 16, 1);
		if (!include)
			return sd_error_errno(err, ENOMEM, "debootstrap");
		strcpy(include, "--include=");
		for (size_t i = 0; i < o->n_packages; i++) {
			if (i)
				strcat(include, ",");
			strcat(include, o->packages[i]);
		}
		argv[n++] = include;
	}
	argv[n++] = o->suite ? o->suite : "bookworm";
	argv[n++] = rootfs;
	argv[n++] = o->mirror ? o->mirror : "http://deb.debian.org/debian";
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return sd_error_errno(err, errno, "fork");
	if (pid == 0) {
		int out = o->log_fd >= 0 ? o->log_fd : open("/dev/null", O_WRONLY);

		dup2(out, 1);
		dup2(out, 2);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		return sd_error_set(err, EIO, "debootstrap failed (exit %d; its log: '%s/debootstrap/debootstrap.log')",
				    WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), rootfs);
	/* what only the build needed */
	{
		static const char *const junk[] = { "var/cache/apt/archives", "var/lib/apt/lists", "var/log" };

		for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
			cleanup_free char *p = xasprintf("%s/%s", rootfs, junk[i]);

			if (p && remove_tree(p, NULL) == 0)
				mkdir(p, 0755);
		}
	}
	return 0;
}

/* The few /etc files a sandbox expects, when the copied tree has none. */
static int minimal_etc(const char *rootfs, struct sd_error *err)
{
	static const struct { const char *name, *text; } files[] = {
		{ "passwd", SANDBOX_ETC_PASSWD },
		{ "group", SANDBOX_ETC_GROUP },
		{ "hostname", SANDBOX_ETC_HOSTNAME },
		{ "hosts", SANDBOX_ETC_HOSTS },
	};
	cleanup_free char *etc = xasprintf("%s/etc", rootfs);

	if (!etc || (mkdir(etc, 0755) < 0 && errno != EEXIST))
		return sd_error_errno(err, etc ? errno : ENOMEM, "cannot create '%s/etc'", rootfs);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		cleanup_free char *p = xasprintf("%s/%s", etc, files[i].name);
		cleanup_close int fd = p ? open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;

		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0 || write_all(fd, files[i].text, strlen(files[i].text)) < 0)
			return sd_error_errno(err, errno, "cannot write '%s/%s'", etc, files[i].name);
	}
	return 0;
}

static bool ro_mode;

static int chmod_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	mode_t m = sb->st_mode & 07777;

	(void)ftw;
	if (type == FTW_SL)
		return 0;
	m = ro_mode ? (m & ~(mode_t)0222) : (m | 0200);
	return (sb->st_mode & 07777) == m || chmod(path, m) == 0 ? 0 : -1;
}

int image_tree_readonly(const char *root, bool readonly, struct sd_error *err)
{
	ro_mode = readonly;
	/* FTW_DEPTH: a directory loses its write bit after its entries */
	if (nftw(root, chmod_entry, 32, FTW_PHYS | (readonly ? FTW_DEPTH : 0)) != 0)
		return sd_error_errno(err, errno, "cannot make '%s' %s", root, readonly ? "read-only" : "writable");
	return 0;
}

int image_build(const char *store, const struct image_build_opts *o, struct image_info *info, struct sd_error *err)
{
	struct image_ref ref;
	struct image_info in = { 0 };
	cleanup_free char *ndir = NULL, *build = NULL, *rootfs = NULL, *final = NULL;
	char rnd[17];
	struct timespec ts;
	struct tm tm;
	int ret = -1;

	if (image_ref_parse(o->name, &ref, err) < 0)
		return -1;
	if (ref.digest[0] || strcmp(ref.name, "host") == 0)
		return sd_error_set(err, EINVAL, "cannot build '%s': give a plain name other than 'host'", o->name);
	if (random_hex(rnd, 8, err) < 0)
		return -1;
	ndir = xasprintf("%s/%s", store, ref.name);
	build = xasprintf("%s/.build-%s", ndir ? ndir : "", rnd);
	rootfs = xasprintf("%s/rootfs", build ? build : "");
	if (!ndir || !build || !rootfs)
		return sd_error_errno(err, ENOMEM, "image build");
	if (mkdir_p(ndir, 0755, err) < 0)
		return -1;
	if (mkdir(build, 0700) < 0)
		return sd_error_errno(err, errno, "cannot create '%s'", build);
	if (mkdir(rootfs, 0755) < 0) {
		sd_error_errno(err, errno, "cannot create '%s'", rootfs);
		goto out;
	}
	if (o->n_from_host) {
		for (size_t i = 0; i < o->n_from_host; i++)
			if (copy_path(rootfs, o->from_host[i], 0, err) < 0)
				goto out;
		if (minimal_etc(rootfs, err) < 0)
			goto out;
		snprintf(in.source, sizeof(in.source), "host files");
	} else {
		if (run_debootstrap(rootfs, o, err) < 0)
			goto out;
		snprintf(in.source, sizeof(in.source), "debootstrap %s", o->suite ? o->suite : "bookworm");
	}
	if (image_tree_readonly(rootfs, true, err) < 0 ||
	    image_digest_tree(rootfs, in.digest, &in.files, &in.bytes, err) < 0)
		goto out;
	snprintf(in.name, sizeof(in.name), "%s", ref.name);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(in.created, sizeof(in.created), "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec);
	in.n_packages = o->n_from_host ? o->n_from_host : o->n_packages;
	in.packages = (char **)(o->n_from_host ? o->from_host : o->packages);
	ret = image_info_write(build, &in, err);
	in.packages = NULL;
	in.n_packages = 0;
	if (ret < 0)
		goto out;
	ret = -1;
	final = xasprintf("%s/%s", ndir, in.digest + 7);
	if (!final) {
		sd_error_errno(err, ENOMEM, "image build");
		goto out;
	}
	if (access(final, F_OK) == 0) {
		/* the same files again: the stored build stands */
		remove_tree(build, NULL);
	} else if (chmod(build, 0755) < 0 || rename(build, final) < 0) {
		sd_error_errno(err, errno, "cannot store '%s'", final);
		goto out;
	}
	chmod(final, 0555);
	snprintf(in.rootfs, sizeof(in.rootfs), "%s/rootfs", final);
	*info = in;
	memset(&in, 0, sizeof(in));
	ret = 0;
out:
	if (ret < 0 && build)
		remove_tree(build, NULL);
	image_info_release(&in);
	return ret;
}
