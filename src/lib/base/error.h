/* error.h - error objects filled by library functions, wrapped by callers */
#ifndef SANDEVAL_ERROR_H
#define SANDEVAL_ERROR_H

#include <stdarg.h>

struct sd_error {
	int code;		/* errno value, or 0 */
	char msg[1024];
};

/* Set *err (if not NULL) to the formatted message; return -1. */
int sd_error_set(struct sd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like sd_error_set, appending ": strerror(code)". */
int sd_error_errno(struct sd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix the current message with context ("context: old message"); return -1. */
int sd_error_wrap(struct sd_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
