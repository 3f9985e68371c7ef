/* sanitize-internal.h - what sanitize.c and sanitize-python.c share: the growable output buffer and the Python pass */
#ifndef SANDEVAL_SANITIZE_INTERNAL_H
#define SANDEVAL_SANITIZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct sz_buf {
	char *p;
	size_t len, cap;
};

/* Append N bytes; -1 on ENOMEM (the buffer stays as it was). */
int sz_buf_add(struct sz_buf *b, const char *s, size_t n);

/* True when LINE (N bytes, no newline) opens Python's definition of NAME at
 * column 0: "def NAME(" or "async def NAME(" (spaces and tabs between). */
bool sz_py_defines(const char *line, size_t n, const char *name);

/* The Python pass over LEN bytes at X (docs/sanitize.md, rules 4-9): the
 * top-level statements kept, appended to OUT, and SANITIZE_* bits of what
 * was taken off or'ed into *RULES. BODY: X is a function body that follows
 * the prompt's signature of ENTRY (prose before it goes; what it uses is
 * kept). ENTRY NULL: no entry point known. 0, or -1 with *err (ENOMEM). */
int sz_python(const char *x, size_t len, const char *entry, bool body, struct sz_buf *out, unsigned *rules,
	      struct sd_error *err);

#endif
