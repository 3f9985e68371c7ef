/* sanitize.h - model output cleaned before it is scored: markdown fences and chatter taken off, the code the entry point needs kept
 *
 * `sandeval run --sanitize` and `sandeval lint --sanitize` (docs/sanitize.md
 * has every rule, and where each agrees with and differs from EvalPlus's
 * sanitizer). The work is text in, text out, done here in C on the bytes
 * the samples file gave, without running or importing anything:
 *
 *   1. fences: when the text holds markdown code fences (``` or ~~~), the
 *      code is one block: the last that defines the entry point, among the
 *      blocks tagged with the task's language or untagged; else the
 *      longest of them. Everything outside it is chatter and goes.
 *      (sanitize.c)
 *   2. Python only: the code is cut into top-level statements by a
 *      tokenizer that knows strings, comments, brackets and continuation
 *      lines (sanitize-python.c). Imports are kept; definitions (def,
 *      class, assignments) are kept when the entry point reaches them
 *      through the names they use; everything else at top level -- prints,
 *      asserts, `if __name__ == "__main__":`, loops, prose -- goes. A
 *      completion that is a function body (HumanEval: it follows the
 *      prompt's signature) keeps its body as written; prose lines before
 *      such a body go.
 *
 * Whatever comes out is whole lines of the input, in their order (a fenced
 * block indented as its fence less that indentation): the sanitizer never
 * writes code of its own (but a newline between pieces).
 */
#ifndef SANDEVAL_SANITIZE_H
#define SANDEVAL_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "suite/task.h"

/* Longer input is left as given: model answers are a few KiB (the longest
 * GPT-4 answer in ../shared/data is 2 KiB), and the work takes memory of
 * the order of 50 times the text in the worst case (a line per byte). */
#define SANITIZE_MAX_INPUT (1u << 20)

/* What was taken off (sanitize_text's out->rules). */
enum {
	SANITIZE_FENCE = 1 << 0,	/* text outside the chosen fenced block */
	SANITIZE_CHATTER = 1 << 1,	/* prose lines before a function body */
	SANITIZE_DROPPED = 1 << 2,	/* top-level statements the entry point does not need */
};

struct sanitize_spec {
	const char *language;		/* the task's: "python" (also NULL), "c", "cpp", "javascript" */
	const char *entry_point;	/* the function under test; NULL: none known */
	const char *prompt;		/* a completion's prompt (the text is appended to it); NULL: a whole program */
};

struct sanitize_out {
	char *text;			/* malloc'd, NUL-terminated; NULL when unchanged */
	size_t len;
	unsigned rules;			/* SANITIZE_* */
};

/* Sanitize LEN bytes at TEXT (any bytes: invalid UTF-8 and NULs pass through
 * in the lines kept). 1: changed, the new text in *OUT; 0: nothing to take
 * off (out->text NULL); -1 with *err on ENOMEM. */
int sanitize_text(const char *text, size_t len, const struct sanitize_spec *spec, struct sanitize_out *out,
		  struct sd_error *err);
void sanitize_out_release(struct sanitize_out *out);

/* Sanitize every sample of SET against its task in TASKS: a sample that
 * changes keeps what the file gave in ->given and the sanitized code in
 * ->code; SET is marked sanitized. *CHANGED (may be NULL): how many
 * changed. 0, or -1 with *err (ENOMEM; a sample whose task is not in TASKS). */
int sample_set_sanitize(struct sample_set *set, const struct task_set *tasks, size_t *changed,
			struct sd_error *err);

#endif
