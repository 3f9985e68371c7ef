/* xml.c - untrusted text escaped for XML 1.0 (no CDATA sections: "]]>" is just text) */
#include "base/xml.h"

#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

static uint32_t decode(const unsigned char *s, size_t q)
{
	switch (q) {
	case 1:
		return s[0];
	case 2:
		return (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	case 3:
		return (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	default:
		return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
		       (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
	}
}

/* Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] */
static bool char_ok(uint32_t cp)
{
	return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

bool xml_put(FILE *f, const char *s, size_t len, size_t max, bool attr)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t q = utf8_valid_seq(u + i, len - i);
		uint32_t cp;

		if (i + (q ? q : 1) > max)
			return true;
		if (q == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD for a byte that is not UTF-8 */
			i++;
			continue;
		}
		cp = decode(u + i, q);
		if (!char_ok(cp)) {
			i += q;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs(attr ? "&quot;" : "\"", f); break;
		case '\r': fputs("&#13;", f); break;	/* else parsers turn it into \n */
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;	/* else normalized to a space */
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		default: fwrite(u + i, 1, q, f); break;
		}
		i += q;
	}
	return false;
}

void xml_text(FILE *f, const char *s)
{
	if (s)
		xml_put(f, s, strlen(s), SIZE_MAX, false);
}

void xml_attr(FILE *f, const char *name, const char *s)
{
	fprintf(f, " %s=\"", name);
	if (s)
		xml_put(f, s, strlen(s), SIZE_MAX, true);
	fputc('"', f);
}
