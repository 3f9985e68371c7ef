/* prompt.h - what the agent loop says to a model and what it takes back: prompts from templates, completions cleaned, a task's public tests
 *
 * Everything here is computation on text (no I/O), so that it can be
 * tested and fuzzed on its own (docs/agent.md has the rules in prose).
 */
#ifndef SANDEVAL_PROMPT_H
#define SANDEVAL_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "suite/task.h"

/* The most a completion may hold before cleaning: a longer one is a failed
 * candidate, not code to run. */
#define PROMPT_COMPLETION_MAX (4u << 20)

/* TEXT, a model's answer for task T, cleaned into code to run: the first
 * fenced block (``` ... ```) that defines T's entry point, else the first
 * fenced block, else the whole text; CR LF as LF, NUL bytes dropped. For a
 * HumanEval task, an answer that defines the entry point at column 0 (the
 * model repeated the prompt) becomes a whole program: the prompt's text
 * before its own "def ENTRY(" (imports, helpers) and then the answer, cut
 * before a top-level `if __name__`; *whole is then true (a "solution"),
 * else the answer is a body to append to the prompt (a "completion"). For
 * MBPP and native tasks the answer is always a whole program. malloc'd;
 * NULL on ENOMEM. */
char *prompt_clean(const struct task *t, const char *text, bool *whole);

/* *OUT: a copy of T holding only the tests the loop may run and show a
 * model. Native suites: the public tests. HumanEval: the prompt's examples
 * (`>>> CALL` and the line after it; `CALL ==> VALUE`, `CALL ➞ VALUE`,
 * `CALL == VALUE`, `CALL -> VALUE`, `CALL => VALUE` lines where CALL calls
 * the entry point), each an assert of its own. MBPP: the first assertion
 * (the one the prompt shows). *n_public: how many there are (0: the
 * candidate is only run, no test judges it). -1 with *err for other formats
 * and on ENOMEM. */
int prompt_public_task(const struct task *t, struct task *out, size_t *n_public, struct sd_error *err);

/* TMPL with every {{NAME}} of VARS (NAME, VALUE pairs, NULL-terminated)
 * replaced by its value; an unknown {{NAME}} stays as it is. malloc'd;
 * NULL on ENOMEM. */
char *prompt_render(const char *tmpl, const char *const *vars);

#endif
