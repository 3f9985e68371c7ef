/* image.h - root filesystems for sandboxes: built, digested, stored read-only, pinned by NAME@sha256:HEX */
#ifndef SANDEVAL_IMAGE_H
#define SANDEVAL_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/image-ref.h"

/* What image.json records of one build. */
struct image_info {
	char name[IMAGE_NAME_MAX + 1];
	char digest[IMAGE_DIGEST_SIZE];
	char created[32];		/* UTC, ISO 8601 */
	char source[64];		/* "debootstrap bookworm" or "host files" */
	char **packages;		/* what was asked for: Debian packages or host paths */
	size_t n_packages;
	uint64_t files;			/* entries in the digest listing */
	uint64_t bytes;			/* bytes of regular files */
	char rootfs[4096];		/* filled by image_resolve and image_list */
};

void image_info_release(struct image_info *info);
/* Parse image.json text (untrusted: fuzzed). 0, or -1 with the reason. */
int image_info_parse(const char *text, size_t len, struct image_info *info, struct sd_error *err);

/* Where images live: $SANDEVAL_IMAGES if set (absolute), else
 * /var/lib/sandeval/images for root, else $XDG_DATA_HOME/sandeval/images
 * (~/.local/share/...). Created when CREATE. */
int image_store_dir(char *buf, size_t size, bool create, struct sd_error *err);

/* The canonical digest of a tree: sha256 over a sorted listing of every
 * entry's path, type, permission bits, link target or device number, and the
 * sha256 of each regular file's contents (no owners, no times). FILES and
 * BYTES (may be NULL) count the entries and regular-file bytes. */
int image_digest_tree(const char *root, char digest[IMAGE_DIGEST_SIZE], uint64_t *files, uint64_t *bytes,
		      struct sd_error *err);

struct image_build_opts {
	const char *name;
	const char *const *packages;	/* Debian packages for debootstrap --include */
	size_t n_packages;
	const char *const *from_host;	/* or: host paths to copy with their shared libraries */
	size_t n_from_host;
	const char *suite;		/* "bookworm" */
	const char *mirror;		/* "http://deb.debian.org/debian" */
	int log_fd;			/* debootstrap's output goes here (-1: /dev/null) */
};

/* Build a new image into STORE: a fresh root filesystem, digested, made
 * read-only and stored under NAME/<hex>/rootfs with NAME/<hex>/image.json.
 * Building NAME again adds a new digest beside the old ones. */
int image_build(const char *store, const struct image_build_opts *o, struct image_info *info, struct sd_error *err);

/* Every build in STORE, sorted by name, newest first within a name. */
int image_list(const char *store, struct image_info **list, size_t *n, struct sd_error *err);
void image_list_free(struct image_info *list, size_t n);

/* The build a reference names: NAME@sha256:X exactly (a clear error when
 * NAME has no such digest), NAME alone the newest build. */
int image_resolve(const char *store, const struct image_ref *ref, struct image_info *info, struct sd_error *err);

/* TEXT resolved once into OUT as NAME@sha256:HEX (NAME alone: its newest
 * build), so that a whole run uses one build even if NAME is rebuilt
 * meanwhile; "host" and directories are copied as they are. A pinned digest
 * that NAME has no build of is refused, with the builds it has. */
int image_pin(const char *text, char *out, size_t size, struct sd_error *err);

/* Remove NAME (every build) or NAME@sha256:X (that one). Returns how many builds went, or -1. */
int image_remove(const char *store, const struct image_ref *ref, struct sd_error *err);

/* The host image (/usr, /bin, /sbin, /lib*, the /etc files sandboxes see):
 * its digest from the cache file CACHE when the cache's fingerprint (dpkg's
 * status file and the top directories' change times) still matches, else ""
 * (fast: a few stat calls). With COMPUTE, digest the host (slow: all of /usr)
 * and refresh the cache. */
int image_host_digest(const char *cache, bool compute, char digest[IMAGE_DIGEST_SIZE], struct sd_error *err);
/* The host image's files, as a NULL-terminated list of absolute paths. */
const char *const *image_host_paths(void);

#endif
