/* fuzz-lint-bandit.c - fuzz target: lint_parse() of what bandit printed (untrusted: the candidate is its input) */
#include "fuzz-lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lint("bandit", "/work/candidate.py", data, size);
}
