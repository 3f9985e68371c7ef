/* harness.h - the values a C candidate is called with and answers with (see harness.c) */
#ifndef SANDEVAL_HARNESS_H
#define SANDEVAL_HARNESS_H

#include <stddef.h>

enum sv_kind { SV_NULL, SV_INT, SV_FLOAT, SV_BOOL, SV_STR };

struct sv {
	enum sv_kind kind;
	long long i;		/* SV_INT, SV_BOOL */
	double d;		/* SV_FLOAT */
	char *s;		/* SV_STR: NUL-terminated, writable copy */
	size_t len;
};

/* Generated per task from its signature (/tmp/glue.c): check the arguments,
 * call the candidate, fill *out. Returns 0, or -1 with a message in *why. */
int sandeval_call(struct sv *args, int n, struct sv *out, const char **why);

#endif
