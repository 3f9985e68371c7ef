/* image-internal.h - what image.c, image-build.c and image-digest.c share */
#ifndef SANDEVAL_IMAGE_INTERNAL_H
#define SANDEVAL_IMAGE_INTERNAL_H

#include "sandbox/image.h"

/* Digest the host entries PATHS[i], each known as IN_IMAGE[i], in that (sorted) order. */
int image_digest_entries(const char *const *paths, const char *const *in_image, size_t n,
			 char digest[IMAGE_DIGEST_SIZE], uint64_t *files, uint64_t *bytes, struct sd_error *err);
/* Write DIR/image.json for INFO (0444). */
int image_info_write(const char *dir, const struct image_info *info, struct sd_error *err);
/* Make a tree read-only (a-w), or writable again for the owner (u+w). */
int image_tree_readonly(const char *root, bool readonly, struct sd_error *err);

#endif
