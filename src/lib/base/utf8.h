/* utf8.h - make untrusted bytes valid UTF-8 for JSON output */
#ifndef SANDEVAL_UTF8_H
#define SANDEVAL_UTF8_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there are
 * not a valid, shortest-form, non-surrogate sequence. */
size_t utf8_valid_seq(const unsigned char *s, size_t len);

/* Return a malloc'd NUL-terminated copy of buf with each invalid byte replaced by
 * U+FFFD; *out_len gets its length (embedded NULs are kept). NULL on ENOMEM. */
char *utf8_sanitize(const char *buf, size_t len, size_t *out_len);

/* Print at most MAX characters of untrusted S for a terminal: control bytes
 * (C0, DEL, C1) and invalid UTF-8 as '?', "..." when cut. Returns the
 * characters printed; with F NULL, only counts them. */
size_t utf8_put_term(FILE *f, const char *s, size_t max);

#endif
