/* fuzz-agent-answer.c - fuzz target: what a model server or a generator program answers (generator.c's parsers), then cleaned (prompt.c)
 *
 * The first byte picks the parser (chat completions or a program's JSON);
 * the rest is the answer, untrusted bytes. Properties: a parse either
 * fails with a message and adds nothing, or adds completions that are C
 * strings without NUL bytes, with non-negative token counts; every
 * completion cleaned (prompt_clean, for a HumanEval and an MBPP task)
 * gives a string no longer than the completion plus the prompt, with no
 * CR and no NUL.
 */
#define _GNU_SOURCE
#include <string.h>

#include "agent/generator.h"
#include "agent/prompt.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct generator_answer a = { 0 };
	struct sd_error err = { 0 };
	struct task t = { .id = "T/0", .language = "python", .format = TASK_HUMANEVAL, .entry_point = "f",
			  .prompt = "import math\n\ndef f(x):\n    \"\"\">>> f(1)\n    2\n    \"\"\"\n" };
	int r;

	if (size < 1)
		return 0;
	r = (data[0] & 1) ? generator_parse_chat((const char *)data + 1, size - 1, &a, &err)
			  : generator_parse_command((const char *)data + 1, size - 1, &a, &err);
	if (r < 0) {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(a.n == 0);
	}
	FUZZ_CHECK(a.prompt_tokens >= 0 && a.completion_tokens >= 0);
	for (size_t i = 0; i < a.n; i++) {
		size_t len = strlen(a.completions[i]);

		FUZZ_CHECK(len < size);
		for (int f = 0; f < 2; f++) {
			bool whole;
			char *c;

			t.format = f ? TASK_MBPP : TASK_HUMANEVAL;
			c = prompt_clean(&t, a.completions[i], &whole);
			FUZZ_CHECK(c != NULL);
			FUZZ_CHECK(strlen(c) <= len + strlen(t.prompt));
			FUZZ_CHECK(!strchr(c, '\r'));
			FUZZ_CHECK(whole || t.format == TASK_HUMANEVAL);
			free(c);
		}
	}
	generator_answer_release(&a);
	return 0;
}
