/* fuzz-agent-prompt.c - fuzz target: the public tests taken from a prompt's examples (prompt.c), the prompt being any text
 *
 * The input, cut at its first NUL, is a HumanEval prompt whose entry point
 * is "f". Properties: prompt_public_task succeeds; the test code starts
 * with "def check(candidate):\n" and holds exactly n_public lines more, each
 * "    assert (CALL) == (VALUE)" with nothing but that on the line (no
 * newline of the prompt reaches it, so no text of the prompt can become a
 * statement of its own); the task itself is left as it was.
 */
#define _GNU_SOURCE
#include <string.h>

#include "agent/prompt.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *prompt = strndup((const char *)data, size);
	struct task t = { .id = "T/0", .language = "python", .format = TASK_HUMANEVAL, .entry_point = "f",
			  .test_code = "def check(candidate):\n    assert candidate(1) == 2\n" }, c;
	struct sd_error err = { 0 };
	size_t n = 99, lines = 0;
	const char *head = "def check(candidate):\n";

	if (!prompt)
		return 0;
	t.prompt = prompt;
	FUZZ_CHECK(prompt_public_task(&t, &c, &n, &err) == 0);
	FUZZ_CHECK(strncmp(c.test_code, head, strlen(head)) == 0);
	for (const char *p = c.test_code + strlen(head); *p; lines++) {
		const char *e = strchr(p, '\n');

		FUZZ_CHECK(e != NULL);
		FUZZ_CHECK(strncmp(p, "    assert (", 12) == 0);
		FUZZ_CHECK(memmem(p, (size_t)(e - p), ") == (", 6) != NULL && e[-1] == ')');
		p = e + 1;
	}
	FUZZ_CHECK(lines == n);
	FUZZ_CHECK(strcmp(t.test_code, "def check(candidate):\n    assert candidate(1) == 2\n") == 0);
	task_release(&c);
	free(prompt);
	return 0;
}
