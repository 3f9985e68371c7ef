/* utf8.c - make untrusted bytes valid UTF-8 for JSON output */
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_valid_seq(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	return n;
}

char *utf8_sanitize(const char *buf, size_t len, size_t *out_len)
{
	/* Worst case each byte becomes the 3-byte replacement character. */
	char *out = malloc(len * 3 + 1);
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, o = 0;

	if (!out)
		return NULL;
	while (i < len) {
		size_t n = utf8_valid_seq(s + i, len - i);

		if (n) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	if (out_len)
		*out_len = o;
	return out;
}

size_t utf8_put_term(FILE *f, const char *s, size_t max)
{
	size_t len = s ? strlen(s) : 0, i = 0, chars = 0;

	while (i < len && chars < max) {
		size_t q = utf8_valid_seq((const unsigned char *)s + i, len - i);
		unsigned char c = (unsigned char)s[i];

		if (q == 0 || (q == 1 && (c < 0x20 || c == 0x7f)) ||
		    (q == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0)) {	/* C1 controls */
			if (f)
				fputc('?', f);
			i += q ? q : 1;
		} else {
			if (f)
				fwrite(s + i, 1, q, f);
			i += q;
		}
		chars++;
	}
	if (i < len) {
		if (f)
			fputs("...", f);
		chars += 3;
	}
	return chars;
}
