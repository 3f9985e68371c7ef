/* image-ref.c - image references: NAME or NAME@sha256:HEX, parsed (untrusted: fuzzed) */
#include "base/image-ref.h"

#include <errno.h>
#include <string.h>

#define HEX "0123456789abcdef"

bool image_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > IMAGE_NAME_MAX || !strchr("abcdefghijklmnopqrstuvwxyz0123456789", s[0]) || !s[0])
		return false;
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", s[i]))
			return false;
	return true;
}

bool image_ref_like(const char *text)
{
	return text && text[0] != '/' && text[0] != '.' && text[0] != '\0';
}

int image_ref_parse(const char *text, struct image_ref *ref, struct sd_error *err)
{
	const char *at = strchr(text, '@');
	size_t n = at ? (size_t)(at - text) : strlen(text);

	if (!image_name_ok(text, n))
		return sd_error_set(err, EINVAL, "bad image name '%.*s' (lower-case letters, digits, '.', '_', '-'; "
				    "at most %d, starting with a letter or digit)", (int)(n > 80 ? 80 : n), text,
				    IMAGE_NAME_MAX);
	memset(ref, 0, sizeof(*ref));
	memcpy(ref->name, text, n);
	if (!at)
		return 0;
	if (strncmp(at + 1, "sha256:", 7) != 0 || strlen(at + 8) != 64 || strspn(at + 8, HEX) != 64)
		return sd_error_set(err, EINVAL, "bad image digest in '%.*s' (want NAME@sha256: and 64 lower-case hex digits)",
				    (int)(strlen(text) > 160 ? 160 : strlen(text)), text);
	memcpy(ref->digest, at + 1, 7 + 64);
	return 0;
}
