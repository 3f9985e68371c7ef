/* generator-internal.h - what generator.c shares with each kind of generator: the table of functions it fills */
#ifndef SANDEVAL_GENERATOR_INTERNAL_H
#define SANDEVAL_GENERATOR_INTERNAL_H

#include "agent/generator.h"

struct generator_ops {
	const char *kind;
	int (*generate)(struct generator *g, const struct generator_request *rq, struct generator_answer *a,
			struct sd_error *err);
	void (*free)(struct generator *g);
	void (*skip)(struct generator *g, const struct task *t, size_t n);	/* NULL: nothing to skip */
};

/* The head of every kind's handle. */
struct generator {
	const struct generator_ops *ops;
};

/* Append a copy of TEXT (LEN bytes) to A's completions; -1 on ENOMEM. */
int generator_answer_add(struct generator_answer *a, const char *text, size_t len);

#endif
