/* fuzz-lint-cppcheck.c - fuzz target: lint_parse() of what cppcheck printed (untrusted: the candidate is its input) */
#include "fuzz-lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lint("cppcheck", "/work/candidate.c", data, size);
}
