/* hash.h - SHA-256 (nettle) helpers: length-prefixed fields, so that a sequence of fields hashes unambiguously, and digests as lowercase hex */
#ifndef SANDEVAL_HASH_H
#define SANDEVAL_HASH_H

#include <nettle/sha2.h>
#include <stddef.h>
#include <stdint.h>

/* Feed N bytes of P to CTX as one field: N as a 64-bit big-endian number,
 * then the bytes (P may be NULL when N is 0). */
void hash_update_lp(struct sha256_ctx *ctx, const void *p, size_t n);
/* Feed the string S to CTX as one tagged field: the byte 's' and S as
 * hash_update_lp does, or for NULL the byte 'n' and an empty field (so
 * NULL and "" hash apart). */
void hash_update_str(struct sha256_ctx *ctx, const char *s);
/* The N bytes of DIGEST as 2*N lowercase hex digits and a NUL into OUT. */
void hash_hex(const uint8_t *digest, size_t n, char *out);
/* Finish CTX (sha256_digest, which also resets it) into HEX: 64 digits and a NUL. */
void hash_digest_hex(struct sha256_ctx *ctx, char hex[2 * SHA256_DIGEST_SIZE + 1]);

#endif
