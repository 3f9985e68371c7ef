/* image-ref.h - image references: NAME or NAME@sha256:HEX, parsed (untrusted: fuzzed)
 *
 * Apart from the image store (image.h) so that what only names an image --
 * a task's manifest, a run's config -- parses it without the sandbox layer.
 */
#ifndef SANDEVAL_IMAGE_REF_H
#define SANDEVAL_IMAGE_REF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define IMAGE_NAME_MAX 64
#define IMAGE_DIGEST_SIZE 72	/* "sha256:" + 64 hex + NUL */

/* NAME or NAME@sha256:<64 lower-case hex>. NAME: [a-z0-9][a-z0-9._-]*, at most
 * IMAGE_NAME_MAX bytes, not "host" with a digest of another image. */
struct image_ref {
	char name[IMAGE_NAME_MAX + 1];
	char digest[IMAGE_DIGEST_SIZE];	/* "" when not pinned */
};

int image_ref_parse(const char *text, struct image_ref *ref, struct sd_error *err);
/* True when TEXT names an image rather than a directory ("host" is an image too). */
bool image_ref_like(const char *text);
/* True when the N bytes at S are a valid image name. */
bool image_name_ok(const char *s, size_t n);

#endif
