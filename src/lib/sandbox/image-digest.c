/* image-digest.c - the canonical content digest of a root filesystem (sha256 over a sorted listing, nettle)
 *
 * The listing has one record per entry, in byte order of the path, parents
 * before children, symlinks never followed:
 *     T MODE LEN:PATH LEN:EXTRA\n
 * T is d, f, l, c, b, p or s; MODE the permission bits in octal (4 digits);
 * PATH the entry's path inside the image ("/" for the root), EXTRA the sha256
 * (hex) of a regular file's contents, a symlink's target, a device's
 * "major,minor", or nothing. Lengths make every record unambiguous, whatever
 * bytes names hold. Owners and times are left out: the same files built
 * twice give the same digest.
 */
#define _GNU_SOURCE
#include "sandbox/image-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/util.h"

#define MAX_DEPTH 256

struct walker {
	struct sha256_ctx list;	/* the listing's hash */
	struct sha256_ctx file;	/* reused for each file */
	uint64_t files, bytes;
	struct sd_error *err;
};

static int file_hash(struct walker *w, int parent, const char *name, const char *path, char out[65])
{
	cleanup_close int fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	char buf[65536];

	if (fd < 0)
		return sd_error_errno(w->err, errno, "cannot read '%s'", path);
	sha256_init(&w->file);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sd_error_errno(w->err, errno, "cannot read '%s'", path);
		if (n == 0)
			break;
		sha256_update(&w->file, (size_t)n, (const uint8_t *)buf);
		w->bytes += (uint64_t)n;
	}
	hash_digest_hex(&w->file, out);
	return 0;
}

static void emit(struct walker *w, char type, mode_t mode, const char *path, const char *extra, size_t extra_len)
{
	char head[64];
	int n;

	n = snprintf(head, sizeof(head), "%c %04o %zu:", type, (unsigned)(mode & 07777), strlen(path));
	sha256_update(&w->list, (size_t)n, (const uint8_t *)head);
	sha256_update(&w->list, strlen(path), (const uint8_t *)path);
	n = snprintf(head, sizeof(head), " %zu:", extra_len);
	sha256_update(&w->list, (size_t)n, (const uint8_t *)head);
	sha256_update(&w->list, extra_len, (const uint8_t *)extra);
	sha256_update(&w->list, 1, (const uint8_t *)"\n");
	w->files++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One entry NAME of directory PARENT, known as PATH in the image; directories recursively. */
static int walk(struct walker *w, int parent, const char *name, const char *path, int depth)
{
	struct stat sb;
	char extra[4200];
	size_t extra_len = 0;
	char type;

	if (depth > MAX_DEPTH)
		return sd_error_set(w->err, ELOOP, "'%s' is nested too deep", path);
	if (fstatat(parent, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return sd_error_errno(w->err, errno, "cannot stat '%s'", path);
	switch (sb.st_mode & S_IFMT) {
	case S_IFREG:
		type = 'f';
		if (file_hash(w, parent, name, path, extra) < 0)
			return -1;
		extra_len = 64;
		break;
	case S_IFLNK: {
		ssize_t n = readlinkat(parent, name, extra, sizeof(extra));

		if (n < 0 || (size_t)n >= sizeof(extra))
			return sd_error_errno(w->err, n < 0 ? errno : ENAMETOOLONG, "cannot read link '%s'", path);
		type = 'l';
		extra_len = (size_t)n;
		break;
	}
	case S_IFDIR:
		type = 'd';
		break;
	case S_IFCHR:
	case S_IFBLK:
		type = S_ISCHR(sb.st_mode) ? 'c' : 'b';
		extra_len = (size_t)snprintf(extra, sizeof(extra), "%u,%u", major(sb.st_rdev), minor(sb.st_rdev));
		break;
	case S_IFIFO:
		type = 'p';
		break;
	default:
		type = 's';
		break;
	}
	emit(w, type, sb.st_mode, path, extra, extra_len);
	if (type != 'd')
		return 0;

	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int ret = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return sd_error_errno(w->err, errno, "cannot open '%s'", path);
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (!grown) {
				ret = sd_error_errno(w->err, ENOMEM, "listing '%s'", path);
				break;
			}
			names = grown;
		}
		if (!(names[n] = strdup(e->d_name))) {
			ret = sd_error_errno(w->err, ENOMEM, "listing '%s'", path);
			break;
		}
		n++;
	}
	if (ret == 0 && n > 1)
		qsort(names, n, sizeof(*names), by_name);
	int dfd = dirfd(d);

	for (size_t i = 0; ret == 0 && i < n; i++) {
		cleanup_free char *child = xasprintf("%s%s%s", path, strcmp(path, "/") == 0 ? "" : "/", names[i]);

		ret = child ? walk(w, dfd, names[i], child, depth + 1) : sd_error_errno(w->err, ENOMEM, "walk");
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

/* Digest the entries PATHS[i] (absolute host paths, in sorted order), each
 * under the name IN_IMAGE[i]. */
int image_digest_entries(const char *const *paths, const char *const *in_image, size_t n,
			 char digest[IMAGE_DIGEST_SIZE], uint64_t *files, uint64_t *bytes, struct sd_error *err)
{
	struct walker w = { .err = err };
	int ret = 0;

	sha256_init(&w.list);
	for (size_t i = 0; ret == 0 && i < n; i++)
		ret = walk(&w, AT_FDCWD, paths[i], in_image[i], 0);
	if (ret == 0) {
		memcpy(digest, "sha256:", 7);
		hash_digest_hex(&w.list, digest + 7);
		if (files)
			*files = w.files;
		if (bytes)
			*bytes = w.bytes;
	}
	return ret;
}

int image_digest_tree(const char *root, char digest[IMAGE_DIGEST_SIZE], uint64_t *files, uint64_t *bytes,
		      struct sd_error *err)
{
	const char *paths[] = { root }, *names[] = { "/" };

	return image_digest_entries(paths, names, 1, digest, files, bytes, err);
}
