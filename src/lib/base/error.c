/* error.c - error objects filled by library functions, wrapped by callers */
#include "base/error.h"

#include <stdio.h>
#include <string.h>

static void vset(struct sd_error *err, int code, const char *fmt, va_list ap)
{
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int sd_error_set(struct sd_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vset(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int sd_error_errno(struct sd_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vset(err, code, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(code));
	return -1;
}

/* Where to cut S (of LEN bytes) at or before AT without splitting a UTF-8 character. */
static size_t char_start(const char *s, size_t len, size_t at)
{
	while (at > 0 && at < len && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	return at;
}

/* "context: old message". When that does not fit, the middle gives way
 * ("context: ... root cause"): the outermost context says where, the end
 * of the chain says what went wrong, and both survive however long the
 * chain in between. */
int sd_error_wrap(struct sd_error *err, const char *fmt, ...)
{
	char prefix[512], whole[sizeof(prefix) + 2 + sizeof(err->msg)];
	const size_t cap = sizeof(err->msg) - 1, head_max = cap / 3;
	size_t len, head, tail;
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	snprintf(whole, sizeof(whole), "%s: %s", prefix, err->msg);
	len = strlen(whole);
	if (len <= cap) {
		memcpy(err->msg, whole, len + 1);
		return -1;
	}
	head = char_start(whole, len, head_max);
	tail = len - (cap - head - 5);
	while (tail < len && ((unsigned char)whole[tail] & 0xc0) == 0x80)
		tail++;
	snprintf(err->msg, sizeof(err->msg), "%.*s ... %s", (int)head, whole, whole + tail);
	return -1;
}
