/* base64.h - RFC 4648 base64 (the standard alphabet, padded), as JSON APIs carry file contents */
#ifndef SANDEVAL_BASE64_H
#define SANDEVAL_BASE64_H

#include <stddef.h>

/* LEN bytes of DATA as base64, NUL-terminated (malloc'd; *OUT_LEN gets its
 * length without the NUL). NULL on ENOMEM or when the text would pass CAP
 * bytes (0: no cap). */
char *base64_encode(const void *data, size_t len, size_t cap, size_t *out_len);

/* Decode LEN characters of TEXT into a malloc'd buffer (NUL-terminated, for
 * convenience; *OUT_LEN gets the byte count). Whitespace (space, tab, CR,
 * LF) is skipped, as MIME line breaks are; padding is optional, but where
 * it is given it must be right. Returns 0, -1 when TEXT is not base64
 * (*BAD_AT gets the offset of the first offending character, or LEN when
 * the text ends mid-quantum), -2 on ENOMEM. */
int base64_decode(const char *text, size_t len, char **out, size_t *out_len, size_t *bad_at);

#endif
