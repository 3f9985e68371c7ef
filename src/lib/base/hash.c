/* hash.c - SHA-256 (nettle) helpers: length-prefixed fields and lowercase hex digests */
#include "base/hash.h"

#include <string.h>

void hash_update_lp(struct sha256_ctx *ctx, const void *p, size_t n)
{
	uint8_t len[8];

	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)((uint64_t)n >> (56 - 8 * i));
	sha256_update(ctx, sizeof(len), len);
	if (n)
		sha256_update(ctx, n, p);
}

void hash_update_str(struct sha256_ctx *ctx, const char *s)
{
	uint8_t tag = s ? 's' : 'n';

	sha256_update(ctx, 1, &tag);
	hash_update_lp(ctx, s, s ? strlen(s) : 0);
}

void hash_hex(const uint8_t *digest, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[digest[i] >> 4];
		out[2 * i + 1] = digits[digest[i] & 15];
	}
	out[2 * n] = '\0';
}

void hash_digest_hex(struct sha256_ctx *ctx, char hex[2 * SHA256_DIGEST_SIZE + 1])
{
	uint8_t md[SHA256_DIGEST_SIZE];

	sha256_digest(ctx, sizeof(md), md);
	hash_hex(md, sizeof(md), hex);
}
