/* util.c - small helpers: cleanup attributes, number parsing, whole-file I/O, clocks */
#define _GNU_SOURCE
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <libgen.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cleanup_freep(void *p)
{
	free(*(void **)p);
}

void cleanup_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

int parse_size(const char *s, uint64_t *out, struct sd_error *err)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "", 1.0 }, { "B", 1.0 },
		{ "K", 1024.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 },
		{ "M", 1048576.0 }, { "MB", 1048576.0 }, { "MiB", 1048576.0 },
		{ "G", 1073741824.0 }, { "GB", 1073741824.0 }, { "GiB", 1073741824.0 },
		{ "T", 1099511627776.0 }, { "TB", 1099511627776.0 }, { "TiB", 1099511627776.0 },
	};
	char *end;
	double v;

	if (!s || !*s || !(*s >= '0' && *s <= '9'))
		return sd_error_set(err, EINVAL, "invalid size '%s': expected a number with an optional K, M, G or T suffix", s ? s : "");
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0)
		return sd_error_set(err, EINVAL, "invalid size '%s'", s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			double bytes = v * units[i].mult;

			if (bytes >= 9.2e18)
				return sd_error_set(err, ERANGE, "size '%s' is too large", s);
			*out = (uint64_t)bytes;
			return 0;
		}
	}
	return sd_error_set(err, EINVAL, "invalid size '%s': unknown suffix '%s' (use K, M, G or T)", s, end);
}

int parse_seconds(const char *s, double max, double *out, struct sd_error *err)
{
	char *end;
	double v;

	if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return sd_error_set(err, EINVAL, "invalid duration '%s': expected seconds, e.g. 2 or 0.5", s ? s : "");
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return sd_error_set(err, EINVAL, "invalid duration '%s': expected seconds, e.g. 2 or 0.5", s);
	if (v <= 0 || v > max)
		return sd_error_set(err, ERANGE, "duration '%s' out of range (0, %g]", s, max);
	*out = v;
	return 0;
}

int parse_long(const char *s, long min, long max, long *out, struct sd_error *err)
{
	char *end;
	long v;

	if (!s || !*s)
		return sd_error_set(err, EINVAL, "invalid number ''");
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return sd_error_set(err, EINVAL, "invalid number '%s'", s);
	if (v < min || v > max)
		return sd_error_set(err, ERANGE, "number '%s' out of range [%ld, %ld]", s, min, max);
	*out = v;
	return 0;
}

ssize_t send_fds(int sock, const void *buf, size_t len, const int *fds, int n, int flags)
{
	union { char buf[CMSG_SPACE(sizeof(int) * SEND_FDS_MAX)]; struct cmsghdr align; } ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (n < 0 || n > SEND_FDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (n > 0) {
		memset(ctl.buf, 0, CMSG_SPACE(sizeof(int) * (size_t)n));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
	}
	return sendmsg(sock, &mh, flags);
}

ssize_t recv_fds(int sock, void *buf, size_t len, int *fds, int max, int *n, int flags)
{
	union { char buf[CMSG_SPACE(sizeof(int) * SEND_FDS_MAX)]; struct cmsghdr align; } ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	ssize_t got;

	*n = 0;
	while ((got = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (got < 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*n < max)
				fds[(*n)++] = fd;
			else
				close(fd);
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		while (*n > 0)
			close(fds[--*n]);
		errno = EPROTO;
		return -1;
	}
	return got;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int read_fd(int fd, const char *name, size_t cap, char **out, size_t *len, struct sd_error *err)
{
	cleanup_free char *buf = NULL;
	size_t used = 0, size = 0;

	for (;;) {
		ssize_t n;

		if (size - used < 4096) {
			char *nb;

			size = size ? size * 2 : 8192;
			nb = realloc(buf, size + 1);
			if (!nb)
				return sd_error_errno(err, ENOMEM, "cannot read '%s'", name);
			buf = nb;
		}
		n = read(fd, buf + used, size - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sd_error_errno(err, errno, "cannot read '%s'", name);
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > cap)
			return sd_error_set(err, EFBIG, "'%s' is larger than %zu bytes", name, cap);
	}
	buf[used] = '\0';
	if (len)
		*len = used;
	*out = steal_pointer(&buf);
	return 0;
}

int read_file(const char *path, size_t cap, char **out, size_t *len, struct sd_error *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", path);
	return read_fd(fd, path, cap, out, len, err);
}

int write_file(const char *path, const char *text, struct sd_error *err)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", path);
	n = write(fd, text, len);
	if (n < 0)
		return sd_error_errno(err, errno, "cannot write '%s' to '%s'", text, path);
	if ((size_t)n != len)
		return sd_error_set(err, EIO, "short write to '%s'", path);
	return 0;
}

int check_writable(const char *path, bool dir_too, struct sd_error *err)
{
	cleanup_free char *copy = strdup(path);
	const char *dir;
	struct stat sb;

	if (strcmp(path, "-") == 0)
		return 0;
	if (!copy)
		return sd_error_errno(err, ENOMEM, "cannot write '%s'", path);
	dir = dirname(copy);
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return sd_error_errno(err, EISDIR, "cannot write '%s'", path);
		if (access(path, W_OK) < 0)
			return sd_error_errno(err, errno, "cannot write '%s'", path);
		if (!dir_too)
			return 0;
	} else if (errno != ENOENT) {
		return sd_error_errno(err, errno, "cannot write '%s'", path);
	}
	if (stat(dir, &sb) < 0)
		return sd_error_errno(err, errno, "cannot write '%s': directory '%s'", path, dir);
	if (!S_ISDIR(sb.st_mode))
		return sd_error_errno(err, ENOTDIR, "cannot write '%s': '%s'", path, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return sd_error_errno(err, errno, "cannot write '%s': directory '%s'", path, dir);
	return 0;
}

int read_u64_file(const char *path, uint64_t *out, struct sd_error *err)
{
	char buf[64];
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *end;

	if (fd < 0)
		return sd_error_errno(err, errno, "cannot open '%s'", path);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return sd_error_errno(err, n < 0 ? errno : EIO, "cannot read '%s'", path);
	buf[n] = '\0';
	if (strncmp(buf, "max", 3) == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return sd_error_set(err, EINVAL, "'%s' does not hold a number", path);
	return 0;
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_ms(void)
{
	return now_ns() / 1000000;
}

int random_hex(char *hex, size_t n, struct sd_error *err)
{
	unsigned char raw[64];
	size_t got = 0;

	if (n > sizeof(raw))
		return sd_error_set(err, EINVAL, "random_hex: %zu bytes is too many", n);
	while (got < n) {
		ssize_t r = getrandom(raw + got, n - got, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return sd_error_errno(err, errno, "getrandom");
		}
		got += (size_t)r;
	}
	hex[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

static int make_writable(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && (sb->st_mode & 0700) != 0700)
		chmod(path, (sb->st_mode & 07777) | 0700);
	return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int remove_tree(const char *path, struct sd_error *err)
{
	struct stat sb;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : sd_error_errno(err, errno, "cannot stat '%s'", path);
	/* read-only directories (images) must be writable to be emptied */
	if (S_ISDIR(sb.st_mode)) {
		if (nftw(path, make_writable, 64, FTW_PHYS) < 0)
			return sd_error_errno(err, errno, "cannot remove '%s'", path);
	}
	if (nftw(path, remove_entry, 64, FTW_DEPTH | FTW_PHYS) < 0)
		return sd_error_errno(err, errno, "cannot remove '%s'", path);
	return 0;
}
