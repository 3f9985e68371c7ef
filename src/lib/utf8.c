/* utf8.c - make untrusted bytes valid UTF-8 for JSON output */
#include "utf8.h"

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
