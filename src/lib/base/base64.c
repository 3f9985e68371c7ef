/* base64.c - RFC 4648 base64 (the standard alphabet, padded), as JSON APIs carry file contents */
#include "base/base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len, size_t cap, size_t *out_len)
{
	const unsigned char *p = data;
	size_t n = (len + 2) / 3 * 4, o = 0;
	char *s;

	if (len > (SIZE_MAX - 4) / 4 * 3 || (cap && n > cap))
		return NULL;
	s = malloc(n + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		size_t left = len - i;

		if (left > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (left > 2)
			v |= p[i + 2];
		s[o++] = alphabet[v >> 18 & 63];
		s[o++] = alphabet[v >> 12 & 63];
		s[o++] = left > 1 ? alphabet[v >> 6 & 63] : '=';
		s[o++] = left > 2 ? alphabet[v & 63] : '=';
	}
	s[o] = '\0';
	if (out_len)
		*out_len = o;
	return s;
}

static int value_of(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int base64_decode(const char *text, size_t len, char **out, size_t *out_len, size_t *bad_at)
{
	unsigned char *buf = malloc(len / 4 * 3 + 4);
	uint32_t acc = 0;
	size_t n = 0, o = 0, pad = 0, i;

	if (!buf)
		return -2;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		int v;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			/* padding: only after two or three characters of a quantum, then only more '=' to its end */
			if (n < 2 || n + pad >= 4)
				goto bad;
			pad++;
			continue;
		}
		if (pad || (v = value_of(c)) < 0)
			goto bad;
		acc = acc << 6 | (uint32_t)v;
		if (++n == 4) {
			buf[o++] = (unsigned char)(acc >> 16);
			buf[o++] = (unsigned char)(acc >> 8);
			buf[o++] = (unsigned char)acc;
			acc = 0;
			n = 0;
		}
	}
	if (pad && n + pad != 4)
		goto bad_end;
	if (n == 1)
		goto bad_end;
	if (n == 2) {
		buf[o++] = (unsigned char)(acc >> 4);	/* bits past the last byte are ignored, as Python does */
	} else if (n == 3) {
		buf[o++] = (unsigned char)(acc >> 10);
		buf[o++] = (unsigned char)(acc >> 2);
	}
	buf[o] = '\0';
	*out = (char *)buf;
	*out_len = o;
	return 0;
bad_end:
	i = len;
bad:
	free(buf);
	if (bad_at)
		*bad_at = i;
	return -1;
}
