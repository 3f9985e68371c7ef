/* fuzz-lint-eslint.c - fuzz target: lint_parse() of what eslint printed (untrusted: the candidate is its input) */
#include "fuzz-lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lint("eslint", "/work/candidate.js", data, size);
}
