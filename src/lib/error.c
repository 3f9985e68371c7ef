/* error.c - error objects filled by library functions, wrapped by callers */
#include "error.h"

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

int sd_error_wrap(struct sd_error *err, const char *fmt, ...)
{
	char prefix[512], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	return -1;
}
