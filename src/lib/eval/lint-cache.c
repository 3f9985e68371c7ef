/* lint-cache.c - lint envelopes kept by content: an identical program with an identical plan is linted once per process
 *
 * pass@k sample sets repeat themselves (the same completion drawn again),
 * and a linter's report on a file depends only on the file and on how it
 * is run. The cache maps a key -- SHA-256 over the plan (tools, argv, env,
 * PATH, timeout, output cap), the files injected beside the driver, each
 * linter executable's identity (path, inode, size, mtime) and the program
 * linted, built by lint.c -- to the envelope the lint sandbox printed. What
 * is kept is the envelope, not the verdict: lint_read_envelope judges it
 * again for each sample, with that sample's threshold and prompt lines, so a
 * hit cannot differ from a miss but for the tools' times. Only envelopes
 * whose every tool ran and was understood are kept (a sample `passed` or
 * `failed`), never a timeout, a crash or a missing linter.
 *
 * It lives in memory, in the process that lints, for that process's life:
 * one run. A run fills its process's cache with the reports of the samples
 * it is about to evaluate, linted in batches (lint-batch.c), before it forks
 * the workers that evaluate them: each worker starts with a copy. An entry
 * from a batch says which lint sandbox printed it (its origin). Bounded: LINT_CACHE_BYTES of
 * envelopes, after which nothing more is added.
 */
#define _GNU_SOURCE
#include "eval/evaluator-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LINT_CACHE_BYTES (64u << 20)

struct entry {
	unsigned char key[LINT_KEY_LEN];
	char *text;
	size_t len;
	char *origin;		/* the batch's lint sandbox (lint-batch.c), or NULL */
};

struct lint_cache {
	struct entry *v;	/* open addressing, cap a power of two */
	size_t n, cap, bytes;
	size_t hits, misses;
};

struct lint_cache *lint_cache_new(void)
{
	return calloc(1, sizeof(struct lint_cache));
}

void lint_cache_free(struct lint_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		free(c->v[i].text);
		free(c->v[i].origin);
	}
	free(c->v);
	free(c);
}

static size_t slot(const struct lint_cache *c, const unsigned char *key)
{
	size_t h = 0;

	memcpy(&h, key, sizeof(h));
	for (h &= c->cap - 1; c->v[h].text && memcmp(c->v[h].key, key, LINT_KEY_LEN) != 0; h = (h + 1) & (c->cap - 1))
		;
	return h;
}

const char *lint_cache_get(struct lint_cache *c, const unsigned char *key, size_t *len, const char **origin)
{
	struct entry *e;

	if (!c->cap) {
		c->misses++;
		return NULL;
	}
	e = &c->v[slot(c, key)];
	if (!e->text) {
		c->misses++;
		return NULL;
	}
	c->hits++;
	*len = e->len;
	if (origin)
		*origin = e->origin;
	return e->text;
}

static int grow(struct lint_cache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 64;
	struct entry *old = c->v, *v = calloc(cap, sizeof(*v));
	size_t old_cap = c->cap;

	if (!v)
		return -1;
	c->v = v;
	c->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].text)
			c->v[slot(c, old[i].key)] = old[i];
	free(old);
	return 0;
}

int lint_cache_put(struct lint_cache *c, const unsigned char *key, const char *text, size_t len,
		   const char *origin)
{
	struct entry *e;

	if (c->bytes + len > LINT_CACHE_BYTES)
		return 0;	/* full: later envelopes are simply not kept */
	if ((c->n + 1) * 2 > c->cap && grow(c) < 0)
		return -ENOMEM;
	e = &c->v[slot(c, key)];
	if (e->text)
		return 0;
	if (origin && !(e->origin = strdup(origin)))
		return -ENOMEM;
	if (!(e->text = malloc(len + 1))) {
		free(e->origin);
		e->origin = NULL;
		return -ENOMEM;
	}
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	e->len = len;
	memcpy(e->key, key, LINT_KEY_LEN);
	c->n++;
	c->bytes += len;
	return 0;
}

void lint_cache_counts(const struct lint_cache *c, size_t *hits, size_t *misses)
{
	*hits = c->hits;
	*misses = c->misses;
}
