/* xml.h - untrusted text escaped for XML 1.0 element content and attribute values */
#ifndef SANDEVAL_XML_H
#define SANDEVAL_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The first LEN bytes of S on F, escaped for element text or (ATTR) a
 * double-quoted attribute value: & < > " escaped, characters XML 1.0 cannot
 * hold dropped (C0 controls but tab, newline, carriage return; U+FFFE,
 * U+FFFF), invalid UTF-8 as U+FFFD; stops before a character that would pass
 * MAX input bytes. Returns true when it stopped early. */
bool xml_put(FILE *f, const char *s, size_t len, size_t max, bool attr);
/* All of S (NULL: nothing) as element text. */
void xml_text(FILE *f, const char *s);
/* ` NAME="S"`, escaped. */
void xml_attr(FILE *f, const char *name, const char *s);

#endif
