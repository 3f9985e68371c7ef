/* util.h - small helpers: cleanup attributes, number parsing, whole-file I/O, clocks */
#ifndef SANDEVAL_UTIL_H
#define SANDEVAL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

void cleanup_freep(void *p);
void cleanup_closep(int *fd);
#define cleanup_free __attribute__((cleanup(cleanup_freep)))
#define cleanup_close __attribute__((cleanup(cleanup_closep)))

/* Hand ownership over: return *pp and clear it (bubblewrap's steal_pointer). */
static inline void *steal_pointer(void *pp)
{
	void **p = (void **)pp;
	void *ret = *p;

	*p = NULL;
	return ret;
}

static inline int steal_fd(int *fd)
{
	int ret = *fd;

	*fd = -1;
	return ret;
}

/* "512M", "64K", "1G", "1.5G", "4096" (binary units, optional "B"/"iB").
 * Returns 0 and sets *out, or -1 with a message. */
int parse_size(const char *s, uint64_t *out, struct sd_error *err);
/* "2", "0.5", "1.25" seconds, > 0 and at most max; returns 0 or -1. */
int parse_seconds(const char *s, double max, double *out, struct sd_error *err);
/* Decimal integer in [min, max]; returns 0 or -1. */
int parse_long(const char *s, long min, long max, long *out, struct sd_error *err);

/* Write all of buf; retries on EINTR and short writes. 0 or -1 (errno set). */
int write_all(int fd, const void *buf, size_t len);
/* One sendmsg of LEN bytes of BUF on SOCK with FLAGS, and N descriptors
 * (none when N is 0, at most SEND_FDS_MAX) as SCM_RIGHTS. Allocates nothing
 * (init calls it). sendmsg's result, or -1 with EINVAL for too many. */
#define SEND_FDS_MAX 80
ssize_t send_fds(int sock, const void *buf, size_t len, const int *fds, int n, int flags);
/* send_fds' counterpart: one recvmsg of up to LEN bytes into BUF on SOCK
 * with FLAGS | MSG_CMSG_CLOEXEC, retried on EINTR. The SCM_RIGHTS
 * descriptors that came go to FDS (at most MAX, any beyond closed), their
 * number to *N. A message or control part cut short is -1 with EPROTO, its
 * descriptors closed. Allocates nothing (init calls it). recvmsg's result. */
ssize_t recv_fds(int sock, void *buf, size_t len, int *fds, int max, int *n, int flags);
/* Read up to cap bytes of a file into a NUL-terminated malloc'd string;
 * more is an error (EFBIG). */
int read_file(const char *path, size_t cap, char **out, size_t *len, struct sd_error *err);
/* The same from an open descriptor to its end (a pipe too); NAME is what
 * errors call it. FD stays open. */
int read_fd(int fd, const char *name, size_t cap, char **out, size_t *len, struct sd_error *err);
/* Write a string to an existing file (sysfs, procfs): one write(2). */
int write_file(const char *path, const char *text, struct sd_error *err);
/* Read a file holding one unsigned decimal number (sysfs). */
int read_u64_file(const char *path, uint64_t *out, struct sd_error *err);
/* Whether a file can be written at PATH -- an existing file writable, else
 * its directory there and writable; with DIR_TOO the directory must be
 * writable either way (SQLite creates its journal files beside the
 * database) -- so that a run can refuse an output at its start rather
 * than after its work. "-" (standard output) is writable. 0, or -1 with
 * "cannot write 'PATH': reason". */
int check_writable(const char *path, bool dir_too, struct sd_error *err);

/* Milliseconds and nanoseconds of CLOCK_MONOTONIC. */
int64_t now_ms(void);
int64_t now_ns(void);

/* Fill hex (2*n+1 bytes) with n random bytes from getrandom(2), hex encoded. */
int random_hex(char *hex, size_t n, struct sd_error *err);

/* Remove PATH and everything beneath it (without following symlinks); a
 * missing PATH is fine. 0 or -1 with the first failure in *err. */
int remove_tree(const char *path, struct sd_error *err);

/* Duplicate or abort-free: returns NULL on ENOMEM, callers check. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
